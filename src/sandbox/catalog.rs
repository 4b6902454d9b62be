//! The model catalog served by GET /v1/models, embedded from `assets/models.json`.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::SandboxError;

const CATALOG_JSON: &str = include_str!("../../assets/models.json");

/// The catalog type of the models behind POST /v1/edit/video (a sandbox convention).
pub(crate) const VIDEO_EDIT_TYPE: &str = "video_edit";
/// The catalog type of video-to-video models.
pub(crate) const VIDEO_TO_VIDEO_TYPE: &str = "video_to_video";

/// Fields only the sandbox reads; they are stripped from responses.
const SANDBOX_ONLY_FIELDS: [&str; 3] = ["sort_order", "hidden", "deleted"];

/// The subset of a model record the sandbox needs for validation and pricing.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ModelSpec {
    pub identifier: String,
    pub name: String,
    pub provider: String,
    pub types: Vec<String>,
    pub credit: f64,
    #[serde(default)]
    pub supported_aspect_ratios: Option<Vec<String>>,
    /// catalog type -> ratios, where a model offers different ratios per type.
    #[serde(default)]
    pub supported_aspect_ratios_by_type: Option<HashMap<String, Vec<String>>>,
    #[serde(default)]
    pub default_aspect_ratio: Option<String>,
    #[serde(default)]
    pub supported_resolutions: Option<Vec<String>>,
    #[serde(default)]
    pub resolution_multipliers: Option<HashMap<String, f64>>,
    #[serde(default)]
    pub supported_qualities: Option<Vec<String>>,
    #[serde(default)]
    pub quality_multipliers: Option<HashMap<String, f64>>,
    #[serde(default)]
    pub default_quality: Option<String>,
    #[serde(default)]
    pub flat_credit_by_resolution: Option<HashMap<String, f64>>,
    #[serde(default)]
    pub images_per_request: Option<u32>,
    #[serde(default)]
    pub max_reference_images: Option<u32>,
    #[serde(default)]
    pub min_prompt_length: Option<usize>,
    #[serde(default)]
    pub max_prompt_length: Option<usize>,
    #[serde(default)]
    pub recommended: bool,
    /// Video models: the output lengths in seconds the model renders.
    #[serde(default)]
    pub supported_durations: Option<Vec<f64>>,
    #[serde(default)]
    pub default_duration: Option<f64>,
    /// `native` or `none`.
    #[serde(default)]
    pub sound_generation_type: Option<String>,
    #[serde(default)]
    pub sound_enabled_by_default: Option<bool>,
    #[serde(default)]
    pub sound_credit_multiplier: Option<f64>,
    /// Sub-class; for `video_edit` models the `/edit/video` operation the model serves.
    #[serde(default)]
    pub model_type: Option<String>,
    /// Extend models: the shortest and longest extension in seconds.
    #[serde(default)]
    pub min_output_duration: Option<f64>,
    #[serde(default)]
    pub max_output_duration: Option<f64>,
    #[serde(default)]
    pub output_audio_formats: Option<Vec<String>>,
    #[serde(default)]
    pub default_output_audio_format: Option<String>,
    /// Video-input pricing (video-to-video): credits per second of input plus output.
    #[serde(default)]
    pub video_input_credit: Option<f64>,
    #[serde(default)]
    pub video_input_resolution_multipliers: Option<HashMap<String, f64>>,
    /// Typical wall time of one job in seconds (3D jobs last this long at speed 1).
    #[serde(default)]
    pub estimated_duration_seconds: Option<f64>,
    #[serde(default)]
    sort_order: f64,
    #[serde(default)]
    hidden: bool,
    #[serde(default)]
    deleted: bool,
}

impl ModelSpec {
    pub(crate) fn has_type(&self, raw_type: &str) -> bool {
        self.types.iter().any(|t| t == raw_type)
    }

    pub(crate) fn aspect_ratios(&self) -> &[String] {
        self.supported_aspect_ratios.as_deref().unwrap_or(&[])
    }

    /// The ratios for `raw_type`: the per-type list when the record has one.
    pub(crate) fn aspect_ratios_for(&self, raw_type: &str) -> &[String] {
        self.supported_aspect_ratios_by_type
            .as_ref()
            .and_then(|by_type| by_type.get(raw_type))
            .filter(|ratios| !ratios.is_empty())
            .map_or_else(|| self.aspect_ratios(), Vec::as_slice)
    }

    /// The sound multiplier a request pays: the model's `sound_credit_multiplier` when it
    /// makes sound (see [`sound_on`]), else 1.
    pub(crate) fn sound_multiplier(&self, sound_enabled: Option<bool>) -> f64 {
        if sound_on(self, sound_enabled) {
            self.sound_credit_multiplier.unwrap_or(1.0)
        } else {
            1.0
        }
    }

    pub(crate) fn resolutions(&self) -> &[String] {
        self.supported_resolutions.as_deref().unwrap_or(&[])
    }

    pub(crate) fn qualities(&self) -> &[String] {
        self.supported_qualities.as_deref().unwrap_or(&[])
    }

    /// Contract defaults: min 1, max 2000.
    pub(crate) fn prompt_length_bounds(&self) -> (usize, usize) {
        (
            self.min_prompt_length.unwrap_or(1),
            self.max_prompt_length.unwrap_or(2000),
        )
    }
}

/// Whether a video request makes sound: the model's sound is native and `sound_enabled`
/// (else the model's `sound_enabled_by_default`) is on.
pub(crate) fn sound_on(spec: &ModelSpec, sound_enabled: Option<bool>) -> bool {
    spec.sound_generation_type.as_deref() == Some("native")
        && sound_enabled.unwrap_or(spec.sound_enabled_by_default == Some(true))
}

/// One served model: its typed spec and the public JSON record.
#[derive(Debug, Clone)]
pub(crate) struct CatalogEntry {
    pub spec: ModelSpec,
    pub record: Value,
}

#[derive(Debug)]
pub(crate) struct Catalog {
    /// Served models, already in response order (sort_order, then name).
    entries: Vec<CatalogEntry>,
}

/// Raw catalog types that a `type` query value selects, or `None` for a raw type match.
fn alias_types(query: &str) -> Option<&'static [&'static str]> {
    Some(match query {
        "image" => &["text_to_img"],
        "image_edit" => &["image_editing"],
        "video" => &["text_to_video"],
        "video_from_image" => &["img_to_video"],
        "video_from_video" => &["video_to_video"],
        "music" => &["music_gen"],
        "speech" => &["text_to_speech"],
        "sound" => &["text_to_sound"],
        "chat" => &["text"],
        "first_last_frame" => &["firstlastgenerations"],
        "transcription" => &["stt"],
        "lipsync" => &["lipsync-image", "lipsync-video"],
        "three_d" => &[
            "3d_text_to_model",
            "3d_image_to_model",
            "3d_multi_image_to_model",
            "3d_world",
        ],
        _ => return None,
    })
}

impl Catalog {
    pub(crate) fn load() -> Result<Self, SandboxError> {
        Self::parse(CATALOG_JSON)
    }

    pub(crate) fn parse(json: &str) -> Result<Self, SandboxError> {
        let raw: Vec<Map<String, Value>> =
            serde_json::from_str(json).map_err(|e| SandboxError::Catalog(e.to_string()))?;
        let mut entries = Vec::with_capacity(raw.len());
        for mut record in raw {
            let spec: ModelSpec = serde_json::from_value(Value::Object(record.clone()))
                .map_err(|e| SandboxError::Catalog(e.to_string()))?;
            if spec.hidden || spec.deleted {
                continue;
            }
            for field in SANDBOX_ONLY_FIELDS {
                record.remove(field);
            }
            entries.push(CatalogEntry {
                spec,
                record: Value::Object(record),
            });
        }
        entries.sort_by(|a, b| {
            a.spec
                .sort_order
                .total_cmp(&b.spec.sort_order)
                .then_with(|| a.spec.name.cmp(&b.spec.name))
        });
        Ok(Self { entries })
    }

    /// GET /v1/models filtering: `type` by catalog name, alias or raw type; `provider` exact.
    pub(crate) fn filter(&self, type_query: Option<&str>, provider: Option<&str>) -> Vec<&Value> {
        self.entries
            .iter()
            .filter(|entry| match type_query {
                None => true,
                Some(query) => match alias_types(query) {
                    Some(raw_types) => raw_types.iter().any(|t| entry.spec.has_type(t)),
                    None => entry.spec.has_type(query),
                },
            })
            .filter(|entry| provider.is_none_or(|p| entry.spec.provider == p))
            .map(|entry| &entry.record)
            .collect()
    }

    /// The provider of the first served model whose `avatar` is the bare filename `file`.
    pub(crate) fn avatar_provider(&self, file: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|entry| entry.record.get("avatar").and_then(Value::as_str) == Some(file))
            .map(|entry| entry.spec.provider.as_str())
    }

    /// A served model by identifier that has the given raw type.
    pub(crate) fn find(&self, identifier: &str, raw_type: &str) -> Option<&ModelSpec> {
        self.entries
            .iter()
            .map(|entry| &entry.spec)
            .find(|spec| spec.identifier == identifier && spec.has_type(raw_type))
    }

    /// The routed default for a type: the first recommended model, else the first in order.
    pub(crate) fn default_for(&self, raw_type: &str) -> Option<&ModelSpec> {
        let mut of_type = self
            .entries
            .iter()
            .map(|entry| &entry.spec)
            .filter(|spec| spec.has_type(raw_type));
        let first = of_type.clone().next();
        of_type.find(|spec| spec.recommended).or(first)
    }

    /// A `video_edit` model serving `operation` (its `model_type`), by identifier.
    pub(crate) fn find_edit_model(&self, identifier: &str, operation: &str) -> Option<&ModelSpec> {
        self.find(identifier, VIDEO_EDIT_TYPE)
            .filter(|spec| spec.model_type.as_deref() == Some(operation))
    }

    /// The default `video_edit` model of an operation: the recommended one, else the first.
    pub(crate) fn default_edit_model(&self, operation: &str) -> Option<&ModelSpec> {
        let mut serving = self.entries.iter().map(|entry| &entry.spec).filter(|spec| {
            spec.has_type(VIDEO_EDIT_TYPE) && spec.model_type.as_deref() == Some(operation)
        });
        let first = serving.clone().next();
        serving.find(|spec| spec.recommended).or(first)
    }

    /// Cheapest base credit among models of a type (the floor of the per-type minimum).
    pub(crate) fn cheapest_credit(&self, raw_type: &str) -> f64 {
        self.entries
            .iter()
            .filter(|entry| entry.spec.has_type(raw_type))
            .map(|entry| entry.spec.credit)
            .reduce(f64::min)
            .unwrap_or(0.0)
            .max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_catalog_covers_every_type_and_hides_retired_models() {
        let catalog = Catalog::load().expect("catalog parses");
        for raw in [
            "text_to_img",
            "image_editing",
            "text_to_video",
            "img_to_video",
            "draw_to_video",
            "video_to_video",
            "elements",
            "firstlastgenerations",
            "lipsync-image",
            "lipsync-video",
            "music_gen",
            "text_to_speech",
            "text_to_sound",
            "stt",
            "text",
            "3d_text_to_model",
            "3d_image_to_model",
            "3d_multi_image_to_model",
            "3d_world",
        ] {
            assert!(!catalog.filter(Some(raw), None).is_empty(), "{raw}");
        }
        assert!(catalog.filter(Some("image"), None).len() >= 5);
        assert!(catalog.filter(Some("image_edit"), None).len() >= 4);
        let all = catalog.filter(None, None);
        assert!(all.len() >= 24);
        for record in all {
            assert!(record.get("sort_order").is_none());
            assert!(record.get("hidden").is_none());
        }
        assert!(catalog.find("legacy/dalle-2", "text_to_img").is_none());
    }
}
