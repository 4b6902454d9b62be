//! The artist's promise: quit while a job runs, start again, and the job is still in the
//! tray and finishes. Exercised through `Session`, which owns the embedded sandbox and the
//! engine exactly as the studio does, on real loopback HTTP.

use framewright::api::{GenerationKind, GenerationRequest, GenerationSpec};
use framewright::engine::{Command, Event, JobPhase, JobRecord};
use framewright::session::{Session, SessionOptions};
use framewright::settings::AppPaths;
use std::sync::Arc;
use std::time::{Duration, Instant};

const WAIT_LIMIT: Duration = Duration::from_secs(90);

fn open(paths: &AppPaths) -> Session {
    // Slow enough that the job is still running when we quit, fast enough for CI.
    let options = SessionOptions {
        sandbox_speed: 1.5,
        use_os_keychain: false,
    };
    Session::open_with(paths.clone(), options, Arc::new(|| {}))
}

/// Drains events until `done` says so for a job update (or the restored job list).
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
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("timed out waiting for the job");
}

#[test]
fn a_job_running_at_quit_is_resumed_and_finishes_after_restart() {
    let home = tempfile::tempdir().expect("tempdir");
    let paths = AppPaths::under(home.path());

    let mut first = open(&paths);
    assert!(
        first.connection_error().is_none(),
        "{:?}",
        first.connection_error()
    );
    let spec = GenerationSpec {
        kind: GenerationKind::Image,
        request: GenerationRequest {
            prompt: "lighthouse in a storm, long exposure".into(),
            ..Default::default()
        },
    };
    first
        .send(Command::Submit {
            spec,
            model_label: "Auto".into(),
            credits_estimate: None,
        })
        .expect("submit command accepted");
    let running = wait_for_job(&mut first, |job| {
        matches!(job.phase, JobPhase::Running { .. })
    });
    let generation_id = running
        .generation_id
        .clone()
        .expect("a running job has its id");

    // Quit mid-job: engine and embedded sandbox both stop.
    first.shutdown();
    drop(first);

    let mut second = open(&paths);
    let restored = wait_for_job(&mut second, |job| {
        job.generation_id.as_deref() == Some(&generation_id)
    });
    assert!(
        !restored.phase.is_finished(),
        "the job was still running when the studio quit, got {:?}",
        restored.phase
    );
    let finished = wait_for_job(&mut second, |job| {
        job.generation_id.as_deref() == Some(&generation_id) && job.phase.is_finished()
    });
    assert_eq!(
        finished.phase,
        JobPhase::Completed,
        "resumed job must complete"
    );
    let result = finished.result.expect("completed job has a result");
    assert!(!result.urls.is_empty(), "completed job has output URLs");
    assert!(
        finished.credits_used.is_some_and(|c| c > 0.0),
        "credits_used is reported"
    );
}
