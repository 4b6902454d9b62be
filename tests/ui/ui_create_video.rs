//! Video in Create as an artist uses it, through egui_kittest against the real studio on a
//! sandbox on loopback: text-to-video from prompt to poster on the canvas, Animate on an
//! image result, and a Creative Director storyboard filling in scene by scene.

use crate::support;
use support::{
    click_button, generate, generate_label, press_generate, step_until, steps, studio,
    studio_at_speed, type_prompt, wait_for_service_data,
};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use framewright::api::{GenerationKind, WorkflowType};
use framewright::engine::{JobPhase, JobRecord};
use framewright::ui::compose::SourceState;
use framewright::ui::{StudioApp, View};

type Studio = Harness<'static, StudioApp>;

fn newest_job(harness: &Studio) -> JobRecord {
    harness.state().jobs()[0].clone()
}

fn pick_model(harness: &mut Studio, name_starts: &str) {
    harness.get_by_label("Model").click_accesskit();
    steps(harness, 2);
    harness
        .get_by(|node| node.label().is_some_and(|l| l.starts_with(name_starts)))
        .click_accesskit();
    steps(harness, 2);
}

#[test]
fn text_to_video_from_prompt_to_poster_on_the_canvas() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);

    click_button(&mut harness, "Text to video");
    assert_eq!(
        harness.state().compose_form().kind,
        GenerationKind::TextToVideo
    );
    // Auto spans the video models at the default 5 s, 16:9, 720p: kling 28 x 5 up to
    // veo-3 40 x 1.5 (sound) x 6 s (its closest length).
    assert_eq!(generate_label(&harness), "Generate · 140–360 credits");

    pick_model(&mut harness, "Kling");
    // Kling's lengths are offered as chips; 10 s doubles the price.
    click_button(&mut harness, "10 s");
    assert_eq!(generate_label(&harness), "Generate · 280 credits");
    click_button(&mut harness, "5 s");
    click_button(&mut harness, "1:1");
    assert_eq!(generate_label(&harness), "Generate · 140 credits");

    // Nothing typed: the prompt field says so and nothing is sent.
    press_generate(&mut harness);
    // The refused Generate scrolls the prompt into view; let the scroll settle before
    // clicking into it.
    steps(&mut harness, 30);
    assert!(harness.state().jobs().is_empty());
    assert!(harness.query_by_label("Enter a prompt.").is_some());

    type_prompt(&mut harness, "a koi pond in the rain");
    press_generate(&mut harness);
    step_until(&mut harness, "the video job to finish", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|j| j.phase.is_finished())
    });
    let job = newest_job(&harness);
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    assert_eq!(job.spec.kind, GenerationKind::TextToVideo);
    assert_eq!(job.spec.request.duration, Some(5.0));
    assert_eq!(
        job.spec.request.num_images, None,
        "no image fields on video"
    );
    assert_eq!(job.credits_used, Some(140.0));
    let result = job.result.clone().expect("result");
    assert_eq!(result.duration, Some(5.0));
    assert!(result.urls[0].ends_with(".mp4"), "{:?}", result.urls);
    let poster = result.thumbnail_url.clone().expect("a poster");
    assert!(poster.ends_with(".jpg"), "{poster}");

    // The canvas shows the result tile (drawn from the poster); a click on it plays the
    // video in place: the time shown moves on.
    steps(&mut harness, 3);
    harness
        .get_by_role_and_label(Role::Button, "Result 1 of 1: a koi pond in the rain")
        .click();
    step_until(&mut harness, "the video to play on the canvas", |h| {
        let player = &h.state().create_state().canvas_player;
        player.is_playing() && player.shown_time_secs().is_some_and(|t| t > 0.3)
    });
    assert_eq!(
        harness.state().create_state().playing_on_canvas,
        Some((job.local_id, 0))
    );

    // Open in viewer: the canvas's player pauses, the viewer's plays on Play.
    harness
        .get_all_by_role_and_label(Role::Button, "Open in viewer")
        .next()
        .expect("the tile's Open in viewer")
        .click_accesskit();
    step_until(
        &mut harness,
        "the viewer to show the video's first frame",
        |h| {
            h.state().viewer_job() == Some(job.local_id)
                && h.state()
                    .viewer()
                    .video_player()
                    .is_some_and(|p| p.shown_frame().is_some())
        },
    );
    step_until(&mut harness, "the canvas's video to pause", |h| {
        !h.state().create_state().canvas_player.is_playing()
    });
    // The viewer's Play (the canvas's, under the viewer, is further right).
    harness
        .query_all_by_role_and_label(Role::Button, "Play (Space)")
        .min_by(|a, b| a.rect().min.x.total_cmp(&b.rect().min.x))
        .expect("the viewer's Play")
        .click();
    step_until(&mut harness, "playback in the viewer to move on", |h| {
        h.state()
            .viewer()
            .video_player()
            .and_then(|p| p.shown_time_secs())
            .is_some_and(|t| t > 0.3)
    });
}

/// Whether some text on screen contains `needle` (a label's text is its value).
fn shows_text_containing(harness: &Studio, needle: &str) -> bool {
    harness
        .query_all_by(|n| {
            n.label().is_some_and(|l| l.contains(needle))
                || n.value().is_some_and(|v| v.contains(needle))
        })
        .next()
        .is_some()
}

#[test]
fn auto_says_which_length_it_may_make_and_then_what_it_made() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    click_button(&mut harness, "Text to video");
    click_button(&mut harness, "5 s");
    // Before submit: Auto may route to Veo 3, whose lengths are 4, 6 and 8 s.
    assert!(
        shows_text_containing(&harness, "Auto may pick Veo 3, which makes 6 s, not 5 s."),
        "the mapped length is said under the chips"
    );

    type_prompt(&mut harness, "a lighthouse in a storm");
    press_generate(&mut harness);
    step_until(&mut harness, "the video job to finish", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|j| j.phase.is_finished())
    });
    let job = newest_job(&harness);
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    steps(&mut harness, 3);
    // After: the model that ran, the length it made and the credits it used, beside what
    // was asked and estimated.
    let used = job.credits_used.expect("credits used");
    let expected = format!(
        "Asked 5 s · got 6 s · Veo 3 · {} credits (estimate 140–360)",
        used as u64
    );
    assert!(
        shows_text_containing(&harness, &format!("Latest: {expected}")),
        "the results header says {expected}"
    );
}

#[test]
fn animate_on_an_image_result_makes_a_video_from_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    let image_job = generate(&mut harness, "a lighthouse at dusk");
    let image_url = image_job.result.as_ref().expect("result").urls[0].clone();
    steps(&mut harness, 3);

    harness
        .get_all_by_role_and_label(Role::Button, "Animate")
        .next()
        .expect("an Animate button on the result")
        .click_accesskit();
    steps(&mut harness, 3);
    let form = harness.state().compose_form();
    assert_eq!(form.kind, GenerationKind::ImageToVideo);
    assert_eq!(form.sources.len(), 1);
    assert_eq!(
        form.sources[0].state,
        SourceState::Ready {
            url: image_url.clone()
        }
    );
    // The prompt is an optional motion hint: an empty one is fine for image to video.
    type_prompt(&mut harness, "");
    pick_model(&mut harness, "Kling");
    click_button(&mut harness, "1:1");
    let jobs_before = harness.state().jobs().len();
    press_generate(&mut harness);
    step_until(&mut harness, "the image-to-video job to finish", |h| {
        h.state().jobs().len() == jobs_before + 1 && h.state().jobs()[0].phase.is_finished()
    });
    let job = newest_job(&harness);
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    assert_eq!(job.spec.kind, GenerationKind::ImageToVideo);
    assert_eq!(
        job.spec.request.image_url.as_deref(),
        Some(image_url.as_str())
    );
    assert!(job.spec.request.prompt.is_empty());
    assert!(job.result.expect("result").urls[0].ends_with(".mp4"));
}

#[test]
fn a_creative_director_storyboard_fills_in_scene_by_scene() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Scenes take about 5 s each here, as long as the batch's poll hint, so a poll lands
    // while some scenes are done and others are not (at 10 s: one or two of three).
    let mut harness = studio_at_speed(&dir, View::Create, 2.0);
    wait_for_service_data(&mut harness);

    click_button(&mut harness, "Creative Director");
    click_button(&mut harness, "3");
    click_button(&mut harness, "Images");
    let form = harness.state().compose_form();
    assert_eq!((form.scene_count, form.workflow), (3, WorkflowType::Image));
    pick_model(&mut harness, "Flux Schnell");
    // Three scenes, each one Flux Schnell image at 1K: 3 x 2.
    assert_eq!(generate_label(&harness), "Generate · 6 credits");
    type_prompt(&mut harness, "a paper boat's journey to the sea");
    press_generate(&mut harness);

    // Scenes land one after another: at some point the storyboard shows a finished
    // scene beside ones still waiting or running.
    let mut saw_partial = false;
    step_until(&mut harness, "the batch to finish", |h| {
        let Some(job) = h.state().jobs().first().map(|j| (*j).clone()) else {
            return false;
        };
        let done = job
            .scenes
            .iter()
            .filter(|s| !s.output_urls().is_empty())
            .count();
        saw_partial |= done > 0 && done < 3;
        job.phase.is_finished()
    });
    let job = newest_job(&harness);
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    assert!(saw_partial, "the storyboard filled in scene by scene");
    assert_eq!(job.scenes.len(), 3);
    assert_eq!(job.credits_used, Some(6.0));
    let result = job.result.clone().expect("batch result");
    assert_eq!(result.urls.len(), 3, "one output per scene, in scene order");
    assert_eq!(
        result.scenes.len(),
        3,
        "kept for the storyboard after a restart"
    );

    // Each scene card opens that scene in the viewer.
    steps(&mut harness, 3);
    let scene_two = job.scenes[1].title.clone().expect("scene title");
    harness
        .get_by_role_and_label(Role::Button, &format!("Open {scene_two}"))
        .click_accesskit();
    step_until(&mut harness, "the viewer to open scene 2", |h| {
        h.state().viewer_job() == Some(job.local_id)
    });
    assert!(harness.query_by_label("Done · 3 of 3 scenes").is_some());
}

/// The service goes away after a video finished but before it was opened: the canvas says
/// it could not be downloaded (poster kept); once the service is back, Try again plays it.
#[test]
fn a_video_that_cannot_be_downloaded_says_so_and_plays_after_try_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    click_button(&mut harness, "Text to video");
    pick_model(&mut harness, "Kling");
    click_button(&mut harness, "1:1");
    type_prompt(&mut harness, "lanterns drifting on a river");
    press_generate(&mut harness);
    step_until(&mut harness, "the video job to finish", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|j| j.phase.is_finished())
    });
    assert_eq!(newest_job(&harness).phase, JobPhase::Completed);
    steps(&mut harness, 3);

    assert!(harness.state_mut().session_mut().stop_local_sandbox());
    harness
        .get_by_role_and_label(Role::Button, "Result 1 of 1: lanterns drifting on a river")
        .click();
    step_until(&mut harness, "the download to fail", |h| {
        h.state().create_state().canvas_player.failure().is_some()
    });
    assert_eq!(
        harness.state().create_state().canvas_player.failure(),
        Some("The video could not be downloaded.")
    );
    steps(&mut harness, 2);

    harness
        .state_mut()
        .session_mut()
        .restart_local_sandbox()
        .expect("sandbox restarts on the same port");
    click_button(&mut harness, "Try again");
    step_until(&mut harness, "the video to play after Try again", |h| {
        let player = &h.state().create_state().canvas_player;
        player.failure().is_none()
            && player.is_playing()
            && player.shown_time_secs().is_some_and(|t| t > 0.3)
    });
}
