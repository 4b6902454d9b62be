//! The submit queue: generation submits wait here, one queue per rate-limit group of the
//! contract, and leave through that group's gate (`ctx.rate_gates`), so a burst is paced
//! on this side instead of collecting 429s. A queued job is journalled before it waits
//! (it survives a restart) and can be cancelled without ever being sent.
//!
//! What happens to a submit's answer is decided in one place (`failure_action`): a 429
//! means nothing was created, so the job goes back to the front of its queue and is sent
//! again — the only automatic re-send. Anything else that failed is never re-sent.

use super::journal::CreditSnapshot;
use super::protocol::{Event, JobPhase, LocalJobId, QueueReason};
use super::reconcile::{CHECKING, snapshot_of, unconfirmed_note};
use super::runtime::refresh_credits;
use super::tracker::{Tracker, now_ms, poll_interval_secs};
use crate::api::{ApiError, GenerationKind, JobState, RateLimitGroup, SubmitResponse, Submitted};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;
use tokio::time::Instant;

/// How often a dispatcher looks again while the service is unreachable.
const UNREACHABLE_RECHECK_SECS: u64 = 1;
/// A queued job's send time is re-announced only when it moved by more than this.
const SENDS_AT_TOLERANCE_MS: i64 = 1_000;

/// The jobs waiting in one rate-limit group, in sending order.
#[derive(Default)]
struct GroupQueue {
    waiting: std::sync::Mutex<VecDeque<LocalJobId>>,
    /// Something was queued, cancelled or put back: the dispatcher looks again.
    changed: Notify,
}

impl GroupQueue {
    fn with_waiting<R>(&self, f: impl FnOnce(&mut VecDeque<LocalJobId>) -> R) -> R {
        // A poisoned lock only means another task panicked mid-push; the ids are intact.
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut waiting)
    }
}

/// Both generation groups' queues (contract, Limits).
#[derive(Default)]
pub(crate) struct SubmitQueue {
    image_generation: GroupQueue,
    other_generation: GroupQueue,
    transcription: GroupQueue,
}

impl SubmitQueue {
    fn group(&self, group: RateLimitGroup) -> &GroupQueue {
        match group {
            RateLimitGroup::ImageGeneration => &self.image_generation,
            RateLimitGroup::OtherGeneration => &self.other_generation,
            RateLimitGroup::Transcription => &self.transcription,
        }
    }

    /// Add at the back; returns the job's 1-based place.
    pub(super) fn push_back(&self, group: RateLimitGroup, local_id: LocalJobId) -> u32 {
        let queue = self.group(group);
        let place = queue.with_waiting(|w| {
            w.push_back(local_id);
            w.len()
        });
        queue.changed.notify_one();
        place_number(place - 1)
    }

    /// Put back at the front (after a 429: it was next in line and still is).
    fn push_front(&self, group: RateLimitGroup, local_id: LocalJobId) {
        let queue = self.group(group);
        queue.with_waiting(|w| w.push_front(local_id));
        queue.changed.notify_one();
    }

    pub(super) fn remove(&self, group: RateLimitGroup, local_id: LocalJobId) {
        let queue = self.group(group);
        queue.with_waiting(|w| w.retain(|id| *id != local_id));
        queue.changed.notify_one();
    }

    fn front(&self, group: RateLimitGroup) -> Option<LocalJobId> {
        self.group(group).with_waiting(|w| w.front().copied())
    }

    fn pop_front_if(&self, group: RateLimitGroup, local_id: LocalJobId) {
        self.group(group).with_waiting(|w| {
            if w.front() == Some(&local_id) {
                w.pop_front();
            }
        });
    }

    fn snapshot(&self, group: RateLimitGroup) -> Vec<LocalJobId> {
        self.group(group)
            .with_waiting(|w| w.iter().copied().collect())
    }
}

/// 0-based index to 1-based place.
fn place_number(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX - 1) + 1
}

/// What a failed submit leads to.
#[derive(Debug, PartialEq)]
enum FailureAction {
    /// 429: nothing was created; back to the front of the queue, sent again after the wait.
    Requeue,
    /// Refused (4xx other than 429) or never sent (connection refused, local problem):
    /// nothing was created. Never re-sent; the person decides.
    Reject,
    /// A job may exist (5xx, lost or unreadable answer, no job handle, TRACKING_ERROR):
    /// reconciled, never re-sent.
    Reconcile,
}

fn failure_action(error: &ApiError) -> FailureAction {
    if error.is_rate_limited() {
        return FailureAction::Requeue;
    }
    match error {
        ApiError::Status { status, .. } if (400..500).contains(status) => FailureAction::Reject,
        ApiError::Connect(_) | ApiError::Io(_) | ApiError::Invalid(_) => FailureAction::Reject,
        // 5xx, 2xx with success:false, lost answers, unreadable bodies, missing handles.
        ApiError::Status { .. }
        | ApiError::NoResponse(_)
        | ApiError::Decode(_)
        | ApiError::MissingJobHandle => FailureAction::Reconcile,
    }
}

/// Extra reads of the balance before a send when one fails transiently.
const BALANCE_READ_RETRIES: u32 = 3;

impl Tracker {
    /// Run one group's queue until the engine stops: send the front job whenever the gate
    /// has room (each POST in its own task, so several can be in flight), hold while the
    /// service is unreachable, and keep every waiting job's place and send time current.
    pub(super) async fn dispatch(self: Arc<Self>, group: RateLimitGroup) {
        let gate = self.ctx.rate_gates.generation(group).clone();
        loop {
            let Some(local_id) = self.submit_queue.front(group) else {
                self.submit_queue.group(group).changed.notified().await;
                continue;
            };
            let still_queued = self
                .record(local_id)
                .await
                .is_some_and(|r| matches!(r.phase, JobPhase::Queued { .. }));
            if !still_queued {
                // Cancelled or dismissed meanwhile.
                self.submit_queue.pop_front_if(group, local_id);
                continue;
            }
            let wait_until = if self.ctx.reachability.is_offline() {
                self.announce_places(group, QueueReason::ServiceUnreachable)
                    .await;
                Instant::now() + Duration::from_secs(UNREACHABLE_RECHECK_SECS)
            } else {
                match gate.try_acquire().await {
                    Ok(()) => {
                        self.submit_queue.pop_front_if(group, local_id);
                        self.spawn_job_task(
                            "job send",
                            local_id,
                            self.clone().send_queued(local_id, group),
                        );
                        continue;
                    }
                    Err(until) => {
                        self.announce_places(group, QueueReason::RateLimit).await;
                        until
                    }
                }
            };
            tokio::select! {
                () = tokio::time::sleep_until(wait_until) => {}
                () = self.submit_queue.group(group).changed.notified() => {}
            }
        }
    }

    /// Tell every waiting job of `group` its place and when it should go.
    async fn announce_places(&self, group: RateLimitGroup, reason: QueueReason) {
        let waiting = self.submit_queue.snapshot(group);
        let gate = self.ctx.rate_gates.generation(group);
        let send_times = match reason {
            QueueReason::RateLimit => gate.schedule(waiting.len()).await,
            QueueReason::ServiceUnreachable => Vec::new(),
        };
        let (now, now_unix_ms) = (Instant::now(), now_ms());
        for (index, local_id) in waiting.into_iter().enumerate() {
            let sends_at_unix_ms = send_times.get(index).map(|at| {
                let wait_ms = at.saturating_duration_since(now).as_millis();
                now_unix_ms.saturating_add(i64::try_from(wait_ms).unwrap_or(i64::MAX / 2))
            });
            let place = place_number(index);
            self.mutate(local_id, |entry| {
                let JobPhase::Queued {
                    place: old_place,
                    sends_at_unix_ms: old_sends_at,
                    reason: old_reason,
                } = entry.record.phase
                else {
                    return;
                };
                let moved = match (old_sends_at, sends_at_unix_ms) {
                    (Some(old), Some(new)) => (old - new).abs() > SENDS_AT_TOLERANCE_MS,
                    (old, new) => old.is_some() != new.is_some(),
                };
                if old_place != place || old_reason != reason || moved {
                    entry.record.phase = JobPhase::Queued {
                        place,
                        sends_at_unix_ms,
                        reason,
                    };
                }
            })
            .await;
        }
    }

    /// The balance just before a send, which reconcile compares against if the answer is
    /// lost. A read, so it is safe to ask again after a transient failure (5xx, a lost or
    /// unreadable answer); a refused connection is returned at once (the service is down).
    async fn balance_before_send(&self) -> Result<(crate::api::Credits, CreditSnapshot), ApiError> {
        let mut attempt = 0;
        loop {
            match self.ctx.client.credits_dated().await {
                Ok((credits, service_time_unix_ms)) => {
                    let snapshot = snapshot_of(&credits, now_ms(), service_time_unix_ms);
                    return Ok((credits, snapshot));
                }
                Err(error)
                    if attempt < BALANCE_READ_RETRIES
                        && !matches!(error, ApiError::Connect(_))
                        && (error.is_transient() || matches!(error, ApiError::Decode(_))) =>
                {
                    attempt += 1;
                    let wait_secs = error.retry_after_secs().unwrap_or(0.5).min(5.0);
                    tokio::time::sleep(Duration::from_secs_f64(wait_secs)).await;
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// Send one job the gate let through. Under the jobs lock, and only if it is still
    /// queued (a cancel may have won): Submitting goes to the journal first, then the send
    /// time and the balance read just now (reconcile compares against it); then the POST.
    async fn send_queued(self: Arc<Self>, local_id: LocalJobId, group: RateLimitGroup) {
        let credits_before = match self.balance_before_send().await {
            Ok((credits, snapshot)) => {
                self.ctx.emit(Event::Credits(Ok(credits))).await;
                Some(snapshot)
            }
            Err(error @ ApiError::Connect(_)) => {
                // Nothing answers: keep the job in line rather than refuse it. The event
                // tells the engine the service is unreachable, so the queue holds.
                tracing::info!("job {local_id}: service unreachable, kept in the queue");
                self.ctx.emit(Event::Credits(Err(error))).await;
                self.back_in_line(local_id, group, None, QueueReason::ServiceUnreachable)
                    .await;
                return;
            }
            Err(e) => {
                tracing::warn!("credit balance before submit unavailable: {e}");
                None
            }
        };
        let spec = {
            let mut jobs = self.jobs.lock().await;
            let Some(entry) = jobs.get_mut(&local_id) else {
                return;
            };
            if !matches!(entry.record.phase, JobPhase::Queued { .. }) {
                return;
            }
            let mut record = entry.record.clone();
            record.phase = JobPhase::Submitting;
            let to_save = record.clone();
            let sent_at_unix_ms = now_ms();
            let written = self
                .journal(move |j| {
                    j.save(&to_save)?;
                    j.save_send(local_id, sent_at_unix_ms, credits_before)
                })
                .await;
            if let Err(e) = written {
                // Without the Submitting row a crash could lose track of a billed job.
                tracing::error!("job {local_id}: cannot record the send, not sending: {e}");
                record.phase = JobPhase::Rejected {
                    error: ApiError::Invalid(
                        e.not_sent_message(self.ctx.journal.path().as_deref()),
                    ),
                };
                record.finished_at_unix_ms = Some(now_ms());
            }
            entry.record = record.clone();
            entry.credits_before = credits_before;
            entry.sent_at_unix_ms = Some(sent_at_unix_ms);
            self.ctx.emit(Event::JobUpdated(record.clone())).await;
            if record.phase != JobPhase::Submitting {
                return;
            }
            record.spec
        };
        let sent_at = Instant::now();
        let Submitted { result, rate_limit } = self.ctx.client.submit_observed(&spec).await;
        self.ctx.reachability.note(result.as_ref());
        let gate = self.ctx.rate_gates.generation(group);
        if let Some(info) = &rate_limit {
            gate.learn(info, sent_at).await;
            // The dispatcher may be waiting for a slot the announced reset has moved.
            self.submit_queue.group(group).changed.notify_one();
        }
        match result {
            Ok(answer) => self.accepted(local_id, answer).await,
            Err(error) => match failure_action(&error) {
                FailureAction::Requeue => {
                    let wait_secs = gate.back_off_after(&error).await;
                    tracing::info!("job {local_id}: rate limited; sending again in {wait_secs} s");
                    let sends_at_unix_ms = now_ms() + (wait_secs * 1000.0) as i64;
                    self.back_in_line(
                        local_id,
                        group,
                        Some(sends_at_unix_ms),
                        QueueReason::RateLimit,
                    )
                    .await;
                }
                FailureAction::Reconcile
                    if matches!(spec.kind, GenerationKind::VideoTrim | GenerationKind::Chat) =>
                {
                    // A trim is free and leaves nothing reconcile could match (no prompt,
                    // no charge); a chat answer leaves no library item to find: either
                    // stays unconfirmed, says so, and is never re-sent.
                    tracing::warn!("job {local_id}: submit outcome unknown: {error}");
                    self.mutate(local_id, |entry| {
                        entry.record.phase = JobPhase::Unconfirmed {
                            note: unconfirmed_note(spec.kind).to_owned(),
                        };
                    })
                    .await;
                }
                FailureAction::Reconcile => {
                    tracing::warn!("job {local_id}: submit outcome unknown: {error}");
                    self.mutate(local_id, |entry| {
                        entry.record.phase = JobPhase::Unconfirmed {
                            note: CHECKING.to_owned(),
                        };
                    })
                    .await;
                    self.reconcile(local_id).await;
                }
                FailureAction::Reject => {
                    tracing::info!("job {local_id}: submit refused or not sent: {error}");
                    self.mutate(local_id, |entry| {
                        entry.record.phase = JobPhase::Rejected { error };
                        entry.record.finished_at_unix_ms = Some(now_ms());
                    })
                    .await;
                }
            },
        }
    }

    /// Put a job that was let through but not created back at the front of its queue
    /// (journalled as Queued first). A job cancelled meanwhile stays cancelled.
    async fn back_in_line(
        &self,
        local_id: LocalJobId,
        group: RateLimitGroup,
        sends_at_unix_ms: Option<i64>,
        reason: QueueReason,
    ) {
        let mut requeued = false;
        self.mutate(local_id, |entry| {
            if matches!(
                entry.record.phase,
                JobPhase::Queued { .. } | JobPhase::Submitting
            ) {
                entry.record.phase = JobPhase::Queued {
                    place: 1,
                    sends_at_unix_ms,
                    reason,
                };
                requeued = true;
            }
        })
        .await;
        if requeued {
            self.submit_queue.push_front(group, local_id);
        }
    }

    /// The service took the job: its id goes to the journal, then polling starts. The
    /// older synchronous chat answer (the content, no handle) is a job finished at once.
    async fn accepted(self: Arc<Self>, local_id: LocalJobId, answer: SubmitResponse) {
        if answer.is_finished_answer() {
            self.finished_at_once(local_id, answer).await;
            return;
        }
        let mut interval_secs = super::tracker::DEFAULT_POLL_INTERVAL_SECS;
        let generation_id = answer.generation_id.clone();
        self.mutate(local_id, |entry| {
            let r = &mut entry.record;
            interval_secs = poll_interval_secs(r.spec.kind, answer.poll_interval_hint);
            learn_conversation(r, &answer);
            if answer.existing_job {
                // 409 DUPLICATE_REQUEST (/edit/image): nothing new was started; this job
                // follows the one the same request started moments ago.
                tracing::info!("job {local_id}: a duplicate; following the job already running");
                r.model_label = followed_label(&r.model_label);
            }
            r.generation_id = generation_id;
            r.poll_interval_secs = interval_secs;
            r.phase = JobPhase::Running {
                state: JobState::Processing,
            };
        })
        .await;
        tokio::spawn(refresh_credits(self.ctx.clone()));
        // The first poll comes one interval after the submit.
        self.spawn_job_task(
            "job poll",
            local_id,
            self.clone()
                .poll_loop(local_id, Duration::from_secs_f64(interval_secs)),
        );
    }

    /// A synchronous chat answer: the job completes with the answer as its result.
    async fn finished_at_once(&self, local_id: LocalJobId, answer: SubmitResponse) {
        self.mutate(local_id, |entry| {
            let r = &mut entry.record;
            learn_conversation(r, &answer);
            r.result = Some(crate::api::JobResult {
                content: answer.content.clone(),
                model: answer.model.clone(),
                ..crate::api::JobResult::default()
            });
            r.credits_used = answer.credits_used;
            r.progress_percent = 100.0;
            r.phase = JobPhase::Completed;
            r.finished_at_unix_ms = Some(now_ms());
        })
        .await;
        tokio::spawn(refresh_credits(self.ctx.clone()));
    }

    /// Cancel a job that is still queued: it becomes Cancelled without being sent. Returns
    /// false when the job is not queued (it may already be on its way).
    pub(super) async fn cancel_queued(&self, local_id: LocalJobId) -> bool {
        let mut group = None;
        self.mutate(local_id, |entry| {
            if matches!(entry.record.phase, JobPhase::Queued { .. }) {
                group = Some(entry.record.spec.kind.rate_limit_group());
                entry.record.phase = JobPhase::Cancelled;
                entry.record.finished_at_unix_ms = Some(now_ms());
            }
        })
        .await;
        match group {
            Some(group) => {
                tracing::info!("job {local_id}: cancelled before it was sent");
                self.submit_queue.remove(group, local_id);
                true
            }
            None => false,
        }
    }
}

/// What a job that follows an existing one (409 DUPLICATE_REQUEST) is called in the tray.
pub fn followed_label(label: &str) -> String {
    format!("{label} {FOLLOWED_SUFFIX}")
}

/// Appended to the label of a job that a duplicate submit opened instead of starting anew.
pub const FOLLOWED_SUFFIX: &str = "(already running: following that job)";

/// A chat message sent without a conversation learns the one the service opened for it,
/// so the Chat view files it there and a Retry continues that conversation.
fn learn_conversation(record: &mut super::protocol::JobRecord, answer: &SubmitResponse) {
    if record.spec.kind == GenerationKind::Chat && record.spec.request.session_id.is_none() {
        record.spec.request.session_id =
            answer.session_id.clone().filter(|id| !id.trim().is_empty());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: u16) -> ApiError {
        ApiError::Status {
            status,
            message: String::new(),
            code: None,
            retry_after_secs: None,
        }
    }

    #[test]
    fn only_a_429_is_sent_again() {
        assert_eq!(failure_action(&status(429)), FailureAction::Requeue);
        for refused in [400, 401, 403, 404, 409, 422] {
            assert_eq!(failure_action(&status(refused)), FailureAction::Reject);
        }
        assert_eq!(
            failure_action(&ApiError::Connect("refused".into())),
            FailureAction::Reject
        );
        for unknown in [
            status(500),
            status(502),
            status(200),
            ApiError::NoResponse("reset".into()),
            ApiError::Decode("eof".into()),
            ApiError::MissingJobHandle,
        ] {
            assert_eq!(
                failure_action(&unknown),
                FailureAction::Reconcile,
                "{unknown}"
            );
        }
    }

    #[test]
    fn places_are_one_based_in_sending_order() {
        let queue = SubmitQueue::default();
        let image = RateLimitGroup::ImageGeneration;
        assert_eq!(queue.push_back(image, 7), 1);
        assert_eq!(queue.push_back(image, 8), 2);
        assert_eq!(queue.push_back(RateLimitGroup::OtherGeneration, 9), 1);
        queue.push_front(image, 6);
        assert_eq!(queue.snapshot(image), vec![6, 7, 8]);
        queue.remove(image, 7);
        queue.pop_front_if(image, 8);
        assert_eq!(queue.snapshot(image), vec![6, 8]);
        queue.pop_front_if(image, 6);
        assert_eq!(queue.front(image), Some(8));
    }
}
