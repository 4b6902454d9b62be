//! Thumbnails after a fling: the real studio (headless egui through `egui_kittest`, no GPU)
//! on its embedded sandbox on loopback, seeded with 3,000 library items, with the real
//! `ThumbnailPipeline` and an empty disk cache each run. After the first screen's
//! thumbnails are in, a fling: wheel deltas every frame for ~0.3 s that travel ~7,000 px;
//! then frames (paced at 60 Hz of wall time) until the scroll has stopped and every
//! visible tile has its texture (or its broken glyph). Reports, per run and as
//! min/median/max, the time from the last wheel event to
//! - the scroll stopping (the grid's visible range stops changing),
//! - the first visible tile with a texture,
//! - the last visible tile with a texture (the target: ≤ 300 ms).
//!
//! `cargo bench --locked --bench thumbnail_fling` (release); `FLING_RUNS=1` for a quick
//! check (default 5 runs), `FLING_ITEMS` for another library size.

use egui_kittest::Harness;
use framewright::session::{Session, SessionOptions};
use framewright::settings::AppPaths;
use framewright::ui::{StartupOptions, StudioApp, View};
use std::sync::Arc;
use std::time::{Duration, Instant};

const WIDTH: f32 = 1440.0;
const HEIGHT: f32 = 900.0;
const FRAME: Duration = Duration::from_micros(16_667);
/// Wheel deltas: this many frames (~0.3 s at 60 Hz), this many points each.
const FLING_FRAMES: usize = 18;
const FLING_STEP_PT: f32 = 400.0;
/// Giving up on a run (reported as a failure, not a number).
const RUN_LIMIT: Duration = Duration::from_secs(30);

type Studio = Harness<'static, StudioApp>;

struct Run {
    visible_tiles: usize,
    scroll_stopped: Duration,
    first: Duration,
    last: Duration,
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One frame, then sleep out the rest of a 60 Hz frame (the workers run meanwhile).
fn paced_step(harness: &mut Studio) {
    let started = Instant::now();
    harness.step();
    if let Some(rest) = FRAME.checked_sub(started.elapsed()) {
        std::thread::sleep(rest);
    }
}

/// Display indices on screen and how many of them are loaded and settled (texture held
/// or failed).
fn visible_state(harness: &Studio) -> (std::ops::Range<usize>, usize, usize) {
    let app = harness.state();
    let visible = app.library_visible();
    let ids = app.library_item_ids();
    let mut settled = 0;
    let mut loaded = 0;
    for index in visible.clone() {
        if let Some(id) = ids.get(index) {
            loaded += 1;
            if app.library_thumbnail_ready(id) || app.library_thumbnail_error(id).is_some() {
                settled += 1;
            }
        }
    }
    (visible, loaded, settled)
}

fn wait_for(harness: &mut Studio, what: &str, done: impl Fn(&Studio) -> bool) {
    let started = Instant::now();
    while !done(harness) {
        assert!(
            started.elapsed() < RUN_LIMIT,
            "timed out waiting for {what}"
        );
        paced_step(harness);
    }
}

fn one_run(items: usize) -> Option<Run> {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut session = Session::open_with(
        AppPaths::under(dir.path()),
        SessionOptions {
            sandbox_speed: 20.0,
            use_os_keychain: false,
        },
        Arc::new(|| {}),
    );
    session.set_welcome_seen(true);
    let seeded = session
        .local_sandbox()
        .expect("the embedded sandbox")
        .seed_media(items, None);
    assert_eq!(seeded, items, "the sandbox seeded the items");
    let mut harness: Studio = Harness::builder()
        .with_size(egui::vec2(WIDTH, HEIGHT))
        .with_step_dt(FRAME.as_secs_f32())
        .build_eframe(move |cc| {
            StudioApp::new(
                &cc.egui_ctx,
                session,
                StartupOptions {
                    initial_view: View::Library,
                    ..StartupOptions::default()
                },
            )
        });
    wait_for(&mut harness, "the library's first page", |h| {
        h.state().library_settled() && h.state().library_len() >= items.min(1)
    });
    wait_for(&mut harness, "the first screen's thumbnails", |h| {
        let (visible, loaded, settled) = visible_state(h);
        !visible.is_empty() && loaded == visible.len() && settled == loaded
    });
    // The pointer over the grid, then the fling.
    harness
        .input_mut()
        .events
        .push(egui::Event::PointerMoved(egui::pos2(
            WIDTH * 0.45,
            HEIGHT * 0.5,
        )));
    paced_step(&mut harness);
    let mut last_wheel = Instant::now();
    for _ in 0..FLING_FRAMES {
        harness.input_mut().events.push(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, -FLING_STEP_PT),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
            modifiers: egui::Modifiers::NONE,
        });
        last_wheel = Instant::now();
        paced_step(&mut harness);
    }
    let mut previous = harness.state().library_visible();
    let mut scroll_stopped = Duration::ZERO;
    let mut first = None;
    let mut stable_frames = 0;
    loop {
        paced_step(&mut harness);
        let since = last_wheel.elapsed();
        if since > RUN_LIMIT {
            eprintln!("run gave up after {RUN_LIMIT:?}");
            return None;
        }
        let (visible, loaded, settled) = visible_state(&harness);
        if visible != previous {
            scroll_stopped = since;
            stable_frames = 0;
            previous = visible.clone();
        } else {
            stable_frames += 1;
        }
        if first.is_none() && settled > 0 {
            first = Some(since);
        }
        // Two frames without movement: the scroll has stopped, not paused between steps.
        if stable_frames >= 2 && loaded == visible.len() && settled == loaded {
            return Some(Run {
                visible_tiles: visible.len(),
                scroll_stopped,
                first: first.unwrap_or(since),
                last: since,
            });
        }
    }
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn spread(mut values: Vec<Duration>) -> String {
    values.sort();
    let Some((min, max)) = values.first().zip(values.last()) else {
        return "-".into();
    };
    format!("{}/{}/{}", ms(*min), ms(values[values.len() / 2]), ms(*max))
}

fn main() {
    // `cargo bench` passes `--bench`; settings come from the environment.
    let runs = env_usize("FLING_RUNS", 5).max(1);
    let items = env_usize("FLING_ITEMS", 3_000).max(1);
    println!(
        "thumbnail_fling: {items} items, {WIDTH}×{HEIGHT}, fling of {FLING_FRAMES} wheel steps × \
         {FLING_STEP_PT} pt at 60 Hz, {runs} runs, empty disk cache each run"
    );
    let mut done = Vec::new();
    for run in 1..=runs {
        match one_run(items) {
            Some(r) => {
                println!(
                    "run {run}: {} visible tiles; after the last wheel event: scroll stopped {}, \
                     first texture {}, last texture {}",
                    r.visible_tiles,
                    ms(r.scroll_stopped),
                    ms(r.first),
                    ms(r.last)
                );
                done.push(r);
            }
            None => println!("run {run}: failed"),
        }
    }
    println!(
        "min/median/max over {} runs: scroll stopped {}, first texture {}, last texture {}",
        done.len(),
        spread(done.iter().map(|r| r.scroll_stopped).collect()),
        spread(done.iter().map(|r| r.first).collect()),
        spread(done.iter().map(|r| r.last).collect()),
    );
}
