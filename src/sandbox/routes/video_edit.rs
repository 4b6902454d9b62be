//! POST /v1/edit/video (202): one edit of an existing video. The field rules live in
//! `edit_plan` (shared with the job); this route refuses what can be refused at submit,
//! reserves credits and starts the job. Choices where the contract is silent are in
//! docs/SANDBOX.md ("Video edit, video-to-video and trim routes").

use axum::Extension;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::generate::{SubmitReceipt, bad_request, bill_and_start, scaled_duration_ms};
use super::{json_object, resolve_project};
use crate::sandbox::auth::Caller;
use crate::sandbox::edit_jobs::EDIT_KIND;
use crate::sandbox::edit_plan::{self, EditRequest, OperationFields};
use crate::sandbox::http_error::ApiResult;
use crate::sandbox::ids::new_object_id;
use crate::sandbox::state::AppState;
use crate::sandbox::store::NewGeneration;

const POLL_INTERVAL_HINT_SECS: u64 = 8;
/// Realistic wall time of an edit at speed 1.0.
const EDIT_BASE_DURATION_MS: f64 = 60_000.0;

pub(crate) async fn edit_video(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    let body = json_object(&body)?;
    let request = edit_plan::parse_request(&body, &state.catalog)
        .map_err(|rejection| bad_request(rejection.code, rejection.message))?;
    let project_id = resolve_project(&state, &caller.user_id, body.get("project_id"))?;
    let reserved_secs = edit_plan::reserved_secs(&request);
    let reservation = edit_plan::edit_cost(&request, reserved_secs);
    let generation = new_edit(&state, &caller, &body, &request, project_id, reservation);
    let model_echo = request.model_echo.clone();
    bill_and_start(
        &state,
        &generation,
        reservation,
        SubmitReceipt {
            model_echo: json!(model_echo),
            credits_charged: None,
            poll_interval_hint_secs: POLL_INTERVAL_HINT_SECS,
            status: StatusCode::ACCEPTED,
        },
    )
}

/// The prompt an edit records (the first prompt-like field the operation reads).
fn edit_prompt(request: &EditRequest<'_>) -> String {
    match &request.fields {
        OperationFields::GenerateAudio { prompt, .. }
        | OperationFields::Extend { prompt, .. }
        | OperationFields::MagicEdit { prompt }
        | OperationFields::Inpaint { prompt, .. }
        | OperationFields::Retake { prompt, .. } => prompt.clone(),
        OperationFields::Lipsync { text_prompt, .. } => text_prompt.clone().unwrap_or_default(),
        _ => String::new(),
    }
}

/// The aspect ratio and tier an edit records (reframe and upscale only).
fn edit_frame(request: &EditRequest<'_>) -> (String, String) {
    match &request.fields {
        OperationFields::Reframe {
            aspect_ratio,
            resolution,
            ..
        } => (aspect_ratio.clone(), resolution.clone().unwrap_or_default()),
        OperationFields::Upscale { resolution, .. } => (String::new(), resolution.clone()),
        _ => (String::new(), String::new()),
    }
}

fn new_edit(
    state: &AppState,
    caller: &Caller,
    body: &Map<String, Value>,
    request: &EditRequest<'_>,
    project_id: String,
    reservation: f64,
) -> NewGeneration {
    let prompt = edit_prompt(request);
    let (aspect_ratio, resolution) = edit_frame(request);
    NewGeneration {
        id: new_object_id(),
        user_id: caller.user_id.clone(),
        project_id,
        session_id: new_object_id(),
        kind: EDIT_KIND.to_owned(),
        model_echo: request.model_echo.as_str().map(str::to_owned),
        model: request.model.identifier.clone(),
        provider: request.model.provider.clone(),
        prompt_used: prompt.clone(),
        prompt,
        aspect_ratio,
        resolution,
        quality: None,
        num_images: 1,
        seed: edit_plan::edit_seed(body),
        source_images: vec![request.video_url.clone()],
        request_json: Value::Object(body.clone()).to_string(),
        duration_ms: scaled_duration_ms(state, EDIT_BASE_DURATION_MS),
        credits_reserved: reservation,
        credit_base: request.model.credit,
        planned_failure: state
            .controls
            .plan_failure(&request.model.provider)
            .map(|f| f.to_string()),
        look_json: None,
        // Marks the job as a video (rendered alongside the wait); the real length is in
        // the result.
        video_duration_secs: Some(edit_plan::reserved_secs(request)),
        batch_id: None,
        scene_number: None,
    }
}
