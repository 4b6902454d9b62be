//! The shell's share of the Docs view: routing its events and actions, the toasts whose
//! expiry commits a change (a document delete with Undo), the unsaved-changes guard on
//! leaving the view or quitting, and sending pending deletes before the connection goes.
//!
//! Quitting with a delete still offering Undo sends it (the person did not undo it, and a
//! delete that silently did not happen would be worse): `on_exit` hands the toasts' pending
//! commits to the engine before it stops, and the engine waits for them (bounded) before
//! shutting down. Switching profiles does the same before the old connection closes.

use super::StudioApp;
use crate::engine::DocsEvent;
use crate::ui::docs::{self, DocsAction, DocsState, LeaveTarget};
use crate::ui::model::{Action, View};
use crate::ui::toasts::ToastAction;

impl StudioApp {
    /// The Docs view's state (tests: list, editor, pending deletes).
    pub fn docs(&self) -> &DocsState {
        &self.docs
    }

    /// How long a document delete offers Undo before it is sent (tests shorten it).
    pub fn set_doc_undo_window_secs(&mut self, secs: f64) {
        self.docs.undo_window_secs = secs.max(0.0);
    }

    /// Lay the Docs view out.
    pub(super) fn docs_panel(&mut self, ui: &mut egui::Ui) -> Vec<Action> {
        let project = self.current_project();
        docs::docs_ui(ui, &mut self.docs, &self.model, project.as_ref())
    }

    pub(super) fn docs_event(&mut self, ctx: &egui::Context, event: DocsEvent) {
        for action in self.docs.handle_event(event) {
            self.apply(ctx, action);
        }
    }

    pub(super) fn apply_docs(&mut self, ctx: &egui::Context, action: DocsAction) {
        let project_id = self.create.form.project_id.clone();
        for follow_up in self.docs.apply(action, project_id.as_deref()) {
            self.apply(ctx, follow_up);
        }
    }

    /// Before layout: expire toasts (running the commits of those that went without
    /// Undo), and while Docs shows, ask for its list when the scope or project changed.
    pub(super) fn docs_frame(&mut self, ctx: &egui::Context) {
        for action in self.toasts.tick(ctx.input(|i| i.time)) {
            self.apply(ctx, action.into());
        }
        if self.view == View::Docs && self.session.connection_error().is_none() {
            let project_id = self.create.form.project_id.clone();
            for command in self.docs.start(project_id.as_deref()) {
                self.send(command);
            }
        }
    }

    /// Toast buttons and toasts that carry a change: Undo runs the toast's action; closing
    /// it, or an Undo toast pushing out another, commits.
    pub(super) fn apply_toast(&mut self, ctx: &egui::Context, action: Action) {
        let follow_ups: Vec<ToastAction> = match action {
            Action::DismissToast(id) => self.toasts.dismiss(id).into_iter().collect(),
            Action::PressToast(id) => self.toasts.press(id).into_iter().collect(),
            Action::UndoToast(toast) => self.toasts.push_undoable(toast),
            other => {
                tracing::debug!("not a toast action: {other:?}");
                Vec::new()
            }
        };
        for action in follow_ups {
            self.apply(ctx, action.into());
        }
    }

    /// Leaving Docs (for `target`) with unsaved edits asks first; Docs is shown so the
    /// question is seen. Whether the person may go now.
    pub(super) fn docs_may_leave(&mut self, target: LeaveTarget) -> bool {
        let leaving_docs = match &target {
            LeaveTarget::View(view) => self.view == View::Docs && *view != View::Docs,
            _ => true,
        };
        if !leaving_docs || self.docs.may_leave(target) {
            return true;
        }
        self.view = View::Docs;
        false
    }

    /// Send every delete still offering Undo (quitting, or the connection is about to
    /// change); no egui context is needed.
    pub(super) fn flush_doc_deletes(&mut self) {
        let project_id = self.create.form.project_id.clone();
        for action in self.toasts.take_expiring() {
            let ToastAction::Docs(action) = action else {
                continue;
            };
            for follow_up in self.docs.apply(action, project_id.as_deref()) {
                self.apply_plain(follow_up);
            }
        }
    }
}
