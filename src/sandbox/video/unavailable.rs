//! The renderer's stand-in for builds without the `h264` feature (no OpenH264 compiled in).
//!
//! Same surface as `mod.rs` as far as the jobs use it; every render fails with
//! [`VideoError::NoH264Encoder`], so a video job ends failed with that message instead of
//! producing a file. The size limits are the real renderer's (the jobs clamp to them).

/// Same as the real renderer's limits.
pub(crate) const MIN_SIDE_PX: u32 = 16;
pub(crate) const MAX_LONG_SIDE_PX: u32 = 3840;
pub(crate) const MAX_SHORT_SIDE_PX: u32 = 2160;

/// What one video would be rendered from (fields as in the real renderer).
#[allow(
    dead_code,
    reason = "built by the jobs, read only by the real renderer"
)]
pub(crate) struct VideoRenderSpec<'a> {
    pub prompt: &'a str,
    pub seed: i64,
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub duration_secs: f64,
    pub palette: Option<&'a [[u8; 3]]>,
    pub source: Option<&'a image::DynamicImage>,
    pub watermark: bool,
}

/// A finished video (never produced in this build).
#[allow(dead_code, reason = "only the real renderer produces one")]
pub(crate) struct RenderedVideo {
    pub mp4: Vec<u8>,
    pub poster_jpeg: Vec<u8>,
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub frame_count: u32,
    pub duration_secs: f64,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum VideoError {
    #[error("This build has no H.264 encoder (built without the h264 feature)")]
    NoH264Encoder,
}

/// Always fails: there is no encoder in this build.
pub(crate) fn render_video(_spec: &VideoRenderSpec<'_>) -> Result<RenderedVideo, VideoError> {
    Err(VideoError::NoH264Encoder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendering_fails_with_the_missing_encoder_message() {
        let spec = VideoRenderSpec {
            prompt: "a harbour at dawn",
            seed: 1,
            width: 1280,
            height: 720,
            fps: 24,
            duration_secs: 5.0,
            palette: None,
            source: None,
            watermark: true,
        };
        let error = render_video(&spec).err().map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some("This build has no H.264 encoder (built without the h264 feature)")
        );
    }
}
