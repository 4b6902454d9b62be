use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Value, json};

use super::json_object;
use crate::sandbox::auth::Caller;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::is_object_id;
use crate::sandbox::project_store::OwnerChange;
use crate::sandbox::state::AppState;
use crate::sandbox::store::ProjectRow;
use crate::sandbox::users::ProjectAccess;

const MAX_PROJECT_NAME_CHARS: usize = 100;

/// The project record of every project route (docs/SANDBOX.md, "Projects").
fn project_json(project: &ProjectRow, is_owner: bool) -> Value {
    json!({
        "id": project.id,
        "name": project.name,
        "is_default": project.is_default,
        "is_owner": is_owner,
        "archived": project.archived_at.is_some(),
        "archived_at": project.archived_at,
        "created_at": project.created_at,
        "updated_at": project.updated_at,
    })
}

fn project_response(project: &ProjectRow, is_owner: bool) -> Json<Value> {
    Json(json!({"success": true, "project": project_json(project, is_owner)}))
}

/// GET /v1/projects[?include_archived=true]; the default "API Generations" project is
/// created on first use. Archived projects are left out unless asked for.
pub(crate) async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(params): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    let include_archived = match params.get("include_archived").map(|v| v.trim()) {
        None | Some("false") | Some("0") | Some("") => false,
        Some("true") | Some("1") => true,
        Some(_) => {
            return Err(ApiError::sdk(
                StatusCode::BAD_REQUEST,
                "VALIDATION_ERROR",
                "include_archived must be true or false",
            ));
        }
    };
    state.store.ensure_default_project(&caller.user_id)?;
    let projects = state
        .store
        .list_projects(&caller.user_id, include_archived)?;
    let projects: Vec<Value> = projects.iter().map(|p| project_json(p, true)).collect();
    Ok(Json(json!({"success": true, "projects": projects})))
}

/// A path id that is not a 24-hex object id: the same 400 as a malformed `project_id`.
fn checked_id(id: &str) -> ApiResult<&str> {
    if is_object_id(id) {
        Ok(id)
    } else {
        Err(ApiError::global(
            StatusCode::BAD_REQUEST,
            "Invalid project ID format",
        ))
    }
}

fn not_found() -> ApiError {
    ApiError::sdk(StatusCode::NOT_FOUND, "NOT_FOUND", "Project not found")
}

/// GET /v1/projects/{id}: the owner's or a member's view of one project (archived or not).
pub(crate) async fn get_one(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let id = checked_id(&id)?;
    match state.store.visible_project(&caller.user_id, id)? {
        Some(visible) => Ok(project_response(
            &visible.project,
            visible.access == ProjectAccess::Owner,
        )),
        None => Err(not_found()),
    }
}

/// The answer to an owner-only change: the project, or 404 / 403 / 400.
fn owner_change_response(change: OwnerChange) -> ApiResult<Json<Value>> {
    match change {
        OwnerChange::Changed(project) => Ok(project_response(&project, true)),
        OwnerChange::NotFound => Err(not_found()),
        OwnerChange::NotOwner => Err(ApiError::sdk(
            StatusCode::FORBIDDEN,
            "FORBIDDEN",
            "Only the project's owner can change it",
        )),
        OwnerChange::DefaultProject => Err(ApiError::sdk(
            StatusCode::BAD_REQUEST,
            "DEFAULT_PROJECT",
            "The default project cannot be archived",
        )),
    }
}

/// PUT /v1/projects/{id} `{name}`: renames (same rule and error as create); owner only.
pub(crate) async fn update(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let id = checked_id(&id)?;
    let body = json_object(&body)?;
    let name = valid_name(body.get("name"))?;
    owner_change_response(state.store.rename_project(&caller.user_id, id, name)?)
}

/// PUT /v1/projects/{id}/archive: hides it from the list; idempotent; owner only.
pub(crate) async fn archive(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    set_archived(&state, &caller, &id, true)
}

/// PUT /v1/projects/{id}/unarchive: idempotent; owner only.
pub(crate) async fn unarchive(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    set_archived(&state, &caller, &id, false)
}

/// Archive or unarchive `id` for its owner; idempotent.
fn set_archived(
    state: &AppState,
    caller: &Caller,
    id: &str,
    archived: bool,
) -> ApiResult<Json<Value>> {
    let id = checked_id(id)?;
    owner_change_response(
        state
            .store
            .set_project_archived(&caller.user_id, id, archived)?,
    )
}

/// A project name: a string of 1-100 characters after trimming, else 400 INVALID_NAME.
fn valid_name(value: Option<&Value>) -> ApiResult<&str> {
    let name = match value {
        Some(Value::String(name)) => name.trim(),
        _ => {
            return Err(ApiError::sdk(
                StatusCode::BAD_REQUEST,
                "INVALID_NAME",
                "Project name is required and must be a string",
            ));
        }
    };
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_PROJECT_NAME_CHARS {
        return Err(ApiError::sdk(
            StatusCode::BAD_REQUEST,
            "INVALID_NAME",
            format!("Project name must be 1-{MAX_PROJECT_NAME_CHARS} characters"),
        ));
    }
    Ok(name)
}

/// POST /v1/projects `{name}` (1-100 characters after trimming).
pub(crate) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let body = json_object(&body)?;
    let name = valid_name(body.get("name"))?;
    let project = state.store.create_project(&caller.user_id, name)?;
    Ok((StatusCode::CREATED, project_response(&project, true)))
}
