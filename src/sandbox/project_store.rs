//! Project records beyond create and list: one project by id, rename, archive and unarchive
//! (docs/SANDBOX.md, "Projects").

use rusqlite::{Connection, OptionalExtension, params};

use super::store::{ProjectRow, Store, now_iso};
use super::users::{ProjectAccess, project_access_in};

/// Older data dirs have projects without `updated_at` / `archived_at`; add them in place.
pub(crate) fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    for column in ["updated_at", "archived_at"] {
        let exists = conn
            .prepare("SELECT 1 FROM pragma_table_info('projects') WHERE name = ?1")?
            .exists(params![column])?;
        if !exists {
            conn.execute(
                &format!("ALTER TABLE projects ADD COLUMN {column} TEXT"),
                [],
            )?;
        }
    }
    Ok(())
}

/// A project as one caller sees it.
#[derive(Debug, Clone)]
pub(crate) struct VisibleProject {
    pub project: ProjectRow,
    pub access: ProjectAccess,
}

/// The outcome of a change only the owner may make.
#[derive(Debug, Clone)]
pub(crate) enum OwnerChange {
    Changed(ProjectRow),
    /// Unknown, or not shared with the caller: the route answers 404.
    NotFound,
    /// A member who is not the owner: the route answers 403.
    NotOwner,
    /// Archiving the default project, which every generation without `project_id` lands in.
    DefaultProject,
}

fn select_in(conn: &Connection, id: &str) -> rusqlite::Result<Option<ProjectRow>> {
    conn.query_row(
        "SELECT id, name, is_default, created_at, updated_at, archived_at FROM projects WHERE id = ?1",
        params![id],
        super::store::project_from_row,
    )
    .optional()
}

impl Store {
    /// The project if the caller owns it or is a member (any permission).
    pub(crate) fn visible_project(
        &self,
        user_id: &str,
        id: &str,
    ) -> rusqlite::Result<Option<VisibleProject>> {
        let conn = self.lock();
        let access = project_access_in(&conn, user_id, id)?;
        if !access.any() {
            return Ok(None);
        }
        Ok(select_in(&conn, id)?.map(|project| VisibleProject { project, access }))
    }

    /// Renames an owned project; `name` is already validated.
    pub(crate) fn rename_project(
        &self,
        user_id: &str,
        id: &str,
        name: &str,
    ) -> rusqlite::Result<OwnerChange> {
        self.owner_change(user_id, id, |conn, _| {
            conn.execute(
                "UPDATE projects SET name = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, name, now_iso()],
            )?;
            Ok(None)
        })
    }

    /// Archives (`true`) or unarchives an owned project. Idempotent: an archived project
    /// keeps its first `archived_at` and `updated_at`.
    pub(crate) fn set_project_archived(
        &self,
        user_id: &str,
        id: &str,
        archived: bool,
    ) -> rusqlite::Result<OwnerChange> {
        self.owner_change(user_id, id, |conn, project| {
            if archived && project.is_default {
                return Ok(Some(OwnerChange::DefaultProject));
            }
            if project.archived_at.is_some() == archived {
                return Ok(None);
            }
            let now = now_iso();
            let archived_at = archived.then(|| now.clone());
            conn.execute(
                "UPDATE projects SET archived_at = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, archived_at, now],
            )?;
            Ok(None)
        })
    }

    /// Runs `change` on a project the caller owns and returns the project as it is after;
    /// `change` may refuse instead by returning the refusal.
    fn owner_change(
        &self,
        user_id: &str,
        id: &str,
        change: impl FnOnce(&Connection, &ProjectRow) -> rusqlite::Result<Option<OwnerChange>>,
    ) -> rusqlite::Result<OwnerChange> {
        let conn = self.lock();
        let access = project_access_in(&conn, user_id, id)?;
        let Some(project) = select_in(&conn, id)? else {
            return Ok(OwnerChange::NotFound);
        };
        match access {
            ProjectAccess::None => return Ok(OwnerChange::NotFound),
            ProjectAccess::Member => return Ok(OwnerChange::NotOwner),
            ProjectAccess::Owner => {}
        }
        if let Some(refusal) = change(&conn, &project)? {
            return Ok(refusal);
        }
        Ok(select_in(&conn, id)?.map_or(OwnerChange::NotFound, OwnerChange::Changed))
    }
}
