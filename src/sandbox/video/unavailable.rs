//! The renderer's stand-in for builds without the `h264` feature (no OpenH264 compiled in).
//!
//! Same surface as `mod.rs` as far as the jobs use it; every render fails with
//! [`VideoError::NoH264Encoder`], so a video job ends failed with that message instead of
//! producing a file. The spec types and size limits are the real renderer's own (`spec.rs`).

// The real renderer's spec, result and limits; in this build only the jobs read them.
#[allow(
    dead_code,
    reason = "the renderer that reads the rest is not built here"
)]
#[path = "spec.rs"]
mod spec;
pub(crate) use spec::*;

#[allow(dead_code, reason = "the editor that reads the rest is not built here")]
#[path = "edit_spec.rs"]
mod edit_spec;
pub(crate) use edit_spec::*;

#[allow(
    dead_code,
    reason = "the catalog renders that read the rest are not built here"
)]
#[path = "motion_spec.rs"]
mod motion_spec;
pub(crate) use motion_spec::*;

#[derive(Debug, thiserror::Error)]
pub(crate) enum VideoError {
    #[error("This build has no H.264 encoder (built without the h264 feature)")]
    NoH264Encoder,
}

/// Always fails: there is no encoder in this build.
pub(crate) fn render_video(_spec: &VideoRenderSpec<'_>) -> Result<RenderedVideo, VideoError> {
    Err(VideoError::NoH264Encoder)
}

/// Always fails: there is no decoder or encoder in this build.
pub(crate) fn probe_video(_source_mp4: &[u8]) -> Result<SourceProbe, VideoError> {
    Err(VideoError::NoH264Encoder)
}

/// Always fails: there is no encoder in this build.
pub(crate) fn edit_video(
    _source_mp4: &[u8],
    _edit: &VideoEditSpec,
    _seed: i64,
    _watermark: bool,
) -> Result<RenderedVideo, VideoError> {
    Err(VideoError::NoH264Encoder)
}

/// Always fails: there is no encoder in this build.
pub(crate) fn trim_video(
    _source_mp4: &[u8],
    _start_secs: f64,
    _end_secs: f64,
) -> Result<RenderedVideo, VideoError> {
    Err(VideoError::NoH264Encoder)
}

/// Always fails: there is no encoder in this build.
pub(crate) fn restyle_video(
    _source_mp4: &[u8],
    _prompt: &str,
    _seed: i64,
    _palette: Option<&[[u8; 3]]>,
    _watermark: bool,
) -> Result<RenderedVideo, VideoError> {
    Err(VideoError::NoH264Encoder)
}

/// Always fails: there is no encoder in this build.
pub(crate) fn render_first_last(
    _first: &image::DynamicImage,
    _last: &image::DynamicImage,
    _spec: &MotionSpec,
) -> Result<RenderedVideo, VideoError> {
    Err(VideoError::NoH264Encoder)
}

/// Always fails: there is no encoder in this build.
pub(crate) fn render_elements(
    _inputs: &ElementsInputs<'_>,
    _spec: &MotionSpec,
) -> Result<RenderedVideo, VideoError> {
    Err(VideoError::NoH264Encoder)
}

/// Always fails: there is no encoder in this build.
pub(crate) fn render_lipsync(
    _face: &LipsyncFace<'_>,
    _pcm: &[f32],
    _spec: &MotionSpec,
) -> Result<RenderedVideo, VideoError> {
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
            sound: false,
        };
        let error = render_video(&spec).err().map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some("This build has no H.264 encoder (built without the h264 feature)")
        );
    }
}
