//! The source of an edit: its facts (probe) and its frames, decoded one at a time in
//! display order as I420 at an even size (an odd last row or column is dropped).

use crate::video_codec::demux::Mp4Demuxer;
use crate::video_codec::{DecodedFrame, VideoDecodeError, VideoDecoder};

use super::super::yuv::I420;
use super::super::{SourceProbe, VideoError, check_size};
use super::audio;
use super::unmark::Unmark;

/// A decode failure, said as a problem with the source.
pub(super) fn source_error(error: VideoDecodeError) -> VideoError {
    VideoError::Source(error.to_string())
}

/// Reads the source's size, rate, length and whether it has sound.
pub(super) fn probe(source_mp4: &[u8]) -> Result<SourceProbe, VideoError> {
    let demuxer = Mp4Demuxer::from_bytes(source_mp4.to_vec()).map_err(source_error)?;
    let track = demuxer.track();
    Ok(SourceProbe {
        width: track.width,
        height: track.height,
        fps: rounded_fps(track.fps()),
        frame_count: track.frame_count(),
        duration_secs: track.duration_secs(),
        has_audio: audio::has_audio_track(source_mp4),
    })
}

/// Whole frames per second, at least 1 (and at most what the encoder takes).
pub(super) fn rounded_fps(fps: f64) -> u32 {
    if fps.is_finite() {
        (fps.round() as u32).clamp(1, super::super::MAX_FPS)
    } else {
        1
    }
}

/// Frames of a source, decoded on demand.
pub(in crate::sandbox::video) struct SourceFrames {
    decoder: VideoDecoder,
    /// Even output size (the decoded size rounded down).
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub frame_count: u32,
    pub duration_secs: f64,
}

impl SourceFrames {
    pub(in crate::sandbox::video) fn open(source_mp4: &[u8]) -> Result<Self, VideoError> {
        let decoder = VideoDecoder::from_bytes(source_mp4.to_vec()).map_err(source_error)?;
        let info = decoder.info();
        let (width, height) = (info.width & !1, info.height & !1);
        check_size(width, height)?;
        Ok(Self {
            width,
            height,
            fps: rounded_fps(info.fps),
            frame_count: info.frame_count,
            duration_secs: info.duration_secs,
            decoder,
        })
    }

    /// Presentation time of frame `index` (display order).
    pub(super) fn pts_secs(&self, index: u32) -> f64 {
        self.decoder.frame_pts_secs(index)
    }

    /// The frame on screen at `time_secs`.
    pub(super) fn frame_at_secs(&self, time_secs: f64) -> u32 {
        self.decoder.frame_at_secs(time_secs)
    }

    /// The next [`next_i420`](Self::next_i420) returns frame `index`.
    pub(super) fn seek_to_frame(&mut self, index: u32) -> Result<(), VideoError> {
        self.decoder.seek_to_frame(index).map_err(source_error)
    }

    /// The next frame in display order, `None` after the last.
    pub(super) fn next_i420(&mut self) -> Result<Option<I420>, VideoError> {
        let Some(frame) = self.decoder.next_frame().map_err(source_error)? else {
            return Ok(None);
        };
        let out = self.to_i420(&frame)?;
        self.decoder.recycle(frame);
        Ok(Some(out))
    }

    fn to_i420(&self, frame: &DecodedFrame) -> Result<I420, VideoError> {
        if (frame.width, frame.height) == (self.width, self.height) {
            return I420::from_rgba(frame.width, frame.height, &frame.rgba);
        }
        // Odd size: drop the last column/row (4:2:0 needs even sides).
        let image = image::RgbaImage::from_raw(frame.width, frame.height, frame.rgba.clone())
            .ok_or_else(|| VideoError::Source("a decoded frame has the wrong size".into()))?;
        let cropped = image::imageops::crop_imm(&image, 0, 0, self.width, self.height).to_image();
        I420::from_rgba(self.width, self.height, cropped.as_raw())
    }
}

/// A source's frames with its sandbox watermark filled in (see `unmark`).
pub(in crate::sandbox::video) struct CleanSource {
    pub frames: SourceFrames,
    /// Decided on the first frame: `None` until then.
    unmark: Option<Option<Unmark>>,
}

impl CleanSource {
    pub(in crate::sandbox::video) fn open(source_mp4: &[u8]) -> Result<Self, VideoError> {
        Ok(Self {
            frames: SourceFrames::open(source_mp4)?,
            unmark: None,
        })
    }

    /// The next frame, its watermark (if it had one) removed.
    pub(in crate::sandbox::video) fn next(&mut self) -> Result<Option<I420>, VideoError> {
        let Some(mut frame) = self.frames.next_i420()? else {
            return Ok(None);
        };
        let unmark = self.unmark.get_or_insert_with(|| Unmark::detect(&frame));
        if let Some(unmark) = unmark {
            unmark.apply(&mut frame);
        }
        Ok(Some(frame))
    }
}
