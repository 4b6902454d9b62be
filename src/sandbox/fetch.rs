//! Decoding image-edit sources (downloading them is `fetch_policy`).

use std::io::Cursor;

use image::{DynamicImage, ImageReader, Limits};

const MAX_SOURCE_SIDE_PX: u32 = 16_384;
const MAX_DECODE_ALLOC_BYTES: u64 = 1024 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    #[error("source image could not be decoded: {0}")]
    Decode(String),
}

/// Decodes with limits so a hostile file cannot exhaust memory.
pub(crate) fn decode_image(bytes: &[u8]) -> Result<DynamicImage, FetchError> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| FetchError::Decode(e.to_string()))?;
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SOURCE_SIDE_PX);
    limits.max_image_height = Some(MAX_SOURCE_SIDE_PX);
    limits.max_alloc = Some(MAX_DECODE_ALLOC_BYTES);
    reader.limits(limits);
    reader
        .decode()
        .map_err(|e| FetchError::Decode(e.to_string()))
}
