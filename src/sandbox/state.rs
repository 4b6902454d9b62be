//! State shared by the HTTP handlers, the job workers and the handle's test controls.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Value, json};

use super::catalog::Catalog;
use super::clock::Clock;
use super::faults::Faults;
use super::ids::SplitMix;
use super::palette_cache::PaletteCache;
use super::rate_limit::RateLimiter;
use super::store::Store;

pub(crate) type AppState = Arc<Shared>;

pub(crate) struct Shared {
    pub store: Store,
    pub catalog: Catalog,
    pub limiter: RateLimiter,
    pub controls: Controls,
    /// Root of everything served under /files/.
    pub files_dir: PathBuf,
    /// `http://127.0.0.1:PORT`, built from the bound port.
    pub origin: String,
    /// Job timing divisor (1.0 = realistic).
    pub speed: f64,
    pub default_user_id: String,
    /// Internal `host:port`s that callers' URLs may still name (tests of remote fetches;
    /// `SandboxConfig::allow_private_fetch_hosts`, empty in the studio).
    pub allow_private_fetch_hosts: Vec<std::net::SocketAddr>,
    /// "Now" for trash retention and upload tickets; tests can move it forward.
    pub clock: Clock,
    /// Resolved project grades (60 s, contract document 2 "Caching").
    pub palette_cache: PaletteCache,
    /// Requests on the public file URLs (`SandboxHandle::file_requests`).
    pub file_requests: super::files::FileRequestLog,
    /// Transport fault settings, dice and counters (`/api` only).
    pub faults: Faults,
    /// Bearer token of the `/admin` control surface, new at each start.
    pub admin_token: String,
    /// POST /v1/edit/image's 30-second duplicate guard.
    pub image_tool_guard: super::image_tools::DuplicateGuard,
}

impl Shared {
    /// Public URL of a file under the files dir (plain, no query string).
    pub(crate) fn file_url(&self, rel_path: &str) -> String {
        format!("{}/files/{}", self.origin, rel_path)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // The guarded values are plain numbers; a poisoned lock still holds a valid value.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[derive(Debug, Default, Clone, Copy)]
struct FailNext {
    count: u32,
    retryable: bool,
}

/// Fault injection knobs (failure rate, forced failures, lost submit responses).
pub(crate) struct Controls {
    failure_rate: Mutex<f64>,
    fail_next: Mutex<FailNext>,
    drop_next_submits: AtomicU32,
    /// Chat submits to answer the older synchronous way (post_chat_stateless.json).
    synchronous_chats: AtomicU32,
    rng: Mutex<SplitMix>,
}

impl Controls {
    pub(crate) fn new(failure_rate: f64) -> Self {
        Self {
            failure_rate: Mutex::new(failure_rate.clamp(0.0, 1.0)),
            fail_next: Mutex::new(FailNext::default()),
            drop_next_submits: AtomicU32::new(0),
            synchronous_chats: AtomicU32::new(0),
            rng: Mutex::new(SplitMix::from_entropy()),
        }
    }

    pub(crate) fn set_failure_rate(&self, rate: f64) {
        let rate = if rate.is_finite() {
            rate.clamp(0.0, 1.0)
        } else {
            0.0
        };
        *lock(&self.failure_rate) = rate;
    }

    pub(crate) fn fail_next_jobs(&self, count: u32, retryable: bool) {
        *lock(&self.fail_next) = FailNext { count, retryable };
    }

    pub(crate) fn drop_next_submit_responses(&self, count: u32) {
        self.drop_next_submits.store(count, Ordering::SeqCst);
    }

    /// True when this submit's response must be lost (consumes one).
    pub(crate) fn take_dropped_response(&self) -> bool {
        self.drop_next_submits
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }

    pub(crate) fn answer_next_chats_synchronously(&self, count: u32) {
        self.synchronous_chats.store(count, Ordering::SeqCst);
    }

    /// True when this chat submit must answer with the content itself (consumes one).
    pub(crate) fn take_synchronous_chat(&self) -> bool {
        self.synchronous_chats
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }

    pub(crate) fn jitter(&self) -> f64 {
        lock(&self.rng).next_f64()
    }

    /// Decides at submit time whether a job will fail, so a restart cannot change the
    /// outcome. Returns the `failure` object the job will end with.
    pub(crate) fn plan_failure(&self, provider: &str) -> Option<Value> {
        {
            let mut next = lock(&self.fail_next);
            if next.count > 0 {
                next.count -= 1;
                let kind = if next.retryable { 0 } else { 1 };
                return Some(failure_object(kind, provider));
            }
        }
        let rate = *lock(&self.failure_rate);
        let mut rng = lock(&self.rng);
        if rate > 0.0 && rng.next_f64() < rate {
            let kind = (rng.next_u64() % 3) as usize;
            return Some(failure_object(kind, provider));
        }
        None
    }
}

/// Realistic failure envelopes; `retryable` is honest: only transient provider trouble is
/// marked retryable.
fn failure_object(kind: usize, provider: &str) -> Value {
    let (message, category, code, retryable, severity) = match kind {
        0 => (
            "The provider timed out while generating. Please try again.",
            "provider_timeout",
            "PROVIDER_TIMEOUT",
            true,
            "warning",
        ),
        2 => (
            "The provider is temporarily overloaded. Please try again in a moment.",
            "provider_unavailable",
            "PROVIDER_OVERLOADED",
            true,
            "warning",
        ),
        _ => (
            "The input or output was flagged as sensitive. Please try again with different inputs.",
            "content_policy",
            "CONTENT_FLAGGED_SENSITIVE",
            false,
            "error",
        ),
    };
    json!({
        "message": message,
        "category": category,
        "code": code,
        "retryable": retryable,
        "severity": severity,
        "provider": provider,
    })
}
