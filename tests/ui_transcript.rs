//! Transcripts in the studio, driven through egui_kittest against the real studio on its
//! embedded sandbox: a video opened in the viewer is transcribed with one click (the
//! button names its cost); the transcript appears beside the player, its highlighted cue
//! follows the playhead, a click on a cue seeks there, and C hides and shows the
//! subtitles (remembered in the settings).

mod support;
use support::{Studio, step_until, studio_at_speed};

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::api::transcription::TranscriptionRequest;
use framewright::api::{AudioJobRequest, GenerationSpec};
use framewright::engine::Command;
use framewright::ui::View;
use framewright::ui::video::player::VideoPlayerState;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const SPEED: f64 = 100.0;

/// A 4-second video made on the sandbox over HTTP; its result.
fn make_video(harness: &Studio) -> Value {
    let sandbox = harness
        .state()
        .session()
        .local_sandbox()
        .expect("the local sandbox runs");
    let (base_url, key) = (sandbox.base_url().to_owned(), sandbox.api_key().to_owned());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let http = reqwest::Client::new();
        let submit: Value = http
            .post(format!("{base_url}/v1/generate/video"))
            .header("X-API-Key", &key)
            .json(&json!({
                "prompt": "a lighthouse keeper talking about the fog",
                "model": "google/veo-3",
                "duration": 2,
                "aspect_ratio": "1:1",
                "resolution": "720p",
            }))
            .send()
            .await
            .expect("submit")
            .json()
            .await
            .expect("submit json");
        let id = submit["generation_id"].as_str().expect("id").to_owned();
        let started = Instant::now();
        loop {
            let status: Value = http
                .get(format!("{base_url}/v1/generate/{id}/status"))
                .header("X-API-Key", &key)
                .send()
                .await
                .expect("poll")
                .json()
                .await
                .expect("poll json");
            match status["state"].as_str() {
                Some("completed") => return status["result"].clone(),
                Some("failed" | "cancelled") => panic!("the video job ended: {status}"),
                _ => {}
            }
            assert!(started.elapsed() < Duration::from_secs(60), "{status}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
}

fn viewer_player(harness: &Studio) -> &VideoPlayerState {
    harness
        .state()
        .viewer()
        .video_player()
        .expect("the viewer shows a video")
}

fn highlighted(harness: &Studio) -> Option<usize> {
    harness
        .state()
        .viewer()
        .transcript()
        .and_then(|t| t.state.highlighted())
}

/// The cue rows on screen, top to bottom: (label, selected).
fn cue_rows(harness: &Studio) -> Vec<(String, bool)> {
    let mut rows: Vec<_> = harness
        .query_all_by(|n| {
            n.role() == Role::ListItem && n.label().is_some_and(|l| l.starts_with("Cue "))
        })
        .map(|n| {
            (
                n.rect().min.y,
                n.accesskit_node().label().unwrap_or_default(),
                n.accesskit_node().toggled() == Some(egui::accesskit::Toggled::True),
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    rows.into_iter().map(|(_, l, s)| (l, s)).collect()
}

#[test]
fn a_transcribed_video_shows_its_cues_that_follow_the_playhead() {
    // SAFETY: set before the studio (and any other thread of this test binary) starts.
    unsafe { std::env::set_var("FRAMEWRIGHT_AUDIO", "capture") };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio_at_speed(&dir, View::Create, SPEED);
    step_until(&mut harness, "the service data", |h| {
        h.state().projects_loaded() && h.state().catalog_loaded()
    });
    make_video(&harness);
    harness
        .get_by_role_and_label(Role::Button, "Library")
        .click();
    harness.step();
    step_until(&mut harness, "the video in the library", |h| {
        h.state()
            .library_items()
            .iter()
            .any(|i| i.kind() == "video")
    });
    let item = harness
        .state()
        .library_items()
        .into_iter()
        .find(|i| i.kind() == "video")
        .expect("video item");
    let tile = format!("{}, video", item.display_name());
    harness.get_by_role_and_label(Role::Button, &tile).click();
    harness.step();
    harness.key_press(egui::Key::Enter);
    step_until(&mut harness, "the first frame", |h| {
        h.state().viewer().is_open()
            && h.state()
                .viewer()
                .video_player()
                .is_some_and(|p| p.shown_frame() == Some(0))
    });

    // One click transcribes (the button names its cost: 4 s is billed as one minute).
    // The viewer's button (the Library's detail pane behind it has one too, further right).
    harness
        .query_all_by_role_and_label(Role::Button, "Transcribe")
        .min_by(|a, b| a.rect().min.x.total_cmp(&b.rect().min.x))
        .expect("the viewer's Transcribe")
        .click();
    step_until(&mut harness, "the transcript beside the player", |h| {
        h.state()
            .viewer()
            .transcript()
            .is_some_and(|t| !t.state.cues().is_empty())
    });
    harness.step();
    let rows = cue_rows(&harness);
    assert_eq!(rows.len(), 1, "one cue: {rows:?}");
    assert!(
        !rows[0].1,
        "nothing is said at 0:00 (the cue starts later): {rows:?}"
    );

    // The sandbox's 4-s transcript fits one cue at the default 12 words a line: a second
    // transcription of the same video in short cues (2 words, 1 line) takes its place.
    let url = viewer_player(&harness).url().expect("url").to_owned();
    let request = TranscriptionRequest {
        words_per_line: Some(2),
        lines_per_subtitle: Some(1),
        ..TranscriptionRequest::of(&url)
    };
    harness
        .state_mut()
        .session_mut()
        .send(Command::Submit {
            spec: GenerationSpec::for_audio(AudioJobRequest::Transcription(request)),
            model_label: "Auto".to_owned(),
            credits_estimate: Some(1.0),
        })
        .expect("sent");
    step_until(&mut harness, "the short-cue transcript", |h| {
        h.state()
            .viewer()
            .transcript()
            .is_some_and(|t| t.state.cues().len() >= 3)
    });
    let cues = harness
        .state()
        .viewer()
        .transcript()
        .expect("transcript")
        .state
        .cues()
        .to_vec();
    harness.step();
    let rows = cue_rows(&harness);
    assert_eq!(rows.len(), cues.len(), "one row per cue: {rows:?}");

    // Seek the player into a cue: it becomes the highlighted one, and moves on with it.
    let fps = viewer_player(&harness).fps().expect("fps");
    for index in [0, 1] {
        let cue = &cues[index];
        let frame = ((cue.start_secs + cue.end_secs) / 2.0 * fps).floor() as u32;
        assert!(viewer_player(&harness).seek_frame(frame));
        step_until(&mut harness, "the cue at the playhead highlighted", |h| {
            highlighted(h) == Some(index)
        });
        harness.step();
        let rows = cue_rows(&harness);
        let selected: Vec<usize> = (0..rows.len()).filter(|i| rows[*i].1).collect();
        assert_eq!(selected, vec![index], "only the cue being heard: {rows:?}");
    }

    // A click on the last cue seeks there.
    let last = cues.len() - 1;
    let label = rows[last].0.clone();
    harness
        .get_by_role_and_label(Role::ListItem, &label)
        .click();
    step_until(&mut harness, "the player at the clicked cue", |h| {
        viewer_player(h)
            .shown_time_secs()
            .is_some_and(|t| cues[last].start_secs <= t && t < cues[last].end_secs)
    });
    step_until(&mut harness, "the clicked cue highlighted", |h| {
        highlighted(h) == Some(last)
    });

    // C hides the subtitles and shows them again; the choice is remembered.
    assert!(harness.state().viewer().subtitles_on(), "on by default");
    harness.key_press(egui::Key::C);
    harness.step();
    assert!(!harness.state().viewer().subtitles_on());
    harness.step();
    let remembered = harness
        .state()
        .session()
        .ui_memory()
        .panels
        .get("transcript")
        .cloned();
    assert_eq!(remembered, Some(json!({"subtitles": false})));
    harness.key_press(egui::Key::C);
    harness.step();
    assert!(harness.state().viewer().subtitles_on());
}

/// Create's Transcription form: the price per started minute on the button, a refusal at
/// the field without a source, and a finished transcription on the canvas with its words.
#[test]
fn the_create_form_transcribes_an_address_and_shows_the_words() {
    // SAFETY: set before the studio (and any other thread of this test) starts.
    unsafe { std::env::set_var("FRAMEWRIGHT_AUDIO", "capture") };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio_at_speed(&dir, View::Create, SPEED);
    step_until(&mut harness, "the service data", |h| {
        h.state().projects_loaded() && h.state().catalog_loaded()
    });
    let result = make_video(&harness);
    let url = result["urls"][0].as_str().expect("url").to_owned();
    harness
        .get_by_role_and_label(Role::Button, "Transcription")
        .click();
    harness.step();
    harness.step();
    let button = |h: &Studio| {
        h.get_by(|n| {
            n.role() == Role::Button && n.label().is_some_and(|l| l.starts_with("Transcribe"))
        })
        .accesskit_node()
        .label()
        .unwrap_or_default()
    };
    assert_eq!(button(&harness), "Transcribe · 1 credit / min");

    // Nothing chosen: refused at the field, nothing sent.
    harness
        .get_by(|n| {
            n.role() == Role::Button && n.label().is_some_and(|l| l.starts_with("Transcribe"))
        })
        .click();
    harness.step();
    harness.step();
    assert!(
        harness
            .query_all_by_label_contains("Choose the audio or video to transcribe")
            .next()
            .is_some(),
        "the refusal is said"
    );
    assert!(harness.state().jobs().is_empty());

    harness.get_by_label("Source address").click();
    harness.step();
    harness.get_by_label("Source address").type_text(&url);
    harness.step();
    harness
        .get_by(|n| {
            n.role() == Role::Button && n.label().is_some_and(|l| l.starts_with("Transcribe"))
        })
        .click();
    step_until(&mut harness, "the transcription on the canvas", |h| {
        h.query_all_by_label_contains("Transcript · ")
            .next()
            .is_some()
    });
    let job = harness.state().jobs()[0].clone();
    let text = job
        .result
        .as_ref()
        .and_then(|r| r.text.clone())
        .expect("the words");
    assert!(!text.is_empty());
    assert!(
        harness.query_all_by_label_contains(&text).next().is_some(),
        "the canvas shows the words: {text}"
    );
    assert!(
        harness
            .query_all_by_role_and_label(Role::Button, "Save SRT…")
            .next()
            .is_some()
    );
}
