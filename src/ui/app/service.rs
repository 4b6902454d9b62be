//! The shell's side of service reachability: remember that the service went away (panels
//! show it), and when it answers again refresh everything on screen without user action.

use super::StudioApp;
use crate::engine::Command;
use crate::ui::offline::{self, Unreachable};
use crate::ui::settings::SettingsSnapshot;
use crate::ui::toasts::ToastKind;

impl StudioApp {
    /// Switch profile. Jobs of the profile left keep running (its engine stays up until
    /// they finish) and stay in the tray; a toast says how many and where.
    pub(super) fn activate_profile(&mut self, id: String) {
        self.flush_doc_deletes();
        self.settings_form.profile_errors.remove(&id);
        match self.session.activate_profile(&id) {
            Ok(Some(kept)) => self.toasts.push(ToastKind::Info, kept.message()),
            Ok(None) => {}
            Err(error) => {
                self.settings_form
                    .profile_errors
                    .insert(id, error.to_string());
            }
        }
        self.settings_snapshot = SettingsSnapshot::of(&self.session);
    }

    pub(super) fn service_unreachable(&mut self, error: String) {
        let base_url = self.session.base_url().unwrap_or_default().to_owned();
        tracing::warn!("service at {base_url} unreachable: {error}");
        self.model.service.unreachable = Some(Unreachable { base_url, error });
    }

    /// Back online: ask again for what every panel shows (catalog, credits, projects,
    /// presets, palettes, the library's current page, folders and stats).
    pub(super) fn service_reachable(&mut self) {
        tracing::info!("service reachable again; refreshing");
        self.model.service.unreachable = None;
        // The old errors are stale now; the answers replace them within moments.
        self.model.catalog.error = None;
        self.model.credits.error = None;
        self.model.projects.error = None;
        self.model.presets.error = None;
        self.model.palettes.error = None;
        self.request_service_data();
        self.palettes.list_requested_for = None;
        self.docs.on_service_reachable();
        for command in self.library.refresh() {
            self.send(command);
        }
        if self.library.is_started() {
            self.send(Command::RefreshFolders);
        }
    }

    /// An engine task stopped on an internal error: say so once; the rest keeps working.
    pub(super) fn task_panicked(&mut self, doing: &str) {
        self.toasts
            .push(ToastKind::Error, task_panicked_message(doing));
    }

    /// A panel's Retry was pressed during the last layout.
    pub(super) fn forward_retry_request(&mut self, ctx: &egui::Context) {
        if offline::take_retry_request(ctx) {
            self.send(Command::RetryConnection);
        }
    }
}

/// The toast for `Event::TaskPanicked`.
pub(crate) fn task_panicked_message(doing: &str) -> String {
    format!(
        "Something went wrong inside Framewright while {doing}, so that was stopped. \
         Everything else keeps working; try again, and if it happens again please report it."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panic_toast_says_what_stopped_and_that_the_rest_works() {
        let text = task_panicked_message("loading a library page");
        assert!(text.contains("while loading a library page"), "{text}");
        assert!(text.contains("Everything else keeps working"), "{text}");
    }
}
