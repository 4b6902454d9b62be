//! The coding-assistant API under `/api/kolbo/v1` (contract document 3): health, models,
//! balance, file uploads and chat completions, with its own authentication (X-API-Key or
//! Bearer), error envelope `{error: {type, message}}` and rate limits. It is mounted beside
//! `/api`, so none of the `/api/v1` layers (authentication, error shapes, fault injection)
//! apply to it; its own outermost layer (`envelope.rs`) puts every refusal, axum's included,
//! in the envelope. Uploaded files are served under `/files/code/` until they expire.

mod attachments;
mod auth;
mod balance;
mod billing;
mod body;
mod completions;
mod envelope;
mod error;
mod files;
mod limits;
mod models;
mod request;
mod settlement;
mod stream;
mod tokens;

use axum::extract::DefaultBodyLimit;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

use super::rate_limit::Group;
use super::state::AppState;
use error::CodeError;

/// Where the API is mounted (`{base_url}/api/kolbo/v1`).
const PREFIX: &str = "/api/kolbo/v1";

/// Largest request body under the prefix: chat completions read theirs with `body.rs`,
/// any extractor-read body is held to it by `DefaultBodyLimit`; `/files` streams its own
/// 500 MB cap. axum's default, named so the 413 message and docs/SANDBOX.md can say it.
pub(crate) const BODY_LIMIT_BYTES: usize = 2 * 1024 * 1024;

/// The API's routes and the file route, ready to merge into the sandbox's router. Also
/// creates the files table and releases the reservations of completions a previous run
/// left unfinished.
pub(crate) fn router(state: &AppState) -> Router<AppState> {
    if let Err(error) = files::store::create_table(&state.store) {
        tracing::error!(%error, "could not create the coding-assistant files table");
    }
    match billing::release_abandoned(&state.store) {
        Ok(0) => {}
        Ok(released) => tracing::info!(
            released,
            "released reservations of unfinished chat completions"
        ),
        Err(error) => tracing::error!(%error, "could not release abandoned chat reservations"),
    }
    let limit = |group: Group| from_fn_with_state((state.clone(), group), limits::limit);
    let keyed = Router::new()
        .route("/balance", get(balance::get))
        .route(
            "/files",
            // The handler streams the file to disk; the cap bounds the whole request.
            files::request_cap().apply(post(files::upload).route_layer(limit(Group::CodeUpload))),
        )
        .route(
            "/chat/completions",
            post(completions::create).route_layer(limit(Group::CodeChat)),
        )
        .route_layer(from_fn_with_state(state.clone(), auth::require_key));
    let api = Router::new()
        .route("/", get(health))
        .route("/models", get(models::list))
        .merge(keyed)
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(BODY_LIMIT_BYTES));
    Router::new()
        .route(&format!("{PREFIX}/"), get(health))
        .nest(PREFIX, api)
        // Outermost under the prefix, so it also sees the 405s of the method routers, the
        // rejections of extractors and the other layers' answers.
        .layer(from_fn(envelope::envelope_refusals))
        // Added after the layer: file links are not part of the API.
        .route("/files/code/{name}", get(files::serve))
}

async fn health() -> Json<Value> {
    Json(json!({
        "status": "ok",
        "service": "kolbo-code",
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

async fn not_found() -> CodeError {
    CodeError::not_found("Route not found")
}
