//! Client-side pacing. The service limits each user per group of routes (contract,
//! Limits); the engine keeps one gate per group it calls, shared by every task that calls
//! routes of that group, so a burst queues here rather than collecting 429s. A sliding log of send times is the
//! strictest form of "N per rolling window": the (N+1)th send waits until the oldest of
//! the last N is a full window (plus a small margin for clock and transit skew) old.

use crate::api::ApiError;
use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;
use tokio::time::Instant;

/// Upload POSTs allowed per window by default (the contract's 10/min).
pub const DEFAULT_UPLOADS_PER_WINDOW: u32 = 10;
/// The contract's rate window.
pub const DEFAULT_UPLOAD_WINDOW_SECS: f64 = 60.0;
/// Wait after a 429 that names no retry time (the contract's bodies say 60).
pub const DEFAULT_RETRY_AFTER_SECS: f64 = 60.0;
/// Share of the window added to it (1.5 s of 60 s): the service's window starts when it
/// receives the first request, which is a little after we sent it.
const WINDOW_MARGIN_SHARE: f64 = 1.0 / 40.0;

#[derive(Debug)]
struct State {
    /// Send times of the most recent uploads, oldest first (at most `capacity`).
    sent: VecDeque<Instant>,
    /// After a 429: nobody sends before this.
    blocked_until: Option<Instant>,
}

/// A shared pacing gate; `acquire` waits for a slot and records the send.
#[derive(Debug)]
pub struct RateLimiter {
    capacity: usize,
    window: Duration,
    state: Mutex<State>,
}

impl RateLimiter {
    /// `capacity` sends per `window_secs` (a capacity of 0 is treated as 1).
    pub fn new(capacity: u32, window_secs: f64) -> Self {
        let window_secs = if window_secs.is_finite() && window_secs > 0.0 {
            window_secs
        } else {
            DEFAULT_UPLOAD_WINDOW_SECS
        };
        RateLimiter {
            capacity: capacity.max(1) as usize,
            window: Duration::from_secs_f64(window_secs * (1.0 + WINDOW_MARGIN_SHARE)),
            state: Mutex::new(State {
                sent: VecDeque::new(),
                blocked_until: None,
            }),
        }
    }

    /// Wait until one more send fits, then record it. Cancel-safe: dropping the future
    /// before it returns records nothing.
    pub async fn acquire(&self) {
        loop {
            let wait_until = {
                let mut state = self.state.lock().await;
                let now = Instant::now();
                while state
                    .sent
                    .front()
                    .is_some_and(|t| now.duration_since(*t) >= self.window)
                {
                    state.sent.pop_front();
                }
                let blocked = state.blocked_until.filter(|t| *t > now);
                match (blocked, state.sent.len() >= self.capacity) {
                    (Some(until), _) => until,
                    (None, true) => match state.sent.front() {
                        Some(oldest) => *oldest + self.window,
                        None => now,
                    },
                    (None, false) => {
                        state.blocked_until = None;
                        state.sent.push_back(now);
                        return;
                    }
                }
            };
            tokio::time::sleep_until(wait_until).await;
        }
    }

    /// The service answered `error` (a 429): hold every send for the wait it names, or
    /// `DEFAULT_RETRY_AFTER_SECS` when it names none, and at least a second.
    pub async fn back_off_after(&self, error: &ApiError) -> f64 {
        let wait_secs = error
            .retry_after_secs()
            .unwrap_or(DEFAULT_RETRY_AFTER_SECS)
            .max(1.0);
        self.back_off(Duration::from_secs_f64(wait_secs)).await;
        wait_secs
    }

    /// The service said 429: hold every send for `retry_after` (the window is shared, so
    /// the next upload would be refused as well).
    pub async fn back_off(&self, retry_after: Duration) {
        let mut state = self.state.lock().await;
        let until = Instant::now() + retry_after;
        if state.blocked_until.is_none_or(|t| t < until) {
            state.blocked_until = Some(until);
        }
    }
}

/// Media list pages and favourite calls per window: below the service's 120 media calls a
/// minute, leaving room for the unpaced detail, stats and folder calls (document 3, Limits).
pub const MEDIA_CALLS_PER_WINDOW: u32 = 110;
/// Bulk trash/restore/delete chunks and move-contents per window (the contract's 20/min).
pub const BULK_CALLS_PER_WINDOW: u32 = 20;
/// Image generation submits per window (/generate/image, /generate/image-edit, /edit/image).
pub const IMAGE_GENERATION_PER_WINDOW: u32 = 30;
/// Every other generation route, cancel and /media/upload share this (the contract's 10/min).
pub const OTHER_GENERATION_PER_WINDOW: u32 = 10;
/// The contract's rate window.
pub const RATE_WINDOW_SECS: f64 = 60.0;
/// 429s one paced read waits out before it reports the failure.
const MAX_RATE_RETRIES: u32 = 3;

/// One gate per rate-limit group the engine calls (contract, Limits: per user, so the
/// profile's keys share them). Held by `Ctx`, so the library, uploads, the submit queue
/// and reconcile all count against the same windows.
pub(crate) struct RateGates {
    /// Media list pages, favourites, reconcile's library lookups.
    pub media: Arc<RateLimiter>,
    /// Bulk chunks and move-contents.
    pub bulk: Arc<RateLimiter>,
    /// Image generation submits.
    #[allow(dead_code)] // taken by the submit queue (issue 9, in progress)
    pub image_generation: Arc<RateLimiter>,
    /// Other generation submits, cancels and uploads (one shared bucket on the service).
    pub other_generation: Arc<RateLimiter>,
}

impl RateGates {
    /// The contract's limits; `other_generation_per_window` and `window_secs` come from
    /// `TransferTuning` so tests can shorten the upload window.
    pub fn new(other_generation_per_window: u32, other_window_secs: f64) -> Self {
        RateGates {
            media: Arc::new(RateLimiter::new(MEDIA_CALLS_PER_WINDOW, RATE_WINDOW_SECS)),
            bulk: Arc::new(RateLimiter::new(BULK_CALLS_PER_WINDOW, RATE_WINDOW_SECS)),
            image_generation: Arc::new(RateLimiter::new(
                IMAGE_GENERATION_PER_WINDOW,
                RATE_WINDOW_SECS,
            )),
            other_generation: Arc::new(RateLimiter::new(
                other_generation_per_window,
                other_window_secs,
            )),
        }
    }
}

/// One call within `limiter`'s pacing. A 429 holds the gate for its retry time and the call
/// is repeated, up to `MAX_RATE_RETRIES` times: safe for these calls (reads, idempotent
/// favourites and bulk changes), never used for generation requests.
pub(crate) async fn paced<T, F, Fut>(limiter: &RateLimiter, mut call: F) -> Result<T, ApiError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, ApiError>>,
{
    let mut rate_limited = 0;
    loop {
        limiter.acquire().await;
        match call().await {
            Err(error) if error.is_rate_limited() && rate_limited < MAX_RATE_RETRIES => {
                rate_limited += 1;
                let wait_secs = limiter.back_off_after(&error).await;
                tracing::info!("rate limited; retrying in {wait_secs} s");
            }
            result => return result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_third_send_waits_a_window() {
        let limiter = RateLimiter::new(2, 0.4);
        let start = Instant::now();
        limiter.acquire().await;
        limiter.acquire().await;
        assert!(start.elapsed() < Duration::from_millis(200));
        limiter.acquire().await;
        assert!(start.elapsed() >= Duration::from_millis(400));
    }

    #[tokio::test]
    async fn back_off_blocks_everyone() {
        let limiter = RateLimiter::new(10, 60.0);
        limiter.back_off(Duration::from_millis(300)).await;
        let start = Instant::now();
        limiter.acquire().await;
        assert!(start.elapsed() >= Duration::from_millis(300));
    }
}
