//! Decoding image-edit sources (downloading them is `fetch_policy`).

use image::DynamicImage;

use crate::image_codec::{self, DecodeBudget};

#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    #[error("source image could not be decoded: {0}")]
    Decode(String),
    /// Over the process-wide decode budget, known from the header; nothing was decoded.
    #[error("source image is too large: {0}")]
    Picture(image_codec::DecodeError),
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
