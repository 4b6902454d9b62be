//! Decoding with limits (decompression bombs) and downscaling before the UI sees pixels.

use image::{ImageReader, Limits};
use std::io::Cursor;

/// Largest width or height accepted from the network or disk.
pub const MAX_DECODE_SIDE_PX: u32 = 16_384;
/// Largest decoded allocation accepted.
pub const MAX_DECODE_BYTES: u64 = 512 * 1024 * 1024;

/// RGBA8 pixels, row-major, `width * height * 4` bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodedImage {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    /// Size of the original before downscaling.
    pub source_width: u32,
    pub source_height: u32,
}

impl std::fmt::Debug for DecodedImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DecodedImage({}x{})", self.width, self.height)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("unrecognised image format")]
    Format(#[source] std::io::Error),
    #[error("image could not be decoded: {0}")]
    Decode(#[from] image::ImageError),
}

/// Decode `bytes` and shrink so the longer side is at most `max_side_px` (0 = no limit).
pub fn decode_image(bytes: &[u8], max_side_px: u32) -> Result<DecodedImage, DecodeError> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(DecodeError::Format)?;
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_DECODE_SIDE_PX);
    limits.max_image_height = Some(MAX_DECODE_SIDE_PX);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    let image = reader.decode()?;
    let (source_width, source_height) = (image.width(), image.height());
    let image = if max_side_px > 0 && source_width.max(source_height) > max_side_px {
        image.thumbnail(max_side_px, max_side_px)
    } else {
        image
    };
    let rgba = image.to_rgba8();
    Ok(DecodedImage {
        width: rgba.width(),
        height: rgba.height(),
        rgba: rgba.into_raw(),
        source_width,
        source_height,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_bytes(width: u32, height: u32) -> Vec<u8> {
        let img = image::RgbaImage::from_pixel(width, height, image::Rgba([200, 10, 10, 255]));
        let mut out = Vec::new();
        image::DynamicImage::ImageRgba8(img)
            .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
            .expect("encode test png");
        out
    }

    #[test]
    fn downscales_to_longest_side_and_keeps_aspect() {
        let decoded = decode_image(&png_bytes(400, 200), 100).expect("decode");
        assert_eq!((decoded.width, decoded.height), (100, 50));
        assert_eq!((decoded.source_width, decoded.source_height), (400, 200));
        assert_eq!(decoded.rgba.len(), 100 * 50 * 4);
    }

    #[test]
    fn rejects_garbage() {
        assert!(decode_image(b"definitely not an image", 0).is_err());
    }
}
