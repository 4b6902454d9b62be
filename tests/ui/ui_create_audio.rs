//! Music, speech and sound effects in Create as an artist uses them, through egui_kittest
//! against the real studio on a sandbox on loopback, with the studio's audio output
//! recording into a capture sink (no sound card): music gives two titled variations side
//! by side on the canvas that play; speech shows what its text costs as it is typed, says
//! "Choose a voice" at the picker before anything is sent, and plays a voice's preview
//! before it is chosen.

use crate::support;
use support::{
    click_button, generate_label, press_generate, step_until, steps, wait_for_service_data,
};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::api::GenerationKind;
use framewright::audio::{AudioOutput, CaptureSink, OutputConfig, OutputDevice};
use framewright::engine::JobPhase;
use framewright::session::{Session, SessionOptions};
use framewright::settings::AppPaths;
use framewright::ui::{StartupOptions, StudioApp, View};
use std::sync::Arc;

type Studio = Harness<'static, StudioApp>;

/// The studio on Create with its sandbox (jobs 20× faster) and an audio output that
/// records what it plays into the returned sink.
fn studio_with_capture(dir: &tempfile::TempDir) -> (Studio, CaptureSink) {
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
    let device = OutputDevice::Capture(sink.clone());
    let harness = Harness::builder()
        .with_size(egui::vec2(1440.0, 900.0))
        .build_eframe(move |cc| {
            let repaint_ctx = cc.egui_ctx.clone();
            let output = AudioOutput::start(
                OutputConfig {
                    device,
                    volume: 1.0,
                    muted: false,
                },
                Arc::new(move || repaint_ctx.request_repaint()),
            );
            framewright::ui::sound::install(&cc.egui_ctx, output);
            StudioApp::new(
                &cc.egui_ctx,
                session,
                StartupOptions {
                    initial_view: View::Create,
                    ..StartupOptions::default()
                },
            )
        });
    (harness, sink)
}

/// Whether the sink has recorded sound (not just silence).
fn heard_something(sink: &CaptureSink) -> bool {
    sink.samples().iter().any(|s| s.abs() > 0.01)
}

/// Clicks the checkbox named `label`.
fn toggle(harness: &mut Studio, label: &str) {
    harness
        .get_by_role_and_label(Role::CheckBox, label)
        .click_accesskit();
    steps(harness, 2);
}

fn has_label(harness: &Studio, label: &str) -> bool {
    harness.query_by_label(label).is_some()
}

#[test]
fn music_gives_two_variations_side_by_side_that_play() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut harness, sink) = studio_with_capture(&dir);
    wait_for_service_data(&mut harness);

    // The catalog has music models, so the type picker offers Music.
    click_button(&mut harness, "Music");
    assert_eq!(harness.state().compose_form().kind, GenerationKind::Music);
    // Priced per generation (Suno 4.5: 10 credits), whatever the length.
    assert_eq!(generate_label(&harness), "Generate · 10 credits");
    // The model offers lengths: they are chips.
    click_button(&mut harness, "30 s");
    assert_eq!(generate_label(&harness), "Generate · 10 credits");
    // Instrumental turns the lyrics off.
    toggle(&mut harness, "Instrumental");
    assert!(harness.state().compose_form().audio.instrumental);
    toggle(&mut harness, "Instrumental");
    assert!(!harness.state().compose_form().audio.instrumental);

    support::replace_field_text(&mut harness, "Prompt", "a sunny road trip pop song");
    support::replace_field_text(&mut harness, "Lyrics", "Windows down, the radio on");
    press_generate(&mut harness);
    step_until(&mut harness, "the music job to finish", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|j| j.phase.is_finished())
    });
    let job = harness.state().jobs()[0].clone();
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    let tracks = job.result.as_ref().expect("result").audio_tracks();
    assert_eq!(tracks.len(), 2);
    steps(&mut harness, 3);

    // Two audio tiles on the canvas, each with its title and ▶, side by side (the tray
    // lists the same two, one under the other).
    let play_buttons: Vec<(String, egui::Rect)> = harness
        .query_all_by_role(Role::Button)
        .filter_map(|node| {
            let label = node.accesskit_node().label()?;
            (label.starts_with("Play ") && !label.starts_with("Play preview"))
                .then(|| (label, node.rect()))
        })
        .collect();
    let side_by_side = play_buttons.iter().find_map(|(first, a)| {
        play_buttons
            .iter()
            .find(|(second, b)| {
                second != first && (a.min.y - b.min.y).abs() < 1.0 && a.min.x < b.min.x
            })
            .map(|_| first.clone())
    });
    let Some(first) = side_by_side else {
        panic!("two variation tiles side by side: {play_buttons:?}");
    };
    for track in &tracks {
        let title = track.title.as_deref().expect("a title");
        assert!(
            harness.query_all_by_label_contains(title).next().is_some(),
            "the title {title} is shown"
        );
    }

    // ▶ on the first variation plays it through the studio's output.
    step_until(&mut harness, "the first variation to load", |h| {
        h.query_all_by_label(&format!("Waveform: {}", &first["Play ".len()..]))
            .next()
            .is_some()
    });
    harness
        .query_all_by_role(Role::Button)
        .find(|n| n.accesskit_node().label().as_deref() == Some(first.as_str()))
        .expect("the play button")
        .click_accesskit();
    steps(&mut harness, 2);
    step_until(&mut harness, "sound from the first variation", |_| {
        heard_something(&sink)
    });
}

#[test]
fn speech_shows_its_price_asks_for_a_voice_and_plays_a_preview() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut harness, sink) = studio_with_capture(&dir);
    wait_for_service_data(&mut harness);

    click_button(&mut harness, "Speech");
    assert_eq!(harness.state().compose_form().kind, GenerationKind::Speech);
    // The text's cost follows it as it is typed: 1 credit per started 100 characters.
    let text = "Welcome to the studio. ".repeat(14);
    let characters = text.chars().count();
    assert_eq!(characters, 322);
    support::replace_field_text(&mut harness, "Text", &text);
    let line = "322 characters · 4 × 1 credit = 4 credits";
    assert!(has_label(&harness, line), "the price line under the text");
    assert_eq!(generate_label(&harness), "Generate · 4 credits");

    // No voice chosen: said at the picker, and nothing is sent.
    step_until(&mut harness, "the voice list", |h| {
        h.query_by_label("Choose voice Rachel").is_some()
    });
    press_generate(&mut harness);
    steps(&mut harness, 2);
    assert!(harness.state().jobs().is_empty(), "nothing was sent");
    assert!(has_label(&harness, "Choose a voice."));

    // ▶ plays Rachel's preview through the studio's output before she is chosen.
    assert!(!heard_something(&sink));
    click_button(&mut harness, "Play preview of Rachel");
    step_until(&mut harness, "the preview to sound", |_| {
        heard_something(&sink)
    });

    // Filtering by gender keeps Rachel and hides the male voices.
    click_button(&mut harness, "Gender: Male");
    assert!(!has_label(&harness, "Choose voice Rachel"));
    click_button(&mut harness, "Gender: Female");
    assert!(has_label(&harness, "Choose voice Rachel"));

    click_button(&mut harness, "Choose voice Rachel");
    let chosen = harness.state().compose_form().audio.voices.chosen.clone();
    assert_eq!(chosen.map(|c| c.name), Some("Rachel".to_owned()));
    assert!(!has_label(&harness, "Choose a voice."));

    press_generate(&mut harness);
    step_until(&mut harness, "the speech job to finish", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|j| j.phase.is_finished())
    });
    let job = harness.state().jobs()[0].clone();
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    let result = job.result.as_ref().expect("result");
    assert_eq!(result.voice.as_deref(), Some("Rachel"));
    steps(&mut harness, 3);
    assert!(
        harness.query_all_by_role(Role::Button).any(|n| n
            .accesskit_node()
            .label()
            .is_some_and(|l| l.starts_with("Play ") && !l.starts_with("Play preview"))),
        "the spoken result is an audio tile"
    );
}

#[test]
fn sound_effects_length_is_automatic_or_offered() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut harness, _sink) = studio_with_capture(&dir);
    wait_for_service_data(&mut harness);
    click_button(&mut harness, "Sound effects");
    assert_eq!(harness.state().compose_form().kind, GenerationKind::Sound);
    assert_eq!(
        harness.state().compose_form().audio.sound_duration_secs,
        None
    );
    // The model lists its lengths: Automatic or one of them.
    click_button(&mut harness, "5 s");
    assert_eq!(
        harness.state().compose_form().audio.sound_duration_secs,
        Some(5.0)
    );
    click_button(&mut harness, "Automatic");
    assert_eq!(
        harness.state().compose_form().audio.sound_duration_secs,
        None
    );
    toggle(&mut harness, "Loop");
    assert!(harness.state().compose_form().audio.sound_loop);
    assert_eq!(generate_label(&harness), "Generate · 2 credits");
}
