//! The client-side submit queue against a real sandbox over loopback HTTP: a burst is
//! paced by the image-generation limit instead of collecting 429s, a queued job can be
//! cancelled without being sent, queued jobs survive a restart and are sent once, and a
//! 429 sends the job back to the queue and then once more.
//!
//! Each test has its own sandbox: they assert the sandbox's total generation count, and
//! they run in parallel. The sandbox and the engine share a 10 s rate window instead of the
//! contract's 60 s (`rate_window_secs` on both sides), so waiting one out takes seconds.

use framewright::engine::{
    Command, EngineConfig, EngineHandle, Event, JobPhase, JobRecord, LocalJobId, QueueReason,
    TransferTuning, start_with,
};
use framewright::sandbox::{self, SandboxConfig, SandboxHandle};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::service_support;
use service_support::submit_image as submit;

const SERVICE_ID: &str = "sandbox-queue-test";
/// The contract's image-generation limit per window.
const IMAGE_LIMIT: usize = 30;
/// The rate window of the sandbox and the engine in these tests.
const RATE_WINDOW_SECS: u64 = 10;
/// Upper bound for a wait that spans one rate window plus the jobs' run time; only there
/// to stop a broken build from hanging.
const WINDOW_WAIT: Duration = Duration::from_secs(120);
/// Upper bound for waits that need no rate window.
const SHORT_WAIT: Duration = Duration::from_secs(60);

fn start_sandbox(data_dir: &Path) -> SandboxHandle {
    let mut config = SandboxConfig::new(data_dir.to_path_buf());
    config.speed = 20.0;
    config.rate_window_secs = RATE_WINDOW_SECS;
    sandbox::start(config).expect("sandbox starts")
}

fn start_engine(base_url: &str, api_key: &str, dir: &Path) -> EngineHandle {
    start_engine_paced(base_url, api_key, dir, RATE_WINDOW_SECS as f64)
}

/// An engine that assumes `window_secs` until the service's headers say otherwise.
fn start_engine_paced(base_url: &str, api_key: &str, dir: &Path, window_secs: f64) -> EngineHandle {
    start_with(
        EngineConfig {
            base_url: base_url.to_owned(),
            api_key: api_key.to_owned(),
            journal_path: dir.join("journal.sqlite3"),
            service_id: SERVICE_ID.to_owned(),
            cache_dir: dir.join("cache"),
            repaint: Arc::new(|| {}),
        },
        TransferTuning {
            rate_window_secs: window_secs,
            ..TransferTuning::default()
        },
    )
    .expect("engine starts")
}

/// Every job update the engine sent, per job, in order.
#[derive(Default)]
struct Seen {
    phases: BTreeMap<LocalJobId, Vec<JobRecord>>,
    /// When each job was first seen Submitting (Unix ms, as received).
    first_sent_unix_ms: BTreeMap<LocalJobId, i64>,
}

fn now_unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl Seen {
    fn take(&mut self, event: &Event) {
        match event {
            Event::JobUpdated(record) => {
                if record.phase == JobPhase::Submitting {
                    self.first_sent_unix_ms
                        .entry(record.local_id)
                        .or_insert_with(now_unix_ms);
                }
                self.phases
                    .entry(record.local_id)
                    .or_default()
                    .push(record.clone());
            }
            Event::JobsRestored(records) => {
                for record in records {
                    self.phases
                        .entry(record.local_id)
                        .or_default()
                        .push(record.clone());
                }
            }
            _ => {}
        }
    }

    fn last(&self, local_id: LocalJobId) -> Option<&JobRecord> {
        self.phases.get(&local_id).and_then(|v| v.last())
    }

    fn ids(&self) -> BTreeSet<LocalJobId> {
        self.phases.keys().copied().collect()
    }

    fn finished(&self) -> usize {
        self.phases
            .values()
            .filter(|v| v.last().is_some_and(|r| r.phase.is_finished()))
            .count()
    }

    /// How many times the job went from queued to being sent.
    fn sends(&self, local_id: LocalJobId) -> usize {
        self.phases.get(&local_id).map_or(0, |v| {
            v.iter().filter(|r| r.phase == JobPhase::Submitting).count()
        })
    }
}

/// Drain events into `seen` until `done` holds; panics with `what` after `limit`.
fn drain_until(
    engine: &mut EngineHandle,
    seen: &mut Seen,
    limit: Duration,
    what: &str,
    mut done: impl FnMut(&Seen, &Event) -> bool,
) {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Some(event) = engine.recv_timeout(Duration::from_millis(200)) {
            seen.take(&event);
            if done(seen, &event) {
                return;
            }
        }
    }
    panic!("timed out waiting for {what}");
}

fn is_queued_with_eta(record: &JobRecord) -> bool {
    matches!(
        record.phase,
        JobPhase::Queued {
            place,
            sends_at_unix_ms: Some(_),
            reason: QueueReason::RateLimit,
        } if place >= 1
    )
}

/// The send time a queued job was last told before it went.
fn last_announced_sends_at(records: &[JobRecord]) -> Option<i64> {
    records
        .iter()
        .take_while(|r| r.phase != JobPhase::Submitting)
        .filter_map(|r| match r.phase {
            JobPhase::Queued {
                sends_at_unix_ms, ..
            } => sends_at_unix_ms,
            _ => None,
        })
        .last()
}

/// The engine assumes the contract's 60-s window; the sandbox's is 10 s and says so in its
/// `RateLimit-Reset`: the jobs beyond the limit go (and are announced to go) when that
/// reset arrives, not a minute after the first sends, and never early (no 429).
#[test]
fn a_burst_beyond_the_limit_waits_for_the_announced_reset_and_each_job_is_sent_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = start_sandbox(&dir.path().join("sandbox"));
    let contract_window_secs = 60.0;
    let mut engine = start_engine_paced(
        sandbox.base_url(),
        sandbox.api_key(),
        dir.path(),
        contract_window_secs,
    );
    let burst = IMAGE_LIMIT + 5;
    for n in 0..burst {
        submit(&engine, &format!("burst {n}"));
    }
    let mut seen = Seen::default();
    drain_until(
        &mut engine,
        &mut seen,
        WINDOW_WAIT,
        "every job of the burst to finish",
        |seen, _| seen.ids().len() == burst && seen.finished() == burst,
    );
    for local_id in seen.ids() {
        let last = seen.last(local_id).expect("seen");
        assert_eq!(last.phase, JobPhase::Completed, "job {local_id}: {last:?}");
        assert_eq!(seen.sends(local_id), 1, "job {local_id} sent once");
    }
    // Local ids follow the queue's order: the jobs beyond the limit waited with a place
    // and a send time.
    for local_id in seen.ids().into_iter().skip(IMAGE_LIMIT) {
        let records = &seen.phases[&local_id];
        assert!(
            records.iter().any(is_queued_with_eta),
            "job {local_id} was never shown queued with a send time: {:?}",
            records.iter().map(|r| &r.phase).collect::<Vec<_>>()
        );
    }
    assert_eq!(sandbox.generation_count(), burst as u64);
    assert_eq!(
        sandbox.rate_limited_count(),
        0,
        "nothing was sent before the announced reset"
    );
    // The engine's own pacing would hold the second window's jobs for a minute after the
    // first sends; the service announced its window ends 10 s after them.
    let first_sent_ms = *seen.first_sent_unix_ms.values().min().expect("sends");
    let own_window_ends_ms = first_sent_ms + (contract_window_secs * 1000.0) as i64;
    for local_id in seen.ids().into_iter().skip(IMAGE_LIMIT) {
        let sent_ms = seen.first_sent_unix_ms[&local_id];
        assert!(
            sent_ms < own_window_ends_ms,
            "job {local_id} went {} ms after the first send, not at the announced reset",
            sent_ms - first_sent_ms
        );
        let announced_ms = last_announced_sends_at(&seen.phases[&local_id]).expect("a send time");
        assert!(
            announced_ms < own_window_ends_ms,
            "job {local_id} was last told it goes {} ms after the first send",
            announced_ms - first_sent_ms
        );
    }
}

#[test]
fn a_cancelled_queued_job_is_never_sent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = start_sandbox(&dir.path().join("sandbox"));
    let mut engine = start_engine(sandbox.base_url(), sandbox.api_key(), dir.path());
    for n in 0..=IMAGE_LIMIT {
        submit(&engine, &format!("fill {n}"));
    }
    let mut seen = Seen::default();
    let mut waiting = None;
    drain_until(
        &mut engine,
        &mut seen,
        SHORT_WAIT,
        "the job over the limit to wait in the queue",
        |_, event| match event {
            Event::JobUpdated(record) if is_queued_with_eta(record) => {
                waiting = Some(record.local_id);
                true
            }
            _ => false,
        },
    );
    let waiting = waiting.expect("a queued job");
    engine
        .send(Command::Cancel { local_id: waiting })
        .expect("cancel");
    drain_until(
        &mut engine,
        &mut seen,
        SHORT_WAIT,
        "the cancel, and the other jobs to finish",
        |seen, _| seen.ids().len() == IMAGE_LIMIT + 1 && seen.finished() == IMAGE_LIMIT + 1,
    );
    let cancelled = seen.last(waiting).expect("seen");
    assert_eq!(cancelled.phase, JobPhase::Cancelled);
    assert_eq!(cancelled.generation_id, None);
    assert_eq!(seen.sends(waiting), 0, "the cancelled job was never sent");
    assert_eq!(sandbox.generation_count(), IMAGE_LIMIT as u64);
}

#[test]
fn queued_jobs_survive_a_restart_and_are_sent_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = start_sandbox(&dir.path().join("sandbox"));
    // First run: nothing listens at this address, so the jobs wait for the service.
    let unused_port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
        listener.local_addr().expect("address").port()
    };
    let dead_url = format!("http://127.0.0.1:{unused_port}/api");
    let mut first = start_engine(&dead_url, sandbox.api_key(), dir.path());
    let mut seen = Seen::default();
    drain_until(
        &mut first,
        &mut seen,
        SHORT_WAIT,
        "the engine to find the service unreachable",
        |_, event| matches!(event, Event::ServiceUnreachable { .. }),
    );
    let prompts = ["kept 1", "kept 2", "kept 3"];
    for prompt in prompts {
        submit(&first, prompt);
    }
    drain_until(
        &mut first,
        &mut seen,
        SHORT_WAIT,
        "the jobs to wait for the service",
        |seen, _| {
            seen.ids().len() == prompts.len()
                && seen.ids().into_iter().all(|id| {
                    matches!(
                        seen.last(id).map(|r| &r.phase),
                        Some(JobPhase::Queued {
                            reason: QueueReason::ServiceUnreachable,
                            ..
                        })
                    )
                })
        },
    );
    let first_ids = seen.ids();
    first.shutdown();

    // Second run, same journal, the service is there: each queued job is sent once.
    let mut second = start_engine(sandbox.base_url(), sandbox.api_key(), dir.path());
    let mut after = Seen::default();
    drain_until(
        &mut second,
        &mut after,
        SHORT_WAIT,
        "the restored jobs to finish",
        |seen, _| seen.ids().len() == prompts.len() && seen.finished() == prompts.len(),
    );
    assert_eq!(after.ids(), first_ids, "the same jobs, by local id");
    for local_id in after.ids() {
        let last = after.last(local_id).expect("seen");
        assert_eq!(last.phase, JobPhase::Completed, "job {local_id}: {last:?}");
        assert_eq!(after.sends(local_id), 1, "job {local_id} sent once");
    }
    assert_eq!(sandbox.generation_count(), prompts.len() as u64);
}

/// The one slow test: it waits out the sandbox's rate window.
#[test]
fn a_429_puts_the_job_back_in_the_queue_and_it_is_sent_again_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = start_sandbox(&dir.path().join("sandbox"));
    // Another app of the same user spends the whole image bucket with its own key.
    let other_key = sandbox.create_api_key(false);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let client = reqwest::Client::new();
        let url = format!("{}/v1/generate/image", sandbox.base_url());
        for n in 0..IMAGE_LIMIT {
            let response = client
                .post(&url)
                .header("X-API-Key", &other_key)
                .json(&serde_json::json!({ "prompt": format!("other app {n}") }))
                .send()
                .await
                .expect("raw submit");
            assert!(response.status().is_success(), "{}", response.status());
        }
    });
    assert_eq!(sandbox.generation_count(), IMAGE_LIMIT as u64);

    let mut engine = start_engine(sandbox.base_url(), sandbox.api_key(), dir.path());
    submit(&engine, "after the other app");
    let mut seen = Seen::default();
    drain_until(
        &mut engine,
        &mut seen,
        WINDOW_WAIT,
        "the refused job to be sent again and finish",
        |seen, _| seen.ids().len() == 1 && seen.finished() == 1,
    );
    let local_id = *seen.ids().first().expect("one job");
    let records = &seen.phases[&local_id];
    let last = records.last().expect("seen");
    assert_eq!(last.phase, JobPhase::Completed, "{last:?}");
    assert!(
        !records
            .iter()
            .any(|r| matches!(r.phase, JobPhase::Rejected { .. })),
        "a 429 never reaches the person as a refusal"
    );
    // Sent, refused with 429, queued again with a send time, sent again.
    let back_in_queue = records
        .iter()
        .skip_while(|r| r.phase != JobPhase::Submitting)
        .any(is_queued_with_eta);
    assert!(
        back_in_queue,
        "{:?}",
        records.iter().map(|r| &r.phase).collect::<Vec<_>>()
    );
    assert_eq!(seen.sends(local_id), 2);
    // The refused attempt created nothing; the second created one job.
    assert_eq!(sandbox.generation_count(), IMAGE_LIMIT as u64 + 1);
}

#[test]
fn a_job_submitted_while_the_service_is_down_waits_and_is_sent_when_it_is_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox_dir = dir.path().join("sandbox");
    let sandbox = start_sandbox(&sandbox_dir);
    let (base_url, api_key, port) = (
        sandbox.base_url().to_owned(),
        sandbox.api_key().to_owned(),
        sandbox.port(),
    );
    let mut engine = start_engine(&base_url, &api_key, dir.path());
    let mut seen = Seen::default();
    drain_until(
        &mut engine,
        &mut seen,
        SHORT_WAIT,
        "the start-up reads",
        |_, event| matches!(event, Event::Credits(Ok(_))),
    );
    drop(sandbox);

    submit(&engine, "sent once the service is back");
    drain_until(
        &mut engine,
        &mut seen,
        SHORT_WAIT,
        "the job to wait for the service",
        |seen, _| {
            seen.ids().into_iter().any(|id| {
                matches!(
                    seen.last(id).map(|r| &r.phase),
                    Some(JobPhase::Queued {
                        reason: QueueReason::ServiceUnreachable,
                        ..
                    })
                )
            })
        },
    );

    let mut config = SandboxConfig::new(sandbox_dir);
    config.speed = 20.0;
    config.rate_window_secs = RATE_WINDOW_SECS;
    config.port = port;
    config.port_fallback = false;
    let sandbox = sandbox::start(config).expect("sandbox starts again on its port");
    drain_until(
        &mut engine,
        &mut seen,
        SHORT_WAIT,
        "the job to be sent and finish",
        |seen, _| seen.ids().len() == 1 && seen.finished() == 1,
    );
    let local_id = *seen.ids().first().expect("one job");
    let last = seen.last(local_id).expect("seen");
    assert_eq!(last.phase, JobPhase::Completed, "{last:?}");
    assert!(
        !seen.phases[&local_id]
            .iter()
            .any(|r| matches!(r.phase, JobPhase::Rejected { .. })),
        "an unreachable service keeps the job in line"
    );
    assert_eq!(sandbox.generation_count(), 1);
}
