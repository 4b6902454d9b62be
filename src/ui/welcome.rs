//! The first-run welcome: one screen telling the local sandbox from a real account, with
//! "Connect an account" (to Settings, where profiles are added) and "Try the sandbox".
//! Shown once; Help (the shortcuts overlay, Settings) shows it again.

use crate::ui::appearance::AppearanceAction;
use crate::ui::model::Action;
use crate::ui::{tokens, widgets};
use egui::{RichText, Ui};

const CARD_WIDTH_PT: f32 = 560.0;

pub fn welcome_ui(ctx: &egui::Context) -> Vec<Action> {
    let mut actions = Vec::new();
    let close = |connect| Action::Appearance(AppearanceAction::WelcomeClosed { connect });
    let response = egui::Modal::new(egui::Id::unique("welcome"))
        .backdrop_color(tokens::palette().scrim)
        .frame(tokens::card_frame().inner_margin(egui::Margin::same(24)))
        .show(ctx, |ui| {
            ui.set_width(CARD_WIDTH_PT.min(ctx.content_rect().width() - 80.0));
            ui.label(
                RichText::new("Welcome to Framewright")
                    .size(tokens::TEXT_HEADING)
                    .strong()
                    .color(tokens::palette().text),
            );
            ui.add_space(tokens::SPACE_XS);
            widgets::muted(
                ui,
                "A studio for generating images and videos with the Generation Service. \
                 You can start in two ways:",
            );
            ui.add_space(tokens::SPACE_M);
            choice_ui(
                ui,
                "The local sandbox (ready now)",
                "Runs on this computer, with free pretend credits. Jobs make real files you \
                 can open and save, but they are simple stand-ins, not the service's models.",
            );
            ui.add_space(tokens::SPACE_S);
            choice_ui(
                ui,
                "A real account",
                "Uses the hosted service and your account's credits. You need an API key \
                 from the service; add it as a profile in Settings.",
            );
            ui.add_space(tokens::SPACE_M);
            widgets::muted(
                ui,
                "You can switch between them at any time in Settings. Press F1 for the \
                 keyboard shortcuts.",
            );
            ui.add_space(tokens::SPACE_M);
            ui.horizontal(|ui| {
                let try_sandbox = ui.add(widgets::primary_button("Try the sandbox"));
                // Keyboard first: the welcome opens with its main button focused (once,
                // so Tab can move on), so Enter or Space answers it.
                let focus_given = focus_given_id();
                if !ui.data(|d| d.get_temp::<bool>(focus_given).unwrap_or(false)) {
                    try_sandbox.request_focus();
                    ui.data_mut(|d| d.insert_temp(focus_given, true));
                }
                if try_sandbox.clicked() {
                    actions.push(close(false));
                }
                if ui
                    .add(widgets::secondary_button("Connect an account"))
                    .clicked()
                {
                    actions.push(close(true));
                }
            });
        });
    // Esc or a click outside: the same as trying the sandbox.
    if response.should_close() && actions.is_empty() {
        actions.push(close(false));
    }
    if !actions.is_empty() {
        // Shown again from Help, it focuses its main button again.
        ctx.data_mut(|d| d.remove::<bool>(focus_given_id()));
    }
    actions
}

fn focus_given_id() -> egui::Id {
    egui::Id::unique("welcome-focus-given")
}

fn choice_ui(ui: &mut Ui, title: &str, body: &str) {
    egui::Frame::new()
        .fill(tokens::palette().bg_elevated)
        .corner_radius(egui::CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::same(12))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.label(
                RichText::new(title)
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::palette().text),
            );
            ui.add(
                egui::Label::new(RichText::new(body).color(tokens::palette().text_muted)).wrap(),
            );
        });
}
