//! Applying [`ResultAction`]s: what happens when an artist opens, reuses, varies,
//! favourites or trashes a finished result from the Create canvas, the viewer, the tray
//! or the library.

use super::StudioApp;
use crate::ui::model::ResultAction;

impl StudioApp {
    pub(super) fn apply_result_action(&mut self, _ctx: &egui::Context, action: ResultAction) {
        match action {
            ResultAction::Open { list, index } => self.viewer.open(list, index),
            other => tracing::warn!("result action not handled yet: {other:?}"),
        }
    }
}
