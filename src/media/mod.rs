//! Image fetching/decoding helpers shared by the engine and the UI, the gallery's
//! thumbnail pipeline (sounds drawn as waveforms by [`waveform`]), and subtitles (SRT in;
//! SRT, WebVTT, text out). No egui here.

pub mod decode;
mod jpeg_dc;
mod jpeg_fast;
pub mod mesh;
pub mod raster3d;
pub mod subtitles;
pub mod thumb_cache;
pub mod thumbnails;
pub mod video;
pub mod waveform;

pub use decode::{DecodeError, DecodedImage, decode_image};
pub use thumbnails::{
    PIPELINE_VERSION, ThumbnailConfig, ThumbnailError, ThumbnailPipeline, ThumbnailPriority,
    ThumbnailResult,
};

/// The decoders' inner entry points for the fuzz tests (`tests/fuzz/fuzz_decoders.rs`); the
/// studio itself only calls [`decode_image`]. Not a stable API.
#[doc(hidden)]
pub mod fuzz_entry {
    use super::DecodedImage;

    /// `jpeg_dc`'s 1/8-scale decode: `(width, height, rgba)` or `None` when it declines.
    pub fn jpeg_dc(bytes: &[u8]) -> Option<(u32, u32, Vec<u8>)> {
        super::jpeg_dc::decode_dc(bytes).map(|image| (image.width, image.height, image.rgba))
    }

    /// `jpeg_fast`'s scaled decode: `Ok(None)` when it leaves the file to the general path.
    pub fn jpeg_scaled(bytes: &[u8], max_side_px: u32) -> Result<Option<DecodedImage>, String> {
        match super::jpeg_fast::decode_jpeg_scaled(bytes, max_side_px) {
            Ok(super::jpeg_fast::Fast::Decoded(image)) => Ok(Some(image)),
            Ok(super::jpeg_fast::Fast::Unsupported) => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }
}
