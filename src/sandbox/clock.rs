//! The sandbox's notion of "now": wall time plus a test-controlled offset, so trash
//! retention, ticket expiry, rate-limit windows and running jobs can be exercised without
//! waiting.

use std::sync::atomic::{AtomicI64, Ordering};

const MS_PER_DAY: i64 = 24 * 60 * 60 * 1000;

/// How far the sandbox clock may run ahead of wall time: a century covers every retention,
/// expiry and rate-limit window with room to spare, and keeps "now + a duration" far from
/// the end of `i64` milliseconds and inside chrono's calendar, so no offset an admin can
/// set breaks a route.
pub(crate) const MAX_OFFSET_MS: i64 = 100 * 366 * MS_PER_DAY;

/// An advance that would move the clock further ahead than [`MAX_OFFSET_MS`].
#[derive(Debug, thiserror::Error)]
#[error(
    "the sandbox clock can run at most {max_secs} s ahead of wall time; {remaining_secs} s of that are left"
)]
pub(crate) struct ClockRangeError {
    pub max_secs: i64,
    pub remaining_secs: i64,
}

#[derive(Debug, Default)]
pub(crate) struct Clock {
    /// Always within `0..=MAX_OFFSET_MS` (only `advance_ms` writes it).
    offset_ms: AtomicI64,
}

impl Clock {
    pub(crate) fn now_ms(&self) -> i64 {
        chrono::Utc::now()
            .timestamp_millis()
            .saturating_add(self.offset_ms.load(Ordering::SeqCst))
    }

    pub(crate) fn iso_at(ms: i64) -> String {
        chrono::DateTime::from_timestamp_millis(ms)
            .unwrap_or_default()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }

    pub(crate) fn now_iso(&self) -> String {
        Self::iso_at(self.now_ms())
    }

    /// How many more milliseconds the clock may be advanced.
    pub(crate) fn remaining_ms(&self) -> i64 {
        MAX_OFFSET_MS - self.offset_ms.load(Ordering::SeqCst)
    }

    /// Moves "now" forward (negative values count as 0: time never runs backwards). Refuses,
    /// changing nothing, an advance past [`MAX_OFFSET_MS`].
    pub(crate) fn advance_ms(&self, ms: i64) -> Result<(), ClockRangeError> {
        let ms = ms.max(0);
        self.offset_ms
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |offset| {
                offset.checked_add(ms).filter(|next| *next <= MAX_OFFSET_MS)
            })
            .map(|_| ())
            .map_err(|offset| ClockRangeError {
                max_secs: MAX_OFFSET_MS / 1000,
                remaining_secs: (MAX_OFFSET_MS - offset) / 1000,
            })
    }

    pub(crate) fn advance_days(&self, days: u32) -> Result<(), ClockRangeError> {
        self.advance_ms(days_ms(i64::from(days)))
    }
}

pub(crate) fn days_ms(days: i64) -> i64 {
    days.saturating_mul(MS_PER_DAY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advances_stop_at_the_range_and_change_nothing_when_refused() {
        let clock = Clock::default();
        assert!(clock.advance_ms(i64::MAX).is_err());
        assert_eq!(
            clock.remaining_ms(),
            MAX_OFFSET_MS,
            "a refused advance changes nothing"
        );
        clock.advance_ms(MAX_OFFSET_MS).expect("the whole range");
        assert_eq!(clock.remaining_ms(), 0);
        assert!(clock.advance_ms(1).is_err());
        assert!(clock.advance_days(u32::MAX).is_err());
        // Every later "now + duration" stays representable.
        assert!(clock.now_ms().checked_add(MAX_OFFSET_MS).is_some());
        assert!(Clock::iso_at(clock.now_ms()).starts_with('2'));
    }
}
