//! Cinematic presets: the compact chips Create shows per dimension, and the Presets view,
//! a gallery of every preset by dimension with thumbnails and descriptions. Dimensions
//! come from the service's map; the order below only sorts the ones it knows.

use crate::api::palettes::dimension_label;
use crate::api::{CinematicPreset, CinematicPresets};
use crate::ui::model::{Action, Model, View};
use crate::ui::offline;
use crate::ui::textures::{TextureCache, TextureLookup};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{CornerRadius, RichText, Sense, Stroke, Ui, Vec2, WidgetInfo};
use std::collections::BTreeMap;

/// Display order of known dimensions; unknown ones follow alphabetically.
const KNOWN_ORDER: [&str; 8] = [
    "camera",
    "lens",
    "focal_length",
    "aperture",
    "angle",
    "shot_type",
    "lighting",
    "color_palette",
];

/// Texture-cache key of a preset's thumbnail.
pub fn thumbnail_key(preset: &CinematicPreset) -> String {
    format!("preset:{}", preset.id)
}

/// Dimensions in display order.
pub fn ordered_dimensions(presets: &CinematicPresets) -> Vec<&str> {
    let mut dims: Vec<&str> = presets.keys().map(String::as_str).collect();
    dims.sort_by_key(|d| {
        (
            KNOWN_ORDER
                .iter()
                .position(|k| k == d)
                .unwrap_or(KNOWN_ORDER.len()),
            d.to_string(),
        )
    });
    dims
}

/// The accessible name of a chip: "Lighting: Golden hour".
pub fn chip_name(dimension: &str, preset_name: &str) -> String {
    format!("{}: {preset_name}", dimension_label(dimension))
}

/// A compact chip: optional thumbnail, then the name. Selected chips are accent-framed.
pub fn chip_ui(
    ui: &mut Ui,
    text: &str,
    thumbnail: Option<TextureLookup>,
    selected: bool,
    accessible_name: &str,
) -> egui::Response {
    let font = egui::FontId::proportional(12.5);
    let color = if selected {
        tokens::palette().text
    } else {
        tokens::palette().text_muted
    };
    let galley = ui.painter().layout_no_wrap(text.to_owned(), font, color);
    let thumb_side = 22.0;
    let pad = Vec2::new(8.0, 4.0);
    let thumb_space = if thumbnail.is_some() {
        thumb_side + 6.0
    } else {
        0.0
    };
    let size = Vec2::new(
        pad.x * 2.0 + thumb_space + galley.size().x,
        (thumb_side + pad.y * 2.0).max(galley.size().y + pad.y * 2.0),
    );
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let radius = CornerRadius::same(255);
        let (fill, stroke) = if selected {
            (
                tokens::palette().accent_soft,
                Stroke::new(1.0, tokens::palette().accent),
            )
        } else if response.hovered() {
            (
                tokens::palette().bg_hover,
                Stroke::new(1.0, tokens::palette().border_strong),
            )
        } else {
            (
                tokens::palette().bg_elevated,
                Stroke::new(1.0, tokens::palette().border),
            )
        };
        painter.rect_filled(rect, radius, fill);
        painter.rect_stroke(rect, radius, stroke, egui::StrokeKind::Inside);
        let mut x = rect.left() + pad.x;
        if let Some(lookup) = thumbnail {
            let thumb = egui::Rect::from_min_size(
                egui::pos2(x - 3.0, rect.center().y - thumb_side / 2.0),
                Vec2::splat(thumb_side),
            );
            match &lookup {
                TextureLookup::Ready(texture) => {
                    egui::Image::from_texture(texture)
                        .corner_radius(CornerRadius::same(255))
                        .paint_at(ui, thumb);
                }
                TextureLookup::Loading | TextureLookup::Failed(_) => {
                    painter.circle_filled(
                        thumb.center(),
                        thumb_side / 2.0,
                        tokens::palette().tile_glyph,
                    );
                }
            }
            x += thumb_space;
        }
        painter.galley(
            egui::pos2(x, rect.center().y - galley.size().y / 2.0),
            galley,
            color,
        );
    }
    let name = accessible_name.to_owned();
    response.widget_info(|| WidgetInfo::selected(egui::Role::Button, true, selected, &name));
    response.on_hover_cursor(egui::CursorIcon::PointingHand)
}

/// The cinematic rows inside Create: one row of chips per dimension, "Auto" first.
pub fn cinematic_rows_ui(
    ui: &mut Ui,
    model: &Model,
    chosen: &BTreeMap<String, String>,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let Some(presets) = presets_or_status(ui, model, 14.0) else {
        return;
    };
    if presets.is_empty() {
        widgets::muted(ui, "The service offers no cinematic presets right now.");
        return;
    }
    let label_width = 96.0;
    for dimension in ordered_dimensions(presets) {
        let list = &presets[dimension];
        let current = chosen.get(dimension);
        ui.horizontal_top(|ui| {
            let (rect, _) = ui.allocate_exact_size(Vec2::new(label_width, 30.0), Sense::hover());
            ui.painter().text(
                egui::pos2(rect.left(), rect.center().y),
                egui::Align2::LEFT_CENTER,
                dimension_label(dimension),
                egui::FontId::proportional(12.5),
                tokens::palette().text_muted,
            );
            ui.horizontal_wrapped(|ui| {
                ui.spacing_mut().item_spacing = Vec2::new(6.0, 6.0);
                if chip_ui(
                    ui,
                    "Auto",
                    None,
                    current.is_none(),
                    &chip_name(dimension, "Auto"),
                )
                .on_hover_text("The service chooses, in keeping with the presets you set")
                .clicked()
                {
                    actions.push(Action::SelectPreset {
                        dimension: dimension.to_owned(),
                        preset_id: None,
                    });
                }
                for preset in list {
                    let thumb = preset
                        .thumbnail_url
                        .as_deref()
                        .map(|url| textures.thumbnail(&thumbnail_key(preset), url, 64));
                    let selected = current == Some(&preset.id);
                    let mut response = chip_ui(
                        ui,
                        preset.display_name(),
                        Some(thumb.unwrap_or(TextureLookup::Loading)),
                        selected,
                        &chip_name(dimension, preset.display_name()),
                    );
                    if !preset.description.trim().is_empty() {
                        response = response.on_hover_text(preset.description.clone());
                    }
                    if response.clicked() {
                        actions.push(Action::SelectPreset {
                            dimension: dimension.to_owned(),
                            preset_id: (!selected).then(|| preset.id.clone()),
                        });
                    }
                }
            });
        });
    }
}

/// The Presets view: every preset by dimension, with thumbnails and descriptions; clicking
/// one selects it for Create.
pub fn presets_ui(
    ui: &mut Ui,
    model: &Model,
    chosen: &BTreeMap<String, String>,
    textures: &TextureCache,
) -> Vec<Action> {
    let mut actions = Vec::new();
    egui::ScrollArea::vertical()
        .id_salt("presets_gallery")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            // Cards and the header button keep clear of the scrollbar.
            ui.set_max_width(ui.available_width() - tokens::SCROLLBAR_ALLOWANCE);
            ui.add_space(tokens::SPACE_L);
            ui.horizontal(|ui| {
                let text_width = (ui.available_width() - 200.0).max(240.0);
                ui.vertical(|ui| {
                    ui.set_max_width(text_width);
                    ui.label(
                        RichText::new("Cinematic presets")
                            .size(tokens::TEXT_HEADING)
                            .strong()
                            .color(tokens::palette().text),
                    );
                    widgets::muted(
                        ui,
                        "Pick at most one per dimension; the rest stay Auto and the service \
                         completes them in keeping with your choices. Used for images and \
                         image edits.",
                    );
                });
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.add_space(tokens::SPACE_S);
                    let text = if chosen.is_empty() {
                        "Go to Create".to_owned()
                    } else {
                        format!("Use {} in Create", chosen.len())
                    };
                    if ui.add(widgets::primary_button(text)).clicked() {
                        actions.push(Action::Navigate(View::Create));
                    }
                });
            });
            ui.add_space(tokens::SPACE_M);
            let Some(presets) = presets_or_status(ui, model, 16.0) else {
                return;
            };
            for dimension in ordered_dimensions(presets) {
                let current = chosen.get(dimension);
                ui.horizontal(|ui| {
                    ui.label(
                        RichText::new(dimension_label(dimension))
                            .size(tokens::TEXT_TITLE)
                            .strong()
                            .color(tokens::palette().text),
                    );
                    let chosen_name = current
                        .and_then(|id| model.preset(dimension, id))
                        .map(|p| p.display_name().to_owned());
                    match chosen_name {
                        Some(name) => {
                            widgets::pill(
                                ui,
                                &format!("Selected: {name}"),
                                tokens::palette().accent,
                            );
                            if ui
                                .add(widgets::subtle_button("Reset to Auto"))
                                .on_hover_text(chip_name(dimension, "Auto"))
                                .clicked()
                            {
                                actions.push(Action::SelectPreset {
                                    dimension: dimension.to_owned(),
                                    preset_id: None,
                                });
                            }
                        }
                        None => {
                            widgets::pill(ui, "Auto", tokens::palette().text_faint);
                        }
                    }
                });
                ui.add_space(tokens::SPACE_XS);
                let card_width = 184.0;
                ui.horizontal_wrapped(|ui| {
                    ui.spacing_mut().item_spacing = Vec2::new(10.0, 10.0);
                    for preset in &presets[dimension] {
                        let selected = current == Some(&preset.id);
                        if gallery_card_ui(ui, dimension, preset, selected, card_width, textures)
                            .clicked()
                        {
                            actions.push(Action::SelectPreset {
                                dimension: dimension.to_owned(),
                                preset_id: (!selected).then(|| preset.id.clone()),
                            });
                        }
                    }
                });
                ui.add_space(tokens::SPACE_L);
            }
        });
    actions
}

fn gallery_card_ui(
    ui: &mut Ui,
    dimension: &str,
    preset: &CinematicPreset,
    selected: bool,
    width: f32,
    textures: &TextureCache,
) -> egui::Response {
    let thumb_height = width * 9.0 / 16.0;
    let size = Vec2::new(width, thumb_height + 74.0);
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    if ui.is_rect_visible(rect) {
        let radius = CornerRadius::same(tokens::RADIUS_L);
        let (fill, stroke) = if selected {
            (
                tokens::palette().accent_soft,
                Stroke::new(2.0, tokens::palette().accent),
            )
        } else if response.hovered() {
            (
                tokens::palette().bg_elevated,
                Stroke::new(1.0, tokens::palette().border_strong),
            )
        } else {
            (
                tokens::palette().bg_surface,
                Stroke::new(1.0, tokens::palette().border),
            )
        };
        ui.painter().rect_filled(rect, radius, fill);
        let thumb_rect =
            egui::Rect::from_min_size(rect.min, Vec2::new(width, thumb_height)).shrink(1.0);
        let thumb_radius = CornerRadius {
            nw: tokens::RADIUS_L,
            ne: tokens::RADIUS_L,
            sw: 0,
            se: 0,
        };
        let lookup = preset
            .thumbnail_url
            .as_deref()
            .map(|url| textures.thumbnail(&thumbnail_key(preset), url, 256));
        match lookup {
            Some(TextureLookup::Ready(texture)) => {
                egui::Image::from_texture(&texture)
                    .corner_radius(thumb_radius)
                    .paint_at(ui, thumb_rect);
            }
            _ => {
                ui.painter().rect_filled(
                    thumb_rect,
                    thumb_radius,
                    tokens::palette().tile_placeholder,
                );
                crate::ui::icons::paint_icon(
                    ui.painter(),
                    egui::Rect::from_center_size(thumb_rect.center(), Vec2::splat(28.0)),
                    crate::ui::icons::Icon::Image,
                    tokens::palette().tile_glyph,
                );
            }
        }
        let text_left = rect.left() + 10.0;
        let text_top = rect.top() + thumb_height + 8.0;
        ui.painter().text(
            egui::pos2(text_left, text_top),
            egui::Align2::LEFT_TOP,
            crate::ui::format::excerpt(preset.display_name(), 24),
            egui::FontId::proportional(tokens::TEXT_BODY),
            tokens::palette().text,
        );
        let description = ui.painter().layout(
            preset.description.clone(),
            egui::FontId::proportional(tokens::TEXT_SMALL),
            tokens::palette().text_muted,
            width - 20.0,
        );
        let clip = egui::Rect::from_min_max(
            egui::pos2(text_left, text_top + 20.0),
            egui::pos2(rect.right() - 10.0, rect.bottom() - 6.0),
        );
        ui.painter().with_clip_rect(clip).galley(
            clip.min,
            description,
            tokens::palette().text_muted,
        );
        ui.painter()
            .rect_stroke(rect, radius, stroke, egui::StrokeKind::Inside);
        if selected {
            let badge = egui::Rect::from_min_size(
                egui::pos2(rect.right() - 30.0, rect.top() + 8.0),
                Vec2::splat(22.0),
            );
            ui.painter()
                .circle_filled(badge.center(), 11.0, tokens::palette().accent);
            crate::ui::icons::paint_icon(
                ui.painter(),
                badge.shrink(5.0),
                crate::ui::icons::Icon::Check,
                tokens::palette().on_accent,
            );
        }
    }
    let name = chip_name(dimension, preset.display_name());
    response.widget_info(|| WidgetInfo::selected(egui::Role::Button, true, selected, &name));
    let response = response.on_hover_cursor(egui::CursorIcon::PointingHand);
    if preset.description.trim().is_empty() {
        response
    } else {
        response.on_hover_text(preset.description.clone())
    }
}

/// The loaded presets, or (while there are none) the load error or a spinner of
/// `spinner_px` shown in their place.
fn presets_or_status<'m>(
    ui: &mut Ui,
    model: &'m Model,
    spinner_px: f32,
) -> Option<&'m CinematicPresets> {
    if model.presets.value.is_none() {
        if let Some(error) = &model.presets.error {
            offline::load_error_ui(ui, model, "Could not load cinematic presets", error);
        } else {
            ui.horizontal(|ui| {
                ui.add(egui::Spinner::new().size(spinner_px));
                widgets::muted(ui, "Loading presets…");
            });
        }
    }
    model.presets.value.as_ref()
}
