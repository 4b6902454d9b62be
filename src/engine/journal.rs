//! The job journal: one SQLite row per job, written before the submit is sent and after
//! every change, so the job list survives restarts and no job is ever re-sent. Rows are
//! scoped to a service profile (`service_id`).

use super::protocol::{JobPhase, JobRecord, LocalJobId, QueueReason};
use crate::api::{ApiError, Failure, GenerationSpec, JobResult, JobState};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Schema version stored in `PRAGMA user_version`.
const SCHEMA_VERSION: i64 = 3;

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("job journal database error: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("job journal row {local_id} is unreadable: {reason}")]
    Corrupt {
        local_id: LocalJobId,
        reason: String,
    },
    #[error("cannot create the journal folder {path}: {source}")]
    Folder {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot create the journal file {path} readable only by you: {source}")]
    File {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the job journal {path} is damaged and could not be moved aside: {source}")]
    MoveAside {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the job journal is damaged: {0}")]
    Damaged(String),
    #[error("the job journal is unavailable (a previous writer panicked)")]
    Poisoned,
    #[error("journal task failed: {0}")]
    Task(String),
}

impl JournalError {
    /// Why a write failed, in words a person understands ("the disk is full").
    pub fn reason_in_words(&self) -> String {
        use crate::settings::broken_file::describe_io_error;
        use rusqlite::ErrorCode;
        match self {
            JournalError::Sql(rusqlite::Error::SqliteFailure(e, _)) => match e.code {
                ErrorCode::ReadOnly => {
                    "it is read-only (a read-only file system or data folder)".to_owned()
                }
                ErrorCode::DiskFull => "the disk is full".to_owned(),
                ErrorCode::PermissionDenied | ErrorCode::CannotOpen => {
                    "permission to write it was denied".to_owned()
                }
                ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
                    "another program is using it".to_owned()
                }
                ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => {
                    "the file is damaged".to_owned()
                }
                ErrorCode::SystemIoFailure => "the disk reported an error while writing".to_owned(),
                _ => format!("of a database error ({e})"),
            },
            JournalError::Sql(e) => format!("of a database error ({e})"),
            JournalError::Folder { source, .. }
            | JournalError::File { source, .. }
            | JournalError::MoveAside { source, .. } => describe_io_error(source),
            JournalError::Damaged(_) => "the file is damaged".to_owned(),
            JournalError::Corrupt { reason, .. } => {
                format!("the job could not be encoded ({reason})")
            }
            JournalError::Poisoned => {
                "an earlier error left it unusable until Framewright is restarted".to_owned()
            }
            JournalError::Task(reason) => format!("an internal task failed ({reason})"),
        }
    }

    /// Why a job was not sent when its journal row could not be written, in words, with
    /// the journal's path (shown after "Not sent: ").
    pub fn not_sent_message(&self, journal_path: Option<&Path>) -> String {
        let journal = match journal_path {
            Some(path) => format!("the job journal {}", path.display()),
            None => "the job journal".to_owned(),
        };
        format!(
            "the job could not be recorded in {journal} because {}. Nothing was charged.",
            self.reason_in_words()
        )
    }
}

/// What [`Journal::open_or_recover`] found wrong with the journal file and did about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JournalRecovery {
    /// The file could not be used at all (`problem`, in words); it was moved to
    /// `moved_to` and an empty journal started.
    Replaced { problem: String, moved_to: PathBuf },
    /// `count` rows could not be read and were removed; `copy` is the journal as it was.
    RowsRemoved { count: usize, copy: PathBuf },
}

impl JournalRecovery {
    /// What happened, for the person, naming the journal at `path`.
    pub fn message(&self, path: &Path) -> String {
        match self {
            JournalRecovery::Replaced { problem, moved_to } => format!(
                "The job journal {} could not be used because {problem}, so Framewright \
                 started with an empty job list. Jobs already sent keep running on the \
                 service and appear in the Library when they finish. The old journal was \
                 kept as {}.",
                path.display(),
                moved_to.display()
            ),
            JournalRecovery::RowsRemoved { count, copy } => format!(
                "{count} {} in the job journal {} could not be read and {} left out of the \
                 job list. A copy of the journal as it was is at {}.",
                if *count == 1 { "job" } else { "jobs" },
                path.display(),
                if *count == 1 { "was" } else { "were" },
                copy.display()
            ),
        }
    }

    /// Where the broken journal (or a copy of it) was kept.
    pub fn kept_at(&self) -> &Path {
        match self {
            JournalRecovery::Replaced { moved_to, .. } => moved_to,
            JournalRecovery::RowsRemoved { copy, .. } => copy,
        }
    }
}

/// Why opening failed: the file's content (repaired by moving it aside) or anything else.
enum OpenFailure {
    Broken(String),
    Other(JournalError),
}

impl OpenFailure {
    fn from_sql(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase) => {
                OpenFailure::Broken(format!("it is not a readable journal ({e})"))
            }
            _ => OpenFailure::Other(JournalError::Sql(e)),
        }
    }

    fn into_error(self) -> JournalError {
        match self {
            OpenFailure::Broken(problem) => JournalError::Damaged(problem),
            OpenFailure::Other(e) => e,
        }
    }
}

/// Credit balance just before a submit, kept to reconcile a lost answer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CreditSnapshot {
    pub available: Option<f64>,
    pub total: Option<f64>,
    /// When the answer arrived, on our clock (our jobs seen finished before it were
    /// already in this balance).
    pub read_at_unix_ms: Option<i64>,
    /// The service's clock at that answer (its `Date` header, whole seconds): compared
    /// with when the service says our other jobs finished.
    pub service_time_unix_ms: Option<i64>,
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
    /// Open or create the journal file (WAL mode) and bring its schema up to date. A
    /// broken file is repaired as [`Journal::open_or_recover`] does (logged only).
    pub fn open(path: &Path) -> Result<Self, JournalError> {
        let (journal, recovery) = Self::open_or_recover(path)?;
        if let Some(recovery) = recovery {
            tracing::warn!("{}", recovery.message(path));
        }
        Ok(journal)
    }

    /// Open or create the journal; a journal that cannot be used never stops the studio:
    /// - a damaged file (not SQLite, truncated, malformed, from a newer version of the
    ///   studio) is moved aside with its -wal/-shm (`journal.sqlite3.broken-<time>`) and a
    ///   new empty journal is started;
    /// - rows that do not decode are removed, after a copy of the whole journal as it was
    ///   is written beside it, so the other jobs keep being tracked.
    ///
    /// What was done is returned for the person to be told. Errors that are not about the
    /// file's content (read-only or full disk, permissions, locked) are returned as errors.
    pub fn open_or_recover(path: &Path) -> Result<(Self, Option<JournalRecovery>), JournalError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            crate::local_files::create_private_dir_all(parent).map_err(|source| {
                JournalError::Folder {
                    path: parent.display().to_string(),
                    source,
                }
            })?;
        }
        let journal = match Self::open_checked(path) {
            Ok(journal) => journal,
            Err(OpenFailure::Broken(problem)) => {
                let moved_to = crate::settings::broken_file::move_aside(path, &["-wal", "-shm"])
                    .map_err(|source| JournalError::MoveAside {
                        path: path.display().to_string(),
                        source,
                    })?;
                let journal = Self::open_checked(path).map_err(OpenFailure::into_error)?;
                return Ok((
                    journal,
                    Some(JournalRecovery::Replaced { problem, moved_to }),
                ));
            }
            Err(OpenFailure::Other(e)) => return Err(e),
        };
        let unreadable = match journal.unreadable_rows() {
            Ok(ids) => ids,
            Err(JournalError::Damaged(problem)) => {
                drop(journal);
                let moved_to = crate::settings::broken_file::move_aside(path, &["-wal", "-shm"])
                    .map_err(|source| JournalError::MoveAside {
                        path: path.display().to_string(),
                        source,
                    })?;
                let journal = Self::open_checked(path).map_err(OpenFailure::into_error)?;
                return Ok((
                    journal,
                    Some(JournalRecovery::Replaced { problem, moved_to }),
                ));
            }
            Err(e) => return Err(e),
        };
        if unreadable.is_empty() {
            return Ok((journal, None));
        }
        let copy = crate::settings::broken_file::free_broken_path(path);
        journal.with(|c| {
            // A consistent copy (WAL content included) before anything is removed.
            c.execute("VACUUM INTO ?1", params![copy.to_string_lossy()])?;
            let tx = c.unchecked_transaction()?;
            for local_id in &unreadable {
                tx.execute("DELETE FROM jobs WHERE local_id = ?1", params![local_id])?;
            }
            tx.commit()?;
            Ok(())
        })?;
        Ok((
            journal,
            Some(JournalRecovery::RowsRemoved {
                count: unreadable.len(),
                copy,
            }),
        ))
    }

    /// A journal that refuses every write, as on a read-only data folder (tests of what
    /// the studio says then; chmod does not stop root).
    pub fn open_read_only(path: &Path) -> Result<Self, JournalError> {
        let connection = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        connection.busy_timeout(std::time::Duration::from_secs(5))?;
        Ok(Journal {
            connection: Arc::new(Mutex::new(connection)),
        })
    }

    /// The journal file, when it is one (not in memory).
    pub fn path(&self) -> Option<std::path::PathBuf> {
        let connection = self.connection.lock().ok()?;
        connection
            .path()
            .filter(|p| !p.is_empty())
            .map(std::path::PathBuf::from)
    }

    /// Opens, checks the file's integrity and version, and brings the schema up to date.
    fn open_checked(path: &Path) -> Result<Self, OpenFailure> {
        // 0600 before SQLite writes a byte: the journal holds prompts and job ids.
        crate::local_files::make_private_file(path).map_err(|source| {
            OpenFailure::Other(JournalError::File {
                path: path.display().to_string(),
                source,
            })
        })?;
        let connection = Connection::open(path).map_err(OpenFailure::from_sql)?;
        let integrity: Vec<String> = connection
            .prepare("PRAGMA quick_check")
            .and_then(|mut s| {
                s.query_map([], |row| row.get::<_, String>(0))?
                    .collect::<Result<Vec<_>, _>>()
            })
            .map_err(OpenFailure::from_sql)?;
        if integrity.first().map(String::as_str) != Some("ok") {
            return Err(OpenFailure::Broken(format!(
                "it failed its integrity check ({})",
                integrity.join("; ")
            )));
        }
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(OpenFailure::from_sql)?;
        if version > SCHEMA_VERSION {
            return Err(OpenFailure::Broken(format!(
                "it was written by a newer version of Framewright (journal format {version}, \
                 this version reads up to {SCHEMA_VERSION})"
            )));
        }
        Self::init(connection).map_err(|e| match e {
            JournalError::Sql(e) => OpenFailure::from_sql(e),
            other => OpenFailure::Other(other),
        })
    }

    /// Local ids of rows that cannot be read back as jobs. A table that cannot be read at
    /// all is `Damaged`.
    fn unreadable_rows(&self) -> Result<Vec<LocalJobId>, JournalError> {
        self.with(|c| {
            let damaged = |e: rusqlite::Error| {
                JournalError::Damaged(format!("its job table cannot be read ({e})"))
            };
            let mut statement = c
                .prepare(&format!("SELECT {COLUMNS} FROM jobs ORDER BY local_id"))
                .map_err(damaged)?;
            let mut rows = statement.query([]).map_err(damaged)?;
            let mut unreadable = Vec::new();
            while let Some(row) = rows.next().map_err(damaged)? {
                let decoded = RawRow::read(row)
                    .map_err(|e| e.to_string())
                    .and_then(|raw| raw.into_row().map_err(|e| e.to_string()));
                if let Err(reason) = decoded {
                    let local_id: LocalJobId = row.get(0).map_err(damaged)?;
                    tracing::warn!("journal row {local_id} cannot be read: {reason}");
                    unreadable.push(local_id);
                }
            }
            Ok(unreadable)
        })
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
        if version < 3 {
            // v3: when the balance before a send was read, on our clock and the service's,
            // so reconcile can tell which of our other jobs settled after it.
            connection.execute_batch(
                "BEGIN;
                 ALTER TABLE jobs ADD COLUMN credits_before_read_at_unix_ms INTEGER;
                 ALTER TABLE jobs ADD COLUMN credits_before_service_time_unix_ms INTEGER;
                 PRAGMA user_version = 3;
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
    /// The spec is written too: a chat message learns its conversation from the submit
    /// answer (`GenerationRequest::session_id`).
    pub fn save(&self, record: &JobRecord) -> Result<(), JournalError> {
        let phase_json = phase_json(&record.phase)?;
        let spec_json = serde_json::to_string(&record.spec).map_err(|e| JournalError::Corrupt {
            local_id: record.local_id,
            reason: e.to_string(),
        })?;
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
                     poll_interval_secs = ?8, model_label = ?9, spec_json = ?10
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
                    spec_json,
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
                     credits_total_before = ?4, credits_before_read_at_unix_ms = ?5,
                     credits_before_service_time_unix_ms = ?6
                 WHERE local_id = ?1",
                params![
                    local_id,
                    sent_at_unix_ms,
                    credits_before.and_then(|c| c.available),
                    credits_before.and_then(|c| c.total),
                    credits_before.and_then(|c| c.read_at_unix_ms),
                    credits_before.and_then(|c| c.service_time_unix_ms),
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
    sent_at_unix_ms, reconcile_json, credits_before_read_at_unix_ms,
    credits_before_service_time_unix_ms";

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
    credits_before_read_at_unix_ms: Option<i64>,
    credits_before_service_time_unix_ms: Option<i64>,
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
            credits_before_read_at_unix_ms: row.get(16)?,
            credits_before_service_time_unix_ms: row.get(17)?,
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
            read_at_unix_ms: self.credits_before_read_at_unix_ms,
            service_time_unix_ms: self.credits_before_service_time_unix_ms,
        });
        let scenes = result
            .as_ref()
            .map(|r| r.scenes.clone())
            .unwrap_or_default();
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
                scenes,
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
            catalog: None,
            kind: GenerationKind::Image,
            request: GenerationRequest {
                prompt: "a red fox".into(),
                ..GenerationRequest::default()
            },
            video: None,
            audio: None,
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
            scenes: Vec::new(),
        }
    }

    #[test]
    fn round_trip_and_scoping() {
        let journal = Journal::open_in_memory().expect("open");
        let snapshot = CreditSnapshot {
            available: Some(100.0),
            total: Some(120.0),
            ..CreditSnapshot::default()
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
    /// A journal file with two good jobs, closed (WAL checkpointed).
    fn journal_with_two_jobs(path: &Path) -> (LocalJobId, LocalJobId) {
        let journal = Journal::open(path).expect("open");
        let a = journal.insert("svc", &new_record(), None).expect("insert");
        let b = journal.insert("svc", &new_record(), None).expect("insert");
        (a, b)
    }

    fn assert_replaced(path: &Path, broken: &[u8]) {
        std::fs::write(path, broken).expect("write the broken file");
        let (journal, recovery) = Journal::open_or_recover(path).expect("the studio still starts");
        let recovery = recovery.expect("the repair is reported");
        let JournalRecovery::Replaced { moved_to, .. } = &recovery else {
            panic!("expected the file to be replaced: {recovery:?}");
        };
        assert_eq!(std::fs::read(moved_to).expect("the copy"), broken);
        let message = recovery.message(path);
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(
            message.contains(&moved_to.display().to_string()),
            "{message}"
        );
        // The rest works: an empty journal that takes new jobs.
        assert!(journal.load_all("svc").expect("load").is_empty());
        journal.insert("svc", &new_record(), None).expect("insert");
        drop(journal);
        let (_, again) = Journal::open_or_recover(path).expect("reopen");
        assert_eq!(again, None, "told once");
        for leftover in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{leftover}", path.display()));
        }
        std::fs::remove_file(path).expect("clean up");
    }

    #[test]
    fn a_file_that_is_not_a_journal_is_moved_aside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("journal.sqlite3");
        assert_replaced(&path, b"this is not an SQLite database, just some text\n");
        assert_replaced(&path, &[0xAB; 8192]);
    }

    #[test]
    fn a_truncated_journal_is_moved_aside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("journal.sqlite3");
        {
            let journal = Journal::open(&path).expect("open");
            for _ in 0..200 {
                journal.insert("svc", &new_record(), None).expect("insert");
            }
        }
        let whole = std::fs::read(&path).expect("read");
        assert!(whole.len() > 3 * 4096, "the journal spans several pages");
        assert_replaced(&path, &whole[..whole.len() / 2 + 100]);
        assert_replaced(&path, &whole[..60]);
    }

    #[test]
    fn a_journal_from_a_newer_version_is_moved_aside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("journal.sqlite3");
        journal_with_two_jobs(&path);
        {
            let connection = Connection::open(&path).expect("open");
            connection
                .execute_batch(&format!("PRAGMA user_version = {};", SCHEMA_VERSION + 1))
                .expect("bump");
        }
        let newer = std::fs::read(&path).expect("read");
        assert_replaced(&path, &newer);
    }

    #[test]
    fn rows_that_do_not_decode_are_removed_after_a_copy_and_the_rest_is_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("journal.sqlite3");
        let (good, bad) = journal_with_two_jobs(&path);
        {
            let connection = Connection::open(&path).expect("open");
            connection
                .execute(
                    "UPDATE jobs SET phase_json = '{\"phase\":\"exploded\"}' WHERE local_id = ?1",
                    params![bad],
                )
                .expect("break a row");
        }
        let (journal, recovery) = Journal::open_or_recover(&path).expect("open");
        let Some(JournalRecovery::RowsRemoved { count: 1, copy }) = &recovery else {
            panic!("expected one row removed: {recovery:?}");
        };
        let rows = journal.load_all("svc").expect("load");
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].record.local_id, good);
        // The copy still holds both rows, the broken one included.
        let copy = Connection::open(copy).expect("open the copy");
        let count: i64 = copy
            .query_row("SELECT COUNT(*) FROM jobs", [], |row| row.get(0))
            .expect("count");
        assert_eq!(count, 2);
        drop(journal);
        assert_eq!(Journal::open_or_recover(&path).expect("reopen").1, None);
    }

    #[test]
    fn a_read_only_journal_refuses_the_row_and_says_why_with_its_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("journal.sqlite3");
        journal_with_two_jobs(&path);
        let journal = Journal::open_read_only(&path).expect("open read-only");
        let error = journal
            .insert("svc", &new_record(), None)
            .expect_err("a read-only journal takes no rows");
        let message = error.not_sent_message(journal.path().as_deref());
        assert!(message.contains("read-only"), "{message}");
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(message.contains("Nothing was charged"), "{message}");
    }

    #[test]
    fn write_failures_are_said_in_words() {
        use rusqlite::ffi;
        let sql = |code: i32| {
            JournalError::Sql(rusqlite::Error::SqliteFailure(ffi::Error::new(code), None))
                .reason_in_words()
        };
        assert!(sql(ffi::SQLITE_READONLY).contains("read-only"));
        assert_eq!(sql(ffi::SQLITE_FULL), "the disk is full");
        assert_eq!(sql(ffi::SQLITE_PERM), "permission to write it was denied");
        assert_eq!(
            sql(ffi::SQLITE_CANTOPEN),
            "permission to write it was denied"
        );
        assert_eq!(sql(ffi::SQLITE_BUSY), "another program is using it");
        assert_eq!(
            sql(ffi::SQLITE_IOERR_WRITE),
            "the disk reported an error while writing"
        );
        let folder = |kind: std::io::ErrorKind| {
            JournalError::Folder {
                path: "/data".into(),
                source: kind.into(),
            }
            .reason_in_words()
        };
        assert_eq!(folder(std::io::ErrorKind::StorageFull), "the disk is full");
        assert_eq!(
            folder(std::io::ErrorKind::ReadOnlyFilesystem),
            "the file system is read-only"
        );
        assert_eq!(
            folder(std::io::ErrorKind::PermissionDenied),
            "permission was denied"
        );
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
                    read_at_unix_ms: Some(4_900),
                    service_time_unix_ms: Some(4_000),
                }),
            )
            .expect("save send");
        let row = journal.get(id).expect("get").expect("row");
        assert_eq!(row.sent_at_unix_ms, Some(5_000));
        let before = row.credits_before.expect("the balance before the send");
        assert_eq!(
            (before.read_at_unix_ms, before.service_time_unix_ms),
            (Some(4_900), Some(4_000)),
            "when the balance was read, on both clocks"
        );
    }

    #[test]
    fn every_catalog_body_round_trips_through_the_journal() {
        use crate::api::catalog_jobs::{
            CatalogJobRequest, ElementsRequest, FirstLastFrameRequest, LipsyncRequest, ThreeDMode,
            ThreeDRequest,
        };
        let journal = Journal::open_in_memory().expect("open");
        let jobs = [
            CatalogJobRequest::Elements(ElementsRequest {
                prompt: "a fox in snow".into(),
                reference_images: vec!["https://h/a.png".into()],
                reference_audio_urls: vec!["https://h/a.mp3".into()],
                duration: Some(5.0),
                sound_enabled: Some(true),
                visual_dna_ids: vec!["dna_1".into()],
                ..ElementsRequest::default()
            }),
            CatalogJobRequest::FirstLastFrame(FirstLastFrameRequest {
                first_frame_url: "https://h/a.png".into(),
                last_frame_url: "https://h/b.png".into(),
                duration: Some(5.0),
                ..FirstLastFrameRequest::default()
            }),
            CatalogJobRequest::Lipsync(LipsyncRequest {
                source_url: "https://h/face.png".into(),
                text_prompt: Some("Good evening.".into()),
                voice: Some("rachel".into()),
                ..LipsyncRequest::default()
            }),
            CatalogJobRequest::ThreeD(ThreeDRequest {
                mode: ThreeDMode::Multi,
                reference_images: vec!["https://h/a.png".into(), "https://h/b.png".into()],
                target_polycount: Some(5_000),
                ..ThreeDRequest::default()
            }),
        ];
        for job in jobs {
            let mut record = new_record();
            record.spec = GenerationSpec::for_catalog(job.clone());
            record.spec.request.duration = record.spec.request.duration.or(Some(1.5));
            let id = journal.insert("svc", &record, None).expect("insert");
            let row = journal.get(id).expect("get").expect("row");
            assert_eq!(row.record.spec, record.spec);
            assert_eq!(row.record.spec.catalog, Some(job.clone()));
            assert_eq!(row.record.spec.kind, job.kind());
        }
    }
}
