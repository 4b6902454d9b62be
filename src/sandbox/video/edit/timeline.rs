//! Edits in time: extend (new frames continuing the first or last frame with a slow push-in
//! and drift) and retake (a span re-rendered from its first frame, its sound, or both).
//! Only the frame the new footage grows from is kept in memory.

use crate::sandbox::ids::SplitMix;

use super::super::compose::{ChromaGrade, View, resample};
use super::super::yuv::I420;
use super::super::{RenderedVideo, RetakeMode, VideoError};
use super::audio::samples_for_secs;
use super::sink::FrameSink;
use super::source::CleanSource;
use super::synth;

/// A camera move from a still frame: zoom and drift grow with `progress` (0..=1).
struct Drift {
    zoom_per_progress: f32,
    /// Drift of the view centre at progress 1, as fractions of the width and height.
    dx: f32,
    dy: f32,
    /// Hue rotation at progress 1, in degrees, and a fixed part.
    hue_deg: f32,
    hue_offset_deg: f32,
    zoom_offset: f32,
}

impl Drift {
    fn frame(&self, anchor: &I420, progress: f32) -> I420 {
        let (w, h) = (anchor.width as f32, anchor.height as f32);
        let view = View {
            center_x: w * (0.5 + self.dx * progress),
            center_y: h * (0.5 + self.dy * progress),
            zoom: 1.0 + self.zoom_offset + self.zoom_per_progress * progress,
        };
        let grade = ChromaGrade::new(self.hue_offset_deg + self.hue_deg * progress, 0.0, 0.0);
        let mut out = I420::new(anchor.width, anchor.height);
        resample(anchor, view, grade, &mut out);
        out
    }
}

/// `seconds` of new footage before the first or after the last frame; the source's sound
/// (if any) keeps its place, silence under the new part.
pub(super) fn extend(
    mut source: CleanSource,
    seconds: f64,
    at_start: bool,
    rng: &mut SplitMix,
    watermark: bool,
    audio: Option<Vec<f32>>,
) -> Result<RenderedVideo, VideoError> {
    let fps = source.frames.fps;
    let new_frames = ((seconds.max(0.0) * f64::from(fps)).round() as u32).max(1);
    let sign = |rng: &mut SplitMix| {
        if rng.next_u64().is_multiple_of(2) {
            1.0
        } else {
            -1.0
        }
    };
    let drift = Drift {
        zoom_per_progress: 0.15,
        dx: sign(rng) * rng.range_f32(0.03, 0.06),
        dy: sign(rng) * rng.range_f32(0.01, 0.03),
        hue_deg: sign(rng) * rng.range_f32(6.0, 12.0),
        hue_offset_deg: 0.0,
        zoom_offset: 0.0,
    };
    let (w, h) = (source.frames.width, source.frames.height);
    let mut sink = FrameSink::new(w, h, fps, watermark)?;
    let Some(first) = source.next()? else {
        return Err(VideoError::Source("the video has no frames".into()));
    };
    if at_start {
        // Moving towards the first frame: furthest first, nearly there last.
        for k in 0..new_frames {
            let progress = (new_frames - k) as f32 / new_frames as f32;
            sink.push(&mut drift.frame(&first, progress))?;
        }
    }
    // Each frame is pushed once the next is known, so the last one stays clean (the sink
    // draws the watermark in place) to grow the extension from.
    let mut current = first;
    while let Some(next) = source.next()? {
        let mut done = std::mem::replace(&mut current, next);
        sink.push(&mut done)?;
    }
    let last = current.clone();
    sink.push(&mut current)?;
    if !at_start {
        for k in 0..new_frames {
            let progress = (k + 1) as f32 / new_frames as f32;
            sink.push(&mut drift.frame(&last, progress))?;
        }
    }
    let audio = audio.map(|pcm| {
        if at_start {
            let mut shifted = vec![0.0; samples_for_secs(f64::from(new_frames) / f64::from(fps))];
            shifted.extend_from_slice(&pcm);
            shifted
        } else {
            pcm
        }
    });
    sink.finish(audio)
}

/// The span's frames (ReplaceVideo and ReplaceAudioAndVideo) re-rendered from its first
/// frame with their own zoom, drift and hue; its sound (ReplaceAudio and
/// ReplaceAudioAndVideo) replaced by a chord with noise accents. Everything outside the
/// span is the source's (sound: the source's or silence).
pub(super) fn retake(
    mut source: CleanSource,
    (start_secs, duration_secs): (f64, f64),
    mode: RetakeMode,
    prompt_seed: u64,
    watermark: bool,
    audio: Option<Vec<f32>>,
) -> Result<RenderedVideo, VideoError> {
    let fps = source.frames.fps;
    let frame_count = source.frames.frame_count;
    let span_start = ((start_secs.max(0.0) * f64::from(fps)).round() as u32).min(frame_count);
    let span_end = (((start_secs + duration_secs).max(0.0) * f64::from(fps)).round() as u32)
        .clamp(span_start, frame_count);
    let new_video = matches!(
        mode,
        RetakeMode::ReplaceVideo | RetakeMode::ReplaceAudioAndVideo
    );
    let new_audio = matches!(
        mode,
        RetakeMode::ReplaceAudio | RetakeMode::ReplaceAudioAndVideo
    );
    let mut rng = SplitMix::new(prompt_seed);
    let sign = if rng.next_u64().is_multiple_of(2) {
        1.0
    } else {
        -1.0
    };
    let drift = Drift {
        zoom_per_progress: 0.1,
        dx: sign * rng.range_f32(0.04, 0.08),
        dy: -sign * rng.range_f32(0.02, 0.05),
        hue_deg: sign * 20.0,
        hue_offset_deg: sign * rng.range_f32(25.0, 45.0),
        zoom_offset: 0.08,
    };
    let (w, h) = (source.frames.width, source.frames.height);
    let mut sink = FrameSink::new(w, h, fps, watermark)?;
    let span_len = (span_end - span_start).max(1) as f32;
    let mut anchor: Option<I420> = None;
    let mut index = 0u32;
    while let Some(mut frame) = source.next()? {
        if new_video && (span_start..span_end).contains(&index) {
            let anchor = anchor.get_or_insert(frame);
            let progress = (index - span_start) as f32 / span_len;
            sink.push(&mut drift.frame(anchor, progress))?;
        } else {
            sink.push(&mut frame)?;
        }
        index += 1;
    }
    let audio = if new_audio {
        let total = samples_for_secs(sink.duration_secs());
        let mut pcm = audio.unwrap_or_default();
        pcm.resize(total, 0.0);
        let from = samples_for_secs(f64::from(span_start) / f64::from(fps)).min(total);
        let to = samples_for_secs(f64::from(span_end) / f64::from(fps)).clamp(from, total);
        let mut layer = synth::chord(prompt_seed, to - from);
        synth::add_into(
            &mut layer,
            &synth::noise_bursts(prompt_seed ^ 0x5eed, to - from),
        );
        synth::limit_peak(&mut layer, 0.6);
        pcm[from..to].copy_from_slice(&layer);
        Some(pcm)
    } else {
        audio
    };
    sink.finish(audio)
}
