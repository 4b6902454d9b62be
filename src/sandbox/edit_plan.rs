//! POST /v1/edit/video: the contract's field rules as pure functions, shared by the route
//! (which turns [`Rejection`]s into 400s) and the job (which re-reads the stored request,
//! fails with the contract's messages and builds the [`VideoEditSpec`]).
//! Choices where the contract is silent: docs/SANDBOX.md, "Video edit, video-to-video and
//! trim routes".

use serde_json::{Map, Value};

use super::catalog::{Catalog, ModelSpec};
use super::jobs::video_dimensions;
use super::video::{BackgroundFill, GridPosition, RetakeMode, SourceProbe, VideoEditSpec};

/// The operations, in the order the 400 lists them.
pub(crate) const OPERATIONS: [&str; 11] = [
    "upscale",
    "reframe",
    "generate_audio",
    "remove_watermark",
    "face_swap",
    "extend",
    "magic_edit",
    "lipsync",
    "remove_background",
    "inpaint",
    "retake",
];
/// Extend and retake refuse longer sources; retake needs at least 3 s.
pub(crate) const MAX_EXTEND_RETAKE_SOURCE_SECS: f64 = 30.0;
pub(crate) const MIN_RETAKE_SOURCE_SECS: f64 = 3.0;
const MIN_TARGET_FPS: f64 = 16.0;
const MAX_TARGET_FPS: f64 = 60.0;
const DEFAULT_EXTEND_SECS: f64 = 5.0;
const FALLBACK_EXTEND_MIN_SECS: f64 = 1.0;
const FALLBACK_EXTEND_MAX_SECS: f64 = 20.0;
/// Extend bills the extension plus about one second of context, at most 21 seconds.
const EXTEND_CONTEXT_SECS: f64 = 1.0;
const MAX_EXTEND_BILLED_SECS: f64 = 21.0;
/// Retake: default and floor of the retaken span; the latest start leaves this much.
const RETAKE_MIN_SPAN_SECS: f64 = 2.0;
const DEFAULT_UPSCALE_RESOLUTION: &str = "1080p";
const FALLBACK_AUDIO_FORMATS: [&str; 4] = ["wav", "mp3", "aac", "flac"];
const DEFAULT_AUDIO_FORMAT: &str = "aac";
/// The audio-scoring family (identifier contains the vendor marker), its sound-effects
/// variant and its auto-captioning variant.
const AUDIO_SCORING_MARKER: &str = "mirelo";
const SOUND_EFFECTS_MARKER: &str = "sfx";
const AUTO_CAPTION_MARKER: &str = "autocaption";
/// Model values that mean "no explicit model" (contract "Automatic model selection").
pub(crate) const AUTO_MODEL_ALIASES: [&str; 7] = [
    "",
    "auto",
    "auto-select",
    "smart-select",
    "smart_select",
    "smartselect",
    "router",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operation {
    Upscale,
    Reframe,
    GenerateAudio,
    RemoveWatermark,
    FaceSwap,
    Extend,
    MagicEdit,
    Lipsync,
    RemoveBackground,
    Inpaint,
    Retake,
}

impl Operation {
    pub(crate) fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "upscale" => Self::Upscale,
            "reframe" => Self::Reframe,
            "generate_audio" => Self::GenerateAudio,
            "remove_watermark" => Self::RemoveWatermark,
            "face_swap" => Self::FaceSwap,
            "extend" => Self::Extend,
            "magic_edit" => Self::MagicEdit,
            "lipsync" => Self::Lipsync,
            "remove_background" => Self::RemoveBackground,
            "inpaint" => Self::Inpaint,
            "retake" => Self::Retake,
            _ => return None,
        })
    }

    /// The wire name (also the `model_type` of the catalog's models for it).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Upscale => "upscale",
            Self::Reframe => "reframe",
            Self::GenerateAudio => "generate_audio",
            Self::RemoveWatermark => "remove_watermark",
            Self::FaceSwap => "face_swap",
            Self::Extend => "extend",
            Self::MagicEdit => "magic_edit",
            Self::Lipsync => "lipsync",
            Self::RemoveBackground => "remove_background",
            Self::Inpaint => "inpaint",
            Self::Retake => "retake",
        }
    }

    /// What a person calls the operation, first in an output's library name.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Self::Upscale => "Upscale",
            Self::Reframe => "Reframe",
            Self::GenerateAudio => "Audio",
            Self::RemoveWatermark => "Watermark removal",
            Self::FaceSwap => "Face swap",
            Self::Extend => "Extension",
            Self::MagicEdit => "Magic edit",
            Self::Lipsync => "Lipsync",
            Self::RemoveBackground => "Background removal",
            Self::Inpaint => "Inpaint",
            Self::Retake => "Retake",
        }
    }

    /// The internal name a completed edit reports as `result.edit_type`.
    pub(crate) fn edit_type(self) -> &'static str {
        match self {
            Self::Upscale => "video_upscale",
            Self::Reframe => "video_reframe",
            Self::GenerateAudio => "audio_generation",
            Self::RemoveWatermark => "watermark_removal",
            Self::FaceSwap => "video_face_swap",
            Self::Extend => "video_extension",
            Self::MagicEdit => "magic_edit",
            Self::Lipsync => "lipsync",
            Self::RemoveBackground => "background_removal",
            Self::Inpaint => "video_inpainting",
            Self::Retake => "video_retake",
        }
    }
}

/// A request refused at submit: a Shape 1 400 with this code and message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rejection {
    pub code: &'static str,
    pub message: String,
}

fn reject(code: &'static str, message: impl Into<String>) -> Rejection {
    Rejection {
        code,
        message: message.into(),
    }
}

/// What the operation reads, defaulted and clamped where that needs no source.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OperationFields {
    Upscale {
        resolution: String,
        /// As sent; checked by the job (outside 16-60 the job fails).
        target_fps: Option<Value>,
    },
    Reframe {
        aspect_ratio: String,
        resolution: Option<String>,
        grid: GridPosition,
    },
    GenerateAudio {
        prompt: String,
        sound_effect_prompt: Option<String>,
        background_music_prompt: Option<String>,
        keep_original: bool,
        /// The audio-scoring family only: the format as sent (None = omitted).
        audio_format: Option<String>,
        /// The sound-effects variant only, and only a non-empty array.
        segments: Option<Vec<Value>>,
    },
    RemoveWatermark,
    FaceSwap {
        image_url: String,
    },
    Extend {
        extension_secs: f64,
        at_start: bool,
        prompt: String,
    },
    MagicEdit {
        prompt: String,
    },
    Lipsync {
        audio_url: Option<String>,
        text_prompt: Option<String>,
    },
    RemoveBackground {
        fill: BackgroundFill,
    },
    Inpaint {
        mask_video_url: Option<String>,
        prompt: String,
    },
    Retake {
        start_secs: Option<f64>,
        duration_secs: Option<f64>,
        mode: RetakeMode,
        prompt: String,
    },
}

/// A validated /edit/video request.
#[derive(Debug, Clone)]
pub(crate) struct EditRequest<'a> {
    pub operation: Operation,
    pub video_url: String,
    pub model: &'a ModelSpec,
    /// `model` exactly as sent (null when omitted).
    pub model_echo: Value,
    pub fields: OperationFields,
}

/// An http(s) URL string, or None when absent; anything else is `code`.
fn url_field(
    body: &Map<String, Value>,
    field: &str,
    code: &'static str,
) -> Result<Option<String>, Rejection> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if is_http_url(text.trim()) => Ok(Some(text.trim().to_owned())),
        Some(_) => Err(reject(
            code,
            format!("{field} must be a valid http(s) URL string"),
        )),
    }
}

pub(crate) fn is_http_url(text: &str) -> bool {
    reqwest::Url::parse(text)
        .is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.host_str().is_some())
}

/// A prompt-like optional text: blank counts as omitted; a non-string is INVALID_PROMPT.
fn text_field(body: &Map<String, Value>, field: &str) -> Result<Option<String>, Rejection> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.trim().to_owned())),
        Some(_) => Err(reject(
            "INVALID_PROMPT",
            format!("{field} must be a string when present"),
        )),
    }
}

/// A plain optional string (mode, context): anything else counts as omitted.
fn loose_string<'b>(body: &'b Map<String, Value>, field: &str) -> Option<&'b str> {
    body.get(field).and_then(Value::as_str).map(str::trim)
}

/// An optional finite number; a wrongly typed value counts as omitted.
fn number(body: &Map<String, Value>, field: &str) -> Option<f64> {
    body.get(field)
        .and_then(Value::as_f64)
        .filter(|n| n.is_finite())
}

/// `video_url`: required (VIDEO_REQUIRED), an http(s) URL string (INVALID_VIDEO_URL).
pub(crate) fn video_url(body: &Map<String, Value>) -> Result<String, Rejection> {
    match body.get("video_url") {
        None | Some(Value::Null) => Err(reject("VIDEO_REQUIRED", "video_url is required")),
        Some(Value::String(url)) if is_http_url(url.trim()) => Ok(url.trim().to_owned()),
        Some(_) => Err(reject(
            "INVALID_VIDEO_URL",
            "video_url must be a valid http(s) URL string",
        )),
    }
}

fn operation(body: &Map<String, Value>) -> Result<Operation, Rejection> {
    let valid = OPERATIONS.join(", ");
    match body.get("operation") {
        Some(Value::String(name)) => Operation::parse(name.trim()).ok_or_else(|| {
            reject(
                "INVALID_OPERATION",
                format!(
                    "Invalid operation '{}'. Valid operations: {valid}",
                    name.trim()
                ),
            )
        }),
        _ => Err(reject(
            "INVALID_OPERATION",
            format!("operation is required. Valid operations: {valid}"),
        )),
    }
}

/// The model that serves the operation: the recommended one when omitted (or an automatic
/// alias); a string naming no model of the operation is refused with MODEL_NOT_FOUND.
fn edit_model<'a>(
    catalog: &'a Catalog,
    value: Option<&Value>,
    operation: Operation,
) -> Result<&'a ModelSpec, Rejection> {
    let requested = match value {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => {
            let trimmed = name.trim();
            let automatic = AUTO_MODEL_ALIASES.contains(&trimmed.to_ascii_lowercase().as_str());
            (!automatic).then_some(trimmed)
        }
        Some(_) => return Err(reject("INVALID_MODEL", "model must be a string")),
    };
    let found = match requested {
        None => catalog.default_edit_model(operation.name()),
        Some(name) => catalog.find_edit_model(name, operation.name()),
    };
    found.ok_or_else(|| {
        reject(
            "MODEL_NOT_FOUND",
            format!(
                "Model '{}' not found for operation '{}'",
                requested.unwrap_or("auto"),
                operation.name()
            ),
        )
    })
}

/// A resolution tier (`1080p`, `2k`, `4k`, case-insensitive) the model lists (any tier
/// when it lists none).
fn resolution_tier(
    body: &Map<String, Value>,
    model: &ModelSpec,
) -> Result<Option<String>, Rejection> {
    let value = match body.get("resolution") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(text)) => text.trim().to_ascii_lowercase(),
        Some(_) => return Err(reject("INVALID_RESOLUTION", "resolution must be a string")),
    };
    let allowed: Vec<String> = model
        .resolutions()
        .iter()
        .map(|r| r.to_ascii_lowercase())
        .collect();
    let known = tier_short_side_px(&value).is_some();
    if known && (allowed.is_empty() || allowed.contains(&value)) {
        return Ok(Some(value));
    }
    let listed = if allowed.is_empty() {
        "720p, 1080p, 2k, 4k".to_owned()
    } else {
        allowed.join(", ")
    };
    Err(reject(
        "INVALID_RESOLUTION",
        format!(
            "Unsupported resolution '{value}' for model {}. Allowed values: {listed}",
            model.identifier
        ),
    ))
}

/// Short side of a tier: `<n>p`, `2k` = 1440, `4k` = 2160.
pub(crate) fn tier_short_side_px(tier: &str) -> Option<u32> {
    match tier {
        "2k" => Some(1440),
        "4k" => Some(2160),
        other => other
            .strip_suffix('p')
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|n| (16..=2160).contains(n)),
    }
}

/// Grid placement: 0.0-1.0; exactly 0 (or omitted) is unset, i.e. centred.
fn grid_coordinate(body: &Map<String, Value>, field: &str) -> Option<f32> {
    number(body, field)
        .filter(|n| *n != 0.0)
        .map(|n| n.clamp(0.0, 1.0) as f32)
}

fn is_audio_scoring(model: &ModelSpec) -> bool {
    model
        .identifier
        .to_ascii_lowercase()
        .contains(AUDIO_SCORING_MARKER)
}

fn marker_in(model: &ModelSpec, marker: &str) -> bool {
    is_audio_scoring(model) && model.identifier.to_ascii_lowercase().contains(marker)
}

fn generate_audio_fields(
    body: &Map<String, Value>,
    model: &ModelSpec,
) -> Result<OperationFields, Rejection> {
    let prompt = text_field(body, "prompt")?;
    let sound_effect_prompt = text_field(body, "sound_effect_prompt")?;
    let background_music_prompt = text_field(body, "background_music_prompt")?;
    let any_prompt =
        prompt.is_some() || sound_effect_prompt.is_some() || background_music_prompt.is_some();
    if !any_prompt && !marker_in(model, AUTO_CAPTION_MARKER) {
        return Err(reject(
            "INVALID_PROMPT",
            "generate_audio needs prompt, sound_effect_prompt or background_music_prompt",
        ));
    }
    let audio_format = is_audio_scoring(model)
        .then(|| body.get("audio_format"))
        .flatten()
        .filter(|v| !v.is_null())
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned));
    let segments = match body.get("segments") {
        Some(Value::Array(items)) if !items.is_empty() => Some(items.clone()),
        _ => None,
    }
    .filter(|_| marker_in(model, SOUND_EFFECTS_MARKER));
    Ok(OperationFields::GenerateAudio {
        prompt: prompt
            .or_else(|| sound_effect_prompt.clone())
            .or_else(|| background_music_prompt.clone())
            .unwrap_or_default(),
        sound_effect_prompt,
        background_music_prompt,
        keep_original: body.get("original_sound") == Some(&Value::Bool(true)),
        audio_format,
        segments,
    })
}

/// Extension length: default 5 s, clamped to the model's min/max (fallback 1-20 s).
fn extension_secs(body: &Map<String, Value>, model: &ModelSpec) -> f64 {
    let min = model
        .min_output_duration
        .filter(|n| n.is_finite() && *n > 0.0)
        .unwrap_or(FALLBACK_EXTEND_MIN_SECS);
    let max = model
        .max_output_duration
        .filter(|n| n.is_finite() && *n >= min)
        .unwrap_or(FALLBACK_EXTEND_MAX_SECS.max(min));
    number(body, "duration")
        .unwrap_or(DEFAULT_EXTEND_SECS)
        .clamp(min, max)
}

/// remove_background's fill: a sandbox-only `background_color` (`#RRGGBB`) gives a flat
/// colour; otherwise (and for anything unreadable) a checkerboard.
fn background_fill(body: &Map<String, Value>) -> BackgroundFill {
    loose_string(body, "background_color")
        .and_then(crate::palette::Rgb::from_hex)
        .map_or(BackgroundFill::Checker, |rgb| {
            BackgroundFill::Flat([rgb.r, rgb.g, rgb.b])
        })
}

/// Extend `mode`: `start` adds at the start; `end`, omitted or anything else at the end.
fn extend_at_start(body: &Map<String, Value>) -> bool {
    loose_string(body, "mode") == Some("start")
}

/// Retake `mode`; any other value (or none) regenerates both picture and sound.
fn retake_mode(body: &Map<String, Value>) -> RetakeMode {
    match loose_string(body, "mode") {
        Some("replace_audio") => RetakeMode::ReplaceAudio,
        Some("replace_video") => RetakeMode::ReplaceVideo,
        _ => RetakeMode::ReplaceAudioAndVideo,
    }
}

fn operation_fields(
    body: &Map<String, Value>,
    operation: Operation,
    model: &ModelSpec,
) -> Result<OperationFields, Rejection> {
    let prompt = || text_field(body, "prompt").map(Option::unwrap_or_default);
    Ok(match operation {
        Operation::Upscale => OperationFields::Upscale {
            resolution: resolution_tier(body, model)?
                .unwrap_or_else(|| DEFAULT_UPSCALE_RESOLUTION.to_owned()),
            target_fps: body.get("target_fps").filter(|v| !v.is_null()).cloned(),
        },
        Operation::Reframe => {
            let aspect_ratio = match body.get("aspect_ratio") {
                Some(Value::String(ratio))
                    if super::render::parse_aspect_ratio(ratio.trim()).is_some() =>
                {
                    ratio.trim().to_owned()
                }
                None | Some(Value::Null) => {
                    return Err(reject(
                        "INVALID_ASPECT_RATIO",
                        "aspect_ratio is required for reframe",
                    ));
                }
                Some(_) => {
                    return Err(reject(
                        "INVALID_ASPECT_RATIO",
                        "aspect_ratio must be W:H with positive integers (e.g. 9:16)",
                    ));
                }
            };
            OperationFields::Reframe {
                aspect_ratio,
                resolution: resolution_tier(body, model)?,
                grid: GridPosition {
                    x: grid_coordinate(body, "grid_position_x"),
                    y: grid_coordinate(body, "grid_position_y"),
                },
            }
        }
        Operation::GenerateAudio => generate_audio_fields(body, model)?,
        Operation::RemoveWatermark => OperationFields::RemoveWatermark,
        Operation::FaceSwap => match url_field(body, "image_url", "INVALID_IMAGE_URL")? {
            Some(image_url) => OperationFields::FaceSwap { image_url },
            None => {
                return Err(reject(
                    "IMAGE_REQUIRED",
                    "image_url (the reference face) is required for face_swap",
                ));
            }
        },
        Operation::Extend => {
            let mut prompt = prompt()?;
            if let Some(context) = loose_string(body, "context").filter(|c| !c.is_empty()) {
                prompt = format!("{prompt} {context}").trim().to_owned();
            }
            OperationFields::Extend {
                extension_secs: extension_secs(body, model),
                at_start: extend_at_start(body),
                prompt,
            }
        }
        Operation::MagicEdit => match text_field(body, "prompt")? {
            Some(prompt) => OperationFields::MagicEdit { prompt },
            None => {
                return Err(reject(
                    "INVALID_PROMPT",
                    "prompt is required for magic_edit",
                ));
            }
        },
        Operation::Lipsync => {
            let audio_url = url_field(body, "audio_url", "INVALID_AUDIO_URL")?;
            let text_prompt = text_field(body, "text_prompt")?;
            if audio_url.is_none() && text_prompt.is_none() {
                return Err(reject(
                    "AUDIO_REQUIRED",
                    "lipsync needs audio_url or text_prompt",
                ));
            }
            OperationFields::Lipsync {
                audio_url,
                text_prompt,
            }
        }
        Operation::RemoveBackground => OperationFields::RemoveBackground {
            fill: background_fill(body),
        },
        Operation::Inpaint => OperationFields::Inpaint {
            mask_video_url: url_field(body, "mask_video_url", "INVALID_VIDEO_URL")?,
            prompt: match prompt()? {
                p if p.is_empty() => text_field(body, "object_prompt")?.unwrap_or_default(),
                p => p,
            },
        },
        Operation::Retake => OperationFields::Retake {
            start_secs: number(body, "start_time"),
            duration_secs: number(body, "duration"),
            mode: retake_mode(body),
            prompt: prompt()?,
        },
    })
}

/// Validates a request body (everything that can be refused before the source is known).
pub(crate) fn parse_request<'a>(
    body: &Map<String, Value>,
    catalog: &'a Catalog,
) -> Result<EditRequest<'a>, Rejection> {
    let video_url = video_url(body)?;
    let operation = operation(body)?;
    let model = edit_model(catalog, body.get("model"), operation)?;
    let fields = operation_fields(body, operation, model)?;
    Ok(EditRequest {
        operation,
        video_url,
        model,
        model_echo: body.get("model").cloned().unwrap_or(Value::Null),
        fields,
    })
}

/// A rule broken that fails the job, with the message the status reports.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JobRuleFailure(pub String);

/// Job rules that need no source: target_fps (upscale) and audio_format (audio-scoring
/// family). Returns the frame rate to interpolate to, if any.
pub(crate) fn check_before_source(
    request: &EditRequest<'_>,
) -> Result<Option<u32>, JobRuleFailure> {
    match &request.fields {
        OperationFields::Upscale {
            target_fps: Some(value),
            ..
        } => match value.as_f64() {
            Some(fps) if (MIN_TARGET_FPS..=MAX_TARGET_FPS).contains(&fps) => {
                Ok(Some(fps.round() as u32))
            }
            _ => Err(JobRuleFailure(format!(
                "Invalid target_fps: {value} (allowed 16-60)"
            ))),
        },
        OperationFields::GenerateAudio { .. } if is_audio_scoring(request.model) => {
            audio_format(request).map(|_| None)
        }
        _ => Ok(None),
    }
}

/// The audio-scoring family's output format: listed by the model (fallback wav, mp3, aac,
/// flac); omitted = the model's default, else aac.
pub(crate) fn audio_format(request: &EditRequest<'_>) -> Result<String, JobRuleFailure> {
    let listed = request
        .model
        .output_audio_formats
        .as_deref()
        .filter(|formats| !formats.is_empty());
    let allowed: Vec<String> = match listed {
        Some(formats) => formats.iter().map(|f| f.to_ascii_lowercase()).collect(),
        None => FALLBACK_AUDIO_FORMATS.map(str::to_owned).to_vec(),
    };
    let requested = match &request.fields {
        OperationFields::GenerateAudio { audio_format, .. } => audio_format.clone(),
        _ => None,
    };
    match requested {
        None => Ok(request
            .model
            .default_output_audio_format
            .clone()
            .unwrap_or_else(|| DEFAULT_AUDIO_FORMAT.to_owned())),
        Some(format) if allowed.contains(&format.trim().to_ascii_lowercase()) => {
            Ok(format.trim().to_ascii_lowercase())
        }
        Some(format) => Err(JobRuleFailure(format!(
            "Invalid audio_format: {format} (allowed: {})",
            allowed.join(", ")
        ))),
    }
}

/// Extend and retake refuse sources over 30 s; retake needs at least 3 s.
pub(crate) fn check_source_length(
    operation: Operation,
    source_secs: f64,
) -> Result<(), JobRuleFailure> {
    let limited = matches!(operation, Operation::Extend | Operation::Retake);
    if limited && source_secs > MAX_EXTEND_RETAKE_SOURCE_SECS {
        return Err(JobRuleFailure(format!(
            "Source video is {source_secs:.2} seconds long; {} accepts at most 30 seconds",
            operation.name()
        )));
    }
    if operation == Operation::Retake && source_secs < MIN_RETAKE_SOURCE_SECS {
        return Err(JobRuleFailure(format!(
            "Source video is {source_secs:.2} seconds long; retake needs at least 3 seconds"
        )));
    }
    Ok(())
}

/// Retake span: start default 0, floored at 0 and pulled back to leave 2 s; duration default
/// and floor 2 s, clamped so the span stays inside the source.
pub(crate) fn retake_span(
    start_secs: Option<f64>,
    duration_secs: Option<f64>,
    source_secs: f64,
) -> (f64, f64) {
    let latest_start = (source_secs - RETAKE_MIN_SPAN_SECS).max(0.0);
    let start = start_secs.unwrap_or(0.0).max(0.0).min(latest_start);
    let duration = duration_secs
        .unwrap_or(RETAKE_MIN_SPAN_SECS)
        .max(RETAKE_MIN_SPAN_SECS)
        .min(source_secs - start);
    (start, duration.max(0.0))
}

/// Frame size of a tier at the source's own aspect ratio.
fn tier_at_source_ratio(tier: &str, probe: &SourceProbe) -> (u32, u32) {
    let short_px = tier_short_side_px(tier).unwrap_or(1080);
    video_dimensions(
        &format!("{}:{}", probe.width.max(1), probe.height.max(1)),
        &format!("{short_px}p"),
    )
}

/// Bytes the job fetched besides the source (face_swap's face, inpaint's mask).
#[derive(Debug, Default)]
pub(crate) struct ExtraInputs {
    pub face_image: Option<Vec<u8>>,
    pub mask_video: Option<Vec<u8>>,
}

/// The render spec, every rule applied (the source-length rules are checked first).
pub(crate) fn edit_spec(
    request: &EditRequest<'_>,
    probe: &SourceProbe,
    target_fps: Option<u32>,
    extra: ExtraInputs,
) -> VideoEditSpec {
    match &request.fields {
        OperationFields::Upscale { resolution, .. } => {
            let (width, height) = tier_at_source_ratio(resolution, probe);
            VideoEditSpec::Upscale {
                width,
                height,
                target_fps,
            }
        }
        OperationFields::Reframe {
            aspect_ratio,
            resolution,
            grid,
        } => {
            let short_px = resolution
                .as_deref()
                .and_then(tier_short_side_px)
                .unwrap_or_else(|| probe.width.min(probe.height));
            let (width, height) = video_dimensions(aspect_ratio, &format!("{short_px}p"));
            VideoEditSpec::Reframe {
                width,
                height,
                grid: *grid,
            }
        }
        OperationFields::GenerateAudio {
            prompt,
            sound_effect_prompt,
            background_music_prompt,
            keep_original,
            ..
        } => VideoEditSpec::GenerateAudio {
            prompt: prompt.clone(),
            sound_effect_prompt: sound_effect_prompt.clone(),
            background_music_prompt: background_music_prompt.clone(),
            keep_original: *keep_original,
        },
        OperationFields::RemoveWatermark => VideoEditSpec::RemoveWatermark,
        OperationFields::FaceSwap { .. } => VideoEditSpec::FaceSwap {
            face_jpeg_or_png: extra.face_image.unwrap_or_default(),
        },
        OperationFields::Extend {
            extension_secs,
            at_start,
            prompt,
        } => VideoEditSpec::Extend {
            seconds: *extension_secs,
            at_start: *at_start,
            prompt: prompt.clone(),
        },
        OperationFields::MagicEdit { prompt } => VideoEditSpec::MagicEdit {
            prompt: prompt.clone(),
        },
        OperationFields::Lipsync { text_prompt, .. } => VideoEditSpec::Lipsync {
            text_prompt: text_prompt.clone(),
        },
        OperationFields::RemoveBackground { fill } => {
            VideoEditSpec::RemoveBackground { fill: *fill }
        }
        OperationFields::Inpaint { prompt, .. } => VideoEditSpec::Inpaint {
            mask_mp4: extra.mask_video,
            prompt: prompt.clone(),
        },
        OperationFields::Retake {
            start_secs,
            duration_secs,
            mode,
            prompt,
        } => {
            let (start_secs, duration_secs) =
                retake_span(*start_secs, *duration_secs, probe.duration_secs);
            VideoEditSpec::Retake {
                start_secs,
                duration_secs,
                mode: *mode,
                prompt: prompt.clone(),
            }
        }
    }
}

/// Source length assumed for the reservation when it is not known yet (settled on
/// completion to the real length).
pub(crate) const ASSUMED_SOURCE_SECS: f64 = 10.0;

/// Whole seconds billed: retake the whole input, extend the extension plus one second of
/// context (at most 21), the others the output. Fractions round up.
pub(crate) fn billed_secs(request: &EditRequest<'_>, input_secs: f64, output_secs: f64) -> f64 {
    match &request.fields {
        OperationFields::Retake { .. } => input_secs.ceil().max(1.0),
        OperationFields::Extend { extension_secs, .. } => {
            (extension_secs.ceil() + EXTEND_CONTEXT_SECS).min(MAX_EXTEND_BILLED_SECS)
        }
        _ => output_secs.ceil().max(1.0),
    }
}

/// Seconds reserved at submit: extend exactly (it does not depend on the source), retake at
/// its 30-second ceiling, the others on [`ASSUMED_SOURCE_SECS`].
pub(crate) fn reserved_secs(request: &EditRequest<'_>) -> f64 {
    match &request.fields {
        OperationFields::Retake { .. } => MAX_EXTEND_RETAKE_SOURCE_SECS,
        OperationFields::Extend { .. } => billed_secs(request, 0.0, 0.0),
        _ => ASSUMED_SOURCE_SECS,
    }
}

/// The resolution tier that multiplies the price (upscale and reframe).
pub(crate) fn priced_tier<'b>(request: &'b EditRequest<'_>) -> Option<&'b str> {
    match &request.fields {
        OperationFields::Upscale { resolution, .. } => Some(resolution),
        OperationFields::Reframe { resolution, .. } => resolution.as_deref(),
        _ => None,
    }
}

/// Standard formula: credit x resolution multiplier x billed seconds, in credits.
pub(crate) fn edit_cost(request: &EditRequest<'_>, seconds: f64) -> f64 {
    let multiplier = priced_tier(request)
        .and_then(|tier| request.model.resolution_multipliers.as_ref()?.get(tier))
        .copied()
        .unwrap_or(1.0);
    super::pricing::round_credits(request.model.credit * multiplier * seconds)
}

/// The seed of an edit: the same request renders the same output.
pub(crate) fn edit_seed(body: &Map<String, Value>) -> i64 {
    let mut key = String::new();
    for field in ["operation", "video_url", "prompt", "model", "image_url"] {
        key.push_str(&body.get(field).map(Value::to_string).unwrap_or_default());
        key.push('\n');
    }
    (super::ids::fnv1a(key.as_bytes()) >> 33) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(body: Value, catalog: &Catalog) -> Result<EditRequest<'_>, Rejection> {
        let Value::Object(map) = body else {
            panic!("object")
        };
        parse_request(&map, catalog)
    }

    #[test]
    fn retake_span_follows_the_contract() {
        assert_eq!(retake_span(None, None, 10.0), (0.0, 2.0));
        assert_eq!(retake_span(Some(-3.0), Some(1.0), 10.0), (0.0, 2.0));
        assert_eq!(retake_span(Some(9.5), Some(5.0), 10.0), (8.0, 2.0));
        assert_eq!(retake_span(Some(4.0), Some(9.0), 10.0), (4.0, 6.0));
    }

    #[test]
    fn extend_is_clamped_to_the_model_and_billed_with_a_21_second_cap() {
        let catalog = Catalog::load().expect("catalog");
        let url = "https://cdn.example.com/a.mp4";
        let luma = parse(
            json!({"video_url": url, "operation": "extend", "duration": 60}),
            &catalog,
        )
        .expect("valid");
        assert!(
            matches!(luma.fields, OperationFields::Extend { extension_secs, .. } if extension_secs == 10.0)
        );
        assert_eq!(billed_secs(&luma, 0.0, 0.0), 11.0);
        let pixverse = parse(
            json!({"video_url": url, "operation": "extend", "model": "pixverse/v4-extend",
                "duration": 25, "mode": "sideways"}),
            &catalog,
        )
        .expect("valid");
        assert!(matches!(pixverse.fields,
            OperationFields::Extend { extension_secs, at_start: false, .. } if extension_secs == 20.0));
        assert_eq!(billed_secs(&pixverse, 0.0, 0.0), 21.0);
        assert_eq!(edit_cost(&pixverse, reserved_secs(&pixverse)), 126.0);
    }

    #[test]
    fn audio_formats_use_the_model_list_or_the_fallback() {
        let catalog = Catalog::load().expect("catalog");
        let url = "https://cdn.example.com/a.mp4";
        let request = |model: &str, format: Option<&str>| {
            let mut body = json!({"video_url": url, "operation": "generate_audio",
                "prompt": "rain", "model": model});
            if let Some(format) = format {
                body["audio_format"] = json!(format);
            }
            parse(body, &catalog).expect("valid")
        };
        assert_eq!(
            audio_format(&request("mirelo/sfx-v1", None)),
            Ok("wav".to_owned())
        );
        assert!(audio_format(&request("mirelo/sfx-v1", Some("flac"))).is_err());
        assert_eq!(
            audio_format(&request("mirelo/autocaption-v1", Some("FLAC"))),
            Ok("flac".to_owned())
        );
        assert_eq!(
            audio_format(&request("mirelo/autocaption-v1", None)),
            Ok("aac".to_owned())
        );
        // Outside the family audio_format is not read at all.
        assert_eq!(
            check_before_source(&request("mmaudio/v2", Some("ogg"))),
            Ok(None)
        );
    }

    #[test]
    fn grid_zero_is_unset_and_unknown_modes_fall_back() {
        let catalog = Catalog::load().expect("catalog");
        let url = "https://cdn.example.com/a.mp4";
        let reframe = parse(
            json!({"video_url": url, "operation": "reframe", "aspect_ratio": "9:16",
                "grid_position_x": 0, "grid_position_y": 0.25}),
            &catalog,
        )
        .expect("valid");
        assert!(matches!(reframe.fields,
            OperationFields::Reframe { grid: GridPosition { x: None, y: Some(y) }, .. } if y == 0.25));
        let retake = parse(
            json!({"video_url": url, "operation": "retake", "mode": "replace_everything"}),
            &catalog,
        )
        .expect("valid");
        assert!(matches!(
            retake.fields,
            OperationFields::Retake {
                mode: RetakeMode::ReplaceAudioAndVideo,
                ..
            }
        ));
    }
}
