//! API keys live only in their store. After driving the real studio on the embedded
//! sandbox (a generated image, the Library with its thumbnails, saved settings with a
//! remote profile) with a DEBUG-level file log installed as `main.rs` does, no file the
//! studio or the sandbox wrote and no request on the sandbox's public file URLs holds a
//! key. Only the key stores are exempt: the studio's secret file and the sandbox's own
//! database (the service side's key store).

mod support;

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use framewright::sandbox::FileRequest;
use framewright::settings::AppPaths;
use framewright::ui::View;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use support::{generate, step_until, studio};

/// A remote profile's key, saved through Settings like a person would.
const REMOTE_KEY: &str = "fwlive_7d0c52b1e94a4f6b8a03c9e2d5f61a87";

/// The DEBUG file log of the studio, as `main.rs` installs it (one subscriber per process:
/// this test binary holds a single test).
fn install_debug_file_log(paths: &AppPaths) {
    use tracing_subscriber::{
        EnvFilter, Layer, fmt, layer::SubscriberExt, util::SubscriberInitExt,
    };
    std::fs::create_dir_all(&paths.log_dir).expect("log dir");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(paths.log_dir.join("framewright.log"))
        .expect("log file");
    tracing_subscriber::registry()
        .with(
            fmt::layer()
                .with_ansi(false)
                .with_writer(Mutex::new(file))
                .with_filter(EnvFilter::new("debug")),
        )
        .try_init()
        .expect("the only subscriber");
}

/// The strings that must never leave a key store: each key, and its random part alone.
fn needles(keys: &[&str]) -> Vec<String> {
    let mut needles = Vec::new();
    for key in keys {
        needles.push((*key).to_owned());
        if let Some((_, secret)) = key.split_once('_') {
            needles.push(secret.to_owned());
        }
    }
    needles
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// The key stores: the studio's secret file and the sandbox's database (with -wal/-shm).
fn is_key_store(paths: &AppPaths, file: &Path) -> bool {
    file == paths.secrets_file()
        || (file.parent() == Some(paths.sandbox_dir().as_path())
            && file
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("sandbox.sqlite3")))
}

/// Every file under the home folder except the key stores; panics naming a file that holds
/// a needle. Returns how many files were scanned.
fn scan_files(paths: &AppPaths, home: &Path, needles: &[String]) -> usize {
    let mut scanned = 0;
    for file in files_under(home) {
        if is_key_store(paths, &file) {
            continue;
        }
        // A file removed meanwhile (a temp file renamed into place) is fine.
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        for needle in needles {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "{} holds an API key",
                file.display()
            );
        }
        scanned += 1;
    }
    scanned
}

fn scan_file_requests(requests: &[FileRequest], needles: &[String]) {
    for request in requests {
        let mut parts = vec![&request.method, &request.path];
        parts.extend(request.query.as_ref());
        for (name, value) in &request.headers {
            parts.push(name);
            parts.push(value);
            assert!(
                !name.eq_ignore_ascii_case("authorization")
                    && !name.eq_ignore_ascii_case("x-api-key"),
                "a file URL got credentials: {request:?}"
            );
        }
        for needle in needles {
            assert!(
                parts.iter().all(|part| !part.contains(needle.as_str())),
                "a request on a file URL carried an API key: {} {}",
                request.method,
                request.path
            );
        }
    }
}

#[test]
fn no_file_the_studio_or_sandbox_writes_and_no_file_request_holds_an_api_key() {
    let home = tempfile::tempdir().expect("tempdir");
    let paths = AppPaths::under(home.path());
    install_debug_file_log(&paths);

    let mut harness = studio(&home, View::Create);
    let sandbox_key = harness
        .state()
        .session()
        .local_sandbox()
        .expect("local sandbox")
        .api_key()
        .to_owned();
    let needles = needles(&[&sandbox_key, REMOTE_KEY]);

    // A generated image, its library and thumbnails, and settings saved with a remote key.
    generate(&mut harness, "a paper boat on a rain puddle");
    harness
        .state()
        .session()
        .local_sandbox()
        .expect("local sandbox")
        .seed_media(6, None);
    harness
        .state_mut()
        .session_mut()
        .add_remote_profile("Studio account", "https://gen.example.test", REMOTE_KEY)
        .expect("a remote profile is saved");
    harness
        .get_by_role_and_label(Role::Button, "Library")
        .click();
    step_until(&mut harness, "the library's thumbnails", |h| {
        let ids = h.state().library_item_ids();
        ids.len() >= 7 && ids.iter().all(|id| h.state().library_thumbnail_ready(id))
    });

    let requests = harness
        .state()
        .session()
        .local_sandbox()
        .expect("local sandbox")
        .file_requests();
    assert!(
        requests.iter().any(|r| r.path.starts_with("/files/")),
        "thumbnails were fetched from the file URLs: {requests:?}"
    );
    scan_file_requests(&requests, &needles);

    // While running (the journal's -wal is there) and after a clean quit.
    let scanned_running = scan_files(&paths, home.path(), &needles);
    drop(harness);
    let scanned_after = scan_files(&paths, home.path(), &needles);
    assert!(scanned_running > 0 && scanned_after > 0);

    // The scan saw what it should: the debug log, settings with the remote profile, the
    // journal, the thumbnail cache and the generated files.
    let log = std::fs::read_to_string(paths.log_dir.join("framewright.log")).expect("log");
    assert!(log.contains("DEBUG"), "the log was written at debug level");
    let settings = std::fs::read_to_string(paths.settings_file()).expect("settings");
    assert!(settings.contains("gen.example.test"), "settings were saved");
    assert!(paths.journal_file().exists());
    let thumbnails = files_under(&paths.cache_dir.join("thumbnails"));
    assert!(!thumbnails.is_empty(), "the thumbnail cache was written");
    assert!(
        files_under(&paths.sandbox_dir().join("files")).len() > 1,
        "the sandbox wrote its files"
    );
    assert_private(&paths);
}

/// The studio's and the sandbox's stores are readable only by their owner (0600) in
/// folders only their owner can enter (0700), whatever the umask.
#[cfg(unix)]
fn assert_private(paths: &AppPaths) {
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &Path| {
        std::fs::metadata(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .permissions()
            .mode()
            & 0o777
    };
    for dir in [
        paths.config_dir.clone(),
        paths.data_dir.clone(),
        paths.cache_dir.clone(),
        paths.log_dir.clone(),
        paths.sandbox_dir(),
    ] {
        assert_eq!(mode(&dir), 0o700, "folder {}", dir.display());
    }
    let mut stores = vec![
        paths.settings_file(),
        paths.journal_file(),
        paths.sandbox_dir().join("sandbox.sqlite3"),
    ];
    // SQLite's companions and the chat store, where this run left them.
    for dir in [paths.data_dir.clone(), paths.sandbox_dir()] {
        for file in std::fs::read_dir(&dir)
            .expect("folder")
            .filter_map(Result::ok)
        {
            let name = file.file_name().to_string_lossy().into_owned();
            if name.contains(".sqlite") && !stores.contains(&file.path()) {
                stores.push(file.path());
            }
        }
    }
    for store in stores {
        assert_eq!(mode(&store), 0o600, "file {}", store.display());
    }
}

#[cfg(not(unix))]
fn assert_private(_paths: &AppPaths) {}
