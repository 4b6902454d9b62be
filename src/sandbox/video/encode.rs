//! H.264 encoding with openh264 (Cisco's encoder, built from source by the `openh264` crate)
//! into an MP4 via our fast-start writer.
//!
//! Settings: Baseline profile (openh264's default; plays everywhere), an IDR frame every
//! second, no frame skipping (every input frame becomes a sample, so durations stay exact),
//! one thread and no scene-change detection (same input, same bytes).
//!
//! Rate control is off: openh264 then codes at its fixed base QP (26), constant quality with
//! the size following the content (about 2.5 Mbit/s for procedural 720p24, 0.3 Mbit/s at
//! 320x180). Its bitrate modes need frame skipping to hold a target, and without skipping
//! they print a warning to stderr for every encoder; skipped frames would break the exact
//! frame count.

use image::RgbImage;
use openh264::OpenH264API;
use openh264::Timestamp;
use openh264::encoder::{
    Complexity, Encoder, EncoderConfig, FrameRate, IntraFramePeriod, RateControlMode, UsageType,
    VuiConfig,
};
use openh264::formats::{RgbSliceU8, YUVBuffer, YUVSource};

use super::VideoError;
use super::mp4::{Mp4Muxer, OpusTrack};
use super::{MAX_FPS, check_size};

const NAL_SPS: u8 = 7;
const NAL_PPS: u8 = 8;
const NAL_IDR: u8 = 5;

/// Encodes frames one by one and returns a fast-start MP4. Reusable for edits:
/// decode, alter the frames, push them here.
pub(crate) struct Mp4Encoder {
    core: Core,
    width: u32,
    height: u32,
    /// Reused for RGB input.
    #[allow(dead_code)] // pending: RGB input is for the video-edit routes (issue 10 follow-up)
    rgb_buffer: YUVBuffer,
}

/// The encoder and muxer, apart from the RGB buffer so both can be borrowed at once.
struct Core {
    encoder: Encoder,
    muxer: Mp4Muxer,
    fps: u32,
    /// Reused per frame: the access unit in AVCC form.
    sample: Vec<u8>,
}

impl Mp4Encoder {
    /// `width` and `height` must be even (4:2:0), at most 3840x2160 (or 2160x3840).
    pub(crate) fn new(width: u32, height: u32, fps: u32) -> Result<Self, VideoError> {
        check_size(width, height)?;
        if fps == 0 || fps > MAX_FPS {
            return Err(VideoError::InvalidFrameRate(fps));
        }
        let config = EncoderConfig::new()
            .usage_type(UsageType::CameraVideoRealTime)
            .rate_control_mode(RateControlMode::Off)
            .max_frame_rate(FrameRate::from_hz(fps as f32))
            .skip_frames(false)
            .intra_frame_period(IntraFramePeriod::from_num_frames(fps))
            .scene_change_detect(false)
            .num_threads(1)
            .complexity(Complexity::Low)
            .vui(VuiConfig::bt601());
        let encoder = Encoder::with_api_config(OpenH264API::from_source(), config)?;
        Ok(Self {
            core: Core {
                encoder,
                muxer: Mp4Muxer::new(width, height, fps),
                fps,
                sample: Vec::new(),
            },
            width,
            height,
            rgb_buffer: YUVBuffer::new(width as usize, height as usize),
        })
    }

    pub(crate) fn frame_count(&self) -> u32 {
        self.core.muxer.sample_count()
    }

    /// Adds one RGB frame of the encoder's size.
    #[allow(dead_code)] // pending: the video-edit routes push decoded, altered RGB frames
    pub(crate) fn push_frame(&mut self, frame: &RgbImage) -> Result<(), VideoError> {
        self.check_frame(frame.width(), frame.height())?;
        let (w, h) = (self.width as usize, self.height as usize);
        // Sizes were checked (even, matching), so the slice wrapper's asserts hold.
        self.rgb_buffer
            .read_rgb8(RgbSliceU8::new(frame.as_raw(), (w, h)));
        self.core.encode(&self.rgb_buffer)
    }

    /// Adds one I420 frame of the encoder's size.
    pub(crate) fn push_yuv(&mut self, frame: &impl YUVSource) -> Result<(), VideoError> {
        let (w, h) = frame.dimensions();
        self.check_frame(w as u32, h as u32)?;
        self.core.encode(frame)
    }

    /// The finished MP4 file.
    pub(crate) fn finish(self) -> Result<Vec<u8>, VideoError> {
        self.core.muxer.finish(None)
    }

    /// The finished MP4 file with an Opus audio track beside the video (edits with sound).
    pub(crate) fn finish_with_audio(
        self,
        audio: Option<&OpusTrack>,
    ) -> Result<Vec<u8>, VideoError> {
        self.core.muxer.finish(audio)
    }

    fn check_frame(&self, width: u32, height: u32) -> Result<(), VideoError> {
        if (width, height) == (self.width, self.height) {
            Ok(())
        } else {
            Err(VideoError::FrameSizeMismatch {
                index: self.frame_count(),
                width: self.width,
                height: self.height,
                got_width: width,
                got_height: height,
            })
        }
    }
}

impl Core {
    fn encode(&mut self, frame: &impl YUVSource) -> Result<(), VideoError> {
        let index = self.muxer.sample_count();
        if index.is_multiple_of(self.fps) {
            // The intra period already does this; forcing keeps the cadence exact even if
            // openh264's own counting drifts.
            self.encoder.force_intra_frame();
        }
        let millis = u64::from(index) * 1000 / u64::from(self.fps);
        let bitstream = self
            .encoder
            .encode_at(frame, Timestamp::from_millis(millis))?;

        self.sample.clear();
        // Copied: NAL slices borrow their layer. Only IDR frames carry them.
        let mut sps: Option<Vec<u8>> = None;
        let mut pps: Option<Vec<u8>> = None;
        let mut is_idr = false;
        for layer_index in 0..bitstream.num_layers() {
            let Some(layer) = bitstream.layer(layer_index) else {
                continue;
            };
            for nal_index in 0..layer.nal_count() {
                let Some(nal) = layer.nal_unit(nal_index).map(strip_start_code) else {
                    continue;
                };
                let Some(&header) = nal.first() else {
                    continue;
                };
                match header & 0x1f {
                    NAL_SPS => sps = Some(nal.to_vec()),
                    NAL_PPS => pps = Some(nal.to_vec()),
                    kind => {
                        is_idr |= kind == NAL_IDR;
                        let len = u32::try_from(nal.len())
                            .map_err(|_| VideoError::TooLarge("NAL unit"))?;
                        self.sample.extend_from_slice(&len.to_be_bytes());
                        self.sample.extend_from_slice(nal);
                    }
                }
            }
        }
        if self.sample.is_empty() {
            return Err(VideoError::EmptyFrame(index));
        }
        if let (Some(sps), Some(pps)) = (sps, pps) {
            if !self.muxer.has_parameter_sets() {
                self.muxer.set_parameter_sets(&sps, &pps);
            } else if self.muxer.parameter_sets() != (sps.as_slice(), pps.as_slice()) {
                // avcC holds one SPS/PPS pair for the whole track.
                return Err(VideoError::ParameterSetsChanged(index));
            }
        }
        if !self.muxer.has_parameter_sets() {
            return Err(VideoError::MissingParameterSets);
        }
        self.muxer.add_sample(&self.sample, is_idr)
    }
}

/// openh264 emits Annex B units (with 3- or 4-byte start codes); MP4 wants them bare.
fn strip_start_code(nal: &[u8]) -> &[u8] {
    if nal.starts_with(&[0, 0, 0, 1]) {
        &nal[4..]
    } else if nal.starts_with(&[0, 0, 1]) {
        &nal[3..]
    } else {
        nal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_sizes_and_mismatched_frames() {
        assert!(matches!(
            Mp4Encoder::new(321, 180, 24),
            Err(VideoError::InvalidSize { .. })
        ));
        assert!(matches!(
            Mp4Encoder::new(320, 180, 0),
            Err(VideoError::InvalidFrameRate(0))
        ));
        let mut encoder = Mp4Encoder::new(64, 64, 24).unwrap();
        let wrong = RgbImage::new(32, 32);
        assert!(matches!(
            encoder.push_frame(&wrong),
            Err(VideoError::FrameSizeMismatch { .. })
        ));
        assert!(matches!(encoder.finish(), Err(VideoError::NoFrames)));
    }

    #[test]
    fn rgb_frames_encode_with_a_keyframe_every_second() {
        let mut encoder = Mp4Encoder::new(64, 48, 10).unwrap();
        for i in 0..25u32 {
            let frame = RgbImage::from_fn(64, 48, |x, y| {
                image::Rgb([(x * 4 + i * 9) as u8, (y * 5) as u8, (i * 10) as u8])
            });
            encoder.push_frame(&frame).unwrap();
        }
        assert_eq!(encoder.frame_count(), 25);
        assert_eq!(encoder.muxer_sync_for_test(), vec![1, 11, 21]);
        let mp4 = encoder.finish().unwrap();
        assert!(mp4.len() > 500);
    }

    impl Mp4Encoder {
        fn muxer_sync_for_test(&self) -> Vec<u32> {
            self.core.muxer.sync_samples().to_vec()
        }
    }
}
