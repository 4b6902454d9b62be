//! Reconciling lost submit answers against a real sandbox over loopback: ids recovered from
//! the media library (even with many newer items, even eight of one prompt), "nothing was
//! charged" said only after the finish window, and the verdict kept across a restart.
//!
//! One sandbox serves the whole file. Its fault switches (dropped answers, failing jobs)
//! are global, so the tests take turns through `TURN`.

use framewright::api::media::{MediaCategory, MediaQuery};
use framewright::api::{
    ApiClient, ClientConfig, GenerationKind, GenerationRequest, GenerationSpec, JobState,
    WorkflowType,
};
use framewright::engine::{
    Command, EngineConfig, EngineHandle, Event, JobPhase, JobRecord, Journal, LocalJobId,
    TransferTuning, start_with,
};
use framewright::sandbox::{self, SandboxConfig, SandboxHandle};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

const SERVICE_ID: &str = "reconcile-test";
/// Upper bound for any single wait; only there to stop a broken build from hanging.
const WAIT: Duration = Duration::from_secs(90);
/// The sandbox runs jobs this much faster than the real service.
const SANDBOX_SPEED: f64 = 20.0;
/// The catalog's estimates are real-service seconds: scale them like the sandbox does.
const DURATION_FACTOR: f64 = 2.0 / SANDBOX_SPEED;
/// The catalog's estimate for the model the tests use (assets/models.json).
const MODEL_ESTIMATE_SECS: f64 = 6.0;
const MODEL: &str = "fal-ai/flux/schnell";

struct Shared {
    sandbox: SandboxHandle,
    _dir: tempfile::TempDir,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = SandboxConfig::new(dir.path().join("sandbox"));
        config.speed = SANDBOX_SPEED;
        let sandbox = sandbox::start(config).expect("sandbox starts");
        Shared { sandbox, _dir: dir }
    })
}

/// One test at a time drives the sandbox's fault switches.
fn take_turn() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn tuning(margin_secs: f64) -> TransferTuning {
    TransferTuning {
        reconcile_margin_secs: margin_secs,
        reconcile_duration_factor: DURATION_FACTOR,
        ..TransferTuning::default()
    }
}

fn window_secs(margin_secs: f64) -> f64 {
    MODEL_ESTIMATE_SECS * DURATION_FACTOR + margin_secs
}

fn journal_path(dir: &Path) -> PathBuf {
    dir.join("journal.sqlite3")
}

fn start_engine(dir: &Path, margin_secs: f64) -> EngineHandle {
    let sandbox = &shared().sandbox;
    start_with(
        EngineConfig {
            base_url: sandbox.base_url().to_owned(),
            api_key: sandbox.api_key().to_owned(),
            journal_path: journal_path(dir),
            service_id: SERVICE_ID.to_owned(),
            cache_dir: dir.join("cache"),
            repaint: Arc::new(|| {}),
        },
        tuning(margin_secs),
    )
    .expect("engine starts")
}

fn submit(engine: &EngineHandle, prompt: &str) {
    engine
        .send(Command::Submit {
            spec: GenerationSpec {
                catalog: None,
                kind: GenerationKind::Image,
                request: GenerationRequest {
                    prompt: prompt.to_owned(),
                    model: Some(MODEL.to_owned()),
                    ..GenerationRequest::default()
                },
                video: None,
                audio: None,
            },
            model_label: "Flux Schnell".to_owned(),
            credits_estimate: Some(1.0),
        })
        .expect("queue submit");
}

/// Drain events until `pick` returns something; panics after `WAIT`.
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

fn note_of(record: &JobRecord) -> Option<&str> {
    match &record.phase {
        JobPhase::Unconfirmed { note } => Some(note),
        _ => None,
    }
}

fn says_submit_again(note: &str) -> bool {
    note.to_lowercase().contains("submit again") && !note.contains("before submitting again")
}

/// Wait for `prompt`'s job to become Unconfirmed (its answer was dropped).
fn wait_unconfirmed(engine: &mut EngineHandle, prompt: &str) -> JobRecord {
    wait_for(engine, "an unconfirmed job", |event| {
        job_update(event)
            .filter(|r| r.spec.request.prompt == prompt && note_of(r).is_some())
            .cloned()
    })
}

/// (a) Eight lost answers of one prompt (what Vary ×8 sends): each is recovered to its own
/// generation id and followed to the end; nothing is sent twice.
#[test]
fn eight_lost_answers_of_one_prompt_are_each_recovered() {
    let _turn = take_turn();
    let sandbox = &shared().sandbox;
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(dir.path(), 10.0);
    restored(&mut engine);
    let generations_before = sandbox.generation_count();

    sandbox.drop_next_submit_responses(8);
    let prompt = "eight foxes, one prompt";
    for _ in 0..8 {
        submit(&engine, prompt);
    }
    let mut unconfirmed = BTreeSet::new();
    let mut completed: BTreeMap<LocalJobId, String> = BTreeMap::new();
    wait_for(&mut engine, "eight recovered jobs to complete", |event| {
        let record = job_update(event)?;
        if record.spec.request.prompt != prompt {
            return None;
        }
        if note_of(record).is_some() {
            unconfirmed.insert(record.local_id);
        }
        if record.phase == JobPhase::Completed {
            assert!(
                record.result.as_ref().is_some_and(|r| !r.urls.is_empty()),
                "a recovered job shows its result"
            );
            let id = record.generation_id.clone().expect("recovered id");
            completed.insert(record.local_id, id);
        }
        (completed.len() == 8).then_some(())
    });
    assert_eq!(unconfirmed.len(), 8, "every answer was lost");
    let distinct: BTreeSet<&String> = completed.values().collect();
    assert_eq!(distinct.len(), 8, "each job got its own generation id");
    assert_eq!(
        sandbox.generation_count() - generations_before,
        8,
        "nothing was sent twice"
    );
    engine.shutdown();
}

/// A lost Creative Director answer is recovered as its batch (the scenes' library items
/// name it), so the storyboard follows every scene, and nothing is sent twice.
#[test]
fn a_lost_creative_director_answer_is_recovered_as_its_whole_batch() {
    let _turn = take_turn();
    let sandbox = &shared().sandbox;
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(dir.path(), 10.0);
    restored(&mut engine);
    let generations_before = sandbox.generation_count();

    sandbox.drop_next_submit_responses(1);
    let prompt = "a lantern festival in three scenes";
    engine
        .send(Command::Submit {
            spec: GenerationSpec {
                catalog: None,
                kind: GenerationKind::CreativeDirector,
                request: GenerationRequest {
                    prompt: prompt.to_owned(),
                    model: Some(MODEL.to_owned()),
                    scene_count: Some(3),
                    workflow_type: Some(WorkflowType::Image),
                    ..GenerationRequest::default()
                },
                video: None,
                audio: None,
            },
            model_label: "Flux Schnell".to_owned(),
            credits_estimate: Some(6.0),
        })
        .expect("queue submit");
    wait_unconfirmed(&mut engine, prompt);
    let done = wait_for(&mut engine, "the recovered batch to complete", |event| {
        job_update(event)
            .filter(|r| r.spec.request.prompt == prompt && r.phase.is_finished())
            .cloned()
    });
    assert_eq!(done.phase, JobPhase::Completed, "{done:?}");
    assert_eq!(done.scenes.len(), 3, "every scene, not one: {done:?}");
    assert_eq!(done.result.as_ref().map(|r| r.urls.len()), Some(3));
    assert_eq!(done.credits_used, Some(6.0));
    assert_eq!(
        sandbox.generation_count() - generations_before,
        3,
        "one batch of three scenes: nothing was sent twice"
    );
    engine.shutdown();
}

/// (b) A lost answer of a job that then fails leaves no item and no charge: the studio
/// says "nothing was charged — you can submit again", but only once the finish window has
/// passed; before that it says it is still looking.
#[test]
fn a_lost_answer_of_a_failed_job_is_nothing_charged_only_after_the_window() {
    let _turn = take_turn();
    let sandbox = &shared().sandbox;
    let dir = tempfile::tempdir().expect("temp dir");
    let margin_secs = 3.0;
    let mut engine = start_engine(dir.path(), margin_secs);
    restored(&mut engine);
    let generations_before = sandbox.generation_count();

    sandbox.fail_next_jobs(1, false);
    sandbox.drop_next_submit_responses(1);
    let prompt = "a fox that never renders";
    let sent = Instant::now();
    submit(&engine, prompt);
    let mut notes = Vec::new();
    let verdict = wait_for(&mut engine, "the nothing-charged verdict", |event| {
        let note = job_update(event)
            .filter(|r| r.spec.request.prompt == prompt)
            .and_then(note_of)?
            .to_owned();
        if note.starts_with("Nothing was charged") {
            return Some(note);
        }
        notes.push(note);
        None
    });
    assert!(
        sent.elapsed().as_secs_f64() >= window_secs(margin_secs),
        "the verdict waited for the whole window"
    );
    assert!(!notes.is_empty());
    for note in &notes {
        assert!(
            note.starts_with("We're still looking for this job's result — don't resubmit yet"),
            "before the window: {note}"
        );
        assert!(!says_submit_again(note), "too early: {note}");
    }
    assert!(verdict.contains("You can submit again"));
    assert!(!verdict.contains("never received"));
    assert_eq!(sandbox.generation_count() - generations_before, 1);
    engine.shutdown();
}

/// (c) The engine stops mid-reconcile: the next engine on the same journal shows the same
/// verdict until it has new evidence, continues the same window, and ends right.
#[test]
fn a_restart_mid_reconcile_keeps_the_verdict_and_the_window() {
    let _turn = take_turn();
    let sandbox = &shared().sandbox;
    let dir = tempfile::tempdir().expect("temp dir");
    let margin_secs = 8.0;
    let mut engine = start_engine(dir.path(), margin_secs);
    restored(&mut engine);
    let generations_before = sandbox.generation_count();

    sandbox.fail_next_jobs(1, false);
    sandbox.drop_next_submit_responses(1);
    let prompt = "a fox interrupted";
    let sent = Instant::now();
    submit(&engine, prompt);
    let looking = wait_for(&mut engine, "a first library check", |event| {
        job_update(event)
            .filter(|r| r.spec.request.prompt == prompt)
            .filter(|r| note_of(r).is_some_and(|n| n.contains("Searched your media library")))
            .cloned()
    });
    engine.shutdown();
    let local_id = looking.local_id;

    let row = Journal::open(&journal_path(dir.path()))
        .expect("journal")
        .get(local_id)
        .expect("read")
        .expect("row");
    let before_restart = note_of(&row.record).expect("unconfirmed").to_owned();
    assert!(before_restart.starts_with("We're still looking"));
    assert!(
        row.reconcile_json
            .as_deref()
            .is_some_and(|json| json.contains("looking")),
        "the reconcile state is in the journal"
    );

    let mut engine = start_engine(dir.path(), margin_secs);
    let jobs = restored(&mut engine);
    let job = jobs
        .iter()
        .find(|j| j.local_id == local_id)
        .expect("restored");
    assert_eq!(note_of(job), Some(before_restart.as_str()), "same verdict");

    let verdict = wait_for(&mut engine, "the verdict after the window", |event| {
        let note = job_update(event)
            .filter(|r| r.local_id == local_id)
            .and_then(note_of)?;
        if note.starts_with("Nothing was charged") {
            return Some(note.to_owned());
        }
        assert!(note.starts_with("We're still looking"), "no flip: {note}");
        None
    });
    assert!(verdict.contains("You can submit again"));
    assert!(sent.elapsed().as_secs_f64() >= window_secs(margin_secs));
    assert_eq!(sandbox.generation_count() - generations_before, 1);
    engine.shutdown();
}

/// (d) The lost job's item sits below more than ten newer AI items by the time it is
/// searched for: the search pages back to the send time and still finds it. The engine is
/// stopped right after the answer is lost and the newer jobs are made (and finished) by a
/// second client before the engine comes back, so the order does not depend on timing.
#[test]
fn the_search_finds_an_item_below_more_than_ten_newer_ones() {
    let _turn = take_turn();
    let sandbox = &shared().sandbox;
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(dir.path(), 40.0);
    restored(&mut engine);

    sandbox.drop_next_submit_responses(1);
    let needle = "a needle in the library";
    submit(&engine, needle);
    let lost = wait_unconfirmed(&mut engine, needle);
    engine.shutdown();

    let client = ApiClient::new(ClientConfig {
        base_url: sandbox.base_url().to_owned(),
        api_key: sandbox.api_key().to_owned(),
        request_timeout_secs: 20,
    })
    .expect("client");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    // The needle's job finishes on the service first, so every bale lands above it.
    let deadline = Instant::now() + WAIT;
    while !sandbox
        .generations()
        .iter()
        .any(|g| g.prompt == needle && g.state == "completed")
    {
        assert!(
            Instant::now() < deadline,
            "the needle's job never completed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let hay_ids: Vec<String> = (0..12)
        .map(|n| runtime.block_on(submit_direct(&client, &format!("hay bale {n}"))))
        .collect();
    for id in &hay_ids {
        runtime.block_on(wait_completed(&client, id));
    }

    let mut engine = start_engine(dir.path(), 40.0);
    let jobs = restored(&mut engine);
    assert!(
        jobs.iter()
            .any(|j| j.local_id == lost.local_id && note_of(j).is_some()),
        "the lost job is still being looked for after the restart"
    );
    let recovered = wait_for(&mut engine, "the needle to complete", |event| {
        let record = job_update(event)?;
        (record.local_id == lost.local_id && record.phase == JobPhase::Completed)
            .then(|| record.clone())
    });
    let generation_id = recovered.generation_id.expect("recovered id");
    assert!(
        !hay_ids.contains(&generation_id),
        "the needle was not mistaken for a newer job"
    );

    // The library really had more than ten newer AI items above the needle's.
    let query = MediaQuery {
        category: MediaCategory::Ai,
        ..MediaQuery::default()
    };
    let page = runtime
        .block_on(client.list_media(&query, 1, 50))
        .expect("library page");
    let position = page
        .items
        .iter()
        .position(|item| item.prompt_text() == Some(needle))
        .expect("the needle's item is on the first page of 50");
    assert!(position > 10, "more than ten newer items (at {position})");
    assert_eq!(
        page.items[position].generation_id(),
        Some(generation_id.as_str())
    );
    engine.shutdown();
}

/// Submit one image job straight to the service (not through the engine), waiting out a
/// 429 the way the contract says (nothing was created).
async fn submit_direct(client: &ApiClient, prompt: &str) -> String {
    let spec = GenerationSpec {
        catalog: None,
        kind: GenerationKind::Image,
        request: GenerationRequest {
            prompt: prompt.to_owned(),
            model: Some(MODEL.to_owned()),
            ..GenerationRequest::default()
        },
        video: None,
        audio: None,
    };
    let deadline = Instant::now() + WAIT;
    loop {
        match client.submit(&spec).await {
            Ok(answer) => return answer.generation_id.expect("a generation id"),
            Err(e) if e.status() == Some(429) && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Err(e) => panic!("submit {prompt}: {e}"),
        }
    }
}

async fn wait_completed(client: &ApiClient, generation_id: &str) {
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        let status = client.status(generation_id).await.expect("status");
        if status.state == JobState::Completed {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{generation_id} did not complete");
}
