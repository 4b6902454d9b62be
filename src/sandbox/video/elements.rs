//! Elements: the reference pictures one after another, each with a slow push-in and pan
//! (alternating directions), cross-dissolving into the next; reference videos play their
//! own frames (cover-fitted, looped if short) in their turn; the reference sound, if any, is
//! the sound track. With sound alone, a soft two-colour backdrop seeded by the prompt stands
//! in for the picture.

use image::{DynamicImage, Rgb, RgbImage};

use super::compose::{ChromaGrade, ONE, View, crossfade_window, resample};
use super::edit::sink::FrameSink;
use super::edit::source::CleanSource;
use super::first_last::{cover, plan};
use super::yuv::I420;
use super::{ElementsInputs, MotionSpec, RenderedVideo, VideoError};
use crate::sandbox::ids::{SplitMix, fnv1a};
use crate::sandbox::render::smoothstep;

/// Zoom gained over one picture's turn.
const PUSH_IN: f32 = 0.1;
/// Sideways travel over one turn, as a fraction of the frame width.
const PAN: f32 = 0.035;
/// Length of the dissolve into the next segment.
const DISSOLVE_SECS: f64 = 0.5;

enum Segment {
    Still(I420),
    Clip {
        mp4: Vec<u8>,
        source: Option<CleanSource>,
        /// Frame 0, cover-fitted (what the previous segment dissolves into).
        first: I420,
    },
}

/// Cover-fit of a frame of any size into `out` (centred).
fn fit_frame(frame: &I420, out: &mut I420) {
    let scale =
        (frame.width as f32 / out.width as f32).min(frame.height as f32 / out.height as f32);
    let view = View {
        center_x: frame.width as f32 / 2.0,
        center_y: frame.height as f32 / 2.0,
        zoom: 1.0 / scale.max(1e-3),
    };
    resample(frame, view, ChromaGrade::new(0.0, 0.0, 0.0), out);
}

impl Segment {
    fn clip(mp4: &[u8], w: usize, h: usize) -> Result<Self, VideoError> {
        let mut source = CleanSource::open(mp4)?;
        let mut first = I420::new(w, h);
        match source.next()? {
            Some(frame) => fit_frame(&frame, &mut first),
            None => return Err(VideoError::Source("a reference video has no frames".into())),
        }
        Ok(Segment::Clip {
            mp4: mp4.to_vec(),
            source: Some(CleanSource::open(mp4)?),
            first,
        })
    }

    /// The segment's picture at `t` (0..1 of its turn) into `out`; `flip` sets the pan's way.
    fn draw(&mut self, t: f32, flip: bool, out: &mut I420) -> Result<(), VideoError> {
        match self {
            Segment::Still(base) => {
                let (wf, hf) = (base.width as f32, base.height as f32);
                let sign = if flip { -1.0 } else { 1.0 };
                let view = View {
                    center_x: wf / 2.0 + sign * PAN * wf * t,
                    center_y: hf / 2.0,
                    zoom: 1.0 + PUSH_IN * t,
                };
                resample(base, view, ChromaGrade::new(0.0, 0.0, 0.0), out);
            }
            Segment::Clip { mp4, source, first } => {
                let mut frame = match source.as_mut() {
                    Some(source) => source.next()?,
                    None => None,
                };
                if frame.is_none() {
                    // Short clip: loop it.
                    let mut again = CleanSource::open(mp4)?;
                    frame = again.next()?;
                    *source = Some(again);
                }
                match frame {
                    Some(frame) => fit_frame(&frame, out),
                    None => fit_frame(first, out),
                }
            }
        }
        Ok(())
    }

    fn first_frame(&self, out: &mut I420) {
        match self {
            Segment::Still(base) => {
                let view = View {
                    center_x: base.width as f32 / 2.0,
                    center_y: base.height as f32 / 2.0,
                    zoom: 1.0,
                };
                resample(base, view, ChromaGrade::new(0.0, 0.0, 0.0), out);
            }
            Segment::Clip { first, .. } => {
                out.y.copy_from_slice(&first.y);
                out.u.copy_from_slice(&first.u);
                out.v.copy_from_slice(&first.v);
            }
        }
    }
}

/// A soft diagonal blend of two colours drawn from the prompt (sound-only references).
fn backdrop(prompt: &str, seed: i64, width: u32, height: u32) -> Result<I420, VideoError> {
    let mut key = prompt.as_bytes().to_vec();
    key.extend_from_slice(&seed.to_le_bytes());
    let mut rng = SplitMix::new(fnv1a(&key));
    let mut colour = || {
        [
            rng.range_f32(40.0, 220.0),
            rng.range_f32(40.0, 220.0),
            rng.range_f32(40.0, 220.0),
        ]
    };
    let (a, b) = (colour(), colour());
    // Painted small and scaled up inside `image` (fast in debug builds).
    let (sw, sh) = (64u32, 36u32);
    let small = RgbImage::from_fn(sw, sh, |x, y| {
        let t = (x as f32 / sw as f32 + y as f32 / sh as f32) / 2.0;
        Rgb([0, 1, 2].map(|i| (a[i] + (b[i] - a[i]) * t) as u8))
    });
    cover(&DynamicImage::ImageRgb8(small), width, height)
}

pub(crate) fn render_elements(
    inputs: &ElementsInputs<'_>,
    spec: &MotionSpec,
) -> Result<RenderedVideo, VideoError> {
    let (width, height, frames) = plan(spec)?;
    let (w, h) = (width as usize, height as usize);
    let mut segments = Vec::with_capacity(inputs.images.len() + inputs.videos.len());
    for image in inputs.images {
        segments.push(Segment::Still(cover(image, width, height)?));
    }
    for mp4 in inputs.videos {
        segments.push(Segment::clip(mp4, w, h)?);
    }
    if segments.is_empty() {
        segments.push(Segment::Still(backdrop(
            inputs.prompt,
            spec.seed,
            width,
            height,
        )?));
    }
    let count = segments.len() as u32;
    // Every segment gets an equal turn (the last takes the remainder).
    let turn = (frames / count).max(1);
    let dissolve = ((DISSOLVE_SECS * f64::from(spec.fps)).round() as u32).min(turn / 2);
    let mut sink = FrameSink::new(width, height, spec.fps, spec.watermark)?;
    let (mut current, mut next, mut out) = (I420::new(w, h), I420::new(w, h), I420::new(w, h));
    for index in 0..frames {
        let k = (index / turn).min(count - 1);
        let start = k * turn;
        let length = if k == count - 1 { frames - start } else { turn };
        let local = index - start;
        let t = if length > 1 {
            local as f32 / (length - 1) as f32
        } else {
            0.0
        };
        segments[k as usize].draw(t, k % 2 == 1, &mut current)?;
        let left = length - local;
        let weight = if k + 1 < count && dissolve > 0 && left <= dissolve {
            let progress = 1.0 - (left - 1) as f32 / dissolve as f32;
            segments[k as usize + 1].first_frame(&mut next);
            ((smoothstep(0.0, 1.0, progress) * ONE as f32).round() as u32).min(ONE)
        } else {
            0
        };
        crossfade_window(&current, &next, 0, 0, weight, &mut out);
        sink.push(&mut out)?;
    }
    sink.finish(inputs.audio.map(<[f32]>::to_vec))
}
