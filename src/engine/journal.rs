//! The job journal: one SQLite row per job, written before the submit is sent and after
//! every change, so the job list survives restarts and no job is ever re-sent. Rows are
//! scoped to a service profile (`service_id`).

use super::protocol::{JobPhase, JobRecord, LocalJobId, QueueReason};
use crate::api::{ApiError, Failure, GenerationSpec, JobResult, JobState};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Schema version stored in `PRAGMA user_version`.
const SCHEMA_VERSION: i64 = 2;

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("job journal database error: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("job journal row {local_id} is unreadable: {reason}")]
    Corrupt {
        local_id: LocalJobId,
        reason: String,
    },
    #[error("cannot create the journal folder {path}: {reason}")]
    Folder { path: String, reason: String },
    #[error("the job journal is unavailable (a previous writer panicked)")]
    Poisoned,
    #[error("journal task failed: {0}")]
    Task(String),
}

/// Credit balance just before a submit, kept to reconcile a lost answer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CreditSnapshot {
    pub available: Option<f64>,
    pub total: Option<f64>,
}

/// A journal row: the job as the UI sees it, plus what only the engine needs.
#[derive(Clone, Debug, PartialEq)]
pub struct JournalRow {
    pub record: JobRecord,
    pub credits_before: Option<CreditSnapshot>,
    /// When the submit POST was sent (`None` while queued or for rows from schema v1).
    pub sent_at_unix_ms: Option<i64>,
    /// The reconcile state of an unanswered submit (JSON owned by `engine::reconcile`).
    pub reconcile_json: Option<String>,
}

/// The phase as stored (JSON in the `phase_json` column).
#[derive(Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
enum StoredPhase {
    /// Waiting in the submit queue; place and send time are worked out again on restore.
    Queued,
    Submitting,
    Unconfirmed {
        note: String,
    },
    Rejected {
        error: ApiError,
    },
    Running {
        state: JobState,
    },
    Completed,
    Failed {
        failure: Failure,
    },
    Cancelled,
}

impl From<&JobPhase> for StoredPhase {
    fn from(phase: &JobPhase) -> Self {
        match phase {
            JobPhase::Queued { .. } => StoredPhase::Queued,
            JobPhase::Submitting => StoredPhase::Submitting,
            JobPhase::Unconfirmed { note } => StoredPhase::Unconfirmed { note: note.clone() },
            JobPhase::Rejected { error } => StoredPhase::Rejected {
                error: error.clone(),
            },
            JobPhase::Running { state } => StoredPhase::Running {
                state: state.clone(),
            },
            JobPhase::Completed => StoredPhase::Completed,
            JobPhase::Failed { failure } => StoredPhase::Failed {
                failure: failure.clone(),
            },
            JobPhase::Cancelled => StoredPhase::Cancelled,
        }
    }
}

impl From<StoredPhase> for JobPhase {
    fn from(phase: StoredPhase) -> Self {
        match phase {
            StoredPhase::Queued => JobPhase::Queued {
                place: 0,
                sends_at_unix_ms: None,
                reason: QueueReason::RateLimit,
            },
            StoredPhase::Submitting => JobPhase::Submitting,
            StoredPhase::Unconfirmed { note } => JobPhase::Unconfirmed { note },
            StoredPhase::Rejected { error } => JobPhase::Rejected { error },
            StoredPhase::Running { state } => JobPhase::Running { state },
            StoredPhase::Completed => JobPhase::Completed,
            StoredPhase::Failed { failure } => JobPhase::Failed { failure },
            StoredPhase::Cancelled => JobPhase::Cancelled,
        }
    }
}

/// A cheap, cloneable handle to the journal database. Calls are synchronous and short;
/// the engine runs them on tokio's blocking pool.
#[derive(Clone)]
pub struct Journal {
    connection: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Journal")
    }
}

impl Journal {
    /// Open or create the journal file (WAL mode) and bring its schema up to date.
    pub fn open(path: &Path) -> Result<Self, JournalError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| JournalError::Folder {
                path: parent.display().to_string(),
                reason: e.to_string(),
            })?;
        }
        let connection = Connection::open(path)?;
        Self::init(connection)
    }

    /// An in-memory journal (tests, tools).
    pub fn open_in_memory() -> Result<Self, JournalError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(connection: Connection) -> Result<Self, JournalError> {
        connection.busy_timeout(std::time::Duration::from_secs(5))?;
        // `journal_mode` returns a row; read it rather than execute.
        let _mode: String =
            connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        connection.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")?;
        let version: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if version < SCHEMA_VERSION {
            connection.execute_batch(
                "BEGIN;
                 CREATE TABLE IF NOT EXISTS jobs (
                     local_id INTEGER PRIMARY KEY AUTOINCREMENT,
                     service_id TEXT NOT NULL,
                     generation_id TEXT,
                     spec_json TEXT NOT NULL,
                     model_label TEXT NOT NULL,
                     phase_json TEXT NOT NULL,
                     progress_percent REAL NOT NULL DEFAULT 0,
                     submitted_at_unix_ms INTEGER NOT NULL,
                     finished_at_unix_ms INTEGER,
                     credits_estimate REAL,
                     credits_used REAL,
                     credits_available_before REAL,
                     credits_total_before REAL,
                     result_json TEXT,
                     poll_interval_secs REAL NOT NULL DEFAULT 3
                 );
                 CREATE INDEX IF NOT EXISTS jobs_by_service ON jobs(service_id, local_id);
                 PRAGMA user_version = 1;
                 COMMIT;",
            )?;
        }
        if version < 2 {
            // v2: when the POST actually left (a queued job waits first) and the reconcile
            // state of an unanswered submit, so a restart continues it instead of starting
            // over.
            connection.execute_batch(
                "BEGIN;
                 ALTER TABLE jobs ADD COLUMN sent_at_unix_ms INTEGER;
                 ALTER TABLE jobs ADD COLUMN reconcile_json TEXT;
                 PRAGMA user_version = 2;
                 COMMIT;",
            )?;
        }
        Ok(Journal {
            connection: Arc::new(Mutex::new(connection)),
        })
    }

    fn with<R>(
        &self,
        f: impl FnOnce(&Connection) -> Result<R, JournalError>,
    ) -> Result<R, JournalError> {
        let connection = self.connection.lock().map_err(|_| JournalError::Poisoned)?;
        f(&connection)
    }

    /// Insert a new job (normally in phase Submitting, before the POST is sent). The
    /// record's `local_id` is ignored; the new id is returned.
    pub fn insert(
        &self,
        service_id: &str,
        record: &JobRecord,
        credits_before: Option<CreditSnapshot>,
    ) -> Result<LocalJobId, JournalError> {
        let spec_json = serde_json::to_string(&record.spec).map_err(|e| JournalError::Corrupt {
            local_id: 0,
            reason: e.to_string(),
        })?;
        let phase_json = phase_json(&record.phase)?;
        self.with(|c| {
            c.execute(
                "INSERT INTO jobs (service_id, generation_id, spec_json, model_label, phase_json,
                     progress_percent, submitted_at_unix_ms, credits_estimate,
                     credits_available_before, credits_total_before, poll_interval_secs)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    service_id,
                    record.generation_id,
                    spec_json,
                    record.model_label,
                    phase_json,
                    f64::from(record.progress_percent),
                    record.submitted_at_unix_ms,
                    record.credits_estimate,
                    credits_before.and_then(|c| c.available),
                    credits_before.and_then(|c| c.total),
                    record.poll_interval_secs,
                ],
            )?;
            Ok(c.last_insert_rowid())
        })
    }

    /// Write every mutable field of `record` (phase, generation id, progress, result…).
    pub fn save(&self, record: &JobRecord) -> Result<(), JournalError> {
        let phase_json = phase_json(&record.phase)?;
        let result_json = match &record.result {
            Some(result) => {
                Some(
                    serde_json::to_string(result).map_err(|e| JournalError::Corrupt {
                        local_id: record.local_id,
                        reason: e.to_string(),
                    })?,
                )
            }
            None => None,
        };
        self.with(|c| {
            c.execute(
                "UPDATE jobs SET generation_id = ?2, phase_json = ?3, progress_percent = ?4,
                     finished_at_unix_ms = ?5, credits_used = ?6, result_json = ?7,
                     poll_interval_secs = ?8, model_label = ?9
                 WHERE local_id = ?1",
                params![
                    record.local_id,
                    record.generation_id,
                    phase_json,
                    f64::from(record.progress_percent),
                    record.finished_at_unix_ms,
                    record.credits_used,
                    result_json,
                    record.poll_interval_secs,
                    record.model_label,
                ],
            )?;
            Ok(())
        })
    }

    /// Record that the submit POST is about to leave, with the balance just before it.
    pub fn save_send(
        &self,
        local_id: LocalJobId,
        sent_at_unix_ms: i64,
        credits_before: Option<CreditSnapshot>,
    ) -> Result<(), JournalError> {
        self.with(|c| {
            c.execute(
                "UPDATE jobs SET sent_at_unix_ms = ?2, credits_available_before = ?3,
                     credits_total_before = ?4
                 WHERE local_id = ?1",
                params![
                    local_id,
                    sent_at_unix_ms,
                    credits_before.and_then(|c| c.available),
                    credits_before.and_then(|c| c.total),
                ],
            )?;
            Ok(())
        })
    }

    /// Keep (or clear) the reconcile state of an unanswered submit.
    pub fn save_reconcile(
        &self,
        local_id: LocalJobId,
        reconcile_json: Option<&str>,
    ) -> Result<(), JournalError> {
        self.with(|c| {
            c.execute(
                "UPDATE jobs SET reconcile_json = ?2 WHERE local_id = ?1",
                params![local_id, reconcile_json],
            )?;
            Ok(())
        })
    }

    pub fn remove(&self, local_id: LocalJobId) -> Result<(), JournalError> {
        self.with(|c| {
            c.execute("DELETE FROM jobs WHERE local_id = ?1", params![local_id])?;
            Ok(())
        })
    }

    pub fn get(&self, local_id: LocalJobId) -> Result<Option<JournalRow>, JournalError> {
        self.with(|c| {
            let raw = c
                .query_row(
                    &format!("SELECT {COLUMNS} FROM jobs WHERE local_id = ?1"),
                    params![local_id],
                    RawRow::read,
                )
                .optional()?;
            raw.map(RawRow::into_row).transpose()
        })
    }

    /// All rows of one service profile, oldest first. Unreadable rows are skipped (logged).
    pub fn load_all(&self, service_id: &str) -> Result<Vec<JournalRow>, JournalError> {
        self.with(|c| {
            let mut statement = c.prepare(&format!(
                "SELECT {COLUMNS} FROM jobs WHERE service_id = ?1 ORDER BY local_id"
            ))?;
            let raws = statement
                .query_map(params![service_id], RawRow::read)?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(raws
                .into_iter()
                .filter_map(|raw| match raw.into_row() {
                    Ok(row) => Some(row),
                    Err(e) => {
                        tracing::warn!("skipping journal row: {e}");
                        None
                    }
                })
                .collect())
        })
    }
}

fn phase_json(phase: &JobPhase) -> Result<String, JournalError> {
    serde_json::to_string(&StoredPhase::from(phase)).map_err(|e| JournalError::Corrupt {
        local_id: 0,
        reason: e.to_string(),
    })
}

const COLUMNS: &str =
    "local_id, generation_id, spec_json, model_label, phase_json, progress_percent,
    submitted_at_unix_ms, finished_at_unix_ms, credits_estimate, credits_used,
    credits_available_before, credits_total_before, result_json, poll_interval_secs,
    sent_at_unix_ms, reconcile_json";

struct RawRow {
    local_id: LocalJobId,
    generation_id: Option<String>,
    spec_json: String,
    model_label: String,
    phase_json: String,
    progress_percent: f64,
    submitted_at_unix_ms: i64,
    finished_at_unix_ms: Option<i64>,
    credits_estimate: Option<f64>,
    credits_used: Option<f64>,
    credits_available_before: Option<f64>,
    credits_total_before: Option<f64>,
    result_json: Option<String>,
    poll_interval_secs: f64,
    sent_at_unix_ms: Option<i64>,
    reconcile_json: Option<String>,
}

impl RawRow {
    fn read(row: &rusqlite::Row<'_>) -> rusqlite::Result<RawRow> {
        Ok(RawRow {
            local_id: row.get(0)?,
            generation_id: row.get(1)?,
            spec_json: row.get(2)?,
            model_label: row.get(3)?,
            phase_json: row.get(4)?,
            progress_percent: row.get(5)?,
            submitted_at_unix_ms: row.get(6)?,
            finished_at_unix_ms: row.get(7)?,
            credits_estimate: row.get(8)?,
            credits_used: row.get(9)?,
            credits_available_before: row.get(10)?,
            credits_total_before: row.get(11)?,
            result_json: row.get(12)?,
            poll_interval_secs: row.get(13)?,
            sent_at_unix_ms: row.get(14)?,
            reconcile_json: row.get(15)?,
        })
    }

    fn into_row(self) -> Result<JournalRow, JournalError> {
        let corrupt = |reason: String| JournalError::Corrupt {
            local_id: self.local_id,
            reason,
        };
        let spec: GenerationSpec =
            serde_json::from_str(&self.spec_json).map_err(|e| corrupt(format!("spec: {e}")))?;
        let phase: StoredPhase =
            serde_json::from_str(&self.phase_json).map_err(|e| corrupt(format!("phase: {e}")))?;
        let result: Option<JobResult> = match &self.result_json {
            Some(text) => {
                Some(serde_json::from_str(text).map_err(|e| corrupt(format!("result: {e}")))?)
            }
            None => None,
        };
        let credits_before = (self.credits_available_before.is_some()
            || self.credits_total_before.is_some())
        .then_some(CreditSnapshot {
            available: self.credits_available_before,
            total: self.credits_total_before,
        });
        Ok(JournalRow {
            record: JobRecord {
                local_id: self.local_id,
                generation_id: self.generation_id,
                spec,
                model_label: self.model_label,
                phase: phase.into(),
                progress_percent: self.progress_percent.clamp(0.0, 100.0) as f32,
                submitted_at_unix_ms: self.submitted_at_unix_ms,
                finished_at_unix_ms: self.finished_at_unix_ms,
                credits_estimate: self.credits_estimate,
                credits_used: self.credits_used,
                result,
                poll_problem: None,
                poll_interval_secs: self.poll_interval_secs,
            },
            credits_before,
            sent_at_unix_ms: self.sent_at_unix_ms,
            reconcile_json: self.reconcile_json,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{GenerationKind, GenerationRequest};

    fn spec() -> GenerationSpec {
        GenerationSpec {
            kind: GenerationKind::Image,
            request: GenerationRequest {
                prompt: "a red fox".into(),
                ..GenerationRequest::default()
            },
        }
    }

    fn new_record() -> JobRecord {
        JobRecord {
            local_id: 0,
            generation_id: None,
            spec: spec(),
            model_label: "Auto".into(),
            phase: JobPhase::Submitting,
            progress_percent: 0.0,
            submitted_at_unix_ms: 1_000,
            finished_at_unix_ms: None,
            credits_estimate: Some(2.0),
            credits_used: None,
            result: None,
            poll_problem: None,
            poll_interval_secs: 3.0,
        }
    }

    #[test]
    fn round_trip_and_scoping() {
        let journal = Journal::open_in_memory().expect("open");
        let snapshot = CreditSnapshot {
            available: Some(100.0),
            total: Some(120.0),
        };
        let id = journal
            .insert("svc-a", &new_record(), Some(snapshot))
            .expect("insert");
        journal
            .insert("svc-b", &new_record(), None)
            .expect("insert other service");
        let mut row = journal.get(id).expect("get").expect("row");
        assert_eq!(row.record.phase, JobPhase::Submitting);
        assert_eq!(row.credits_before, Some(snapshot));

        row.record.generation_id = Some("gen-1".into());
        row.record.phase = JobPhase::Failed {
            failure: Failure {
                message: "flagged".into(),
                retryable: Some(false),
                ..Failure::default()
            },
        };
        row.record.result = Some(JobResult {
            urls: vec!["https://cdn/x.png".into()],
            ..JobResult::default()
        });
        journal.save(&row.record).expect("save");
        let rows = journal.load_all("svc-a").expect("load");
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].record, row.record);

        let rejected = JobPhase::Rejected {
            error: ApiError::Status {
                status: 403,
                message: "Insufficient credits".into(),
                code: Some("INSUFFICIENT_CREDITS".into()),
                retry_after_secs: None,
            },
        };
        row.record.phase = rejected.clone();
        journal.save(&row.record).expect("save");
        assert_eq!(journal.get(id).unwrap().unwrap().record.phase, rejected);

        journal.remove(id).expect("remove");
        assert!(journal.load_all("svc-a").expect("load").is_empty());
        assert_eq!(journal.load_all("svc-b").expect("load").len(), 1);
    }

    #[test]
    fn a_queued_row_keeps_its_request_and_is_queued_again_on_load() {
        let journal = Journal::open_in_memory().expect("open");
        let mut record = new_record();
        record.phase = JobPhase::Queued {
            place: 4,
            sends_at_unix_ms: Some(99_000),
            reason: QueueReason::ServiceUnreachable,
        };
        let id = journal.insert("svc", &record, None).expect("insert");
        let row = journal.get(id).expect("get").expect("row");
        // Place and send time are worked out again by the queue that takes it back.
        assert_eq!(
            row.record.phase,
            JobPhase::Queued {
                place: 0,
                sends_at_unix_ms: None,
                reason: QueueReason::RateLimit,
            }
        );
        assert_eq!(row.record.spec, record.spec);
        assert_eq!(row.sent_at_unix_ms, None, "not sent");
        journal
            .save_send(
                id,
                5_000,
                Some(CreditSnapshot {
                    available: Some(10.0),
                    total: Some(12.0),
                }),
            )
            .expect("save send");
        let row = journal.get(id).expect("get").expect("row");
        assert_eq!(row.sent_at_unix_ms, Some(5_000));
    }
}
