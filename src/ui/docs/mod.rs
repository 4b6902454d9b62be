//! The Docs view: the project's documents (or all projects'), newest edit first, and an
//! editor for one document: title, Markdown with a toolbar and a live preview, Save with
//! an unsaved marker, the "not kept by the service" notice, a Share popover with the link,
//! Delete with Undo, and a Save / Discard / Cancel question before unsaved edits are left.
//!
//! `state.rs` holds the state and answers events; `list.rs` the list column; `editor.rs`
//! the toolbar, text field and preview. Nothing here does I/O: actions go to the shell.

pub mod editor;
pub mod list;
pub mod state;

pub use state::{
    DOC_UNDO_WINDOW_SECS, DocDraft, DocList, DocsAction, DocsState, EditorState, GuardAnswer,
    LeaveTarget, Scope,
};

use crate::api::docs::MAX_DOC_TITLE_CHARS;
use crate::ui::format;
use crate::ui::model::{Action, Model};
use crate::ui::offline;
use crate::ui::palettes::ProjectRef;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Key, Modifiers, RichText, TextEdit, Ui};

/// Width of the list column.
pub const LIST_WIDTH: f32 = 280.0;
/// Narrowest the list gets in a small window.
const LIST_MIN_WIDTH: f32 = 210.0;
/// The heading of the notice listing what the service does not keep.
pub const NOT_KEPT_HEADING: &str = "Not kept by the service";

pub fn docs_ui(
    ui: &mut Ui,
    state: &mut DocsState,
    model: &Model,
    project: Option<&ProjectRef>,
) -> Vec<Action> {
    let mut actions = Vec::new();
    let now_ms = format::now_unix_ms();
    // Ctrl+S anywhere in the view (the dialog, when open, has the keys).
    if state.guard.is_none() && ui.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::S)) {
        actions.push(Action::Docs(DocsAction::Save));
    }
    let list_width = (ui.available_width() * 0.28).clamp(LIST_MIN_WIDTH, LIST_WIDTH);
    egui::Panel::left("docs_list")
        .exact_size(list_width)
        .resizable(false)
        .show_separator_line(false)
        .frame(widgets::side_panel_frame(egui::Margin::symmetric(12, 14)))
        .show(ui, |ui| {
            list::list_ui(ui, state, model, project, now_ms, &mut actions)
        });

    egui::CentralPanel::default()
        .frame(egui::Frame::new().inner_margin(egui::Margin {
            left: 20,
            right: 16,
            top: 14,
            bottom: 12,
        }))
        .show(ui, |ui| {
            editor_area_ui(ui, state, model, project, now_ms, &mut actions)
        });

    if let Some(target) = &state.guard {
        actions.extend(guard_ui(ui.ctx(), state, target.clone()));
    }
    actions
}

fn editor_area_ui(
    ui: &mut Ui,
    state: &mut DocsState,
    model: &Model,
    project: Option<&ProjectRef>,
    now_ms: i64,
    actions: &mut Vec<Action>,
) {
    match &state.editor {
        EditorState::Empty => {
            empty_editor_ui(ui, state, actions);
            return;
        }
        EditorState::Opening { title, .. } => {
            ui.horizontal(|ui| {
                ui.add(egui::Spinner::new().size(16.0));
                let what = if title.is_empty() {
                    "Opening the document…".to_owned()
                } else {
                    format!("Opening “{title}”…")
                };
                widgets::muted(ui, what);
            });
            return;
        }
        EditorState::Failed { message, error, .. } => {
            match error {
                Some(error) => offline::load_error_ui(ui, model, message, &error.to_string()),
                None => widgets::notice(ui, message, tokens::palette().warning),
            }
            if ui.add(widgets::secondary_button("Try again")).clicked() {
                actions.push(Action::Docs(DocsAction::RetryOpen));
            }
            return;
        }
        EditorState::Editing(_) => {}
    }
    let saving = state.is_saving();
    let sharing = state.sharing.is_some();
    let share_error = state.share_error.clone();
    let EditorState::Editing(draft) = &mut state.editor else {
        return;
    };

    header_ui(
        ui,
        draft,
        HeaderState {
            saving,
            sharing,
            share_error: share_error.as_deref(),
        },
        actions,
    );
    details_ui(ui, draft, model, project, now_ms);
    ui.add_space(tokens::SPACE_S);

    let editable = !saving;
    let format = editor::toolbar_ui(ui, editable).or_else(|| editor::shortcut_format(ui));
    if let Some(format) = format {
        editor::apply_format(ui, &mut draft.markdown, format);
        draft.markdown_changed();
    }
    ui.add_space(tokens::SPACE_XS);
    if !draft.unsupported.is_empty() {
        widgets::notice(
            ui,
            &format!(
                "{NOT_KEPT_HEADING}: {}. You can still save: their text is kept as plain \
                 text; pictures, scripts and rules are left out.",
                draft.unsupported.join(", ")
            ),
            tokens::palette().warning,
        );
    }
    if let Some(error) = &draft.save_error {
        widgets::notice(ui, error, tokens::palette().danger);
    }
    ui.add_space(tokens::SPACE_XS);
    if editor::editor_and_preview_ui(ui, draft, editable) {
        draft.markdown_changed();
    }
}

/// Room for the header's marker and buttons before they were first measured.
const CONTROLS_WIDTH_GUESS: f32 = 330.0;
/// The title field never gets narrower than this.
const TITLE_MIN_WIDTH: f32 = 160.0;

/// What the header shows besides the draft.
struct HeaderState<'a> {
    saving: bool,
    /// A sharing change is in flight.
    sharing: bool,
    share_error: Option<&'a str>,
}

/// Title field, unsaved marker, Save, Share and Delete.
fn header_ui(ui: &mut Ui, draft: &mut DocDraft, header: HeaderState, actions: &mut Vec<Action>) {
    let saving = header.saving;
    ui.horizontal(|ui| {
        // The title takes what the controls on the right leave (as wide as last frame; they
        // change with the document's state).
        let controls_id = egui::Id::unique("docs_header_controls_width");
        let controls_width = ui
            .data(|d| d.get_temp::<f32>(controls_id))
            .unwrap_or(CONTROLS_WIDTH_GUESS);
        let title_width =
            (ui.available_width() - controls_width - tokens::SPACE_M).max(TITLE_MIN_WIDTH);
        let response = ui.add(
            TextEdit::singleline(&mut draft.title)
                .desired_width(title_width)
                .font(egui::FontId::proportional(tokens::TEXT_TITLE + 2.0))
                .hint_text("Untitled document"),
        );
        widgets::name_widget(&response, "Document title");
        if std::mem::take(&mut draft.focus_title) {
            response.request_focus();
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let dirty = draft.is_dirty() || draft.meta.is_none();
            let save_text = if saving { "Saving…" } else { "Save" };
            let save = ui
                .add_enabled(dirty && !saving, widgets::small_primary_button(save_text))
                .on_hover_text("Save (Ctrl+S)");
            if save.clicked() {
                actions.push(Action::Docs(DocsAction::Save));
            }
            if draft.meta.is_some() {
                share_ui(ui, draft, &header, actions);
                let delete = ui
                    .add_enabled(!saving, widgets::danger_button_small("Delete"))
                    .on_hover_text("Delete this document (you can undo for a few seconds)");
                if delete.clicked() {
                    actions.push(Action::Docs(DocsAction::Delete));
                }
            }
            let (marker, color) = if saving {
                ("Saving…", tokens::palette().text_muted)
            } else if draft.is_dirty() {
                ("Unsaved changes", tokens::palette().warning)
            } else if draft.meta.is_some() {
                ("Saved", tokens::palette().text_muted)
            } else {
                ("Not saved yet", tokens::palette().text_muted)
            };
            ui.label(RichText::new(marker).size(tokens::TEXT_SMALL).color(color));
            if draft.is_dirty() && !saving {
                // A dot before the words (right to left: added after them).
                let (rect, _) = ui.allocate_exact_size(egui::vec2(8.0, 8.0), egui::Sense::hover());
                ui.painter()
                    .circle_filled(rect.center(), 3.5, tokens::palette().warning);
            }
            let used = ui.min_rect().width();
            ui.data_mut(|d| d.insert_temp(controls_id, used));
        });
    });
    if let Some(message) = draft.title_message() {
        widgets::field_error(ui, &message);
    } else if draft.title.chars().count() > MAX_DOC_TITLE_CHARS - 20 {
        ui.label(
            RichText::new(format!(
                "{} of {MAX_DOC_TITLE_CHARS} characters",
                draft.title.chars().count()
            ))
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_muted),
        );
    }
}

/// Project, last update, sharing.
fn details_ui(
    ui: &mut Ui,
    draft: &DocDraft,
    model: &Model,
    project: Option<&ProjectRef>,
    now_ms: i64,
) {
    let project_id = draft
        .meta
        .as_ref()
        .and_then(|m| m.project_id.as_deref())
        .or(draft.project_id.as_deref());
    let project_name = match (project_id, project) {
        (Some(id), _) => model.project_name(id).unwrap_or(id).to_owned(),
        (None, Some(p)) => p.name.clone(),
        (None, None) => "the default project".to_owned(),
    };
    let mut parts = vec![format!("In “{project_name}”")];
    if let Some(ms) = draft.meta.as_ref().and_then(|m| m.updated_unix_ms()) {
        parts.push(format!("updated {}", list::updated_ago(ms, now_ms)));
    }
    if draft.meta.as_ref().is_some_and(|m| m.is_shared) {
        parts.push("shared with a link".to_owned());
    }
    ui.label(
        RichText::new(parts.join(" · "))
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_muted),
    );
}

/// The Share button and its popover: Shared on/off, "Anyone with the link can edit", the
/// link with Copy link, and Unshare.
fn share_ui(ui: &mut Ui, draft: &DocDraft, header: &HeaderState, actions: &mut Vec<Action>) {
    let busy = header.sharing;
    let Some(meta) = draft.meta.as_ref() else {
        return;
    };
    let label = if meta.is_shared { "Shared" } else { "Share" };
    let button = ui
        .add(widgets::secondary_button(label))
        .on_hover_text("Share this document with a link");
    egui::Popup::from_toggle_button_response(&button)
        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside)
        .width(340.0)
        .show(|ui| {
            ui.set_width(340.0);
            let mut shared = meta.is_shared;
            let toggle = ui.add_enabled(
                !busy,
                egui::Checkbox::new(&mut shared, "Shared with a link"),
            );
            if toggle.changed() {
                actions.push(Action::Docs(DocsAction::SetSharing {
                    shared,
                    editable: false,
                }));
            }
            let mut editable = meta.is_editable_by_link;
            let edit_toggle = ui.add_enabled(
                meta.is_shared && !busy,
                egui::Checkbox::new(&mut editable, "Anyone with the link can edit"),
            );
            if edit_toggle.changed() {
                actions.push(Action::Docs(DocsAction::SetSharing {
                    shared: true,
                    editable,
                }));
            }
            if busy {
                ui.horizontal(|ui| {
                    ui.add(egui::Spinner::new().size(12.0));
                    widgets::muted(ui, "Updating…");
                });
            }
            if let Some(url) = meta.share_url.as_deref().filter(|_| meta.is_shared) {
                ui.add_space(tokens::SPACE_XS);
                ui.add(
                    egui::Label::new(
                        RichText::new(url)
                            .monospace()
                            .size(tokens::TEXT_MONO)
                            .color(tokens::palette().text),
                    )
                    .wrap(),
                )
                .on_hover_text("The document's share link");
                ui.horizontal(|ui| {
                    if ui.add(widgets::secondary_button("Copy link")).clicked() {
                        actions.push(Action::Docs(DocsAction::CopyLink));
                    }
                    let unshare = ui.add_enabled(!busy, widgets::danger_button_small("Unshare"));
                    if unshare.clicked() {
                        actions.push(Action::Docs(DocsAction::SetSharing {
                            shared: false,
                            editable: false,
                        }));
                    }
                });
                let who = if meta.is_editable_by_link {
                    "Anyone with the link can read and edit it."
                } else {
                    "Anyone with the link can read it."
                };
                widgets::muted(ui, who);
                // The embedded sandbox serves on loopback: its links open only here.
                if is_loopback_url(url) {
                    widgets::notice(ui, LOCAL_LINK_NOTE, tokens::palette().warning);
                }
            } else if !meta.is_shared {
                widgets::muted(ui, "Only you and the project's members can open it.");
            }
            if let Some(error) = header.share_error {
                widgets::notice(ui, error, tokens::palette().danger);
            }
        });
}

/// Said under a share link that points at this computer (the local sandbox's).
pub const LOCAL_LINK_NOTE: &str = "This link works only on this computer, while the local \
     service runs. To share with others, connect an account in Settings.";

/// The link points at this computer (`localhost`, `127.0.0.1`, `[::1]`).
fn is_loopback_url(url: &str) -> bool {
    let Some(rest) = url.split_once("://").map(|(_, rest)| rest) else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = if let Some(bracketed) = host.strip_prefix('[') {
        bracketed.split(']').next().unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or_default()
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Nothing open: an invitation to pick or start a document.
fn empty_editor_ui(ui: &mut Ui, state: &DocsState, actions: &mut Vec<Action>) {
    ui.add_space(tokens::SPACE_XL);
    ui.vertical_centered(|ui| {
        // The list says when there are none; here, what to do about it.
        let text = if state.list.is_loaded() && state.list.docs.is_empty() {
            "Start the first document"
        } else {
            "Open a document on the left, or start a new one."
        };
        ui.label(
            RichText::new(text)
                .size(tokens::TEXT_TITLE)
                .color(tokens::palette().text_muted),
        );
        ui.add_space(tokens::SPACE_S);
        widgets::muted(
            ui,
            "Write in Markdown with a live preview; headings, lists, quotes, links and tables \
             are kept by the service.",
        );
        ui.add_space(tokens::SPACE_M);
        if ui.add(widgets::primary_button("New document")).clicked() {
            actions.push(Action::Docs(DocsAction::New));
        }
    });
}

/// Save / Discard / Cancel before leaving unsaved edits.
fn guard_ui(ctx: &egui::Context, state: &DocsState, target: LeaveTarget) -> Vec<Action> {
    let mut actions = Vec::new();
    let title = state
        .draft()
        .map(|d| d.title.trim())
        .filter(|t| !t.is_empty())
        .unwrap_or("this document")
        .to_owned();
    let going = match target {
        LeaveTarget::Quit => "before quitting",
        LeaveTarget::SwitchProfile(_) => "before switching services",
        LeaveTarget::View(_) => "before leaving Docs",
        LeaveTarget::Open(_) | LeaveTarget::New => "before switching documents",
    };
    let answer = |a| Action::Docs(DocsAction::Answer(a));
    let response = egui::Modal::new(egui::Id::unique("docs_unsaved_dialog"))
        .backdrop_color(tokens::palette().scrim)
        .frame(tokens::card_frame().inner_margin(egui::Margin::same(20)))
        .show(ctx, |ui| {
            ui.set_width(420.0);
            ui.label(
                RichText::new(format!("Save changes to “{title}” {going}?"))
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::palette().text),
            );
            ui.add_space(tokens::SPACE_XS);
            widgets::muted(ui, "Your edits to this document have not been saved.");
            ui.add_space(tokens::SPACE_M);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.add(widgets::primary_button("Save changes")).clicked() {
                    actions.push(answer(GuardAnswer::Save));
                }
                if ui.add(widgets::danger_button("Discard changes")).clicked() {
                    actions.push(answer(GuardAnswer::Discard));
                }
                if ui.add(widgets::secondary_button("Cancel")).clicked() {
                    actions.push(answer(GuardAnswer::Cancel));
                }
            });
        });
    if response.should_close() && actions.is_empty() {
        actions.push(answer(GuardAnswer::Cancel));
    }
    actions
}

#[cfg(test)]
mod tests {
    use super::is_loopback_url;

    #[test]
    fn loopback_links_are_recognised() {
        assert!(is_loopback_url("http://127.0.0.1:4173/share/abc"));
        assert!(is_loopback_url("http://localhost:8080/s/x"));
        assert!(is_loopback_url("http://[::1]:9000/s"));
        assert!(is_loopback_url("https://user@127.0.0.2/s"));
        assert!(!is_loopback_url("https://docs.example.com/share/abc"));
        assert!(!is_loopback_url("https://10.0.0.5/share"));
        assert!(!is_loopback_url("not a url"));
    }
}
