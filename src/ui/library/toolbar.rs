//! The Library toolbar: title and count, debounced search, sort, thumbnail size, the type
//! filter, and the selection's bulk actions.

use super::{LibraryAction, LibraryState, Place, THUMB_MAX_PX, THUMB_MIN_PX};
use crate::api::media::{MediaSort, MediaTypeFilter};
use crate::ui::format;
use crate::ui::model::Model;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{CornerRadius, RichText, Stroke, Ui, Vec2};

const TYPES: [(MediaTypeFilter, &str); 4] = [
    (MediaTypeFilter::All, "All"),
    (MediaTypeFilter::Image, "Images"),
    (MediaTypeFilter::Video, "Videos"),
    (MediaTypeFilter::Audio, "Audio"),
];

const SORTS: [(MediaSort, &str); 4] = [
    (MediaSort::CreatedDesc, "Newest first"),
    (MediaSort::CreatedAsc, "Oldest first"),
    (MediaSort::NameAsc, "Name A–Z"),
    (MediaSort::NameDesc, "Name Z–A"),
];

fn sort_label(sort: MediaSort) -> &'static str {
    SORTS
        .iter()
        .find(|(s, _)| *s == sort)
        .map_or("Newest first", |(_, l)| l)
}

/// Below this width the toolbar stacks: search on its own row, bulk actions wrapped below.
const WIDE_TOOLBAR_PX: f32 = 860.0;
/// Height of one row of bulk-action buttons.
const BULK_ROW_HEIGHT_PX: f32 = 30.0;
/// Width of the search box when it shares the first row.
const SEARCH_WIDTH_PX: f32 = 240.0;

pub fn toolbar_ui(ui: &mut Ui, state: &mut LibraryState, model: &Model) -> Vec<LibraryAction> {
    let mut actions = Vec::new();
    let now = ui.input(|i| i.time);

    // Narrow when the detail pane and the job tray share the window: the search gets its
    // own row and the bulk actions wrap, so nothing overflows and widens the grid.
    let wide = ui.available_width() >= WIDE_TOOLBAR_PX;

    // Row 1: title and count; (search,) sort and size on the right.
    ui.horizontal(|ui| {
        let title = match &state.place {
            Place::Section(section) => section.label().to_owned(),
            Place::Folder(_) => state
                .current_folder()
                .map(|f| f.name.clone())
                .unwrap_or_else(|| "Folder".to_owned()),
        };
        ui.label(
            RichText::new(title)
                .size(tokens::TEXT_TITLE + 3.0)
                .strong()
                .color(tokens::TEXT),
        );
        if state.items.first_page_done() && state.items.error().is_none() {
            let n = state.items.len();
            let mut text = format!(
                "{} {}",
                format::thousands(n as f64),
                if n == 1 { "item" } else { "items" }
            );
            if state.items.is_loading() {
                text.push_str(" · loading");
            }
            ui.label(RichText::new(text).size(12.5).color(tokens::TEXT_FAINT));
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            size_slider_ui(ui, state, &mut actions);
            ui.add_space(tokens::SPACE_XS);
            sort_ui(ui, state, &mut actions);
            if wide {
                search_ui(ui, state, now, SEARCH_WIDTH_PX, &mut actions);
            }
        });
    });
    if !wide {
        ui.add_space(tokens::SPACE_XS);
        let width = ui.available_width();
        search_ui(ui, state, now, width, &mut actions);
    }
    ui.add_space(tokens::SPACE_XS);

    // Row 2: type filter; selection and bulk actions (beside it when wide, else below,
    // wrapping right-aligned so their order stays the same).
    ui.horizontal(|ui| {
        ui.set_min_height(30.0);
        type_filter_ui(ui, state, &mut actions);
        if wide && !state.selection.is_empty() {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                bulk_actions_ui(ui, state, model, &mut actions);
            });
        }
    });
    if !wide && !state.selection.is_empty() {
        ui.add_space(tokens::SPACE_XS);
        // Bounded to a row's height so the layout does not claim the grid's space; wrapped
        // rows extend below it.
        let row = egui::vec2(ui.available_width(), BULK_ROW_HEIGHT_PX);
        ui.allocate_ui_with_layout(
            row,
            egui::Layout::right_to_left(egui::Align::Center).with_main_wrap(true),
            |ui| bulk_actions_ui(ui, state, model, &mut actions),
        );
    }
    actions
}

fn search_ui(
    ui: &mut Ui,
    state: &mut LibraryState,
    now: f64,
    width_px: f32,
    actions: &mut Vec<LibraryAction>,
) {
    let response = ui.add(
        egui::TextEdit::singleline(&mut state.search_text)
            .hint_text("Search prompts, names, models…")
            .desired_width(width_px)
            .margin(egui::Margin::symmetric(8, 5)),
    );
    widgets::name_widget(&response, "Search library");
    if response.changed() {
        state.search_edited_at = Some(now);
    }
    let entered = response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
    if entered || state.search_due(now) {
        actions.push(LibraryAction::ApplySearch);
    } else if let Some(edited) = state.search_edited_at {
        let wait = (edited + super::SEARCH_DEBOUNCE_SECS - now).max(0.02);
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_secs_f64(wait));
    }
}

fn sort_ui(ui: &mut Ui, state: &LibraryState, actions: &mut Vec<LibraryAction>) {
    let in_folder = matches!(state.place, Place::Folder(_));
    ui.add_enabled_ui(!in_folder, |ui| {
        let combo = egui::ComboBox::from_id_salt("library_sort")
            .selected_text(if in_folder {
                "Folder order"
            } else {
                sort_label(state.sort)
            })
            .width(130.0)
            .show_ui(ui, |ui| {
                for (sort, label) in SORTS {
                    if ui.selectable_label(state.sort == sort, label).clicked()
                        && state.sort != sort
                    {
                        actions.push(LibraryAction::SetSort(sort));
                    }
                }
            });
        widgets::name_widget(&combo.response, "Sort");
        if in_folder {
            combo
                .response
                .on_disabled_hover_text("Folders keep their own order");
        }
    });
}

fn size_slider_ui(ui: &mut Ui, state: &LibraryState, actions: &mut Vec<LibraryAction>) {
    let mut size = state.thumb_px;
    let response = ui.add(
        egui::Slider::new(&mut size, THUMB_MIN_PX..=THUMB_MAX_PX)
            .show_value(false)
            .step_by(4.0),
    );
    widgets::name_widget(&response, "Thumbnail size");
    if response.changed() {
        actions.push(LibraryAction::SetThumbSize(size));
    }
    crate::ui::icons::icon_ui(ui, crate::ui::icons::Icon::Image, 14.0, tokens::TEXT_FAINT);
}

fn type_filter_ui(ui: &mut Ui, state: &LibraryState, actions: &mut Vec<LibraryAction>) {
    egui::Frame::new()
        .fill(tokens::BG_PANEL)
        .stroke(Stroke::new(1.0, tokens::BORDER))
        .corner_radius(CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::same(2))
        .show(ui, |ui| {
            ui.spacing_mut().item_spacing.x = 2.0;
            for (filter, label) in TYPES {
                let selected = state.type_filter == filter;
                let (fill, color) = if selected {
                    (tokens::BG_HOVER, tokens::TEXT)
                } else {
                    (egui::Color32::TRANSPARENT, tokens::TEXT_MUTED)
                };
                let response = ui.add(
                    egui::Button::selectable(
                        selected,
                        RichText::new(label).size(12.5).color(color),
                    )
                    .fill(fill)
                    .stroke(Stroke::NONE)
                    .corner_radius(CornerRadius::same(tokens::RADIUS_S + 2))
                    .min_size(Vec2::new(52.0, 24.0)),
                );
                if response.clicked() && !selected {
                    actions.push(LibraryAction::SetType(filter));
                }
            }
        });
}

fn bulk_actions_ui(
    ui: &mut Ui,
    state: &LibraryState,
    model: &Model,
    actions: &mut Vec<LibraryAction>,
) {
    // Right-to-left: the last added is leftmost. Ids are put in order only on a click (a
    // select-all of 100,000 items must not be sorted every frame). Until select all has
    // every page the actions wait: they would miss the items still loading.
    let ids = || state.selection.ordered_ids(&state.items);
    let enabled = !state.selection.all_pending;
    if widgets::icon_button(ui, crate::ui::icons::Icon::Close, "Clear selection").clicked() {
        actions.push(LibraryAction::ClearSelection);
    }
    if state.in_trash() {
        if ui
            .add_enabled(enabled, widgets::danger_button_small("Delete forever…"))
            .clicked()
        {
            actions.push(LibraryAction::AskDeleteForever(ids()));
        }
        if ui
            .add_enabled(enabled, widgets::secondary_button("Restore"))
            .clicked()
        {
            actions.push(LibraryAction::Restore(ids()));
        }
    } else {
        if ui
            .add_enabled(enabled, widgets::secondary_button("Move to trash"))
            .clicked()
        {
            actions.push(LibraryAction::Trash(ids()));
        }
        if ui
            .add(widgets::secondary_button("Save to folder…"))
            .clicked()
        {
            actions.push(LibraryAction::SaveToDisk(ids()));
        }
        let projects = model.projects.value.as_deref().unwrap_or_default();
        ui.add_enabled_ui(enabled && !projects.is_empty(), |ui| {
            ui.menu_button("Move to project…", |ui| {
                ui.set_min_width(180.0);
                for project in projects {
                    if ui.button(&project.name).clicked() {
                        actions.push(LibraryAction::MoveToProject {
                            ids: ids(),
                            project_id: project.id.clone(),
                        });
                    }
                }
            });
        });
        let folders = state.folders.value.as_deref().unwrap_or_default();
        if let Place::Folder(folder_id) = &state.place
            && ui
                .add(widgets::secondary_button("Remove from folder"))
                .clicked()
        {
            actions.push(LibraryAction::RemoveFromFolder {
                folder_id: folder_id.clone(),
                ids: ids(),
            });
        }
        if !enabled {
            ui.add_enabled(false, widgets::secondary_button("Add to folder…"));
        } else {
            ui.menu_button("Add to folder…", |ui| {
                ui.set_min_width(180.0);
                if folders.is_empty() {
                    ui.label(
                        RichText::new("No folders yet: create one in the sidebar.")
                            .size(12.5)
                            .color(tokens::TEXT_MUTED),
                    );
                }
                for folder in folders {
                    let name = if folder.name.is_empty() {
                        "Untitled folder"
                    } else {
                        folder.name.as_str()
                    };
                    if ui.button(name).clicked() {
                        actions.push(LibraryAction::AddToFolder {
                            folder_id: folder.id.clone(),
                            ids: ids(),
                        });
                    }
                }
            });
        }
        let all_favourite = !state.selection.is_empty()
            && state.selection.ids.iter().all(|id| {
                state
                    .items
                    .find(id)
                    .is_some_and(|i| i.is_favorited == Some(true))
            });
        let label = if all_favourite {
            "Unfavourite"
        } else {
            "Favourite"
        };
        if ui
            .add_enabled(enabled, widgets::secondary_button(label))
            .clicked()
        {
            actions.push(LibraryAction::Favourite {
                ids: ids(),
                favourite: !all_favourite,
            });
        }
    }
    let n = state.selection.len();
    let status = if state.selection.all_pending {
        format!(
            "Selecting all… {} of {}",
            format::thousands(n as f64),
            format::thousands(state.items.len() as f64)
        )
    } else {
        format!("{} selected", format::thousands(n as f64))
    };
    ui.label(RichText::new(status).strong().color(tokens::ACCENT_HOVER));
}
