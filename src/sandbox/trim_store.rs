//! Video trim jobs (POST /v1/video/trim): their own table, since a trim is not a generation
//! (no credits, no generation tracker). Created with the other tables in `Store::open`.

use rusqlite::{OptionalExtension, Row, params};

use super::media_store::{NewMedia, insert_media_in};
use super::store::{Store, now_iso};

pub(crate) const TRIM_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS trim_jobs (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, video_url TEXT NOT NULL,
    start_secs REAL NOT NULL, end_secs REAL NOT NULL,
    status TEXT NOT NULL, progress REAL NOT NULL, message TEXT NOT NULL, error TEXT,
    elapsed_ms INTEGER NOT NULL, duration_ms INTEGER NOT NULL,
    rel_path TEXT, media_id TEXT, created_at TEXT NOT NULL, updated_ms INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS trim_jobs_status ON trim_jobs(status);
";

/// What a new trim job is made from; it starts `initializing` at progress 0.
#[derive(Debug, Clone)]
pub(crate) struct NewTrimJob {
    pub id: String,
    pub user_id: String,
    pub video_url: String,
    pub start_secs: f64,
    pub end_secs: f64,
    pub message: String,
    pub duration_ms: u64,
    pub updated_ms: i64,
}

#[derive(Debug, Clone)]
pub(crate) struct TrimJobRow {
    pub id: String,
    pub user_id: String,
    pub video_url: String,
    pub start_secs: f64,
    pub end_secs: f64,
    pub status: String,
    pub progress: f64,
    pub message: String,
    pub error: Option<String>,
    pub elapsed_ms: u64,
    pub duration_ms: u64,
    pub rel_path: Option<String>,
    pub updated_ms: i64,
}

/// One step of a running job: where it is and what it says.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TrimStage<'a> {
    pub status: &'a str,
    pub progress: f64,
    pub message: &'a str,
    pub elapsed_ms: u64,
    pub updated_ms: i64,
}

fn trim_from_row(row: &Row<'_>) -> rusqlite::Result<TrimJobRow> {
    Ok(TrimJobRow {
        id: row.get("id")?,
        user_id: row.get("user_id")?,
        video_url: row.get("video_url")?,
        start_secs: row.get("start_secs")?,
        end_secs: row.get("end_secs")?,
        status: row.get("status")?,
        progress: row.get("progress")?,
        message: row.get("message")?,
        error: row.get("error")?,
        elapsed_ms: row.get::<_, i64>("elapsed_ms")?.max(0) as u64,
        duration_ms: row.get::<_, i64>("duration_ms")?.max(0) as u64,
        rel_path: row.get("rel_path")?,
        updated_ms: row.get("updated_ms")?,
    })
}

impl Store {
    pub(crate) fn insert_trim_job(&self, job: &NewTrimJob) -> rusqlite::Result<()> {
        self.lock().execute(
            "INSERT INTO trim_jobs (id, user_id, video_url, start_secs, end_secs, status,
                progress, message, error, elapsed_ms, duration_ms, rel_path, media_id,
                created_at, updated_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, 'initializing', 0, ?6, NULL, 0, ?7, NULL, NULL, ?8, ?9)",
            params![
                job.id,
                job.user_id,
                job.video_url,
                job.start_secs,
                job.end_secs,
                job.message,
                job.duration_ms as i64,
                now_iso(),
                job.updated_ms,
            ],
        )?;
        Ok(())
    }

    pub(crate) fn trim_job(&self, id: &str) -> rusqlite::Result<Option<TrimJobRow>> {
        self.lock()
            .query_row(
                "SELECT * FROM trim_jobs WHERE id = ?1",
                params![id],
                trim_from_row,
            )
            .optional()
    }

    /// Records a running job's stage; false once the job is terminal.
    pub(crate) fn update_trim_stage(
        &self,
        id: &str,
        stage: TrimStage<'_>,
    ) -> rusqlite::Result<bool> {
        let changed = self.lock().execute(
            "UPDATE trim_jobs SET status = ?2, progress = ?3, message = ?4, elapsed_ms = ?5,
                updated_ms = ?6
             WHERE id = ?1 AND status NOT IN ('completed', 'failed')",
            params![
                id,
                stage.status,
                stage.progress,
                stage.message,
                stage.elapsed_ms as i64,
                stage.updated_ms
            ],
        )?;
        Ok(changed > 0)
    }

    /// Completes a running job and registers its output in the caller's library, together.
    pub(crate) fn complete_trim(
        &self,
        id: &str,
        rel_path: &str,
        media: &NewMedia,
        message: &str,
        updated_ms: i64,
    ) -> rusqlite::Result<bool> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let changed = tx.execute(
            "UPDATE trim_jobs SET status = 'completed', progress = 100, message = ?3,
                rel_path = ?2, media_id = ?4, updated_ms = ?5
             WHERE id = ?1 AND status NOT IN ('completed', 'failed')",
            params![id, rel_path, message, media.id, updated_ms],
        )?;
        if changed == 0 {
            return Ok(false);
        }
        insert_media_in(&tx, media)?;
        tx.commit()?;
        Ok(true)
    }

    pub(crate) fn fail_trim(
        &self,
        id: &str,
        error: &str,
        message: &str,
        updated_ms: i64,
    ) -> rusqlite::Result<bool> {
        let changed = self.lock().execute(
            "UPDATE trim_jobs SET status = 'failed', error = ?2, message = ?3, updated_ms = ?4
             WHERE id = ?1 AND status NOT IN ('completed', 'failed')",
            params![id, error, message, updated_ms],
        )?;
        Ok(changed > 0)
    }

    /// Jobs an earlier run left unfinished (resumed at start).
    pub(crate) fn unfinished_trim_jobs(&self) -> rusqlite::Result<Vec<String>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT id FROM trim_jobs WHERE status NOT IN ('completed', 'failed')
             ORDER BY created_at",
        )?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        rows.collect()
    }

    /// How many trim jobs were ever created (tests: a trim is never sent twice).
    pub(crate) fn trim_job_count(&self) -> rusqlite::Result<u64> {
        let conn = self.lock();
        conn.query_row("SELECT COUNT(*) FROM trim_jobs", [], |r| r.get(0))
    }
}
