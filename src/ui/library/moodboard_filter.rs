//! The Library's moodboard filter, under the project filter in the sidebar: "Any
//! moodboard" or one moodboard (sent as `moodboard_id` on GET /v1/media: the items
//! generated with it). While one is set the toolbar shows it as a chip that clears it.
//! Folders show their contents whatever the filter (as with the project filter).

use super::{LibraryAction, LibraryState, Place};
use crate::api::moodboards::Moodboard;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::Ui;

pub const ANY_MOODBOARD: &str = "Any moodboard";
/// Accessible names.
pub const FILTER_NAME: &str = "Moodboard filter";
pub const CLEAR_NAME: &str = "Clear moodboard filter";

/// The filter's state: the moodboard (id and name to show) and the boards to offer.
#[derive(Clone, Debug, Default)]
pub struct MoodboardFilter {
    /// (id, name).
    pub active: Option<(String, String)>,
    pub boards: Vec<Moodboard>,
    /// The list was asked for (once, when the dropdown first opens).
    pub list_requested: bool,
    /// A list has arrived.
    pub loaded: bool,
}

impl MoodboardFilter {
    pub fn id(&self) -> Option<&str> {
        self.active.as_ref().map(|(id, _)| id.as_str())
    }
    /// A `MoodboardEvent::Listed`: the boards to offer, and the active one's current name.
    pub fn listed(&mut self, boards: Vec<Moodboard>) {
        if let Some((id, name)) = &mut self.active
            && let Some(board) = boards.iter().find(|b| &b.id == id)
        {
            name.clone_from(&board.name);
        }
        self.boards = boards;
        self.loaded = true;
    }
}

fn board_name(board: &Moodboard) -> String {
    if board.name.trim().is_empty() {
        board.id.clone()
    } else {
        board.name.clone()
    }
}

/// The sidebar's moodboard dropdown. Also returns whether the list should be asked for
/// (the first time the dropdown opens: GET /v1/moodboards counts in the 10/min limit).
pub fn moodboard_filter_ui(ui: &mut Ui, state: &LibraryState) -> (Vec<LibraryAction>, bool) {
    let mut actions = Vec::new();
    let filter = &state.moodboard_filter;
    widgets::section_label(ui, "Moodboard");
    let mut wants_list = false;
    let selected_text = filter
        .active
        .as_ref()
        .map_or_else(|| ANY_MOODBOARD.to_owned(), |(_, name)| name.clone());
    let in_folder = matches!(state.place, Place::Folder(_));
    ui.add_enabled_ui(!in_folder, |ui| {
        let width = ui.available_width();
        let combo = egui::ComboBox::from_id_salt("library_moodboard_filter")
            .selected_text(selected_text)
            .width(width)
            .truncate()
            .show_ui(ui, |ui| {
                ui.set_min_width(width - 8.0);
                wants_list = !filter.list_requested && !filter.loaded;
                if filter.boards.is_empty() {
                    widgets::muted(
                        ui,
                        if filter.loaded {
                            "No moodboards yet: make one in the Visual DNA view."
                        } else {
                            "Loading moodboards…"
                        },
                    );
                }
                let any = filter.active.is_none();
                if ui.selectable_label(any, ANY_MOODBOARD).clicked() && !any {
                    actions.push(LibraryAction::SetMoodboardFilter(None));
                }
                for board in &filter.boards {
                    let selected = filter.id() == Some(board.id.as_str());
                    if ui.selectable_label(selected, board_name(board)).clicked() && !selected {
                        actions.push(LibraryAction::SetMoodboardFilter(Some((
                            board.id.clone(),
                            board_name(board),
                        ))));
                    }
                }
            });
        widgets::name_widget(&combo.response, FILTER_NAME);
        if in_folder {
            combo
                .response
                .on_disabled_hover_text("Folders show their items whatever the moodboard");
        }
    });
    ui.add_space(tokens::SPACE_S);
    (actions, wants_list)
}

/// The toolbar's chip naming the active filter, with its clear button.
pub fn active_chip_ui(ui: &mut Ui, state: &LibraryState) -> Vec<LibraryAction> {
    let mut actions = Vec::new();
    let Some((_, name)) = &state.moodboard_filter.active else {
        return actions;
    };
    if matches!(state.place, Place::Folder(_)) {
        return actions;
    }
    egui::Frame::new()
        .fill(tokens::palette().bg_panel)
        .stroke(egui::Stroke::new(1.0, tokens::palette().accent))
        .corner_radius(egui::CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::symmetric(6, 2))
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.label(egui::RichText::new(format!("Moodboard: {name}")).size(12.5));
                if widgets::icon_button(ui, crate::ui::icons::Icon::Close, CLEAR_NAME).clicked() {
                    actions.push(LibraryAction::SetMoodboardFilter(None));
                }
            });
        });
    actions
}
