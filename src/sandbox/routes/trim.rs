//! POST /v1/video/trim (202) and GET /v1/video/trim/{jobId}: a frame-accurate cut, not a
//! generation (no credits, no generation tracker, no cancel). Errors use the plain
//! `{success:false, error}` form. Choices where the contract is silent are in
//! docs/SANDBOX.md ("Video edit, video-to-video and trim routes").

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use super::generate::{scaled_duration_ms, submit_answer};
use super::json_object;
use crate::sandbox::auth::Caller;
use crate::sandbox::fetch_policy::{
    SourceFetchError, check_before_lookup, internal_address_message, parse_http_url,
};
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::state::AppState;
use crate::sandbox::trim_job::{self, INITIAL_MESSAGE, TRIM_BASE_DURATION_MS};
use crate::sandbox::trim_store::{NewTrimJob, TrimJobRow};

/// Trim job ids: this prefix and 32 hex digits (never a 24-hex object id).
const TRIM_ID_PREFIX: &str = "trim_";
const SUBMITTED_MESSAGE: &str = "Trim job started";

fn plain_error(status: StatusCode, error: impl Into<String>) -> ApiError {
    ApiError::raw(status, json!({"success": false, "error": error.into()}))
}

fn bad_request(error: impl Into<String>) -> ApiError {
    plain_error(StatusCode::BAD_REQUEST, error)
}

fn new_trim_id() -> String {
    format!("{TRIM_ID_PREFIX}{}", uuid::Uuid::new_v4().simple())
}

/// `video_url`: required, an http(s) URL, not an internal address unless it is one of the
/// sandbox's own output files. A name is resolved (and every redirect checked) when the job
/// downloads, which fails the job with the same message.
fn trim_source(state: &AppState, body: &Map<String, Value>) -> ApiResult<String> {
    let text = match body.get("video_url") {
        None | Some(Value::Null) => return Err(bad_request("video_url is required")),
        Some(Value::String(text)) => text.trim(),
        Some(_) => return Err(bad_request("video_url must be a string")),
    };
    let url =
        parse_http_url(text).map_err(|_| bad_request("video_url must be a valid http(s) URL"))?;
    match check_before_lookup(state, &url) {
        Err(SourceFetchError::Internal) => Err(bad_request(internal_address_message("video_url"))),
        Err(_) => Err(bad_request("video_url must be a valid http(s) URL")),
        Ok(()) => Ok(text.to_owned()),
    }
}

/// A JSON number of seconds (a numeric string is refused), at least 0.
fn seconds(body: &Map<String, Value>, field: &str) -> ApiResult<f64> {
    match body.get(field) {
        Some(Value::Number(n)) => match n.as_f64() {
            Some(secs) if secs.is_finite() && secs >= 0.0 => Ok(secs),
            _ => Err(bad_request(format!(
                "{field} must be a number of seconds, at least 0"
            ))),
        },
        None | Some(Value::Null) => Err(bad_request(format!(
            "{field} is required and must be a number"
        ))),
        Some(_) => Err(bad_request(format!("{field} must be a number"))),
    }
}

pub(crate) async fn submit(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    let body = json_object(&body)?;
    let video_url = trim_source(&state, &body)?;
    let start_secs = seconds(&body, "start_time")?;
    let end_secs = seconds(&body, "end_time")?;
    if end_secs <= start_secs {
        return Err(bad_request("end_time must be greater than start_time"));
    }
    // project_id is accepted and ignored (contract).
    let job = NewTrimJob {
        id: new_trim_id(),
        user_id: caller.user_id.clone(),
        video_url,
        start_secs,
        end_secs,
        message: INITIAL_MESSAGE.to_owned(),
        duration_ms: scaled_duration_ms(&state, TRIM_BASE_DURATION_MS),
        updated_ms: state.clock.now_ms(),
    };
    state.store.insert_trim_job(&job)?;
    tracing::info!(trim_job_id = %job.id, start_secs, end_secs, "trim submitted");
    trim_job::spawn(state.clone(), job.id.clone());
    let answer = json!({
        "success": true,
        "jobId": job.id,
        "generationId": job.id,
        "status": "processing",
        "message": SUBMITTED_MESSAGE,
        "pollingUrl": format!("/video-editor/trim/{}", job.id),
    });
    // The dropped-answer fault, like the generation routes: the job exists, the answer is lost.
    Ok(submit_answer(&state, &job.id, StatusCode::ACCEPTED, answer))
}

pub(crate) async fn status(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(job_id): Path<String>,
) -> ApiResult<Json<Value>> {
    let job = match state.store.trim_job(&job_id)? {
        Some(job) => job,
        None => {
            return Err(plain_error(StatusCode::NOT_FOUND, "Trim job not found"));
        }
    };
    if job.user_id != caller.user_id {
        return Err(plain_error(
            StatusCode::FORBIDDEN,
            "You do not have access to this trim job",
        ));
    }
    Ok(Json(trim_body(&state, &job)))
}

fn trim_body(state: &AppState, job: &TrimJobRow) -> Value {
    let mut body = json!({
        "success": true,
        "jobId": job.id,
        "generationId": job.id,
        "status": job.status,
        "progress": job.progress.round().clamp(0.0, 100.0) as u64,
        "message": job.message,
        "error": if job.status == "failed" { json!(job.error) } else { Value::Null },
        "updatedAt": job.updated_ms,
    });
    if job.status == "completed"
        && let Some(rel_path) = &job.rel_path
    {
        let url = state.file_url(rel_path);
        for field in ["url", "videoUrl", "fileUrl", "publicUrl"] {
            body[field] = json!(url);
        }
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_ids_are_prefixed_and_not_object_ids() {
        let id = new_trim_id();
        assert!(id.starts_with(TRIM_ID_PREFIX));
        assert!(!crate::sandbox::ids::is_object_id(&id));
    }
}
