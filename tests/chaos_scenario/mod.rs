//! The chaos scenario shared by `tests/chaos.rs` (correctness, in the suite) and
//! `benches/chaos_drain.rs` (the drain time in a release build): a burst of 60 jobs against
//! a sandbox with faults on (5xx answers, connections dropped before and after handling,
//! slow and malformed bodies, 429 storms, latency, failing jobs), the engine killed with
//! SIGKILL mid-run in a child process, and a second engine resuming on the same journal.
//! What the service really did (`generations()`) is then compared with the journal.

#![allow(dead_code)]

use framewright::api::{GenerationKind, GenerationRequest, GenerationSpec};
use framewright::engine::{
    Command, EngineConfig, EngineHandle, Event, JobPhase, JobRecord, Journal, JournalRow,
    LocalJobId, TransferTuning, start_with,
};
use framewright::sandbox::{self, FaultRates, SandboxConfig, SandboxHandle};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tempfile::TempDir;

pub const SERVICE_ID: &str = "chaos";
/// Jobs in the burst.
pub const JOBS: usize = 60;
/// Jobs the service has created when the child is killed: some sent, many not yet.
pub const KILL_AFTER_CREATED: usize = 12;
/// Jobs run this many times faster than real ones (and the catalog's estimates shrink
/// with it, so the reconcile window does too).
pub const SANDBOX_SPEED: f64 = 40.0;
/// The sandbox's and the engine's rate windows (the contract's are 60 s): 30 image
/// submits per 10 s, so the burst drains in seconds instead of a minute.
pub const RATE_WINDOW_SECS: u64 = 10;
/// The rate window handed to the child engine (the bench may run the contract's 60 s).
const ENV_WINDOW_SECS: &str = "FRAMEWRIGHT_CHAOS_WINDOW_SECS";
/// Only there to stop a broken build from hanging CI.
pub const DRAIN_DEADLINE: Duration = Duration::from_secs(240);

pub const ENV_BASE_URL: &str = "FRAMEWRIGHT_CHAOS_BASE_URL";
pub const ENV_API_KEY: &str = "FRAMEWRIGHT_CHAOS_API_KEY";
pub const ENV_DIR: &str = "FRAMEWRIGHT_CHAOS_DIR";

/// What a run left for the checks and figures. Field order matters: the sandbox stops
/// before its folder is removed.
pub struct Drained {
    pub sandbox: SandboxHandle,
    pub rate_window_secs: u64,
    pub dir: TempDir,
    pub jobs: BTreeMap<LocalJobId, JobRecord>,
    pub history: Vec<JobRecord>,
    pub created_at_kill: usize,
    pub killed_after: Duration,
    pub second_started_after: Duration,
    pub drained_after: Duration,
}

fn prompt_of(index: usize) -> String {
    format!("chaos burst job {index:02}: a lighthouse at dusk")
}

fn spec(index: usize) -> GenerationSpec {
    GenerationSpec {
        catalog: None,
        kind: GenerationKind::Image,
        request: GenerationRequest {
            prompt: prompt_of(index),
            model: Some("fal-ai/flux/schnell".to_owned()),
            ..GenerationRequest::default()
        },
        video: None,
        audio: None,
    }
}

fn tuning(rate_window_secs: u64) -> TransferTuning {
    TransferTuning {
        reconcile_margin_secs: 3.0,
        // The catalog's estimates are real-service seconds; the sandbox runs jobs
        // SANDBOX_SPEED times faster, so the window a job can finish in shrinks with it.
        reconcile_duration_factor: 2.0 / SANDBOX_SPEED,
        rate_window_secs: rate_window_secs as f64,
        ..TransferTuning::default()
    }
}

fn engine_config(base_url: &str, api_key: &str, dir: &Path) -> EngineConfig {
    EngineConfig {
        base_url: base_url.to_owned(),
        api_key: api_key.to_owned(),
        journal_path: journal_path(dir),
        service_id: SERVICE_ID.to_owned(),
        cache_dir: dir.join("cache"),
        repaint: Arc::new(|| {}),
    }
}

fn journal_path(dir: &Path) -> PathBuf {
    dir.join("journal.sqlite3")
}

/// In the child process: the engine of the first studio submits the burst, then runs
/// until it is killed. `false` (at once) when this process is not the child.
pub fn child_engine_from_env() -> bool {
    let (Ok(base_url), Ok(api_key), Ok(dir)) = (
        std::env::var(ENV_BASE_URL),
        std::env::var(ENV_API_KEY),
        std::env::var(ENV_DIR),
    ) else {
        return false;
    };
    let mut engine = start_with(
        engine_config(&base_url, &api_key, Path::new(&dir)),
        tuning(
            std::env::var(ENV_WINDOW_SECS)
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(RATE_WINDOW_SECS),
        ),
    )
    .expect("engine starts");
    for index in 0..JOBS {
        engine
            .send(Command::Submit {
                spec: spec(index),
                model_label: "Flux Schnell".to_owned(),
                credits_estimate: Some(2.0),
            })
            .expect("queue submit");
    }
    // Keep draining events like the UI does, until the parent kills this process.
    let give_up = Instant::now() + DRAIN_DEADLINE;
    while Instant::now() < give_up {
        engine.recv_timeout(Duration::from_millis(200));
    }
    true
}

/// The reconcile verdict journalled for an unanswered submit (`kind` of `verdict` in
/// `reconcile_json`), e.g. "looking", "nothing_charged", "recovered".
fn verdict_of(row: &JournalRow) -> Option<String> {
    let state: serde_json::Value = serde_json::from_str(row.reconcile_json.as_deref()?).ok()?;
    state
        .get("verdict")?
        .get("kind")?
        .as_str()
        .map(str::to_owned)
}

/// A job needs nothing more from anyone: finished, or an unanswered submit whose verdict
/// is final.
fn settled(record: &JobRecord, rows: &BTreeMap<LocalJobId, JournalRow>) -> bool {
    match &record.phase {
        JobPhase::Unconfirmed { .. } => rows
            .get(&record.local_id)
            .and_then(verdict_of)
            .is_some_and(|v| ["nothing_charged", "recovered", "found_item"].contains(&v.as_str())),
        phase => phase.is_finished(),
    }
}

fn journal_rows(dir: &Path) -> BTreeMap<LocalJobId, JournalRow> {
    Journal::open(&journal_path(dir))
        .and_then(|j| j.load_all(SERVICE_ID))
        .map(|rows| rows.into_iter().map(|r| (r.record.local_id, r)).collect())
        .unwrap_or_default()
}

/// One line for a job still in progress: its phase and, for a lost answer, the
/// journalled reconcile state.
fn describe(record: &JobRecord, rows: &BTreeMap<LocalJobId, JournalRow>) -> String {
    let reconcile = rows
        .get(&record.local_id)
        .and_then(|row| row.reconcile_json.clone())
        .unwrap_or_default();
    format!("#{} {:?} {reconcile}", record.local_id, record.phase)
}

fn drain_until_settled(
    engine: &mut EngineHandle,
    dir: &Path,
    sandbox: &framewright::sandbox::SandboxHandle,
) -> (BTreeMap<LocalJobId, JobRecord>, Vec<JobRecord>) {
    let mut jobs: BTreeMap<LocalJobId, JobRecord> = BTreeMap::new();
    let mut history: Vec<JobRecord> = Vec::new();
    let deadline = Instant::now() + DRAIN_DEADLINE;
    let mut restored = false;
    let mut rows = BTreeMap::new();
    let mut rows_read_at = Instant::now();
    let mut reported_at = Instant::now();
    while Instant::now() < deadline {
        match engine.recv_timeout(Duration::from_millis(200)) {
            Some(Event::JobsRestored(records)) => {
                restored = true;
                for record in records {
                    history.push(record.clone());
                    jobs.insert(record.local_id, record);
                }
            }
            Some(Event::JobUpdated(record)) => {
                history.push(record.clone());
                jobs.insert(record.local_id, record);
            }
            _ => {}
        }
        if rows_read_at.elapsed() > Duration::from_secs(1) {
            rows = journal_rows(dir);
            rows_read_at = Instant::now();
        }
        if restored && jobs.len() == JOBS && jobs.values().all(|r| settled(r, &rows)) {
            return (jobs, history);
        }
        if reported_at.elapsed() > Duration::from_secs(10) {
            reported_at = Instant::now();
            let generations = sandbox.generations();
            let waiting: Vec<String> = jobs
                .values()
                .filter(|r| !settled(r, &rows))
                .map(|r| {
                    // What the service says of it, to tell a slow job from a slow look.
                    let service = generations
                        .iter()
                        .find(|g| g.prompt == r.spec.request.prompt)
                        .map_or("not created".to_owned(), |g| g.state.clone());
                    format!("{} — service: {service}", describe(r, &rows))
                })
                .collect();
            if std::env::var_os("CHAOS_TRACE").is_some() {
                trace_balance(&jobs, &rows, &generations);
            }
            eprintln!(
                "chaos: {} not settled yet at {:.1} s: {waiting:#?}",
                waiting.len(),
                (DRAIN_DEADLINE - deadline.saturating_duration_since(Instant::now())).as_secs_f64()
            );
        }
    }
    let unsettled: Vec<String> = jobs
        .values()
        .filter(|r| !settled(r, &rows))
        .map(|r| describe(r, &rows))
        .collect();
    // The balance readings the journal holds, to tell why a verdict stayed open.
    let readings: Vec<String> = rows
        .values()
        .filter_map(|r| {
            let b = r.credits_before?;
            Some(format!(
                "#{} read {:?} date {:?} sent {:?} total {:?}",
                r.record.local_id,
                b.read_at_unix_ms,
                b.service_time_unix_ms,
                r.sent_at_unix_ms,
                b.total
            ))
        })
        .collect();
    eprintln!("readings: {readings:#?}");
    // What the service did, to tell a slow verdict from a wrong one.
    let service: Vec<String> = sandbox
        .generations()
        .iter()
        .map(|g| {
            let ours = jobs
                .values()
                .find(|r| r.spec.request.prompt == g.prompt)
                .map(|r| {
                    format!(
                        "#{} {:?} id {:?} credits_used {:?}",
                        r.local_id, r.phase, r.generation_id, r.credits_used
                    )
                });
            format!(
                "{} {} {} used {:?} — ours: {}",
                g.id,
                g.prompt,
                g.state,
                g.credits_used,
                ours.unwrap_or_else(|| "unknown".into())
            )
        })
        .collect();
    panic!(
        "jobs not settled after {DRAIN_DEADLINE:?} ({} known): {unsettled:#?}\nthe service: {service:#?}",
        jobs.len()
    );
}

/// With `CHAOS_TRACE` set: every balance reading in the journal, our finished jobs with
/// their charge, and the service's jobs with theirs, to tell where a charge that reconcile
/// calls unexplained comes from.
fn trace_balance(
    jobs: &BTreeMap<LocalJobId, JobRecord>,
    rows: &BTreeMap<LocalJobId, JournalRow>,
    generations: &[framewright::sandbox::GenerationSummary],
) {
    for row in rows.values() {
        let record = jobs.get(&row.record.local_id).unwrap_or(&row.record);
        let service = generations
            .iter()
            .find(|g| g.prompt == record.spec.request.prompt);
        eprintln!(
            "trace #{}: sent {:?} reading {:?} | ours {} used {:?} result created {:?} | service {:?}",
            record.local_id,
            row.sent_at_unix_ms,
            row.credits_before
                .map(|b| (b.read_at_unix_ms, b.service_time_unix_ms, b.total)),
            record.phase.label(),
            record.credits_used,
            record.result.as_ref().and_then(|r| r.created_at.clone()),
            service.map(|g| (g.state.clone(), g.credits_used, g.created_at_unix_ms)),
        );
    }
}

/// Runs the scenario: `child` is this program run again so that it calls
/// [`child_engine_from_env`] (the connection details are added to its environment).
pub fn run(mut child: std::process::Command, rate_window_secs: u64) -> Drained {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = SandboxConfig::new(dir.path().join("sandbox"));
    config.speed = SANDBOX_SPEED;
    config.rate_window_secs = rate_window_secs;
    config.failure_rate = 0.1;
    config.faults = FaultRates {
        server_error: 0.04,
        drop_before_handling: 0.04,
        drop_after_handling: 0.06,
        slow_body: 0.02,
        slow_body_secs: 1.0,
        malformed_json: 0.03,
        rate_limit_storm: 0.03,
        storm_retry_after_secs: 3,
        added_latency_ms: 10,
        seed: Some(9),
    };
    let sandbox = sandbox::start(config).expect("sandbox starts");
    let started = Instant::now();

    // 1. The first studio submits the burst and is killed mid-run.
    let mut child = child
        .env(ENV_WINDOW_SECS, rate_window_secs.to_string())
        .env(ENV_BASE_URL, sandbox.base_url())
        .env(ENV_API_KEY, sandbox.api_key())
        .env(ENV_DIR, dir.path())
        .stdout(Stdio::null())
        .spawn()
        .expect("child engine starts");
    let kill_deadline = Instant::now() + Duration::from_secs(60);
    while sandbox.generations().len() < KILL_AFTER_CREATED {
        assert!(
            Instant::now() < kill_deadline,
            "the child created only {} jobs in a minute",
            sandbox.generations().len()
        );
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the child engine ended on its own: {status}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL the child"); // std sends SIGKILL on Unix
    let _ = child.wait();
    let created_at_kill = sandbox.generations().len();
    let killed_after = started.elapsed();

    // 2. A second studio resumes on the same journal and drains everything.
    let mut engine = start_with(
        engine_config(sandbox.base_url(), sandbox.api_key(), dir.path()),
        tuning(rate_window_secs),
    )
    .expect("second engine starts");
    let second_started_after = started.elapsed();
    let (jobs, history) = drain_until_settled(&mut engine, dir.path(), &sandbox);
    let drained_after = started.elapsed();
    drop(engine);
    Drained {
        sandbox,
        rate_window_secs,
        dir,
        jobs,
        history,
        created_at_kill,
        killed_after,
        second_started_after,
        drained_after,
    }
}

/// Compares what the service did with the journal (panics on any difference) and
/// returns the run's figures as one line.
pub fn check(drained: &Drained) -> String {
    let Drained {
        sandbox,
        rate_window_secs,
        dir,
        jobs,
        history,
        created_at_kill,
        killed_after,
        second_started_after,
        drained_after,
    } = drained;
    // 3. What the service really did, by prompt.
    let generations = sandbox.generations();
    let mut created: BTreeMap<String, Vec<&framewright::sandbox::GenerationSummary>> =
        BTreeMap::new();
    for generation in &generations {
        created
            .entry(generation.prompt.clone())
            .or_default()
            .push(generation);
    }
    for (prompt, list) in &created {
        assert_eq!(
            list.len(),
            1,
            "'{prompt}' was created {} times: billed more than once",
            list.len()
        );
    }

    // The journal is intact: every job of the burst, each row readable.
    let journal = Journal::open(&journal_path(dir.path())).expect("journal opens");
    let rows = journal.load_all(SERVICE_ID).expect("journal reads");
    assert_eq!(rows.len(), JOBS, "journal rows");
    let prompts: BTreeSet<String> = rows
        .iter()
        .map(|r| r.record.spec.request.prompt.clone())
        .collect();
    assert_eq!(prompts.len(), JOBS, "one row per job of the burst");

    // Every job the service created is known with its id and ends terminal, in the state
    // the service has.
    for row in &rows {
        let record = jobs.get(&row.record.local_id).unwrap_or(&row.record);
        let prompt = &record.spec.request.prompt;
        match created.get(prompt).and_then(|list| list.first()) {
            Some(generation) => {
                let completed = generation.state == "completed";
                let recovered_id = record.generation_id.as_deref() == Some(generation.id.as_str());
                if completed {
                    assert!(
                        recovered_id,
                        "'{prompt}': the service completed {} but the journal has {:?} ({:?})",
                        generation.id, record.generation_id, record.phase
                    );
                    assert_eq!(record.phase, JobPhase::Completed, "'{prompt}'");
                } else if recovered_id {
                    assert!(record.phase.is_finished(), "'{prompt}': {:?}", record.phase);
                } else {
                    // Created and failed before its id was recovered: nothing was charged,
                    // and the verdict must say exactly that.
                    assert_eq!(generation.state, "failed", "'{prompt}'");
                    assert!(
                        matches!(record.phase, JobPhase::Unconfirmed { .. })
                            && verdict_of(row).as_deref() == Some("nothing_charged"),
                        "'{prompt}': failed on the service, ended {:?} / {:?}",
                        record.phase,
                        verdict_of(row)
                    );
                }
            }
            None => {
                // Never created: either refused (not 429), cancelled before sending, or an
                // unanswered submit whose verdict says nothing was charged.
                match &record.phase {
                    JobPhase::Unconfirmed { .. } => assert_eq!(
                        verdict_of(row).as_deref(),
                        Some("nothing_charged"),
                        "'{prompt}': never created"
                    ),
                    JobPhase::Rejected { error } => assert_ne!(
                        error.status(),
                        Some(429),
                        "'{prompt}': a 429 reached the person as a failure"
                    ),
                    other => panic!("'{prompt}': never created but ended {other:?}"),
                }
            }
        }
    }
    for record in history.iter() {
        if let JobPhase::Rejected { error } = &record.phase {
            assert_ne!(error.status(), Some(429), "a 429 reached the person");
        }
    }

    // Figures for docs/RELIABILITY.md.
    let lost_answers: BTreeSet<LocalJobId> = history
        .iter()
        .filter(|r| matches!(r.phase, JobPhase::Unconfirmed { .. }))
        .map(|r| r.local_id)
        .chain(
            rows.iter()
                .filter(|r| r.reconcile_json.is_some())
                .map(|r| r.record.local_id),
        )
        .collect();
    let recovered = lost_answers
        .iter()
        .filter(|id| jobs.get(id).is_some_and(|r| r.generation_id.is_some()))
        .count();
    let counts = sandbox.fault_counts();
    format!(
        "chaos: {JOBS} jobs; {} created by the service ({created_at_kill} when the first \
         engine was killed); faults injected {counts:?}; {} lost answers, {recovered} ids \
         recovered, every verdict matched the service; drained in {:.1} s (theoretical \
         minimum at 30 image submits per {rate_window_secs} s window: one window plus one job); \
         the first engine was killed at {:.1} s, the second had started at {:.1} s",
        generations.len(),
        lost_answers.len(),
        drained_after.as_secs_f64(),
        killed_after.as_secs_f64(),
        second_started_after.as_secs_f64()
    )
}
