//! The "look" a render gets after the procedural art: cinematic preset effects (framing,
//! tone, tint, vignette) and the project's colour grade (a gradient map through the
//! palette's colours, each colour's share of the tonal range weighted by its role).
//! Stored with the generation as JSON so a resumed job renders the same picture.

use image::RgbImage;
use image::imageops::{self, FilterType};
use serde::{Deserialize, Serialize};

use crate::palette::{PaletteColor, Rgb, Role};

/// How strongly the grade replaces the render's own colours (0..=1).
const GRADE_STRENGTH: f32 = 0.65;
/// How strongly Visual DNA and moodboard colours pull the render toward them (0..=1).
const TINT_STRENGTH: f32 = 0.45;

/// What one cinematic preset does to a render. Every field is optional in
/// `assets/presets/presets.json`; the defaults change nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Effect {
    /// ≥ 1: crop towards the focus point and scale back up (tighter shot, longer lens).
    pub zoom: f32,
    /// -1..=1: where the crop sits (left/top at -1, right/bottom at 1).
    pub focus_x: f32,
    pub focus_y: f32,
    /// Added to every channel (-1..=1).
    pub brightness: f32,
    /// Multiplier around mid-grey.
    pub contrast: f32,
    /// Multiplier of the distance from grey (0 = monochrome).
    pub saturation: f32,
    /// `#RRGGBB` light colour, mixed in by `tint_strength`.
    pub tint: Option<String>,
    pub tint_strength: f32,
    /// 0..=1 edge darkening.
    pub vignette: f32,
}

impl Default for Effect {
    fn default() -> Self {
        Effect {
            zoom: 1.0,
            focus_x: 0.0,
            focus_y: 0.0,
            brightness: 0.0,
            contrast: 1.0,
            saturation: 1.0,
            tint: None,
            tint_strength: 0.0,
            vignette: 0.0,
        }
    }
}

/// One grading colour: hex plus role (the name only matters to the prompt).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct GradeColor {
    pub hex: String,
    pub role: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Look {
    #[serde(default)]
    pub effects: Vec<Effect>,
    #[serde(default)]
    pub grade: Vec<GradeColor>,
    /// Colours of the Visual DNAs and moodboard a request names: a gentler gradient map
    /// than the grade, applied after it.
    #[serde(default)]
    pub tint: Vec<GradeColor>,
    /// Files (under the files dir) inset bottom-left: the Visual DNAs' thumbnails.
    #[serde(default)]
    pub insets: Vec<String>,
    /// Names of the Visual DNAs used (recorded on the media items).
    #[serde(default)]
    pub visual_dna_names: Vec<String>,
    /// The moodboard used (a Creative Director scene's own, from `moodboard_ids`).
    #[serde(default)]
    pub moodboard_id: Option<String>,
}

impl Look {
    pub(crate) fn is_empty(&self) -> bool {
        self.effects.is_empty()
            && self.grade.is_empty()
            && self.tint.is_empty()
            && self.insets.is_empty()
    }

    /// Grade then tint colours, as `[r, g, b]` (what a video render is coloured with).
    pub(crate) fn video_palette(&self) -> Vec<[u8; 3]> {
        self.grade
            .iter()
            .chain(&self.tint)
            .filter_map(|c| Rgb::from_hex(&c.hex))
            .map(|rgb| [rgb.r, rgb.g, rgb.b])
            .collect()
    }

    /// Pastes the inset thumbnails along the bottom-left corner, each a sixth of the
    /// short side with a thin light border (unreadable files are skipped).
    pub(crate) fn apply_insets(&self, image: &mut RgbImage, files_dir: &std::path::Path) {
        let (w, h) = image.dimensions();
        let side = (w.min(h) / 6).max(8);
        let margin = (side / 8).max(2);
        let border = (side / 40).max(1);
        let mut x = margin;
        for rel in &self.insets {
            if x + side + margin > w || side + margin > h {
                break;
            }
            let Ok(thumb) = image::open(files_dir.join(rel)) else {
                tracing::debug!(path = %rel, "inset thumbnail unreadable");
                continue;
            };
            let thumb = thumb
                .resize_to_fill(side, side, FilterType::Triangle)
                .to_rgb8();
            let y = h - side - margin;
            let frame = RgbImage::from_pixel(
                side + 2 * border,
                side + 2 * border,
                image::Rgb([240, 240, 240]),
            );
            imageops::replace(
                image,
                &frame,
                i64::from(x) - i64::from(border),
                i64::from(y) - i64::from(border),
            );
            imageops::replace(image, &thumb, i64::from(x), i64::from(y));
            x += side + margin;
        }
    }

    pub(crate) fn with_grade(mut self, colors: &[PaletteColor]) -> Self {
        self.grade = colors
            .iter()
            .map(|c| GradeColor {
                hex: c.hex.clone(),
                role: c.role.as_str().to_owned(),
            })
            .collect();
        self
    }

    /// Applies framing, tone and tint of every effect, then the grade.
    pub(crate) fn apply(&self, image: &mut RgbImage) {
        let combined = combine(&self.effects);
        reframe(image, &combined);
        tone(image, &combined);
        if let Some(lut) = grade_lut(&self.grade) {
            for pixel in image.pixels_mut() {
                let [r, g, b] = pixel.0.map(f32::from);
                let luma = (0.299 * r + 0.587 * g + 0.114 * b)
                    .round()
                    .clamp(0.0, 255.0) as usize;
                let target = lut[luma];
                for (channel, t) in pixel.0.iter_mut().zip(target) {
                    let v = f32::from(*channel);
                    *channel = (v + (t - v) * GRADE_STRENGTH).round().clamp(0.0, 255.0) as u8;
                }
            }
        }
        if let Some(lut) = grade_lut(&self.tint) {
            for pixel in image.pixels_mut() {
                let [r, g, b] = pixel.0.map(f32::from);
                let luma = (0.299 * r + 0.587 * g + 0.114 * b)
                    .round()
                    .clamp(0.0, 255.0) as usize;
                let target = lut[luma];
                for (channel, t) in pixel.0.iter_mut().zip(target) {
                    let v = f32::from(*channel);
                    *channel = (v + (t - v) * TINT_STRENGTH).round().clamp(0.0, 255.0) as u8;
                }
            }
        }
    }
}

/// Several presets at once: zooms multiply, offsets add, tints blend.
fn combine(effects: &[Effect]) -> Effect {
    let mut out = Effect::default();
    let mut tint_acc = [0.0f32; 3];
    let mut tint_weight = 0.0f32;
    for e in effects {
        out.zoom *= e.zoom.clamp(1.0, 4.0);
        out.focus_x += e.focus_x;
        out.focus_y += e.focus_y;
        out.brightness += e.brightness;
        out.contrast *= e.contrast.clamp(0.2, 3.0);
        out.saturation *= e.saturation.clamp(0.0, 3.0);
        out.vignette += e.vignette;
        if let Some(rgb) = e.tint.as_deref().and_then(Rgb::from_hex) {
            let w = e.tint_strength.clamp(0.0, 1.0);
            tint_acc[0] += f32::from(rgb.r) * w;
            tint_acc[1] += f32::from(rgb.g) * w;
            tint_acc[2] += f32::from(rgb.b) * w;
            tint_weight += w;
        }
    }
    out.zoom = out.zoom.min(4.0);
    out.focus_x = out.focus_x.clamp(-1.0, 1.0);
    out.focus_y = out.focus_y.clamp(-1.0, 1.0);
    out.vignette = out.vignette.clamp(0.0, 1.0);
    if tint_weight > 0.0 {
        let avg = tint_acc.map(|c| (c / tint_weight).round().clamp(0.0, 255.0) as u8);
        out.tint = Some(Rgb::new(avg[0], avg[1], avg[2]).to_hex());
        out.tint_strength = tint_weight.min(0.6);
    }
    out
}

fn reframe(image: &mut RgbImage, e: &Effect) {
    if e.zoom <= 1.01 {
        return;
    }
    let (w, h) = image.dimensions();
    let cw = ((w as f32 / e.zoom).round() as u32).clamp(1, w);
    let ch = ((h as f32 / e.zoom).round() as u32).clamp(1, h);
    let x0 = ((w - cw) as f32 / 2.0 * (1.0 + e.focus_x)).round() as u32;
    let y0 = ((h - ch) as f32 / 2.0 * (1.0 + e.focus_y)).round() as u32;
    let crop = imageops::crop_imm(image, x0.min(w - cw), y0.min(h - ch), cw, ch).to_image();
    *image = imageops::resize(&crop, w, h, FilterType::Triangle);
}

fn tone(image: &mut RgbImage, e: &Effect) {
    let tint = e.tint.as_deref().and_then(Rgb::from_hex);
    let neutral = e.brightness == 0.0
        && e.contrast == 1.0
        && e.saturation == 1.0
        && tint.is_none()
        && e.vignette == 0.0;
    if neutral {
        return;
    }
    let (w, h) = image.dimensions();
    let tint = tint.map(|t| [t.r, t.g, t.b].map(|c| f32::from(c) / 255.0));
    for (x, y, pixel) in image.enumerate_pixels_mut() {
        let [mut r, mut g, mut b] = pixel.0.map(|c| f32::from(c) / 255.0);
        let luma = 0.299 * r + 0.587 * g + 0.114 * b;
        [r, g, b] = [r, g, b].map(|c| luma + (c - luma) * e.saturation);
        [r, g, b] = [r, g, b].map(|c| (c - 0.5) * e.contrast + 0.5 + e.brightness);
        if let Some(t) = tint {
            // Light of the tint's colour at the pixel's own brightness.
            let l = (0.299 * r + 0.587 * g + 0.114 * b).clamp(0.0, 1.0);
            let s = e.tint_strength * 1.6;
            r += (l * t[0] * 1.6 - r) * s;
            g += (l * t[1] * 1.6 - g) * s;
            b += (l * t[2] * 1.6 - b) * s;
        }
        let dx = x as f32 / w as f32 - 0.5;
        let dy = y as f32 / h as f32 - 0.5;
        let v = 1.0 - e.vignette * (dx * dx + dy * dy) * 2.0;
        pixel.0 = [r, g, b].map(|c| ((c * v).clamp(0.0, 1.0) * 255.0).round() as u8);
    }
}

fn role_weight(role: &str) -> f32 {
    match Role::from_str_opt(role) {
        Some(Role::Dominant) => 0.45,
        Some(Role::Secondary) => 0.25,
        Some(Role::Background) => 0.2,
        Some(Role::Accent) | None => 0.12,
    }
}

/// Luminance (0..=255) → graded colour. Palette colours are ordered dark to light; each
/// owns a slice of the tonal range as wide as its role weight, so the dominant colour
/// covers the most pixels.
fn grade_lut(grade: &[GradeColor]) -> Option<Vec<[f32; 3]>> {
    let mut stops: Vec<(f32, [f32; 3], f32)> = grade
        .iter()
        .filter_map(|c| {
            let rgb = Rgb::from_hex(&c.hex)?;
            Some((
                rgb.to_lab().l,
                [rgb.r, rgb.g, rgb.b].map(f32::from),
                role_weight(&c.role),
            ))
        })
        .collect();
    if stops.is_empty() {
        return None;
    }
    stops.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f32 = stops.iter().map(|s| s.2).sum();
    let mut centers = Vec::with_capacity(stops.len());
    let mut start = 0.0;
    for stop in &stops {
        let width = stop.2 / total;
        centers.push((start + width / 2.0, stop.1));
        start += width;
    }
    let lut = (0..256)
        .map(|i| {
            let t = i as f32 / 255.0;
            let first = centers[0];
            let last = centers[centers.len() - 1];
            if t <= first.0 {
                return first.1;
            }
            if t >= last.0 {
                return last.1;
            }
            let k = centers
                .iter()
                .position(|c| c.0 > t)
                .unwrap_or(centers.len() - 1);
            let (a, b) = (centers[k - 1], centers[k]);
            let f = (t - a.0) / (b.0 - a.0).max(f32::EPSILON);
            [0, 1, 2].map(|c| a.1[c] + (b.1[c] - a.1[c]) * f)
        })
        .collect();
    Some(lut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gradient() -> RgbImage {
        RgbImage::from_fn(64, 32, |x, y| {
            image::Rgb([(x * 4) as u8, (y * 8) as u8, 128])
        })
    }

    #[test]
    fn a_grade_pulls_the_render_toward_the_palette() {
        let mut image = gradient();
        let look = Look::default().with_grade(&[PaletteColor {
            hex: "#008080".into(),
            name: "Teal".into(),
            role: Role::Dominant,
        }]);
        look.apply(&mut image);
        let mean = |c: usize| image.pixels().map(|p| f64::from(p.0[c])).sum::<f64>() / 2048.0;
        // Teal: red pulled down, green toward 128.
        assert!(mean(0) < 70.0, "red mean {}", mean(0));
        assert!((mean(1) - 128.0).abs() < 40.0);
    }

    #[test]
    fn an_empty_look_changes_nothing_and_effects_do() {
        let original = gradient();
        let mut same = original.clone();
        Look::default().apply(&mut same);
        assert_eq!(same, original);
        let mut darker = original.clone();
        Look {
            effects: vec![Effect {
                brightness: -0.2,
                ..Effect::default()
            }],
            ..Look::default()
        }
        .apply(&mut darker);
        let sum = |img: &RgbImage| img.pixels().map(|p| u64::from(p.0[1])).sum::<u64>();
        assert!(sum(&darker) < sum(&original));
    }
}
