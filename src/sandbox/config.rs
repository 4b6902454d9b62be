use std::net::SocketAddr;
use std::path::PathBuf;

use super::faults::FaultRates;

/// How to start a sandbox. See `docs/SANDBOX.md` for what each knob does.
#[derive(Clone, Debug)]
pub struct SandboxConfig {
    /// TCP port on 127.0.0.1; 0 picks any free port.
    pub port: u16,
    /// Directory holding `sandbox.sqlite3` and the served `files/`.
    pub data_dir: PathBuf,
    /// Read/write key to accept; `None` creates one at first start and reuses it later.
    pub api_key: Option<String>,
    /// 1.0 = realistic job timing; 10.0 = jobs run ten times faster.
    pub speed: f64,
    /// Share of jobs (0.0..=1.0) that fail with an injected provider failure.
    pub failure_rate: f64,
    /// When `port` is taken, bind any free port instead of failing.
    pub port_fallback: bool,
    /// Transport faults on `/api` routes (500s, lost answers, slow bodies, ...).
    pub faults: FaultRates,
    /// The next this-many submit answers are lost after their job was created.
    pub drop_submit_answers: u32,
    /// Length of every rate-limit window in seconds. The contract's windows are 60 s (the
    /// default); a shorter one lets tests and demos see a limit reset without waiting a
    /// minute. Counts per window stay the contract's.
    pub rate_window_secs: u64,
    /// For tests of remote fetches only: exact `host:port`s on internal addresses (a local
    /// server under test) that callers' source URLs may name. Empty by default and never
    /// set by the studio; every other internal address stays refused (docs/SANDBOX.md,
    /// "Fetching callers' URLs").
    pub allow_private_fetch_hosts: Vec<SocketAddr>,
}

/// Longest `rate_window_secs` accepted (an hour): beyond it a limit never visibly resets.
pub const MAX_RATE_WINDOW_SECS: u64 = 3600;
/// The contract's rate-limit window.
pub const CONTRACT_RATE_WINDOW_SECS: u64 = 60;

impl SandboxConfig {
    pub fn new(data_dir: PathBuf) -> Self {
        Self {
            port: 0,
            data_dir,
            api_key: None,
            speed: 1.0,
            failure_rate: 0.0,
            port_fallback: true,
            faults: FaultRates::default(),
            drop_submit_answers: 0,
            rate_window_secs: CONTRACT_RATE_WINDOW_SECS,
            allow_private_fetch_hosts: Vec::new(),
        }
    }
}
