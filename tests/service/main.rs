//! The service, client and engine tests over real HTTP on loopback, one module per area.
//! One binary instead of one per file: each test binary links the whole studio (~150 MB).

/// The refusal of internal addresses on every route that downloads a caller's URL.
#[cfg(feature = "h264")]
#[path = "../callers_urls/mod.rs"]
mod callers_urls;
#[path = "../service_support/mod.rs"]
mod service_support;
#[path = "../support/mod.rs"]
mod support;

mod broken_files;
mod client_audio;
mod client_chat_stream;
mod client_media;
mod client_motion;
mod client_palettes;
mod client_sandbox;
mod client_transcription;
mod client_visual_dna;
mod engine_chat;
mod engine_creative_chat;
mod engine_journal;
mod engine_trim;
mod reconcile;
mod sandbox_3d_http;
mod sandbox_audio_http;
mod sandbox_chat_http;
mod sandbox_code_api_http;
mod sandbox_docs_http;
mod sandbox_http;
mod sandbox_image_tools_http;
mod sandbox_media_http;
#[cfg(feature = "h264")]
mod sandbox_motion_http;
mod sandbox_palettes_http;
#[cfg(feature = "h264")]
mod sandbox_video_edit_http;
#[cfg(feature = "h264")]
mod sandbox_video_http;
mod sandbox_video_jobs;
mod sandbox_visual_dna_http;
mod session_profiles;
mod session_restart;
mod single_instance;
mod submit_queue;
mod thumbnails;
#[cfg(feature = "h264")]
mod video_sound;
mod wire_examples;
