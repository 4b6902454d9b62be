//! Video editing in Create as an artist does it, through egui_kittest against the real
//! studio on a sandbox on loopback: a dropped video is uploaded and edited (a reframe to
//! the model's default ratio), a refused Apply that brings the missing field into view, a
//! trim made with the keyboard on the timeline, and the result's Before / After in the
//! viewer.

use crate::support;
use support::{drop_file, step_until, steps, studio, wait_for_service_data};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::api::GenerationKind;
use framewright::api::video_edit::{VideoEditOperation, VideoJobRequest};
use framewright::engine::{JobPhase, JobRecord};
use framewright::ui::compose::SourceState;
use framewright::ui::{StudioApp, View};
use std::path::PathBuf;

type Studio = Harness<'static, StudioApp>;

/// 160x90, 24 fps, 48 frames (2 s); each frame draws its number.
fn fixture_video() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/video/baseline_160x90_24fps_48f.mp4"
    ))
}

/// Drops the fixture on Create and waits until it is uploaded and its length is known
/// (the source player has opened it).
fn studio_editing_the_fixture(dir: &tempfile::TempDir) -> Studio {
    let mut harness = studio(dir, View::Create);
    wait_for_service_data(&mut harness);
    drop_file(&mut harness, fixture_video());
    steps(&mut harness, 2);
    assert_eq!(
        harness.state().compose_form().kind,
        GenerationKind::VideoEdit,
        "a dropped video starts a video edit"
    );
    step_until(&mut harness, "the video to upload and open", |h| {
        let edit = &h.state().create_state().video_edit;
        edit.source
            .as_ref()
            .is_some_and(|s| matches!(s.state, SourceState::Ready { .. }))
            && edit.source_secs().is_some()
    });
    harness
}

/// Whether some text on screen starts with `prefix` (a label's text is its value).
/// Clicks an operation, scrolled into view first: the list runs under the pinned Apply
/// button, and a click at a hidden row would land on the button.
fn choose_operation(harness: &mut Studio, operation: &str) {
    harness
        .get_by_role_and_label(Role::RadioButton, operation)
        .scroll_to_me();
    // The scroll is animated: let it settle before aiming the click.
    steps(harness, 30);
    harness
        .get_by_role_and_label(Role::RadioButton, operation)
        .click();
}

fn shows_text(harness: &Studio, prefix: &str) -> bool {
    harness
        .query_all_by(|n| {
            n.label().is_some_and(|l| l.starts_with(prefix))
                || n.value().is_some_and(|v| v.starts_with(prefix))
        })
        .next()
        .is_some()
}

fn submit_label(harness: &Studio) -> String {
    let node = harness.get_by(|n| {
        n.role() == Role::Button
            && n.label().is_some_and(|l| {
                ["Trim", "Apply edit", "Restyle"]
                    .iter()
                    .any(|verb| l.starts_with(&format!("{verb} ·")) || l == *verb)
            })
    });
    node.accesskit_node().label().unwrap_or_default()
}

fn press_submit(harness: &mut Studio) {
    let label = submit_label(harness);
    harness.get_by_label(&label).click();
    steps(harness, 2);
}

fn wait_for_finished_job(harness: &mut Studio, what: &str) -> JobRecord {
    step_until(harness, what, |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|j| j.phase.is_finished())
    });
    harness.state().jobs()[0].clone()
}

#[test]
fn a_dropped_video_is_reframed_to_the_models_default_ratio() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio_editing_the_fixture(&dir);
    let source_secs = harness.state().create_state().video_edit.source_secs();
    assert_eq!(source_secs, Some(2.0));

    choose_operation(&mut harness, "Reframe");
    steps(&mut harness, 2);
    // Priced on the operation's default model for the 2-s source: luma/reframe 3/s.
    assert_eq!(submit_label(&harness), "Apply edit · 6 credits");
    // The required ratio starts at the model record's default: Apply goes through at once.
    assert_eq!(
        harness
            .state()
            .create_state()
            .video_edit
            .fields
            .aspect_ratio,
        "9:16",
        "luma/reframe's default_aspect_ratio"
    );
    press_submit(&mut harness);
    let job = wait_for_finished_job(&mut harness, "the reframe to finish");
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    assert_eq!(job.spec.kind, GenerationKind::VideoEdit);
    let Some(VideoJobRequest::Edit(edit)) = &job.spec.video else {
        panic!("an edit: {:?}", job.spec.video);
    };
    assert!(
        matches!(&edit.operation, VideoEditOperation::Reframe { aspect_ratio, .. } if aspect_ratio == "9:16"),
        "{:?}",
        edit.operation
    );
    let result_url = job
        .result
        .as_ref()
        .and_then(|r| r.urls.first().cloned())
        .expect("the reframed video lands on the canvas");

    // In the Library it is titled by what was done to which video, not by an id.
    harness
        .get_by_role_and_label(Role::Button, "Library")
        .click();
    step_until(
        &mut harness,
        "the library to list the reframed video",
        |h| {
            h.state().library_settled()
                && h.state()
                    .library_items()
                    .iter()
                    .any(|i| i.url == result_url)
        },
    );
    let items = harness.state().library_items();
    let item = items.iter().find(|i| i.url == result_url).expect("listed");
    assert_eq!(
        item.display_name(),
        "Reframe of baseline_160x90_24fps_48f.mp4",
        "operation + the source's library title"
    );
}

/// Whether `label`'s widget lies in the form's visible part: below the window's top and
/// above the pinned Apply button.
fn in_view_above_submit(harness: &Studio, role: Role, label: &str) -> bool {
    let field = harness.get_by_role_and_label(role, label).rect();
    let submit = harness.get_by_label(&submit_label(harness)).rect();
    field.min.y >= 0.0 && field.max.y <= submit.min.y
}

#[test]
fn a_refused_apply_brings_the_missing_field_into_view_and_focus() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio_editing_the_fixture(&dir);
    // A short window: the operation list alone is taller than the form's visible part.
    harness.set_size(egui::vec2(1440.0, 600.0));
    choose_operation(&mut harness, "Face swap");
    // Back to the top of the form, as after reading the source card.
    harness
        .get_by_role_and_label(Role::Button, "Choose video…")
        .scroll_to_me();
    steps(&mut harness, 30);
    assert!(
        !in_view_above_submit(&harness, Role::TextInput, "Face image URL"),
        "the face field starts out of view"
    );

    press_submit(&mut harness);
    steps(&mut harness, 30);
    assert!(harness.state().jobs().is_empty(), "nothing was sent");
    assert!(
        in_view_above_submit(&harness, Role::TextInput, "Face image URL"),
        "the refused Apply scrolled the missing field into view"
    );
    assert!(
        harness
            .get_by_role_and_label(Role::TextInput, "Face image URL")
            .is_focused(),
        "and gave it the keyboard"
    );
    assert!(
        shows_text(&harness, "Face image URL needs fixing."),
        "the line under Apply names the field"
    );
    assert!(!shows_text(&harness, "Fix the fields marked above"));

    // Once per refused click: scrolling away again is not undone on the next frames.
    harness
        .get_by_role_and_label(Role::Button, "Choose video…")
        .scroll_to_me();
    steps(&mut harness, 30);
    assert!(!in_view_above_submit(
        &harness,
        Role::TextInput,
        "Face image URL"
    ));
}

#[test]
fn magic_edit_and_face_swap_ask_for_their_own_fields() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio_editing_the_fixture(&dir);

    choose_operation(&mut harness, "Magic edit");
    steps(&mut harness, 2);
    press_submit(&mut harness);
    assert!(harness.state().jobs().is_empty());
    let errors = harness.state().create_state().video_edit.errors.clone();
    let prompt_error = errors
        .iter()
        .find(|e| e.field == framewright::api::Field::Prompt)
        .unwrap_or_else(|| panic!("a prompt error: {errors:?}"));
    assert!(
        shows_text(&harness, &prompt_error.message),
        "shown at the prompt: {}",
        prompt_error.message
    );

    choose_operation(&mut harness, "Face swap");
    steps(&mut harness, 2);
    // Only the face swap's own field is shown: no prompt box.
    assert!(
        harness
            .query_by_role_and_label(Role::TextInput, "Face image URL")
            .is_some()
    );
    assert!(
        harness.query_all_by_label("Prompt").next().is_none(),
        "no prompt field on face swap"
    );
    assert!(harness.state().jobs().is_empty(), "nothing was sent");
}

#[test]
fn a_trim_made_with_the_keyboard_and_its_before_and_after() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio_editing_the_fixture(&dir);
    assert_eq!(
        harness.state().create_state().video_edit.choice,
        framewright::ui::compose::video_edit::EditChoice::Trim,
        "a dropped video starts on Trim"
    );
    assert_eq!(submit_label(&harness), "Trim · free");
    step_until(&mut harness, "the timeline", |h| {
        h.query_by_role_and_label(Role::Slider, "Playhead")
            .is_some()
    });

    // Keyboard only: focus the timeline, 12 frames right, I, 24 frames right, O.
    harness
        .get_by_role_and_label(Role::Slider, "Playhead")
        .focus();
    steps(&mut harness, 1);
    for _ in 0..12 {
        harness.key_press(egui::Key::ArrowRight);
    }
    harness.key_press(egui::Key::I);
    for _ in 0..24 {
        harness.key_press(egui::Key::ArrowRight);
    }
    harness.key_press(egui::Key::O);
    steps(&mut harness, 3);
    let fields = harness.state().create_state().video_edit.fields.clone();
    assert_eq!(fields.trim_in_secs, 0.5, "in at frame 12 of 24 fps");
    assert_eq!(fields.trim_out_secs, Some(1.5), "out at frame 36");

    press_submit(&mut harness);
    let job = wait_for_finished_job(&mut harness, "the trim to finish");
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    assert_eq!(job.spec.kind, GenerationKind::VideoTrim);
    assert!(!job.can_cancel(), "a trim cannot be cancelled");
    let Some(VideoJobRequest::Trim(trim)) = &job.spec.video else {
        panic!("a trim: {:?}", job.spec.video);
    };
    assert_eq!((trim.start_time, trim.end_time), (0.5, 1.5));
    let result_url = job.result.clone().expect("result").urls[0].clone();
    let source_url = trim.video_url.clone();
    assert_ne!(result_url, source_url, "a new video; the original stays");

    // The result opens in the viewer next to its source (the tile's Open in viewer).
    assert!(
        harness
            .query_by(|n| n.role() == Role::Button
                && n.label()
                    .is_some_and(|l| l.starts_with("Result 1 of 1: Trim of")))
            .is_some(),
        "the tile says what was done"
    );
    // The source player sits above the results: scroll the tile's buttons into view. The
    // source's player may still be settling its layout (its sound controls arrive when
    // the file is open), so the click is repeated until the viewer is open.
    for _ in 0..5 {
        harness
            .get_by_role_and_label(Role::Button, "Open in viewer")
            .scroll_to_me();
        steps(&mut harness, 3);
        harness
            .get_by_role_and_label(Role::Button, "Open in viewer")
            .click();
        steps(&mut harness, 2);
        if harness.state().viewer().is_open() {
            break;
        }
    }
    step_until(&mut harness, "the viewer to play the result", |h| {
        h.state().viewer().video_player().and_then(|p| p.url()) == Some(result_url.as_str())
    });
    harness.get_by_label("Before: the source video").click();
    step_until(&mut harness, "the viewer to play the source", |h| {
        h.state().viewer().video_player().and_then(|p| p.url()) == Some(source_url.as_str())
    });
    harness.key_press(egui::Key::B);
    step_until(&mut harness, "B to go back to the result", |h| {
        h.state().viewer().video_player().and_then(|p| p.url()) == Some(result_url.as_str())
    });
}
