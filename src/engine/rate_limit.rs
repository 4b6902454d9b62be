//! Client-side pacing. The service limits each user per group of routes (contract,
//! Limits); the engine keeps one gate per group it calls, shared by every task that calls
//! routes of that group, so a burst queues here rather than collecting 429s. A log of send
//! times is the strictest form of "N per rolling window": the (N+1)th send waits until the
//! oldest of the last N frees up. A send frees up a full window (plus a small margin for
//! clock and transit skew) after it went, unless the service announced sooner: its
//! `RateLimit-Reset` says when the window that counted the send ends, and from then on
//! that send frees up at the announced reset (a fixed-window service frees the whole
//! window at once, so waiting a window after each send would waste most of one).

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
/// Share of the window added to it (1.5 s of 60 s) for sends the service said nothing
/// about: the service's window starts when it receives the first request, which is a
/// little after we sent it.
const WINDOW_MARGIN_SHARE: f64 = 1.0 / 40.0;
/// Added to an announced `RateLimit-Reset`. The reset is counted from when the service
/// handled the request, in whole seconds rounded up, and we add it to when the answer
/// arrived, so it already errs late; this covers a service whose timers run slightly ahead
/// of ours or that rounds down. Too early costs one unbilled 429 and a re-send.
const RESET_MARGIN_SECS: f64 = 0.25;

/// One send in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Sent {
    /// It frees up `window` after this (a send's own time, or the time that makes it free
    /// up at the reset the service announced for it).
    at: Instant,
    /// The service announced the reset of the window that counted it.
    announced: bool,
}

impl Sent {
    fn at(at: Instant) -> Self {
        Sent {
            at,
            announced: false,
        }
    }
}

#[derive(Debug)]
struct State {
    /// Sends allowed per window; the service's `RateLimit-Limit` may change it.
    capacity: usize,
    /// The most recent sends, oldest first (at most `capacity`). Sends the service
    /// counted that we did not make (another app of the same user) are entered as if made
    /// when they free up.
    sent: VecDeque<Sent>,
    /// After a 429 or `RateLimit-Remaining: 0`: nobody sends before this.
    blocked_until: Option<Instant>,
}

impl State {
    fn forget_expired(&mut self, now: Instant, window: Duration) {
        while self
            .sent
            .front()
            .is_some_and(|s| now.saturating_duration_since(s.at) >= window)
        {
            self.sent.pop_front();
        }
    }

    /// When the next send may go (now or later), given the log as it is.
    fn next_free(&self, now: Instant, window: Duration) -> Instant {
        let blocked = self.blocked_until.filter(|t| *t > now).unwrap_or(now);
        let by_log = if self.sent.len() >= self.capacity {
            // The oldest of the last `capacity` sends must leave the window first.
            let oldest_counted = self.sent[self.sent.len() - self.capacity].at;
            oldest_counted + window
        } else {
            now
        };
        blocked.max(by_log)
    }

    fn record(&mut self, sent: Sent) {
        self.sent.push_back(sent);
        self.sent.make_contiguous().sort();
        while self.sent.len() > self.capacity {
            self.sent.pop_front();
        }
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
        state.record(Sent::at(now));
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
            simulated.record(Sent::at(at));
            times.push(at);
        }
        times
    }

    /// Take in what the service's `RateLimit-*` headers said about this group's window, in
    /// the answer to a request that left at `sent_at`. A different limit changes the
    /// capacity; the sends the service counted in the window (`Limit - Remaining`, ours
    /// being the latest that left by `sent_at`) free up at the announced reset, earlier or
    /// later than a window after each; `Remaining: 0` holds every send until the reset;
    /// fewer remaining than this gate believes (another app of the same user spent some)
    /// fills the window so they free up at the reset.
    pub async fn learn(&self, info: &RateLimitInfo, sent_at: Instant) {
        let mut state = self.state.lock().await;
        let now = Instant::now();
        state.forget_expired(now, self.window);
        if let Some(limit) = info.limit.filter(|l| *l > 0) {
            state.capacity = limit as usize;
        }
        let reset = info.reset_secs.map(|secs| {
            Duration::from_secs_f64(secs.min(self.window.as_secs_f64()) + RESET_MARGIN_SECS)
        });
        let Some(remaining) = info.remaining.map(|r| r as usize) else {
            return;
        };
        if let Some(reset) = reset {
            date_by_reset(&mut state, remaining, sent_at, now + reset, self.window);
        }
        let believed_free = state.capacity.saturating_sub(state.sent.len());
        if remaining >= believed_free {
            return;
        }
        match reset {
            // Spent elsewhere (or the window is full): entered so that they leave the
            // window at the service's reset.
            Some(reset) => {
                let entered_at = (now + reset).checked_sub(self.window).unwrap_or(now);
                for _ in remaining..believed_free {
                    state.record(Sent {
                        at: entered_at,
                        announced: true,
                    });
                }
            }
            // No reset announced: a full window from now.
            None if remaining == 0 => {
                let until = now + self.window;
                if state.blocked_until.is_none_or(|t| t < until) {
                    state.blocked_until = Some(until);
                }
            }
            None => {
                for _ in remaining..believed_free {
                    state.record(Sent::at(now));
                }
            }
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

/// The service counted `capacity - remaining` requests in the window that ends at
/// `frees_at`: the latest of our sends that left by `sent_at`. They free up then. A send
/// already dated by another answer about the same window keeps the earlier of the two:
/// each answer's reset is rounded up, so the earliest is the closest.
fn date_by_reset(
    state: &mut State,
    remaining: usize,
    sent_at: Instant,
    frees_at: Instant,
    window: Duration,
) {
    let Some(entered_at) = frees_at.checked_sub(window) else {
        return;
    };
    let counted = state.capacity.saturating_sub(remaining);
    let mut dated = 0;
    for sent in state.sent.iter_mut().rev() {
        if dated == counted {
            break;
        }
        // A send that left after this request may be counted in this window or the next.
        if sent.at > sent_at && !sent.announced {
            continue;
        }
        // Sends of a window that has ended were forgotten already (`forget_expired`), so
        // an announced one here was dated for this same window.
        sent.at = if sent.announced {
            sent.at.min(entered_at)
        } else {
            entered_at
        };
        sent.announced = true;
        dated += 1;
    }
    state.sent.make_contiguous().sort();
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
        limiter
            .learn(&info(Some(30), Some(0), Some(20.0)), Instant::now())
            .await;
        let next = limiter.try_acquire().await.expect_err("held");
        let wait = next - Instant::now();
        assert!(wait > Duration::from_secs(19) && wait <= Duration::from_secs_f64(20.5));
    }

    #[tokio::test]
    async fn spending_elsewhere_fills_the_window() {
        let limiter = RateLimiter::new(30, 60.0);
        let sent_at = Instant::now();
        limiter.try_acquire().await.expect("free");
        // We sent 1 and believe 29 remain; the service says 2 (another app spent 27).
        limiter
            .learn(&info(Some(30), Some(2), Some(30.0)), sent_at)
            .await;
        limiter.try_acquire().await.expect("first of two");
        limiter.try_acquire().await.expect("second of two");
        let next = limiter.try_acquire().await.expect_err("full");
        let wait = next - Instant::now();
        assert!(wait > Duration::from_secs(29) && wait <= Duration::from_secs_f64(30.5));
        // More remaining than believed never loosens the gate.
        limiter
            .learn(&info(Some(30), Some(25), Some(30.0)), Instant::now())
            .await;
        assert!(limiter.try_acquire().await.is_err());
    }

    #[tokio::test]
    async fn a_different_limit_changes_the_capacity_and_the_schedule() {
        let limiter = RateLimiter::new(30, 60.0);
        limiter
            .learn(&info(Some(2), None, None), Instant::now())
            .await;
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

    /// Seconds from now to each instant, to a tenth.
    fn secs_from_now(times: &[Instant]) -> Vec<f64> {
        let now = Instant::now();
        times
            .iter()
            .map(|t| (t.saturating_duration_since(now).as_secs_f64() * 10.0).round() / 10.0)
            .collect()
    }

    #[tokio::test]
    async fn an_announced_reset_frees_the_whole_window_then() {
        let limiter = RateLimiter::new(3, 60.0);
        for _ in 0..3 {
            limiter.try_acquire().await.expect("room for three");
        }
        let sent_at = Instant::now();
        // A fixed-window service: its window, opened by our first send, ends in 5 s.
        for remaining in [2, 1, 0] {
            limiter
                .learn(&info(Some(3), Some(remaining), Some(5.0)), sent_at)
                .await;
        }
        let next = limiter.try_acquire().await.expect_err("window full");
        let wait_secs = (next - Instant::now()).as_secs_f64();
        assert!((4.9..=5.3).contains(&wait_secs), "{wait_secs}");
        // What the queue announces: the next three at the reset, not a window after each
        // send; the fourth a window after those (nothing is known about that window yet).
        let secs = secs_from_now(&limiter.schedule(4).await);
        assert!(
            secs[..3].iter().all(|s| (4.9..=5.3).contains(s)),
            "{secs:?}"
        );
        assert!(secs[3] >= 5.0 + 60.0, "{secs:?}");
    }

    #[tokio::test]
    async fn the_earliest_announced_reset_of_a_window_wins() {
        let limiter = RateLimiter::new(2, 60.0);
        limiter.try_acquire().await.expect("one");
        limiter.try_acquire().await.expect("two");
        let sent_at = Instant::now();
        // Resets are rounded up to whole seconds, so two answers about one window may
        // differ by one: whichever arrives first, the earlier reset stands.
        for reset_secs in [5.0, 4.0, 5.0] {
            limiter
                .learn(&info(Some(2), Some(0), Some(reset_secs)), sent_at)
                .await;
        }
        let secs = secs_from_now(&limiter.schedule(2).await);
        assert!(secs.iter().all(|s| (3.9..=4.3).contains(s)), "{secs:?}");
    }

    #[tokio::test]
    async fn a_send_after_the_answered_one_is_not_dated_by_its_answer() {
        let limiter = RateLimiter::new(2, 60.0);
        limiter.try_acquire().await.expect("one");
        let first_sent_at = Instant::now();
        tokio::time::sleep(Duration::from_millis(20)).await;
        limiter.try_acquire().await.expect("two");
        // The first send's answer: one counted, the window ends in 3 s. The second send
        // may fall in the next window, so it keeps its own, later, time.
        limiter
            .learn(&info(Some(2), Some(1), Some(3.0)), first_sent_at)
            .await;
        let secs = secs_from_now(&limiter.schedule(2).await);
        assert!((2.9..=3.3).contains(&secs[0]), "{secs:?}");
        assert!(secs[1] >= 60.0, "{secs:?}");
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
