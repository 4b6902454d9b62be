//! GET /v1/presets[?type=...]: prompt presets, named prompt templates for Create. Not the
//! cinematic presets (GET /v1/cinematic-presets); docs/SANDBOX.md, "Prompt presets".

use std::collections::HashMap;
use std::sync::OnceLock;

use axum::Json;
use axum::extract::Query;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::sandbox::http_error::{ApiError, ApiResult};

/// The contract's preset types, in the order the catalog serves them.
const PRESET_TYPES: [&str; 5] = ["image", "video", "music", "text_to_video", "shorts"];

#[derive(Debug, Deserialize)]
struct Catalog {
    presets: Vec<PromptPreset>,
}

#[derive(Debug, Deserialize)]
struct PromptPreset {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    name: String,
    description: String,
    prompt: String,
}

/// The embedded catalog, parsed once; a broken file is a build-time mistake that the
/// sandbox's own tests catch, so it degrades to an empty list rather than a panic.
fn catalog() -> &'static [PromptPreset] {
    static CATALOG: OnceLock<Vec<PromptPreset>> = OnceLock::new();
    CATALOG.get_or_init(|| {
        match serde_json::from_str::<Catalog>(include_str!("../../../assets/prompt-presets.json")) {
            Ok(catalog) => catalog.presets,
            Err(error) => {
                tracing::error!(%error, "the embedded prompt preset catalog does not parse");
                Vec::new()
            }
        }
    })
}

pub(crate) async fn list(Query(params): Query<HashMap<String, String>>) -> ApiResult<Json<Value>> {
    let wanted = match params.get("type").map(|v| v.trim()) {
        None | Some("") => None,
        Some(kind) if PRESET_TYPES.contains(&kind) => Some(kind),
        Some(_) => {
            return Err(ApiError::sdk(
                StatusCode::BAD_REQUEST,
                "INVALID_TYPE",
                format!("type must be one of: {}", PRESET_TYPES.join(", ")),
            ));
        }
    };
    let presets: Vec<Value> = catalog()
        .iter()
        .filter(|preset| wanted.is_none_or(|kind| preset.kind == kind))
        .map(|preset| {
            json!({
                "id": preset.id,
                "name": preset.name,
                "type": preset.kind,
                "description": preset.description,
                "prompt": preset.prompt,
            })
        })
        .collect();
    Ok(Json(
        json!({"success": true, "count": presets.len(), "presets": presets}),
    ))
}
