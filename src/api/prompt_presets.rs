//! Prompt presets (GET /v1/presets?type=...): named prompt templates for Create. Not the
//! cinematic presets of GET /v1/cinematic-presets. The contract does not show the shape;
//! `presets`, `data` and a bare array are read, each entry leniently.

use serde::Deserialize;

use super::client::ApiClient;
use super::error::ApiError;
use super::lenient::lenient_string;

/// The contract's `type` values for GET /v1/presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PromptPresetType {
    Image,
    Video,
    Music,
    TextToVideo,
    Shorts,
}

impl PromptPresetType {
    pub fn wire_name(self) -> &'static str {
        match self {
            PromptPresetType::Image => "image",
            PromptPresetType::Video => "video",
            PromptPresetType::Music => "music",
            PromptPresetType::TextToVideo => "text_to_video",
            PromptPresetType::Shorts => "shorts",
        }
    }
}

/// One prompt preset; entries without a prompt are dropped (there is nothing to apply).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct PromptPreset {
    #[serde(deserialize_with = "lenient_string", alias = "_id")]
    pub id: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "title")]
    pub name: Option<String>,
    #[serde(deserialize_with = "lenient_string", rename = "type")]
    pub kind: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub description: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "template")]
    pub prompt: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "thumbnailUrl")]
    pub thumbnail_url: Option<String>,
}

impl PromptPreset {
    /// The name to show: the name, else the start of the prompt.
    pub fn label(&self) -> String {
        match self
            .name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            Some(name) => name.to_owned(),
            None => self
                .prompt
                .as_deref()
                .unwrap_or_default()
                .chars()
                .take(40)
                .collect(),
        }
    }
}

/// Reads the list out of any of the envelopes the service might use.
pub fn decode_prompt_presets(value: &serde_json::Value) -> Vec<PromptPreset> {
    let items = match value {
        serde_json::Value::Array(items) => Some(items),
        _ => ["presets", "data"]
            .iter()
            .find_map(|key| value.get(*key).and_then(serde_json::Value::as_array)),
    };
    items
        .into_iter()
        .flatten()
        .filter_map(|item| serde_json::from_value::<PromptPreset>(item.clone()).ok())
        .filter(|preset| {
            preset
                .prompt
                .as_deref()
                .is_some_and(|p| !p.trim().is_empty())
        })
        .collect()
}

impl ApiClient {
    /// GET /v1/presets?type=...
    pub async fn prompt_presets(
        &self,
        kind: PromptPresetType,
    ) -> Result<Vec<PromptPreset>, ApiError> {
        let request = self
            .service
            .get(self.url("/v1/presets"))
            .query(&[("type", kind.wire_name())]);
        let value: serde_json::Value = self.json(request).await?;
        Ok(decode_prompt_presets(&value))
    }
}
