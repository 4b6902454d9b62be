//! The studio's audio engine end to end without a sound card: files decoded with
//! symphonia, played through `AudioOutput` into a `CaptureSink` (1× on the wall clock), and
//! the sample content checked (which tone plays tells where in the file playback is).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use framewright::audio::output::CAPTURE_RATE_HZ;
use framewright::audio::peaks::{DEFAULT_BUCKETS, compute_peaks_exact};
use framewright::audio::source::{MemorySource, open_bytes};
use framewright::audio::testing::{frequency_hz, left, mp3_bytes, rms, tones, wav_bytes};
use framewright::audio::wav::encode_wav;
use framewright::audio::{
    AudioError, AudioOutput, CaptureSink, DeviceState, OutputConfig, OutputDevice, Peaks,
    PlaybackState, SampleSource, compute_peaks, open_file,
};

const RATE: u32 = 44_100;

fn capture_output() -> (AudioOutput, CaptureSink) {
    let sink = CaptureSink::new();
    let output = AudioOutput::start(
        OutputConfig {
            device: OutputDevice::Capture(sink.clone()),
            volume: 1.0,
            muted: false,
        },
        Arc::new(|| {}),
    );
    (output, sink)
}

/// Waits (at most 10 s) until `f` holds.
fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits until the capture holds `secs` of sound.
fn wait_captured(sink: &CaptureSink, secs: f64) {
    let want = (secs * CAPTURE_RATE_HZ as f64) as usize * 2;
    wait_for("captured sound", || sink.len() >= want);
}

/// The captured left channel between `from..to` seconds of capture.
fn captured(sink: &CaptureSink, from: f64, to: f64) -> Vec<f32> {
    let l = left(&sink.samples());
    let a = ((from * CAPTURE_RATE_HZ as f64) as usize).min(l.len());
    let b = ((to * CAPTURE_RATE_HZ as f64) as usize).min(l.len());
    l[a..b].to_vec()
}

fn temp_file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

fn assert_freq(samples: &[f32], want_hz: f64) {
    let got = frequency_hz(samples, CAPTURE_RATE_HZ);
    assert!(
        (got - want_hz).abs() < want_hz * 0.05,
        "expected about {want_hz} Hz, heard {got:.1} Hz"
    );
}

fn three_tones() -> Vec<f32> {
    // 0–0.4 s: 300 Hz, 0.4–0.8 s: 600 Hz, 0.8–1.2 s: 1200 Hz.
    tones(&[(0.4, 300.0), (0.4, 600.0), (0.4, 1200.0)], RATE, 0.5)
}

#[test]
fn an_mp3_plays_its_sound_in_order() {
    let mp3 = mp3_bytes(&three_tones(), RATE, 1, 128);
    let (_dir, path) = temp_file("tones.mp3", &mp3);
    let (source, info) = open_file(&path).unwrap();
    assert_eq!(info.codec, "MP3");
    assert_eq!(info.container, "mp3");
    assert_eq!(info.sample_rate_hz, RATE);
    let (output, sink) = capture_output();
    assert_eq!(
        output.device_state(),
        DeviceState::Ready {
            name: "capture".into()
        }
    );
    let playback = output.load(source, true);
    wait_for("the end", || playback.state() == PlaybackState::Ended);
    // MP3 adds encoder delay at the start; the tones still come in order.
    assert_freq(&captured(&sink, 0.1, 0.3), 300.0);
    assert_freq(&captured(&sink, 0.5, 0.7), 600.0);
    assert_freq(&captured(&sink, 0.9, 1.1), 1200.0);
    let duration = playback.duration_secs().unwrap();
    assert!((duration - 1.2).abs() < 0.06, "duration {duration}");
    assert!((playback.position_secs() - duration).abs() < 1e-6);
}

#[test]
fn a_stereo_wav_plays_both_channels() {
    // Left 500 Hz, right 1000 Hz.
    let l = tones(&[(0.3, 500.0)], 48_000, 0.5);
    let r = tones(&[(0.3, 1000.0)], 48_000, 0.5);
    let interleaved: Vec<f32> = l.iter().zip(&r).flat_map(|(a, b)| [*a, *b]).collect();
    let (_dir, path) = temp_file("stereo.wav", &wav_bytes(&interleaved, 48_000, 2));
    let (source, info) = open_file(&path).unwrap();
    assert_eq!((info.codec.as_str(), info.channels), ("WAV", 2));
    let (output, sink) = capture_output();
    let playback = output.load(source, true);
    wait_for("the end", || playback.state() == PlaybackState::Ended);
    let all = sink.samples();
    let right: Vec<f32> = all.iter().skip(1).step_by(2).copied().collect();
    assert_freq(&left(&all)[2400..12000], 500.0);
    assert_freq(&right[2400..12000], 1000.0);
}

#[test]
fn seek_lands_where_asked() {
    let (_dir, path) = temp_file("tones.wav", &wav_bytes(&three_tones(), RATE, 1));
    let (source, _) = open_file(&path).unwrap();
    let (output, sink) = capture_output();
    let playback = output.load(source, false);
    playback.seek(0.85);
    assert!((playback.position_secs() - 0.85).abs() < 1e-9);
    playback.play();
    wait_captured(&sink, 0.2);
    assert_freq(&captured(&sink, 0.02, 0.2), 1200.0);
    // And back, while playing.
    playback.seek(0.45);
    sink.clear();
    wait_captured(&sink, 0.3);
    // (A pull under way when seeking may still record a little of the old place.)
    let heard = captured(&sink, 0.1, 0.3);
    assert_freq(&heard, 600.0);
    let p = playback.position_secs();
    assert!((0.45..1.2).contains(&p), "position {p}");
}

#[test]
fn seek_in_an_mp3_lands_where_asked() {
    let mp3 = mp3_bytes(&three_tones(), RATE, 1, 128);
    let (mut source, _) = open_bytes(mp3, Some("mp3")).unwrap();
    source.seek(0.85).unwrap();
    let mut buf = vec![0f32; (0.2 * RATE as f64) as usize];
    let n = source.read(&mut buf).unwrap();
    let got = frequency_hz(&buf[2000..n], RATE);
    assert!((got - 1200.0).abs() < 60.0, "heard {got}");
}

#[test]
fn a_loop_range_repeats() {
    let (_dir, path) = temp_file("tones.wav", &wav_bytes(&three_tones(), RATE, 1));
    let (source, _) = open_file(&path).unwrap();
    let (output, sink) = capture_output();
    let playback = output.load(source, false);
    playback.set_loop(Some((0.4, 0.8)));
    playback.play();
    // 1 s of sound is 2.5 times the 0.4 s loop.
    wait_captured(&sink, 1.0);
    assert_eq!(playback.state(), PlaybackState::Playing);
    assert_freq(&captured(&sink, 0.0, 1.0), 600.0);
    let p = playback.position_secs();
    assert!((0.4..=0.8).contains(&p), "position {p} outside the loop");
    // Without the loop it plays on to the end.
    playback.set_loop(None);
    wait_for("the end", || playback.state() == PlaybackState::Ended);
}

#[test]
fn a_loop_is_seamless() {
    // A 100 Hz sine loops over exactly 10 periods: the loop seam must not click.
    let sound = tones(&[(1.0, 100.0)], 48_000, 0.5);
    let (output, sink) = capture_output();
    let playback = output.load(Box::new(MemorySource::new(sound, 48_000, 1)), false);
    playback.set_loop(Some((0.2, 0.3)));
    playback.play();
    wait_captured(&sink, 0.5);
    let heard = captured(&sink, 0.0, 0.5);
    // Largest step between neighbouring samples: a sine of 100 Hz at 0.5 moves at most
    // 2π·100·0.5/48000 ≈ 0.0065 per sample.
    let max_step = heard
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0f32, f32::max);
    assert!(max_step < 0.01, "a click at the loop seam: step {max_step}");
}

#[test]
fn a_loop_in_an_mp3_is_seamless() {
    // The same 10 periods of 100 Hz, from an MP3: the wrap seeks the decoder, which must
    // not leave a gap or a jump (MP3's own coding noise is far below the threshold).
    let sound = tones(&[(1.0, 100.0)], RATE, 0.5);
    let (source, _) = open_bytes(mp3_bytes(&sound, RATE, 1, 128), Some("mp3")).unwrap();
    let (output, sink) = capture_output();
    let playback = output.load(source, false);
    playback.set_loop(Some((0.2, 0.3)));
    playback.play();
    wait_captured(&sink, 0.5);
    let heard = captured(&sink, 0.0, 0.5);
    let max_step = heard
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0f32, f32::max);
    assert!(max_step < 0.02, "a click at the loop seam: step {max_step}");
    assert!(rms(&heard) > 0.3);
}

#[test]
fn one_sound_at_a_time() {
    let (output, _sink) = capture_output();
    let sound = || {
        Box::new(MemorySource::new(
            tones(&[(5.0, 440.0)], RATE, 0.5),
            RATE,
            1,
        ))
    };
    let a = output.load(sound(), true);
    assert_eq!(a.state(), PlaybackState::Playing);
    let b = output.load(sound(), false);
    assert_eq!(a.state(), PlaybackState::PausedByOther);
    assert_eq!(b.state(), PlaybackState::Paused);
    b.play();
    a.play();
    assert_eq!(a.state(), PlaybackState::Playing);
    assert_eq!(b.state(), PlaybackState::PausedByOther);
    a.pause();
    assert_eq!(a.state(), PlaybackState::Paused);
    // Paused sounds keep their place (a pull already under way may still land).
    std::thread::sleep(Duration::from_millis(50));
    let p = a.position_secs();
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(a.position_secs(), p);
    a.toggle();
    assert_eq!(a.state(), PlaybackState::Playing);
    assert_ne!(a.id(), b.id());
    // Dropping the playing sound stops it; the other is not restarted.
    drop(a);
    assert_eq!(b.state(), PlaybackState::PausedByOther);
}

#[test]
fn volume_zero_and_mute_are_silent() {
    let (output, sink) = capture_output();
    let playback = output.load(
        Box::new(MemorySource::new(
            tones(&[(5.0, 440.0)], RATE, 0.5),
            RATE,
            1,
        )),
        true,
    );
    wait_captured(&sink, 0.1);
    assert!(rms(&captured(&sink, 0.0, 0.1)) > 0.2);
    // After each change: skip what a pull already under way may still record, then
    // listen for 0.1 s.
    let listen = || {
        sink.clear();
        wait_captured(&sink, 0.2);
        captured(&sink, 0.1, 0.2)
    };
    output.set_volume(0.0);
    assert_eq!(output.volume(), 0.0);
    assert_eq!(rms(&listen()), 0.0);
    output.set_volume(0.5);
    output.set_muted(true);
    assert!(output.muted());
    assert_eq!(rms(&listen()), 0.0);
    output.set_muted(false);
    // Half volume: a 0.5 sine's RMS (0.354) halves.
    let r = rms(&listen());
    assert!((r - 0.177).abs() < 0.03, "rms {r}");
    // The clock ran all along.
    assert!(playback.position_secs() > 0.25);
}

#[test]
fn the_clock_follows_consumed_sound() {
    let (output, sink) = capture_output();
    let playback = output.load(
        Box::new(MemorySource::new(
            tones(&[(5.0, 440.0)], RATE, 0.5),
            RATE,
            1,
        )),
        true,
    );
    wait_captured(&sink, 0.3);
    // The position is the frames taken so far: read between two readings of the clock
    // (the output thread may take more meanwhile).
    let before = playback.position_secs();
    let consumed = sink.len() as f64 / 2.0 / CAPTURE_RATE_HZ as f64;
    let after = playback.position_secs();
    assert!(
        before - 0.001 <= consumed && consumed <= after + 0.001,
        "position {before}..{after}, consumed {consumed}"
    );
}

#[test]
fn a_garbage_or_truncated_file_is_an_error_not_a_panic() {
    assert!(matches!(
        open_bytes(b"definitely not a sound".to_vec(), Some("mp3")),
        Err(AudioError::Unsupported(_) | AudioError::Decode(_) | AudioError::NoTrack)
    ));
    assert!(open_bytes(Vec::new(), None).is_err());
    let mp3 = mp3_bytes(&three_tones(), RATE, 1, 128);
    let wav = wav_bytes(&three_tones(), RATE, 1);
    // Truncated: opens (or refuses) and reads to an end without panicking.
    for (bytes, ext) in [(&mp3, "mp3"), (&wav, "wav")] {
        for cut in [10, 44, 100, 417, bytes.len() / 3, bytes.len() - 1] {
            if let Ok((mut s, _)) = open_bytes(bytes[..cut].to_vec(), Some(ext)) {
                drain(s.as_mut());
            }
        }
        // Mutated bytes.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..40 {
            let mut b = bytes.clone();
            for _ in 0..8 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let i = (seed as usize) % b.len();
                b[i] = (seed >> 32) as u8;
            }
            if let Ok((mut s, _)) = open_bytes(b, Some(ext)) {
                drain(s.as_mut());
                let _ = s.seek(0.5);
                drain(s.as_mut());
            }
        }
    }
}

fn drain(s: &mut dyn SampleSource) {
    let mut buf = vec![0f32; 4096];
    for _ in 0..10_000 {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => assert!(buf[..n].iter().all(|v| (-1.0..=1.0).contains(v))),
        }
    }
}

/// The subprocess half of `a_missing_device_is_unavailable_and_the_clock_runs`.
#[test]
#[ignore = "run by a_missing_device_is_unavailable_and_the_clock_runs in a private HOME"]
fn missing_device_inner() {
    let output = AudioOutput::start(OutputConfig::default(), Arc::new(|| {}));
    let DeviceState::Unavailable { reason } = output.device_state() else {
        panic!("expected no device, got {:?}", output.device_state());
    };
    assert!(!reason.is_empty());
    let playback = output.load(
        Box::new(MemorySource::new(
            tones(&[(0.4, 440.0)], RATE, 0.5),
            RATE,
            1,
        )),
        true,
    );
    wait_for("the clock to run", || playback.position_secs() > 0.1);
    wait_for("the end", || playback.state() == PlaybackState::Ended);
    let named = AudioOutput::start(
        OutputConfig {
            device: OutputDevice::Named("no-such-device".into()),
            ..OutputConfig::default()
        },
        Arc::new(|| {}),
    );
    assert!(matches!(
        named.device_state(),
        DeviceState::Unavailable { .. }
    ));
}

#[test]
fn a_missing_device_is_unavailable_and_the_clock_runs() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join(".asoundrc"),
        "pcm.!default { type hw; card 9 }\nctl.!default { type hw; card 9 }\n",
    )
    .unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "missing_device_inner",
            "--test-threads=1",
        ])
        .env("HOME", home.path())
        .env_remove("PULSE_SERVER")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_null_device_opens_and_plays() {
    let output = AudioOutput::start(
        OutputConfig {
            device: OutputDevice::Named("null".into()),
            ..OutputConfig::default()
        },
        Arc::new(|| {}),
    );
    assert_eq!(
        output.device_state(),
        DeviceState::Ready {
            name: "null".into()
        }
    );
    let playback = output.load(
        Box::new(MemorySource::new(
            tones(&[(5.0, 440.0)], RATE, 0.5),
            RATE,
            1,
        )),
        true,
    );
    // No timing against the null device: only that it consumes.
    wait_for("the device to take sound", || {
        playback.position_secs() > 0.0
    });
    // The device's own delay is reported in a sane range (the null PCM says little).
    let latency = output.output_latency_secs();
    eprintln!("null device latency: {latency} s");
    assert!((0.0..1.0).contains(&latency), "{latency}");
}

#[test]
fn peaks_of_a_short_sound_follow_every_sample() {
    // 1 s loud, 1 s silent, 1 s quiet.
    let mut sound = tones(&[(1.0, 440.0)], RATE, 0.9);
    sound.extend(std::iter::repeat_n(0.0, RATE as usize));
    sound.extend(tones(&[(1.0, 440.0)], RATE, 0.2));
    let (_dir, path) = temp_file("three.wav", &wav_bytes(&sound, RATE, 1));
    let peaks = compute_peaks(&path, 300).unwrap();
    assert_eq!(peaks.buckets.len(), 300);
    assert!((peaks.duration_secs - 3.0).abs() < 1e-3);
    for (i, &(lo, hi)) in peaks.buckets.iter().enumerate() {
        if [100, 200].contains(&i) {
            continue; // A bucket at a change may hold a few samples of both sides.
        }
        let want = match i {
            0..100 => 0.9,
            100..200 => 0.0,
            _ => 0.2,
        };
        assert!(
            (hi - want).abs() < 0.01 && (lo + want).abs() < 0.01,
            "bucket {i}: {lo} {hi}"
        );
    }
}

#[test]
fn peaks_of_a_long_mp3_are_sampled_but_keep_the_shape() {
    // 70 s (past the whole-decode limit): 20 s loud, 20 s silent, 30 s quiet, mono.
    let mut sound = tones(&[(20.0, 300.0)], 22_050, 0.8);
    sound.extend(std::iter::repeat_n(0.0, 20 * 22_050));
    sound.extend(tones(&[(30.0, 300.0)], 22_050, 0.25));
    let (_dir, path) = temp_file("long.mp3", &mp3_bytes(&sound, 22_050, 1, 64));
    let peaks = compute_peaks(&path, DEFAULT_BUCKETS).unwrap();
    let exact = compute_peaks_exact(&path, DEFAULT_BUCKETS).unwrap();
    assert_eq!(peaks.buckets.len(), DEFAULT_BUCKETS);
    assert!(
        (peaks.duration_secs - 70.0).abs() < 0.2,
        "{}",
        peaks.duration_secs
    );
    let at = |p: &Peaks, secs: f64| p.buckets[(secs / 70.0 * DEFAULT_BUCKETS as f64) as usize];
    for (secs, want) in [(10.0, 0.8), (30.0, 0.0), (55.0, 0.25)] {
        let (lo, hi) = at(&peaks, secs);
        assert!(
            (hi - want).abs() < 0.08 && (lo + want).abs() < 0.08,
            "at {secs} s: {lo} {hi}"
        );
        let (elo, ehi) = at(&exact, secs);
        assert!((ehi - want).abs() < 0.05 && (elo + want).abs() < 0.05);
    }
}

#[test]
fn peaks_survive_the_disk_cache_and_shrink() {
    let peaks = Peaks {
        duration_secs: 12.5,
        buckets: (0..1000)
            .map(|i| (-(i as f32) / 1000.0, i as f32 / 2000.0))
            .collect(),
    };
    let bytes = peaks.to_bytes();
    let back = Peaks::from_bytes(&bytes).unwrap();
    assert_eq!(back.duration_secs, 12.5);
    assert_eq!(back.buckets.len(), 1000);
    for (a, b) in back.buckets.iter().zip(&peaks.buckets) {
        assert!((a.0 - b.0).abs() < 1e-4 && (a.1 - b.1).abs() < 1e-4);
    }
    // Damaged or foreign bytes are refused, not trusted.
    assert!(Peaks::from_bytes(&bytes[..bytes.len() - 1]).is_none());
    assert!(Peaks::from_bytes(b"FWPK").is_none());
    let mut absurd = bytes[..17].to_vec();
    absurd[13..17].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(Peaks::from_bytes(&absurd).is_none());
    let mut other_version = bytes.clone();
    other_version[4] = 99;
    assert!(Peaks::from_bytes(&other_version).is_none());
    // Shrinking keeps the extremes of each group.
    let small = peaks.resample(10);
    assert_eq!(small.buckets.len(), 10);
    assert_eq!(small.buckets[0], (-0.099, 0.0495));
    assert_eq!(small.buckets[9].1, 0.4995);
    assert_eq!(peaks.resample(5000).buckets.len(), 1000);
}

#[test]
fn a_sound_saves_as_wav_and_reads_back() {
    let sound = three_tones();
    let (mut source, _) = open_bytes(wav_bytes(&sound, RATE, 1), Some("wav")).unwrap();
    let mut out = Vec::new();
    encode_wav(source.as_mut(), &mut out).unwrap();
    assert_eq!(&out[..4], b"RIFF");
    assert_eq!(out.len(), 44 + sound.len() * 2);
    let (mut back, info) = open_bytes(out, Some("wav")).unwrap();
    assert_eq!((info.sample_rate_hz, info.channels), (RATE, 1));
    let mut samples = vec![0f32; sound.len() + 10];
    let mut n = 0;
    loop {
        let got = back.read(&mut samples[n..]).unwrap();
        if got == 0 {
            break;
        }
        n += got;
    }
    assert_eq!(n, sound.len());
    assert!(
        samples[..n]
            .iter()
            .zip(&sound)
            .all(|(a, b)| (a - b).abs() < 1e-3)
    );
    // From an MP3 too (stereo out of the decoder's channels).
    let (mut mp3, info) = open_bytes(mp3_bytes(&sound, RATE, 1, 128), Some("mp3")).unwrap();
    let mut out = Vec::new();
    encode_wav(mp3.as_mut(), &mut out).unwrap();
    let (_, back) = open_bytes(out, Some("wav")).unwrap();
    assert_eq!(back.channels, info.channels);
    assert!((back.duration_secs.unwrap() - 1.2).abs() < 0.06);
}

#[test]
fn a_device_lost_mid_play_falls_back_to_the_wall_clock_and_comes_back() {
    let repaints = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = repaints.clone();
    let output = AudioOutput::start(
        OutputConfig {
            device: OutputDevice::Named("null".into()),
            ..OutputConfig::default()
        },
        Arc::new(move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }),
    );
    assert!(matches!(output.device_state(), DeviceState::Ready { .. }));
    let playback = output.load(
        Box::new(MemorySource::new(
            tones(&[(4.0, 440.0)], RATE, 0.5),
            RATE,
            1,
        )),
        false,
    );
    playback.set_loop(Some((0.0, 4.0)));
    playback.play();
    wait_for("the device to take sound", || {
        playback.position_secs() > 0.0
    });
    let before = repaints.load(std::sync::atomic::Ordering::Relaxed);
    output.simulate_device_error("the card was unplugged");
    wait_for("the device to count as gone", || {
        matches!(output.device_state(), DeviceState::Unavailable { .. })
    });
    let DeviceState::Unavailable { reason } = output.device_state() else {
        unreachable!()
    };
    assert!(reason.contains("unplugged"), "{reason}");
    assert!(repaints.load(std::sync::atomic::Ordering::Relaxed) > before);
    // Still playing, on the wall clock.
    assert_eq!(playback.state(), PlaybackState::Playing);
    let p = playback.position_secs();
    wait_for("the clock to move on", || playback.position_secs() != p);
    // The device is tried again after a few seconds.
    wait_for("the device to come back", || {
        matches!(output.device_state(), DeviceState::Ready { .. })
    });
    assert_eq!(playback.state(), PlaybackState::Playing);
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/audio")
        .join(name)
}

#[test]
fn aac_vorbis_and_flac_decode_in_order() {
    for (name, codec, container) in [
        ("tones_440_880.m4a", "AAC", "m4a"),
        ("tones_440_880.ogg", "Vorbis", "ogg"),
        ("tones_440_880.flac", "FLAC", "flac"),
    ] {
        let (mut source, info) = open_file(&fixture(name)).unwrap();
        assert_eq!(
            (info.codec.as_str(), info.container.as_str()),
            (codec, container)
        );
        let d = info.duration_secs.unwrap();
        assert!((d - 1.0).abs() < 0.06, "{name}: {d}");
        let rate = info.sample_rate_hz;
        let channels = info.channels as usize;
        let mut all = Vec::new();
        let mut buf = vec![0f32; 4096 * channels];
        loop {
            let n = source.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
        }
        let mono: Vec<f32> = all.iter().step_by(channels).copied().collect();
        let at = |a: f64, b: f64| &mono[(a * rate as f64) as usize..(b * rate as f64) as usize];
        let f1 = frequency_hz(at(0.1, 0.4), rate);
        let f2 = frequency_hz(at(0.6, 0.9), rate);
        assert!(
            (f1 - 440.0).abs() < 15.0 && (f2 - 880.0).abs() < 25.0,
            "{name}: {f1} {f2}"
        );
        // Seek into the second half.
        source.seek(0.7).unwrap();
        let mut after = Vec::new();
        while after.len() < (0.2 * rate as f64) as usize * channels {
            let n = source.read(&mut buf).unwrap();
            assert!(n > 0, "{name}: ended after the seek");
            after.extend_from_slice(&buf[..n]);
        }
        let after: Vec<f32> = after.iter().step_by(channels).copied().collect();
        let f = frequency_hz(&after, rate);
        assert!((f - 880.0).abs() < 30.0, "{name} after seek: {f}");
    }
}

/// symphonia has no Opus decoder: until `open_file` hands an MP4 with an Opus track to
/// the player's `audio::mp4`, it says Unsupported (in words that name Opus); once it
/// does, the tones must come out in order.
#[test]
fn opus_in_mp4_plays_its_tones_in_order() {
    match open_file(&fixture("opus_tones_440_880.mp4")) {
        Err(e) => panic!("an Opus track in an MP4 must play, got {e}"),
        Ok((mut source, info)) => {
            assert_eq!(info.codec, "Opus");
            let rate = source.sample_rate_hz();
            let channels = source.channels() as usize;
            let mut all = Vec::new();
            let mut buf = vec![0f32; 4096 * channels];
            loop {
                let n = source.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                all.extend_from_slice(&buf[..n]);
            }
            let mono: Vec<f32> = all.iter().step_by(channels).copied().collect();
            let at = |a: f64, b: f64| &mono[(a * rate as f64) as usize..(b * rate as f64) as usize];
            let (f1, f2) = (
                frequency_hz(at(0.1, 0.4), rate),
                frequency_hz(at(0.6, 0.9), rate),
            );
            assert!(
                (f1 - 440.0).abs() < 15.0 && (f2 - 880.0).abs() < 25.0,
                "{f1} {f2}"
            );
        }
    }
}

/// The subprocess half of `the_default_device_gets_the_sound`: plays through the ALSA
/// default device, which the parent pointed at a file.
#[test]
#[ignore = "run by the_default_device_gets_the_sound in a private HOME"]
fn default_device_inner() {
    let output = AudioOutput::start(OutputConfig::default(), Arc::new(|| {}));
    let DeviceState::Ready { name } = output.device_state() else {
        panic!("no device: {:?}", output.device_state());
    };
    assert_eq!(name, "default");
    let playback = output.load(Box::new(MemorySource::new(three_tones(), RATE, 1)), true);
    wait_for("the end", || playback.state() == PlaybackState::Ended);
    let (rate, channels) = output.output_format().unwrap();
    println!("FORMAT {rate} {channels}");
    // Let the device drain.
    std::thread::sleep(Duration::from_millis(300));
}

#[test]
fn the_default_device_gets_the_sound() {
    // ALSA's default device as a file (over the null PCM): what cpal hands ALSA is
    // written there as raw samples.
    let home = tempfile::tempdir().unwrap();
    let raw = home.path().join("out.raw");
    std::fs::write(
        home.path().join(".asoundrc"),
        format!(
            "pcm.!default {{ type file; slave.pcm \"null\"; file \"{}\"; format \"raw\" }}\n",
            raw.display()
        ),
    )
    .unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "default_device_inner",
            "--nocapture",
        ])
        .env("HOME", home.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let format = stdout
        .lines()
        .find_map(|l| l.strip_prefix("FORMAT "))
        .expect("the child names the format");
    let mut parts = format.split_whitespace().map(|v| v.parse::<u32>().unwrap());
    let (rate, channels) = (parts.next().unwrap(), parts.next().unwrap() as usize);
    let bytes = std::fs::read(&raw).unwrap();
    // cpal asks the file plugin for 32-bit floats here; check that they are.
    let samples: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert!(
        samples.iter().all(|v| (-1.0..=1.0).contains(v)),
        "not f32 samples"
    );
    // The null PCM takes samples faster than real time, so the output ran dry between
    // decode steps: drop the silence, keep the sound, which must be whole and in order.
    let sound: Vec<f32> = samples
        .chunks_exact(channels)
        .map(|f| f[0])
        .filter(|v| *v != 0.0)
        .collect();
    let secs = sound.len() as f64 / rate as f64;
    assert!(
        (secs - 1.2).abs() < 0.01,
        "{secs} s of sound reached the device"
    );
    let part = |a: f64, b: f64| &sound[(a * rate as f64) as usize..(b * rate as f64) as usize];
    for (a, b, want) in [
        (0.05, 0.35, 300.0),
        (0.45, 0.75, 600.0),
        (0.85, 1.15, 1200.0),
    ] {
        let got = frequency_hz(part(a, b), rate);
        assert!(
            (got - want).abs() < want * 0.03,
            "{a}–{b} s: {got} Hz, not {want}"
        );
    }
}

/// After a seek the source gives the very samples a straight decode gives at that time
/// (symphonia's accurate seek from 0.1 s earlier, then the frames before the time dropped).
#[test]
fn a_seek_is_sample_exact() {
    let sound = three_tones();
    let file = |name: &str| std::fs::read(fixture(name)).unwrap();
    for (bytes, ext) in [
        (mp3_bytes(&sound, RATE, 1, 128), "mp3"),
        (wav_bytes(&sound, RATE, 1), "wav"),
        (file("tones_440_880.m4a"), "m4a"),
        (file("tones_440_880.ogg"), "ogg"),
        (file("tones_440_880.flac"), "flac"),
    ] {
        let (mut straight, _) = open_bytes(bytes.clone(), Some(ext)).unwrap();
        let mut all = Vec::new();
        let mut buf = vec![0f32; 4096];
        loop {
            let n = straight.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            all.extend_from_slice(&buf[..n]);
        }
        let (mut seeking, _) = open_bytes(bytes, Some(ext)).unwrap();
        let rate = seeking.sample_rate_hz() as f64;
        let channels = seeking.channels() as usize;
        for t in [0.7, 0.05, 0.9, 0.3333] {
            seeking.seek(t).unwrap();
            let n = seeking.read(&mut buf[..1000 * channels]).unwrap();
            let at = (t * rate).round() as usize * channels;
            let want = &all[at..at + n];
            let worst = buf[..n]
                .iter()
                .zip(want)
                .map(|(a, b)| (a - b).abs())
                .fold(0f32, f32::max);
            // Vorbis comes back within a few hundredths (its first windows after the
            // decoder restarts differ slightly; a one-sample shift would be 0.06 here).
            let tolerance = if ext == "ogg" { 0.05 } else { 1e-3 };
            assert!(worst < tolerance, "{ext} at {t} s: differs by {worst}");
        }
    }
}
