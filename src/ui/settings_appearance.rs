//! The Settings page's Appearance section (theme, UI scale) and its Help line (the welcome
//! and the keyboard shortcuts again).

use crate::settings::{Appearance, ThemeChoice};
use crate::ui::appearance::{AppearanceAction, UI_SCALE_STEPS_PERCENT};
use crate::ui::model::Action;
use crate::ui::{tokens, widgets};
use egui::{RichText, Ui};

/// Theme choices as the buttons name them.
const THEMES: [(ThemeChoice, &str); 3] = [
    (ThemeChoice::System, "Follow the system"),
    (ThemeChoice::Light, "Light"),
    (ThemeChoice::Dark, "Dark"),
];

pub fn appearance_section_ui(ui: &mut Ui, current: Appearance, actions: &mut Vec<Action>) {
    ui.add_space(tokens::SPACE_L);
    widgets::section_label(ui, "Appearance");
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        row_label(ui, "Theme");
        ui.horizontal_wrapped(|ui| {
            for (choice, name) in THEMES {
                let on = current.theme == choice;
                if ui.add(widgets::toggle_button(name, on)).clicked() && !on {
                    actions.push(set(Appearance {
                        theme: choice,
                        ..current
                    }));
                }
            }
        });
        ui.add_space(tokens::SPACE_M);
        row_label(ui, "UI scale");
        let percent = current.ui_scale_percent_clamped();
        ui.horizontal_wrapped(|ui| {
            for step in UI_SCALE_STEPS_PERCENT {
                let on = percent == step;
                let button = ui
                    .add(widgets::toggle_button(&format!("{step} %"), on))
                    .on_hover_text(format!("Show everything at {step} % of its normal size"));
                if button.clicked() && !on {
                    actions.push(set(Appearance {
                        ui_scale_percent: step,
                        ..current
                    }));
                }
            }
        });
        widgets::muted(
            ui,
            "Ctrl+= and Ctrl+- change the scale anywhere; Ctrl+0 resets it.",
        );
    });

    ui.add_space(tokens::SPACE_L);
    widgets::section_label(ui, "Help");
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal_wrapped(|ui| {
            if ui
                .add(widgets::secondary_button("Show the welcome screen"))
                .clicked()
            {
                actions.push(Action::Appearance(AppearanceAction::ShowWelcome));
            }
            if ui
                .add(widgets::secondary_button("Keyboard shortcuts"))
                .clicked()
            {
                actions.push(Action::ShowShortcuts(true));
            }
        });
    });
}

fn set(appearance: Appearance) -> Action {
    Action::Appearance(AppearanceAction::Set(appearance))
}

fn row_label(ui: &mut Ui, text: &str) {
    ui.label(
        RichText::new(text)
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_faint),
    );
}
