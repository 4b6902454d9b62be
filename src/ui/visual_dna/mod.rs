//! The Visual DNA view: tabs "Visual DNA" (folders, a searchable grid of cards, a detail
//! pane, the create / edit form) and "Moodboards" (grid, detail, form). State and logic
//! are in [`state`]; this file only lays out and returns actions.

pub mod state;

pub use state::{
    BoardForm, DnaForm, FolderFilter, FolderForm, FormField, FormImage, ImageList, LooksAction,
    LooksConfirm, LooksRoute, LooksState, LooksTab, ShownError,
};

use crate::api::moodboards::{MOODBOARD_STYLE_GUIDE_MAX_CHARS, Moodboard};
use crate::api::visual_dna::{DnaType, VisualDna};
use crate::ui::icons::Icon;
use crate::ui::model::{Action, Model};
use crate::ui::textures::{TextureCache, TextureLookup};
use crate::ui::{focus, offline, tokens, widgets};
use egui::{CornerRadius, RichText, Sense, Stroke, TextEdit, Ui, Vec2};

/// Folder sidebar width (narrower in a small window).
const SIDEBAR_WIDTH: f32 = 200.0;
const SIDEBAR_MIN_WIDTH: f32 = 150.0;
/// Detail pane width.
const DETAIL_WIDTH: f32 = 320.0;
const DETAIL_MIN_WIDTH: f32 = 240.0;
/// A card's preferred and smallest width.
const CARD_WIDTH: f32 = 176.0;
const CARD_MIN_WIDTH: f32 = 132.0;
/// Height of a card's text under its square picture.
const CARD_TEXT_HEIGHT: f32 = 50.0;
/// Pixels a card's thumbnail is loaded at.
const CARD_THUMB_PX: u32 = 384;

fn wrap(action: LooksAction) -> Action {
    Action::Looks(action)
}

pub fn visual_dna_ui(
    ui: &mut Ui,
    state: &mut LooksState,
    model: &Model,
    textures: &TextureCache,
) -> Vec<Action> {
    // The first time the view shows (however it was reached), its lists are asked for.
    let mut actions = state.on_shown();
    header_ui(ui, state, &mut actions);
    match state.tab {
        LooksTab::VisualDna => dna_tab_ui(ui, state, model, textures, &mut actions),
        LooksTab::Moodboards => boards_tab_ui(ui, state, model, textures, &mut actions),
    }
    if state.form.is_some() {
        dna_form_ui(ui.ctx(), state, textures, &mut actions);
    }
    if state.board_form.is_some() {
        board_form_ui(ui.ctx(), state, textures, &mut actions);
    }
    actions
}

fn header_ui(ui: &mut Ui, state: &LooksState, actions: &mut Vec<Action>) {
    ui.add_space(tokens::SPACE_M);
    ui.horizontal(|ui| {
        ui.add_space(tokens::SPACE_M);
        ui.label(
            RichText::new("Visual DNA")
                .size(tokens::TEXT_HEADING)
                .strong()
                .color(tokens::palette().text),
        );
        ui.add_space(tokens::SPACE_M);
        for (tab, label) in [
            (LooksTab::VisualDna, "Visual DNA"),
            (LooksTab::Moodboards, "Moodboards"),
        ] {
            let on = state.tab == tab;
            let response = ui.add(widgets::toggle_button(label, on));
            response.widget_info(|| {
                egui::WidgetInfo::selected(egui::Role::Tab, true, on, format!("{label} tab"))
            });
            if response.clicked() {
                actions.push(wrap(LooksAction::Tab(tab)));
            }
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.add_space(tokens::SPACE_M);
            let (label, action) = match state.tab {
                LooksTab::VisualDna => ("New Visual DNA", LooksAction::NewDna),
                LooksTab::Moodboards => ("New moodboard", LooksAction::NewBoard),
            };
            if ui.add(widgets::primary_button(label)).clicked() {
                actions.push(wrap(action));
            }
        });
    });
    ui.add_space(tokens::SPACE_S);
    ui.separator();
}

// ---- Visual DNA tab ---------------------------------------------------------------------

fn dna_tab_ui(
    ui: &mut Ui,
    state: &mut LooksState,
    model: &Model,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let total = ui.available_width();
    let sidebar = (total * 0.2).clamp(SIDEBAR_MIN_WIDTH, SIDEBAR_WIDTH);
    egui::Panel::left("vdna_folders")
        .exact_size(sidebar)
        .resizable(false)
        .show_separator_line(false)
        .frame(widgets::side_panel_frame(egui::Margin::symmetric(10, 12)))
        .show(ui, |ui| folders_ui(ui, state, actions));

    let selected = state.selected_entry().cloned();
    if let Some(entry) = &selected {
        let width = (total * 0.3).clamp(DETAIL_MIN_WIDTH, DETAIL_WIDTH);
        egui::Panel::right("vdna_detail")
            .exact_size(width)
            .resizable(false)
            .show_separator_line(false)
            .frame(widgets::side_panel_frame(egui::Margin::symmetric(14, 12)))
            .show(ui, |ui| dna_detail_ui(ui, state, entry, textures, actions));
    }

    egui::CentralPanel::default()
        .frame(egui::Frame::new().inner_margin(egui::Margin::symmetric(16, 12)))
        .show(ui, |ui| {
            filters_ui(ui, state);
            ui.add_space(tokens::SPACE_S);
            if let Some(error) = &state.entries_error {
                error_ui(ui, model, error, "vdna_list_error");
                if ui.add(widgets::subtle_button("Try again")).clicked() {
                    actions.push(wrap(LooksAction::Reload));
                }
            }
            if !state.entries_loaded {
                if state.entries_error.is_none() {
                    ui.horizontal(|ui| {
                        ui.add(egui::Spinner::new().size(14.0));
                        widgets::muted(ui, "Loading Visual DNA…");
                    });
                }
                return;
            }
            let visible = state.visible_entries();
            if visible.is_empty() {
                ui.add_space(tokens::SPACE_L);
                widgets::muted(
                    ui,
                    if state.entries.is_empty() {
                        "No Visual DNA yet. Drop one to four photos of a character, product, \
                         style or place here, or press New Visual DNA."
                    } else {
                        "Nothing matches. Clear the search or choose another folder or type."
                    },
                );
                return;
            }
            let selected_id = state.selected.clone();
            let folders = state.folders.clone();
            egui::ScrollArea::vertical()
                .id_salt("vdna_grid_scroll")
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    let width = ui.available_width() - tokens::SCROLLBAR_ALLOWANCE;
                    let (columns, card_width) = grid_columns(width);
                    for row in visible.chunks(columns) {
                        ui.horizontal_top(|ui| {
                            ui.spacing_mut().item_spacing.x = tokens::GRID_GAP * 1.5;
                            for entry in row {
                                let selected = selected_id.as_deref() == Some(entry.id.as_str());
                                dna_card_ui(
                                    ui, entry, selected, card_width, &folders, textures, actions,
                                );
                            }
                        });
                        ui.add_space(tokens::GRID_GAP * 1.5);
                    }
                });
        });
}

/// Columns and card width that fill `width` (at least one column).
pub fn grid_columns(width: f32) -> (usize, f32) {
    let gap = tokens::GRID_GAP * 1.5;
    let columns = (((width + gap) / (CARD_WIDTH + gap)).floor() as usize).max(1);
    let card = ((width - gap * (columns as f32 - 1.0)) / columns as f32).max(CARD_MIN_WIDTH);
    (columns, card.min(CARD_WIDTH * 1.35))
}

fn filters_ui(ui: &mut Ui, state: &mut LooksState) {
    ui.horizontal(|ui| {
        let search = ui.add(
            TextEdit::singleline(&mut state.search)
                .hint_text("Search Visual DNA")
                .desired_width((ui.available_width() - 170.0).clamp(120.0, 320.0)),
        );
        widgets::name_widget(&search, "Search Visual DNA");
        let label = state.type_filter.map(DnaType::label).unwrap_or("All types");
        let combo = egui::ComboBox::from_id_salt("vdna_type_filter")
            .selected_text(label)
            .width(140.0)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut state.type_filter, None, "All types");
                for t in DnaType::ALL {
                    ui.selectable_value(&mut state.type_filter, Some(t), t.label());
                }
            });
        widgets::name_widget(&combo.response, "Type filter");
    });
}

fn folders_ui(ui: &mut Ui, state: &mut LooksState, actions: &mut Vec<Action>) {
    widgets::section_label(ui, "Folders");
    ui.add_space(tokens::SPACE_XS);
    let all_count = state.entries.len();
    if folder_row_ui(
        ui,
        "All Visual DNA",
        Some(all_count),
        state.folder_filter == FolderFilter::All,
    )
    .clicked()
    {
        actions.push(wrap(LooksAction::ShowFolder(FolderFilter::All)));
    }
    let folders = state.folders.clone();
    for folder in &folders {
        let count = state
            .entries
            .iter()
            .filter(|e| e.folder_id.as_deref() == Some(folder.id.as_str()))
            .count();
        let selected = state.folder_filter == FolderFilter::Folder(folder.id.clone());
        ui.horizontal(|ui| {
            let row_width = ui.available_width() - 30.0;
            ui.allocate_ui(Vec2::new(row_width, 28.0), |ui| {
                if folder_row_ui(ui, &folder.name, Some(count), selected).clicked() {
                    actions.push(wrap(LooksAction::ShowFolder(FolderFilter::Folder(
                        folder.id.clone(),
                    ))));
                }
            });
            let more =
                widgets::icon_button(ui, Icon::More, &format!("Folder options: {}", folder.name));
            egui::Popup::menu(&more).show(|ui| {
                ui.set_min_width(150.0);
                if ui.button("Rename…").clicked() {
                    actions.push(wrap(LooksAction::RenameFolder(folder.id.clone())));
                }
                if ui
                    .button(RichText::new("Delete folder…").color(tokens::palette().danger))
                    .clicked()
                {
                    actions.push(wrap(LooksAction::AskDelete(LooksConfirm::DeleteFolder {
                        id: folder.id.clone(),
                        name: folder.name.clone(),
                    })));
                }
            });
        });
    }
    if let Some(error) = &state.folders_error {
        widgets::notice(ui, &error.message, tokens::palette().warning);
    }
    ui.add_space(tokens::SPACE_S);
    match &mut state.folder_form {
        Some(form) => {
            let title = if form.renaming.is_some() {
                "Rename folder"
            } else {
                "New folder"
            };
            widgets::section_label(ui, title);
            let field = ui.add(
                TextEdit::singleline(&mut form.name)
                    .hint_text("Folder name")
                    .desired_width(f32::INFINITY),
            );
            widgets::name_widget(&field, "Folder name");
            if focus::first_frame_shown(ui.ctx(), ui.scope_id().with("vdna_folder_form")) {
                field.request_focus();
            }
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if let Some(error) = &form.error {
                widgets::field_error(ui, error);
            }
            ui.horizontal(|ui| {
                if ui
                    .add(widgets::small_primary_button("Save folder"))
                    .clicked()
                    || enter
                {
                    actions.push(wrap(LooksAction::SaveFolderForm));
                }
                if ui.add(widgets::subtle_button("Cancel")).clicked() {
                    actions.push(wrap(LooksAction::CancelFolderForm));
                }
                if form.sending {
                    ui.add(egui::Spinner::new().size(12.0));
                }
            });
        }
        None => {
            if ui.add(widgets::subtle_button("+ New folder")).clicked() {
                actions.push(wrap(LooksAction::NewFolder));
            }
        }
    }
}

fn folder_row_ui(ui: &mut Ui, label: &str, count: Option<usize>, selected: bool) -> egui::Response {
    let size = Vec2::new(ui.available_width(), 28.0);
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let fill = if selected {
            tokens::palette().accent_soft
        } else if response.hovered() {
            tokens::palette().bg_hover
        } else {
            egui::Color32::TRANSPARENT
        };
        painter.rect_filled(rect, CornerRadius::same(tokens::RADIUS_S), fill);
        let icon_rect = egui::Rect::from_center_size(
            egui::pos2(rect.left() + 14.0, rect.center().y),
            Vec2::splat(15.0),
        );
        crate::ui::icons::paint_icon(
            painter,
            icon_rect,
            Icon::Folder,
            tokens::palette().text_muted,
        );
        painter.text(
            egui::pos2(rect.left() + 28.0, rect.center().y),
            egui::Align2::LEFT_CENTER,
            crate::ui::format::excerpt(label, 22),
            egui::FontId::proportional(tokens::TEXT_BODY),
            tokens::palette().text,
        );
        if let Some(count) = count {
            painter.text(
                egui::pos2(rect.right() - 6.0, rect.center().y),
                egui::Align2::RIGHT_CENTER,
                count.to_string(),
                egui::FontId::proportional(tokens::TEXT_SMALL),
                tokens::palette().text_faint,
            );
        }
    }
    let name = label.to_owned();
    response.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, selected, &name));
    response
}

fn type_color(entry_type: Option<DnaType>) -> egui::Color32 {
    match entry_type {
        Some(DnaType::Character) => tokens::palette().accent,
        Some(DnaType::Product) => tokens::palette().info,
        Some(DnaType::Style) => tokens::palette().favourite,
        Some(DnaType::Environment) => tokens::palette().success,
        None => tokens::palette().text_muted,
    }
}

fn type_label(entry: &VisualDna) -> String {
    entry
        .kind()
        .map(|t| t.label().to_owned())
        .unwrap_or_else(|| entry.dna_type.clone())
}

/// A card: the square picture (a spinner over it while building), the name, the type and
/// a "Built-in" badge; a menu button in the corner (Edit, Move to folder, Delete).
fn dna_card_ui(
    ui: &mut Ui,
    entry: &VisualDna,
    selected: bool,
    width: f32,
    folders: &[crate::api::visual_dna::VisualDnaFolder],
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let (rect, response) =
        ui.allocate_exact_size(Vec2::new(width, width + CARD_TEXT_HEIGHT), Sense::click());
    let picture = egui::Rect::from_min_size(rect.min, Vec2::splat(width));
    if ui.is_rect_visible(rect) {
        let painter = ui.painter().clone();
        let radius = CornerRadius::same(tokens::RADIUS_M);
        painter.rect_filled(rect, radius, tokens::palette().bg_surface);
        paint_picture(
            ui,
            textures,
            entry
                .thumbnail_url
                .as_deref()
                .or(entry.images.first().map(String::as_str)),
            picture,
        );
        if entry.is_building() {
            painter.rect_filled(picture, radius, tokens::palette().tile_scrim);
            let spinner = egui::Rect::from_center_size(picture.center(), Vec2::splat(22.0));
            ui.put(spinner, egui::Spinner::new().size(22.0));
            painter.text(
                picture.center() + Vec2::new(0.0, 24.0),
                egui::Align2::CENTER_TOP,
                "Building…",
                egui::FontId::proportional(tokens::TEXT_SMALL),
                tokens::palette().text,
            );
        } else if entry.is_failed() {
            painter.rect_filled(picture, radius, tokens::palette().tile_scrim);
            painter.text(
                picture.center(),
                egui::Align2::CENTER_CENTER,
                "Could not be built",
                egui::FontId::proportional(tokens::TEXT_SMALL),
                tokens::palette().danger,
            );
        }
        let stroke = if selected {
            Stroke::new(2.0, tokens::palette().accent)
        } else if response.hovered() {
            Stroke::new(1.0, tokens::palette().border_hover)
        } else {
            Stroke::new(1.0, tokens::palette().border)
        };
        painter.rect_stroke(rect, radius, stroke, egui::StrokeKind::Inside);
        let text_left = rect.left() + 8.0;
        painter.text(
            egui::pos2(text_left, picture.bottom() + 6.0),
            egui::Align2::LEFT_TOP,
            crate::ui::format::excerpt(&entry.name, ((width - 16.0) / 7.5) as usize),
            egui::FontId::proportional(tokens::TEXT_BODY),
            tokens::palette().text,
        );
        let chip = type_label(entry);
        let color = type_color(entry.kind());
        let font = egui::FontId::proportional(10.5);
        let galley = painter.layout_no_wrap(chip.to_uppercase(), font.clone(), color);
        let chip_rect = egui::Rect::from_min_size(
            egui::pos2(text_left, picture.bottom() + 27.0),
            galley.size() + Vec2::new(10.0, 4.0),
        );
        painter.rect_filled(
            chip_rect,
            CornerRadius::same(tokens::RADIUS_S),
            color.gamma_multiply(0.18),
        );
        painter.galley(chip_rect.min + Vec2::new(5.0, 2.0), galley, color);
        if entry.is_global() {
            let galley =
                painter.layout_no_wrap("BUILT-IN".to_owned(), font, tokens::palette().text_muted);
            let badge = egui::Rect::from_min_size(
                egui::pos2(chip_rect.right() + 6.0, chip_rect.top()),
                galley.size() + Vec2::new(10.0, 4.0),
            );
            painter.rect_filled(
                badge,
                CornerRadius::same(tokens::RADIUS_S),
                tokens::palette().bg_elevated,
            );
            painter.galley(
                badge.min + Vec2::new(5.0, 2.0),
                galley,
                tokens::palette().text_muted,
            );
        }
    }
    let status = if entry.is_building() {
        ", building"
    } else if entry.is_failed() {
        ", failed"
    } else {
        ""
    };
    let name = format!("{}{}", entry.name, status);
    response.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, selected, &name));
    let response = response.on_hover_text(format!("{} · {}", entry.name, type_label(entry)));
    if response.clicked() {
        actions.push(wrap(LooksAction::Select(entry.id.clone())));
    }
    let menu_rect = egui::Rect::from_min_size(
        egui::pos2(picture.right() - 32.0, picture.top() + 6.0),
        Vec2::splat(26.0),
    );
    let more = widgets::round_icon_button(
        ui,
        menu_rect,
        Icon::More,
        &format!("Options: {}", entry.name),
    );
    egui::Popup::menu(&more).show(|ui| dna_menu_ui(ui, entry, folders, actions));
    response.context_menu(|ui| dna_menu_ui(ui, entry, folders, actions));
}

fn dna_menu_ui(
    ui: &mut Ui,
    entry: &VisualDna,
    folders: &[crate::api::visual_dna::VisualDnaFolder],
    actions: &mut Vec<Action>,
) {
    ui.set_min_width(170.0);
    if ui
        .add_enabled(
            !entry.is_building() && !entry.is_failed(),
            egui::Button::new("Use in Create"),
        )
        .on_disabled_hover_text("It can be used once it is ready.")
        .clicked()
    {
        actions.push(wrap(LooksAction::UseInCreate(entry.id.clone())));
    }
    if entry.is_global() {
        ui.label(
            RichText::new("Built-in: it can be used, not changed.")
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_muted),
        );
        return;
    }
    if ui.button("Edit…").clicked() {
        actions.push(wrap(LooksAction::EditDna(entry.id.clone())));
    }
    ui.menu_button("Move to folder", |ui| {
        let current = entry.folder_id.as_deref();
        if ui
            .add_enabled(current.is_some(), egui::Button::new("No folder"))
            .clicked()
        {
            actions.push(wrap(LooksAction::MoveToFolder {
                id: entry.id.clone(),
                folder_id: None,
            }));
        }
        for folder in folders {
            if ui
                .add_enabled(
                    current != Some(folder.id.as_str()),
                    egui::Button::new(&folder.name),
                )
                .clicked()
            {
                actions.push(wrap(LooksAction::MoveToFolder {
                    id: entry.id.clone(),
                    folder_id: Some(folder.id.clone()),
                }));
            }
        }
        if folders.is_empty() {
            ui.label(
                RichText::new("No folders yet: make one in the sidebar.")
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_muted),
            );
        }
    });
    ui.separator();
    if ui
        .button(RichText::new("Delete…").color(tokens::palette().danger))
        .clicked()
    {
        actions.push(wrap(LooksAction::AskDelete(
            LooksConfirm::DeleteVisualDna {
                id: entry.id.clone(),
                name: entry.name.clone(),
            },
        )));
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

fn thumbnails_row_ui(ui: &mut Ui, textures: &TextureCache, urls: &[String], side: f32, what: &str) {
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

fn dna_detail_ui(
    ui: &mut Ui,
    state: &LooksState,
    entry: &VisualDna,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    egui::ScrollArea::vertical()
        .id_salt("vdna_detail_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.add(
                    egui::Label::new(
                        RichText::new(&entry.name)
                            .size(tokens::TEXT_TITLE)
                            .strong()
                            .color(tokens::palette().text),
                    )
                    .wrap(),
                );
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Min), |ui| {
                    if widgets::icon_button(ui, Icon::Close, "Close details").clicked() {
                        actions.push(wrap(LooksAction::CloseDetail));
                    }
                });
            });
            ui.horizontal_wrapped(|ui| {
                widgets::pill(ui, &type_label(entry), type_color(entry.kind()));
                if entry.is_global() {
                    widgets::badge(ui, "BUILT-IN", tokens::palette().text_muted);
                }
                if entry.is_building() {
                    ui.add(egui::Spinner::new().size(12.0));
                    widgets::muted(ui, "Building…");
                } else if entry.is_failed() {
                    widgets::pill(ui, "Could not be built", tokens::palette().danger);
                }
                if let Some(folder) = entry
                    .folder_id
                    .as_deref()
                    .and_then(|f| state.folder_name(f))
                {
                    widgets::pill(ui, &format!("In “{folder}”"), tokens::palette().text_muted);
                }
            });
            ui.add_space(tokens::SPACE_S);
            if !entry.images.is_empty() {
                thumbnails_row_ui(ui, textures, &entry.images, 64.0, &entry.name);
                ui.add_space(tokens::SPACE_S);
            }
            let usable = !entry.is_building() && !entry.is_failed();
            ui.horizontal_wrapped(|ui| {
                if ui
                    .add_enabled(usable, widgets::primary_button("Use in Create"))
                    .on_disabled_hover_text("It can be used once it is ready.")
                    .clicked()
                {
                    actions.push(wrap(LooksAction::UseInCreate(entry.id.clone())));
                }
                if !entry.is_global() {
                    if ui.add(widgets::secondary_button("Edit…")).clicked() {
                        actions.push(wrap(LooksAction::EditDna(entry.id.clone())));
                    }
                    if ui.add(widgets::danger_button_small("Delete…")).clicked() {
                        actions.push(wrap(LooksAction::AskDelete(
                            LooksConfirm::DeleteVisualDna {
                                id: entry.id.clone(),
                                name: entry.name.clone(),
                            },
                        )));
                    }
                }
            });
            ui.add_space(tokens::SPACE_M);
            widgets::section_label(ui, "Description");
            match entry
                .description
                .as_deref()
                .filter(|d| !d.trim().is_empty())
            {
                Some(text) => {
                    ui.add(
                        egui::Label::new(RichText::new(text).color(tokens::palette().text)).wrap(),
                    );
                }
                None => {
                    widgets::muted(
                        ui,
                        if entry.is_building() {
                            "Written once the images are analysed."
                        } else {
                            "No description."
                        },
                    );
                }
            }
            if let Some(helper) = entry
                .prompt_helper
                .as_deref()
                .filter(|h| !h.trim().is_empty())
            {
                ui.add_space(tokens::SPACE_S);
                widgets::section_label(ui, "Prompt helper");
                ui.add(
                    egui::Label::new(RichText::new(helper).color(tokens::palette().text)).wrap(),
                );
            }
            if let Some(prompt) = entry
                .system_prompt
                .as_deref()
                .filter(|p| !p.trim().is_empty())
            {
                ui.add_space(tokens::SPACE_S);
                egui::CollapsingHeader::new("System prompt")
                    .id_salt("vdna_system_prompt")
                    .default_open(true)
                    .show(ui, |ui| {
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
                    });
            }
        });
}

fn error_ui(ui: &mut Ui, model: &Model, error: &ShownError, salt: &str) {
    offline::load_error_ui(ui, model, "", &error.message);
    details_ui(ui, &error.details, salt);
}

fn details_ui(ui: &mut Ui, details: &str, salt: &str) {
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

// ---- the forms -----------------------------------------------------------------------------

/// The images part of a form: what it holds and how its buttons answer.
struct ImagesField<'a> {
    list: &'a mut ImageList,
    problem: Option<String>,
    remove: fn(usize) -> LooksAction,
    add_url: LooksAction,
}

fn form_images_ui(
    ui: &mut Ui,
    field: ImagesField<'_>,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let ImagesField {
        list,
        problem,
        remove,
        add_url,
    } = field;
    let max = list.max();
    let ImageList {
        items: images,
        url_input,
        note,
        ..
    } = list;
    ui.horizontal(|ui| {
        widgets::section_label(ui, "Images");
        ui.label(
            RichText::new(format!("{} / {max}", images.len()))
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_faint),
        );
    });
    // No row at all while empty (an empty wrapped row still takes a line).
    if !images.is_empty() {
        ui.horizontal_wrapped(|ui| {
            for (index, image) in images.iter().enumerate() {
                let label = image.label();
                egui::Frame::new()
                    .fill(tokens::palette().bg_surface)
                    .stroke(Stroke::new(1.0, tokens::palette().border))
                    .corner_radius(CornerRadius::same(tokens::RADIUS_M))
                    .inner_margin(egui::Margin::symmetric(6, 4))
                    .show(ui, |ui| {
                        ui.horizontal(|ui| {
                            crate::ui::textures::small_thumbnail_ui(
                                ui,
                                textures,
                                &image.preview_url(),
                                36.0,
                                &label,
                            );
                            ui.label(
                                RichText::new(crate::ui::format::excerpt(&label, 18))
                                    .size(12.5)
                                    .color(tokens::palette().text),
                            );
                            if widgets::icon_button(ui, Icon::Close, &format!("Remove {label}"))
                                .clicked()
                            {
                                actions.push(wrap(remove(index)));
                            }
                        });
                    });
            }
        });
    }
    if images.len() < max {
        ui.horizontal(|ui| {
            if ui.add(widgets::secondary_button("Choose files…")).clicked() {
                actions.push(wrap(LooksAction::PickImages));
            }
            widgets::muted(ui, "or drop images here");
        });
        ui.horizontal(|ui| {
            let field = ui.add(
                TextEdit::singleline(url_input)
                    .hint_text("https://… or a file's path")
                    .desired_width((ui.available_width() - 70.0).max(120.0)),
            );
            widgets::name_widget(&field, "Image address");
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui
                .add_enabled(
                    !url_input.trim().is_empty(),
                    widgets::secondary_button("Add"),
                )
                .clicked()
                || (enter && !url_input.trim().is_empty())
            {
                actions.push(wrap(add_url));
            }
        });
    }
    if let Some(note) = note.as_deref() {
        widgets::notice(ui, note, tokens::palette().warning);
    }
    if let Some(problem) = problem {
        widgets::field_error(ui, &problem);
    }
}

fn dna_form_ui(
    ctx: &egui::Context,
    state: &mut LooksState,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let Some(form) = state.form.as_mut() else {
        return;
    };
    let modal_id = egui::Id::unique("vdna_form");
    let newly_shown = focus::first_frame_shown(ctx, modal_id);
    let response = egui::Modal::new(modal_id)
        .backdrop_color(tokens::palette().scrim)
        .frame(tokens::card_frame().inner_margin(egui::Margin::same(20)))
        .show(ctx, |ui| {
            let width = (ctx.content_rect().width() - 80.0).clamp(300.0, 520.0);
            ui.set_width(width);
            let title = if form.is_new() {
                "New Visual DNA"
            } else {
                "Edit Visual DNA"
            };
            ui.label(
                RichText::new(title)
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::palette().text),
            );
            if form.is_new() {
                widgets::muted(
                    ui,
                    "One to four photos of the same character, product, style or place. The \
                     service studies them (10–30 s) and then keeps it consistent in every \
                     picture you make with it.",
                );
            }
            ui.add_space(tokens::SPACE_S);
            egui::ScrollArea::vertical()
                .id_salt("vdna_form_scroll")
                .max_height((ctx.content_rect().height() - 220.0).max(200.0))
                .show(ui, |ui| {
                    widgets::section_label(ui, "Name");
                    let name = ui.add(
                        TextEdit::singleline(&mut form.name)
                            .hint_text("e.g. Captain Ada")
                            .desired_width(f32::INFINITY),
                    );
                    widgets::name_widget(&name, "Visual DNA name");
                    if newly_shown {
                        name.request_focus();
                    }
                    if let Some(problem) = form.problem(FormField::Name) {
                        widgets::field_error(ui, &problem);
                    }
                    ui.add_space(tokens::SPACE_S);
                    widgets::section_label(ui, "Type");
                    ui.horizontal_wrapped(|ui| {
                        for t in DnaType::ALL {
                            let on = form.dna_type == t;
                            let response = ui.add(widgets::toggle_button(t.label(), on));
                            response.widget_info(|| {
                                egui::WidgetInfo::selected(
                                    egui::Role::RadioButton,
                                    true,
                                    on,
                                    t.label(),
                                )
                            });
                            if response.clicked() {
                                form.dna_type = t;
                            }
                        }
                    });
                    ui.add_space(tokens::SPACE_S);
                    widgets::section_label(ui, "Prompt helper (optional)");
                    let helper = ui.add(
                        TextEdit::multiline(&mut form.prompt_helper)
                            .hint_text(
                                "Anything the pictures don't show: “always wears a red scarf”",
                            )
                            .desired_rows(2)
                            .desired_width(f32::INFINITY),
                    );
                    widgets::name_widget(&helper, "Prompt helper");
                    ui.add_space(tokens::SPACE_S);
                    if form.is_new() {
                        let problem = form.problem(FormField::Images);
                        form_images_ui(
                            ui,
                            ImagesField {
                                list: &mut form.images,
                                problem,
                                remove: LooksAction::RemoveDnaImage,
                                add_url: LooksAction::AddDnaUrl,
                            },
                            textures,
                            actions,
                        );
                    }
                    if let Some(error) = &form.error {
                        ui.add_space(tokens::SPACE_S);
                        widgets::field_error(ui, &error.message);
                        details_ui(ui, &error.details, "vdna_form_error");
                    }
                });
            ui.add_space(tokens::SPACE_M);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let label = if form.is_new() {
                    "Make Visual DNA"
                } else {
                    "Save changes"
                };
                if ui
                    .add_enabled(!form.sending, widgets::primary_button(label))
                    .clicked()
                {
                    actions.push(wrap(LooksAction::SaveDnaForm));
                }
                if ui.add(widgets::secondary_button("Cancel")).clicked() {
                    actions.push(wrap(LooksAction::CancelDnaForm));
                }
                if form.sending {
                    ui.add(egui::Spinner::new().size(14.0));
                    widgets::muted(
                        ui,
                        if form.is_new() {
                            "Uploading…"
                        } else {
                            "Saving…"
                        },
                    );
                }
            });
        });
    if response.should_close() && !form.sending {
        actions.push(wrap(LooksAction::CancelDnaForm));
    }
}

fn board_form_ui(
    ctx: &egui::Context,
    state: &mut LooksState,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let Some(form) = state.board_form.as_mut() else {
        return;
    };
    let modal_id = egui::Id::unique("moodboard_form");
    let newly_shown = focus::first_frame_shown(ctx, modal_id);
    let response = egui::Modal::new(modal_id)
        .backdrop_color(tokens::palette().scrim)
        .frame(tokens::card_frame().inner_margin(egui::Margin::same(20)))
        .show(ctx, |ui| {
            let width = (ctx.content_rect().width() - 80.0).clamp(300.0, 560.0);
            ui.set_width(width);
            let title = if form.editing.is_none() {
                "New moodboard"
            } else {
                "Edit moodboard"
            };
            ui.label(
                RichText::new(title)
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::palette().text),
            );
            widgets::muted(
                ui,
                "Up to 15 reference images and a style guide: pictures made with this \
                 moodboard follow its look.",
            );
            ui.add_space(tokens::SPACE_S);
            egui::ScrollArea::vertical()
                .id_salt("moodboard_form_scroll")
                .max_height((ctx.content_rect().height() - 220.0).max(200.0))
                .show(ui, |ui| {
                    widgets::section_label(ui, "Name");
                    let name = ui.add(
                        TextEdit::singleline(&mut form.name)
                            .hint_text("e.g. Neon dusk")
                            .desired_width(f32::INFINITY),
                    );
                    widgets::name_widget(&name, "Moodboard name");
                    if newly_shown {
                        name.request_focus();
                    }
                    if let Some(problem) = form.problem(FormField::Name) {
                        widgets::field_error(ui, &problem);
                    }
                    ui.add_space(tokens::SPACE_S);
                    ui.horizontal(|ui| {
                        widgets::section_label(ui, "Style guide");
                        let count = form.style_guide_chars();
                        let color = if count > MOODBOARD_STYLE_GUIDE_MAX_CHARS {
                            tokens::palette().danger
                        } else {
                            tokens::palette().text_faint
                        };
                        ui.label(
                            RichText::new(format!("{count} / {MOODBOARD_STYLE_GUIDE_MAX_CHARS}"))
                                .size(tokens::TEXT_SMALL)
                                .color(color),
                        );
                    });
                    let guide = ui.add(
                        TextEdit::multiline(&mut form.style_guide)
                            .hint_text("Palette, light, lenses, texture, mood…")
                            .desired_rows(3)
                            .desired_width(f32::INFINITY),
                    );
                    widgets::name_widget(&guide, "Style guide");
                    if let Some(problem) = form.problem(FormField::StyleGuide) {
                        widgets::field_error(ui, &problem);
                    }
                    ui.add_space(tokens::SPACE_S);
                    let problem = form.problem(FormField::Images);
                    form_images_ui(
                        ui,
                        ImagesField {
                            list: &mut form.images,
                            problem,
                            remove: LooksAction::RemoveBoardImage,
                            add_url: LooksAction::AddBoardUrl,
                        },
                        textures,
                        actions,
                    );
                    if let Some(error) = &form.error {
                        ui.add_space(tokens::SPACE_S);
                        widgets::field_error(ui, &error.message);
                        details_ui(ui, &error.details, "moodboard_form_error");
                    }
                });
            ui.add_space(tokens::SPACE_M);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let label = if form.editing.is_none() {
                    "Make moodboard"
                } else {
                    "Save moodboard"
                };
                if ui
                    .add_enabled(!form.sending, widgets::primary_button(label))
                    .clicked()
                {
                    actions.push(wrap(LooksAction::SaveBoardForm));
                }
                if ui.add(widgets::secondary_button("Cancel")).clicked() {
                    actions.push(wrap(LooksAction::CancelBoardForm));
                }
                if form.sending {
                    ui.add(egui::Spinner::new().size(14.0));
                    widgets::muted(ui, "Uploading and saving…");
                }
            });
        });
    if response.should_close() && !form.sending {
        actions.push(wrap(LooksAction::CancelBoardForm));
    }
}

// ---- Moodboards tab -----------------------------------------------------------------------

fn boards_tab_ui(
    ui: &mut Ui,
    state: &mut LooksState,
    model: &Model,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let total = ui.available_width();
    let selected = state
        .board_selected
        .as_deref()
        .and_then(|id| state.board(id))
        .cloned();
    if let Some(board) = &selected {
        let width = (total * 0.32).clamp(DETAIL_MIN_WIDTH, DETAIL_WIDTH + 40.0);
        egui::Panel::right("moodboard_detail")
            .exact_size(width)
            .resizable(false)
            .show_separator_line(false)
            .frame(widgets::side_panel_frame(egui::Margin::symmetric(14, 12)))
            .show(ui, |ui| board_detail_ui(ui, board, textures, actions));
    }
    egui::CentralPanel::default()
        .frame(egui::Frame::new().inner_margin(egui::Margin::symmetric(16, 12)))
        .show(ui, |ui| {
            if let Some(error) = &state.boards_error {
                error_ui(ui, model, error, "moodboard_list_error");
                if ui.add(widgets::subtle_button("Try again")).clicked() {
                    actions.push(wrap(LooksAction::Reload));
                }
            }
            if !state.boards_loaded {
                if state.boards_error.is_none() {
                    ui.horizontal(|ui| {
                        ui.add(egui::Spinner::new().size(14.0));
                        widgets::muted(ui, "Loading moodboards…");
                    });
                }
                return;
            }
            if state.boards.is_empty() {
                ui.add_space(tokens::SPACE_L);
                widgets::muted(
                    ui,
                    "No moodboards yet. Drop reference images here or press New moodboard.",
                );
                return;
            }
            let selected_id = state.board_selected.clone();
            egui::ScrollArea::vertical()
                .id_salt("moodboard_grid_scroll")
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    let width = ui.available_width() - tokens::SCROLLBAR_ALLOWANCE;
                    let (columns, card_width) = grid_columns(width);
                    for row in state.boards.chunks(columns) {
                        ui.horizontal_top(|ui| {
                            ui.spacing_mut().item_spacing.x = tokens::GRID_GAP * 1.5;
                            for board in row {
                                let selected = selected_id.as_deref() == Some(board.id.as_str());
                                board_card_ui(ui, board, selected, card_width, textures, actions);
                            }
                        });
                        ui.add_space(tokens::GRID_GAP * 1.5);
                    }
                });
        });
}

fn image_count(count: usize) -> String {
    if count == 1 {
        "1 image".to_owned()
    } else {
        format!("{count} images")
    }
}

fn board_card_ui(
    ui: &mut Ui,
    board: &Moodboard,
    selected: bool,
    width: f32,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let (rect, response) =
        ui.allocate_exact_size(Vec2::new(width, width + CARD_TEXT_HEIGHT), Sense::click());
    let picture = egui::Rect::from_min_size(rect.min, Vec2::splat(width));
    let count = board.image_urls().count();
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let radius = CornerRadius::same(tokens::RADIUS_M);
        painter.rect_filled(rect, radius, tokens::palette().bg_surface);
        paint_picture(
            ui,
            textures,
            board.thumbnail_url.as_deref().or(board.image_urls().next()),
            picture,
        );
        let stroke = if selected {
            Stroke::new(2.0, tokens::palette().accent)
        } else if response.hovered() {
            Stroke::new(1.0, tokens::palette().border_hover)
        } else {
            Stroke::new(1.0, tokens::palette().border)
        };
        painter.rect_stroke(rect, radius, stroke, egui::StrokeKind::Inside);
        painter.text(
            egui::pos2(rect.left() + 8.0, picture.bottom() + 6.0),
            egui::Align2::LEFT_TOP,
            crate::ui::format::excerpt(&board.name, ((width - 16.0) / 7.5) as usize),
            egui::FontId::proportional(tokens::TEXT_BODY),
            tokens::palette().text,
        );
        painter.text(
            egui::pos2(rect.left() + 8.0, picture.bottom() + 27.0),
            egui::Align2::LEFT_TOP,
            image_count(count),
            egui::FontId::proportional(tokens::TEXT_SMALL),
            tokens::palette().text_faint,
        );
    }
    let name = format!("Moodboard {}, {}", board.name, image_count(count));
    response.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, selected, &name));
    if response.clicked() {
        actions.push(wrap(LooksAction::SelectBoard(board.id.clone())));
    }
}

fn board_detail_ui(
    ui: &mut Ui,
    board: &Moodboard,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    egui::ScrollArea::vertical()
        .id_salt("moodboard_detail_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.add(
                    egui::Label::new(
                        RichText::new(&board.name)
                            .size(tokens::TEXT_TITLE)
                            .strong()
                            .color(tokens::palette().text),
                    )
                    .wrap(),
                );
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Min), |ui| {
                    if widgets::icon_button(ui, Icon::Close, "Close moodboard details").clicked() {
                        actions.push(wrap(LooksAction::CloseBoard));
                    }
                });
            });
            let urls: Vec<String> = board.image_urls().map(str::to_owned).collect();
            widgets::muted(ui, image_count(urls.len()));
            ui.add_space(tokens::SPACE_S);
            thumbnails_row_ui(ui, textures, &urls, 64.0, &board.name);
            ui.add_space(tokens::SPACE_S);
            ui.horizontal_wrapped(|ui| {
                if ui.add(widgets::primary_button("Show in Library")).clicked() {
                    actions.push(wrap(LooksAction::ShowBoardInLibrary {
                        id: board.id.clone(),
                        name: board.name.clone(),
                    }));
                }
                if ui.add(widgets::secondary_button("Edit…")).clicked() {
                    actions.push(wrap(LooksAction::EditBoard(board.id.clone())));
                }
                if ui.add(widgets::danger_button_small("Delete…")).clicked() {
                    actions.push(wrap(LooksAction::AskDelete(
                        LooksConfirm::DeleteMoodboard {
                            id: board.id.clone(),
                            name: board.name.clone(),
                        },
                    )));
                }
            });
            ui.add_space(tokens::SPACE_M);
            if let Some(guide) = board
                .style_guide
                .as_deref()
                .filter(|g| !g.trim().is_empty())
            {
                widgets::section_label(ui, "Style guide");
                ui.add(egui::Label::new(RichText::new(guide).color(tokens::palette().text)).wrap());
                ui.add_space(tokens::SPACE_S);
            }
            widgets::section_label(ui, "Master prompt");
            match board
                .master_prompt
                .as_deref()
                .filter(|p| !p.trim().is_empty())
            {
                Some(prompt) => {
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
                None => {
                    widgets::muted(ui, "None yet.");
                }
            }
        });
}
