//! Theme and UI scale at run time: applies the saved [`Appearance`] to the egui context
//! (theme preference, zoom factor), follows the desktop's light/dark preference where the
//! window system does not report it, and turns Ctrl+= / Ctrl+- / Ctrl+0 into scale steps.

use crate::settings::{Appearance, ThemeChoice};
use crate::system_theme::{SystemTheme, SystemThemeWatch};
use crate::ui::tokens;
use egui::{Key, Modifiers};

/// The UI scales offered in Settings and stepped through by Ctrl+= / Ctrl+-.
pub const UI_SCALE_STEPS_PERCENT: [u16; 8] = [75, 90, 100, 110, 125, 150, 175, 200];

/// What the Appearance section, the welcome and Help ask of the shell.
#[derive(Clone, Debug, PartialEq)]
pub enum AppearanceAction {
    /// Save and apply a new theme or scale.
    Set(Appearance),
    /// Show the first-run welcome again (Help).
    ShowWelcome,
    /// The welcome was answered; `connect`: "Connect an account" (go to Settings).
    WelcomeClosed { connect: bool },
}

/// The next step up (`+1`) or down (`-1`) from `percent`.
pub fn step_scale(percent: u16, direction: i32) -> u16 {
    let steps = UI_SCALE_STEPS_PERCENT;
    if direction > 0 {
        steps
            .into_iter()
            .find(|s| *s > percent)
            .unwrap_or(steps[steps.len() - 1])
    } else {
        steps
            .into_iter()
            .rev()
            .find(|s| *s < percent)
            .unwrap_or(steps[0])
    }
}

/// Keeps the egui context in step with the saved appearance.
#[derive(Default)]
pub struct AppearanceRuntime {
    applied: Option<Appearance>,
    applied_fallback: Option<egui::Theme>,
    /// Started the first time the theme follows the system (not in screenshot runs).
    system: Option<SystemThemeWatch>,
    /// Screenshot runs stay deterministic: no desktop lookup.
    no_system_lookup: bool,
}

impl AppearanceRuntime {
    pub fn new(screenshot_run: bool) -> Self {
        Self {
            no_system_lookup: screenshot_run,
            ..Self::default()
        }
    }

    /// Call at the start of each frame, before anything is laid out.
    pub fn frame(&mut self, ctx: &egui::Context, appearance: Appearance) {
        if self.applied != Some(appearance) {
            if self.applied.is_none() {
                // Our own scale steps (saved, 75-200 %) replace egui's built-in zoom keys.
                ctx.options_mut(|o| o.zoom_with_keyboard = false);
            }
            ctx.set_theme(match appearance.theme {
                ThemeChoice::System => egui::ThemePreference::System,
                ThemeChoice::Light => egui::ThemePreference::Light,
                ThemeChoice::Dark => egui::ThemePreference::Dark,
            });
            ctx.set_zoom_factor(f32::from(appearance.ui_scale_percent_clamped()) / 100.0);
            self.applied = Some(appearance);
        }
        if appearance.theme == ThemeChoice::System {
            self.follow_desktop(ctx);
        }
        tokens::use_theme_of(ctx);
    }

    /// Where winit reports no theme egui uses its fallback: make that the portal's answer.
    fn follow_desktop(&mut self, ctx: &egui::Context) {
        let watching = cfg!(all(unix, not(target_os = "macos")));
        if watching && self.system.is_none() && !self.no_system_lookup {
            let repaint = ctx.clone();
            self.system = SystemThemeWatch::start(move || repaint.request_repaint());
            self.no_system_lookup = self.system.is_none();
        }
        let fallback = match self.system.as_ref().and_then(SystemThemeWatch::latest) {
            Some(SystemTheme::Light) => egui::Theme::Light,
            // No answer: the studio's original dark look.
            Some(SystemTheme::Dark) | None => egui::Theme::Dark,
        };
        if self.applied_fallback != Some(fallback) {
            ctx.options_mut(|o| o.fallback_theme = fallback);
            self.applied_fallback = Some(fallback);
        }
    }
}

/// Ctrl+= (or Ctrl++), Ctrl+- and Ctrl+0: the scale one step up, down, or back to 100 %.
/// Returns the new appearance when a key changed it.
pub fn scale_keys(ctx: &egui::Context, current: Appearance) -> Option<Appearance> {
    let percent = current.ui_scale_percent_clamped();
    let wanted = ctx.input_mut(|i| {
        if i.consume_key(Modifiers::COMMAND, Key::Equals)
            || i.consume_key(Modifiers::COMMAND, Key::Plus)
        {
            Some(step_scale(percent, 1))
        } else if i.consume_key(Modifiers::COMMAND, Key::Minus) {
            Some(step_scale(percent, -1))
        } else if i.consume_key(Modifiers::COMMAND, Key::Num0) {
            Some(100)
        } else {
            None
        }
    })?;
    (wanted != current.ui_scale_percent).then_some(Appearance {
        ui_scale_percent: wanted,
        ..current
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_steps_stop_at_both_ends_and_snap_odd_values() {
        assert_eq!(step_scale(100, 1), 110);
        assert_eq!(step_scale(100, -1), 90);
        assert_eq!(step_scale(200, 1), 200);
        assert_eq!(step_scale(75, -1), 75);
        assert_eq!(step_scale(130, 1), 150);
        assert_eq!(step_scale(130, -1), 125);
    }
}
