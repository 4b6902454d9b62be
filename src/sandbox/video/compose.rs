//! Per-frame operations on I420 frames: windowed cross-fade, zoom resampling with a chroma
//! grade, and alpha sprites (soft shapes, lights, the watermark).
//!
//! These run for every frame, and the main crate's debug builds compile our code without
//! optimisation, so they are plain integer loops over slices with per-row setup hoisted and
//! no per-pixel floating point or iterator chains.

use super::yuv::{I420, Yuv};

/// Fixed-point weights are 0..=256.
pub(super) const ONE: u32 = 256;

/// `out` = the `out`-sized window of `a` and `b` at (`left`, `top`), mixed `weight`/256 of `b`.
/// The window must lie inside both canvases, which must be the same size.
pub(super) fn crossfade_window(
    a: &I420,
    b: &I420,
    left: usize,
    top: usize,
    weight: u32,
    out: &mut I420,
) {
    let weight = weight.min(ONE);
    mix_plane(
        &a.y, &b.y, a.width, left, top, weight, &mut out.y, out.width, out.height,
    );
    let (cw, ch) = (out.chroma_width(), out.chroma_height());
    let (cl, ct) = (left / 2, top / 2);
    let stride = a.chroma_width();
    mix_plane(&a.u, &b.u, stride, cl, ct, weight, &mut out.u, cw, ch);
    mix_plane(&a.v, &b.v, stride, cl, ct, weight, &mut out.v, cw, ch);
}

#[allow(clippy::too_many_arguments)]
fn mix_plane(
    a: &[u8],
    b: &[u8],
    stride: usize,
    left: usize,
    top: usize,
    weight: u32,
    out: &mut [u8],
    width: usize,
    height: usize,
) {
    let keep = ONE - weight;
    for row in 0..height {
        let start = (top + row) * stride + left;
        let a_row = &a[start..start + width];
        let b_row = &b[start..start + width];
        let o_row = &mut out[row * width..(row + 1) * width];
        if weight == 0 {
            o_row.copy_from_slice(a_row);
        } else if weight == ONE {
            o_row.copy_from_slice(b_row);
        } else {
            let mut x = 0;
            while x < width {
                o_row[x] =
                    ((u32::from(a_row[x]) * keep + u32::from(b_row[x]) * weight + 128) >> 8) as u8;
                x += 1;
            }
        }
    }
}

/// What part of a source a zoomed frame shows: centre in source luma pixels, zoom >= 1.
#[derive(Clone, Copy, Debug)]
pub(super) struct View {
    pub center_x: f32,
    pub center_y: f32,
    pub zoom: f32,
}

/// A chroma rotation (hue shift) and offset (tint), applied while resampling.
#[derive(Clone, Copy, Debug)]
pub(super) struct ChromaGrade {
    /// cos and sin of the rotation in Q12.
    cos: i32,
    sin: i32,
    shift_u: i32,
    shift_v: i32,
}

impl ChromaGrade {
    pub(super) fn new(rotation_deg: f32, shift_u: f32, shift_v: f32) -> Self {
        let (sin, cos) = rotation_deg.to_radians().sin_cos();
        Self {
            cos: (cos * 4096.0).round() as i32,
            sin: (sin * 4096.0).round() as i32,
            shift_u: shift_u.round() as i32,
            shift_v: shift_v.round() as i32,
        }
    }
}

/// Column lookup for bilinear sampling: left index, right index, right weight (0..=256).
fn sample_positions(
    out_len: usize,
    src_len: usize,
    center: f32,
    scale: f32,
) -> Vec<(usize, usize, u32)> {
    let max = (src_len - 1) as f32;
    let half = out_len as f32 / 2.0;
    (0..out_len)
        .map(|i| {
            let s = (center + (i as f32 + 0.5 - half) * scale - 0.5).clamp(0.0, max);
            let i0 = s.floor();
            let frac = ((s - i0) * 256.0).round() as u32;
            let i0 = i0 as usize;
            (i0, (i0 + 1).min(src_len - 1), frac.min(ONE))
        })
        .collect()
}

/// Bilinear zoom of `src` into `out` (same or different size) with a chroma grade.
/// At zoom 1, centred, with a neutral grade this is an exact copy.
pub(super) fn resample(src: &I420, view: View, grade: ChromaGrade, out: &mut I420) {
    let scale = 1.0 / view.zoom.max(1e-3);
    let (w, h) = (out.width, out.height);
    let cols = sample_positions(w, src.width, view.center_x, scale);
    let rows = sample_positions(h, src.height, view.center_y, scale);
    for (row, &(r0, r1, fy)) in rows.iter().enumerate() {
        let top = &src.y[r0 * src.width..][..src.width];
        let bottom = &src.y[r1 * src.width..][..src.width];
        let o_row = &mut out.y[row * w..][..w];
        let mut x = 0;
        while x < w {
            o_row[x] = bilinear(top, bottom, cols[x], fy);
            x += 1;
        }
    }

    let (cw, ch) = (out.chroma_width(), out.chroma_height());
    let scw = src.chroma_width();
    let cols = sample_positions(cw, scw, view.center_x / 2.0, scale);
    let rows = sample_positions(ch, src.chroma_height(), view.center_y / 2.0, scale);
    for (row, &(r0, r1, fy)) in rows.iter().enumerate() {
        let u_top = &src.u[r0 * scw..][..scw];
        let u_bottom = &src.u[r1 * scw..][..scw];
        let v_top = &src.v[r0 * scw..][..scw];
        let v_bottom = &src.v[r1 * scw..][..scw];
        let start = row * cw;
        let mut x = 0;
        while x < cw {
            let u = i32::from(bilinear(u_top, u_bottom, cols[x], fy)) - 128;
            let v = i32::from(bilinear(v_top, v_bottom, cols[x], fy)) - 128;
            let ru = ((u * grade.cos - v * grade.sin) >> 12) + grade.shift_u;
            let rv = ((u * grade.sin + v * grade.cos) >> 12) + grade.shift_v;
            out.u[start + x] = (ru + 128).clamp(16, 240) as u8;
            out.v[start + x] = (rv + 128).clamp(16, 240) as u8;
            x += 1;
        }
    }
}

fn bilinear(top: &[u8], bottom: &[u8], (c0, c1, fx): (usize, usize, u32), fy: u32) -> u8 {
    let t = u32::from(top[c0]) * (ONE - fx) + u32::from(top[c1]) * fx;
    let b = u32::from(bottom[c0]) * (ONE - fx) + u32::from(bottom[c1]) * fx;
    ((t * (ONE - fy) + b * fy + 32768) >> 16) as u8
}

/// An alpha mask (0..=255) for the luma plane and its half-size twin for chroma.
pub(super) struct Sprite {
    pub width: usize,
    pub height: usize,
    alpha: Vec<u8>,
    half_width: usize,
    half_height: usize,
    half: Vec<u8>,
}

impl Sprite {
    /// From a full-size mask; the chroma mask is its 2x2 average.
    pub(super) fn from_alpha(width: usize, height: usize, alpha: Vec<u8>) -> Self {
        if width == 0 || height == 0 || alpha.len() != width * height {
            return Self {
                width: 0,
                height: 0,
                alpha: Vec::new(),
                half_width: 0,
                half_height: 0,
                half: Vec::new(),
            };
        }
        let (hw, hh) = (width.div_ceil(2), height.div_ceil(2));
        let mut half = vec![0u8; hw * hh];
        for row in 0..hh {
            for col in 0..hw {
                let mut sum = 0u32;
                for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                    let (y, x) = (
                        (row * 2 + dy).min(height - 1),
                        (col * 2 + dx).min(width - 1),
                    );
                    sum += u32::from(alpha[y * width + x]);
                }
                half[row * hw + col] = (sum / 4) as u8;
            }
        }
        Self {
            width,
            height,
            alpha,
            half_width: hw,
            half_height: hh,
            half,
        }
    }

    /// The full-size mask, row-major (`width * height`).
    pub(super) fn alpha(&self) -> &[u8] {
        &self.alpha
    }

    /// A round mask of the given radius; `profile(d)` maps distance / radius to 0..=1.
    pub(super) fn radial(radius: f32, profile: impl Fn(f32) -> f32) -> Self {
        // Even size so the chroma twin lines up with 2x2 blocks.
        let size = ((radius * 2.0).ceil() as usize + 2).next_multiple_of(2);
        let centre = size as f32 / 2.0;
        let inv = 1.0 / radius.max(0.5);
        let mut alpha = vec![0u8; size * size];
        for y in 0..size {
            let dy = (y as f32 + 0.5 - centre) * inv;
            for x in 0..size {
                let dx = (x as f32 + 0.5 - centre) * inv;
                let d = (dx * dx + dy * dy).sqrt();
                if d < 1.0 {
                    alpha[y * size + x] = (profile(d).clamp(0.0, 1.0) * 255.0).round() as u8;
                }
            }
        }
        Self::from_alpha(size, size, alpha)
    }
}

/// The part of a `len`-long sprite axis at `start` that falls inside 0..`limit`, as
/// (first sprite index, first frame index, count).
fn clip_span(start: i64, len: usize, limit: usize) -> Option<(usize, usize, usize)> {
    let from = start.max(0);
    let to = (start + len as i64).min(limit as i64);
    (to > from).then(|| ((from - start) as usize, from as usize, (to - from) as usize))
}

/// A clipped (first sprite index, first frame index, count) per axis: x then y.
type Span2 = ((usize, usize, usize), (usize, usize, usize));

/// Where a sprite whose top-left luma corner is (`left`, `top`) lands, per plane.
struct Placement {
    luma: Option<Span2>,
    chroma: Option<Span2>,
}

fn place(frame: &I420, sprite: &Sprite, left: i64, top: i64) -> Placement {
    let luma =
        clip_span(left, sprite.width, frame.width).zip(clip_span(top, sprite.height, frame.height));
    let chroma = clip_span(left.div_euclid(2), sprite.half_width, frame.chroma_width()).zip(
        clip_span(top.div_euclid(2), sprite.half_height, frame.chroma_height()),
    );
    Placement { luma, chroma }
}

/// Paints `colour` through the sprite at `opacity` (0..=256), top-left corner at (`left`, `top`).
pub(super) fn blend_sprite(
    frame: &mut I420,
    sprite: &Sprite,
    left: i64,
    top: i64,
    colour: Yuv,
    opacity: u32,
) {
    let opacity = opacity.min(ONE);
    if opacity == 0 {
        return;
    }
    let placement = place(frame, sprite, left, top);
    if let Some(((sx, fx, n), (sy, fy, rows))) = placement.luma {
        let target = i32::from(colour.y);
        for r in 0..rows {
            let mask = &sprite.alpha[(sy + r) * sprite.width + sx..][..n];
            let line = &mut frame.y[(fy + r) * frame.width + fx..][..n];
            blend_line(line, mask, target, opacity);
        }
    }
    if let Some(((sx, fx, n), (sy, fy, rows))) = placement.chroma {
        let cw = frame.chroma_width();
        for r in 0..rows {
            let mask = &sprite.half[(sy + r) * sprite.half_width + sx..][..n];
            let start = (fy + r) * cw + fx;
            blend_line(
                &mut frame.u[start..start + n],
                mask,
                i32::from(colour.u),
                opacity,
            );
            blend_line(
                &mut frame.v[start..start + n],
                mask,
                i32::from(colour.v),
                opacity,
            );
        }
    }
}

fn blend_line(line: &mut [u8], mask: &[u8], target: i32, opacity: u32) {
    let mut i = 0;
    while i < line.len() {
        let m = u32::from(mask[i]);
        if m != 0 {
            let a = ((m * opacity) >> 8) as i32;
            let p = i32::from(line[i]);
            line[i] = (p + (((target - p) * a) >> 8)) as u8;
        }
        i += 1;
    }
}

/// Adds light through the sprite: `gain` luma levels at full alpha, chroma nudged by `tint`.
pub(super) fn add_light(
    frame: &mut I420,
    sprite: &Sprite,
    left: i64,
    top: i64,
    gain: i32,
    tint_u: i32,
    tint_v: i32,
) {
    let placement = place(frame, sprite, left, top);
    if let Some(((sx, fx, n), (sy, fy, rows))) = placement.luma {
        for r in 0..rows {
            let mask = &sprite.alpha[(sy + r) * sprite.width + sx..][..n];
            let line = &mut frame.y[(fy + r) * frame.width + fx..][..n];
            add_line(line, mask, gain, 16, 235);
        }
    }
    if let Some(((sx, fx, n), (sy, fy, rows))) = placement.chroma {
        let cw = frame.chroma_width();
        for r in 0..rows {
            let mask = &sprite.half[(sy + r) * sprite.half_width + sx..][..n];
            let start = (fy + r) * cw + fx;
            add_line(&mut frame.u[start..start + n], mask, tint_u, 16, 240);
            add_line(&mut frame.v[start..start + n], mask, tint_v, 16, 240);
        }
    }
}

fn add_line(line: &mut [u8], mask: &[u8], gain: i32, low: i32, high: i32) {
    if gain == 0 {
        return;
    }
    let mut i = 0;
    while i < line.len() {
        let m = i32::from(mask[i]);
        if m != 0 {
            line[i] = (i32::from(line[i]) + ((m * gain) >> 8)).clamp(low, high) as u8;
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(w: usize, h: usize) -> I420 {
        let mut f = I420::new(w, h);
        for (i, p) in f.y.iter_mut().enumerate() {
            *p = (16 + (i * 7) % 200) as u8;
        }
        for (i, p) in f.u.iter_mut().enumerate() {
            *p = (60 + (i * 3) % 120) as u8;
        }
        f
    }

    #[test]
    fn neutral_resample_is_an_exact_copy() {
        let src = ramp(32, 18);
        let mut out = I420::new(32, 18);
        let view = View {
            center_x: 16.0,
            center_y: 9.0,
            zoom: 1.0,
        };
        resample(&src, view, ChromaGrade::new(0.0, 0.0, 0.0), &mut out);
        assert!(src == out);
        let zoomed = View { zoom: 1.3, ..view };
        resample(&src, zoomed, ChromaGrade::new(20.0, 3.0, -3.0), &mut out);
        assert!(src != out);
    }

    #[test]
    fn crossfade_endpoints_are_the_canvases() {
        let a = ramp(40, 20);
        let mut b = ramp(40, 20);
        b.y.iter_mut().for_each(|p| *p = 200);
        let mut out = I420::new(20, 10);
        crossfade_window(&a, &b, 6, 4, 0, &mut out);
        assert_eq!(out.y[0], a.y[4 * 40 + 6]);
        crossfade_window(&a, &b, 6, 4, ONE, &mut out);
        assert!(out.y.iter().all(|&p| p == 200));
    }

    #[test]
    fn sprites_clip_at_every_edge() {
        let mut frame = I420::new(16, 16);
        let sprite = Sprite::radial(6.0, |d| 1.0 - d);
        let white = Yuv {
            y: 235,
            u: 128,
            v: 128,
        };
        for (x, y) in [
            (-10, -10),
            (10, 10),
            (-3, 12),
            (14, -2),
            (100, 100),
            (-100, 0),
        ] {
            blend_sprite(&mut frame, &sprite, x, y, white, ONE);
            add_light(&mut frame, &sprite, x, y, 40, 3, -3);
        }
        assert!(frame.y.iter().any(|&p| p > 16));
    }
}
