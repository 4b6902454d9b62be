//! Trims through the engine over real HTTP against the embedded sandbox: POST
//! /v1/video/trim answers a `jobId` ("trim_…"), GET /v1/video/trim/:jobId walks initializing →
//! analyzing → processing → uploading → completed with progress that restarts lower at
//! processing (the contract: not monotonic), and the file is a new MP4.

use crate::service_support;

use framewright::api::{GenerationKind, GenerationSpec, TrimRequest, VideoJobRequest};
use framewright::engine::{
    Command, EngineConfig, EngineHandle, Event, JobPhase, JobRecord, Journal, LocalJobId, start,
};
use framewright::video_codec::VideoDecoder;
use service_support::{LocalService, client, local_service, wait_for};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

const SERVICE_ID: &str = "sandbox-test";
const WAIT: Duration = Duration::from_secs(90);
/// The sandbox's trim takes 20 s of simulated time; at this speed about 8 s, so a 3-s poll
/// sees it running.
const SPEED: f64 = 2.5;
/// 160x90, 24 fps, 48 frames (2 s).
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/video/baseline_160x90_24fps_48f.mp4"
);
const START_SECS: f64 = 0.5;
const END_SECS: f64 = 1.5;

/// A sandbox with the fixture uploaded to its library; the fixture's URL.
fn service_with_source() -> (LocalService, String) {
    let service = local_service(SPEED);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let uploaded = runtime
        .block_on(client(&service).upload_file(Path::new(FIXTURE), None))
        .expect("fixture uploads");
    (service, uploaded.url)
}

/// The trimmed file's length in seconds, read with our own demuxer.
fn trimmed_secs(url: &str) -> f64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let bytes = runtime
        .block_on(async { reqwest::get(url).await?.bytes().await })
        .expect("the trimmed file downloads");
    let decoder = VideoDecoder::from_bytes(bytes.to_vec()).expect("an MP4 we can read");
    decoder.info().duration_secs
}

fn journal_path(dir: &Path) -> PathBuf {
    dir.join("journal.sqlite3")
}

fn start_engine(service: &LocalService, dir: &Path) -> EngineHandle {
    start(EngineConfig {
        base_url: service.sandbox.base_url().to_owned(),
        api_key: service.key.clone(),
        journal_path: journal_path(dir),
        service_id: SERVICE_ID.to_owned(),
        cache_dir: dir.join("cache"),
        repaint: Arc::new(|| {}),
    })
    .expect("engine starts")
}

fn trim_spec(source: &str) -> GenerationSpec {
    GenerationSpec::for_video(VideoJobRequest::Trim(TrimRequest {
        video_url: source.to_owned(),
        start_time: START_SECS,
        end_time: END_SECS,
        project_id: None,
    }))
}

fn submit_trim(engine: &EngineHandle, source: &str) {
    engine
        .send(Command::Submit {
            spec: trim_spec(source),
            model_label: String::new(),
            credits_estimate: Some(0.0),
        })
        .expect("queue submit");
}

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

/// The trim is followed on its own route to a new file of the cut's length; the progress
/// the UI is shown never goes backwards although the service's restarts lower; Cancel is
/// refused on this side and the trim completes.
#[test]
fn a_trim_is_followed_to_completion_with_monotonic_progress_and_no_cancel() {
    let (service, source) = service_with_source();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(&service, dir.path());
    restored(&mut engine);
    submit_trim(&engine, &source);

    let running = wait_for(&mut engine, "Running", WAIT, |event| {
        job_update(event)
            .filter(|r| matches!(r.phase, JobPhase::Running { .. }))
            .cloned()
    });
    assert_eq!(running.spec.kind, GenerationKind::VideoTrim);
    assert!(
        running
            .generation_id
            .as_deref()
            .is_some_and(|id| id.starts_with("trim_")),
        "{:?}",
        running.generation_id
    );
    assert_eq!(
        running.poll_interval_secs, 3.0,
        "trims are polled every 3 s"
    );
    assert!(!running.can_cancel(), "the UI must not offer Cancel");

    engine
        .send(Command::Cancel {
            local_id: running.local_id,
        })
        .expect("queue cancel");
    let mut shown = vec![running.progress_percent];
    let mut refused = false;
    let done = wait_for(&mut engine, "Completed", WAIT, |event| {
        let record = job_update(event).filter(|r| r.local_id == running.local_id)?;
        shown.push(record.progress_percent);
        refused |= record
            .poll_problem
            .as_deref()
            .is_some_and(|p| p.contains("cannot be cancelled"));
        record.phase.is_finished().then(|| record.clone())
    });
    assert!(refused, "the refusal is shown on the job");
    assert_eq!(
        done.phase,
        JobPhase::Completed,
        "not cancelled: {:?}",
        done.phase
    );
    assert!(
        shown.windows(2).all(|w| w[0] <= w[1]),
        "progress went backwards: {shown:?}"
    );
    let url = done
        .result
        .as_ref()
        .and_then(|r| r.urls.first().cloned())
        .expect("the trimmed file");
    assert_ne!(url, source, "a new file; the original stays");
    // The service answers no duration for a trim; the result carries the cut's length
    // (the tiles' and tray's duration badge).
    assert_eq!(
        done.result.as_ref().and_then(|r| r.duration),
        Some(END_SECS - START_SECS)
    );
    let secs = trimmed_secs(&url);
    assert!(
        (secs - (END_SECS - START_SECS)).abs() < 0.05,
        "the cut is {secs} s"
    );
    assert_eq!(service.sandbox.trim_job_count(), 1, "sent once");
    engine.shutdown();
}

/// A running trim is journalled with its jobId, resumed by a new engine on the trim route
/// and completed, and never sent twice.
#[test]
fn a_trim_survives_an_engine_restart_and_completes() {
    let (service, source) = service_with_source();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(&service, dir.path());
    restored(&mut engine);
    submit_trim(&engine, &source);
    let running: LocalJobId = wait_for(&mut engine, "Running", WAIT, |event| {
        job_update(event)
            .filter(|r| matches!(r.phase, JobPhase::Running { .. }))
            .map(|r| r.local_id)
    });
    engine.shutdown();

    let journal = Journal::open(&journal_path(dir.path())).expect("journal");
    let row = journal.get(running).expect("read").expect("row");
    assert!(
        row.record
            .generation_id
            .as_deref()
            .is_some_and(|id| id.starts_with("trim_"))
    );
    assert_eq!(
        row.record.spec,
        trim_spec(&source),
        "the whole trim request is kept"
    );
    drop(journal);

    let mut engine = start_engine(&service, dir.path());
    let jobs = restored(&mut engine);
    let job = jobs
        .iter()
        .find(|j| j.local_id == running)
        .expect("restored");
    assert!(
        matches!(job.phase, JobPhase::Running { .. }),
        "{:?}",
        job.phase
    );
    let done = wait_for(&mut engine, "Completed", WAIT, |event| {
        job_update(event)
            .filter(|r| r.local_id == running && r.phase.is_finished())
            .cloned()
    });
    assert_eq!(done.phase, JobPhase::Completed);
    assert_eq!(done.progress_percent, 100.0);
    assert_eq!(
        service.sandbox.trim_job_count(),
        1,
        "resumed, never re-sent"
    );
    engine.shutdown();
}

/// A trim whose answer is lost (the service made the job, the connection dropped) is never
/// re-sent: it stays unconfirmed with a note that says so, also after a restart (nothing to
/// reconcile: a trim has no prompt to find and charges nothing).
#[test]
fn an_unanswered_trim_is_not_sent_again() {
    let (service, source) = service_with_source();
    service.sandbox.drop_next_submit_responses(1);
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(&service, dir.path());
    restored(&mut engine);
    submit_trim(&engine, &source);
    let unconfirmed = wait_for(&mut engine, "Unconfirmed", WAIT, |event| {
        job_update(event)
            .filter(|r| matches!(r.phase, JobPhase::Unconfirmed { .. }))
            .cloned()
    });
    let JobPhase::Unconfirmed { note } = &unconfirmed.phase else {
        unreachable!()
    };
    assert!(note.contains("not sent again automatically"), "{note}");
    std::thread::sleep(Duration::from_secs(4));
    engine.shutdown();

    let mut engine = start_engine(&service, dir.path());
    let jobs = restored(&mut engine);
    let job = jobs
        .iter()
        .find(|j| j.local_id == unconfirmed.local_id)
        .expect("restored");
    assert!(
        matches!(job.phase, JobPhase::Unconfirmed { .. }),
        "{:?}",
        job.phase
    );
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(service.sandbox.trim_job_count(), 1, "never re-sent");
    engine.shutdown();
}
