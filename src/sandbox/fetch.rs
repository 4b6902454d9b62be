//! Fetching and decoding image-edit sources.

use std::time::Duration;

use futures_util::StreamExt;
use image::DynamicImage;

use crate::image_codec::{self, DecodeBudget};

use super::files::resolve_rel_path;
use super::state::Shared;

pub(crate) const FETCH_TIMEOUT: Duration = Duration::from_secs(20);
const MAX_SOURCE_BYTES: u64 = 50 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    #[error("source image could not be downloaded: {0}")]
    Download(String),
    #[error("source image is larger than {MAX_SOURCE_BYTES} bytes")]
    TooLarge,
    #[error("source image could not be decoded: {0}")]
    Decode(String),
    /// Over the process-wide decode budget, known from the header; nothing was decoded.
    #[error("source image is too large: {0}")]
    Picture(image_codec::DecodeError),
}

/// Our own /files/ URLs (also from an earlier run on another port) are read from disk.
fn local_rel_path(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("http://127.0.0.1:")
        .or_else(|| url.strip_prefix("http://localhost:"))?;
    let (_port, path) = rest.split_once('/')?;
    path.strip_prefix("files/")
}

/// Whether `url` is one of the sandbox's own output files (`/files/...` on 127.0.0.1 or
/// localhost, any port) that exists on disk.
pub(crate) fn is_own_file_url(shared: &Shared, url: &str) -> bool {
    local_rel_path(url)
        .and_then(|rel| resolve_rel_path(&shared.files_dir, rel))
        .is_some_and(|path| path.is_file())
}

pub(crate) async fn fetch_source_bytes(shared: &Shared, url: &str) -> Result<Vec<u8>, FetchError> {
    if let Some(rel) = local_rel_path(url)
        && let Some(path) = resolve_rel_path(&shared.files_dir, rel)
        && path.is_file()
    {
        let meta = tokio::fs::metadata(&path)
            .await
            .map_err(|e| FetchError::Download(e.to_string()))?;
        if meta.len() > MAX_SOURCE_BYTES {
            return Err(FetchError::TooLarge);
        }
        return tokio::fs::read(&path)
            .await
            .map_err(|e| FetchError::Download(e.to_string()));
    }
    let response = shared
        .http
        .get(url)
        .timeout(FETCH_TIMEOUT)
        .send()
        .await
        .map_err(|e| FetchError::Download(e.to_string()))?;
    if !response.status().is_success() {
        return Err(FetchError::Download(format!("HTTP {}", response.status())));
    }
    if response
        .content_length()
        .is_some_and(|len| len > MAX_SOURCE_BYTES)
    {
        return Err(FetchError::TooLarge);
    }
    let mut bytes = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| FetchError::Download(e.to_string()))?;
        if bytes.len() as u64 + chunk.len() as u64 > MAX_SOURCE_BYTES {
            return Err(FetchError::TooLarge);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// Decodes through the process-wide entry, so a hostile file cannot exhaust the memory of
/// the studio this sandbox runs in.
pub(crate) fn decode_image(bytes: &[u8]) -> Result<DynamicImage, FetchError> {
    image_codec::decode(bytes, DecodeBudget::DEFAULT).map_err(|error| {
        if error.is_too_large() {
            FetchError::Picture(error)
        } else {
            FetchError::Decode(error.to_string())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_local_file_urls() {
        assert_eq!(
            local_rel_path("http://127.0.0.1:4321/files/uploads/a.png"),
            Some("uploads/a.png")
        );
        assert_eq!(local_rel_path("https://cdn.example.com/files/a.png"), None);
    }
}
