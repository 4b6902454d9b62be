//! The shell's share of keyboard, clipboard and window handling: global keys, the
//! shortcuts overlay, quitting (asking while jobs run), copying with an honest toast, the
//! keyboard focus ring, and remembering the window and the last view.

use super::StudioApp;
use crate::settings::WindowGeometry;
use crate::ui::clipboard::{AppClipboard, CopyRoute};
use crate::ui::docs::LeaveTarget;
use crate::ui::model::{Action, Confirm};
use crate::ui::toasts::ToastKind;
use crate::ui::{shortcuts, tokens, window};

/// Runtime-only state (nothing here is persisted as is).
pub(super) struct KeyboardState {
    pub(super) shortcuts_open: bool,
    pub(super) clipboard: AppClipboard,
    /// The artist confirmed quitting (or nothing was running): let the window close.
    quitting: bool,
    window: window::WindowTracker,
    focus_ring: tokens::FocusRing,
}

impl KeyboardState {
    /// `screenshot_run`: the window keeps the size the screenshot asks for (not fitted to
    /// the screen, not remembered).
    pub(super) fn new(stored_window: &Option<WindowGeometry>, screenshot_run: bool) -> Self {
        Self {
            shortcuts_open: false,
            clipboard: AppClipboard::default(),
            quitting: false,
            window: window::WindowTracker::new(*stored_window, !screenshot_run),
            focus_ring: tokens::FocusRing::default(),
        }
    }
}

impl StudioApp {
    /// What the studio last put on the clipboard (a button's copy or a text field's).
    pub fn last_copied(&self) -> Option<&str> {
        self.keys.clipboard.last_copied()
    }

    /// The texts of the toasts on screen, oldest first.
    pub fn toast_texts(&self) -> Vec<String> {
        self.toasts.items().iter().map(|t| t.text.clone()).collect()
    }

    /// Whether the keyboard shortcuts overlay is showing.
    pub fn shortcuts_open(&self) -> bool {
        self.keys.shortcuts_open
    }

    /// Whether the studio has asked the window to close.
    pub fn quitting(&self) -> bool {
        self.keys.quitting
    }

    /// Global keys, and a close request from the window manager, before panels see input.
    pub(super) fn global_keys(&mut self, ctx: &egui::Context) -> Vec<Action> {
        let mut actions = Vec::new();
        // A dialog that asks something keeps the keys (Esc / Enter answer it).
        if self.confirm.is_none() {
            actions = shortcuts::global_keys(ctx, self.keys.shortcuts_open);
            crate::ui::sound::mute_key(ctx);
        }
        if ctx.input(|i| i.viewport().close_requested()) && !self.keys.quitting {
            let running_jobs = self.model.running_count();
            if !self.docs_may_leave(LeaveTarget::Quit) {
                // Unsaved edits in Docs: asked first; its answer quits again.
                ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            } else if running_jobs > 0 {
                ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                self.confirm = Some(Confirm::Quit { running_jobs });
            }
        }
        self.keys.focus_ring.observe_input(ctx);
        actions
    }

    /// Ctrl+Q: quit now, or ask first when a document has unsaved edits or jobs are running.
    pub(super) fn request_quit(&mut self, ctx: &egui::Context) {
        let running_jobs = self.model.running_count();
        if !self.docs_may_leave(LeaveTarget::Quit) {
            // Unsaved edits in Docs: the question's answer quits again.
        } else if running_jobs > 0 {
            self.confirm = Some(Confirm::Quit { running_jobs });
        } else {
            self.quit_now(ctx);
        }
    }

    pub(super) fn quit_now(&mut self, ctx: &egui::Context) {
        self.keys.quitting = true;
        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
    }

    /// Copy `text` and say so only when it worked; `what` names it in the toast ("URL").
    pub(super) fn copy_to_clipboard(&mut self, ctx: &egui::Context, text: &str, what: &str) {
        match self.keys.clipboard.copy(ctx, text) {
            Ok(CopyRoute::System | CopyRoute::Window) => self.toasts.push(
                ToastKind::Success,
                format!("{what} copied to the clipboard"),
            ),
            Err(error) => self.toasts.push(
                ToastKind::Error,
                format!("Could not copy the {}: {error}", what.to_lowercase()),
            ),
        }
    }

    /// The last view is remembered on each switch (a user action, so no throttling).
    pub(super) fn remember_view(&mut self) {
        let key = window::view_key(self.view);
        self.session
            .update_ui_memory(|memory| memory.last_view = Some(key));
    }

    /// After layout: record text-field copies, draw the focus ring, store the window.
    pub(super) fn after_frame(&mut self, ctx: &egui::Context) {
        self.keys.clipboard.observe(ctx);
        self.keys.focus_ring.paint(ctx);
        if let Some(geometry) = self.keys.window.update(ctx) {
            self.session
                .update_ui_memory(|memory| memory.window = Some(geometry));
        }
    }

    pub(super) fn store_window_on_exit(&mut self) {
        if let Some(geometry) = self.keys.window.unstored() {
            self.session
                .update_ui_memory(|memory| memory.window = Some(geometry));
        }
    }
}
