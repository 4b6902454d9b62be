//! The one error type of the video layer: opening, demuxing and decoding.

use std::path::PathBuf;

/// Why a video could not be opened, sought or decoded. Every variant owns plain data, so it
/// can cross threads (the player reports it in its status).
#[derive(Debug, thiserror::Error)]
pub enum VideoDecodeError {
    #[error("could not read video file {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("could not read video data: {0}")]
    Read(#[from] std::io::Error),
    /// The container is not a readable MP4 (bad or missing boxes, inconsistent tables).
    #[error("not a readable MP4 file: {0}")]
    Container(String),
    #[error("the file has no video track")]
    NoVideoTrack,
    /// A video track exists but its codec is not H.264 (e.g. `hvc1.1.6.L93.B0` or `mp4v`).
    #[error("unsupported video codec {codec}: only H.264 (avc1/avc3) can be played")]
    UnsupportedCodec { codec: String },
    #[error("the H.264 track has no SPS/PPS parameter sets")]
    MissingParameterSets,
    #[error("the video track has no frames")]
    NoFrames,
    /// A size or count beyond what the player accepts (decompression-bomb guard).
    #[error("video exceeds limits: {0}")]
    TooLarge(String),
    #[error("could not start the H.264 decoder: {0}")]
    DecoderInit(String),
    /// One sample could not be decoded. The decoder stays usable: the next call goes on
    /// with the following sample.
    #[error("could not decode video sample {sample_index}: {message}")]
    Decode { sample_index: u32, message: String },
    #[error("frame {index} is out of range (the video has {frame_count} frames)")]
    FrameOutOfRange { index: u32, frame_count: u32 },
    #[error("invalid seek time {0} s")]
    InvalidSeekTime(f64),
    /// A cancellable call gave up because its caller asked it to (see
    /// `VideoDecoder::next_frame_cancellable`); the decoder keeps its position.
    #[error("cancelled")]
    Cancelled,
    /// This build has no H.264 decoder (built without the `h264` cargo feature); the file
    /// itself may be fine.
    #[error(
        "cannot play here: this build has no H.264 decoder (built without the h264 feature); open it in the system player"
    )]
    H264Unavailable,
}

impl VideoDecodeError {
    /// The file may well play elsewhere, just not in this build: the UI offers the system
    /// player instead of calling the file broken.
    pub fn suggests_system_player(&self) -> bool {
        matches!(self, Self::H264Unavailable | Self::UnsupportedCodec { .. })
    }
}
