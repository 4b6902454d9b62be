//! Checks for video edits, video to video and trims (contract: POST /v1/edit/video and its
//! numbered rules, POST /v1/video/trim, Automatic model selection, Limits), from the model
//! record when one is chosen and the source video's length when it is known.

use super::{FieldError, contains_ignore_case, is_http_url, seconds_text, thousands};
use crate::api::types::{
    GenerationKind, GenerationSpec, ModelRecord, VIDEO_EDIT_CATALOG_TYPE, VideoJobRequest,
};
use crate::api::validate::Field;
use crate::api::video_edit::{
    LipsyncSource, TrimRequest, VideoEditOperation, VideoEditRequest, VideoToVideoRequest,
};

/// `audio_format` values allowed when the model lists no `output_audio_formats`.
pub const AUDIO_FORMAT_FALLBACK: [&str; 4] = ["wav", "mp3", "aac", "flac"];
/// Marker of the audio-scoring family whose auto-captioning members need no prompt for
/// `generate_audio` (rule 1). The contract does not name the family; the sandbox marks it
/// with this in the identifier. We can't know the real service's marker, so the rule is
/// only skipped when the chosen model's identifier contains it.
pub const AUDIO_SCORING_AUTO_CAPTION_MARKER: &str = "mirelo";
/// A trim shorter than this is refused here (nothing useful to cut).
pub const MIN_TRIM_SELECTION_SECS: f64 = 0.1;
/// Model values that ask for automatic selection, which video to video refuses
/// (`MODEL_REQUIRED`). The contract names one further router alias it does not spell out.
pub const V2V_AUTO_ALIASES: [&str; 5] = [
    "auto",
    "auto-select",
    "smart-select",
    "smart_select",
    "smartselect",
];
/// Contract limits of the edit rules.
const TARGET_FPS_RANGE: (u32, u32) = (16, 60);
const EXTEND_FALLBACK_SECS: (f64, f64) = (1.0, 20.0);
const MIN_RETAKE_SECS: f64 = 2.0;
const MAX_EXTEND_RETAKE_SOURCE_SECS: f64 = 30.0;
const MIN_RETAKE_SOURCE_SECS: f64 = 3.0;

pub(super) fn validate_video_job(
    spec: &GenerationSpec,
    model: Option<&ModelRecord>,
    source_secs: Option<f64>,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let source_secs = source_secs.filter(|s| s.is_finite() && *s > 0.0);
    let Some(video) = spec.video.as_ref().filter(|v| v.kind() == spec.kind) else {
        errors.push(FieldError::new(
            Field::Operation,
            format!(
                "This {} has no source video details; pick the video again.",
                spec.kind.label().to_lowercase()
            ),
        ));
        return errors;
    };
    check_source_url(video.video_url(), &mut errors);
    if let Some(project) = video.project_id()
        && project.trim().is_empty()
    {
        errors.push(FieldError::new(
            Field::Project,
            "The project id is blank; pick a project or leave it unset.",
        ));
    }
    match video {
        VideoJobRequest::Edit(edit) => check_edit(edit, model, source_secs, &mut errors),
        VideoJobRequest::FromVideo(v2v) => check_video_to_video(v2v, model, &mut errors),
        VideoJobRequest::Trim(trim) => check_trim(trim, source_secs, &mut errors),
    }
    errors
}

fn check_source_url(url: &str, errors: &mut Vec<FieldError>) {
    if url.trim().is_empty() {
        errors.push(FieldError::new(
            Field::SourceVideo,
            "Add the source video: drop one in or pick one from the Library.",
        ));
    } else if !is_http_url(url) {
        errors.push(FieldError::new(
            Field::SourceVideo,
            "The source video is not a web address (http:// or https://); upload it first.",
        ));
    }
}

fn who(model: Option<&ModelRecord>) -> &str {
    model.map(ModelRecord::display_name).unwrap_or("Auto")
}

fn check_prompt_length(prompt: &str, model: Option<&ModelRecord>, errors: &mut Vec<FieldError>) {
    let max_chars = model.map_or(crate::api::DEFAULT_MAX_PROMPT_LENGTH, |m| {
        m.max_prompt_chars()
    });
    let chars = prompt.chars().count() as u64;
    if chars > u64::from(max_chars) {
        errors.push(FieldError::new(
            Field::Prompt,
            format!(
                "Prompt is {} characters; {} allows at most {}.",
                thousands(chars),
                who(model),
                thousands(u64::from(max_chars))
            ),
        ));
    }
}

fn check_resolution(
    resolution: Option<&str>,
    model: Option<&ModelRecord>,
    errors: &mut Vec<FieldError>,
) {
    if let (Some(resolution), Some(model)) = (resolution.filter(|r| !r.trim().is_empty()), model)
        && !model.supported_resolutions.is_empty()
        && !contains_ignore_case(&model.supported_resolutions, resolution)
    {
        errors.push(FieldError::new(
            Field::Resolution,
            format!(
                "{} does not offer resolution {resolution}; choose one of {}.",
                model.display_name(),
                model.supported_resolutions.join(", ")
            ),
        ));
    }
}

fn in_unit_range(value: Option<f64>) -> bool {
    value.is_none_or(|v| v.is_finite() && (0.0..=1.0).contains(&v))
}

fn check_edit(
    edit: &VideoEditRequest,
    model: Option<&ModelRecord>,
    source_secs: Option<f64>,
    errors: &mut Vec<FieldError>,
) {
    let operation = edit.operation.kind();
    if let Some(model) = model {
        if !model.types.is_empty() && !model.has_type(VIDEO_EDIT_CATALOG_TYPE) {
            errors.push(FieldError::new(
                Field::Model,
                format!(
                    "{} does not edit videos; pick a model listed for {}.",
                    model.display_name(),
                    operation.label()
                ),
            ));
        } else if let Some(model_type) = model.model_type.as_deref()
            && !model_type.trim().is_empty()
            && !model_type.trim().eq_ignore_ascii_case(operation.as_str())
        {
            errors.push(FieldError::new(
                Field::Model,
                format!(
                    "{} is for {}, not {}; pick a model listed for it.",
                    model.display_name(),
                    crate::api::VideoEditOperationKind::from_str_name(model_type)
                        .map_or_else(|| model_type.replace('_', " "), |k| k.label().to_owned()),
                    operation.label()
                ),
            ));
        }
    }
    if let Some(prompt) = edit.operation.prompt() {
        check_prompt_length(prompt, model, errors);
    }
    match &edit.operation {
        VideoEditOperation::Upscale {
            resolution,
            target_fps,
            ..
        } => {
            check_resolution(resolution.as_deref(), model, errors);
            let (low, high) = TARGET_FPS_RANGE;
            if let Some(fps) = target_fps
                && !(low..=high).contains(fps)
            {
                errors.push(FieldError::new(
                    Field::TargetFps,
                    format!("Pick a frame rate from {low} to {high} fps; {fps} is outside that."),
                ));
            }
        }
        VideoEditOperation::Reframe {
            aspect_ratio,
            resolution,
            grid_position_x,
            grid_position_y,
        } => {
            let offered = model.map_or(&[][..], |m| m.aspect_ratios_for(VIDEO_EDIT_CATALOG_TYPE));
            if aspect_ratio.trim().is_empty() {
                errors.push(FieldError::new(
                    Field::AspectRatio,
                    if offered.is_empty() {
                        "Pick the aspect ratio to reframe to.".to_owned()
                    } else {
                        format!(
                            "Pick the aspect ratio to reframe to: {}.",
                            offered.join(", ")
                        )
                    },
                ));
            } else if !offered.is_empty() && !contains_ignore_case(offered, aspect_ratio) {
                errors.push(FieldError::new(
                    Field::AspectRatio,
                    format!(
                        "{} does not offer aspect ratio {aspect_ratio}; choose one of {}.",
                        who(model),
                        offered.join(", ")
                    ),
                ));
            }
            check_resolution(resolution.as_deref(), model, errors);
            if !in_unit_range(*grid_position_x) || !in_unit_range(*grid_position_y) {
                errors.push(FieldError::new(
                    Field::GridPosition,
                    "The picture's position runs from 0 (left/top) to 1 (right/bottom).",
                ));
            }
        }
        VideoEditOperation::GenerateAudio {
            prompt,
            sound_effect_prompt,
            background_music_prompt,
            audio_format,
            ..
        } => {
            let any_prompt = [prompt, sound_effect_prompt, background_music_prompt]
                .iter()
                .any(|p| p.as_deref().is_some_and(|p| !p.trim().is_empty()));
            let auto_captions = model.is_some_and(|m| {
                m.identifier
                    .to_ascii_lowercase()
                    .contains(AUDIO_SCORING_AUTO_CAPTION_MARKER)
            });
            if !any_prompt && !auto_captions {
                errors.push(FieldError::new(
                    Field::AudioPrompts,
                    "Describe the audio: a prompt, sound effects or background music.",
                ));
            }
            if let Some(format) = audio_format.as_deref() {
                let listed = model.map_or(&[][..], |m| m.output_audio_formats.as_slice());
                let allowed: Vec<String> = if listed.is_empty() {
                    AUDIO_FORMAT_FALLBACK
                        .iter()
                        .map(|f| f.to_string())
                        .collect()
                } else {
                    listed.to_vec()
                };
                if !contains_ignore_case(&allowed, format) {
                    errors.push(FieldError::new(
                        Field::AudioFormat,
                        format!(
                            "{} does not write {format} audio; choose one of {}.",
                            who(model),
                            allowed.join(", ")
                        ),
                    ));
                }
            }
        }
        VideoEditOperation::RemoveWatermark {} | VideoEditOperation::RemoveBackground { .. } => {}
        VideoEditOperation::FaceSwap { image_url } => {
            if image_url.trim().is_empty() {
                errors.push(FieldError::new(
                    Field::FaceImage,
                    "Add the face to swap in: drop an image or pick one from the Library.",
                ));
            } else if !is_http_url(image_url) {
                errors.push(FieldError::new(
                    Field::FaceImage,
                    "The face image is not a web address (http:// or https://); upload it first.",
                ));
            }
        }
        VideoEditOperation::Extend { duration, .. } => {
            let min = model
                .and_then(|m| m.min_output_duration)
                .filter(|s| *s > 0.0)
                .unwrap_or(EXTEND_FALLBACK_SECS.0);
            let max = model
                .and_then(|m| m.max_output_duration)
                .filter(|s| *s > 0.0)
                .unwrap_or(EXTEND_FALLBACK_SECS.1);
            if let Some(secs) = duration
                && (!secs.is_finite() || *secs < min || *secs > max)
            {
                errors.push(FieldError::new(
                    Field::Duration,
                    format!(
                        "{} extends by {} to {}; {} is outside that.",
                        who(model),
                        seconds_text(min),
                        seconds_text(max),
                        seconds_text(*secs)
                    ),
                ));
            }
            check_short_source(operation.label(), source_secs, errors);
        }
        VideoEditOperation::MagicEdit { prompt } => {
            if prompt.trim().is_empty() {
                errors.push(FieldError::new(
                    Field::Prompt,
                    "Describe the change you want.",
                ));
            }
        }
        VideoEditOperation::Lipsync { source } => match source {
            LipsyncSource::Audio(url) if url.trim().is_empty() => errors.push(FieldError::new(
                Field::LipsyncSource,
                "Add the speech to sync to, or type the words instead.",
            )),
            LipsyncSource::Audio(url) if !is_http_url(url) => errors.push(FieldError::new(
                Field::LipsyncSource,
                "The speech audio is not a web address (http:// or https://); upload it first.",
            )),
            LipsyncSource::Text(text) if text.trim().is_empty() => errors.push(FieldError::new(
                Field::LipsyncSource,
                "Type the words to speak, or add a speech audio file instead.",
            )),
            LipsyncSource::Audio(_) | LipsyncSource::Text(_) => {}
        },
        VideoEditOperation::Inpaint {
            mask_video_url,
            video_strength,
            ..
        } => {
            if let Some(mask) = mask_video_url
                && !is_http_url(mask)
            {
                errors.push(FieldError::new(
                    Field::MaskVideo,
                    "The mask video is not a web address (http:// or https://); upload it first.",
                ));
            }
            if !in_unit_range(*video_strength) {
                errors.push(FieldError::new(
                    Field::VideoStrength,
                    "Strength runs from 0 (free) to 1 (closest to the source).",
                ));
            }
        }
        VideoEditOperation::Retake {
            start_time,
            duration,
            ..
        } => {
            if let Some(start) = start_time
                && (!start.is_finite() || *start < 0.0)
            {
                errors.push(FieldError::new(
                    Field::StartTime,
                    "The retake starts at 0 s or later.",
                ));
            }
            if let Some(secs) = duration
                && (!secs.is_finite() || *secs < MIN_RETAKE_SECS)
            {
                errors.push(FieldError::new(
                    Field::Duration,
                    format!("A retake is at least {}.", seconds_text(MIN_RETAKE_SECS)),
                ));
            }
            check_short_source(operation.label(), source_secs, errors);
            if let Some(source) = source_secs {
                if source < MIN_RETAKE_SOURCE_SECS {
                    errors.push(FieldError::new(
                        Field::SourceVideo,
                        format!(
                            "Retake needs a source of at least {}; this one is {}.",
                            seconds_text(MIN_RETAKE_SOURCE_SECS),
                            seconds_text(source)
                        ),
                    ));
                }
                let start = start_time.unwrap_or(0.0).max(0.0);
                let secs = duration.unwrap_or(MIN_RETAKE_SECS).max(MIN_RETAKE_SECS);
                if start + secs > source + 1e-6 {
                    errors.push(FieldError::new(
                        Field::Duration,
                        format!(
                            "The retake ({} from {}) runs past the end of the {} video.",
                            seconds_text(secs),
                            seconds_text(start),
                            seconds_text(source)
                        ),
                    ));
                }
            }
        }
    }
}

/// Rule 3: extend and retake fail on a source longer than 30 s.
fn check_short_source(label: &str, source_secs: Option<f64>, errors: &mut Vec<FieldError>) {
    if let Some(source) = source_secs
        && source > MAX_EXTEND_RETAKE_SOURCE_SECS
    {
        errors.push(FieldError::new(
            Field::SourceVideo,
            format!(
                "{label} works on videos of at most {}; this one is {}. Trim it first.",
                seconds_text(MAX_EXTEND_RETAKE_SOURCE_SECS),
                seconds_text(source)
            ),
        ));
    }
}

fn check_video_to_video(
    v2v: &VideoToVideoRequest,
    model: Option<&ModelRecord>,
    errors: &mut Vec<FieldError>,
) {
    let name = v2v.model.trim();
    if name.is_empty()
        || V2V_AUTO_ALIASES
            .iter()
            .any(|a| name.eq_ignore_ascii_case(a))
    {
        errors.push(FieldError::new(
            Field::Model,
            "Video to video needs a model picked by name; it cannot choose one itself.",
        ));
    }
    if GenerationKind::VideoToVideo.requires_prompt() && v2v.prompt.trim().is_empty() {
        errors.push(FieldError::new(
            Field::Prompt,
            "Describe how the video should change.",
        ));
    }
    check_prompt_length(&v2v.prompt, model, errors);
    let Some(model) = model else {
        return;
    };
    let catalog_type = GenerationKind::VideoToVideo.catalog_type();
    if !model.types.is_empty() && !model.has_type(catalog_type) {
        errors.push(FieldError::new(
            Field::Model,
            format!(
                "{} cannot do video-to-video; pick a model listed for that type.",
                model.display_name()
            ),
        ));
    }
    let offered = model.aspect_ratios_for(catalog_type);
    if let Some(ratio) = v2v.aspect_ratio.as_deref().filter(|r| !r.trim().is_empty())
        && !offered.is_empty()
        && !contains_ignore_case(offered, ratio)
    {
        errors.push(FieldError::new(
            Field::AspectRatio,
            format!(
                "{} does not offer aspect ratio {ratio}; choose one of {}.",
                model.display_name(),
                offered.join(", ")
            ),
        ));
    }
    check_resolution(v2v.resolution.as_deref(), Some(model), errors);
    if let Some(secs) = v2v.duration {
        let too_short = model.min_output_duration.is_some_and(|min| secs < min);
        let too_long = model.max_output_duration.is_some_and(|max| secs > max);
        if !secs.is_finite() || secs <= 0.0 || too_short || too_long {
            errors.push(FieldError::new(
                Field::Duration,
                match (model.min_output_duration, model.max_output_duration) {
                    (Some(min), Some(max)) => format!(
                        "{} makes videos of {} to {}.",
                        model.display_name(),
                        seconds_text(min),
                        seconds_text(max)
                    ),
                    _ => "Pick a length of more than 0 seconds.".to_owned(),
                },
            ));
        }
    }
}

fn check_trim(trim: &TrimRequest, source_secs: Option<f64>, errors: &mut Vec<FieldError>) {
    let (start, end) = (trim.start_time, trim.end_time);
    if !start.is_finite() || start < 0.0 {
        errors.push(FieldError::new(
            Field::StartTime,
            "The trim starts at 0 s or later.",
        ));
    } else if let Some(source) = source_secs
        && start >= source
    {
        errors.push(FieldError::new(
            Field::StartTime,
            format!(
                "The trim starts at {}, at or after the end of the {} video.",
                seconds_text(start),
                seconds_text(source)
            ),
        ));
    }
    if !end.is_finite() || end - start < MIN_TRIM_SELECTION_SECS - 1e-9 {
        errors.push(FieldError::new(
            Field::EndTime,
            format!(
                "The trim must end at least {} after it starts.",
                seconds_text(MIN_TRIM_SELECTION_SECS)
            ),
        ));
    }
}

#[cfg(test)]
mod tests;
