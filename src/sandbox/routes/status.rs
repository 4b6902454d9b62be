//! GET /v1/generate/{id}/status and POST /v1/generate/{id}/cancel.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Value, json};

use crate::sandbox::audio_jobs::{AudioResult, MUSIC_KIND, SPEECH_KIND, TRANSCRIPTION_KIND};
use crate::sandbox::auth::Caller;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::is_object_id;
use crate::sandbox::jobs::StoredResult;
use crate::sandbox::state::AppState;
use crate::sandbox::store::{CancelOutcome, GenerationRow};

fn not_found() -> ApiError {
    ApiError::sdk(StatusCode::NOT_FOUND, "NOT_FOUND", "Generation not found")
}

fn load(state: &AppState, caller: &Caller, id: &str) -> ApiResult<GenerationRow> {
    if !is_object_id(id) {
        return Err(ApiError::invalid_generation_id());
    }
    match state.store.generation(id)? {
        Some(row) if row.user_id == caller.user_id => Ok(row),
        _ => Err(not_found()),
    }
}

pub(crate) async fn status(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    // A Creative Director batch id is delegated to the batch status (same body).
    if is_object_id(&id)
        && let Some(batch) = state.store.batch(&id)?
    {
        if batch.user_id != caller.user_id {
            return Err(not_found());
        }
        return Ok(Json(super::video::batch_status(&state, &batch)?));
    }
    let row = load(&state, &caller, &id)?;
    let mut body = json!({
        "success": true,
        "generation_id": row.id,
        "type": row.kind,
        "state": row.state,
        "progress": row.progress.round().clamp(0.0, 100.0) as u64,
    });
    match row.state.as_str() {
        "completed" => {
            let stored: StoredResult = row
                .result_json
                .as_deref()
                .and_then(|json| serde_json::from_str(json).ok())
                .ok_or_else(|| {
                    ApiError::internal("status", "completed generation has no result")
                })?;
            let urls: Vec<String> = stored.paths.iter().map(|p| state.file_url(p)).collect();
            let credits_used = row.credits_used.unwrap_or(row.credits_reserved);
            body["result"] = json!({
                "urls": &urls,
                "thumbnail_url": stored.thumbnail_path.as_deref().map(|p| state.file_url(p)),
                "model": row.model,
                "prompt_used": row.prompt_used,
                "created_at": stored.created_at,
                "aspect_ratio": row.aspect_ratio,
            });
            let mut breakdown = json!({
                "model": row.model,
                "amount": credits_used,
                "base": row.credit_base,
                "final": credits_used,
            });
            if let Some(duration_secs) = stored.duration_secs {
                body["result"]["duration"] = json!(duration_secs);
            }
            if let Some(audio) = &stored.audio {
                audio_fields(
                    &state,
                    &mut body["result"],
                    &mut breakdown,
                    &row,
                    &stored,
                    audio,
                );
            } else if let Some(duration_secs) = stored.duration_secs {
                // Video is priced per second of the (mapped) requested length; edits and
                // video-to-video by the seconds settled from the real source.
                breakdown["duration_multiplier"] = json!(
                    stored
                        .billed_secs
                        .or(row.video_duration_secs)
                        .unwrap_or(duration_secs)
                );
            }
            // Edits other than reframe (and video-to-video without one) have no ratio.
            if row.aspect_ratio.is_empty()
                && let Some(result) = body["result"].as_object_mut()
            {
                result.remove("aspect_ratio");
            }
            // Creative chat: the Markdown answer.
            if let Some(content) = &stored.content {
                body["result"]["content"] = json!(content);
            }
            if row.kind == crate::sandbox::model3d::job::THREE_D_KIND {
                crate::sandbox::model3d::job::result_fields(
                    &state,
                    &row,
                    &stored.paths,
                    &mut body["result"],
                );
            }
            if let Some(edit_type) = &stored.edit_type {
                body["result"]["edit_type"] = json!(edit_type);
                body["result"]["download_url"] = json!(urls.first());
            }
            body["credits_used"] = json!(credits_used);
            body["credits_breakdown"] = json!([breakdown]);
        }
        "failed" => {
            let failure: Value = row
                .failure_json
                .as_deref()
                .and_then(|json| serde_json::from_str(json).ok())
                .unwrap_or(Value::Null);
            body["error"] = json!(
                row.error
                    .clone()
                    .unwrap_or_else(|| "Generation failed".to_owned())
            );
            body["failure"] = failure;
        }
        _ => {}
    }
    Ok(Json(body))
}

/// A sound job's result fields: music `title`, `lyrics` and `variations`; speech `voice`
/// and `text`; transcription `text` and its file URLs.
fn audio_fields(
    state: &AppState,
    result: &mut Value,
    breakdown: &mut Value,
    row: &GenerationRow,
    stored: &StoredResult,
    audio: &AudioResult,
) {
    let url = |path: &Option<String>| path.as_deref().map(|p| state.file_url(p));
    if let Some(first) = audio.tracks.first() {
        if first.title.is_some() {
            result["title"] = json!(first.title);
        }
        if first.lyrics.is_some() {
            result["lyrics"] = json!(first.lyrics);
        }
    }
    if row.kind == MUSIC_KIND {
        result["variations"] = json!(
            audio
                .tracks
                .iter()
                .map(|t| json!({
                    "url": state.file_url(&t.path),
                    "title": t.title,
                    "lyrics": t.lyrics,
                    "duration": t.duration_secs,
                }))
                .collect::<Vec<_>>()
        );
        if audio.style.is_some() {
            result["style"] = json!(audio.style);
        }
    }
    if audio.voice.is_some() {
        result["voice"] = json!(audio.voice);
    }
    if audio.text.is_some() {
        result["text"] = json!(audio.text);
    }
    if audio.language.is_some() {
        result["language"] = json!(audio.language);
    }
    if row.kind == TRANSCRIPTION_KIND {
        result["srt_url"] = json!(url(&audio.srt_path));
        result["txt_url"] = json!(url(&audio.txt_path));
        result["word_by_word_srt_url"] = json!(url(&audio.word_srt_path));
        if let Some(billed_secs) = stored.billed_secs {
            breakdown["minutes"] = json!((billed_secs / 60.0).round());
        }
    }
    if row.kind == SPEECH_KIND {
        breakdown["characters"] = json!(row.prompt.chars().count());
    }
}

pub(crate) async fn cancel(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    if !is_object_id(&id) {
        return Err(ApiError::invalid_generation_id());
    }
    if let Some(batch) = state.store.batch(&id)?
        && batch.user_id == caller.user_id
    {
        return cancel_batch(&state, &caller, &id);
    }
    match state.store.cancel_generation(&caller.user_id, &id)? {
        CancelOutcome::Cancelled => {
            tracing::info!(generation_id = %id, "generation cancelled");
            Ok(Json(
                json!({"success": true, "generation_id": id, "state": "cancelled"}),
            ))
        }
        CancelOutcome::Terminal => Err(ApiError::sdk(
            StatusCode::CONFLICT,
            "CANNOT_CANCEL",
            "Generation is already finished and cannot be cancelled",
        )),
        CancelOutcome::NotFound => Err(not_found()),
    }
}

/// Cancels every scene not yet finished (each releases its own reservation); 409 when none
/// was left to cancel.
fn cancel_batch(state: &AppState, caller: &Caller, id: &str) -> ApiResult<Json<Value>> {
    let mut cancelled = 0;
    for scene in state.store.batch_scenes(id)? {
        if matches!(scene.state.as_str(), "pending" | "processing")
            && state.store.cancel_generation(&caller.user_id, &scene.id)?
                == CancelOutcome::Cancelled
        {
            cancelled += 1;
        }
    }
    if cancelled == 0 {
        return Err(ApiError::sdk(
            StatusCode::CONFLICT,
            "CANNOT_CANCEL",
            "Generation is already finished and cannot be cancelled",
        ));
    }
    tracing::info!(batch_id = %id, scenes = cancelled, "creative director batch cancelled");
    Ok(Json(
        json!({"success": true, "generation_id": id, "state": "cancelled"}),
    ))
}
