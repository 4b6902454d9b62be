//! The still backdrop a procedural video pans across: the image renderer's look (a smooth
//! colour field of gradient, warped value noise and soft discs, computed at reduced size and
//! upscaled by the `image` crate, with flow-field brush strokes on top), painted twice with
//! the same geometry, once in the start colours and once in the end colours.

use image::imageops::FilterType;
use image::{DynamicImage, RgbImage};

use super::VideoError;
use super::palette::{Rgbf, Roles, VideoPalette, mix};
use super::yuv::I420;
use crate::sandbox::ids::SplitMix;
pub(super) use crate::sandbox::render::{fbm, smoothstep};

/// The colour field is computed at 1/FIELD_DIVISOR of the canvas size (it is smooth, and the
/// noise runs in unoptimised code in debug builds), within these bounds on its long side.
const FIELD_DIVISOR: u32 = 4;
const FIELD_MIN_LONG_SIDE: u32 = 48;
const FIELD_MAX_LONG_SIDE: u32 = 360;

fn to_rgb8(c: Rgbf) -> [u8; 3] {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}

struct Disc {
    cx: f32,
    cy: f32,
    radius: f32,
    role: usize,
}

/// Field geometry, drawn from the RNG once and painted in both palettes.
struct FieldPlan {
    width: u32,
    height: u32,
    aspect: f32,
    dir: (f32, f32),
    warp: f32,
    stripes: Option<(f32, f32)>,
    discs: Vec<Disc>,
    /// fbm per field pixel: the expensive part, shared by both paintings.
    noise: Vec<f32>,
}

impl FieldPlan {
    fn new(canvas_w: u32, canvas_h: u32, rng: &mut SplitMix) -> Self {
        let long = canvas_w.max(canvas_h);
        let field_long =
            (long / FIELD_DIVISOR).clamp(FIELD_MIN_LONG_SIDE.min(long), FIELD_MAX_LONG_SIDE);
        let scale = field_long as f32 / long as f32;
        let width = ((canvas_w as f32 * scale).round() as u32).max(2);
        let height = ((canvas_h as f32 * scale).round() as u32).max(2);
        let aspect = canvas_w as f32 / canvas_h as f32;
        let angle = rng.range_f32(0.0, std::f32::consts::TAU);
        let noise_freq = rng.range_f32(1.5, 4.0);
        let warp = rng.range_f32(0.2, 0.6);
        let salt = rng.next_u64();
        let stripe_angle = rng.range_f32(0.0, std::f32::consts::PI);
        // Fewer stripes than the still renderer: the field is coarser and they shimmer in motion.
        let stripe_freq = rng.range_f32(6.0, 16.0);
        let stripes = (rng.next_f64() < 0.5).then_some((stripe_angle, stripe_freq));
        let discs = (0..3 + rng.next_u64() % 5)
            .map(|i| Disc {
                cx: rng.range_f32(0.1, 0.9) * aspect,
                cy: rng.range_f32(0.1, 0.9),
                radius: rng.range_f32(0.06, 0.3),
                role: 1 + (i as usize % 4),
            })
            .collect();
        let mut noise = Vec::with_capacity((width * height) as usize);
        for py in 0..height {
            let v = py as f32 / height as f32;
            for px in 0..width {
                let u = px as f32 / width as f32 * aspect;
                noise.push(fbm(u * noise_freq, v * noise_freq, salt));
            }
        }
        Self {
            width,
            height,
            aspect,
            dir: (angle.cos(), angle.sin()),
            warp,
            stripes,
            discs,
            noise,
        }
    }

    fn paint(&self, colors: &Roles) -> RgbImage {
        let (w, h) = (self.width as usize, self.height as usize);
        let mut raw = vec![0u8; w * h * 3];
        let edge = 3.0 / h as f32;
        for py in 0..h {
            let v = py as f32 / h as f32;
            for px in 0..w {
                let u = px as f32 / w as f32 * self.aspect;
                let n = self.noise[py * w + px];
                let t = ((u / self.aspect - 0.5) * self.dir.0
                    + (v - 0.5) * self.dir.1
                    + 0.5
                    + (n - 0.5) * self.warp * 2.0)
                    .clamp(0.0, 1.0);
                let mut c = if t < 0.5 {
                    mix(colors[0], colors[1], smoothstep(0.0, 0.5, t))
                } else {
                    mix(colors[1], colors[2], smoothstep(0.5, 1.0, t))
                };
                for disc in &self.discs {
                    let d = ((u - disc.cx).powi(2) + (v - disc.cy).powi(2)).sqrt();
                    // At least a few field pixels of edge, or the upscale shows stair steps.
                    let soft = (disc.radius * 0.15).max(edge);
                    let alpha = (1.0 - smoothstep(disc.radius - soft, disc.radius, d)) * 0.6;
                    if alpha > 0.0 {
                        c = mix(c, colors[disc.role], alpha);
                    }
                }
                if let Some((angle, freq)) = self.stripes {
                    let s = ((u * angle.cos() + v * angle.sin()) * freq + n * 6.0).sin();
                    if s > 0.7 {
                        c = mix(c, colors[4], 0.18);
                    }
                }
                // Weaker than the still's vignette: the camera moves across it.
                let vignette =
                    1.0 - 0.2 * ((u / self.aspect - 0.5).powi(2) + (v - 0.5).powi(2)) * 2.0;
                let rgb = to_rgb8([c[0] * vignette, c[1] * vignette, c[2] * vignette]);
                raw[(py * w + px) * 3..][..3].copy_from_slice(&rgb);
            }
        }
        RgbImage::from_raw(self.width, self.height, raw).unwrap_or_default()
    }
}

/// One dab of a brush stroke.
struct Dab {
    x: f32,
    y: f32,
    radius: f32,
    role: usize,
}

/// Flow-field strokes traced once over the canvas, sized like a still of the frame's size.
fn trace_strokes(
    width: u32,
    height: u32,
    frame_long_side: u32,
    count: u32,
    rng: &mut SplitMix,
) -> Vec<Dab> {
    let (w, h) = (width as f32, height as f32);
    let frame_long = frame_long_side.max(1) as f32;
    let scale = frame_long / 1024.0;
    let salt = rng.next_u64();
    // Flow frequency per frame (as the still), so the canvas margin does not shrink it.
    let freq = rng.range_f32(1.5, 3.5) * w.max(h) / frame_long;
    // The still's 90 dabs 2 px apart at 1024 px, scaled so a stroke spans the same share of
    // the frame at any size (small test clips would otherwise get confetti).
    let steps = 90;
    let step_len = 2.0 * scale;
    let mut dabs = Vec::new();
    for _ in 0..count {
        let mut x = rng.range_f32(0.0, w);
        let mut y = rng.range_f32(0.0, h);
        let radius = (rng.range_f32(1.0, 3.5) * scale.sqrt() * 1.4).max(0.6);
        let role = 2 + (rng.next_u64() % 3) as usize;
        for _ in 0..steps {
            let angle = fbm(x / w * freq, y / h * freq, salt) * std::f32::consts::TAU * 2.0;
            x += angle.cos() * step_len;
            y += angle.sin() * step_len;
            if x < 0.0 || y < 0.0 || x >= w || y >= h {
                break;
            }
            dabs.push(Dab { x, y, radius, role });
        }
    }
    dabs
}

fn stamp_dabs(image: &mut RgbImage, dabs: &[Dab], colors: &Roles, opacity: f32) {
    let (w, h) = (image.width() as i64, image.height() as i64);
    let raw: &mut [u8] = image.as_mut();
    let keep = 1.0 - opacity;
    for dab in dabs {
        let target = colors[dab.role].map(|c| c.clamp(0.0, 1.0) * 255.0 * opacity);
        let r = dab.radius.ceil() as i64;
        let (cx, cy) = (dab.x as i64, dab.y as i64);
        let r2 = dab.radius * dab.radius;
        for dy in -r..=r {
            let py = cy + dy;
            if py < 0 || py >= h {
                continue;
            }
            for dx in -r..=r {
                let px = cx + dx;
                if px < 0 || px >= w || (dx * dx + dy * dy) as f32 > r2 {
                    continue;
                }
                let at = ((py * w + px) * 3) as usize;
                for (channel, t) in raw[at..at + 3].iter_mut().zip(target) {
                    *channel = (f32::from(*channel) * keep + t) as u8;
                }
            }
        }
    }
}

/// The backdrop in start and end colours, each `width` x `height` (both even).
pub(super) struct Canvases {
    pub start: I420,
    pub end: I420,
}

/// `frame_long_side` sets brush scale, so strokes look the same whatever the pan margin.
pub(super) fn paint(
    width: u32,
    height: u32,
    frame_long_side: u32,
    palette: &VideoPalette,
    rng: &mut SplitMix,
) -> Result<Canvases, VideoError> {
    let plan = FieldPlan::new(width, height, rng);
    // 110 strokes per frame-sized area (16:9 assumed), like the still's 160 but calmer.
    let frame_area = (frame_long_side.max(1) as f32).powi(2) * 0.5625;
    let count = (110.0 * (width as f32 * height as f32 / frame_area).min(3.0)) as u32;
    let dabs = trace_strokes(width, height, frame_long_side, count, rng);
    let render = |colors: &Roles| -> Result<I420, VideoError> {
        let field = DynamicImage::ImageRgb8(plan.paint(colors));
        // DynamicImage's resize is compiled inside `image` (optimised even in debug builds).
        let mut image = field
            .resize_exact(width, height, FilterType::Triangle)
            .into_rgb8();
        stamp_dabs(&mut image, &dabs, colors, 0.35);
        I420::from_rgb(&image)
    };
    Ok(Canvases {
        start: render(&palette.start)?,
        end: render(&palette.end)?,
    })
}
