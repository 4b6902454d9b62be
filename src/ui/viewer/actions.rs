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

/// One entry of the list, in display order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entry {
    Reuse,
    EditSource,
    Animate,
    EditVideo,
    TrimVideo,
    Vary,
    Favourite,
    Trash,
    CopyUrl,
    Save,
    OpenOutside,
    Reveal,
    CopyFile,
}

const COLUMN_GROUPS: [&[Entry]; 3] = [
    // Create-facing, then keeping or discarding, then the file itself.
    &[
        Entry::Reuse,
        Entry::EditSource,
        Entry::Animate,
        Entry::EditVideo,
        Entry::TrimVideo,
        Entry::Vary,
    ],
    &[Entry::Favourite, Entry::Trash],
    &[
        Entry::CopyUrl,
        Entry::Save,
        Entry::OpenOutside,
        Entry::Reveal,
        Entry::CopyFile,
    ],
];

pub fn result_actions_ui(
    ui: &mut Ui,
    result: &ResultRef,
    subject: &Subject,
    placement: Placement,
    actions: &mut Vec<Action>,
) {
    match placement {
        Placement::Column => {
            for (index, group) in COLUMN_GROUPS.iter().enumerate() {
                ui.horizontal_wrapped(|ui| {
                    ui.spacing_mut().item_spacing = egui::vec2(6.0, 6.0);
                    for entry in *group {
                        entry_ui(ui, *entry, result, subject, placement, actions);
                    }
                    if index + 1 == COLUMN_GROUPS.len() {
                        save_formats_ui(ui, subject, placement, actions);
                    }
                });
                if index == 0 {
                    image_tools_ui(ui, result, subject, placement, actions);
                }
            }
        }
        Placement::Menu => {
            for (index, group) in COLUMN_GROUPS.iter().enumerate() {
                if index > 0 {
                    ui.separator();
                }
                for entry in *group {
                    entry_ui(ui, *entry, result, subject, placement, actions);
                }
                if index + 1 == COLUMN_GROUPS.len() {
                    save_formats_ui(ui, subject, placement, actions);
                }
                if index == 0 {
                    image_tools_ui(ui, result, subject, placement, actions);
                }
            }
        }
    }
}

/// A 3D model's files: "Save GLB", "Save OBJ" (the existing save path, one per format).
fn save_formats_ui(
    ui: &mut Ui,
    subject: &Subject,
    placement: Placement,
    actions: &mut Vec<Action>,
) {
    if !subject.is_model_3d {
        return;
    }
    for (format, url) in &subject.model_files {
        let label = format!("Save {format}");
        let button = match placement {
            Placement::Column => widgets::secondary_button(label.clone()),
            Placement::Menu => Button::new(label.clone()),
        };
        let response = ui
            .add(button)
            .on_hover_text(format!("Download the model as a {format} file"));
        widgets::name_widget(&response, &label);
        focus_ring(ui, &response);
        if response.clicked() {
            actions.push(Action::SaveAs { url: url.clone() });
        }
    }
}

/// Upscale and Remove background, on images with an address (ui/image_tools.rs).
fn image_tools_ui(
    ui: &mut Ui,
    result: &ResultRef,
    subject: &Subject,
    placement: Placement,
    actions: &mut Vec<Action>,
) {
    if !subject.is_image || subject.is_video || subject.url.is_empty() {
        return;
    }
    let clicked = match placement {
        Placement::Column => crate::ui::image_tools::buttons_ui(ui, result, false),
        Placement::Menu => {
            ui.separator();
            crate::ui::image_tools::menu_entries_ui(ui, result)
        }
    };
    if let Some(action) = clicked {
        actions.push(Action::Result(action));
    }
}

/// Image tools are not offered on a video, nor video tools on an image. A file opened from
/// this computer (`--play`, a `file://` item) is neither a job nor a library item: only
/// what acts on the file itself is offered.
fn applies_to(entry: Entry, subject: &Subject) -> bool {
    if subject.url.starts_with("file://") {
        return matches!(
            entry,
            Entry::Save | Entry::OpenOutside | Entry::Reveal | Entry::CopyFile
        );
    }
    match entry {
        Entry::EditSource | Entry::Animate => {
            !subject.is_video && !subject.is_audio && !subject.is_model_3d
        }
        // A 3D model is saved per format (Save GLB, Save OBJ) instead.
        Entry::Save => !subject.is_model_3d,
        Entry::EditVideo | Entry::TrimVideo => subject.is_video,
        _ => true,
    }
}

fn entry_ui(
    ui: &mut Ui,
    entry: Entry,
    result: &ResultRef,
    subject: &Subject,
    placement: Placement,
    actions: &mut Vec<Action>,
) {
    if !applies_to(entry, subject) {
        return;
    }
    const NO_PROMPT: &str = "This result has no recorded prompt";
    const NO_URL: &str = "The service gave no address for this file";
    let favourite = subject.favourite == Some(true);
    let has_prompt = subject.prompt.is_some();
    let has_url = !subject.url.is_empty();
    let (label, enabled, why_not, hint) = match entry {
        Entry::Reuse => (
            "Reuse prompt and settings",
            has_prompt,
            NO_PROMPT,
            "Put this prompt and its settings back into Create",
        ),
        Entry::EditSource => (
            "Use as edit source",
            subject.is_image && has_url,
            "Only images can be used as an edit source",
            "Switch Create to Image edit with this image as the source",
        ),
        Entry::Animate => (
            "Animate",
            subject.is_image && has_url,
            "Only images can be animated",
            "Switch Create to Image to video with this image to animate",
        ),
        Entry::EditVideo => (
            "Edit video",
            has_url,
            NO_URL,
            "Switch Create to Video edit with this video as the source",
        ),
        Entry::TrimVideo => (
            "Trim",
            has_url,
            NO_URL,
            "Cut this video to a span in Create (free; the original is kept)",
        ),
        Entry::Vary => (
            "Vary…",
            has_prompt,
            NO_PROMPT,
            "Same settings, new seed: a new job (asks first, with its cost)",
        ),
        Entry::Favourite if favourite => ("Unfavourite", true, "", "Remove from favourites"),
        Entry::Favourite => ("Favourite", true, "", "Mark as a favourite in the library"),
        Entry::Trash => (
            "Move to Trash",
            true,
            "",
            "Move to the library's Trash (can be undone)",
        ),
        Entry::CopyUrl => (
            "Copy URL",
            has_url,
            NO_URL,
            "Copy the file's address to the clipboard",
        ),
        Entry::Save => ("Save…", has_url, NO_URL, "Download the file"),
        Entry::OpenOutside if subject.is_audio => (
            "Open in system player",
            has_url,
            NO_URL,
            "Open the sound in the computer's own player",
        ),
        Entry::OpenOutside => (
            "Open in system viewer",
            has_url,
            NO_URL,
            "Open the file in the system's viewer",
        ),
        Entry::Reveal | Entry::CopyFile => {
            let purpose = file_out_purpose(entry);
            let (label, hint) = crate::ui::result_tile::FILE_OUT_ENTRIES
                .into_iter()
                .find(|(_, _, p)| Some(*p) == purpose)
                .map_or(("", ""), |(label, hint, _)| (label, hint));
            (label, has_url, NO_URL, hint)
        }
    };
    let button = match (placement, entry) {
        (Placement::Column, Entry::Reuse) => widgets::small_primary_button(label),
        (Placement::Column, Entry::Trash) => widgets::danger_button_small(label),
        (Placement::Column, _) => widgets::secondary_button(label),
        (Placement::Menu, _) => Button::new(label),
    };
    let response = ui
        .add_enabled(enabled, button)
        .on_hover_text(hint)
        .on_disabled_hover_text(why_not);
    focus_ring(ui, &response);
    if !response.clicked() {
        return;
    }
    let url = subject.url.clone();
    actions.push(match entry {
        Entry::Reuse => Action::Result(ResultAction::Reuse(result.clone())),
        Entry::EditSource => Action::Result(ResultAction::UseAsEditSource(result.clone())),
        Entry::Animate => Action::Result(ResultAction::Animate(result.clone())),
        Entry::EditVideo => Action::Result(ResultAction::EditVideo {
            result: result.clone(),
            trim: false,
        }),
        Entry::TrimVideo => Action::Result(ResultAction::EditVideo {
            result: result.clone(),
            trim: true,
        }),
        Entry::Vary => Action::Result(ResultAction::Vary(result.clone())),
        Entry::Favourite => Action::Result(ResultAction::SetFavourite {
            result: result.clone(),
            favourite: !favourite,
        }),
        Entry::Trash => Action::Result(ResultAction::Trash(result.clone())),
        Entry::CopyUrl => Action::CopyUrl(url),
        Entry::Save => Action::SaveAs { url },
        Entry::OpenOutside => Action::Send(Box::new(Command::OpenInSystemViewer { url })),
        Entry::Reveal | Entry::CopyFile => match file_out_purpose(entry) {
            Some(purpose) => Action::Result(ResultAction::FileOut {
                result: result.clone(),
                purpose,
            }),
            None => return,
        },
    });
}

fn file_out_purpose(entry: Entry) -> Option<crate::engine::FileOutPurpose> {
    match entry {
        Entry::Reveal => Some(crate::engine::FileOutPurpose::Reveal),
        Entry::CopyFile => Some(crate::engine::FileOutPurpose::Copy),
        _ => None,
    }
}
