//! H.264 in MP4, shared by the studio's player (`media::video`) and the sandbox's video
//! edits and trims (which must decode the sources they are given). Like `palette`, this is
//! neutral code with no knowledge of the contract, so both sides may use it without a
//! misreading of the contract hiding on both.
//!
//! - [`demux`]: the first H.264 (`avc1`/`avc3`) track of an MP4, its sample table in decode
//!   order, timing, and SPS/PPS; guards `re_mp4` against malformed files.
//! - [`decode`]: [`VideoDecoder`], frames in display order (B-frames included) as RGBA8,
//!   frame-accurate seeks from the previous keyframe.
//! - [`assembly`]: whether OpenH264 was built with its assembly (`build.rs`), and the
//!   studio's startup warning when not.
//! - [`audio_track`]: the first sound track (AAC-LC, Opus, MP3 in MP4): its decoder
//!   configuration, packet table and start (priming / pre-skip); decoded in `audio::mp4`.
//!
//! Only H.264 in MP4 is supported; other codecs are refused with
//! [`VideoDecodeError::UnsupportedCodec`]. Builds without the `h264` cargo feature have no
//! decoder and refuse H.264 too, with [`VideoDecodeError::H264Unavailable`]. Interlaced
//! (field-coded) H.264 is not handled by openh264.

// The one `h264` seam: without the feature, `decode` is a stand-in whose `open` fails with
// `VideoDecodeError::H264Unavailable` (demuxing still works).
pub mod assembly;
pub mod audio_track;
#[cfg(feature = "h264")]
pub mod decode;
#[cfg(not(feature = "h264"))]
#[path = "decode_unavailable.rs"]
pub mod decode;
pub mod demux;
mod error;
mod frame;

pub use assembly::{h264_has_assembly, warn_if_h264_without_assembly};
pub use decode::{DecodedFrame, VideoDecoder, VideoInfo};
pub use error::VideoDecodeError;

/// The fixtures in `tests/fixtures/video/` and what the tests read from their pictures.
#[cfg(test)]
// Without a decoder only the demux tests run, and they use part of this.
#[cfg_attr(not(feature = "h264"), allow(dead_code))]
pub(crate) mod test_fixtures {
    use super::DecodedFrame;

    /// Constrained Baseline, no B-frames, 160x90, 24 fps, 48 frames, keyframe every 12.
    pub const BASELINE: &[u8] =
        include_bytes!("../../tests/fixtures/video/baseline_160x90_24fps_48f.mp4");
    /// High profile with B-frames (3, pyramid), otherwise like `BASELINE`.
    pub const BFRAMES: &[u8] =
        include_bytes!("../../tests/fixtures/video/high_bframes_160x90_24fps_48f.mp4");
    /// Open GOP: keyframes after the first are non-IDR I-frames (marked sync) whose leading
    /// B-frames reference the previous GOP.
    pub const OPEN_GOP: &[u8] =
        include_bytes!("../../tests/fixtures/video/high_opengop_160x90_24fps_48f.mp4");
    /// The same picture as HEVC (`hvc1`).
    pub const HEVC: &[u8] = include_bytes!("../../tests/fixtures/video/hevc_160x90_24fps_48f.mp4");
    /// The same picture as MPEG-4 Part 2 (`mp4v`).
    pub const MPEG4_PART2: &[u8] =
        include_bytes!("../../tests/fixtures/video/mpeg4part2_160x90_24fps_48f.mp4");

    /// The frame number the fixtures draw in their top 16 rows: ten 16-px blocks, bit `b`
    /// white in block `b` (see the fixtures' README).
    pub fn frame_code(frame: &DecodedFrame) -> u32 {
        let block_px = (frame.width / 10) as usize;
        let row = 8 * frame.width as usize;
        (0..10)
            .map(|bit| {
                let x = bit * block_px + block_px / 2;
                let luma = frame.rgba.get((row + x) * 4).copied().unwrap_or(0);
                u32::from(luma > 128) << bit
            })
            .sum()
    }

    /// `bytes` with its `avc1` sample entry renamed `avc3` (same layout, in-band-capable).
    pub fn as_avc3(bytes: &[u8]) -> Vec<u8> {
        let mut bytes = bytes.to_vec();
        let stsd = bytes.windows(4).position(|w| w == b"stsd").unwrap_or(0);
        if let Some(at) = bytes[stsd..].windows(4).position(|w| w == b"avc1") {
            bytes[stsd + at..stsd + at + 4].copy_from_slice(b"avc3");
        }
        bytes
    }

    /// Small deterministic generator for test inputs.
    pub struct XorShift(u64);

    impl XorShift {
        pub fn new(seed: u64) -> Self {
            Self(seed.max(1))
        }

        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        /// Uniform-enough value in `0..bound` (`bound` > 0).
        pub fn below(&mut self, bound: usize) -> usize {
            (self.next() % bound.max(1) as u64) as usize
        }
    }
}
