//! Trims through the engine over real HTTP, against a small stand-in that answers with the
//! contract's trim shapes (POST /v1/video/trim 202 `{success, jobId "trim_…", generationId,
//! status, message, pollingUrl}`; GET /v1/video/trim/:jobId with the trim job fields). The
//! stand-in's progress goes backwards (another execution path) and its file appears under
//! `videoUrl` only, as the contract allows. The sandbox's own trim route comes from a
//! parallel branch; `sandbox_video_jobs.rs` covers it once merged.

use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use framewright::api::{GenerationKind, GenerationSpec, TrimRequest, VideoJobRequest};
use framewright::engine::{
    Command, EngineConfig, EngineHandle, Event, JobPhase, JobRecord, Journal, LocalJobId, start,
};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const SERVICE_ID: &str = "trim-stand-in";
const WAIT: Duration = Duration::from_secs(60);
const TRIMMED_URL: &str = "https://cdn.example/trimmed.mp4";

/// What one GET answers on its n-th poll of a job (the last entry repeats).
fn script() -> Vec<Value> {
    vec![
        json!({"status": "initializing", "progress": 10}),
        json!({"status": "downloading", "progress": 45, "message": "Downloading"}),
        // Another execution path: the service's progress starts again lower.
        json!({"status": "processing", "progress": 20}),
        json!({"status": "uploading", "progress": 60}),
        // The file exists: status still says uploading, the URL only under videoUrl.
        json!({"status": "uploading", "progress": 95, "videoUrl": TRIMMED_URL}),
    ]
}

#[derive(Default)]
struct Counts {
    trim_posts: u32,
    trim_gets: u32,
    cancels: u32,
    /// The next POSTs are answered 502 (the job may or may not exist).
    fail_next_posts: u32,
    polls_by_job: HashMap<String, usize>,
}

struct StandIn {
    base_url: String,
    counts: Arc<Mutex<Counts>>,
    _runtime: tokio::runtime::Runtime,
}

fn counts(state: &Arc<Mutex<Counts>>) -> std::sync::MutexGuard<'_, Counts> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}

async fn post_trim(
    State(state): State<Arc<Mutex<Counts>>>,
    Json(body): Json<Value>,
) -> impl IntoResponse {
    assert!(body["start_time"].is_number() && body["end_time"].is_number());
    assert!(body.get("prompt").is_none() && body.get("model").is_none());
    let mut counts = counts(&state);
    counts.trim_posts += 1;
    if counts.fail_next_posts > 0 {
        counts.fail_next_posts -= 1;
        return (
            StatusCode::BAD_GATEWAY,
            Json(json!({"status": false, "message": "upstream timed out"})),
        );
    }
    let job_id = format!("trim_{}", counts.trim_posts);
    (
        StatusCode::ACCEPTED,
        Json(json!({
            "success": true, "jobId": job_id, "generationId": job_id, "status": "processing",
            "message": "Trim started", "pollingUrl": format!("/app/trim/{job_id}")
        })),
    )
}

async fn get_trim(
    State(state): State<Arc<Mutex<Counts>>>,
    UrlPath(job_id): UrlPath<String>,
) -> impl IntoResponse {
    let mut counts = counts(&state);
    counts.trim_gets += 1;
    if !job_id.starts_with("trim_") {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"success": false, "error": "Job not found"})),
        );
    }
    let poll = counts.polls_by_job.entry(job_id.clone()).or_insert(0);
    let script = script();
    let mut body = script[(*poll).min(script.len() - 1)].clone();
    *poll += 1;
    body["success"] = json!(true);
    body["jobId"] = json!(job_id);
    body["generationId"] = json!(job_id);
    body["error"] = Value::Null;
    body["updatedAt"] = json!(1_764_000_000_000_i64);
    (StatusCode::OK, Json(body))
}

async fn cancel(State(state): State<Arc<Mutex<Counts>>>) -> impl IntoResponse {
    counts(&state).cancels += 1;
    (StatusCode::OK, Json(json!({"success": true})))
}

fn stand_in() -> StandIn {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let counts = Arc::new(Mutex::new(Counts::default()));
    let app = Router::new()
        .route("/api/v1/video/trim", post(post_trim))
        .route("/api/v1/video/trim/{job_id}", get(get_trim))
        .route("/api/v1/generate/{id}/cancel", post(cancel))
        .with_state(counts.clone());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    runtime.spawn(async move {
        let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
        let _ = axum::serve(listener, app).await;
    });
    StandIn {
        base_url: format!("http://127.0.0.1:{port}/api"),
        counts,
        _runtime: runtime,
    }
}

fn journal_path(dir: &Path) -> PathBuf {
    dir.join("journal.sqlite3")
}

fn start_engine(service: &StandIn, dir: &Path) -> EngineHandle {
    start(EngineConfig {
        base_url: service.base_url.clone(),
        api_key: "test-key".to_owned(),
        journal_path: journal_path(dir),
        service_id: SERVICE_ID.to_owned(),
        cache_dir: dir.join("cache"),
        repaint: Arc::new(|| {}),
    })
    .expect("engine starts")
}

fn trim_spec() -> GenerationSpec {
    GenerationSpec::for_video(VideoJobRequest::Trim(TrimRequest {
        video_url: "https://cdn.example/source.mp4".into(),
        start_time: 1.0,
        end_time: 3.5,
        project_id: None,
    }))
}

fn submit_trim(engine: &EngineHandle) {
    engine
        .send(Command::Submit {
            spec: trim_spec(),
            model_label: String::new(),
            credits_estimate: Some(0.0),
        })
        .expect("queue submit");
}

fn wait_for<T>(
    engine: &mut EngineHandle,
    what: &str,
    mut pick: impl FnMut(&Event) -> Option<T>,
) -> T {
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        if let Some(event) = engine.recv_timeout(Duration::from_millis(200))
            && let Some(found) = pick(&event)
        {
            return found;
        }
    }
    panic!("timed out waiting for {what}");
}

fn job_update(event: &Event) -> Option<&JobRecord> {
    match event {
        Event::JobUpdated(record) => Some(record),
        _ => None,
    }
}

fn restored(engine: &mut EngineHandle) -> Vec<JobRecord> {
    wait_for(engine, "JobsRestored", |event| match event {
        Event::JobsRestored(jobs) => Some(jobs.clone()),
        _ => None,
    })
}

/// The trim is followed on its own route to completion (the URL read from `videoUrl`); the
/// progress the UI is shown never goes backwards although the service's does; Cancel is
/// refused on this side and nothing is sent.
#[test]
fn a_trim_is_followed_to_completion_with_monotonic_progress_and_no_cancel() {
    let service = stand_in();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(&service, dir.path());
    restored(&mut engine);
    submit_trim(&engine);

    let running = wait_for(&mut engine, "Running", |event| {
        job_update(event)
            .filter(|r| matches!(r.phase, JobPhase::Running { .. }))
            .cloned()
    });
    assert_eq!(running.spec.kind, GenerationKind::VideoTrim);
    assert_eq!(running.generation_id.as_deref(), Some("trim_1"));
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
    let done = wait_for(&mut engine, "Completed", |event| {
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
    assert_eq!(
        done.result.as_ref().map(|r| r.urls.clone()),
        Some(vec![TRIMMED_URL.to_owned()])
    );
    assert!(
        shown.windows(2).all(|w| w[0] <= w[1]),
        "progress went backwards: {shown:?}"
    );
    assert!(shown.contains(&45.0), "{shown:?}");
    assert!(!shown.contains(&20.0), "the dip is not shown: {shown:?}");
    let counts = counts(&service.counts);
    assert_eq!(counts.cancels, 0, "no cancel was sent");
    assert_eq!(counts.trim_posts, 1);
    assert_eq!(counts.trim_gets, 5);
    drop(counts);
    engine.shutdown();
}

/// A running trim is journalled with its jobId, resumed by a new engine on the trim route
/// and completed, and never sent twice.
#[test]
fn a_trim_survives_an_engine_restart_and_completes() {
    let service = stand_in();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(&service, dir.path());
    restored(&mut engine);
    submit_trim(&engine);
    let running: LocalJobId = wait_for(&mut engine, "Running", |event| {
        job_update(event)
            .filter(|r| matches!(r.phase, JobPhase::Running { .. }))
            .map(|r| r.local_id)
    });
    engine.shutdown();

    let journal = Journal::open(&journal_path(dir.path())).expect("journal");
    let row = journal.get(running).expect("read").expect("row");
    assert_eq!(row.record.generation_id.as_deref(), Some("trim_1"));
    assert_eq!(
        row.record.spec,
        trim_spec(),
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
    let done = wait_for(&mut engine, "Completed", |event| {
        job_update(event)
            .filter(|r| r.local_id == running && r.phase.is_finished())
            .cloned()
    });
    assert_eq!(done.phase, JobPhase::Completed);
    assert_eq!(done.progress_percent, 100.0);
    assert_eq!(
        counts(&service.counts).trim_posts,
        1,
        "resumed, never re-sent"
    );
    engine.shutdown();
}

/// A trim whose answer is lost (502) is never re-sent: it stays unconfirmed with a note
/// that says so, also after a restart (nothing to reconcile: a trim has no prompt to find
/// and charges nothing).
#[test]
fn an_unanswered_trim_is_not_sent_again() {
    let service = stand_in();
    counts(&service.counts).fail_next_posts = 1;
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(&service, dir.path());
    restored(&mut engine);
    submit_trim(&engine);
    let unconfirmed = wait_for(&mut engine, "Unconfirmed", |event| {
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
    assert_eq!(counts(&service.counts).trim_posts, 1, "never re-sent");
    assert_eq!(counts(&service.counts).trim_gets, 0, "nothing to follow");
    engine.shutdown();
}
