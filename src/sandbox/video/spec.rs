//! What a video is rendered from and what comes out, and the renderer's limits: shared by
//! the real renderer and the stand-in of builds without the `h264` feature (`unavailable.rs`),
//! so the jobs build the same spec either way.

/// Smallest side; openh264 handles smaller, but nothing useful is that small.
pub(crate) const MIN_SIDE_PX: u32 = 16;
/// openh264 encodes up to 3840x2160 (or 2160x3840).
pub(crate) const MAX_LONG_SIDE_PX: u32 = 3840;
pub(crate) const MAX_SHORT_SIDE_PX: u32 = 2160;
pub(crate) const MAX_FPS: u32 = 60;
pub(crate) const MAX_DURATION_SECS: f64 = 60.0;
/// The poster's long side (smaller frames keep their size).
pub(crate) const POSTER_LONG_SIDE_PX: u32 = 512;

/// What one video is rendered from.
pub(crate) struct VideoRenderSpec<'a> {
    pub prompt: &'a str,
    pub seed: i64,
    /// Odd sizes are rounded down to even (4:2:0 needs even sizes).
    pub width: u32,
    pub height: u32,
    /// 24 normally.
    pub fps: u32,
    /// Rounded to whole frames; the result's `duration_secs` is exact.
    pub duration_secs: f64,
    /// The project's active palette when graded: frames are built from these colours.
    pub palette: Option<&'a [[u8; 3]]>,
    /// Image-to-video: frame 0 is this image, cover-fitted, then animated.
    pub source: Option<&'a image::DynamicImage>,
    /// A small "SANDBOX" mark in the bottom-right corner.
    pub watermark: bool,
    /// Native sound (models with `sound_generation_type: native` and sound on): an Opus
    /// track of a chord bed with hits, deterministic per prompt and seed.
    pub sound: bool,
}

/// A finished video: MP4 bytes and a JPEG poster of frame 0.
pub(crate) struct RenderedVideo {
    pub mp4: Vec<u8>,
    /// Frame 0, long side at most [`POSTER_LONG_SIDE_PX`].
    pub poster_jpeg: Vec<u8>,
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub frame_count: u32,
    /// `frame_count / fps`, which is also the MP4's duration.
    pub duration_secs: f64,
    /// Whether the MP4 has an audio track (Opus) besides the video.
    pub has_audio: bool,
}
