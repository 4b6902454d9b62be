//! POST /v1/edit/image (202): upscale or remove the background of an existing image. The
//! same image_url and operation from the same key within 30 s of the sandbox clock is
//! refused with 409 DUPLICATE_REQUEST naming the job already started. Choices where the
//! contract is silent are in docs/SANDBOX.md ("Image tools (POST /v1/edit/image)").

use axum::Extension;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::generate::{SubmitReceipt, bad_request, bill_and_start, scaled_duration_ms};
use super::{json_object, resolve_project};
use crate::sandbox::auth::Caller;
use crate::sandbox::fetch_policy::{
    SourceFetchError, check_before_lookup, internal_address_message, parse_http_url,
};
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::new_object_id;
use crate::sandbox::image_tools::{IMAGE_TOOL_KIND, ImageOperation};
use crate::sandbox::state::AppState;
use crate::sandbox::store::NewGeneration;

/// Contract: 3 s for image and image-edit jobs.
const POLL_INTERVAL_HINT_SECS: u64 = 3;
/// Realistic wall time of an image tool at speed 1.0.
const TOOL_BASE_DURATION_MS: f64 = 5_000.0;

pub(crate) async fn edit_image(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    let body = json_object(&body)?;
    let image_url = source_url(&state, &body)?;
    let operation =
        ImageOperation::parse(&body).map_err(|(code, message)| bad_request(code, message))?;
    let model_echo = match body.get("model") {
        None | Some(Value::Null) => None,
        Some(Value::String(model)) => Some(model.clone()),
        Some(_) => return Err(bad_request("INVALID_MODEL", "model must be a string")),
    };
    let project_id = resolve_project(&state, &caller.user_id, body.get("project_id"))?;
    let now_ms = state.clock.now_ms();
    if let Some(existing) =
        state
            .image_tool_guard
            .existing(&caller.api_key, &image_url, operation, now_ms)
    {
        return Err(duplicate(&existing));
    }
    let reservation = operation.credits();
    let generation = new_tool_job(
        &state,
        &caller,
        &body,
        (&image_url, operation),
        project_id,
        model_echo.clone(),
    );
    let answer = bill_and_start(
        &state,
        &generation,
        reservation,
        SubmitReceipt {
            model_echo: json!(model_echo),
            credits_charged: Some(reservation),
            poll_interval_hint_secs: POLL_INTERVAL_HINT_SECS,
            status: StatusCode::ACCEPTED,
        },
    )?;
    // Only a billed job is remembered against a repeat of the same request.
    state.image_tool_guard.remember(
        &caller.api_key,
        &image_url,
        operation,
        &generation.id,
        now_ms,
    );
    Ok(answer)
}

/// 409 in the sandbox's SDK shape plus the contract's `existingGenerationId`.
fn duplicate(existing: &str) -> ApiError {
    ApiError::raw(
        StatusCode::CONFLICT,
        json!({
            "success": false,
            "error": "The same operation on this image was requested less than 30 seconds ago",
            "code": "DUPLICATE_REQUEST",
            "existingGenerationId": existing,
        }),
    )
}

/// `image_url`: required, an http(s) URL, not an internal address unless it is one of the
/// sandbox's own output files. A name is resolved (and every redirect checked) when the job
/// downloads, which fails the job with the same code and message.
fn source_url(state: &AppState, body: &Map<String, Value>) -> ApiResult<String> {
    let text = match body.get("image_url") {
        None | Some(Value::Null) => {
            return Err(bad_request("IMAGE_REQUIRED", "image_url is required"));
        }
        Some(Value::String(text)) => text.trim(),
        Some(_) => {
            return Err(bad_request(
                "INVALID_IMAGE_URL",
                "image_url must be a string",
            ));
        }
    };
    let not_http = || bad_request("INVALID_IMAGE_URL", "image_url must be a valid http(s) URL");
    let url = parse_http_url(text).map_err(|_| not_http())?;
    match check_before_lookup(state, &url) {
        Err(SourceFetchError::Internal) => Err(bad_request(
            "INVALID_IMAGE_URL",
            internal_address_message("image_url"),
        )),
        Err(_) => Err(not_http()),
        Ok(()) => Ok(text.to_owned()),
    }
}

fn new_tool_job(
    state: &AppState,
    caller: &Caller,
    body: &Map<String, Value>,
    (image_url, operation): (&str, ImageOperation),
    project_id: String,
    model_echo: Option<String>,
) -> NewGeneration {
    let prompt = match operation {
        ImageOperation::Upscale { scale } => format!("Upscale {scale}x"),
        ImageOperation::RemoveBackground => "Remove background".to_owned(),
    };
    NewGeneration {
        id: new_object_id(),
        user_id: caller.user_id.clone(),
        project_id,
        session_id: new_object_id(),
        kind: IMAGE_TOOL_KIND.to_owned(),
        model_echo,
        model: operation.model().to_owned(),
        provider: "sandbox".to_owned(),
        prompt_used: prompt.clone(),
        prompt,
        aspect_ratio: String::new(),
        resolution: String::new(),
        quality: None,
        num_images: 1,
        seed: 0,
        source_images: vec![image_url.to_owned()],
        request_json: Value::Object(body.clone()).to_string(),
        duration_ms: scaled_duration_ms(state, TOOL_BASE_DURATION_MS),
        credits_reserved: operation.credits(),
        credit_base: operation.credits(),
        planned_failure: state
            .controls
            .plan_failure("sandbox")
            .map(|f| f.to_string()),
        look_json: None,
        video_duration_secs: None,
        batch_id: None,
        scene_number: None,
    }
}
