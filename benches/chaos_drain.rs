//! Chaos drain: the chaos test's scenario (tests/chaos_scenario: 60 image jobs against a
//! sandbox with faults on, the first engine killed with SIGKILL mid-run in a child process,
//! a second engine resuming on its journal), timed in a release build until every job has
//! settled, against the theoretical minimum the rate limit allows (one window plus one
//! job; the contract's 60-s window unless `CHAOS_WINDOW_SECS` says otherwise). Each run checks, as the test does, that nothing was lost or billed twice.
//!
//!   cargo bench --locked --bench chaos_drain                 # three runs
//!   CHAOS_RUNS=5 cargo bench --locked --bench chaos_drain
//!   CHAOS_WINDOW_SECS=10 ...   # the test's window (default: the contract's 60 s)
//!   CHAOS_TRACE=1 ...   # every 10 s: each job's balance reading and charge, ours and the service's
//!   CHAOS_LOG=1 ...     # the engine's and the sandbox's debug log on stderr
//!
//! The child is this bench binary run again with the connection details in its
//! environment.

#[path = "../tests/chaos_scenario/mod.rs"]
mod chaos_scenario;

fn main() {
    if chaos_scenario::child_engine_from_env() {
        return;
    }
    if std::env::var_os("CHAOS_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(std::io::stderr)
            .try_init();
    }
    let runs: usize = env_number("CHAOS_RUNS", 3);
    // The contract's window by default, as `burst_drain`; the test runs 10 s.
    let window_secs: u64 = env_number("CHAOS_WINDOW_SECS", 60);
    let minimum_secs = window_secs as f64;
    let mut drains_secs = Vec::new();
    for run in 1..=runs {
        let exe = std::env::current_exe().expect("bench binary");
        let drained = chaos_scenario::run(std::process::Command::new(exe), window_secs);
        let figures = chaos_scenario::check(&drained);
        let secs = drained.drained_after.as_secs_f64();
        println!("run {run}: {figures}");
        println!(
            "run {run}: drained in {secs:.2} s = {:.2}x the {minimum_secs:.0}-s minimum",
            secs / minimum_secs
        );
        drains_secs.push(secs);
    }
    drains_secs.sort_by(f64::total_cmp);
    let (min, median, max) = (
        drains_secs[0],
        drains_secs[drains_secs.len() / 2],
        drains_secs[drains_secs.len() - 1],
    );
    println!(
        "chaos drain over {runs} runs: min {min:.2} s / median {median:.2} s / max {max:.2} s \
         = {:.2}x / {:.2}x / {:.2}x the {minimum_secs:.0}-s minimum (target <= 1.3x)",
        min / minimum_secs,
        median / minimum_secs,
        max / minimum_secs
    );
}

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}
