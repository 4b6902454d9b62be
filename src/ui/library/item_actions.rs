//! What can be done to library items, drawn once for both places that offer it: the
//! buttons of the detail pane (one item or a selection) and a tile's right-click menu.
//! Both list the same actions with the same names, so the context menu never offers
//! something the buttons do not, and the other way round.

use super::{LibraryAction, LibraryState, Place};
use crate::api::media::MediaItem;
use crate::ui::model::{Action, Model, ResultAction, ResultRef};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Ui};

/// Why the actions wait during a select all.
const WAIT: &str = "Wait until every item of the selection has loaded";

/// How the actions are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Wrapped buttons in the detail pane.
    Buttons,
    /// Entries of a context menu.
    Menu,
}

/// The items an action applies to.
pub struct Target<'a> {
    /// The ids, in display order; computed only when an action is chosen (a select-all
    /// of 100,000 items must not be sorted every frame).
    pub ids: &'a dyn Fn() -> Vec<String>,
    pub count: usize,
    /// The item and its display index when exactly one is targeted.
    pub single: Option<(usize, &'a MediaItem)>,
    /// Select all is still loading pages: acting now would miss items.
    pub pending: bool,
}

impl<'a> Target<'a> {
    /// Whether every targeted item is a favourite (the action then removes the star).
    fn all_favourite(&self, state: &LibraryState) -> bool {
        match self.single {
            Some((_, item)) => item.is_favorited == Some(true),
            None => {
                self.count > 0
                    && state.selection.ids.iter().all(|id| {
                        state
                            .items
                            .find(id)
                            .is_some_and(|i| i.is_favorited == Some(true))
                    })
            }
        }
    }
}

/// Draw the actions for `target`; what was chosen.
pub fn item_actions_ui(
    ui: &mut Ui,
    state: &LibraryState,
    model: &Model,
    target: &Target,
    style: Style,
) -> Vec<Action> {
    let mut out = Vec::new();
    let ids = target.ids;
    let enabled = !target.pending && target.count > 0;
    let wait = WAIT;
    let lib = |a: LibraryAction| Action::Library(a);

    if let Some((index, item)) = target.single {
        if button(ui, style, "Open", true, "").clicked() {
            out.push(lib(LibraryAction::OpenViewer(index)));
        }
        if let Some(prompt) = super::detail::prompt_of(item, None)
            && button(ui, style, "Reuse prompt", true, "").clicked()
        {
            out.push(lib(LibraryAction::ReusePrompt(prompt)));
        }
        let has_url = !item.url.is_empty();
        let no_url = "This item has no file URL";
        if item.kind() == "image"
            && button(ui, style, "Animate", has_url, no_url)
                .on_hover_text("Make a video from this image (Create, Image to video)")
                .clicked()
        {
            out.push(Action::Result(ResultAction::Animate(ResultRef::Media(
                Box::new(item.clone()),
            ))));
        }
        if item.kind() == "image"
            && has_url
            && !state.in_trash()
            && let Some(tool) =
                crate::ui::image_tools::inline_buttons_ui(ui, style == Style::Buttons)
        {
            out.push(Action::Result(ResultAction::ImageTool {
                result: ResultRef::Media(Box::new(item.clone())),
                tool,
            }));
        }
        if item.kind() == "video" {
            if button(ui, style, "Edit video", has_url, no_url)
                .on_hover_text("Edit this video in Create (Video edit)")
                .clicked()
            {
                out.push(Action::Result(ResultAction::EditVideo {
                    result: ResultRef::Media(Box::new(item.clone())),
                    trim: false,
                }));
            }
            if button(ui, style, "Trim", has_url, no_url)
                .on_hover_text("Cut this video to a span (free; the original is kept)")
                .clicked()
            {
                out.push(Action::Result(ResultAction::EditVideo {
                    result: ResultRef::Media(Box::new(item.clone())),
                    trim: true,
                }));
            }
        }
        if matches!(item.kind(), "video" | "audio")
            && button(ui, style, "Transcribe", has_url, no_url)
                .on_hover_text(crate::ui::transcript::jobs::TRANSCRIBE_HINT)
                .clicked()
        {
            out.push(Action::Result(ResultAction::Transcribe(ResultRef::Media(
                Box::new(item.clone()),
            ))));
        }
        if button(ui, style, "Copy URL", has_url, no_url).clicked() {
            out.push(lib(LibraryAction::CopyUrl(item.url.clone())));
        }
        if button(ui, style, "Save…", has_url, no_url).clicked() {
            out.push(Action::SaveAs {
                url: item.url.clone(),
            });
        }
        file_out_ui(ui, style, item, &mut out);
    } else if button(ui, style, "Save to folder…", enabled, wait).clicked() {
        out.push(lib(LibraryAction::SaveToDisk(ids())));
    }
    if style == Style::Menu {
        ui.separator();
    }

    if state.in_trash() {
        if button(ui, style, "Restore", enabled, wait).clicked() {
            out.push(lib(LibraryAction::Restore(ids())));
        }
        if danger(ui, style, "Delete forever…", enabled, wait).clicked() {
            out.push(lib(LibraryAction::AskDeleteForever(ids())));
        }
        return out;
    }

    let all_favourite = target.all_favourite(state);
    let label = if all_favourite {
        "Unfavourite"
    } else {
        "Favourite"
    };
    if button(ui, style, label, enabled, wait).clicked() {
        out.push(lib(LibraryAction::Favourite {
            ids: ids(),
            favourite: !all_favourite,
        }));
    }
    add_to_folder_ui(ui, state, style, enabled, ids, &mut out);
    move_to_project_ui(ui, model, style, enabled, ids, &mut out);
    if let Place::Folder(folder_id) = &state.place
        && button(ui, style, "Remove from folder", enabled, wait).clicked()
    {
        out.push(lib(LibraryAction::RemoveFromFolder {
            folder_id: folder_id.clone(),
            ids: ids(),
        }));
    }
    if button(ui, style, "Move to trash", enabled, wait).clicked() {
        out.push(lib(LibraryAction::Trash(ids())));
    }
    out
}

/// Reveal in file manager and Copy file (the item is downloaded first when needed).
fn file_out_ui(ui: &mut Ui, style: Style, item: &MediaItem, out: &mut Vec<Action>) {
    let has_url = !item.url.is_empty();
    for (label, hint, purpose) in crate::ui::result_tile::FILE_OUT_ENTRIES {
        if button(ui, style, label, has_url, "This item has no file URL")
            .on_hover_text(hint)
            .clicked()
        {
            out.push(Action::Result(ResultAction::FileOut {
                result: ResultRef::Media(Box::new(item.clone())),
                purpose,
            }));
        }
    }
}

fn add_to_folder_ui(
    ui: &mut Ui,
    state: &LibraryState,
    style: Style,
    enabled: bool,
    ids: &dyn Fn() -> Vec<String>,
    out: &mut Vec<Action>,
) {
    let folders = state.folders.value.as_deref().unwrap_or_default();
    if !enabled {
        button(ui, style, "Add to folder…", false, WAIT);
        return;
    }
    submenu(ui, style, "Add to folder…", |ui| {
        ui.set_min_width(180.0);
        if folders.is_empty() {
            ui.label(
                RichText::new("No folders yet: create one in the sidebar.")
                    .size(12.5)
                    .color(tokens::palette().text_muted),
            );
        }
        for folder in folders {
            let name = if folder.name.is_empty() {
                "Untitled folder"
            } else {
                folder.name.as_str()
            };
            if ui.button(name).clicked() {
                out.push(Action::Library(LibraryAction::AddToFolder {
                    folder_id: folder.id.clone(),
                    ids: ids(),
                }));
            }
        }
    });
}

fn move_to_project_ui(
    ui: &mut Ui,
    model: &Model,
    style: Style,
    enabled: bool,
    ids: &dyn Fn() -> Vec<String>,
    out: &mut Vec<Action>,
) {
    let projects = model.projects.value.as_deref().unwrap_or_default();
    if !enabled || projects.is_empty() {
        let why = if projects.is_empty() {
            "No projects to move to yet"
        } else {
            WAIT
        };
        button(ui, style, "Move to project…", false, why);
        return;
    }
    submenu(ui, style, "Move to project…", |ui| {
        ui.set_min_width(180.0);
        // Archived projects are hidden from pickers (unarchive one to move items into it).
        for project in projects.iter().filter(|p| !p.archived) {
            if ui.button(&project.name).clicked() {
                out.push(Action::Library(LibraryAction::MoveToProject {
                    ids: ids(),
                    project_id: project.id.clone(),
                }));
            }
        }
    });
}

fn submenu(ui: &mut Ui, style: Style, label: &str, add: impl FnOnce(&mut Ui)) {
    match style {
        Style::Menu => {
            ui.menu_button(label, add);
        }
        Style::Buttons => {
            egui::containers::menu::MenuButton::from_button(widgets::secondary_button(label))
                .ui(ui, add);
        }
    }
}

/// A button (or menu entry) that says why when it is disabled.
fn button(ui: &mut Ui, style: Style, label: &str, enabled: bool, why: &str) -> egui::Response {
    let response = match style {
        Style::Menu => ui.add_enabled(enabled, egui::Button::new(label)),
        Style::Buttons => ui.add_enabled(enabled, widgets::secondary_button(label)),
    };
    if why.is_empty() {
        response
    } else {
        response.on_disabled_hover_text(why)
    }
}

fn danger(ui: &mut Ui, style: Style, label: &str, enabled: bool, why: &str) -> egui::Response {
    let response = match style {
        Style::Menu => ui.add_enabled(
            enabled,
            egui::Button::new(RichText::new(label).color(tokens::palette().danger)),
        ),
        Style::Buttons => ui.add_enabled(enabled, widgets::danger_button_small(label)),
    };
    response.on_disabled_hover_text(why)
}
