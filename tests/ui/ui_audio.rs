//! Sound in the studio, driven through egui_kittest against the real studio on a sandbox on
//! loopback, with the studio's one audio output recording into a capture sink (no sound
//! card): a Library sound opens in the audio view (never the image view) and plays; Space
//! pauses; a click on the waveform seeks; I / O / L set and toggle a loop; M mutes (the
//! recorded samples fall silent); volume and mute are remembered across a restart; a file
//! that cannot be decoded says why and offers the system player, and asks for no frames.

use crate::support;
use support::{step_until, steps};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use framewright::audio::{
    AudioOutput, CaptureSink, OutputConfig, OutputDevice, PlaybackState, testing,
};
use framewright::session::{Session, SessionOptions};
use framewright::settings::AppPaths;
use framewright::ui::audio::sounds;
use framewright::ui::{StartupOptions, StudioApp, View};
use std::sync::Arc;

type Studio = Harness<'static, StudioApp>;

/// The studio on the Library, its output recording into `sink` (installed before the app
/// starts, as `FRAMEWRIGHT_AUDIO=capture` would).
fn studio_with_capture(dir: &tempfile::TempDir, sink: &CaptureSink) -> Studio {
    let mut session = Session::open_with(
        AppPaths::under(dir.path()),
        SessionOptions {
            sandbox_speed: 20.0,
            use_os_keychain: false,
        },
        Arc::new(|| {}),
    );
    session.set_welcome_seen(true);
    let sink = sink.clone();
    Harness::builder()
        .with_size(egui::vec2(1440.0, 900.0))
        .build_eframe(move |cc| {
            let output = AudioOutput::start(
                OutputConfig {
                    device: OutputDevice::Capture(sink),
                    volume: 1.0,
                    muted: false,
                },
                Arc::new(|| {}),
            );
            framewright::ui::sound::install(&cc.egui_ctx, output);
            StudioApp::new(
                &cc.egui_ctx,
                session,
                StartupOptions {
                    initial_view: View::Library,
                    ..StartupOptions::default()
                },
            )
        })
}

/// A 4-second stereo tone (440 Hz, then 660 Hz) as an MP3 file in `dir`.
fn tone_mp3(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let rate = 44_100;
    let mono = testing::tones(&[(2.0, 440.0), (2.0, 660.0)], rate, 0.5);
    let stereo: Vec<f32> = mono.iter().flat_map(|s| [*s, *s]).collect();
    let path = dir.path().join("harbour-tone.mp3");
    std::fs::write(&path, testing::mp3_bytes(&stereo, rate, 2, 128)).expect("write the mp3");
    path
}

fn hide_jobs_tray(harness: &mut Studio) {
    let hide = harness.query_by(|node| {
        node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Hide jobs"))
    });
    if let Some(hide) = hide {
        hide.click();
        steps(harness, 2);
    }
}

/// Drop `path` onto the Library and wait for its tile; the tile's accessible name.
fn upload_sound(harness: &mut Studio, path: std::path::PathBuf) -> String {
    step_until(harness, "the service data", |h| {
        h.state().projects_loaded() && h.state().catalog_loaded()
    });
    hide_jobs_tray(harness);
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .expect("file name")
        .to_owned();
    support::drop_file(harness, path);
    let label = format!("{name}, audio");
    step_until(harness, "the uploaded sound's tile", |h| {
        h.query_by_role_and_label(Role::Button, &label).is_some()
    });
    label
}

/// Double-click the tile named `label`; waits for the audio view to show the sound.
fn open_in_viewer(harness: &mut Studio, label: &str) {
    let centre = harness
        .get_by_role_and_label(Role::Button, label)
        .rect()
        .center();
    // A double click in one frame (kittest's own clicks are a quarter second apart, longer
    // than egui's double-click delay).
    let input = harness.input_mut();
    input.events.push(egui::Event::PointerMoved(centre));
    for pressed in [true, false, true, false] {
        input.events.push(egui::Event::PointerButton {
            pos: centre,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    harness.step();
    step_until(harness, "the audio view", |h| {
        h.state().viewer().audio_view().is_some()
    });
}

fn sound_url(harness: &Studio) -> String {
    harness
        .state()
        .viewer()
        .audio_view()
        .and_then(|view| view.url())
        .expect("the audio view shows a sound")
        .to_owned()
}

fn press(harness: &mut Studio, key: egui::Key) {
    harness.key_press(key);
    steps(harness, 2);
}

fn loudest(samples: &[f32]) -> f32 {
    samples.iter().fold(0.0f32, |m, s| m.max(s.abs()))
}

#[test]
fn a_library_sound_plays_in_the_audio_view_pauses_seeks_loops_and_mutes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sink = CaptureSink::new();
    let mut harness = studio_with_capture(&dir, &sink);
    let label = upload_sound(&mut harness, tone_mp3(&dir));
    open_in_viewer(&mut harness, &label);

    // The audio view, not the image view: a waveform, no "Image n of m".
    step_until(&mut harness, "the waveform", |h| {
        h.query_by(|n| {
            n.role() == Role::Slider && n.label().is_some_and(|l| l.starts_with("Waveform:"))
        })
        .is_some()
    });
    assert!(
        harness
            .query_by(|n| n.label().is_some_and(|l| l.starts_with("Image 1 of")))
            .is_none(),
        "a sound never opens in the image view"
    );
    let ctx = harness.ctx.clone();
    let url = sound_url(&harness);
    step_until(&mut harness, "the sound loaded into the output", |_| {
        sounds::playback(&ctx, &url).is_some()
    });

    // Space plays: the device receives the tone.
    press(&mut harness, egui::Key::Space);
    step_until(&mut harness, "non-silent samples at the device", |_| {
        loudest(&sink.samples()) > 0.2
    });
    let playback = sounds::playback(&ctx, &url).expect("playback");
    assert_eq!(playback.state(), PlaybackState::Playing);

    // Space again pauses, and the clock stops.
    press(&mut harness, egui::Key::Space);
    assert_eq!(playback.state(), PlaybackState::Paused);
    let paused_at = playback.position_secs();
    std::thread::sleep(std::time::Duration::from_millis(200));
    steps(&mut harness, 2);
    assert!(
        (playback.position_secs() - paused_at).abs() < 0.05,
        "the playhead stays while paused"
    );

    // A click at three quarters of the waveform seeks there (4 s → about 3 s).
    let wave = harness
        .get_by(|n| {
            n.role() == Role::Slider && n.label().is_some_and(|l| l.starts_with("Waveform:"))
        })
        .rect();
    let at = egui::pos2(wave.left() + wave.width() * 0.75, wave.center().y);
    harness
        .input_mut()
        .events
        .push(egui::Event::PointerMoved(at));
    harness.step();
    for pressed in [true, false] {
        harness.input_mut().events.push(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.step();
    }
    let sought = playback.position_secs();
    assert!(
        (sought - 3.0).abs() < 0.3,
        "the click seeks to three quarters (at {sought:.2} s)"
    );

    // I sets A at the playhead, O sets B later: the loop is on; L turns it off and on.
    press(&mut harness, egui::Key::ArrowLeft);
    press(&mut harness, egui::Key::ArrowLeft);
    press(&mut harness, egui::Key::I);
    let a = playback.position_secs();
    press(&mut harness, egui::Key::ArrowRight);
    press(&mut harness, egui::Key::O);
    let (region, on) = harness
        .state()
        .viewer()
        .audio_view()
        .expect("audio view")
        .loop_region();
    let (start, end) = region.expect("I and O set a loop");
    assert!(on, "setting A and B turns the loop on");
    assert!(
        (start - a).abs() < 0.05 && end > start + 0.5,
        "{start}..{end}"
    );
    assert_eq!(playback.loop_range(), Some((start, end)));
    press(&mut harness, egui::Key::L);
    assert_eq!(playback.loop_range(), None, "L turns the loop off");
    press(&mut harness, egui::Key::L);
    assert_eq!(playback.loop_range(), Some((start, end)), "and on again");

    // M mutes: what reaches the device from then on is silence.
    press(&mut harness, egui::Key::Space);
    assert_eq!(playback.state(), PlaybackState::Playing);
    press(&mut harness, egui::Key::M);
    let output = framewright::ui::sound::output(&ctx).expect("output");
    assert!(output.muted(), "M mutes");
    // Past the samples already queued for the device, everything is silent.
    let muted_from = sink.len() + 44_100;
    step_until(&mut harness, "a second of samples after muting", |_| {
        sink.len() > muted_from + 44_100
    });
    let after = sink.samples();
    assert!(
        loudest(&after[muted_from..]) < 1e-4,
        "muted samples are silent (loudest {})",
        loudest(&after[muted_from..])
    );
    assert!(
        harness
            .query_by_role_and_label(Role::Button, "Unmute all sound")
            .is_some(),
        "the status bar offers Unmute"
    );
    press(&mut harness, egui::Key::M);
    assert!(!output.muted(), "M again unmutes");
}

#[test]
fn volume_and_mute_are_remembered_across_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sink = CaptureSink::new();
    {
        let mut harness = studio_with_capture(&dir, &sink);
        step_until(&mut harness, "the service data", |h| {
            h.state().projects_loaded()
        });
        let output = framewright::ui::sound::output(&harness.ctx).expect("output");
        // The slider's effect, then the status bar's Mute button.
        output.set_volume(0.35);
        harness
            .get_by_role_and_label(Role::Button, "Mute all sound")
            .click();
        steps(&mut harness, 3);
        assert!(output.muted());
        let remembered = harness.state().sound_memory();
        assert!(remembered.muted && (remembered.volume - 0.35).abs() < 1e-3);
    }
    let mut harness = studio_with_capture(&dir, &sink);
    steps(&mut harness, 2);
    let output = framewright::ui::sound::output(&harness.ctx).expect("output");
    assert!(output.muted(), "mute is remembered");
    assert!(
        (output.volume() - 0.35).abs() < 1e-3,
        "the volume is remembered ({})",
        output.volume()
    );
    assert!(
        harness
            .query_by_role_and_label(Role::Button, "Unmute all sound")
            .is_some()
    );
}

#[test]
fn a_damaged_sound_says_why_offers_the_system_player_and_rests() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sink = CaptureSink::new();
    let mut harness = studio_with_capture(&dir, &sink);
    // Not a sound at all, under a sound's name.
    let path = dir.path().join("broken-song.mp3");
    std::fs::write(&path, b"this is not an mp3, only text pretending to be one").expect("write");
    let label = upload_sound(&mut harness, path);
    open_in_viewer(&mut harness, &label);
    step_until(&mut harness, "the reason in words", |h| {
        // Damaged, or not a sound the studio can read at all: said in words either way.
        h.query_by_label_contains("cannot be played").is_some()
            || h.query_by_label_contains("the studio cannot play")
                .is_some()
    });
    assert!(
        harness
            .query_all_by_role_and_label(Role::Button, "Open in system player")
            .next()
            .is_some(),
        "the system player is offered"
    );
    assert!(
        harness.query_by_label("Details").is_some(),
        "the raw error is under Details"
    );
    // Once said, it rests: no frame asks for another.
    steps(&mut harness, 5);
    harness.step();
    assert!(
        !harness.ctx.has_requested_repaint(),
        "a failed sound asks for no more frames"
    );
}
