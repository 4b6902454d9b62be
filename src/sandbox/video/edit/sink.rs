//! Where an edit's frames go: the fresh watermark (when asked), the poster (first frame),
//! the encoder, and at the end the audio track and the [`RenderedVideo`].

use super::super::encode::Mp4Encoder;
use super::super::watermark::Watermark;
use super::super::yuv::I420;
use super::super::{RenderedVideo, VideoError, poster};
use super::audio;

pub(in crate::sandbox::video) struct FrameSink {
    encoder: Mp4Encoder,
    watermark: Option<Watermark>,
    poster_jpeg: Vec<u8>,
    width: u32,
    height: u32,
    fps: u32,
}

impl FrameSink {
    pub(in crate::sandbox::video) fn new(
        width: u32,
        height: u32,
        fps: u32,
        watermark: bool,
    ) -> Result<Self, VideoError> {
        Ok(Self {
            encoder: Mp4Encoder::new(width, height, fps)?,
            watermark: watermark.then(|| Watermark::new(width as usize, height as usize)),
            poster_jpeg: Vec::new(),
            width,
            height,
            fps,
        })
    }

    pub(super) fn frame_count(&self) -> u32 {
        self.encoder.frame_count()
    }

    /// Marks (if asked) and encodes one frame of the sink's size.
    pub(in crate::sandbox::video) fn push(&mut self, frame: &mut I420) -> Result<(), VideoError> {
        if let Some(watermark) = &self.watermark {
            watermark.apply(frame);
        }
        if self.encoder.frame_count() == 0 {
            self.poster_jpeg = poster::poster_jpeg(frame)?;
        }
        self.encoder.push_yuv(frame)
    }

    pub(super) fn duration_secs(&self) -> f64 {
        f64::from(self.frame_count()) / f64::from(self.fps)
    }

    /// Finishes the file; `pcm` (mono 48 kHz) becomes its Opus track, fitted to the video's
    /// length.
    pub(in crate::sandbox::video) fn finish(
        self,
        pcm: Option<Vec<f32>>,
    ) -> Result<RenderedVideo, VideoError> {
        let frame_count = self.frame_count();
        let duration_secs = self.duration_secs();
        let track = match pcm {
            Some(pcm) => {
                let len = audio::samples_for_secs(duration_secs);
                Some(audio::encode_opus(&audio::fit_length(pcm, len))?)
            }
            None => None,
        };
        let mp4 = self.encoder.finish_with_audio(track.as_ref())?;
        Ok(RenderedVideo {
            mp4,
            poster_jpeg: self.poster_jpeg,
            width: self.width,
            height: self.height,
            fps: self.fps,
            frame_count,
            duration_secs,
            has_audio: track.is_some(),
        })
    }
}
