//! The decoder's stand-in for builds without the `h264` feature (no OpenH264 compiled in).
//!
//! Same API as the real `decode` module, so the player and its callers build unchanged. A
//! file is still demuxed, so a broken file or another codec gets the same error as in a
//! full build; an H.264 file gets [`VideoDecodeError::H264Unavailable`], which the UI shows
//! as "cannot play here — open in system player". No decoder value can exist, so every
//! method past `open` is unreachable.

use super::demux::{H264Track, Mp4Demuxer};
use super::error::VideoDecodeError;
pub use super::frame::{DecodedFrame, VideoInfo};
use std::convert::Infallible;
use std::path::Path;

/// Never constructed in this build: opening always fails.
#[derive(Debug)]
pub struct VideoDecoder {
    never: Infallible,
}

impl VideoDecoder {
    /// Demuxes `path` (for its errors), then reports that H.264 cannot be decoded here.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, VideoDecodeError> {
        Mp4Demuxer::open(path)?;
        Err(VideoDecodeError::H264Unavailable)
    }

    /// [`Self::open`] for a file held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, VideoDecodeError> {
        Mp4Demuxer::from_bytes(bytes)?;
        Err(VideoDecodeError::H264Unavailable)
    }

    pub fn info(&self) -> &VideoInfo {
        match self.never {}
    }

    pub fn track(&self) -> &H264Track {
        match self.never {}
    }

    pub fn frame_pts_secs(&self, _index: u32) -> f64 {
        match self.never {}
    }

    pub fn frame_at_secs(&self, _time_secs: f64) -> u32 {
        match self.never {}
    }

    pub fn next_frame(&mut self) -> Result<Option<DecodedFrame>, VideoDecodeError> {
        match self.never {}
    }

    pub fn next_frame_cancellable(
        &mut self,
        _cancel: &mut dyn FnMut() -> bool,
    ) -> Result<Option<DecodedFrame>, VideoDecodeError> {
        match self.never {}
    }

    pub fn recycle(&mut self, _frame: DecodedFrame) {
        match self.never {}
    }

    pub fn release_spare_buffers(&mut self) {
        match self.never {}
    }

    pub fn park(&mut self, _resume_at: Option<u32>) {
        match self.never {}
    }

    pub fn is_parked(&self) -> bool {
        match self.never {}
    }

    pub fn seek_to_frame(&mut self, _index: u32) -> Result<(), VideoDecodeError> {
        match self.never {}
    }

    pub fn seek_to_secs(&mut self, _time_secs: f64) -> Result<(), VideoDecodeError> {
        match self.never {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixtures::{BASELINE, HEVC};
    use super::*;

    #[test]
    fn h264_files_report_the_missing_decoder_and_others_keep_their_errors() {
        let result = VideoDecoder::from_bytes(BASELINE.to_vec());
        assert!(
            matches!(result, Err(VideoDecodeError::H264Unavailable)),
            "{result:?}"
        );
        let hevc = VideoDecoder::from_bytes(HEVC.to_vec());
        assert!(
            matches!(hevc, Err(VideoDecodeError::UnsupportedCodec { .. })),
            "{hevc:?}"
        );
        assert!(VideoDecoder::from_bytes(Vec::new()).is_err());
    }
}
