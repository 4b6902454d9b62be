//! Routing for the projects dialog and Create's prompt presets (their logic lives in
//! `ui::projects` and `ui::compose::prompt_presets`).

use super::StudioApp;
use crate::engine::ProjectsEvent;
use crate::ui::model::Action;
use crate::ui::projects::{ProjectsAction, ProjectsState, projects_dialog_ui};

impl StudioApp {
    /// The projects dialog's state (tests).
    pub fn projects_dialog(&self) -> &ProjectsState {
        &self.projects
    }

    /// The project list as last loaded, archived ones included (tests).
    pub fn projects(&self) -> Vec<crate::api::Project> {
        self.model.projects.value.clone().unwrap_or_default()
    }

    pub(super) fn apply_projects(&mut self, ctx: &egui::Context, action: ProjectsAction) {
        let projects = self.model.projects.value.clone().unwrap_or_default();
        for follow_up in self.projects.apply(action, &projects) {
            self.apply(ctx, follow_up);
        }
    }

    pub(super) fn project_ops_event(&mut self, ctx: &egui::Context, event: ProjectsEvent) {
        if let ProjectsEvent::PromptPresets { kind, result } = event {
            self.create
                .prompt_presets
                .loaded(kind, result.map_err(|e| e.to_string()));
            return;
        }
        let projects = self.model.projects.value.clone().unwrap_or_default();
        let default_id = self.model.default_project().map(|p| p.id.clone());
        let current = self.create.form.project_id.clone();
        let follow_ups =
            self.projects
                .handle_event(event, &projects, current.as_deref(), default_id.as_deref());
        for follow_up in follow_ups {
            self.apply(ctx, follow_up);
        }
    }

    pub(super) fn projects_dialog_layout(&mut self, ctx: &egui::Context) -> Vec<Action> {
        let projects = self.model.projects.value.clone().unwrap_or_default();
        projects_dialog_ui(ctx, &mut self.projects, &projects)
            .into_iter()
            .map(Action::Projects)
            .collect()
    }
}
