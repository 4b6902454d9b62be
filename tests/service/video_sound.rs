//! Sound in the video player (issue 21 §2, §7): a video's AAC or Opus track reaches the
//! studio's output in order and in step with the picture; a seek lands sound and picture
//! together; a video without a track plays on the wall clock; another sound taking the
//! output pauses the video.
//!
//! No sound card: the output is a `CaptureSink`, which pulls samples on the wall clock at 1×
//! and records them. The AAC and Opus fixtures play a tone of 400 + 100·k Hz during the
//! k-th eighth of a second (tests/fixtures/video/README.md), so the captured sound tells
//! which time of the video was heard.

use framewright::audio::mp4::Mp4AudioSource;
use framewright::audio::{AudioOutput, CaptureSink, OutputConfig, OutputDevice, PlaybackState};
use framewright::media::video::player::{PlayerFrame, SoundTrack};
use framewright::media::video::{VideoDecoder, VideoPlayer};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(5);
const RATE: f64 = 48_000.0;
const FRAME_SECS: f64 = 1.0 / 24.0;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/video")
        .join(name)
}

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

fn open_with_sound(name: &str, output: &AudioOutput) -> VideoPlayer {
    let player = VideoPlayer::open(fixture(name), Arc::new(|| {})).expect("the video opens");
    assert!(
        matches!(player.sound_track(), SoundTrack::Ready { .. }),
        "{name}: {:?}",
        player.sound_track()
    );
    assert!(player.attach_sound(output));
    // The first frame, shown paused.
    assert_eq!(next(&player).frame.index, 0);
    player
}

fn next(player: &VideoPlayer) -> PlayerFrame {
    player.recv_frame_timeout(WAIT).expect("a frame arrives")
}

fn wait_until(what: &str, check: impl Fn() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !check() {
        assert!(Instant::now() < deadline, "never: {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Left channel of interleaved stereo.
fn left(samples: &[f32]) -> Vec<f32> {
    samples.iter().step_by(2).copied().collect()
}

fn rms(mono: &[f32]) -> f32 {
    (mono.iter().map(|s| s * s).sum::<f32>() / mono.len().max(1) as f32).sqrt()
}

/// Frequency of a tone from its zero crossings.
fn tone_hz(mono: &[f32]) -> f64 {
    let crossings = mono
        .windows(2)
        .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
        .count();
    crossings as f64 / 2.0 / (mono.len() as f64 / RATE)
}

fn expected_hz(time_secs: f64) -> f64 {
    400.0 + 100.0 * (time_secs * 8.0).floor()
}

/// Index of the first clearly audible sample (the capture may start with a few ms of
/// silence while the first block is decoded).
fn first_sound(mono: &[f32]) -> usize {
    mono.iter()
        .position(|s| s.abs() > 0.05)
        .unwrap_or(mono.len())
}

/// Plays from the start for `secs` and returns the captured sound (left channel) from its
/// first audible sample, and the frames received meanwhile.
fn play_for(player: &VideoPlayer, sink: &CaptureSink, secs: f64) -> (Vec<f32>, Vec<PlayerFrame>) {
    sink.clear();
    assert!(player.play());
    let started = Instant::now();
    let mut frames = Vec::new();
    while started.elapsed().as_secs_f64() < secs {
        if let Some(frame) = player.recv_frame_timeout(Duration::from_millis(50)) {
            frames.push(frame);
        }
    }
    assert!(player.pause());
    let mono = left(&sink.samples());
    let from = first_sound(&mono);
    (mono[from..].to_vec(), frames)
}

/// The tones heard, eighth by eighth, are those of the video from its start.
fn assert_tones_in_order(mono: &[f32], eighths: usize, what: &str) {
    assert!(
        mono.len() >= eighths * 6000,
        "{what}: only {} samples captured",
        mono.len()
    );
    for k in 0..eighths {
        // The middle of each eighth (its edges are smeared by the codec and the start).
        let from = k * 6000 + 1500;
        let hz = tone_hz(&mono[from..from + 3000]);
        let want = expected_hz(k as f64 / 8.0);
        assert!(
            (hz - want).abs() < 30.0,
            "{what}: eighth {k} plays {hz} Hz, not {want}"
        );
    }
}

#[test]
fn a_videos_aac_track_reaches_the_output_in_order_with_the_picture() {
    let (output, sink) = capture_output();
    let player = open_with_sound("h264_aac_160x90_24fps_48f.mp4", &output);
    assert_eq!(
        player.sound_track(),
        &SoundTrack::Ready { codec: "AAC" },
        "AAC track found"
    );
    let (mono, frames) = play_for(&player, &sink, 1.0);
    assert!(rms(&mono) > 0.1, "the sound is heard");
    assert_tones_in_order(&mono, 6, "AAC");
    // The picture moved on in order while the sound played, and with it.
    assert!(frames.len() > 10, "{} frames", frames.len());
    assert!(
        frames
            .windows(2)
            .all(|w| w[1].frame.index > w[0].frame.index)
    );
    let apart: Vec<f64> = frames
        .iter()
        .filter_map(|f| Some((f.status.sound_secs? - f.status.time_secs).abs()))
        .collect();
    assert!(!apart.is_empty(), "frames carry the sound clock");
    let mut sorted = apart.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    assert!(
        median <= FRAME_SECS,
        "picture and sound apart by {median} s (median)"
    );
    assert!(frames.iter().all(|f| f.status.has_sound));
}

#[test]
fn a_sandbox_videos_opus_track_is_heard() {
    let (output, sink) = capture_output();
    let player = open_with_sound("sandbox_opus_160x90_24fps_48f.mp4", &output);
    assert_eq!(player.sound_track(), &SoundTrack::Ready { codec: "Opus" });
    let (mono, frames) = play_for(&player, &sink, 0.6);
    assert!(mono.len() > 12_000, "{} samples", mono.len());
    assert!(rms(&mono) > 0.02, "the generated sound is heard");
    assert!(!frames.is_empty());

    // An Opus file from ffmpeg (stereo, pre-skip in the edit list) plays its tones.
    let (output, sink) = capture_output();
    let player = open_with_sound("h264_opus_160x90_24fps_48f.mp4", &output);
    let (mono, _) = play_for(&player, &sink, 0.9);
    assert_tones_in_order(&mono, 5, "Opus");
}

#[test]
fn a_seek_lands_sound_and_picture_together() {
    let (output, sink) = capture_output();
    let player = open_with_sound("h264_aac_160x90_24fps_48f.mp4", &output);
    assert!(player.play());
    std::thread::sleep(Duration::from_millis(200));
    // Frame 30 shows at 1.25 s, where the sound plays 1400 Hz.
    assert!(player.seek_frame(30));
    let landed = loop {
        let frame = next(&player);
        if frame.frame.index == 30 {
            break frame;
        }
    };
    sink.clear();
    let sound_secs = landed.status.sound_secs.expect("the sound plays");
    assert!(
        (sound_secs - landed.status.time_secs).abs() <= FRAME_SECS,
        "frame at {} s, sound at {sound_secs} s",
        landed.status.time_secs
    );
    std::thread::sleep(Duration::from_millis(250));
    let mono = left(&sink.samples());
    let from = first_sound(&mono);
    assert!(mono.len() > from + 3000, "sound after the seek");
    let hz = tone_hz(&mono[from..from + 3000]);
    // 1400 Hz, or 1500 if the first 60 ms after the seek already reached 1.375 s.
    assert!(
        (hz - 1400.0).abs() < 30.0 || (hz - 1500.0).abs() < 30.0,
        "after the seek the sound plays {hz} Hz"
    );

    // Paused: stepping moves the sound's position with the picture.
    assert!(player.pause());
    assert!(player.seek_frame(12));
    while next(&player).frame.index != 12 {}
    assert!(player.step(3));
    while next(&player).frame.index != 15 {}
    assert!(player.play());
    let frame = next(&player);
    let sound_secs = frame.status.sound_secs.expect("plays");
    assert!(
        (sound_secs - frame.status.time_secs).abs() <= 2.0 * FRAME_SECS,
        "after a step and play: frame at {} s, sound at {sound_secs} s",
        frame.status.time_secs
    );
    player.pause();
}

#[test]
fn a_video_without_a_sound_track_plays_on_the_wall_clock() {
    let (output, sink) = capture_output();
    let player = VideoPlayer::open(fixture("baseline_160x90_24fps_48f.mp4"), Arc::new(|| {}))
        .expect("opens");
    assert_eq!(player.sound_track(), &SoundTrack::None);
    assert!(!player.attach_sound(&output), "nothing to attach");
    assert_eq!(next(&player).frame.index, 0);
    assert!(player.play());
    let started = Instant::now();
    let mut last = 0;
    while last < 12 {
        let frame = next(&player);
        assert!(!frame.status.has_sound);
        assert!(frame.status.sound_secs.is_none());
        last = frame.frame.index;
    }
    // Frame `last` is due `last / 24` s after Play.
    assert!(started.elapsed().as_secs_f64() >= f64::from(last) / 24.0 - 0.05);
    player.pause();
    assert!(
        sink.samples().iter().all(|s| *s == 0.0),
        "nothing was played"
    );
}

#[test]
fn another_sound_taking_the_output_pauses_the_video() {
    let (output, _sink) = capture_output();
    let player = open_with_sound("h264_aac_160x90_24fps_48f.mp4", &output);
    assert!(player.play());
    wait_until("the video plays", || player.status().playing);
    // Another panel plays a sound (one sound at a time across the studio).
    let other = Mp4AudioSource::open(&fixture("h264_opus_160x90_24fps_48f.mp4")).expect("opens");
    let other = output.load(Box::new(other), true);
    assert_eq!(other.state(), PlaybackState::Playing);
    wait_until("the video pauses", || !player.status().playing);
    // Play again takes the output back.
    assert!(player.play());
    wait_until("the other sound pauses", || {
        other.state() == PlaybackState::PausedByOther
    });
    player.pause();
}

#[test]
fn decoding_the_track_directly_matches_the_video_length() {
    let decoder = VideoDecoder::open(fixture("h264_aac_160x90_24fps_48f.mp4")).expect("opens");
    let source = Mp4AudioSource::open(&fixture("h264_aac_160x90_24fps_48f.mp4")).expect("opens");
    use framewright::audio::SampleSource;
    let sound_secs = source.duration_secs().expect("known");
    assert!((sound_secs - decoder.info().duration_secs).abs() < 0.05);
}

#[test]
fn faster_than_real_time_is_silent_and_1x_picks_the_sound_up_in_step() {
    let (output, sink) = capture_output();
    let player = open_with_sound("h264_aac_160x90_24fps_48f.mp4", &output);
    player.set_loop(true);
    assert!(player.play());
    wait_until("the sound plays", || {
        sink.samples().iter().any(|s| s.abs() > 0.1)
    });
    assert!(player.set_speed(2));
    wait_until("2×", || player.status().speed == 2);
    sink.clear();
    let started = Instant::now();
    let mut frames = Vec::new();
    while started.elapsed() < Duration::from_millis(400) {
        if let Some(frame) = player.recv_frame_timeout(Duration::from_millis(50)) {
            frames.push(frame);
        }
    }
    assert!(frames.iter().all(|f| f.status.sound_secs.is_none()));
    assert!(
        sink.samples().iter().all(|s| *s == 0.0),
        "the sound is muted above 1×"
    );
    assert!(player.set_speed(1));
    let back = loop {
        let frame = next(&player);
        if frame.status.speed == 1 && frame.status.sound_secs.is_some() {
            break frame;
        }
    };
    let sound_secs = back.status.sound_secs.unwrap_or_default();
    assert!(
        (sound_secs - back.status.time_secs).abs() <= 2.0 * FRAME_SECS,
        "back at 1×: frame at {} s, sound at {sound_secs} s",
        back.status.time_secs
    );
    // A pause goes back to 1×.
    player.set_speed(4);
    wait_until("4×", || player.status().speed == 4);
    player.pause();
    wait_until("1× after a pause", || {
        let status = player.status();
        !status.playing && status.speed == 1
    });
}
