//! /v1/media/folders: list, create, update, soft delete, add/remove items, share, unshare and
//! move-contents. Owner-only routes answer 404 to everyone else (shares have no levels).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use super::json_object;
use super::media::{bad_request, media_error, target_project};
use super::media_bulk::media_ids;
use crate::sandbox::auth::Caller;
use crate::sandbox::folder_store::{AddOutcome, FolderRole, FolderRow, FolderUpdate, NewFolder};
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::{is_object_id, new_object_id};
use crate::sandbox::media_store::MoveOutcome;
use crate::sandbox::state::AppState;
use crate::sandbox::users::ProjectAccess;

const MAX_NAME_CHARS: usize = 100;
const MAX_DESCRIPTION_CHARS: usize = 500;
const MAX_ICON_CHARS: usize = 50;
const MAX_FOLDER_ITEM_IDS: usize = 500;
const MAX_SHARE_EMAILS: usize = 50;
const DEFAULT_COLOR: &str = "#3B82F6";
const DEFAULT_ICON: &str = "folder";

fn folder_json(folder: &FolderRow, user_id: &str) -> Value {
    json!({
        "id": folder.id,
        "name": folder.name,
        "description": folder.description,
        "color": folder.color,
        "icon": folder.icon,
        "item_count": folder.item_count,
        "is_owner": folder.user_id == user_id,
        "shared_with_count": folder.shared_with.len(),
        "shared_with": folder.shared_with,
        "project_id": folder.project_id,
        "created_at": folder.created_at,
        "last_updated": folder.updated_at,
    })
}

fn folder_not_found() -> ApiError {
    media_error(StatusCode::NOT_FOUND, "Folder not found")
}

/// Platform-shape 400 `{status:false, message, code}`.
fn platform_400(message: &str, code: &str) -> ApiError {
    ApiError::raw(
        StatusCode::BAD_REQUEST,
        json!({"status": false, "message": message, "code": code}),
    )
}

/// Loads a live folder the caller may use: `owner_only` routes accept just the owner.
fn load(state: &AppState, caller: &Caller, id: &str, owner_only: bool) -> ApiResult<FolderRow> {
    if !is_object_id(id) {
        return Err(bad_request("Invalid folder ID format"));
    }
    let folder = state.store.folder(id)?.ok_or_else(folder_not_found)?;
    match folder.role(&caller.user_id) {
        FolderRole::Owner => Ok(folder),
        FolderRole::Shared if !owner_only => Ok(folder),
        _ => Err(folder_not_found()),
    }
}

fn validate_name(value: Option<&Value>) -> ApiResult<String> {
    match value {
        Some(Value::String(name)) => {
            let name = name.trim();
            let chars = name.chars().count();
            if chars == 0 || chars > MAX_NAME_CHARS {
                Err(bad_request(format!(
                    "Folder name must be 1-{MAX_NAME_CHARS} characters"
                )))
            } else {
                Ok(name.to_owned())
            }
        }
        _ => Err(bad_request("Folder name is required and must be a string")),
    }
}

/// `None` = clear (null or empty string).
fn validate_description(value: &Value) -> ApiResult<Option<String>> {
    match value {
        Value::Null => Ok(None),
        Value::String(text) if text.trim().is_empty() => Ok(None),
        Value::String(text) if text.chars().count() <= MAX_DESCRIPTION_CHARS => {
            Ok(Some(text.trim().to_owned()))
        }
        Value::String(_) => Err(bad_request(format!(
            "Description must be at most {MAX_DESCRIPTION_CHARS} characters"
        ))),
        _ => Err(bad_request("Description must be a string")),
    }
}

fn validate_color(value: &Value) -> ApiResult<String> {
    match value {
        Value::String(color)
            if color.len() == 7
                && color.starts_with('#')
                && color[1..].bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            Ok(color.clone())
        }
        _ => Err(bad_request("Color must be a hex color like #RRGGBB")),
    }
}

fn validate_icon(value: &Value) -> ApiResult<String> {
    match value {
        Value::String(icon) if icon.trim().is_empty() => Ok(DEFAULT_ICON.to_owned()),
        Value::String(icon) if icon.chars().count() <= MAX_ICON_CHARS => Ok(icon.trim().to_owned()),
        _ => Err(platform_400("Validation Error", "VALIDATION_ERROR")),
    }
}

pub(crate) async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> ApiResult<Json<Value>> {
    let folders = state.store.list_folders(&caller.user_id)?;
    let folders: Vec<Value> = folders
        .iter()
        .map(|f| folder_json(f, &caller.user_id))
        .collect();
    Ok(Json(
        json!({"success": true, "count": folders.len(), "folders": folders}),
    ))
}

pub(crate) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let body = json_object(&body)?;
    let name = validate_name(body.get("name"))?;
    let description = match body.get("description") {
        Some(value) => validate_description(value)?,
        None => None,
    };
    let color = match body.get("color") {
        None | Some(Value::Null) => DEFAULT_COLOR.to_owned(),
        Some(value) => validate_color(value)?,
    };
    let icon = match body.get("icon") {
        None | Some(Value::Null) => DEFAULT_ICON.to_owned(),
        Some(value) => validate_icon(value)?,
    };
    let now_ms = state.clock.now_ms();
    let folder = state.store.create_folder(&NewFolder {
        id: new_object_id(),
        user_id: caller.user_id.clone(),
        name,
        description,
        color,
        icon,
        created_at: crate::sandbox::clock::Clock::iso_at(now_ms),
        created_ms: now_ms,
    })?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"success": true, "folder": folder_json(&folder, &caller.user_id)})),
    ))
}

pub(crate) async fn update(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let folder = load(&state, &caller, &id, true)?;
    let body = json_object(&body)?;
    let mut update = FolderUpdate::default();
    if body.contains_key("name") {
        update.name = Some(validate_name(body.get("name"))?);
    }
    if let Some(value) = body.get("description") {
        update.description = Some(validate_description(value)?);
    }
    if let Some(value) = body.get("color") {
        update.color = Some(validate_color(value)?);
    }
    if let Some(value) = body.get("icon") {
        update.icon = Some(match value {
            Value::Null => DEFAULT_ICON.to_owned(),
            other => validate_icon(other)?,
        });
    }
    let folder = state
        .store
        .update_folder(&folder.id, &update, &state.clock.now_iso())?
        .ok_or_else(folder_not_found)?;
    Ok(Json(
        json!({"success": true, "folder": folder_json(&folder, &caller.user_id)}),
    ))
}

pub(crate) async fn delete(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let folder = load(&state, &caller, &id, true)?;
    state
        .store
        .delete_folder(&folder.id, state.clock.now_ms())?;
    Ok(Json(json!({"success": true, "id": folder.id})))
}

pub(crate) async fn add_items(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let folder = load(&state, &caller, &id, false)?;
    let ids = media_ids(&json_object(&body)?, MAX_FOLDER_ITEM_IDS)?;
    match state.store.add_folder_items(
        &folder.id,
        &caller.user_id,
        &ids,
        state.clock.now_ms(),
        &state.clock.now_iso(),
    )? {
        AddOutcome::Added {
            added,
            skipped,
            rejected,
        } => Ok(Json(json!({
            "success": true,
            "folder_id": folder.id,
            "added": added,
            "skipped": skipped,
            "rejected": rejected,
        }))),
        AddOutcome::NoneOwned => Err(media_error(
            StatusCode::FORBIDDEN,
            "You do not own any of these media items",
        )),
    }
}

/// Ids are not pre-validated like elsewhere: a malformed one is a platform-shape 400.
fn raw_ids(body: &Map<String, Value>) -> ApiResult<Vec<String>> {
    let Some(Value::Array(items)) = body.get("media_ids").or_else(|| body.get("mediaIds")) else {
        return Err(bad_request(
            "media_ids must be a non-empty array of media ids",
        ));
    };
    if items.is_empty() || items.len() > MAX_FOLDER_ITEM_IDS {
        return Err(bad_request(format!(
            "media_ids must hold 1-{MAX_FOLDER_ITEM_IDS} ids"
        )));
    }
    items
        .iter()
        .map(|item| match item.as_str() {
            Some(id) if is_object_id(id) => Ok(id.to_owned()),
            _ => Err(platform_400("Invalid ID format", "INVALID_ID_FORMAT")),
        })
        .collect()
}

pub(crate) async fn remove_items(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let folder = load(&state, &caller, &id, false)?;
    let ids = raw_ids(&json_object(&body)?)?;
    let only_added_by =
        (folder.role(&caller.user_id) != FolderRole::Owner).then_some(caller.user_id.as_str());
    let removed =
        state
            .store
            .remove_folder_items(&folder.id, &ids, only_added_by, &state.clock.now_iso())?;
    Ok(Json(json!({
        "success": true,
        "folder_id": folder.id,
        "removed": removed,
    })))
}

pub(crate) async fn share(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let folder = load(&state, &caller, &id, true)?;
    let body = json_object(&body)?;
    let emails: Vec<String> = match body.get("user_emails") {
        Some(Value::Array(items)) if !items.is_empty() && items.len() <= MAX_SHARE_EMAILS => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(|e| e.trim().to_lowercase())
                    .filter(|e| !e.is_empty())
                    .ok_or_else(|| bad_request("user_emails must hold e-mail addresses"))
            })
            .collect::<ApiResult<_>>()?,
        _ => {
            return Err(bad_request(format!(
                "user_emails must be a non-empty array of at most {MAX_SHARE_EMAILS} e-mail addresses"
            )));
        }
    };
    let mut user_ids: Vec<String> = Vec::new();
    let mut not_found: Vec<String> = Vec::new();
    for email in emails {
        match state.store.user_id_by_email(&email)? {
            // The owner's own address is ignored.
            Some(user_id) if user_id == folder.user_id => {}
            Some(user_id) => {
                if !user_ids.contains(&user_id) {
                    user_ids.push(user_id);
                }
            }
            None => {
                if !not_found.contains(&email) {
                    not_found.push(email);
                }
            }
        }
    }
    state
        .store
        .share_folder(&folder.id, &user_ids, &state.clock.now_iso())?;
    let folder = state
        .store
        .folder(&folder.id)?
        .ok_or_else(folder_not_found)?;
    Ok(Json(json!({
        "success": true,
        "folder": folder_json(&folder, &caller.user_id),
        "shared_with_user_ids": folder.shared_with,
        "not_found": not_found,
    })))
}

pub(crate) async fn unshare(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path((id, user_id)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    if !is_object_id(&id) {
        return Err(bad_request("Invalid folder ID format"));
    }
    if !is_object_id(&user_id) {
        return Err(bad_request("Invalid user ID format"));
    }
    let folder = load(&state, &caller, &id, true)?;
    state
        .store
        .unshare_folder(&folder.id, &user_id, &state.clock.now_iso())?;
    let folder = state
        .store
        .folder(&folder.id)?
        .ok_or_else(folder_not_found)?;
    Ok(Json(json!({
        "success": true,
        "folder": folder_json(&folder, &caller.user_id),
        "revoked_user_id": user_id,
    })))
}

pub(crate) async fn move_contents(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let folder = load(&state, &caller, &id, false)?;
    let project_id = target_project(&json_object(&body)?)?;
    if state.store.project_access(&caller.user_id, &project_id)? != ProjectAccess::Owner {
        return Err(media_error(StatusCode::NOT_FOUND, "Project not found"));
    }
    let ids = state.store.folder_live_media_ids(&folder.id)?;
    if ids.is_empty() {
        return Ok(Json(
            json!({"success": true, "moved_count": 0, "project_id": project_id}),
        ));
    }
    match state.store.move_media(&caller.user_id, &ids, &project_id)? {
        MoveOutcome::Moved(moved) => Ok(Json(json!({
            "success": true,
            "moved_count": moved,
            "project_id": project_id,
        }))),
        MoveOutcome::NotAllOwned { owned, total } => Err(media_error(
            StatusCode::FORBIDDEN,
            format!(
                "You do not own {} of the {total} items in this folder; nothing was moved",
                total - owned
            ),
        )),
    }
}
