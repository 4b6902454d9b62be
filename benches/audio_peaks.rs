//! Waveform peaks of a 10-minute 128 kbps MP3 (`audio::compute_peaks`, 2000 buckets):
//! min/median/max over runs, the exact full-decode reference for accuracy, and
//! `ffmpeg -threads 1 -i F -f null -` (a full decode) on the same file when ffmpeg is
//! installed. Run: `cargo bench --bench audio_peaks`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use framewright::audio::peaks::{DEFAULT_BUCKETS, compute_peaks, compute_peaks_exact};
use framewright::audio::testing::mp3_bytes;

const RATE: u32 = 44_100;
const SECS: f64 = 600.0;

/// A 10-minute stereo "track": chords whose loudness changes every 5 s, a few silent
/// passages, and noise bursts, so the waveform has a shape to get right.
fn track() -> Vec<f32> {
    let n = (SECS * RATE as f64) as usize;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let sections: Vec<f64> = (0..(SECS / 5.0) as usize + 1)
        .map(|i| if i % 17 == 5 { 0.0 } else { 0.1 + 0.8 * rnd() })
        .collect();
    let mut out = Vec::with_capacity(n * 2);
    for i in 0..n {
        let t = i as f64 / RATE as f64;
        let s = (t / 5.0) as usize;
        // Smooth the step between sections over 50 ms.
        let frac = ((t % 5.0) / 0.05).min(1.0);
        let prev = if s == 0 { sections[0] } else { sections[s - 1] };
        let amp = prev + (sections[s] - prev) * frac;
        let tone = (2.0 * std::f64::consts::PI * 220.0 * t).sin() * 0.5
            + (2.0 * std::f64::consts::PI * 277.2 * t).sin() * 0.3
            + (2.0 * std::f64::consts::PI * 329.6 * t).sin() * 0.2;
        let noise = if (t % 13.0) < 0.3 { rnd() - 0.5 } else { 0.0 };
        let v = (amp * tone * 0.9 + noise * amp) as f32;
        out.push(v);
        out.push(v * 0.8);
    }
    out
}

fn fixture() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("audio_peaks_10min_128k.mp3");
    if !path.exists() {
        let start = Instant::now();
        let mp3 = mp3_bytes(&track(), RATE, 2, 128);
        std::fs::write(&path, &mp3).expect("write the MP3");
        eprintln!(
            "made {} ({:.1} MB) in {:.1} s",
            path.display(),
            mp3.len() as f64 / 1e6,
            start.elapsed().as_secs_f64()
        );
    }
    path
}

/// CPU time this thread has used (the machine is shared: wall time includes waiting).
fn thread_cpu() -> Duration {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let ns = text
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    Duration::from_nanos(ns)
}

fn stats(mut v: Vec<Duration>) -> (f64, f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (ms(v[0]), ms(v[v.len() / 2]), ms(v[v.len() - 1]))
}

fn main() {
    let path = fixture();
    let runs = 15;
    // Warm the page cache.
    let _ = compute_peaks(&path, DEFAULT_BUCKETS).expect("peaks");
    let mut times = Vec::new();
    let mut cpu_times = Vec::new();
    let mut peaks = None;
    for _ in 0..runs {
        let start = Instant::now();
        let cpu = thread_cpu();
        peaks = Some(compute_peaks(&path, DEFAULT_BUCKETS).expect("peaks"));
        cpu_times.push(thread_cpu() - cpu);
        times.push(start.elapsed());
    }
    let (min, median, max) = stats(times);
    let (cmin, cmedian, cmax) = stats(cpu_times);
    println!(
        "compute_peaks, 10 min 128 kbps MP3, {DEFAULT_BUCKETS} buckets, {runs} runs: wall min {min:.1} ms, median {median:.1} ms, max {max:.1} ms; CPU min {cmin:.1} ms, median {cmedian:.1} ms, max {cmax:.1} ms"
    );
    let peaks = peaks.expect("peaks");

    let start = Instant::now();
    let exact_cache = path.with_extension("exact-peaks");
    let cached = exact_cache.exists();
    let exact = match std::fs::read(&exact_cache)
        .ok()
        .and_then(|b| framewright::audio::Peaks::from_bytes(&b))
    {
        Some(p) => p,
        None => {
            let p = compute_peaks_exact(&path, DEFAULT_BUCKETS).expect("exact peaks");
            let _ = std::fs::write(&exact_cache, p.to_bytes());
            p
        }
    };
    let exact_ms = start.elapsed().as_secs_f64() * 1000.0;
    if !cached {
        println!("compute_peaks_exact (every sample, symphonia): {exact_ms:.1} ms");
    }
    // Accuracy against every sample: mean and worst absolute difference of each bucket's
    // max and min.
    let mut sum = 0.0f64;
    let mut worst = 0.0f32;
    for (a, b) in peaks.buckets.iter().zip(&exact.buckets) {
        let d = (a.1 - b.1).abs().max((a.0 - b.0).abs());
        sum += d as f64;
        worst = worst.max(d);
    }
    let n = peaks.buckets.len().max(1) as f64;
    let within = peaks
        .buckets
        .iter()
        .zip(&exact.buckets)
        .filter(|(a, b)| (a.1 - b.1).abs() <= 0.05 && (a.0 - b.0).abs() <= 0.05)
        .count();
    println!(
        "accuracy vs every sample: mean |diff| {:.4}, worst {:.3}, buckets within 0.05: {:.1} %; durations {:.2} s vs {:.2} s",
        sum / n,
        worst,
        within as f64 * 100.0 / n,
        peaks.duration_secs,
        exact.duration_secs
    );

    let ffmpeg = std::process::Command::new("ffmpeg")
        .arg("-version")
        .output();
    if ffmpeg.is_ok_and(|o| o.status.success()) {
        let mut times = Vec::new();
        let mut cpu_times = Vec::new();
        for _ in 0..5 {
            let start = Instant::now();
            let out = std::process::Command::new("ffmpeg")
                .args(["-benchmark", "-threads", "1", "-i"])
                .arg(&path)
                .args(["-f", "null", "-"])
                .output()
                .expect("ffmpeg");
            assert!(out.status.success());
            times.push(start.elapsed());
            // "bench: utime=0.419s stime=0.016s rtime=0.667s"
            let log = String::from_utf8_lossy(&out.stderr);
            let field = |name: &str| -> f64 {
                log.split_whitespace()
                    .find_map(|w| w.strip_prefix(name))
                    .and_then(|v| v.trim_end_matches('s').parse().ok())
                    .unwrap_or(0.0)
            };
            cpu_times.push(Duration::from_secs_f64(field("utime=") + field("stime=")));
        }
        let (fmin, fmedian, fmax) = stats(times);
        let (_, fcpu, _) = stats(cpu_times);
        println!(
            "ffmpeg -threads 1 -i F -f null - (full decode), 5 runs: wall min {fmin:.1} ms, median {fmedian:.1} ms, max {fmax:.1} ms; CPU median {fcpu:.1} ms. compute_peaks / ffmpeg: wall {:.2}×, CPU {:.2}×",
            median / fmedian,
            cmedian / fcpu
        );
    } else {
        println!("ffmpeg not installed: no comparison");
    }
}
