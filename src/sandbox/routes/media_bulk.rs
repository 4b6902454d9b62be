//! POST /v1/media/bulk/{delete,restore,permanent,move}: up to 1000 ids; one malformed id
//! rejects the whole call.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use super::json_object;
use super::media::{bad_request, media_error, require_project_access, target_project};
use crate::sandbox::auth::Caller;
use crate::sandbox::http_error::ApiResult;
use crate::sandbox::ids::is_object_id;
use crate::sandbox::media_store::MoveOutcome;
use crate::sandbox::retention::remove_files;
use crate::sandbox::state::AppState;

pub(crate) const MAX_BULK_IDS: usize = 1000;

/// `media_ids` (legacy `mediaIds`): non-empty array of object ids, at most `max`.
/// Duplicates collapse to one (counts refer to distinct ids).
pub(crate) fn media_ids(body: &Map<String, Value>, max: usize) -> ApiResult<Vec<String>> {
    let Some(Value::Array(items)) = body.get("media_ids").or_else(|| body.get("mediaIds")) else {
        return Err(bad_request(
            "media_ids must be a non-empty array of media ids",
        ));
    };
    if items.is_empty() {
        return Err(bad_request(
            "media_ids must be a non-empty array of media ids",
        ));
    }
    if items.len() > max {
        return Err(bad_request(format!("At most {max} media ids per request")));
    }
    let mut ids: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        match item.as_str() {
            Some(id) if is_object_id(id) => {
                if !ids.iter().any(|known| known == id) {
                    ids.push(id.to_owned());
                }
            }
            _ => return Err(bad_request(format!("Invalid media ID format: {item}"))),
        }
    }
    Ok(ids)
}

/// At most one entry, only for a partial match (none matched → empty too, as the contract
/// says: check the count).
fn partial_errors(matched: usize, supplied: usize) -> Vec<Value> {
    if matched > 0 && matched < supplied {
        vec![json!({"error": format!(
            "{} of {supplied} media items were not found or not owned by you",
            supplied - matched
        )})]
    } else {
        Vec::new()
    }
}

pub(crate) async fn delete(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let ids = media_ids(&json_object(&body)?, MAX_BULK_IDS)?;
    let deleted = state
        .store
        .trash_media(&caller.user_id, &ids, state.clock.now_ms())?;
    Ok(Json(json!({
        "success": true,
        "deleted_count": deleted,
        "errors": partial_errors(deleted, ids.len()),
    })))
}

pub(crate) async fn restore(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let ids = media_ids(&json_object(&body)?, MAX_BULK_IDS)?;
    let restored = state.store.restore_media(&caller.user_id, &ids)?;
    Ok(Json(json!({
        "success": true,
        "restored_count": restored,
        "not_found": ids.len() - restored,
    })))
}

pub(crate) async fn permanent(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let ids = media_ids(&json_object(&body)?, MAX_BULK_IDS)?;
    let purged = state.store.purge_media(Some(&caller.user_id), &ids)?;
    remove_files(&state, &purged.files);
    Ok(Json(json!({
        "success": true,
        "deleted_count": purged.count,
        "errors": partial_errors(purged.count, ids.len()),
    })))
}

pub(crate) async fn move_to_project(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let body = json_object(&body)?;
    let ids = media_ids(&body, MAX_BULK_IDS)?;
    let project_id = target_project(&body)?;
    require_project_access(&state, &caller.user_id, &project_id)?;
    match state.store.move_media(&caller.user_id, &ids, &project_id)? {
        MoveOutcome::Moved(moved) => Ok(Json(json!({
            "success": true,
            "moved_count": moved,
            "project_id": project_id,
        }))),
        MoveOutcome::NotAllOwned { owned, total } => Err(media_error(
            StatusCode::FORBIDDEN,
            format!(
                "You own {owned} of {total} media items (live, not trashed); nothing was moved"
            ),
        )),
    }
}
