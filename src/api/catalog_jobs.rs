//! The rest of the catalog's generation routes: the bodies of POST /v1/generate/elements,
//! /first-last-frame, /lipsync and /3d. No egui here.
//!
//! The contract lists these routes (rate group, success status, pricing unit) without
//! their fields; the fields are the reference's (`catalog-families.md`, from the service's
//! MCP server). `None` and empty fields are left out so the service applies its defaults.

use super::types::GenerationKind;
use serde::{Deserialize, Serialize};

/// Body of POST /v1/generate/elements: reference media made into one video.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ElementsRequest {
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// http(s) URLs (local files are uploaded first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_images: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_videos: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_audio_urls: Vec<String>,
    /// Output seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aspect_ratio: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sound_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub visual_dna_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
}

/// Body of POST /v1/generate/first-last-frame: the motion from one image to another.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FirstLastFrameRequest {
    pub first_frame_url: String,
    pub last_frame_url: String,
    /// An optional motion hint.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aspect_ratio: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
}

/// Body of POST /v1/generate/lipsync: an image or video (`source_url`) speaking either an
/// audio file (`audio_url`) or a line of text (`text_prompt`, in `voice`, or the service's
/// default voice when none is given). One of the two must be given.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LipsyncRequest {
    pub source_url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_prompt: Option<String>,
    /// A voice id from GET /v1/voices (with `text_prompt` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voice: Option<String>,
    /// An optional direction for the performance.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
}

/// `mode` of POST /v1/generate/3d.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreeDMode {
    /// From the prompt alone.
    #[default]
    Text,
    /// From one reference image.
    Single,
    /// From several views of one object.
    Multi,
}

impl ThreeDMode {
    pub fn label(self) -> &'static str {
        match self {
            ThreeDMode::Text => "From text",
            ThreeDMode::Single => "From an image",
            ThreeDMode::Multi => "From several images",
        }
    }
    /// The catalog type whose models serve this mode.
    pub fn catalog_type(self) -> &'static str {
        match self {
            ThreeDMode::Text => "3d_text_to_model",
            ThreeDMode::Single => "3d_image_to_model",
            ThreeDMode::Multi => "3d_multi_image_to_model",
        }
    }
}

/// Body of POST /v1/generate/3d.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreeDRequest {
    pub mode: ThreeDMode,
    /// Required in text mode; an optional description otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prompt: String,
    /// One URL in single mode, several in multi mode, none in text mode.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_images: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texture_prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_polycount: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_pbr: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
}

/// The body of an elements, first-last-frame, lip-sync or 3D job, stored in
/// [`super::GenerationSpec::catalog`]. Its variant decides the route;
/// [`CatalogJobRequest::kind`] is the matching `GenerationKind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CatalogJobRequest {
    Elements(ElementsRequest),
    FirstLastFrame(FirstLastFrameRequest),
    Lipsync(LipsyncRequest),
    ThreeD(ThreeDRequest),
}

impl CatalogJobRequest {
    pub fn kind(&self) -> GenerationKind {
        match self {
            CatalogJobRequest::Elements(_) => GenerationKind::Elements,
            CatalogJobRequest::FirstLastFrame(_) => GenerationKind::FirstLastFrame,
            CatalogJobRequest::Lipsync(_) => GenerationKind::Lipsync,
            CatalogJobRequest::ThreeD(_) => GenerationKind::ThreeD,
        }
    }
    /// The model sent (`None`: the service routes to its default).
    pub fn model(&self) -> Option<&str> {
        match self {
            CatalogJobRequest::Elements(r) => r.model.as_deref(),
            CatalogJobRequest::FirstLastFrame(r) => r.model.as_deref(),
            CatalogJobRequest::Lipsync(r) => r.model.as_deref(),
            CatalogJobRequest::ThreeD(r) => r.model.as_deref(),
        }
    }
    pub fn project_id(&self) -> Option<&str> {
        match self {
            CatalogJobRequest::Elements(r) => r.project_id.as_deref(),
            CatalogJobRequest::FirstLastFrame(r) => r.project_id.as_deref(),
            CatalogJobRequest::Lipsync(r) => r.project_id.as_deref(),
            CatalogJobRequest::ThreeD(r) => r.project_id.as_deref(),
        }
    }
    pub fn set_project_id(&mut self, project_id: Option<String>) {
        match self {
            CatalogJobRequest::Elements(r) => r.project_id = project_id,
            CatalogJobRequest::FirstLastFrame(r) => r.project_id = project_id,
            CatalogJobRequest::Lipsync(r) => r.project_id = project_id,
            CatalogJobRequest::ThreeD(r) => r.project_id = project_id,
        }
    }
    /// The prompt, or for lip sync the line spoken (else its direction).
    pub fn prompt(&self) -> &str {
        match self {
            CatalogJobRequest::Elements(r) => &r.prompt,
            CatalogJobRequest::FirstLastFrame(r) => &r.prompt,
            CatalogJobRequest::Lipsync(r) => r
                .text_prompt
                .as_deref()
                .filter(|t| !t.trim().is_empty())
                .unwrap_or(&r.prompt),
            CatalogJobRequest::ThreeD(r) => &r.prompt,
        }
    }
    /// Output seconds asked for (`None`: the model's default, or decided by the sound
    /// for lip sync, or not a video).
    pub fn duration_secs(&self) -> Option<f64> {
        match self {
            CatalogJobRequest::Elements(r) => r.duration,
            CatalogJobRequest::FirstLastFrame(r) => r.duration,
            CatalogJobRequest::Lipsync(_) | CatalogJobRequest::ThreeD(_) => None,
        }
    }
    /// The JSON body sent to the route.
    pub fn body(&self) -> Result<serde_json::Value, serde_json::Error> {
        match self {
            CatalogJobRequest::Elements(r) => serde_json::to_value(r),
            CatalogJobRequest::FirstLastFrame(r) => serde_json::to_value(r),
            CatalogJobRequest::Lipsync(r) => {
                // A voice means nothing without a text line; a stale one must not be sent.
                let mut r = r.clone();
                r.text_prompt = r.text_prompt.filter(|t| !t.trim().is_empty());
                if r.text_prompt.is_none() {
                    r.voice = None;
                }
                serde_json::to_value(r)
            }
            CatalogJobRequest::ThreeD(r) => serde_json::to_value(r),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lipsync_with_audio_sends_no_voice() {
        let body = CatalogJobRequest::Lipsync(LipsyncRequest {
            source_url: "https://h/face.png".into(),
            audio_url: Some("https://h/line.mp3".into()),
            voice: Some("rachel".into()),
            ..LipsyncRequest::default()
        })
        .body()
        .unwrap();
        assert_eq!(body["audio_url"], "https://h/line.mp3");
        assert!(body.get("voice").is_none());
        assert!(body.get("text_prompt").is_none());
    }

    #[test]
    fn three_d_mode_is_snake_case_and_empty_fields_are_left_out() {
        let body = CatalogJobRequest::ThreeD(ThreeDRequest {
            mode: ThreeDMode::Multi,
            reference_images: vec!["https://h/a.png".into(), "https://h/b.png".into()],
            ..ThreeDRequest::default()
        })
        .body()
        .unwrap();
        assert_eq!(body["mode"], "multi");
        assert!(body.get("prompt").is_none());
        assert_eq!(body["reference_images"].as_array().map(Vec::len), Some(2));
    }
}
