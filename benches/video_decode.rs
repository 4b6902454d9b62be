//! Video: decode speed against ffmpeg, seek latency, player memory, sandbox render time.
//!
//! Inputs are the sandbox's own text-to-video clips (H.264 Constrained Baseline, 24 fps, an
//! IDR every second, watermarked), rendered in-process through
//! `framewright::sandbox::render_text_to_video_mp4` (the spec a video job uses) and written
//! to a temp dir:
//! - decode: each 10-s clip (1080p, 720p) decoded whole on this thread by `VideoDecoder`
//!   (RGBA out, a fresh buffer per frame as the player's frames get, nothing recycled);
//!   then `ffmpeg -threads 1 -i FILE -f null -` on the same file, if ffmpeg is on PATH;
//! - seek: 50 random frames (fixed seed) of the 1080p clip, `seek_to_frame` + `next_frame`;
//! - player memory: a child process (this binary again, so the idle figure is not inflated
//!   by the phases before) opens a `VideoPlayer` on the 1080p clip, loops it for a few
//!   seconds and takes frames as the UI does, uploading nothing; VmRSS sampled (Linux);
//! - render: a 5-s 720p 16:9 text-to-video, as the job renders it, against the job's
//!   shortest simulated duration at `--speed 1`.
//!
//! `cargo bench --bench video_decode`

#[path = "support/h264_build.rs"]
mod h264_build;
mod support;
#[path = "support/thread_cpu.rs"]
mod thread_cpu;
use framewright::media::video::{VideoDecoder, VideoPlayer};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::status_kib;

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

const CLIP_SECS: f64 = 10.0;
const DECODE_ROUNDS: usize = 5;
const SEEK_TARGETS: usize = 50;
const SEEK_SEED: u64 = 0x5eed_f00d;
const RENDER_PASSES: usize = 3;
/// Targets (× real time on one core, milliseconds, MiB).
const TARGET_720P_REALTIME: f64 = 4.0;
const TARGET_1080P_REALTIME: f64 = 1.0;
const TARGET_SEEK_MEDIAN_MS: f64 = 60.0;
const TARGET_PLAYER_GROWTH_MIB: f64 = 64.0;
/// A video job's simulated wall time at `--speed 1` is 90 s × jitter 0.85..1.15
/// (`src/sandbox/routes/video.rs`, `VIDEO_BASE_DURATION_MS`); the render must finish
/// inside the shortest.
const JOB_MIN_SIMULATED_SECS: f64 = 90.0 * 0.85;
/// Player phase: how long it plays and how often the "UI" looks for a frame (60 Hz).
const PLAY_SECS: f64 = 6.0;
const UI_FRAME_INTERVAL: Duration = Duration::from_millis(16);
const RSS_SAMPLE_INTERVAL: Duration = Duration::from_millis(50);
const PLAYER_CHILD_ENV: &str = "FRAMEWRIGHT_BENCH_PLAYER_CLIP";
const MIB: f64 = 1024.0 * 1024.0;

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn verdict(ok: bool) -> &'static str {
    if ok { "PASS" } else { "FAIL" }
}

fn kib_to_mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

struct DecodePass {
    frames: u32,
    elapsed_secs: f64,
}

/// Decodes the whole file on this thread, RGBA out. `recycle` false is the player's case
/// (its frames go to the UI and never come back); true hands each buffer back.
fn decode_whole(path: &Path, recycle: bool) -> BenchResult<DecodePass> {
    let start = Instant::now();
    let mut decoder = VideoDecoder::open(path)?;
    let mut frames = 0;
    while let Some(frame) = decoder.next_frame()? {
        std::hint::black_box(&frame.rgba);
        frames += 1;
        if recycle {
            decoder.recycle(frame);
        }
    }
    Ok(DecodePass {
        frames,
        elapsed_secs: start.elapsed().as_secs_f64(),
    })
}

fn ffmpeg_available() -> bool {
    Command::new("ffmpeg")
        .arg("-version")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Wall seconds of one single-threaded ffmpeg decode (process start included, ~tens of ms).
/// `rgba`: also convert every frame to RGBA like ours (`-pix_fmt rgba`, one filter thread);
/// without it ffmpeg stops at YUV.
fn ffmpeg_decode_secs(path: &Path, rgba: bool) -> BenchResult<f64> {
    let start = Instant::now();
    let mut command = Command::new("ffmpeg");
    command
        .args(["-hide_banner", "-loglevel", "error", "-threads", "1", "-i"])
        .arg(path);
    if rgba {
        command.args(["-filter_threads", "1", "-pix_fmt", "rgba"]);
    }
    let status = command.args(["-f", "null", "-"]).status()?;
    let elapsed = start.elapsed().as_secs_f64();
    if !status.success() {
        return Err(format!("ffmpeg failed on {}: {status}", path.display()).into());
    }
    Ok(elapsed)
}

fn runs_text(fps_runs: &[f64]) -> String {
    fps_runs
        .iter()
        .map(|f| format!("{f:.0}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Rounds of (ours, ours recycling buffers, ffmpeg, ffmpeg to RGBA), interleaved so a busy
/// neighbour on the shared machine slows every variant alike.
fn decode_case(label: &str, path: &Path, target_realtime: f64, ffmpeg: bool) -> BenchResult<()> {
    // One untimed pass first so the file is in the page cache for both decoders.
    let frames = decode_whole(path, false)?.frames;
    let fps_of = |secs: f64| f64::from(frames) / secs;
    let (mut ours, mut recycled, mut plain, mut rgba) = (vec![], vec![], vec![], vec![]);
    for _ in 0..DECODE_ROUNDS {
        ours.push(fps_of(decode_whole(path, false)?.elapsed_secs));
        recycled.push(fps_of(decode_whole(path, true)?.elapsed_secs));
        if ffmpeg {
            plain.push(fps_of(ffmpeg_decode_secs(path, false)?));
            rgba.push(fps_of(ffmpeg_decode_secs(path, true)?));
        }
    }
    let fps = median(&mut ours);
    let realtime = fps / 24.0;
    let size_mib = std::fs::metadata(path)?.len() as f64 / MIB;
    println!(
        "{label}: {frames} frames, {size_mib:.1} MiB; ours {fps:.1} frames/s (median of {DECODE_ROUNDS}: {}), {realtime:.2}× real time — target ≥ {target_realtime}×: {}",
        runs_text(&ours),
        verdict(realtime >= target_realtime)
    );
    println!(
        "{label}: ours handing each buffer back (recycle) {:.1} frames/s (runs {})",
        median(&mut recycled),
        runs_text(&recycled)
    );
    if ffmpeg {
        let ffmpeg_fps = median(&mut plain);
        let ffmpeg_rgba_fps = median(&mut rgba);
        println!(
            "{label}: ffmpeg -threads 1 -f null {ffmpeg_fps:.1} frames/s (runs {}), {:.2}× real time; ours / ffmpeg = {:.2}",
            runs_text(&plain),
            ffmpeg_fps / 24.0,
            fps / ffmpeg_fps
        );
        println!(
            "{label}: ffmpeg -threads 1 -pix_fmt rgba (converts to RGBA like ours) {ffmpeg_rgba_fps:.1} frames/s (runs {}); ours / that = {:.2}",
            runs_text(&rgba),
            fps / ffmpeg_rgba_fps
        );
    } else {
        println!("{label}: ffmpeg not installed (no comparison)");
    }
    Ok(())
}

struct XorShift(u64);

impl XorShift {
    fn below(&mut self, bound: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(bound.max(1))) as u32
    }
}

fn seek_case(path: &Path) -> BenchResult<()> {
    let mut decoder = VideoDecoder::open(path)?;
    let frame_count = decoder.info().frame_count;
    let mut rng = XorShift(SEEK_SEED);
    let mut latencies_ms = Vec::with_capacity(SEEK_TARGETS);
    let mut cpu_ms = Vec::with_capacity(SEEK_TARGETS);
    for _ in 0..SEEK_TARGETS {
        let target = rng.below(frame_count);
        let start = Instant::now();
        let (frame, cpu) = thread_cpu::measure(|| -> BenchResult<_> {
            decoder.seek_to_frame(target)?;
            Ok(decoder
                .next_frame()?
                .ok_or_else(|| format!("no frame after seeking to {target}"))?)
        });
        latencies_ms.push(start.elapsed().as_secs_f64() * 1000.0);
        cpu_ms.extend(cpu.map(|cpu| cpu.as_secs_f64() * 1000.0));
        let frame = frame?;
        if frame.index != target {
            return Err(format!("seek to {target} returned frame {}", frame.index).into());
        }
        decoder.recycle(frame);
    }
    latencies_ms.sort_by(f64::total_cmp);
    let median_ms = percentile(&latencies_ms, 50.0);
    println!(
        "seek 1080p: {SEEK_TARGETS} random frames: median {median_ms:.1} ms, p95 {:.1} ms, max {:.1} ms, min {:.1} ms — target median ≤ {TARGET_SEEK_MEDIAN_MS} ms: {}",
        percentile(&latencies_ms, 95.0),
        latencies_ms[latencies_ms.len() - 1],
        latencies_ms[0],
        verdict(median_ms <= TARGET_SEEK_MEDIAN_MS)
    );
    if cpu_ms.len() == SEEK_TARGETS {
        // On a busy machine the wall times above include waiting for a core.
        cpu_ms.sort_by(f64::total_cmp);
        println!(
            "seek 1080p: the same seeks' CPU time on the bench thread: median {:.1} ms, p95 {:.1} ms, max {:.1} ms, min {:.1} ms",
            percentile(&cpu_ms, 50.0),
            percentile(&cpu_ms, 95.0),
            cpu_ms[cpu_ms.len() - 1],
            cpu_ms[0]
        );
    }
    Ok(())
}

/// Runs in the child process: plays the clip in a loop and takes frames like the UI.
fn player_child(path: &Path) -> BenchResult<()> {
    let idle_rss_kib = status_kib("VmRSS:");
    let player = VideoPlayer::open(path, Arc::new(|| {}))?;
    player.set_loop(true);
    player.play();
    let start = Instant::now();
    let mut next_sample = start;
    let mut max_rss_kib = idle_rss_kib;
    let mut frames_taken = 0u64;
    let mut rss_sum_kib = 0u64;
    let mut rss_samples = 0u64;
    while start.elapsed().as_secs_f64() < PLAY_SECS {
        // What the UI does on a repaint: the newest frame, read (no texture upload here).
        if let Some(latest) = player.latest_frame() {
            std::hint::black_box(&latest.frame.rgba);
            frames_taken += 1;
        }
        if Instant::now() >= next_sample {
            let rss = status_kib("VmRSS:");
            max_rss_kib = max_rss_kib.max(rss);
            rss_sum_kib += rss;
            rss_samples += 1;
            next_sample += RSS_SAMPLE_INTERVAL;
        }
        std::thread::sleep(UI_FRAME_INTERVAL);
    }
    let status = player.status();
    let peak_kib = status_kib("VmHWM:");
    drop(player);
    let growth_mib = kib_to_mib(max_rss_kib.saturating_sub(idle_rss_kib));
    println!(
        "player 1080p: {PLAY_SECS} s looping, {frames_taken} frames taken by the UI, {} dropped by the player; RSS idle {:.1} MiB, while playing max {:.1} MiB (mean {:.1}), increase {growth_mib:.1} MiB, peak VmHWM {:.1} MiB — target increase ≤ {TARGET_PLAYER_GROWTH_MIB} MiB: {}",
        status.dropped_frames,
        kib_to_mib(idle_rss_kib),
        kib_to_mib(max_rss_kib),
        kib_to_mib(rss_sum_kib / rss_samples.max(1)),
        kib_to_mib(peak_kib),
        verdict(growth_mib <= TARGET_PLAYER_GROWTH_MIB)
    );
    Ok(())
}

fn player_case(path: &Path) -> BenchResult<()> {
    if !Path::new("/proc/self/status").exists() {
        println!("player 1080p: no /proc/self/status (not Linux); memory not measured");
        return Ok(());
    }
    let status = Command::new(std::env::current_exe()?)
        .env(PLAYER_CHILD_ENV, path)
        .status()?;
    if !status.success() {
        return Err(format!("player child failed: {status}").into());
    }
    Ok(())
}

fn render_case() -> BenchResult<()> {
    let mut secs = Vec::new();
    for pass in 0..RENDER_PASSES {
        let start = Instant::now();
        let mp4 = framewright::sandbox::render_text_to_video_mp4(
            "a lighthouse on a cliff at dusk, waves below",
            1000 + pass as i64,
            "16:9",
            "720p",
            5.0,
        )
        .map_err(|e| e.to_string())?;
        secs.push(start.elapsed().as_secs_f64());
        std::hint::black_box(mp4);
    }
    let runs = secs
        .iter()
        .map(|s| format!("{s:.2}"))
        .collect::<Vec<_>>()
        .join(", ");
    let median_secs = median(&mut secs);
    println!(
        "sandbox render 720p 16:9 5 s (1280x720, 120 frames): median {median_secs:.2} s (runs {runs}); the job's shortest simulated time at --speed 1 is {JOB_MIN_SIMULATED_SECS:.1} s: {} (render stays hidden up to --speed {:.0})",
        verdict(median_secs < JOB_MIN_SIMULATED_SECS),
        JOB_MIN_SIMULATED_SECS / median_secs
    );
    Ok(())
}

fn render_clip(dir: &Path, resolution: &str) -> BenchResult<std::path::PathBuf> {
    let start = Instant::now();
    let mp4 = framewright::sandbox::render_text_to_video_mp4(
        "aurora over a frozen lake, slow drifting light",
        42,
        "16:9",
        resolution,
        CLIP_SECS,
    )
    .map_err(|e| e.to_string())?;
    let path = dir.join(format!("sandbox_{resolution}_10s.mp4"));
    std::fs::write(&path, &mp4)?;
    println!(
        "rendered {} ({:.1} MiB) in {:.1} s",
        path.display(),
        mp4.len() as f64 / MIB,
        start.elapsed().as_secs_f64()
    );
    Ok(path)
}

fn main() -> BenchResult<()> {
    // `cargo bench` passes `--bench`; nothing else is parsed.
    if let Some(clip) = std::env::var_os(PLAYER_CHILD_ENV) {
        return player_child(Path::new(&clip));
    }
    h264_build::print_assembly();
    let dir = tempfile::tempdir()?;
    let clip_1080p = render_clip(dir.path(), "1080p")?;
    let clip_720p = render_clip(dir.path(), "720p")?;
    let ffmpeg = ffmpeg_available();
    decode_case("decode 720p", &clip_720p, TARGET_720P_REALTIME, ffmpeg)?;
    decode_case("decode 1080p", &clip_1080p, TARGET_1080P_REALTIME, ffmpeg)?;
    seek_case(&clip_1080p)?;
    player_case(&clip_1080p)?;
    render_case()?;
    Ok(())
}
