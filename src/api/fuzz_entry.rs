//! Every answer body the client decodes, by route, for the wire fuzz test
//! (`tests/fuzz/fuzz_wire.rs`): the same envelope types and the same follow-up reads the
//! client's methods use, without the HTTP around them. Not a stable API.

use super::client::decode_body;
use super::error::ApiError;
use super::media::{
    BulkAction, BulkOutcome, FolderAddOutcome, MediaDetail, MediaItem, UploadTicket,
};
use super::media_client::{
    CountResponse, DetailResponse, FavoriteResponse, FolderResponse, FoldersResponse, ListResponse,
    MAX_BULK_IDS, ShareResponse, StatsResponse, bulk_outcome,
};
use super::palettes::{PaletteListWire, PaletteWire, palette_of, presets_from_value};
use super::types::{
    CreditsResponse, ModelsResponse, ProjectResponse, ProjectsResponse, StatusResponse,
    SubmitResponse, UploadResponse,
};
use super::{AnalyzedColors, ColorPalette};
use reqwest::header::HeaderMap;

/// The answer kinds [`decode`] knows, one per envelope the client reads.
pub const WIRE_KINDS: &[&str] = &[
    "models",
    "credits",
    "projects",
    "project",
    "submit",
    "status",
    "trim_job",
    "upload",
    "media_list",
    "media_item",
    "media_detail",
    "media_stats",
    "favorite",
    "folders",
    "folder",
    "bulk_counts",
    "folder_add",
    "share",
    "upload_ticket",
    "palette_list",
    "palette",
    "palette_analyze",
    "presets",
    "any_json",
];

/// Read `body` as the client reads an answer of `kind` with HTTP `status` and `headers`:
/// the error check first, then the 2xx decode and the reads the client does after it.
/// `Err` is a refusal the studio would show; a panic is a bug.
pub fn decode(kind: &str, status: u16, headers: &HeaderMap, body: &[u8]) -> Result<(), ApiError> {
    if let Some(error) = ApiError::from_response(status, headers, body) {
        // What the shell shows and the engine asks of an error.
        let _ = (error.to_string(), error.code(), error.retry_after_secs());
        let _ = (error.is_rate_limited(), error.is_transient());
        return Err(error);
    }
    decode_ok(kind, body)
}

fn decode_ok(kind: &str, body: &[u8]) -> Result<(), ApiError> {
    match kind {
        "models" => {
            let models = decode_body::<ModelsResponse>(body)?.models;
            for model in &models {
                let _ = (model.min_prompt_chars(), model.max_prompt_chars());
                let _ = (model.max_images_per_request(), model.display_name());
            }
        }
        "credits" => {
            let _ = decode_body::<CreditsResponse>(body)?.credits.spendable();
        }
        "projects" => drop(decode_body::<ProjectsResponse>(body)?.projects),
        "project" => drop(decode_body::<ProjectResponse>(body)?.project),
        "submit" => read::<SubmitResponse>(body)?,
        "status" => {
            let status = decode_body::<StatusResponse>(body)?;
            let _ = (status.failure_message(), status.state.is_terminal());
        }
        "trim_job" => {
            // As `status_of` reads a trim: the job fields, then as a status.
            let status = decode_body::<super::video_edit::TrimJob>(body)?.into_status();
            let _ = (status.failure_message(), status.state.is_terminal());
        }
        "upload" => drop(decode_body::<UploadResponse>(body)?.media),
        "media_list" => read::<ListResponse>(body)?,
        "media_item" => read_item(&decode_body::<MediaItem>(body)?),
        "media_detail" => {
            read::<DetailResponse>(body)?;
            let detail = decode_body::<MediaDetail>(body)?;
            let _ = (
                detail.thumbnail_url(),
                detail.generation_id(),
                detail.prompt(),
            );
        }
        "media_stats" => read::<StatsResponse>(body)?,
        "favorite" => read::<FavoriteResponse>(body)?,
        "folders" => read::<FoldersResponse>(body)?,
        "folder" => read::<FolderResponse>(body)?,
        "bulk_counts" => {
            // As `bulk` sums a split call: the same answer for two chunks of 1000.
            let answer = decode_body::<CountResponse>(body)?;
            for action in [
                BulkAction::Trash,
                BulkAction::Restore,
                BulkAction::DeleteForever,
            ] {
                let mut total = BulkOutcome::default();
                total.absorb(bulk_outcome(action, MAX_BULK_IDS, &answer));
                total.absorb(bulk_outcome(action, MAX_BULK_IDS, &answer));
            }
        }
        "folder_add" => {
            let answer = decode_body::<FolderAddOutcome>(body)?;
            let mut total = FolderAddOutcome::default();
            total.absorb(answer.clone());
            total.absorb(answer);
        }
        "share" => read::<ShareResponse>(body)?,
        "upload_ticket" => read::<UploadTicket>(body)?,
        "palette_list" => read::<PaletteListWire>(body)?,
        "palette" => {
            let palette: ColorPalette = palette_of(decode_body::<PaletteWire>(body)?)?;
            let _ = palette.is_organization();
        }
        "palette_analyze" => read::<AnalyzedColors>(body)?,
        "presets" => {
            let presets = presets_from_value(&decode_body(body)?);
            drop(presets);
        }
        _ => drop(decode_body::<serde_json::Value>(body)?),
    }
    Ok(())
}

/// Decode and drop: the envelope's own lenient readers are what runs.
fn read<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<(), ApiError> {
    decode_body::<T>(body).map(|_| ())
}

fn read_item(item: &MediaItem) {
    let _ = (item.display_name(), item.kind(), item.credits_used());
    let _ = (item.model(), item.generation_id(), item.prompt_text());
    let _ = item.thumbnail_source();
}
