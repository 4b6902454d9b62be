//! A/V drift: how far the picture and the sound are apart while a video with sound plays
//! (issue 21 §6: within ±40 ms at every frame).
//!
//! Input: a 60-s 1080p30 H.264 clip with an AAC-LC stereo track (ffmpeg's `testsrc2` and a
//! 440 Hz sine), made once with ffmpeg into the temp dir (skipped, with a note, when ffmpeg
//! is not on PATH). It plays through a `VideoPlayer` with its sound attached to an
//! `AudioOutput` on the `Capture` device, which pulls samples on the wall clock at 1× like
//! a sound card (never ALSA's null device: it consumes faster than real time). A "UI" takes
//! every frame as it comes. For each frame shown, |frame pts − sound clock| is recorded:
//! the sound clock is `Playback::position_secs` read by the player thread as it sends the
//! frame (`PlayerStatus::sound_secs`). Reported: frames shown and dropped, median, p95 and
//! max drift; then the same after a seek to the middle.
//!
//! `cargo bench --bench av_drift` (`AV_DRIFT_SECS=20` plays a shorter stretch).

use framewright::audio::{AudioOutput, CaptureSink, OutputConfig, OutputDevice};
use framewright::media::video::VideoPlayer;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

const CLIP_SECS: u32 = 60;
const TARGET_DRIFT_MS: f64 = 40.0;

fn main() -> BenchResult<()> {
    let play_secs: f64 = std::env::var("AV_DRIFT_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(f64::from(CLIP_SECS));
    let Some(clip) = make_clip()? else {
        println!("av_drift: ffmpeg is not on PATH; no clip with sound to play (skipped)");
        return Ok(());
    };
    let sink = CaptureSink::new();
    let output = AudioOutput::start(
        OutputConfig {
            device: OutputDevice::Capture(sink.clone()),
            volume: 1.0,
            muted: false,
        },
        Arc::new(|| {}),
    );
    let player = VideoPlayer::open(&clip, Arc::new(|| {}))?;
    let info = player.info().clone();
    println!(
        "clip: {} × {} px, {:.0} fps, {:.1} s, sound {:?}",
        info.width,
        info.height,
        info.fps,
        info.duration_secs,
        player.sound_track()
    );
    if !player.attach_sound(&output) {
        return Err("the clip's sound track did not attach".into());
    }
    player.set_loop(false);
    // The first frame, paused.
    player
        .recv_frame_timeout(Duration::from_secs(10))
        .ok_or("no first frame")?;

    let whole = play(&player, play_secs.min(info.duration_secs - 0.5))?;
    report("from the start", &whole);

    player.pause();
    let middle = (info.frame_count / 2).max(1);
    player.seek_frame(middle);
    while player
        .recv_frame_timeout(Duration::from_secs(5))
        .is_some_and(|f| f.frame.index != middle)
    {}
    let after_seek = play(&player, 5.0)?;
    report("after a seek to the middle", &after_seek);

    let worst = whole
        .drifts_ms
        .iter()
        .chain(&after_seek.drifts_ms)
        .fold(0.0f64, |a, &b| a.max(b));
    println!(
        "max drift {worst:.1} ms (target ≤ {TARGET_DRIFT_MS} ms): {}",
        if worst <= TARGET_DRIFT_MS {
            "ok"
        } else {
            "OVER"
        }
    );
    println!("captured {:.1} s of sound", sink.len() as f64 / 96_000.0);
    Ok(())
}

struct Run {
    drifts_ms: Vec<f64>,
    shown: usize,
    dropped: u64,
    wall_secs: f64,
}

/// Plays for `secs` of wall time, taking every frame as it comes.
fn play(player: &VideoPlayer, secs: f64) -> BenchResult<Run> {
    let dropped_before = player.status().dropped_frames;
    player.play();
    let started = Instant::now();
    let mut drifts_ms = Vec::new();
    let mut shown = 0;
    while started.elapsed().as_secs_f64() < secs {
        let Some(frame) = player.recv_frame_timeout(Duration::from_millis(200)) else {
            continue;
        };
        shown += 1;
        if let Some(sound_secs) = frame.status.sound_secs {
            drifts_ms.push((frame.status.time_secs - sound_secs).abs() * 1000.0);
        }
    }
    player.pause();
    Ok(Run {
        drifts_ms,
        shown,
        dropped: player.status().dropped_frames - dropped_before,
        wall_secs: started.elapsed().as_secs_f64(),
    })
}

fn report(what: &str, run: &Run) {
    let mut sorted = run.drifts_ms.clone();
    sorted.sort_by(f64::total_cmp);
    if sorted.is_empty() {
        println!(
            "{what}: no frame carried the sound clock ({} shown)",
            run.shown
        );
        return;
    }
    let pick = |p: f64| {
        let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
        sorted[rank.clamp(1, sorted.len()) - 1]
    };
    println!(
        "{what}: {:.1} s played, {} frames shown, {} dropped; drift median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        run.wall_secs,
        run.shown,
        run.dropped,
        pick(50.0),
        pick(95.0),
        pick(100.0)
    );
}

/// The 60-s 1080p clip with sound, made once (kept in the temp dir between runs).
fn make_clip() -> BenchResult<Option<PathBuf>> {
    let path = std::env::temp_dir().join(format!("framewright-av-drift-{CLIP_SECS}s-1080p.mp4"));
    if path.is_file() {
        return Ok(Some(path));
    }
    if Command::new("ffmpeg").arg("-version").output().is_err() {
        return Ok(None);
    }
    let partial = path.with_extension("partial.mp4");
    let status = Command::new("ffmpeg")
        .args([
            "-hide_banner",
            "-loglevel",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
        ])
        .arg(format!(
            "testsrc2=size=1920x1080:rate=30:duration={CLIP_SECS}"
        ))
        .args(["-f", "lavfi", "-i"])
        .arg(format!(
            "sine=frequency=440:duration={CLIP_SECS}:sample_rate=48000"
        ))
        .args([
            "-c:v",
            "libx264",
            "-preset",
            "veryfast",
            "-pix_fmt",
            "yuv420p",
            "-g",
            "60",
            "-c:a",
            "aac",
            "-b:a",
            "128k",
            "-ac",
            "2",
            "-movflags",
            "+faststart",
            "-shortest",
        ])
        .arg(&partial)
        .status()?;
    if !status.success() {
        return Err(format!("ffmpeg failed ({status})").into());
    }
    std::fs::rename(&partial, &path)?;
    Ok(Some(path))
}
