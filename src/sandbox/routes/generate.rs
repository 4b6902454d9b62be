//! POST /v1/generate/image (200) and POST /v1/generate/image-edit (201).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use super::{json_object, resolve_project};
use crate::palette::{PaletteColor, grading_directive};
use crate::sandbox::auth::Caller;
use crate::sandbox::catalog::{Catalog, ModelSpec};
use crate::sandbox::cinematic;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::{fnv1a, new_object_id};
use crate::sandbox::jobs;
use crate::sandbox::look::Look;
use crate::sandbox::pricing::{image_cost, round_credits};
use crate::sandbox::render::parse_aspect_ratio;
use crate::sandbox::state::AppState;
use crate::sandbox::store::{CreateOutcome, NewGeneration};

const POLL_INTERVAL_HINT_SECS: u64 = 3;
const MAX_VISUAL_DNA_IDS: usize = 3;
pub(super) const AUTO_MODEL_ALIASES: [&str; 7] = [
    "",
    "auto",
    "auto-select",
    "smart-select",
    "smart_select",
    "smartselect",
    "router",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Image,
    ImageEdit,
}

impl Kind {
    fn wire_type(self) -> &'static str {
        match self {
            Kind::Image => "image",
            Kind::ImageEdit => "image_edit",
        }
    }

    fn catalog_type(self) -> &'static str {
        match self {
            Kind::Image => "text_to_img",
            Kind::ImageEdit => "image_editing",
        }
    }

    fn success_status(self) -> StatusCode {
        match self {
            Kind::Image => StatusCode::OK,
            Kind::ImageEdit => StatusCode::CREATED,
        }
    }

    /// Realistic wall time at speed 1.0.
    fn base_duration_ms(self) -> f64 {
        match self {
            Kind::Image => 6_000.0,
            Kind::ImageEdit => 8_000.0,
        }
    }
}

pub(crate) async fn image(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    submit(state, caller, &body, Kind::Image)
}

pub(crate) async fn image_edit(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    submit(state, caller, &body, Kind::ImageEdit)
}

/// `enhance_prompt` as sent (validated where a route requires a boolean); default true.
pub(super) fn enhance_flag(body: &Map<String, Value>) -> bool {
    body.get("enhance_prompt")
        .and_then(Value::as_bool)
        .unwrap_or(true)
}

/// The project's active palette colours, unless `skip` (the request opted out, or the route
/// is never graded).
pub(super) fn project_grade(
    state: &AppState,
    user_id: &str,
    project_id: &str,
    skip: bool,
) -> ApiResult<Option<Vec<PaletteColor>>> {
    if skip {
        return Ok(None);
    }
    Ok(state
        .palette_cache
        .resolve(&state.store, user_id, project_id)?
        .filter(|colors| !colors.is_empty()))
}

/// Simulated wall time of one job at the sandbox's speed, with the usual jitter.
pub(super) fn scaled_duration_ms(state: &AppState, base_ms: f64) -> u64 {
    let jitter = 0.85 + 0.3 * state.controls.jitter();
    let speed = if state.speed.is_finite() && state.speed > 0.0 {
        state.speed
    } else {
        1.0
    };
    (base_ms * jitter / speed).max(1.0) as u64
}

/// 403 INSUFFICIENT_CREDITS with the balance and the minimum the request needed.
pub(super) fn insufficient(available: f64, minimum: f64) -> ApiError {
    ApiError::sdk(
        StatusCode::FORBIDDEN,
        "INSUFFICIENT_CREDITS",
        format!("Insufficient credits: balance {available}, minimum {minimum}"),
    )
}

/// A submit's answer with `status`, or an aborted body when a dropped-answer fault is
/// armed (the job exists; only the answer is lost).
pub(super) fn submit_answer(
    state: &AppState,
    id: &str,
    status: StatusCode,
    response: Value,
) -> Response {
    if state.controls.take_dropped_response() {
        state.faults.count_dropped_submit_answer();
        tracing::info!(generation_id = %id, fault = "drop_submit_answer", "fault injected: submit answer lost after its job was created");
        return crate::sandbox::fault_inject::lost_response(status);
    }
    (status, Json(response)).into_response()
}

/// How a submit is answered besides the job's own ids.
pub(super) struct SubmitReceipt {
    pub(super) model_echo: Value,
    /// `None` when the charge is settled on completion (from the real source length).
    pub(super) credits_charged: Option<f64>,
    pub(super) poll_interval_hint_secs: u64,
    pub(super) status: StatusCode,
}

/// Bills and starts a job, the one way every submit does it: reserves `minimum` credits
/// with the row (403 INSUFFICIENT_CREDITS when the balance is short, nothing stored), starts
/// the job and answers with its ids and poll address.
pub(super) fn bill_and_start(
    state: &AppState,
    generation: &NewGeneration,
    minimum: f64,
    receipt: SubmitReceipt,
) -> ApiResult<Response> {
    if let CreateOutcome::InsufficientCredits { available } =
        state.store.create_generation(generation, minimum)?
    {
        return Err(insufficient(available, minimum));
    }
    tracing::info!(generation_id = %generation.id, kind = %generation.kind, model = %generation.model, "generation submitted");
    jobs::spawn(state.clone(), generation.id.clone());
    let response = json!({
        "success": true,
        "generation_id": generation.id,
        "type": generation.kind,
        "model": receipt.model_echo,
        "credits_charged": receipt.credits_charged,
        "poll_url": format!("/api/v1/generate/{}/status", generation.id),
        "poll_interval_hint": receipt.poll_interval_hint_secs,
        "session_id": generation.session_id,
        "project_id": generation.project_id,
    });
    Ok(submit_answer(
        state,
        &generation.id,
        receipt.status,
        response,
    ))
}

pub(super) fn bad_request(code: &str, message: impl Into<String>) -> ApiError {
    ApiError::sdk(StatusCode::BAD_REQUEST, code, message)
}

/// Resolves `model` for a raw catalog type: auto aliases route to the type's default
/// (echoed as "auto").
pub(super) fn resolve_model<'a>(
    catalog: &'a Catalog,
    value: Option<&Value>,
    catalog_type: &str,
) -> ApiResult<(String, &'a ModelSpec)> {
    let requested = match value {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => {
            let trimmed = name.trim();
            let lowered = trimmed.to_ascii_lowercase();
            if AUTO_MODEL_ALIASES.contains(&lowered.as_str()) {
                None
            } else {
                Some(trimmed)
            }
        }
        Some(_) => return Err(bad_request("INVALID_MODEL", "model must be a string")),
    };
    match requested {
        None => catalog
            .default_for(catalog_type)
            .map(|spec| ("auto".to_owned(), spec))
            .ok_or_else(|| ApiError::internal("model routing", "no model of this type")),
        Some(name) => catalog
            .find(name, catalog_type)
            .map(|spec| (spec.identifier.clone(), spec))
            .ok_or_else(|| bad_request("MODEL_NOT_FOUND", format!("Model '{name}' not found"))),
    }
}

fn optional_string<'a>(body: &'a Map<String, Value>, field: &str) -> ApiResult<Option<&'a str>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(value)) => Ok(Some(value.trim())),
        Some(_) => Err(bad_request(
            "INVALID_PARAMETER",
            format!("{field} must be a string"),
        )),
    }
}

fn validate_aspect_ratio(
    body: &Map<String, Value>,
    spec: &ModelSpec,
    kind: Kind,
) -> ApiResult<String> {
    let allowed = spec.aspect_ratios();
    let requested = match body.get("aspect_ratio") {
        None | Some(Value::Null) => None,
        Some(Value::String(value)) => Some(value.trim().to_owned()),
        Some(_) => {
            return Err(bad_request(
                "INVALID_ASPECT_RATIO",
                "aspect_ratio must be a string",
            ));
        }
    };
    let value = match requested {
        Some(value) => value,
        None => {
            // Contract default is 1:1 (image-edit); otherwise the model's own default.
            let preferred = match kind {
                Kind::ImageEdit => Some("1:1"),
                Kind::Image => spec.default_aspect_ratio.as_deref(),
            };
            preferred
                .filter(|r| allowed.is_empty() || allowed.iter().any(|a| a == r))
                .map(str::to_owned)
                .or_else(|| spec.default_aspect_ratio.clone())
                .or_else(|| allowed.first().cloned())
                .unwrap_or_else(|| "1:1".to_owned())
        }
    };
    let listed = allowed.is_empty() || allowed.contains(&value);
    if !listed || parse_aspect_ratio(&value).is_none() {
        let allowed_text = if allowed.is_empty() {
            "W:H with positive integers".to_owned()
        } else {
            allowed.join(", ")
        };
        return Err(bad_request(
            "INVALID_ASPECT_RATIO",
            format!(
                "Unsupported aspect_ratio '{value}' for model {}. Allowed values: {allowed_text}",
                spec.identifier
            ),
        ));
    }
    Ok(value)
}

pub(super) fn validate_resolution(
    body: &Map<String, Value>,
    spec: &ModelSpec,
) -> ApiResult<String> {
    let allowed = spec.resolutions();
    let requested = match body.get("resolution") {
        None | Some(Value::Null) => None,
        Some(Value::String(value)) => Some(value.trim().to_uppercase()),
        Some(_) => {
            return Err(bad_request(
                "INVALID_RESOLUTION",
                "resolution must be a string",
            ));
        }
    };
    let fallback = || {
        if allowed.is_empty() || allowed.iter().any(|r| r == "1K") {
            "1K".to_owned()
        } else {
            allowed[0].clone()
        }
    };
    let value = requested.unwrap_or_else(fallback);
    let ok = if allowed.is_empty() {
        value == "1K"
    } else {
        allowed.contains(&value)
    };
    if !ok {
        let allowed_text = if allowed.is_empty() {
            "1K".to_owned()
        } else {
            allowed.join(", ")
        };
        return Err(bad_request(
            "INVALID_RESOLUTION",
            format!(
                "Unsupported resolution '{value}' for model {}. Allowed values: {allowed_text}",
                spec.identifier
            ),
        ));
    }
    Ok(value)
}

fn validate_quality(body: &Map<String, Value>, spec: &ModelSpec) -> ApiResult<Option<String>> {
    let allowed = spec.qualities();
    match optional_string(body, "quality")? {
        None => Ok(spec.default_quality.clone().filter(|_| !allowed.is_empty())),
        Some(value) if allowed.iter().any(|q| q == value) => Ok(Some(value.to_owned())),
        Some(value) => Err(bad_request(
            "INVALID_QUALITY",
            format!(
                "Unsupported quality '{value}' for model {}. Allowed values: {}",
                spec.identifier,
                if allowed.is_empty() {
                    "none".to_owned()
                } else {
                    allowed.join(", ")
                }
            ),
        )),
    }
}

fn validate_num_images(body: &Map<String, Value>, spec: &ModelSpec) -> ApiResult<u32> {
    // Documented for image-edit; the image route's remaining fields are "not shown", and
    // the sandbox honours num_images there too (the catalog's images_per_request bounds it).
    let max = spec.images_per_request.unwrap_or(1).max(1);
    match body.get("num_images") {
        None | Some(Value::Null) => Ok(1),
        Some(value) => match value.as_u64() {
            Some(n) if n >= 1 && n <= u64::from(max) => Ok(n as u32),
            _ => Err(bad_request(
                "INVALID_NUM_IMAGES",
                format!(
                    "num_images must be an integer from 1 to {max} for model {}",
                    spec.identifier
                ),
            )),
        },
    }
}

fn validate_sources(
    body: &Map<String, Value>,
    spec: &ModelSpec,
    kind: Kind,
) -> ApiResult<Vec<String>> {
    if kind == Kind::Image {
        return Ok(Vec::new());
    }
    let max = spec.max_reference_images.unwrap_or(1).max(1) as usize;
    let items = match body.get("source_images") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(bad_request(
                "INVALID_SOURCE_IMAGES",
                "source_images must be an array of URLs",
            ));
        }
    };
    if items.len() > max {
        return Err(bad_request(
            "INVALID_SOURCE_IMAGES",
            format!(
                "Too many source_images: {} given, model {} accepts at most {max}",
                items.len(),
                spec.identifier
            ),
        ));
    }
    items
        .iter()
        .map(|item| match item {
            Value::String(url) if url.starts_with("http://") || url.starts_with("https://") => {
                Ok(url.trim().to_owned())
            }
            _ => Err(bad_request(
                "INVALID_SOURCE_IMAGES",
                "Every source_images entry must be an http(s) URL string",
            )),
        })
        .collect()
}

pub(super) fn validate_extras(body: &Map<String, Value>) -> ApiResult<()> {
    optional_string(body, "moodboard_id")?;
    match body.get("visual_dna_ids") {
        None | Some(Value::Null) => {}
        Some(Value::Array(ids)) if ids.len() > MAX_VISUAL_DNA_IDS => {
            return Err(bad_request(
                "INVALID_VISUAL_DNA",
                format!("visual_dna_ids accepts at most {MAX_VISUAL_DNA_IDS} ids"),
            ));
        }
        Some(Value::Array(ids)) if ids.iter().all(Value::is_string) => {}
        Some(_) => {
            return Err(bad_request(
                "INVALID_VISUAL_DNA",
                "visual_dna_ids must be an array of strings",
            ));
        }
    }
    match body.get("enhance_prompt") {
        None | Some(Value::Null) | Some(Value::Bool(_)) => Ok(()),
        Some(_) => Err(bad_request(
            "INVALID_PARAMETER",
            "enhance_prompt must be a boolean",
        )),
    }
}

pub(super) fn validate_seed(body: &Map<String, Value>, prompt: &str) -> ApiResult<i64> {
    match body.get("seed") {
        // No seed: derive one from the prompt, so the same prompt renders the same art.
        None | Some(Value::Null) => Ok((fnv1a(prompt.as_bytes()) >> 33) as i64),
        Some(value) => value
            .as_i64()
            .ok_or_else(|| bad_request("INVALID_SEED", "seed must be an integer")),
    }
}

/// A short deterministic "enhancement" appended when enhance_prompt is on (the default).
/// `prompt_used` with the project's grading directive appended when the job is graded.
pub(super) fn with_grade_directive(prompt_used: String, grade: Option<&[PaletteColor]>) -> String {
    match grade {
        Some(colors) => format!("{prompt_used} {}", grading_directive(colors)),
        None => prompt_used,
    }
}

pub(super) fn enhanced_prompt(prompt: &str, enhance: bool) -> String {
    const SUFFIXES: [&str; 6] = [
        "cinematic lighting, rich detail, balanced composition",
        "soft volumetric light, painterly texture, harmonious palette",
        "dramatic contrast, sharp focus, layered depth",
        "golden-hour glow, gentle film grain, elegant framing",
        "high detail, vivid colour, clean studio composition",
        "atmospheric haze, subtle gradients, striking silhouette",
    ];
    if !enhance {
        return prompt.to_owned();
    }
    let suffix = SUFFIXES[(fnv1a(prompt.as_bytes()) % SUFFIXES.len() as u64) as usize];
    format!(
        "{}, {suffix}",
        prompt.trim_end().trim_end_matches(['.', ','])
    )
}

fn submit(state: AppState, caller: Caller, raw_body: &[u8], kind: Kind) -> ApiResult<Response> {
    let body = json_object(raw_body)?;
    let prompt = match body.get("prompt") {
        Some(Value::String(prompt)) if !prompt.trim().is_empty() => prompt.clone(),
        _ => {
            return Err(bad_request(
                "INVALID_PROMPT",
                "Prompt is required and must be a non-empty string",
            ));
        }
    };
    let (model_echo, spec) = resolve_model(&state.catalog, body.get("model"), kind.catalog_type())?;
    let (min_chars, max_chars) = spec.prompt_length_bounds();
    let prompt_chars = prompt.chars().count();
    if prompt_chars > max_chars {
        return Err(bad_request(
            "INVALID_PROMPT",
            format!(
                "Prompt is too long ({prompt_chars} characters); model {} allows at most {max_chars}",
                spec.identifier
            ),
        ));
    }
    if prompt_chars < min_chars {
        return Err(bad_request(
            "INVALID_PROMPT",
            format!(
                "Prompt is too short ({prompt_chars} characters); model {} needs at least {min_chars}",
                spec.identifier
            ),
        ));
    }
    let aspect_ratio = validate_aspect_ratio(&body, spec, kind)?;
    let resolution = validate_resolution(&body, spec)?;
    let quality = validate_quality(&body, spec)?;
    let num_images = validate_num_images(&body, spec)?;
    let source_images = validate_sources(&body, spec, kind)?;
    validate_extras(&body)?;
    let refs = crate::sandbox::visual_dna::refs::resolve(
        &state,
        &caller.user_id,
        &body,
        spec.max_visual_dna,
    )?;
    let chosen_presets = cinematic::choose(body.get("cinematic"))
        .map_err(|error| bad_request("INVALID_CINEMATIC", error.to_string()))?;
    let seed = validate_seed(&body, &prompt)?;
    let enhance = enhance_flag(&body);
    let project_id = resolve_project(&state, &caller.user_id, body.get("project_id"))?;
    // Only the JSON literal `true` opts out; the string "true" is treated as false.
    let skip_grade = body.get("skip_color_palette") == Some(&Value::Bool(true));
    let grade = project_grade(&state, &caller.user_id, &project_id, skip_grade)?;
    let mut prompt_used = enhanced_prompt(&prompt, enhance);
    if let Some(fragment) = cinematic::prompt_fragment(&chosen_presets) {
        prompt_used = format!("{prompt_used}. {fragment}");
    }
    prompt_used = with_grade_directive(prompt_used, grade.as_deref());
    let mut look = Look {
        effects: chosen_presets
            .iter()
            .map(|(_, p)| p.effect.clone())
            .collect(),
        ..Look::default()
    };
    if let Some(colors) = &grade {
        look = look.with_grade(colors);
    }
    refs.apply_to(&mut look);
    prompt_used = refs.extend_prompt(prompt_used);
    let look_json = if look.is_empty() {
        None
    } else {
        serde_json::to_string(&look).ok()
    };

    let cost = image_cost(spec, &resolution, quality.as_deref(), num_images);
    // The per-type minimum is the request's own cost, never below the type's cheapest model.
    let minimum = round_credits(cost.max(state.catalog.cheapest_credit(kind.catalog_type())));
    let planned_failure = state
        .controls
        .plan_failure(&spec.provider)
        .map(|f| f.to_string());
    let duration_ms = scaled_duration_ms(&state, kind.base_duration_ms());

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
        quality,
        num_images,
        seed,
        source_images,
        request_json: Value::Object(body).to_string(),
        duration_ms,
        credits_reserved: cost,
        credit_base: spec.credit,
        planned_failure,
        look_json,
        video_duration_secs: None,
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
            poll_interval_hint_secs: POLL_INTERVAL_HINT_SECS,
            status: kind.success_status(),
        },
    )
}
