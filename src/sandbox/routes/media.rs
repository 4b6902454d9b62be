//! Media library: GET /v1/media (list), GET /v1/media/{id} (single), trash, restore,
//! permanent delete, move to a project, favourites and stats.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use super::json_object;
use crate::sandbox::auth::Caller;
use crate::sandbox::folder_store::FolderRole;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::is_object_id;
use crate::sandbox::media_store::{
    CategoryFilter, ListQuery, ListScope, MediaRow, MoveOutcome, Sort, SourceFilter,
};
use crate::sandbox::retention::remove_files;
use crate::sandbox::seed::NSFW_PLACEHOLDER;
use crate::sandbox::state::AppState;

pub(crate) const DEFAULT_PAGE_SIZE: u64 = 50;
pub(crate) const MAX_PAGE_SIZE: u64 = 200;
pub(crate) const MAX_SOURCE_TAG_CHARS: usize = 64;

/// Media routes' handler error shape: `{success: false, error}`.
pub(crate) fn media_error(status: StatusCode, message: impl Into<String>) -> ApiError {
    ApiError::raw(status, json!({"success": false, "error": message.into()}))
}

pub(crate) fn bad_request(message: impl Into<String>) -> ApiError {
    media_error(StatusCode::BAD_REQUEST, message)
}

pub(crate) fn media_not_found() -> ApiError {
    media_error(StatusCode::NOT_FOUND, "Media not found")
}

pub(crate) fn check_media_id(id: &str) -> ApiResult<()> {
    if is_object_id(id) {
        Ok(())
    } else {
        Err(bad_request("Invalid media ID format"))
    }
}

/// Contract list shape. NSFW items get the placeholder for both URLs (the sandbox account's
/// NSFW behaviour is "restricted").
pub(crate) fn list_item(state: &AppState, row: &MediaRow, with_user: bool) -> Value {
    let (url, thumbnail_url) = if row.nsfw {
        let placeholder = state.file_url(NSFW_PLACEHOLDER);
        (placeholder.clone(), Some(placeholder))
    } else {
        (
            state.file_url(&row.rel_path),
            row.thumb_rel_path.as_deref().map(|p| state.file_url(p)),
        )
    };
    let mut metadata = metadata_of(row);
    if row.media_type == crate::sandbox::model3d::job::MEDIA_TYPE {
        crate::sandbox::model3d::job::served_metadata(
            state,
            row.thumb_rel_path.as_deref(),
            &mut metadata,
        );
    }
    json!({
        "id": row.id,
        "url": url,
        "thumbnail_url": thumbnail_url,
        "name": row.name,
        "filename": row.filename,
        "type": row.media_type,
        "media_type": row.media_type,
        "category": row.category,
        "size": row.size_bytes.unwrap_or(0),
        "source_type": row.source_type,
        "generation_type": row.generation_type,
        "session_type": session_type(&row.category),
        "prompt": row.prompt,
        "width": row.width,
        "height": row.height,
        "duration": row.duration_secs,
        "is_favorited": row.is_favorited,
        "nsfw_detected": row.nsfw,
        "project_id": row.project_id,
        "session_id": row.session_id,
        "user_id": row.user_id,
        "user_email": if with_user { json!(row.owner_email) } else { Value::Null },
        "user_name": if with_user { json!(row.owner_name) } else { Value::Null },
        "created_at": row.created_at,
        "metadata": metadata,
    })
}

/// snake_case tool name derived from the category (a display hint).
fn session_type(category: &str) -> String {
    category.replace('-', "_")
}

fn stored_metadata(row: &MediaRow) -> Map<String, Value> {
    match serde_json::from_str(&row.metadata_json) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// The stored generation metadata plus the four fields the contract promises.
fn metadata_of(row: &MediaRow) -> Value {
    let mut map = stored_metadata(row);
    map.insert("creditsUsed".into(), json!(row.credits_used.unwrap_or(0.0)));
    map.insert(
        "generationDurationSeconds".into(),
        json!(row.generation_duration_secs),
    );
    map.insert("projectId".into(), json!(row.project_id));
    map.insert("sessionId".into(), json!(row.session_id));
    Value::Object(map)
}

/// Contract single shape (camelCase, real URL, no list-only fields). Lazily backfills
/// `referenceMedia`, `visualDnaNames`, `colorPalette` and `quality` on older records.
fn single_item(state: &AppState, row: &MediaRow) -> ApiResult<Value> {
    let mut stored = stored_metadata(row);
    let mut backfilled = false;
    for (key, default) in [
        ("referenceMedia", json!([])),
        ("visualDnaNames", json!([])),
        ("colorPalette", Value::Null),
        ("quality", Value::Null),
    ] {
        if !stored.contains_key(key) {
            stored.insert(key.to_owned(), default);
            backfilled = true;
        }
    }
    if backfilled {
        state
            .store
            .set_media_metadata(&row.id, &Value::Object(stored.clone()).to_string())?;
    }
    let reference_media = stored.get("referenceMedia").cloned().unwrap_or(json!([]));
    let category = stored
        .get("category")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| row.source_type.clone());
    let mut metadata = stored;
    metadata.insert("creditsUsed".into(), json!(row.credits_used.unwrap_or(0.0)));
    metadata.insert(
        "generationDurationSeconds".into(),
        json!(row.generation_duration_secs),
    );
    metadata.insert("projectId".into(), json!(row.project_id));
    metadata.insert("sessionId".into(), json!(row.session_id));
    metadata.insert(
        "thumbnailUrl".into(),
        json!(row.thumb_rel_path.as_deref().map(|p| state.file_url(p))),
    );
    let mut metadata = Value::Object(metadata);
    if row.media_type == crate::sandbox::model3d::job::MEDIA_TYPE {
        crate::sandbox::model3d::job::served_metadata(
            state,
            row.thumb_rel_path.as_deref(),
            &mut metadata,
        );
    }
    let mut media = json!({
        "id": row.id,
        "type": row.media_type,
        "category": category,
        "filename": row.filename,
        "url": state.file_url(&row.rel_path),
        "size": row.size_bytes.unwrap_or(0),
        "created": row.created_at,
        "projectId": row.project_id,
        "creditsUsed": row.credits_used.unwrap_or(0.0),
        "generationDurationSeconds": row.generation_duration_secs,
        "sessionId": row.session_id,
        "session_id": row.session_id,
        "userId": row.user_id,
        "userEmail": row.owner_email,
        "userName": row.owner_name,
        "userAvatar": Value::Null,
        "isFavorited": row.is_favorited,
        "generationType": row.generation_type,
        "sessionType": session_type(&category),
        "metadata": metadata,
        "referenceMedia": reference_media,
    });
    // Only images and videos have a hide ("dislike") state in the sandbox.
    if matches!(row.media_type.as_str(), "image" | "video") {
        media["isDisliked"] = json!(false);
    }
    Ok(media)
}

fn param<'a>(params: &'a HashMap<String, String>, names: &[&str]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|name| params.get(*name))
        .map(|v| v.trim())
        .filter(|v| !v.is_empty())
}

fn positive(value: Option<&str>, name: &str, default: u64) -> ApiResult<u64> {
    match value {
        None => Ok(default),
        Some(text) => match text.parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(bad_request(format!("{name} must be a positive integer"))),
        },
    }
}

fn enum_value<T: Copy>(
    value: Option<&str>,
    name: &str,
    allowed: &[(&str, T)],
) -> ApiResult<Option<T>> {
    let Some(value) = value else {
        return Ok(None);
    };
    allowed
        .iter()
        .find(|(text, _)| *text == value)
        .map(|(_, v)| Some(*v))
        .ok_or_else(|| {
            let names: Vec<&str> = allowed.iter().map(|(text, _)| *text).collect();
            bad_request(format!(
                "Invalid {name} '{value}'. Allowed values: {}",
                names.join(", ")
            ))
        })
}

fn optional_object_id(value: Option<&str>, name: &str) -> ApiResult<Option<String>> {
    match value {
        None => Ok(None),
        Some(id) if is_object_id(id) => Ok(Some(id.to_owned())),
        Some(_) => Err(bad_request(format!("Invalid {name} format"))),
    }
}

/// GET /v1/media with every parameter of the contract.
pub(crate) async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(params): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    let page = positive(param(&params, &["page"]), "page", 1)?;
    let page_size = positive(
        param(&params, &["page_size", "pageSize"]),
        "page_size",
        DEFAULT_PAGE_SIZE,
    )?
    .min(MAX_PAGE_SIZE);
    let trashed = params.get("include_deleted").map(String::as_str) == Some("true");
    let mut query = ListQuery {
        scope: ListScope::Owner(caller.user_id.clone()),
        trashed,
        media_type: None,
        category: None,
        source_type: None,
        include_stock: true,
        source_tag: None,
        preset_id: None,
        moodboard_id: None,
        search: None,
        sort: Sort::CreatedDesc,
        page,
        page_size,
    };
    let mut with_user = false;
    if let Some(folder_id) = param(&params, &["folder_id"]) {
        // Folder wins over everything but paging and include_deleted.
        if !is_object_id(folder_id) {
            return Err(bad_request("Invalid folder_id format"));
        }
        match state.store.folder(folder_id)? {
            Some(folder) if folder.role(&caller.user_id) != FolderRole::None => {
                query.scope = ListScope::Folder(folder.id);
            }
            _ => return Err(media_error(StatusCode::NOT_FOUND, "Folder not found")),
        }
    } else {
        query.media_type = enum_value(
            param(&params, &["type"]),
            "type",
            &[
                ("image", Some("image")),
                ("video", Some("video")),
                ("audio", Some("audio")),
                ("all", None),
            ],
        )?
        .flatten();
        let category_param = param(&params, &["category"]);
        let source_param = param(&params, &["source_type"]);
        query.category = enum_value(
            category_param,
            "category",
            &[
                ("ai", Some(CategoryFilter::Ai)),
                ("uploaded", Some(CategoryFilter::Uploaded)),
                ("edited", Some(CategoryFilter::Edited)),
                ("favorites", Some(CategoryFilter::Favorites)),
                ("training-lab", Some(CategoryFilter::TrainingLab)),
                ("all", None),
            ],
        )?
        .flatten();
        query.source_type = enum_value(
            source_param,
            "source_type",
            &[
                ("uploaded", SourceFilter::Uploaded),
                ("generated", SourceFilter::Generated),
                ("chat-generated", SourceFilter::ChatGenerated),
            ],
        )?;
        query.sort = enum_value(
            param(&params, &["sort"]),
            "sort",
            &[
                ("created_desc", Sort::CreatedDesc),
                ("created_asc", Sort::CreatedAsc),
                ("name_asc", Sort::NameAsc),
                ("name_desc", Sort::NameDesc),
            ],
        )?
        .unwrap_or(Sort::CreatedDesc);
        query.include_stock = category_param.is_none() && source_param.is_none();
        query.source_tag =
            param(&params, &["source"]).map(|tag| tag.chars().take(MAX_SOURCE_TAG_CHARS).collect());
        query.preset_id = optional_object_id(param(&params, &["preset_id"]), "preset_id")?;
        query.moodboard_id = optional_object_id(param(&params, &["moodboard_id"]), "moodboard_id")?;
        query.search = param(&params, &["search", "searchTerm"]).map(str::to_lowercase);
        if let Some(project_id) = param(&params, &["project_id"]) {
            if !is_object_id(project_id) {
                return Err(bad_request("Invalid project_id format"));
            }
            with_user = true;
            query.scope = if state
                .store
                .project_access(&caller.user_id, project_id)?
                .any()
            {
                ListScope::Project(project_id.to_owned())
            } else {
                ListScope::Empty
            };
        }
    }
    let worker_state = state.clone();
    let page_result = tokio::task::spawn_blocking(move || worker_state.store.list_media(&query))
        .await
        .map_err(|e| ApiError::internal("media list", e))??;
    let media: Vec<Value> = page_result
        .rows
        .iter()
        .map(|row| list_item(&state, row, with_user))
        .collect();
    let (total_items, total_pages) = match page_result.total {
        Some(total) => (total as i64, total.div_ceil(page_size)),
        None => (-1, 0),
    };
    Ok(Json(json!({
        "success": true,
        "media": media,
        "pagination": {
            "page": page,
            "page_size": page_size,
            "total_items": total_items,
            "total_pages": total_pages,
            "has_next": page_result.has_next,
        }
    })))
}

/// GET /v1/media/{id}; falls back to a generation id (its lowest-index item).
pub(crate) async fn get_one(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    check_media_id(&id)?;
    let row = match state.store.media(&id)? {
        Some(row) => row,
        None => state
            .store
            .first_media_of_generation(&id)?
            .ok_or_else(media_not_found)?,
    };
    if row.trashed {
        return Err(media_not_found());
    }
    if row.user_id != caller.user_id
        && !state
            .store
            .project_access(&caller.user_id, &row.project_id)?
            .any()
    {
        return Err(media_error(StatusCode::FORBIDDEN, "Access denied"));
    }
    Ok(Json(
        json!({"success": true, "media": single_item(&state, &row)?}),
    ))
}

/// DELETE /v1/media/{id}: to the trash (owner only).
pub(crate) async fn trash(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    check_media_id(&id)?;
    let now_ms = state.clock.now_ms();
    if state
        .store
        .trash_media(&caller.user_id, std::slice::from_ref(&id), now_ms)?
        == 0
    {
        return Err(media_not_found());
    }
    Ok(Json(json!({
        "success": true,
        "id": id,
        "message": "Media moved to trash. It can be restored for 30 days.",
    })))
}

/// POST /v1/media/{id}/restore (owner only; 404 unless trashed).
pub(crate) async fn restore(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    check_media_id(&id)?;
    if state
        .store
        .restore_media(&caller.user_id, std::slice::from_ref(&id))?
        == 0
    {
        return Err(media_error(
            StatusCode::NOT_FOUND,
            "Media not found in trash",
        ));
    }
    Ok(Json(
        json!({"success": true, "id": id, "message": "Media restored"}),
    ))
}

/// DELETE /v1/media/{id}/permanent: idempotent; another user's item is 404.
pub(crate) async fn permanent(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    check_media_id(&id)?;
    if let Some(row) = state.store.media(&id)?
        && row.user_id != caller.user_id
    {
        return Err(media_not_found());
    }
    let purged = state
        .store
        .purge_media(Some(&caller.user_id), std::slice::from_ref(&id))?;
    remove_files(&state, &purged.files);
    Ok(Json(json!({
        "success": true,
        "id": id,
        "message": "Media permanently deleted",
    })))
}

/// `project_id` (legacy `newProjectId`) from a JSON body: required object id.
pub(crate) fn target_project(body: &Map<String, Value>) -> ApiResult<String> {
    let value = body.get("project_id").or_else(|| body.get("newProjectId"));
    match value {
        Some(Value::String(id)) if is_object_id(id.trim()) => Ok(id.trim().to_owned()),
        None | Some(Value::Null) => Err(bad_request("project_id is required")),
        Some(_) => Err(bad_request("Invalid project_id format")),
    }
}

/// 403 unless the caller owns or is a member of the target project.
pub(crate) fn require_project_access(
    state: &AppState,
    user_id: &str,
    project_id: &str,
) -> ApiResult<()> {
    if state.store.project_access(user_id, project_id)?.any() {
        Ok(())
    } else {
        Err(media_error(
            StatusCode::FORBIDDEN,
            "You do not have access to the target project",
        ))
    }
}

/// PATCH /v1/media/{id}/project
pub(crate) async fn move_project(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    check_media_id(&id)?;
    let body = json_object(&body)?;
    let project_id = target_project(&body)?;
    require_project_access(&state, &caller.user_id, &project_id)?;
    match state
        .store
        .move_media(&caller.user_id, std::slice::from_ref(&id), &project_id)?
    {
        MoveOutcome::Moved(_) => Ok(Json(
            json!({"success": true, "id": id, "project_id": project_id}),
        )),
        MoveOutcome::NotAllOwned { .. } => Err(media_not_found()),
    }
}

async fn favorite(
    state: AppState,
    caller: Caller,
    id: String,
    favorited: bool,
) -> ApiResult<Json<Value>> {
    check_media_id(&id)?;
    let row = match state.store.media(&id)? {
        Some(row) if !row.trashed => row,
        _ => return Err(media_not_found()),
    };
    if row.user_id != caller.user_id
        && !state
            .store
            .project_access(&caller.user_id, &row.project_id)?
            .any()
    {
        return Err(media_error(StatusCode::FORBIDDEN, "Access denied"));
    }
    state
        .store
        .set_favorite(&id, &caller.user_id, favorited, &state.clock.now_iso())?;
    Ok(Json(
        json!({"success": true, "id": id, "is_favorited": favorited}),
    ))
}

/// POST /v1/media/{id}/favorite
pub(crate) async fn favorite_add(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    favorite(state, caller, id, true).await
}

/// DELETE /v1/media/{id}/favorite: clears the star of every project member.
pub(crate) async fn favorite_remove(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    favorite(state, caller, id, false).await
}

/// GET /v1/media/stats
pub(crate) async fn stats(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(params): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    let project_id =
        optional_object_id(param(&params, &["project_id", "projectId"]), "project_id")?;
    let stats = state
        .store
        .media_stats(&caller.user_id, project_id.as_deref())?;
    Ok(Json(json!({
        "success": true,
        "stats": {
            "total": stats.total,
            "images": stats.images,
            "videos": stats.videos,
            "audio": stats.audio,
            "total_size_bytes": stats.total_size_bytes,
        }
    })))
}
