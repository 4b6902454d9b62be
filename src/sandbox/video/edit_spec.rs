//! What the sandbox's video edits, trims and restyles are made from: shared by the real
//! implementation (`edit/`) and the stand-in of builds without the `h264` feature
//! (`unavailable.rs`), so the routes and jobs build the same specs either way.
//!
//! The routes (`routes/video_edit.rs`, `routes/trim.rs`) turn a request into one of these
//! after applying the contract's field rules (defaults, clamps, fallbacks); the functions in
//! `edit/` (or the stand-in) only render. Rules that need the source's length (extend and
//! retake at most 30 s, retake at least 3 s, trim start before the end) are checked by the
//! job with [`SourceProbe`] before rendering.

/// What a source video is, read from its MP4 without decoding every frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SourceProbe {
    pub width: u32,
    pub height: u32,
    /// Frames per second, rounded to the nearest whole number (at least 1).
    pub fps: u32,
    pub frame_count: u32,
    pub duration_secs: f64,
    pub has_audio: bool,
}

/// Where a reframed picture sits when the frame must be cropped or padded: 0.0 = left/top,
/// 1.0 = right/bottom, `None` = centred (the contract treats exactly 0 as unset).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct GridPosition {
    pub x: Option<f32>,
    pub y: Option<f32>,
}

/// Which parts of a retaken span are regenerated.
#[allow(
    clippy::enum_variant_names,
    reason = "named after the contract's replace_audio / replace_video / replace_audio_and_video modes"
)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RetakeMode {
    ReplaceAudio,
    ReplaceVideo,
    ReplaceAudioAndVideo,
}

/// How a removed background is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BackgroundFill {
    /// A light/dark checkerboard, the usual picture of "transparent".
    Checker,
    /// One flat colour (RGB).
    Flat([u8; 3]),
}

/// One edit of a source video, with every field already defaulted and clamped by the route.
/// Prompts are only used to seed and tint what is drawn (the sandbox has no model).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum VideoEditSpec {
    /// Resampled to `width` x `height` (the resolution tier at the source's aspect ratio);
    /// with `target_fps`, frames are interpolated (blended) to that rate.
    Upscale {
        width: u32,
        height: u32,
        target_fps: Option<u32>,
    },
    /// Cropped or padded to `width` x `height` (the aspect ratio at the tier), the picture
    /// placed at `grid`.
    Reframe {
        width: u32,
        height: u32,
        grid: GridPosition,
    },
    /// A generated audio track (layers named by the prompts), mixed with the source's own
    /// audio when `keep_original` and the source has one.
    GenerateAudio {
        prompt: String,
        sound_effect_prompt: Option<String>,
        background_music_prompt: Option<String>,
        keep_original: bool,
    },
    /// The sandbox's own corner watermark is removed (filled from its surroundings).
    RemoveWatermark,
    /// Faces (the sandbox's stand-in: a soft region in the upper middle of the frame) are
    /// replaced by colours and a blurred copy of the reference face.
    FaceSwap { face_jpeg_or_png: Vec<u8> },
    /// `seconds` of new footage continuing the first/last frame, added at the start or end.
    Extend {
        seconds: f64,
        at_start: bool,
        prompt: String,
    },
    /// Every frame visibly altered following the prompt (a colour grade and a pattern seeded
    /// by it).
    MagicEdit { prompt: String },
    /// A speech-like audio track, and the mouth region animated to it.
    Lipsync { text_prompt: Option<String> },
    /// The background replaced by `fill`, the subject (the frame's salient region) kept.
    RemoveBackground { fill: BackgroundFill },
    /// The masked area (white in `mask_mp4`, else a centred ellipse) refilled.
    Inpaint {
        mask_mp4: Option<Vec<u8>>,
        prompt: String,
    },
    /// `[start_secs, start_secs + duration_secs)` regenerated (picture, sound or both).
    Retake {
        start_secs: f64,
        duration_secs: f64,
        mode: RetakeMode,
        prompt: String,
    },
}
