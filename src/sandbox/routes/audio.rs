//! POST /v1/generate/music, /v1/generate/speech and /v1/generate/sound (202 each), in the
//! "Other generation" group. Each echoes its concrete default model when none (or an auto
//! alias) is sent, validates against the model record, reserves its price and queues a
//! job that `audio_jobs` renders. Choices where the contract is silent: docs/SANDBOX.md,
//! "Sound".

use axum::Extension;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::generate::{
    SubmitReceipt, bad_request, bill_and_start, resolve_model, scaled_duration_ms, validate_seed,
};
use super::{json_object, resolve_project};
use crate::sandbox::audio_jobs::{AudioJob, JOB_KEY, MUSIC_KIND, SOUND_KIND, SPEECH_KIND};
use crate::sandbox::auth::Caller;
use crate::sandbox::catalog::ModelSpec;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::new_object_id;
use crate::sandbox::pricing::round_credits;
use crate::sandbox::sound::voices;
use crate::sandbox::state::AppState;
use crate::sandbox::store::NewGeneration;

/// Contract: 5 for sound, 8 for everything else (music, speech, transcription).
const SOUND_POLL_INTERVAL_HINT_SECS: u64 = 5;
const POLL_INTERVAL_HINT_SECS: u64 = 8;
/// Realistic wall time at speed 1.0.
const MUSIC_BASE_DURATION_MS: f64 = 30_000.0;
const SPEECH_BASE_DURATION_MS: f64 = 4_000.0;
const SOUND_BASE_DURATION_MS: f64 = 6_000.0;
pub(super) const TRANSCRIPTION_BASE_DURATION_MS: f64 = 10_000.0;
/// Music lengths when a model lists none (reference M: duration_seconds 5-300).
const MUSIC_MIN_SECS: f64 = 5.0;
const MUSIC_MAX_SECS: f64 = 300.0;
/// Sound effects: 0.5-30 s (reference D/M), capped by the model's longest length.
const SOUND_MIN_SECS: f64 = 0.5;
const SOUND_MAX_SECS: f64 = 30.0;
const MAX_TITLE_CHARS: usize = 100;
const MAX_STYLE_CHARS: usize = 1_000;
const MAX_LYRICS_CHARS: usize = 5_000;

/// A validated sound submit, ready to be stored.
pub(super) struct Submit {
    pub kind: &'static str,
    pub spec: ModelSpec,
    pub model_echo: String,
    pub prompt: String,
    pub job: AudioJob,
    pub cost: f64,
    pub seed: i64,
    pub source_images: Vec<String>,
    pub base_ms: f64,
    pub hint_secs: u64,
}

/// Music, speech and sound echo the concrete model, never "auto" (contract).
fn concrete_model(
    body: &Map<String, Value>,
    state: &AppState,
    catalog_type: &str,
) -> ApiResult<(String, ModelSpec)> {
    let (_, spec) = resolve_model(&state.catalog, body.get("model"), catalog_type)?;
    Ok((spec.identifier.clone(), spec.clone()))
}

pub(super) fn optional_text(
    body: &Map<String, Value>,
    field: &str,
    max_chars: usize,
) -> ApiResult<Option<String>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(Value::String(text)) if text.chars().count() > max_chars => Err(bad_request(
            "INVALID_PARAMETER",
            format!(
                "{field} is too long ({} characters); at most {max_chars}",
                text.chars().count()
            ),
        )),
        Some(Value::String(text)) => Ok(Some(text.trim().to_owned())),
        Some(_) => Err(bad_request(
            "INVALID_PARAMETER",
            format!("{field} must be a string"),
        )),
    }
}

pub(super) fn optional_bool(
    body: &Map<String, Value>,
    fields: &[&str],
    default: bool,
) -> ApiResult<bool> {
    for field in fields {
        match body.get(*field) {
            None | Some(Value::Null) => continue,
            Some(Value::Bool(value)) => return Ok(*value),
            Some(_) => {
                return Err(bad_request(
                    "INVALID_PARAMETER",
                    format!("{field} must be a boolean"),
                ));
            }
        }
    }
    Ok(default)
}

/// The prompt (or speech `text`): a non-empty string within the model's length bounds.
fn checked_prompt(
    body: &Map<String, Value>,
    field: &str,
    spec: Option<&ModelSpec>,
) -> ApiResult<String> {
    let text = match body.get(field) {
        Some(Value::String(text)) if !text.trim().is_empty() => text.trim().to_owned(),
        _ => {
            return Err(bad_request(
                "INVALID_PROMPT",
                format!(
                    "{} is required and must be a non-empty string",
                    if field == "prompt" { "Prompt" } else { field }
                ),
            ));
        }
    };
    if let Some(spec) = spec {
        let (min_chars, max_chars) = spec.prompt_length_bounds();
        let chars = text.chars().count();
        if chars < min_chars || chars > max_chars {
            return Err(bad_request(
                "INVALID_PROMPT",
                format!(
                    "{field} has {chars} characters; model {} takes {min_chars} to {max_chars}",
                    spec.identifier
                ),
            ));
        }
    }
    Ok(text)
}

/// `output_format` (or `audio_format`): one of the model's `output_audio_formats`
/// (case-insensitive); omitted = the model's default, else mp3.
fn output_format(body: &Map<String, Value>, spec: &ModelSpec) -> ApiResult<String> {
    let listed: Vec<String> = spec
        .output_audio_formats
        .clone()
        .filter(|formats| !formats.is_empty())
        .unwrap_or_else(|| vec!["mp3".to_owned()]);
    let requested = match body
        .get("output_format")
        .or_else(|| body.get("audio_format"))
    {
        None | Some(Value::Null) => None,
        Some(Value::String(format)) => Some(format.trim().to_ascii_lowercase()),
        Some(_) => {
            return Err(bad_request(
                "INVALID_AUDIO_FORMAT",
                "output_format must be a string",
            ));
        }
    };
    match requested {
        None => Ok(spec
            .default_output_audio_format
            .clone()
            .filter(|f| listed.contains(f))
            .unwrap_or_else(|| listed[0].clone())),
        Some(format) if listed.contains(&format) && matches!(format.as_str(), "mp3" | "wav") => {
            Ok(format)
        }
        Some(format) => Err(bad_request(
            "INVALID_AUDIO_FORMAT",
            format!(
                "Unsupported output_format '{format}' for model {}. Allowed values: {}",
                spec.identifier,
                listed.join(", ")
            ),
        )),
    }
}

fn number(body: &Map<String, Value>, fields: &[&str]) -> ApiResult<Option<(String, f64)>> {
    for field in fields {
        match body.get(*field) {
            None | Some(Value::Null) => continue,
            Some(Value::Number(n)) => match n.as_f64() {
                Some(value) if value.is_finite() => return Ok(Some(((*field).to_owned(), value))),
                _ => {}
            },
            Some(_) => {}
        }
        return Err(bad_request(
            "INVALID_DURATION",
            format!("{field} must be a number of seconds"),
        ));
    }
    Ok(None)
}

fn format_secs(list: &[f64]) -> String {
    list.iter()
        .map(|d| format!("{d}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Music length: one of the model's `supported_durations` when it lists any, else 5-300 s.
fn music_duration(body: &Map<String, Value>, spec: &ModelSpec) -> ApiResult<f64> {
    let supported = spec.supported_durations.clone().unwrap_or_default();
    let default = spec
        .default_duration
        .or_else(|| supported.first().copied())
        .unwrap_or(120.0);
    let Some((field, secs)) = number(body, &["duration", "duration_seconds"])? else {
        return Ok(default);
    };
    if supported.is_empty() {
        if (MUSIC_MIN_SECS..=MUSIC_MAX_SECS).contains(&secs) {
            return Ok(secs);
        }
        return Err(bad_request(
            "INVALID_DURATION",
            format!("{field} must be from {MUSIC_MIN_SECS} to {MUSIC_MAX_SECS} seconds"),
        ));
    }
    supported
        .iter()
        .copied()
        .find(|d| (d - secs).abs() < 1e-6)
        .ok_or_else(|| {
            bad_request(
                "INVALID_DURATION",
                format!(
                    "Unsupported {field} {secs} for model {}. Allowed values: {}",
                    spec.identifier,
                    format_secs(&supported)
                ),
            )
        })
}

/// Sound length: omitted = automatic (None); else 0.5 s up to the model's longest length
/// (at most 30 s).
fn sound_duration(body: &Map<String, Value>, spec: &ModelSpec) -> ApiResult<Option<f64>> {
    let Some((field, secs)) = number(body, &["duration", "duration_seconds"])? else {
        return Ok(None);
    };
    let model_max = spec
        .max_output_duration
        .or_else(|| {
            spec.supported_durations
                .as_ref()
                .and_then(|d| d.iter().copied().reduce(f64::max))
        })
        .unwrap_or(SOUND_MAX_SECS)
        .min(SOUND_MAX_SECS);
    if (SOUND_MIN_SECS..=model_max).contains(&secs) {
        Ok(Some(secs))
    } else {
        Err(bad_request(
            "INVALID_DURATION",
            format!(
                "{field} must be from {SOUND_MIN_SECS} to {model_max} seconds for model {}",
                spec.identifier
            ),
        ))
    }
}

fn vocal_gender(body: &Map<String, Value>) -> ApiResult<Option<bool>> {
    match body.get("vocal_gender") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(value)) => match value.trim().to_ascii_lowercase().as_str() {
            "" => Ok(None),
            "f" | "female" => Ok(Some(true)),
            "m" | "male" => Ok(Some(false)),
            other => Err(bad_request(
                "INVALID_PARAMETER",
                format!("vocal_gender '{other}' is not one of m, f, male, female"),
            )),
        },
        Some(_) => Err(bad_request(
            "INVALID_PARAMETER",
            "vocal_gender must be a string",
        )),
    }
}

pub(crate) async fn music(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    let body = json_object(&body)?;
    checked_prompt(&body, "prompt", None)?;
    let (model_echo, spec) = concrete_model(&body, &state, "music_gen")?;
    let prompt = checked_prompt(&body, "prompt", Some(&spec))?;
    let duration_secs = music_duration(&body, &spec)?;
    let instrumental = optional_bool(&body, &["instrumental", "make_instrumental"], false)?;
    let female = vocal_gender(&body)?;
    let lyrics = optional_text(&body, "lyrics", MAX_LYRICS_CHARS)?;
    let job = AudioJob {
        format: Some(output_format(&body, &spec)?),
        duration_secs: Some(duration_secs),
        title: optional_text(&body, "title", MAX_TITLE_CHARS)?,
        style: optional_text(&body, "style", MAX_STYLE_CHARS)?,
        lyrics,
        instrumental,
        // No gender asked: the seed decides.
        female_vocals: female.unwrap_or(validate_seed(&body, &prompt)? % 2 == 0),
        ..AudioJob::default()
    };
    optional_bool(&body, &["enhance_prompt"], true)?;
    let seed = validate_seed(&body, &prompt)?;
    let submit = Submit {
        kind: MUSIC_KIND,
        spec: spec.clone(),
        model_echo,
        prompt,
        job,
        cost: round_credits(spec.credit),
        seed,
        source_images: Vec::new(),
        base_ms: MUSIC_BASE_DURATION_MS,
        hint_secs: POLL_INTERVAL_HINT_SECS,
    };
    create(state, caller, body, submit)
}

pub(crate) async fn speech(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    let body = json_object(&body)?;
    checked_prompt(&body, "text", None)?;
    let voice = match body.get("voice").or_else(|| body.get("voice_id")) {
        None | Some(Value::Null) => None,
        Some(Value::String(voice)) if voice.trim().is_empty() => None,
        Some(Value::String(voice)) => Some(voice.trim().to_owned()),
        Some(_) => {
            return Err(bad_request(
                "VOICE_REQUIRED",
                "voice must be a voice id or name",
            ));
        }
    };
    let Some(voice) = voice else {
        return Err(bad_request(
            "VOICE_REQUIRED",
            "voice is required: a voice id or name from GET /v1/voices",
        ));
    };
    let Some(found) = voices::find(&voice) else {
        return Err(ApiError::sdk(
            StatusCode::NOT_FOUND,
            "VOICE_NOT_FOUND",
            format!("Voice '{voice}' not found"),
        ));
    };
    let (model_echo, spec) = concrete_model(&body, &state, "text_to_speech")?;
    let text = checked_prompt(&body, "text", Some(&spec))?;
    let language =
        optional_text(&body, "language", 35)?.unwrap_or_else(|| found.language_code.to_owned());
    let chars = text.chars().count();
    let cost = round_credits((chars as f64 / 100.0).ceil().max(1.0) * spec.credit);
    let job = AudioJob {
        format: Some(output_format(&body, &spec)?),
        voice_id: Some(found.voice_id.to_owned()),
        voice_name: Some(found.name.to_owned()),
        language: Some(language),
        ..AudioJob::default()
    };
    let seed = validate_seed(&body, &text)?;
    let submit = Submit {
        kind: SPEECH_KIND,
        spec: spec.clone(),
        model_echo,
        prompt: text,
        job,
        cost,
        seed,
        source_images: Vec::new(),
        base_ms: SPEECH_BASE_DURATION_MS,
        hint_secs: POLL_INTERVAL_HINT_SECS,
    };
    create(state, caller, body, submit)
}

pub(crate) async fn sound(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    let body = json_object(&body)?;
    checked_prompt(&body, "prompt", None)?;
    let (model_echo, spec) = concrete_model(&body, &state, "text_to_sound")?;
    let prompt = checked_prompt(&body, "prompt", Some(&spec))?;
    let job = AudioJob {
        format: Some(output_format(&body, &spec)?),
        duration_secs: sound_duration(&body, &spec)?,
        sound_loop: optional_bool(&body, &["sound_loop", "loop"], false)?,
        ..AudioJob::default()
    };
    let seed = validate_seed(&body, &prompt)?;
    let submit = Submit {
        kind: SOUND_KIND,
        spec: spec.clone(),
        model_echo,
        prompt,
        job,
        cost: round_credits(spec.credit),
        seed,
        source_images: Vec::new(),
        base_ms: SOUND_BASE_DURATION_MS,
        hint_secs: SOUND_POLL_INTERVAL_HINT_SECS,
    };
    create(state, caller, body, submit)
}

/// Reserves the price and queues the job; 202 with the submit shape of the wire examples.
pub(super) fn create(
    state: AppState,
    caller: Caller,
    mut body: Map<String, Value>,
    submit: Submit,
) -> ApiResult<Response> {
    let project_id = resolve_project(&state, &caller.user_id, body.get("project_id"))?;
    body.insert(
        JOB_KEY.to_owned(),
        serde_json::to_value(&submit.job).unwrap_or(Value::Null),
    );
    let generation = NewGeneration {
        id: new_object_id(),
        user_id: caller.user_id.clone(),
        project_id,
        session_id: new_object_id(),
        kind: submit.kind.to_owned(),
        model_echo: Some(submit.model_echo.clone()),
        model: submit.spec.identifier.clone(),
        provider: submit.spec.provider.clone(),
        prompt_used: submit.prompt.clone(),
        prompt: submit.prompt,
        aspect_ratio: String::new(),
        resolution: String::new(),
        quality: None,
        num_images: 1,
        seed: submit.seed,
        source_images: submit.source_images,
        request_json: Value::Object(body).to_string(),
        duration_ms: scaled_duration_ms(&state, submit.base_ms),
        credits_reserved: submit.cost,
        credit_base: submit.spec.credit,
        planned_failure: state
            .controls
            .plan_failure(&submit.spec.provider)
            .map(|f| f.to_string()),
        look_json: None,
        video_duration_secs: None,
        batch_id: None,
        scene_number: None,
    };
    bill_and_start(
        &state,
        &generation,
        submit.cost,
        SubmitReceipt {
            model_echo: json!(submit.model_echo),
            credits_charged: Some(submit.cost),
            poll_interval_hint_secs: submit.hint_secs,
            status: StatusCode::ACCEPTED,
        },
    )
}
