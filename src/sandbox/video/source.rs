//! Image-to-video frames: frame 0 is the source image cover-fitted to the frame, exactly;
//! later frames push in slowly while panning, drift the colours a little (a chroma rotation
//! plus a tint toward the palette's accent) and sweep a soft light across the picture. All of
//! it eases in from zero, so the clip visibly starts from the image.

use image::DynamicImage;
use image::imageops::FilterType;

use super::Plan;
use super::VideoError;
use super::canvas::smoothstep;
use super::compose::{ChromaGrade, Sprite, View, add_light, resample};
use super::palette::VideoPalette;
use super::yuv::{I420, Yuv};
use crate::sandbox::ids::SplitMix;

pub(super) struct SourceScene {
    base: I420,
    zoom: f32,
    pan: (f32, f32),
    rotation_deg: f32,
    tint: (f32, f32),
    light: Sprite,
    light_from: (f32, f32),
    light_to: (f32, f32),
    light_gain: f32,
    light_tint: (f32, f32),
    frames: u32,
}

impl SourceScene {
    pub(super) fn new(
        plan: &Plan<'_>,
        source: &DynamicImage,
        palette: &VideoPalette,
        rng: &mut SplitMix,
    ) -> Result<Self, VideoError> {
        let (w, h) = (plan.width, plan.height);
        // Cover-fit inside `image` (optimised even in debug builds).
        let fitted = source
            .resize_to_fill(w, h, FilterType::Triangle)
            .into_rgb8();
        let base = I420::from_rgb(&fitted)?;
        let (wf, hf) = (w as f32, h as f32);

        let zoom = rng.range_f32(0.08, 0.14);
        // Pan no further than the zoomed-in window allows, so no edge ever shows.
        let slack = 1.0 - 1.0 / (1.0 + zoom);
        let angle = rng.range_f32(0.0, std::f32::consts::TAU);
        let reach = rng.range_f32(0.5, 0.9);
        let pan = (
            angle.cos() * wf / 2.0 * slack * reach,
            angle.sin() * hf / 2.0 * slack * reach,
        );

        let accent = Yuv::from_rgbf(palette.end[3]);
        let highlight = Yuv::from_rgbf(palette.start[4]);
        let rotation_deg = rng.range_f32(6.0, 14.0)
            * if rng.next_u64().is_multiple_of(2) {
                1.0
            } else {
                -1.0
            };
        let tint = (
            (f32::from(accent.u) - 128.0) * 0.2,
            (f32::from(accent.v) - 128.0) * 0.2,
        );

        let radius = 0.45 * wf.min(hf);
        let light = Sprite::radial(radius, |d| {
            let falloff = 1.0 - d * d;
            falloff * falloff
        });
        let y_from = rng.range_f32(0.2, 0.8) * hf;
        let y_to = rng.range_f32(0.2, 0.8) * hf;
        let (light_from, light_to) = if rng.next_u64().is_multiple_of(2) {
            ((-0.1 * wf, y_from), (1.1 * wf, y_to))
        } else {
            ((1.1 * wf, y_from), (-0.1 * wf, y_to))
        };
        Ok(Self {
            base,
            zoom,
            pan,
            rotation_deg,
            tint,
            light,
            light_from,
            light_to,
            light_gain: rng.range_f32(26.0, 42.0),
            light_tint: (
                (f32::from(highlight.u) - 128.0) * 0.3,
                (f32::from(highlight.v) - 128.0) * 0.3,
            ),
            frames: plan.frames,
        })
    }

    pub(super) fn draw(&mut self, index: u32, out: &mut I420) {
        let progress = if self.frames > 1 {
            index as f32 / (self.frames - 1) as f32
        } else {
            0.0
        };
        let ease = smoothstep(0.0, 1.0, progress);
        let view = View {
            center_x: self.base.width as f32 / 2.0 + self.pan.0 * ease,
            center_y: self.base.height as f32 / 2.0 + self.pan.1 * ease,
            zoom: 1.0 + self.zoom * ease,
        };
        let grade = ChromaGrade::new(
            self.rotation_deg * ease,
            self.tint.0 * ease,
            self.tint.1 * ease,
        );
        resample(&self.base, view, grade, out);

        // The light fades in over the first third while it crosses the frame.
        let strength = smoothstep(0.0, 0.35, progress);
        if strength > 0.0 {
            let x = self.light_from.0 + (self.light_to.0 - self.light_from.0) * progress;
            let y = self.light_from.1 + (self.light_to.1 - self.light_from.1) * progress;
            let left = (x - self.light.width as f32 / 2.0).round() as i64;
            let top = (y - self.light.height as f32 / 2.0).round() as i64;
            add_light(
                out,
                &self.light,
                left,
                top,
                (self.light_gain * strength).round() as i32,
                (self.light_tint.0 * strength).round() as i32,
                (self.light_tint.1 * strength).round() as i32,
            );
        }
    }
}
