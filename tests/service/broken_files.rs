//! Broken files on disk never stop the studio: a damaged settings file, job journal or
//! thumbnail cache entry is moved aside (or, for the disposable cache, deleted), the
//! person is told once, and the rest works. Driven through `Session` and the real studio
//! (egui_kittest) on the embedded sandbox over loopback HTTP.

use crate::support;

use framewright::api::{GenerationKind, GenerationRequest, GenerationSpec};
use framewright::engine::{Command, Event, JobPhase, JobRecord, Journal};
use framewright::session::{Session, SessionOptions};
use framewright::settings::{AppPaths, BrokenFileNotice};
use framewright::ui::View;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{WAIT_LIMIT, generate, step_until, studio};

fn open_session(paths: &AppPaths) -> Session {
    Session::open_with(
        paths.clone(),
        SessionOptions {
            sandbox_speed: 20.0,
            use_os_keychain: false,
        },
        Arc::new(|| {}),
    )
}

fn spec(prompt: &str) -> GenerationSpec {
    GenerationSpec {
        catalog: None,
        kind: GenerationKind::Image,
        request: GenerationRequest {
            prompt: prompt.into(),
            ..Default::default()
        },
        video: None,
        audio: None,
    }
}

/// Drains events until a job update (or the restored list) satisfies `done`.
fn wait_for_job(session: &mut Session, mut done: impl FnMut(&JobRecord) -> bool) -> JobRecord {
    let started = Instant::now();
    while started.elapsed() < WAIT_LIMIT {
        while let Some(event) = session.try_recv() {
            let jobs = match event {
                Event::JobUpdated(job) => vec![job],
                Event::JobsRestored(jobs) => jobs,
                _ => continue,
            };
            if let Some(job) = jobs.into_iter().find(|job| done(job)) {
                return job;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("timed out waiting for the job");
}

/// The rest works: a new job is submitted, recorded and completes.
fn submit_and_complete(session: &mut Session, prompt: &str) -> JobRecord {
    session
        .send(Command::Submit {
            spec: spec(prompt),
            model_label: "Auto".into(),
            credits_estimate: None,
        })
        .expect("submit accepted");
    let job = wait_for_job(session, |job| {
        job.spec.request.prompt == prompt && job.phase.is_finished()
    });
    assert_eq!(job.phase, JobPhase::Completed, "{job:?}");
    job
}

/// The single notice about `file`; it names the file and where the copy is, and the copy
/// exists.
fn the_notice_about(notices: &[BrokenFileNotice], file: &Path) -> PathBuf {
    let about: Vec<_> = notices.iter().filter(|n| n.file == file).collect();
    assert_eq!(about.len(), 1, "told exactly once: {notices:?}");
    let notice = about[0];
    let moved_to = notice.moved_to.clone().expect("the broken file was kept");
    assert!(moved_to.exists(), "{} exists", moved_to.display());
    assert!(
        notice.message.contains(&file.display().to_string())
            && notice.message.contains(&moved_to.display().to_string()),
        "the notice names the file and the copy: {}",
        notice.message
    );
    moved_to
}

#[test]
fn a_damaged_settings_file_is_moved_aside_told_once_and_the_studio_works() {
    let dir = tempfile::tempdir().expect("tempdir");
    let paths = AppPaths::under(dir.path());
    std::fs::create_dir_all(&paths.config_dir).expect("mkdir");
    let garbage = b"{\"profiles\": [ {\"id\": \"local-sandbox\", \"na\x00\xff";
    std::fs::write(paths.settings_file(), garbage).expect("write");

    let mut harness = studio(&dir, View::Create);
    harness.step();
    let told: Vec<String> = harness
        .state()
        .toast_texts()
        .into_iter()
        .filter(|t| t.contains("settings.json"))
        .collect();
    assert_eq!(told.len(), 1, "told once: {told:?}");
    let copy = std::fs::read_dir(&paths.config_dir)
        .expect("config dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("settings.json.broken-"))
        .expect("the broken file was moved aside");
    assert_eq!(std::fs::read(&copy).expect("copy"), garbage);
    assert!(told[0].contains(&copy.display().to_string()), "{}", told[0]);

    // The rest works: a job on the local sandbox, and settings are written anew.
    generate(&mut harness, "a lighthouse after a broken settings file");
    drop(harness);
    assert!(
        framewright::settings::Settings::load_or_recover(&paths.settings_file())
            .1
            .is_none(),
        "the settings file is whole again"
    );

    // The next start has nothing to say about it.
    let mut harness = studio(&dir, View::Create);
    harness.step();
    assert!(
        !harness
            .state()
            .toast_texts()
            .iter()
            .any(|t| t.contains("settings.json")),
        "told only once"
    );
}

/// A journal with rows written through rusqlite as the engine would have left them.
fn journal_with_rows(path: &Path, rows: usize) {
    drop(Journal::open(path).expect("create the journal"));
    let connection = rusqlite::Connection::open(path).expect("open");
    let spec_json = serde_json::to_string(&spec("an old job")).expect("spec json");
    for _ in 0..rows {
        connection
            .execute(
                "INSERT INTO jobs (service_id, spec_json, model_label, phase_json,
                     submitted_at_unix_ms, finished_at_unix_ms)
                 VALUES ('local-sandbox', ?1, 'Auto', '{\"phase\":\"cancelled\"}', 1000, 2000)",
                [&spec_json],
            )
            .expect("insert");
    }
}

#[test]
fn each_kind_of_broken_journal_is_moved_aside_told_once_and_new_jobs_run() {
    type Break = fn(&Path);
    let cases: [(&str, Break); 3] = [
        ("not SQLite", |path| {
            std::fs::write(path, b"journal? no: a text file saved over it\n").expect("write");
        }),
        ("truncated", |path| {
            journal_with_rows(path, 300);
            let whole = std::fs::read(path).expect("read");
            std::fs::write(path, &whole[..whole.len() * 2 / 3 + 17]).expect("truncate");
        }),
        ("from a newer version", |path| {
            journal_with_rows(path, 2);
            rusqlite::Connection::open(path)
                .and_then(|c| c.execute_batch("PRAGMA user_version = 999;"))
                .expect("bump the version");
        }),
    ];
    for (what, break_it) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = AppPaths::under(dir.path());
        std::fs::create_dir_all(&paths.data_dir).expect("mkdir");
        let journal = paths.journal_file();
        break_it(&journal);
        let broken = std::fs::read(&journal).expect("read");

        let mut session = open_session(&paths);
        assert_eq!(
            session.connection_error(),
            None,
            "{what}: the studio connects"
        );
        let notices = session.take_startup_notices();
        let moved_to = the_notice_about(&notices, &journal);
        assert_eq!(
            std::fs::read(&moved_to).expect("copy"),
            broken,
            "{what}: the copy is the broken file as it was"
        );
        assert!(
            session.take_startup_notices().is_empty(),
            "{what}: told once"
        );
        submit_and_complete(&mut session, &format!("a fox after a journal {what}"));
        drop(session);

        let mut again = open_session(&paths);
        assert!(
            again.take_startup_notices().is_empty(),
            "{what}: nothing to say on the next start"
        );
        let restored = wait_for_job(&mut again, |job| {
            job.spec.request.prompt.starts_with("a fox after")
        });
        assert_eq!(restored.phase, JobPhase::Completed, "{what}");
    }
}

#[test]
fn journal_rows_that_do_not_decode_are_left_out_once_and_the_good_ones_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let paths = AppPaths::under(dir.path());
    std::fs::create_dir_all(&paths.data_dir).expect("mkdir");
    let journal = paths.journal_file();
    journal_with_rows(&journal, 3);
    rusqlite::Connection::open(&journal)
        .and_then(|c| {
            c.execute(
                "UPDATE jobs SET spec_json = '{\"kind\": 17' WHERE local_id = 2",
                [],
            )
        })
        .expect("break a row");

    let mut session = open_session(&paths);
    let notices = session.take_startup_notices();
    the_notice_about(&notices, &journal);
    assert!(
        notices[0].message.contains("1 job "),
        "{}",
        notices[0].message
    );
    let restored = wait_for_job(&mut session, |job| job.local_id == 3);
    assert_eq!(restored.phase, JobPhase::Cancelled);
    submit_and_complete(&mut session, "a heron after a broken row");
    drop(session);
    assert!(open_session(&paths).take_startup_notices().is_empty());
}

#[test]
fn a_job_whose_journal_row_cannot_be_written_is_not_sent_and_says_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    let paths = AppPaths::under(dir.path());
    let mut session = open_session(&paths);
    assert_eq!(session.connection_error(), None);
    // Another program holds the journal's write lock: the row cannot be written.
    let blocker = rusqlite::Connection::open(paths.journal_file()).expect("open");
    blocker
        .execute_batch("BEGIN EXCLUSIVE;")
        .expect("take the write lock");
    session
        .send(Command::Submit {
            spec: spec("a job that cannot be recorded"),
            model_label: "Auto".into(),
            credits_estimate: None,
        })
        .expect("submit accepted");
    let job = wait_for_job(&mut session, |job| job.phase.is_finished());
    let JobPhase::Rejected { error } = &job.phase else {
        panic!("the job is not sent: {job:?}");
    };
    let said = error.to_string();
    assert!(
        said.contains("another program is using it")
            && said.contains(&paths.journal_file().display().to_string())
            && said.contains("Nothing was charged"),
        "says why, with the path: {said}"
    );
    let sandbox = session.local_sandbox().expect("local sandbox");
    assert_eq!(sandbox.generation_count(), 0, "the POST was never sent");
    drop(blocker);
}

#[test]
fn a_damaged_thumbnail_cache_entry_is_fetched_again_without_a_notice() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = AppPaths::under(dir.path()).cache_dir.join("thumbnails");
    let harness = studio(&dir, View::Create);
    let seeded = harness
        .state()
        .session()
        .local_sandbox()
        .expect("local sandbox")
        .seed_media(4, None);
    assert_eq!(seeded, 4);
    drop(harness);

    // First run fills the cache; then every entry is damaged.
    let mut harness = studio(&dir, View::Library);
    let all_ready = |h: &support::Studio| {
        let ids = h.state().library_item_ids();
        ids.len() >= 4 && ids.iter().all(|id| h.state().library_thumbnail_ready(id))
    };
    step_until(&mut harness, "the thumbnails", all_ready);
    drop(harness);
    let entries: Vec<PathBuf> = std::fs::read_dir(&cache)
        .expect("the cache folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jpg" || e == "webp"))
        .collect();
    assert!(entries.len() >= 4, "cached: {entries:?}");
    for (n, entry) in entries.iter().enumerate() {
        let whole = std::fs::read(entry).expect("read");
        let damaged = if n % 2 == 0 {
            whole[..whole.len() / 3].to_vec()
        } else {
            b"\xFF\xD8\xFF but not really a JPEG".to_vec()
        };
        std::fs::write(entry, damaged).expect("damage");
    }

    // The next start shows every thumbnail again, rewrites the cache, and says nothing.
    let mut harness = studio(&dir, View::Library);
    step_until(&mut harness, "the thumbnails again", all_ready);
    for entry in &entries {
        let bytes = std::fs::read(entry).expect("the entry was written again");
        image::load_from_memory(&bytes).expect("a whole picture again");
    }
    assert!(
        harness.state().toast_texts().is_empty(),
        "the cache is disposable: no notice ({:?})",
        harness.state().toast_texts()
    );
}

/// A sandbox database in `kind` of damage: garbage bytes, or a real store cut short.
fn damaged_sandbox_database(path: &Path, kind: &str) -> Vec<u8> {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    let bytes = match kind {
        "garbage" => b"this is not a database \x00\xff\xfe at all".repeat(200),
        "truncated" => {
            // A whole store as a sandbox leaves it, then cut to its first pages.
            let dir = tempfile::tempdir().expect("tempdir");
            let mut config = framewright::sandbox::SandboxConfig::new(dir.path().to_path_buf());
            config.speed = 20.0;
            let sandbox = framewright::sandbox::start(config).expect("sandbox starts");
            sandbox.seed_media(300, None);
            sandbox.shutdown();
            let whole = std::fs::read(dir.path().join("sandbox.sqlite3")).expect("database");
            assert!(whole.len() > 64 * 1024, "{} bytes", whole.len());
            whole[..whole.len() / 3].to_vec()
        }
        other => panic!("unknown damage {other}"),
    };
    std::fs::write(path, &bytes).expect("write damaged database");
    bytes
}

#[test]
fn a_damaged_sandbox_database_is_moved_aside_told_once_and_the_library_loads() {
    for kind in ["garbage", "truncated"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = AppPaths::under(dir.path());
        let database = paths.sandbox_dir().join("sandbox.sqlite3");
        let damaged = damaged_sandbox_database(&database, kind);

        let mut harness = studio(&dir, View::Library);
        step_until(&mut harness, "the library to load on a fresh store", |h| {
            h.state().library_settled()
        });
        let told: Vec<String> = harness
            .state()
            .toast_texts()
            .into_iter()
            .filter(|t| t.contains("sandbox.sqlite3"))
            .collect();
        assert_eq!(told.len(), 1, "{kind}: told once: {told:?}");
        let copy = std::fs::read_dir(paths.sandbox_dir())
            .expect("sandbox dir")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().contains("sandbox.sqlite3.broken-"))
            .expect("the damaged database was moved aside");
        assert_eq!(std::fs::read(&copy).expect("copy"), damaged, "{kind}");
        assert!(
            told[0].contains(&copy.display().to_string()),
            "{kind}: the notice names the copy: {}",
            told[0]
        );
        // The rest works on the fresh store: a job runs and lands in the Library.
        harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Num1);
        harness.step();
        assert_eq!(harness.state().view(), View::Create, "Ctrl+1 opens Create");
        generate(
            &mut harness,
            &format!("a lighthouse after a {kind} sandbox store"),
        );
        drop(harness);

        // The next start finds a healthy store and has nothing to say.
        let mut harness = studio(&dir, View::Library);
        step_until(&mut harness, "the library to load again", |h| {
            h.state().library_settled()
        });
        assert!(
            !harness
                .state()
                .toast_texts()
                .iter()
                .any(|t| t.contains("sandbox.sqlite3")),
            "{kind}: told only once"
        );
        assert!(
            harness.state().library_len() > 0,
            "{kind}: the new store kept its job's result"
        );
    }
}
