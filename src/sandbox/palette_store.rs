//! Color palette storage (Color DNA): palettes (personal, or organisation-wide with no
//! owner) and the one active grade each project may have.

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::{Value, json};

use super::ids::new_object_id;
use super::store::{Store, now_iso};
use super::users::project_access_in;
use crate::palette::{PaletteColor, Role};

pub(crate) const PALETTE_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS color_palettes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    owner_id TEXT, name TEXT NOT NULL, colors_json TEXT NOT NULL,
    source_image_urls_json TEXT NOT NULL, content_scope TEXT NOT NULL,
    legacy_is_active INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS color_palettes_owner ON color_palettes(owner_id);
CREATE TABLE IF NOT EXISTS project_palettes (
    project_id TEXT PRIMARY KEY, palette_id TEXT NOT NULL, activated_by TEXT NOT NULL,
    activated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS project_palettes_palette ON project_palettes(palette_id);
";

/// The organisation palette seeded once per data dir (every sandbox user is in the one
/// sandbox organisation).
const ORG_PALETTE_NAME: &str = "Studio House Grade";
const ORG_PALETTE_COLORS: [(&str, &str, Role); 3] = [
    ("#191970", "Midnight Blue", Role::Dominant),
    ("#FFBF00", "Amber", Role::Secondary),
    ("#E3DAC9", "Bone", Role::Accent),
];

#[derive(Debug, Clone)]
pub(crate) struct PaletteRow {
    pub id: String,
    pub owner_id: Option<String>,
    pub name: String,
    pub colors: Vec<PaletteColor>,
    pub source_image_urls: Vec<String>,
    pub content_scope: String,
    pub legacy_is_active: bool,
    pub created_at: String,
    pub updated_at: String,
}

impl PaletteRow {
    /// The wire object; `is_active` is decided by the caller (list: project-relative,
    /// update: the legacy stored field, activate: true).
    pub(crate) fn to_json(&self, is_active: bool) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "colors": colors_to_json(&self.colors),
            "source_image_urls": self.source_image_urls,
            "is_active": is_active,
            "content_scope": self.content_scope,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        })
    }
}

pub(crate) fn colors_to_json(colors: &[PaletteColor]) -> Value {
    Value::Array(
        colors
            .iter()
            .map(|c| json!({"hex": c.hex, "name": c.name, "role": c.role.as_str()}))
            .collect(),
    )
}

/// Reads colours written by [`colors_to_json`]; unreadable entries are dropped (we wrote
/// them, so this only guards against a hand-edited database).
fn colors_from_json(text: &str) -> Vec<PaletteColor> {
    let Ok(Value::Array(items)) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            Some(PaletteColor {
                hex: item.get("hex")?.as_str()?.to_owned(),
                name: item.get("name")?.as_str()?.to_owned(),
                role: Role::from_str_opt(item.get("role")?.as_str()?).unwrap_or(Role::Accent),
            })
        })
        .collect()
}

fn palette_from_row(row: &Row<'_>) -> rusqlite::Result<PaletteRow> {
    let colors: String = row.get("colors_json")?;
    let urls: String = row.get("source_image_urls_json")?;
    Ok(PaletteRow {
        id: row.get("id")?,
        owner_id: row.get("owner_id")?,
        name: row.get("name")?,
        colors: colors_from_json(&colors),
        source_image_urls: serde_json::from_str(&urls).unwrap_or_default(),
        content_scope: row.get("content_scope")?,
        legacy_is_active: row.get::<_, i64>("legacy_is_active")? != 0,
        created_at: row.get("created_at")?,
        updated_at: row.get("updated_at")?,
    })
}

const PALETTE_COLUMNS: &str = "id, owner_id, name, colors_json, source_image_urls_json, \
    content_scope, legacy_is_active, created_at, updated_at";

/// What may change in an update; `None` keeps the stored value.
#[derive(Debug, Default)]
pub(crate) struct PaletteChanges {
    pub name: Option<String>,
    pub colors: Option<Vec<PaletteColor>>,
    pub source_image_urls: Option<Vec<String>>,
}

/// Whether a caller may change a project's grade (owner, or member with edit/full).
pub(crate) fn can_edit_project(
    conn: &Connection,
    user_id: &str,
    project_id: &str,
) -> rusqlite::Result<bool> {
    use super::users::ProjectAccess;
    Ok(match project_access_in(conn, user_id, project_id)? {
        ProjectAccess::Owner => true,
        ProjectAccess::Member => super::users::member_can_edit_in(conn, project_id, user_id)?,
        ProjectAccess::None => false,
    })
}

impl Store {
    /// Seeds the organisation palette once per data dir.
    pub(crate) fn ensure_org_palette(&self) -> rusqlite::Result<()> {
        let conn = self.lock();
        let exists = conn
            .prepare("SELECT 1 FROM color_palettes WHERE owner_id IS NULL")?
            .exists([])?;
        if exists {
            return Ok(());
        }
        let colors: Vec<PaletteColor> = ORG_PALETTE_COLORS
            .iter()
            .map(|(hex, name, role)| PaletteColor {
                hex: (*hex).to_owned(),
                name: (*name).to_owned(),
                role: *role,
            })
            .collect();
        let now = now_iso();
        conn.execute(
            "INSERT INTO color_palettes (id, owner_id, name, colors_json, source_image_urls_json,
                content_scope, legacy_is_active, created_at, updated_at)
             VALUES (?1, NULL, ?2, ?3, '[]', 'organization', 0, ?4, ?4)",
            params![
                new_object_id(),
                ORG_PALETTE_NAME,
                colors_to_json(&colors).to_string(),
                now
            ],
        )?;
        Ok(())
    }

    pub(crate) fn insert_palette(
        &self,
        owner_id: &str,
        name: &str,
        colors: &[PaletteColor],
        source_image_urls: &[String],
    ) -> rusqlite::Result<PaletteRow> {
        let now = now_iso();
        let row = PaletteRow {
            id: new_object_id(),
            owner_id: Some(owner_id.to_owned()),
            name: name.to_owned(),
            colors: colors.to_vec(),
            source_image_urls: source_image_urls.to_vec(),
            content_scope: "personal".to_owned(),
            legacy_is_active: false,
            created_at: now.clone(),
            updated_at: now,
        };
        self.lock().execute(
            "INSERT INTO color_palettes (id, owner_id, name, colors_json, source_image_urls_json,
                content_scope, legacy_is_active, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, 'personal', 0, ?6, ?6)",
            params![
                row.id,
                owner_id,
                row.name,
                colors_to_json(colors).to_string(),
                Value::from(source_image_urls.to_vec()).to_string(),
                row.created_at
            ],
        )?;
        Ok(row)
    }

    pub(crate) fn palette(&self, id: &str) -> rusqlite::Result<Option<PaletteRow>> {
        self.lock()
            .query_row(
                &format!("SELECT {PALETTE_COLUMNS} FROM color_palettes WHERE id = ?1"),
                params![id],
                palette_from_row,
            )
            .optional()
    }

    /// The caller's personal palettes plus organisation palettes plus (when given) the
    /// palette grading `graded_project`'s project even if a teammate owns it; newest first.
    /// Returns one page and the total.
    pub(crate) fn list_palettes(
        &self,
        user_id: &str,
        extra_palette_id: Option<&str>,
        limit: u32,
        offset: u64,
    ) -> rusqlite::Result<(Vec<PaletteRow>, u64)> {
        let conn = self.lock();
        let filter = "owner_id = ?1 OR owner_id IS NULL OR id = ?2";
        let extra = extra_palette_id.unwrap_or("");
        let total: i64 = conn.query_row(
            &format!("SELECT COUNT(*) FROM color_palettes WHERE {filter}"),
            params![user_id, extra],
            |r| r.get(0),
        )?;
        let mut stmt = conn.prepare(&format!(
            "SELECT {PALETTE_COLUMNS} FROM color_palettes WHERE {filter}
             ORDER BY created_at DESC, seq DESC LIMIT ?3 OFFSET ?4"
        ))?;
        let rows = stmt
            .query_map(
                params![user_id, extra, i64::from(limit), offset as i64],
                palette_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((rows, total.max(0) as u64))
    }

    pub(crate) fn update_palette(
        &self,
        id: &str,
        changes: &PaletteChanges,
    ) -> rusqlite::Result<Option<PaletteRow>> {
        {
            let conn = self.lock();
            let tx = conn.unchecked_transaction()?;
            if let Some(name) = &changes.name {
                tx.execute(
                    "UPDATE color_palettes SET name = ?2 WHERE id = ?1",
                    params![id, name],
                )?;
            }
            if let Some(colors) = &changes.colors {
                tx.execute(
                    "UPDATE color_palettes SET colors_json = ?2 WHERE id = ?1",
                    params![id, colors_to_json(colors).to_string()],
                )?;
            }
            if let Some(urls) = &changes.source_image_urls {
                tx.execute(
                    "UPDATE color_palettes SET source_image_urls_json = ?2 WHERE id = ?1",
                    params![id, Value::from(urls.clone()).to_string()],
                )?;
            }
            tx.execute(
                "UPDATE color_palettes SET updated_at = ?2 WHERE id = ?1",
                params![id, now_iso()],
            )?;
            tx.commit()?;
        }
        self.palette(id)
    }

    /// Deletes a palette and clears every project it grades.
    pub(crate) fn delete_palette(&self, id: &str) -> rusqlite::Result<()> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        tx.execute(
            "DELETE FROM project_palettes WHERE palette_id = ?1",
            params![id],
        )?;
        tx.execute("DELETE FROM color_palettes WHERE id = ?1", params![id])?;
        tx.commit()
    }

    /// Whether `user_id` may change the grade of `project_id`.
    pub(crate) fn can_edit_project(
        &self,
        user_id: &str,
        project_id: &str,
    ) -> rusqlite::Result<bool> {
        can_edit_project(&self.lock(), user_id, project_id)
    }

    /// Whether `user_id` is the owner or a member (any permission) of the project.
    pub(crate) fn is_project_participant(
        &self,
        user_id: &str,
        project_id: &str,
    ) -> rusqlite::Result<bool> {
        Ok(project_access_in(&self.lock(), user_id, project_id)?.any())
    }

    /// Makes `palette_id` the project's grade, replacing any previous one.
    pub(crate) fn set_project_palette(
        &self,
        project_id: &str,
        palette_id: &str,
        activated_by: &str,
    ) -> rusqlite::Result<()> {
        self.lock().execute(
            "INSERT INTO project_palettes (project_id, palette_id, activated_by, activated_at)
             VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(project_id) DO UPDATE SET palette_id = excluded.palette_id,
                activated_by = excluded.activated_by, activated_at = excluded.activated_at",
            params![project_id, palette_id, activated_by, now_iso()],
        )?;
        Ok(())
    }

    pub(crate) fn clear_project_palette(&self, project_id: &str) -> rusqlite::Result<()> {
        self.lock().execute(
            "DELETE FROM project_palettes WHERE project_id = ?1",
            params![project_id],
        )?;
        Ok(())
    }

    /// The id of the palette grading a project, if any.
    pub(crate) fn project_palette_id(&self, project_id: &str) -> rusqlite::Result<Option<String>> {
        self.lock()
            .query_row(
                "SELECT palette_id FROM project_palettes WHERE project_id = ?1",
                params![project_id],
                |r| r.get(0),
            )
            .optional()
    }

    /// The colours grading a project (what generations use), if any.
    pub(crate) fn project_grade(
        &self,
        project_id: &str,
    ) -> rusqlite::Result<Option<Vec<PaletteColor>>> {
        let Some(palette_id) = self.project_palette_id(project_id)? else {
            return Ok(None);
        };
        Ok(self.palette(&palette_id)?.map(|p| p.colors))
    }
}
