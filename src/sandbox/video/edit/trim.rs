//! Trim: a frame-accurate cut, re-encoded without any other change (no watermark added or
//! removed). The first frame is the one on screen at the start time; the last is the last
//! whose presentation time is before the end. The source's Opus sound is cut to match.

use super::super::{RenderedVideo, VideoError};
use super::audio::{self, samples_for_secs};
use super::sink::FrameSink;
use super::source::SourceFrames;

pub(super) fn trim(
    source_mp4: &[u8],
    start_secs: f64,
    end_secs: f64,
) -> Result<RenderedVideo, VideoError> {
    if !start_secs.is_finite() || !end_secs.is_finite() {
        return Err(VideoError::Source(format!(
            "the trim times must be numbers of seconds (got {start_secs} to {end_secs})"
        )));
    }
    let mut source = SourceFrames::open(source_mp4)?;
    let duration_secs = source.duration_secs;
    let start_secs = start_secs.max(0.0);
    if start_secs >= duration_secs {
        return Err(VideoError::Source(format!(
            "the trim starts at {start_secs:.3} s, at or after the end of the {duration_secs:.3}-s video"
        )));
    }
    let end_secs = end_secs.min(duration_secs);
    if end_secs <= start_secs {
        return Err(VideoError::Source(format!(
            "the trim ends at {end_secs:.3} s, not after its start at {start_secs:.3} s"
        )));
    }
    let first = source.frame_at_secs(start_secs);
    // Frames whose presentation time is before the end (at least the first).
    let mut last_exclusive = first + 1;
    while last_exclusive < source.frame_count && source.pts_secs(last_exclusive) < end_secs {
        last_exclusive += 1;
    }
    let first_pts_secs = source.pts_secs(first);
    source.seek_to_frame(first)?;
    let mut sink = FrameSink::new(source.width, source.height, source.fps, false)?;
    for _ in first..last_exclusive {
        let Some(mut frame) = source.next_i420()? else {
            break;
        };
        sink.push(&mut frame)?;
    }
    let pcm = audio::decode_source_audio(source_mp4)?.map(|pcm| {
        let from = samples_for_secs(first_pts_secs).min(pcm.len());
        pcm[from..].to_vec()
    });
    sink.finish(pcm)
}
