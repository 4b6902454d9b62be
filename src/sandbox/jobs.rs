//! Background job worker: progress over time, then render and complete (or fail).
//! Progress and elapsed time live in SQLite, so a restarted sandbox resumes where it stopped.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::fetch::{decode_image, fetch_source_bytes};
use super::files::{write_jpeg, write_png};
use super::render::{RenderSpec, output_dimensions, render_art, render_edit, thumbnail};
use super::state::AppState;
use super::store::{GenerationRow, now_iso};

/// Progress shown while waiting; the last stretch is the render itself.
const WAITING_PROGRESS_MAX: f64 = 95.0;
/// Injected failures strike about half way through.
const FAILURE_POINT: f64 = 0.5;

/// What a completed generation stores; URLs are built at read time from the current port.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StoredResult {
    pub paths: Vec<String>,
    pub thumbnail_path: Option<String>,
    pub created_at: String,
    pub width: u32,
    pub height: u32,
}

pub(crate) fn spawn(state: AppState, generation_id: String) {
    tokio::spawn(async move { run(state, generation_id).await });
}

/// Resumes every job left `processing` by an earlier run.
pub(crate) fn resume_all(state: &AppState) -> Result<usize, rusqlite::Error> {
    let pending = state.store.processing_generations()?;
    for row in &pending {
        tracing::info!(generation_id = %row.id, progress = row.progress, "resuming generation");
        spawn(state.clone(), row.id.clone());
    }
    Ok(pending.len())
}

async fn run(state: AppState, id: String) {
    let row = match state.store.generation(&id) {
        Ok(Some(row)) if row.state == "processing" => row,
        Ok(_) => return,
        Err(error) => {
            tracing::error!(generation_id = %id, %error, "could not load generation");
            return;
        }
    };
    let planned_failure: Option<Value> = row
        .planned_failure
        .as_deref()
        .and_then(|f| serde_json::from_str(f).ok());
    let duration_ms = row.duration_ms.max(1);
    let stop_at_ms = if planned_failure.is_some() {
        (duration_ms as f64 * FAILURE_POINT) as u64
    } else {
        duration_ms
    };
    let tick_ms = (duration_ms / 25).clamp(40, 500);
    let mut elapsed_ms = row.elapsed_ms;
    while elapsed_ms < stop_at_ms {
        tokio::time::sleep(Duration::from_millis(tick_ms)).await;
        elapsed_ms = (elapsed_ms + tick_ms).min(stop_at_ms);
        let progress = (elapsed_ms as f64 / duration_ms as f64 * WAITING_PROGRESS_MAX).floor();
        match state.store.update_progress(&id, progress, elapsed_ms) {
            Ok(true) => {}
            Ok(false) => return, // cancelled meanwhile
            Err(error) => {
                tracing::error!(generation_id = %id, %error, "could not record progress");
                return;
            }
        }
    }
    if let Some(failure) = planned_failure {
        fail(&state, &id, failure);
        return;
    }
    match produce(&state, &row).await {
        Ok(result) => {
            let json = match serde_json::to_string(&result) {
                Ok(json) => json,
                Err(error) => {
                    fail(&state, &id, internal_failure(&row, &error.to_string()));
                    return;
                }
            };
            match state
                .store
                .complete_generation(&id, &json, row.credits_reserved)
            {
                Ok(true) => tracing::info!(generation_id = %id, "generation completed"),
                Ok(false) => {
                    // Cancelled while rendering: the files belong to nothing.
                    let _ = std::fs::remove_dir_all(state.files_dir.join("generations").join(&id));
                }
                Err(error) => {
                    tracing::error!(generation_id = %id, %error, "could not complete generation")
                }
            }
        }
        Err(failure) => fail(&state, &id, failure),
    }
}

fn fail(state: &AppState, id: &str, failure: Value) {
    let message = failure
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("Generation failed")
        .to_owned();
    match state
        .store
        .fail_generation(id, &message, &failure.to_string())
    {
        Ok(_) => tracing::info!(generation_id = %id, "generation failed: {message}"),
        Err(error) => tracing::error!(generation_id = %id, %error, "could not record failure"),
    }
}

fn internal_failure(row: &GenerationRow, detail: &str) -> Value {
    json!({
        "message": format!("The sandbox could not produce the output: {detail}"),
        "category": "internal_error",
        "code": "RENDER_FAILED",
        "retryable": Value::Null,
        "severity": "error",
        "provider": row.provider,
    })
}

/// Fetches the edit source (if any), renders every image on the blocking pool and writes
/// PNGs plus a JPEG thumbnail of the first.
async fn produce(state: &AppState, row: &GenerationRow) -> Result<StoredResult, Value> {
    let source_bytes = match row.source_images.first() {
        Some(url) => Some(fetch_source_bytes(state, url).await.map_err(|error| {
            json!({
                "message": format!("Could not use source image {url}: {error}"),
                "category": "invalid_input",
                "code": "SOURCE_IMAGE_UNAVAILABLE",
                "retryable": false,
                "severity": "error",
                "provider": row.provider,
            })
        })?),
        None => None,
    };
    let files_dir = state.files_dir.clone();
    let row = row.clone();
    let result = tokio::task::spawn_blocking(move || {
        render_and_write(&files_dir, &row, source_bytes.as_deref())
    })
    .await;
    match result {
        Ok(inner) => inner,
        Err(join_error) => Err(json!({
            "message": format!("The sandbox renderer stopped: {join_error}"),
            "category": "internal_error",
            "code": "RENDER_FAILED",
            "retryable": true,
            "severity": "error",
            "provider": "sandbox",
        })),
    }
}

fn render_and_write(
    files_dir: &std::path::Path,
    row: &GenerationRow,
    source_bytes: Option<&[u8]>,
) -> Result<StoredResult, Value> {
    let source = match source_bytes {
        Some(bytes) => Some(decode_image(bytes).map_err(|error| {
            json!({
                "message": format!("Could not use source image: {error}"),
                "category": "invalid_input",
                "code": "SOURCE_IMAGE_UNREADABLE",
                "retryable": false,
                "severity": "error",
                "provider": row.provider,
            })
        })?),
        None => None,
    };
    let (width, height) = output_dimensions(&row.aspect_ratio, &row.resolution);
    let rel_dir = format!("generations/{}", row.id);
    let mut paths = Vec::new();
    let mut thumbnail_path = None;
    for index in 0..row.num_images.max(1) {
        let spec = RenderSpec {
            prompt: &row.prompt,
            seed: row.seed,
            index,
            width,
            height,
        };
        let image = match &source {
            Some(source) => render_edit(&spec, source),
            None => render_art(&spec),
        };
        let rel = format!("{rel_dir}/{index}.png");
        write_png(&files_dir.join(&rel), &image).map_err(|e| internal_failure(row, &e))?;
        if index == 0 {
            let thumb_rel = format!("{rel_dir}/0_thumb.jpg");
            write_jpeg(&files_dir.join(&thumb_rel), &thumbnail(&image))
                .map_err(|e| internal_failure(row, &e))?;
            thumbnail_path = Some(thumb_rel);
        }
        paths.push(rel);
    }
    Ok(StoredResult {
        paths,
        thumbnail_path,
        created_at: now_iso(),
        width,
        height,
    })
}
