//! Profiles switched away from while their jobs still run. Switching profile moves the old
//! connection here when it has unfinished jobs: its engine keeps polling (and for the local
//! profile, the embedded sandbox keeps working), its job events still reach the tray, and
//! Cancel still reaches it. Once its last job finishes the engine and sandbox stop; the
//! finished jobs stay in the tray, labelled with their profile, until dismissed or until
//! the profile is activated again (its engine then restores them from the journal).

use crate::engine::{Command, EngineHandle, Event, JobRecord, Journal, LocalJobId};
use crate::sandbox::SandboxHandle;
use std::collections::BTreeMap;
use std::path::Path;

/// The jobs one engine reported, kept current from its events (the session reads every
/// event on its way to the UI).
#[derive(Default)]
pub(super) struct JobBook {
    jobs: BTreeMap<LocalJobId, JobRecord>,
    /// The engine sent its journal's jobs (until then "no unfinished job" means nothing).
    restored: bool,
}

impl JobBook {
    pub fn observe(&mut self, event: &Event) {
        match event {
            Event::JobsRestored(records) => {
                self.jobs = records.iter().map(|r| (r.local_id, r.clone())).collect();
                self.restored = true;
            }
            Event::JobUpdated(record) => {
                self.jobs.insert(record.local_id, record.clone());
            }
            Event::JobRemoved(local_id) => {
                self.jobs.remove(local_id);
            }
            _ => {}
        }
    }

    pub fn unfinished_count(&self) -> usize {
        self.jobs
            .values()
            .filter(|job| !job.phase.is_finished())
            .count()
    }

    pub fn contains(&self, local_id: LocalJobId) -> bool {
        self.jobs.contains_key(&local_id)
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    fn forget(&mut self, local_id: LocalJobId) {
        self.jobs.remove(&local_id);
    }

    pub fn records(&self) -> impl Iterator<Item = &JobRecord> {
        self.jobs.values()
    }
}

/// A profile that is not active but whose jobs the tray still shows.
pub(super) struct BackgroundProfile {
    pub profile_id: String,
    pub profile_name: String,
    /// Running while any of its jobs is unfinished.
    engine: Option<EngineHandle>,
    /// The embedded sandbox (local profile), kept with the engine.
    sandbox: Option<SandboxHandle>,
    pub jobs: JobBook,
}

impl BackgroundProfile {
    pub fn new(
        profile_id: String,
        profile_name: String,
        engine: EngineHandle,
        sandbox: Option<SandboxHandle>,
        jobs: JobBook,
    ) -> Self {
        Self {
            profile_id,
            profile_name,
            engine: Some(engine),
            sandbox,
            jobs,
        }
    }

    /// Reads what its engine reported since last time (only job events matter: nothing
    /// else of a background profile is shown); stops it once no job is left unfinished.
    pub fn drain(&mut self) {
        let Some(engine) = self.engine.as_mut() else {
            return;
        };
        while let Some(event) = engine.try_recv() {
            if let Event::TaskPanicked { doing } = &event {
                tracing::error!("{}: a task stopped while {doing}", self.profile_name);
            }
            self.jobs.observe(&event);
        }
        if self.jobs.restored && self.jobs.unfinished_count() == 0 {
            tracing::info!(
                "{}: its last job finished; stopping its engine",
                self.profile_name
            );
            self.stop();
        }
    }

    /// Whether nothing is left to show or run.
    pub fn is_done(&self) -> bool {
        self.engine.is_none() && self.jobs.is_empty()
    }

    /// A command for one of its jobs. Once the engine stopped (every job finished), only
    /// Dismiss means anything: the journal row is removed here.
    pub fn send(&mut self, command: Command, journal_path: &Path) -> Result<(), String> {
        if let Some(engine) = &self.engine {
            return engine.send(command).map_err(|e| e.to_string());
        }
        if let Command::Dismiss { local_id } = command {
            self.jobs.forget(local_id);
            Journal::open(journal_path)
                .and_then(|journal| journal.remove(local_id))
                .map_err(|e| {
                    tracing::error!("job {local_id}: journal delete failed: {e}");
                    "The job could not be removed from the job journal.".to_owned()
                })?;
        }
        Ok(())
    }

    /// Stops the engine (then the sandbox it talks to). Unfinished jobs resume when the
    /// profile is activated again, or at the next start.
    pub fn stop(&mut self) {
        if let Some(engine) = self.engine.take() {
            let _ = engine.send(Command::Shutdown);
            engine.shutdown();
        }
        drop(self.sandbox.take());
    }

    /// Stops the engine but hands back the running sandbox, for the profile's own
    /// connection when it is activated again (its jobs keep running meanwhile).
    pub fn into_sandbox(mut self) -> Option<SandboxHandle> {
        if let Some(engine) = self.engine.take() {
            let _ = engine.send(Command::Shutdown);
            engine.shutdown();
        }
        self.sandbox.take()
    }
}

impl Drop for BackgroundProfile {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The local job a command is about, when it is about one job.
pub(super) fn job_of(command: &Command) -> Option<LocalJobId> {
    match command {
        Command::Cancel { local_id }
        | Command::Dismiss { local_id }
        | Command::Reconcile { local_id } => Some(*local_id),
        _ => None,
    }
}

/// A job of a profile that is not active, as the tray shows it.
#[derive(Clone, Copy, Debug)]
pub struct OtherProfileJob<'a> {
    pub profile_name: &'a str,
    pub record: &'a JobRecord,
}

/// What a profile switch left running on the profile switched away from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptRunning {
    pub profile_name: String,
    pub job_count: usize,
}

impl KeptRunning {
    /// "2 jobs keep running on Local sandbox".
    pub fn message(&self) -> String {
        let jobs = if self.job_count == 1 {
            "1 job keeps".to_owned()
        } else {
            format!("{} jobs keep", self.job_count)
        };
        format!("{jobs} running on {}", self.profile_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::JobPhase;

    fn job(local_id: LocalJobId, phase: JobPhase) -> JobRecord {
        JobRecord {
            local_id,
            generation_id: None,
            spec: crate::api::GenerationSpec::new(
                crate::api::GenerationKind::Image,
                crate::api::GenerationRequest {
                    prompt: "a harbour".into(),
                    ..Default::default()
                },
            ),
            model_label: "Auto".to_owned(),
            phase,
            progress_percent: 0.0,
            submitted_at_unix_ms: 0,
            finished_at_unix_ms: None,
            credits_estimate: None,
            credits_used: None,
            result: None,
            poll_problem: None,
            poll_interval_secs: 3.0,
            scenes: Vec::new(),
        }
    }

    #[test]
    fn the_book_follows_restores_updates_and_removals() {
        let mut book = JobBook::default();
        book.observe(&Event::JobsRestored(vec![
            job(1, JobPhase::Completed),
            job(2, JobPhase::Submitting),
        ]));
        assert_eq!(book.unfinished_count(), 1);
        book.observe(&Event::JobUpdated(job(3, JobPhase::Submitting)));
        assert_eq!(book.unfinished_count(), 2);
        book.observe(&Event::JobUpdated(job(2, JobPhase::Cancelled)));
        book.observe(&Event::JobRemoved(1));
        assert_eq!(book.unfinished_count(), 1);
        assert!(!book.contains(1) && book.contains(2) && book.contains(3));
    }

    #[test]
    fn the_switch_message_counts_jobs_in_words() {
        let one = KeptRunning {
            profile_name: "Local sandbox".to_owned(),
            job_count: 1,
        };
        assert_eq!(one.message(), "1 job keeps running on Local sandbox");
        let two = KeptRunning {
            job_count: 2,
            ..one
        };
        assert_eq!(two.message(), "2 jobs keep running on Local sandbox");
    }
}
