//! Whether the service answers at all: one truth for the whole studio. Any request that
//! gets no answer (refused, DNS, no answer before the timeout) — a read, a job poll, a
//! submit, a mutation, an image load — marks the service unreachable at once and the UI is
//! told immediately (the status bar turns red on the first failed request); a probe task
//! then retries a cheap read with back-off until the service answers and reports it back.
//! Any answer meanwhile cuts the back-off short. Only the probe's read is ever retried
//! here: a generation submit is never re-sent.

use super::protocol::Event;
use super::runtime::Ctx;
use crate::api::ApiError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// First wait before probing an unreachable service; doubled up to the cap.
pub const FIRST_PROBE_DELAY_SECS: f64 = 1.0;
/// Longest wait between probes.
pub const MAX_PROBE_DELAY_SECS: f64 = 30.0;

/// The engine's view of reachability, shared by every task through `Ctx`.
#[derive(Default)]
pub struct Reachability {
    offline: AtomicBool,
    /// Why the service was marked unreachable (the failed request's error, for the log and
    /// the Details of the offline notice).
    reason: Mutex<Option<String>>,
    /// Wakes the probe task: the service just became unreachable.
    went_offline: Notify,
    /// Cuts the probe's back-off short (Retry button, or a read that succeeded meanwhile).
    probe_now: Notify,
    /// When a request last succeeded (2xx): a failed job poll while others succeed is a
    /// lone fault on one connection, not a struggling service.
    last_success: Mutex<Option<Instant>>,
}

impl Reachability {
    pub fn is_offline(&self) -> bool {
        self.offline.load(Ordering::SeqCst)
    }

    /// Looks at an event on its way to the UI: a request that got no answer marks the
    /// service offline (once); an answer while offline asks for an early probe.
    pub fn observe(&self, event: &Event) {
        if let Some(outcome) = request_outcome(event) {
            self.note(outcome);
        }
    }

    /// The outcome of any request made outside an event (job polls, submits, image
    /// fetches): fed here as soon as it is known.
    pub fn note<T>(&self, outcome: Result<T, &ApiError>) {
        match outcome {
            Err(error) if is_unreachable(error) => self.note_unreachable(error),
            Ok(_) => {
                self.note_success();
                self.note_answered();
            }
            Err(_) => self.note_answered(),
        }
    }

    fn note_success(&self) {
        if let Ok(mut last) = self.last_success.lock() {
            *last = Some(Instant::now());
        }
    }

    /// Whether some request succeeded within the last `window`.
    pub fn succeeded_within(&self, window: Duration) -> bool {
        self.last_success
            .lock()
            .ok()
            .and_then(|last| *last)
            .is_some_and(|at| at.elapsed() <= window)
    }

    fn note_unreachable(&self, error: &ApiError) {
        if !self.offline.swap(true, Ordering::SeqCst) {
            if let Ok(mut reason) = self.reason.lock() {
                *reason = Some(error.to_string());
            }
            self.went_offline.notify_one();
        }
    }

    /// The service answered (even with an error status): it is reachable.
    fn note_answered(&self) {
        if self.is_offline() {
            self.probe_now.notify_one();
        }
    }

    fn take_reason(&self) -> String {
        self.reason
            .lock()
            .ok()
            .and_then(|mut reason| reason.take())
            .unwrap_or_else(|| "the service did not answer".to_owned())
    }

    /// The user asked to try again now.
    pub fn retry_now(&self) {
        if self.is_offline() {
            self.probe_now.notify_one();
        }
    }
}

/// The request never got an answer: nothing listens, the name does not resolve, or the
/// answer did not come before the timeout. A status answer (even 5xx) means it is reachable.
pub fn is_unreachable(error: &ApiError) -> bool {
    matches!(error, ApiError::Connect(_) | ApiError::NoResponse(_))
}

/// The outcome of the request an event answers, for every event that carries one (reads,
/// mutations, uploads). Marking the service offline re-sends nothing: only the probe's own
/// read is retried.
fn request_outcome(event: &Event) -> Option<Result<(), &ApiError>> {
    fn unit<T>(result: &Result<T, ApiError>) -> Option<Result<(), &ApiError>> {
        Some(result.as_ref().map(|_| ()))
    }
    match event {
        Event::Catalog(result) => unit(result),
        Event::Credits(result) => unit(result),
        Event::Projects(result) => unit(result),
        Event::ProjectCreated(result) => unit(result),
        Event::MediaPage { result, .. } => unit(result),
        Event::MediaDetail { result, .. } => unit(result),
        Event::Folders(result) => unit(result),
        Event::MediaStats { result, .. } => unit(result),
        Event::MediaMutationDone { result, .. } => unit(result),
        Event::ResultLocated { result, .. } => unit(result),
        Event::SourceUploaded { result, .. } => unit(result),
        Event::TransferFinished {
            outcome: super::protocol::TransferOutcome::Failed(error),
            ..
        } => Some(Err(error)),
        Event::Palettes { result, .. } => unit(result),
        Event::PaletteOpDone { result, .. } => unit(result),
        Event::PaletteAnalyzed { result, .. } => unit(result),
        Event::Presets { result, .. } => unit(result),
        Event::ChatConversations(result) => unit(result),
        Event::ChatMessages { result, .. } => unit(result),
        Event::Docs(event) => event.read_outcome(),
        Event::VisualDna(event) => event.read_outcome(),
        Event::Moodboards(event) => event.read_outcome(),
        _ => None,
    }
}

/// Next back-off delay: doubled, capped.
pub fn next_probe_delay_secs(current_secs: f64) -> f64 {
    (current_secs * 2.0).min(MAX_PROBE_DELAY_SECS)
}

/// Runs for the engine's lifetime: waits until the service is marked unreachable, tells the
/// UI at once (no confirming request first: with a silent service that would add a whole
/// timeout), probes with back-off until it answers, then tells the UI it is back.
pub(crate) async fn probe_task(ctx: Arc<Ctx>) {
    loop {
        ctx.reachability.went_offline.notified().await;
        let reason = ctx.reachability.take_reason();
        tracing::warn!(
            base_url = ctx.client.base_url(),
            "service unreachable: {reason}"
        );
        ctx.emit(Event::ServiceUnreachable { error: reason }).await;
        let mut delay_secs = FIRST_PROBE_DELAY_SECS;
        loop {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs_f64(delay_secs)) => {}
                () = ctx.reachability.probe_now.notified() => {}
            }
            match ctx.client.credits().await {
                Ok(_) => {
                    // A lone job's failing status checks then see the service working.
                    ctx.reachability.note_success();
                    break;
                }
                Err(error) if is_unreachable(&error) => {
                    tracing::debug!("service still unreachable: {error}");
                    delay_secs = next_probe_delay_secs(delay_secs);
                }
                // It answered (with an error status): reachable again.
                Err(_) => break,
            }
        }
        ctx.reachability.offline.store(false, Ordering::SeqCst);
        tracing::info!(base_url = ctx.client.base_url(), "service reachable again");
        ctx.emit(Event::ServiceReachable).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_off_doubles_up_to_the_cap() {
        let mut delay = FIRST_PROBE_DELAY_SECS;
        let mut seen = vec![delay];
        for _ in 0..7 {
            delay = next_probe_delay_secs(delay);
            seen.push(delay);
        }
        assert_eq!(seen, vec![1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]);
    }

    #[test]
    fn only_missing_answers_count_as_unreachable() {
        assert!(is_unreachable(&ApiError::Connect("refused".into())));
        assert!(is_unreachable(&ApiError::NoResponse("timed out".into())));
        assert!(!is_unreachable(&ApiError::Status {
            status: 503,
            message: String::new(),
            code: None,
            retry_after_secs: None,
        }));
        assert!(!is_unreachable(&ApiError::Decode("bad json".into())));
    }

    #[test]
    fn one_failure_marks_offline_once_and_success_keeps_it_until_probed() {
        let reachability = Reachability::default();
        reachability.observe(&Event::Credits(Err(ApiError::Connect("refused".into()))));
        assert!(reachability.is_offline());
        reachability.observe(&Event::Catalog(Err(ApiError::Connect("refused".into()))));
        assert!(reachability.is_offline());
        // A 404 on a detail says nothing bad about reachability.
        let fresh = Reachability::default();
        fresh.observe(&Event::Folders(Err(ApiError::Status {
            status: 404,
            message: String::new(),
            code: None,
            retry_after_secs: None,
        })));
        assert!(!fresh.is_offline());
    }

    #[test]
    fn only_a_success_counts_as_the_service_working() {
        let reachability = Reachability::default();
        assert!(!reachability.succeeded_within(Duration::from_secs(60)));
        reachability.note::<()>(Err(&ApiError::Status {
            status: 503,
            message: String::new(),
            code: None,
            retry_after_secs: None,
        }));
        assert!(
            !reachability.succeeded_within(Duration::from_secs(60)),
            "a 503 is an answer, not a success"
        );
        reachability.note(Ok(()));
        assert!(reachability.succeeded_within(Duration::from_secs(60)));
        std::thread::sleep(Duration::from_millis(30));
        assert!(!reachability.succeeded_within(Duration::from_millis(10)));
    }

    #[test]
    fn a_failed_poll_submit_or_mutation_marks_offline_too() {
        let refused = ApiError::Connect("refused".into());
        let polled = Reachability::default();
        polled.note::<()>(Err(&refused));
        assert!(polled.is_offline());
        assert_eq!(polled.take_reason(), refused.to_string());

        let mutated = Reachability::default();
        mutated.observe(&Event::MediaMutationDone {
            op_id: 1,
            mutation: super::super::protocol::MediaMutation::DeleteFolder {
                folder_id: "f".into(),
            },
            result: Err(refused.clone()),
        });
        assert!(mutated.is_offline());

        // An answer, even a refusal, is not an outage.
        let answered = Reachability::default();
        answered.note::<()>(Err(&ApiError::Status {
            status: 500,
            message: String::new(),
            code: None,
            retry_after_secs: None,
        }));
        assert!(!answered.is_offline());
    }
}
