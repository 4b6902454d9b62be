//! The submit queue as the artist sees it, through egui_kittest against the real studio on
//! its embedded sandbox: a job the service cannot take yet (another app of the same user
//! spent the image-generation minute) waits as "Queued — sends in ~N s" with its place,
//! and its Cancel button takes it out of line without it ever being sent.

mod support;
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
