//! The sandbox's small user directory: the default user plus a few seeded colleagues, so
//! folder sharing and project membership can be exercised. Also project access checks.

use rusqlite::{Connection, OptionalExtension, params};

use super::ids::new_object_id;
use super::store::{Store, now_iso};

pub(crate) const DEFAULT_USER_NAME: &str = "Sandbox User";

/// Seeded colleagues (e-mail, display name). Their balances start like the default user's.
pub(crate) const DIRECTORY: [(&str, &str); 4] = [
    ("ana@studio.test", "Ana Ortega"),
    ("ben@studio.test", "Ben Okafor"),
    ("chloe@studio.test", "Chloé Martin"),
    ("dev@studio.test", "Dev Patel"),
];

/// Older data dirs have no `name` column; add it in place.
pub(crate) fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let has_name = conn
        .prepare("SELECT 1 FROM pragma_table_info('users') WHERE name = 'name'")?
        .exists([])?;
    if !has_name {
        conn.execute("ALTER TABLE users ADD COLUMN name TEXT", [])?;
    }
    // Member permission (`view`, `edit`, `full`); members made before it existed could edit.
    let has_permission = conn
        .prepare("SELECT 1 FROM pragma_table_info('project_members') WHERE name = 'permission'")?
        .exists([])?;
    if !has_permission {
        conn.execute(
            "ALTER TABLE project_members ADD COLUMN permission TEXT NOT NULL DEFAULT 'edit'",
            [],
        )?;
    }
    Ok(())
}

/// Member permissions a project can grant; `edit` and `full` may change the project.
pub(crate) const MEMBER_PERMISSIONS: [&str; 3] = ["view", "edit", "full"];

/// Whether a member's permission lets them edit the project (false for non-members).
pub(crate) fn member_can_edit_in(
    conn: &Connection,
    project_id: &str,
    user_id: &str,
) -> rusqlite::Result<bool> {
    let permission: Option<String> = conn
        .prepare_cached(
            "SELECT permission FROM project_members WHERE project_id = ?1 AND user_id = ?2",
        )?
        .query_row(params![project_id, user_id], |r| r.get(0))
        .optional()?;
    Ok(matches!(permission.as_deref(), Some("edit") | Some("full")))
}

/// How a caller relates to a project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProjectAccess {
    None,
    /// Co-owner or shared user (the sandbox has no finer roles).
    Member,
    Owner,
}

impl ProjectAccess {
    pub(crate) fn any(self) -> bool {
        self != ProjectAccess::None
    }
}

pub(crate) fn project_access_in(
    conn: &Connection,
    user_id: &str,
    project_id: &str,
) -> rusqlite::Result<ProjectAccess> {
    let owner: Option<String> = conn
        .query_row(
            "SELECT user_id FROM projects WHERE id = ?1",
            params![project_id],
            |r| r.get(0),
        )
        .optional()?;
    let Some(owner) = owner else {
        return Ok(ProjectAccess::None);
    };
    if owner == user_id {
        return Ok(ProjectAccess::Owner);
    }
    let member = conn
        .prepare_cached("SELECT 1 FROM project_members WHERE project_id = ?1 AND user_id = ?2")?
        .exists(params![project_id, user_id])?;
    Ok(if member {
        ProjectAccess::Member
    } else {
        ProjectAccess::None
    })
}

impl Store {
    /// Gives the default user its display name and creates the seeded colleagues once.
    pub(crate) fn ensure_directory(&self, default_user_id: &str) -> rusqlite::Result<()> {
        let conn = self.lock();
        conn.execute(
            "UPDATE users SET name = ?2 WHERE id = ?1 AND name IS NULL",
            params![default_user_id, DEFAULT_USER_NAME],
        )?;
        for (email, name) in DIRECTORY {
            let exists = conn
                .prepare("SELECT 1 FROM users WHERE lower(email) = ?1")?
                .exists(params![email])?;
            if !exists {
                conn.execute(
                    "INSERT INTO users (id, email, name, plan_credits, credit_pack, redemption, created_at)
                     VALUES (?1, ?2, ?3, 1000, 400, 100, ?4)",
                    params![new_object_id(), email, name, now_iso()],
                )?;
            }
        }
        Ok(())
    }

    pub(crate) fn user_id_by_email(&self, email: &str) -> rusqlite::Result<Option<String>> {
        self.lock()
            .query_row(
                "SELECT id FROM users WHERE lower(email) = ?1",
                params![email.trim().to_lowercase()],
                |r| r.get(0),
            )
            .optional()
    }

    pub(crate) fn project_access(
        &self,
        user_id: &str,
        project_id: &str,
    ) -> rusqlite::Result<ProjectAccess> {
        project_access_in(&self.lock(), user_id, project_id)
    }

    /// Test control: makes `user_id` a member (shared user) of the project.
    pub(crate) fn add_project_member(
        &self,
        project_id: &str,
        user_id: &str,
    ) -> rusqlite::Result<bool> {
        let conn = self.lock();
        let exists = conn
            .prepare("SELECT 1 FROM projects WHERE id = ?1")?
            .exists(params![project_id])?;
        if !exists {
            return Ok(false);
        }
        conn.execute(
            "INSERT OR IGNORE INTO project_members (project_id, user_id, created_at) VALUES (?1, ?2, ?3)",
            params![project_id, user_id, now_iso()],
        )?;
        Ok(true)
    }

    /// Test control: sets a member's permission (`view`, `edit`, `full`), adding the
    /// membership if needed; false for an unknown project or permission.
    pub(crate) fn set_member_permission(
        &self,
        project_id: &str,
        user_id: &str,
        permission: &str,
    ) -> rusqlite::Result<bool> {
        if !MEMBER_PERMISSIONS.contains(&permission)
            || !self.add_project_member(project_id, user_id)?
        {
            return Ok(false);
        }
        self.lock().execute(
            "UPDATE project_members SET permission = ?3 WHERE project_id = ?1 AND user_id = ?2",
            params![project_id, user_id, permission],
        )?;
        Ok(true)
    }
}
