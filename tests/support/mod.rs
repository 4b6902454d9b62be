//! Shared harness for the egui_kittest UI flows: the real studio on a `Session` whose
//! embedded sandbox runs on loopback (fast job speed) in a temporary folder.

// Each UI test module uses a different subset of these helpers.
#![allow(dead_code)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::engine::{JobPhase, JobRecord};
use framewright::session::{Session, SessionOptions};
use framewright::settings::AppPaths;
use framewright::ui::{StartupOptions, StudioApp, View};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub type Studio = Harness<'static, StudioApp>;

/// Upper bound for any wait; reaching it fails the test (never a timing assertion).
pub const WAIT_LIMIT: Duration = Duration::from_secs(60);
/// Sandbox job speed for UI flows: jobs finish in well under a second.
const SANDBOX_SPEED: f64 = 20.0;

/// The studio at 1440×900 on `view`, connected to its own embedded sandbox under `dir`.
pub fn studio(dir: &tempfile::TempDir, initial_view: View) -> Studio {
    studio_at_speed(dir, initial_view, SANDBOX_SPEED)
}

/// As [`studio`], with the sandbox's jobs running `sandbox_speed` times faster than real
/// (below 1: slower, so a job is still running when the test acts).
pub fn studio_at_speed(dir: &tempfile::TempDir, initial_view: View, sandbox_speed: f64) -> Studio {
    studio_with(dir, initial_view, sandbox_speed, true)
}

/// As [`studio`], as a person starting the studio in `dir`: the first-run welcome shows
/// unless it was answered before (the other helpers start with it answered).
pub fn studio_as_new_user(dir: &tempfile::TempDir, initial_view: View) -> Studio {
    studio_with(dir, initial_view, SANDBOX_SPEED, false)
}

/// As [`studio`], in a window of `size` points.
pub fn studio_sized(dir: &tempfile::TempDir, initial_view: View, size: egui::Vec2) -> Studio {
    studio_with_size(dir, initial_view, SANDBOX_SPEED, true, size)
}

fn studio_with(
    dir: &tempfile::TempDir,
    initial_view: View,
    sandbox_speed: f64,
    welcome_answered: bool,
) -> Studio {
    let size = egui::vec2(1440.0, 900.0);
    studio_with_size(dir, initial_view, sandbox_speed, welcome_answered, size)
}

fn studio_with_size(
    dir: &tempfile::TempDir,
    initial_view: View,
    sandbox_speed: f64,
    welcome_answered: bool,
    size: egui::Vec2,
) -> Studio {
    let mut session = Session::open_with(
        AppPaths::under(dir.path()),
        SessionOptions {
            sandbox_speed,
            use_os_keychain: false,
        },
        Arc::new(|| {}),
    );
    if welcome_answered {
        session.set_welcome_seen(true);
    }
    Harness::builder().with_size(size).build_eframe(move |cc| {
        StudioApp::new(
            &cc.egui_ctx,
            session,
            StartupOptions {
                initial_view,
                ..StartupOptions::default()
            },
        )
    })
}

/// Steps frames (sleeping briefly so the engine can work) until `done`, or panics after
/// `WAIT_LIMIT` naming `what`.
pub fn step_until(harness: &mut Studio, what: &str, mut done: impl FnMut(&Studio) -> bool) {
    let started = Instant::now();
    loop {
        harness.step();
        if done(harness) {
            return;
        }
        assert!(
            started.elapsed() < WAIT_LIMIT,
            "timed out after {WAIT_LIMIT:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(40));
    }
}

/// Steps until the catalog, projects and credits are in, then a few frames more.
pub fn wait_for_service_data(harness: &mut Studio) {
    step_until(harness, "catalog, projects and credits", |h| {
        let app = h.state();
        app.catalog_loaded() && app.projects_loaded() && app.credits_loaded()
    });
    steps(harness, 3);
}

pub fn steps(harness: &mut Studio, count: usize) {
    for _ in 0..count {
        harness.step();
    }
}

/// Clicks the button named `label` through accessibility, then lets two frames run.
pub fn click_button(harness: &mut Studio, label: &str) {
    harness
        .get_by_role_and_label(Role::Button, label)
        .click_accesskit();
    steps(harness, 2);
}

/// The Generate button's accessible name (it carries the estimate).
pub fn generate_label(harness: &Studio) -> String {
    harness
        .get_by(|node| {
            node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Generate"))
        })
        .accesskit_node()
        .label()
        .unwrap_or_default()
}

pub fn press_generate(harness: &mut Studio) {
    harness
        .get_by(|node| {
            node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Generate"))
        })
        .click_accesskit();
    harness.step();
}

/// Replaces the prompt's text with `prompt` (empty clears it).
pub fn type_prompt(harness: &mut Studio, prompt: &str) {
    replace_field_text(harness, "Prompt", prompt);
}

/// Clicks `button`, which asks for a file: no file dialog can open in the tests, so the
/// typed-path prompt opens (ready for typing); `path` is typed there and used.
pub fn choose_file_by_path(harness: &mut Studio, button: &str, path: &Path) {
    click_button(harness, button);
    step_until(harness, "the path prompt", |h| h.state().path_prompt_open());
    steps(harness, 2);
    assert!(
        harness.get_by_label("Path").is_focused(),
        "the prompt opens ready for typing"
    );
    replace_field_text(harness, "Path", &path.display().to_string());
    click_button(harness, "Use path");
}

/// Replaces the text of the field named `label` with `text` (empty clears it). The field
/// is focused through accessibility, not by a click at last frame's position: a view whose
/// layout is still settling (a note that goes when the catalog arrives) would move the
/// field between the frame that measured it and the frame that takes the click.
pub fn replace_field_text(harness: &mut Studio, label: &str, text: &str) {
    harness.get_by_label(label).focus();
    step_until(harness, &format!("the focus on “{label}”"), |h| {
        h.get_by_label(label).is_focused()
    });
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.step();
    harness.key_press(egui::Key::Backspace);
    harness.step();
    if !text.is_empty() {
        harness.get_by_label(label).type_text(text);
        steps(harness, 2);
    }
}

/// A fixture photo shipped beside the repository.
pub fn fixture_photo(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/fixtures/photos")
        .join(name);
    assert!(path.exists(), "fixture photo at {}", path.display());
    path
}

/// A file dropped from the desktop, as winit hands it to egui.
#[derive(Debug)]
pub struct DroppedPath(pub PathBuf);

impl egui::DroppedFile for DroppedPath {
    fn path(&self) -> &Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

/// Drops `path` onto the window (takes effect on the next frame).
pub fn drop_file(harness: &mut Studio, path: PathBuf) {
    harness
        .input_mut()
        .dropped_files
        .push(Arc::new(DroppedPath(path)));
}

/// Type `prompt` into Create's prompt (replacing what is there), press Generate and wait
/// for the job to complete; the finished job.
pub fn generate(harness: &mut Studio, prompt: &str) -> JobRecord {
    let before = harness.state().jobs().len();
    type_prompt(harness, prompt);
    press_generate(harness);
    step_until(harness, "the job to finish", |h| {
        let jobs = h.state().jobs();
        jobs.len() == before + 1 && jobs[0].phase.is_finished()
    });
    let job = harness.state().jobs()[0].clone();
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    job
}
