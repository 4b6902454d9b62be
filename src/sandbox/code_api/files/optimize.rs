//! Image handling of coding-assistant uploads (contract document 3: max dimension 8K, JPEG
//! at 82 %, at most 10 MB; a transparent PNG may be kept).
//!
//! The rule, in order:
//! 1. PNG, JPEG and WebP files (recognised by their bytes) are decoded through the
//!    process-wide `image_codec` entry; a picture over its budget (16384 px a side, 50
//!    megapixels) is refused from its header, never decoded (413 in `process.rs`). Any other
//!    image type (GIF, SVG, BMP, …) is stored unchanged.
//! 2. A file already within the limits (≤ 8192 px per side and ≤ 10 MB) is kept as it is
//!    when it has transparent pixels (JPEG has no alpha) or when the JPEG would not be
//!    smaller than the original.
//! 3. Otherwise the image is scaled so its longer side is at most 8192 px and encoded as
//!    JPEG at quality 82. A transparent image that has to change is re-encoded as PNG
//!    instead, as long as that fits in 10 MB (else it is flattened onto white as a JPEG).
//! 4. A JPEG over 10 MB is encoded again at quality 72, 62, 52 and 42, then scaled down by
//!    a quarter at a time until it fits.

use std::io::Cursor;
use std::path::Path;

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageFormat, RgbImage};

use crate::image_codec::{self, DecodeBudget};

pub(crate) const MAX_IMAGE_SIDE_PX: u32 = 8192;
pub(crate) const MAX_IMAGE_BYTES: u64 = 10 * 1024 * 1024;
pub(crate) const JPEG_QUALITY: u8 = 82;
const LOWER_JPEG_QUALITIES: [u8; 4] = [72, 62, 52, 42];
/// Each shrink step when even the lowest quality is over 10 MB.
const SHRINK_FACTOR: f64 = 0.75;

#[derive(Debug, thiserror::Error)]
pub(crate) enum OptimizeError {
    #[error("the image could not be read: {0}")]
    Decode(String),
    /// Over the decode budget, known from the header.
    #[error("{0}")]
    TooLarge(image_codec::DecodeError),
    #[error("the image could not be encoded: {0}")]
    Encode(String),
}

/// What to store for an uploaded image.
#[derive(Debug)]
pub(crate) enum Optimized {
    KeepOriginal,
    Replaced {
        bytes: Vec<u8>,
        mime_type: &'static str,
        extension: &'static str,
    },
}

/// The formats this sandbox decodes and re-encodes, recognised from the file's first bytes.
pub(crate) fn processable_format(head: &[u8]) -> Option<ImageFormat> {
    match image::guess_format(head).ok()? {
        format @ (ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP) => Some(format),
        _ => None,
    }
}

/// Applies the rule above to the image at `path` (`original_bytes` long).
pub(crate) fn optimize_image(
    path: &Path,
    format: ImageFormat,
    original_bytes: u64,
) -> Result<Optimized, OptimizeError> {
    // The whole pipeline runs inside the decode, so it holds the big-decode permit and
    // parallel near-limit uploads do not add up.
    image_codec::decode_file_then(path, format, DecodeBudget::DEFAULT, |image| {
        optimize_decoded(image, original_bytes)
    })
    .map_err(|error| {
        if error.is_too_large() {
            OptimizeError::TooLarge(error)
        } else {
            OptimizeError::Decode(error.to_string())
        }
    })?
}

fn optimize_decoded(image: DynamicImage, original_bytes: u64) -> Result<Optimized, OptimizeError> {
    let within_limits =
        image.width().max(image.height()) <= MAX_IMAGE_SIDE_PX && original_bytes <= MAX_IMAGE_BYTES;
    let transparent = has_transparency(&image);
    if within_limits && transparent {
        return Ok(Optimized::KeepOriginal);
    }
    let image = fit_within(image, MAX_IMAGE_SIDE_PX);
    if transparent {
        let png = encode_png(&image)?;
        if png.len() as u64 <= MAX_IMAGE_BYTES {
            return Ok(Optimized::Replaced {
                bytes: png,
                mime_type: "image/png",
                extension: "png",
            });
        }
    }
    let jpeg = encode_jpeg_within_cap(flatten_onto_white(&image))?;
    if within_limits && jpeg.len() as u64 >= original_bytes {
        return Ok(Optimized::KeepOriginal);
    }
    Ok(Optimized::Replaced {
        bytes: jpeg,
        mime_type: "image/jpeg",
        extension: "jpg",
    })
}

fn has_transparency(image: &DynamicImage) -> bool {
    match image {
        DynamicImage::ImageRgba8(rgba) => rgba.pixels().any(|pixel| pixel[3] < u8::MAX),
        DynamicImage::ImageLumaA8(luma) => luma.pixels().any(|pixel| pixel[1] < u8::MAX),
        other if other.color().has_alpha() => {
            other.to_rgba8().pixels().any(|pixel| pixel[3] < u8::MAX)
        }
        _ => false,
    }
}

/// Scales down (never up) so the longer side is at most `max_side_px`.
fn fit_within(image: DynamicImage, max_side_px: u32) -> DynamicImage {
    if image.width().max(image.height()) <= max_side_px {
        return image;
    }
    image.resize(max_side_px, max_side_px, FilterType::Triangle)
}

/// Transparent pixels become white rather than black (what a viewer would show).
fn flatten_onto_white(image: &DynamicImage) -> RgbImage {
    if !image.color().has_alpha() {
        return image.to_rgb8();
    }
    let rgba = image.to_rgba8();
    RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let [r, g, b, a] = rgba.get_pixel(x, y).0;
        let blend = |c: u8| {
            let alpha = u32::from(a);
            ((u32::from(c) * alpha + 255 * (255 - alpha) + 127) / 255) as u8
        };
        image::Rgb([blend(r), blend(g), blend(b)])
    })
}

fn encode_png(image: &DynamicImage) -> Result<Vec<u8>, OptimizeError> {
    let mut bytes = Vec::new();
    image
        .write_with_encoder(PngEncoder::new(Cursor::new(&mut bytes)))
        .map_err(|e| OptimizeError::Encode(e.to_string()))?;
    Ok(bytes)
}

fn encode_jpeg(image: &RgbImage, quality: u8) -> Result<Vec<u8>, OptimizeError> {
    let mut bytes = Vec::new();
    image
        .write_with_encoder(JpegEncoder::new_with_quality(
            Cursor::new(&mut bytes),
            quality,
        ))
        .map_err(|e| OptimizeError::Encode(e.to_string()))?;
    Ok(bytes)
}

/// JPEG at quality 82, then lower qualities, then smaller sizes until it fits in 10 MB.
fn encode_jpeg_within_cap(image: RgbImage) -> Result<Vec<u8>, OptimizeError> {
    let mut image = image;
    loop {
        for quality in std::iter::once(JPEG_QUALITY).chain(LOWER_JPEG_QUALITIES) {
            let jpeg = encode_jpeg(&image, quality)?;
            if jpeg.len() as u64 <= MAX_IMAGE_BYTES {
                return Ok(jpeg);
            }
        }
        let width = ((f64::from(image.width()) * SHRINK_FACTOR) as u32).max(1);
        let height = ((f64::from(image.height()) * SHRINK_FACTOR) as u32).max(1);
        if (width, height) == (image.width(), image.height()) {
            return Err(OptimizeError::Encode(
                "could not fit the image in 10 MB".to_owned(),
            ));
        }
        image = image::imageops::resize(&image, width, height, FilterType::Triangle);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(
        dir: &Path,
        name: &str,
        image: &DynamicImage,
        format: ImageFormat,
    ) -> (std::path::PathBuf, u64) {
        let path = dir.join(name);
        image
            .save_with_format(&path, format)
            .expect("write test image");
        let len = std::fs::metadata(&path).expect("metadata").len();
        (path, len)
    }

    #[test]
    fn transparent_pngs_within_the_limits_are_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let image = DynamicImage::ImageRgba8(image::RgbaImage::from_fn(64, 64, |x, _| {
            image::Rgba([200, 40, 40, if x < 32 { 0 } else { 255 }])
        }));
        let (path, len) = write(dir.path(), "a.png", &image, ImageFormat::Png);
        assert!(matches!(
            optimize_image(&path, ImageFormat::Png, len),
            Ok(Optimized::KeepOriginal)
        ));
    }

    #[test]
    fn oversized_images_shrink_to_8k_as_jpeg() {
        let dir = tempfile::tempdir().expect("temp dir");
        let image = DynamicImage::ImageRgb8(RgbImage::from_fn(9000, 40, |x, y| {
            image::Rgb([(x % 251) as u8, (y * 5) as u8, 90])
        }));
        let (path, len) = write(dir.path(), "wide.png", &image, ImageFormat::Png);
        let Ok(Optimized::Replaced {
            bytes, mime_type, ..
        }) = optimize_image(&path, ImageFormat::Png, len)
        else {
            panic!("a 9000 px image must be replaced");
        };
        assert_eq!(mime_type, "image/jpeg");
        let decoded = image::load_from_memory(&bytes).expect("decodes");
        assert_eq!((decoded.width(), decoded.height()), (8192, 36));
    }

    #[test]
    fn flattening_puts_transparency_on_white() {
        let image = DynamicImage::ImageRgba8(image::RgbaImage::from_pixel(
            1,
            1,
            image::Rgba([0, 0, 0, 0]),
        ));
        assert_eq!(
            flatten_onto_white(&image).get_pixel(0, 0).0,
            [255, 255, 255]
        );
    }
}
