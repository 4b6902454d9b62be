//! Shared harness for the egui_kittest UI flows: the real studio on a `Session` whose
//! embedded sandbox runs on loopback (fast job speed) in a temporary folder.

// Each UI test crate uses a different subset of these helpers.
#![allow(dead_code)]

use egui_kittest::Harness;
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
    let session = Session::open_with(
        AppPaths::under(dir.path()),
        SessionOptions {
            sandbox_speed: SANDBOX_SPEED,
            use_os_keychain: false,
        },
        Arc::new(|| {}),
    );
    Harness::builder()
        .with_size(egui::vec2(1440.0, 900.0))
        .build_eframe(move |cc| {
            StudioApp::new(
                &cc.egui_ctx,
                session,
                StartupOptions {
                    initial_view,
                    screenshot_to: None,
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
