//! Local palette extraction (`framewright::palette::analyze`) on a 4096×4096 photo: the
//! studio's instant Color DNA preview and the sandbox's analyze route run exactly this.
//! Target: median ≤ 50 ms in release.
//!
//! The photo is a fixture from the shared fixtures (`FRAMEWRIGHT_FIXTURE_PHOTO`, default
//! `/work/shared/fixtures/photos/chelsea.png`) upscaled to fill 4096×4096; without it a
//! procedural photo-like image is used. Decoding and upscaling are not timed.
//!
//! `cargo bench --bench palette_extract`

use std::time::{Duration, Instant};

use framewright::palette::{ImageRef, analyze, extract_swatches};
use image::RgbaImage;
use image::imageops::FilterType;

const SIDE_PX: u32 = 4096;
const WARMUP_RUNS: usize = 5;
const RUNS: usize = 41;
const DEFAULT_FIXTURE: &str = "/work/shared/fixtures/photos/chelsea.png";

fn photo() -> (RgbaImage, String) {
    let path =
        std::env::var("FRAMEWRIGHT_FIXTURE_PHOTO").unwrap_or_else(|_| DEFAULT_FIXTURE.to_owned());
    match image::open(&path) {
        Ok(decoded) => (
            decoded
                .resize_to_fill(SIDE_PX, SIDE_PX, FilterType::Triangle)
                .to_rgba8(),
            path,
        ),
        Err(error) => {
            eprintln!("fixture {path} unavailable ({error}); using a procedural image");
            let image = RgbaImage::from_fn(SIDE_PX, SIDE_PX, |x, y| {
                let fx = x as f32 / SIDE_PX as f32;
                let fy = y as f32 / SIDE_PX as f32;
                let wave = ((fx * 17.0).sin() * (fy * 11.0).cos() * 0.5 + 0.5) * 255.0;
                image::Rgba([
                    wave as u8,
                    (fy * 255.0) as u8,
                    ((1.0 - fx) * 200.0) as u8,
                    255,
                ])
            });
            (image, "procedural".to_owned())
        }
    }
}

fn stats(mut samples: Vec<Duration>) -> (Duration, Duration, Duration) {
    samples.sort_unstable();
    let median = samples[samples.len() / 2];
    let p95 = samples[(samples.len() * 95 / 100).min(samples.len() - 1)];
    (samples[0], median, p95)
}

fn main() {
    let (image, source) = photo();
    let images = [ImageRef {
        width: image.width(),
        height: image.height(),
        rgba: image.as_raw(),
    }];
    let mut analyze_times = Vec::with_capacity(RUNS);
    let mut swatch_times = Vec::with_capacity(RUNS);
    let mut result = analyze(&images);
    for run in 0..WARMUP_RUNS + RUNS {
        let started = Instant::now();
        result = std::hint::black_box(analyze(std::hint::black_box(&images)));
        let analyze_elapsed = started.elapsed();
        let started = Instant::now();
        std::hint::black_box(extract_swatches(std::hint::black_box(&images), 6));
        let swatch_elapsed = started.elapsed();
        if run >= WARMUP_RUNS {
            analyze_times.push(analyze_elapsed);
            swatch_times.push(swatch_elapsed);
        }
    }
    println!("palette_extract: {SIDE_PX}x{SIDE_PX} from {source}, {RUNS} runs");
    for (label, samples) in [
        ("analyze", analyze_times),
        ("extract_swatches", swatch_times),
    ] {
        let (min, median, p95) = stats(samples);
        println!(
            "  {label:<17} min {:>7.2} ms   median {:>7.2} ms   p95 {:>7.2} ms",
            min.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            p95.as_secs_f64() * 1e3
        );
    }
    let colors: Vec<String> = result
        .colors
        .iter()
        .map(|c| format!("{} {} ({})", c.hex, c.name, c.role.as_str()))
        .collect();
    println!("  palette \"{}\": {}", result.name, colors.join(", "));
}
