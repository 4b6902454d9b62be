//! Project changes (rename, archive, unarchive) and the prompt preset catalog for Create.
//! Each change is answered once by a `ProjectsEvent` carrying its `op_id`; a change that
//! succeeded is followed by a fresh project list (`Event::Projects`) so every picker agrees.

use std::sync::Arc;

use super::guard::spawn_reported;
use super::protocol::Event;
use super::runtime::{Ctx, refresh_projects};
use crate::api::{ApiError, Project, PromptPreset, PromptPresetType};

/// A projects request from the studio.
#[derive(Clone, Debug, PartialEq)]
pub enum ProjectsCommand {
    /// PUT /projects/:id `{name}`; the name is already checked at the field.
    Rename {
        op_id: u64,
        project_id: String,
        name: String,
    },
    /// PUT /projects/:id/archive (`archived`) or /unarchive.
    SetArchived {
        op_id: u64,
        project_id: String,
        archived: bool,
    },
    /// GET /presets?type=...: the prompt presets for one Create type.
    LoadPromptPresets { kind: PromptPresetType },
}

/// The answer to one [`ProjectsCommand`].
#[derive(Clone, Debug, PartialEq)]
pub enum ProjectsEvent {
    Renamed {
        op_id: u64,
        project_id: String,
        result: Result<Project, ApiError>,
    },
    ArchivedSet {
        op_id: u64,
        project_id: String,
        archived: bool,
        result: Result<Project, ApiError>,
    },
    PromptPresets {
        kind: PromptPresetType,
        result: Result<Vec<PromptPreset>, ApiError>,
    },
}

/// Starts the work for one command (never blocks the engine loop).
pub(crate) fn handle(ctx: &Arc<Ctx>, command: ProjectsCommand) {
    let task_ctx = ctx.clone();
    match command {
        ProjectsCommand::Rename {
            op_id,
            project_id,
            name,
        } => {
            spawn_reported(ctx, "renaming a project", async move {
                let result = task_ctx.client.rename_project(&project_id, &name).await;
                finish(
                    task_ctx,
                    ProjectsEvent::Renamed {
                        op_id,
                        project_id,
                        result,
                    },
                )
                .await;
            });
        }
        ProjectsCommand::SetArchived {
            op_id,
            project_id,
            archived,
        } => {
            let doing = if archived {
                "archiving a project"
            } else {
                "unarchiving a project"
            };
            spawn_reported(ctx, doing, async move {
                let result = task_ctx
                    .client
                    .set_project_archived(&project_id, archived)
                    .await;
                finish(
                    task_ctx,
                    ProjectsEvent::ArchivedSet {
                        op_id,
                        project_id,
                        archived,
                        result,
                    },
                )
                .await;
            });
        }
        ProjectsCommand::LoadPromptPresets { kind } => {
            spawn_reported(ctx, "loading the prompt presets", async move {
                let result = task_ctx.client.prompt_presets(kind).await;
                if let Err(e) = &result {
                    tracing::warn!("prompt presets for {} failed: {e}", kind.wire_name());
                }
                let event = ProjectsEvent::PromptPresets { kind, result };
                task_ctx.emit(Event::ProjectOps(event)).await;
            });
        }
    }
}

/// Sends the answer, then the project list again when the change took.
async fn finish(ctx: Arc<Ctx>, event: ProjectsEvent) {
    let changed = match &event {
        ProjectsEvent::Renamed { result, .. } | ProjectsEvent::ArchivedSet { result, .. } => {
            match result {
                Ok(_) => true,
                Err(e) => {
                    tracing::warn!("project change failed: {e}");
                    false
                }
            }
        }
        ProjectsEvent::PromptPresets { .. } => false,
    };
    ctx.emit(Event::ProjectOps(event)).await;
    if changed {
        refresh_projects(ctx).await;
    }
}
