//! CPU time of the calling thread, for benches whose work runs on it alone (the H.264
//! decode and encode do). On a loaded machine wall time also counts the time other
//! processes had the core; this thread's CPU time is close to what a quiet machine's wall
//! time would be, so noisy runs still say whether a target is within reach.

use std::time::Duration;

/// Nanoseconds this thread has run so far (Linux: the first field of
/// `/proc/thread-self/schedstat`); `None` elsewhere.
pub fn now() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// CPU time of `run` on this thread, with its result.
pub fn measure<T>(run: impl FnOnce() -> T) -> (T, Option<Duration>) {
    let before = now();
    let result = run();
    let spent = now()
        .zip(before)
        .map(|(after, before)| after.saturating_sub(before));
    (result, spent)
}
