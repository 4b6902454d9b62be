//! POST /files (multipart field `file`): streamed to disk with the 500 MB cap, images
//! optimised (`optimize.rs`), audio transcoded where possible (`audio.rs`), everything else
//! stored unchanged; identical uploads of a user deduplicated by SHA-256; served under
//! `/files/code/<name>` for 24 hours of sandbox clock, then 410.

mod audio;
mod optimize;
pub(crate) mod store;

use std::path::{Path, PathBuf};

use axum::extract::multipart::{Field, MultipartRejection};
use axum::extract::{Multipart, Path as UrlPath, State};
use axum::http::header::CONTENT_LENGTH;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use super::error::{CodeError, CodeResult};
use crate::sandbox::auth::Caller;
use crate::sandbox::files::content_type_for;
use crate::sandbox::ids::new_object_id;
use crate::sandbox::state::{AppState, Shared};
use optimize::{Optimized, optimize_image, processable_format};
use store::CodeFile;

pub(crate) const MAX_UPLOAD_BYTES: u64 = 500 * 1024 * 1024;
/// Multipart framing around the file (boundaries, headers, small fields) allowed on top of
/// the cap before a declared Content-Length is refused without reading the body.
const MULTIPART_OVERHEAD_BYTES: u64 = 1024 * 1024;
pub(crate) const RETENTION_SECS: i64 = 24 * 60 * 60;
/// Folder below the files dir, and the URL segment after `/files/`.
const FOLDER: &str = "code";
/// Bytes read from the start of a file to recognise its format.
const SNIFF_BYTES: usize = 64;

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

pub(crate) async fn upload(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> CodeResult<Json<Value>> {
    let declared_length = headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared_length.is_some_and(|length| length > MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES) {
        return Err(CodeError::too_large());
    }
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
        expires_secs: now_secs + RETENTION_SECS,
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

/// What ends up on disk and in the descriptor.
struct Stored {
    filename: String,
    mime_type: String,
    size_bytes: u64,
    rel_path: String,
}

/// Optimises images, transcodes audio where it can, and moves the result to its served
/// name `code/<id>.<ext>`.
async fn store_processed(state: &Shared, id: &str, received: &Received) -> CodeResult<Stored> {
    let head = read_head(&received.partial).await?;
    let declared_image = matches!(
        received.mime_type.as_str(),
        "image/png" | "image/jpeg" | "image/jpg" | "image/webp"
    );
    if let Some(format) = processable_format(&head) {
        let path = received.partial.clone();
        let size = received.size_bytes;
        let optimized = tokio::task::spawn_blocking(move || optimize_image(&path, format, size))
            .await
            .map_err(|e| CodeError::server("image optimisation", e))?;
        return match optimized {
            Ok(Optimized::KeepOriginal) => {
                let mime = format.to_mime_type();
                let extension = format.extensions_str().first().copied().unwrap_or("img");
                keep(state, id, received, mime, extension).await
            }
            Ok(Optimized::Replaced {
                bytes,
                mime_type,
                extension,
            }) => replace(state, id, received, &bytes, mime_type, extension).await,
            Err(optimize::OptimizeError::Decode(detail)) => Err(CodeError::validation(format!(
                "The image could not be read: {detail}"
            ))),
            Err(error) => Err(CodeError::server("image optimisation", error)),
        };
    }
    if declared_image {
        return Err(CodeError::validation(format!(
            "The file is declared as {} but is not a readable image",
            received.mime_type
        )));
    }
    if received.mime_type.starts_with("audio/")
        && let Some(mp3) = audio::transcode_to_mp3(&received.partial, &head).await?
    {
        return replace(state, id, received, &mp3, "audio/mpeg", "mp3").await;
    }
    let mime = received.mime_type.clone();
    let extension = extension_of(&received.filename).unwrap_or_else(|| "bin".to_owned());
    keep(state, id, received, &mime, &extension).await
}

async fn read_head(path: &Path) -> CodeResult<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let file = tokio::fs::File::open(path)
        .await
        .map_err(|e| CodeError::server("upload storage", e))?;
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    file.take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .await
        .map_err(|e| CodeError::server("upload storage", e))?;
    Ok(head)
}

/// A short alphanumeric extension of the file name, lower case.
fn extension_of(filename: &str) -> Option<String> {
    filename
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .filter(|ext| {
            !ext.is_empty() && ext.len() <= 8 && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        })
}

/// `photo.png` → `photo.jpg` (the descriptor's filename is the final one).
fn with_extension(filename: &str, extension: &str) -> String {
    let stem = match filename.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => filename,
    };
    format!("{stem}.{extension}")
}

/// Stores the uploaded bytes unchanged.
async fn keep(
    state: &Shared,
    id: &str,
    received: &Received,
    mime_type: &str,
    extension: &str,
) -> CodeResult<Stored> {
    let rel_path = format!("{FOLDER}/{id}.{extension}");
    tokio::fs::rename(&received.partial, state.files_dir.join(&rel_path))
        .await
        .map_err(|e| CodeError::server("upload storage", e))?;
    let filename = match extension_of(&received.filename) {
        Some(_) => received.filename.clone(),
        None => with_extension(&received.filename, extension),
    };
    Ok(Stored {
        filename,
        mime_type: mime_type.to_owned(),
        size_bytes: received.size_bytes,
        rel_path,
    })
}

/// Stores optimised bytes instead of the upload.
async fn replace(
    state: &Shared,
    id: &str,
    received: &Received,
    bytes: &[u8],
    mime_type: &str,
    extension: &str,
) -> CodeResult<Stored> {
    let rel_path = format!("{FOLDER}/{id}.{extension}");
    let target = state.files_dir.join(&rel_path);
    let bytes_owned = bytes.to_vec();
    tokio::task::spawn_blocking(move || crate::sandbox::files::write_bytes(&target, &bytes_owned))
        .await
        .map_err(|e| CodeError::server("upload storage", e))?
        .map_err(|e| CodeError::server("upload storage", e))?;
    let _ = tokio::fs::remove_file(&received.partial).await;
    Ok(Stored {
        filename: with_extension(&received.filename, extension),
        mime_type: mime_type.to_owned(),
        size_bytes: bytes.len() as u64,
        rel_path,
    })
}

/// Deletes the bytes of expired uploads (their rows stay so links answer 410).
async fn purge_expired(state: &Shared, now_secs: i64) {
    let expired = match store::expired_unpurged(&state.store, now_secs) {
        Ok(expired) => expired,
        Err(error) => {
            tracing::warn!(%error, "could not list expired coding-assistant files");
            return;
        }
    };
    for file in expired {
        let _ = tokio::fs::remove_file(state.files_dir.join(&file.rel_path)).await;
        if let Err(error) = store::mark_purged(&state.store, &file.id) {
            tracing::warn!(%error, "could not mark a coding-assistant file purged");
        }
    }
}

/// GET /files/code/{name}: the file until `expires_at`, then 410; unknown names 404.
pub(crate) async fn serve(
    State(state): State<AppState>,
    UrlPath(name): UrlPath<String>,
) -> Response {
    let rel_path = format!("{FOLDER}/{name}");
    let file = match store::by_rel_path(&state.store, &rel_path) {
        Ok(Some(file)) => file,
        Ok(None) => return CodeError::not_found("File not found").into_response(),
        Err(error) => return CodeError::from(error).into_response(),
    };
    let now_secs = state.clock.now_ms().div_euclid(1000);
    if now_secs >= file.expires_secs {
        purge_expired(&state, now_secs).await;
        return CodeError::new(
            StatusCode::GONE,
            "not_found",
            "This file link has expired (files are kept for 24 hours)",
        )
        .into_response();
    }
    crate::sandbox::files::serve(State(state), UrlPath(rel_path)).await
}

/// Whether `url` points at one of this sandbox's coding-assistant files, and if so the
/// stored row (live or expired) — chat reads those from disk.
/// Links from an earlier run (another port) and `localhost` count too.
pub(crate) fn own_file(state: &Shared, url: &str) -> CodeResult<Option<CodeFile>> {
    let Some(after_host) = url
        .strip_prefix("http://127.0.0.1:")
        .or_else(|| url.strip_prefix("http://localhost:"))
    else {
        return Ok(None);
    };
    let Some((_port, path)) = after_host.split_once('/') else {
        return Ok(None);
    };
    let Some(rel_path) = path.strip_prefix("files/") else {
        return Ok(None);
    };
    Ok(store::by_rel_path(&state.store, rel_path)?)
}
