use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Value, json};

use super::json_object;
use crate::sandbox::auth::Caller;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::state::AppState;
use crate::sandbox::store::ProjectRow;

const MAX_PROJECT_NAME_CHARS: usize = 100;

fn project_json(project: &ProjectRow) -> Value {
    json!({
        "id": project.id,
        "name": project.name,
        "is_default": project.is_default,
        "created_at": project.created_at,
    })
}

/// GET /v1/projects; the default "API Generations" project is created on first use.
pub(crate) async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> ApiResult<Json<Value>> {
    state.store.ensure_default_project(&caller.user_id)?;
    let projects = state.store.list_projects(&caller.user_id)?;
    let projects: Vec<Value> = projects.iter().map(project_json).collect();
    Ok(Json(json!({"success": true, "projects": projects})))
}

/// POST /v1/projects `{name}` (1-100 characters after trimming).
pub(crate) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let body = json_object(&body)?;
    let name = match body.get("name") {
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
    let project = state.store.create_project(&caller.user_id, name)?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"success": true, "project": project_json(&project)})),
    ))
}
