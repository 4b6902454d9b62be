//! Colours for a video: five roles (dark ground, mid, light, accent, highlight), either from
//! the prompt (the still renderer's recipe: a mood hue plus spread and complement) or from the
//! project's palette. Each video has two palettes, `start` and `end`, and the frames cross-fade
//! from one to the other: a hue rotation for prompt colours, a palette cycle for a graded one.

use super::super::ids::{SplitMix, fnv1a};

pub(super) type Rgbf = [f32; 3];

/// The five colour roles a scene paints with.
pub(super) type Roles = [Rgbf; 5];

/// The start and end colours of a video.
pub(super) struct VideoPalette {
    pub start: Roles,
    pub end: Roles,
}

pub(super) fn hsl(hue_deg: f32, saturation: f32, lightness: f32) -> Rgbf {
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

pub(super) fn mix(a: Rgbf, b: Rgbf, t: f32) -> Rgbf {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// A base hue nudged by mood words in the prompt (same table as the still renderer, so a
/// prompt's video and images share a colour family).
pub(super) fn base_hue(prompt: &str, rng: &mut SplitMix) -> f32 {
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

/// The prompt's colours; `end` is the same recipe with the hue rotated.
fn prompt_palette(prompt: &str, rng: &mut SplitMix) -> VideoPalette {
    let hue = base_hue(prompt, rng);
    let spread = rng.range_f32(20.0, 50.0);
    let offsets = [0.0, spread, -spread, 180.0, spread * 0.5];
    let sl = [
        (rng.range_f32(0.45, 0.8), rng.range_f32(0.12, 0.25)),
        (rng.range_f32(0.5, 0.85), rng.range_f32(0.35, 0.5)),
        (rng.range_f32(0.5, 0.9), rng.range_f32(0.55, 0.7)),
        (rng.range_f32(0.6, 0.95), rng.range_f32(0.5, 0.65)),
        (rng.range_f32(0.2, 0.5), rng.range_f32(0.82, 0.93)),
    ];
    // Either direction, far enough to read as a change, near enough that the cross-fade
    // midpoint does not turn grey.
    let rotation = rng.range_f32(50.0, 100.0)
        * if rng.next_u64().is_multiple_of(2) {
            1.0
        } else {
            -1.0
        };
    let build = |shift: f32| -> Roles {
        std::array::from_fn(|i| hsl(hue + shift + offsets[i], sl[i].0, sl[i].1))
    };
    VideoPalette {
        start: build(0.0),
        end: build(rotation),
    }
}

fn luminance(c: Rgbf) -> f32 {
    0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]
}

/// The project's palette on the five roles: sorted dark to light, so the ground is the
/// darkest colour and highlights the lightest; `end` cycles every role one colour along.
fn graded_palette(colors: &[[u8; 3]]) -> VideoPalette {
    let mut sorted: Vec<Rgbf> = colors
        .iter()
        .map(|c| c.map(|v| f32::from(v) / 255.0))
        .collect();
    // Stable sort on a total order keeps equal-luminance colours in the given order.
    sorted.sort_by(|a, b| luminance(*a).total_cmp(&luminance(*b)));
    let n = sorted.len();
    let pick = |role: usize, cycle: usize| -> Rgbf {
        let index = (role * (n - 1) + 2) / 4;
        sorted[(index + cycle) % n]
    };
    VideoPalette {
        start: std::array::from_fn(|role| pick(role, 0)),
        end: std::array::from_fn(|role| pick(role, 1)),
    }
}

/// Colours for a render: the graded palette when there is a non-empty one, else the prompt's.
pub(super) fn video_palette(
    prompt: &str,
    graded: Option<&[[u8; 3]]>,
    rng: &mut SplitMix,
) -> VideoPalette {
    // Drawn either way, so the rest of the scene is laid out the same with or without a grade.
    let from_prompt = prompt_palette(prompt, rng);
    match graded {
        Some(colors) if !colors.is_empty() => graded_palette(colors),
        _ => from_prompt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graded_roles_come_from_the_palette_and_cycle() {
        let colors = [[250, 240, 230], [10, 20, 30], [200, 40, 40]];
        let palette = graded_palette(&colors);
        let as_u8 = |c: Rgbf| c.map(|v| (v * 255.0).round() as u8);
        for role in palette.start.iter().chain(palette.end.iter()) {
            assert!(colors.contains(&as_u8(*role)));
        }
        assert_eq!(as_u8(palette.start[0]), [10, 20, 30]);
        assert_eq!(as_u8(palette.start[4]), [250, 240, 230]);
        assert_ne!(palette.start, palette.end);
    }

    #[test]
    fn prompt_palette_rotates_between_start_and_end() {
        let mut rng = SplitMix::new(3);
        let palette = video_palette("a quiet ocean", None, &mut rng);
        assert_ne!(palette.start, palette.end);
        let mut rng = SplitMix::new(3);
        let single = video_palette("a quiet ocean", Some(&[[1, 2, 3]]), &mut rng);
        assert_eq!(single.start, [[1.0 / 255.0, 2.0 / 255.0, 3.0 / 255.0]; 5]);
    }
}
