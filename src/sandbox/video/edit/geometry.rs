//! Edits that change the frame's geometry or rate: upscale (resample, optional frame
//! interpolation by blending) and reframe (contain-fit, placed by the grid position, on a
//! blurred and darkened copy of the picture).

use super::super::compose::{ChromaGrade, ONE, View, crossfade_window, resample};
use super::super::yuv::I420;
use super::super::{GridPosition, RenderedVideo, VideoError};
use super::sink::FrameSink;
use super::source::CleanSource;

/// No hue change: resampling only.
fn neutral() -> ChromaGrade {
    ChromaGrade::new(0.0, 0.0, 0.0)
}

/// `src` scaled to `width` x `height`, covering it (a different aspect ratio crops the
/// excess equally on both sides; the tiers keep the source's ratio, so normally none).
pub(super) fn scale_cover(src: &I420, width: usize, height: usize) -> I420 {
    let zoom = (width as f32 / src.width as f32).max(height as f32 / src.height as f32);
    let view = View {
        center_x: src.width as f32 / 2.0,
        center_y: src.height as f32 / 2.0,
        zoom,
    };
    let mut out = I420::new(width, height);
    resample(src, view, neutral(), &mut out);
    out
}

/// Resampled to the tier's size; with `target_fps` (different from the source's), each
/// output frame blends the two source frames around its time.
pub(super) fn upscale(
    mut source: CleanSource,
    (width, height): (u32, u32),
    target_fps: Option<u32>,
    watermark: bool,
    audio: Option<Vec<f32>>,
) -> Result<RenderedVideo, VideoError> {
    let src_fps = source.frames.fps;
    let out_fps = target_fps.unwrap_or(src_fps);
    let (w, h) = (width as usize, height as usize);
    let mut sink = FrameSink::new(width, height, out_fps, watermark)?;
    if out_fps == src_fps {
        while let Some(frame) = source.next()? {
            sink.push(&mut scale_cover(&frame, w, h))?;
        }
        return sink.finish(audio);
    }
    // Same duration at the new rate.
    let out_count = ((f64::from(source.frames.frame_count) * f64::from(out_fps)
        / f64::from(src_fps))
    .round() as u64)
        .max(1);
    let Some(first) = source.next()? else {
        return Err(VideoError::Source("the video has no frames".into()));
    };
    // The two source frames around the output time: `a` is frame `a_index`, `b` the next
    // (or `a` again at the end).
    let mut a = scale_cover(&first, w, h);
    let mut a_index = 0u64;
    let mut b = match source.next()? {
        Some(next) => scale_cover(&next, w, h),
        None => a.clone(),
    };
    let mut out = I420::new(w, h);
    for j in 0..out_count {
        let position = j as f64 * f64::from(src_fps) / f64::from(out_fps);
        let wanted = position.floor() as u64;
        while a_index < wanted {
            a = std::mem::replace(&mut b, I420::new(0, 0));
            b = match source.next()? {
                Some(next) => scale_cover(&next, w, h),
                None => a.clone(),
            };
            a_index += 1;
        }
        let weight = ((position - position.floor()) * f64::from(ONE)).round() as u32;
        crossfade_window(&a, &b, 0, 0, weight, &mut out);
        sink.push(&mut out)?;
    }
    sink.finish(audio)
}

/// Where a `len`-long picture starts on a `space`-long axis: 0 = start, 1 = end, `None` =
/// centred; even, for 4:2:0.
fn place(space: usize, len: usize, at: Option<f32>) -> usize {
    let slack = space.saturating_sub(len) as f32;
    let fraction = at.filter(|v| v.is_finite()).unwrap_or(0.5).clamp(0.0, 1.0);
    ((slack * fraction).round() as usize) & !1
}

/// Copies `patch` into `frame` with its top-left corner at (`left`, `top`), both even and
/// the patch inside the frame.
fn paste(frame: &mut I420, patch: &I420, left: usize, top: usize) {
    let (pw, ph) = (
        patch.width.min(frame.width - left),
        patch.height.min(frame.height - top),
    );
    for row in 0..ph {
        let dst = (top + row) * frame.width + left;
        frame.y[dst..dst + pw].copy_from_slice(&patch.y[row * patch.width..][..pw]);
    }
    let (fcw, pcw) = (frame.chroma_width(), patch.chroma_width());
    for row in 0..ph / 2 {
        let dst = (top / 2 + row) * fcw + left / 2;
        frame.u[dst..dst + pw / 2].copy_from_slice(&patch.u[row * pcw..][..pw / 2]);
        frame.v[dst..dst + pw / 2].copy_from_slice(&patch.v[row * pcw..][..pw / 2]);
    }
}

/// The padding behind a reframed picture: the picture itself blown up to cover the frame,
/// blurred (down to 1/16 and back up) and darkened, like a soft outpainting.
fn backdrop(src: &I420, width: usize, height: usize) -> I420 {
    let tiny = scale_cover(src, (width / 16).max(2) & !1, (height / 16).max(2) & !1);
    let mut out = scale_cover(&tiny, width, height);
    for p in out.y.iter_mut() {
        *p = (16 + (i32::from(*p) - 16) * 11 / 20) as u8;
    }
    for p in out.u.iter_mut().chain(out.v.iter_mut()) {
        *p = (128 + (i32::from(*p) - 128) * 3 / 4) as u8;
    }
    out
}

/// The whole picture fitted inside `width` x `height` (never cropped), placed by `grid`
/// along the axis with room to spare, on [`backdrop`].
pub(super) fn reframe(
    mut source: CleanSource,
    (width, height): (u32, u32),
    grid: GridPosition,
    watermark: bool,
    audio: Option<Vec<f32>>,
) -> Result<RenderedVideo, VideoError> {
    let (w, h) = (width as usize, height as usize);
    let (sw, sh) = (source.frames.width as usize, source.frames.height as usize);
    let zoom = (w as f32 / sw as f32).min(h as f32 / sh as f32);
    let fit_w = (((sw as f32 * zoom).round() as usize) & !1).clamp(2, w);
    let fit_h = (((sh as f32 * zoom).round() as usize) & !1).clamp(2, h);
    let (left, top) = (place(w, fit_w, grid.x), place(h, fit_h, grid.y));
    let mut sink = FrameSink::new(width, height, source.frames.fps, watermark)?;
    while let Some(frame) = source.next()? {
        let mut out = backdrop(&frame, w, h);
        paste(&mut out, &scale_cover(&frame, fit_w, fit_h), left, top);
        sink.push(&mut out)?;
    }
    sink.finish(audio)
}
