//! POST /v1/generate/elements, /v1/generate/first-last-frame and /v1/generate/lipsync
//! (202, "Other generation" 10/min, priced per output second). The rules and where each
//! comes from are in docs/SANDBOX.md ("Elements, first–last frame and lip sync"); the
//! renders are `video::{elements, first_last, lipsync}` via `motion_jobs`.
//!
//! First-last frame and lip sync download their inputs at submit: the images must be
//! images, lip sync's source decides the model type (image or video, by content) and its
//! sound's length decides the clip's length and price. Elements' references are
//! downloaded by the job (an unreadable one fails the job).

use axum::Extension;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::generate::{
    AUTO_MODEL_ALIASES, SubmitReceipt, bad_request, bill_and_start, resolve_model,
    scaled_duration_ms, validate_extras, validate_seed,
};
use super::video::video_resolution;
use super::{json_object, resolve_project};
use crate::sandbox::auth::Caller;
use crate::sandbox::catalog::ModelSpec;
use crate::sandbox::fetch_policy::{
    self, SOURCE_LIMITS, SourceFetchError, check_before_lookup, internal_address_message,
    parse_http_url,
};
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::new_object_id;
use crate::sandbox::motion_audio;
use crate::sandbox::motion_jobs::{
    DEFAULT_VOICE, ELEMENTS_KIND, FIRST_LAST_KIND, FaceSource, LIPSYNC_KIND, classify_source,
    lipsync_sound,
};
use crate::sandbox::pricing::per_output_second_cost;
use crate::sandbox::render::parse_aspect_ratio;
use crate::sandbox::sound::voices;
use crate::sandbox::state::AppState;
use crate::sandbox::store::NewGeneration;

const POLL_INTERVAL_HINT_SECS: u64 = 8;
/// Realistic wall time at speed 1.0, like the other video jobs.
const BASE_DURATION_MS: f64 = 90_000.0;
const ELEMENTS_TYPE: &str = "elements";
const FIRST_LAST_TYPE: &str = "firstlastgenerations";
const LIPSYNC_IMAGE_TYPE: &str = "lipsync-image";
const LIPSYNC_VIDEO_TYPE: &str = "lipsync-video";
/// The renderer's longest clip; a model without `max_audio_duration` is held to it.
const MAX_CLIP_SECS: f64 = 60.0;
/// Longest spoken line accepted (ours: a minute of speech is well under it).
const MAX_TEXT_PROMPT_CHARS: usize = 5_000;
/// A sound this much longer than the source video still "fits" (container rounding).
const FOLLOW_TOLERANCE_SECS: f64 = 0.05;
/// Lip sync bills whole seconds of sound, rounded up once past this much of a second
/// (decoders disagree by a few milliseconds about a file's length).
const BILLING_GRACE_SECS: f64 = 0.05;
/// Ratios a lip-sync clip picks from when its model lists none.
const COMMON_RATIOS: [&str; 3] = ["16:9", "9:16", "1:1"];

/// Seconds a lip sync is billed for: the sound's length in whole seconds, rounded up past
/// [`BILLING_GRACE_SECS`], at least one.
fn billed_secs(audio_secs: f64) -> f64 {
    (audio_secs - BILLING_GRACE_SECS).ceil().max(1.0)
}

fn field_error(code: &str, message: impl Into<String>) -> ApiError {
    bad_request(code, message)
}

/// A trimmed non-empty string, `None` when absent, null or blank; a non-string is a 400.
fn optional_text(body: &Map<String, Value>, field: &str) -> ApiResult<Option<String>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.trim().to_owned())),
        Some(_) => Err(field_error(
            "INVALID_PARAMETER",
            format!("{field} must be a string"),
        )),
    }
}

/// An http(s) URL, refused at once when it names an internal address (a name is resolved,
/// and redirects checked, when it is downloaded).
fn checked_url(state: &AppState, field: &str, text: &str, code: &str) -> ApiResult<String> {
    let url = parse_http_url(text)
        .map_err(|_| field_error(code, format!("{field} must be an http(s) URL")))?;
    match check_before_lookup(state, &url) {
        Err(SourceFetchError::Internal) => Err(field_error(code, internal_address_message(field))),
        _ => Ok(text.to_owned()),
    }
}

fn optional_url(
    state: &AppState,
    body: &Map<String, Value>,
    field: &str,
    code: &str,
) -> ApiResult<Option<String>> {
    match optional_text(body, field)? {
        Some(text) => checked_url(state, field, &text, code).map(Some),
        None => Ok(None),
    }
}

fn required_url(
    state: &AppState,
    body: &Map<String, Value>,
    field: &str,
    code: &str,
) -> ApiResult<String> {
    optional_url(state, body, field, code)?
        .ok_or_else(|| field_error(code, format!("{field} is required")))
}

/// An array of http(s) URL strings (absent or null = none).
fn url_list(state: &AppState, body: &Map<String, Value>, field: &str) -> ApiResult<Vec<String>> {
    let not_list = || {
        field_error(
            "INVALID_REFERENCES",
            format!("{field} must be an array of http(s) URLs"),
        )
    };
    match body.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item.as_str() {
                Some(text) => checked_url(state, field, text.trim(), "INVALID_REFERENCES"),
                None => Err(not_list()),
            })
            .collect(),
        Some(_) => Err(not_list()),
    }
}

/// `prompt` within the model's length bounds; `required` when the route needs one.
fn prompt(body: &Map<String, Value>, spec: &ModelSpec, required: bool) -> ApiResult<String> {
    let text = match body.get("prompt") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.trim().to_owned(),
        Some(_) => return Err(field_error("INVALID_PROMPT", "prompt must be a string")),
    };
    let (min_chars, max_chars) = spec.prompt_length_bounds();
    let chars = text.chars().count();
    if text.is_empty() {
        if required {
            return Err(field_error(
                "INVALID_PROMPT",
                "prompt is required and must be a non-empty string",
            ));
        }
        return Ok(text);
    }
    if chars < min_chars {
        return Err(field_error(
            "INVALID_PROMPT",
            format!(
                "prompt is too short ({chars} characters); model {} needs at least {min_chars}",
                spec.identifier
            ),
        ));
    }
    if chars > max_chars {
        return Err(field_error(
            "INVALID_PROMPT",
            format!(
                "prompt is too long ({chars} characters); model {} allows at most {max_chars}",
                spec.identifier
            ),
        ));
    }
    Ok(text)
}

fn seconds_list(values: &[f64]) -> String {
    let parts: Vec<String> = values.iter().map(|d| format!("{d}")).collect();
    parts.join(", ")
}

/// `duration` (seconds): one of the model's `supported_durations`; omitted = its default.
fn duration(body: &Map<String, Value>, spec: &ModelSpec) -> ApiResult<f64> {
    let supported = spec.supported_durations.clone().unwrap_or_default();
    let fallback = spec
        .default_duration
        .filter(|d| supported.is_empty() || supported.contains(d))
        .or_else(|| supported.first().copied())
        .unwrap_or(5.0);
    let requested = match body.get("duration") {
        None | Some(Value::Null) => return Ok(fallback),
        Some(value) => value.as_f64().filter(|d| d.is_finite() && *d > 0.0),
    };
    let Some(requested) = requested else {
        return Err(field_error(
            "INVALID_DURATION",
            "duration must be a positive number of seconds",
        ));
    };
    if supported.is_empty() {
        if requested <= MAX_CLIP_SECS {
            return Ok(requested);
        }
    } else if supported.iter().any(|d| (d - requested).abs() < 1e-9) {
        return Ok(requested);
    }
    let allowed = if supported.is_empty() {
        format!("up to {MAX_CLIP_SECS}")
    } else {
        seconds_list(&supported)
    };
    Err(field_error(
        "INVALID_DURATION",
        format!(
            "duration {requested} s is not offered by model {}. Allowed values: {allowed}",
            spec.identifier
        ),
    ))
}

/// `aspect_ratio`: one the model lists for `catalog_type`; omitted = its default.
fn aspect_ratio(
    body: &Map<String, Value>,
    spec: &ModelSpec,
    catalog_type: &str,
) -> ApiResult<String> {
    let allowed = spec.aspect_ratios_for(catalog_type);
    let fallback = spec
        .default_aspect_ratio
        .clone()
        .or_else(|| allowed.first().cloned())
        .unwrap_or_else(|| "16:9".to_owned());
    let Some(value) = optional_text(body, "aspect_ratio")
        .map_err(|_| field_error("INVALID_ASPECT_RATIO", "aspect_ratio must be a string"))?
    else {
        return Ok(fallback);
    };
    let listed = allowed.is_empty() || allowed.contains(&value);
    if listed && parse_aspect_ratio(&value).is_some() {
        return Ok(value);
    }
    let allowed_text = if allowed.is_empty() {
        "W:H with positive integers".to_owned()
    } else {
        allowed.join(", ")
    };
    Err(field_error(
        "INVALID_ASPECT_RATIO",
        format!(
            "Unsupported aspect_ratio '{value}' for model {}. Allowed values: {allowed_text}",
            spec.identifier
        ),
    ))
}

/// `visual_dna_ids` against the model: none when it does not take Visual DNA, at most its
/// `max_visual_dna` (the shape and the global cap of 3 are `validate_extras`').
fn visual_dna(body: &Map<String, Value>, spec: &ModelSpec) -> ApiResult<()> {
    let count = body
        .get("visual_dna_ids")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if count == 0 {
        return Ok(());
    }
    if !spec.supports_visual_dna {
        return Err(field_error(
            "INVALID_VISUAL_DNA",
            format!("model {} does not take visual_dna_ids", spec.identifier),
        ));
    }
    let cap = spec.max_visual_dna.unwrap_or(3) as usize;
    if count > cap {
        return Err(field_error(
            "INVALID_VISUAL_DNA",
            format!(
                "visual_dna_ids has {count} ids; model {} takes at most {cap}",
                spec.identifier
            ),
        ));
    }
    Ok(())
}

/// Downloads an input at submit; a failure is the caller's 400 naming the field.
async fn download(state: &AppState, field: &str, url: &str, code: &str) -> ApiResult<Vec<u8>> {
    fetch_policy::fetch(state, url, SOURCE_LIMITS)
        .await
        .map_err(|error| match error {
            SourceFetchError::Internal => field_error(code, internal_address_message(field)),
            other => field_error(code, format!("{field} could not be downloaded: {other}")),
        })
}

fn check_file_size(spec: &ModelSpec, field: &str, bytes: &[u8]) -> ApiResult<()> {
    match spec.max_file_size {
        Some(max) if max > 0 && bytes.len() as u64 > max => Err(field_error(
            "FILE_TOO_LARGE",
            format!(
                "{field} is {} bytes; model {} accepts files up to {max} bytes",
                bytes.len(),
                spec.identifier
            ),
        )),
        _ => Ok(()),
    }
}

/// What every route fills in the same way.
struct Job<'a> {
    kind: &'static str,
    spec: &'a ModelSpec,
    model_echo: String,
    prompt: String,
    prompt_used: String,
    aspect_ratio: String,
    resolution: String,
    seed: i64,
    source_images: Vec<String>,
    duration_secs: f64,
    cost: f64,
}

fn submit(
    state: &AppState,
    caller: &Caller,
    body: Map<String, Value>,
    job: Job<'_>,
) -> ApiResult<Response> {
    let project_id = resolve_project(state, &caller.user_id, body.get("project_id"))?;
    let minimum = job.cost;
    let generation = NewGeneration {
        id: new_object_id(),
        user_id: caller.user_id.clone(),
        project_id,
        session_id: new_object_id(),
        kind: job.kind.to_owned(),
        model_echo: Some(job.model_echo.clone()),
        model: job.spec.identifier.clone(),
        provider: job.spec.provider.clone(),
        prompt: job.prompt,
        prompt_used: job.prompt_used,
        aspect_ratio: job.aspect_ratio,
        resolution: job.resolution,
        quality: None,
        num_images: 1,
        seed: job.seed,
        source_images: job.source_images,
        request_json: Value::Object(body).to_string(),
        duration_ms: scaled_duration_ms(state, BASE_DURATION_MS),
        credits_reserved: job.cost,
        credit_base: job.spec.credit,
        planned_failure: state
            .controls
            .plan_failure(&job.spec.provider)
            .map(|f| f.to_string()),
        look_json: None,
        video_duration_secs: Some(job.duration_secs),
        batch_id: None,
        scene_number: None,
    };
    bill_and_start(
        state,
        &generation,
        minimum,
        SubmitReceipt {
            model_echo: json!(job.model_echo),
            credits_charged: Some(job.cost),
            poll_interval_hint_secs: POLL_INTERVAL_HINT_SECS,
            status: StatusCode::ACCEPTED,
        },
    )
}

/// A reference count against its cap (a cap of 0 or none = the kind is not taken).
fn check_cap(spec: &ModelSpec, field: &str, count: usize, cap: Option<u32>) -> ApiResult<()> {
    let cap = cap.unwrap_or(0) as usize;
    if count > cap {
        let message = if cap == 0 {
            format!("model {} takes no {field}", spec.identifier)
        } else {
            format!(
                "{field} has {count} entries; model {} takes at most {cap}",
                spec.identifier
            )
        };
        return Err(field_error("TOO_MANY_REFERENCES", message));
    }
    Ok(())
}

pub(crate) async fn elements(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    let body = json_object(&body)?;
    let (model_echo, spec) = resolve_model(&state.catalog, body.get("model"), ELEMENTS_TYPE)?;
    let prompt = prompt(&body, spec, true)?;
    let images = url_list(&state, &body, "reference_images")?;
    let videos = url_list(&state, &body, "reference_videos")?;
    let audio = url_list(&state, &body, "reference_audio_urls")?;
    check_cap(
        spec,
        "reference_images",
        images.len(),
        spec.elements_max_images,
    )?;
    check_cap(
        spec,
        "reference_videos",
        videos.len(),
        spec.elements_max_videos,
    )?;
    check_cap(
        spec,
        "reference_audio_urls",
        audio.len(),
        spec.elements_max_audio,
    )?;
    let total = images.len() + videos.len() + audio.len();
    if total == 0 {
        return Err(field_error(
            "REFERENCE_REQUIRED",
            "elements needs at least one reference: reference_images, reference_videos or reference_audio_urls",
        ));
    }
    if let Some(cap) = spec.max_total_media.filter(|cap| *cap > 0)
        && total > cap as usize
    {
        return Err(field_error(
            "TOO_MANY_REFERENCES",
            format!(
                "{total} references in all; model {} takes at most {cap} (images, videos and audio together)",
                spec.identifier
            ),
        ));
    }
    let duration_secs = duration(&body, spec)?;
    let aspect_ratio = aspect_ratio(&body, spec, ELEMENTS_TYPE)?;
    let resolution = video_resolution(&body, spec)?;
    validate_extras(&body)?;
    visual_dna(&body, spec)?;
    // Unknown or still-building ids are refused before anything is billed, as on the
    // other routes that take Visual DNA; their system prompts join the prompt used.
    let refs = crate::sandbox::visual_dna::refs::resolve(
        &state,
        &caller.user_id,
        &body,
        spec.max_visual_dna,
    )?;
    match body.get("sound_enabled") {
        None | Some(Value::Null) | Some(Value::Bool(_)) => {}
        Some(_) => {
            return Err(field_error(
                "INVALID_PARAMETER",
                "sound_enabled must be a boolean",
            ));
        }
    }
    let seed = validate_seed(&body, &prompt)?;
    let cost = per_output_second_cost(spec, &resolution, duration_secs);
    let mut source_images = images;
    source_images.extend(videos);
    source_images.extend(audio);
    let job = Job {
        kind: ELEMENTS_KIND,
        spec,
        model_echo,
        prompt_used: refs.extend_prompt(prompt.clone()),
        prompt,
        aspect_ratio,
        resolution,
        seed,
        source_images,
        duration_secs,
        cost,
    };
    submit(&state, &caller, body, job)
}

pub(crate) async fn first_last_frame(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    let body = json_object(&body)?;
    let first_url = required_url(&state, &body, "first_frame_url", "INVALID_IMAGE_URL")?;
    let last_url = required_url(&state, &body, "last_frame_url", "INVALID_IMAGE_URL")?;
    let (model_echo, spec) = resolve_model(&state.catalog, body.get("model"), FIRST_LAST_TYPE)?;
    if !spec.supports_first_last_frame {
        return Err(field_error(
            "INVALID_MODEL",
            format!(
                "model {} does not take a first and a last frame",
                spec.identifier
            ),
        ));
    }
    let prompt = prompt(&body, spec, false)?;
    let duration_secs = duration(&body, spec)?;
    let aspect_ratio = aspect_ratio(&body, spec, FIRST_LAST_TYPE)?;
    let resolution = video_resolution(&body, spec)?;
    let seed = validate_seed(&body, &format!("{first_url} {last_url} {prompt}"))?;
    for (field, url) in [
        ("first_frame_url", &first_url),
        ("last_frame_url", &last_url),
    ] {
        let bytes = download(&state, field, url, "INVALID_IMAGE_URL").await?;
        check_file_size(spec, field, &bytes)?;
        let readable = tokio::task::spawn_blocking(move || {
            crate::sandbox::fetch::decode_image(&bytes).map(|_| ())
        })
        .await
        .map_err(|e| ApiError::internal("first-last frame", e))?;
        if let Err(error) = readable {
            return Err(field_error(
                "INVALID_IMAGE",
                format!("{field} is not an image the sandbox can read ({error})"),
            ));
        }
    }
    let prompt_used = if prompt.is_empty() {
        "A smooth camera move from the first frame to the last".to_owned()
    } else {
        prompt.clone()
    };
    let cost = per_output_second_cost(spec, &resolution, duration_secs);
    let job = Job {
        kind: FIRST_LAST_KIND,
        spec,
        model_echo,
        prompt,
        prompt_used,
        aspect_ratio,
        resolution,
        seed,
        source_images: vec![first_url, last_url],
        duration_secs,
        cost,
    };
    submit(&state, &caller, body, job)
}

/// The named model of a lip-sync request (before the source decides the type): `None`
/// for auto; a name that is no lip-sync model is a 400 before anything is downloaded.
fn named_lipsync_model<'a>(
    state: &'a AppState,
    body: &Map<String, Value>,
) -> ApiResult<Option<&'a ModelSpec>> {
    let name = match body.get("model") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(name)) => name.trim(),
        Some(_) => return Err(field_error("INVALID_MODEL", "model must be a string")),
    };
    if AUTO_MODEL_ALIASES.contains(&name.to_ascii_lowercase().as_str()) {
        return Ok(None);
    }
    state
        .catalog
        .find(name, LIPSYNC_IMAGE_TYPE)
        .or_else(|| state.catalog.find(name, LIPSYNC_VIDEO_TYPE))
        .map(Some)
        .ok_or_else(|| field_error("MODEL_NOT_FOUND", format!("Model '{name}' not found")))
}

/// The supported ratio nearest (in log space) to `width` x `height`.
fn nearest_ratio(width: u32, height: u32, spec: &ModelSpec) -> String {
    let listed = spec.aspect_ratios_for(LIPSYNC_IMAGE_TYPE);
    let candidates: Vec<&str> = if listed.is_empty() {
        COMMON_RATIOS.to_vec()
    } else {
        listed.iter().map(String::as_str).collect()
    };
    let target = (f64::from(width.max(1)) / f64::from(height.max(1))).ln();
    let mut best = ("16:9", f64::INFINITY);
    for candidate in candidates {
        if let Some((w, h)) = parse_aspect_ratio(candidate) {
            let distance = ((f64::from(w) / f64::from(h)).ln() - target).abs();
            if distance < best.1 {
                best = (candidate, distance);
            }
        }
    }
    best.0.to_owned()
}

pub(crate) async fn lipsync(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    let body = json_object(&body)?;
    let source_url = required_url(&state, &body, "source_url", "INVALID_SOURCE_URL")?;
    let audio_url = optional_url(&state, &body, "audio_url", "INVALID_AUDIO_URL")?;
    let text_prompt = optional_text(&body, "text_prompt")?;
    if audio_url.is_some() && text_prompt.is_some() {
        return Err(field_error(
            "INVALID_PARAMETER",
            "send either audio_url or text_prompt, not both",
        ));
    }
    if audio_url.is_none() && text_prompt.is_none() {
        // The lip-sync edit operation's words (contract: "with neither, 400").
        return Err(field_error(
            "AUDIO_REQUIRED",
            "lipsync needs audio_url or text_prompt",
        ));
    }
    if let Some(text) = &text_prompt
        && text.chars().count() > MAX_TEXT_PROMPT_CHARS
    {
        return Err(field_error(
            "INVALID_TEXT_PROMPT",
            format!("text_prompt is longer than {MAX_TEXT_PROMPT_CHARS} characters"),
        ));
    }
    // A voice speaks the text; with an audio file it means nothing and is not checked.
    let voice = match optional_text(&body, "voice")? {
        Some(voice) if text_prompt.is_some() => match voices::find(&voice) {
            Some(found) => Some(found.voice_id.to_owned()),
            None => {
                return Err(ApiError::sdk(
                    StatusCode::NOT_FOUND,
                    "VOICE_NOT_FOUND",
                    format!("Voice '{voice}' not found"),
                ));
            }
        },
        _ => None,
    };
    let named = named_lipsync_model(&state, &body)?;
    optional_text(&body, "prompt")
        .map_err(|_| field_error("INVALID_PROMPT", "prompt must be a string"))?;
    let source_bytes = download(&state, "source_url", &source_url, "INVALID_SOURCE_URL").await?;
    let source_len = source_bytes.len();
    let source = tokio::task::spawn_blocking(move || classify_source(source_bytes))
        .await
        .map_err(|e| ApiError::internal("lipsync", e))?
        .ok_or_else(|| {
            field_error(
                "INVALID_SOURCE",
                "source_url is neither an image nor a video the sandbox can read",
            )
        })?;
    let (catalog_type, what) = match &source {
        FaceSource::Image(_) => (LIPSYNC_IMAGE_TYPE, "an image"),
        FaceSource::Video { .. } => (LIPSYNC_VIDEO_TYPE, "a video"),
    };
    let (model_echo, spec) = match named {
        Some(spec) if spec.has_type(catalog_type) => (spec.identifier.clone(), spec),
        Some(spec) => {
            return Err(field_error(
                "INVALID_SOURCE",
                format!(
                    "model {} does not make lip sync from {what}; source_url is {what}",
                    spec.identifier
                ),
            ));
        }
        None => resolve_model(&state.catalog, None, catalog_type)?,
    };
    if let Some(max) = spec.max_file_size.filter(|max| *max > 0)
        && source_len as u64 > max
    {
        return Err(field_error(
            "FILE_TOO_LARGE",
            format!(
                "source_url is {source_len} bytes; model {} accepts files up to {max} bytes",
                spec.identifier
            ),
        ));
    }
    let resolution = video_resolution(&body, spec)?;
    let audio_bytes = match &audio_url {
        Some(url) => {
            let bytes = download(&state, "audio_url", url, "INVALID_AUDIO_URL").await?;
            check_file_size(spec, "audio_url", &bytes)?;
            let formats = spec.supported_audio_formats.clone().unwrap_or_default();
            let format = motion_audio::audio_format(&bytes);
            if !formats.is_empty() && !format.is_some_and(|f| formats.iter().any(|a| a == f)) {
                return Err(field_error(
                    "UNSUPPORTED_AUDIO_FORMAT",
                    format!(
                        "audio_url is {}; model {} takes {}",
                        format.map_or("not a known audio format".to_owned(), |f| format!(
                            "{f} audio"
                        )),
                        spec.identifier,
                        formats.join(", ")
                    ),
                ));
            }
            Some(bytes)
        }
        None => None,
    };
    let seed_text = text_prompt.clone().unwrap_or_else(|| source_url.clone());
    let seed = validate_seed(&body, &seed_text)?;
    let (text, voice_for_render) = (text_prompt.clone(), voice.clone());
    let sound = tokio::task::spawn_blocking(move || {
        lipsync_sound(
            audio_bytes.as_deref(),
            text.as_deref(),
            voice_for_render.as_deref(),
            seed,
        )
    })
    .await
    .map_err(|e| ApiError::internal("lipsync", e))?
    .map_err(|why| field_error("INVALID_AUDIO", format!("audio_url: {why}")))?;
    let audio_secs = motion_audio::duration_secs(&sound);
    let round = |secs: f64| (secs * 100.0).round() / 100.0;
    let min_secs = spec.min_audio_duration.unwrap_or(0.0);
    if audio_secs < min_secs {
        return Err(field_error(
            "AUDIO_TOO_SHORT",
            format!(
                "The audio lasts {} s; model {} needs at least {min_secs} s",
                round(audio_secs),
                spec.identifier
            ),
        ));
    }
    let max_secs = spec
        .max_audio_duration
        .unwrap_or(MAX_CLIP_SECS)
        .min(MAX_CLIP_SECS);
    if audio_secs > max_secs {
        return Err(field_error(
            "AUDIO_TOO_LONG",
            format!(
                "The audio lasts {} s; model {} takes at most {max_secs} s",
                round(audio_secs),
                spec.identifier
            ),
        ));
    }
    let aspect_ratio = match &source {
        FaceSource::Image(image) => nearest_ratio(image.width(), image.height(), spec),
        FaceSource::Video { mp4, duration_secs } => {
            if spec.audio_max_follows_video_duration
                && audio_secs > duration_secs + FOLLOW_TOLERANCE_SECS
            {
                return Err(field_error(
                    "AUDIO_TOO_LONG",
                    format!(
                        "The audio lasts {} s, longer than the source video ({} s); model {} needs audio no longer than the video",
                        round(audio_secs),
                        round(*duration_secs),
                        spec.identifier
                    ),
                ));
            }
            match crate::sandbox::video::probe_video(mp4) {
                Ok(probe) => nearest_ratio(probe.width, probe.height, spec),
                Err(_) => "16:9".to_owned(),
            }
        }
    };
    let billed_secs = billed_secs(audio_secs);
    let cost = per_output_second_cost(spec, &resolution, billed_secs);
    let prompt = optional_text(&body, "prompt")?.unwrap_or_default();
    let spoken = match (&text_prompt, &voice) {
        (Some(text), Some(voice)) => format!("Speaks \"{text}\" in voice {voice}"),
        (Some(text), None) => format!("Speaks \"{text}\" in voice {DEFAULT_VOICE}"),
        _ => "Lip sync to the given audio".to_owned(),
    };
    let prompt_used = if prompt.is_empty() {
        spoken
    } else {
        format!("{spoken}; {prompt}")
    };
    let job = Job {
        kind: LIPSYNC_KIND,
        spec,
        model_echo,
        prompt: text_prompt.unwrap_or(prompt),
        prompt_used,
        aspect_ratio,
        resolution,
        seed,
        source_images: vec![source_url],
        duration_secs: audio_secs,
        cost,
    };
    submit(&state, &caller, body, job)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lipsync_bills_started_seconds_with_a_small_grace() {
        assert_eq!(billed_secs(0.4), 1.0);
        assert_eq!(billed_secs(1.0), 1.0);
        assert_eq!(billed_secs(1.03), 1.0);
        assert_eq!(billed_secs(1.2), 2.0);
        assert_eq!(billed_secs(2.96), 3.0);
    }
}
