//! The `code_files` table: one row per stored coding-assistant upload, with the content
//! hash that deduplicates identical uploads of a user and the 24-hour expiry.

use rusqlite::{OptionalExtension, Row, params};

use crate::sandbox::store::Store;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS code_files (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, content_sha256 TEXT NOT NULL,
    filename TEXT NOT NULL, mime_type TEXT NOT NULL, size_bytes INTEGER NOT NULL,
    rel_path TEXT NOT NULL UNIQUE, created_secs INTEGER NOT NULL, expires_secs INTEGER NOT NULL,
    purged INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS code_files_by_content ON code_files(user_id, content_sha256);
";

/// A stored upload. `id` is the 24-hex object id (the descriptor says `file_<id>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CodeFile {
    pub id: String,
    pub user_id: String,
    /// SHA-256 of the bytes as uploaded (before any optimisation).
    pub content_sha256: String,
    pub filename: String,
    pub mime_type: String,
    pub size_bytes: u64,
    /// Below the files dir, e.g. `code/<id>.jpg`.
    pub rel_path: String,
    pub created_secs: i64,
    pub expires_secs: i64,
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<CodeFile> {
    Ok(CodeFile {
        id: row.get(0)?,
        user_id: row.get(1)?,
        content_sha256: row.get(2)?,
        filename: row.get(3)?,
        mime_type: row.get(4)?,
        size_bytes: row.get::<_, i64>(5)?.max(0) as u64,
        rel_path: row.get(6)?,
        created_secs: row.get(7)?,
        expires_secs: row.get(8)?,
    })
}

const COLUMNS: &str = "id, user_id, content_sha256, filename, mime_type, size_bytes, rel_path,
    created_secs, expires_secs";

pub(crate) fn create_table(store: &Store) -> rusqlite::Result<()> {
    store.lock().execute_batch(SCHEMA)
}

pub(crate) fn insert(store: &Store, file: &CodeFile) -> rusqlite::Result<()> {
    store.lock().execute(
        &format!("INSERT INTO code_files ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"),
        params![
            file.id,
            file.user_id,
            file.content_sha256,
            file.filename,
            file.mime_type,
            file.size_bytes as i64,
            file.rel_path,
            file.created_secs,
            file.expires_secs,
        ],
    )?;
    Ok(())
}

/// The user's earlier upload of the same bytes that has not expired yet.
pub(crate) fn live_duplicate(
    store: &Store,
    user_id: &str,
    content_sha256: &str,
    now_secs: i64,
) -> rusqlite::Result<Option<CodeFile>> {
    store
        .lock()
        .query_row(
            &format!(
                "SELECT {COLUMNS} FROM code_files
                 WHERE user_id = ?1 AND content_sha256 = ?2 AND expires_secs > ?3
                 ORDER BY created_secs LIMIT 1"
            ),
            params![user_id, content_sha256, now_secs],
            from_row,
        )
        .optional()
}

pub(crate) fn by_rel_path(store: &Store, rel_path: &str) -> rusqlite::Result<Option<CodeFile>> {
    store
        .lock()
        .query_row(
            &format!("SELECT {COLUMNS} FROM code_files WHERE rel_path = ?1"),
            params![rel_path],
            from_row,
        )
        .optional()
}

/// Expired files whose bytes are still on disk; the caller deletes them and calls
/// [`mark_purged`]. Rows stay so their links answer 410 rather than 404.
pub(crate) fn expired_unpurged(store: &Store, now_secs: i64) -> rusqlite::Result<Vec<CodeFile>> {
    let conn = store.lock();
    let mut statement = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM code_files WHERE expires_secs <= ?1 AND purged = 0"
    ))?;
    let rows = statement.query_map(params![now_secs], from_row)?;
    rows.collect()
}

pub(crate) fn mark_purged(store: &Store, id: &str) -> rusqlite::Result<()> {
    store.lock().execute(
        "UPDATE code_files SET purged = 1 WHERE id = ?1",
        params![id],
    )?;
    Ok(())
}
