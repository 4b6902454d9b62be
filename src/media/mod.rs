//! Image fetching/decoding helpers shared by the engine and the UI, and the gallery's
//! thumbnail pipeline. No egui here.

pub mod decode;
mod jpeg_dc;
mod jpeg_fast;
pub mod thumbnails;

pub use decode::{DecodeError, DecodedImage, decode_image};
pub use thumbnails::{
    PIPELINE_VERSION, ThumbnailConfig, ThumbnailError, ThumbnailPipeline, ThumbnailPriority,
    ThumbnailResult,
};
