//! The chat models of the coding-assistant API (`GET /models`, no authentication). Prices
//! are credits per token.

use axum::Json;
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ChatModel {
    pub id: &'static str,
    /// The sandbox's display name (an extra field; clients fall back to the id).
    pub name: &'static str,
    pub prompt_credits_per_token: f64,
    pub completion_credits_per_token: f64,
    pub context_length_tokens: u64,
    pub supports_vision: bool,
}

const OWNED_BY: &str = "framewright-sandbox";

pub(crate) const MODELS: &[ChatModel] = &[
    ChatModel {
        id: "sandbox-coder",
        name: "Sandbox Coder",
        prompt_credits_per_token: 0.002,
        completion_credits_per_token: 0.008,
        context_length_tokens: 128_000,
        supports_vision: true,
    },
    ChatModel {
        id: "sandbox-coder-pro",
        name: "Sandbox Coder Pro",
        prompt_credits_per_token: 0.006,
        completion_credits_per_token: 0.024,
        context_length_tokens: 200_000,
        supports_vision: true,
    },
    ChatModel {
        id: "sandbox-coder-mini",
        name: "Sandbox Coder Mini (text only)",
        prompt_credits_per_token: 0.0005,
        completion_credits_per_token: 0.002,
        context_length_tokens: 32_768,
        supports_vision: false,
    },
];

/// The model with this exact id.
pub(crate) fn find(id: &str) -> Option<&'static ChatModel> {
    MODELS.iter().find(|model| model.id == id)
}

/// GET /models
pub(crate) async fn list() -> Json<Value> {
    let data: Vec<Value> = MODELS
        .iter()
        .map(|model| {
            json!({
                "id": model.id,
                "object": "model",
                "owned_by": OWNED_BY,
                "name": model.name,
                "pricing": {
                    "prompt": model.prompt_credits_per_token,
                    "completion": model.completion_credits_per_token,
                },
                "context_length": model.context_length_tokens,
                "supports_vision": model.supports_vision,
            })
        })
        .collect();
    Json(json!({"object": "list", "data": data}))
}
