//! Edits, trims and restyles of existing videos: the source is demuxed and decoded with
//! `crate::video_codec`, changed frame by frame in I420, and encoded like a render.
//!
//! INTERFACE ONLY (placeholder bodies): the real implementation is being written now.

use super::{RenderedVideo, SourceProbe, VideoEditSpec, VideoError};

/// Reads a source's size, rate, length and whether it has sound, without decoding frames.
pub(crate) fn probe_video(source_mp4: &[u8]) -> Result<SourceProbe, VideoError> {
    let _ = source_mp4;
    Err(VideoError::Source("video edits are not built yet".into()))
}

/// Applies one edit. The source's sandbox watermark (if any) is removed first; a fresh one
/// is drawn on the output when `watermark` (the routes pass false for remove_watermark).
pub(crate) fn edit_video(
    source_mp4: &[u8],
    edit: &VideoEditSpec,
    seed: i64,
    watermark: bool,
) -> Result<RenderedVideo, VideoError> {
    let _ = (source_mp4, edit, seed, watermark);
    Err(VideoError::Source("video edits are not built yet".into()))
}

/// The frames whose presentation time lies in `[start_secs, end_secs)`, decoded and
/// re-encoded unchanged (frame-accurate); the source's audio, if any, cut to match.
pub(crate) fn trim_video(
    source_mp4: &[u8],
    start_secs: f64,
    end_secs: f64,
) -> Result<RenderedVideo, VideoError> {
    let _ = (source_mp4, start_secs, end_secs);
    Err(VideoError::Source("video trims are not built yet".into()))
}

/// Video-to-video: the source restyled following the prompt (and the palette when graded).
pub(crate) fn restyle_video(
    source_mp4: &[u8],
    prompt: &str,
    seed: i64,
    palette: Option<&[[u8; 3]]>,
    watermark: bool,
) -> Result<RenderedVideo, VideoError> {
    let _ = (source_mp4, prompt, seed, palette, watermark);
    Err(VideoError::Source("video-to-video is not built yet".into()))
}
