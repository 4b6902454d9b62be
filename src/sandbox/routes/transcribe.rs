//! POST /v1/transcribe (202, "Transcription" group, 100/min): JSON `{audio_url}` or a
//! multipart `file`, with `language`, `diarize`, `generate_srt` (default true),
//! `words_per_line` 1-18 (12) and `lines_per_subtitle` 1-4 (2) (reference M). Priced per
//! input minute rounded up, minimum one: the submit reserves what it can measure (an
//! uploaded file or one of the sandbox's own files; else one minute) and the job settles
//! the real minutes.

use axum::Extension;
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use serde_json::{Map, Value};
use tokio::io::AsyncWriteExt;

use super::audio::{Submit, TRANSCRIPTION_BASE_DURATION_MS, create, optional_bool, optional_text};
use super::generate::{bad_request, resolve_model, validate_seed};
use super::json_object;
use super::upload::{MAX_UPLOAD_BYTES, extension_for, file_too_large, multipart_error, text_field};
use crate::sandbox::audio_jobs::{AudioJob, TRANSCRIPTION_KIND};
use crate::sandbox::auth::Caller;
use crate::sandbox::files::resolve_rel_path;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::new_object_id;
use crate::sandbox::pricing::round_credits;
use crate::sandbox::sound::probe;
use crate::sandbox::state::AppState;

/// JSON bodies are small; the file comes by multipart.
const MAX_JSON_BYTES: usize = 1024 * 1024;
const POLL_INTERVAL_HINT_SECS: u64 = 8;

pub(crate) async fn transcribe(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    request: Request,
) -> ApiResult<Response> {
    let is_multipart = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("multipart/form-data"));
    let (body, uploaded_rel) = if is_multipart {
        let multipart = Multipart::from_request(request, &state)
            .await
            .map_err(|e| {
                bad_request("INVALID_UPLOAD", format!("Invalid multipart payload: {e}"))
            })?;
        read_multipart(&state, multipart).await?
    } else {
        let bytes = axum::body::to_bytes(request.into_body(), MAX_JSON_BYTES)
            .await
            .map_err(|e| {
                bad_request(
                    "INVALID_PARAMETER",
                    format!("Could not read the request: {e}"),
                )
            })?;
        (json_object(&bytes)?, None)
    };
    let result = submit(state.clone(), caller, body, uploaded_rel.clone()).await;
    if result.is_err()
        && let Some(rel) = uploaded_rel
    {
        let _ = std::fs::remove_file(state.files_dir.join(rel));
    }
    result
}

/// The form's fields as JSON values ("true"/"false" and numbers typed), and the stored file.
async fn read_multipart(
    state: &AppState,
    mut multipart: Multipart,
) -> ApiResult<(Map<String, Value>, Option<String>)> {
    let mut body = Map::new();
    let mut stored: Option<String> = None;
    while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
        let name = field.name().unwrap_or("").to_owned();
        if name == "file" && stored.is_none() {
            let filename = field.file_name().unwrap_or("audio").to_owned();
            let mime = field.content_type().unwrap_or("").to_ascii_lowercase();
            let rel = format!(
                "transcribe/{}.{}",
                new_object_id(),
                extension_for(&filename, &mime)
            );
            let path = state.files_dir.join(&rel);
            if let Some(parent) = path.parent() {
                tokio::fs::create_dir_all(parent)
                    .await
                    .map_err(|e| ApiError::internal("transcribe storage", e))?;
            }
            let mut file = tokio::fs::File::create(&path)
                .await
                .map_err(|e| ApiError::internal("transcribe storage", e))?;
            let mut size_bytes = 0u64;
            let written: ApiResult<()> = async {
                while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
                    size_bytes += chunk.len() as u64;
                    if size_bytes > MAX_UPLOAD_BYTES {
                        return Err(file_too_large());
                    }
                    file.write_all(&chunk)
                        .await
                        .map_err(|e| ApiError::internal("transcribe write", e))?;
                }
                file.flush()
                    .await
                    .map_err(|e| ApiError::internal("transcribe write", e))
            }
            .await;
            if let Err(error) = written {
                let _ = tokio::fs::remove_file(&path).await;
                return Err(error);
            }
            stored = Some(rel);
        } else if !name.is_empty() && name != "file" {
            let text = text_field(field, &name).await?;
            let value = match text.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                other => other
                    .parse::<i64>()
                    .map(Value::from)
                    .unwrap_or_else(|_| Value::String(other.to_owned())),
            };
            body.insert(name, value);
        }
    }
    Ok((body, stored))
}

fn bounded_count(
    body: &Map<String, Value>,
    field: &str,
    range: std::ops::RangeInclusive<u64>,
) -> ApiResult<Option<u32>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => match value.as_u64() {
            Some(n) if range.contains(&n) => Ok(Some(n as u32)),
            _ => Err(bad_request(
                "INVALID_PARAMETER",
                format!(
                    "{field} must be an integer from {} to {}",
                    range.start(),
                    range.end()
                ),
            )),
        },
    }
}

async fn submit(
    state: AppState,
    caller: Caller,
    body: Map<String, Value>,
    uploaded_rel: Option<String>,
) -> ApiResult<Response> {
    let audio_url = match (&uploaded_rel, body.get("audio_url")) {
        (Some(rel), _) => state.file_url(rel),
        (None, Some(Value::String(url)))
            if url.trim().starts_with("http://") || url.trim().starts_with("https://") =>
        {
            url.trim().to_owned()
        }
        (None, None | Some(Value::Null)) => {
            return Err(bad_request(
                "AUDIO_REQUIRED",
                "audio_url (or a multipart file) is required",
            ));
        }
        (None, Some(_)) => {
            return Err(bad_request(
                "INVALID_AUDIO_URL",
                "audio_url must be an http(s) URL string",
            ));
        }
    };
    // Transcription echoes "auto" like the other routed types (contract).
    let (model_echo, spec) = resolve_model(&state.catalog, body.get("model"), "stt")?;
    let spec = spec.clone();
    let job = AudioJob {
        language: optional_text(&body, "language", 35)?,
        diarize: optional_bool(&body, &["diarize"], false)?,
        generate_srt: optional_bool(&body, &["generate_srt"], true)?,
        words_per_line: Some(bounded_count(&body, "words_per_line", 1..=18)?.unwrap_or(12)),
        lines_per_subtitle: Some(bounded_count(&body, "lines_per_subtitle", 1..=4)?.unwrap_or(2)),
        ..AudioJob::default()
    };
    // What the submit can measure now: its own file; a remote URL reserves one minute.
    let own_rel = uploaded_rel.or_else(|| {
        audio_url
            .strip_prefix(&state.file_url(""))
            .map(str::to_owned)
    });
    let local = own_rel
        .and_then(|rel| resolve_rel_path(&state.files_dir, &rel))
        .filter(|p| p.is_file());
    let measured_secs = match local {
        Some(path) => tokio::task::spawn_blocking(move || {
            let extension = path
                .extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase());
            std::fs::read(&path)
                .ok()
                .and_then(|bytes| probe::duration_secs(&bytes, extension.as_deref()))
        })
        .await
        .ok()
        .flatten(),
        None => None,
    };
    let minutes = measured_secs.map_or(1.0, |secs| (secs / 60.0).ceil().max(1.0));
    let seed = validate_seed(&body, &audio_url)?;
    let submit = Submit {
        kind: TRANSCRIPTION_KIND,
        cost: round_credits(spec.credit * minutes),
        spec,
        model_echo,
        prompt: audio_url.clone(),
        job,
        seed,
        source_images: vec![audio_url],
        base_ms: TRANSCRIPTION_BASE_DURATION_MS,
        hint_secs: POLL_INTERVAL_HINT_SECS,
    };
    create(state, caller, body, submit)
}
