//! Background job worker: progress over time, then render and complete (or fail).
//! Progress and elapsed time live in SQLite, so a restarted sandbox resumes where it stopped.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::fetch::{decode_image, fetch_source_bytes};
use super::files::{write_jpeg, write_png};
use super::ids::new_object_id;
use super::look::Look;
use super::media_store::NewMedia;
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
    /// One thumbnail per output (the media library's items); older results lack it.
    #[serde(default)]
    pub thumbnail_paths: Vec<String>,
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
            let media = generation_media(&state, &row, &result);
            match state
                .store
                .complete_generation(&id, &json, row.credits_reserved, &media)
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
    // Grade and cinematic presets decided at submit (unreadable JSON renders ungraded).
    let look: Look = row
        .look_json
        .as_deref()
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default();
    let rel_dir = format!("generations/{}", row.id);
    let mut paths = Vec::new();
    let mut thumbnail_paths = Vec::new();
    for index in 0..row.num_images.max(1) {
        let spec = RenderSpec {
            prompt: &row.prompt,
            seed: row.seed,
            index,
            width,
            height,
        };
        let mut image = match &source {
            Some(source) => render_edit(&spec, source),
            None => render_art(&spec),
        };
        look.apply(&mut image);
        let rel = format!("{rel_dir}/{index}.png");
        write_png(&files_dir.join(&rel), &image).map_err(|e| internal_failure(row, &e))?;
        let thumb_rel = format!("{rel_dir}/{index}_thumb.jpg");
        write_jpeg(&files_dir.join(&thumb_rel), &thumbnail(&image))
            .map_err(|e| internal_failure(row, &e))?;
        thumbnail_paths.push(thumb_rel);
        paths.push(rel);
    }
    Ok(StoredResult {
        paths,
        thumbnail_path: thumbnail_paths.first().cloned(),
        thumbnail_paths,
        created_at: now_iso(),
        width,
        height,
    })
}

/// Longest library item name taken from the prompt.
const MEDIA_NAME_MAX_CHARS: usize = 80;

/// One library item per output URL of a completed generation.
fn generation_media(state: &AppState, row: &GenerationRow, result: &StoredResult) -> Vec<NewMedia> {
    let request: Value = serde_json::from_str(&row.request_json).unwrap_or(Value::Null);
    let request_str = |field: &str| {
        request
            .get(field)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let (category, generation_type, catalog_type) = if row.kind == "image_edit" {
        ("edited-image", "image_editing", "image_editing")
    } else {
        ("generated", "text_to_img", "text_to_img")
    };
    let model_name = state
        .catalog
        .find(&row.model, catalog_type)
        .map(|spec| spec.name.clone());
    let now_ms = state.clock.now_ms();
    let created_at = super::clock::Clock::iso_at(now_ms);
    let name: String = row.prompt.chars().take(MEDIA_NAME_MAX_CHARS).collect();
    result
        .paths
        .iter()
        .enumerate()
        .map(|(index, rel_path)| {
            let thumb = result.thumbnail_paths.get(index).cloned().or_else(|| {
                (index == 0)
                    .then(|| result.thumbnail_path.clone())
                    .flatten()
            });
            let size_bytes = std::fs::metadata(state.files_dir.join(rel_path))
                .ok()
                .map(|m| m.len());
            let metadata = json!({
                "category": category,
                "source": "api",
                "prompt": row.prompt,
                "promptUsed": row.prompt_used,
                "model": row.model,
                "modelName": model_name,
                "provider": row.provider,
                "aspectRatio": row.aspect_ratio,
                "resolution": row.resolution,
                "quality": row.quality,
                "seed": row.seed,
                "numImages": row.num_images,
                "outputIndex": index,
                "generationId": row.id,
                "width": result.width,
                "height": result.height,
                "referenceMedia": row.source_images,
                "moodboardId": request_str("moodboard_id"),
                "presetId": request_str("preset_id"),
                "visualDnaNames": [],
            });
            NewMedia {
                id: new_object_id(),
                user_id: row.user_id.clone(),
                project_id: row.project_id.clone(),
                session_id: Some(row.session_id.clone()),
                generation_id: Some(row.id.clone()),
                output_index: index as u32,
                source_type: "generated".to_owned(),
                category: category.to_owned(),
                media_type: "image".to_owned(),
                generation_type: Some(generation_type.to_owned()),
                name: name.clone(),
                filename: format!("{}_{index}.png", row.id),
                rel_path: rel_path.clone(),
                thumb_rel_path: thumb,
                owns_files: true,
                size_bytes,
                prompt: Some(row.prompt.clone()),
                width: Some(result.width),
                height: Some(result.height),
                credits_used: Some(row.credits_reserved),
                generation_duration_secs: Some((row.duration_ms as f64 / 100.0).round() / 10.0),
                source_tag: Some("api".to_owned()),
                preset_id: request_str("preset_id"),
                moodboard_id: request_str("moodboard_id"),
                metadata,
                created_at: created_at.clone(),
                created_ms: now_ms,
                ..NewMedia::default()
            }
        })
        .collect()
}
