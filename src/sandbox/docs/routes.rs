//! The project document routes of document 2 (`/api/v1/docs…`). Every error is
//! `{success: false, error: "<sentence>"}`; the checks run in this order: malformed id
//! (400), body (400), visibility (404), permission (403).

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use super::sanitize::sanitize;
use super::store::{DocRole, DocRow, NewDoc, ShareState};
use crate::sandbox::auth::Caller;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::is_object_id;
use crate::sandbox::state::AppState;

pub(crate) const MAX_TITLE_CHARS: usize = 200;
const DEFAULT_PAGE_LIMIT: u64 = 20;
const MAX_PAGE_LIMIT: u64 = 50;

fn error(status: StatusCode, message: impl Into<String>) -> ApiError {
    ApiError::raw(status, json!({"success": false, "error": message.into()}))
}

fn bad_request(message: impl Into<String>) -> ApiError {
    error(StatusCode::BAD_REQUEST, message)
}

fn not_found() -> ApiError {
    error(StatusCode::NOT_FOUND, "Document not found")
}

/// The public link of a shared document.
pub(crate) fn share_url(origin: &str, token: &str) -> String {
    format!("{origin}/share/docs/{token}")
}

/// The `doc` object: metadata, plus `content` when asked.
fn doc_json(state: &AppState, doc: &DocRow, with_content: bool) -> Value {
    let share_url = match (&doc.share_token, doc.is_shared) {
        (Some(token), true) => Value::String(share_url(&state.origin, token)),
        _ => Value::Null,
    };
    let mut value = json!({
        "id": doc.id,
        "title": doc.title,
        "project_id": doc.project_id,
        "is_shared": doc.is_shared,
        "is_editable_by_link": doc.is_editable_by_link,
        "share_url": share_url,
        "created_at": doc.created_at,
        "updated_at": doc.updated_at,
    });
    if with_content && let Some(map) = value.as_object_mut() {
        map.insert("content".to_owned(), Value::String(doc.content.clone()));
    }
    value
}

/// The request body as a JSON object (an empty body is `{}`).
fn body_object(body: &[u8]) -> ApiResult<Map<String, Value>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(bad_request("The request body must be a JSON object")),
        Err(error) => Err(bad_request(format!(
            "The request body is not valid JSON: {error}"
        ))),
    }
}

/// An optional string field: absent → `None`; present but not a string (`null`
/// included) → 400.
fn optional_string<'a>(body: &'a Map<String, Value>, field: &str) -> ApiResult<Option<&'a str>> {
    match body.get(field) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(bad_request(format!("{field} must be a string"))),
    }
}

/// An optional boolean field: absent → `None`; anything but a JSON boolean → 400.
fn optional_bool(body: &Map<String, Value>, field: &str) -> ApiResult<Option<bool>> {
    match body.get(field) {
        None => Ok(None),
        Some(Value::Bool(flag)) => Ok(Some(*flag)),
        Some(_) => Err(bad_request(format!("{field} must be true or false"))),
    }
}

/// A title as stored: trimmed, 1-200 characters.
fn valid_title(title: &str) -> ApiResult<String> {
    let title = title.trim();
    if title.is_empty() {
        return Err(bad_request("title must not be empty"));
    }
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(bad_request(format!(
            "title must be at most {MAX_TITLE_CHARS} characters"
        )));
    }
    Ok(title.to_owned())
}

fn valid_doc_id(id: &str) -> ApiResult<&str> {
    if is_object_id(id) {
        Ok(id)
    } else {
        Err(bad_request(
            "Invalid document id: expected 24 hexadecimal characters",
        ))
    }
}

/// The document if the caller may see it at all (404 otherwise).
fn visible_doc(state: &AppState, caller: &Caller, id: &str) -> ApiResult<(DocRow, DocRole)> {
    state
        .store
        .doc_for(&caller.user_id, id)?
        .ok_or_else(not_found)
}

fn require_editor(role: DocRole) -> ApiResult<()> {
    if role >= DocRole::Editor {
        Ok(())
    } else {
        Err(error(
            StatusCode::FORBIDDEN,
            "You do not have permission to edit this document",
        ))
    }
}

/// A positive integer query value; absent → `default`, anything else → 400.
fn positive_query_int(query: &HashMap<String, String>, key: &str, default: u64) -> ApiResult<u64> {
    let Some(raw) = query.get(key) else {
        return Ok(default);
    };
    match raw.trim().parse::<u64>() {
        Ok(value) if value >= 1 => Ok(value),
        _ => Err(bad_request(format!(
            "{key} must be a whole number of 1 or more"
        ))),
    }
}

/// POST /v1/docs `{title, content?, project_id?}` → 201 `{success, doc}` (metadata only).
pub(crate) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let body = body_object(&body)?;
    let title = match optional_string(&body, "title")? {
        Some(title) => valid_title(title)?,
        None => return Err(bad_request("title is required")),
    };
    let content = sanitize(optional_string(&body, "content")?.unwrap_or(""));
    let project_id = match body.get("project_id") {
        None | Some(Value::Null) => state.store.ensure_default_project(&caller.user_id)?.id,
        Some(Value::String(id)) if is_object_id(id.trim()) => {
            let id = id.trim();
            if !state.store.can_edit_project(&caller.user_id, id)? {
                return Err(error(
                    StatusCode::FORBIDDEN,
                    "You do not have permission to add documents to this project",
                ));
            }
            id.to_owned()
        }
        Some(Value::String(_)) => {
            return Err(bad_request(
                "Invalid project_id: expected 24 hexadecimal characters",
            ));
        }
        Some(_) => return Err(bad_request("project_id must be a string")),
    };
    let doc = state.store.insert_doc(&NewDoc {
        owner_id: &caller.user_id,
        project_id: &project_id,
        title: &title,
        content: &content,
        now_ms: state.clock.now_ms(),
    })?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"success": true, "doc": doc_json(&state, &doc, false)})),
    ))
}

/// GET /v1/docs?project_id&page&limit → `{success, docs, pagination}`.
pub(crate) async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> ApiResult<Json<Value>> {
    let Query(query) = query.map_err(|_| bad_request("The query string could not be read"))?;
    let page = positive_query_int(&query, "page", 1)?;
    let limit = positive_query_int(&query, "limit", DEFAULT_PAGE_LIMIT)?.min(MAX_PAGE_LIMIT);
    let project_id = match query.get("project_id").map(|id| id.trim()) {
        None | Some("") => None,
        Some(id) if is_object_id(id) => {
            if !state.store.is_project_participant(&caller.user_id, id)? {
                return Err(error(StatusCode::NOT_FOUND, "Project not found"));
            }
            Some(id)
        }
        Some(_) => {
            return Err(bad_request(
                "Invalid project_id: expected 24 hexadecimal characters",
            ));
        }
    };
    let offset = (page - 1).saturating_mul(limit);
    let (rows, total) = state.store.list_docs(
        &caller.user_id,
        project_id,
        u32::try_from(limit).unwrap_or(u32::MAX),
        offset,
    )?;
    let docs: Vec<Value> = rows
        .iter()
        .map(|doc| doc_json(&state, doc, false))
        .collect();
    Ok(Json(json!({
        "success": true,
        "docs": docs,
        "pagination": {
            "page": page,
            "limit": limit,
            "total": total,
            "pages": total.div_ceil(limit),
        },
    })))
}

/// GET /v1/docs/{id} → `{success, doc}` with `content`.
pub(crate) async fn get_one(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let id = valid_doc_id(&id)?;
    let (doc, _) = visible_doc(&state, &caller, id)?;
    Ok(Json(
        json!({"success": true, "doc": doc_json(&state, &doc, true)}),
    ))
}

/// PUT /v1/docs/{id} `{title?, content?}` (content is a full replacement) → `{success,
/// doc}` with `content`.
pub(crate) async fn update(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let id = valid_doc_id(&id)?;
    let body = body_object(&body)?;
    let title = optional_string(&body, "title")?
        .map(valid_title)
        .transpose()?;
    let content = optional_string(&body, "content")?.map(sanitize);
    if title.is_none() && content.is_none() {
        return Err(bad_request("Nothing to update: send title and/or content"));
    }
    let (doc, role) = visible_doc(&state, &caller, id)?;
    require_editor(role)?;
    let updated = state
        .store
        .update_doc(
            &doc.id,
            title.as_deref(),
            content.as_deref(),
            state.clock.now_ms(),
        )?
        .ok_or_else(not_found)?;
    Ok(Json(
        json!({"success": true, "doc": doc_json(&state, &updated, true)}),
    ))
}

/// PATCH /v1/docs/{id}/share `{shared, editable?}` → `{success, doc}` (metadata).
pub(crate) async fn share(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let id = valid_doc_id(&id)?;
    let body = body_object(&body)?;
    let Some(shared) = optional_bool(&body, "shared")? else {
        return Err(bad_request("shared is required (true or false)"));
    };
    let editable = optional_bool(&body, "editable")?.unwrap_or(false);
    let (doc, role) = visible_doc(&state, &caller, id)?;
    require_editor(role)?;
    let updated = state
        .store
        .set_doc_share(&doc.id, ShareState { shared, editable })?
        .ok_or_else(not_found)?;
    Ok(Json(
        json!({"success": true, "doc": doc_json(&state, &updated, false)}),
    ))
}

/// DELETE /v1/docs/{id} (soft, owner only) → `{success, message}`.
pub(crate) async fn delete(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let id = valid_doc_id(&id)?;
    let (doc, role) = visible_doc(&state, &caller, id)?;
    if role != DocRole::Owner {
        return Err(error(
            StatusCode::FORBIDDEN,
            "Only the document's owner can delete it",
        ));
    }
    state.store.soft_delete_doc(&doc.id, state.clock.now_ms())?;
    Ok(Json(
        json!({"success": true, "message": "Document deleted"}),
    ))
}
