//! Loading a generated 3D model for the viewer (`framewright::media::mesh::load_glb`):
//! the sandbox's procedural GLB at 20k (its default), 100k and 300k (its maximum)
//! triangles, parsed into the turntable's mesh. Target: ≤ 200 ms at 100k in release.
//!
//! `cargo bench --bench mesh_load`

use std::time::{Duration, Instant};

use framewright::media::mesh::load_glb;
use framewright::sandbox::procedural_glb;

const WARMUP_RUNS: usize = 2;
const RUNS: usize = 15;

fn stats(mut samples: Vec<Duration>) -> (Duration, Duration, Duration) {
    samples.sort_unstable();
    let median = samples[samples.len() / 2];
    let p95 = samples[(samples.len() * 95 / 100).min(samples.len() - 1)];
    (samples[0], median, p95)
}

fn main() {
    for triangles in [20_000u32, 100_000, 300_000] {
        let bytes = procedural_glb(7, triangles);
        for _ in 0..WARMUP_RUNS {
            let _ = load_glb(&bytes);
        }
        let mut samples = Vec::with_capacity(RUNS);
        let mut loaded = 0;
        for _ in 0..RUNS {
            let started = Instant::now();
            let mesh = load_glb(&bytes).expect("the sandbox's GLB loads");
            samples.push(started.elapsed());
            loaded = mesh.triangle_count();
        }
        let (min, median, p95) = stats(samples);
        println!(
            "mesh_load {triangles:>7} triangles asked ({loaded} loaded, {:.1} MB): min {:.1} ms, median {:.1} ms, p95 {:.1} ms",
            bytes.len() as f64 / 1e6,
            min.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            p95.as_secs_f64() * 1e3
        );
    }
}
