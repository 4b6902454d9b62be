//! A panic in one job's task (send, poll, reconcile, cancel) is caught at the task
//! boundary (`guard::spawn_guarded`), logged once there, and shown on that job in words
//! that keep the billing rules: a job that may exist is never called "not created", and
//! nothing is re-sent. The queue's per-group dispatchers are restarted, so one bad job
//! cannot stop the others from being sent.

use super::guard::spawn_guarded;
use super::protocol::{JobPhase, LocalJobId};
use super::tracker::{Tracker, now_ms};
use crate::api::{ApiError, RateLimitGroup};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// Pause before a panicked dispatcher starts again (a panic that repeats must not spin).
const DISPATCHER_RESTART_SECS: u64 = 1;

const SEND_PANICKED: &str = "Something went wrong inside Framewright while sending this job, \
so it is not known whether the service received it. It will not be sent again; checking \
whether it was created.";

const FOLLOW_PANICKED: &str = "Something went wrong inside Framewright while following this \
job, so it stopped being followed. It may still finish on the service (and be billed); \
restart Framewright to follow it again. Don't submit it again.";

impl Tracker {
    /// Spawn a task of job `local_id`; a panic in it is shown on that job.
    pub(super) fn spawn_job_task<F>(
        self: &Arc<Self>,
        name: &'static str,
        local_id: LocalJobId,
        task: F,
    ) where
        F: Future<Output = ()> + Send + 'static,
    {
        let owner = self.clone();
        spawn_guarded(name, task, move |message| async move {
            owner.job_task_panicked(local_id, message).await;
        });
    }

    /// Spawn the queue's dispatcher of `group`, restarted after a panic.
    pub(super) fn spawn_dispatcher(self: &Arc<Self>, group: RateLimitGroup) {
        let owner = self.clone();
        spawn_guarded(
            "submit queue",
            self.clone().dispatch(group),
            move |_| async move {
                tokio::time::sleep(Duration::from_secs(DISPATCHER_RESTART_SECS)).await;
                owner.spawn_dispatcher(group);
            },
        );
    }

    async fn job_task_panicked(self: &Arc<Self>, local_id: LocalJobId, message: String) {
        let mut reconcile = false;
        self.mutate(local_id, |entry| {
            entry.polling = false;
            entry.reconciling = false;
            let record = &mut entry.record;
            match record.phase {
                // Never sent: nothing was billed.
                JobPhase::Queued { .. } => {
                    record.phase = JobPhase::Rejected {
                        error: ApiError::Invalid(format!(
                            "Not sent: something went wrong inside Framewright ({message}). \
                             Nothing was charged."
                        )),
                    };
                    record.finished_at_unix_ms = Some(now_ms());
                }
                // The POST may have left: a lost answer, reconciled, never re-sent.
                JobPhase::Submitting => {
                    record.phase = JobPhase::Unconfirmed {
                        note: SEND_PANICKED.to_owned(),
                    };
                    reconcile = true;
                }
                JobPhase::Running { .. } | JobPhase::Unconfirmed { .. } => {
                    record.poll_problem = Some(FOLLOW_PANICKED.to_owned());
                }
                _ => {}
            }
        })
        .await;
        if reconcile {
            self.spawn_job_task("job reconcile", local_id, self.clone().reconcile(local_id));
        }
    }
}
