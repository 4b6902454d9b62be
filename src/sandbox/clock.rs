//! The sandbox's notion of "now": wall time plus a test-controlled offset, so trash
//! retention, ticket expiry, rate-limit windows and running jobs can be exercised without
//! waiting.

use std::sync::atomic::{AtomicI64, Ordering};

const MS_PER_DAY: i64 = 24 * 60 * 60 * 1000;

#[derive(Debug, Default)]
pub(crate) struct Clock {
    offset_ms: AtomicI64,
}

impl Clock {
    pub(crate) fn now_ms(&self) -> i64 {
        chrono::Utc::now().timestamp_millis() + self.offset_ms.load(Ordering::SeqCst)
    }

    pub(crate) fn iso_at(ms: i64) -> String {
        chrono::DateTime::from_timestamp_millis(ms)
            .unwrap_or_default()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }

    pub(crate) fn now_iso(&self) -> String {
        Self::iso_at(self.now_ms())
    }

    /// Moves "now" forward (negative values are ignored: time never runs backwards).
    pub(crate) fn advance_ms(&self, ms: i64) {
        self.offset_ms.fetch_add(ms.max(0), Ordering::SeqCst);
    }

    pub(crate) fn advance_days(&self, days: u32) {
        self.offset_ms
            .fetch_add(i64::from(days) * MS_PER_DAY, Ordering::SeqCst);
    }
}

pub(crate) fn days_ms(days: i64) -> i64 {
    days * MS_PER_DAY
}
