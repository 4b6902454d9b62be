//! One turntable frame of the 3D viewer: the software rasteriser
//! (`framewright::media::raster3d::render`) drawing the sandbox's procedural model at
//! 100k triangles into 1600×1000 pixels (a full-window viewer at 2× is capped at
//! 1600×1200), plus the copy into an `egui::ColorImage` the texture upload takes. The
//! camera turns 2° between frames, as while orbiting. Target: median ≤ 16 ms (60 fps).
//!
//! `cargo bench --bench turntable_frame`

use std::time::{Duration, Instant};

use framewright::media::mesh::load_glb;
use framewright::media::raster3d::{Camera, RgbaBuffer, render};
use framewright::sandbox::procedural_glb;

const WARMUP_RUNS: usize = 5;
const RUNS: usize = 60;

fn stats(mut samples: Vec<Duration>) -> (Duration, Duration, Duration) {
    samples.sort_unstable();
    let median = samples[samples.len() / 2];
    let p95 = samples[(samples.len() * 95 / 100).min(samples.len() - 1)];
    (samples[0], median, p95)
}

fn main() {
    for (triangles, width, height) in [
        (20_000u32, 1600u32, 1000u32),
        (100_000, 1600, 1000),
        (100_000, 800, 600),
        (300_000, 1600, 1000),
    ] {
        let mesh = load_glb(&procedural_glb(11, triangles)).expect("the sandbox's GLB loads");
        let mut camera = Camera::framing(&mesh.bounds);
        let mut buffer = RgbaBuffer::new([30, 30, 34, 255]);
        let mut frame = |camera: &Camera| {
            render(&mesh, camera, width, height, &mut buffer);
            let image = egui::ColorImage::from_rgba_unmultiplied(
                [buffer.width as usize, buffer.height as usize],
                &buffer.rgba,
            );
            std::hint::black_box(image);
        };
        for _ in 0..WARMUP_RUNS {
            camera.orbit(2f32.to_radians(), 0.0);
            frame(&camera);
        }
        let mut samples = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            camera.orbit(2f32.to_radians(), 0.0);
            let started = Instant::now();
            frame(&camera);
            samples.push(started.elapsed());
        }
        let (min, median, p95) = stats(samples);
        println!(
            "turntable_frame {} triangles at {width}x{height}: min {:.1} ms, median {:.1} ms, p95 {:.1} ms",
            mesh.triangle_count(),
            min.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            p95.as_secs_f64() * 1e3
        );
    }
}
