//! `visual_dna_ids` and `moodboard_id` / `moodboard_ids` of a generation request: checked
//! at submit (400 VISUAL_DNA_NOT_FOUND / VISUAL_DNA_NOT_READY / MOODBOARD_NOT_FOUND, before
//! anything is billed) and turned into what the render applies (a tint toward their
//! colours, the DNA thumbnails inset) and the words added to `prompt_used`.

use axum::http::StatusCode;
use serde_json::{Map, Value};

use super::store::{DnaStatus, VisualDnaRow};
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::is_object_id;
use crate::sandbox::look::{GradeColor, Look};
use crate::sandbox::moodboards::{self, MoodboardRow};
use crate::sandbox::state::AppState;

/// The contract's cap on `visual_dna_ids` (a model's `max_visual_dna` may be smaller).
pub(crate) const MAX_VISUAL_DNA_IDS: usize = 3;
/// Colours each reference contributes to the tint.
const COLORS_PER_REFERENCE: usize = 3;

/// The references a request names, resolved.
#[derive(Debug, Default, Clone)]
pub(crate) struct Refs {
    pub dnas: Vec<VisualDnaRow>,
    pub moodboard: Option<MoodboardRow>,
}

fn bad(code: &str, message: impl Into<String>) -> ApiError {
    ApiError::sdk(StatusCode::BAD_REQUEST, code, message)
}

/// Resolves `visual_dna_ids` (≤ `max_visual_dna`) and `moodboard_id` of `body`.
pub(crate) fn resolve(
    state: &AppState,
    user_id: &str,
    body: &Map<String, Value>,
    max_visual_dna: Option<u32>,
) -> ApiResult<Refs> {
    let moodboard = match body.get("moodboard_id") {
        Some(Value::String(id)) if !id.trim().is_empty() => {
            Some(resolve_moodboard(state, user_id, id)?)
        }
        _ => None,
    };
    Ok(Refs {
        dnas: resolve_dnas(state, user_id, body, max_visual_dna)?,
        moodboard,
    })
}

pub(crate) fn resolve_dnas(
    state: &AppState,
    user_id: &str,
    body: &Map<String, Value>,
    max_visual_dna: Option<u32>,
) -> ApiResult<Vec<VisualDnaRow>> {
    let ids: Vec<&str> = match body.get("visual_dna_ids") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::trim)
            .filter(|id| !id.is_empty())
            .collect(),
        _ => return Ok(Vec::new()),
    };
    let cap = max_visual_dna
        .map_or(MAX_VISUAL_DNA_IDS, |m| m as usize)
        .min(MAX_VISUAL_DNA_IDS);
    if ids.len() > cap {
        return Err(bad(
            "INVALID_VISUAL_DNA",
            format!(
                "visual_dna_ids names {} Visual DNAs; this model accepts at most {cap}",
                ids.len()
            ),
        ));
    }
    let now_ms = state.clock.now_ms();
    let mut rows: Vec<VisualDnaRow> = Vec::with_capacity(ids.len());
    for id in ids {
        let row = if is_object_id(id) {
            state.store.visual_dna(id)?
        } else {
            None
        }
        .filter(|row| row.is_global() || row.owner_id.as_deref() == Some(user_id))
        .ok_or_else(|| {
            bad(
                "VISUAL_DNA_NOT_FOUND",
                format!("Visual DNA {id} was not found"),
            )
        })?;
        match row.status(now_ms) {
            DnaStatus::Ready => {}
            DnaStatus::Building => {
                return Err(bad(
                    "VISUAL_DNA_NOT_READY",
                    format!(
                        "Visual DNA \"{}\" is still building; try again when it is ready",
                        row.name
                    ),
                ));
            }
            DnaStatus::Failed => {
                return Err(bad(
                    "VISUAL_DNA_NOT_READY",
                    format!(
                        "Visual DNA \"{}\" failed to build and cannot be used",
                        row.name
                    ),
                ));
            }
        }
        if !rows.iter().any(|r| r.id == row.id) {
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The caller's moodboard `id`, or 400 MOODBOARD_NOT_FOUND.
pub(crate) fn resolve_moodboard(
    state: &AppState,
    user_id: &str,
    id: &str,
) -> ApiResult<MoodboardRow> {
    moodboards::owned(state, user_id, id.trim())?.ok_or_else(|| {
        bad(
            "MOODBOARD_NOT_FOUND",
            format!("Moodboard {} was not found", id.trim()),
        )
    })
}

/// Creative Director: `moodboard_ids[i]` is scene i+1's moodboard (an empty string or
/// null skips a scene); every id must resolve. Scenes past the list use `moodboard_id`.
pub(crate) fn resolve_scene_moodboards(
    state: &AppState,
    user_id: &str,
    body: &Map<String, Value>,
) -> ApiResult<Vec<Option<MoodboardRow>>> {
    let Some(Value::Array(items)) = body.get("moodboard_ids") else {
        return Ok(Vec::new());
    };
    items
        .iter()
        .map(|item| match item {
            Value::String(id) if !id.trim().is_empty() => {
                resolve_moodboard(state, user_id, id).map(Some)
            }
            _ => Ok(None),
        })
        .collect()
}

impl Refs {
    /// Adds the tint, the insets and the DNA names to `look`.
    pub(crate) fn apply_to(&self, look: &mut Look) {
        let mut tint: Vec<GradeColor> = Vec::new();
        let mut push = |hexes: &[String]| {
            for (rank, hex) in hexes.iter().take(COLORS_PER_REFERENCE).enumerate() {
                tint.push(GradeColor {
                    hex: hex.clone(),
                    role: if rank == 0 { "dominant" } else { "secondary" }.to_owned(),
                });
            }
        };
        for dna in &self.dnas {
            push(&dna.colors);
        }
        if let Some(moodboard) = &self.moodboard {
            push(&moodboard.hexes());
        }
        look.tint.extend(tint);
        look.insets
            .extend(self.dnas.iter().map(|d| d.thumb_rel_path.clone()));
        look.visual_dna_names
            .extend(self.dnas.iter().map(|d| d.name.clone()));
        if let Some(moodboard) = &self.moodboard {
            look.moodboard_id = Some(moodboard.id.clone());
        }
    }

    /// `prompt_used` with the DNAs' system prompts and the moodboard's master prompt.
    pub(crate) fn extend_prompt(&self, mut prompt_used: String) -> String {
        for dna in &self.dnas {
            prompt_used = format!("{prompt_used}. {}", dna.system_prompt);
        }
        if let Some(moodboard) = &self.moodboard {
            prompt_used = format!("{prompt_used}. {}", moodboard.master_prompt);
        }
        prompt_used
    }
}
