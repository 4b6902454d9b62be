//! The answer step of a creative chat generation (kind `chat`), called by `jobs::produce`
//! once the simulated wait is over: the sandbox's shared answer writer turns the user's
//! message into a Markdown answer, stored as the result's `content` (no files, no library
//! item). Billing is the flat `credit` of the text model (the catalog has no token rates).

use serde_json::Value;

use super::jobs::StoredResult;
use super::store::{GenerationRow, now_iso};

/// `type` of a creative chat generation.
pub(crate) const CHAT_KIND: &str = "chat";

pub(crate) fn is_chat_kind(kind: &str) -> bool {
    kind == CHAT_KIND
}

pub(crate) fn produce(row: &GenerationRow) -> Result<StoredResult, Value> {
    let content = super::assistant::write_answer(&row.prompt, &[]);
    Ok(StoredResult {
        paths: Vec::new(),
        thumbnail_path: None,
        thumbnail_paths: Vec::new(),
        created_at: now_iso(),
        width: 0,
        height: 0,
        duration_secs: None,
        frame_count: None,
        edit_type: None,
        credits_used: None,
        billed_secs: None,
        content: Some(content),
        audio: None,
    })
}
