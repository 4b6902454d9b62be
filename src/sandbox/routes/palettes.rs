//! Document 2's color palette routes (Color DNA): list, create, update, delete, activate,
//! deactivate. Analyze lives in `palette_analyze.rs`.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Value, json};

use super::json_object;
use super::lookup::{Page, visible_row};
use super::palette_body::{Details, parse_create, parse_update};
use crate::sandbox::auth::Caller;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::is_object_id;
use crate::sandbox::palette_store::PaletteRow;
use crate::sandbox::state::AppState;

const DEFAULT_PAGE_LIMIT: u32 = 50;
const MAX_PAGE_LIMIT: u32 = 100;
const NEEDS_PROJECT_MESSAGE: &str =
    "Please open a project to set its Color DNA (projectId is required)";

/// Handler errors: `{success: false, error}`.
pub(crate) fn handler_error(status: StatusCode, error: &str) -> ApiError {
    ApiError::raw(status, json!({"success": false, "error": error}))
}

fn validation_error(details: Details) -> ApiError {
    ApiError::raw(
        StatusCode::BAD_REQUEST,
        json!({"status": false, "message": "Validation error", "details": details}),
    )
}

fn not_found() -> ApiError {
    handler_error(StatusCode::NOT_FOUND, "Color palette not found")
}

fn forbidden() -> ApiError {
    handler_error(
        StatusCode::FORBIDDEN,
        "You do not have permission to change the Color DNA of this project",
    )
}

/// A palette the caller owns (organisation palettes have no owner, so never qualify).
fn owned_palette(state: &AppState, caller: &Caller, id: &str) -> ApiResult<PaletteRow> {
    visible_row(
        id,
        |id| state.store.palette(id),
        |row| row.owner_id.as_deref() == Some(caller.user_id.as_str()),
    )?
    .ok_or_else(not_found)
}

/// `projectId` of an activate/deactivate body (400 when missing or empty).
fn required_project(body: &serde_json::Map<String, Value>) -> ApiResult<String> {
    match body.get("projectId") {
        Some(Value::String(id)) if !id.trim().is_empty() => Ok(id.trim().to_owned()),
        _ => Err(handler_error(
            StatusCode::BAD_REQUEST,
            NEEDS_PROJECT_MESSAGE,
        )),
    }
}

/// 403 unless the caller owns the project or is a member with edit/full permission
/// (a malformed, unknown or inaccessible id is also 403).
fn require_edit(state: &AppState, caller: &Caller, project_id: &str) -> ApiResult<()> {
    if is_object_id(project_id) && state.store.can_edit_project(&caller.user_id, project_id)? {
        Ok(())
    } else {
        Err(forbidden())
    }
}

/// GET /v1/color-palettes
pub(crate) async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    let Page { page, limit } = Page::lenient(&query, DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT);
    // Only the camelCase spelling; an unreadable project is ignored, not an error.
    let active_id = match query.get("projectId").map(|p| p.trim()) {
        Some(project_id)
            if is_object_id(project_id)
                && state
                    .store
                    .is_project_participant(&caller.user_id, project_id)? =>
        {
            state.store.project_palette_id(project_id)?
        }
        _ => None,
    };
    let offset = Page { page, limit }.offset();
    let (rows, total) =
        state
            .store
            .list_palettes(&caller.user_id, active_id.as_deref(), limit, offset)?;
    let palettes: Vec<Value> = rows
        .iter()
        .map(|row| row.to_json(active_id.as_deref() == Some(row.id.as_str())))
        .collect();
    Ok(Json(json!({
        "success": true,
        "color_palettes": palettes,
        "pagination": {
            "page": page,
            "limit": limit,
            "total": total,
            "pages": total.div_ceil(u64::from(limit)),
        },
    })))
}

/// POST /v1/color-palettes
pub(crate) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let body = json_object(&body)?;
    let parsed = parse_create(&body).map_err(validation_error)?;
    // The project is checked only when it is actually being graded.
    let grade_project = match (&parsed.project_id, parsed.is_active) {
        (Some(project_id), true) => {
            require_edit(&state, &caller, project_id)?;
            Some(project_id.clone())
        }
        _ => None,
    };
    let row = state.store.insert_palette(
        &caller.user_id,
        &parsed.name,
        &parsed.colors,
        &parsed.source_image_urls,
    )?;
    if let Some(project_id) = &grade_project {
        state
            .store
            .set_project_palette(project_id, &row.id, &caller.user_id)?;
    }
    Ok((
        StatusCode::CREATED,
        Json(json!({"success": true, "color_palette": row.to_json(grade_project.is_some())})),
    ))
}

/// PUT /v1/color-palettes/{id}
pub(crate) async fn update(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let body = json_object(&body)?;
    // The validator runs before the handler, as on the service.
    let changes = parse_update(&body).map_err(validation_error)?;
    let row = owned_palette(&state, &caller, &id)?;
    let updated = state
        .store
        .update_palette(&row.id, &changes)?
        .ok_or_else(not_found)?;
    // `is_active` here is the legacy stored field, always false for API-created palettes.
    Ok(Json(json!({
        "success": true,
        "color_palette": updated.to_json(updated.legacy_is_active),
    })))
}

/// DELETE /v1/color-palettes/{id}
pub(crate) async fn delete(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let row = owned_palette(&state, &caller, &id)?;
    state.store.delete_palette(&row.id)?;
    Ok(Json(json!({"success": true, "id": row.id})))
}

/// POST /v1/color-palettes/{id}/activate `{projectId}`
pub(crate) async fn activate(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let body = json_object(&body)?;
    let project_id = required_project(&body)?;
    require_edit(&state, &caller, &project_id)?;
    if !is_object_id(&id) {
        return Err(not_found());
    }
    let row = state.store.palette(&id)?.ok_or_else(not_found)?;
    // The caller's own palette, or one owned by another member of this project.
    let usable = match row.owner_id.as_deref() {
        Some(owner) if owner == caller.user_id => true,
        Some(owner) => state.store.is_project_participant(owner, &project_id)?,
        None => false,
    };
    if !usable {
        return Err(not_found());
    }
    state
        .store
        .set_project_palette(&project_id, &row.id, &caller.user_id)?;
    Ok(Json(
        json!({"success": true, "color_palette": row.to_json(true)}),
    ))
}

/// POST /v1/color-palettes/deactivate `{projectId}`
pub(crate) async fn deactivate(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let body = json_object(&body)?;
    let project_id = required_project(&body)?;
    require_edit(&state, &caller, &project_id)?;
    state.store.clear_project_palette(&project_id)?;
    Ok(Json(json!({"success": true})))
}
