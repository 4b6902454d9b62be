//! H.264 decoding with openh264: frames in display order as RGBA8, frame-accurate seeks.
//!
//! openh264 reorders B-frames itself when it is *not* flushed after every call
//! (`Flush::NoFlush`): it holds pictures back and hands them out in display order, one per
//! call once its window is full, and the rest on `flush_remaining()`. (Flushing after every
//! call, the crate's default, returns decode order and corrupts the reference lists of
//! B-frame streams after a few GOPs.) The safe API carries no timestamp through the
//! decoder, so each picture is labelled with the smallest display index fed but not yet
//! returned: that is the frame a display-order decoder must return next.

use super::demux::{self, H264Track, Mp4Demuxer, START_CODE};
use super::error::VideoDecodeError;
pub use super::frame::{DecodedFrame, VideoInfo};
use openh264::OpenH264API;
use openh264::decoder::{DecodedYUV, Decoder, DecoderConfig, Flush};
use openh264::formats::YUVSource;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::path::Path;

/// Spare RGBA buffers kept for reuse.
const SPARE_BUFFERS: usize = 2;

/// Pictures coming out of openh264 on their way to the caller.
#[derive(Default)]
struct Output {
    /// Display indices fed to the decoder and not yet returned by it.
    pending: BTreeSet<u32>,
    /// Converted frames waiting for `next_frame` (a flush returns several at once).
    ready: VecDeque<DecodedFrame>,
    /// Frames before this (a seek target) are dropped without converting them.
    skip_below: u32,
    last_emitted: Option<u32>,
    spare_rgba: Vec<Vec<u8>>,
}

impl Output {
    /// Labels the picture the decoder just returned and queues it unless it is skipped.
    fn accept(&mut self, yuv: &DecodedYUV<'_>, track: &H264Track) {
        let Some(index) = self.pending.pop_first() else {
            tracing::debug!("decoder returned a picture nothing was waiting for; dropped");
            return;
        };
        if index < self.skip_below || self.last_emitted.is_some_and(|last| index <= last) {
            return;
        }
        let (width, height) = yuv.dimensions();
        let side_limit = demux::MAX_SIDE_PX as usize;
        if width == 0 || height == 0 || width > side_limit || height > side_limit {
            tracing::warn!("decoded picture of {width}x{height} px dropped");
            return;
        }
        let len = width * height * 4;
        let mut rgba = self.spare_rgba.pop().unwrap_or_default();
        if rgba.len() != len {
            rgba.clear();
            rgba.resize(len, 0);
        }
        yuv.write_rgba8(&mut rgba);
        self.last_emitted = Some(index);
        self.ready.push_back(DecodedFrame {
            index,
            pts_secs: track.pts_secs(index),
            duration_secs: track.frame_duration_secs(index),
            width: width as u32,
            height: height as u32,
            rgba,
        });
    }

    fn recycle(&mut self, rgba: Vec<u8>) {
        if self.spare_rgba.len() < SPARE_BUFFERS {
            self.spare_rgba.push(rgba);
        }
    }

    /// Forgets everything queued or in flight (a seek that restarts the decoder).
    fn reset(&mut self, skip_below: u32) {
        self.pending.clear();
        while let Some(frame) = self.ready.pop_front() {
            self.recycle(frame.rgba);
        }
        self.skip_below = skip_below;
        self.last_emitted = None;
    }
}

/// Decodes the first H.264 track of an MP4 into RGBA frames in display order.
pub struct VideoDecoder {
    demuxer: Mp4Demuxer,
    info: VideoInfo,
    /// `None` while parked ([`Self::park`]).
    decoder: Option<Decoder>,
    /// While parked: the display index the next [`Self::next_frame`] returns.
    parked_resume_at: Option<u32>,
    /// SPS and PPS as Annex B, sent before the first sample of each run.
    parameter_sets: Vec<u8>,
    /// Next sample to feed, decode order.
    next_sample: u32,
    /// Sync sample the current run started from.
    run_start: u32,
    send_parameter_sets: bool,
    end_flushed: bool,
    output: Output,
    sample_buf: Vec<u8>,
    annexb_buf: Vec<u8>,
    /// Whether a sync sample holds an IDR, for the samples a seek has looked at.
    idr_cache: HashMap<u32, bool>,
}

impl std::fmt::Debug for VideoDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VideoDecoder")
            .field("info", &self.info)
            .field("next_sample", &self.next_sample)
            .finish_non_exhaustive()
    }
}

impl VideoDecoder {
    /// Opens an MP4 file; samples are read from disk as they are decoded.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, VideoDecodeError> {
        Self::with_demuxer(Mp4Demuxer::open(path)?)
    }

    /// Opens an MP4 held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, VideoDecodeError> {
        Self::with_demuxer(Mp4Demuxer::from_bytes(bytes)?)
    }

    fn with_demuxer(demuxer: Mp4Demuxer) -> Result<Self, VideoDecodeError> {
        let track = demuxer.track();
        let info = VideoInfo {
            width: track.width,
            height: track.height,
            duration_secs: track.duration_secs(),
            frame_count: track.frame_count(),
            fps: track.fps(),
            codec: track.codec.clone(),
        };
        let mut parameter_sets = Vec::new();
        for nal in track.sps.iter().chain(&track.pps) {
            parameter_sets.extend_from_slice(&START_CODE);
            parameter_sets.extend_from_slice(nal);
        }
        Ok(Self {
            demuxer,
            info,
            decoder: Some(new_decoder()?),
            parked_resume_at: None,
            parameter_sets,
            next_sample: 0,
            run_start: 0,
            send_parameter_sets: true,
            end_flushed: false,
            output: Output::default(),
            sample_buf: Vec::new(),
            annexb_buf: Vec::new(),
            idr_cache: HashMap::new(),
        })
    }

    pub fn info(&self) -> &VideoInfo {
        &self.info
    }

    /// The demuxed track: sample table, timing and display-order lookups.
    pub fn track(&self) -> &H264Track {
        self.demuxer.track()
    }

    /// Presentation time of frame `index` (display order).
    pub fn frame_pts_secs(&self, index: u32) -> f64 {
        self.track().pts_secs(index)
    }

    /// The frame on screen at `time_secs`, clamped to the first and last frame.
    pub fn frame_at_secs(&self, time_secs: f64) -> u32 {
        self.track().frame_at_secs(time_secs)
    }

    /// The next frame in display order, `None` after the last. A `Decode` error drops that
    /// sample's frame; calling again goes on with the next.
    pub fn next_frame(&mut self) -> Result<Option<DecodedFrame>, VideoDecodeError> {
        self.next_frame_cancellable(&mut || false)
    }

    /// [`Self::next_frame`], asking `cancel` before each sample it decodes: a long run of
    /// discarded frames after a seek can then give way to a newer command. Returns
    /// `Err(Cancelled)` when it does; the decoder keeps its place and target.
    pub fn next_frame_cancellable(
        &mut self,
        cancel: &mut dyn FnMut() -> bool,
    ) -> Result<Option<DecodedFrame>, VideoDecodeError> {
        self.unpark()?;
        loop {
            if let Some(frame) = self.output.ready.pop_front() {
                return Ok(Some(frame));
            }
            if self.next_sample >= self.info.frame_count {
                if self.end_flushed {
                    return Ok(None);
                }
                self.end_flushed = true;
                self.drain_decoder();
                continue;
            }
            if cancel() {
                return Err(VideoDecodeError::Cancelled);
            }
            self.feed_next_sample()?;
        }
    }

    /// Hands a frame's buffer back for reuse by later frames (optional).
    pub fn recycle(&mut self, frame: DecodedFrame) {
        self.output.recycle(frame.rgba);
    }

    /// Frees the buffers kept for reuse (8 MB each at 1080p): a paused player needs none
    /// until it plays again.
    pub fn release_spare_buffers(&mut self) {
        self.output.spare_rgba = Vec::new();
    }

    /// Frees the H.264 decoder itself (reference pictures and work buffers: ~28 MB at
    /// 1080p), the frames decoded ahead and the spare buffers. A player paused for a while
    /// needs none of it; the next frame is decoded again from its IDR (one seek's work).
    /// `resume_at` is the frame the next [`Self::next_frame`] returns (a caller holding a
    /// frame it took but did not show passes that frame's index); `None` goes on where
    /// decoding stands.
    pub fn park(&mut self, resume_at: Option<u32>) {
        if self.decoder.is_none() && resume_at.is_none() {
            return;
        }
        let where_decoding_stands = self
            .output
            .ready
            .front()
            .map(|frame| frame.index)
            .or(self
                .output
                .last_emitted
                .map(|last| (last + 1).max(self.output.skip_below)))
            .unwrap_or(self.output.skip_below);
        let resume_at = resume_at
            .or(self.parked_resume_at)
            .unwrap_or(where_decoding_stands);
        self.decoder = None;
        self.output.reset(resume_at);
        self.release_spare_buffers();
        self.parked_resume_at = Some(resume_at);
    }

    /// Whether [`Self::park`] freed the decoder and nothing has asked for a frame since.
    pub fn is_parked(&self) -> bool {
        self.decoder.is_none()
    }

    /// After [`Self::park`]: a fresh decoder positioned where the parked one was.
    fn unpark(&mut self) -> Result<(), VideoDecodeError> {
        let Some(resume_at) = self.parked_resume_at.take() else {
            return Ok(());
        };
        if resume_at < self.info.frame_count {
            return self.seek_to_frame(resume_at);
        }
        // Parked past the last frame: the end stays the end.
        self.decoder = Some(new_decoder()?);
        self.next_sample = self.info.frame_count;
        self.end_flushed = true;
        Ok(())
    }

    /// How many bytes the buffers kept for reuse hold.
    pub fn spare_buffer_bytes(&self) -> usize {
        self.output.spare_rgba.iter().map(Vec::capacity).sum()
    }

    /// Positions the decoder so the next [`Self::next_frame`] returns frame `index` (display
    /// order). Decodes from the sync sample at or before it; frames before the target are
    /// decoded but never converted. A target ahead within the run already under way goes on
    /// from where the decoder is.
    pub fn seek_to_frame(&mut self, index: u32) -> Result<(), VideoDecodeError> {
        let frame_count = self.info.frame_count;
        if index >= frame_count {
            return Err(VideoDecodeError::FrameOutOfRange { index, frame_count });
        }
        // An explicit seek replaces the parked position (and restarts a decoder below).
        self.parked_resume_at = None;
        let start = self.seek_start(index);
        let ahead = self
            .output
            .last_emitted
            .map_or(index >= self.output.skip_below, |last| index > last);
        if ahead
            && self.decoder.is_some()
            && !self.end_flushed
            && start >= self.run_start
            && start <= self.next_sample
        {
            self.output.skip_below = index;
            while self
                .output
                .ready
                .front()
                .is_some_and(|frame| frame.index < index)
            {
                if let Some(frame) = self.output.ready.pop_front() {
                    self.output.recycle(frame.rgba);
                }
            }
            return Ok(());
        }
        self.output.reset(index);
        self.restart_at(start)
    }

    /// Seeks to the frame on screen at `time_secs` (clamped to the video).
    pub fn seek_to_secs(&mut self, time_secs: f64) -> Result<(), VideoDecodeError> {
        if !time_secs.is_finite() {
            return Err(VideoDecodeError::InvalidSeekTime(time_secs));
        }
        self.seek_to_frame(self.frame_at_secs(time_secs))
    }

    /// The sample to start decoding from for frame `index`: the newest sync sample before it
    /// that holds an IDR. openh264 (without error concealment) rejects every frame until an
    /// IDR after a restart, so an open-GOP keyframe (a non-IDR I-frame marked sync) or a file
    /// without `stss` (every sample "sync") cannot be a starting point.
    fn seek_start(&mut self, index: u32) -> u32 {
        let candidates: Vec<u32> = self.demuxer.track().seek_candidates(index).collect();
        candidates
            .into_iter()
            .find(|&candidate| self.is_idr(candidate))
            // No IDR before the target: only a decode from the start can reach it.
            .unwrap_or(0)
    }

    /// Whether sync sample `sample_index` holds an IDR (read once, then cached).
    fn is_idr(&mut self, sample_index: u32) -> bool {
        if let Some(&known) = self.idr_cache.get(&sample_index) {
            return known;
        }
        let known = self.demuxer.is_idr_sample(sample_index).unwrap_or(false);
        self.idr_cache.insert(sample_index, known);
        known
    }

    /// Starts a fresh decoder at `start` (an IDR, or sample 0), forgetting pictures in flight.
    fn restart_at(&mut self, start: u32) -> Result<(), VideoDecodeError> {
        // Drain what the old run still holds, unlabelled and unwanted; then a new decoder
        // (~50 µs) so no reference pictures or reorder state carry over.
        if let Some(decoder) = self.decoder.as_mut() {
            let _ = decoder.flush_remaining();
        }
        self.decoder = Some(new_decoder()?);
        self.output.pending.clear();
        self.next_sample = start;
        self.run_start = start;
        self.send_parameter_sets = true;
        self.end_flushed = false;
        Ok(())
    }

    /// After a sample fails, decoding resumes at the next IDR. A failed call may still have
    /// released an earlier picture that the safe API never showed us, so the labels of the
    /// pictures in flight can no longer be trusted; those frames are dropped.
    fn resync_after(&mut self, failed_sample: u32) -> Result<(), VideoDecodeError> {
        let later_syncs: Vec<u32> = self
            .demuxer
            .track()
            .sync_samples()
            .iter()
            .copied()
            .filter(|&s| s > failed_sample)
            .collect();
        let next_idr = later_syncs
            .into_iter()
            .find(|&s| self.is_idr(s))
            .unwrap_or(self.info.frame_count);
        self.restart_at(next_idr)
    }

    /// Decodes one sample; a picture that comes out is labelled and queued.
    fn feed_next_sample(&mut self) -> Result<(), VideoDecodeError> {
        let sample_index = self.next_sample;
        self.next_sample += 1;
        let track = self.demuxer.track();
        let display_index = track.display_index(sample_index).unwrap_or(u32::MAX);
        let nal_length_size = track.nal_length_size;
        self.demuxer
            .read_sample(sample_index, &mut self.sample_buf)?;
        self.annexb_buf.clear();
        if self.send_parameter_sets {
            self.annexb_buf.extend_from_slice(&self.parameter_sets);
            self.send_parameter_sets = false;
        }
        if let Err(message) =
            demux::avcc_to_annexb(&self.sample_buf, nal_length_size, &mut self.annexb_buf)
        {
            self.resync_after(sample_index)?;
            return Err(VideoDecodeError::Decode {
                sample_index,
                message: message.to_owned(),
            });
        }
        self.output.pending.insert(display_index);
        let track = self.demuxer.track();
        let decoder = match self.decoder.as_mut() {
            Some(decoder) => decoder,
            None => self.decoder.insert(new_decoder()?),
        };
        match decoder.decode(&self.annexb_buf) {
            Ok(Some(yuv)) => self.output.accept(&yuv, track),
            Ok(None) => {}
            Err(e) => {
                self.resync_after(sample_index)?;
                return Err(VideoDecodeError::Decode {
                    sample_index,
                    message: e.to_string(),
                });
            }
        }
        Ok(())
    }

    /// End of stream: takes every picture the decoder still holds.
    fn drain_decoder(&mut self) {
        let track = self.demuxer.track();
        let Some(decoder) = self.decoder.as_mut() else {
            return;
        };
        match decoder.flush_remaining() {
            Ok(pictures) => {
                for yuv in &pictures {
                    self.output.accept(yuv, track);
                }
            }
            Err(e) => tracing::warn!("flushing the H.264 decoder failed: {e}"),
        }
        if !self.output.pending.is_empty() {
            tracing::debug!(
                "{} frames never came out of the decoder",
                self.output.pending.len()
            );
            self.output.pending.clear();
        }
    }
}

fn new_decoder() -> Result<Decoder, VideoDecodeError> {
    let config = DecoderConfig::new().flush_after_decode(Flush::NoFlush);
    Decoder::with_api_config(OpenH264API::from_source(), config)
        .map_err(|e| VideoDecodeError::DecoderInit(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::super::test_fixtures::{
        BASELINE, BFRAMES, HEVC, MPEG4_PART2, OPEN_GOP, XorShift, frame_code,
    };
    use super::*;

    fn decode_all(bytes: &[u8]) -> Vec<DecodedFrame> {
        let mut decoder = VideoDecoder::from_bytes(bytes.to_vec()).expect("fixture opens");
        let mut frames = Vec::new();
        while let Some(frame) = decoder.next_frame().expect("fixture decodes") {
            frames.push(frame);
        }
        frames
    }

    fn assert_display_order(frames: &[DecodedFrame], frame_count: u32) {
        assert_eq!(frames.len() as u32, frame_count);
        for (i, frame) in frames.iter().enumerate() {
            assert_eq!(frame.index, i as u32);
            // The picture itself carries its source frame number.
            assert_eq!(frame_code(frame), i as u32, "picture of frame {i}");
            assert_eq!((frame.width, frame.height), (160, 90));
            assert_eq!(frame.rgba.len(), 160 * 90 * 4);
        }
        for pair in frames.windows(2) {
            assert!(pair[1].pts_secs > pair[0].pts_secs, "{pair:?}");
        }
    }

    #[test]
    fn info_of_fixtures() {
        let decoder = VideoDecoder::from_bytes(BFRAMES.to_vec()).expect("opens");
        let info = decoder.info();
        assert_eq!((info.width, info.height, info.frame_count), (160, 90, 48));
        assert!((info.fps - 24.0).abs() < 1e-9);
        assert!((info.duration_secs - 2.0).abs() < 1e-9);
        assert!(info.codec.starts_with("avc1.64"));
    }

    #[test]
    fn reuse_buffers_are_capped_and_released_on_request() {
        let mut decoder = VideoDecoder::from_bytes(BASELINE.to_vec()).expect("fixture opens");
        let frame_bytes = 160 * 90 * 4;
        for _ in 0..5 {
            let frame = decoder.next_frame().expect("decodes").expect("a frame");
            decoder.recycle(frame);
        }
        assert!(decoder.spare_buffer_bytes() <= SPARE_BUFFERS * frame_bytes);
        assert!(
            decoder.spare_buffer_bytes() >= frame_bytes,
            "a buffer is reused"
        );
        decoder.release_spare_buffers();
        assert_eq!(decoder.spare_buffer_bytes(), 0);
        // Decoding goes on where it was, into new buffers.
        let frame = decoder.next_frame().expect("decodes").expect("a frame");
        assert_eq!(frame_code(&frame), frame.index);
    }

    #[test]
    fn a_parked_decoder_frees_itself_and_goes_on_from_the_same_frame() {
        for fixture in [BASELINE, BFRAMES, OPEN_GOP] {
            let mut decoder = VideoDecoder::from_bytes(fixture.to_vec()).expect("fixture opens");
            for expected in 0..10 {
                let frame = decoder.next_frame().expect("decodes").expect("a frame");
                assert_eq!(frame.index, expected);
            }
            decoder.park(None);
            assert!(decoder.is_parked());
            assert_eq!(decoder.spare_buffer_bytes(), 0);
            decoder.park(None); // twice is harmless
            // Frames 10 and on, in order, from a decoder made again from the IDR.
            for expected in 10..20 {
                let frame = decoder.next_frame().expect("decodes").expect("a frame");
                assert_eq!(frame.index, expected);
                assert_eq!(
                    frame_code(&frame),
                    expected,
                    "the picture of frame {expected}"
                );
            }
            assert!(!decoder.is_parked());
            // A frame taken but not shown is asked for again.
            decoder.park(Some(15));
            let frame = decoder.next_frame().expect("decodes").expect("a frame");
            assert_eq!((frame.index, frame_code(&frame)), (15, 15));
            // A seek while parked wins over the parked place.
            decoder.park(None);
            decoder.seek_to_frame(40).expect("seek");
            assert_eq!(
                decoder
                    .next_frame()
                    .expect("decodes")
                    .expect("a frame")
                    .index,
                40
            );
            // Parked at the end stays at the end.
            while decoder.next_frame().expect("decodes").is_some() {}
            decoder.park(None);
            assert!(decoder.next_frame().expect("decodes").is_none());
        }
    }

    #[test]
    fn baseline_decodes_every_frame_in_order() {
        assert_display_order(&decode_all(BASELINE), 48);
    }

    #[test]
    fn bframes_decode_in_display_order() {
        let frames = decode_all(BFRAMES);
        assert_display_order(&frames, 48);
        assert!((frames[24].pts_secs - 1.0).abs() < 1e-9);
        assert!((frames[47].duration_secs - 1.0 / 24.0).abs() < 1e-9);
    }

    #[test]
    fn open_gop_decodes_in_display_order() {
        assert_display_order(&decode_all(OPEN_GOP), 48);
    }

    #[test]
    fn a_bad_sample_is_reported_then_decoding_resumes_at_the_next_idr() {
        let mut bytes = BFRAMES.to_vec();
        let demuxer = Mp4Demuxer::from_bytes(bytes.clone()).expect("opens");
        // Sample 6 (decode order) gets a NAL length running past its end.
        let offset = demuxer.track().samples()[6].offset as usize;
        bytes[offset..offset + 4].copy_from_slice(&[0x7f, 0xff, 0xff, 0xff]);
        let mut decoder = VideoDecoder::from_bytes(bytes).expect("opens");
        let mut indices = Vec::new();
        let mut errors = Vec::new();
        loop {
            match decoder.next_frame() {
                Ok(Some(frame)) => {
                    assert_eq!(frame_code(&frame), frame.index, "label matches picture");
                    indices.push(frame.index);
                }
                Ok(None) => break,
                Err(e) => errors.push(e),
            }
        }
        assert!(
            matches!(
                errors.as_slice(),
                [VideoDecodeError::Decode {
                    sample_index: 6,
                    ..
                }]
            ),
            "{errors:?}"
        );
        // Frames up to the damage, then everything from the next keyframe (12) on.
        assert!(indices.windows(2).all(|w| w[1] > w[0]), "{indices:?}");
        assert!(indices.contains(&0));
        assert!(
            indices.ends_with(&(12..48).collect::<Vec<_>>()),
            "{indices:?}"
        );
    }

    #[test]
    fn after_the_end_stays_none() {
        let mut decoder = VideoDecoder::from_bytes(BASELINE.to_vec()).expect("opens");
        while decoder.next_frame().expect("decodes").is_some() {}
        assert!(decoder.next_frame().expect("still fine").is_none());
    }

    #[test]
    fn seeks_land_exactly_on_the_frame() {
        // Open GOP: openh264 restarts only at an IDR, so these seeks decode from frame 0.
        for bytes in [BASELINE, BFRAMES, OPEN_GOP] {
            let reference = decode_all(bytes);
            let mut decoder = VideoDecoder::from_bytes(bytes.to_vec()).expect("opens");
            let mut rng = XorShift::new(0x5eed);
            // Random jumps both ways, repeats, neighbours, ends.
            let mut targets: Vec<u32> = (0..60).map(|_| rng.below(48) as u32).collect();
            targets.extend([0, 47, 47, 0, 11, 12, 13, 12, 24, 23, 25, 46, 1]);
            for target in targets {
                decoder.seek_to_frame(target).expect("seek");
                let frame = decoder.next_frame().expect("decode").expect("a frame");
                assert_eq!(frame.index, target);
                assert!(
                    frame == reference[target as usize],
                    "frame {target} differs"
                );
                // And decoding goes on from there in order.
                if let Some(next) = decoder.next_frame().expect("decode") {
                    assert_eq!(next.index, target + 1);
                    assert!(next == reference[target as usize + 1]);
                }
            }
        }
    }

    #[test]
    fn stepping_forward_within_a_run_keeps_decoding() {
        let reference = decode_all(BFRAMES);
        let mut decoder = VideoDecoder::from_bytes(BFRAMES.to_vec()).expect("opens");
        decoder.seek_to_frame(3).expect("seek");
        assert_eq!(decoder.next_frame().expect("ok").expect("frame").index, 3);
        let run_start = decoder.run_start;
        for target in [4, 5, 9, 10, 20] {
            decoder.seek_to_frame(target).expect("seek");
            let frame = decoder.next_frame().expect("ok").expect("frame");
            assert!(frame == reference[target as usize]);
        }
        assert_eq!(
            decoder.run_start, run_start,
            "forward seeks did not restart"
        );
        // Past the next keyframe a restart from that keyframe is cheaper.
        decoder.seek_to_frame(30).expect("seek");
        assert_eq!(decoder.run_start, 24);
        let frame = decoder.next_frame().expect("ok").expect("frame");
        assert!(frame == reference[30]);
    }

    #[test]
    fn seek_by_time_and_out_of_range() {
        let mut decoder = VideoDecoder::from_bytes(BFRAMES.to_vec()).expect("opens");
        decoder.seek_to_secs(1.0).expect("seek");
        assert_eq!(decoder.next_frame().expect("ok").expect("frame").index, 24);
        decoder.seek_to_secs(1.99).expect("seek");
        assert_eq!(decoder.next_frame().expect("ok").expect("frame").index, 47);
        decoder.seek_to_secs(-1.0).expect("clamped");
        assert_eq!(decoder.next_frame().expect("ok").expect("frame").index, 0);
        assert!(matches!(
            decoder.seek_to_secs(f64::NAN),
            Err(VideoDecodeError::InvalidSeekTime(_))
        ));
        assert!(matches!(
            decoder.seek_to_frame(48),
            Err(VideoDecodeError::FrameOutOfRange {
                index: 48,
                frame_count: 48
            })
        ));
    }

    #[test]
    fn unsupported_codecs_give_typed_error() {
        for bytes in [HEVC, MPEG4_PART2] {
            let result = VideoDecoder::from_bytes(bytes.to_vec());
            assert!(
                matches!(result, Err(VideoDecodeError::UnsupportedCodec { .. })),
                "{result:?}"
            );
        }
    }

    #[test]
    fn avc3_entry_decodes() {
        let bytes = super::super::test_fixtures::as_avc3(BASELINE);
        assert_display_order(&decode_all(&bytes), 48);
    }

    #[test]
    fn garbage_is_an_error() {
        let mut rng = XorShift::new(7);
        let noise: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
        for bytes in [Vec::new(), b"ftyp".to_vec(), noise, BASELINE[..64].to_vec()] {
            assert!(VideoDecoder::from_bytes(bytes).is_err());
        }
    }

    /// Opens and decodes a mutant: any result is fine, a panic or hang is not.
    fn exercise(bytes: Vec<u8>) -> u32 {
        let Ok(mut decoder) = VideoDecoder::from_bytes(bytes) else {
            return 0;
        };
        let mut frames = 0;
        let mut errors = 0;
        loop {
            match decoder.next_frame() {
                Ok(Some(frame)) => {
                    assert_eq!(
                        frame.rgba.len(),
                        frame.width as usize * frame.height as usize * 4
                    );
                    frames += 1;
                }
                Ok(None) => break,
                Err(_) => {
                    errors += 1;
                    assert!(errors <= 2 * 48, "errors must consume samples");
                }
            }
        }
        let last = decoder.info().frame_count.saturating_sub(1);
        if decoder.seek_to_frame(last / 2).is_ok() {
            let _ = decoder.next_frame();
        }
        frames
    }

    #[test]
    fn mutated_files_never_panic_or_hang() {
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let worker = std::thread::spawn(move || {
            let mut rng = XorShift::new(0xf00d);
            let mut decoded_frames = 0u32;
            for round in 0..400 {
                let source = if round % 2 == 0 { BASELINE } else { BFRAMES };
                let mut bytes = source.to_vec();
                // Aim half of the mutations at the box tree in front of `mdat`.
                let moov_end = source
                    .windows(4)
                    .position(|w| w == b"mdat")
                    .unwrap_or(source.len());
                let span = if round % 4 < 2 { moov_end } else { bytes.len() };
                match round % 5 {
                    0 => {
                        let at = rng.below(span);
                        bytes[at] ^= 1 << rng.below(8);
                    }
                    1 => {
                        for _ in 0..1 + rng.below(4) {
                            let at = rng.below(span);
                            bytes[at] = [0x00, 0xff, 0x01, 0x80][rng.below(4)];
                        }
                    }
                    2 => {
                        let at = rng.below(span) & !3;
                        let end = (at + 4).min(bytes.len());
                        bytes[at..end].fill(0);
                    }
                    3 => bytes.truncate(rng.below(bytes.len())),
                    _ => {
                        let at = rng.below(bytes.len());
                        let end = (at + 1 + rng.below(64)).min(bytes.len());
                        for byte in &mut bytes[at..end] {
                            *byte = rng.next() as u8;
                        }
                    }
                }
                decoded_frames += exercise(bytes);
            }
            let _ = done_tx.send(decoded_frames);
        });
        let decoded = done_rx
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("mutation rounds finish (a hang would stop here)");
        worker.join().expect("no panic escaped");
        // Most mutants still play.
        assert!(decoded > 400 * 10, "{decoded}");
    }

    #[test]
    fn opens_from_a_path() {
        let path =
            std::env::temp_dir().join(format!("framewright-decode-{}.mp4", std::process::id()));
        std::fs::write(&path, BFRAMES).expect("temp file written");
        let opened = VideoDecoder::open(&path);
        let _ = std::fs::remove_file(&path);
        let mut decoder = opened.expect("opens");
        decoder.seek_to_frame(30).expect("seek");
        let frame = decoder.next_frame().expect("ok").expect("frame");
        assert_eq!(frame_code(&frame), 30);
    }
}
