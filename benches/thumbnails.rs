//! Thumbnails: a 2048×2048 JPEG to a 256 px thumbnail, images per second.
//!
//! (a) baseline: `image::open(path)?.thumbnail(256, 256)` (full decode, then resize);
//! (b) the studio: read the file's bytes + `framewright::media::decode_image(bytes, 256)`,
//!     which is what a thumbnail worker does after its fetch (JPEG: scaled IDCT decode).
//!
//! The input is a real photo (the astronaut fixture, 512×512) tiled 4×4 with mirroring into
//! 2048×2048, JPEG quality 90, in a temp dir. Tiling keeps photographic detail at every
//! scale (an upscaled photo would be unrealistically smooth and cheap to decode). It is
//! written twice: by the `image` crate (4:4:4 chroma, its only choice) and with 4:2:0 chroma
//! (what cameras and most services write). Runs the paths alternating on one thread, then
//! each on two threads at once (the pipeline's two workers).
//!
//! `cargo bench --bench thumbnails`

use image::codecs::jpeg::JpegEncoder;
use image::{GenericImageView, RgbImage};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const SIDE_PX: u32 = 2048;
const THUMB_PX: u32 = 256;
const JPEG_QUALITY: u8 = 90;
const WARMUP: usize = 3;
const ITERATIONS: usize = 40;
const FIXTURE: &str = "../shared/fixtures/photos/astronaut.png";

fn fixture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)
}

/// 2048×2048 by mirrored tiling, so tile edges meet without seams.
fn make_photo() -> Result<RgbImage, Box<dyn std::error::Error>> {
    let photo = image::open(fixture_path())?.to_rgb8();
    let (w, h) = photo.dimensions();
    let big = RgbImage::from_fn(SIDE_PX, SIDE_PX, |x, y| {
        let mirror = |v: u32, n: u32| {
            let (tile, offset) = (v / n, v % n);
            if tile % 2 == 0 {
                offset
            } else {
                n - 1 - offset
            }
        };
        *photo.get_pixel(mirror(x, w), mirror(y, h))
    });
    Ok(big)
}

/// The photo as the `image` crate writes it (4:4:4).
fn write_444(photo: &RgbImage, dir: &Path) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let path = dir.join("bench-2048-444.jpg");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
    JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY).encode_image(photo)?;
    drop(out);
    Ok(path)
}

/// The photo with 4:2:0 chroma subsampling.
fn write_420(photo: &RgbImage, dir: &Path) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let path = dir.join("bench-2048-420.jpg");
    let mut bytes = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut bytes, JPEG_QUALITY);
    encoder.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
    encoder.encode(
        photo.as_raw(),
        SIDE_PX as u16,
        SIDE_PX as u16,
        jpeg_encoder::ColorType::Rgb,
    )?;
    std::fs::write(&path, bytes)?;
    Ok(path)
}

fn baseline(path: &Path) -> (u32, u32) {
    let thumb = image::open(path)
        .expect("baseline decode")
        .thumbnail(THUMB_PX, THUMB_PX);
    std::hint::black_box(thumb.dimensions())
}

fn studio(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).expect("read input");
    let image = framewright::media::decode_image(&bytes, THUMB_PX).expect("studio decode");
    std::hint::black_box((image.width, image.height))
}

struct Stats {
    median: Duration,
    images_per_sec: f64,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    let total: Duration = samples.iter().sum();
    samples.sort();
    Stats {
        median: samples[samples.len() / 2],
        images_per_sec: samples.len() as f64 / total.as_secs_f64(),
    }
}

/// One thread, the two paths alternating image by image (so a busy neighbour on a small
/// machine slows both alike): per-image times of (a) and (b).
fn measure_alternating(path: &Path) -> (Stats, Stats) {
    for _ in 0..WARMUP {
        baseline(path);
        studio(path);
    }
    let (mut slow, mut fast) = (Vec::new(), Vec::new());
    for _ in 0..ITERATIONS {
        let t = Instant::now();
        baseline(path);
        slow.push(t.elapsed());
        let t = Instant::now();
        studio(path);
        fast.push(t.elapsed());
    }
    (stats(slow), stats(fast))
}

/// Two threads at once, `ITERATIONS` images each: images/s of the pair.
fn measure_two_threads(f: fn(&Path) -> (u32, u32), path: &Path) -> f64 {
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                for _ in 0..ITERATIONS {
                    f(path);
                }
            });
        }
    });
    (2 * ITERATIONS) as f64 / started.elapsed().as_secs_f64()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `cargo bench` passes `--bench`; nothing else is parsed.
    let dir = tempfile::tempdir()?;
    let photo = make_photo()?;
    let inputs = [
        ("4:4:4 (image crate)", write_444(&photo, dir.path())?),
        ("4:2:0", write_420(&photo, dir.path())?),
    ];
    for (label, path) in &inputs {
        run(label, path)?;
    }
    Ok(())
}

fn run(label: &str, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let size_kib = std::fs::metadata(path)?.len() / 1024;
    println!(
        "thumbnails: {SIDE_PX}×{SIDE_PX} JPEG q{JPEG_QUALITY} {label} ({size_kib} KiB) → \
         {THUMB_PX} px, {ITERATIONS} images after {WARMUP} warm-up"
    );
    let (a, b) = (baseline(path), studio(path));
    assert_eq!(a, b, "both paths must produce the same thumbnail size");
    println!("output size: {}×{} (both paths)", a.0, a.1);

    let (slow, fast) = measure_alternating(path);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "(a) image::open + thumbnail    median {:7.2} ms/image   {:7.1} images/s",
        ms(slow.median),
        slow.images_per_sec
    );
    println!(
        "(b) read + decode_image(256)   median {:7.2} ms/image   {:7.1} images/s",
        ms(fast.median),
        fast.images_per_sec
    );
    println!(
        "ratio (b)/(a), one thread: {:.2}× by median time, {:.2}× by images/s",
        slow.median.as_secs_f64() / fast.median.as_secs_f64(),
        fast.images_per_sec / slow.images_per_sec
    );
    let slow_pair = measure_two_threads(baseline, path);
    let fast_pair = measure_two_threads(studio, path);
    println!(
        "two threads at once: (a) {slow_pair:.1} images/s, (b) {fast_pair:.1} images/s, ratio {:.2}×\n",
        fast_pair / slow_pair
    );
    Ok(())
}
