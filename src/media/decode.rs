//! Decoding with limits (decompression bombs) and downscaling before the UI sees pixels.
//! The limits are the process-wide ones of [`crate::image_codec`], checked from the header
//! before the JPEG fast path or the general decoder allocates anything.

use super::jpeg_fast::{Fast, decode_jpeg_scaled};
use crate::image_codec::{self, DecodeBudget};
use image::ImageFormat;

pub use crate::image_codec::DecodeError;

/// Largest width or height accepted from the network or disk.
pub const MAX_DECODE_SIDE_PX: u32 = image_codec::MAX_SIDE_PX;
/// Largest single decoded allocation accepted (see [`image_codec::MAX_ALLOC_BYTES`]).
pub const MAX_DECODE_BYTES: u64 = image_codec::MAX_ALLOC_BYTES;

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

/// Decode `bytes` and shrink so the longer side is at most `max_side_px` (0 = no limit).
///
/// A picture over [`DecodeBudget::DEFAULT`] is refused with [`DecodeError::TooLarge`] from
/// its header. A JPEG larger than `max_side_px` is decoded at reduced scale (see
/// `jpeg_fast`), several times faster than a full decode plus resize; everything else takes
/// the general path.
pub fn decode_image(bytes: &[u8], max_side_px: u32) -> Result<DecodedImage, DecodeError> {
    // Both paths check the budget on their own header read: probing first would read (and,
    // for a JPEG, copy) every thumbnail's bytes twice.
    if max_side_px > 0
        && image::guess_format(bytes).ok() == Some(ImageFormat::Jpeg)
        && let Fast::Decoded(image) = decode_jpeg_scaled(bytes, max_side_px)?
    {
        return Ok(image);
    }
    decode_general(bytes, max_side_px)
}

/// Any supported format through the shared entry, then `thumbnail` if too large; the RGBA
/// copy is made while the big-decode permit is held.
fn decode_general(bytes: &[u8], max_side_px: u32) -> Result<DecodedImage, DecodeError> {
    image_codec::decode_then(bytes, DecodeBudget::DEFAULT, |image| {
        let (source_width, source_height) = (image.width(), image.height());
        let image = if max_side_px > 0 && source_width.max(source_height) > max_side_px {
            image.thumbnail(max_side_px, max_side_px)
        } else {
            image
        };
        let rgba = image.to_rgba8();
        DecodedImage {
            width: rgba.width(),
            height: rgba.height(),
            rgba: rgba.into_raw(),
            source_width,
            source_height,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

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

    /// A smooth gradient with a block of colour, so averages mean something.
    fn jpeg_bytes(width: u32, height: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(width, height, |x, y| {
            let r = (x * 255 / width.max(1)) as u8;
            let g = (y * 255 / height.max(1)) as u8;
            let b = if x < width / 3 { 220 } else { 40 };
            image::Rgb([r, g, b])
        });
        let mut out = Vec::new();
        image::DynamicImage::ImageRgb8(img)
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Jpeg)
            .expect("encode test jpeg");
        out
    }

    fn average_rgb(image: &DecodedImage) -> [f64; 3] {
        let mut sum = [0f64; 3];
        for px in image.rgba.chunks_exact(4) {
            for (total, value) in sum.iter_mut().zip(px) {
                *total += f64::from(*value);
            }
        }
        let count = (image.rgba.len() / 4) as f64;
        sum.map(|total| total / count)
    }

    #[test]
    fn fast_jpeg_path_matches_general_path() {
        // 1/8 exactly (2048 → 256), 1/4 then resize (1200×800), 1/2 then resize (640×427).
        for (width, height) in [(2048, 2048), (1200, 800), (640, 427)] {
            let bytes = jpeg_bytes(width, height);
            let fast = match decode_jpeg_scaled(&bytes, 256).expect("fast decode") {
                Fast::Decoded(image) => image,
                Fast::Unsupported => panic!("{width}x{height} should take the fast path"),
            };
            let general = decode_general(&bytes, 256).expect("general decode");
            assert_eq!((fast.width, fast.height), (general.width, general.height));
            assert_eq!((fast.source_width, fast.source_height), (width, height));
            assert_eq!(fast.rgba.len(), (fast.width * fast.height * 4) as usize);
            let (a, b) = (average_rgb(&fast), average_rgb(&general));
            for channel in 0..3 {
                assert!(
                    (a[channel] - b[channel]).abs() < 3.0,
                    "{width}x{height} channel {channel}: {a:?} vs {b:?}"
                );
            }
            // decode_image picks the fast path for this input and gives the same pixels.
            assert_eq!(decode_image(&bytes, 256).expect("decode"), fast);
        }
    }

    #[test]
    fn small_or_unlimited_jpeg_uses_general_path() {
        let bytes = jpeg_bytes(200, 100);
        assert!(matches!(
            decode_jpeg_scaled(&bytes, 256),
            Ok(Fast::Unsupported)
        ));
        let decoded = decode_image(&bytes, 0).expect("decode");
        assert_eq!((decoded.width, decoded.height), (200, 100));
    }

    #[test]
    fn jpeg_bomb_header_is_refused() {
        // A real JPEG whose frame header (SOF0) claims 60000×60000: refused from the header.
        let mut bytes = jpeg_bytes(16, 16);
        let sof = bytes
            .windows(2)
            .position(|w| w == [0xFF, 0xC0])
            .expect("baseline SOF0 marker");
        // FF C0, length (2), precision (1), height (2), width (2).
        bytes[sof + 5..sof + 7].copy_from_slice(&60_000u16.to_be_bytes());
        bytes[sof + 7..sof + 9].copy_from_slice(&60_000u16.to_be_bytes());
        let error = decode_image(&bytes, 256).expect_err("bomb must be refused");
        assert!(error.is_too_large(), "{error:?}");
        assert!(decode_image(&bytes, 0).is_err());
    }

    #[test]
    fn rejects_garbage() {
        assert!(decode_image(b"definitely not an image", 0).is_err());
    }
}
