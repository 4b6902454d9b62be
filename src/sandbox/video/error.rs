//! Errors of the video renderer and encoder.

/// Why a video could not be rendered or encoded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum VideoError {
    /// The source video given to an edit, trim or restyle could not be used.
    #[error("the source video could not be read: {0}")]
    Source(String),
    #[error(
        "video size {width}x{height} is not supported (each side {min}..={max} px, even, short side at most {max_short} px)",
        min = super::MIN_SIDE_PX,
        max = super::MAX_LONG_SIDE_PX,
        max_short = super::MAX_SHORT_SIDE_PX
    )]
    InvalidSize { width: u32, height: u32 },
    #[error("frame rate {0} is not supported (1..={max} fps)", max = super::MAX_FPS)]
    InvalidFrameRate(u32),
    #[error("duration {0} s is not supported (a positive number up to {max} s)", max = super::MAX_DURATION_SECS)]
    InvalidDuration(f64),
    #[error("frame {index} is {got_width}x{got_height}, but the video is {width}x{height}")]
    FrameSizeMismatch {
        index: u32,
        width: u32,
        height: u32,
        got_width: u32,
        got_height: u32,
    },
    #[error("H.264 encoder: {0}")]
    Encoder(#[from] openh264::Error),
    #[error("H.264 encoder produced no picture for frame {0}")]
    EmptyFrame(u32),
    #[error("H.264 encoder did not emit SPS/PPS parameter sets")]
    MissingParameterSets,
    #[error("H.264 parameter sets changed mid-stream (frame {0})")]
    ParameterSetsChanged(u32),
    #[error("cannot finish a video with no frames")]
    NoFrames,
    #[error("video is too large for the MP4 writer ({0})")]
    TooLarge(&'static str),
    /// The audio track of an edit could not be encoded, or the source's could not be decoded.
    #[error("audio track: {0}")]
    Audio(String),
    #[error("poster image: {0}")]
    Poster(#[from] image::ImageError),
}
