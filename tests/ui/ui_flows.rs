//! UI flows driven through egui_kittest against the real studio: a `Session` with the
//! embedded sandbox on loopback (fast job speed) in a temporary folder. Widgets are found by
//! role and accessible name; assertions are on app state, never on timing.

use crate::support;
use support::{DroppedPath, step_until, studio};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::api::GenerationKind;
use framewright::engine::JobPhase;
use framewright::ui::{StudioApp, View};
use std::sync::Arc;
use std::time::Duration;

fn wait_for_service_data(harness: &mut Harness<'static, StudioApp>) {
    step_until(harness, "catalog, projects and credits", |h| {
        let app = h.state();
        app.catalog_loaded() && app.projects_loaded() && app.credits_loaded()
    });
    // A few more frames so every panel has laid out with the data.
    for _ in 0..3 {
        harness.step();
    }
}

fn generate_button_label(harness: &Harness<'static, StudioApp>) -> String {
    harness
        .get_by(|node| {
            node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Generate"))
        })
        .accesskit_node()
        .label()
        .unwrap_or_default()
}

#[test]
fn generate_an_image_and_open_it_in_the_viewer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    harness.check_accessibility();

    let prompt = "A lighthouse on a basalt cliff at blue hour";
    support::type_prompt(&mut harness, prompt);

    let label = generate_button_label(&harness);
    assert!(
        label.contains("credits") || label.contains("credit"),
        "the Generate button should carry the estimate, got {label:?}"
    );
    assert!(
        label.chars().any(|c| c.is_ascii_digit()),
        "the estimate is a number of credits, got {label:?}"
    );

    harness
        .get_by(|node| {
            node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Generate"))
        })
        .click();
    step_until(&mut harness, "the job to complete", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|job| job.phase == JobPhase::Completed)
    });
    let job = harness.state().jobs()[0].clone();
    assert_eq!(job.spec.request.prompt, prompt, "the submitted prompt");
    // Artists iterate: the prompt stays in the box after submitting.
    assert_eq!(
        harness.get_by_label("Prompt").value().as_deref(),
        Some(prompt)
    );

    step_until(&mut harness, "the result thumbnail", |h| {
        h.query_by_label("Open result 1 of 1").is_some()
            || h.query_by_label_contains("Open result 1 of").is_some()
    });
    harness.check_accessibility();
    let prompt_mentions_before = harness.query_all_by_label_contains("lighthouse").count();
    harness.get_by_label_contains("Open result 1 of").click();
    step_until(&mut harness, "the viewer to open", |h| {
        h.state().viewer_job().is_some()
    });
    assert_eq!(harness.state().viewer_job(), Some(job.local_id));
    for _ in 0..3 {
        harness.step();
    }
    assert!(
        harness.query_all_by_label_contains("lighthouse").count() > prompt_mentions_before,
        "the viewer shows the prompt"
    );
    assert!(harness.query_by_label("Copy URL").is_some());
    harness.check_accessibility();

    harness.get_by_label("Close viewer").click();
    harness.step();
    harness.step();
    assert_eq!(harness.state().viewer_job(), None);
}

#[test]
fn an_over_long_prompt_is_refused_before_any_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);

    let long_prompt = "mist ".repeat(450); // 2,250 characters; Auto allows 2,000
    support::type_prompt(&mut harness, &long_prompt);
    assert!(
        harness.query_by_label_contains("2,250 / 2,000").is_some(),
        "the counter shows the overflow"
    );

    harness
        .get_by(|node| {
            node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Generate"))
        })
        .click();
    // Frames until the message shows (a loaded machine may need more than a few).
    for _ in 0..100 {
        harness.step();
        if harness
            .query_by_label_contains("allows at most 2,000")
            .is_some()
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(40));
    }
    assert!(
        harness
            .query_by_label_contains("allows at most 2,000")
            .is_some(),
        "the validation message is shown under the prompt"
    );
    assert!(harness.state().jobs().is_empty(), "no job was created");
    harness.check_accessibility();
}

#[test]
fn the_rail_reaches_every_view() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);

    harness
        .get_by_role_and_label(Role::Button, "Library")
        .click();
    harness.step();
    harness.step();
    assert_eq!(harness.state().view(), View::Library);
    step_until(&mut harness, "the library's first page", |h| {
        h.state().library_settled()
    });
    assert!(
        harness
            .query_all_by_label_contains("All media")
            .next()
            .is_some(),
        "the Library view shows the media library"
    );

    harness
        .get_by_role_and_label(Role::Button, "Palettes")
        .click();
    harness.step();
    harness.step();
    assert_eq!(harness.state().view(), View::Palettes);
    assert!(
        harness
            .query_all_by_label_contains("New palette")
            .next()
            .is_some(),
        "the Palettes view offers a new palette"
    );

    harness
        .get_by_role_and_label(Role::Button, "Presets")
        .click();
    harness.step();
    harness.step();
    assert_eq!(harness.state().view(), View::Presets);
    assert!(
        harness
            .query_all_by_label_contains("Cinematic presets")
            .next()
            .is_some(),
        "the Presets view shows the preset gallery"
    );

    harness
        .get_by_role_and_label(Role::Button, "Settings")
        .click();
    harness.step();
    harness.step();
    assert_eq!(harness.state().view(), View::Settings);
    assert!(
        harness
            .query_all_by_label_contains("Local sandbox")
            .next()
            .is_some()
    );
    harness.check_accessibility();

    harness
        .get_by_role_and_label(Role::Button, "Create")
        .click();
    harness.step();
    harness.step();
    assert_eq!(harness.state().view(), View::Create);
}

fn click_generate(harness: &mut Harness<'static, StudioApp>) {
    harness
        .get_by(|node| {
            node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Generate"))
        })
        .click();
    harness.step();
}

#[test]
fn a_photo_dropped_on_the_window_becomes_an_image_edit_source() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);

    let photo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures/photos/coffee.png");
    assert!(photo.exists(), "fixture photo at {}", photo.display());
    harness
        .input_mut()
        .dropped_files
        .push(Arc::new(DroppedPath(photo)));
    harness.step();
    step_until(&mut harness, "the dropped photo to upload", |h| {
        h.query_by_label("ready").is_some()
    });
    harness.check_accessibility();

    support::type_prompt(&mut harness, "Make it look like a risograph print");
    click_generate(&mut harness);
    step_until(&mut harness, "the edit to complete", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|job| job.phase == JobPhase::Completed)
    });
    let job = harness.state().jobs()[0].clone();
    assert_eq!(
        job.spec.kind,
        GenerationKind::ImageEdit,
        "a drop switches to Image edit"
    );
    let sources = &job.spec.request.source_images;
    assert_eq!(sources.len(), 1, "the dropped photo is the one source");
    let base_url = harness
        .state()
        .session()
        .local_sandbox()
        .expect("local profile")
        .base_url()
        .trim_end_matches("/api")
        .to_owned();
    assert!(
        sources[0].starts_with(&base_url),
        "the source is the uploaded copy on the service, got {}",
        sources[0]
    );
    assert!(job.result.is_some_and(|r| !r.urls.is_empty()));
}

#[test]
fn retrying_a_failed_job_needs_confirmation_and_submits_exactly_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    let sandbox_jobs = |h: &Harness<'static, StudioApp>| {
        h.state()
            .session()
            .local_sandbox()
            .expect("local profile")
            .generation_count()
    };
    harness
        .state()
        .session()
        .local_sandbox()
        .expect("local profile")
        .fail_next_jobs(1, true);

    support::type_prompt(&mut harness, "Paper lanterns over a night market");
    click_generate(&mut harness);
    step_until(&mut harness, "the job to fail", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|job| matches!(job.phase, JobPhase::Failed { .. }))
    });
    step_until(&mut harness, "the retry hint", |h| {
        h.query_by_label("Retry is safe").is_some()
    });
    assert_eq!(sandbox_jobs(&harness), 1);

    // Cancelling the confirmation sends nothing.
    harness
        .get_by_role_and_label(Role::Button, "Retry…")
        .click();
    step_until(&mut harness, "the confirmation", |h| {
        h.query_by_role_and_label(Role::Button, "Submit new job")
            .is_some()
    });
    assert!(harness.query_by_label_contains("billed again").is_some());
    harness.check_accessibility();
    harness
        .get_by_role_and_label(Role::Button, "Cancel")
        .click();
    for _ in 0..5 {
        harness.step();
        std::thread::sleep(Duration::from_millis(40));
    }
    assert_eq!(
        harness.state().jobs().len(),
        1,
        "no new job without confirmation"
    );
    assert_eq!(sandbox_jobs(&harness), 1);

    // Confirming submits one new job with the same request.
    harness
        .get_by_role_and_label(Role::Button, "Retry…")
        .click();
    harness.step();
    harness.step();
    harness
        .get_by_role_and_label(Role::Button, "Submit new job")
        .click();
    step_until(&mut harness, "the retried job to complete", |h| {
        let jobs = h.state().jobs();
        jobs.len() == 2 && jobs[0].phase == JobPhase::Completed
    });
    let jobs = harness.state().jobs();
    assert_eq!(
        jobs[0].spec, jobs[1].spec,
        "the retry re-sends the same request"
    );
    assert!(
        matches!(jobs[1].phase, JobPhase::Failed { .. }),
        "the failed job stays"
    );
    assert_eq!(sandbox_jobs(&harness), 2, "exactly one new submission");
}

/// Clicks the button named `label` after scrolling it into view (the Settings page scrolls)
/// and waiting until it stops moving (scrolling animates; sections fill in as data loads).
fn click_in_view(harness: &mut Harness<'static, StudioApp>, label: &str) {
    let mut last = None;
    for _ in 0..60 {
        let rect = harness.get_by_label(label).rect();
        if rect.max.y < 880.0 && last == Some(rect) {
            break;
        }
        last = Some(rect);
        harness.get_by_label(label).scroll_to_me();
        harness.step();
    }
    harness.get_by_label(label).click();
    for _ in 0..3 {
        harness.step();
    }
}

#[test]
fn the_welcome_leads_to_settings_where_theme_and_scale_apply_at_once_and_persist() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = support::studio_as_new_user(&dir, View::Create);
    wait_for_service_data(&mut harness);
    assert!(
        harness.state().welcome_open(),
        "a fresh home shows the welcome"
    );
    assert!(harness.query_by_label("Try the sandbox").is_some());

    harness.get_by_label("Connect an account").click();
    for _ in 0..3 {
        harness.step();
    }
    assert!(!harness.state().welcome_open());
    assert_eq!(harness.state().view(), View::Settings);
    assert!(harness.state().session().settings().welcome_seen);

    // Forced light: egui's visuals and the studio's panels change on the next frame.
    click_in_view(&mut harness, "Light");
    let visuals = harness.ctx.global_style().visuals.clone();
    assert!(
        !visuals.dark_mode,
        "the Light setting shows the light theme"
    );
    assert_eq!(visuals.panel_fill, framewright::ui::tokens::LIGHT.bg_app);
    assert_eq!(
        framewright::ui::tokens::palette(),
        &framewright::ui::tokens::LIGHT
    );
    click_in_view(&mut harness, "Dark");
    let visuals = harness.ctx.global_style().visuals.clone();
    assert!(visuals.dark_mode);
    assert_eq!(visuals.panel_fill, framewright::ui::tokens::DARK.bg_app);
    click_in_view(&mut harness, "Light");

    // UI scale: a step from Settings, then Ctrl+- one step down.
    click_in_view(&mut harness, "125 %");
    assert!((harness.ctx.zoom_factor() - 1.25).abs() < 1e-6);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Minus);
    for _ in 0..3 {
        harness.step();
    }
    assert!((harness.ctx.zoom_factor() - 1.10).abs() < 1e-6);

    // A restart in the same home: no welcome, the same theme and scale.
    eframe::App::on_exit(harness.state_mut(), None);
    drop(harness);
    let mut harness = support::studio_as_new_user(&dir, View::Create);
    for _ in 0..3 {
        harness.step();
    }
    assert!(!harness.state().welcome_open(), "the welcome is shown once");
    assert!(!harness.ctx.global_style().visuals.dark_mode);
    assert!((harness.ctx.zoom_factor() - 1.10).abs() < 1e-6);

    // Ctrl+0: back to 100 % (kittest clicks by physical position, so reset before clicking).
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Num0);
    for _ in 0..3 {
        harness.step();
    }
    assert!((harness.ctx.zoom_factor() - 1.0).abs() < 1e-6);
    assert_eq!(
        harness
            .state()
            .session()
            .settings()
            .appearance
            .ui_scale_percent,
        100
    );

    // Help brings it back.
    harness.key_press(egui::Key::F1);
    for _ in 0..4 {
        harness.step();
    }
    assert!(harness.state().shortcuts_open());
    harness.get_by_label("Show welcome").click();
    for _ in 0..3 {
        harness.step();
    }
    assert!(harness.state().welcome_open());
    harness.get_by_label("Try the sandbox").click();
    harness.step();
    assert!(!harness.state().welcome_open());
}

#[test]
fn after_trying_the_sandbox_typing_lands_in_the_prompt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = support::studio_as_new_user(&dir, View::Create);
    wait_for_service_data(&mut harness);
    assert!(harness.state().welcome_open());
    harness
        .get_by_role_and_label(Role::Button, "Try the sandbox")
        .click();
    harness.run_steps(3);
    assert!(!harness.state().welcome_open());
    harness.event(egui::Event::Text("a lighthouse at dusk".into()));
    harness.run_steps(2);
    assert_eq!(harness.state().compose_prompt(), "a lighthouse at dusk");
}

#[test]
fn opening_chat_puts_typing_in_the_message_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Num7);
    harness.run_steps(3);
    assert_eq!(harness.state().view(), View::Chat);
    harness.event(egui::Event::Text("what is a dolly zoom?".into()));
    harness.run_steps(2);
    assert_eq!(harness.state().chat().composer, "what is a dolly zoom?");

    // Away and back: the field has the focus again.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Num1);
    harness.run_steps(2);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Num7);
    harness.run_steps(3);
    harness.event(egui::Event::Text(" And a whip pan?".into()));
    harness.run_steps(2);
    assert!(
        harness.state().chat().composer.ends_with("And a whip pan?"),
        "{:?}",
        harness.state().chat().composer
    );
}

/// The toasts' stack as laid out last frame.
fn toast_stack_rect(harness: &Harness<'static, StudioApp>) -> egui::Rect {
    harness
        .ctx
        .memory(|m| m.area_rect(framewright::ui::toasts::stack_id()))
        .expect("toasts on screen")
}

fn toasts_stay_off_delete_and_send(size: egui::Vec2) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = support::studio_sized(&dir, View::Palettes, size);
    step_until(&mut harness, "the palette list", |h| {
        h.state().palettes_loaded_for_project()
    });
    harness.run_steps(3);
    support::click_button(&mut harness, "+ Add colour");
    harness.get_by_label("Palette name").click();
    harness.step();
    harness.get_by_label("Palette name").type_text("Toast test");
    harness.run_steps(2);
    support::click_button(&mut harness, "Save palette");
    step_until(&mut harness, "the save's toast and Delete…", |h| {
        !h.state().toast_texts().is_empty()
            && h.query_by_label("Delete…").is_some()
            && h.state().palettes_state().editor.palette_id.is_some()
    });
    harness.run_steps(3);
    let delete = harness
        .get_by_role_and_label(Role::Button, "Delete…")
        .rect();
    let stack = toast_stack_rect(&harness);
    assert!(
        !stack.intersects(delete),
        "at {size:?} the toasts {stack:?} cover Delete… {delete:?}"
    );

    // The toast is still up in Chat: it keeps off Send.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Num7);
    harness.run_steps(3);
    assert!(!harness.state().toast_texts().is_empty());
    let send = harness
        .get_by(|n| n.role() == Role::Button && n.label().is_some_and(|l| l.starts_with("Send")))
        .rect();
    let stack = toast_stack_rect(&harness);
    assert!(
        !stack.intersects(send),
        "at {size:?} the toasts {stack:?} cover Send {send:?}"
    );
}

#[test]
fn toasts_keep_off_the_palette_delete_and_chat_send_buttons() {
    toasts_stay_off_delete_and_send(egui::vec2(1440.0, 900.0));
    toasts_stay_off_delete_and_send(egui::vec2(960.0, 600.0));
}
