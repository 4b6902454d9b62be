//! Project document storage: one table, soft deletes, a share token minted once per
//! document and kept (so a document re-shared later has the same link).

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::sandbox::clock::Clock;
use crate::sandbox::ids::new_object_id;
use crate::sandbox::palette_store::can_edit_project;
use crate::sandbox::store::Store;
use crate::sandbox::users::project_access_in;

pub(crate) const DOCS_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS project_docs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    owner_id TEXT NOT NULL, project_id TEXT NOT NULL,
    title TEXT NOT NULL, content TEXT NOT NULL,
    is_shared INTEGER NOT NULL DEFAULT 0, is_editable_by_link INTEGER NOT NULL DEFAULT 0,
    share_token TEXT UNIQUE,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, updated_ms INTEGER NOT NULL,
    edit_seq INTEGER NOT NULL, deleted_at TEXT);
CREATE INDEX IF NOT EXISTS project_docs_project ON project_docs(project_id, edit_seq);
CREATE INDEX IF NOT EXISTS project_docs_owner ON project_docs(owner_id, edit_seq);
";

const DOC_COLUMNS: &str = "id, owner_id, project_id, title, content, is_shared, \
    is_editable_by_link, share_token, created_at, updated_at, updated_ms";

/// A live (not deleted) document.
#[derive(Debug, Clone)]
pub(crate) struct DocRow {
    pub id: String,
    pub owner_id: String,
    pub project_id: String,
    pub title: String,
    pub content: String,
    pub is_shared: bool,
    pub is_editable_by_link: bool,
    /// Minted on the first share and never changed; `None` until then.
    pub share_token: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    updated_ms: i64,
}

/// What a caller may do with a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum DocRole {
    /// Neither the owner nor a participant of its project: the document does not exist
    /// for them (404).
    Stranger,
    /// Owner or member (any permission, `view` included) of the project.
    Reader,
    /// Project owner or member with `edit`/`full`: may update and share.
    Editor,
    /// Created the document: may also delete it.
    Owner,
}

fn doc_from_row(row: &Row<'_>) -> rusqlite::Result<DocRow> {
    Ok(DocRow {
        id: row.get(0)?,
        owner_id: row.get(1)?,
        project_id: row.get(2)?,
        title: row.get(3)?,
        content: row.get(4)?,
        is_shared: row.get(5)?,
        is_editable_by_link: row.get(6)?,
        share_token: row.get(7)?,
        created_at: row.get(8)?,
        updated_at: row.get(9)?,
        updated_ms: row.get(10)?,
    })
}

/// The next value of the list order: every write moves its document to the front, even
/// two writes within one millisecond.
fn next_edit_seq(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT COALESCE(MAX(edit_seq), 0) + 1 FROM project_docs",
        [],
        |r| r.get(0),
    )
}

/// `updated_at` of a write at `now_ms`: strictly later than the previous one, so a save
/// always shows as a change.
fn next_updated_ms(previous_ms: i64, now_ms: i64) -> i64 {
    now_ms.max(previous_ms + 1)
}

fn role_in(conn: &Connection, user_id: &str, doc: &DocRow) -> rusqlite::Result<DocRole> {
    if doc.owner_id == user_id {
        return Ok(DocRole::Owner);
    }
    if can_edit_project(conn, user_id, &doc.project_id)? {
        return Ok(DocRole::Editor);
    }
    Ok(
        if project_access_in(conn, user_id, &doc.project_id)?.any() {
            DocRole::Reader
        } else {
            DocRole::Stranger
        },
    )
}

/// A new document's fields (already validated and sanitised).
pub(crate) struct NewDoc<'a> {
    pub owner_id: &'a str,
    pub project_id: &'a str,
    pub title: &'a str,
    pub content: &'a str,
    pub now_ms: i64,
}

/// The share state to set.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ShareState {
    pub shared: bool,
    pub editable: bool,
}

impl Store {
    pub(crate) fn insert_doc(&self, new: &NewDoc<'_>) -> rusqlite::Result<DocRow> {
        let conn = self.lock();
        let id = new_object_id();
        let now = Clock::iso_at(new.now_ms);
        conn.execute(
            "INSERT INTO project_docs (id, owner_id, project_id, title, content, is_shared,
                is_editable_by_link, share_token, created_at, updated_at, updated_ms, edit_seq)
             VALUES (?1, ?2, ?3, ?4, ?5, 0, 0, NULL, ?6, ?6, ?7, ?8)",
            params![
                id,
                new.owner_id,
                new.project_id,
                new.title,
                new.content,
                now,
                new.now_ms,
                next_edit_seq(&conn)?
            ],
        )?;
        Ok(DocRow {
            id,
            owner_id: new.owner_id.to_owned(),
            project_id: new.project_id.to_owned(),
            title: new.title.to_owned(),
            content: new.content.to_owned(),
            is_shared: false,
            is_editable_by_link: false,
            share_token: None,
            created_at: now.clone(),
            updated_at: now,
            updated_ms: new.now_ms,
        })
    }

    /// A live document and what `user_id` may do with it; `None` when it does not exist,
    /// was deleted, or the caller is a stranger to it.
    pub(crate) fn doc_for(
        &self,
        user_id: &str,
        id: &str,
    ) -> rusqlite::Result<Option<(DocRow, DocRole)>> {
        let conn = self.lock();
        let Some(doc) = live_doc(&conn, DocKey::Id, id)? else {
            return Ok(None);
        };
        let role = role_in(&conn, user_id, &doc)?;
        Ok((role != DocRole::Stranger).then_some((doc, role)))
    }

    /// The live, shared document behind a share token.
    pub(crate) fn shared_doc(&self, token: &str) -> rusqlite::Result<Option<DocRow>> {
        let conn = self.lock();
        Ok(live_doc(&conn, DocKey::ShareToken, token)?.filter(|doc| doc.is_shared))
    }

    /// Replaces the title and/or content (`None` keeps it); bumps `updated_at` and the
    /// list order. Reads the row again under the lock, so a concurrent write of the other
    /// field is not undone. `None` when the document was deleted meanwhile.
    pub(crate) fn update_doc(
        &self,
        id: &str,
        title: Option<&str>,
        content: Option<&str>,
        now_ms: i64,
    ) -> rusqlite::Result<Option<DocRow>> {
        let conn = self.lock();
        let Some(current) = live_doc(&conn, DocKey::Id, id)? else {
            return Ok(None);
        };
        update_in(&conn, current, title, content, now_ms).map(Some)
    }

    /// A visitor's save through the share link: checked and written under one lock, so
    /// a document unshared or made read-only a moment earlier is never changed.
    pub(crate) fn edit_by_link(
        &self,
        token: &str,
        content: &str,
        now_ms: i64,
    ) -> rusqlite::Result<LinkEdit> {
        let conn = self.lock();
        match live_doc(&conn, DocKey::ShareToken, token)? {
            Some(doc) if doc.is_shared && doc.is_editable_by_link => {
                update_in(&conn, doc, None, Some(content), now_ms)?;
                Ok(LinkEdit::Saved)
            }
            Some(doc) if doc.is_shared => Ok(LinkEdit::ReadOnly),
            _ => Ok(LinkEdit::NotShared),
        }
    }

    /// Sets the share state (not a toggle). Sharing mints the token once; unsharing keeps
    /// it (the page stops answering) and clears `is_editable_by_link`. `updated_at` is
    /// not touched: sharing is not an edit of the document. `None` when the document was
    /// deleted meanwhile.
    pub(crate) fn set_doc_share(
        &self,
        id: &str,
        share: ShareState,
    ) -> rusqlite::Result<Option<DocRow>> {
        let conn = self.lock();
        let Some(current) = live_doc(&conn, DocKey::Id, id)? else {
            return Ok(None);
        };
        let token = match (&current.share_token, share.shared) {
            (Some(token), _) => Some(token.clone()),
            (None, true) => Some(new_share_token()),
            (None, false) => None,
        };
        let editable = share.shared && share.editable;
        conn.execute(
            "UPDATE project_docs SET is_shared = ?2, is_editable_by_link = ?3, share_token = ?4
             WHERE id = ?1",
            params![current.id, share.shared, editable, token],
        )?;
        Ok(Some(DocRow {
            is_shared: share.shared,
            is_editable_by_link: editable,
            share_token: token,
            ..current
        }))
    }

    /// Soft delete: the row stays with `deleted_at` set and is invisible everywhere.
    pub(crate) fn soft_delete_doc(&self, id: &str, now_ms: i64) -> rusqlite::Result<()> {
        self.lock().execute(
            "UPDATE project_docs SET deleted_at = ?2 WHERE id = ?1 AND deleted_at IS NULL",
            params![id, Clock::iso_at(now_ms)],
        )?;
        Ok(())
    }

    /// One page of the live documents `user_id` can read (in `project_id` only, when
    /// given), most recently written first, and the total.
    pub(crate) fn list_docs(
        &self,
        user_id: &str,
        project_id: Option<&str>,
        limit: u32,
        offset: u64,
    ) -> rusqlite::Result<(Vec<DocRow>, u64)> {
        let conn = self.lock();
        // Readable: the caller's own documents and every document of a project the caller
        // owns or is a member of (any permission).
        let filter = "deleted_at IS NULL
            AND (?2 IS NULL OR project_id = ?2)
            AND (owner_id = ?1
                OR project_id IN (SELECT id FROM projects WHERE user_id = ?1)
                OR project_id IN (SELECT project_id FROM project_members WHERE user_id = ?1))";
        let total: i64 = conn.query_row(
            &format!("SELECT COUNT(*) FROM project_docs WHERE {filter}"),
            params![user_id, project_id],
            |r| r.get(0),
        )?;
        let mut stmt = conn.prepare(&format!(
            "SELECT {DOC_COLUMNS} FROM project_docs WHERE {filter}
             ORDER BY edit_seq DESC LIMIT ?3 OFFSET ?4"
        ))?;
        let rows = stmt
            .query_map(
                params![
                    user_id,
                    project_id,
                    i64::from(limit),
                    i64::try_from(offset).unwrap_or(i64::MAX)
                ],
                doc_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((rows, total.max(0) as u64))
    }
}

/// What became of a save through a share link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkEdit {
    Saved,
    /// Shared for reading only.
    ReadOnly,
    /// Unknown token, unshared or deleted document.
    NotShared,
}

/// Writes new title and/or content over `current` (the row as read under the same lock).
fn update_in(
    conn: &Connection,
    current: DocRow,
    title: Option<&str>,
    content: Option<&str>,
    now_ms: i64,
) -> rusqlite::Result<DocRow> {
    let updated_ms = next_updated_ms(current.updated_ms, now_ms);
    let updated = DocRow {
        title: title.map_or(current.title.clone(), str::to_owned),
        content: content.map_or(current.content.clone(), str::to_owned),
        updated_at: Clock::iso_at(updated_ms),
        updated_ms,
        ..current
    };
    conn.execute(
        "UPDATE project_docs SET title = ?2, content = ?3, updated_at = ?4, updated_ms = ?5,
            edit_seq = ?6
         WHERE id = ?1",
        params![
            updated.id,
            updated.title,
            updated.content,
            updated.updated_at,
            updated.updated_ms,
            next_edit_seq(conn)?
        ],
    )?;
    Ok(updated)
}

/// How a document is looked up.
#[derive(Clone, Copy)]
enum DocKey {
    Id,
    ShareToken,
}

/// A live (not deleted) document by id or share token.
fn live_doc(conn: &Connection, key: DocKey, value: &str) -> rusqlite::Result<Option<DocRow>> {
    let column = match key {
        DocKey::Id => "id",
        DocKey::ShareToken => "share_token",
    };
    conn.query_row(
        &format!(
            "SELECT {DOC_COLUMNS} FROM project_docs WHERE {column} = ?1 AND deleted_at IS NULL"
        ),
        params![value],
        doc_from_row,
    )
    .optional()
}

/// 32 random hex characters: unguessable, URL-safe.
fn new_share_token() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

#[cfg(test)]
mod tests {
    use super::next_updated_ms;

    #[test]
    fn a_save_within_the_same_millisecond_still_moves_updated_at_forward() {
        assert_eq!(next_updated_ms(1_000, 1_000), 1_001);
        assert_eq!(next_updated_ms(1_000, 5_000), 5_000);
        // A clock that went backwards never makes updated_at go backwards.
        assert_eq!(next_updated_ms(1_000, 900), 1_001);
    }
}
