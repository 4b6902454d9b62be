//! POST /v1/generate/3d (200): a model from a prompt (`mode: text`), one reference image
//! (`single`) or 2–4 views (`multi`), priced per generation by the model's credit. The
//! job writes a GLB, an OBJ and a PNG preview (`model3d`).

use axum::Extension;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::generate::{
    AUTO_MODEL_ALIASES, SubmitReceipt, bad_request, bill_and_start, scaled_duration_ms,
    validate_seed,
};
use super::{json_object, resolve_project};
use crate::palette::{ImageRef, extract_swatches};
use crate::sandbox::auth::Caller;
use crate::sandbox::catalog::ModelSpec;
use crate::sandbox::fetch::decode_image;
use crate::sandbox::fetch_policy::{self, SOURCE_LIMITS};
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::new_object_id;
use crate::sandbox::look::{GradeColor, Look};
use crate::sandbox::model3d::job::{THREE_D_KIND, THREE_D_TYPES, WORLD_TYPE};
use crate::sandbox::model3d::mesh::{DEFAULT_TRIANGLES, MAX_TRIANGLES, MIN_TRIANGLES};
use crate::sandbox::pricing::{round_credits, three_d_cost};
use crate::sandbox::state::AppState;
use crate::sandbox::store::NewGeneration;

const POLL_INTERVAL_HINT_SECS: u64 = 8;
/// The job's wall time at speed 1 when the model names none.
const DEFAULT_JOB_SECS: f64 = 90.0;
/// Longest `texture_prompt`.
const MAX_TEXTURE_PROMPT_CHARS: usize = 2_000;
/// Colours taken from the reference images for the model's palette.
const REFERENCE_COLORS: usize = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Text,
    Single,
    Multi,
}

impl Mode {
    fn parse(value: Option<&Value>) -> ApiResult<Mode> {
        let text = match value {
            None | Some(Value::Null) => return Ok(Mode::Text),
            Some(Value::String(text)) => text.trim().to_ascii_lowercase(),
            Some(_) => return Err(invalid_mode("mode must be a string")),
        };
        match text.as_str() {
            "" | "text" => Ok(Mode::Text),
            "single" => Ok(Mode::Single),
            "multi" => Ok(Mode::Multi),
            other => Err(invalid_mode(format!(
                "Unsupported mode '{other}'. Allowed values: text, single, multi"
            ))),
        }
    }

    fn wire(self) -> &'static str {
        match self {
            Mode::Text => "text",
            Mode::Single => "single",
            Mode::Multi => "multi",
        }
    }

    fn catalog_type(self) -> &'static str {
        match self {
            Mode::Text => "3d_text_to_model",
            Mode::Single => "3d_image_to_model",
            Mode::Multi => "3d_multi_image_to_model",
        }
    }

    /// How many reference images the mode takes.
    fn image_range(self) -> (usize, usize) {
        match self {
            Mode::Text => (0, 0),
            Mode::Single => (1, 1),
            Mode::Multi => (2, 4),
        }
    }
}

fn invalid_mode(message: impl Into<String>) -> ApiError {
    bad_request("INVALID_MODE", message)
}

fn invalid_images(message: impl Into<String>) -> ApiError {
    bad_request("INVALID_REFERENCE_IMAGES", message)
}

pub(crate) async fn three_d(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    let body = json_object(&body)?;
    let mode = Mode::parse(body.get("mode"))?;
    let prompt = match body.get("prompt") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(prompt)) => prompt.trim().to_owned(),
        Some(_) => return Err(bad_request("INVALID_PROMPT", "prompt must be a string")),
    };
    if mode == Mode::Text && prompt.is_empty() {
        return Err(bad_request(
            "INVALID_PROMPT",
            "Prompt is required in text mode and must be a non-empty string",
        ));
    }
    let (model_echo, spec) = resolve_3d_model(&state, body.get("model"), mode)?;
    let (_, max_chars) = spec.prompt_length_bounds();
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
    let texture_prompt = texture_prompt(&body)?;
    let references = reference_images(&body, mode)?;
    let triangles = target_polycount(&body)?;
    for field in ["enable_pbr", "enable_tpose"] {
        match body.get(field) {
            None | Some(Value::Null) | Some(Value::Bool(_)) => {}
            Some(_) => {
                return Err(bad_request(
                    "INVALID_PARAMETER",
                    format!("{field} must be a boolean"),
                ));
            }
        }
    }
    let seed_text = if prompt.is_empty() {
        references.join(" ")
    } else {
        prompt.clone()
    };
    let seed = validate_seed(&body, &seed_text)?;
    let project_id = resolve_project(&state, &caller.user_id, body.get("project_id"))?;
    let palette = reference_palette(&state, &references).await?;

    let mut prompt_used = if prompt.is_empty() {
        match references.len() {
            1 => "A 3D model of the object in the reference image".to_owned(),
            n => format!("A 3D model of the object seen in {n} reference views"),
        }
    } else {
        prompt.clone()
    };
    if let Some(texture) = &texture_prompt {
        prompt_used = format!("{prompt_used}. Texture: {texture}");
    }
    if !palette.is_empty() {
        let hexes: Vec<&str> = palette.iter().map(|c| c.hex.as_str()).collect();
        prompt_used = format!(
            "{prompt_used} (colours from the reference: {})",
            hexes.join(", ")
        );
    }
    let look = Look {
        grade: palette,
        ..Look::default()
    };
    let look_json = if look.is_empty() {
        None
    } else {
        serde_json::to_string(&look).ok()
    };
    let mut request = body.clone();
    request.insert("mode".into(), json!(mode.wire()));
    request.insert("target_polycount".into(), json!(triangles));

    let cost = three_d_cost(spec);
    let minimum = round_credits(cost.max(state.catalog.cheapest_credit(mode.catalog_type())));
    let planned_failure = state
        .controls
        .plan_failure(&spec.provider)
        .map(|f| f.to_string());
    let job_secs = spec.estimated_duration_seconds.unwrap_or(DEFAULT_JOB_SECS);
    let duration_ms = scaled_duration_ms(&state, job_secs * 1000.0);
    let generation = NewGeneration {
        id: new_object_id(),
        user_id: caller.user_id.clone(),
        project_id,
        session_id: new_object_id(),
        kind: THREE_D_KIND.to_owned(),
        model_echo: Some(model_echo.clone()),
        model: spec.identifier.clone(),
        provider: spec.provider.clone(),
        prompt_used,
        prompt,
        aspect_ratio: String::new(),
        resolution: String::new(),
        quality: None,
        num_images: 1,
        seed,
        source_images: references,
        request_json: Value::Object(request).to_string(),
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
            status: StatusCode::OK,
        },
    )
}

/// `model` for the mode: an auto alias (or none) is the mode's default, echoed "auto";
/// a named model must serve the mode (world models take text or one image).
fn resolve_3d_model<'a>(
    state: &'a AppState,
    value: Option<&Value>,
    mode: Mode,
) -> ApiResult<(String, &'a ModelSpec)> {
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
        return state
            .catalog
            .default_for(mode.catalog_type())
            .map(|spec| ("auto".to_owned(), spec))
            .ok_or_else(|| ApiError::internal("model routing", "no 3D model for this mode"));
    };
    let serving = state.catalog.find(name, mode.catalog_type()).or_else(|| {
        (mode != Mode::Multi)
            .then(|| state.catalog.find(name, WORLD_TYPE))
            .flatten()
    });
    if let Some(spec) = serving {
        return Ok((spec.identifier.clone(), spec));
    }
    if THREE_D_TYPES
        .iter()
        .any(|t| state.catalog.find(name, t).is_some())
    {
        return Err(invalid_mode(format!(
            "Model {name} does not serve mode '{}'",
            mode.wire()
        )));
    }
    Err(bad_request(
        "MODEL_NOT_FOUND",
        format!("Model '{name}' not found"),
    ))
}

fn texture_prompt(body: &Map<String, Value>) -> ApiResult<Option<String>> {
    match body.get("texture_prompt") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.chars().count() > MAX_TEXTURE_PROMPT_CHARS => {
            Err(bad_request(
                "INVALID_TEXTURE_PROMPT",
                format!("texture_prompt allows at most {MAX_TEXTURE_PROMPT_CHARS} characters"),
            ))
        }
        Some(Value::String(text)) => Ok(Some(text.trim().to_owned()).filter(|t| !t.is_empty())),
        Some(_) => Err(bad_request(
            "INVALID_TEXTURE_PROMPT",
            "texture_prompt must be a string",
        )),
    }
}

/// The reference image URLs of an image mode (text mode ignores any sent).
fn reference_images(body: &Map<String, Value>, mode: Mode) -> ApiResult<Vec<String>> {
    if mode == Mode::Text {
        return Ok(Vec::new());
    }
    let items: &[Value] = match body.get("reference_images") {
        None | Some(Value::Null) => &[],
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(invalid_images(
                "reference_images must be an array of image URLs",
            ));
        }
    };
    let (min, max) = mode.image_range();
    if items.len() < min || items.len() > max {
        let wanted = if min == max {
            format!("exactly {min} reference image")
        } else {
            format!("{min} to {max} reference images")
        };
        return Err(invalid_images(format!(
            "Mode '{}' needs {wanted}; {} given",
            mode.wire(),
            items.len()
        )));
    }
    items
        .iter()
        .map(|item| match item {
            Value::String(url)
                if url.trim().starts_with("http://") || url.trim().starts_with("https://") =>
            {
                Ok(url.trim().to_owned())
            }
            _ => Err(invalid_images(
                "Every reference_images entry must be an http(s) URL string",
            )),
        })
        .collect()
}

/// The triangle count asked for: the default when absent, at least the floor, refused
/// above the ceiling.
fn target_polycount(body: &Map<String, Value>) -> ApiResult<u32> {
    let invalid = || {
        bad_request(
            "INVALID_POLYCOUNT",
            format!("target_polycount must be an integer from {MIN_TRIANGLES} to {MAX_TRIANGLES}"),
        )
    };
    match body.get("target_polycount") {
        None | Some(Value::Null) => Ok(DEFAULT_TRIANGLES),
        Some(value) => match value.as_u64() {
            Some(n) if n >= 1 && n <= u64::from(MAX_TRIANGLES) => Ok((n as u32).max(MIN_TRIANGLES)),
            _ => Err(invalid()),
        },
    }
}

/// Downloads and decodes every reference image (a 400 when one cannot be used) and
/// returns their main colours.
async fn reference_palette(state: &AppState, urls: &[String]) -> ApiResult<Vec<GradeColor>> {
    if urls.is_empty() {
        return Ok(Vec::new());
    }
    let mut downloads = Vec::with_capacity(urls.len());
    for url in urls {
        let bytes = fetch_policy::fetch(state, url, SOURCE_LIMITS)
            .await
            .map_err(|error| {
                bad_request(
                    "REFERENCE_IMAGE_UNAVAILABLE",
                    format!("Could not download reference image {url}: {error}"),
                )
            })?;
        downloads.push((url.clone(), bytes));
    }
    tokio::task::spawn_blocking(move || {
        let mut images = Vec::with_capacity(downloads.len());
        for (url, bytes) in &downloads {
            let image = decode_image(bytes).map_err(|error| {
                bad_request(
                    "REFERENCE_IMAGE_UNAVAILABLE",
                    format!("Reference image {url} is not a readable picture: {error}"),
                )
            })?;
            images.push(image.to_rgba8());
        }
        let refs: Vec<ImageRef<'_>> = images
            .iter()
            .map(|image| ImageRef {
                width: image.width(),
                height: image.height(),
                rgba: image.as_raw(),
            })
            .collect();
        Ok::<_, ApiError>(
            extract_swatches(&refs, REFERENCE_COLORS)
                .into_iter()
                .map(|swatch| GradeColor {
                    hex: swatch.rgb.to_hex(),
                    role: "reference".to_owned(),
                })
                .collect::<Vec<_>>(),
        )
    })
    .await
    .map_err(|error| ApiError::internal("reference images", error))?
}
