//! The Library toolbar: title and count, debounced search, sort, thumbnail size, the type
//! filter, and Upload… (Empty trash in the Trash). Its height never depends on the selection (the
//! selection's actions live in the detail pane), so selecting never moves the grid.

use super::{LibraryAction, LibraryState, Place, THUMB_MAX_PX, THUMB_MIN_PX};
use crate::api::media::{MediaSort, MediaTypeFilter};
use crate::ui::format;
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
/// Below this width the sort and size leave the title's row for one of their own.
const COMPACT_TOOLBAR_PX: f32 = 520.0;
/// Width of the search box when it shares the first row.
const SEARCH_WIDTH_PX: f32 = 240.0;

pub fn toolbar_ui(ui: &mut Ui, state: &mut LibraryState) -> Vec<LibraryAction> {
    let mut actions = Vec::new();
    let now = ui.input(|i| i.time);

    // Narrow when the detail pane and the job tray share the window: the search gets its
    // own row and the bulk actions wrap, so nothing overflows and widens the grid.
    let wide = ui.available_width() >= WIDE_TOOLBAR_PX;
    let compact = ui.available_width() < COMPACT_TOOLBAR_PX;

    // Row 1: title and count; (search,) sort and size on the right.
    ui.horizontal(|ui| {
        let title = match &state.place {
            Place::Section(section) => section.label().to_owned(),
            Place::Folder(_) => state
                .current_folder()
                .map(|f| f.name.clone())
                .unwrap_or_else(|| "Folder".to_owned()),
        };
        ui.add(
            egui::Label::new(
                RichText::new(title)
                    .size(tokens::TEXT_TITLE + 3.0)
                    .strong()
                    .color(tokens::palette().text),
            )
            .truncate(),
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
            ui.label(
                RichText::new(text)
                    .size(12.5)
                    .color(tokens::palette().text_faint),
            );
        }
        if !compact {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                size_slider_ui(ui, state, &mut actions);
                ui.add_space(tokens::SPACE_XS);
                sort_ui(ui, state, &mut actions);
                if wide {
                    search_ui(ui, state, now, SEARCH_WIDTH_PX, &mut actions);
                }
            });
        }
    });
    if compact {
        ui.horizontal(|ui| {
            sort_ui(ui, state, &mut actions);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                size_slider_ui(ui, state, &mut actions);
            });
        });
    }
    if !wide {
        ui.add_space(tokens::SPACE_XS);
        let width = ui.available_width();
        search_ui(ui, state, now, width, &mut actions);
    }
    ui.add_space(tokens::SPACE_XS);

    // Row 2: the type filter; Upload… on the right (Empty trash in the Trash).
    ui.horizontal(|ui| {
        ui.set_min_height(30.0);
        type_filter_ui(ui, state, &mut actions);
        actions.extend(super::moodboard_filter::active_chip_ui(ui, state));
        if !state.in_trash() {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                super::add_files::upload_button_ui(ui, &mut actions);
            });
        } else {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let has_items = !state.items.is_empty();
                let busy = state.emptying_trash;
                let label = if busy {
                    "Emptying…"
                } else {
                    "Empty trash…"
                };
                let response = ui
                    .add_enabled(has_items && !busy, widgets::danger_button_small(label))
                    .on_disabled_hover_text(if busy {
                        "The trash is being emptied"
                    } else {
                        "The trash is already empty"
                    });
                if response.clicked() {
                    actions.push(LibraryAction::AskEmptyTrash);
                }
            });
        }
    });
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
    crate::ui::icons::icon_ui(
        ui,
        crate::ui::icons::Icon::Image,
        14.0,
        tokens::palette().text_faint,
    );
}

fn type_filter_ui(ui: &mut Ui, state: &LibraryState, actions: &mut Vec<LibraryAction>) {
    egui::Frame::new()
        .fill(tokens::palette().bg_panel)
        .stroke(Stroke::new(1.0, tokens::palette().border))
        .corner_radius(CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::same(2))
        .show(ui, |ui| {
            ui.spacing_mut().item_spacing.x = 2.0;
            for (filter, label) in TYPES {
                let selected = state.type_filter == filter;
                let (fill, color) = if selected {
                    (tokens::palette().bg_hover, tokens::palette().text)
                } else {
                    (egui::Color32::TRANSPARENT, tokens::palette().text_muted)
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
