//! What the service really did with generation jobs, for black-box checks (the handle's
//! `generations()` and `GET /admin/generations`).

use serde::{Deserialize, Serialize};

use super::state::AppState;

/// One generation job as the sandbox stored it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationSummary {
    pub id: String,
    /// The submit route's kind, e.g. `image` or `image_edit`.
    pub kind: String,
    pub prompt: String,
    /// `processing`, `completed`, `failed` or `cancelled`.
    pub state: String,
    pub credits_reserved: f64,
    pub credits_used: Option<f64>,
    pub created_at_unix_ms: i64,
}

pub(crate) fn list(state: &AppState) -> rusqlite::Result<Vec<GenerationSummary>> {
    let rows = state.store.generation_summaries()?;
    Ok(rows
        .into_iter()
        .map(|row| GenerationSummary {
            created_at_unix_ms: chrono::DateTime::parse_from_rfc3339(&row.created_at)
                .map(|t| t.timestamp_millis())
                .unwrap_or(0),
            id: row.id,
            kind: row.kind,
            prompt: row.prompt,
            state: row.state,
            credits_reserved: row.credits_reserved,
            credits_used: row.credits_used,
        })
        .collect())
}
