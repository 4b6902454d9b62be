//! The trim timeline's thumbnail strip: time to the first thumbnail and to the whole
//! 20-thumbnail strip of a 60-s 1080p video.
//!
//! Input: the sandbox's own 60-s 1920×1080 text-to-video (H.264 Constrained Baseline,
//! 24 fps, an IDR every second), rendered in-process through
//! `framewright::sandbox::render_text_to_video_mp4` and written to a temp dir. When ffmpeg
//! with libx264 is on PATH, the same clip is also re-encoded the way many cameras and
//! encoders write files (High profile, B-frames, a keyframe every 250 frames ≈ 10.4 s), the
//! case where slots share keyframes.
//!
//! Each round: `VideoStrip::start(path, 20, 54, …)` (opens the file, plans, starts the two
//! `strip-worker-N` threads), then events until `Finished`; first = start → first
//! `Thumbnail`, full = start → `Finished`. One untimed round first (page cache), then
//! medians of 7.
//!
//! `cargo bench --bench video_strip`

use framewright::media::video::{StripEvent, VideoStrip};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

const CLIP_SECS: f64 = 60.0;
const SLOTS: u32 = 20;
const HEIGHT_PX: u32 = 54;
const ROUNDS: usize = 7;
/// Targets on the 2-core machine (milliseconds).
const TARGET_FIRST_MS: f64 = 150.0;
const TARGET_FULL_MS: f64 = 1500.0;
const WAIT_LIMIT: Duration = Duration::from_secs(60);
const MIB: f64 = 1024.0 * 1024.0;

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn verdict(ok: bool) -> &'static str {
    if ok { "PASS" } else { "FAIL" }
}

fn runs_text(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| format!("{v:.0}"))
        .collect::<Vec<_>>()
        .join(", ")
}

struct Round {
    first_ms: f64,
    full_ms: f64,
    thumbnails: u32,
    distinct_keyframes: usize,
}

fn strip_round(path: &Path) -> BenchResult<Round> {
    let start = Instant::now();
    let strip = VideoStrip::start(path, SLOTS, HEIGHT_PX, Arc::new(|| {}))?;
    let mut first_ms = None;
    let mut thumbnails = 0;
    let mut keyframes = Vec::new();
    loop {
        if start.elapsed() > WAIT_LIMIT {
            return Err("the strip did not finish in time".into());
        }
        match strip.recv_timeout(Duration::from_millis(100)) {
            Some(StripEvent::Thumbnail(thumbnail)) => {
                first_ms.get_or_insert(start.elapsed().as_secs_f64() * 1000.0);
                thumbnails += 1;
                if !keyframes.contains(&thumbnail.frame_index) {
                    keyframes.push(thumbnail.frame_index);
                }
                std::hint::black_box(&thumbnail.rgba);
            }
            Some(StripEvent::SlotsFailed { slots, error }) => {
                return Err(format!("slots {slots:?} failed: {error}").into());
            }
            Some(StripEvent::Finished) => break,
            None => {}
        }
    }
    let full_ms = start.elapsed().as_secs_f64() * 1000.0;
    Ok(Round {
        first_ms: first_ms.unwrap_or(full_ms),
        full_ms,
        thumbnails,
        distinct_keyframes: keyframes.len(),
    })
}

fn strip_case(label: &str, path: &Path) -> BenchResult<()> {
    strip_round(path)?;
    let (mut first, mut full) = (Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..ROUNDS {
        let round = strip_round(path)?;
        first.push(round.first_ms);
        full.push(round.full_ms);
        last = Some(round);
    }
    let last = last.ok_or("no rounds")?;
    let (first_runs, full_runs) = (runs_text(&first), runs_text(&full));
    let (first_ms, full_ms) = (median(&mut first), median(&mut full));
    println!(
        "{label}: {} thumbnails from {} keyframes, {HEIGHT_PX} px high; first {first_ms:.1} ms (runs {first_runs}) — target ≤ {TARGET_FIRST_MS} ms: {}; full strip {full_ms:.1} ms (runs {full_runs}) — target ≤ {TARGET_FULL_MS} ms: {}",
        last.thumbnails,
        last.distinct_keyframes,
        verdict(first_ms <= TARGET_FIRST_MS),
        verdict(full_ms <= TARGET_FULL_MS),
    );
    Ok(())
}

fn render_clip(dir: &Path) -> BenchResult<PathBuf> {
    let start = Instant::now();
    let mp4 = framewright::sandbox::render_text_to_video_mp4(
        "aurora over a frozen lake, slow drifting light",
        42,
        "16:9",
        "1080p",
        CLIP_SECS,
    )
    .map_err(|e| e.to_string())?;
    let path = dir.join("sandbox_1080p_60s.mp4");
    std::fs::write(&path, &mp4)?;
    println!(
        "rendered {} ({:.1} MiB) in {:.1} s",
        path.display(),
        mp4.len() as f64 / MIB,
        start.elapsed().as_secs_f64()
    );
    Ok(path)
}

/// The clip re-encoded with long GOPs and B-frames, if ffmpeg has libx264.
fn long_gop_clip(dir: &Path, source: &Path) -> Option<PathBuf> {
    let path = dir.join("x264_1080p_60s_keyint250.mp4");
    let start = Instant::now();
    let status = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y", "-i"])
        .arg(source)
        .args([
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-profile:v",
            "high",
            "-bf",
            "3",
            "-g",
            "250",
            "-pix_fmt",
            "yuv420p",
            "-an",
        ])
        .arg(&path)
        .status()
        .ok()?;
    if !status.success() {
        println!("long-GOP case skipped: ffmpeg could not encode with libx264 ({status})");
        return None;
    }
    let size_mib = std::fs::metadata(&path).ok()?.len() as f64 / MIB;
    println!(
        "encoded {} ({size_mib:.1} MiB) in {:.1} s",
        path.display(),
        start.elapsed().as_secs_f64()
    );
    Some(path)
}

fn main() -> BenchResult<()> {
    let dir = tempfile::tempdir()?;
    let clip = render_clip(dir.path())?;
    strip_case("strip 1080p 60 s (IDR every 24 frames)", &clip)?;
    match long_gop_clip(dir.path(), &clip) {
        Some(long_gop) => strip_case(
            "strip 1080p 60 s (x264 High, B-frames, keyframe every 250)",
            &long_gop,
        )?,
        None => println!("long-GOP case skipped: no ffmpeg with libx264 on PATH"),
    }
    Ok(())
}
