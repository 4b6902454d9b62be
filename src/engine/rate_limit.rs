//! Client-side pacing. The service limits each user per group of routes (contract,
//! Limits); the engine keeps one gate per group it calls, shared by every task that calls
//! routes of that group, so a burst queues here rather than collecting 429s. A sliding log of send times is the
//! strictest form of "N per rolling window": the (N+1)th send waits until the oldest of
//! the last N is a full window (plus a small margin for clock and transit skew) old.

use crate::api::{ApiError, RateLimitGroup, RateLimitInfo};
use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;
use tokio::time::Instant;

/// Upload POSTs allowed per window by default (the contract's 10/min).
pub const DEFAULT_UPLOADS_PER_WINDOW: u32 = 10;
/// Wait after a 429 that names no retry time (the contract's bodies say 60).
pub const DEFAULT_RETRY_AFTER_SECS: f64 = 60.0;
/// Share of the window added to it (1.5 s of 60 s): the service's window starts when it
/// receives the first request, which is a little after we sent it.
const WINDOW_MARGIN_SHARE: f64 = 1.0 / 40.0;

#[derive(Debug)]
struct State {
    /// Sends allowed per window; the service's `RateLimit-Limit` may change it.
    capacity: usize,
    /// Send times of the most recent sends, oldest first (at most `capacity`). Sends the
    /// service counted that we did not make (another app of the same user) are entered as
    /// if made when they free up.
    sent: VecDeque<Instant>,
    /// After a 429 or `RateLimit-Remaining: 0`: nobody sends before this.
    blocked_until: Option<Instant>,
}

impl State {
    fn forget_expired(&mut self, now: Instant, window: Duration) {
        while self
            .sent
            .front()
            .is_some_and(|t| now.duration_since(*t) >= window)
        {
            self.sent.pop_front();
        }
    }

    /// When the next send may go (now or later), given the log as it is.
    fn next_free(&self, now: Instant, window: Duration) -> Instant {
        let blocked = self.blocked_until.filter(|t| *t > now).unwrap_or(now);
        let by_log = if self.sent.len() >= self.capacity {
            // The oldest of the last `capacity` sends must leave the window first.
            let oldest_counted = self.sent[self.sent.len() - self.capacity];
            oldest_counted + window
        } else {
            now
        };
        blocked.max(by_log)
    }
}

/// A shared pacing gate; `acquire` waits for a slot and records the send.
#[derive(Debug)]
pub struct RateLimiter {
    window: Duration,
    state: Mutex<State>,
}

impl RateLimiter {
    /// `capacity` sends per `window_secs` (a capacity of 0 is treated as 1).
    pub fn new(capacity: u32, window_secs: f64) -> Self {
        let window_secs = if window_secs.is_finite() && window_secs > 0.0 {
            window_secs
        } else {
            RATE_WINDOW_SECS
        };
        RateLimiter {
            window: Duration::from_secs_f64(window_secs * (1.0 + WINDOW_MARGIN_SHARE)),
            state: Mutex::new(State {
                capacity: capacity.max(1) as usize,
                sent: VecDeque::new(),
                blocked_until: None,
            }),
        }
    }

    /// Wait until one more send fits, then record it. Cancel-safe: dropping the future
    /// before it returns records nothing.
    pub async fn acquire(&self) {
        while let Err(wait_until) = self.try_acquire().await {
            tokio::time::sleep_until(wait_until).await;
        }
    }

    /// Record a send if one fits now; otherwise say when one may fit (the caller waits and
    /// asks again: someone else may take that slot first).
    pub async fn try_acquire(&self) -> Result<(), Instant> {
        let mut state = self.state.lock().await;
        let now = Instant::now();
        state.forget_expired(now, self.window);
        let next = state.next_free(now, self.window);
        if next > now {
            return Err(next);
        }
        state.blocked_until = None;
        state.sent.push_back(now);
        while state.sent.len() > state.capacity {
            state.sent.pop_front();
        }
        Ok(())
    }

    /// When each of the next `count` sends would go if nobody else sent meanwhile (the
    /// submit queue's "sends in ~N s").
    pub async fn schedule(&self, count: usize) -> Vec<Instant> {
        let mut state = self.state.lock().await;
        let now = Instant::now();
        state.forget_expired(now, self.window);
        let mut simulated = State {
            capacity: state.capacity,
            sent: state.sent.clone(),
            blocked_until: state.blocked_until,
        };
        let mut times = Vec::with_capacity(count);
        let mut previous = now;
        for _ in 0..count {
            // Sends go in order: none before the one ahead of it.
            let at = simulated.next_free(now, self.window).max(previous);
            previous = at;
            simulated.blocked_until = None;
            simulated.sent.push_back(at);
            if simulated.sent.len() > simulated.capacity {
                simulated.sent.pop_front();
            }
            times.push(at);
        }
        times
    }

    /// Take in what the service's `RateLimit-*` headers said about this group's window.
    /// A different limit changes the capacity; `Remaining: 0` holds every send until the
    /// reset; fewer remaining than this gate believes (another app of the same user spent
    /// some) fills the window so they free up at the reset. Never loosens the gate.
    pub async fn learn(&self, info: &RateLimitInfo) {
        let mut state = self.state.lock().await;
        let now = Instant::now();
        state.forget_expired(now, self.window);
        if let Some(limit) = info.limit.filter(|l| *l > 0) {
            state.capacity = limit as usize;
        }
        let reset = info
            .reset_secs
            .map(|secs| Duration::from_secs_f64(secs.min(self.window.as_secs_f64())));
        let Some(remaining) = info.remaining.map(|r| r as usize) else {
            return;
        };
        if remaining == 0 {
            let until = now + reset.unwrap_or(self.window);
            if state.blocked_until.is_none_or(|t| t < until) {
                state.blocked_until = Some(until);
            }
            return;
        }
        let believed_free = state.capacity.saturating_sub(state.sent.len());
        if remaining < believed_free {
            // Entered so that they leave the window at the service's reset.
            let frees_at = now + reset.unwrap_or(self.window);
            let entered_at = frees_at.checked_sub(self.window).unwrap_or(now);
            for _ in remaining..believed_free {
                state.sent.push_back(entered_at);
            }
            state.sent.make_contiguous().sort();
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
/// Transcription submits per window (/transcribe: the contract's own 100/min group).
pub const TRANSCRIPTION_PER_WINDOW: u32 = 100;
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
    pub image_generation: Arc<RateLimiter>,
    /// Other generation submits, cancels and uploads (one shared bucket on the service).
    pub other_generation: Arc<RateLimiter>,
    /// Transcription submits.
    pub transcription: Arc<RateLimiter>,
}

impl RateGates {
    /// The contract's limits; `other_generation_per_window` and `window_secs` come from
    /// `TransferTuning` (a service started with shorter windows, such as a sandbox with
    /// `rate_window_secs`, is paced by the same shorter windows).
    pub fn new(other_generation_per_window: u32, window_secs: f64) -> Self {
        RateGates {
            media: Arc::new(RateLimiter::new(MEDIA_CALLS_PER_WINDOW, window_secs)),
            bulk: Arc::new(RateLimiter::new(BULK_CALLS_PER_WINDOW, window_secs)),
            image_generation: Arc::new(RateLimiter::new(IMAGE_GENERATION_PER_WINDOW, window_secs)),
            other_generation: Arc::new(RateLimiter::new(other_generation_per_window, window_secs)),
            transcription: Arc::new(RateLimiter::new(TRANSCRIPTION_PER_WINDOW, window_secs)),
        }
    }
}

impl RateGates {
    /// The gate of a generation rate-limit group.
    pub fn generation(&self, group: RateLimitGroup) -> &Arc<RateLimiter> {
        match group {
            RateLimitGroup::ImageGeneration => &self.image_generation,
            RateLimitGroup::OtherGeneration => &self.other_generation,
            RateLimitGroup::Transcription => &self.transcription,
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

    fn info(limit: Option<u32>, remaining: Option<u32>, reset_secs: Option<f64>) -> RateLimitInfo {
        RateLimitInfo {
            limit,
            remaining,
            reset_secs,
            window_secs: None,
        }
    }

    #[tokio::test]
    async fn remaining_zero_holds_the_gate_until_the_reset() {
        let limiter = RateLimiter::new(30, 60.0);
        limiter.learn(&info(Some(30), Some(0), Some(20.0))).await;
        let next = limiter.try_acquire().await.expect_err("held");
        let wait = next - Instant::now();
        assert!(wait > Duration::from_secs(19) && wait <= Duration::from_secs(20));
    }

    #[tokio::test]
    async fn spending_elsewhere_fills_the_window() {
        let limiter = RateLimiter::new(30, 60.0);
        limiter.try_acquire().await.expect("free");
        // We sent 1 and believe 29 remain; the service says 2 (another app spent 27).
        limiter.learn(&info(Some(30), Some(2), Some(30.0))).await;
        limiter.try_acquire().await.expect("first of two");
        limiter.try_acquire().await.expect("second of two");
        let next = limiter.try_acquire().await.expect_err("full");
        let wait = next - Instant::now();
        assert!(wait > Duration::from_secs(29) && wait <= Duration::from_secs(30));
        // More remaining than believed never loosens the gate.
        limiter.learn(&info(Some(30), Some(25), Some(30.0))).await;
        assert!(limiter.try_acquire().await.is_err());
    }

    #[tokio::test]
    async fn a_different_limit_changes_the_capacity_and_the_schedule() {
        let limiter = RateLimiter::new(30, 60.0);
        limiter.learn(&info(Some(2), None, None)).await;
        let times = limiter.schedule(5).await;
        let now = Instant::now();
        let secs: Vec<u64> = times.iter().map(|t| (*t - now).as_secs()).collect();
        // Two now, two a window (plus margin) later, one two windows later.
        assert_eq!(secs[..2], [0, 0]);
        assert!(secs[2] >= 60 && secs[2] == secs[3], "{secs:?}");
        assert!(secs[4] >= 120, "{secs:?}");
        limiter.try_acquire().await.expect("one");
        limiter.try_acquire().await.expect("two");
        assert!(limiter.try_acquire().await.is_err());
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
