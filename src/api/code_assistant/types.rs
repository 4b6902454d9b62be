//! The coding-assistant API's resources as the studio uses them, and their wire shapes
//! (GET /models, GET /balance, POST /files, POST /chat/completions). Numbers are read
//! leniently (a string "0.002" is a price too); unknown fields are ignored.

use crate::api::lenient::{lenient_bool, lenient_f64, lenient_string, lenient_u64, null_default};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};

/// Billing granularity of the contract's chat rule: costs are rounded up to this.
pub const COST_STEP_CREDITS: f64 = 0.1;

/// One entry of GET /models.
#[derive(Clone, Debug, PartialEq)]
pub struct CodeModel {
    pub id: String,
    /// `name` if the service sent one, else the id.
    pub name: String,
    pub owned_by: String,
    pub prompt_credits_per_token: f64,
    pub completion_credits_per_token: f64,
    pub context_length: u64,
    pub supports_vision: bool,
}

impl CodeModel {
    /// Credits a reply costs: `usage.cost` when the service sent it, else the contract's
    /// rule (prompt tokens × prompt price + completion tokens × completion price, rounded
    /// up to 0.1, at least 0.1).
    pub fn cost_credits(&self, usage: &ChatUsage) -> f64 {
        if let Some(cost) = usage.cost_credits.filter(|c| c.is_finite() && *c >= 0.0) {
            return cost;
        }
        let raw = usage.prompt_tokens as f64 * self.prompt_credits_per_token
            + usage.completion_tokens as f64 * self.completion_credits_per_token;
        round_up_to_step(raw)
    }
}

/// Round up to 0.1 credits, minimum 0.1 (a float a hair above a step, like 0.30000000004
/// from 0.1 × 3, stays on that step).
pub fn round_up_to_step(raw_credits: f64) -> f64 {
    if !raw_credits.is_finite() || raw_credits <= 0.0 {
        return COST_STEP_CREDITS;
    }
    let steps_per_credit = (1.0 / COST_STEP_CREDITS).round();
    let steps = (raw_credits * steps_per_credit - 1e-9).ceil().max(1.0);
    // Divide (not multiply by 0.1) so 3 steps is 0.3, not 0.30000000000000004.
    steps / steps_per_credit
}

/// GET /balance: credits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct CodeBalance {
    #[serde(deserialize_with = "number")]
    pub available: f64,
    #[serde(deserialize_with = "number")]
    pub reserved: f64,
    #[serde(deserialize_with = "number")]
    pub total: f64,
}

/// The descriptor POST /files answers with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct UploadedFile {
    pub id: String,
    pub filename: String,
    pub bytes: u64,
    pub mime_type: String,
    /// Public, expiring URL (no key needed; the key is never sent to it).
    pub url: String,
    /// Unix seconds.
    pub created: i64,
    /// Unix seconds; the URL stops working then.
    pub expires_at: i64,
    /// An identical earlier upload's record was returned.
    pub deduplicated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    System,
    User,
    Assistant,
}

impl ChatRole {
    pub fn as_str(self) -> &'static str {
        match self {
            ChatRole::System => "system",
            ChatRole::User => "user",
            ChatRole::Assistant => "assistant",
        }
    }

    pub fn parse(text: &str) -> Option<ChatRole> {
        match text {
            "system" => Some(ChatRole::System),
            "user" => Some(ChatRole::User),
            "assistant" => Some(ChatRole::Assistant),
            _ => None,
        }
    }
}

/// One part of a message's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContentPart {
    Text(String),
    /// An uploaded file's URL (or any image URL the service can fetch).
    ImageUrl(String),
}

/// One message of a chat request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatMessage {
    pub role: ChatRole,
    pub parts: Vec<ContentPart>,
}

impl ChatMessage {
    /// A message of one text part.
    pub fn text(role: ChatRole, text: impl Into<String>) -> Self {
        ChatMessage {
            role,
            parts: vec![ContentPart::Text(text.into())],
        }
    }
}

/// `content` is a plain string when the message is one text part, else the array form
/// (`[{type:"text", text} | {type:"image_url", image_url:{url}}]`).
impl Serialize for ChatMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Parts<'a>(&'a [ContentPart]);
        impl Serialize for Parts<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
                for part in self.0 {
                    match part {
                        ContentPart::Text(text) => seq.serialize_element(
                            &serde_json::json!({ "type": "text", "text": text }),
                        )?,
                        ContentPart::ImageUrl(url) => seq.serialize_element(
                            &serde_json::json!({ "type": "image_url", "image_url": { "url": url } }),
                        )?,
                    }
                }
                seq.end()
            }
        }
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("role", &self.role)?;
        match self.parts.as_slice() {
            [ContentPart::Text(text)] => map.serialize_entry("content", text)?,
            parts => map.serialize_entry("content", &Parts(parts))?,
        }
        map.end()
    }
}

/// What to ask POST /chat/completions (the client adds `stream`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<ChatMessage>,
    pub max_tokens: Option<u32>,
}

/// The request body on the wire.
#[derive(Serialize)]
pub(crate) struct ChatRequestBody<'a> {
    pub model: &'a str,
    pub messages: &'a [ChatMessage],
    pub stream: bool,
    /// Streams only: the industry-standard schema sends a stream's usage (which the studio
    /// bills and shows) only when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

#[derive(Serialize)]
pub(crate) struct StreamOptions {
    pub include_usage: bool,
}

impl ChatRequest {
    pub(crate) fn body(&self, stream: bool) -> ChatRequestBody<'_> {
        ChatRequestBody {
            model: &self.model,
            messages: &self.messages,
            stream,
            stream_options: stream.then_some(StreamOptions {
                include_usage: true,
            }),
            max_tokens: self.max_tokens,
        }
    }
}

/// Token counts of one reply, and the credits billed when the service says.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
    /// `usage.cost` (the sandbox's extension) when sent.
    pub cost_credits: Option<f64>,
}

/// The synchronous answer, reduced to what the studio keeps.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatCompletion {
    pub id: String,
    pub model: String,
    pub text: String,
    pub finish_reason: Option<String>,
    pub usage: Option<ChatUsage>,
}

// ---------------------------------------------------------------------------------------
// Wire shapes (decoding only)
// ---------------------------------------------------------------------------------------

fn number<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    Ok(lenient_f64(deserializer)?.unwrap_or(0.0))
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct WireModels {
    #[serde(deserialize_with = "null_default")]
    pub data: Vec<WireModel>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct WireModel {
    #[serde(deserialize_with = "lenient_string")]
    pub id: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub name: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub owned_by: Option<String>,
    #[serde(deserialize_with = "null_default")]
    pub pricing: WirePricing,
    #[serde(deserialize_with = "lenient_u64")]
    pub context_length: Option<u64>,
    #[serde(deserialize_with = "lenient_bool")]
    pub supports_vision: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct WirePricing {
    #[serde(deserialize_with = "lenient_f64")]
    pub prompt: Option<f64>,
    #[serde(deserialize_with = "lenient_f64")]
    pub completion: Option<f64>,
}

impl WireModels {
    /// Models with an id; a missing name falls back to the id.
    pub fn into_models(self) -> Vec<CodeModel> {
        self.data
            .into_iter()
            .filter_map(|m| {
                let id = m.id.filter(|id| !id.trim().is_empty())?;
                Some(CodeModel {
                    name: m
                        .name
                        .filter(|n| !n.trim().is_empty())
                        .unwrap_or_else(|| id.clone()),
                    owned_by: m.owned_by.unwrap_or_default(),
                    prompt_credits_per_token: m.pricing.prompt.unwrap_or(0.0),
                    completion_credits_per_token: m.pricing.completion.unwrap_or(0.0),
                    context_length: m.context_length.unwrap_or(0),
                    supports_vision: m.supports_vision.unwrap_or(false),
                    id,
                })
            })
            .collect()
    }
}

/// `usage` of a completion or of the last stream chunk.
#[derive(Deserialize, Default, Debug, Clone)]
#[serde(default)]
pub(crate) struct WireUsage {
    #[serde(deserialize_with = "lenient_u64")]
    pub prompt_tokens: Option<u64>,
    #[serde(deserialize_with = "lenient_u64")]
    pub completion_tokens: Option<u64>,
    #[serde(deserialize_with = "lenient_u64")]
    pub total_tokens: Option<u64>,
    #[serde(deserialize_with = "lenient_f64")]
    pub cost: Option<f64>,
}

impl From<WireUsage> for ChatUsage {
    fn from(usage: WireUsage) -> Self {
        let prompt_tokens = usage.prompt_tokens.unwrap_or(0);
        let completion_tokens = usage.completion_tokens.unwrap_or(0);
        ChatUsage {
            prompt_tokens,
            completion_tokens,
            total_tokens: usage
                .total_tokens
                .unwrap_or(prompt_tokens + completion_tokens),
            cost_credits: usage.cost.filter(|c| c.is_finite() && *c >= 0.0),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct WireCompletion {
    #[serde(deserialize_with = "lenient_string")]
    pub id: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub model: Option<String>,
    #[serde(deserialize_with = "null_default")]
    pub choices: Vec<WireChoice>,
    pub usage: Option<WireUsage>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct WireChoice {
    #[serde(deserialize_with = "null_default")]
    pub message: WireAnswer,
    #[serde(deserialize_with = "lenient_string")]
    pub finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct WireAnswer {
    #[serde(deserialize_with = "lenient_string")]
    pub content: Option<String>,
}

impl From<WireCompletion> for ChatCompletion {
    fn from(wire: WireCompletion) -> Self {
        let first = wire.choices.into_iter().next().unwrap_or_default();
        ChatCompletion {
            id: wire.id.unwrap_or_default(),
            model: wire.model.unwrap_or_default(),
            text: first.message.content.unwrap_or_default(),
            finish_reason: first.finish_reason,
            usage: wire.usage.map(ChatUsage::from),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_text_part_is_a_plain_string_else_an_array() {
        let plain = ChatMessage::text(ChatRole::User, "hi");
        assert_eq!(
            serde_json::to_value(&plain).unwrap(),
            serde_json::json!({"role": "user", "content": "hi"})
        );
        let mixed = ChatMessage {
            role: ChatRole::User,
            parts: vec![
                ContentPart::Text("what is this?".into()),
                ContentPart::ImageUrl("http://h/files/code/a.jpg".into()),
            ],
        };
        assert_eq!(
            serde_json::to_value(&mixed).unwrap(),
            serde_json::json!({"role": "user", "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "http://h/files/code/a.jpg"}},
            ]})
        );
        let request = ChatRequest {
            model: "m".into(),
            messages: vec![plain],
            max_tokens: None,
        };
        let body = serde_json::to_value(request.body(true)).unwrap();
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert!(body.get("max_tokens").is_none());
        let synchronous = serde_json::to_value(request.body(false)).unwrap();
        assert!(synchronous.get("stream_options").is_none());
    }

    #[test]
    fn cost_is_the_service_figure_else_the_contract_rule() {
        let model = CodeModel {
            id: "m".into(),
            name: "m".into(),
            owned_by: String::new(),
            prompt_credits_per_token: 0.002,
            completion_credits_per_token: 0.008,
            context_length: 8192,
            supports_vision: false,
        };
        let mut usage = ChatUsage {
            prompt_tokens: 100,
            completion_tokens: 100,
            total_tokens: 200,
            cost_credits: None,
        };
        // 0.2 + 0.8 = 1.0 exactly: not rounded up to 1.1 by float noise.
        assert_eq!(model.cost_credits(&usage), 1.0);
        usage.completion_tokens = 101; // 1.008 → 1.1
        assert_eq!(model.cost_credits(&usage), 1.1);
        usage.prompt_tokens = 1;
        usage.completion_tokens = 0; // 0.002 → the minimum 0.1
        assert_eq!(model.cost_credits(&usage), 0.1);
        usage.cost_credits = Some(4.2);
        assert_eq!(model.cost_credits(&usage), 4.2);
        assert_eq!(round_up_to_step(0.30000000000000004), 0.3);
        assert_eq!(round_up_to_step(0.0), 0.1);
    }

    #[test]
    fn models_fall_back_to_the_id_and_read_string_prices() {
        let wire: WireModels = serde_json::from_str(
            r#"{"object":"list","data":[
                {"id":"a","object":"model","owned_by":"x","name":"Model A",
                 "pricing":{"prompt":0.002,"completion":"0.008"},"context_length":8192,
                 "supports_vision":true},
                {"id":"b","pricing":null},
                {"name":"no id"}]}"#,
        )
        .unwrap();
        let models = wire.into_models();
        assert_eq!(models.len(), 2);
        assert_eq!(models[0].name, "Model A");
        assert_eq!(models[0].completion_credits_per_token, 0.008);
        assert!(models[0].supports_vision);
        assert_eq!(models[1].name, "b");
        assert!(!models[1].supports_vision);
    }
}
