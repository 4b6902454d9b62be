//! The result actions of the viewer, laid out once for the side column and once for the
//! image's right-click menu (same names, same effects). They only emit actions: the shell
//! applies them (`ui/app/results.rs` for the result actions).

use super::focus_ring;
use super::subject::Subject;
use crate::engine::Command;
use crate::ui::model::{Action, ResultAction, ResultRef};
use crate::ui::widgets;
use egui::{Button, Ui};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// The side column: buttons that wrap.
    Column,
    /// The right-click menu: one entry per line.
    Menu,
}

pub fn result_actions_ui(
    ui: &mut Ui,
    result: &ResultRef,
    subject: &Subject,
    placement: Placement,
    actions: &mut Vec<Action>,
) {
    let no_prompt = "This result has no recorded prompt";
    let not_image = "Only images can be used as an edit source";
    let no_url = "The service gave no address for this file";
    let favourite = subject.favourite == Some(true);
    let has_prompt = subject.prompt.is_some();
    let has_url = !subject.url.is_empty();

    let entries: [(&str, bool, &str, Box<dyn Fn() -> Action>); 8] = [
        (
            "Reuse prompt and settings",
            has_prompt,
            no_prompt,
            Box::new(|| Action::Result(ResultAction::Reuse(result.clone()))),
        ),
        (
            "Use as edit source",
            subject.is_image && has_url,
            not_image,
            Box::new(|| Action::Result(ResultAction::UseAsEditSource(result.clone()))),
        ),
        (
            "Vary…",
            has_prompt,
            no_prompt,
            Box::new(|| Action::Result(ResultAction::Vary(result.clone()))),
        ),
        (
            if favourite { "Unfavourite" } else { "Favourite" },
            true,
            "",
            Box::new(move || {
                Action::Result(ResultAction::SetFavourite {
                    result: result.clone(),
                    favourite: !favourite,
                })
            }),
        ),
        (
            "Move to Trash",
            true,
            "",
            Box::new(|| Action::Result(ResultAction::Trash(result.clone()))),
        ),
        (
            "Copy URL",
            has_url,
            no_url,
            Box::new(|| Action::CopyUrl(subject.url.clone())),
        ),
        (
            "Save…",
            has_url,
            no_url,
            Box::new(|| Action::SaveAs {
                url: subject.url.clone(),
            }),
        ),
        (
            "Open in system viewer",
            has_url,
            no_url,
            Box::new(|| {
                Action::Send(Box::new(Command::OpenInSystemViewer {
                    url: subject.url.clone(),
                }))
            }),
        ),
    ];

    let hints = [
        "Put this prompt and its settings back into Create",
        "Switch Create to Image edit with this image as the source",
        "Same settings, new seed: a new job (asks first, with its cost)",
        "Mark as favourite in the library",
        "Move to the library's Trash (can be undone)",
        "Copy the image's address to the clipboard",
        "Download the image to a file",
        "Open the image in the system's image viewer",
    ];

    let mut add = |ui: &mut Ui, index: usize| {
        let (label, enabled, why_not, make) = &entries[index];
        let button = match (placement, index) {
            (Placement::Column, 0) => widgets::small_primary_button(*label),
            (Placement::Column, 4) => widgets::danger_button_small(*label),
            (Placement::Column, _) => widgets::secondary_button(*label),
            (Placement::Menu, _) => Button::new(*label),
        };
        let response = ui
            .add_enabled(*enabled, button)
            .on_hover_text(hints[index])
            .on_disabled_hover_text(*why_not);
        focus_ring(ui, &response);
        if response.clicked() {
            actions.push(make());
        }
    };

    match placement {
        Placement::Column => {
            // Create-facing actions, then keeping/discarding, then the file itself.
            for group in [&[0, 1, 2][..], &[3, 4][..], &[5, 6, 7][..]] {
                ui.horizontal_wrapped(|ui| {
                    ui.spacing_mut().item_spacing = egui::vec2(6.0, 6.0);
                    for index in group {
                        add(ui, *index);
                    }
                });
            }
        }
        Placement::Menu => {
            for index in 0..entries.len() {
                if index == 3 || index == 5 {
                    ui.separator();
                }
                add(ui, index);
            }
        }
    }
}
