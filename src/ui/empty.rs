//! Honest empty states for views that later issues fill in. No fake content.

use crate::ui::model::{Action, View};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Ui};

struct EmptyState {
    title: &'static str,
    body: &'static str,
}

fn empty_state(view: View) -> EmptyState {
    match view {
        View::Palettes => EmptyState {
            title: "Palettes",
            body: "Colour palettes for grading your projects will live here: edit swatches, \
                   analyse them from images and activate one per project. \
                   This view isn't built yet.",
        },
        View::Presets => EmptyState {
            title: "Presets",
            body: "Cinematic presets (camera, lens, lighting, colour) will be browsable and \
                   pickable here. This view isn't built yet; prompts are sent without presets.",
        },
        // These views have their own panels and never show an empty state.
        View::Create | View::Library | View::Settings => EmptyState {
            title: "",
            body: "",
        },
    }
}

pub fn empty_view_ui(ui: &mut Ui, view: View, tray_open: bool) -> Vec<Action> {
    let mut actions = Vec::new();
    let state = empty_state(view);
    ui.add_space((ui.available_height() * 0.28).max(tokens::SPACE_XL));
    ui.vertical_centered(|ui| {
        ui.set_max_width(460.0);
        crate::ui::icons::icon_ui(ui, view.icon(), 44.0, tokens::TEXT_FAINT);
        ui.add_space(tokens::SPACE_S);
        ui.label(
            RichText::new(state.title)
                .size(tokens::TEXT_HEADING)
                .strong()
                .color(tokens::TEXT),
        );
        ui.add_space(tokens::SPACE_XS);
        ui.label(RichText::new(state.body).color(tokens::TEXT_MUTED));
        ui.add_space(tokens::SPACE_M);
        if ui.add(widgets::primary_button("Go to Create")).clicked() {
            actions.push(Action::Navigate(View::Create));
        }
        if !tray_open && ui.add(widgets::secondary_button("Show job tray")).clicked() {
            actions.push(Action::ToggleTray);
        }
    });
    actions
}
