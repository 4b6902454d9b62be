//! Image fetching/decoding helpers shared by the engine and the UI. No egui here.

pub mod decode;

pub use decode::{DecodeError, DecodedImage, decode_image};
