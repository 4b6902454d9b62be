//! Video edits (POST /v1/edit/video), video to video (POST /v1/generate/video-from-video)
//! and trims (POST /v1/video/trim, GET /v1/video/trim/:jobId) as Rust (contract document 1).
//!
//! Each edit operation is one variant carrying exactly the fields that operation reads, so a
//! field the operation ignores cannot be sent. Optional fields are omitted when `None`.
//! These requests ride through the engine in [`super::GenerationSpec::video`].

use super::lenient::{lenient_bool, lenient_f64, lenient_string};
use super::types::{GenerationKind, JobResult, JobState, StatusResponse};
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------
// POST /v1/edit/video
// ---------------------------------------------------------------------------------------

/// Extend: where the new footage goes (contract default `end`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtendMode {
    Start,
    #[default]
    End,
}

/// Retake: what is regenerated in the span (contract default: audio and video).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetakeMode {
    ReplaceAudio,
    ReplaceVideo,
    #[default]
    ReplaceAudioAndVideo,
}

/// Lipsync's driving input: an audio file or text to speak. Exactly one is sent, so the
/// contract's "neither" (400) cannot be expressed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum LipsyncSource {
    /// `audio_url`: the speech to sync to (http(s)).
    #[serde(rename = "audio_url")]
    Audio(String),
    /// `text_prompt`: text the service speaks.
    #[serde(rename = "text_prompt")]
    Text(String),
}

/// One `operation` of POST /v1/edit/video with the fields it reads (contract table). The
/// tag is `operation`; names are the contract's snake_case values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "operation", rename_all = "snake_case")]
pub enum VideoEditOperation {
    Upscale {
        /// Tier such as `4k`, `2k`, `1080p`; the service defaults to 1080p.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resolution: Option<String>,
        /// 16-60 inclusive; enables frame interpolation.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target_fps: Option<u32>,
        /// Accepted but inert (output size comes from `resolution`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scale: Option<f64>,
    },
    Reframe {
        /// Required for reframe.
        aspect_ratio: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resolution: Option<String>,
        /// 0.0-1.0; `None` centres (the service treats exactly 0 as unset).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grid_position_x: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        grid_position_y: Option<f64>,
    },
    GenerateAudio {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sound_effect_prompt: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        background_music_prompt: Option<String>,
        /// Keep the source's audio and mix the generated audio on top.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        original_sound: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cfg_strength: Option<f64>,
        /// Audio-scoring family only; checked against the model's `output_audio_formats`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        audio_format: Option<String>,
        /// Forwarded verbatim by the sound-effects variants; omitted when empty.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        segments: Vec<serde_json::Value>,
    },
    RemoveWatermark {},
    FaceSwap {
        /// The reference face (http(s)).
        image_url: String,
    },
    Extend {
        /// Seconds of new footage (service default 5, clamped to the model's range).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<ExtendMode>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
        /// Guidance for the extended segment.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context: Option<String>,
    },
    MagicEdit {
        /// Required.
        prompt: String,
    },
    Lipsync {
        #[serde(flatten)]
        source: LipsyncSource,
    },
    RemoveBackground {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        refine_edges: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subject_is_person: Option<bool>,
    },
    Inpaint {
        /// Black-and-white mask video; white = area to fill.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mask_video_url: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        object_prompt: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
        /// 0.0-1.0; higher stays closer to the source.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        video_strength: Option<f64>,
    },
    Retake {
        /// Seconds from the start (service default 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        start_time: Option<f64>,
        /// Seconds (service default and floor 2).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<RetakeMode>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
    },
}

/// The operation names without their fields, for lists, catalog lookups and pricing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VideoEditOperationKind {
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

impl VideoEditOperationKind {
    /// Every operation, in the order the UI lists them: picture fixes first, then
    /// changes to the content, then sound and timing.
    pub const ALL: [VideoEditOperationKind; 11] = [
        VideoEditOperationKind::Upscale,
        VideoEditOperationKind::Reframe,
        VideoEditOperationKind::RemoveWatermark,
        VideoEditOperationKind::RemoveBackground,
        VideoEditOperationKind::MagicEdit,
        VideoEditOperationKind::Inpaint,
        VideoEditOperationKind::FaceSwap,
        VideoEditOperationKind::Extend,
        VideoEditOperationKind::Retake,
        VideoEditOperationKind::GenerateAudio,
        VideoEditOperationKind::Lipsync,
    ];

    /// The contract's `operation` value (also the catalog's `model_type` of its models).
    pub fn as_str(self) -> &'static str {
        match self {
            VideoEditOperationKind::Upscale => "upscale",
            VideoEditOperationKind::Reframe => "reframe",
            VideoEditOperationKind::GenerateAudio => "generate_audio",
            VideoEditOperationKind::RemoveWatermark => "remove_watermark",
            VideoEditOperationKind::FaceSwap => "face_swap",
            VideoEditOperationKind::Extend => "extend",
            VideoEditOperationKind::MagicEdit => "magic_edit",
            VideoEditOperationKind::Lipsync => "lipsync",
            VideoEditOperationKind::RemoveBackground => "remove_background",
            VideoEditOperationKind::Inpaint => "inpaint",
            VideoEditOperationKind::Retake => "retake",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            VideoEditOperationKind::Upscale => "Upscale",
            VideoEditOperationKind::Reframe => "Reframe",
            VideoEditOperationKind::GenerateAudio => "Generate audio",
            VideoEditOperationKind::RemoveWatermark => "Remove watermark",
            VideoEditOperationKind::FaceSwap => "Face swap",
            VideoEditOperationKind::Extend => "Extend",
            VideoEditOperationKind::MagicEdit => "Magic edit",
            VideoEditOperationKind::Lipsync => "Lip sync",
            VideoEditOperationKind::RemoveBackground => "Remove background",
            VideoEditOperationKind::Inpaint => "Inpaint",
            VideoEditOperationKind::Retake => "Retake",
        }
    }

    /// One line for the operation list.
    pub fn description(self) -> &'static str {
        match self {
            VideoEditOperationKind::Upscale => {
                "Raise the resolution, optionally interpolating to a higher frame rate."
            }
            VideoEditOperationKind::Reframe => {
                "Fit the video to another aspect ratio, choosing where the picture sits."
            }
            VideoEditOperationKind::GenerateAudio => {
                "Add generated sound effects or music, optionally over the original sound."
            }
            VideoEditOperationKind::RemoveWatermark => "Remove a watermark or logo overlay.",
            VideoEditOperationKind::FaceSwap => {
                "Replace the face in the video with a reference face."
            }
            VideoEditOperationKind::Extend => "Add new footage before the start or after the end.",
            VideoEditOperationKind::MagicEdit => "Change the whole video as a prompt describes.",
            VideoEditOperationKind::Lipsync => {
                "Make the speaker's lips follow an audio file or text."
            }
            VideoEditOperationKind::RemoveBackground => "Cut the subject out of its background.",
            VideoEditOperationKind::Inpaint => "Refill a masked area as a prompt describes.",
            VideoEditOperationKind::Retake => {
                "Regenerate a span of the video: its picture, its sound or both."
            }
        }
    }

    /// The operation named `name` (the contract's value, any case).
    pub fn from_str_name(name: &str) -> Option<VideoEditOperationKind> {
        VideoEditOperationKind::ALL
            .into_iter()
            .find(|kind| kind.as_str().eq_ignore_ascii_case(name.trim()))
    }
}

impl VideoEditOperation {
    pub fn kind(&self) -> VideoEditOperationKind {
        match self {
            VideoEditOperation::Upscale { .. } => VideoEditOperationKind::Upscale,
            VideoEditOperation::Reframe { .. } => VideoEditOperationKind::Reframe,
            VideoEditOperation::GenerateAudio { .. } => VideoEditOperationKind::GenerateAudio,
            VideoEditOperation::RemoveWatermark {} => VideoEditOperationKind::RemoveWatermark,
            VideoEditOperation::FaceSwap { .. } => VideoEditOperationKind::FaceSwap,
            VideoEditOperation::Extend { .. } => VideoEditOperationKind::Extend,
            VideoEditOperation::MagicEdit { .. } => VideoEditOperationKind::MagicEdit,
            VideoEditOperation::Lipsync { .. } => VideoEditOperationKind::Lipsync,
            VideoEditOperation::RemoveBackground { .. } => VideoEditOperationKind::RemoveBackground,
            VideoEditOperation::Inpaint { .. } => VideoEditOperationKind::Inpaint,
            VideoEditOperation::Retake { .. } => VideoEditOperationKind::Retake,
        }
    }
    pub fn label(&self) -> &'static str {
        self.kind().label()
    }
    pub fn description(&self) -> &'static str {
        self.kind().description()
    }
    /// The operation's main prompt, if it has one (shown in the tray, matched by reconcile).
    pub fn prompt(&self) -> Option<&str> {
        match self {
            VideoEditOperation::GenerateAudio { prompt, .. }
            | VideoEditOperation::Extend { prompt, .. }
            | VideoEditOperation::Inpaint { prompt, .. }
            | VideoEditOperation::Retake { prompt, .. } => prompt.as_deref(),
            VideoEditOperation::MagicEdit { prompt } => Some(prompt),
            VideoEditOperation::Lipsync {
                source: LipsyncSource::Text(text),
            } => Some(text),
            _ => None,
        }
    }
    /// The operation with its fields unset (required strings empty), for a form's start.
    pub fn empty(kind: VideoEditOperationKind) -> VideoEditOperation {
        match kind {
            VideoEditOperationKind::Upscale => VideoEditOperation::Upscale {
                resolution: None,
                target_fps: None,
                scale: None,
            },
            VideoEditOperationKind::Reframe => VideoEditOperation::Reframe {
                aspect_ratio: String::new(),
                resolution: None,
                grid_position_x: None,
                grid_position_y: None,
            },
            VideoEditOperationKind::GenerateAudio => VideoEditOperation::GenerateAudio {
                prompt: None,
                sound_effect_prompt: None,
                background_music_prompt: None,
                original_sound: None,
                cfg_strength: None,
                audio_format: None,
                segments: Vec::new(),
            },
            VideoEditOperationKind::RemoveWatermark => VideoEditOperation::RemoveWatermark {},
            VideoEditOperationKind::FaceSwap => VideoEditOperation::FaceSwap {
                image_url: String::new(),
            },
            VideoEditOperationKind::Extend => VideoEditOperation::Extend {
                duration: None,
                mode: None,
                prompt: None,
                context: None,
            },
            VideoEditOperationKind::MagicEdit => VideoEditOperation::MagicEdit {
                prompt: String::new(),
            },
            VideoEditOperationKind::Lipsync => VideoEditOperation::Lipsync {
                source: LipsyncSource::Text(String::new()),
            },
            VideoEditOperationKind::RemoveBackground => VideoEditOperation::RemoveBackground {
                refine_edges: None,
                subject_is_person: None,
            },
            VideoEditOperationKind::Inpaint => VideoEditOperation::Inpaint {
                mask_video_url: None,
                object_prompt: None,
                prompt: None,
                video_strength: None,
            },
            VideoEditOperationKind::Retake => VideoEditOperation::Retake {
                start_time: None,
                duration: None,
                mode: None,
                prompt: None,
            },
        }
    }
}

/// Body of POST /v1/edit/video: the source, an optional model override, the project and
/// the operation with its fields (flattened beside them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VideoEditRequest {
    pub video_url: String,
    /// `None` lets the service pick (the catalog's recommended model for the operation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    #[serde(flatten)]
    pub operation: VideoEditOperation,
}

// ---------------------------------------------------------------------------------------
// POST /v1/generate/video-from-video
// ---------------------------------------------------------------------------------------

/// Body of POST /v1/generate/video-from-video. The model is required: this route never
/// auto-selects (a missing or `auto` model gives 400 `MODEL_REQUIRED`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VideoToVideoRequest {
    pub video_url: String,
    pub model: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aspect_ratio: Option<String>,
    /// Output seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enhance_prompt: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_color_palette: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
}

// ---------------------------------------------------------------------------------------
// POST /v1/video/trim
// ---------------------------------------------------------------------------------------

/// Body of POST /v1/video/trim. Times are seconds and always sent as JSON numbers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrimRequest {
    pub video_url: String,
    pub start_time: f64,
    pub end_time: f64,
    /// Accepted and ignored by the service; kept so the result is filed with the job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
}

impl TrimRequest {
    /// The cut's length as asked. The service answers no duration for a trim; the studio
    /// sets `end_time` within the source, so this is the output's length (the service
    /// clamps a later end to the source, which only a hand-made request could ask for).
    pub fn asked_length_secs(&self) -> Option<f64> {
        let length = self.end_time - self.start_time;
        (length.is_finite() && length > 0.0).then_some(length)
    }
}

// ---------------------------------------------------------------------------------------
// The engine's view
// ---------------------------------------------------------------------------------------

/// The body of a video-sourced job, stored in [`super::GenerationSpec::video`]. Its
/// variant decides the route; [`VideoJobRequest::kind`] is the matching `GenerationKind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VideoJobRequest {
    /// POST /v1/edit/video.
    Edit(VideoEditRequest),
    /// POST /v1/generate/video-from-video.
    FromVideo(VideoToVideoRequest),
    /// POST /v1/video/trim.
    Trim(TrimRequest),
}

impl VideoJobRequest {
    pub fn kind(&self) -> GenerationKind {
        match self {
            VideoJobRequest::Edit(_) => GenerationKind::VideoEdit,
            VideoJobRequest::FromVideo(_) => GenerationKind::VideoToVideo,
            VideoJobRequest::Trim(_) => GenerationKind::VideoTrim,
        }
    }
    pub fn video_url(&self) -> &str {
        match self {
            VideoJobRequest::Edit(r) => &r.video_url,
            VideoJobRequest::FromVideo(r) => &r.video_url,
            VideoJobRequest::Trim(r) => &r.video_url,
        }
    }
    /// The model sent (`None`: the service chooses; trims have none).
    pub fn model(&self) -> Option<&str> {
        match self {
            VideoJobRequest::Edit(r) => r.model.as_deref(),
            VideoJobRequest::FromVideo(r) => Some(&r.model),
            VideoJobRequest::Trim(_) => None,
        }
    }
    pub fn project_id(&self) -> Option<&str> {
        match self {
            VideoJobRequest::Edit(r) => r.project_id.as_deref(),
            VideoJobRequest::FromVideo(r) => r.project_id.as_deref(),
            VideoJobRequest::Trim(r) => r.project_id.as_deref(),
        }
    }
    /// The prompt the job carries, if any.
    pub fn prompt(&self) -> Option<&str> {
        match self {
            VideoJobRequest::Edit(r) => r.operation.prompt(),
            VideoJobRequest::FromVideo(r) => Some(r.prompt.as_str()).filter(|p| !p.is_empty()),
            VideoJobRequest::Trim(_) => None,
        }
    }
    /// The JSON body sent to the route.
    pub fn body(&self) -> Result<serde_json::Value, serde_json::Error> {
        match self {
            VideoJobRequest::Edit(r) => serde_json::to_value(r),
            VideoJobRequest::FromVideo(r) => serde_json::to_value(r),
            VideoJobRequest::Trim(r) => serde_json::to_value(r),
        }
    }
}

// ---------------------------------------------------------------------------------------
// GET /v1/video/trim/:jobId
// ---------------------------------------------------------------------------------------

/// A trim job's status value (lowercase on the wire). Anything but completed or failed
/// means still running.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TrimStatus {
    Initializing,
    Downloading,
    Analyzing,
    #[default]
    Processing,
    Uploading,
    Completed,
    Failed,
    /// In the vocabulary, but nothing public produces it.
    Cancelled,
    /// A value this client does not know (treated as running).
    Unknown(String),
}

impl From<&str> for TrimStatus {
    fn from(value: &str) -> Self {
        match value.trim().to_ascii_lowercase().as_str() {
            "initializing" => TrimStatus::Initializing,
            "downloading" => TrimStatus::Downloading,
            "analyzing" => TrimStatus::Analyzing,
            "processing" => TrimStatus::Processing,
            "uploading" => TrimStatus::Uploading,
            "completed" => TrimStatus::Completed,
            "failed" => TrimStatus::Failed,
            "cancelled" | "canceled" => TrimStatus::Cancelled,
            _ => TrimStatus::Unknown(value.to_owned()),
        }
    }
}

/// The trim job fields (contract, Video trim job), decoded tolerantly: every field may be
/// absent or of another type; the output URL is `url`, else `videoUrl`, `fileUrl`,
/// `publicUrl`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(from = "TrimJobWire")]
pub struct TrimJob {
    /// True on any readable job (not the job's state).
    pub success: Option<bool>,
    pub job_id: Option<String>,
    pub status: TrimStatus,
    /// 0-100, not monotonic across execution paths.
    pub progress: Option<f64>,
    pub message: Option<String>,
    /// Set when failed.
    pub error: Option<String>,
    pub updated_at_unix_ms: Option<f64>,
    pub url: Option<String>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct TrimJobWire {
    #[serde(deserialize_with = "lenient_bool")]
    success: Option<bool>,
    #[serde(deserialize_with = "lenient_string", rename = "jobId")]
    job_id: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "generationId")]
    generation_id: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    status: Option<String>,
    #[serde(deserialize_with = "lenient_f64")]
    progress: Option<f64>,
    #[serde(deserialize_with = "lenient_string")]
    message: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    error: Option<String>,
    #[serde(deserialize_with = "lenient_f64", rename = "updatedAt")]
    updated_at: Option<f64>,
    #[serde(deserialize_with = "lenient_string")]
    url: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "videoUrl")]
    video_url: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "fileUrl")]
    file_url: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "publicUrl")]
    public_url: Option<String>,
}

fn non_blank(value: Option<String>) -> Option<String> {
    value.filter(|s| !s.trim().is_empty())
}

impl From<TrimJobWire> for TrimJob {
    fn from(w: TrimJobWire) -> Self {
        TrimJob {
            success: w.success,
            job_id: non_blank(w.job_id).or(non_blank(w.generation_id)),
            status: w
                .status
                .as_deref()
                .map(TrimStatus::from)
                .unwrap_or_default(),
            progress: w.progress.filter(|p| p.is_finite()),
            message: non_blank(w.message),
            error: non_blank(w.error),
            updated_at_unix_ms: w.updated_at,
            url: non_blank(w.url)
                .or(non_blank(w.video_url))
                .or(non_blank(w.file_url))
                .or(non_blank(w.public_url)),
        }
    }
}

impl TrimJob {
    /// The tracker's view: completed when the status says so or a URL appeared; failed when
    /// failed (with the job's `error`); otherwise processing. `result.urls` is `[url]`.
    pub fn into_status(self) -> StatusResponse {
        let state = if self.status == TrimStatus::Completed || self.url.is_some() {
            JobState::Completed
        } else if self.status == TrimStatus::Failed {
            JobState::Failed
        } else {
            JobState::Processing
        };
        let error = (state == JobState::Failed).then(|| {
            self.error
                .clone()
                .or(self.message.clone())
                .unwrap_or_else(|| "The trim failed; the service gave no reason.".to_owned())
        });
        let result = self.url.map(|url| JobResult {
            urls: vec![url.clone()],
            download_url: Some(url),
            ..JobResult::default()
        });
        StatusResponse {
            success: self.success,
            generation_id: self.job_id,
            kind: Some("video_trim".to_owned()),
            state,
            progress: self.progress,
            result,
            error,
            ..StatusResponse::default()
        }
    }
}

#[cfg(test)]
mod tests;
