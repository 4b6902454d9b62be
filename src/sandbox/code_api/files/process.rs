//! What is stored for an upload: optimised images (`optimize.rs`), MP3 for WAV audio
//! (`audio.rs`), everything else byte for byte, under its served name `code/<id>.<ext>`.

use std::path::Path;

use axum::http::StatusCode;

use super::super::error::{CodeError, CodeResult};
use super::optimize::{self, Optimized, optimize_image, processable_format};
use super::{FOLDER, Received, audio};
use crate::sandbox::state::Shared;

/// Bytes read from the start of a file to recognise its format.
const SNIFF_BYTES: usize = 64;

/// What ends up on disk and in the descriptor.
pub(super) struct Stored {
    pub filename: String,
    pub mime_type: String,
    pub size_bytes: u64,
    pub rel_path: String,
}

/// Optimises images, transcodes audio where it can, and moves the result to its served
/// name `code/<id>.<ext>`.
pub(super) async fn store_processed(
    state: &Shared,
    id: &str,
    received: &Received,
) -> CodeResult<Stored> {
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
            // The route's "too large" answer (contract document 3), with the picture's size
            // in words: the file cannot be optimised without decoding it whole.
            Err(optimize::OptimizeError::TooLarge(error)) => Err(CodeError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "validation_error",
                format!("Image too large: {error}."),
            )),
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
