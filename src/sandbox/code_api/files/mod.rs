//! POST /files (multipart field `file`): streamed to disk with the 500 MB cap, images
//! optimised (`optimize.rs`), audio transcoded where possible (`audio.rs`), everything else
//! stored unchanged; identical uploads of a user deduplicated by SHA-256; served under
//! `/files/code/<name>` for 24 hours of sandbox clock, then 410.

mod audio;
mod links;
mod optimize;
mod process;
pub(crate) mod store;

use std::path::{Path, PathBuf};

use axum::extract::multipart::{Field, MultipartRejection};
use axum::extract::{Multipart, State};
use axum::response::IntoResponse;
use axum::{Extension, Json};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use super::error::{CodeError, CodeResult};
use crate::sandbox::auth::Caller;
use crate::sandbox::files::content_type_for;
use crate::sandbox::ids::new_object_id;
use crate::sandbox::state::{AppState, Shared};
use crate::sandbox::upload_limits::{MAX_UPLOAD_FILE_BYTES, MAX_UPLOAD_REQUEST_BYTES, RequestCap};
use links::purge_expired;
pub(crate) use links::{own_file, serve};
use process::store_processed;
use store::CodeFile;

pub(crate) const MAX_UPLOAD_BYTES: u64 = MAX_UPLOAD_FILE_BYTES;
pub(crate) const RETENTION_SECS: i64 = 24 * 60 * 60;
/// Folder below the files dir, and the URL segment after `/files/`.
const FOLDER: &str = "code";

/// The descriptor of document 3 ("Uploaded file descriptor").
pub(crate) fn descriptor(state: &Shared, file: &CodeFile, deduplicated: bool) -> Value {
    json!({
        "id": format!("file_{}", file.id),
        "object": "file",
        "filename": file.filename,
        "bytes": file.size_bytes,
        "mime_type": file.mime_type,
        "url": state.file_url(&file.rel_path),
        "created": file.created_secs,
        "expires_at": file.expires_secs,
        "deduplicated": deduplicated,
    })
}

fn bad_multipart(detail: impl std::fmt::Display) -> CodeError {
    CodeError::validation(format!("Invalid multipart payload: {detail}"))
}

/// An upload received on disk, before any processing.
struct Received {
    partial: PathBuf,
    filename: String,
    /// Declared by the part (lower case, parameters removed), else guessed from the name.
    mime_type: String,
    size_bytes: u64,
    content_sha256: String,
}

/// The route's whole-request cap (a larger declared Content-Length is refused unread).
pub(crate) fn request_cap() -> RequestCap {
    RequestCap {
        max_request_bytes: MAX_UPLOAD_REQUEST_BYTES,
        too_large: || CodeError::too_large().into_response(),
    }
}

pub(crate) async fn upload(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    multipart: Result<Multipart, MultipartRejection>,
) -> CodeResult<Json<Value>> {
    let mut multipart = multipart.map_err(bad_multipart)?;
    let folder = state.files_dir.join(FOLDER);
    tokio::fs::create_dir_all(&folder)
        .await
        .map_err(|e| CodeError::server("upload storage", e))?;
    let mut received: Option<Received> = None;
    let read = async {
        while let Some(field) = multipart.next_field().await.map_err(bad_multipart)? {
            if field.name() == Some("file") && received.is_none() {
                received = Some(receive_file(field, &folder).await?);
            }
            // Other fields are accepted and ignored.
        }
        Ok::<(), CodeError>(())
    }
    .await;
    if let Err(error) = read {
        if let Some(received) = &received {
            let _ = tokio::fs::remove_file(&received.partial).await;
        }
        return Err(error);
    }
    let Some(received) = received else {
        return Err(CodeError::validation(
            "A multipart field named 'file' is required",
        ));
    };
    let now_secs = state.clock.now_ms().div_euclid(1000);
    purge_expired(&state, now_secs).await;
    if let Some(earlier) = store::live_duplicate(
        &state.store,
        &caller.user_id,
        &received.content_sha256,
        now_secs,
    )? {
        let _ = tokio::fs::remove_file(&received.partial).await;
        return Ok(Json(descriptor(&state, &earlier, true)));
    }
    let id = new_object_id();
    let stored = match store_processed(&state, &id, &received).await {
        Ok(stored) => stored,
        Err(error) => {
            let _ = tokio::fs::remove_file(&received.partial).await;
            return Err(error);
        }
    };
    let file = CodeFile {
        id,
        user_id: caller.user_id,
        content_sha256: received.content_sha256,
        filename: stored.filename,
        mime_type: stored.mime_type,
        size_bytes: stored.size_bytes,
        rel_path: stored.rel_path,
        created_secs: now_secs,
        expires_secs: now_secs.saturating_add(RETENTION_SECS),
    };
    store::insert(&state.store, &file)?;
    tracing::info!(file_id = %file.id, size_bytes = file.size_bytes, "coding-assistant file stored");
    Ok(Json(descriptor(&state, &file, false)))
}

/// Streams the part to a temporary file, hashing as it goes; over the cap → 413.
async fn receive_file(mut field: Field<'_>, folder: &Path) -> CodeResult<Received> {
    let filename = field
        .file_name()
        .map(|name| {
            name.rsplit(['/', '\\'])
                .next()
                .unwrap_or(name)
                .trim()
                .to_owned()
        })
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "upload".to_owned());
    let declared = field
        .content_type()
        .map(bare_mime)
        .filter(|mime| !mime.is_empty() && mime != "application/octet-stream");
    let mime_type = declared.unwrap_or_else(|| bare_mime(content_type_for(&filename)));
    let partial = folder.join(format!(
        "incoming-{}.partial",
        uuid::Uuid::new_v4().simple()
    ));
    let mut file = tokio::fs::File::create(&partial)
        .await
        .map_err(|e| CodeError::server("upload storage", e))?;
    let mut hasher = Sha256::new();
    let mut size_bytes: u64 = 0;
    let written: CodeResult<()> = async {
        while let Some(chunk) = field.chunk().await.map_err(bad_multipart)? {
            size_bytes += chunk.len() as u64;
            if size_bytes > MAX_UPLOAD_BYTES {
                return Err(CodeError::too_large());
            }
            hasher.update(&chunk);
            file.write_all(&chunk)
                .await
                .map_err(|e| CodeError::server("upload write", e))?;
        }
        file.flush()
            .await
            .map_err(|e| CodeError::server("upload write", e))
    }
    .await;
    drop(file);
    if let Err(error) = written {
        let _ = tokio::fs::remove_file(&partial).await;
        return Err(error);
    }
    let content_sha256 = hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    Ok(Received {
        partial,
        filename,
        mime_type,
        size_bytes,
        content_sha256,
    })
}

/// `image/PNG; charset=x` → `image/png`
fn bare_mime(mime: &str) -> String {
    mime.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}
