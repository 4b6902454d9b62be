//! Background job worker: progress over time, then render and complete (or fail).
//! Progress and elapsed time live in SQLite, so a restarted sandbox resumes where it stopped.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::fetch::decode_image;
use super::fetch_policy::{self, SOURCE_LIMITS, SourceFetchError, internal_address_message};
use super::files::{write_bytes, write_jpeg, write_png};
use super::ids::new_object_id;
use super::look::Look;
use super::media_store::NewMedia;
use super::render::{RenderSpec, output_dimensions, render_art, render_edit, thumbnail};
use super::state::AppState;
use super::store::{GenerationRow, now_iso};
use super::video::{VideoRenderSpec, render_video};

/// Sandbox videos are 24 frames per second.
const VIDEO_FPS: u32 = 24;

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
    /// Videos: the encoded length (frames / fps) and frame count.
    #[serde(default)]
    pub duration_secs: Option<f64>,
    #[serde(default)]
    pub frame_count: Option<u32>,
    /// Video edits: the internal `edit_type` name reported on completion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_type: Option<String>,
    /// Jobs whose cost is settled from the real source (edits, video-to-video): the credits
    /// charged on completion instead of the reservation, and the seconds billed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credits_used: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billed_secs: Option<f64>,
    /// Creative chat: the Markdown answer (`result.content`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Sound jobs: tracks, titles, lyrics, voice, transcript files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio: Option<super::audio_jobs::AudioResult>,
}

impl StoredResult {
    /// What the job is charged: the settled amount, else the reservation.
    pub(crate) fn charged(&self, row: &GenerationRow) -> f64 {
        self.credits_used.unwrap_or(row.credits_reserved)
    }
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
    let trims = super::trim_job::resume_all(state)?;
    let batches = state.store.unfinished_batches()?;
    for batch_id in &batches {
        tracing::info!(batch_id = %batch_id, "resuming creative director batch");
        spawn_batch(state.clone(), batch_id.clone());
    }
    Ok(pending.len() + batches.len() + trims)
}

pub(crate) fn spawn_batch(state: AppState, batch_id: String) {
    tokio::spawn(async move { run_batch(state, batch_id).await });
}

/// Runs a Creative Director batch's scenes one after another, in scene order. A failing
/// scene cancels the scenes not yet started (`Store::fail_generation`), so the loop ends.
async fn run_batch(state: AppState, batch_id: String) {
    let scene_ids: Vec<String> = match state.store.batch_scenes(&batch_id) {
        Ok(scenes) => scenes.into_iter().map(|s| s.id).collect(),
        Err(error) => {
            tracing::error!(batch_id = %batch_id, %error, "could not load batch scenes");
            return;
        }
    };
    for id in scene_ids {
        let current = match state.store.generation(&id) {
            Ok(Some(row)) => row.state,
            Ok(None) => continue,
            Err(error) => {
                tracing::error!(generation_id = %id, %error, "could not load scene");
                return;
            }
        };
        match current.as_str() {
            "pending" => match state.store.start_scene(&id) {
                Ok(true) => run(state.clone(), id.clone()).await,
                Ok(false) => {}
                Err(error) => {
                    tracing::error!(generation_id = %id, %error, "could not start scene");
                    return;
                }
            },
            "processing" => run(state.clone(), id.clone()).await,
            _ => {}
        }
    }
}

fn is_video(row: &GenerationRow) -> bool {
    row.video_duration_secs.is_some()
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
    // Videos render while the simulated time runs (the job ends when both are done); the
    // render starts after the first tick so a job cancelled right away costs no CPU.
    let mut video_render: Option<RenderTask> = None;
    let will_fail = planned_failure.is_some();
    let start_video = |render: &mut Option<RenderTask>| {
        if render.is_none() && is_video(&row) && !will_fail {
            let (state, row) = (state.clone(), row.clone());
            *render = Some(tokio::spawn(async move { produce(&state, &row).await }));
        }
    };
    while elapsed_ms < stop_at_ms {
        tokio::time::sleep(Duration::from_millis(tick_ms)).await;
        elapsed_ms = (elapsed_ms + tick_ms).min(stop_at_ms);
        let progress = (elapsed_ms as f64 / duration_ms as f64 * WAITING_PROGRESS_MAX).floor();
        match state.store.update_progress(&id, progress, elapsed_ms) {
            Ok(true) => {}
            Ok(false) => {
                // Cancelled meanwhile: a render under way writes files that belong to nothing.
                if let Some(render) = video_render {
                    let dir = state.files_dir.join("generations").join(&id);
                    tokio::spawn(async move {
                        let _ = render.await;
                        let _ = std::fs::remove_dir_all(dir);
                    });
                }
                return;
            }
            Err(error) => {
                tracing::error!(generation_id = %id, %error, "could not record progress");
                return;
            }
        }
        start_video(&mut video_render);
    }
    if let Some(failure) = planned_failure {
        fail(&state, &id, failure);
        return;
    }
    start_video(&mut video_render);
    let produced = match video_render {
        Some(render) => match render.await {
            Ok(result) => result,
            Err(join_error) => Err(internal_failure(&row, &join_error.to_string())),
        },
        None => produce(&state, &row).await,
    };
    match produced {
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
                .complete_generation(&id, &json, result.charged(&row), &media)
            {
                Ok(true) => tracing::info!(generation_id = %id, "generation completed"),
                Ok(false) => {
                    // Cancelled while rendering: the files belong to nothing.
                    let _ = std::fs::remove_dir_all(state.files_dir.join("generations").join(&id));
                    super::audio_jobs::remove_outputs(&state.files_dir, &id);
                }
                Err(error) => {
                    tracing::error!(generation_id = %id, %error, "could not complete generation")
                }
            }
        }
        Err(failure) => fail(&state, &id, failure),
    }
}

/// A video render running alongside a job's simulated wait.
type RenderTask = tokio::task::JoinHandle<Result<StoredResult, Value>>;

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
    if super::edit_jobs::is_edit_kind(&row.kind) {
        return super::edit_jobs::produce(state, row).await;
    }
    if row.kind == super::image_tools::IMAGE_TOOL_KIND {
        return super::image_tools::produce(state, row).await;
    }
    if super::creative_chat_job::is_chat_kind(&row.kind) {
        return super::creative_chat_job::produce(row);
    }
    if super::audio_jobs::is_audio_kind(&row.kind) {
        return super::audio_jobs::produce(state, row).await;
    }
    if row.kind == super::model3d::job::THREE_D_KIND {
        return super::model3d::job::produce(state, row).await;
    }
    let source_bytes = match row.source_images.first() {
        Some(url) => Some(
            fetch_policy::fetch(state, url, SOURCE_LIMITS)
                .await
                .map_err(|error| {
                    let message = match error {
                        // The field the caller named, as trim and /edit/image word a refusal.
                        SourceFetchError::Internal if is_video(row) => {
                            internal_address_message("image_url")
                        }
                        SourceFetchError::Internal => {
                            internal_address_message("source_images entry")
                        }
                        other => format!("Could not use source image {url}: {other}"),
                    };
                    json!({
                        "message": message,
                        "category": "invalid_input",
                        "code": "SOURCE_IMAGE_UNAVAILABLE",
                        "retryable": false,
                        "severity": "error",
                        "provider": row.provider,
                    })
                })?,
        ),
        None => None,
    };
    let files_dir = state.files_dir.clone();
    let sound = is_video(row) && video_sound_on(state, row);
    let row = row.clone();
    let result = tokio::task::spawn_blocking(move || {
        if is_video(&row) {
            render_video_and_write(&files_dir, &row, source_bytes.as_deref(), sound)
        } else {
            render_and_write(&files_dir, &row, source_bytes.as_deref())
        }
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

/// Whether a video job's clip has sound: its model makes native sound and the request's
/// `sound_enabled` (else the model's `sound_enabled_by_default`) is on.
fn video_sound_on(state: &AppState, row: &GenerationRow) -> bool {
    let request: Value = serde_json::from_str(&row.request_json).unwrap_or(Value::Null);
    let spec = ["text_to_video", "img_to_video"]
        .iter()
        .find_map(|raw_type| state.catalog.find(&row.model, raw_type));
    spec.is_some_and(|spec| {
        crate::sandbox::catalog::sound_on(
            spec,
            request.get("sound_enabled").and_then(Value::as_bool),
        )
    })
}

/// The job's source image (image edit, image-to-video), or a failure the job reports.
fn decode_source(
    row: &GenerationRow,
    source_bytes: Option<&[u8]>,
) -> Result<Option<image::DynamicImage>, Value> {
    source_bytes
        .map(|bytes| {
            decode_image(bytes).map_err(|error| {
                json!({
                    "message": format!("Could not use source image: {error}"),
                    "category": "invalid_input",
                    "code": "SOURCE_IMAGE_UNREADABLE",
                    "retryable": false,
                    "severity": "error",
                    "provider": row.provider,
                })
            })
        })
        .transpose()
}

/// Grade and cinematic presets decided at submit (unreadable JSON renders ungraded).
pub(crate) fn stored_look(row: &GenerationRow) -> Look {
    row.look_json
        .as_deref()
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default()
}

fn render_and_write(
    files_dir: &std::path::Path,
    row: &GenerationRow,
    source_bytes: Option<&[u8]>,
) -> Result<StoredResult, Value> {
    let source = decode_source(row, source_bytes)?;
    let (width, height) = output_dimensions(&row.aspect_ratio, &row.resolution);
    let look = stored_look(row);
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
        duration_secs: None,
        frame_count: None,
        edit_type: None,
        credits_used: None,
        billed_secs: None,
        content: None,
        audio: None,
    })
}

/// Frame size of a video tier: `720p` = 720 px on the short side, the long side from the
/// ratio (16:9 at 720p = 1280x720, 9:16 = 720x1280, 1:1 = 720x720), both even.
pub(crate) fn video_dimensions(aspect_ratio: &str, resolution: &str) -> (u32, u32) {
    let short_px: u32 = resolution
        .trim_end_matches(['p', 'P'])
        .parse()
        .unwrap_or(720)
        .clamp(super::video::MIN_SIDE_PX, super::video::MAX_SHORT_SIDE_PX);
    let (aw, ah) = super::render::parse_aspect_ratio(aspect_ratio).unwrap_or((16, 9));
    let even = |v: f64| ((v / 2.0).round() as u32 * 2).min(super::video::MAX_LONG_SIDE_PX);
    if aw >= ah {
        (
            even(f64::from(short_px) * f64::from(aw) / f64::from(ah)),
            short_px,
        )
    } else {
        (
            short_px,
            even(f64::from(short_px) * f64::from(ah) / f64::from(aw)),
        )
    }
}

/// What a video job renders: 24 fps, the tier's frame size, watermarked.
fn job_video_spec<'a>(
    seed_text: &'a str,
    seed: i64,
    (aspect_ratio, resolution): (&str, &str),
    duration_secs: f64,
    palette: Option<&'a [[u8; 3]]>,
    source: Option<&'a image::DynamicImage>,
    sound: bool,
) -> VideoRenderSpec<'a> {
    let (width, height) = video_dimensions(aspect_ratio, resolution);
    VideoRenderSpec {
        prompt: seed_text,
        seed,
        width,
        height,
        fps: VIDEO_FPS,
        duration_secs,
        palette,
        source,
        watermark: true,
        sound,
    }
}

/// The MP4 bytes an ungraded text-to-video job renders for these inputs (the same spec
/// as the job). For benches and tests only (re-exported hidden from `sandbox`); the
/// studio never calls it.
pub fn render_text_to_video_mp4(
    prompt: &str,
    seed: i64,
    aspect_ratio: &str,
    resolution: &str,
    duration_secs: f64,
) -> Result<Vec<u8>, Box<dyn std::error::Error + Send + Sync>> {
    let spec = job_video_spec(
        prompt,
        seed,
        (aspect_ratio, resolution),
        duration_secs,
        None,
        None,
        false,
    );
    Ok(render_video(&spec)?.mp4)
}

/// Renders the clip (graded palette from the stored look, the source image for
/// image-to-video) and writes `<id>.mp4` plus `<id>_poster.jpg`.
fn render_video_and_write(
    files_dir: &std::path::Path,
    row: &GenerationRow,
    source_bytes: Option<&[u8]>,
    sound: bool,
) -> Result<StoredResult, Value> {
    let source = decode_source(row, source_bytes)?;
    let look = stored_look(row);
    let palette: Vec<[u8; 3]> = look
        .grade
        .iter()
        .filter_map(|c| crate::palette::Rgb::from_hex(&c.hex))
        .map(|rgb| [rgb.r, rgb.g, rgb.b])
        .collect();
    // The prompt seeds the look; image-to-video without a prompt uses the source URL.
    let seed_text = if row.prompt.trim().is_empty() {
        row.source_images.first().map(String::as_str).unwrap_or("")
    } else {
        row.prompt.as_str()
    };
    let spec = job_video_spec(
        seed_text,
        row.seed,
        (&row.aspect_ratio, &row.resolution),
        row.video_duration_secs.unwrap_or(5.0),
        (!palette.is_empty()).then_some(palette.as_slice()),
        source.as_ref(),
        sound,
    );
    let video = render_video(&spec).map_err(|e| internal_failure(row, &e.to_string()))?;
    tracing::debug!(generation_id = %row.id, width = video.width, height = video.height, fps = video.fps, frames = video.frame_count, "video rendered");
    write_video_outputs(files_dir, row, &video)
}

/// Writes a video job's MP4 and its poster under `generations/<id>/` (renders and edits).
pub(crate) fn write_video_outputs(
    files_dir: &std::path::Path,
    row: &GenerationRow,
    video: &crate::sandbox::video::RenderedVideo,
) -> Result<StoredResult, Value> {
    let rel_dir = format!("generations/{}", row.id);
    let rel = format!("{rel_dir}/{}.mp4", row.id);
    write_bytes(&files_dir.join(&rel), &video.mp4).map_err(|e| internal_failure(row, &e))?;
    let poster_rel = format!("{rel_dir}/{}_poster.jpg", row.id);
    write_bytes(&files_dir.join(&poster_rel), &video.poster_jpeg)
        .map_err(|e| internal_failure(row, &e))?;
    Ok(StoredResult {
        paths: vec![rel],
        thumbnail_path: Some(poster_rel.clone()),
        thumbnail_paths: vec![poster_rel],
        created_at: now_iso(),
        width: video.width,
        height: video.height,
        duration_secs: Some(video.duration_secs),
        frame_count: Some(video.frame_count),
        edit_type: None,
        credits_used: None,
        billed_secs: None,
        content: None,
        audio: None,
    })
}

/// Longest library item name taken from the prompt.
const MEDIA_NAME_MAX_CHARS: usize = 80;

/// An edit or restyle is named after what was done to which video ("Reframe of Beach
/// walk"), as a person would title it; a prompt (when a restyle has one) does not say that.
fn derived_name(state: &AppState, row: &GenerationRow, request: &Value) -> Option<String> {
    let what = match row.kind.as_str() {
        super::edit_jobs::EDIT_KIND => request
            .get("operation")
            .and_then(Value::as_str)
            .and_then(|name| super::edit_plan::Operation::parse(name.trim()))
            .map_or("Edit", |operation| operation.title()),
        super::edit_jobs::VIDEO_FROM_VIDEO_KIND => "Restyle",
        _ => return None,
    };
    let source = row
        .source_images
        .first()
        .map(|url| source_title(state, url))
        .unwrap_or_else(|| "a video".to_owned());
    Some(
        format!("{what} of {source}")
            .chars()
            .take(MEDIA_NAME_MAX_CHARS)
            .collect(),
    )
}

/// The library's name of the video at `url` when it is one of the sandbox's own files,
/// else the URL's file name.
pub(crate) fn source_title(state: &AppState, url: &str) -> String {
    let own_prefix = state.file_url("");
    if let Some(rel_path) = url.strip_prefix(&own_prefix)
        && let Ok(Some(title)) = state.store.media_title_by_rel_path(rel_path)
    {
        return title;
    }
    url.rsplit('/')
        .next()
        .filter(|name| !name.is_empty())
        .unwrap_or(url)
        .to_owned()
}

/// One library item per output URL of a completed generation.
fn generation_media(state: &AppState, row: &GenerationRow, result: &StoredResult) -> Vec<NewMedia> {
    if super::audio_jobs::is_audio_kind(&row.kind) {
        return super::audio_jobs::media(state, row, result);
    }
    if row.kind == super::model3d::job::THREE_D_KIND {
        return super::model3d::job::media(state, row, result);
    }
    let request: Value = serde_json::from_str(&row.request_json).unwrap_or(Value::Null);
    let request_str = |field: &str| {
        request
            .get(field)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let (category, generation_type, catalog_type) = match row.kind.as_str() {
        "image_edit" | super::image_tools::IMAGE_TOOL_KIND => {
            ("edited-image", "image_editing", "image_editing")
        }
        "video_from_image" => ("image-to-video", "img_to_video", "img_to_video"),
        "video" => ("text-to-video", "text_to_video", "text_to_video"),
        super::edit_jobs::EDIT_KIND => ("edited-video", "video_edit", "video_edit"),
        super::edit_jobs::VIDEO_FROM_VIDEO_KIND => {
            ("video-to-video", "video_to_video", "video_to_video")
        }
        _ => ("generated", "text_to_img", "text_to_img"),
    };
    let (media_type, extension) = if is_video(row) {
        ("video", "mp4")
    } else {
        ("image", "png")
    };
    let model_name = state
        .catalog
        .find(&row.model, catalog_type)
        .map(|spec| spec.name.clone());
    let now_ms = state.clock.now_ms();
    let created_at = super::clock::Clock::iso_at(now_ms);
    let name: String = match derived_name(state, row, &request) {
        Some(name) => name,
        None => row.prompt.chars().take(MEDIA_NAME_MAX_CHARS).collect(),
    };
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
                "duration": result.duration_secs,
                "batchId": row.batch_id,
                "sceneNumber": row.scene_number,
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
                media_type: media_type.to_owned(),
                generation_type: Some(generation_type.to_owned()),
                name: name.clone(),
                filename: format!("{}_{index}.{extension}", row.id),
                rel_path: rel_path.clone(),
                thumb_rel_path: thumb,
                owns_files: true,
                size_bytes,
                prompt: Some(row.prompt.clone()),
                width: Some(result.width),
                height: Some(result.height),
                duration_secs: result.duration_secs,
                credits_used: Some(result.charged(row)),
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
