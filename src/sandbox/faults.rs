//! Transport-level fault injection for `/api` routes: answers that are wrong, late, slow or
//! lost, so a client's retry and reconcile paths can be exercised over real HTTP.
//! `/files` and `/admin` are never touched.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use super::ids::SplitMix;

/// Used when `slow_body` is set but `slow_body_secs` is not.
pub(crate) const DEFAULT_SLOW_BODY_SECS: f64 = 3.0;

/// How often each transport fault strikes. Every share is 0.0..=1.0 of `/api` requests.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FaultRates {
    /// Share of /api requests answered 500 (shape 2 body) without being handled.
    pub server_error: f64,
    /// Share whose connection is dropped after the request was read, before handling.
    pub drop_before_handling: f64,
    /// Share handled (a submit creates and reserves its job) whose answer is then lost
    /// (connection dropped / body aborted), like `drop_next_submit_responses`.
    pub drop_after_handling: f64,
    /// Share whose body is sent slowly (trickled over about `slow_body_secs`).
    pub slow_body: f64,
    /// 0 means 3 seconds.
    pub slow_body_secs: f64,
    /// Share handled whose answer keeps its status but has a malformed JSON body.
    pub malformed_json: f64,
    /// Share answered 429 (per-endpoint limiter body, retryAfter, Retry-After and
    /// RateLimit-* headers) without being handled.
    pub rate_limit_storm: f64,
    /// The wait a storm's 429 names (retryAfter, Retry-After, RateLimit-Reset); 0 means
    /// the contract's 60 s. Short storms keep black-box runs short.
    pub storm_retry_after_secs: u64,
    /// Added to every /api request before it is handled.
    pub added_latency_ms: u64,
    /// Seed of the fault dice (deterministic runs); None = from entropy.
    pub seed: Option<u64>,
}

impl FaultRates {
    /// Shares clamped to 0..=1 (NaN = 0), so a typo cannot make every request fail.
    pub(crate) fn sanitized(mut self) -> Self {
        for share in [
            &mut self.server_error,
            &mut self.drop_before_handling,
            &mut self.drop_after_handling,
            &mut self.slow_body,
            &mut self.malformed_json,
            &mut self.rate_limit_storm,
        ] {
            *share = if share.is_finite() {
                share.clamp(0.0, 1.0)
            } else {
                0.0
            };
        }
        if !self.slow_body_secs.is_finite() || self.slow_body_secs < 0.0 {
            self.slow_body_secs = 0.0;
        }
        self
    }

    pub(crate) fn slow_body_duration_secs(&self) -> f64 {
        if self.slow_body_secs > 0.0 {
            self.slow_body_secs
        } else {
            DEFAULT_SLOW_BODY_SECS
        }
    }

    /// Parses the CLI form `name=value,name=value` (any subset of the fields).
    pub fn parse_list(text: &str) -> Result<Self, String> {
        let mut rates = Self::default();
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let Some((name, value)) = item.split_once('=') else {
                return Err(format!("'{item}' is not name=value"));
            };
            let (name, value) = (name.trim(), value.trim());
            let share = || {
                value
                    .parse::<f64>()
                    .ok()
                    .filter(|r| (0.0..=1.0).contains(r))
                    .ok_or_else(|| format!("{name}: '{value}' must be between 0 and 1"))
            };
            match name {
                "server_error" => rates.server_error = share()?,
                "drop_before_handling" => rates.drop_before_handling = share()?,
                "drop_after_handling" => rates.drop_after_handling = share()?,
                "slow_body" => rates.slow_body = share()?,
                "malformed_json" => rates.malformed_json = share()?,
                "rate_limit_storm" => rates.rate_limit_storm = share()?,
                "slow_body_secs" => {
                    rates.slow_body_secs = value
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s >= 0.0)
                        .ok_or_else(|| format!("{name}: '{value}' must be a number of seconds"))?;
                }
                "storm_retry_after_secs" => {
                    rates.storm_retry_after_secs = value.parse::<u64>().map_err(|_| {
                        format!("{name}: '{value}' must be a whole number of seconds")
                    })?;
                }
                "added_latency_ms" => {
                    rates.added_latency_ms = value.parse::<u64>().map_err(|_| {
                        format!("{name}: '{value}' must be a whole number of milliseconds")
                    })?;
                }
                "seed" => {
                    rates.seed = Some(
                        value
                            .parse::<u64>()
                            .map_err(|_| format!("{name}: '{value}' must be a whole number"))?,
                    );
                }
                other => {
                    return Err(format!(
                        "unknown fault '{other}' (known: server_error, drop_before_handling, \
                         drop_after_handling, slow_body, slow_body_secs, malformed_json, \
                         rate_limit_storm, added_latency_ms, seed)"
                    ));
                }
            }
        }
        Ok(rates)
    }
}

/// One injected fault; at most one strikes a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FaultKind {
    ServerError,
    DropBeforeHandling,
    RateLimitStorm,
    DropAfterHandling,
    MalformedJson,
    SlowBody,
}

impl FaultKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            FaultKind::ServerError => "server_error",
            FaultKind::DropBeforeHandling => "drop_before_handling",
            FaultKind::RateLimitStorm => "rate_limit_storm",
            FaultKind::DropAfterHandling => "drop_after_handling",
            FaultKind::MalformedJson => "malformed_json",
            FaultKind::SlowBody => "slow_body",
        }
    }
}

/// How many faults of each kind the sandbox injected since it started.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultCounts {
    pub server_error: u64,
    pub drop_before_handling: u64,
    pub drop_after_handling: u64,
    pub slow_body: u64,
    pub malformed_json: u64,
    pub rate_limit_storm: u64,
    /// Submit answers lost through `drop_submit_answers` / `drop_next_submit_responses`.
    pub dropped_submit_answers: u64,
}

impl FaultCounts {
    pub fn total(&self) -> u64 {
        self.server_error
            + self.drop_before_handling
            + self.drop_after_handling
            + self.slow_body
            + self.malformed_json
            + self.rate_limit_storm
            + self.dropped_submit_answers
    }
}

#[derive(Default)]
struct Counters {
    server_error: AtomicU64,
    drop_before_handling: AtomicU64,
    drop_after_handling: AtomicU64,
    slow_body: AtomicU64,
    malformed_json: AtomicU64,
    rate_limit_storm: AtomicU64,
    dropped_submit_answers: AtomicU64,
}

/// The live fault settings, their dice and the counters.
pub(crate) struct Faults {
    rates: Mutex<FaultRates>,
    dice: Mutex<SplitMix>,
    counters: Counters,
}

fn dice_for(seed: Option<u64>) -> SplitMix {
    seed.map_or_else(SplitMix::from_entropy, SplitMix::new)
}

impl Faults {
    pub(crate) fn new(rates: FaultRates) -> Self {
        let rates = rates.sanitized();
        Self {
            dice: Mutex::new(dice_for(rates.seed)),
            rates: Mutex::new(rates),
            counters: Counters::default(),
        }
    }

    pub(crate) fn rates(&self) -> FaultRates {
        lock(&self.rates).clone()
    }

    /// Replaces the rates; a seed restarts the dice so the same run repeats.
    pub(crate) fn set_rates(&self, rates: FaultRates) {
        let rates = rates.sanitized();
        if rates.seed.is_some() {
            *lock(&self.dice) = dice_for(rates.seed);
        }
        *lock(&self.rates) = rates;
    }

    /// Rolls the dice for one request. Every kind is rolled every time (in a fixed order)
    /// so a seeded run consumes the same numbers whatever strikes.
    pub(crate) fn roll(&self) -> (Option<FaultKind>, FaultRates) {
        let rates = self.rates();
        let table = [
            (FaultKind::ServerError, rates.server_error),
            (FaultKind::DropBeforeHandling, rates.drop_before_handling),
            (FaultKind::RateLimitStorm, rates.rate_limit_storm),
            (FaultKind::DropAfterHandling, rates.drop_after_handling),
            (FaultKind::MalformedJson, rates.malformed_json),
            (FaultKind::SlowBody, rates.slow_body),
        ];
        if table.iter().all(|(_, share)| *share <= 0.0) {
            return (None, rates);
        }
        let mut dice = lock(&self.dice);
        let mut struck = None;
        for (kind, share) in table {
            let hit = dice.next_f64() < share;
            if hit && struck.is_none() {
                struck = Some(kind);
            }
        }
        (struck, rates)
    }

    pub(crate) fn count(&self, kind: FaultKind) {
        let counter = match kind {
            FaultKind::ServerError => &self.counters.server_error,
            FaultKind::DropBeforeHandling => &self.counters.drop_before_handling,
            FaultKind::RateLimitStorm => &self.counters.rate_limit_storm,
            FaultKind::DropAfterHandling => &self.counters.drop_after_handling,
            FaultKind::MalformedJson => &self.counters.malformed_json,
            FaultKind::SlowBody => &self.counters.slow_body,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn count_dropped_submit_answer(&self) {
        self.counters
            .dropped_submit_answers
            .fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn counts(&self) -> FaultCounts {
        let c = &self.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        FaultCounts {
            server_error: get(&c.server_error),
            drop_before_handling: get(&c.drop_before_handling),
            drop_after_handling: get(&c.drop_after_handling),
            slow_body: get(&c.slow_body),
            malformed_json: get(&c.malformed_json),
            rate_limit_storm: get(&c.rate_limit_storm),
            dropped_submit_answers: get(&c.dropped_submit_answers),
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Plain values inside; a poisoned lock still holds a valid one.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_any_subset_and_rejects_bad_names_and_values() {
        let rates = FaultRates::parse_list(
            "server_error=0.05, drop_before_handling=0.05,drop_after_handling=0.05,slow_body=0.02,\
             malformed_json=0.03,rate_limit_storm=0.05,added_latency_ms=50,seed=7",
        )
        .expect("valid list");
        assert_eq!(rates.server_error, 0.05);
        assert_eq!(rates.slow_body, 0.02);
        assert_eq!(rates.malformed_json, 0.03);
        assert_eq!(rates.added_latency_ms, 50);
        assert_eq!(rates.seed, Some(7));
        assert_eq!(
            FaultRates::parse_list("server_error=1").expect("valid"),
            FaultRates {
                server_error: 1.0,
                ..FaultRates::default()
            }
        );
        assert!(FaultRates::parse_list("server_eror=0.1").is_err());
        assert!(FaultRates::parse_list("server_error=1.5").is_err());
        assert!(FaultRates::parse_list("server_error").is_err());
        assert!(FaultRates::parse_list("added_latency_ms=-1").is_err());
        assert!(FaultRates::parse_list("seed=x").is_err());
    }

    #[test]
    fn a_seed_repeats_the_dice() {
        let rates = FaultRates {
            server_error: 0.3,
            malformed_json: 0.3,
            seed: Some(42),
            ..FaultRates::default()
        };
        let a = Faults::new(rates.clone());
        let b = Faults::new(rates);
        let run = |f: &Faults| (0..50).map(|_| f.roll().0).collect::<Vec<_>>();
        let first = run(&a);
        assert_eq!(first, run(&b));
        assert!(first.iter().any(Option::is_some));
        assert!(first.iter().any(Option::is_none));
    }
}
