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
    /// Timeouts and the connection cap of the HTTP server, so slow or idle clients cannot
    /// exhaust the process the studio shares with it (docs/SANDBOX.md, "Connections").
    pub connection_limits: ConnectionLimits,
    /// Level of the one line logged per request. `Info` (the default) for the standalone
    /// `framewright sandbox`, whose stderr is its log; the studio's embedded sandbox uses
    /// `Debug` so its requests do not fill the studio's log file.
    pub request_log_level: RequestLogLevel,
}

/// See [`SandboxConfig::request_log_level`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RequestLogLevel {
    #[default]
    Info,
    Debug,
}

/// How long the sandbox's HTTP server waits on a client, and how many it serves at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// A request's line and headers must arrive within this; it is also how long a
    /// connection may sit idle before its first or its next request. Then it is closed.
    pub header_read_timeout_secs: u64,
    /// A request body that sends nothing for this long fails and its connection closes. A
    /// gap, not a total: a slow upload that keeps trickling is never cut off.
    pub body_idle_timeout_secs: u64,
    /// Open connections served at once; a connection accepted beyond it is closed at once.
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            // Far above any real client's gap (clients send a request's headers in one
            // write). As the keep-alive idle timeout it frees an unused pooled connection
            // after 15 s; clients notice the close and open a new one.
            header_read_timeout_secs: 15,
            // Longer than the header timeout: a client may pause between parts of a big
            // upload (reading the next file chunk from a slow disk).
            body_idle_timeout_secs: 30,
            // Far above what the studio opens (a handful of pooled connections plus
            // transfers); at ~80 KB each while idle this bounds them to tens of MB.
            max_connections: 256,
        }
    }
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
            connection_limits: ConnectionLimits::default(),
            request_log_level: RequestLogLevel::default(),
        }
    }
}
