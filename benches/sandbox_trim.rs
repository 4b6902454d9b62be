//! Sandbox trim: how long a frame-accurate 10-s cut of a 60-s 720p sandbox video takes.
//!
//! The source is a 60-s 1280x720 text-to-video clip (H.264 Constrained Baseline, 24 fps, an
//! IDR every second, watermarked), rendered in-process through
//! `framewright::sandbox::render_text_to_video_mp4` (the job's spec); rendering is not timed.
//! Then `framewright::sandbox::trim_video_mp4` (what the trim job runs) cuts 20-30 s a few
//! times: the decoder seeks to the IDR at or before 20 s, decodes 240 frames to RGBA, and
//! they are converted to I420 and re-encoded. The median is reported; the target is that a
//! trim finishes well inside the 2-4 s the contract suggests polling at.
//!
//! `cargo bench --bench sandbox_trim`

#[path = "support/h264_build.rs"]
mod h264_build;
#[path = "support/thread_cpu.rs"]
mod thread_cpu;
use framewright::video_codec::VideoDecoder;
use std::time::Instant;

type BenchResult<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const SOURCE_SECS: f64 = 60.0;
const TRIM_FROM_SECS: f64 = 20.0;
const TRIM_TO_SECS: f64 = 30.0;
const RUNS: usize = 5;
/// A trim should be done before the studio's first poll (2 s).
const TARGET_MEDIAN_SECS: f64 = 2.0;

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() -> BenchResult<()> {
    h264_build::print_assembly();
    let render_start = Instant::now();
    let source = framewright::sandbox::render_text_to_video_mp4(
        "a harbour at dawn, boats drifting",
        42,
        "16:9",
        "720p",
        SOURCE_SECS,
    )?;
    let info = VideoDecoder::from_bytes(source.clone())?.info().clone();
    println!(
        "source: {}x{}, {} frames, {:.1} s, {:.1} MiB (rendered in {:.1} s, not timed)",
        info.width,
        info.height,
        info.frame_count,
        info.duration_secs,
        source.len() as f64 / (1024.0 * 1024.0),
        render_start.elapsed().as_secs_f64()
    );

    let mut times = Vec::with_capacity(RUNS);
    let mut cpu_times = Vec::with_capacity(RUNS);
    let mut out_frames = 0;
    for run in 0..RUNS {
        let start = Instant::now();
        // The trim decodes and encodes on this thread: its CPU time is what a quiet
        // machine's wall time would be.
        let (trimmed, cpu) = thread_cpu::measure(|| {
            framewright::sandbox::trim_video_mp4(&source, TRIM_FROM_SECS, TRIM_TO_SECS)
        });
        let secs = start.elapsed().as_secs_f64();
        out_frames = VideoDecoder::from_bytes(trimmed?)?.info().frame_count;
        let cpu_text = match cpu {
            Some(cpu) => {
                cpu_times.push(cpu.as_secs_f64());
                format!(", CPU {:.3} s", cpu.as_secs_f64())
            }
            None => String::new(),
        };
        println!(
            "run {}: {secs:.3} s{cpu_text} ({out_frames} frames)",
            run + 1
        );
        times.push(secs);
    }
    let median_secs = median(&mut times);
    let ok = median_secs <= TARGET_MEDIAN_SECS;
    println!(
        "trim {TRIM_FROM_SECS}-{TRIM_TO_SECS} s of a {SOURCE_SECS}-s 720p clip: median {median_secs:.3} s \
         (min {:.3}, max {:.3}) for {out_frames} frames = {:.0} frames/s; target <= {TARGET_MEDIAN_SECS} s: {}",
        times[0],
        times[times.len() - 1],
        f64::from(out_frames) / median_secs,
        if ok { "PASS" } else { "FAIL" }
    );
    if cpu_times.len() == RUNS {
        let cpu_median_secs = median(&mut cpu_times);
        println!(
            "trim CPU time on the bench thread: median {cpu_median_secs:.3} s (min {:.3}, max {:.3})",
            cpu_times[0],
            cpu_times[cpu_times.len() - 1]
        );
    }
    Ok(())
}
