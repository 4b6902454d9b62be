//! Burst drain: 60 image jobs submitted at once to a real engine talking to a fast
//! sandbox over loopback, timed until every job has reached its end, against the
//! theoretical minimum the image-generation limit allows (30 submits per window: the
//! last 30 can go only once the first window has ended, so the minimum is one window).
//!
//! Each run has its own sandbox and engine, so every run starts with a fresh window.
//!
//!   cargo bench --bench burst_drain                          # contract window (60 s)
//!   BURST_WINDOW_SECS=10 BURST_RUNS=3 cargo bench --bench burst_drain   # quick
//!   BURST_TRACE=1 ...                                        # every job's timeline
//!
//! Besides the drain it prints where the time went: when the first and the second
//! window's sends went, the 429s the sandbox answered, re-sends, and how long after the
//! last send the last end was noticed.

use framewright::engine::{
    EngineConfig, EngineHandle, Event, JobPhase, LocalJobId, TransferTuning, start_with,
};
use framewright::sandbox::{self, SandboxConfig};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "../tests/service_support/mod.rs"]
mod service_support;
use service_support::submit_image;

/// Jobs in the burst.
const JOBS: usize = 60;
/// The contract's image-generation limit per window.
const IMAGE_LIMIT: usize = 30;
/// The contract's rate window.
const CONTRACT_WINDOW_SECS: u64 = 60;
/// Sandbox jobs run this many times faster than real ones: the drain is the pacing's.
const SANDBOX_SPEED: f64 = 40.0;
/// Only there so a broken build cannot hang the bench: this many windows, or
/// `GIVE_UP_AFTER_SECS` if longer (a debug build renders the sandbox's images slowly).
const GIVE_UP_AFTER_WINDOWS: u64 = 6;
const GIVE_UP_AFTER_SECS: u64 = 600;
/// How often the bench asks the sandbox whether it has finished every job.
const SERVICE_CHECK_MS: u64 = 250;

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn prompt_of(index: usize) -> String {
    format!("burst job {index:02}: a lighthouse at dusk")
}

/// What one job did, in seconds since the burst was submitted.
#[derive(Default, Clone)]
struct Timeline {
    sends_secs: Vec<f64>,
    accepted_secs: Option<f64>,
    ended_secs: Option<f64>,
}

struct Run {
    drain_secs: f64,
    /// When the sandbox had finished every job (checked every `SERVICE_CHECK_MS`): the
    /// rest of the drain is the engine noticing (polls).
    service_done_secs: Option<f64>,
    rate_limited: u64,
    jobs: BTreeMap<LocalJobId, Timeline>,
}

fn start_engine(base_url: &str, api_key: &str, dir: &Path, window_secs: u64) -> EngineHandle {
    start_with(
        EngineConfig {
            base_url: base_url.to_owned(),
            api_key: api_key.to_owned(),
            journal_path: dir.join("journal.sqlite3"),
            service_id: "burst-drain".to_owned(),
            cache_dir: dir.join("cache"),
            repaint: Arc::new(|| {}),
        },
        TransferTuning {
            rate_window_secs: window_secs as f64,
            ..TransferTuning::default()
        },
    )
    .expect("engine starts")
}

fn one_run(window_secs: u64) -> Run {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = SandboxConfig::new(dir.path().join("sandbox"));
    config.speed = SANDBOX_SPEED;
    config.rate_window_secs = window_secs;
    let sandbox = sandbox::start(config).expect("sandbox starts");
    let mut engine = start_engine(
        sandbox.base_url(),
        sandbox.api_key(),
        dir.path(),
        window_secs,
    );
    // A studio that has started: its first balance read is in.
    let ready_by = Instant::now() + Duration::from_secs(30);
    while Instant::now() < ready_by {
        if let Some(Event::Credits(Ok(_))) = engine.recv_timeout(Duration::from_millis(100)) {
            break;
        }
    }

    let started = Instant::now();
    for index in 0..JOBS {
        submit_image(&engine, &prompt_of(index));
    }
    let mut jobs: BTreeMap<LocalJobId, Timeline> = BTreeMap::new();
    let mut service_done_secs = None;
    let mut service_checked = Instant::now();
    let give_up = started
        + Duration::from_secs((window_secs * GIVE_UP_AFTER_WINDOWS).max(GIVE_UP_AFTER_SECS));
    loop {
        let ended = jobs.values().filter(|t| t.ended_secs.is_some()).count();
        if jobs.len() == JOBS && ended == JOBS {
            break;
        }
        assert!(
            Instant::now() < give_up,
            "only {ended} of {JOBS} jobs ended in {:.0} s",
            started.elapsed().as_secs_f64()
        );
        if service_done_secs.is_none()
            && service_checked.elapsed() >= Duration::from_millis(SERVICE_CHECK_MS)
        {
            service_checked = Instant::now();
            let generations = sandbox.generations();
            if generations.len() == JOBS && generations.iter().all(|g| g.state != "processing") {
                service_done_secs = Some(started.elapsed().as_secs_f64());
            }
        }
        let Some(Event::JobUpdated(record)) = engine.recv_timeout(Duration::from_millis(50)) else {
            continue;
        };
        let at_secs = started.elapsed().as_secs_f64();
        let timeline = jobs.entry(record.local_id).or_default();
        match &record.phase {
            JobPhase::Submitting => timeline.sends_secs.push(at_secs),
            JobPhase::Running { .. } if timeline.accepted_secs.is_none() => {
                timeline.accepted_secs = Some(at_secs);
            }
            phase if phase.is_finished() && timeline.ended_secs.is_none() => {
                assert_eq!(
                    *phase,
                    JobPhase::Completed,
                    "job {} ended {phase:?}",
                    record.local_id
                );
                timeline.ended_secs = Some(at_secs);
            }
            _ => {}
        }
    }
    let drain_secs = started.elapsed().as_secs_f64();
    engine.shutdown();
    assert_eq!(
        sandbox.generation_count(),
        JOBS as u64,
        "each job created once"
    );
    Run {
        drain_secs,
        service_done_secs,
        rate_limited: sandbox.rate_limited_count(),
        jobs,
    }
}

fn min_median_max(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    (
        values[0],
        values[values.len() / 2],
        values[values.len() - 1],
    )
}

/// Where the time of one run went.
fn describe(run: &Run, window_secs: u64) {
    let mut first_sends: Vec<f64> = run
        .jobs
        .values()
        .filter_map(|t| t.sends_secs.first().copied())
        .collect();
    first_sends.sort_by(f64::total_cmp);
    let resends: usize = run
        .jobs
        .values()
        .map(|t| t.sends_secs.len().saturating_sub(1))
        .sum();
    let last_send = run
        .jobs
        .values()
        .filter_map(|t| t.sends_secs.last().copied())
        .fold(0.0, f64::max);
    let last_accepted = run
        .jobs
        .values()
        .filter_map(|t| t.accepted_secs)
        .fold(0.0, f64::max);
    let window_one = &first_sends[..IMAGE_LIMIT.min(first_sends.len())];
    let window_two = first_sends.get(IMAGE_LIMIT).copied().unwrap_or(f64::NAN);
    println!(
        "    first window's sends {:.2}-{:.2} s; second window's first send {:.2} s \
         (window {window_secs} s); last send {last_send:.2} s, last accepted \
         {last_accepted:.2} s, every job done on the sandbox by {:.2} s, last end seen \
         {:.2} s (+{:.2} s after the last send); 429s from the sandbox {}, re-sends {resends}",
        window_one.first().copied().unwrap_or(f64::NAN),
        window_one.last().copied().unwrap_or(f64::NAN),
        window_two,
        run.service_done_secs.unwrap_or(f64::NAN),
        run.drain_secs,
        run.drain_secs - last_send,
        run.rate_limited,
    );
    if std::env::var_os("BURST_TRACE").is_some() {
        for (local_id, t) in &run.jobs {
            println!(
                "      job {local_id:>2}: sent {:?} accepted {:.2?} ended {:.2?}",
                t.sends_secs, t.accepted_secs, t.ended_secs
            );
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is taken from the command line.
    let window_secs: u64 = env_number("BURST_WINDOW_SECS", CONTRACT_WINDOW_SECS).max(1);
    let runs: usize = env_number("BURST_RUNS", 3).max(1);
    let windows_needed = JOBS.div_ceil(IMAGE_LIMIT) - 1;
    let minimum_secs = (window_secs as usize * windows_needed) as f64;
    println!(
        "burst_drain: {JOBS} image jobs, {IMAGE_LIMIT} submits per {window_secs}-s window, \
         sandbox speed {SANDBOX_SPEED}; theoretical minimum {minimum_secs:.1} s"
    );
    let mut drains = Vec::with_capacity(runs);
    for run_index in 1..=runs {
        let run = one_run(window_secs);
        println!(
            "  run {run_index}: drained in {:.2} s = {:.3}x the minimum",
            run.drain_secs,
            run.drain_secs / minimum_secs
        );
        describe(&run, window_secs);
        drains.push(run.drain_secs);
    }
    let (min, median, max) = min_median_max(drains);
    println!(
        "burst_drain: drain min/median/max {min:.2}/{median:.2}/{max:.2} s; ratio to the \
         {minimum_secs:.0}-s minimum {:.3}/{:.3}/{:.3}x (target <= 1.1x)",
        min / minimum_secs,
        median / minimum_secs,
        max / minimum_secs
    );
}
