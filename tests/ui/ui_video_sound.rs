//! The player's sound controls in the running studio (issue 21 §2): `--play FILE` opens a
//! video with an AAC track in the viewer and plays it, its sound reaches the output (a
//! `CaptureSink`: no sound card here), Mute / Unmute and Volume act on the studio's one
//! output; a video without a track says "No sound track".

use crate::support;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use framewright::audio::{AudioOutput, CaptureSink, OutputConfig, OutputDevice};
use framewright::session::{Session, SessionOptions};
use framewright::settings::AppPaths;
use framewright::ui::{StartupOptions, StudioApp, View};
use std::path::PathBuf;
use std::sync::Arc;
use support::{Studio, step_until, steps};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/video")
        .join(name)
}

/// The studio started as `framewright --play FILE`, its sound going to `sink`.
fn studio_playing(dir: &tempfile::TempDir, file: PathBuf) -> (Studio, AudioOutput, CaptureSink) {
    let mut session = Session::open_with(
        AppPaths::under(dir.path()),
        SessionOptions {
            sandbox_speed: 20.0,
            use_os_keychain: false,
        },
        Arc::new(|| {}),
    );
    session.set_welcome_seen(true);
    let sink = CaptureSink::new();
    let output = AudioOutput::start(
        OutputConfig {
            device: OutputDevice::Capture(sink.clone()),
            volume: 1.0,
            muted: false,
        },
        Arc::new(|| {}),
    );
    let installed = output.clone();
    let harness = Harness::builder()
        .with_size(egui::vec2(1440.0, 900.0))
        .build_eframe(move |cc| {
            framewright::ui::sound::install(&cc.egui_ctx, installed);
            StudioApp::new(
                &cc.egui_ctx,
                session,
                StartupOptions {
                    initial_view: View::Create,
                    play_file: Some(file),
                    ..StartupOptions::default()
                },
            )
        });
    (harness, output, sink)
}

/// The player's own button named `label` (the status bar's are named apart: "Mute all
/// sound", "Studio volume").
fn click_player_button(harness: &mut Studio, label: &str) {
    harness.get_by_role_and_label(Role::Button, label).click();
    steps(harness, 2);
}

fn has(harness: &Studio, role: Role, label: &str) -> bool {
    harness
        .query_all_by_role_and_label(role, label)
        .next()
        .is_some()
}

#[test]
fn play_opens_a_video_with_sound_plays_it_and_the_controls_act_on_the_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut harness, output, sink) =
        studio_playing(&dir, fixture("h264_aac_160x90_24fps_48f.mp4"));
    // It plays by itself: the button offers Pause.
    step_until(&mut harness, "the video plays", |h| {
        has(h, Role::Button, "Pause (Space)")
    });
    step_until(&mut harness, "its sound reaches the output", |_| {
        sink.samples().iter().any(|s| s.abs() > 0.1)
    });
    assert!(has(&harness, Role::Slider, "Volume"));
    assert!(harness.query_by_label("No sound track").is_none());

    click_player_button(&mut harness, "Mute");
    assert!(output.muted(), "Mute mutes the studio's output");
    step_until(&mut harness, "the button offers Unmute", |h| {
        has(h, Role::Button, "Unmute")
    });
    sink.clear();
    steps(&mut harness, 5);
    std::thread::sleep(std::time::Duration::from_millis(150));
    assert!(
        sink.samples().iter().all(|s| *s == 0.0),
        "nothing is heard while muted"
    );
    click_player_button(&mut harness, "Unmute");
    assert!(!output.muted());
}

#[test]
fn a_video_without_a_sound_track_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut harness, _output, sink) =
        studio_playing(&dir, fixture("baseline_160x90_24fps_48f.mp4"));
    step_until(&mut harness, "the player says there is no sound", |h| {
        h.query_by_label("No sound track").is_some()
    });
    step_until(&mut harness, "the video plays", |h| {
        has(h, Role::Button, "Pause (Space)")
    });
    assert!(sink.samples().iter().all(|s| *s == 0.0));
}
