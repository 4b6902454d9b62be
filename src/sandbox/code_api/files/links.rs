//! The served side of uploads: `/files/code/<name>` until `expires_at` (410 after, and the
//! bytes deleted), and recognising our own file links in chat messages.

use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::super::error::{CodeError, CodeResult};
use super::FOLDER;
use super::store::{self, CodeFile};
use crate::sandbox::state::{AppState, Shared};

/// Deletes the bytes of expired uploads (their rows stay so links answer 410).
pub(super) async fn purge_expired(state: &Shared, now_secs: i64) {
    let expired = match store::expired_unpurged(&state.store, now_secs) {
        Ok(expired) => expired,
        Err(error) => {
            tracing::warn!(%error, "could not list expired coding-assistant files");
            return;
        }
    };
    for file in expired {
        let _ = tokio::fs::remove_file(state.files_dir.join(&file.rel_path)).await;
        if let Err(error) = store::mark_purged(&state.store, &file.id) {
            tracing::warn!(%error, "could not mark a coding-assistant file purged");
        }
    }
}

/// GET /files/code/{name}: the file until `expires_at`, then 410; unknown names 404.
pub(crate) async fn serve(
    State(state): State<AppState>,
    UrlPath(name): UrlPath<String>,
) -> Response {
    let rel_path = format!("{FOLDER}/{name}");
    let file = match store::by_rel_path(&state.store, &rel_path) {
        Ok(Some(file)) => file,
        Ok(None) => return CodeError::not_found("File not found").into_response(),
        Err(error) => return CodeError::from(error).into_response(),
    };
    let now_secs = state.clock.now_ms().div_euclid(1000);
    if now_secs >= file.expires_secs {
        purge_expired(&state, now_secs).await;
        return CodeError::new(
            StatusCode::GONE,
            "not_found",
            "This file link has expired (files are kept for 24 hours)",
        )
        .into_response();
    }
    crate::sandbox::files::serve(State(state), UrlPath(rel_path)).await
}

/// Whether `url` points at one of this sandbox's coding-assistant files, and if so the
/// stored row (live or expired) — chat reads those from disk.
/// Links from an earlier run (another port) and `localhost` count too.
pub(crate) fn own_file(state: &Shared, url: &str) -> CodeResult<Option<CodeFile>> {
    let Some(after_host) = url
        .strip_prefix("http://127.0.0.1:")
        .or_else(|| url.strip_prefix("http://localhost:"))
    else {
        return Ok(None);
    };
    let Some((_port, path)) = after_host.split_once('/') else {
        return Ok(None);
    };
    let Some(rel_path) = path.strip_prefix("files/") else {
        return Ok(None);
    };
    Ok(store::by_rel_path(&state.store, rel_path)?)
}
