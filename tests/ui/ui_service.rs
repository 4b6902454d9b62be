//! The service going away and coming back, file dialogs that cannot open, and the job
//! tray's wording: egui_kittest flows against the real studio on a loopback sandbox.

use crate::support;
use support::{step_until, studio};

use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::ui::{StudioApp, View};

type Studio = egui_kittest::Harness<'static, StudioApp>;

fn wait_for_service_data(harness: &mut Studio) {
    step_until(harness, "catalog, projects and credits", |h| {
        let app = h.state();
        app.catalog_loaded() && app.projects_loaded() && app.credits_loaded()
    });
    harness.step();
}

#[test]
fn service_stopped_mid_session_shows_offline_and_recovers_by_itself() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    let base_url = harness
        .state()
        .session()
        .base_url()
        .expect("connected")
        .to_owned();

    assert!(harness.state_mut().session_mut().stop_local_sandbox());
    // Opening the Library reads a page: it cannot connect.
    harness.get_by_label("Library").click();
    step_until(&mut harness, "the service to show as offline", |h| {
        h.state().service_offline()
    });
    harness.step();
    harness.get_by_label("Offline — retrying");
    harness.get_by_label(&format!("Can't reach the service at {base_url} — retrying"));
    assert!(
        harness
            .query_by_label_contains("Could not reach the service")
            .is_none(),
        "the raw networking error stays in the collapsed details"
    );
    assert_eq!(harness.state().library_len(), 0);
    harness.check_accessibility();

    harness
        .state_mut()
        .session_mut()
        .restart_local_sandbox()
        .expect("sandbox restarts on the same port");
    // No Retry pressed: the engine's probe notices and everything refreshes.
    step_until(&mut harness, "online again with the library loaded", |h| {
        let app = h.state();
        !app.service_offline() && app.library_settled() && app.library_len() > 0
    });
    harness.step();
    assert!(harness.query_by_label("Offline — retrying").is_none());
    assert!(harness.state().catalog_loaded() && harness.state().credits_loaded());
}

#[test]
fn a_failed_job_poll_turns_the_status_bar_offline_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Slow jobs: the job is still running when the service goes away.
    let mut harness = support::studio_at_speed(&dir, View::Create, 0.05);
    wait_for_service_data(&mut harness);
    support::type_prompt(&mut harness, "a lighthouse in fog");
    support::press_generate(&mut harness);
    step_until(&mut harness, "the job to run", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|j| matches!(j.phase, framewright::engine::JobPhase::Running { .. }))
    });
    assert!(!harness.state().service_offline());

    assert!(harness.state_mut().session_mut().stop_local_sandbox());
    // Nothing else asks the service anything: the job's next poll is the first request
    // that fails, and it alone turns the status bar red (no panel has to fail first).
    step_until(&mut harness, "the status bar to say offline", |h| {
        h.state().service_offline()
    });
    harness.step();
    harness.get_by_label("Offline — retrying");
    step_until(&mut harness, "the card to agree", |h| {
        h.state().jobs().first().is_some_and(|j| {
            j.poll_problem
                .as_deref()
                .is_some_and(|p| p.starts_with("Connection lost"))
        })
    });

    harness
        .state_mut()
        .session_mut()
        .restart_local_sandbox()
        .expect("sandbox restarts on the same port");
    step_until(&mut harness, "online again", |h| {
        !h.state().service_offline()
    });
}

#[test]
fn switching_profile_keeps_a_running_job_in_the_tray_labelled_with_its_profile() {
    let remote_dir = tempfile::tempdir().expect("tempdir");
    let remote_key = "fw_remote_key_tray_01";
    let mut remote_config = framewright::sandbox::SandboxConfig::new(remote_dir.path().into());
    remote_config.api_key = Some(remote_key.to_owned());
    remote_config.speed = 20.0;
    let remote = framewright::sandbox::start(remote_config).expect("remote service starts");

    let dir = tempfile::tempdir().expect("tempdir");
    // Slow local jobs: the job is still running when the profile changes.
    let mut harness = support::studio_at_speed(&dir, View::Create, 0.5);
    wait_for_service_data(&mut harness);
    harness
        .state_mut()
        .session_mut()
        .add_remote_profile("Studio", remote.base_url(), remote_key)
        .expect("profile saved");
    support::type_prompt(&mut harness, "a harbour crane at night");
    support::press_generate(&mut harness);
    step_until(&mut harness, "the job to run", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|j| matches!(j.phase, framewright::engine::JobPhase::Running { .. }))
    });

    support::click_button(&mut harness, "Settings");
    step_until(&mut harness, "the profiles in Settings", |h| {
        h.query_by_label("Studio").is_some()
    });
    support::click_button(&mut harness, "Activate");
    step_until(&mut harness, "the switch's toast", |h| {
        h.state()
            .toast_texts()
            .iter()
            .any(|t| t == "1 job keeps running on Local sandbox")
    });
    step_until(&mut harness, "the remote profile's data", |h| {
        let app = h.state();
        app.catalog_loaded() && app.projects_loaded() && app.credits_loaded()
    });
    // The active profile's panels know nothing of the job; the tray still shows it.
    assert!(harness.state().jobs().is_empty());
    harness.get_by_label("On Local sandbox");
    harness.get_by_label_contains("Image · ");
    // The status bar counts it too: it still runs, just not on this profile.
    assert_eq!(
        harness.state().session().other_profile_job_counts().running,
        1
    );
    // The status bar's count and the tray's header.
    assert_eq!(harness.query_all_by_label("1 running").count(), 2);
    harness.check_accessibility();

    step_until(
        &mut harness,
        "the local job to complete in the background",
        |h| {
            h.state()
                .session()
                .other_profile_jobs()
                .any(|job| job.record.phase == framewright::engine::JobPhase::Completed)
        },
    );
    harness.step();
    harness.get_by_label("On Local sandbox");
    harness.get_by_label("Switch to Local sandbox to open its results.");
    // Dismiss reaches the journal even though the local engine has stopped.
    support::click_button(&mut harness, "Dismiss");
    step_until(&mut harness, "the card to go", |h| {
        h.query_by_label("On Local sandbox").is_none()
    });
}

#[test]
fn a_file_dialog_that_cannot_open_says_why_and_offers_a_path_field() {
    // SAFETY: set before the studio starts any thread that reads the environment; no other
    // test in this binary reads this variable.
    unsafe { std::env::set_var(framewright::ui::dialogs::NO_FILE_DIALOGS_ENV, "1") };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    harness.get_by_label("Image edit").click();
    harness.step();
    harness.get_by_label("Add images…").click();
    step_until(&mut harness, "the path prompt", |h| {
        h.state().path_prompt_open()
    });
    harness.step();
    // Said once, in words, with what to do; no toast repeats it, and the raw reason is in
    // the collapsed Details only.
    harness.get_by_label_contains("This desktop has no file chooser");
    harness.get_by_label_contains("drag and drop the images onto the window");
    assert!(
        harness.state().toast_texts().is_empty(),
        "{:?}",
        harness.state().toast_texts()
    );
    assert!(
        harness
            .query_by_label_contains("file dialogs are turned off")
            .is_none(),
        "the raw reason stays under Details"
    );
    harness.get_by_label("Details").click();
    harness.step();
    harness.step();
    harness.get_by_label_contains("file dialogs are turned off");
    harness.check_accessibility();

    let photo = support::fixture_photo("coffee.png");
    harness.step();
    harness.get_by_label("Path").click();
    harness.step();
    harness
        .get_by_label("Path")
        .type_text(&photo.display().to_string());
    harness.step();
    harness.get_by_label("Use path").click();
    step_until(&mut harness, "the typed image to become a source", |h| {
        !h.state().path_prompt_open() && h.state().compose_source_count() == 1
    });
}

#[test]
fn tray_starts_as_a_strip_and_the_retry_dialog_names_the_cost() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    // No jobs yet: the collapsed strip with its accessible button.
    harness.get_by_label("Show job tray");
    harness.check_accessibility();
    assert!(harness.query_by_label("Hide job tray").is_none());

    harness
        .state()
        .session()
        .local_sandbox()
        .expect("local sandbox")
        .fail_next_jobs(1, true);
    harness.get_by_label("Prompt").click();
    harness.step();
    harness
        .get_by_label("Prompt")
        .type_text("a quiet harbour at dawn");
    harness.step();
    harness
        .get_by(|node| {
            node.role() == egui::accesskit::Role::Button
                && node.label().is_some_and(|l| l.starts_with("Generate"))
        })
        .click_accesskit();
    step_until(&mut harness, "the job to fail", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|j| j.phase.is_finished())
    });
    harness.step();
    // Submitting in a wide window expanded the tray; the title reads as a person says it.
    harness.get_by_label("Hide job tray");
    // The title names kind, model and prompt (the Create canvas shows the prompt as well).
    let title = harness
        .get_by_label_contains("Image · ")
        .accesskit_node()
        .value()
        .unwrap_or_default();
    assert!(title.contains("a quiet harbour"), "tray title {title:?}");

    // Right-click on the job: the same commands as its buttons, plus Copy prompt.
    harness.get_by_label_contains("Image · ").click_secondary();
    step_until(&mut harness, "the job's context menu", |h| {
        h.query_by_label("Copy prompt").is_some()
    });
    assert_eq!(harness.query_all_by_label("Retry…").count(), 2);
    assert_eq!(harness.query_all_by_label("Dismiss").count(), 2);
    harness.get_by_label("Copy prompt").click();
    step_until(&mut harness, "the copy toast", |h| {
        h.state()
            .toast_texts()
            .iter()
            .any(|t| t == "Prompt copied to the clipboard")
    });
    step_until(&mut harness, "the menu to close", |h| {
        h.query_by_label("Copy prompt").is_none()
    });

    harness.get_by_label("Retry…").click();
    step_until(&mut harness, "the retry confirmation", |h| {
        h.query_by_label("Submit new job").is_some()
    });
    harness.get_by_label_contains("It is billed again: about");
    harness.get_by_label_contains("The failed job was not billed");
}
