//! POST /v1/media/upload-ticket mints a single-use, short-lived token; POST
//! /upload-tickets/{token} (or /upload-tickets?token=...) accepts the same multipart as
//! /v1/media/upload without an API key.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Multipart, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{Value, json};

use super::json_object;
use super::upload::{MAX_UPLOAD_BYTES, receive};
use crate::sandbox::auth::Caller;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::is_object_id;
use crate::sandbox::rate_limit::{Group, limited_response, with_limit_headers};
use crate::sandbox::state::AppState;

pub(crate) const TICKET_LIFETIME_SECS: i64 = 600;

pub(crate) async fn mint(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let body = json_object(&body)?;
    // Optional: the project every upload through this ticket lands in.
    let project_id = match body.get("project_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) if id.trim().is_empty() => None,
        Some(Value::String(id)) if is_object_id(id.trim()) => {
            match state.store.find_project(&caller.user_id, id.trim())? {
                Some(project) => Some(project.id),
                None => {
                    return Err(ApiError::sdk(
                        StatusCode::NOT_FOUND,
                        "NOT_FOUND",
                        "Project not found",
                    ));
                }
            }
        }
        Some(_) => {
            return Err(ApiError::raw(
                StatusCode::BAD_REQUEST,
                json!({"status": false, "message": "Invalid project ID format", "code": "SDK_PROJECT_INVALID_ID"}),
            ));
        }
    };
    let token = format!("upt_{}", uuid::Uuid::new_v4().simple());
    let expires_ms = state
        .clock
        .now_ms()
        .saturating_add(TICKET_LIFETIME_SECS * 1000);
    state
        .store
        .insert_ticket(&token, &caller.user_id, project_id.as_deref(), expires_ms)?;
    Ok(Json(json!({
        "success": true,
        "token": token,
        "upload_url": format!("{}/upload-tickets/{token}", state.origin),
        "expires_in": TICKET_LIFETIME_SECS,
        "max_file_mb": MAX_UPLOAD_BYTES / (1024 * 1024),
    })))
}

fn invalid_ticket() -> Response {
    ApiError::sdk(
        StatusCode::UNAUTHORIZED,
        "INVALID_UPLOAD_TICKET",
        "Upload ticket is invalid, expired or already used",
    )
    .into_response()
}

async fn consume(state: AppState, token: &str, multipart: Multipart) -> Response {
    let now_ms = state.clock.now_ms();
    let ticket = match state.store.peek_ticket(token, now_ms) {
        Ok(Some(ticket)) => ticket,
        Ok(None) => return invalid_ticket(),
        Err(error) => return ApiError::from(error).into_response(),
    };
    // Same per-user bucket as /media/upload; a limited request does not burn the ticket.
    let decision = state.limiter.check(
        Group::OtherGeneration,
        &ticket.user_id,
        state.clock.now_ms(),
    );
    if !decision.allowed {
        return limited_response(Group::OtherGeneration, decision);
    }
    match state.store.consume_ticket(token, now_ms) {
        Ok(true) => {}
        Ok(false) => return invalid_ticket(),
        Err(error) => return ApiError::from(error).into_response(),
    }
    let response = receive(state, ticket.user_id, ticket.project_id, multipart)
        .await
        .into_response();
    with_limit_headers(response, decision)
}

/// POST /upload-tickets/{token}
pub(crate) async fn upload_with_path_token(
    State(state): State<AppState>,
    Path(token): Path<String>,
    multipart: Multipart,
) -> Response {
    consume(state, &token, multipart).await
}

/// POST /upload-tickets?token=...
pub(crate) async fn upload_with_query_token(
    State(state): State<AppState>,
    Query(params): Query<HashMap<String, String>>,
    multipart: Multipart,
) -> Response {
    match params.get("token") {
        Some(token) => consume(state, token, multipart).await,
        None => invalid_ticket(),
    }
}
