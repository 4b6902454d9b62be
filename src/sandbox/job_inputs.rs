//! What the render steps of the sandbox's catalog jobs share (video edits, video-to-video,
//! elements, first–last frame, lip sync): the failure a job stores, the request it was
//! submitted with, downloading an input URL, and rendering on the blocking pool.

use serde_json::{Map, Value, json};

use super::fetch_policy::{self, SOURCE_LIMITS, SourceFetchError, internal_address_message};
use super::state::AppState;
use super::store::GenerationRow;

/// The failure object a job stores (status answers show it as `error`).
pub(crate) fn job_failure(
    row: &GenerationRow,
    message: String,
    code: &str,
    category: &str,
) -> Value {
    json!({
        "message": message,
        "category": category,
        "code": code,
        "retryable": false,
        "severity": "error",
        "provider": row.provider,
    })
}

/// The sandbox itself could not render (not the caller's input).
pub(crate) fn render_failed(row: &GenerationRow, detail: impl std::fmt::Display) -> Value {
    job_failure(
        row,
        format!("The sandbox could not produce the output: {detail}"),
        "RENDER_FAILED",
        "internal_error",
    )
}

/// The request body the job was submitted with (the row keeps it; a restarted sandbox
/// resumes from it). Unreadable counts as empty.
pub(crate) fn stored_request(row: &GenerationRow) -> Map<String, Value> {
    match serde_json::from_str(&row.request_json) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// Downloads one input. `what` names it in the refusal ("source video"), `field` is the
/// request field it came from (named when the address is internal).
pub(crate) async fn fetch_input(
    state: &AppState,
    row: &GenerationRow,
    (what, field): (&str, &str),
    url: &str,
) -> Result<Vec<u8>, Value> {
    fetch_policy::fetch(state, url, SOURCE_LIMITS)
        .await
        .map_err(|error| {
            let message = match error {
                SourceFetchError::Internal => internal_address_message(field),
                other => format!("Could not use {what} {url}: {other}"),
            };
            job_failure(row, message, "SOURCE_UNAVAILABLE", "invalid_input")
        })
}

/// Runs a render on the blocking pool; a render that panicked fails the job.
pub(crate) async fn render_blocking<T: Send + 'static>(
    row: &GenerationRow,
    work: impl FnOnce() -> Result<T, Value> + Send + 'static,
) -> Result<T, Value> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(join_error) => Err(render_failed(row, join_error)),
    }
}
