//! Elements, First and last frame, and Lip sync in Create as an artist uses them, through
//! egui_kittest against the real studio on a sandbox on loopback: a first-and-last-frame
//! video made from two dropped photos (swapped and swapped back), finished, its tile on
//! the canvas; a lip sync of a photo speaking a typed line in a chosen voice; and too many
//! references said at the list before anything is sent.

use crate::support;
use support::{
    click_button, generate_label, press_generate, step_until, steps, studio, type_prompt,
    wait_for_service_data,
};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::api::{CatalogJobRequest, GenerationKind};
use framewright::engine::JobPhase;
use framewright::ui::{StudioApp, View};
use std::path::{Path, PathBuf};

type Studio = Harness<'static, StudioApp>;

fn photo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/photos")
        .join(name)
}

fn drop_and_upload(harness: &mut Studio, path: PathBuf) {
    support::drop_file(harness, path);
    steps(harness, 2);
    step_until(harness, "the upload", |h| {
        !h.state().compose_form().motion.is_uploading()
    });
}

fn has_label_starting(harness: &Studio, start: &str) -> bool {
    harness
        .query_all(
            egui_kittest::kittest::by()
                .predicate(|node| node.label().is_some_and(|l| l.starts_with(start))),
        )
        .next()
        .is_some()
}

fn wait_for_the_job(harness: &mut Studio) -> framewright::engine::JobRecord {
    step_until(harness, "the job to finish", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|j| j.phase.is_finished())
    });
    harness.state().jobs()[0].clone()
}

#[test]
fn a_first_and_last_frame_video_from_two_photos_lands_on_the_canvas() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    click_button(&mut harness, "First and last frame");
    assert_eq!(
        harness.state().compose_form().kind,
        GenerationKind::FirstLastFrame
    );

    // Nothing added: both frames are asked for, and nothing is sent.
    press_generate(&mut harness);
    steps(&mut harness, 2);
    assert!(harness.state().jobs().is_empty());
    assert!(has_label_starting(&harness, "Add the first frame"));
    assert!(has_label_starting(&harness, "Add the last frame"));

    // Two photos dropped: the first fills "First frame", the second "Last frame".
    drop_and_upload(&mut harness, photo("chelsea_160.png"));
    drop_and_upload(&mut harness, photo("coffee_160.png"));
    let first_url = |h: &Studio| {
        h.state()
            .compose_form()
            .motion
            .first
            .as_ref()
            .map(|s| s.url.clone())
            .unwrap_or_default()
    };
    let (chelsea, coffee) = (
        first_url(&harness),
        harness
            .state()
            .compose_form()
            .motion
            .last
            .clone()
            .expect("last")
            .url,
    );
    assert!(chelsea.starts_with("http") && coffee.starts_with("http"));
    click_button(&mut harness, "Swap first and last");
    assert_eq!(first_url(&harness), coffee);
    click_button(&mut harness, "Swap first and last");
    assert_eq!(first_url(&harness), chelsea);
    assert!(has_label_starting(
        &harness,
        "First frame 1: chelsea_160.png"
    ));
    assert!(has_label_starting(&harness, "Last frame 1: coffee_160.png"));
    // Auto spans the two first-last models at 5 s: PixVerse 10 × 5 to Vidu 14 × 5.
    assert_eq!(generate_label(&harness), "Generate · 50–70 credits");

    press_generate(&mut harness);
    let job = wait_for_the_job(&mut harness);
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    assert_eq!(job.spec.kind, GenerationKind::FirstLastFrame);
    match &job.spec.catalog {
        Some(CatalogJobRequest::FirstLastFrame(r)) => {
            assert_eq!((&r.first_frame_url, &r.last_frame_url), (&chelsea, &coffee));
            assert_eq!(r.duration, Some(5.0));
        }
        other => panic!("a first-last body, got {other:?}"),
    }
    let result = job.result.clone().expect("result");
    assert!(result.urls[0].ends_with(".mp4"), "{:?}", result.urls);
    // Its tile is on the canvas.
    steps(&mut harness, 3);
    assert!(
        harness.query_all_by_role(Role::Button).any(|n| n
            .accesskit_node()
            .label()
            .is_some_and(|l| l.starts_with("Result 1 of 1"))),
        "the result tile among {:?}",
        harness
            .query_all_by_role(Role::Button)
            .filter_map(|n| n.accesskit_node().label())
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_lip_sync_speaks_a_typed_line_in_the_chosen_voice() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    click_button(&mut harness, "Lip sync");
    drop_and_upload(&mut harness, photo("chelsea_160.png"));
    assert!(has_label_starting(&harness, "Face 1: chelsea_160.png"));

    // Neither a sound nor a line: said at the voice, nothing sent.
    press_generate(&mut harness);
    steps(&mut harness, 2);
    assert!(harness.state().jobs().is_empty());
    assert!(
        has_label_starting(&harness, "Give the voice"),
        "{:?}",
        harness.state().compose_form().errors
    );

    harness.get_by_label("Line to say").click();
    harness.step();
    harness
        .get_by_label("Line to say")
        .type_text("Good evening, and welcome to the show.");
    steps(&mut harness, 2);
    // The default voice is named while none is chosen.
    assert!(has_label_starting(
        &harness,
        "No voice chosen: the default voice (Rachel)"
    ));
    step_until(&mut harness, "the voice list", |h| {
        h.query_by_label("Choose voice Rachel").is_some()
    });
    click_button(&mut harness, "Choose voice Rachel");
    let chosen = harness
        .state()
        .compose_form()
        .motion
        .voices
        .chosen
        .clone()
        .expect("a voice chosen");
    // Priced by the line's length: 38 characters, about 3 s; Auto spans Lipsync 2 (9 per
    // second) to Hedra Character 3 (11).
    assert_eq!(
        harness.state().compose_form().motion.lipsync_secs(),
        Some(3.0)
    );
    assert_eq!(generate_label(&harness), "Generate · 27–33 credits");

    press_generate(&mut harness);
    let job = wait_for_the_job(&mut harness);
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    match &job.spec.catalog {
        Some(CatalogJobRequest::Lipsync(r)) => {
            assert_eq!(
                r.text_prompt.as_deref(),
                Some("Good evening, and welcome to the show.")
            );
            assert_eq!(r.voice.as_deref(), Some(chosen.id.as_str()));
            assert_eq!(r.audio_url, None);
        }
        other => panic!("a lip-sync body, got {other:?}"),
    }
    assert!(job.result.expect("result").urls[0].ends_with(".mp4"));
}

#[test]
fn too_many_reference_images_are_said_at_the_list_before_sending() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    click_button(&mut harness, "Elements");
    type_prompt(&mut harness, "the cat meets the coffee");
    for i in 0..5 {
        let copy = dir.path().join(format!("ref_{i}.png"));
        std::fs::copy(photo("coffee_160.png"), &copy).expect("copy");
        drop_and_upload(&mut harness, copy);
    }
    assert!(has_label_starting(&harness, "Reference images: 5 of 4"));
    press_generate(&mut harness);
    steps(&mut harness, 3);
    assert!(harness.state().jobs().is_empty(), "nothing was sent");
    assert!(
        has_label_starting(
            &harness,
            "5 reference images; Kling Elements takes at most 4."
        ),
        "the message at the list"
    );
    // One removed: it goes.
    click_button(&mut harness, "Remove Reference images 5");
    press_generate(&mut harness);
    step_until(&mut harness, "the job to be sent", |h| {
        !h.state().jobs().is_empty()
    });
    assert_eq!(
        harness.state().jobs()[0].spec.kind,
        GenerationKind::Elements
    );
}

/// Drops a file that the studio should refuse and waits for the refusal at its slot.
fn drop_and_refuse(harness: &mut Studio, path: PathBuf) {
    support::drop_file(harness, path);
    steps(harness, 2);
    step_until(harness, "the file to be refused", |h| {
        let motion = &h.state().compose_form().motion;
        [&motion.face, &motion.voice_audio, &motion.first]
            .into_iter()
            .flatten()
            .all(|slot| slot.upload.as_ref().is_none_or(|u| u.error.is_some()))
    });
}

#[test]
fn the_worst_files_are_refused_at_their_slot_and_nothing_is_sent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);

    // Lip sync: a clip cut off mid-file as the face, a text file named as a sound.
    click_button(&mut harness, "Lip sync");
    click_button(&mut harness, "Audio file");
    let clip = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/video/h264_aac_160x90_24fps_48f.mp4"),
    )
    .expect("fixture");
    let cut = dir.path().join("cut.mp4");
    std::fs::write(&cut, &clip[..clip.len() / 2]).expect("write");
    let not_a_sound = dir.path().join("line.mp3");
    std::fs::write(&not_a_sound, "words, not a sound ".repeat(100)).expect("write");
    drop_and_refuse(&mut harness, cut);
    drop_and_refuse(&mut harness, not_a_sound);
    press_generate(&mut harness);
    steps(&mut harness, 3);
    assert!(harness.state().jobs().is_empty(), "nothing was sent");
    let motion = &harness.state().compose_form().motion;
    assert!(
        motion.face.as_ref().is_some_and(|f| f.url.is_empty())
            && motion
                .voice_audio
                .as_ref()
                .is_some_and(|a| a.url.is_empty()),
        "neither file reached the service"
    );
    assert!(
        has_label_starting(&harness, "Not sent: cut.mp4: the file ends early"),
        "{:?}",
        harness.state().compose_form().errors
    );
    assert!(has_label_starting(
        &harness,
        "Not sent: line.mp3: it is not a sound"
    ));

    // First and last frame: a picture that declares 60000 × 60000 px in a few bytes.
    click_button(&mut harness, "First and last frame");
    let bomb = dir.path().join("bomb.png");
    std::fs::write(
        &bomb,
        framewright::engine::source_check::testing::bomb_png(60_000),
    )
    .expect("write");
    drop_and_refuse(&mut harness, bomb);
    press_generate(&mut harness);
    steps(&mut harness, 3);
    assert!(harness.state().jobs().is_empty(), "nothing was sent");
    assert!(
        has_label_starting(
            &harness,
            "Not sent: bomb.png: the picture is 60000 × 60000 px"
        ),
        "{:?}",
        harness.state().compose_form().errors
    );
}

#[test]
fn a_file_chosen_for_the_last_frame_goes_there_and_nowhere_else() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    click_button(&mut harness, "First and last frame");
    harness.check_accessibility();

    support::choose_file_by_path(
        &mut harness,
        "Choose a file for Last frame",
        &photo("coffee_160.png"),
    );
    step_until(&mut harness, "the picked photo uploaded", |h| {
        !h.state().path_prompt_open()
            && h.state()
                .compose_form()
                .motion
                .last
                .as_ref()
                .is_some_and(|slot| slot.url.starts_with("http"))
    });
    // A drop would have filled the first frame; the chosen slot is the one that was asked.
    assert!(harness.state().compose_form().motion.first.is_none());
    steps(&mut harness, 2);
    assert!(has_label_starting(&harness, "Last frame 1: coffee_160.png"));
}
