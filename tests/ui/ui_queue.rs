//! The submit queue as the artist sees it, through egui_kittest against the real studio on
//! its embedded sandbox: a job the service cannot take yet (another app of the same user
//! spent the image-generation minute) waits as "Queued — sends in ~N s" with its place,
//! and its Cancel button takes it out of line without it ever being sent.

use crate::support;
use support::{Studio, step_until, studio};

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use framewright::engine::JobPhase;
use framewright::ui::View;

/// The contract's image-generation limit per minute.
const IMAGE_LIMIT: usize = 30;

/// Spend the default user's image bucket with a second key of the same user.
fn spend_the_image_bucket(harness: &Studio) {
    let sandbox = harness
        .state()
        .session()
        .local_sandbox()
        .expect("the embedded sandbox");
    let other_key = sandbox.create_api_key(false);
    let url = format!("{}/v1/generate/image", sandbox.base_url());
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let client = reqwest::Client::new();
        for n in 0..IMAGE_LIMIT {
            let response = client
                .post(&url)
                .header("X-API-Key", &other_key)
                .json(&serde_json::json!({ "prompt": format!("other app {n}") }))
                .send()
                .await
                .expect("raw submit");
            assert!(response.status().is_success(), "{}", response.status());
        }
    });
}

#[test]
fn a_queued_job_counts_down_and_can_be_cancelled_unsent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    step_until(&mut harness, "catalog, projects and credits", |h| {
        let app = h.state();
        app.catalog_loaded() && app.projects_loaded() && app.credits_loaded()
    });
    let generations_before = harness
        .state()
        .session()
        .local_sandbox()
        .expect("the embedded sandbox")
        .generation_count();
    spend_the_image_bucket(&harness);

    harness.get_by_label("Prompt").click();
    harness.step();
    harness
        .get_by_label("Prompt")
        .type_text("a lighthouse that has to wait its turn");
    harness.step();
    harness
        .get_by(|node| {
            node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Generate"))
        })
        .click_accesskit();
    step_until(&mut harness, "the job to wait in the queue", |h| {
        h.state().jobs().first().is_some_and(|job| {
            matches!(
                job.phase,
                JobPhase::Queued {
                    sends_at_unix_ms: Some(_),
                    ..
                }
            )
        })
    });
    for _ in 0..3 {
        harness.step();
    }
    assert!(
        harness
            .query_all_by_label_contains("Queued — sends in ~")
            .next()
            .is_some(),
        "the queued job says when it sends"
    );
    assert!(
        harness
            .query_all_by_label_contains("1st in line")
            .next()
            .is_some(),
        "the queued job says its place"
    );

    harness
        .get_all_by_role_and_label(Role::Button, "Cancel queued job")
        .next()
        .expect("a Cancel button on the queued job")
        .click_accesskit();
    step_until(&mut harness, "the queued job to be cancelled", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|job| job.phase == JobPhase::Cancelled)
    });
    let job = harness.state().jobs()[0].clone();
    assert_eq!(job.generation_id, None, "it was never accepted");
    let sandbox = harness
        .state()
        .session()
        .local_sandbox()
        .expect("the embedded sandbox");
    assert_eq!(
        sandbox.generation_count(),
        generations_before + IMAGE_LIMIT as u64,
        "the service never created the cancelled job"
    );
    assert!(
        harness
            .query_all_by_role_and_label(Role::Button, "Cancel queued job")
            .next()
            .is_none()
    );
}

/// The left edge of the open tray (its splitter), in points.
fn tray_edge_x(harness: &Studio) -> f32 {
    harness
        .get_by_role_and_label(Role::Splitter, "Resize the job tray")
        .rect()
        .center()
        .x
}

fn generate_and_wait(harness: &mut Studio, prompt: &str, mut each_frame: impl FnMut(&Studio)) {
    let before = harness.state().jobs().len();
    support::type_prompt(harness, prompt);
    support::press_generate(harness);
    step_until(harness, "the job to finish", |h| {
        each_frame(h);
        let jobs = h.state().jobs();
        jobs.len() == before + 1 && jobs[0].phase.is_finished()
    });
    harness.run_steps(2);
}

#[test]
fn the_first_job_opens_the_tray_later_ones_leave_it_closed_and_its_width_holds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Create);
    support::wait_for_service_data(&mut harness);
    assert!(!harness.state().tray_open(), "a new studio shows the strip");

    // The first job of the session opens the tray; its width never follows the cards.
    generate_and_wait(&mut harness, "a quiet harbour at dawn", |_| {});
    assert!(harness.state().tray_open(), "the first job opens the tray");
    harness.check_accessibility();
    let edge = tray_edge_x(&harness);
    let mut edges = Vec::new();
    generate_and_wait(&mut harness, "a second harbour, at dusk", |h| {
        edges.push(tray_edge_x(h));
    });
    edges.push(tray_edge_x(&harness));
    assert!(
        edges.iter().all(|x| (x - edge).abs() < 0.5),
        "the tray kept its width while a job ran and finished: {edge} vs {edges:?}"
    );

    // Closed by the artist, it stays closed for the next job; the strip counts the jobs.
    support::click_button(&mut harness, "Hide job tray");
    assert!(!harness.state().tray_open());
    generate_and_wait(&mut harness, "a third harbour, at night", |_| {});
    assert!(!harness.state().tray_open(), "a later job leaves it closed");
    assert!(harness.query_by_label("Show jobs (3)").is_some());

    // Ctrl+J opens it again.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::J);
    harness.run_steps(2);
    assert!(harness.state().tray_open());
}

#[test]
fn the_trays_choice_and_width_survive_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut harness = studio(&dir, View::Library);
    harness.run_steps(3);
    support::click_button(&mut harness, "Show job tray");
    assert!(harness.state().tray_open());
    let width_before = harness.state().tray_width_pt();

    // Drag the splitter 60 pt to the left: the tray grows by as much.
    let edge = harness
        .get_by_role_and_label(Role::Splitter, "Resize the job tray")
        .rect()
        .center();
    let target = edge - egui::vec2(60.0, 0.0);
    harness.event(egui::Event::PointerMoved(edge));
    harness.step();
    harness.event(egui::Event::PointerButton {
        pos: edge,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    harness.step();
    for step in 1..=6 {
        let x = edge.x - 10.0 * step as f32;
        harness.event(egui::Event::PointerMoved(egui::pos2(x, edge.y)));
        harness.step();
    }
    harness.event(egui::Event::PointerButton {
        pos: target,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    harness.run_steps(3);
    let width = harness.state().tray_width_pt();
    assert!(
        (width - (width_before + 60.0)).abs() < 2.0,
        "dragged from {width_before} to {width}"
    );
    let edge_after = tray_edge_x(&harness);
    eframe::App::on_exit(harness.state_mut(), None);
    drop(harness);

    let mut harness = studio(&dir, View::Library);
    harness.run_steps(3);
    assert!(harness.state().tray_open(), "the open tray is remembered");
    assert_eq!(harness.state().tray_width_pt(), width);
    assert!((tray_edge_x(&harness) - edge_after).abs() < 0.5);

    // Closed, it starts closed.
    support::click_button(&mut harness, "Hide job tray");
    eframe::App::on_exit(harness.state_mut(), None);
    drop(harness);
    let mut harness = studio(&dir, View::Library);
    harness.run_steps(3);
    assert!(
        !harness.state().tray_open(),
        "the closed tray is remembered"
    );
}
