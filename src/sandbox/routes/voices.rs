//! GET /v1/voices (no per-endpoint limiter): the sandbox's built-in voices, filtered by
//! `provider`, `language` and `gender` (each case-insensitive). Every voice has a real
//! preview MP3 (its own sentence in its own voice), rendered on first use under
//! /files/voices/.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Query, State};
use serde_json::{Value, json};

use crate::sandbox::files::write_bytes;
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::sound::encode::{AudioFormat, Tags, encode};
use crate::sandbox::sound::speech::render_speech;
use crate::sandbox::sound::voices::{BuiltInVoice, VOICES, matches};
use crate::sandbox::state::AppState;

/// Renders the previews that are missing (about 0.1 s of work each in a debug build).
/// One caller at a time: two first requests at once would write the same files.
pub(crate) fn ensure_previews(files_dir: &std::path::Path) -> Result<(), String> {
    static RENDERING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = RENDERING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    for voice in &VOICES {
        let path = files_dir.join(voice.preview_rel_path());
        if path.is_file() {
            continue;
        }
        write_bytes(&path, &preview_mp3(voice)?)?;
    }
    Ok(())
}

fn preview_mp3(voice: &BuiltInVoice) -> Result<Vec<u8>, String> {
    let spoken = render_speech(
        voice.preview_text,
        voice.shape(),
        crate::sandbox::ids::fnv1a(voice.voice_id.as_bytes()),
    );
    let tags = Tags {
        title: format!("{} preview · SANDBOX", voice.name),
        words: Some(spoken.words),
    };
    encode(&spoken.samples, &tags, AudioFormat::Mp3)
}

pub(crate) async fn list(
    State(state): State<AppState>,
    Query(params): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    let files_dir = state.files_dir.clone();
    tokio::task::spawn_blocking(move || ensure_previews(&files_dir))
        .await
        .map_err(|e| ApiError::internal("voice previews", e))?
        .map_err(|e| ApiError::internal("voice previews", e))?;
    let param = |name: &str| params.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
    let voices: Vec<Value> = VOICES
        .iter()
        .filter(|v| matches(v, param("provider"), param("language"), param("gender")))
        .map(|v| {
            json!({
                "voice_id": v.voice_id,
                "name": v.name,
                "provider": v.provider,
                "language": v.language,
                "language_code": v.language_code,
                "gender": v.gender,
                "accent": v.accent,
                "preview_url": state.file_url(&v.preview_rel_path()),
                "styles": v.styles,
                "custom": false,
            })
        })
        .collect();
    Ok(Json(json!({
        "success": true,
        "count": voices.len(),
        "voices": voices,
    })))
}
