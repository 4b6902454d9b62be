//! Whole-frame looks: magic edit (a colour grade and a seeded overlay of drifting lights)
//! and restyle (posterised luma mapped onto a five-colour palette, with ink outlines).

use crate::sandbox::ids::SplitMix;

use super::super::compose::{ChromaGrade, Sprite, View, add_light, resample};
use super::super::palette::{self, Rgbf};
use super::super::yuv::{I420, Yuv};

/// A grade and a set of lights, both from the prompt and seed.
pub(super) struct MagicLook {
    grade: ChromaGrade,
    /// Luma curve (contrast and lift), one entry per level.
    curve: [u8; 256],
    lights: Vec<Light>,
}

struct Light {
    sprite: Sprite,
    /// Start position and speed, in fractions of the frame per second.
    x: f32,
    y: f32,
    dx: f32,
    dy: f32,
    gain: i32,
    tint_u: i32,
    tint_v: i32,
}

impl MagicLook {
    pub(super) fn new(rng: &mut SplitMix, width: usize, height: usize) -> Self {
        let sign = if rng.next_u64().is_multiple_of(2) {
            1.0
        } else {
            -1.0
        };
        let grade = ChromaGrade::new(
            sign * rng.range_f32(60.0, 140.0),
            rng.range_f32(-14.0, 14.0),
            rng.range_f32(-14.0, 14.0),
        );
        let contrast = rng.range_f32(1.15, 1.35);
        let lift = rng.range_f32(-8.0, 12.0);
        let curve = std::array::from_fn(|v| {
            let centred = v as f32 - 126.0;
            (126.0 + centred * contrast + lift)
                .round()
                .clamp(16.0, 235.0) as u8
        });
        let short = width.min(height) as f32;
        let lights = (0..6)
            .map(|_| Light {
                sprite: Sprite::radial(short * rng.range_f32(0.08, 0.2), |d| (1.0 - d * d).powi(2)),
                x: rng.range_f32(0.0, 1.0),
                y: rng.range_f32(0.0, 1.0),
                dx: rng.range_f32(-0.12, 0.12),
                dy: rng.range_f32(-0.08, 0.08),
                gain: rng.range_f32(40.0, 80.0) as i32,
                tint_u: rng.range_f32(-20.0, 20.0) as i32,
                tint_v: rng.range_f32(-20.0, 20.0) as i32,
            })
            .collect();
        Self {
            grade,
            curve,
            lights,
        }
    }

    /// The graded frame at `time_secs` with its lights.
    pub(super) fn apply(&self, frame: &I420, time_secs: f32) -> I420 {
        let mut out = I420::new(frame.width, frame.height);
        let view = View {
            center_x: frame.width as f32 / 2.0,
            center_y: frame.height as f32 / 2.0,
            zoom: 1.0,
        };
        resample(frame, view, self.grade, &mut out);
        for p in out.y.iter_mut() {
            *p = self.curve[usize::from(*p)];
        }
        let (w, h) = (frame.width as f32, frame.height as f32);
        for light in &self.lights {
            let x = (light.x + light.dx * time_secs).rem_euclid(1.0) * w;
            let y = (light.y + light.dy * time_secs).rem_euclid(1.0) * h;
            let half = light.sprite.width as f32 / 2.0;
            add_light(
                &mut out,
                &light.sprite,
                (x - half) as i64,
                (y - half) as i64,
                light.gain,
                light.tint_u,
                light.tint_v,
            );
        }
        out
    }
}

/// Luma bands of the poster look.
const LEVELS: i32 = 5;
/// Summed neighbour differences above which a pixel is drawn as an ink line.
const EDGE_THRESHOLD: i32 = 40;

/// The restyle look: five luma bands, each painted in one palette colour (dark to light).
pub(super) struct PosterLook {
    colours: [Yuv; LEVELS as usize],
}

impl PosterLook {
    /// The project's palette when given, else colours from the prompt (the renderer's own
    /// recipe), sorted dark to light.
    pub(super) fn new(prompt: &str, palette: Option<&[[u8; 3]]>, rng: &mut SplitMix) -> Self {
        let roles = palette::video_palette(prompt, palette, rng).start;
        let mut sorted: Vec<Rgbf> = roles.to_vec();
        let luma = |c: &Rgbf| 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
        sorted.sort_by(|a, b| luma(a).total_cmp(&luma(b)));
        let colours = std::array::from_fn(|i| {
            Yuv::from_rgbf(sorted.get(i).copied().unwrap_or([0.5, 0.5, 0.5]))
        });
        Self { colours }
    }

    fn band(&self, luma: u8) -> usize {
        ((i32::from(luma) - 16).clamp(0, 219) * LEVELS / 220) as usize
    }

    pub(super) fn apply(&self, frame: &mut I420) {
        let (w, h) = (frame.width, frame.height);
        let source_y = frame.y.clone();
        for y in 0..h {
            let row = &source_y[y * w..][..w];
            let below = &source_y[(y + 1).min(h - 1) * w..][..w];
            let out = &mut frame.y[y * w..][..w];
            for x in 0..w {
                let v = row[x];
                let colour = self.colours[self.band(v)];
                // Half the band's colour, half the original: shapes stay readable.
                let mut luma = (i32::from(colour.y) + i32::from(v)) / 2;
                let edge = (i32::from(row[(x + 1).min(w - 1)]) - i32::from(v)).abs()
                    + (i32::from(below[x]) - i32::from(v)).abs();
                if edge > EDGE_THRESHOLD {
                    luma = 16 + (luma - 16) / 4;
                }
                out[x] = luma.clamp(16, 235) as u8;
            }
        }
        let cw = frame.chroma_width();
        for cy in 0..frame.chroma_height() {
            for cx in 0..cw {
                let colour = self.colours[self.band(source_y[cy * 2 * w + cx * 2])];
                let i = cy * cw + cx;
                frame.u[i] = ((i32::from(colour.u) * 3 + i32::from(frame.u[i])) / 4) as u8;
                frame.v[i] = ((i32::from(colour.v) * 3 + i32::from(frame.v[i])) / 4) as u8;
            }
        }
    }
}
