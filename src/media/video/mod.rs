//! The video player's media layer on top of [`crate::video_codec`] (MP4 demuxing with
//! `re_mp4`, H.264 decoding with openh264 built from source): a playback worker thread and
//! hover-scrub previews. No egui here: the UI hands the player a repaint callback and uploads
//! the RGBA frames it receives.
//!
//! - [`player`]: [`VideoPlayer`], a "video-player" thread that paces frames by the clock
//!   of the video's sound (attached to the studio's `AudioOutput`), else the wall clock,
//!   and answers play/pause/seek/step/loop commands.
//! - [`preview`]: a few evenly spaced, downscaled frames for hover-scrubbing a tile.
//! - [`strip`]: the trim timeline's thumbnail strip, keyframe thumbnails delivered one by
//!   one from two `strip-worker-N` threads.

pub use crate::video_codec::{
    DecodedFrame, VideoDecodeError, VideoDecoder, VideoInfo, decode, demux,
};
pub mod player;

/// File extensions of the video containers the service produces (how a URL is known to
/// be a video when nothing else says so).
pub const VIDEO_EXTENSIONS: [&str; 4] = ["mp4", "mov", "webm", "m4v"];
pub mod preview;
pub mod strip;

pub use player::{
    PlayerCommand, PlayerFrame, PlayerStatus, RepaintCallback, SoundTrack, VideoPlayer,
};
pub use preview::{PreviewFrame, decode_preview, first_frame_still, preview_frame_indices};
pub use strip::{StripEvent, StripThumbnail, VideoStrip};

#[cfg(test)]
use crate::video_codec::test_fixtures;
