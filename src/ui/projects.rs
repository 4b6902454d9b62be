//! The projects dialog ("Manage projects…" in Create's project picker): rename a project
//! in place (Enter saves, Esc cancels, errors at the field), archive and unarchive, and
//! "Show archived". Archived projects are hidden from every picker; archiving the project
//! Create uses switches Create to the default project, with Undo (= unarchive) on a toast.

use std::collections::HashMap;

use crate::api::Project;
use crate::api::projects::checked_project_name;
use crate::engine::{Command, ProjectsCommand, ProjectsEvent};
use crate::ui::model::Action;
use crate::ui::toasts::{ToastAction, ToastKind};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Key, RichText, TextEdit, Ui};

/// Everything the dialog (and its Undo toast) can ask for.
#[derive(Clone, Debug, PartialEq)]
pub enum ProjectsAction {
    Open,
    Close,
    SetShowArchived(bool),
    StartRename(String),
    CancelRename,
    SubmitRename,
    SetArchived {
        project_id: String,
        archived: bool,
    },
    /// The archive toast's Undo: unarchive, and give Create the project back if it had it.
    UndoArchive {
        project_id: String,
        reselect: bool,
    },
}

/// The inline rename field of one project.
#[derive(Clone, Debug, Default)]
pub struct RenameField {
    pub project_id: String,
    pub text: String,
    pub error: Option<String>,
    /// The rename in flight, if sent.
    pub op_id: Option<u64>,
    /// Frames left in which the field asks for keyboard focus: a pointer click on
    /// "Rename" ends on the frame the field appears, which can clear a single request.
    focus_frames: u8,
}

/// The dialog's state; the project list itself is the model's.
#[derive(Debug, Default)]
pub struct ProjectsState {
    pub open: bool,
    pub show_archived: bool,
    pub rename: Option<RenameField>,
    next_op_id: u64,
    /// Archive/unarchive in flight: op id → project id (its row waits).
    pending: HashMap<u64, String>,
    /// The last failed change per project, shown on its row.
    row_errors: HashMap<String, String>,
    /// Undo of archiving Create's project: select it again once unarchived.
    reselect_on_unarchive: Option<String>,
}

fn project_name(projects: &[Project], id: &str) -> String {
    projects
        .iter()
        .find(|p| p.id == id)
        .map(|p| p.name.clone())
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "the project".to_owned())
}

fn send(command: ProjectsCommand) -> Action {
    Action::Send(Box::new(Command::ProjectOps(command)))
}

impl ProjectsState {
    fn op_id(&mut self) -> u64 {
        self.next_op_id += 1;
        self.next_op_id
    }

    pub fn is_busy(&self, project_id: &str) -> bool {
        self.pending.values().any(|id| id == project_id)
            || self
                .rename
                .as_ref()
                .is_some_and(|r| r.project_id == project_id && r.op_id.is_some())
    }

    pub fn apply(&mut self, action: ProjectsAction, projects: &[Project]) -> Vec<Action> {
        match action {
            ProjectsAction::Open => {
                self.open = true;
                self.row_errors.clear();
            }
            ProjectsAction::Close => {
                self.open = false;
                self.rename = None;
            }
            ProjectsAction::SetShowArchived(show) => self.show_archived = show,
            ProjectsAction::StartRename(project_id) => {
                let text = projects
                    .iter()
                    .find(|p| p.id == project_id)
                    .map(|p| p.name.clone())
                    .unwrap_or_default();
                self.rename = Some(RenameField {
                    project_id,
                    text,
                    error: None,
                    op_id: None,
                    focus_frames: 3,
                });
            }
            ProjectsAction::CancelRename => self.rename = None,
            ProjectsAction::SubmitRename => return self.submit_rename(projects),
            ProjectsAction::SetArchived {
                project_id,
                archived,
            } => {
                let op_id = self.op_id();
                self.pending.insert(op_id, project_id.clone());
                self.row_errors.remove(&project_id);
                return vec![send(ProjectsCommand::SetArchived {
                    op_id,
                    project_id,
                    archived,
                })];
            }
            ProjectsAction::UndoArchive {
                project_id,
                reselect,
            } => {
                if reselect {
                    self.reselect_on_unarchive = Some(project_id.clone());
                }
                return self.apply(
                    ProjectsAction::SetArchived {
                        project_id,
                        archived: false,
                    },
                    projects,
                );
            }
        }
        Vec::new()
    }

    /// Checks the name at the field; sends only a valid change.
    fn submit_rename(&mut self, projects: &[Project]) -> Vec<Action> {
        let op_id = self.op_id();
        let Some(field) = self.rename.as_mut() else {
            return Vec::new();
        };
        if field.op_id.is_some() {
            return Vec::new();
        }
        let name = match checked_project_name(&field.text) {
            Ok(name) => name.to_owned(),
            Err(error) => {
                field.error = Some(error.to_string());
                // Back to the field so the name can be fixed without the pointer.
                field.focus_frames = 3;
                return Vec::new();
            }
        };
        let unchanged = projects
            .iter()
            .any(|p| p.id == field.project_id && p.name == name);
        if unchanged {
            self.rename = None;
            return Vec::new();
        }
        field.error = None;
        field.op_id = Some(op_id);
        vec![send(ProjectsCommand::Rename {
            op_id,
            project_id: field.project_id.clone(),
            name,
        })]
    }

    /// An answer from the engine. `current` is the project Create submits into and
    /// `default_id` the one it falls back to.
    pub fn handle_event(
        &mut self,
        event: ProjectsEvent,
        projects: &[Project],
        current: Option<&str>,
        default_id: Option<&str>,
    ) -> Vec<Action> {
        match event {
            ProjectsEvent::Renamed {
                op_id,
                project_id,
                result,
            } => {
                let ours = self.rename.as_ref().and_then(|r| r.op_id) == Some(op_id);
                match result {
                    Ok(project) => {
                        if ours {
                            self.rename = None;
                        }
                        vec![Action::Toast(
                            ToastKind::Success,
                            format!("Renamed to “{}”", project.name),
                        )]
                    }
                    Err(error) => {
                        let message = rename_error_text(&error);
                        tracing::warn!(%project_id, "rename failed: {error}");
                        match self.rename.as_mut().filter(|_| ours) {
                            Some(field) => {
                                field.op_id = None;
                                field.error = Some(message);
                                field.focus_frames = 3;
                                Vec::new()
                            }
                            None => vec![Action::Toast(ToastKind::Error, message)],
                        }
                    }
                }
            }
            ProjectsEvent::ArchivedSet {
                op_id,
                project_id,
                archived,
                result,
            } => {
                self.pending.remove(&op_id);
                match result {
                    Ok(_) => {
                        self.archived_set(&project_id, archived, projects, current, default_id)
                    }
                    Err(error) => {
                        tracing::warn!(%project_id, "archive change failed: {error}");
                        let what = if archived { "archive" } else { "unarchive" };
                        let message = format!(
                            "Could not {what} “{}”: {}",
                            project_name(projects, &project_id),
                            crate::ui::offline::human_error(&error.to_string())
                        );
                        self.row_errors.insert(project_id, message.clone());
                        vec![Action::Toast(ToastKind::Error, message)]
                    }
                }
            }
            // Create's prompt presets: routed to Create by the shell, never here.
            ProjectsEvent::PromptPresets { .. } => Vec::new(),
        }
    }

    fn archived_set(
        &mut self,
        project_id: &str,
        archived: bool,
        projects: &[Project],
        current: Option<&str>,
        default_id: Option<&str>,
    ) -> Vec<Action> {
        let name = project_name(projects, project_id);
        let mut actions = Vec::new();
        if !archived {
            if self.reselect_on_unarchive.as_deref() == Some(project_id) {
                self.reselect_on_unarchive = None;
                actions.push(Action::SelectProject(project_id.to_owned()));
            }
            actions.push(Action::Toast(
                ToastKind::Success,
                format!("“{name}” is back in the project pickers"),
            ));
            return actions;
        }
        let was_current = current == Some(project_id);
        let mut text = format!("Archived “{name}”");
        if let Some(default_id) = default_id.filter(|_| was_current) {
            actions.push(Action::SelectProject(default_id.to_owned()));
            text.push_str(&format!(
                ". Create now uses “{}”.",
                project_name(projects, default_id)
            ));
        }
        actions.push(Action::ToastWithAction {
            kind: ToastKind::Success,
            text,
            label: "Undo".to_owned(),
            action: ToastAction::Projects(ProjectsAction::UndoArchive {
                project_id: project_id.to_owned(),
                reselect: was_current,
            }),
        });
        actions
    }
}

/// A refused rename in words: the service's own message for a 400 (it names the rule).
fn rename_error_text(error: &crate::api::ApiError) -> String {
    match error {
        crate::api::ApiError::Status {
            status: 400,
            message,
            ..
        } if !message.trim().is_empty() => format!("{}.", message.trim().trim_end_matches('.')),
        _ => format!(
            "Could not rename: {}",
            crate::ui::offline::human_error(&error.to_string())
        ),
    }
}

/// The dialog, while open.
pub fn projects_dialog_ui(
    ctx: &egui::Context,
    state: &mut ProjectsState,
    projects: &[Project],
) -> Vec<ProjectsAction> {
    let mut actions = Vec::new();
    if !state.open {
        return actions;
    }
    let response = egui::Modal::new(egui::Id::unique("projects_dialog"))
        .backdrop_color(tokens::palette().scrim)
        .frame(tokens::card_frame().inner_margin(egui::Margin::same(20)))
        .show(ctx, |ui| {
            ui.set_width(460.0);
            ui.label(
                RichText::new("Projects")
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::palette().text),
            );
            widgets::muted(
                ui,
                "Rename projects, or archive the ones you are done with: archived projects \
                 keep their media but leave the project pickers.",
            );
            ui.add_space(tokens::SPACE_S);
            let mut show = state.show_archived;
            if ui.checkbox(&mut show, "Show archived").changed() {
                actions.push(ProjectsAction::SetShowArchived(show));
            }
            ui.add_space(tokens::SPACE_XS);
            egui::ScrollArea::vertical()
                .id_salt("projects_dialog_list")
                .max_height(ctx.content_rect().height() * 0.55)
                .show(ui, |ui| {
                    let show_archived = state.show_archived;
                    let shown = projects.iter().filter(|p| show_archived || !p.archived);
                    for project in shown {
                        ui.push_id(&project.id, |ui| {
                            project_row_ui(ui, state, project, &mut actions);
                        });
                        ui.separator();
                    }
                    if projects.is_empty() {
                        widgets::muted(ui, "No projects yet.");
                    }
                    let hidden = projects.iter().filter(|p| p.archived).count();
                    if !show_archived && hidden > 0 {
                        let noun = if hidden == 1 { "project" } else { "projects" };
                        widgets::muted(
                            ui,
                            format!("{hidden} archived {noun} hidden: tick “Show archived”."),
                        );
                    }
                });
            ui.add_space(tokens::SPACE_S);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.add(widgets::secondary_button("Done")).clicked() {
                    actions.push(ProjectsAction::Close);
                }
            });
        });
    // Esc (or a click outside) first cancels a rename in progress, then closes.
    if response.should_close() && actions.is_empty() {
        actions.push(if state.rename.is_some() {
            ProjectsAction::CancelRename
        } else {
            ProjectsAction::Close
        });
    }
    actions
}

fn project_row_ui(
    ui: &mut Ui,
    state: &mut ProjectsState,
    project: &Project,
    actions: &mut Vec<ProjectsAction>,
) {
    let name = if project.name.trim().is_empty() {
        project.id.clone()
    } else {
        project.name.clone()
    };
    let busy = state.is_busy(&project.id);
    if let Some(field) = state.rename.as_mut().filter(|r| r.project_id == project.id) {
        rename_field_ui(ui, field, &name, actions);
        return;
    }
    ui.horizontal(|ui| {
        let color = if project.archived {
            tokens::palette().text_faint
        } else {
            tokens::palette().text
        };
        ui.label(RichText::new(&name).color(color));
        if project.is_default == Some(true) {
            widgets::badge(ui, "default", tokens::palette().text_muted);
        }
        if project.archived {
            widgets::badge(ui, "archived", tokens::palette().warning);
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let is_default = project.is_default == Some(true);
            let (label, archived) = if project.archived {
                ("Unarchive", false)
            } else {
                ("Archive", true)
            };
            let archive = ui
                .add_enabled(!busy && !is_default, widgets::subtle_button(label))
                .on_disabled_hover_text(if is_default {
                    "The default project cannot be archived: work without a project lands there."
                } else {
                    "Waiting for the service…"
                });
            widgets::name_widget(&archive, &format!("{label} {name}"));
            if archive.clicked() {
                actions.push(ProjectsAction::SetArchived {
                    project_id: project.id.clone(),
                    archived,
                });
            }
            let rename = ui.add_enabled(!busy, widgets::subtle_button("Rename"));
            widgets::name_widget(&rename, &format!("Rename {name}"));
            if rename.clicked() {
                actions.push(ProjectsAction::StartRename(project.id.clone()));
            }
        });
    });
    if let Some(error) = state.row_errors.get(&project.id) {
        widgets::field_error(ui, error);
    }
}

fn rename_field_ui(
    ui: &mut Ui,
    field: &mut RenameField,
    name: &str,
    actions: &mut Vec<ProjectsAction>,
) {
    let saving = field.op_id.is_some();
    ui.horizontal(|ui| {
        let response = ui.add_enabled(
            !saving,
            TextEdit::singleline(&mut field.text)
                .hint_text("Project name")
                .desired_width(ui.available_width() - 150.0),
        );
        widgets::name_widget(&response, &format!("New name for {name}"));
        if field.focus_frames > 0 {
            field.focus_frames -= 1;
            if response.has_focus() {
                field.focus_frames = 0;
            } else {
                response.request_focus();
                // The next frames must come now, not at the next input event.
                ui.ctx().request_repaint();
            }
        }
        let (enter, escape) = ui.input(|i| (i.key_pressed(Key::Enter), i.key_pressed(Key::Escape)));
        if response.changed() {
            field.error = None;
        }
        if response.lost_focus() && enter {
            actions.push(ProjectsAction::SubmitRename);
        } else if escape && (response.has_focus() || response.lost_focus()) {
            actions.push(ProjectsAction::CancelRename);
        }
        let save = ui.add_enabled(
            !saving,
            widgets::secondary_button(if saving { "Saving…" } else { "Save" }),
        );
        widgets::name_widget(&save, "Save name");
        if save.clicked() {
            actions.push(ProjectsAction::SubmitRename);
        }
        let cancel = ui.add(widgets::subtle_button("Cancel"));
        widgets::name_widget(&cancel, "Cancel rename");
        if cancel.clicked() {
            actions.push(ProjectsAction::CancelRename);
        }
    });
    if let Some(error) = &field.error {
        widgets::field_error(ui, error);
    }
}
