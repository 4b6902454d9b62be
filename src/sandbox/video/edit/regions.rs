//! Edits of one region of the frame: face swap and the lipsync mouth (the sandbox's face
//! stand-in is a soft oval in the upper middle), background removal (a centre-weighted
//! subject mask) and inpainting (a mask filled from its surroundings).

use super::super::compose::{Sprite, blend_sprite};
use super::super::palette::hsl;
use super::super::yuv::{I420, Yuv};
use super::super::{BackgroundFill, VideoError};
use super::fill::fill_masked;
use super::geometry::scale_cover;

/// The face stand-in's square: centred horizontally, its centre 34% down, 40% of the
/// height tall. Returned as (left, top, side), even.
pub(super) fn face_square(width: usize, height: usize) -> (usize, usize, usize) {
    let side = (((height as f32 * 0.4) as usize).min(width) & !1).max(2);
    let left = ((width - side) / 2) & !1;
    let top = (((height as f32 * 0.34) as usize).saturating_sub(side / 2)) & !1;
    (left, top, side)
}

/// An oval mask `side` square: opaque inside, fading over its outer quarter.
fn oval_mask(side: usize) -> Vec<u8> {
    let c = side as f32 / 2.0;
    let mut alpha = vec![0u8; side * side];
    for y in 0..side {
        for x in 0..side {
            // Narrower than tall, like a face.
            let dx = (x as f32 + 0.5 - c) / (c * 0.8);
            let dy = (y as f32 + 0.5 - c) / c;
            let d = (dx * dx + dy * dy).sqrt();
            let a = ((1.0 - d) / 0.25).clamp(0.0, 1.0);
            alpha[y * side + x] = (a * 255.0) as u8;
        }
    }
    alpha
}

/// The reference face, blurred and sized to the face square, blended in with its colours
/// pulled halfway to the frame's own there (so lighting follows the shot).
pub(super) struct FaceSwap {
    face: I420,
    mask: Vec<u8>,
    left: usize,
    top: usize,
}

impl FaceSwap {
    pub(super) fn new(
        face_jpeg_or_png: &[u8],
        width: usize,
        height: usize,
    ) -> Result<Self, VideoError> {
        let image =
            crate::image_codec::decode(face_jpeg_or_png, crate::image_codec::DecodeBudget::DEFAULT)
                .map_err(|e| {
                    VideoError::Source(format!("the reference face image could not be read: {e}"))
                })?;
        let (left, top, side) = face_square(width, height);
        let square = image.resize_to_fill(
            side as u32,
            side as u32,
            image::imageops::FilterType::Triangle,
        );
        // A soft copy: the sandbox has no face model, and a blur hides the seams.
        let blurred = square.blur((side as f32 / 48.0).max(0.8)).to_rgb8();
        Ok(Self {
            face: I420::from_rgb(&blurred)?,
            mask: oval_mask(side),
            left,
            top,
        })
    }

    pub(super) fn apply(&self, frame: &mut I420) {
        let side = self.face.width;
        let (left, top) = (self.left, self.top);
        if left + side > frame.width || top + side > frame.height {
            return;
        }
        // Mean of each plane under the mask, in the frame and in the face.
        let mean = |plane: &[u8], stride: usize, x0: usize, y0: usize, n: usize, step: usize| {
            let (mut sum, mut weight) = (0u64, 0u64);
            for y in 0..n {
                for x in 0..n {
                    let m = u64::from(self.mask[(y * step) * side + x * step]);
                    sum += u64::from(plane[(y0 + y) * stride + x0 + x]) * m;
                    weight += m;
                }
            }
            (sum / weight.max(1)) as i32
        };
        let (cw, half) = (frame.chroma_width(), side / 2);
        let shift = [
            (mean(&frame.y, frame.width, left, top, side, 1)
                - mean(&self.face.y, side, 0, 0, side, 1))
                / 2,
            (mean(&frame.u, cw, left / 2, top / 2, half, 2)
                - mean(&self.face.u, half, 0, 0, half, 2))
                / 2,
            (mean(&frame.v, cw, left / 2, top / 2, half, 2)
                - mean(&self.face.v, half, 0, 0, half, 2))
                / 2,
        ];
        let blend = |dst: &mut u8, src: u8, shift: i32, m: u8| {
            let src = (i32::from(src) + shift).clamp(16, 240);
            let m = i32::from(m);
            *dst = ((i32::from(*dst) * (255 - m) + src * m) / 255) as u8;
        };
        for y in 0..side {
            for x in 0..side {
                let m = self.mask[y * side + x];
                let at = (top + y) * frame.width + left + x;
                blend(&mut frame.y[at], self.face.y[y * side + x], shift[0], m);
            }
        }
        for y in 0..half {
            for x in 0..half {
                let m = self.mask[(y * 2) * side + x * 2];
                let at = (top / 2 + y) * cw + left / 2 + x;
                blend(&mut frame.u[at], self.face.u[y * half + x], shift[1], m);
                blend(&mut frame.v[at], self.face.v[y * half + x], shift[2], m);
            }
        }
    }
}

/// Draws the mouth: a dark oval under the face square's centre, `openness` (0..=1) tall.
pub(in crate::sandbox::video) fn draw_mouth(frame: &mut I420, openness: f32) {
    let (left, top, side) = face_square(frame.width, frame.height);
    let mouth_w = ((side as f32 * 0.36) as usize).max(4) & !1;
    let mouth_h = ((2.0 + openness.clamp(0.0, 1.0) * side as f32 * 0.2) as usize).max(2) & !1;
    let (cx, cy) = (left + side / 2, top + side * 7 / 10);
    let mut alpha = vec![0u8; mouth_w * mouth_h];
    let (rx, ry) = (mouth_w as f32 / 2.0, mouth_h as f32 / 2.0);
    for y in 0..mouth_h {
        for x in 0..mouth_w {
            let dx = (x as f32 + 0.5 - rx) / rx;
            let dy = (y as f32 + 0.5 - ry) / ry;
            if dx * dx + dy * dy <= 1.0 {
                alpha[y * mouth_w + x] = 255;
            }
        }
    }
    let sprite = Sprite::from_alpha(mouth_w, mouth_h, alpha);
    let lips = Yuv::from_rgbf([0.35, 0.04, 0.08]);
    blend_sprite(
        frame,
        &sprite,
        (cx - mouth_w / 2) as i64,
        (cy.saturating_sub(mouth_h / 2)) as i64,
        lips,
        230,
    );
}

/// The subject rule, per 2x2 block: inside the inner ellipse (45% of the half-sides) always
/// subject; inside the outer one (90%) subject when its colour differs from the frame
/// border's mean by at least [`SUBJECT_CONTRAST`]; outside, background. Simple and
/// centre-weighted, like most shots' framing.
const SUBJECT_CONTRAST: i32 = 36;

pub(super) fn remove_background(frame: &mut I420, fill: BackgroundFill) {
    let (w, h) = (frame.width, frame.height);
    let (cw, ch) = (frame.chroma_width(), frame.chroma_height());
    // Mean colour of a 2-block-wide border ring, in chroma-block units.
    let (mut sy, mut su, mut sv, mut n) = (0i64, 0i64, 0i64, 0i64);
    for cy in 0..ch {
        for cx in 0..cw {
            if cx >= 2 && cx + 2 < cw && cy >= 2 && cy + 2 < ch {
                continue;
            }
            sy += i64::from(frame.y[cy * 2 * w + cx * 2]);
            su += i64::from(frame.u[cy * cw + cx]);
            sv += i64::from(frame.v[cy * cw + cx]);
            n += 1;
        }
    }
    let n = n.max(1);
    let (by, bu, bv) = ((sy / n) as i32, (su / n) as i32, (sv / n) as i32);
    let flat = match fill {
        BackgroundFill::Flat(rgb) => Some(Yuv::from_rgbf(rgb.map(|c| f32::from(c) / 255.0))),
        BackgroundFill::Checker => None,
    };
    // Checker squares about 1/12 of the height, in chroma blocks.
    let cell = (h / 24).max(4);
    let (half_w, half_h) = ((cw as i64).max(1), (ch as i64).max(1));
    for cy in 0..ch {
        for cx in 0..cw {
            // Squared distance from centre in units of the half-sides, times 10_000.
            let dx = (cx as i64 * 2 + 1 - half_w) * 100 / half_w;
            let dy = (cy as i64 * 2 + 1 - half_h) * 100 / half_h;
            let d2 = dx * dx + dy * dy;
            let i = cy * cw + cx;
            let luma = i32::from(frame.y[cy * 2 * w + cx * 2]);
            let contrast = (luma - by).abs()
                + 2 * (i32::from(frame.u[i]) - bu).abs()
                + 2 * (i32::from(frame.v[i]) - bv).abs();
            let subject = d2 <= 45 * 45 || (d2 <= 90 * 90 && contrast >= SUBJECT_CONTRAST);
            if subject {
                continue;
            }
            let colour = flat.unwrap_or_else(|| {
                let light = ((cx / cell) + (cy / cell)).is_multiple_of(2);
                let y = if light { 200 } else { 140 };
                Yuv { y, u: 128, v: 128 }
            });
            frame.u[i] = colour.u;
            frame.v[i] = colour.v;
            for (oy, ox) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                frame.y[(cy * 2 + oy) * w + cx * 2 + ox] = colour.y;
            }
        }
    }
}

/// Where to inpaint: white in a mask video (scaled to the frame), else a centred ellipse.
pub(super) struct InpaintMask {
    /// Luma-sized mask, reused while the mask video has no new frame.
    mask: Vec<bool>,
    /// Chroma-sized: a block is filled when any of its pixels is.
    chroma_mask: Vec<bool>,
    tint: Yuv,
}

impl InpaintMask {
    /// A centred ellipse a fifth of the width and a quarter of the height across each way.
    pub(super) fn ellipse(width: usize, height: usize, prompt_hue_deg: f32) -> Self {
        let mut mask = vec![false; width * height];
        let (rx, ry) = (width as f32 / 5.0, height as f32 / 4.0);
        let (cx, cy) = (width as f32 / 2.0, height as f32 / 2.0);
        for y in 0..height {
            for x in 0..width {
                let dx = (x as f32 + 0.5 - cx) / rx;
                let dy = (y as f32 + 0.5 - cy) / ry;
                mask[y * width + x] = dx * dx + dy * dy <= 1.0;
            }
        }
        let mut out = Self {
            mask,
            chroma_mask: Vec::new(),
            tint: Yuv::from_rgbf(hsl(prompt_hue_deg, 0.7, 0.55)),
        };
        out.update_chroma(width, height);
        out
    }

    /// Takes a new mask frame (any size): white (luma above mid-grey) is the area to fill.
    pub(super) fn set_from_frame(&mut self, mask_frame: &I420, width: usize, height: usize) {
        let scaled = scale_cover(mask_frame, width, height);
        self.mask = scaled.y.iter().map(|&v| v > 128).collect();
        self.update_chroma(width, height);
    }

    fn update_chroma(&mut self, width: usize, height: usize) {
        let (cw, ch) = (width / 2, height / 2);
        self.chroma_mask = (0..cw * ch)
            .map(|i| {
                let (cx, cy) = (i % cw, i / cw);
                [(0, 0), (0, 1), (1, 0), (1, 1)]
                    .iter()
                    .any(|&(oy, ox)| self.mask[(cy * 2 + oy) * width + cx * 2 + ox])
            })
            .collect();
    }

    /// Fills the masked area smoothly from around it, then tints it a third of the way to
    /// the prompt's colour.
    pub(super) fn apply(&self, frame: &mut I420) {
        let (w, h) = (frame.width, frame.height);
        let (cw, ch) = (frame.chroma_width(), frame.chroma_height());
        if self.mask.len() != w * h {
            return;
        }
        fill_masked(&mut frame.y, w, h, &self.mask);
        fill_masked(&mut frame.u, cw, ch, &self.chroma_mask);
        fill_masked(&mut frame.v, cw, ch, &self.chroma_mask);
        let tint = |p: &mut u8, target: u8| {
            *p = ((i32::from(*p) * 2 + i32::from(target)) / 3) as u8;
        };
        for (p, &m) in frame.y.iter_mut().zip(&self.mask) {
            if m {
                tint(p, self.tint.y);
            }
        }
        for i in 0..cw * ch {
            if self.chroma_mask[i] {
                tint(&mut frame.u[i], self.tint.u);
                tint(&mut frame.v[i], self.tint.v);
            }
        }
    }
}
