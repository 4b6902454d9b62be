//! Keyboard, clipboard and confirmation flows against the real studio on a sandbox on
//! loopback: paste and copy in the prompt, Copy URL, the global keys (Ctrl+2, F1, Ctrl+Q)
//! and removing a service profile. What was copied is read through the app's clipboard
//! path (`StudioApp::last_copied`), which records both button copies and text-field copies.

use crate::support;
use support::{generate, step_until, studio};

use egui::accesskit::Role;
use egui::{Event, Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use framewright::settings::{AppPaths, Settings};
use framewright::ui::{StudioApp, View, window};

type Studio = Harness<'static, StudioApp>;

fn wait_for_service_data(harness: &mut Studio) {
    step_until(harness, "catalog, projects and credits", |h| {
        let app = h.state();
        app.catalog_loaded() && app.projects_loaded() && app.credits_loaded()
    });
    harness.run_steps(3);
}

/// A studio whose sandbox runs jobs slowly, so one is still running when the test acts.
fn slow_studio(dir: &tempfile::TempDir) -> Studio {
    support::studio_at_speed(dir, View::Create, 0.3)
}

#[test]
fn paste_into_the_prompt_and_copy_out_of_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);

    harness.get_by_label("Prompt").click();
    harness.step();
    harness.event(Event::Paste("a quiet harbour at dawn".into()));
    harness.step();
    assert_eq!(harness.state().compose_prompt(), "a quiet harbour at dawn");

    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    harness.step();
    harness.event(Event::Copy);
    harness.run_steps(2);
    assert_eq!(
        harness.state().last_copied(),
        Some("a quiet harbour at dawn"),
        "Ctrl+C in the prompt copies the selected text"
    );

    harness.event(Event::Cut);
    harness.run_steps(2);
    assert_eq!(harness.state().compose_prompt(), "");
    assert_eq!(
        harness.state().last_copied(),
        Some("a quiet harbour at dawn")
    );
}

#[test]
fn copy_url_in_the_viewer_puts_the_url_on_the_clipboard() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    let job = generate(&mut harness, "lighthouse in a storm");
    let url = job.result.as_ref().expect("result").urls[0].clone();

    step_until(&mut harness, "the result thumbnail", |h| {
        h.query_by_label_contains("Open result 1 of").is_some()
    });
    harness.get_by_label_contains("Open result 1 of").click();
    step_until(&mut harness, "the viewer to open", |h| {
        h.state().viewer_job().is_some()
    });
    harness.run_steps(2);
    harness.get_by_label("Copy URL").click();
    harness.run_steps(2);
    assert_eq!(harness.state().last_copied(), Some(url.as_str()));
    assert!(
        harness
            .state()
            .toast_texts()
            .contains(&"URL copied to the clipboard".to_owned()),
        "a toast confirms the copy"
    );
}

#[test]
fn ctrl_2_opens_the_library_and_the_view_is_remembered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    harness.run_steps(2);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Num2);
    harness.run_steps(2);
    assert_eq!(harness.state().view(), View::Library);

    let settings = Settings::load(&AppPaths::under(dir.path()).settings_file());
    assert_eq!(settings.ui.last_view.as_deref(), Some("library"));
    assert_eq!(window::startup_view(None, &settings.ui), View::Library);
}

#[test]
fn f1_shows_the_shortcuts_and_esc_closes_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Library);
    harness.run_steps(2);
    harness.key_press(Key::F1);
    harness.run_steps(2);
    assert!(harness.state().shortcuts_open());
    assert!(harness.query_by_label("Keyboard shortcuts").is_some());
    for listed in ["Ctrl+Enter", "Ctrl+Q", "Generate", "Restore"] {
        assert!(
            harness.query_by_label_contains(listed).is_some(),
            "the overlay lists {listed}"
        );
    }
    harness.check_accessibility();

    harness.key_press(Key::Escape);
    harness.run_steps(2);
    assert!(!harness.state().shortcuts_open());
    assert!(harness.query_by_label("Keyboard shortcuts").is_none());
}

#[test]
fn ctrl_q_with_a_running_job_asks_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = slow_studio(&dir);
    wait_for_service_data(&mut harness);
    harness.get_by_label("Prompt").click();
    harness.step();
    harness
        .get_by_label("Prompt")
        .type_text("slow tide, long exposure");
    harness.step();
    harness
        .get_by(|node| {
            node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Generate"))
        })
        .click_accesskit();
    step_until(&mut harness, "the job to be running", |h| {
        h.state().jobs().iter().any(|job| !job.phase.is_finished())
    });

    harness.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    harness.run_steps(2);
    assert!(!harness.state().quitting(), "it asks before quitting");
    assert!(
        harness
            .query_by_label_contains("1 job is still running; it will resume")
            .is_some()
    );
    // Esc answers "no" (the tray's Cancel buttons share the dialog's label).
    harness.key_press(Key::Escape);
    harness.run_steps(2);
    assert!(!harness.state().quitting());
    assert!(harness.query_by_label("Quit Framewright?").is_none());

    harness.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    harness.run_steps(2);
    harness
        .get_by(|node| node.role() == Role::Button && node.label().as_deref() == Some("Quit"))
        .click();
    harness.run_steps(2);
    assert!(harness.state().quitting());
}

/// Submit `prompt` from Create and wait until it is on its way (not finished).
fn submit_slow_job(harness: &mut Studio, prompt: &str) {
    let before = harness.state().jobs().len();
    support::type_prompt(harness, prompt);
    support::press_generate(harness);
    step_until(harness, "the job to be running", |h| {
        let jobs = h.state().jobs();
        jobs.len() == before + 1 && !jobs[0].phase.is_finished()
    });
}

/// Cancel the newest unfinished job the way the tray's Cancel does.
fn cancel_a_running_job(harness: &mut Studio) {
    let local_id = harness
        .state()
        .jobs()
        .iter()
        .find(|job| !job.phase.is_finished())
        .map(|job| job.local_id)
        .expect("a running job");
    harness
        .state_mut()
        .session_mut()
        .send(framewright::engine::Command::Cancel { local_id })
        .expect("cancel sent");
}

#[test]
fn the_quit_question_follows_the_running_jobs_and_enter_quits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = slow_studio(&dir);
    wait_for_service_data(&mut harness);
    submit_slow_job(&mut harness, "slow tide, long exposure");
    submit_slow_job(&mut harness, "slower tide, longer exposure");

    harness.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    harness.run_steps(2);
    assert!(
        harness
            .query_by_label_contains("2 jobs are still running")
            .is_some()
    );
    // One finishes (cancelled) while the question is open: the question says so.
    cancel_a_running_job(&mut harness);
    step_until(&mut harness, "the question to count one job", |h| {
        h.query_by_label_contains("1 job is still running")
            .is_some()
    });
    assert!(!harness.state().quitting());

    // Enter answers the question with its main button.
    harness.key_press(Key::Enter);
    harness.run_steps(2);
    assert!(harness.state().quitting(), "Enter quits");
}

#[test]
fn a_quit_question_whose_jobs_all_finished_quits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = slow_studio(&dir);
    wait_for_service_data(&mut harness);
    submit_slow_job(&mut harness, "slow tide, long exposure");
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    harness.run_steps(2);
    assert!(harness.query_by_label("Quit Framewright?").is_some());
    cancel_a_running_job(&mut harness);
    step_until(&mut harness, "the studio to quit as asked", |h| {
        h.state().quitting()
    });
}

/// Every group of the shortcuts overlay is in the window (`scroll`: once scrolled to, for
/// a short window).
fn every_shortcut_group_is_reachable(size: egui::Vec2, scroll: bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = support::studio_sized(&dir, View::Create, size);
    harness.run_steps(2);
    harness.key_press(Key::F1);
    harness.run_steps(3);
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, size);
    for group in framewright::ui::shortcuts::SHORTCUT_GROUPS {
        let title = group.title.to_uppercase();
        if scroll {
            harness.get_by_label(&title).scroll_to_me();
            harness.run_steps(3);
        }
        let rect = harness.get_by_label(&title).rect();
        assert!(
            window.contains_rect(rect),
            "“{}” at {size:?} is out of the window: {rect:?}",
            group.title
        );
    }
    // The Close button stays in the window too.
    let close = harness.get_by_role_and_label(Role::Button, "Close").rect();
    assert!(window.contains_rect(close), "Close at {size:?}: {close:?}");
}

#[test]
fn the_shortcuts_overlay_reaches_every_group_at_960x600_and_1440x900() {
    every_shortcut_group_is_reachable(egui::vec2(960.0, 600.0), true);
    // At 1440×900 every group is in sight at once.
    every_shortcut_group_is_reachable(egui::vec2(1440.0, 900.0), false);
}

#[test]
fn removing_a_profile_asks_first_and_cancel_keeps_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Settings);
    harness.run_steps(2);
    harness.get_by_label("Add remote service").click();
    harness.run_steps(2);
    support::replace_field_text(&mut harness, "Name", "Studio prod");
    support::replace_field_text(&mut harness, "Base URL", "https://studio.example.com/api");
    support::replace_field_text(&mut harness, "API key", "fw_live_0123456789abcdef");
    harness.get_by_label("Save profile").click();
    harness.run_steps(2);
    let profiles = |h: &Studio| h.state().session().settings().profiles.len();
    assert_eq!(profiles(&harness), 2);

    harness.get_by_label("Remove").click_accesskit();
    // A dialog lays itself out invisibly on its first frame.
    harness.run_steps(3);
    assert!(
        harness
            .query_by_label("Remove “Studio prod” and its stored API key?")
            .is_some(),
        "the question names the profile"
    );
    assert_eq!(profiles(&harness), 2, "nothing removed before the answer");
    harness.get_by_label("Cancel").click();
    harness.run_steps(2);
    assert_eq!(profiles(&harness), 2, "Cancel keeps the profile");

    harness.get_by_label("Remove").click_accesskit();
    // A dialog lays itself out invisibly on its first frame.
    harness.run_steps(3);
    harness.get_by_label("Remove profile").click();
    harness.run_steps(2);
    assert_eq!(profiles(&harness), 1);
    assert!(
        harness
            .query_by_role_and_label(Role::RadioButton, "Studio prod")
            .is_none()
    );
}
