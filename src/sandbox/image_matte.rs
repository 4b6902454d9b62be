//! The pixel work of the image tools (POST /v1/edit/image): Lanczos3 upscaling and a
//! background-removal matte. Pure functions on decoded images, run on the blocking pool.
//!
//! The matte is a classical one (no model): the background is whatever colours the image's
//! border shows (clustered into a few representative colours; small groups are the subject
//! touching the edge and are dropped), a pixel's distance to the nearest of them says how
//! background-like it is, a flood fill from the border keeps only background-like regions
//! connected to the edge without crossing a colour edge (so a subject's own dark or pale
//! parts are not punched out), and a small blur feathers the edge.

use image::imageops::{self, FilterType};
use image::{DynamicImage, GrayImage, Luma, RgbaImage};
use std::collections::VecDeque;

/// Longest side an upscale may produce; a larger result is scaled down to fit (the
/// effective factor is then below the requested one; docs/SANDBOX.md, "Image tools").
pub(crate) const MAX_OUTPUT_SIDE_PX: u32 = 8192;

/// `source` enlarged by `scale` with Lanczos3, the long side capped at
/// [`MAX_OUTPUT_SIDE_PX`]. Alpha is kept.
pub(crate) fn upscale(source: &DynamicImage, scale: u32) -> RgbaImage {
    let (w, h) = (source.width().max(1), source.height().max(1));
    let wanted_long = w.max(h).saturating_mul(scale.max(1));
    let fit = if wanted_long > MAX_OUTPUT_SIDE_PX {
        f64::from(MAX_OUTPUT_SIDE_PX) / f64::from(wanted_long)
    } else {
        1.0
    };
    let target = |side: u32| ((f64::from(side) * f64::from(scale) * fit).round() as u32).max(1);
    imageops::resize(
        &source.to_rgba8(),
        target(w),
        target(h),
        FilterType::Lanczos3,
    )
}

/// Border colours are grouped into at most this many representatives.
const BORDER_CLUSTERS: usize = 6;
/// Border band sampled for the background, as a share of the short side (at least 1 px).
const BORDER_BAND_SHARE: f32 = 0.02;
/// Colour distance (0-441 in RGB) at or below which a pixel is plainly background…
const BACKGROUND_DISTANCE: f32 = 38.0;
/// …and at or above which it is plainly subject; in between the alpha ramps.
const SUBJECT_DISTANCE: f32 = 70.0;
/// A border colour group smaller than this share of the border is the subject touching the
/// edge, not background.
const MIN_CLUSTER_SHARE: f32 = 0.08;
/// The flood fill does not step between neighbours further apart in colour than this: it
/// stops at edges instead of leaking into a subject of a similar colour.
const EDGE_STEP_DISTANCE: f32 = 28.0;
/// Feather radius as a share of the short side (at least 1 px).
const FEATHER_SHARE: f32 = 0.004;

/// `source` with its background made transparent: alpha 0 where the border's colours
/// reach in from the edge, 255 on the subject, a soft ramp and a feathered edge between.
pub(crate) fn remove_background(source: &DynamicImage) -> RgbaImage {
    let mut rgba = source.to_rgba8();
    let (w, h) = rgba.dimensions();
    if w < 3 || h < 3 {
        return rgba;
    }
    let border = border_colours(&rgba);
    let centres = dominant(&border, cluster(&border, BORDER_CLUSTERS));
    let distance: Vec<f32> = rgba
        .pixels()
        .map(|p| nearest_distance(&centres, [p[0], p[1], p[2]]))
        .collect();
    let colours: Vec<[f32; 3]> = rgba
        .pixels()
        .map(|p| [f32::from(p[0]), f32::from(p[1]), f32::from(p[2])])
        .collect();
    let reached = flood_from_border(w, h, &distance, &colours);
    let mut alpha = GrayImage::new(w, h);
    for (index, value) in alpha.pixels_mut().enumerate() {
        let a = if reached[index] {
            ramp(distance[index])
        } else {
            1.0
        };
        *value = Luma([(a * 255.0).round() as u8]);
    }
    let radius = (w.min(h) as f32 * FEATHER_SHARE).max(1.0);
    let alpha = imageops::blur(&alpha, radius);
    for (pixel, a) in rgba.pixels_mut().zip(alpha.pixels()) {
        // A source that was already transparent stays so.
        pixel[3] = ((u16::from(pixel[3]) * u16::from(a[0])) / 255) as u8;
    }
    rgba
}

/// 0 at [`BACKGROUND_DISTANCE`] and below, 1 at [`SUBJECT_DISTANCE`] and above, smooth
/// between.
fn ramp(distance: f32) -> f32 {
    let t = ((distance - BACKGROUND_DISTANCE) / (SUBJECT_DISTANCE - BACKGROUND_DISTANCE))
        .clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn border_colours(image: &RgbaImage) -> Vec<[f32; 3]> {
    let (w, h) = image.dimensions();
    let band = ((w.min(h) as f32 * BORDER_BAND_SHARE).round() as u32).max(1);
    let mut colours = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let on_border = x < band || y < band || x + band >= w || y + band >= h;
            if on_border {
                let p = image.get_pixel(x, y);
                colours.push([f32::from(p[0]), f32::from(p[1]), f32::from(p[2])]);
            }
        }
    }
    colours
}

/// A few rounds of k-means, seeded with evenly spaced samples (deterministic).
fn cluster(samples: &[[f32; 3]], k: usize) -> Vec<[f32; 3]> {
    if samples.is_empty() {
        return vec![[0.0; 3]];
    }
    let k = k.min(samples.len()).max(1);
    let mut centres: Vec<[f32; 3]> = (0..k).map(|i| samples[i * samples.len() / k]).collect();
    for _ in 0..8 {
        let mut sums = vec![[0.0f64; 4]; k];
        for sample in samples {
            let nearest = nearest_index(&centres, *sample);
            for c in 0..3 {
                sums[nearest][c] += f64::from(sample[c]);
            }
            sums[nearest][3] += 1.0;
        }
        for (centre, sum) in centres.iter_mut().zip(&sums) {
            if sum[3] > 0.0 {
                *centre = [
                    (sum[0] / sum[3]) as f32,
                    (sum[1] / sum[3]) as f32,
                    (sum[2] / sum[3]) as f32,
                ];
            }
        }
    }
    centres
}

/// The cluster centres that hold at least [`MIN_CLUSTER_SHARE`] of the border (all of them
/// if none does).
fn dominant(samples: &[[f32; 3]], centres: Vec<[f32; 3]>) -> Vec<[f32; 3]> {
    let mut counts = vec![0usize; centres.len()];
    for sample in samples {
        counts[nearest_index(&centres, *sample)] += 1;
    }
    let minimum = (samples.len() as f32 * MIN_CLUSTER_SHARE) as usize;
    let kept: Vec<[f32; 3]> = centres
        .iter()
        .zip(&counts)
        .filter(|(_, count)| **count >= minimum.max(1))
        .map(|(centre, _)| *centre)
        .collect();
    if kept.is_empty() { centres } else { kept }
}

fn squared(a: [f32; 3], b: [f32; 3]) -> f32 {
    (0..3).map(|c| (a[c] - b[c]).powi(2)).sum()
}

fn nearest_index(centres: &[[f32; 3]], colour: [f32; 3]) -> usize {
    let mut best = (0, f32::MAX);
    for (index, centre) in centres.iter().enumerate() {
        let d = squared(*centre, colour);
        if d < best.1 {
            best = (index, d);
        }
    }
    best.0
}

fn nearest_distance(centres: &[[f32; 3]], pixel: [u8; 3]) -> f32 {
    let colour = pixel.map(f32::from);
    centres
        .iter()
        .map(|c| squared(*c, colour))
        .fold(f32::MAX, f32::min)
        .sqrt()
}

/// Pixels reachable from the border through background-like pixels (distance below
/// [`SUBJECT_DISTANCE`]) without crossing an edge (a neighbour step above
/// [`EDGE_STEP_DISTANCE`]); 4-neighbourhood, breadth first.
fn flood_from_border(w: u32, h: u32, distance: &[f32], colours: &[[f32; 3]]) -> Vec<bool> {
    let (w, h) = (w as usize, h as usize);
    let mut reached = vec![false; w * h];
    let mut queue = VecDeque::new();
    let edge_step = EDGE_STEP_DISTANCE * EDGE_STEP_DISTANCE;
    let visit = |from: Option<usize>,
                 index: usize,
                 queue: &mut VecDeque<usize>,
                 reached: &mut Vec<bool>| {
        let smooth = from.is_none_or(|from| squared(colours[from], colours[index]) < edge_step);
        if !reached[index] && distance[index] < SUBJECT_DISTANCE && smooth {
            reached[index] = true;
            queue.push_back(index);
        }
    };
    for x in 0..w {
        visit(None, x, &mut queue, &mut reached);
        visit(None, (h - 1) * w + x, &mut queue, &mut reached);
    }
    for y in 0..h {
        visit(None, y * w, &mut queue, &mut reached);
        visit(None, y * w + w - 1, &mut queue, &mut reached);
    }
    while let Some(index) = queue.pop_front() {
        let (x, y) = (index % w, index / w);
        let from = Some(index);
        if x > 0 {
            visit(from, index - 1, &mut queue, &mut reached);
        }
        if x + 1 < w {
            visit(from, index + 1, &mut queue, &mut reached);
        }
        if y > 0 {
            visit(from, index - w, &mut queue, &mut reached);
        }
        if y + 1 < h {
            visit(from, index + w, &mut queue, &mut reached);
        }
    }
    reached
}

/// Side of one square of the checkerboard a cut-out's thumbnail is shown on.
const CHECKER_PX: u32 = 8;

/// The JPEG thumbnail of a cut-out or an upscale: scaled down first (an upscale can be
/// 8192 px on its long side; compositing that whole image only to shrink it would take
/// seconds), then shown over a checkerboard, since JPEG has no alpha.
pub(crate) fn thumbnail_over_checkerboard(image: &RgbaImage) -> image::RgbImage {
    match super::render::thumbnail_size(image.dimensions()) {
        Some((w, h)) => over_checkerboard(&imageops::thumbnail(image, w, h)),
        None => over_checkerboard(image),
    }
}

/// `image` composited over a light checkerboard (for JPEG thumbnails, which have no alpha).
pub(crate) fn over_checkerboard(image: &RgbaImage) -> image::RgbImage {
    image::RgbImage::from_fn(image.width(), image.height(), |x, y| {
        let light = ((x / CHECKER_PX) + (y / CHECKER_PX)).is_multiple_of(2);
        let back = if light { 236.0 } else { 204.0 };
        let p = image.get_pixel(x, y);
        let a = f32::from(p[3]) / 255.0;
        image::Rgb([p[0], p[1], p[2]].map(|c| (f32::from(c) * a + back * (1.0 - a)).round() as u8))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Rgb, RgbImage};

    #[test]
    fn upscale_multiplies_the_size_and_caps_the_long_side() {
        let source = DynamicImage::ImageRgb8(RgbImage::new(30, 20));
        assert_eq!(upscale(&source, 2).dimensions(), (60, 40));
        assert_eq!(upscale(&source, 4).dimensions(), (120, 80));
        let big = DynamicImage::ImageRgb8(RgbImage::new(3000, 1500));
        assert_eq!(upscale(&big, 4).dimensions(), (8192, 4096));
    }

    #[test]
    fn a_disc_on_a_plain_ground_is_cut_out_and_its_inner_hole_kept() {
        // A red disc with a green centre "hole" on a green ground: the hole is not
        // connected to the border, so it stays opaque.
        let image = RgbImage::from_fn(100, 100, |x, y| {
            let d = ((x as f32 - 50.0).powi(2) + (y as f32 - 50.0).powi(2)).sqrt();
            if !(10.0..30.0).contains(&d) {
                Rgb([30, 160, 40])
            } else {
                Rgb([200, 30, 30])
            }
        });
        let matte = remove_background(&DynamicImage::ImageRgb8(image));
        assert_eq!(matte.get_pixel(2, 2)[3], 0);
        assert_eq!(matte.get_pixel(50, 30)[3], 255);
        assert_eq!(matte.get_pixel(50, 50)[3], 255);
    }
}
