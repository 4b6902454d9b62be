//! Visual DNA storage: entries (personal, or global with no owner) and their folders.
//! The building state is derived from `ready_at_ms` against the sandbox clock, so it
//! survives a restart (docs/SANDBOX.md, "Visual DNA").

use rusqlite::{OptionalExtension, Row, params};
use serde_json::{Value, json};

use crate::sandbox::ids::new_object_id;
use crate::sandbox::store::Store;

pub(crate) const VISUAL_DNA_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS visual_dnas (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    owner_id TEXT, name TEXT NOT NULL, dna_type TEXT NOT NULL, prompt_helper TEXT,
    image_paths_json TEXT NOT NULL, thumb_rel_path TEXT NOT NULL, colors_json TEXT NOT NULL,
    description TEXT NOT NULL, system_prompt TEXT NOT NULL, folder_id TEXT,
    failed INTEGER NOT NULL DEFAULT 0, ready_at_ms INTEGER NOT NULL,
    created_at TEXT NOT NULL, created_ms INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS visual_dnas_owner ON visual_dnas(owner_id);
CREATE TABLE IF NOT EXISTS visual_dna_folders (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    owner_id TEXT NOT NULL, name TEXT NOT NULL, created_at TEXT NOT NULL);
";

#[derive(Debug, Clone)]
pub(crate) struct VisualDnaRow {
    pub id: String,
    pub owner_id: Option<String>,
    pub name: String,
    pub dna_type: String,
    pub prompt_helper: Option<String>,
    /// Files under the files dir (the uploaded pictures).
    pub image_paths: Vec<String>,
    pub thumb_rel_path: String,
    /// Dominant colours of the pictures, `#RRGGBB`, most populous first.
    pub colors: Vec<String>,
    pub description: String,
    pub system_prompt: String,
    pub folder_id: Option<String>,
    pub failed: bool,
    pub ready_at_ms: i64,
    pub created_at: String,
    pub created_ms: i64,
}

/// Wire status of an entry at `now_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DnaStatus {
    Building,
    Ready,
    Failed,
}

impl DnaStatus {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            DnaStatus::Building => "building",
            DnaStatus::Ready => "ready",
            DnaStatus::Failed => "failed",
        }
    }
}

impl VisualDnaRow {
    pub(crate) fn status(&self, now_ms: i64) -> DnaStatus {
        if self.failed {
            DnaStatus::Failed
        } else if now_ms >= self.ready_at_ms {
            DnaStatus::Ready
        } else {
            DnaStatus::Building
        }
    }

    pub(crate) fn is_global(&self) -> bool {
        self.owner_id.is_none()
    }

    /// The wire object; `description` and `system_prompt` only once ready.
    pub(crate) fn to_json(
        &self,
        now_ms: i64,
        file_url: &dyn Fn(&str) -> String,
        with_system_prompt: bool,
    ) -> Value {
        let status = self.status(now_ms);
        let ready = status == DnaStatus::Ready;
        let mut value = json!({
            "id": self.id,
            "name": self.name,
            "dna_type": self.dna_type,
            "description": ready.then(|| self.description.clone()),
            "prompt_helper": self.prompt_helper,
            "thumbnail_url": file_url(&self.thumb_rel_path),
            "images": self.image_paths.iter().map(|p| file_url(p)).collect::<Vec<_>>(),
            "is_global": self.is_global(),
            "status": status.as_str(),
            "folder_id": self.folder_id,
            "created_at": self.created_at,
        });
        if with_system_prompt {
            value["system_prompt"] = json!(ready.then(|| self.system_prompt.clone()));
        }
        value
    }
}

#[derive(Debug, Clone)]
pub(crate) struct FolderRow {
    pub id: String,
    pub name: String,
    pub item_count: u64,
}

impl FolderRow {
    pub(crate) fn to_json(&self) -> Value {
        json!({"id": self.id, "name": self.name, "item_count": self.item_count})
    }
}

/// Filters and page of a list.
#[derive(Debug, Default)]
pub(crate) struct DnaQuery {
    pub search: Option<String>,
    pub dna_type: Option<String>,
    pub folder_id: Option<String>,
    pub limit: u32,
    pub offset: u64,
}

/// What a PUT may change; `None` keeps the stored value.
#[derive(Debug, Default)]
pub(crate) struct DnaChanges {
    pub name: Option<String>,
    pub dna_type: Option<String>,
    pub prompt_helper: Option<Option<String>>,
    pub description: Option<String>,
    pub system_prompt: Option<String>,
}

const COLUMNS: &str = "id, owner_id, name, dna_type, prompt_helper, image_paths_json, \
    thumb_rel_path, colors_json, description, system_prompt, folder_id, failed, ready_at_ms, \
    created_at, created_ms";

fn from_row(row: &Row<'_>) -> rusqlite::Result<VisualDnaRow> {
    let paths: String = row.get("image_paths_json")?;
    let colors: String = row.get("colors_json")?;
    Ok(VisualDnaRow {
        id: row.get("id")?,
        owner_id: row.get("owner_id")?,
        name: row.get("name")?,
        dna_type: row.get("dna_type")?,
        prompt_helper: row.get("prompt_helper")?,
        image_paths: serde_json::from_str(&paths).unwrap_or_default(),
        thumb_rel_path: row.get("thumb_rel_path")?,
        colors: serde_json::from_str(&colors).unwrap_or_default(),
        description: row.get("description")?,
        system_prompt: row.get("system_prompt")?,
        folder_id: row.get("folder_id")?,
        failed: row.get::<_, i64>("failed")? != 0,
        ready_at_ms: row.get("ready_at_ms")?,
        created_at: row.get("created_at")?,
        created_ms: row.get("created_ms")?,
    })
}

impl Store {
    pub(crate) fn insert_visual_dna(&self, row: &VisualDnaRow) -> rusqlite::Result<()> {
        self.lock().execute(
            &format!(
                "INSERT INTO visual_dnas ({COLUMNS}) VALUES
                 (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
            ),
            params![
                row.id,
                row.owner_id,
                row.name,
                row.dna_type,
                row.prompt_helper,
                Value::from(row.image_paths.clone()).to_string(),
                row.thumb_rel_path,
                Value::from(row.colors.clone()).to_string(),
                row.description,
                row.system_prompt,
                row.folder_id,
                i64::from(row.failed),
                row.ready_at_ms,
                row.created_at,
                row.created_ms,
            ],
        )?;
        Ok(())
    }

    pub(crate) fn has_global_visual_dnas(&self) -> rusqlite::Result<bool> {
        self.lock()
            .prepare("SELECT 1 FROM visual_dnas WHERE owner_id IS NULL")?
            .exists([])
    }

    pub(crate) fn visual_dna(&self, id: &str) -> rusqlite::Result<Option<VisualDnaRow>> {
        self.lock()
            .query_row(
                &format!("SELECT {COLUMNS} FROM visual_dnas WHERE id = ?1"),
                params![id],
                from_row,
            )
            .optional()
    }

    /// The caller's entries plus the globals: globals first, then newest first.
    pub(crate) fn list_visual_dnas(
        &self,
        user_id: &str,
        query: &DnaQuery,
    ) -> rusqlite::Result<(Vec<VisualDnaRow>, u64)> {
        let conn = self.lock();
        let filter = "(owner_id = ?1 OR owner_id IS NULL)
            AND (?2 IS NULL OR instr(lower(name), lower(?2)) > 0
                 OR instr(lower(description), lower(?2)) > 0)
            AND (?3 IS NULL OR dna_type = ?3)
            AND (?4 IS NULL OR folder_id = ?4)";
        let args = params![user_id, query.search, query.dna_type, query.folder_id];
        let total: i64 = conn.query_row(
            &format!("SELECT COUNT(*) FROM visual_dnas WHERE {filter}"),
            args,
            |r| r.get(0),
        )?;
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM visual_dnas WHERE {filter}
             ORDER BY (owner_id IS NULL) DESC, created_ms DESC, seq DESC LIMIT ?5 OFFSET ?6"
        ))?;
        let rows = stmt
            .query_map(
                params![
                    user_id,
                    query.search,
                    query.dna_type,
                    query.folder_id,
                    i64::from(query.limit),
                    query.offset as i64
                ],
                from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((rows, total.max(0) as u64))
    }

    pub(crate) fn update_visual_dna(
        &self,
        id: &str,
        changes: &DnaChanges,
    ) -> rusqlite::Result<Option<VisualDnaRow>> {
        {
            let conn = self.lock();
            let tx = conn.unchecked_transaction()?;
            if let Some(name) = &changes.name {
                tx.execute(
                    "UPDATE visual_dnas SET name = ?2 WHERE id = ?1",
                    params![id, name],
                )?;
            }
            if let Some(dna_type) = &changes.dna_type {
                tx.execute(
                    "UPDATE visual_dnas SET dna_type = ?2 WHERE id = ?1",
                    params![id, dna_type],
                )?;
            }
            if let Some(helper) = &changes.prompt_helper {
                tx.execute(
                    "UPDATE visual_dnas SET prompt_helper = ?2 WHERE id = ?1",
                    params![id, helper],
                )?;
            }
            if let Some(description) = &changes.description {
                tx.execute(
                    "UPDATE visual_dnas SET description = ?2 WHERE id = ?1",
                    params![id, description],
                )?;
            }
            if let Some(system_prompt) = &changes.system_prompt {
                tx.execute(
                    "UPDATE visual_dnas SET system_prompt = ?2 WHERE id = ?1",
                    params![id, system_prompt],
                )?;
            }
            tx.commit()?;
        }
        self.visual_dna(id)
    }

    pub(crate) fn delete_visual_dna(&self, id: &str) -> rusqlite::Result<()> {
        self.lock()
            .execute("DELETE FROM visual_dnas WHERE id = ?1", params![id])?;
        Ok(())
    }

    pub(crate) fn set_visual_dna_folder(
        &self,
        id: &str,
        folder_id: Option<&str>,
    ) -> rusqlite::Result<Option<VisualDnaRow>> {
        self.lock().execute(
            "UPDATE visual_dnas SET folder_id = ?2 WHERE id = ?1",
            params![id, folder_id],
        )?;
        self.visual_dna(id)
    }

    pub(crate) fn visual_dna_folders(&self, user_id: &str) -> rusqlite::Result<Vec<FolderRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT f.id, f.name, (SELECT COUNT(*) FROM visual_dnas d WHERE d.folder_id = f.id)
             FROM visual_dna_folders f WHERE f.owner_id = ?1 ORDER BY f.seq",
        )?;
        stmt.query_map(params![user_id], |r| {
            Ok(FolderRow {
                id: r.get(0)?,
                name: r.get(1)?,
                item_count: r.get::<_, i64>(2)?.max(0) as u64,
            })
        })?
        .collect()
    }

    pub(crate) fn visual_dna_folder(
        &self,
        user_id: &str,
        id: &str,
    ) -> rusqlite::Result<Option<FolderRow>> {
        Ok(self
            .visual_dna_folders(user_id)?
            .into_iter()
            .find(|f| f.id == id))
    }

    pub(crate) fn insert_visual_dna_folder(
        &self,
        user_id: &str,
        name: &str,
        created_at: &str,
    ) -> rusqlite::Result<FolderRow> {
        let id = new_object_id();
        self.lock().execute(
            "INSERT INTO visual_dna_folders (id, owner_id, name, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![id, user_id, name, created_at],
        )?;
        Ok(FolderRow {
            id,
            name: name.to_owned(),
            item_count: 0,
        })
    }

    pub(crate) fn rename_visual_dna_folder(&self, id: &str, name: &str) -> rusqlite::Result<()> {
        self.lock().execute(
            "UPDATE visual_dna_folders SET name = ?2 WHERE id = ?1",
            params![id, name],
        )?;
        Ok(())
    }

    /// Deletes the folder; its entries go back to no folder.
    pub(crate) fn delete_visual_dna_folder(&self, id: &str) -> rusqlite::Result<()> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        tx.execute(
            "UPDATE visual_dnas SET folder_id = NULL WHERE folder_id = ?1",
            params![id],
        )?;
        tx.execute("DELETE FROM visual_dna_folders WHERE id = ?1", params![id])?;
        tx.commit()
    }
}
