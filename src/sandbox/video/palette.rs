//! Colours for a video: five roles (dark ground, mid, light, accent, highlight), either from
//! the prompt (the still renderer's recipe: a mood hue plus spread and complement) or from the
//! project's palette. Each video has two palettes, `start` and `end`, and the frames cross-fade
//! from one to the other: a hue rotation for prompt colours, a palette cycle for a graded one.

use super::super::ids::SplitMix;

// The colour helpers are the still renderer's, so a prompt's video and its images share a
// colour family.
pub(super) use crate::sandbox::render::{Rgbf, base_hue, hsl, mix};

/// The five colour roles a scene paints with.
pub(super) type Roles = [Rgbf; 5];

/// The start and end colours of a video.
pub(super) struct VideoPalette {
    pub start: Roles,
    pub end: Roles,
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
