//! Fast JPEG thumbnails: decode at n/8 scale inside the IDCT (libjpeg-turbo through the
//! `mozjpeg` crate), so a 2048 px photo never becomes 4 M pixels on the way to a 256 px
//! tile, then an area-averaging resize to the exact size.
//!
//! When 1/8 scale is enough, baseline JPEGs skip libjpeg altogether: `jpeg_dc` reads the
//! DC coefficients only.
//!
//! Only used when the JPEG is larger than the requested size; anything this path does not
//! handle (CMYK, a libjpeg error) is reported as [`Fast::Unsupported`] and the caller falls
//! back to the general `image` decoder, which has the same limits.

use super::decode::{DecodedImage, MAX_DECODE_BYTES};
use super::jpeg_dc::decode_dc;
use crate::image_codec::{DecodeBudget, DecodeError};
use image::RgbaImage;
use mozjpeg::{ColorSpace, Decompress};

/// Worst case kept by libjpeg for a progressive JPEG: every DCT coefficient (i16) of three
/// full-resolution components until the last scan.
const COEFFICIENT_BYTES_PER_PIXEL: u64 = 3 * 2;
/// libjpeg scales by `n / 8`.
const SCALE_DENOMINATOR: u32 = 8;

/// What the fast path made of the bytes.
pub(crate) enum Fast {
    Decoded(DecodedImage),
    /// Not for this path; decode with the general decoder.
    Unsupported,
}

/// Decode JPEG `bytes` so the longer side is `max_side_px` (> 0). The process-wide budget
/// (`image_codec`) is checked on libjpeg's own header read, before any pixel buffer exists,
/// so the caller need not read the header a second time.
pub(crate) fn decode_jpeg_scaled(bytes: &[u8], max_side_px: u32) -> Result<Fast, DecodeError> {
    // The mozjpeg crate reports libjpeg's fatal errors (corrupt data) by unwinding without
    // the panic hook; the general decoder then gives the real error.
    std::panic::catch_unwind(|| decode_inner(bytes, max_side_px)).unwrap_or(Ok(Fast::Unsupported))
}

fn decode_inner(bytes: &[u8], max_side_px: u32) -> Result<Fast, DecodeError> {
    // Reads the header only.
    let Ok(mut decoder) = Decompress::new_mem(bytes) else {
        return Ok(Fast::Unsupported);
    };
    let (source_width, source_height) = decoder.size();
    let (Ok(source_width), Ok(source_height)) =
        (u32::try_from(source_width), u32::try_from(source_height))
    else {
        return Ok(Fast::Unsupported);
    };
    check_limits(source_width, source_height)?;
    let source_pixels = u64::from(source_width) * u64::from(source_height);
    if source_pixels * COEFFICIENT_BYTES_PER_PIXEL > MAX_DECODE_BYTES {
        // Within the general path's budget only; beyond it the general decoder decides.
        return Ok(Fast::Unsupported);
    }
    if !matches!(
        decoder.color_space(),
        ColorSpace::JCS_YCbCr | ColorSpace::JCS_GRAYSCALE | ColorSpace::JCS_RGB
    ) {
        // CMYK / YCCK: libjpeg-turbo does not convert those to RGB.
        return Ok(Fast::Unsupported);
    }
    if source_width.max(source_height) <= max_side_px {
        // Nothing to shrink: a full decode is the general decoder's job.
        return Ok(Fast::Unsupported);
    }
    let (target_width, target_height) =
        fit_within(source_width, source_height, max_side_px, max_side_px);
    let numerator = scale_numerator(source_width.max(source_height), max_side_px);
    if numerator == 1
        && let Some(dc) = decode_dc(bytes)
        && (dc.width, dc.height) == (source_width.div_ceil(8), source_height.div_ceil(8))
    {
        // 1/8 scale from the DC coefficients alone (most photos): no libjpeg pass at all.
        let Some(scaled) = RgbaImage::from_raw(dc.width, dc.height, dc.rgba) else {
            return Ok(Fast::Unsupported);
        };
        return Ok(Fast::Decoded(finish(
            scaled,
            (target_width, target_height),
            (source_width, source_height),
        )));
    }
    decoder.scale(numerator);
    decoder.do_fancy_upsampling(false);
    let mut started = match decoder.rgba() {
        Ok(started) => started,
        Err(_) => return Ok(Fast::Unsupported),
    };
    let (Ok(scaled_width), Ok(scaled_height)) = (
        u32::try_from(started.width()),
        u32::try_from(started.height()),
    ) else {
        return Ok(Fast::Unsupported);
    };
    if scaled_width < target_width || scaled_height < target_height {
        return Ok(Fast::Unsupported);
    }
    let Ok(pixels) = started.read_scanlines::<u8>() else {
        return Ok(Fast::Unsupported);
    };
    if started.finish().is_err() {
        return Ok(Fast::Unsupported);
    }
    let Some(scaled) = RgbaImage::from_raw(scaled_width, scaled_height, pixels) else {
        return Ok(Fast::Unsupported);
    };
    Ok(Fast::Decoded(finish(
        scaled,
        (target_width, target_height),
        (source_width, source_height),
    )))
}

/// Resize the scaled decode to the exact target size (if it is not already).
fn finish(scaled: RgbaImage, target: (u32, u32), source: (u32, u32)) -> DecodedImage {
    let exact = if scaled.dimensions() == target {
        scaled
    } else {
        // Area averaging from less than 2× the target: cheap, no visible aliasing.
        image::imageops::thumbnail(&scaled, target.0, target.1)
    };
    DecodedImage {
        width: exact.width(),
        height: exact.height(),
        rgba: exact.into_raw(),
        source_width: source.0,
        source_height: source.1,
    }
}

/// The smallest `n` (1..=8) for which `n / 8` of the longer side still reaches
/// `target_px`, so the resize after it only ever shrinks, by less than 2×.
fn scale_numerator(longer_side_px: u32, target_px: u32) -> u8 {
    (1..=SCALE_DENOMINATOR)
        .find(|n| (u64::from(longer_side_px) * u64::from(*n)).div_ceil(8) >= u64::from(target_px))
        .and_then(|n| u8::try_from(n).ok())
        .unwrap_or(8)
}

/// The same bounds the general path checks: `image_codec`'s process-wide budget.
fn check_limits(width: u32, height: u32) -> Result<(), DecodeError> {
    DecodeBudget::DEFAULT.check(width, height)
}

/// `image`'s thumbnail sizing (`resize_dimensions` without fill), so both paths agree on
/// the output size to the pixel.
pub(crate) fn fit_within(width: u32, height: u32, max_width: u32, max_height: u32) -> (u32, u32) {
    let ratio =
        (f64::from(max_width) / f64::from(width)).min(f64::from(max_height) / f64::from(height));
    let side = |v: u32| ((f64::from(v) * ratio).round() as u32).max(1);
    (side(width), side(height))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::decode::MAX_DECODE_SIDE_PX;

    #[test]
    fn fit_matches_image_thumbnail_sizes() {
        for (w, h) in [
            (2048, 2048),
            (2000, 1333),
            (640, 427),
            (1000, 872),
            (3, 1000),
        ] {
            let expected = image::DynamicImage::new_rgb8(w, h).thumbnail(256, 256);
            assert_eq!(
                fit_within(w, h, 256, 256),
                (expected.width(), expected.height()),
                "{w}x{h}"
            );
        }
    }

    #[test]
    fn scale_reaches_the_target() {
        assert_eq!(scale_numerator(2048, 256), 1);
        assert_eq!(scale_numerator(2000, 256), 2);
        assert_eq!(scale_numerator(1000, 256), 3);
        assert_eq!(scale_numerator(300, 256), 7);
    }

    #[test]
    fn limits_refuse_huge_headers() {
        assert!(check_limits(MAX_DECODE_SIDE_PX + 1, 10).is_err());
        assert!(check_limits(MAX_DECODE_SIDE_PX, MAX_DECODE_SIDE_PX).is_err());
        assert!(check_limits(4096, 4096).is_ok());
    }
}
