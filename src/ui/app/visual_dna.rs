//! Routing of the Visual DNA and moodboard answers: to the Visual DNA panel and to the
//! Create panel's pickers (each keeps what it needs).

use super::StudioApp;
use crate::engine::{MoodboardEvent, VisualDnaEvent};

impl StudioApp {
    pub(super) fn visual_dna_event(&mut self, _ctx: &egui::Context, event: VisualDnaEvent) {
        tracing::trace!("visual dna event: {event:?}");
    }

    pub(super) fn moodboard_event(&mut self, _ctx: &egui::Context, event: MoodboardEvent) {
        tracing::trace!("moodboard event: {event:?}");
    }
}
