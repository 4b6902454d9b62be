//! Procedural art: deterministic from (prompt, seed, index), different for different
//! prompts. A smooth colour field (gradient + warped value noise + soft discs + stripes) is
//! computed at a reduced size and upscaled by the `image` crate, then flow-field brush
//! strokes are drawn at full size, which keeps 4K renders fast while staying crisp.

use image::imageops::{self, FilterType};
use image::{DynamicImage, Rgb, RgbImage};

use super::ids::{SplitMix, fnv1a};

/// Long side of the intermediate colour field.
const FIELD_LONG_SIDE_PX: u32 = 512;
pub(crate) const THUMBNAIL_LONG_SIDE_PX: u32 = 256;

pub(crate) type Rgbf = [f32; 3];

/// "W:H" with positive integers.
pub(crate) fn parse_aspect_ratio(value: &str) -> Option<(u32, u32)> {
    let (w, h) = value.split_once(':')?;
    let w: u32 = w.trim().parse().ok()?;
    let h: u32 = h.trim().parse().ok()?;
    (w > 0 && h > 0 && w <= 100 && h <= 100).then_some((w, h))
}

/// Output size: the resolution tier fixes the long side (1K = 1024, 2K = 2048, 4K = 4096).
pub(crate) fn output_dimensions(aspect_ratio: &str, resolution: &str) -> (u32, u32) {
    let long_side: u32 = match resolution {
        "2K" => 2048,
        "4K" => 4096,
        _ => 1024,
    };
    let (aw, ah) = parse_aspect_ratio(aspect_ratio).unwrap_or((1, 1));
    if aw >= ah {
        let h = (f64::from(long_side) * f64::from(ah) / f64::from(aw)).round() as u32;
        (long_side, h.max(1))
    } else {
        let w = (f64::from(long_side) * f64::from(aw) / f64::from(ah)).round() as u32;
        (w.max(1), long_side)
    }
}

/// What one output image is rendered from.
pub(crate) struct RenderSpec<'a> {
    pub prompt: &'a str,
    pub seed: i64,
    pub index: u32,
    pub width: u32,
    pub height: u32,
}

impl RenderSpec<'_> {
    fn rng(&self) -> SplitMix {
        let mut key = self.prompt.as_bytes().to_vec();
        key.extend_from_slice(&self.seed.to_le_bytes());
        key.extend_from_slice(&self.index.to_le_bytes());
        SplitMix::new(fnv1a(&key))
    }
}

pub(crate) fn hsl(hue_deg: f32, saturation: f32, lightness: f32) -> Rgbf {
    let h = hue_deg.rem_euclid(360.0) / 60.0;
    let c = (1.0 - (2.0 * lightness - 1.0).abs()) * saturation;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = lightness - c / 2.0;
    [r + m, g + m, b + m]
}

/// A base hue nudged by mood words in the prompt, so "ocean" reads blue and "sunset" warm.
pub(crate) fn base_hue(prompt: &str, rng: &mut SplitMix) -> f32 {
    const MOODS: [(&[&str], f32); 7] = [
        (&["sunset", "fire", "red", "autumn", "lava", "warm"], 18.0),
        (&["gold", "desert", "sand", "sun", "amber"], 42.0),
        (&["forest", "green", "jungle", "moss", "leaf"], 125.0),
        (
            &["ocean", "sea", "water", "blue", "ice", "winter", "night"],
            210.0,
        ),
        (
            &["space", "galaxy", "nebula", "purple", "violet", "dream"],
            275.0,
        ),
        (&["rose", "pink", "flower", "blossom", "love"], 330.0),
        (&["cyber", "neon", "city", "future"], 190.0),
    ];
    let lower = prompt.to_lowercase();
    let jitter = rng.range_f32(-15.0, 15.0);
    MOODS
        .iter()
        .find(|(words, _)| words.iter().any(|w| lower.contains(w)))
        .map(|(_, hue)| hue + jitter)
        .unwrap_or_else(|| (fnv1a(lower.as_bytes()) % 360) as f32 + jitter)
}

fn palette(prompt: &str, rng: &mut SplitMix) -> [Rgbf; 5] {
    let hue = base_hue(prompt, rng);
    let spread = rng.range_f32(20.0, 50.0);
    [
        hsl(hue, rng.range_f32(0.45, 0.8), rng.range_f32(0.12, 0.25)),
        hsl(
            hue + spread,
            rng.range_f32(0.5, 0.85),
            rng.range_f32(0.35, 0.5),
        ),
        hsl(
            hue - spread,
            rng.range_f32(0.5, 0.9),
            rng.range_f32(0.55, 0.7),
        ),
        hsl(
            hue + 180.0,
            rng.range_f32(0.6, 0.95),
            rng.range_f32(0.5, 0.65),
        ),
        hsl(
            hue + spread * 0.5,
            rng.range_f32(0.2, 0.5),
            rng.range_f32(0.82, 0.93),
        ),
    ]
}

pub(crate) fn mix(a: Rgbf, b: Rgbf, t: f32) -> Rgbf {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

pub(crate) fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn lattice(ix: i32, iy: i32, salt: u64) -> f32 {
    let mut h = (ix as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (iy as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
        ^ salt;
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 32;
    (h & 0xffff) as f32 / 65535.0
}

fn value_noise(x: f32, y: f32, salt: u64) -> f32 {
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let (sx, sy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
    let (ix, iy) = (x0 as i32, y0 as i32);
    let top = lattice(ix, iy, salt) + (lattice(ix + 1, iy, salt) - lattice(ix, iy, salt)) * sx;
    let bottom = lattice(ix, iy + 1, salt)
        + (lattice(ix + 1, iy + 1, salt) - lattice(ix, iy + 1, salt)) * sx;
    top + (bottom - top) * sy
}

pub(crate) fn fbm(x: f32, y: f32, salt: u64) -> f32 {
    value_noise(x, y, salt) * 0.55
        + value_noise(x * 2.1, y * 2.1, salt ^ 0x55) * 0.3
        + value_noise(x * 4.3, y * 4.3, salt ^ 0xaa) * 0.15
}

fn to_pixel(c: Rgbf) -> Rgb<u8> {
    Rgb([
        (c[0].clamp(0.0, 1.0) * 255.0).round() as u8,
        (c[1].clamp(0.0, 1.0) * 255.0).round() as u8,
        (c[2].clamp(0.0, 1.0) * 255.0).round() as u8,
    ])
}

struct Disc {
    cx: f32,
    cy: f32,
    radius: f32,
    color: Rgbf,
}

/// The smooth colour field at reduced size.
fn color_field(spec: &RenderSpec<'_>, colors: &[Rgbf; 5], rng: &mut SplitMix) -> RgbImage {
    let scale = FIELD_LONG_SIDE_PX as f32 / spec.width.max(spec.height) as f32;
    let fw = ((spec.width as f32 * scale).round() as u32).max(1);
    let fh = ((spec.height as f32 * scale).round() as u32).max(1);
    let aspect = spec.width as f32 / spec.height as f32;
    let angle = rng.range_f32(0.0, std::f32::consts::TAU);
    let (dir_x, dir_y) = (angle.cos(), angle.sin());
    let noise_freq = rng.range_f32(1.5, 4.0);
    let warp = rng.range_f32(0.2, 0.6);
    let salt = rng.next_u64();
    let stripe_angle = rng.range_f32(0.0, std::f32::consts::PI);
    let stripe_freq = rng.range_f32(12.0, 40.0);
    let stripes = rng.next_f64() < 0.5;
    let discs: Vec<Disc> = (0..3 + rng.next_u64() % 5)
        .map(|i| Disc {
            cx: rng.range_f32(0.1, 0.9) * aspect,
            cy: rng.range_f32(0.1, 0.9),
            radius: rng.range_f32(0.06, 0.3),
            color: colors[1 + (i as usize % 4)],
        })
        .collect();
    RgbImage::from_fn(fw, fh, |px, py| {
        let v = py as f32 / fh as f32;
        let u = px as f32 / fw as f32 * aspect;
        let n = fbm(u * noise_freq, v * noise_freq, salt);
        let t = ((u / aspect - 0.5) * dir_x + (v - 0.5) * dir_y + 0.5 + (n - 0.5) * warp * 2.0)
            .clamp(0.0, 1.0);
        let mut c = if t < 0.5 {
            mix(colors[0], colors[1], smoothstep(0.0, 0.5, t))
        } else {
            mix(colors[1], colors[2], smoothstep(0.5, 1.0, t))
        };
        for disc in &discs {
            let d = ((u - disc.cx).powi(2) + (v - disc.cy).powi(2)).sqrt();
            let alpha = (1.0 - smoothstep(disc.radius * 0.85, disc.radius, d)) * 0.6;
            if alpha > 0.0 {
                c = mix(c, disc.color, alpha);
            }
        }
        if stripes {
            let s =
                ((u * stripe_angle.cos() + v * stripe_angle.sin()) * stripe_freq + n * 6.0).sin();
            if s > 0.7 {
                c = mix(c, colors[4], 0.18);
            }
        }
        let vignette = 1.0 - 0.35 * ((u / aspect - 0.5).powi(2) + (v - 0.5).powi(2)) * 2.0;
        to_pixel([c[0] * vignette, c[1] * vignette, c[2] * vignette])
    })
}

/// Flow-field brush strokes drawn at full resolution.
fn draw_strokes(
    image: &mut RgbImage,
    colors: &[Rgbf; 5],
    rng: &mut SplitMix,
    count: u32,
    opacity: f32,
) {
    let (w, h) = image.dimensions();
    let scale = w.max(h) as f32 / 1024.0;
    let salt = rng.next_u64();
    let freq = rng.range_f32(1.5, 3.5);
    let steps = (90.0 * scale) as u32;
    for _ in 0..count {
        let mut x = rng.range_f32(0.0, w as f32);
        let mut y = rng.range_f32(0.0, h as f32);
        // Radius grows with sqrt(scale): 4K strokes stay crisp without quadrupling the cost.
        let radius = (rng.range_f32(1.0, 3.5) * scale.sqrt() * 1.4).max(1.0);
        let color = colors[2 + (rng.next_u64() % 3) as usize];
        let step_len = 2.0 * scale;
        for _ in 0..steps {
            let angle =
                fbm(x / w as f32 * freq, y / h as f32 * freq, salt) * std::f32::consts::TAU * 2.0;
            x += angle.cos() * step_len;
            y += angle.sin() * step_len;
            if x < 0.0 || y < 0.0 || x >= w as f32 || y >= h as f32 {
                break;
            }
            stamp(image, x, y, radius, color, opacity);
        }
    }
}

fn stamp(image: &mut RgbImage, cx: f32, cy: f32, radius: f32, color: Rgbf, opacity: f32) {
    let (w, h) = image.dimensions();
    let r = radius.ceil() as i64;
    let (icx, icy) = (cx as i64, cy as i64);
    let r2 = radius * radius;
    for dy in -r..=r {
        let py = icy + dy;
        if py < 0 || py >= i64::from(h) {
            continue;
        }
        for dx in -r..=r {
            let px = icx + dx;
            if px < 0 || px >= i64::from(w) || (dx * dx + dy * dy) as f32 > r2 {
                continue;
            }
            let pixel = image.get_pixel_mut(px as u32, py as u32);
            for (channel, target) in pixel.0.iter_mut().zip(color) {
                let old = f32::from(*channel) / 255.0;
                let new = old + (target - old) * opacity;
                *channel = (new.clamp(0.0, 1.0) * 255.0) as u8;
            }
        }
    }
}

/// A text-to-image render.
pub(crate) fn render_art(spec: &RenderSpec<'_>) -> RgbImage {
    let mut rng = spec.rng();
    let colors = palette(spec.prompt, &mut rng);
    let field = color_field(spec, &colors, &mut rng);
    let mut image = imageops::resize(&field, spec.width, spec.height, FilterType::Triangle);
    draw_strokes(&mut image, &colors, &mut rng, 160, 0.35);
    image
}

/// An image-edit render: the source, cropped to the requested frame, posterised and
/// gradient-mapped through the prompt's palette, with brush strokes on top.
pub(crate) fn render_edit(spec: &RenderSpec<'_>, source: &DynamicImage) -> RgbImage {
    let mut rng = spec.rng();
    let colors = palette(spec.prompt, &mut rng);
    let levels = 3 + (rng.next_u64() % 4) as u32;
    let strength = rng.range_f32(0.45, 0.7);
    let mut image = source
        .resize_to_fill(spec.width, spec.height, FilterType::Triangle)
        .to_rgb8();
    let steps = (levels - 1) as f32;
    for pixel in image.pixels_mut() {
        let [r, g, b] = pixel.0.map(|c| f32::from(c) / 255.0);
        let luminance = 0.299 * r + 0.587 * g + 0.114 * b;
        let q = (luminance * steps).round() / steps;
        let mapped = if q < 0.5 {
            mix(colors[0], colors[2], q * 2.0)
        } else {
            mix(colors[2], colors[4], (q - 0.5) * 2.0)
        };
        *pixel = to_pixel(mix([r, g, b], mapped, strength));
    }
    draw_strokes(&mut image, &colors, &mut rng, 60, 0.25);
    image
}

pub(crate) fn thumbnail(image: &RgbImage) -> RgbImage {
    match thumbnail_size(image.dimensions()) {
        Some((tw, th)) => imageops::thumbnail(image, tw, th),
        None => image.clone(),
    }
}

/// A thumbnail's size for a `(width, height)` picture: the long side brought down to
/// [`THUMBNAIL_LONG_SIDE_PX`]; `None` when the picture is no larger already.
pub(crate) fn thumbnail_size((w, h): (u32, u32)) -> Option<(u32, u32)> {
    let scale = THUMBNAIL_LONG_SIDE_PX as f32 / w.max(h).max(1) as f32;
    if scale >= 1.0 {
        return None;
    }
    let side = |s: u32| ((s as f32 * scale).round() as u32).max(1);
    Some((side(w), side(h)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimensions_follow_tier_and_ratio() {
        assert_eq!(output_dimensions("16:9", "1K"), (1024, 576));
        assert_eq!(output_dimensions("9:16", "2K"), (1152, 2048));
        assert_eq!(output_dimensions("1:1", "4K"), (4096, 4096));
        assert!(parse_aspect_ratio("abc").is_none());
    }

    #[test]
    fn renders_are_deterministic_and_prompt_dependent() {
        let spec = |prompt| RenderSpec {
            prompt,
            seed: 7,
            index: 0,
            width: 96,
            height: 64,
        };
        let a = render_art(&spec("a quiet ocean at night"));
        let b = render_art(&spec("a quiet ocean at night"));
        let c = render_art(&spec("a burning sunset over red desert"));
        assert_eq!(a.as_raw(), b.as_raw());
        assert_ne!(a.as_raw(), c.as_raw());
        assert_eq!(a.dimensions(), (96, 64));
    }
}
