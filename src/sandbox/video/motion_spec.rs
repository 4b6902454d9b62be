//! What the catalog's video renders (first–last frame, elements, lip sync) are made from:
//! shared by the real renderer and the stand-in of builds without the `h264` feature
//! (`unavailable.rs`), so the jobs build the same inputs either way.

/// Sample rate of the PCM the catalog renders take (and of the Opus track they write).
pub(crate) const MOTION_AUDIO_RATE_HZ: u32 = 48_000;

/// Frame size, rate, length and mark of one catalog render.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MotionSpec {
    /// Odd sizes are rounded down to even.
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    /// Rounded to whole frames (at least one).
    pub duration_secs: f64,
    pub seed: i64,
    /// The small "SANDBOX" mark in the bottom-right corner.
    pub watermark: bool,
}

/// The reference media of an elements render, already downloaded and decoded.
pub(crate) struct ElementsInputs<'a> {
    pub images: &'a [image::DynamicImage],
    /// MP4 files (their frames are decoded while rendering).
    pub videos: &'a [Vec<u8>],
    /// The sound track: mono PCM at [`MOTION_AUDIO_RATE_HZ`] (cut or padded to the clip).
    pub audio: Option<&'a [f32]>,
    /// Seeds the backdrop used when no picture is given (sound-only references).
    pub prompt: &'a str,
}

/// What speaks in a lip-sync render.
pub(crate) enum LipsyncFace<'a> {
    /// A still, cover-fitted to the spec's size.
    Image(&'a image::DynamicImage),
    /// An MP4; the output keeps its size (the spec's size is ignored) and loops it when the
    /// sound is longer.
    Video(&'a [u8]),
}
