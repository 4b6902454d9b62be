//! Sound start-up and cost, on ALSA's "null" device (no sound card needed) and on the
//! capture output:
//! - time from `Playback::play()` to the first sample the device callback pulls (the
//!   clock leaving its start), for a sound loaded ahead and for load-and-play at once;
//! - CPU (user + system, from /proc/self/stat) while one sound plays for 5 s, and while a
//!   sound is loaded but paused for 3 s.
//!
//! Run: `cargo bench --bench audio_first_sample`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use framewright::audio::source::MemorySource;
use framewright::audio::testing::tones;
use framewright::audio::{
    AudioOutput, CaptureSink, DeviceState, OutputConfig, OutputDevice, PlaybackState,
};

const RATE: u32 = 44_100;

fn sound(secs: f64) -> Box<MemorySource> {
    let mono = tones(&[(secs, 440.0)], RATE, 0.5);
    let stereo: Vec<f32> = mono.iter().flat_map(|&s| [s, s]).collect();
    Box::new(MemorySource::new(stereo, RATE, 2))
}

fn output(device: OutputDevice) -> AudioOutput {
    AudioOutput::start(
        OutputConfig {
            device,
            volume: 1.0,
            muted: false,
        },
        Arc::new(|| {}),
    )
}

/// Process CPU time (user + system) in clock ticks → seconds.
fn process_cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the ")" of the command name: state is field 3; utime 14, stime 15.
    let rest = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i - 3)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // USER_HZ is 100 on Linux.
    (ticks(14) + ticks(15)) / 100.0
}

fn wait_until(mut f: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !f() {
        if start.elapsed() > Duration::from_secs(5) {
            break;
        }
        std::hint::spin_loop();
    }
    start.elapsed()
}

fn stats(mut v: Vec<Duration>) -> String {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    format!(
        "min {:.1} ms, median {:.1} ms, max {:.1} ms",
        ms(v[0]),
        ms(v[v.len() / 2]),
        ms(v[v.len() - 1])
    )
}

fn main() {
    let null = output(OutputDevice::Named("null".into()));
    match null.device_state() {
        DeviceState::Ready { name } => println!("device: {name}"),
        DeviceState::Unavailable { reason } => {
            println!("the null device is unavailable ({reason}); nothing to measure");
            return;
        }
    }
    let runs = 20;
    // Loaded ahead (paused), then play.
    let mut preloaded = Vec::new();
    for _ in 0..runs {
        let playback = null.load(sound(3.0), false);
        std::thread::sleep(Duration::from_millis(100));
        let start = Instant::now();
        playback.play();
        wait_until(|| playback.position_secs() > 0.0);
        preloaded.push(start.elapsed());
        drop(playback);
        std::thread::sleep(Duration::from_millis(50));
    }
    println!(
        "play() → first sample pulled, sound loaded ahead, {runs} runs: {}",
        stats(preloaded)
    );
    let mut cold = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let playback = null.load(sound(3.0), true);
        wait_until(|| playback.position_secs() > 0.0);
        cold.push(start.elapsed());
        drop(playback);
        std::thread::sleep(Duration::from_millis(50));
    }
    println!(
        "load(play) → first sample pulled, {runs} runs: {}",
        stats(cold)
    );

    for (name, device) in [
        ("capture", OutputDevice::Capture(CaptureSink::new())),
        ("null device", OutputDevice::Named("null".into())),
    ] {
        let out = output(device);
        // Looped: the null device takes samples faster than real time.
        let playback = out.load(sound(10.0), false);
        playback.set_loop(Some((0.0, 10.0)));
        playback.play();
        std::thread::sleep(Duration::from_millis(200));
        let cpu = process_cpu_secs();
        let start = Instant::now();
        std::thread::sleep(Duration::from_secs(5));
        let used = process_cpu_secs() - cpu;
        let wall = start.elapsed().as_secs_f64();
        assert_eq!(playback.state(), PlaybackState::Playing);
        println!(
            "CPU while playing on the {name} for {wall:.1} s: {:.2} % of one core ({used:.2} s)",
            used / wall * 100.0
        );
        let position = playback.position_secs();
        playback.pause();
        std::thread::sleep(Duration::from_millis(200));
        let cpu = process_cpu_secs();
        let start = Instant::now();
        std::thread::sleep(Duration::from_secs(3));
        let used = process_cpu_secs() - cpu;
        println!(
            "CPU with a paused sound on the {name} for {:.1} s: {used:.2} s (position {position:.1} s)",
            start.elapsed().as_secs_f64()
        );
    }
}
