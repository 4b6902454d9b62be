//! The engine against a real sandbox: the journal survives restarts, jobs resume instead of
//! being re-sent, a lost submit answer is reconciled without a second job, refusals are
//! shown as Rejected.

use framewright::engine::{
    Command, EngineConfig, EngineHandle, Event, JobPhase, JobRecord, Journal, LocalJobId, start,
};
use framewright::sandbox::{self, SandboxConfig, SandboxHandle};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::service_support;
use service_support::{image_spec, wait_for};

const SERVICE_ID: &str = "sandbox-test";
/// Upper bound for any single wait; only there to stop a broken build from hanging.
const WAIT: Duration = Duration::from_secs(60);

fn start_sandbox(data_dir: &Path, speed: f64) -> SandboxHandle {
    let mut config = SandboxConfig::new(data_dir.to_path_buf());
    config.speed = speed;
    sandbox::start(config).expect("sandbox starts")
}

fn journal_path(dir: &Path) -> PathBuf {
    dir.join("journal.sqlite3")
}

fn start_engine(sandbox: &SandboxHandle, dir: &Path, repaints: Arc<AtomicUsize>) -> EngineHandle {
    start(EngineConfig {
        base_url: sandbox.base_url().to_owned(),
        api_key: sandbox.api_key().to_owned(),
        journal_path: journal_path(dir),
        service_id: SERVICE_ID.to_owned(),
        cache_dir: dir.join("cache"),
        repaint: Arc::new(move || {
            repaints.fetch_add(1, Ordering::Relaxed);
        }),
    })
    .expect("engine starts")
}

fn submit(engine: &EngineHandle, prompt: &str) {
    engine
        .send(Command::Submit {
            spec: image_spec(prompt),
            model_label: "Flux Schnell".to_owned(),
            credits_estimate: Some(2.0),
        })
        .expect("queue submit");
}

/// Drain events until `pick` returns something; panics after `WAIT`.
fn job_update(event: &Event) -> Option<&JobRecord> {
    match event {
        Event::JobUpdated(record) => Some(record),
        _ => None,
    }
}

fn restored(engine: &mut EngineHandle) -> Vec<JobRecord> {
    wait_for(engine, "JobsRestored", WAIT, |event| match event {
        Event::JobsRestored(jobs) => Some(jobs.clone()),
        _ => None,
    })
}

/// (a) + (b): the generation id is in the journal before the UI hears of Running; a job
/// left running when the app stops is restored and completes under a new engine.
#[test]
fn running_job_survives_restart_and_completes() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Realistic speed: the image takes ~6 s, so the first engine stops mid-job.
    let sandbox = start_sandbox(&dir.path().join("sandbox"), 1.0);
    let repaints = Arc::new(AtomicUsize::new(0));
    let mut engine = start_engine(&sandbox, dir.path(), repaints.clone());
    assert!(restored(&mut engine).is_empty());

    submit(&engine, "a harbour in fog");
    let submitting: LocalJobId = wait_for(&mut engine, "Submitting", WAIT, |event| {
        job_update(event)
            .filter(|r| r.phase == JobPhase::Submitting)
            .map(|r| r.local_id)
    });
    let running = wait_for(&mut engine, "Running", WAIT, |event| {
        job_update(event)
            .filter(|r| r.local_id == submitting && matches!(r.phase, JobPhase::Running { .. }))
            .cloned()
    });
    let generation_id = running
        .generation_id
        .clone()
        .expect("running job has an id");
    assert_eq!(
        running.poll_interval_secs, 3.0,
        "the service's hint is used"
    );

    // (b) The journal already holds the id when the UI hears of Running.
    let journal = Journal::open(&journal_path(dir.path())).expect("journal");
    let row = journal.get(submitting).expect("read").expect("row");
    assert_eq!(
        row.record.generation_id.as_deref(),
        Some(generation_id.as_str())
    );
    assert!(matches!(row.record.phase, JobPhase::Running { .. }));
    assert!(
        row.credits_before.is_some(),
        "balance snapshot kept for reconciliation"
    );
    drop(journal);
    assert!(repaints.load(Ordering::Relaxed) > 0, "repaint hook called");

    // Stop mid-job and start again on the same journal.
    engine.shutdown();
    let mut engine = start_engine(&sandbox, dir.path(), Arc::new(AtomicUsize::new(0)));
    let jobs = restored(&mut engine);
    let job = jobs
        .iter()
        .find(|j| j.local_id == submitting)
        .expect("restored job");
    assert_eq!(job.generation_id.as_deref(), Some(generation_id.as_str()));
    assert!(
        matches!(job.phase, JobPhase::Running { .. } | JobPhase::Completed),
        "{:?}",
        job.phase
    );

    let done = if job.phase == JobPhase::Completed {
        job.clone()
    } else {
        wait_for(&mut engine, "Completed", WAIT, |event| {
            job_update(event)
                .filter(|r| r.local_id == submitting && r.phase.is_finished())
                .cloned()
        })
    };
    assert_eq!(done.phase, JobPhase::Completed);
    assert_eq!(done.progress_percent, 100.0);
    assert_eq!(done.credits_used, Some(2.0));
    assert!(done.result.as_ref().is_some_and(|r| !r.urls.is_empty()));
    assert_eq!(sandbox.generation_count(), 1, "resumed, never re-sent");

    // Dismiss removes the row.
    engine
        .send(Command::Dismiss {
            local_id: submitting,
        })
        .expect("queue dismiss");
    wait_for(&mut engine, "JobRemoved", WAIT, |event| match event {
        Event::JobRemoved(id) if *id == submitting => Some(()),
        _ => None,
    });
    engine.shutdown();
    let journal = Journal::open(&journal_path(dir.path())).expect("journal");
    assert!(journal.get(submitting).expect("read").is_none());
}

/// (c) A lost submit answer: Unconfirmed, reconciled from the balance, never re-sent — not
/// after several poll intervals, not after a restart.
#[test]
fn lost_submit_answer_is_reconciled_not_resent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = start_sandbox(&dir.path().join("sandbox"), 20.0);
    sandbox.drop_next_submit_responses(1);
    let mut engine = start_engine(&sandbox, dir.path(), Arc::new(AtomicUsize::new(0)));
    restored(&mut engine);

    submit(&engine, "an answer that never arrives");
    let unconfirmed = wait_for(&mut engine, "Unconfirmed", WAIT, |event| {
        job_update(event)
            .filter(|r| matches!(r.phase, JobPhase::Unconfirmed { .. }))
            .cloned()
    });
    assert_eq!(unconfirmed.generation_id, None);
    let local_id = unconfirmed.local_id;

    // The job exists on the service (the answer was lost, not the request). Reconciling
    // on its own finds it through the media library once it has output, recovers its id
    // and follows it to the end — without sending the generation again.
    let finished = wait_for(
        &mut engine,
        "the recovered job to complete",
        WAIT,
        |event| {
            job_update(event)
                .filter(|r| r.local_id == local_id && r.phase == JobPhase::Completed)
                .cloned()
        },
    );
    assert!(finished.generation_id.is_some(), "the id was recovered");
    assert!(finished.result.is_some_and(|r| !r.urls.is_empty()));
    assert_eq!(sandbox.generation_count(), 1, "never re-sent");

    // Several poll intervals and a restart later there is still exactly one job.
    std::thread::sleep(Duration::from_secs(4));
    engine.shutdown();
    let mut engine = start_engine(&sandbox, dir.path(), Arc::new(AtomicUsize::new(0)));
    let jobs = restored(&mut engine);
    let job = jobs
        .iter()
        .find(|j| j.local_id == local_id)
        .expect("restored");
    assert_eq!(job.phase, JobPhase::Completed);
    assert_eq!(job.generation_id, finished.generation_id);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(sandbox.generation_count(), 1, "never re-sent");
}

/// (d) An insufficient-credits refusal is Rejected with the service's code: no job exists.
#[test]
fn insufficient_credits_is_rejected() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = start_sandbox(&dir.path().join("sandbox"), 20.0);
    sandbox.set_credits(0.0);
    let mut engine = start_engine(&sandbox, dir.path(), Arc::new(AtomicUsize::new(0)));
    restored(&mut engine);
    submit(&engine, "a cat with no credits");
    let rejected = wait_for(&mut engine, "Rejected", WAIT, |event| {
        job_update(event)
            .filter(|r| matches!(r.phase, JobPhase::Rejected { .. }))
            .cloned()
    });
    let JobPhase::Rejected { error } = &rejected.phase else {
        unreachable!()
    };
    assert_eq!(error.status(), Some(403));
    assert_eq!(error.code(), Some("INSUFFICIENT_CREDITS"));
    assert!(rejected.phase.is_finished());
    assert_eq!(rejected.generation_id, None);
    assert_eq!(sandbox.generation_count(), 0);
    // The start-up fetches answered too.
    engine.send(Command::RefreshCredits).expect("queue");
    let credits = wait_for(&mut engine, "Credits", WAIT, |event| match event {
        Event::Credits(result) => Some(result.clone()),
        _ => None,
    });
    assert_eq!(credits.expect("credits").total, Some(0.0));
}

/// Catalog and projects arrive at start; LoadImage and CreateProject answer.
#[test]
fn startup_fetches_and_one_shot_commands() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = start_sandbox(&dir.path().join("sandbox"), 20.0);
    let mut engine = start_engine(&sandbox, dir.path(), Arc::new(AtomicUsize::new(0)));
    let mut catalog = None;
    let mut projects = None;
    wait_for(&mut engine, "catalog and projects", WAIT, |event| {
        match event {
            Event::Catalog(result) => catalog = Some(result.clone()),
            Event::Projects(result) => projects = Some(result.clone()),
            _ => {}
        }
        (catalog.is_some() && projects.is_some()).then_some(())
    });
    let catalog = catalog.expect("catalog").expect("catalog ok");
    assert!(catalog.iter().any(|m| m.has_type("text_to_img")));
    assert!(
        catalog.iter().any(|m| m.has_type("text_to_video")),
        "unfiltered"
    );
    assert!(
        projects
            .expect("projects")
            .expect("projects ok")
            .iter()
            .any(|p| p.is_default == Some(true))
    );

    engine
        .send(Command::CreateProject {
            name: "Moodboards".into(),
        })
        .expect("queue");
    let project = wait_for(&mut engine, "ProjectCreated", WAIT, |event| match event {
        Event::ProjectCreated(result) => Some(result.clone()),
        _ => None,
    });
    assert_eq!(project.expect("created").name, "Moodboards");

    // Upload a source, then load it back as a downscaled image.
    let source = dir.path().join("source.png");
    image::RgbaImage::from_pixel(300, 150, image::Rgba([1, 2, 3, 255]))
        .save(&source)
        .expect("png");
    engine
        .send(Command::UploadSource {
            path: source.clone(),
        })
        .expect("queue");
    let url = wait_for(&mut engine, "SourceUploaded", WAIT, |event| match event {
        Event::SourceUploaded { result, .. } => Some(result.clone()),
        _ => None,
    })
    .expect("uploaded");
    engine
        .send(Command::LoadImage {
            url: url.clone(),
            max_side_px: 100,
        })
        .expect("queue");
    engine
        .send(Command::LoadImage {
            url: url.clone(),
            max_side_px: 100,
        })
        .expect("queue duplicate");
    let image = wait_for(&mut engine, "ImageLoaded", WAIT, |event| match event {
        Event::ImageLoaded { url: loaded, image } if *loaded == url => Some(image.clone()),
        Event::ImageFailed { error, .. } => panic!("image failed: {error}"),
        _ => None,
    });
    assert_eq!((image.width, image.height), (100, 50));
    assert_eq!((image.source_width, image.source_height), (300, 150));

    // Save to a file.
    let dest = dir.path().join("copy.png");
    engine
        .send(Command::SaveUrlToFile {
            url,
            path: dest.clone(),
        })
        .expect("queue");
    let saved = wait_for(&mut engine, "FileSaved", WAIT, |event| match event {
        Event::FileSaved { result, .. } => Some(result.clone()),
        _ => None,
    });
    saved.expect("saved");
    assert_eq!(
        std::fs::read(&dest).expect("copy").len(),
        std::fs::metadata(&dest).expect("meta").len() as usize
    );
    assert!(image::open(&dest).is_ok());
}
