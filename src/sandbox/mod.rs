//! The embedded sandbox: a real local implementation of the Generation Service contract
//! (document 1, the color palettes of document 2 and the media library of document 3), served over HTTP on 127.0.0.1
//! with SQLite storage. It has its own wire types on purpose: it must not share code with
//! `crate::api`, so a misreading of the contract cannot hide on both sides.
//!
//! Behaviour where the contract is silent is described in `docs/SANDBOX.md`.

mod analyze_fetch;
mod assistant;
mod audio_jobs;
mod auth;
mod avatars;
mod catalog;
mod cinematic;
mod cli;
mod clock;
mod code_api;
mod config;
mod creative_chat_job;
mod creative_chat_store;
mod docs;
mod edit_jobs;
mod edit_plan;
mod error;
mod fault_inject;
mod faults;
mod fetch;
mod fetch_policy;
mod files;
mod folder_store;
mod generations;
mod handle;
mod http_error;
mod http_log;
mod ids;
mod image_matte;
mod image_tools;
mod job_inputs;
mod jobs;
mod look;
mod media_store;
mod model3d;
mod moodboards;
mod motion_audio;
mod motion_jobs;
mod palette_cache;
mod palette_store;
mod preset_thumbs;
mod pricing;
mod project_store;
mod rate_limit;
mod render;
mod retention;
mod routes;
mod seed;
mod server;
mod sound;
mod state;
mod store;
mod trim_job;
mod trim_store;
mod upload_limits;
mod users;
mod visual_dna;
// The sandbox's one `h264` seam: without the feature, a stand-in whose renders fail with
// "This build has no H.264 encoder (built without the h264 feature)".
#[cfg(feature = "h264")]
mod video;
#[cfg(not(feature = "h264"))]
#[path = "video/unavailable.rs"]
mod video;

pub use cli::run_cli;
pub use config::{ConnectionLimits, RequestLogLevel, SandboxConfig};
pub use error::SandboxError;
pub use faults::{FaultCounts, FaultRates};
pub use files::FileRequest;
pub use generations::GenerationSummary;
pub use handle::{SandboxHandle, start};
/// For benches and tests only: the MP4 of a text-to-video job, rendered in-process.
#[doc(hidden)]
pub use jobs::render_text_to_video_mp4;
/// For benches and tests only: the GLB of the sandbox's procedural 3D model for a seed and
/// a triangle count (what a text-mode 3D job writes). The studio never calls it.
#[doc(hidden)]
pub use model3d::procedural_glb;
pub use store::StoreRecovery;

/// For benches and tests only: the MP4 a trim job produces from `source_mp4` (frames shown
/// in `[start_secs, end_secs)`, re-encoded, sound cut to match). The studio never calls it.
#[doc(hidden)]
pub fn trim_video_mp4(
    source_mp4: &[u8],
    start_secs: f64,
    end_secs: f64,
) -> Result<Vec<u8>, Box<dyn std::error::Error + Send + Sync>> {
    Ok(video::trim_video(source_mp4, start_secs, end_secs)?.mp4)
}
