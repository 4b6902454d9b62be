//! Media folders: flat, user-scoped groups with e-mail sharing (no permission levels).

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::store::Store;

pub(crate) const FOLDER_LIST_CAP: usize = 500;

#[derive(Debug, Clone)]
pub(crate) struct FolderRow {
    pub id: String,
    pub user_id: String,
    pub name: String,
    pub description: Option<String>,
    pub color: String,
    pub icon: String,
    pub project_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub shared_with: Vec<String>,
    pub item_count: u64,
}

/// How the caller may use a folder through the folder routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FolderRole {
    Owner,
    Shared,
    /// Visible in the list through a project only: not readable or writable (404).
    None,
}

impl FolderRow {
    pub(crate) fn role(&self, user_id: &str) -> FolderRole {
        if self.user_id == user_id {
            FolderRole::Owner
        } else if self.shared_with.iter().any(|u| u == user_id) {
            FolderRole::Shared
        } else {
            FolderRole::None
        }
    }
}

/// Fields of a new folder (already validated).
#[derive(Debug, Clone)]
pub(crate) struct NewFolder {
    pub id: String,
    pub user_id: String,
    pub name: String,
    pub description: Option<String>,
    pub color: String,
    pub icon: String,
    pub created_at: String,
    pub created_ms: i64,
}

/// A validated partial update; `None` leaves the field unchanged.
#[derive(Debug, Clone, Default)]
pub(crate) struct FolderUpdate {
    pub name: Option<String>,
    /// `Some(None)` clears the description.
    pub description: Option<Option<String>>,
    pub color: Option<String>,
    pub icon: Option<String>,
}

#[derive(Debug)]
pub(crate) enum AddOutcome {
    Added {
        added: usize,
        skipped: usize,
        rejected: Vec<String>,
    },
    NoneOwned,
}

fn folder_base(row: &Row<'_>) -> rusqlite::Result<FolderRow> {
    Ok(FolderRow {
        id: row.get("id")?,
        user_id: row.get("user_id")?,
        name: row.get("name")?,
        description: row.get("description")?,
        color: row.get("color")?,
        icon: row.get("icon")?,
        project_id: row.get("project_id")?,
        created_at: row.get("created_at")?,
        updated_at: row.get("updated_at")?,
        shared_with: Vec::new(),
        item_count: 0,
    })
}

fn fill_details(conn: &Connection, folder: &mut FolderRow) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(
        "SELECT user_id FROM folder_shares WHERE folder_id = ?1 ORDER BY created_at, rowid",
    )?;
    folder.shared_with = stmt
        .query_map(params![folder.id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let count: i64 = conn
        .prepare_cached(
            "SELECT COUNT(*) FROM folder_items fi JOIN media_items m ON m.id = fi.media_id
             WHERE fi.folder_id = ?1 AND m.trashed_ms IS NULL",
        )?
        .query_row(params![folder.id], |r| r.get(0))?;
    folder.item_count = count.max(0) as u64;
    Ok(())
}

fn folder_in(conn: &Connection, id: &str) -> rusqlite::Result<Option<FolderRow>> {
    let folder = conn
        .query_row(
            "SELECT * FROM folders WHERE id = ?1 AND deleted_ms IS NULL",
            params![id],
            folder_base,
        )
        .optional()?;
    match folder {
        Some(mut folder) => {
            fill_details(conn, &mut folder)?;
            Ok(Some(folder))
        }
        None => Ok(None),
    }
}

fn touch(conn: &Connection, id: &str, now_iso: &str) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE folders SET updated_at = ?2 WHERE id = ?1",
        params![id, now_iso],
    )?;
    Ok(())
}

impl Store {
    pub(crate) fn folder(&self, id: &str) -> rusqlite::Result<Option<FolderRow>> {
        folder_in(&self.lock(), id)
    }

    /// Owned, shared-with and project-assigned folders, newest first, capped.
    pub(crate) fn list_folders(&self, user_id: &str) -> rusqlite::Result<Vec<FolderRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT f.* FROM folders f WHERE f.deleted_ms IS NULL AND (
                f.user_id = ?1
                OR EXISTS (SELECT 1 FROM folder_shares s WHERE s.folder_id = f.id AND s.user_id = ?1)
                OR (f.project_id IS NOT NULL AND (
                    EXISTS (SELECT 1 FROM projects p WHERE p.id = f.project_id AND p.user_id = ?1)
                    OR EXISTS (SELECT 1 FROM project_members pm
                               WHERE pm.project_id = f.project_id AND pm.user_id = ?1))))
             ORDER BY f.created_ms DESC, f.rowid DESC LIMIT ?2",
        )?;
        let mut folders: Vec<FolderRow> = stmt
            .query_map(params![user_id, FOLDER_LIST_CAP as i64], folder_base)?
            .collect::<rusqlite::Result<_>>()?;
        for folder in &mut folders {
            fill_details(&conn, folder)?;
        }
        Ok(folders)
    }

    pub(crate) fn create_folder(&self, new: &NewFolder) -> rusqlite::Result<FolderRow> {
        let conn = self.lock();
        conn.execute(
            "INSERT INTO folders (id, user_id, name, description, color, icon, project_id,
                created_at, created_ms, updated_at, deleted_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7, ?8, ?7, NULL)",
            params![
                new.id,
                new.user_id,
                new.name,
                new.description,
                new.color,
                new.icon,
                new.created_at,
                new.created_ms
            ],
        )?;
        folder_in(&conn, &new.id)?.ok_or(rusqlite::Error::QueryReturnedNoRows)
    }

    pub(crate) fn update_folder(
        &self,
        id: &str,
        update: &FolderUpdate,
        now_iso: &str,
    ) -> rusqlite::Result<Option<FolderRow>> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        if let Some(name) = &update.name {
            tx.execute(
                "UPDATE folders SET name = ?2 WHERE id = ?1",
                params![id, name],
            )?;
        }
        if let Some(description) = &update.description {
            tx.execute(
                "UPDATE folders SET description = ?2 WHERE id = ?1",
                params![id, description],
            )?;
        }
        if let Some(color) = &update.color {
            tx.execute(
                "UPDATE folders SET color = ?2 WHERE id = ?1",
                params![id, color],
            )?;
        }
        if let Some(icon) = &update.icon {
            tx.execute(
                "UPDATE folders SET icon = ?2 WHERE id = ?1",
                params![id, icon],
            )?;
        }
        touch(&tx, id, now_iso)?;
        tx.commit()?;
        folder_in(&conn, id)
    }

    /// Soft delete: the folder disappears and its membership is cleared; items stay.
    pub(crate) fn delete_folder(&self, id: &str, now_ms: i64) -> rusqlite::Result<()> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        tx.execute(
            "UPDATE folders SET deleted_ms = ?2 WHERE id = ?1",
            params![id, now_ms],
        )?;
        tx.execute("DELETE FROM folder_items WHERE folder_id = ?1", params![id])?;
        tx.commit()
    }

    /// Adds the caller's own live items; others are rejected. Nothing is written when the
    /// caller owns none of them.
    pub(crate) fn add_folder_items(
        &self,
        folder_id: &str,
        user_id: &str,
        ids: &[String],
        now_ms: i64,
        now_iso: &str,
    ) -> rusqlite::Result<AddOutcome> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let (mut added, mut skipped, mut rejected) = (0, 0, Vec::new());
        for id in ids {
            let owned = tx
                .prepare_cached(
                    "SELECT 1 FROM media_items WHERE id = ?1 AND user_id = ?2 AND trashed_ms IS NULL",
                )?
                .exists(params![id, user_id])?;
            if !owned {
                rejected.push(id.clone());
                continue;
            }
            let inserted = tx.execute(
                "INSERT OR IGNORE INTO folder_items (folder_id, media_id, added_by, position, added_ms)
                 VALUES (?1, ?2, ?3, NULL, ?4)",
                params![folder_id, id, user_id, now_ms],
            )?;
            if inserted == 0 {
                skipped += 1;
            } else {
                added += 1;
            }
        }
        if added + skipped == 0 {
            return Ok(AddOutcome::NoneOwned);
        }
        touch(&tx, folder_id, now_iso)?;
        tx.commit()?;
        Ok(AddOutcome::Added {
            added,
            skipped,
            rejected,
        })
    }

    /// Removes items; with `only_added_by` just the ones that user added.
    pub(crate) fn remove_folder_items(
        &self,
        folder_id: &str,
        ids: &[String],
        only_added_by: Option<&str>,
        now_iso: &str,
    ) -> rusqlite::Result<usize> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let mut removed = 0;
        for id in ids {
            removed += match only_added_by {
                Some(user_id) => tx.execute(
                    "DELETE FROM folder_items WHERE folder_id = ?1 AND media_id = ?2 AND added_by = ?3",
                    params![folder_id, id, user_id],
                )?,
                None => tx.execute(
                    "DELETE FROM folder_items WHERE folder_id = ?1 AND media_id = ?2",
                    params![folder_id, id],
                )?,
            };
        }
        if removed > 0 {
            touch(&tx, folder_id, now_iso)?;
        }
        tx.commit()?;
        Ok(removed)
    }

    pub(crate) fn share_folder(
        &self,
        folder_id: &str,
        user_ids: &[String],
        now_iso: &str,
    ) -> rusqlite::Result<()> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        for user_id in user_ids {
            tx.execute(
                "INSERT OR IGNORE INTO folder_shares (folder_id, user_id, created_at) VALUES (?1, ?2, ?3)",
                params![folder_id, user_id, now_iso],
            )?;
        }
        touch(&tx, folder_id, now_iso)?;
        tx.commit()
    }

    pub(crate) fn unshare_folder(
        &self,
        folder_id: &str,
        user_id: &str,
        now_iso: &str,
    ) -> rusqlite::Result<()> {
        let conn = self.lock();
        let removed = conn.execute(
            "DELETE FROM folder_shares WHERE folder_id = ?1 AND user_id = ?2",
            params![folder_id, user_id],
        )?;
        if removed > 0 {
            touch(&conn, folder_id, now_iso)?;
        }
        Ok(())
    }

    /// Ids of the folder's live items (move-contents works on these).
    pub(crate) fn folder_live_media_ids(&self, folder_id: &str) -> rusqlite::Result<Vec<String>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT fi.media_id FROM folder_items fi JOIN media_items m ON m.id = fi.media_id
             WHERE fi.folder_id = ?1 AND m.trashed_ms IS NULL",
        )?;
        let ids = stmt.query_map(params![folder_id], |r| r.get(0))?;
        ids.collect()
    }

    /// Test control: assigns a folder to a project (not possible through the API).
    pub(crate) fn assign_folder_to_project(
        &self,
        folder_id: &str,
        project_id: &str,
    ) -> rusqlite::Result<bool> {
        let changed = self.lock().execute(
            "UPDATE folders SET project_id = ?2 WHERE id = ?1 AND deleted_ms IS NULL",
            params![folder_id, project_id],
        )?;
        Ok(changed > 0)
    }
}
