//! The Library's project filter at the top of the sidebar: "All projects" or one project
//! (sent as `project_id` on GET /v1/media). Archived projects are offered only while one
//! is the filter already; folders show their contents whatever the filter.

use super::{LibraryAction, LibraryState, Place};
use crate::api::Project;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::Ui;

pub const ALL_PROJECTS: &str = "All projects";

/// The name to show for a project (its id when it has none).
fn project_label(project: &Project) -> String {
    let name = if project.name.trim().is_empty() {
        project.id.clone()
    } else {
        project.name.clone()
    };
    if project.archived {
        format!("{name} (archived)")
    } else {
        name
    }
}

pub fn project_filter_ui(
    ui: &mut Ui,
    state: &LibraryState,
    projects: &[Project],
) -> Vec<LibraryAction> {
    let mut actions = Vec::new();
    // Its "Project" title is the sidebar's header row (with the hide button).
    let selected_text = match state.project_filter.as_deref() {
        None => ALL_PROJECTS.to_owned(),
        Some(id) => projects
            .iter()
            .find(|p| p.id == id)
            .map_or_else(|| "Unknown project".to_owned(), project_label),
    };
    let in_folder = matches!(state.place, Place::Folder(_));
    ui.add_enabled_ui(!in_folder, |ui| {
        let width = ui.available_width();
        let combo = egui::ComboBox::from_id_salt("library_project_filter")
            .selected_text(selected_text)
            .width(width)
            .truncate()
            .show_ui(ui, |ui| {
                ui.set_min_width(width - 8.0);
                let all = state.project_filter.is_none();
                if ui.selectable_label(all, ALL_PROJECTS).clicked() && !all {
                    actions.push(LibraryAction::SetProjectFilter(None));
                }
                let shown = projects.iter().filter(|p| {
                    !p.archived || state.project_filter.as_deref() == Some(p.id.as_str())
                });
                for project in shown {
                    let selected = state.project_filter.as_deref() == Some(project.id.as_str());
                    if ui
                        .selectable_label(selected, project_label(project))
                        .clicked()
                        && !selected
                    {
                        actions.push(LibraryAction::SetProjectFilter(Some(project.id.clone())));
                    }
                }
            });
        widgets::name_widget(&combo.response, "Project filter");
        if in_folder {
            combo
                .response
                .on_disabled_hover_text("Folders show their items from every project");
        }
    });
    ui.add_space(tokens::SPACE_S);
    actions
}
