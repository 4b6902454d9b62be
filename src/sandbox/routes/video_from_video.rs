//! POST /v1/generate/video-from-video (202): the source restyled following the prompt by a
//! `video_to_video` model. The model is always explicit (MODEL_REQUIRED otherwise); the
//! fields beyond the contract's "not shown" are in docs/SANDBOX.md ("Video edit,
//! video-to-video and trim routes").

use axum::Extension;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::generate::{
    SubmitReceipt, bad_request, bill_and_start, enhance_flag, enhanced_prompt, project_grade,
    scaled_duration_ms, validate_extras, validate_seed, with_grade_directive,
};
use super::video::video_resolution;
use super::{json_object, resolve_project};
use crate::sandbox::auth::Caller;
use crate::sandbox::catalog::{Catalog, ModelSpec, VIDEO_TO_VIDEO_TYPE};
use crate::sandbox::edit_jobs::{VIDEO_FROM_VIDEO_KIND, video_input_credits};
use crate::sandbox::edit_plan::{self, ASSUMED_SOURCE_SECS, AUTO_MODEL_ALIASES};
use crate::sandbox::http_error::ApiResult;
use crate::sandbox::ids::new_object_id;
use crate::sandbox::look::Look;
use crate::sandbox::render::parse_aspect_ratio;
use crate::sandbox::state::AppState;
use crate::sandbox::store::NewGeneration;

const POLL_INTERVAL_HINT_SECS: u64 = 8;
const VIDEO_FROM_VIDEO_BASE_DURATION_MS: f64 = 120_000.0;
const DEFAULT_RESTYLE_PROMPT: &str = "Restyle the footage";

/// An explicit `video_to_video` model: missing or automatic is MODEL_REQUIRED, a non-string
/// INVALID_MODEL, a name of no such model MODEL_NOT_FOUND.
fn explicit_model<'a>(catalog: &'a Catalog, value: Option<&Value>) -> ApiResult<&'a ModelSpec> {
    let name = match value {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => {
            let trimmed = name.trim();
            (!AUTO_MODEL_ALIASES.contains(&trimmed.to_ascii_lowercase().as_str()))
                .then_some(trimmed)
        }
        Some(_) => return Err(bad_request("INVALID_MODEL", "model must be a string")),
    };
    let Some(name) = name else {
        return Err(bad_request(
            "MODEL_REQUIRED",
            "video-to-video needs an explicit model (see GET /v1/models?type=video_from_video)",
        ));
    };
    catalog
        .find(name, VIDEO_TO_VIDEO_TYPE)
        .ok_or_else(|| bad_request("MODEL_NOT_FOUND", format!("Model '{name}' not found")))
}

fn optional_prompt(body: &Map<String, Value>, model: &ModelSpec) -> ApiResult<String> {
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
    let (_, max_chars) = model.prompt_length_bounds();
    if prompt.chars().count() > max_chars {
        return Err(bad_request(
            "INVALID_PROMPT",
            format!(
                "Prompt is too long; model {} allows at most {max_chars} characters",
                model.identifier
            ),
        ));
    }
    Ok(prompt)
}

/// `aspect_ratio` is recorded, not applied (the output keeps the source's frame).
fn recorded_aspect_ratio(body: &Map<String, Value>) -> ApiResult<String> {
    match body.get("aspect_ratio") {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(ratio)) if parse_aspect_ratio(ratio.trim()).is_some() => {
            Ok(ratio.trim().to_owned())
        }
        Some(_) => Err(bad_request(
            "INVALID_ASPECT_RATIO",
            "aspect_ratio must be W:H with positive integers",
        )),
    }
}

pub(crate) async fn video_from_video(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    let body = json_object(&body)?;
    let model = explicit_model(&state.catalog, body.get("model"))?;
    let video_url = edit_plan::video_url(&body)
        .map_err(|rejection| bad_request(rejection.code, rejection.message))?;
    let prompt = optional_prompt(&body, model)?;
    let resolution = video_resolution(&body, model)?;
    let aspect_ratio = recorded_aspect_ratio(&body)?;
    validate_extras(&body)?;
    let seed = validate_seed(&body, &format!("{prompt}\n{video_url}"))?;
    let project_id = resolve_project(&state, &caller.user_id, body.get("project_id"))?;
    let skip_grade = body.get("skip_color_palette") == Some(&Value::Bool(true));
    let grade = project_grade(&state, &caller.user_id, &project_id, skip_grade)?;
    let base_prompt = if prompt.is_empty() {
        DEFAULT_RESTYLE_PROMPT
    } else {
        prompt.as_str()
    };
    let mut prompt_used = enhanced_prompt(base_prompt, enhance_flag(&body));
    prompt_used = with_grade_directive(prompt_used, grade.as_deref());
    // Reserved on an assumed source (ceil(input) + output, both the assumed length).
    let reservation = video_input_credits(
        model,
        &resolution,
        ASSUMED_SOURCE_SECS.ceil() + ASSUMED_SOURCE_SECS,
    );
    let generation = NewGeneration {
        id: new_object_id(),
        user_id: caller.user_id.clone(),
        project_id,
        session_id: new_object_id(),
        kind: VIDEO_FROM_VIDEO_KIND.to_owned(),
        model_echo: Some(model.identifier.clone()),
        model: model.identifier.clone(),
        provider: model.provider.clone(),
        prompt_used,
        prompt,
        aspect_ratio,
        resolution,
        quality: None,
        num_images: 1,
        seed,
        source_images: vec![video_url],
        request_json: Value::Object(body).to_string(),
        duration_ms: scaled_duration_ms(&state, VIDEO_FROM_VIDEO_BASE_DURATION_MS),
        credits_reserved: reservation,
        credit_base: model.video_input_credit.unwrap_or(model.credit),
        planned_failure: state
            .controls
            .plan_failure(&model.provider)
            .map(|f| f.to_string()),
        look_json: grade
            .as_deref()
            .and_then(|colors| serde_json::to_string(&Look::default().with_grade(colors)).ok()),
        video_duration_secs: Some(ASSUMED_SOURCE_SECS),
        batch_id: None,
        scene_number: None,
    };
    bill_and_start(
        &state,
        &generation,
        reservation,
        SubmitReceipt {
            model_echo: json!(model.identifier),
            credits_charged: None,
            poll_interval_hint_secs: POLL_INTERVAL_HINT_SECS,
            status: StatusCode::ACCEPTED,
        },
    )
}
