//! Routing of the Visual DNA view: the engine's Visual DNA and moodboard answers go to the
//! Visual DNA panel and to the Create panel's pickers (each keeps what it needs); the
//! panel's routes (file dialog, confirmations, "Use in Create", "Show in Library") go to
//! the dialogs, the confirm modal and the other panels.

use super::StudioApp;
use crate::engine::{MoodboardEvent, VisualDnaEvent};
use crate::ui::dialogs::DialogKind;
use crate::ui::model::{Action, Confirm, View};
use crate::ui::visual_dna::{LooksAction, LooksRoute};

impl StudioApp {
    pub(super) fn visual_dna_event(&mut self, ctx: &egui::Context, event: VisualDnaEvent) {
        // Create's pickers keep the whole list (what they offer and check picks against).
        if let VisualDnaEvent::Listed(result) = &event {
            self.create.visual_dnas_listed(result.clone());
        }
        for action in self.looks.handle_dna_event(&event) {
            self.apply(ctx, action);
        }
    }

    pub(super) fn moodboard_event(&mut self, ctx: &egui::Context, event: MoodboardEvent) {
        // Create's moodboard picker and the Library's moodboard filter keep the list.
        if let MoodboardEvent::Listed(result) = &event {
            self.create.moodboards_listed(result.clone());
            if let Ok(boards) = result {
                self.library.moodboards_listed(boards.clone());
            }
        }
        for action in self.looks.handle_board_event(&event) {
            self.apply(ctx, action);
        }
    }

    pub(super) fn apply_looks(&mut self, ctx: &egui::Context, action: LooksAction) {
        let (follow_ups, route) = self.looks.apply(action);
        for follow_up in follow_ups {
            self.apply(ctx, follow_up);
        }
        match route {
            None => {}
            Some(LooksRoute::PickImages) => self.dialogs.open(DialogKind::LooksImages),
            Some(LooksRoute::Ask(question)) => self.confirm = Some(Confirm::Looks(question)),
            Some(LooksRoute::UseInCreate(id)) => self.use_visual_dna_in_create(ctx, &id),
            Some(LooksRoute::ShowBoardInLibrary { id, name }) => {
                self.show_moodboard_in_library(ctx, &id, &name);
            }
        }
    }

    /// Switch to Create with this Visual DNA picked (added to the form's Visual DNA ids).
    fn use_visual_dna_in_create(&mut self, ctx: &egui::Context, id: &str) {
        let added = self.create.pick_visual_dna(id);
        let name = self
            .looks
            .entry(id)
            .map(|e| e.name.clone())
            .unwrap_or_else(|| id.to_owned());
        self.apply(ctx, Action::Navigate(View::Create));
        if added {
            self.toasts.push(
                crate::ui::toasts::ToastKind::Info,
                format!("Visual DNA “{name}” is picked for your next picture."),
            );
        } else {
            self.toasts.push(
                crate::ui::toasts::ToastKind::Info,
                format!(
                    "“{name}” was not added: the form already has as many Visual DNA as it \
                     takes. Remove one to add it."
                ),
            );
        }
    }

    /// Switch to the Library showing the pictures made with this moodboard.
    fn show_moodboard_in_library(&mut self, ctx: &egui::Context, id: &str, name: &str) {
        self.library.filter_by_moodboard(id, name);
        self.apply(ctx, Action::Navigate(View::Library));
    }
}
