//! The job tracker: submit (journal first, never re-sent), poll at the service's hint,
//! cancel, reconcile lost submits (media library first, then the credit balance), resume
//! after a restart.

use super::journal::{CreditSnapshot, Journal, JournalError, JournalRow};
use super::protocol::{Event, JobPhase, JobRecord, LocalJobId};
use super::reconcile::{CHECKING, CHECKING_AFTER_RESTART, snapshot_of};
use super::runtime::{Ctx, refresh_credits};
use crate::api::{ApiError, Failure, GenerationSpec, JobState, StatusResponse};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;
use tokio::sync::{Mutex, Notify};

/// Poll interval when the submit answer gives no hint (contract: 3 s for images).
pub const DEFAULT_POLL_INTERVAL_SECS: f64 = 3.0;
/// Longest wait between polls while backing off.
pub const MAX_BACKOFF_SECS: f64 = 60.0;

pub(super) struct JobEntry {
    pub(super) record: JobRecord,
    pub(super) credits_before: Option<CreditSnapshot>,
    /// Wakes the poller early (cancel, dismiss).
    pub(super) wake: Arc<Notify>,
    pub(super) polling: bool,
    pub(super) reconciling: bool,
}

pub(crate) struct Tracker {
    pub(super) ctx: Arc<Ctx>,
    pub(super) jobs: Mutex<BTreeMap<LocalJobId, JobEntry>>,
    /// Ids for jobs that could not be written to the journal (negative, memory only).
    unsaved_ids: AtomicI64,
}

/// What to do after a failed status poll.
enum PollErrorAction {
    Retry { delay_secs: f64, problem: String },
    Fail(Failure),
}

pub(super) fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

impl Tracker {
    pub fn new(ctx: Arc<Ctx>) -> Arc<Self> {
        Arc::new(Tracker {
            ctx,
            jobs: Mutex::new(BTreeMap::new()),
            unsaved_ids: AtomicI64::new(-1),
        })
    }

    pub(super) async fn journal<R: Send + 'static>(
        &self,
        f: impl FnOnce(&Journal) -> Result<R, JournalError> + Send + 'static,
    ) -> Result<R, JournalError> {
        let journal = self.ctx.journal.clone();
        tokio::task::spawn_blocking(move || f(&journal))
            .await
            .map_err(|e| JournalError::Task(e.to_string()))?
    }

    /// Change one job: apply `f`, and when the record changed write it to the journal
    /// FIRST, then tell the UI. The lock is held throughout so snapshots reach the UI in
    /// the order they were made.
    pub(super) async fn mutate(
        &self,
        local_id: LocalJobId,
        f: impl FnOnce(&mut JobEntry),
    ) -> Option<JobRecord> {
        let mut jobs = self.jobs.lock().await;
        let entry = jobs.get_mut(&local_id)?;
        let before = entry.record.clone();
        f(entry);
        if entry.record == before {
            return Some(before);
        }
        let record = entry.record.clone();
        if local_id > 0 {
            // The journal does not store poll_problem: skip the write when only it changed.
            let mut persisted_before = before;
            persisted_before.poll_problem = record.poll_problem.clone();
            if persisted_before != record {
                let to_save = record.clone();
                if let Err(e) = self.journal(move |j| j.save(&to_save)).await {
                    tracing::error!("job {local_id}: journal write failed: {e}");
                }
            }
        }
        self.ctx.emit(Event::JobUpdated(record.clone())).await;
        Some(record)
    }

    pub(super) async fn record(&self, local_id: LocalJobId) -> Option<JobRecord> {
        self.jobs
            .lock()
            .await
            .get(&local_id)
            .map(|e| e.record.clone())
    }

    // -----------------------------------------------------------------------------------
    // Start-up
    // -----------------------------------------------------------------------------------

    /// Load this service's rows, tell the UI, and resume every unfinished job: Running is
    /// polled; Submitting (the app stopped mid-POST) becomes Unconfirmed and, like every
    /// Unconfirmed row, is reconciled. Nothing is ever re-sent.
    pub async fn restore(self: &Arc<Self>) {
        let service_id = self.ctx.service_id.clone();
        let rows = match self.journal(move |j| j.load_all(&service_id)).await {
            Ok(rows) => rows,
            Err(e) => {
                tracing::error!("cannot read the job journal: {e}");
                Vec::new()
            }
        };
        let mut to_poll = Vec::new();
        let mut to_reconcile = Vec::new();
        let mut restored = Vec::with_capacity(rows.len());
        {
            let mut jobs = self.jobs.lock().await;
            for JournalRow {
                mut record,
                credits_before,
                ..
            } in rows
            {
                let interrupted = matches!(record.phase, JobPhase::Submitting)
                    || (matches!(record.phase, JobPhase::Running { .. })
                        && record.generation_id.is_none());
                if interrupted {
                    record.phase = JobPhase::Unconfirmed {
                        note: CHECKING_AFTER_RESTART.to_owned(),
                    };
                    let to_save = record.clone();
                    if let Err(e) = self.journal(move |j| j.save(&to_save)).await {
                        tracing::error!("job {}: journal write failed: {e}", record.local_id);
                    }
                }
                match record.phase {
                    JobPhase::Running { .. } => to_poll.push(record.local_id),
                    JobPhase::Unconfirmed { .. } => to_reconcile.push(record.local_id),
                    _ => {}
                }
                restored.push(record.clone());
                jobs.insert(
                    record.local_id,
                    JobEntry {
                        record,
                        credits_before,
                        wake: Arc::new(Notify::new()),
                        polling: false,
                        reconciling: false,
                    },
                );
            }
        }
        self.ctx.emit(Event::JobsRestored(restored)).await;
        for local_id in to_poll {
            // The last poll was at least a restart ago: look now.
            tokio::spawn(self.clone().poll_loop(local_id, Duration::ZERO));
        }
        for local_id in to_reconcile {
            tokio::spawn(self.clone().reconcile(local_id));
        }
    }

    // -----------------------------------------------------------------------------------
    // Submit
    // -----------------------------------------------------------------------------------

    /// Submit once. The journal row exists before the POST is sent; the generation id is
    /// in the journal before the UI hears of Running. A lost answer makes the job
    /// Unconfirmed and it is reconciled, never re-sent.
    pub async fn submit(
        self: Arc<Self>,
        spec: GenerationSpec,
        model_label: String,
        credits_estimate: Option<f64>,
    ) {
        // Balance just before the POST, to reconcile a lost answer later.
        let credits_before = match self.ctx.client.credits().await {
            Ok(credits) => {
                let snapshot = snapshot_of(&credits);
                self.ctx.emit(Event::Credits(Ok(credits))).await;
                Some(snapshot)
            }
            Err(e) => {
                tracing::warn!("credit balance before submit unavailable: {e}");
                None
            }
        };

        let mut record = JobRecord {
            local_id: 0,
            generation_id: None,
            spec: spec.clone(),
            model_label,
            phase: JobPhase::Submitting,
            progress_percent: 0.0,
            submitted_at_unix_ms: now_ms(),
            finished_at_unix_ms: None,
            credits_estimate,
            credits_used: None,
            result: None,
            poll_problem: None,
            poll_interval_secs: DEFAULT_POLL_INTERVAL_SECS,
        };

        let local_id = {
            let mut jobs = self.jobs.lock().await;
            let service_id = self.ctx.service_id.clone();
            let to_insert = record.clone();
            match self
                .journal(move |j| j.insert(&service_id, &to_insert, credits_before))
                .await
            {
                Ok(id) => record.local_id = id,
                Err(e) => {
                    // Without a journal row a crash could lose track of a billed job:
                    // refuse to send.
                    tracing::error!("cannot record the job, not sending it: {e}");
                    record.local_id = self.unsaved_ids.fetch_sub(1, Ordering::Relaxed);
                    record.phase = JobPhase::Rejected {
                        error: ApiError::Io(format!(
                            "the job could not be recorded in the job journal, so it was not sent: {e}"
                        )),
                    };
                    record.finished_at_unix_ms = Some(now_ms());
                }
            }
            jobs.insert(
                record.local_id,
                JobEntry {
                    record: record.clone(),
                    credits_before,
                    wake: Arc::new(Notify::new()),
                    polling: false,
                    reconciling: false,
                },
            );
            self.ctx.emit(Event::JobUpdated(record.clone())).await;
            record.local_id
        };
        if local_id < 0 {
            return;
        }

        match self.ctx.client.submit(&spec).await {
            Ok(answer) => {
                let interval_secs = answer
                    .poll_interval_hint
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .unwrap_or(DEFAULT_POLL_INTERVAL_SECS);
                let generation_id = answer.generation_id.clone();
                self.mutate(local_id, |entry| {
                    let r = &mut entry.record;
                    r.generation_id = generation_id;
                    r.poll_interval_secs = interval_secs;
                    r.phase = JobPhase::Running {
                        state: JobState::Processing,
                    };
                })
                .await;
                tokio::spawn(refresh_credits(self.ctx.clone()));
                // The first poll comes one interval after the submit.
                tokio::spawn(
                    self.clone()
                        .poll_loop(local_id, Duration::from_secs_f64(interval_secs)),
                );
            }
            Err(error) if error.outcome_unknown() || matches!(error, ApiError::Decode(_)) => {
                tracing::warn!("job {local_id}: submit answer lost: {error}");
                self.mutate(local_id, |entry| {
                    entry.record.phase = JobPhase::Unconfirmed {
                        note: CHECKING.to_owned(),
                    };
                })
                .await;
                self.reconcile(local_id).await;
            }
            Err(error) => {
                tracing::info!("job {local_id}: submit refused: {error}");
                self.mutate(local_id, |entry| {
                    entry.record.phase = JobPhase::Rejected { error };
                    entry.record.finished_at_unix_ms = Some(now_ms());
                })
                .await;
            }
        }
    }

    // -----------------------------------------------------------------------------------
    // Polling
    // -----------------------------------------------------------------------------------

    /// Poll one job until it is terminal, dismissed or the engine stops. One poller per job.
    pub async fn poll_loop(self: Arc<Self>, local_id: LocalJobId, first_delay: Duration) {
        let wake = {
            let mut jobs = self.jobs.lock().await;
            let Some(entry) = jobs.get_mut(&local_id) else {
                return;
            };
            if entry.polling {
                return;
            }
            entry.polling = true;
            entry.wake.clone()
        };
        let mut delay = first_delay;
        let mut consecutive_failures: u32 = 0;
        loop {
            if !delay.is_zero() {
                tokio::select! {
                    () = tokio::time::sleep(delay) => {}
                    () = wake.notified() => {}
                }
            }
            let Some(record) = self.record(local_id).await else {
                return; // dismissed
            };
            let (JobPhase::Running { .. }, Some(generation_id)) =
                (&record.phase, &record.generation_id)
            else {
                break;
            };
            let interval_secs = record.poll_interval_secs.max(0.5);
            match self.ctx.client.status(generation_id).await {
                Ok(status) => {
                    consecutive_failures = 0;
                    if self.apply_status(local_id, status).await {
                        break;
                    }
                    delay = Duration::from_secs_f64(interval_secs);
                }
                Err(error) => {
                    match poll_error_action(&error, consecutive_failures, interval_secs) {
                        PollErrorAction::Retry {
                            delay_secs,
                            problem,
                        } => {
                            consecutive_failures = consecutive_failures.saturating_add(1);
                            tracing::debug!("job {local_id}: poll failed: {error}");
                            self.mutate(local_id, |entry| {
                                entry.record.poll_problem = Some(problem)
                            })
                            .await;
                            delay = Duration::from_secs_f64(delay_secs);
                        }
                        PollErrorAction::Fail(failure) => {
                            self.finish(local_id, JobPhase::Failed { failure }, None)
                                .await;
                            break;
                        }
                    }
                }
            }
        }
        if let Some(entry) = self.jobs.lock().await.get_mut(&local_id) {
            entry.polling = false;
        }
    }

    /// Apply a status answer. Returns true when the job is now finished.
    async fn apply_status(self: &Arc<Self>, local_id: LocalJobId, status: StatusResponse) -> bool {
        if status.state.is_terminal() {
            let phase = match status.state {
                JobState::Completed => JobPhase::Completed,
                JobState::Cancelled => JobPhase::Cancelled,
                _ => JobPhase::Failed {
                    failure: failure_of(&status),
                },
            };
            self.finish(local_id, phase, Some(status)).await;
            return true;
        }
        let progress = status.progress.map(|p| p.clamp(0.0, 100.0) as f32);
        let still_running = self
            .mutate(local_id, |entry| {
                let r = &mut entry.record;
                if !matches!(r.phase, JobPhase::Running { .. }) {
                    return;
                }
                r.phase = JobPhase::Running {
                    state: status.state.clone(),
                };
                if let Some(progress) = progress {
                    r.progress_percent = progress;
                }
                r.poll_problem = None;
            })
            .await
            .is_some_and(|r| matches!(r.phase, JobPhase::Running { .. }));
        !still_running
    }

    /// Move a running job to a terminal phase (once), then refresh the balance.
    async fn finish(
        self: &Arc<Self>,
        local_id: LocalJobId,
        phase: JobPhase,
        status: Option<StatusResponse>,
    ) {
        let mut changed = false;
        self.mutate(local_id, |entry| {
            let r = &mut entry.record;
            if r.phase.is_finished() {
                return;
            }
            changed = true;
            if phase == JobPhase::Completed {
                r.progress_percent = 100.0;
            } else if let Some(progress) = status.as_ref().and_then(|s| s.progress) {
                r.progress_percent = progress.clamp(0.0, 100.0) as f32;
            }
            if let Some(status) = status {
                r.result = status.result.or(r.result.take());
                r.credits_used = status.credits_used.or(r.credits_used);
            }
            r.phase = phase;
            r.poll_problem = None;
            r.finished_at_unix_ms = Some(now_ms());
        })
        .await;
        if changed {
            tokio::spawn(refresh_credits(self.ctx.clone()));
        }
    }

    // -----------------------------------------------------------------------------------
    // Cancel and dismiss
    // -----------------------------------------------------------------------------------

    /// POST cancel, then look at the status at once to pick up `cancelled` (or, after a
    /// 409 CANNOT_CANCEL, whatever terminal state the job reached).
    pub async fn cancel(self: Arc<Self>, local_id: LocalJobId) {
        let Some(record) = self.record(local_id).await else {
            return;
        };
        let (JobPhase::Running { .. }, Some(generation_id)) =
            (&record.phase, record.generation_id.clone())
        else {
            return;
        };
        match self.ctx.client.cancel(&generation_id).await {
            Ok(()) => {}
            Err(error) if error.status() == Some(409) || error.code() == Some("CANNOT_CANCEL") => {
                tracing::debug!("job {local_id}: already terminal on the service");
            }
            Err(error) => {
                self.mutate(local_id, |entry| {
                    entry.record.poll_problem = Some(format!("Cancel failed: {error}"));
                })
                .await;
                return;
            }
        }
        match self.ctx.client.status(&generation_id).await {
            Ok(status) => {
                self.apply_status(local_id, status).await;
            }
            Err(error) => {
                // The poller picks the state up at its normal cadence (never faster than
                // the hint), so nothing more to do here.
                tracing::debug!("job {local_id}: status after cancel failed: {error}");
            }
        }
    }

    /// Forget a job: remove its journal row and tell the UI.
    pub async fn dismiss(self: Arc<Self>, local_id: LocalJobId) {
        let mut jobs = self.jobs.lock().await;
        let Some(entry) = jobs.remove(&local_id) else {
            return;
        };
        entry.wake.notify_one();
        if local_id > 0
            && let Err(e) = self.journal(move |j| j.remove(local_id)).await
        {
            tracing::error!("job {local_id}: journal delete failed: {e}");
        }
        self.ctx.emit(Event::JobRemoved(local_id)).await;
    }
}

/// The failure of a failed status: the `failure` object, else one built from `error`.
fn failure_of(status: &StatusResponse) -> Failure {
    let mut failure = status.failure.clone().unwrap_or_default();
    if failure.message.trim().is_empty() {
        failure.message = status
            .failure_message()
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(|| "The job failed; the service gave no reason.".to_owned());
    }
    failure
}

fn poll_error_action(
    error: &ApiError,
    consecutive_failures: u32,
    interval_secs: f64,
) -> PollErrorAction {
    let backoff_secs = (interval_secs * 2f64.powi(consecutive_failures.min(16) as i32 + 1))
        .clamp(interval_secs, MAX_BACKOFF_SECS.max(interval_secs));
    let seconds = |s: f64| s.max(0.0).ceil() as u64;
    match error {
        ApiError::Status { status: 404, .. } => PollErrorAction::Fail(Failure {
            message: "The service no longer knows this job (404 Not Found). It may have been \
deleted; check the media library."
                .to_owned(),
            code: Some(error.code().unwrap_or("NOT_FOUND").to_owned()),
            retryable: Some(false),
            ..Failure::default()
        }),
        ApiError::Status { status: 400, .. } => PollErrorAction::Fail(Failure {
            message: format!("The service refused to report on this job: {error}"),
            code: error.code().map(str::to_owned),
            retryable: Some(false),
            ..Failure::default()
        }),
        _ if error.is_rate_limited() => {
            let delay_secs = error
                .retry_after_secs()
                .unwrap_or(backoff_secs)
                .max(interval_secs);
            PollErrorAction::Retry {
                delay_secs,
                problem: format!("Rate limited — retrying in {} s", seconds(delay_secs)),
            }
        }
        ApiError::Connect(_) | ApiError::NoResponse(_) => PollErrorAction::Retry {
            delay_secs: backoff_secs,
            problem: format!("Connection lost — retrying in {} s", seconds(backoff_secs)),
        },
        ApiError::Status { status, .. } if *status >= 500 => PollErrorAction::Retry {
            delay_secs: backoff_secs,
            problem: format!(
                "Service error ({status}) — retrying in {} s",
                seconds(backoff_secs)
            ),
        },
        ApiError::Decode(_) => PollErrorAction::Retry {
            delay_secs: backoff_secs,
            problem: format!(
                "Unreadable status answer — retrying in {} s",
                seconds(backoff_secs)
            ),
        },
        other => PollErrorAction::Retry {
            delay_secs: backoff_secs,
            problem: format!("{other} — retrying in {} s", seconds(backoff_secs)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps() {
        let delays: Vec<u64> = (0..6)
            .map(
                |n| match poll_error_action(&ApiError::Connect("x".into()), n, 3.0) {
                    PollErrorAction::Retry { delay_secs, .. } => delay_secs as u64,
                    PollErrorAction::Fail(_) => 0,
                },
            )
            .collect();
        assert_eq!(delays, vec![6, 12, 24, 48, 60, 60]);
        match poll_error_action(&ApiError::NoResponse("x".into()), 1, 2.0) {
            PollErrorAction::Retry { problem, .. } => {
                assert_eq!(problem, "Connection lost — retrying in 8 s")
            }
            PollErrorAction::Fail(_) => panic!("transient"),
        }
    }

    #[test]
    fn rate_limit_uses_retry_after_and_not_found_fails() {
        let limited = ApiError::Status {
            status: 429,
            message: "slow".into(),
            code: None,
            retry_after_secs: Some(17.0),
        };
        match poll_error_action(&limited, 0, 3.0) {
            PollErrorAction::Retry {
                delay_secs,
                problem,
            } => {
                assert_eq!(delay_secs, 17.0);
                assert_eq!(problem, "Rate limited — retrying in 17 s");
            }
            PollErrorAction::Fail(_) => panic!("retry"),
        }
        let gone = ApiError::Status {
            status: 404,
            message: "Not found".into(),
            code: None,
            retry_after_secs: None,
        };
        assert!(matches!(
            poll_error_action(&gone, 0, 3.0),
            PollErrorAction::Fail(_)
        ));
    }
}
