//! The job tracker: submit (journalled, then queued and paced in `submit_queue`; never
//! re-sent except after a 429), poll at the service's hint, cancel, reconcile lost submits
//! (media library first, then the credit balance), resume after a restart.

use super::journal::{CreditSnapshot, Journal, JournalError, JournalRow};
use super::protocol::{Event, JobPhase, JobRecord, LocalJobId, QueueReason};
use super::reconcile::CHECKING_AFTER_RESTART;
use super::runtime::{Ctx, refresh_credits};
use super::submit_queue::SubmitQueue;
use crate::api::video_edit::VideoJobRequest;
use crate::api::{
    ApiError, Failure, GenerationKind, GenerationSpec, JobResult, JobState, RateLimitGroup, Scene,
    StatusResponse,
};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;
use tokio::sync::{Mutex, Notify};

/// Poll interval when the submit answer gives no hint (contract: 3 s for images).
pub const DEFAULT_POLL_INTERVAL_SECS: f64 = 3.0;
/// Longest wait between polls while backing off.
pub const MAX_BACKOFF_SECS: f64 = 60.0;
/// Trims return no poll hint (the contract suggests 2-4 s): polled every 3 s.
pub const TRIM_POLL_INTERVAL_SECS: f64 = 3.0;
/// Chat answers when the submit gives no hint (contract: 2 s for chat).
pub const CHAT_POLL_INTERVAL_SECS: f64 = 2.0;
/// Video edits and video to video when the answer carries no hint (contract: 8 s for
/// everything but chat, images, sound and Creative Director).
pub const VIDEO_JOB_POLL_INTERVAL_SECS: f64 = 8.0;

/// How often a job of `kind` is polled given the submit answer's hint. Trims have no hint
/// and are always polled every [`TRIM_POLL_INTERVAL_SECS`].
pub fn poll_interval_secs(kind: GenerationKind, hint_secs: Option<f64>) -> f64 {
    let hint_secs = hint_secs.filter(|s| s.is_finite() && *s > 0.0);
    match kind {
        GenerationKind::VideoTrim => TRIM_POLL_INTERVAL_SECS,
        GenerationKind::VideoEdit | GenerationKind::VideoToVideo => {
            hint_secs.unwrap_or(VIDEO_JOB_POLL_INTERVAL_SECS)
        }
        GenerationKind::Chat => hint_secs.unwrap_or(CHAT_POLL_INTERVAL_SECS),
        // Contract table: 5 s for sound, 8 s for music and speech (the speech wire example
        // says 3: whatever the answer says wins).
        GenerationKind::Music | GenerationKind::Speech | GenerationKind::Sound => {
            hint_secs.unwrap_or(kind.default_poll_hint_secs())
        }
        _ => hint_secs.unwrap_or(DEFAULT_POLL_INTERVAL_SECS),
    }
}

/// The progress to show after an answer reporting `reported_percent`: never below what was
/// shown before (a trim's progress is not monotonic across its execution paths, and a bar
/// going backwards reads as something broke), clamped to 0-100. Unreadable values change
/// nothing.
pub fn shown_progress(shown_percent: f32, reported_percent: Option<f64>) -> f32 {
    match reported_percent.filter(|p| p.is_finite()) {
        Some(reported) => shown_percent.max(reported.clamp(0.0, 100.0) as f32),
        None => shown_percent,
    }
}

pub(super) struct JobEntry {
    pub(super) record: JobRecord,
    pub(super) credits_before: Option<CreditSnapshot>,
    /// When the submit POST left (our clock): reconcile knows a job sent after a balance
    /// reading was charged after it.
    pub(super) sent_at_unix_ms: Option<i64>,
    /// Wakes the poller early (cancel, dismiss).
    pub(super) wake: Arc<Notify>,
    pub(super) polling: bool,
    pub(super) reconciling: bool,
}

pub(crate) struct Tracker {
    pub(super) ctx: Arc<Ctx>,
    pub(super) jobs: Mutex<BTreeMap<LocalJobId, JobEntry>>,
    /// Journalled jobs waiting for their rate-limit group's gate.
    pub(super) submit_queue: SubmitQueue,
    /// Ids for jobs that could not be written to the journal (negative, memory only).
    unsaved_ids: AtomicI64,
    /// Library pages read by reconcile, shared by every lost answer being looked for.
    pub(super) library_pages: super::reconcile::LibraryPageCache,
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
            submit_queue: SubmitQueue::default(),
            unsaved_ids: AtomicI64::new(-1),
            library_pages: Default::default(),
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
            // The journal stores neither poll_problem nor a queued job's place and send
            // time: skip the write when only they changed.
            let mut persisted_before = before;
            persisted_before.poll_problem = record.poll_problem.clone();
            if matches!(
                (&persisted_before.phase, &record.phase),
                (JobPhase::Queued { .. }, JobPhase::Queued { .. })
            ) {
                persisted_before.phase = record.phase.clone();
            }
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

    /// Load this service's rows, tell the UI, and resume every unfinished job: Queued goes
    /// back in its queue in local-id order (it was never sent); Running is polled;
    /// Submitting (the app stopped mid-POST) becomes Unconfirmed and, like every
    /// Unconfirmed row, is reconciled. Nothing that may have been sent is ever re-sent.
    /// Then the queues' dispatchers start.
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
        let mut to_queue = Vec::new();
        let mut restored = Vec::with_capacity(rows.len());
        {
            let mut jobs = self.jobs.lock().await;
            for JournalRow {
                mut record,
                credits_before,
                sent_at_unix_ms,
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
                    JobPhase::Queued { .. } => {
                        to_queue.push((record.local_id, record.spec.kind.rate_limit_group()));
                    }
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
                        sent_at_unix_ms,
                        wake: Arc::new(Notify::new()),
                        polling: false,
                        reconciling: false,
                    },
                );
            }
        }
        to_queue.sort_unstable();
        for (local_id, group) in to_queue {
            self.submit_queue.push_back(group, local_id);
        }
        self.ctx.emit(Event::JobsRestored(restored)).await;
        for group in [
            RateLimitGroup::ImageGeneration,
            RateLimitGroup::OtherGeneration,
            RateLimitGroup::Transcription,
        ] {
            self.spawn_dispatcher(group);
        }
        for local_id in to_poll {
            // The last poll was at least a restart ago: look now.
            self.spawn_job_task(
                "job poll",
                local_id,
                self.clone().poll_loop(local_id, Duration::ZERO),
            );
        }
        for local_id in to_reconcile {
            self.spawn_job_task("job reconcile", local_id, self.clone().reconcile(local_id));
        }
    }

    // -----------------------------------------------------------------------------------
    // Submit
    // -----------------------------------------------------------------------------------

    /// Journal the job as Queued (full request), show it, and put it at the back of its
    /// rate-limit group's queue; `submit_queue` sends it when the gate has room. A job
    /// whose row cannot be written is never sent.
    pub async fn submit(
        self: Arc<Self>,
        spec: GenerationSpec,
        model_label: String,
        credits_estimate: Option<f64>,
    ) {
        let group = spec.kind.rate_limit_group();
        let mut record = JobRecord {
            local_id: 0,
            generation_id: None,
            spec,
            model_label,
            phase: JobPhase::Queued {
                place: 0,
                sends_at_unix_ms: None,
                reason: QueueReason::RateLimit,
            },
            progress_percent: 0.0,
            submitted_at_unix_ms: now_ms(),
            finished_at_unix_ms: None,
            credits_estimate,
            credits_used: None,
            result: None,
            poll_problem: None,
            poll_interval_secs: DEFAULT_POLL_INTERVAL_SECS,
            scenes: Vec::new(),
        };

        let mut jobs = self.jobs.lock().await;
        let service_id = self.ctx.service_id.clone();
        let to_insert = record.clone();
        // The balance is read just before the POST (reconcile compares against it).
        match self
            .journal(move |j| j.insert(&service_id, &to_insert, None))
            .await
        {
            Ok(id) => record.local_id = id,
            Err(e) => {
                // Without a journal row a crash could lose track of a billed job:
                // refuse to send.
                tracing::error!("cannot record the job, not sending it: {e}");
                record.local_id = self.unsaved_ids.fetch_sub(1, Ordering::Relaxed);
                record.phase = JobPhase::Rejected {
                    error: ApiError::Invalid(
                        e.not_sent_message(self.ctx.journal.path().as_deref()),
                    ),
                };
                record.finished_at_unix_ms = Some(now_ms());
            }
        }
        if record.local_id > 0 {
            // Under the jobs lock, so the dispatcher finds the entry when it looks.
            let place = self.submit_queue.push_back(group, record.local_id);
            record.phase = JobPhase::Queued {
                place,
                sends_at_unix_ms: None,
                reason: QueueReason::RateLimit,
            };
        }
        jobs.insert(
            record.local_id,
            JobEntry {
                record: record.clone(),
                credits_before: None,
                sent_at_unix_ms: None,
                wake: Arc::new(Notify::new()),
                polling: false,
                reconciling: false,
            },
        );
        self.ctx.emit(Event::JobUpdated(record)).await;
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
            if record.spec.kind.polls_trim_route() {
                // GET /video/trim/:jobId is in the media and lifecycle group (120/min).
                self.ctx.rate_gates.media.acquire().await;
            }
            let polled = self
                .ctx
                .client
                .status_of(record.spec.kind, generation_id)
                .await;
            self.ctx.reachability.note(polled.as_ref());
            match polled {
                Ok(status) => {
                    consecutive_failures = 0;
                    if self.apply_status(local_id, status).await {
                        break;
                    }
                    delay = Duration::from_secs_f64(interval_secs);
                }
                Err(error) => {
                    let others_succeeding = self
                        .ctx
                        .reachability
                        .succeeded_within(Duration::from_secs_f64(interval_secs));
                    match poll_error_action(
                        &error,
                        consecutive_failures,
                        interval_secs,
                        others_succeeding,
                    ) {
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
                            tracing::warn!("job {local_id}: status check refused: {error}");
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
        let still_running = self
            .mutate(local_id, |entry| {
                let r = &mut entry.record;
                if !matches!(r.phase, JobPhase::Running { .. }) {
                    return;
                }
                r.phase = JobPhase::Running {
                    state: status.state.clone(),
                };
                r.progress_percent = shown_progress(r.progress_percent, status.progress);
                if !status.scenes.is_empty() {
                    r.scenes = scenes_in_order(status.scenes.clone());
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
            } else {
                let reported = status.as_ref().and_then(|s| s.progress);
                r.progress_percent = shown_progress(r.progress_percent, reported);
            }
            if let Some(status) = status {
                if !status.scenes.is_empty() {
                    r.scenes = scenes_in_order(status.scenes.clone());
                }
                let mut result = status.result.or(r.result.take());
                // A trim's answer has no duration: the cut's length is what was asked.
                if let (Some(result), Some(VideoJobRequest::Trim(trim))) =
                    (result.as_mut(), r.spec.video.as_ref())
                    && result.duration.is_none()
                {
                    result.duration = trim.asked_length_secs();
                }
                r.result = if r.scenes.is_empty() {
                    result
                } else {
                    Some(batch_result(result, &r.scenes))
                };
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

    /// A queued job is cancelled on this side (never sent, nothing billed). A running trim
    /// is refused without sending anything (no cancel route; `JobRecord::can_cancel`). A
    /// running one:
    /// POST cancel (paced in the other-generation group, whose bucket cancel shares), then
    /// look at the status at once to pick up `cancelled` (or, after a 409 CANNOT_CANCEL,
    /// whatever terminal state the job reached).
    pub async fn cancel(self: Arc<Self>, local_id: LocalJobId) {
        if self.cancel_queued(local_id).await {
            return;
        }
        let Some(record) = self.record(local_id).await else {
            return;
        };
        let (JobPhase::Running { .. }, Some(generation_id)) =
            (&record.phase, record.generation_id.clone())
        else {
            return;
        };
        if !record.spec.kind.can_cancel() {
            // No cancel route (a trim): refused here, nothing is sent.
            tracing::info!(
                "job {local_id}: a {} cannot be cancelled",
                record.spec.kind.label()
            );
            self.mutate(local_id, |entry| {
                entry.record.poll_problem =
                    Some(crate::api::client::TRIM_CANNOT_BE_CANCELLED.to_owned());
            })
            .await;
            return;
        }
        self.ctx.rate_gates.other_generation.acquire().await;
        let cancelled = self
            .ctx
            .client
            .cancel(record.spec.kind, &generation_id)
            .await;
        self.ctx.reachability.note(cancelled.as_ref());
        match cancelled {
            Ok(()) => {}
            Err(error) if error.status() == Some(409) || error.code() == Some("CANNOT_CANCEL") => {
                tracing::debug!("job {local_id}: already terminal on the service");
            }
            Err(error) => {
                tracing::warn!("job {local_id}: cancel failed: {error}");
                self.mutate(local_id, |entry| {
                    entry.record.poll_problem = Some(format!(
                        "Could not cancel: {}",
                        super::error_in_words(&error)
                    ));
                })
                .await;
                return;
            }
        }
        match self
            .ctx
            .client
            .status_of(record.spec.kind, &generation_id)
            .await
        {
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

/// Scenes sorted by `scene_number` (the service lists them in order, but nothing says so).
fn scenes_in_order(mut scenes: Vec<Scene>) -> Vec<Scene> {
    scenes.sort_by_key(|scene| scene.scene_number.unwrap_or(u32::MAX));
    scenes
}

/// A finished Creative Director batch's result: the service sends scenes but no `result`,
/// so the outputs are every scene's URLs in scene order, the poster is the first scene's,
/// and the scenes themselves ride along (the journal keeps them for the storyboard).
fn batch_result(result: Option<JobResult>, scenes: &[Scene]) -> JobResult {
    let mut result = result.unwrap_or_default();
    if result.urls.is_empty() {
        result.urls = scenes
            .iter()
            .flat_map(|scene| scene.output_urls().iter().cloned())
            .collect();
    }
    if result.thumbnail_url.is_none() {
        result.thumbnail_url = scenes.iter().find_map(|scene| scene.thumbnail_url.clone());
    }
    result.scenes = scenes.to_vec();
    result
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

/// How far a job's status checks back off while other requests succeed: to twice the
/// interval. Its checks failing then are faults on its own connections, and a longer wait
/// only shows a finished job late (a 24-s wait after four faults in a row cost the chaos
/// drain 0.15× of its minimum).
const LONE_FAULT_MAX_DOUBLINGS: u32 = 1;

/// What to do after a failed status check. `others_succeeding`: some request to the service
/// succeeded within the last interval.
fn poll_error_action(
    error: &ApiError,
    consecutive_failures: u32,
    interval_secs: f64,
    others_succeeding: bool,
) -> PollErrorAction {
    // A status check is a free read: one dropped connection or 5xx is no sign of an
    // overloaded service, so the first retry keeps the usual interval; repeated failures
    // back off (doubling up to a minute) unless the service is answering everything else.
    // Never faster than the interval (the contract's hint).
    let doublings = if others_succeeding {
        consecutive_failures.min(LONE_FAULT_MAX_DOUBLINGS)
    } else {
        consecutive_failures.min(16)
    };
    let backoff_secs = (interval_secs * 2f64.powi(doublings as i32))
        .clamp(interval_secs, MAX_BACKOFF_SECS.max(interval_secs));

    let seconds = |s: f64| s.max(0.0).ceil() as u64;
    match error {
        ApiError::Status { status: 404, .. } => PollErrorAction::Fail(Failure {
            message: "The service no longer has this job: it may have been deleted there. \
Look for its result in the Library, or submit it again."
                .to_owned(),
            code: Some(error.code().unwrap_or("NOT_FOUND").to_owned()),
            retryable: Some(false),
            ..Failure::default()
        }),
        ApiError::Status { status: 400, .. } => PollErrorAction::Fail(Failure {
            message: format!(
                "The service refused to report on this job. {}",
                super::error_in_words(error)
            ),
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
                "The service had a problem — retrying in {} s",
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
            problem: format!(
                "{} Retrying in {} s",
                super::error_in_words(other),
                seconds(backoff_secs)
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_never_goes_backwards() {
        // A trim's progress as reported over its execution paths.
        let reported = [
            Some(10.0),
            Some(45.0),
            Some(20.0),
            None,
            Some(f64::NAN),
            Some(60.0),
            Some(5.0),
            Some(140.0),
        ];
        let mut shown = 0.0;
        let mut seen = Vec::new();
        for value in reported {
            shown = shown_progress(shown, value);
            seen.push(shown);
        }
        assert_eq!(seen, vec![10.0, 45.0, 45.0, 45.0, 45.0, 60.0, 60.0, 100.0]);
    }

    #[test]
    fn poll_intervals_per_kind() {
        assert_eq!(poll_interval_secs(GenerationKind::VideoTrim, None), 3.0);
        assert_eq!(
            poll_interval_secs(GenerationKind::VideoTrim, Some(30.0)),
            3.0
        );
        assert_eq!(
            poll_interval_secs(GenerationKind::VideoEdit, Some(8.0)),
            8.0
        );
        assert_eq!(poll_interval_secs(GenerationKind::VideoToVideo, None), 8.0);
        assert_eq!(poll_interval_secs(GenerationKind::Image, None), 3.0);
        assert_eq!(poll_interval_secs(GenerationKind::Chat, None), 2.0);
        assert_eq!(poll_interval_secs(GenerationKind::Sound, None), 5.0);
        assert_eq!(poll_interval_secs(GenerationKind::Music, None), 8.0);
        assert_eq!(poll_interval_secs(GenerationKind::Speech, None), 8.0);
        assert_eq!(poll_interval_secs(GenerationKind::Speech, Some(3.0)), 3.0);
        assert_eq!(poll_interval_secs(GenerationKind::Chat, Some(2.0)), 2.0);
        assert_eq!(
            poll_interval_secs(GenerationKind::TextToVideo, Some(0.0)),
            3.0
        );
    }

    fn retry_delays(error: &ApiError, others_succeeding: bool) -> Vec<u64> {
        (0..6)
            .map(
                |n| match poll_error_action(error, n, 3.0, others_succeeding) {
                    PollErrorAction::Retry { delay_secs, .. } => delay_secs as u64,
                    PollErrorAction::Fail(_) => 0,
                },
            )
            .collect()
    }

    #[test]
    fn one_failed_check_keeps_the_interval_then_backoff_doubles_and_caps() {
        // Never faster than the interval (the contract's hint).
        let lost = ApiError::Connect("x".into());
        assert_eq!(retry_delays(&lost, false), vec![3, 6, 12, 24, 48, 60]);
        match poll_error_action(&ApiError::NoResponse("x".into()), 2, 2.0, false) {
            PollErrorAction::Retry { problem, .. } => {
                assert_eq!(problem, "Connection lost — retrying in 8 s")
            }
            PollErrorAction::Fail(_) => panic!("transient"),
        }
    }

    #[test]
    fn while_other_requests_succeed_a_jobs_failing_checks_wait_at_most_twice_the_interval() {
        let lost = ApiError::NoResponse("connection closed".into());
        assert_eq!(retry_delays(&lost, true), vec![3, 6, 6, 6, 6, 6]);
        let broken = ApiError::Status {
            status: 502,
            message: String::new(),
            code: None,
            retry_after_secs: None,
        };
        assert_eq!(retry_delays(&broken, true), vec![3, 6, 6, 6, 6, 6]);
        // A rate limit still waits what the service asks.
        let limited = ApiError::Status {
            status: 429,
            message: String::new(),
            code: None,
            retry_after_secs: Some(20.0),
        };
        assert_eq!(retry_delays(&limited, true), vec![20; 6]);
    }

    #[test]
    fn rate_limit_uses_retry_after_and_not_found_fails() {
        let limited = ApiError::Status {
            status: 429,
            message: "slow".into(),
            code: None,
            retry_after_secs: Some(17.0),
        };
        match poll_error_action(&limited, 0, 3.0, false) {
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
        match poll_error_action(&gone, 0, 3.0, false) {
            PollErrorAction::Fail(failure) => {
                // Words and what to do; the status stays in the log.
                assert!(failure.message.contains("Library"), "{}", failure.message);
                assert!(!failure.message.contains("404"), "{}", failure.message);
                assert!(
                    !failure.message.contains("Not Found"),
                    "{}",
                    failure.message
                );
            }
            PollErrorAction::Retry { .. } => panic!("fail"),
        }
        let broken = ApiError::Status {
            status: 503,
            message: String::new(),
            code: Some("UPSTREAM".into()),
            retry_after_secs: None,
        };
        match poll_error_action(&broken, 1, 3.0, false) {
            PollErrorAction::Retry { problem, .. } => {
                assert_eq!(problem, "The service had a problem — retrying in 6 s")
            }
            PollErrorAction::Fail(_) => panic!("retry"),
        }
    }
}
