//! The shell's share of appearance: applying the saved theme and UI scale each frame, the
//! scale keys, saving changes from Settings, and the first-run welcome.

use super::StudioApp;
use crate::session::Session;
use crate::ui::appearance::{self as look, AppearanceAction, AppearanceRuntime};
use crate::ui::model::{Action, View};
use crate::ui::welcome;

pub(super) struct AppearanceState {
    runtime: AppearanceRuntime,
    welcome_open: bool,
}

impl AppearanceState {
    /// The welcome opens on the first start, never in a screenshot run.
    pub(super) fn new(session: &Session, screenshot_run: bool) -> Self {
        Self {
            runtime: AppearanceRuntime::new(screenshot_run),
            welcome_open: !session.settings().welcome_seen && !screenshot_run,
        }
    }
}

impl StudioApp {
    /// Whether the first-run welcome is showing.
    pub fn welcome_open(&self) -> bool {
        self.appearance.welcome_open
    }

    /// Theme and scale from the settings, and the scale keys. Before anything is laid out.
    pub(super) fn appearance_frame(&mut self, ctx: &egui::Context) {
        let saved = self.session.settings().appearance;
        if self.confirm.is_none()
            && let Some(changed) = look::scale_keys(ctx, saved)
        {
            self.apply_appearance(ctx, AppearanceAction::Set(changed));
        }
        let saved = self.session.settings().appearance;
        self.appearance.runtime.frame(ctx, saved);
    }

    pub(super) fn welcome_ui(&self, ctx: &egui::Context) -> Vec<Action> {
        if self.appearance.welcome_open {
            welcome::welcome_ui(ctx)
        } else {
            Vec::new()
        }
    }

    pub(super) fn apply_appearance(&mut self, ctx: &egui::Context, action: AppearanceAction) {
        match action {
            AppearanceAction::Set(appearance) => {
                self.session.set_appearance(appearance);
                self.settings_snapshot.appearance = appearance;
                // Applied at the start of the next frame; ask for it now.
                ctx.request_repaint();
            }
            AppearanceAction::ShowWelcome => {
                self.keys.shortcuts_open = false;
                self.appearance.welcome_open = true;
            }
            AppearanceAction::WelcomeClosed { connect } => {
                self.appearance.welcome_open = false;
                self.session.set_welcome_seen(true);
                if connect {
                    // Settings is where profiles are added: open the form there.
                    self.settings_form.add_open = true;
                    self.apply(ctx, Action::Navigate(View::Settings));
                } else if self.view == View::Create {
                    // Trying the sandbox starts with a prompt: typing goes there.
                    self.create.on_shown();
                }
            }
        }
    }
}
