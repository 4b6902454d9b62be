//! POST /v1/generate/video (202), POST /v1/generate/video/from-image (202),
//! POST /v1/generate/creative-director (202) and GET /v1/generate/creative-director/{id}/status.
//! Choices where the contract is silent are in docs/SANDBOX.md ("Video generation",
//! "Creative Director").

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use super::generate::{
    SubmitReceipt, bad_request, bill_and_start, enhance_flag, enhanced_prompt, insufficient,
    project_grade, resolve_model, scaled_duration_ms, submit_answer, validate_extras,
    validate_resolution, validate_seed, with_grade_directive,
};
use super::{json_object, resolve_project};
use crate::palette::PaletteColor;
use crate::sandbox::auth::Caller;
use crate::sandbox::catalog::ModelSpec;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::{is_object_id, new_object_id};
use crate::sandbox::jobs::{self, StoredResult};
use crate::sandbox::look::Look;
use crate::sandbox::pricing::{image_cost, round_credits, video_cost};
use crate::sandbox::render::parse_aspect_ratio;
use crate::sandbox::state::AppState;
use crate::sandbox::store::{BatchRow, CreateOutcome, GenerationRow, NewGeneration};
use crate::sandbox::visual_dna::refs::{self as dna_refs, Refs};

const VIDEO_POLL_INTERVAL_HINT_SECS: u64 = 8;
const CD_POLL_INTERVAL_HINT_SECS: u64 = 5;
/// Contract defaults.
const DEFAULT_DURATION_SECS: f64 = 5.0;
const DEFAULT_VIDEO_ASPECT_RATIO: &str = "16:9";
const DEFAULT_CD_ASPECT_RATIO: &str = "1:1";
const DEFAULT_SCENE_COUNT: u32 = 4;
const MAX_SCENE_COUNT: u32 = 8;
/// Realistic wall time at speed 1.0 ("roughly 1-5 minutes" for video; CD 30-60 s for four
/// image scenes).
const VIDEO_BASE_DURATION_MS: f64 = 90_000.0;
const CD_IMAGE_SCENE_BASE_DURATION_MS: f64 = 10_000.0;
const CD_VIDEO_SCENE_BASE_DURATION_MS: f64 = 60_000.0;
/// Motion prompt used when image-to-video gets none.
const DEFAULT_MOTION_PROMPT: &str = "Animate the image with a slow push-in and gentle motion";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VideoKind {
    Text,
    FromImage,
}

impl VideoKind {
    fn wire_type(self) -> &'static str {
        match self {
            VideoKind::Text => "video",
            VideoKind::FromImage => "video_from_image",
        }
    }

    fn catalog_type(self) -> &'static str {
        match self {
            VideoKind::Text => "text_to_video",
            VideoKind::FromImage => "img_to_video",
        }
    }
}

pub(crate) async fn text_to_video(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    submit_video(state, caller, &body, VideoKind::Text)
}

pub(crate) async fn image_to_video(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    submit_video(state, caller, &body, VideoKind::FromImage)
}

/// `duration` mapped to the model's closest supported length (ties go to the longer one).
fn video_duration(body: &Map<String, Value>, spec: &ModelSpec) -> ApiResult<f64> {
    let requested_secs = match body.get("duration") {
        None | Some(Value::Null) => DEFAULT_DURATION_SECS,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(secs) if secs.is_finite() && secs > 0.0 => secs,
            _ => {
                return Err(bad_request(
                    "INVALID_DURATION",
                    "duration must be a positive number of seconds",
                ));
            }
        },
        Some(_) => {
            return Err(bad_request(
                "INVALID_DURATION",
                "duration must be a positive number of seconds",
            ));
        }
    };
    Ok(closest_duration(
        requested_secs,
        spec.supported_durations.as_deref().unwrap_or(&[]),
    ))
}

fn closest_duration(requested_secs: f64, supported_secs: &[f64]) -> f64 {
    let mut best: Option<f64> = None;
    for &candidate in supported_secs.iter().filter(|d| d.is_finite() && **d > 0.0) {
        best = match best {
            None => Some(candidate),
            Some(current) => {
                let (dc, db) = (
                    (candidate - requested_secs).abs(),
                    (current - requested_secs).abs(),
                );
                if dc < db || (dc == db && candidate > current) {
                    Some(candidate)
                } else {
                    Some(current)
                }
            }
        };
    }
    // A model without a list renders what was asked, within the renderer's 60 s cap.
    best.unwrap_or_else(|| requested_secs.clamp(1.0, 60.0))
}

/// `aspect_ratio` (any "W:H") mapped to the supported ratio nearest in log space.
fn video_aspect_ratio(
    body: &Map<String, Value>,
    spec: &ModelSpec,
    catalog_type: &str,
    default: &str,
) -> ApiResult<String> {
    let requested = match body.get("aspect_ratio") {
        None | Some(Value::Null) => default.to_owned(),
        Some(Value::String(value)) => value.trim().to_owned(),
        Some(_) => {
            return Err(bad_request(
                "INVALID_ASPECT_RATIO",
                "aspect_ratio must be a string",
            ));
        }
    };
    let Some((w, h)) = parse_aspect_ratio(&requested) else {
        return Err(bad_request(
            "INVALID_ASPECT_RATIO",
            format!("aspect_ratio '{requested}' is not W:H with positive integers"),
        ));
    };
    Ok(closest_ratio(w, h, spec.aspect_ratios_for(catalog_type)).unwrap_or(requested))
}

/// The supported ratio whose log(width/height) is nearest; the first listed wins a tie.
fn closest_ratio(w: u32, h: u32, supported: &[String]) -> Option<String> {
    let target = (f64::from(w) / f64::from(h)).ln();
    let mut best: Option<(f64, &String)> = None;
    for candidate in supported {
        let Some((cw, ch)) = parse_aspect_ratio(candidate) else {
            continue;
        };
        let distance = ((f64::from(cw) / f64::from(ch)).ln() - target).abs();
        if best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, ratio)| ratio.clone())
}

/// A video tier (`720p`, `1080p`, case-insensitive); omitted = the model's first tier.
pub(super) fn video_resolution(body: &Map<String, Value>, spec: &ModelSpec) -> ApiResult<String> {
    let allowed = spec.resolutions();
    let fallback = allowed
        .first()
        .cloned()
        .unwrap_or_else(|| "720p".to_owned());
    let value = match body.get("resolution") {
        None | Some(Value::Null) => return Ok(fallback),
        Some(Value::String(value)) => value.trim().to_ascii_lowercase(),
        Some(_) => {
            return Err(bad_request(
                "INVALID_RESOLUTION",
                "resolution must be a string",
            ));
        }
    };
    let listed: Vec<String> = if allowed.is_empty() {
        vec![fallback]
    } else {
        allowed.to_vec()
    };
    if listed.contains(&value) {
        Ok(value)
    } else {
        Err(bad_request(
            "INVALID_RESOLUTION",
            format!(
                "Unsupported resolution '{value}' for model {}. Allowed values: {}",
                spec.identifier,
                listed.join(", ")
            ),
        ))
    }
}

/// `sound_enabled`: a boolean when present (None = the model's default). Only models with
/// native sound make sound (and pay its multiplier); others ignore it.
fn sound_enabled(body: &Map<String, Value>) -> ApiResult<Option<bool>> {
    match body.get("sound_enabled") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(on)) => Ok(Some(*on)),
        Some(_) => Err(bad_request(
            "INVALID_PARAMETER",
            "sound_enabled must be a boolean",
        )),
    }
}

/// `reference_images`: an array of http(s) URL strings (recorded, not rendered).
fn validate_reference_images(body: &Map<String, Value>) -> ApiResult<()> {
    match body.get("reference_images") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Array(items))
            if items.iter().all(|item| {
                item.as_str()
                    .is_some_and(|u| u.starts_with("http://") || u.starts_with("https://"))
            }) =>
        {
            Ok(())
        }
        Some(_) => Err(bad_request(
            "INVALID_REFERENCE_IMAGES",
            "reference_images must be an array of http(s) URLs",
        )),
    }
}

fn required_prompt(body: &Map<String, Value>, spec: Option<&ModelSpec>) -> ApiResult<String> {
    let prompt = match body.get("prompt") {
        Some(Value::String(prompt)) if !prompt.trim().is_empty() => prompt.clone(),
        _ => {
            return Err(bad_request(
                "INVALID_PROMPT",
                "Prompt is required and must be a non-empty string",
            ));
        }
    };
    if let Some(spec) = spec {
        let (_, max_chars) = spec.prompt_length_bounds();
        let chars = prompt.chars().count();
        if chars > max_chars {
            return Err(bad_request(
                "INVALID_PROMPT",
                format!(
                    "Prompt is too long ({chars} characters); model {} allows at most {max_chars}",
                    spec.identifier
                ),
            ));
        }
    }
    Ok(prompt)
}

/// The stored look: the project grade plus any Visual DNA / moodboard references.
fn look_json(grade: Option<&[PaletteColor]>, refs: &Refs) -> Option<String> {
    let mut look = match grade {
        Some(colors) => Look::default().with_grade(colors),
        None => Look::default(),
    };
    refs.apply_to(&mut look);
    if look.is_empty() && look.moodboard_id.is_none() {
        return None;
    }
    serde_json::to_string(&look).ok()
}

/// The submit answer (202), or an aborted body when a dropped-answer fault is armed.
fn accepted(state: &AppState, id: &str, response: Value) -> Response {
    submit_answer(state, id, StatusCode::ACCEPTED, response)
}

fn submit_video(
    state: AppState,
    caller: Caller,
    raw_body: &[u8],
    kind: VideoKind,
) -> ApiResult<Response> {
    let body = json_object(raw_body)?;
    let (prompt, source_images) = match kind {
        VideoKind::Text => (required_prompt(&body, None)?, Vec::new()),
        VideoKind::FromImage => {
            let prompt = match body.get("prompt") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(prompt)) => prompt.trim().to_owned(),
                Some(_) => {
                    return Err(bad_request(
                        "INVALID_PROMPT",
                        "prompt must be a string when present",
                    ));
                }
            };
            let url = match body.get("image_url") {
                None | Some(Value::Null) => {
                    return Err(bad_request("IMAGE_REQUIRED", "image_url is required"));
                }
                Some(Value::String(url))
                    if url.trim().starts_with("http://") || url.trim().starts_with("https://") =>
                {
                    url.trim().to_owned()
                }
                Some(_) => {
                    return Err(bad_request(
                        "INVALID_IMAGE_URL",
                        "image_url must be an http(s) URL string",
                    ));
                }
            };
            (prompt, vec![url])
        }
    };
    let (model_echo, spec) = resolve_model(&state.catalog, body.get("model"), kind.catalog_type())?;
    if kind == VideoKind::Text {
        required_prompt(&body, Some(spec))?;
    }
    let aspect_ratio =
        video_aspect_ratio(&body, spec, kind.catalog_type(), DEFAULT_VIDEO_ASPECT_RATIO)?;
    let duration_secs = video_duration(&body, spec)?;
    let resolution = video_resolution(&body, spec)?;
    validate_extras(&body)?;
    validate_reference_images(&body)?;
    let refs = dna_refs::resolve(&state, &caller.user_id, &body, spec.max_visual_dna)?;
    let seed_text = if prompt.is_empty() {
        source_images.concat()
    } else {
        prompt.clone()
    };
    let seed = validate_seed(&body, &seed_text)?;
    let project_id = resolve_project(&state, &caller.user_id, body.get("project_id"))?;
    // Image-to-video is never graded; text-to-video unless skip_color_palette is literally true.
    let skip_grade =
        kind == VideoKind::FromImage || body.get("skip_color_palette") == Some(&Value::Bool(true));
    let grade = project_grade(&state, &caller.user_id, &project_id, skip_grade)?;
    let base_prompt = if prompt.is_empty() {
        DEFAULT_MOTION_PROMPT
    } else {
        prompt.as_str()
    };
    let mut prompt_used = enhanced_prompt(base_prompt, enhance_flag(&body));
    prompt_used = with_grade_directive(prompt_used, grade.as_deref());
    prompt_used = refs.extend_prompt(prompt_used);
    let cost = video_cost(spec, &resolution, duration_secs, sound_enabled(&body)?);
    let minimum = round_credits(cost.max(state.catalog.cheapest_credit(kind.catalog_type())));
    let generation = NewGeneration {
        id: new_object_id(),
        user_id: caller.user_id.clone(),
        project_id,
        session_id: new_object_id(),
        kind: kind.wire_type().to_owned(),
        model_echo: Some(model_echo.clone()),
        model: spec.identifier.clone(),
        provider: spec.provider.clone(),
        prompt_used,
        prompt,
        aspect_ratio,
        resolution,
        quality: None,
        num_images: 1,
        seed,
        source_images,
        request_json: Value::Object(body).to_string(),
        duration_ms: scaled_duration_ms(&state, VIDEO_BASE_DURATION_MS),
        credits_reserved: cost,
        credit_base: spec.credit,
        planned_failure: state
            .controls
            .plan_failure(&spec.provider)
            .map(|f| f.to_string()),
        look_json: look_json(grade.as_deref(), &refs),
        video_duration_secs: Some(duration_secs),
        batch_id: None,
        scene_number: None,
    };
    bill_and_start(
        &state,
        &generation,
        minimum,
        SubmitReceipt {
            model_echo: json!(model_echo),
            credits_charged: Some(cost),
            poll_interval_hint_secs: VIDEO_POLL_INTERVAL_HINT_SECS,
            status: StatusCode::ACCEPTED,
        },
    )
}

/// A short deterministic scene title: the scene's story beat
/// and the prompt's first words ("Scene 2 · Arrival: A lighthouse at dusk").
fn scene_title(prompt: &str, scene_number: u32) -> String {
    const TITLE_WORDS: usize = 4;
    const BEATS: [&str; 8] = [
        "Opening",
        "Arrival",
        "Discovery",
        "Turn",
        "Rising",
        "Climax",
        "Aftermath",
        "Closing",
    ];
    let beat = BEATS[(scene_number.max(1) as usize - 1) % BEATS.len()];
    let words: Vec<&str> = prompt
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .take(TITLE_WORDS)
        .collect();
    let mut subject = words.join(" ");
    if let Some(first) = subject.chars().next() {
        subject = first
            .to_uppercase()
            .chain(subject.chars().skip(1))
            .collect();
    }
    format!("Scene {scene_number} · {beat}: {subject}")
}

pub(crate) async fn creative_director(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    let body = json_object(&body)?;
    let prompt = required_prompt(&body, None)?;
    let scene_count: u32 = match body.get("scene_count") {
        None | Some(Value::Null) => DEFAULT_SCENE_COUNT,
        Some(value) => match value.as_u64() {
            Some(n) if (1..=u64::from(MAX_SCENE_COUNT)).contains(&n) => n as u32,
            _ => {
                return Err(bad_request(
                    "INVALID_SCENE_COUNT",
                    format!("scene_count must be an integer from 1 to {MAX_SCENE_COUNT}"),
                ));
            }
        },
    };
    let video_mode = match body.get("workflow_type") {
        None | Some(Value::Null) => false,
        Some(Value::String(w)) if w.trim() == "image" => false,
        Some(Value::String(w)) if w.trim() == "video" => true,
        Some(_) => {
            return Err(bad_request(
                "INVALID_WORKFLOW_TYPE",
                "workflow_type must be 'image' or 'video'",
            ));
        }
    };
    let catalog_type = if video_mode {
        "text_to_video"
    } else {
        "text_to_img"
    };
    let (model_echo, spec) = resolve_model(&state.catalog, body.get("model"), catalog_type)?;
    required_prompt(&body, Some(spec))?;
    let aspect_ratio = video_aspect_ratio(&body, spec, catalog_type, DEFAULT_CD_ASPECT_RATIO)?;
    let (resolution, duration_secs, scene_cost) = if video_mode {
        let resolution = video_resolution(&body, spec)?;
        let duration_secs = video_duration(&body, spec)?;
        let cost = video_cost(spec, &resolution, duration_secs, sound_enabled(&body)?);
        (resolution, Some(duration_secs), cost)
    } else {
        let resolution = validate_resolution(&body, spec)?;
        let quality = spec.default_quality.as_deref();
        let cost = image_cost(spec, &resolution, quality, 1);
        (resolution, None, cost)
    };
    validate_extras(&body)?;
    validate_reference_images(&body)?;
    match body.get("moodboard_ids") {
        None | Some(Value::Null) => {}
        Some(Value::Array(ids)) if ids.iter().all(Value::is_string) => {}
        Some(_) => {
            return Err(bad_request(
                "INVALID_PARAMETER",
                "moodboard_ids must be an array of strings",
            ));
        }
    }
    let refs = dna_refs::resolve(&state, &caller.user_id, &body, spec.max_visual_dna)?;
    let scene_moodboards = dna_refs::resolve_scene_moodboards(&state, &caller.user_id, &body)?;
    let seed = validate_seed(&body, &prompt)?;
    let project_id = resolve_project(&state, &caller.user_id, body.get("project_id"))?;
    // CD does not accept skip_color_palette: it is ignored, every scene is graded.
    let grade = project_grade(&state, &caller.user_id, &project_id, false)?;
    let enhance = enhance_flag(&body);
    let request_json = Value::Object(body).to_string();
    let batch = BatchRow {
        id: new_object_id(),
        user_id: caller.user_id.clone(),
        project_id: project_id.clone(),
        session_id: new_object_id(),
        workflow_type: if video_mode { "video" } else { "image" }.to_owned(),
        scene_count,
    };
    let base_ms = if video_mode {
        CD_VIDEO_SCENE_BASE_DURATION_MS
    } else {
        CD_IMAGE_SCENE_BASE_DURATION_MS
    };
    let scenes: Vec<NewGeneration> = (1..=scene_count)
        .map(|scene_number| {
            let mut prompt_used = format!(
                "{} (scene {scene_number} of {scene_count})",
                enhanced_prompt(&prompt, enhance)
            );
            prompt_used = with_grade_directive(prompt_used, grade.as_deref());
            // Scene n uses moodboard_ids[n-1] when given, else moodboard_id.
            let scene_refs = dna_refs::Refs {
                dnas: refs.dnas.clone(),
                moodboard: scene_moodboards
                    .get(scene_number as usize - 1)
                    .cloned()
                    .flatten()
                    .or_else(|| refs.moodboard.clone()),
            };
            prompt_used = scene_refs.extend_prompt(prompt_used);
            NewGeneration {
                id: new_object_id(),
                user_id: caller.user_id.clone(),
                project_id: project_id.clone(),
                session_id: batch.session_id.clone(),
                kind: if video_mode { "video" } else { "image" }.to_owned(),
                model_echo: Some(model_echo.clone()),
                model: spec.identifier.clone(),
                provider: spec.provider.clone(),
                prompt: prompt.clone(),
                prompt_used,
                aspect_ratio: aspect_ratio.clone(),
                resolution: resolution.clone(),
                quality: (!video_mode)
                    .then(|| spec.default_quality.clone())
                    .flatten(),
                num_images: 1,
                // Every scene renders differently from the same prompt.
                seed: seed.wrapping_add(i64::from(scene_number) * 7_919),
                source_images: Vec::new(),
                request_json: request_json.clone(),
                duration_ms: scaled_duration_ms(&state, base_ms),
                credits_reserved: scene_cost,
                credit_base: spec.credit,
                planned_failure: state
                    .controls
                    .plan_failure(&spec.provider)
                    .map(|f| f.to_string()),
                look_json: look_json(grade.as_deref(), &scene_refs),
                video_duration_secs: duration_secs,
                batch_id: Some(batch.id.clone()),
                scene_number: Some(scene_number),
            }
        })
        .collect();
    let total = round_credits(scene_cost * f64::from(scene_count));
    if let CreateOutcome::InsufficientCredits { available } =
        state.store.create_batch(&batch, &scenes, total)?
    {
        return Err(insufficient(available, total));
    }
    tracing::info!(batch_id = %batch.id, scenes = scene_count, video_mode, "creative director submitted");
    jobs::spawn_batch(state.clone(), batch.id.clone());
    let response = json!({
        "success": true,
        "generation_id": batch.id,
        "type": "creative_director",
        "model": model_echo,
        "credits_charged": total,
        "poll_url": format!("/api/v1/generate/creative-director/{}/status", batch.id),
        "poll_interval_hint": CD_POLL_INTERVAL_HINT_SECS,
        "session_id": batch.session_id,
        "project_id": batch.project_id,
        "scene_count": scene_count,
    });
    Ok(accepted(&state, &batch.id, response))
}

pub(crate) async fn creative_director_status(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    if !is_object_id(&id) {
        return Err(ApiError::invalid_generation_id());
    }
    match state.store.batch(&id)? {
        Some(batch) if batch.user_id == caller.user_id => Ok(Json(batch_status(&state, &batch)?)),
        _ => Err(ApiError::sdk(
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            "Generation not found",
        )),
    }
}

/// The batch state from its scenes: any failed -> failed; all completed -> completed;
/// nothing left to run (some cancelled) -> cancelled; none started -> pending; else
/// processing.
fn batch_state(scenes: &[GenerationRow]) -> &'static str {
    let count = |s: &str| scenes.iter().filter(|row| row.state == s).count();
    if count("failed") > 0 {
        "failed"
    } else if count("completed") == scenes.len() {
        "completed"
    } else if count("pending") + count("processing") == 0 {
        "cancelled"
    } else if count("pending") == scenes.len() {
        "pending"
    } else {
        "processing"
    }
}

/// The Creative Director status body (also served by GET /v1/generate/{id}/status).
pub(super) fn batch_status(state: &AppState, batch: &BatchRow) -> ApiResult<Value> {
    let scenes = state.store.batch_scenes(&batch.id)?;
    let batch_state = batch_state(&scenes);
    let progress_sum: f64 = scenes
        .iter()
        .map(|row| {
            if row.state == "completed" {
                100.0
            } else {
                row.progress.clamp(0.0, 100.0)
            }
        })
        .sum();
    let progress = (progress_sum / scenes.len().max(1) as f64).floor() as u64;
    let urls_field = if batch.workflow_type == "video" {
        "video_urls"
    } else {
        "image_urls"
    };
    let scene_bodies: Vec<Value> = scenes
        .iter()
        .map(|row| {
            let scene_number = row.scene_number.unwrap_or(0);
            let mut scene = json!({
                "scene_number": scene_number,
                "generation_id": row.id,
                "status": row.state,
                "title": scene_title(&row.prompt, scene_number),
            });
            if row.state == "processing" {
                scene["progress"] = json!(row.progress.round().clamp(0.0, 100.0) as u64);
            }
            if row.state == "completed"
                && let Some(stored) = row
                    .result_json
                    .as_deref()
                    .and_then(|j| serde_json::from_str::<StoredResult>(j).ok())
            {
                let urls: Vec<String> = stored.paths.iter().map(|p| state.file_url(p)).collect();
                scene[urls_field] = json!(urls);
                scene["thumbnail_url"] =
                    json!(stored.thumbnail_path.as_deref().map(|p| state.file_url(p)));
            }
            scene
        })
        .collect();
    let mut body = json!({
        "success": true,
        "generation_id": batch.id,
        "type": "creative_director",
        "state": batch_state,
        "progress": progress,
        "workflow_type": batch.workflow_type,
        "scene_count": batch.scene_count,
        "scenes": scene_bodies,
    });
    match batch_state {
        "completed" => {
            let used: f64 = scenes
                .iter()
                .map(|row| row.credits_used.unwrap_or(row.credits_reserved))
                .sum();
            body["credits_used"] = json!(round_credits(used));
            body["credits_breakdown"] = json!(
                scenes
                    .iter()
                    .map(|row| {
                        let amount = row.credits_used.unwrap_or(row.credits_reserved);
                        let mut item = json!({
                            "model": row.model,
                            "amount": amount,
                            "base": row.credit_base,
                            "final": amount,
                        });
                        if let Some(secs) = row.video_duration_secs {
                            item["duration_multiplier"] = json!(secs);
                        }
                        item
                    })
                    .collect::<Vec<_>>()
            );
        }
        "failed" => {
            // A failed batch carries `error` but no `failure` object (contract).
            let error = scenes
                .iter()
                .find(|row| row.state == "failed")
                .and_then(|row| row.error.clone())
                .unwrap_or_else(|| "A scene failed".to_owned());
            body["error"] = json!(error);
        }
        _ => {}
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_map_to_the_nearest_with_ties_to_the_longer() {
        assert_eq!(closest_duration(5.0, &[4.0, 6.0, 8.0]), 6.0);
        assert_eq!(closest_duration(7.4, &[5.0, 10.0]), 5.0);
        assert_eq!(closest_duration(7.5, &[5.0, 10.0]), 10.0);
        assert_eq!(closest_duration(30.0, &[6.0, 10.0]), 10.0);
        assert_eq!(closest_duration(3.0, &[]), 3.0);
    }

    #[test]
    fn ratios_map_to_the_nearest_in_log_space() {
        let supported = ["16:9", "9:16", "1:1"].map(String::from);
        assert_eq!(closest_ratio(21, 9, &supported).as_deref(), Some("16:9"));
        assert_eq!(closest_ratio(4, 5, &supported).as_deref(), Some("1:1"));
        assert_eq!(closest_ratio(2, 3, &supported).as_deref(), Some("9:16"));
        assert_eq!(closest_ratio(3, 2, &supported).as_deref(), Some("16:9"));
    }

    #[test]
    fn scene_titles_are_short_and_deterministic() {
        assert_eq!(
            scene_title("a lighthouse at dusk, storm rolling in", 2),
            "Scene 2 · Arrival: A lighthouse at dusk"
        );
    }
}
