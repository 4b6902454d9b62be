//! Median-cut colour quantisation over the pixels of one or more RGBA8 images.
//!
//! Deterministic on purpose: the studio's instant local preview and the sandbox's
//! `POST /color-palettes/analyze` run this same function on the same decoded pixels and must
//! agree colour for colour. No randomness, no thread-count dependence, stable sorts only.

use super::rgb::{Lab, Rgb};

/// A borrowed RGBA8 image (`rgba.len()` should be `width * height * 4`; a short buffer is
/// read only as far as it goes).
#[derive(Clone, Copy, Debug)]
pub struct ImageRef<'a> {
    pub width: u32,
    pub height: u32,
    pub rgba: &'a [u8],
}

/// One extracted colour and how many sampled pixels it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swatch {
    pub rgb: Rgb,
    pub population: u64,
}

/// Sampled pixels across all images of one extraction. 512×512 keeps a 4096×4096 photo
/// well under the 50 ms budget while still seeing every region of the frame.
const SAMPLE_BUDGET_PIXELS: u64 = 512 * 512;
/// Pixels with alpha below this are treated as transparent and ignored.
const MIN_OPAQUE_ALPHA: u8 = 128;
/// Bits kept per channel in the histogram (5 → 32 768 bins), the classic MMCQ resolution.
const HISTOGRAM_BITS: u32 = 5;
/// Two swatches closer than this CIE76 ΔE read as the same colour and are merged.
const NEAR_DUPLICATE_DELTA_E: f32 = 12.0;
/// Median cut produces this many times `max_colors` boxes before merging, so that merging
/// near-duplicates of a dominant colour still leaves room for the minor ones.
const OVERSPLIT_FACTOR: usize = 2;

/// A histogram bin: quantised coordinates plus the exact sums of the pixels that fell in it,
/// so that a flat colour comes back exactly rather than snapped to the bin centre.
#[derive(Clone, Copy, Debug)]
struct Bin {
    q: [u8; 3],
    count: u64,
    sum: [u64; 3],
}

/// Median-cut over the pixels of 1..N images, ignoring transparent pixels, sampling large
/// images on a deterministic grid, merging near-duplicate colours; ordered by population
/// (largest first, ties by hex), at most `max_colors` swatches.
///
/// Every image gets an equal share of the sample budget, so a small reference image counts
/// as much as a large one (the user picked both as inspiration).
pub fn extract_swatches(images: &[ImageRef<'_>], max_colors: usize) -> Vec<Swatch> {
    if images.is_empty() || max_colors == 0 {
        return Vec::new();
    }
    let bins = histogram(images);
    if bins.is_empty() {
        return Vec::new();
    }
    let target_boxes = max_colors.saturating_mul(OVERSPLIT_FACTOR).max(1);
    let boxes = median_cut(bins, target_boxes);
    let mut swatches: Vec<Acc> = boxes.iter().map(|b| Acc::from_bins(b)).collect();
    merge_near_duplicates(&mut swatches);
    let mut out: Vec<Swatch> = swatches.iter().map(Acc::swatch).collect();
    out.sort_by(|a, b| {
        b.population
            .cmp(&a.population)
            .then_with(|| a.rgb.to_hex().cmp(&b.rgb.to_hex()))
    });
    out.truncate(max_colors);
    out
}

fn histogram(images: &[ImageRef<'_>]) -> Vec<Bin> {
    let side = 1usize << HISTOGRAM_BITS;
    let mut counts = vec![0u64; side * side * side];
    let mut sums = vec![[0u64; 3]; side * side * side];
    let shift = 8 - HISTOGRAM_BITS;
    let per_image_budget = (SAMPLE_BUDGET_PIXELS / images.len() as u64).max(1);
    for image in images {
        let (w, h) = (image.width as usize, image.height as usize);
        let pixels = (w as u64).saturating_mul(h as u64);
        if pixels == 0 {
            continue;
        }
        // Grid stride so that about `per_image_budget` pixels are visited.
        let step_px = ((pixels as f64 / per_image_budget as f64).sqrt().ceil() as usize).max(1);
        let offset_px = step_px / 2;
        for y in (offset_px.min(h - 1)..h).step_by(step_px) {
            let row_start = y * w * 4;
            for x in (offset_px.min(w - 1)..w).step_by(step_px) {
                let i = row_start + x * 4;
                let Some(px) = image.rgba.get(i..i + 4) else {
                    break;
                };
                if px[3] < MIN_OPAQUE_ALPHA {
                    continue;
                }
                let q = ((px[0] as usize >> shift) << (2 * HISTOGRAM_BITS))
                    | ((px[1] as usize >> shift) << HISTOGRAM_BITS)
                    | (px[2] as usize >> shift);
                counts[q] += 1;
                let s = &mut sums[q];
                s[0] += u64::from(px[0]);
                s[1] += u64::from(px[1]);
                s[2] += u64::from(px[2]);
            }
        }
    }
    let mask = side - 1;
    counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(q, &count)| Bin {
            q: [
                (q >> (2 * HISTOGRAM_BITS)) as u8,
                ((q >> HISTOGRAM_BITS) & mask) as u8,
                (q & mask) as u8,
            ],
            count,
            sum: sums[q],
        })
        .collect()
}

/// Splits the bins into at most `target` boxes, always cutting the most populous box that
/// still holds more than one bin, along its widest channel, at the population median.
fn median_cut(bins: Vec<Bin>, target: usize) -> Vec<Vec<Bin>> {
    let mut boxes = vec![bins];
    while boxes.len() < target {
        let candidate = boxes
            .iter()
            .enumerate()
            .filter(|(_, b)| b.len() > 1)
            .max_by(|(ia, a), (ib, b)| {
                population(a)
                    .cmp(&population(b))
                    // Earlier box wins ties, so the choice never depends on anything but data.
                    .then_with(|| ib.cmp(ia))
            })
            .map(|(i, _)| i);
        let Some(index) = candidate else {
            break;
        };
        let mut bx = boxes.swap_remove(index);
        let channel = widest_channel(&bx);
        bx.sort_by_key(|b| (b.q[channel], b.q[(channel + 1) % 3], b.q[(channel + 2) % 3]));
        let half = population(&bx).div_ceil(2);
        let mut running = 0u64;
        let mut split_at = bx.len() - 1;
        for (i, b) in bx.iter().enumerate() {
            running += b.count;
            if running >= half {
                split_at = i + 1;
                break;
            }
        }
        // Both halves must be non-empty.
        let split_at = split_at.clamp(1, bx.len() - 1);
        let upper = bx.split_off(split_at);
        boxes.push(bx);
        boxes.push(upper);
    }
    boxes
}

fn population(bins: &[Bin]) -> u64 {
    bins.iter().map(|b| b.count).sum()
}

fn widest_channel(bins: &[Bin]) -> usize {
    let mut best = (0usize, 0u8);
    for channel in 0..3 {
        let (lo, hi) = bins.iter().fold((u8::MAX, 0u8), |(lo, hi), b| {
            (lo.min(b.q[channel]), hi.max(b.q[channel]))
        });
        let range = hi.saturating_sub(lo);
        if range > best.1 {
            best = (channel, range);
        }
    }
    best.0
}

/// A population-weighted colour accumulator.
#[derive(Clone, Copy, Debug)]
struct Acc {
    count: u64,
    sum: [u64; 3],
}

impl Acc {
    fn from_bins(bins: &[Bin]) -> Acc {
        bins.iter().fold(
            Acc {
                count: 0,
                sum: [0; 3],
            },
            |acc, b| Acc {
                count: acc.count + b.count,
                sum: [
                    acc.sum[0] + b.sum[0],
                    acc.sum[1] + b.sum[1],
                    acc.sum[2] + b.sum[2],
                ],
            },
        )
    }

    fn rgb(&self) -> Rgb {
        let mean = |s: u64| ((s + self.count / 2) / self.count.max(1)).min(255) as u8;
        Rgb::new(mean(self.sum[0]), mean(self.sum[1]), mean(self.sum[2]))
    }

    fn lab(&self) -> Lab {
        self.rgb().to_lab()
    }

    fn swatch(&self) -> Swatch {
        Swatch {
            rgb: self.rgb(),
            population: self.count,
        }
    }
}

/// Repeatedly merges the closest pair of swatches while it is nearer than the threshold.
/// Quadratic, but there are at most `2 × max_colors` swatches.
fn merge_near_duplicates(swatches: &mut Vec<Acc>) {
    let limit_sq = NEAR_DUPLICATE_DELTA_E * NEAR_DUPLICATE_DELTA_E;
    loop {
        let mut closest: Option<(usize, usize, f32)> = None;
        for i in 0..swatches.len() {
            for j in i + 1..swatches.len() {
                let d = swatches[i].lab().distance_sq(swatches[j].lab());
                if d < limit_sq && closest.is_none_or(|(_, _, best)| d < best) {
                    closest = Some((i, j, d));
                }
            }
        }
        let Some((i, j, _)) = closest else {
            return;
        };
        let other = swatches.remove(j);
        let kept = &mut swatches[i];
        kept.count += other.count;
        for c in 0..3 {
            kept.sum[c] += other.sum[c];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A width×height image filled with horizontal bands of `(colour, rows)`.
    fn banded(width: u32, bands: &[([u8; 4], u32)]) -> (u32, u32, Vec<u8>) {
        let height: u32 = bands.iter().map(|(_, rows)| rows).sum();
        let mut rgba = Vec::with_capacity((width * height * 4) as usize);
        for (colour, rows) in bands {
            for _ in 0..(width * rows) {
                rgba.extend_from_slice(colour);
            }
        }
        (width, height, rgba)
    }

    /// Median-cut over a `banded` test image.
    fn extract_banded(side_px: u32, bands: &[([u8; 4], u32)], max_colors: usize) -> Vec<Swatch> {
        let (width, height, rgba) = banded(side_px, bands);
        extract_swatches(
            &[ImageRef {
                width,
                height,
                rgba: &rgba,
            }],
            max_colors,
        )
    }

    fn close(a: Rgb, b: Rgb, tolerance: u8) -> bool {
        a.r.abs_diff(b.r) <= tolerance
            && a.g.abs_diff(b.g) <= tolerance
            && a.b.abs_diff(b.b) <= tolerance
    }

    #[test]
    fn populations_come_back_in_order() {
        let swatches = extract_banded(
            100,
            &[
                ([220, 20, 30, 255], 60),
                ([20, 40, 200, 255], 30),
                ([240, 220, 20, 255], 10),
            ],
            6,
        );
        assert_eq!(swatches.len(), 3, "{swatches:?}");
        assert!(close(swatches[0].rgb, Rgb::new(220, 20, 30), 2));
        assert!(close(swatches[1].rgb, Rgb::new(20, 40, 200), 2));
        assert!(close(swatches[2].rgb, Rgb::new(240, 220, 20), 2));
        let total: u64 = swatches.iter().map(|s| s.population).sum();
        // Population shares survive sampling (60/30/10 within a couple of percent).
        let share = |i: usize| swatches[i].population as f64 / total as f64;
        assert!((share(0) - 0.6).abs() < 0.03 && (share(1) - 0.3).abs() < 0.03);
    }

    #[test]
    fn near_duplicates_are_merged() {
        let swatches = extract_banded(
            64,
            &[
                ([200, 30, 30, 255], 20),
                ([204, 32, 28, 255], 20),
                ([30, 30, 200, 255], 24),
            ],
            6,
        );
        assert_eq!(swatches.len(), 2, "{swatches:?}");
        assert!(close(swatches[0].rgb, Rgb::new(202, 31, 29), 2));
        assert_eq!(swatches[0].population, 64 * 40);
    }

    #[test]
    fn transparent_pixels_are_ignored() {
        let swatches = extract_banded(32, &[([0, 255, 0, 0], 30), ([250, 250, 250, 255], 2)], 6);
        assert_eq!(swatches.len(), 1);
        assert_eq!(swatches[0].rgb, Rgb::new(250, 250, 250));
    }

    #[test]
    fn a_single_colour_image_gives_one_exact_swatch() {
        let swatches = extract_banded(40, &[([17, 130, 140, 255], 40)], 6);
        assert_eq!(
            swatches,
            vec![Swatch {
                rgb: Rgb::new(17, 130, 140),
                population: 1600
            }]
        );
    }

    #[test]
    fn never_more_than_max_colors_and_empty_input_is_empty() {
        let mut rgba = Vec::new();
        for i in 0..(64u32 * 64) {
            let v = (i * 37 % 256) as u8;
            rgba.extend_from_slice(&[v, 255 - v, (i % 7 * 36) as u8, 255]);
        }
        let image = ImageRef {
            width: 64,
            height: 64,
            rgba: &rgba,
        };
        assert!(extract_swatches(&[image], 4).len() <= 4);
        assert!(extract_swatches(&[], 6).is_empty());
        assert!(
            extract_swatches(
                &[ImageRef {
                    width: 0,
                    height: 0,
                    rgba: &[]
                }],
                6
            )
            .is_empty()
        );
    }

    #[test]
    fn colours_of_several_images_are_pooled() {
        let (w, h, red) = banded(10, &[([230, 10, 10, 255], 10)]);
        let (_, _, blue) = banded(10, &[([10, 10, 230, 255], 10)]);
        let swatches = extract_swatches(
            &[
                ImageRef {
                    width: w,
                    height: h,
                    rgba: &red,
                },
                ImageRef {
                    width: w,
                    height: h,
                    rgba: &blue,
                },
            ],
            6,
        );
        assert_eq!(swatches.len(), 2);
    }

    #[test]
    fn large_images_are_sampled_not_exhaustively_counted() {
        let swatches = extract_banded(2048, &[([90, 90, 90, 255], 2048)], 6);
        assert_eq!(swatches.len(), 1);
        assert!(swatches[0].population <= SAMPLE_BUDGET_PIXELS);
    }
}
