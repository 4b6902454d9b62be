//! What both tabs of the Visual DNA view draw alike: the card grid and a card's frame,
//! the detail pane with its header, the list's loading / error line, pictures.

use super::{LooksAction, LooksConfirm, ShownError, wrap};
use crate::ui::icons::Icon;
use crate::ui::model::{Action, Model};
use crate::ui::textures::{TextureCache, TextureLookup};
use crate::ui::{offline, tokens, widgets};
use egui::{CornerRadius, RichText, Sense, Stroke, Ui, Vec2};

/// Detail pane width.
pub(super) const DETAIL_WIDTH: f32 = 320.0;
pub(super) const DETAIL_MIN_WIDTH: f32 = 240.0;
/// A card's preferred and smallest width.
const CARD_WIDTH: f32 = 176.0;
const CARD_MIN_WIDTH: f32 = 132.0;
/// Height of a card's text under its square picture.
const CARD_TEXT_HEIGHT: f32 = 50.0;
/// Where a card's second line (type chip, image count) starts under the picture.
const CARD_SECOND_LINE_Y: f32 = 27.0;
/// Pixels a card's thumbnail is loaded at.
const CARD_THUMB_PX: u32 = 384;
const GRID_GAP: f32 = tokens::GRID_GAP * 1.5;

/// Columns and card width that fill `width` (at least one column).
pub fn grid_columns(width: f32) -> (usize, f32) {
    let columns = (((width + GRID_GAP) / (CARD_WIDTH + GRID_GAP)).floor() as usize).max(1);
    let card = ((width - GRID_GAP * (columns as f32 - 1.0)) / columns as f32).max(CARD_MIN_WIDTH);
    (columns, card.min(CARD_WIDTH * 1.35))
}

/// A scrolling grid of cards filling the width; `card` draws one at the width given.
pub(super) fn card_grid<T>(
    ui: &mut Ui,
    salt: &str,
    items: &[T],
    mut card: impl FnMut(&mut Ui, &T, f32),
) {
    egui::ScrollArea::vertical()
        .id_salt(salt)
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let width = ui.available_width() - tokens::SCROLLBAR_ALLOWANCE;
            let (columns, card_width) = grid_columns(width);
            for row in items.chunks(columns) {
                ui.horizontal_top(|ui| {
                    ui.spacing_mut().item_spacing.x = GRID_GAP;
                    for item in row {
                        card(ui, item, card_width);
                    }
                });
                ui.add_space(GRID_GAP);
            }
        });
}

/// A drawn card: its response, the picture's square and where its second line goes.
pub(super) struct Card {
    pub response: egui::Response,
    pub picture: egui::Rect,
    pub second_line: egui::Pos2,
    pub visible: bool,
}

/// A card's frame: the square picture at `url` (with `overlay` painted over it), the
/// outline (accent when selected) and the name under it. The caller adds the second line.
pub(super) fn card_ui(
    ui: &mut Ui,
    width: f32,
    selected: bool,
    url: Option<&str>,
    name: &str,
    textures: &TextureCache,
    overlay: impl FnOnce(&mut Ui, egui::Rect),
) -> Card {
    let (rect, response) =
        ui.allocate_exact_size(Vec2::new(width, width + CARD_TEXT_HEIGHT), Sense::click());
    let picture = egui::Rect::from_min_size(rect.min, Vec2::splat(width));
    let visible = ui.is_rect_visible(rect);
    if visible {
        let radius = CornerRadius::same(tokens::RADIUS_M);
        ui.painter()
            .rect_filled(rect, radius, tokens::palette().bg_surface);
        paint_picture(ui, textures, url, picture);
        overlay(ui, picture);
        let stroke = if selected {
            Stroke::new(2.0, tokens::palette().accent)
        } else if response.hovered() {
            Stroke::new(1.0, tokens::palette().border_hover)
        } else {
            Stroke::new(1.0, tokens::palette().border)
        };
        let painter = ui.painter();
        painter.rect_stroke(rect, radius, stroke, egui::StrokeKind::Inside);
        painter.text(
            egui::pos2(rect.left() + 8.0, picture.bottom() + 6.0),
            egui::Align2::LEFT_TOP,
            crate::ui::format::excerpt(name, ((width - 16.0) / 7.5) as usize),
            egui::FontId::proportional(tokens::TEXT_BODY),
            tokens::palette().text,
        );
    }
    Card {
        response,
        picture,
        second_line: egui::pos2(rect.left() + 8.0, picture.bottom() + CARD_SECOND_LINE_Y),
        visible,
    }
}

/// Paint the picture at `url` into `rect` (cropped to fill), a placeholder meanwhile.
fn paint_picture(ui: &Ui, textures: &TextureCache, url: Option<&str>, rect: egui::Rect) {
    let painter = ui.painter();
    let radius = CornerRadius {
        nw: tokens::RADIUS_M,
        ne: tokens::RADIUS_M,
        sw: 0,
        se: 0,
    };
    painter.rect_filled(rect, radius, tokens::palette().tile_placeholder);
    let lookup = url.map(|u| textures.get(u, CARD_THUMB_PX));
    match lookup {
        Some(TextureLookup::Ready(texture)) => {
            let size = texture.size_vec2();
            let uv = cover_uv(size, rect.size());
            egui::Image::from_texture(&texture)
                .uv(uv)
                .corner_radius(radius)
                .paint_at(ui, rect);
        }
        Some(TextureLookup::Failed(_)) | None => {
            let glyph = egui::Rect::from_center_size(rect.center(), Vec2::splat(28.0));
            crate::ui::icons::paint_icon(painter, glyph, Icon::Image, tokens::palette().tile_glyph);
        }
        Some(TextureLookup::Loading) => {}
    }
}

/// The part of a texture of `size` that fills a box of `target` (centre crop).
fn cover_uv(size: Vec2, target: Vec2) -> egui::Rect {
    if size.x <= 0.0 || size.y <= 0.0 || target.x <= 0.0 || target.y <= 0.0 {
        return egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
    }
    let source = size.x / size.y;
    let wanted = target.x / target.y;
    if source > wanted {
        let w = wanted / source;
        egui::Rect::from_min_max(
            egui::pos2((1.0 - w) / 2.0, 0.0),
            egui::pos2((1.0 + w) / 2.0, 1.0),
        )
    } else {
        let h = source / wanted;
        egui::Rect::from_min_max(
            egui::pos2(0.0, (1.0 - h) / 2.0),
            egui::pos2(1.0, (1.0 + h) / 2.0),
        )
    }
}

pub(super) fn thumbnails_row_ui(
    ui: &mut Ui,
    textures: &TextureCache,
    urls: &[String],
    side: f32,
    what: &str,
) {
    ui.horizontal_wrapped(|ui| {
        for (index, url) in urls.iter().enumerate() {
            crate::ui::textures::small_thumbnail_ui(
                ui,
                textures,
                url,
                side,
                &format!("{what} image {}", index + 1),
            );
        }
    });
}

/// A prompt the service wrote (system prompt, master prompt): monospace, muted, wrapping
/// and selectable so it can be copied.
pub(super) fn service_prompt_ui(ui: &mut Ui, prompt: &str) {
    ui.add(
        egui::Label::new(
            RichText::new(prompt)
                .size(tokens::TEXT_MONO)
                .monospace()
                .color(tokens::palette().text_muted),
        )
        .wrap()
        .selectable(true),
    );
}

/// The detail pane on the right, `width` wide, scrolling its contents.
pub(super) fn detail_pane(ui: &mut Ui, id: &str, width: f32, contents: impl FnOnce(&mut Ui)) {
    egui::Panel::right(id.to_owned())
        .exact_size(width)
        .resizable(false)
        .show_separator_line(false)
        .frame(widgets::side_panel_frame(egui::Margin::symmetric(14, 12)))
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt(format!("{id}_scroll"))
                .auto_shrink([false, false])
                .show(ui, contents);
        });
}

/// The top of a detail pane: the name (wrapping) and a close button named `close_label`.
/// True when the close button was clicked.
pub(super) fn detail_header(ui: &mut Ui, name: &str, close_label: &str) -> bool {
    let mut closed = false;
    ui.horizontal(|ui| {
        ui.add(
            egui::Label::new(
                RichText::new(name)
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::palette().text),
            )
            .wrap(),
        );
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Min), |ui| {
            closed = widgets::icon_button(ui, Icon::Close, close_label).clicked();
        });
    });
    closed
}

/// A detail pane's Edit… and Delete… (the delete asked through the confirm modal).
pub(super) fn edit_delete_buttons(
    ui: &mut Ui,
    edit: LooksAction,
    delete: LooksConfirm,
    actions: &mut Vec<Action>,
) {
    if ui.add(widgets::secondary_button("Edit…")).clicked() {
        actions.push(wrap(edit));
    }
    if ui.add(widgets::danger_button_small("Delete…")).clicked() {
        actions.push(wrap(LooksAction::AskDelete(delete)));
    }
}

/// A tab's list state above its grid: the error (with Try again) and, until the list has
/// come, a spinner with `loading`. True when the list is there to show.
pub(super) fn list_status_ui(
    ui: &mut Ui,
    model: &Model,
    error: Option<&ShownError>,
    loaded: bool,
    salt: &str,
    loading: &str,
    actions: &mut Vec<Action>,
) -> bool {
    if let Some(error) = error {
        error_ui(ui, model, error, salt);
        if ui.add(widgets::subtle_button("Try again")).clicked() {
            actions.push(wrap(LooksAction::Reload));
        }
    }
    if !loaded && error.is_none() {
        ui.horizontal(|ui| {
            ui.add(egui::Spinner::new().size(14.0));
            widgets::muted(ui, loading);
        });
    }
    loaded
}

fn error_ui(ui: &mut Ui, model: &Model, error: &ShownError, salt: &str) {
    offline::load_error_ui(ui, model, "", &error.message);
    details_ui(ui, &error.details, salt);
}

pub(super) fn details_ui(ui: &mut Ui, details: &str, salt: &str) {
    egui::CollapsingHeader::new(RichText::new("Details").size(tokens::TEXT_SMALL))
        .id_salt(salt)
        .show(ui, |ui| {
            ui.add(
                egui::Label::new(
                    RichText::new(details)
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_faint),
                )
                .wrap()
                .selectable(true),
            );
        });
}
