//! The render step of the catalog's video jobs: elements, first-last frame and lip sync
//! (`routes::motion` validates and prices them). Called by `jobs::produce` while the
//! simulated wait runs: download the inputs, decode them, render on the blocking pool and
//! write `<id>.mp4` plus `<id>_poster.jpg` like every video job.
//!
//! Inputs are downloaded again here (the route downloaded them to validate them): the job
//! row keeps URLs, not bytes, and a restarted sandbox resumes from the row alone. The
//! sandbox's own `/files/` URLs are read from storage, so that costs a file read.

use image::DynamicImage;
use serde_json::{Map, Value};

use super::fetch::decode_image;
use super::job_inputs::{fetch_input, job_failure, render_blocking, render_failed, stored_request};
use super::jobs::{StoredResult, video_dimensions, write_video_outputs};
use super::motion_audio;
use super::sound::{mix_seed, voices};
use super::state::AppState;
use super::store::GenerationRow;
use super::video::{
    ElementsInputs, LipsyncFace, MotionSpec, probe_video, render_elements, render_first_last,
    render_lipsync,
};

/// `type` of the three kinds (status, media and the submit answer).
pub(crate) const ELEMENTS_KIND: &str = "elements";
pub(crate) const FIRST_LAST_KIND: &str = "first_last_frame";
pub(crate) const LIPSYNC_KIND: &str = "lipsync";

/// Sandbox videos are 24 frames per second.
const FPS: u32 = 24;
/// Salt of the lip-sync speech seed (the route renders the same line to time it).
pub(crate) const SPEECH_SALT: u64 = 400;
/// Default voice of a spoken line without `voice` (contract: as the lip-sync edit op).
pub(crate) const DEFAULT_VOICE: &str = "Rachel";

pub(crate) fn is_motion_kind(kind: &str) -> bool {
    matches!(kind, ELEMENTS_KIND | FIRST_LAST_KIND | LIPSYNC_KIND)
}

/// (category, generation_type, catalog type) of a library item made by one of the kinds.
pub(crate) fn media_types(
    state: &AppState,
    row: &GenerationRow,
) -> (&'static str, &'static str, &'static str) {
    match row.kind.as_str() {
        ELEMENTS_KIND => ("elements", "elements", "elements"),
        FIRST_LAST_KIND => (
            "first-last-frame",
            "firstlastgenerations",
            "firstlastgenerations",
        ),
        _ if state.catalog.find(&row.model, "lipsync-video").is_some() => {
            ("lipsync", "lipsync-video", "lipsync-video")
        }
        _ => ("lipsync", "lipsync-image", "lipsync-image"),
    }
}

/// What a downloaded `source_url` holds.
pub(crate) enum FaceSource {
    Image(DynamicImage),
    Video { mp4: Vec<u8>, duration_secs: f64 },
}

/// An image if it decodes as one, else a video if it probes as one (by content, not name).
pub(crate) fn classify_source(bytes: Vec<u8>) -> Option<FaceSource> {
    if let Ok(image) = decode_image(&bytes) {
        return Some(FaceSource::Image(image));
    }
    if bytes.get(4..8) == Some(b"ftyp")
        && let Ok(probe) = probe_video(&bytes)
    {
        return Some(FaceSource::Video {
            duration_secs: probe.duration_secs,
            mp4: bytes,
        });
    }
    None
}

/// The lip-sync line's sound: the decoded `audio_url`, else `text_prompt` spoken in
/// `voice` (the default voice when none). `Err` says why, for the route's 400.
pub(crate) fn lipsync_sound(
    audio_bytes: Option<&[u8]>,
    text: Option<&str>,
    voice: Option<&str>,
    seed: i64,
) -> Result<Vec<f32>, String> {
    if let Some(bytes) = audio_bytes {
        return motion_audio::decode_audio(bytes);
    }
    let text = text.unwrap_or("");
    let voice = voices::find(voice.unwrap_or(DEFAULT_VOICE))
        .or_else(|| voices::find(DEFAULT_VOICE))
        .ok_or_else(|| "the default voice is missing".to_owned())?;
    Ok(motion_audio::speak(
        text,
        voice,
        mix_seed(seed, SPEECH_SALT),
    ))
}

fn strings(body: &Map<String, Value>, field: &str) -> Vec<String> {
    body.get(field)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(|s| s.trim().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn string(body: &Map<String, Value>, field: &str) -> Option<String> {
    body.get(field)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Downloads one input; the request field names it in a refusal.
async fn fetch(
    state: &AppState,
    row: &GenerationRow,
    field: &str,
    url: &str,
) -> Result<Vec<u8>, Value> {
    fetch_input(state, row, (field, field), url).await
}

fn image(row: &GenerationRow, field: &str, bytes: &[u8]) -> Result<DynamicImage, Value> {
    decode_image(bytes).map_err(|error| {
        job_failure(
            row,
            format!("{field} is not an image the sandbox can read: {error}"),
            "SOURCE_IMAGE_UNREADABLE",
            "invalid_input",
        )
    })
}

fn motion_spec(row: &GenerationRow) -> MotionSpec {
    let (width, height) = video_dimensions(&row.aspect_ratio, &row.resolution);
    MotionSpec {
        width,
        height,
        fps: FPS,
        duration_secs: row.video_duration_secs.unwrap_or(5.0),
        seed: row.seed,
        watermark: true,
    }
}

pub(crate) async fn produce(state: &AppState, row: &GenerationRow) -> Result<StoredResult, Value> {
    let body = stored_request(row);
    let spec = motion_spec(row);
    let work: Box<dyn FnOnce() -> Result<super::video::RenderedVideo, Value> + Send> =
        match row.kind.as_str() {
            FIRST_LAST_KIND => {
                let first = string(&body, "first_frame_url").unwrap_or_default();
                let last = string(&body, "last_frame_url").unwrap_or_default();
                let first = image(
                    row,
                    "first_frame_url",
                    &fetch(state, row, "first_frame_url", &first).await?,
                )?;
                let last = image(
                    row,
                    "last_frame_url",
                    &fetch(state, row, "last_frame_url", &last).await?,
                )?;
                let row = row.clone();
                Box::new(move || {
                    render_first_last(&first, &last, &spec).map_err(|e| render_failed(&row, e))
                })
            }
            ELEMENTS_KIND => {
                let mut images = Vec::new();
                for url in strings(&body, "reference_images") {
                    let bytes = fetch(state, row, "reference_images", &url).await?;
                    images.push(image(row, "reference_images", &bytes)?);
                }
                let mut videos = Vec::new();
                for url in strings(&body, "reference_videos") {
                    videos.push(fetch(state, row, "reference_videos", &url).await?);
                }
                let mut audio = None;
                if let Some(url) = strings(&body, "reference_audio_urls").first() {
                    let bytes = fetch(state, row, "reference_audio_urls", url).await?;
                    let pcm = motion_audio::decode_audio(&bytes).map_err(|why| {
                        job_failure(
                            row,
                            format!("reference_audio_urls: {why}"),
                            "SOURCE_AUDIO_UNREADABLE",
                            "invalid_input",
                        )
                    })?;
                    audio = Some(pcm);
                }
                let (row, prompt) = (row.clone(), row.prompt.clone());
                Box::new(move || {
                    let inputs = ElementsInputs {
                        images: &images,
                        videos: &videos,
                        audio: audio.as_deref(),
                        prompt: &prompt,
                    };
                    render_elements(&inputs, &spec).map_err(|e| render_failed(&row, e))
                })
            }
            LIPSYNC_KIND => {
                let source_url = string(&body, "source_url").unwrap_or_default();
                let source_bytes = fetch(state, row, "source_url", &source_url).await?;
                let audio_bytes = match string(&body, "audio_url") {
                    Some(url) => Some(fetch(state, row, "audio_url", &url).await?),
                    None => None,
                };
                let text = string(&body, "text_prompt");
                let voice = string(&body, "voice");
                let row = row.clone();
                Box::new(move || {
                    let face = classify_source(source_bytes).ok_or_else(|| {
                        job_failure(
                            &row,
                            "source_url is neither an image nor a video the sandbox can read"
                                .to_owned(),
                            "SOURCE_UNREADABLE",
                            "invalid_input",
                        )
                    })?;
                    let pcm = lipsync_sound(
                        audio_bytes.as_deref(),
                        text.as_deref(),
                        voice.as_deref(),
                        row.seed,
                    )
                    .map_err(|why| {
                        job_failure(
                            &row,
                            format!("audio_url: {why}"),
                            "SOURCE_AUDIO_UNREADABLE",
                            "invalid_input",
                        )
                    })?;
                    let spec = MotionSpec {
                        duration_secs: motion_audio::duration_secs(&pcm).max(1.0 / f64::from(FPS)),
                        ..spec
                    };
                    let rendered = match &face {
                        FaceSource::Image(image) => {
                            render_lipsync(&LipsyncFace::Image(image), &pcm, &spec)
                        }
                        FaceSource::Video { mp4, .. } => {
                            render_lipsync(&LipsyncFace::Video(mp4), &pcm, &spec)
                        }
                    };
                    rendered.map_err(|e| render_failed(&row, e))
                })
            }
            other => {
                return Err(render_failed(
                    row,
                    format!("{other} is not a catalog video kind"),
                ));
            }
        };
    let video = render_blocking(row, work).await?;
    tracing::debug!(generation_id = %row.id, kind = %row.kind, width = video.width, height = video.height, frames = video.frame_count, has_audio = video.has_audio, "catalog video rendered");
    write_video_outputs(&state.files_dir, row, &video)
}
