//! Framewright: a native desktop studio for the Generation Service.
//!
//! Layers (see docs/ARCHITECTURE.md): `ui → engine → api`, `ui → media`, `media →
//! image_codec`; `api`, `engine`, `media`, `palette`, `image_codec` and `video_codec` never
//! import egui; `sandbox` is a separate local implementation of the contract with its own
//! wire types (it shares only the contract-free `palette`, `markup`,
//! `image_codec`, `video_codec` and `local_files`). Every image decode in the process goes through `image_codec`.

pub mod api;
pub mod audio;
pub mod desktop;
pub mod engine;
pub mod file_url;
pub mod image_codec;
pub mod local_files;
pub mod logging;
pub mod markup;
pub mod media;
pub mod palette;
pub mod sandbox;
pub mod session;
pub mod settings;
pub mod system_theme;
pub mod ui;
pub mod video_codec;
