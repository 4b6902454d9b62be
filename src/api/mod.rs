//! The service contract as Rust: request/response types, the error type, pricing and the
//! HTTP client. No egui and no UI state here.

pub mod audio;
pub mod avatars;
pub mod catalog_jobs;
pub mod client;
pub mod code_assistant;
pub mod creative_chat;
pub mod docs;
pub mod error;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod image_tools;
pub mod lenient;
pub mod media;
pub mod media_client;
pub mod moodboards;
pub mod palettes;
pub mod pricing;
pub mod projects;
pub mod prompt_presets;
pub mod transcription;
pub mod types;
pub mod validate;
pub mod video_edit;
pub mod visual_dna;
pub mod visual_dna_client;

pub use client::Submitted;
pub use client::{ApiClient, ClientConfig, TransferCounter};
pub use creative_chat::{
    ChatConversation, ChatConversationsPage, ChatMessage, ChatMessagesPage, ChatModelRef,
    ChatPagination, ChatRole,
};
pub use docs::{Doc, DocMeta, DocPage, DocPagination, DocUpdate, NewDoc};
pub use error::{ApiError, RateLimitInfo};
pub use image_tools::{ImageTool, ImageToolOperation};
pub use palettes::{
    AnalyzedColors, CinematicPreset, CinematicPresets, ColorPalette, ColorSpec, NewPalette,
    PalettePage, PalettePagination, PaletteUpdate, PresetsFetch,
};
pub use pricing::{
    PriceInputs, PriceUnit, VideoPrice, estimate_credits, estimate_range_for_auto,
    estimate_video_job, price,
};
pub use prompt_presets::{PromptPreset, PromptPresetType};
pub use types::*;
pub use validate::{Field, FieldError, validate, validate_with_source};
