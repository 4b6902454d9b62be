//! The one way this process turns image bytes into pixels, for the studio (`media`) and the
//! in-process sandbox alike: the picture's size is read from its header and checked against a
//! [`DecodeBudget`] before any pixel buffer exists, then the decoder runs under
//! `image::Limits` as a second line.
//!
//! Why one entry: the sandbox runs inside the studio's process, so a decompression bomb sent
//! to any sandbox route (a 783 KB PNG of 16384 × 16384 zeros) used to take the studio and
//! the user's unsaved work with it. Each decode site had its own, too generous limits, and
//! `image::Limits::max_alloc` alone does not hold: the WebP decoder checks it against its
//! RGB output size but allocates four bytes per pixel internally.
//!
//! Contract-free and without egui: `media` and `sandbox` both import it.

use std::io::{BufRead, BufReader, Cursor, Seek};
use std::path::Path;
use std::sync::Mutex;

use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};

/// Longest side accepted: the largest texture side desktop GPUs take, and what every decode
/// site already allowed.
pub const MAX_SIDE_PX: u32 = 16_384;
/// Most pixels accepted: 50 megapixels, so a photo from a 50 MP camera still opens while a
/// 16384 × 16384 bomb (268 MP, 1 GiB as RGBA) does not. As RGBA8, what callers end up with,
/// that is [`MAX_RGBA_BYTES`].
pub const MAX_PIXELS: u64 = 50_000_000;
/// Bytes per pixel of the RGBA8 buffer callers convert to.
pub const RGBA_BYTES_PER_PIXEL: u64 = 4;
/// The RGBA8 buffer of the largest picture accepted (200 MB).
pub const MAX_RGBA_BYTES: u64 = MAX_PIXELS * RGBA_BYTES_PER_PIXEL;
/// Largest single buffer a decoder may allocate (`image::Limits::max_alloc`): twice the
/// RGBA8 budget, so a 16-bit-per-channel PNG within [`MAX_PIXELS`] still opens.
pub const MAX_ALLOC_BYTES: u64 = 2 * MAX_RGBA_BYTES;
/// Decodes of more pixels than this run one at a time (see [`decode_then`]); smaller ones
/// (a 12 MP phone photo is 48 MB as RGBA) run in parallel. 16 MP is 64 MB as RGBA.
pub const BIG_DECODE_PIXELS: u64 = 16_000_000;

/// How large a picture a caller accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeBudget {
    pub max_side_px: u32,
    pub max_pixels: u64,
}

impl DecodeBudget {
    /// The process-wide limits above; callers may only ask for less.
    pub const DEFAULT: DecodeBudget = DecodeBudget {
        max_side_px: MAX_SIDE_PX,
        max_pixels: MAX_PIXELS,
    };

    /// Refuses a `width × height` picture over this budget (or over the process-wide one).
    pub fn check(&self, width: u32, height: u32) -> Result<(), DecodeError> {
        let max_side_px = self.max_side_px.min(MAX_SIDE_PX);
        let max_pixels = self.max_pixels.min(MAX_PIXELS);
        let pixels = u64::from(width) * u64::from(height);
        if width > max_side_px || height > max_side_px || pixels > max_pixels {
            return Err(DecodeError::TooLarge {
                width,
                height,
                max_side_px,
                max_pixels,
            });
        }
        Ok(())
    }

    /// For reading the header: no bounds on the sides, so a picture over them is reported
    /// as [`DecodeError::TooLarge`] with its size rather than as a bare limit error.
    fn header_limits() -> Limits {
        let mut limits = Limits::no_limits();
        limits.max_alloc = Some(MAX_ALLOC_BYTES);
        limits
    }

    fn limits(&self) -> Limits {
        let mut limits = Limits::default();
        limits.max_image_width = Some(self.max_side_px.min(MAX_SIDE_PX));
        limits.max_image_height = Some(self.max_side_px.min(MAX_SIDE_PX));
        limits.max_alloc = Some(MAX_ALLOC_BYTES);
        limits
    }
}

impl Default for DecodeBudget {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What a header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageHeader {
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// Over the budget, known from the header: nothing was decoded.
    #[error(
        "the picture is {width} × {height} px; the studio opens pictures up to {} megapixels \
         and {max_side_px} px a side",
        max_pixels / 1_000_000
    )]
    TooLarge {
        width: u32,
        height: u32,
        max_side_px: u32,
        max_pixels: u64,
    },
    #[error("unrecognised image format")]
    Format,
    /// The header (or the decoder) says the picture has no pixels: nothing to show.
    #[error("the picture is {width} × {height} px: it has no pixels")]
    Empty { width: u32, height: u32 },
    #[error("the image could not be read: {0}")]
    Io(#[from] std::io::Error),
    #[error("the image could not be decoded: {0}")]
    Decode(#[from] image::ImageError),
}

impl DecodeError {
    pub fn is_too_large(&self) -> bool {
        matches!(self, DecodeError::TooLarge { .. })
    }
}

/// Format and size from the header only; no pixel buffer is allocated.
pub fn probe(bytes: &[u8]) -> Result<ImageHeader, DecodeError> {
    probe_reader(ImageReader::new(Cursor::new(bytes)).with_guessed_format()?)
}

fn probe_reader<R: BufRead + Seek>(reader: ImageReader<R>) -> Result<ImageHeader, DecodeError> {
    let format = reader.format().ok_or(DecodeError::Format)?;
    let mut reader = reader;
    reader.limits(DecodeBudget::header_limits());
    let (width, height) = reader.into_decoder()?.dimensions();
    Ok(ImageHeader {
        format,
        width,
        height,
    })
}

/// Decodes `bytes` (format from their first bytes) within `budget`.
pub fn decode(bytes: &[u8], budget: DecodeBudget) -> Result<DynamicImage, DecodeError> {
    decode_then(bytes, budget, |image| image)
}

/// Decodes `bytes` within `budget` and hands the picture to `finish` (a thumbnail, an RGBA
/// conversion) before returning. A picture over [`BIG_DECODE_PIXELS`] is decoded and
/// finished while holding the one big-decode permit, so parallel near-limit uploads cannot
/// add up: at most one full-budget picture and its copies exist at a time. `finish` must
/// not decode again.
pub fn decode_then<T>(
    bytes: &[u8],
    budget: DecodeBudget,
    finish: impl FnOnce(DynamicImage) -> T,
) -> Result<T, DecodeError> {
    decode_reader(
        ImageReader::new(Cursor::new(bytes)).with_guessed_format()?,
        budget,
        finish,
    )
}

/// [`decode_then`] for a file on disk, in the `format` its first bytes showed.
pub fn decode_file_then<T>(
    path: &Path,
    format: ImageFormat,
    budget: DecodeBudget,
    finish: impl FnOnce(DynamicImage) -> T,
) -> Result<T, DecodeError> {
    let file = std::fs::File::open(path)?;
    decode_reader(
        ImageReader::with_format(BufReader::new(file), format),
        budget,
        finish,
    )
}

fn decode_reader<R: BufRead + Seek, T>(
    mut reader: ImageReader<R>,
    budget: DecodeBudget,
    finish: impl FnOnce(DynamicImage) -> T,
) -> Result<T, DecodeError> {
    if reader.format().is_none() {
        return Err(DecodeError::Format);
    }
    reader.limits(DecodeBudget::header_limits());
    // Reads the header only; the check below runs before any pixel buffer exists.
    let mut decoder = reader.into_decoder()?;
    let (width, height) = decoder.dimensions();
    if width == 0 || height == 0 {
        return Err(DecodeError::Empty { width, height });
    }
    budget.check(width, height)?;
    // Second line: the decoder's own output (e.g. 16 bits per channel) and its buffers
    // within `image::Limits`.
    budget.limits().reserve(decoder.total_bytes())?;
    decoder.set_limits(budget.limits())?;
    let _permit = (u64::from(width) * u64::from(height) > BIG_DECODE_PIXELS).then(big_permit);
    let image = DynamicImage::from_decoder(decoder)?;
    // A GIF's frame may disagree with its header (found by the fuzzer: a 0 × 40 result).
    if image.width() == 0 || image.height() == 0 {
        return Err(DecodeError::Empty {
            width: image.width(),
            height: image.height(),
        });
    }
    Ok(finish(image))
}

/// One big decode at a time, process-wide (studio and sandbox share the process).
static BIG_DECODE: Mutex<()> = Mutex::new(());

fn big_permit() -> std::sync::MutexGuard<'static, ()> {
    // A panic in another decode poisons nothing we rely on: the guard protects no data.
    BIG_DECODE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut out = Vec::new();
        DynamicImage::new_rgba8(width, height)
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .expect("encode test png");
        out
    }

    /// A valid greyscale PNG of `width × height` zeros. The zeroed buffer is never written,
    /// so its pages stay unmapped; deflate makes the file small (16384² is under 1 MB).
    pub(crate) fn png_of_zeros(width: u32, height: u32) -> Vec<u8> {
        use image::ImageEncoder;
        use image::codecs::png::{CompressionType, FilterType, PngEncoder};
        let pixels = vec![0u8; width as usize * height as usize];
        let mut out = Vec::new();
        PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::NoFilter)
            .write_image(&pixels, width, height, image::ExtendedColorType::L8)
            .expect("encode png of zeros");
        out
    }

    #[test]
    fn probe_reads_the_header() {
        let header = probe(&png(30, 20)).expect("probe");
        assert_eq!(
            header,
            ImageHeader {
                format: ImageFormat::Png,
                width: 30,
                height: 20
            }
        );
    }

    #[test]
    fn pictures_within_the_budget_decode() {
        let image = decode(&png(300, 200), DecodeBudget::DEFAULT).expect("decode");
        assert_eq!((image.width(), image.height()), (300, 200));
    }

    #[test]
    fn a_bomb_is_refused_from_its_header_before_the_decoder_runs() {
        let bytes = png_of_zeros(MAX_SIDE_PX, MAX_SIDE_PX);
        let mut finished = false;
        let error = decode_then(&bytes, DecodeBudget::DEFAULT, |_| finished = true)
            .expect_err("a 16384² picture is over 50 MP");
        assert!(
            matches!(
                error,
                DecodeError::TooLarge {
                    width: MAX_SIDE_PX,
                    height: MAX_SIDE_PX,
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(!finished);
        assert_eq!(
            error.to_string(),
            "the picture is 16384 × 16384 px; the studio opens pictures up to 50 megapixels \
             and 16384 px a side"
        );
    }

    #[test]
    fn the_budget_counts_pixels_and_sides() {
        let budget = DecodeBudget::DEFAULT;
        assert!(budget.check(8000, 6000).is_ok(), "a 48 MP photo opens");
        assert!(budget.check(10_000, 5_001).is_err(), "just over 50 MP");
        assert!(budget.check(MAX_SIDE_PX + 1, 1).is_err(), "too long a side");
        let small = DecodeBudget {
            max_side_px: 100,
            max_pixels: 1_000,
        };
        assert!(small.check(10, 100).is_ok());
        assert!(small.check(101, 1).is_err());
        assert!(small.check(40, 40).is_err());
        // A caller cannot widen the process-wide limits.
        let wide = DecodeBudget {
            max_side_px: u32::MAX,
            max_pixels: u64::MAX,
        };
        assert!(wide.check(MAX_SIDE_PX, MAX_SIDE_PX).is_err());
    }

    #[test]
    fn a_smaller_budget_refuses_what_the_default_accepts() {
        let budget = DecodeBudget {
            max_side_px: 100,
            max_pixels: 10_000,
        };
        let error = decode(&png(101, 10), budget).expect_err("over the side");
        assert!(error.is_too_large(), "{error:?}");
    }

    #[test]
    fn garbage_is_not_an_image() {
        assert!(matches!(
            decode(b"definitely not an image", DecodeBudget::DEFAULT),
            Err(DecodeError::Format)
        ));
        assert!(probe(b"").is_err());
    }
}
