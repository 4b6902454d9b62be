//! What the decoder hands out, with or without the `h264` feature: video facts and frames.

/// What the player shows about a video before decoding any of it.
#[derive(Clone, Debug, PartialEq)]
pub struct VideoInfo {
    pub width: u32,
    pub height: u32,
    pub duration_secs: f64,
    pub frame_count: u32,
    /// Average frame rate (`frame_count / duration_secs`).
    pub fps: f64,
    /// RFC 6381 codec string, e.g. `avc1.64001E`.
    pub codec: String,
}

/// One decoded picture: RGBA8, row-major, `width * height * 4` bytes.
#[derive(Clone, PartialEq)]
pub struct DecodedFrame {
    /// Position in display order, 0-based.
    pub index: u32,
    /// Presentation time; the first frame is at 0.
    pub pts_secs: f64,
    /// How long the frame stays on screen (up to the next frame).
    pub duration_secs: f64,
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl std::fmt::Debug for DecodedFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DecodedFrame(#{} at {:.3} s, {}x{})",
            self.index, self.pts_secs, self.width, self.height
        )
    }
}
