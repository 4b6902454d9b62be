//! The Visual DNA view: tabs "Visual DNA" (folders, a searchable grid of cards, a detail
//! pane, the create / edit form) and "Moodboards" (grid, detail, form). State and logic
//! are in [`state`]; this file only lays out and returns actions.

mod forms;
mod moodboards;
mod parts;
pub mod state;

pub use state::{
    BoardForm, DnaForm, FolderFilter, FolderForm, FormField, FormImage, ImageList, LooksAction,
    LooksConfirm, LooksRoute, LooksState, LooksTab, ShownError,
};

pub use parts::grid_columns;

use crate::api::visual_dna::{DnaType, VisualDna};
use crate::ui::icons::Icon;
use crate::ui::model::{Action, Model};
use crate::ui::textures::TextureCache;
use crate::ui::{focus, tokens, widgets};
use egui::{CornerRadius, RichText, Sense, TextEdit, Ui, Vec2};
use parts::{
    DETAIL_MIN_WIDTH, DETAIL_WIDTH, card_grid, card_ui, detail_header, detail_pane,
    edit_delete_buttons, list_status_ui, service_prompt_ui, thumbnails_row_ui,
};

/// Folder sidebar width (narrower in a small window).
const SIDEBAR_WIDTH: f32 = 200.0;
const SIDEBAR_MIN_WIDTH: f32 = 150.0;

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
        LooksTab::Moodboards => moodboards::boards_tab_ui(ui, state, model, textures, &mut actions),
    }
    forms::dna_form_ui(ui.ctx(), state, textures, &mut actions);
    moodboards::board_form_ui(ui.ctx(), state, textures, &mut actions);
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
        detail_pane(ui, "vdna_detail", width, |ui| {
            dna_detail_ui(ui, state, entry, textures, actions)
        });
    }

    egui::CentralPanel::default()
        .frame(egui::Frame::new().inner_margin(egui::Margin::symmetric(16, 12)))
        .show(ui, |ui| {
            filters_ui(ui, state);
            ui.add_space(tokens::SPACE_S);
            let loaded = list_status_ui(
                ui,
                model,
                state.entries_error.as_ref(),
                state.entries_loaded,
                "vdna_list_error",
                "Loading Visual DNA…",
                actions,
            );
            if !loaded {
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
            let selected_id = state.selected.as_deref();
            card_grid(ui, "vdna_grid_scroll", &visible, |ui, entry, width| {
                let selected = selected_id == Some(entry.id.as_str());
                dna_card_ui(
                    ui,
                    entry,
                    selected,
                    width,
                    &state.folders,
                    textures,
                    actions,
                );
            });
        });
}

/// Search and type filter side by side down to this width; narrower (a small window with
/// the detail pane open), the filter goes under the search rather than widening the
/// grid under the detail pane.
const FILTERS_ONE_ROW_WIDTH: f32 = 300.0;
const TYPE_FILTER_WIDTH: f32 = 140.0;

fn filters_ui(ui: &mut Ui, state: &mut LooksState) {
    let width = ui.available_width();
    let search_width = if width >= FILTERS_ONE_ROW_WIDTH {
        (width - TYPE_FILTER_WIDTH - 30.0).clamp(120.0, 320.0)
    } else {
        (width - 16.0).max(60.0)
    };
    ui.horizontal_wrapped(|ui| {
        let search = ui.add(
            TextEdit::singleline(&mut state.search)
                .hint_text("Search Visual DNA")
                .desired_width(search_width),
        );
        widgets::name_widget(&search, "Search Visual DNA");
        let label = state.type_filter.map(DnaType::label).unwrap_or("All types");
        let combo = egui::ComboBox::from_id_salt("vdna_type_filter")
            .selected_text(label)
            .width(TYPE_FILTER_WIDTH.min(width - 8.0))
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
    let url = entry
        .thumbnail_url
        .as_deref()
        .or(entry.images.first().map(String::as_str));
    let card = card_ui(
        ui,
        width,
        selected,
        url,
        &entry.name,
        textures,
        |ui, picture| {
            let painter = ui.painter().clone();
            let radius = CornerRadius::same(tokens::RADIUS_M);
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
        },
    );
    if card.visible {
        type_chips(ui.painter(), entry, card.second_line);
    }
    let picture = card.picture;
    let response = card.response;
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

/// A card's second line: the type chip and, for a built-in one, the "BUILT-IN" badge.
fn type_chips(painter: &egui::Painter, entry: &VisualDna, at: egui::Pos2) {
    let chip = type_label(entry);
    let color = type_color(entry.kind());
    let font = egui::FontId::proportional(10.5);
    let galley = painter.layout_no_wrap(chip.to_uppercase(), font.clone(), color);
    let chip_rect = egui::Rect::from_min_size(at, galley.size() + Vec2::new(10.0, 4.0));
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

fn dna_detail_ui(
    ui: &mut Ui,
    state: &LooksState,
    entry: &VisualDna,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    if detail_header(ui, &entry.name, "Close details") {
        actions.push(wrap(LooksAction::CloseDetail));
    }
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
            let delete = LooksConfirm::DeleteVisualDna {
                id: entry.id.clone(),
                name: entry.name.clone(),
            };
            let edit = LooksAction::EditDna(entry.id.clone());
            edit_delete_buttons(ui, edit, delete, actions);
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
            ui.add(egui::Label::new(RichText::new(text).color(tokens::palette().text)).wrap());
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
        ui.add(egui::Label::new(RichText::new(helper).color(tokens::palette().text)).wrap());
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
            .show(ui, |ui| service_prompt_ui(ui, prompt));
    }
}
