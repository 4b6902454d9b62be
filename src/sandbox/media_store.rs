//! Media library storage: items (from generations, uploads, stock imports and seeding),
//! favourites, trash, permanent deletion, moves, stats and the filtered list query.

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};
use serde_json::Value;

use super::store::Store;
use super::users::project_access_in;

pub(crate) const MEDIA_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS media_items (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT,
    generation_id TEXT, output_index INTEGER NOT NULL DEFAULT 0, upload_id TEXT,
    source_type TEXT NOT NULL, category TEXT NOT NULL, media_type TEXT NOT NULL,
    generation_type TEXT, name TEXT NOT NULL, filename TEXT NOT NULL,
    rel_path TEXT NOT NULL, thumb_rel_path TEXT, owns_files INTEGER NOT NULL,
    size_bytes INTEGER, prompt TEXT, width INTEGER, height INTEGER, duration_secs REAL,
    nsfw INTEGER NOT NULL DEFAULT 0, credits_used REAL, generation_duration_secs REAL,
    source_tag TEXT, preset_id TEXT, moodboard_id TEXT,
    metadata_json TEXT NOT NULL, search_text TEXT NOT NULL,
    created_at TEXT NOT NULL, created_ms INTEGER NOT NULL, trashed_ms INTEGER);
CREATE INDEX IF NOT EXISTS media_user_created ON media_items(user_id, created_ms);
CREATE INDEX IF NOT EXISTS media_project_created ON media_items(project_id, created_ms);
CREATE INDEX IF NOT EXISTS media_user_name ON media_items(user_id, name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS media_generation ON media_items(generation_id, output_index)
    WHERE generation_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS media_trashed ON media_items(trashed_ms) WHERE trashed_ms IS NOT NULL;
CREATE TABLE IF NOT EXISTS media_favorites (
    media_id TEXT NOT NULL, user_id TEXT NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (media_id, user_id));
CREATE TABLE IF NOT EXISTS folders (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT,
    color TEXT NOT NULL, icon TEXT NOT NULL, project_id TEXT,
    created_at TEXT NOT NULL, created_ms INTEGER NOT NULL, updated_at TEXT NOT NULL,
    deleted_ms INTEGER);
CREATE INDEX IF NOT EXISTS folders_user ON folders(user_id);
CREATE TABLE IF NOT EXISTS folder_shares (
    folder_id TEXT NOT NULL, user_id TEXT NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (folder_id, user_id));
CREATE INDEX IF NOT EXISTS folder_shares_user ON folder_shares(user_id);
CREATE TABLE IF NOT EXISTS folder_items (
    folder_id TEXT NOT NULL, media_id TEXT NOT NULL, added_by TEXT NOT NULL,
    position INTEGER, added_ms INTEGER NOT NULL, PRIMARY KEY (folder_id, media_id));
CREATE INDEX IF NOT EXISTS folder_items_media ON folder_items(media_id);
CREATE TABLE IF NOT EXISTS upload_tickets (
    token TEXT PRIMARY KEY, user_id TEXT NOT NULL, project_id TEXT,
    expires_ms INTEGER NOT NULL, used_ms INTEGER);
";

/// A library item to insert.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewMedia {
    pub id: String,
    pub user_id: String,
    pub project_id: String,
    pub session_id: Option<String>,
    pub generation_id: Option<String>,
    pub output_index: u32,
    pub upload_id: Option<String>,
    pub source_type: String,
    pub category: String,
    pub media_type: String,
    pub generation_type: Option<String>,
    pub name: String,
    pub filename: String,
    pub rel_path: String,
    pub thumb_rel_path: Option<String>,
    /// False when the files are shared with other items (seeded items, stock stills), so a
    /// permanent delete must not remove them.
    pub owns_files: bool,
    pub size_bytes: Option<u64>,
    pub prompt: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub duration_secs: Option<f64>,
    pub nsfw: bool,
    pub credits_used: Option<f64>,
    pub generation_duration_secs: Option<f64>,
    pub source_tag: Option<String>,
    pub preset_id: Option<String>,
    pub moodboard_id: Option<String>,
    /// The generation's metadata (an object); projectId/sessionId/creditsUsed/
    /// generationDurationSeconds are added from columns at read time so moves stay correct.
    pub metadata: Value,
    pub created_at: String,
    pub created_ms: i64,
}

fn collect_strings(value: &Value, out: &mut String) {
    match value {
        Value::String(text) => {
            out.push('\n');
            out.push_str(text);
        }
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

/// Lower-cased haystack for `search`: filename, name and every string in the metadata
/// (prompt, model, preset/moodboard names, music title ...). Matched with `instr`, so the
/// search is a literal substring: no pattern characters exist.
pub(crate) fn search_text_for(filename: &str, name: &str, metadata: &Value) -> String {
    let mut text = String::with_capacity(128);
    text.push_str(filename);
    text.push('\n');
    text.push_str(name);
    collect_strings(metadata, &mut text);
    text.to_lowercase()
}

pub(crate) fn insert_media_in(conn: &Connection, m: &NewMedia) -> rusqlite::Result<()> {
    let metadata = m.metadata.to_string();
    conn.prepare_cached(
        "INSERT INTO media_items (id, user_id, project_id, session_id, generation_id, output_index,
            upload_id, source_type, category, media_type, generation_type, name, filename, rel_path,
            thumb_rel_path, owns_files, size_bytes, prompt, width, height, duration_secs, nsfw,
            credits_used, generation_duration_secs, source_tag, preset_id, moodboard_id,
            metadata_json, search_text, created_at, created_ms, trashed_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
            ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, NULL)",
    )?
    .execute(params![
        m.id,
        m.user_id,
        m.project_id,
        m.session_id,
        m.generation_id,
        m.output_index,
        m.upload_id,
        m.source_type,
        m.category,
        m.media_type,
        m.generation_type,
        m.name,
        m.filename,
        m.rel_path,
        m.thumb_rel_path,
        i64::from(m.owns_files),
        m.size_bytes.map(|s| s as i64),
        m.prompt,
        m.width,
        m.height,
        m.duration_secs,
        i64::from(m.nsfw),
        m.credits_used,
        m.generation_duration_secs,
        m.source_tag,
        m.preset_id,
        m.moodboard_id,
        metadata,
        search_text_for(&m.filename, &m.name, &m.metadata),
        m.created_at,
        m.created_ms,
    ])?;
    Ok(())
}

/// A stored item as read back, with its favourite flag and owner's directory entry.
#[derive(Debug, Clone)]
pub(crate) struct MediaRow {
    pub id: String,
    pub user_id: String,
    pub project_id: String,
    pub session_id: Option<String>,
    pub source_type: String,
    pub category: String,
    pub media_type: String,
    pub generation_type: Option<String>,
    pub name: String,
    pub filename: String,
    pub rel_path: String,
    pub thumb_rel_path: Option<String>,
    pub size_bytes: Option<i64>,
    pub prompt: Option<String>,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub duration_secs: Option<f64>,
    pub nsfw: bool,
    pub credits_used: Option<f64>,
    pub generation_duration_secs: Option<f64>,
    pub metadata_json: String,
    pub created_at: String,
    pub trashed: bool,
    pub is_favorited: bool,
    pub owner_email: Option<String>,
    pub owner_name: Option<String>,
}

const ROW_COLUMNS: &str = "m.*,
    EXISTS (SELECT 1 FROM media_favorites f WHERE f.media_id = m.id) AS is_favorited,
    u.email AS owner_email, u.name AS owner_name";

fn media_from_row(row: &Row<'_>) -> rusqlite::Result<MediaRow> {
    Ok(MediaRow {
        id: row.get("id")?,
        user_id: row.get("user_id")?,
        project_id: row.get("project_id")?,
        session_id: row.get("session_id")?,
        source_type: row.get("source_type")?,
        category: row.get("category")?,
        media_type: row.get("media_type")?,
        generation_type: row.get("generation_type")?,
        name: row.get("name")?,
        filename: row.get("filename")?,
        rel_path: row.get("rel_path")?,
        thumb_rel_path: row.get("thumb_rel_path")?,
        size_bytes: row.get("size_bytes")?,
        prompt: row.get("prompt")?,
        width: row.get("width")?,
        height: row.get("height")?,
        duration_secs: row.get("duration_secs")?,
        nsfw: row.get::<_, i64>("nsfw")? != 0,
        credits_used: row.get("credits_used")?,
        generation_duration_secs: row.get("generation_duration_secs")?,
        metadata_json: row.get("metadata_json")?,
        created_at: row.get("created_at")?,
        trashed: row.get::<_, Option<i64>>("trashed_ms")?.is_some(),
        is_favorited: row.get::<_, i64>("is_favorited")? != 0,
        owner_email: row.get("owner_email")?,
        owner_name: row.get("owner_name")?,
    })
}

#[derive(Debug, Clone)]
pub(crate) enum ListScope {
    /// The caller's own library across projects.
    Owner(String),
    /// Every member's media in one project (access already checked).
    Project(String),
    /// A folder's contents in folder order; every other filter is ignored.
    Folder(String),
    /// No access: an empty list.
    Empty,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CategoryFilter {
    Ai,
    Uploaded,
    Edited,
    Favorites,
    TrainingLab,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SourceFilter {
    Uploaded,
    Generated,
    ChatGenerated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sort {
    CreatedDesc,
    CreatedAsc,
    NameAsc,
    NameDesc,
}

#[derive(Debug, Clone)]
pub(crate) struct ListQuery {
    pub scope: ListScope,
    pub trashed: bool,
    pub media_type: Option<&'static str>,
    pub category: Option<CategoryFilter>,
    pub source_type: Option<SourceFilter>,
    pub include_stock: bool,
    pub source_tag: Option<String>,
    pub preset_id: Option<String>,
    pub moodboard_id: Option<String>,
    /// Already lower-cased.
    pub search: Option<String>,
    pub sort: Sort,
    pub page: u64,
    pub page_size: u64,
}

#[derive(Debug)]
pub(crate) struct ListPage {
    pub rows: Vec<MediaRow>,
    pub has_next: bool,
    /// Only computed on page 1.
    pub total: Option<u64>,
}

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Stats {
    pub total: u64,
    pub images: u64,
    pub videos: u64,
    pub audio: u64,
    pub total_size_bytes: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Purged {
    pub count: usize,
    /// Files (relative to the files dir) to remove once the transaction committed.
    pub files: Vec<String>,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum MoveOutcome {
    Moved(usize),
    NotAllOwned { owned: usize, total: usize },
}

fn to_u64(n: i64) -> u64 {
    n.max(0) as u64
}

/// Permanently removes one item (optionally only if `user_id` owns it) with its favourites,
/// folder memberships, upload record and source generation record.
fn purge_one(
    conn: &Connection,
    id: &str,
    user_id: Option<&str>,
    purged: &mut Purged,
) -> rusqlite::Result<()> {
    type Found = (
        String,
        Option<String>,
        Option<String>,
        String,
        Option<String>,
        i64,
    );
    let found: Option<Found> = conn
        .query_row(
            "SELECT user_id, generation_id, upload_id, rel_path, thumb_rel_path, owns_files
             FROM media_items WHERE id = ?1",
            params![id],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            },
        )
        .optional()?;
    let Some((owner, generation_id, upload_id, rel_path, thumb, owns_files)) = found else {
        return Ok(());
    };
    if user_id.is_some_and(|user| user != owner) {
        return Ok(());
    }
    conn.execute(
        "DELETE FROM media_favorites WHERE media_id = ?1",
        params![id],
    )?;
    conn.execute("DELETE FROM folder_items WHERE media_id = ?1", params![id])?;
    conn.execute("DELETE FROM media_items WHERE id = ?1", params![id])?;
    if let Some(generation_id) = generation_id {
        conn.execute(
            "DELETE FROM generations WHERE id = ?1",
            params![generation_id],
        )?;
    }
    if let Some(upload_id) = upload_id {
        conn.execute("DELETE FROM uploads WHERE id = ?1", params![upload_id])?;
    }
    if owns_files != 0 {
        purged.files.push(rel_path);
        purged.files.extend(thumb);
    }
    purged.count += 1;
    Ok(())
}

impl Store {
    pub(crate) fn insert_media(&self, media: &NewMedia) -> rusqlite::Result<()> {
        insert_media_in(&self.lock(), media)
    }

    pub(crate) fn media(&self, id: &str) -> rusqlite::Result<Option<MediaRow>> {
        self.lock()
            .query_row(
                &format!(
                    "SELECT {ROW_COLUMNS} FROM media_items m LEFT JOIN users u ON u.id = m.user_id
                     WHERE m.id = ?1"
                ),
                params![id],
                media_from_row,
            )
            .optional()
    }

    /// What the library calls the item stored at `rel_path` (its name, else its file
    /// name), for naming what is made from it ("Reframe of Beach walk").
    pub(crate) fn media_title_by_rel_path(
        &self,
        rel_path: &str,
    ) -> rusqlite::Result<Option<String>> {
        self.lock()
            .query_row(
                "SELECT name, filename FROM media_items WHERE rel_path = ?1
                 ORDER BY created_ms LIMIT 1",
                params![rel_path],
                |row| {
                    let name: String = row.get(0)?;
                    let filename: String = row.get(1)?;
                    Ok(if name.trim().is_empty() {
                        filename
                    } else {
                        name
                    })
                },
            )
            .optional()
    }

    /// The lowest-index item a generation produced (the GET /media/:id fallback).
    pub(crate) fn first_media_of_generation(
        &self,
        generation_id: &str,
    ) -> rusqlite::Result<Option<MediaRow>> {
        self.lock()
            .query_row(
                &format!(
                    "SELECT {ROW_COLUMNS} FROM media_items m LEFT JOIN users u ON u.id = m.user_id
                     WHERE m.generation_id = ?1 ORDER BY m.output_index LIMIT 1"
                ),
                params![generation_id],
                media_from_row,
            )
            .optional()
    }

    pub(crate) fn set_media_metadata(&self, id: &str, metadata_json: &str) -> rusqlite::Result<()> {
        self.lock().execute(
            "UPDATE media_items SET metadata_json = ?2 WHERE id = ?1",
            params![id, metadata_json],
        )?;
        Ok(())
    }

    pub(crate) fn list_media(&self, query: &ListQuery) -> rusqlite::Result<ListPage> {
        let mut from = "media_items m";
        let mut conditions: Vec<String> = Vec::new();
        let mut args: Vec<SqlValue> = Vec::new();
        let mut order = match query.sort {
            Sort::CreatedDesc => "m.created_ms DESC, m.rowid DESC",
            Sort::CreatedAsc => "m.created_ms ASC, m.rowid ASC",
            Sort::NameAsc => "m.name COLLATE NOCASE ASC, m.rowid ASC",
            Sort::NameDesc => "m.name COLLATE NOCASE DESC, m.rowid DESC",
        };
        let in_folder = matches!(query.scope, ListScope::Folder(_));
        match &query.scope {
            ListScope::Empty => {
                return Ok(ListPage {
                    rows: Vec::new(),
                    has_next: false,
                    total: (query.page == 1).then_some(0),
                });
            }
            ListScope::Owner(user_id) => {
                conditions.push("m.user_id = ?".into());
                args.push(SqlValue::Text(user_id.clone()));
            }
            ListScope::Project(project_id) => {
                conditions.push("m.project_id = ?".into());
                args.push(SqlValue::Text(project_id.clone()));
            }
            ListScope::Folder(folder_id) => {
                from = "folder_items fi JOIN media_items m ON m.id = fi.media_id";
                conditions.push("fi.folder_id = ?".into());
                args.push(SqlValue::Text(folder_id.clone()));
                // Manual position first, then most recently added.
                order = "(fi.position IS NULL), fi.position, fi.added_ms DESC, fi.rowid DESC";
            }
        }
        conditions.push(if query.trashed {
            "m.trashed_ms IS NOT NULL".into()
        } else {
            "m.trashed_ms IS NULL".into()
        });
        if !in_folder {
            if let Some(media_type) = query.media_type {
                conditions.push("m.media_type = ?".into());
                args.push(SqlValue::Text(media_type.to_owned()));
            }
            if let Some(category) = query.category {
                conditions.push(
                    match category {
                        CategoryFilter::Ai => "m.source_type IN ('generated', 'chat-generated')",
                        CategoryFilter::Uploaded => "m.source_type = 'uploaded'",
                        CategoryFilter::Edited => "m.category = 'edited-image'",
                        CategoryFilter::Favorites => {
                            "EXISTS (SELECT 1 FROM media_favorites f WHERE f.media_id = m.id)"
                        }
                        CategoryFilter::TrainingLab => "m.category = 'training-lab'",
                    }
                    .into(),
                );
            }
            if let Some(source) = query.source_type {
                conditions.push(
                    match source {
                        SourceFilter::Uploaded => "m.source_type = 'uploaded'",
                        SourceFilter::Generated => {
                            "m.source_type IN ('generated', 'chat-generated')"
                        }
                        SourceFilter::ChatGenerated => "m.source_type = 'chat-generated'",
                    }
                    .into(),
                );
            }
            if !query.include_stock {
                conditions.push("m.source_type <> 'stock'".into());
            }
            for (column, value) in [
                ("m.source_tag", &query.source_tag),
                ("m.preset_id", &query.preset_id),
                ("m.moodboard_id", &query.moodboard_id),
            ] {
                if let Some(value) = value {
                    conditions.push(format!("{column} = ?"));
                    args.push(SqlValue::Text(value.clone()));
                }
            }
            if let Some(search) = &query.search {
                // instr() is a literal substring test: `.*` or `%` match only themselves.
                conditions.push("instr(m.search_text, ?) > 0".into());
                args.push(SqlValue::Text(search.clone()));
            }
        }
        let where_sql = conditions.join(" AND ");
        let conn = self.lock();
        let total = if query.page == 1 {
            let count: i64 = conn.query_row(
                &format!("SELECT COUNT(*) FROM {from} WHERE {where_sql}"),
                params_from_iter(args.iter()),
                |r| r.get(0),
            )?;
            Some(to_u64(count))
        } else {
            None
        };
        let offset = (query.page - 1).saturating_mul(query.page_size);
        let mut page_args = args.clone();
        // One extra row tells whether another page exists without counting.
        page_args.push(SqlValue::Integer(
            (query.page_size + 1).min(i64::MAX as u64) as i64,
        ));
        page_args.push(SqlValue::Integer(offset.min(i64::MAX as u64) as i64));
        let sql = format!(
            "SELECT {ROW_COLUMNS} FROM {from} LEFT JOIN users u ON u.id = m.user_id
             WHERE {where_sql} ORDER BY {order} LIMIT ? OFFSET ?"
        );
        let mut stmt = conn.prepare(&sql)?;
        let mut rows: Vec<MediaRow> = stmt
            .query_map(params_from_iter(page_args.iter()), media_from_row)?
            .collect::<rusqlite::Result<_>>()?;
        let has_next = rows.len() as u64 > query.page_size;
        rows.truncate(query.page_size as usize);
        Ok(ListPage {
            rows,
            has_next,
            total,
        })
    }

    /// Moves owned live items to the trash; returns how many moved.
    pub(crate) fn trash_media(
        &self,
        user_id: &str,
        ids: &[String],
        now_ms: i64,
    ) -> rusqlite::Result<usize> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let mut count = 0;
        for id in ids {
            count += tx.execute(
                "UPDATE media_items SET trashed_ms = ?3
                 WHERE id = ?1 AND user_id = ?2 AND trashed_ms IS NULL",
                params![id, user_id, now_ms],
            )?;
        }
        tx.commit()?;
        Ok(count)
    }

    /// Restores owned trashed items; returns how many came back.
    pub(crate) fn restore_media(&self, user_id: &str, ids: &[String]) -> rusqlite::Result<usize> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let mut count = 0;
        for id in ids {
            count += tx.execute(
                "UPDATE media_items SET trashed_ms = NULL
                 WHERE id = ?1 AND user_id = ?2 AND trashed_ms IS NOT NULL",
                params![id, user_id],
            )?;
        }
        tx.commit()?;
        Ok(count)
    }

    /// Permanently deletes items (only the caller's when `user_id` is given). The caller
    /// removes `Purged::files` from disk after this returns.
    pub(crate) fn purge_media(
        &self,
        user_id: Option<&str>,
        ids: &[String],
    ) -> rusqlite::Result<Purged> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let mut purged = Purged::default();
        for id in ids {
            purge_one(&tx, id, user_id, &mut purged)?;
        }
        tx.commit()?;
        Ok(purged)
    }

    /// Items trashed before `cutoff_ms` (the retention sweep's victims).
    pub(crate) fn trash_older_than(&self, cutoff_ms: i64) -> rusqlite::Result<Vec<String>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT id FROM media_items WHERE trashed_ms IS NOT NULL AND trashed_ms < ?1",
        )?;
        let ids = stmt.query_map(params![cutoff_ms], |r| r.get(0))?;
        ids.collect()
    }

    /// Atomic move: every id must be owned by `user_id` and live, else nothing moves.
    pub(crate) fn move_media(
        &self,
        user_id: &str,
        ids: &[String],
        project_id: &str,
    ) -> rusqlite::Result<MoveOutcome> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let mut owned = 0;
        for id in ids {
            if tx
                .prepare_cached(
                    "SELECT 1 FROM media_items WHERE id = ?1 AND user_id = ?2 AND trashed_ms IS NULL",
                )?
                .exists(params![id, user_id])?
            {
                owned += 1;
            }
        }
        if owned != ids.len() {
            return Ok(MoveOutcome::NotAllOwned {
                owned,
                total: ids.len(),
            });
        }
        for id in ids {
            tx.execute(
                "UPDATE media_items SET project_id = ?2 WHERE id = ?1",
                params![id, project_id],
            )?;
        }
        tx.commit()?;
        Ok(MoveOutcome::Moved(owned))
    }

    /// Sets (one member's star) or clears (every member's) favourite.
    pub(crate) fn set_favorite(
        &self,
        media_id: &str,
        user_id: &str,
        favorited: bool,
        now_iso: &str,
    ) -> rusqlite::Result<()> {
        let conn = self.lock();
        if favorited {
            conn.execute(
                "INSERT OR IGNORE INTO media_favorites (media_id, user_id, created_at) VALUES (?1, ?2, ?3)",
                params![media_id, user_id, now_iso],
            )?;
        } else {
            conn.execute(
                "DELETE FROM media_favorites WHERE media_id = ?1",
                params![media_id],
            )?;
        }
        Ok(())
    }

    /// Live-item stats of the caller's own media (`project_id` None) or of a project.
    pub(crate) fn media_stats(
        &self,
        user_id: &str,
        project_id: Option<&str>,
    ) -> rusqlite::Result<Stats> {
        let conn = self.lock();
        let (condition, key) = match project_id {
            Some(project_id) => {
                if !project_access_in(&conn, user_id, project_id)?.any() {
                    return Ok(Stats::default());
                }
                ("project_id = ?1", project_id)
            }
            None => ("user_id = ?1", user_id),
        };
        conn.query_row(
            &format!(
                "SELECT COUNT(*), COALESCE(SUM(media_type = 'image'), 0),
                    COALESCE(SUM(media_type = 'video'), 0), COALESCE(SUM(media_type = 'audio'), 0),
                    COALESCE(SUM(size_bytes), 0)
                 FROM media_items WHERE {condition} AND trashed_ms IS NULL"
            ),
            params![key],
            |r| {
                Ok(Stats {
                    total: to_u64(r.get(0)?),
                    images: to_u64(r.get(1)?),
                    videos: to_u64(r.get(2)?),
                    audio: to_u64(r.get(3)?),
                    total_size_bytes: to_u64(r.get(4)?),
                })
            },
        )
    }
}

/// A valid (unused, unexpired) upload ticket's owner and bound project.
#[derive(Debug, Clone)]
pub(crate) struct Ticket {
    pub user_id: String,
    pub project_id: Option<String>,
}

impl Store {
    pub(crate) fn insert_ticket(
        &self,
        token: &str,
        user_id: &str,
        project_id: Option<&str>,
        expires_ms: i64,
    ) -> rusqlite::Result<()> {
        self.lock().execute(
            "INSERT INTO upload_tickets (token, user_id, project_id, expires_ms, used_ms)
             VALUES (?1, ?2, ?3, ?4, NULL)",
            params![token, user_id, project_id, expires_ms],
        )?;
        Ok(())
    }

    pub(crate) fn peek_ticket(&self, token: &str, now_ms: i64) -> rusqlite::Result<Option<Ticket>> {
        self.lock()
            .query_row(
                "SELECT user_id, project_id FROM upload_tickets
                 WHERE token = ?1 AND used_ms IS NULL AND expires_ms > ?2",
                params![token, now_ms],
                |r| {
                    Ok(Ticket {
                        user_id: r.get(0)?,
                        project_id: r.get(1)?,
                    })
                },
            )
            .optional()
    }

    /// Marks the ticket used; false when it was already used or expired (single use).
    pub(crate) fn consume_ticket(&self, token: &str, now_ms: i64) -> rusqlite::Result<bool> {
        let changed = self.lock().execute(
            "UPDATE upload_tickets SET used_ms = ?2
             WHERE token = ?1 AND used_ms IS NULL AND expires_ms > ?2",
            params![token, now_ms],
        )?;
        Ok(changed == 1)
    }
}
