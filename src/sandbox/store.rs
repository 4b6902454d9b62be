//! SQLite storage (WAL): users, API keys, projects, generations, credit reservations and
//! ledger, uploads. Queries are tiny, so callers run them inline behind one mutex.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::ids::{new_api_key, new_object_id};
use super::pricing::round_credits;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (
    id TEXT PRIMARY KEY, email TEXT NOT NULL,
    plan_credits REAL NOT NULL, credit_pack REAL NOT NULL, redemption REAL NOT NULL,
    created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS api_keys (
    key TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id),
    can_write INTEGER NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS projects (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), name TEXT NOT NULL,
    is_default INTEGER NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS generations (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT NOT NULL,
    kind TEXT NOT NULL, model_echo TEXT, model TEXT NOT NULL, provider TEXT NOT NULL,
    prompt TEXT NOT NULL, prompt_used TEXT NOT NULL, aspect_ratio TEXT NOT NULL,
    resolution TEXT NOT NULL, quality TEXT, num_images INTEGER NOT NULL, seed INTEGER NOT NULL,
    source_images TEXT NOT NULL, request_json TEXT NOT NULL,
    state TEXT NOT NULL, progress REAL NOT NULL, elapsed_ms INTEGER NOT NULL, duration_ms INTEGER NOT NULL,
    credits_reserved REAL NOT NULL, credit_base REAL NOT NULL, credits_used REAL,
    planned_failure TEXT, result_json TEXT, error TEXT, failure_json TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS generations_state ON generations(state);
CREATE TABLE IF NOT EXISTS credit_reservations (
    generation_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, amount REAL NOT NULL,
    state TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS credit_ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, generation_id TEXT,
    delta REAL NOT NULL, reason TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS uploads (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, project_id TEXT, filename TEXT NOT NULL,
    mime_type TEXT NOT NULL, media_type TEXT NOT NULL, size_bytes INTEGER NOT NULL,
    rel_path TEXT NOT NULL, thumb_rel_path TEXT, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS project_members (
    project_id TEXT NOT NULL, user_id TEXT NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (project_id, user_id));
CREATE INDEX IF NOT EXISTS project_members_user ON project_members(user_id);
";

/// Starting balance of the default user (plan 1000 + pack 400 + redemption 100).
/// The SQLite page cache of the sandbox's one connection (SQLite's default, named: the
/// studio's idle memory budget counts on it; queries of a 100k-item library stay indexed).
pub(crate) const SQLITE_CACHE_BUDGET_BYTES: i64 = 2 * 1024 * 1024;
const START_PLAN_CREDITS: f64 = 1000.0;
const START_PACK_CREDITS: f64 = 400.0;
const START_REDEMPTION_CREDITS: f64 = 100.0;

pub(crate) fn now_iso() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[derive(Debug, Clone)]
pub(crate) struct ApiKeyRow {
    pub key: String,
    pub user_id: String,
    pub can_write: bool,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Balance {
    pub plan_credits: f64,
    pub credit_pack: f64,
    pub redemption: f64,
    pub reserved: f64,
}

impl Balance {
    pub(crate) fn total(&self) -> f64 {
        round_credits(self.plan_credits + self.credit_pack + self.redemption)
    }

    pub(crate) fn available(&self) -> f64 {
        round_credits(self.total() - self.reserved)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct ProjectRow {
    pub id: String,
    pub name: String,
    pub is_default: bool,
    pub created_at: String,
    /// When it was last renamed, archived or unarchived (its creation time until then).
    pub updated_at: String,
    /// Set while the project is archived (docs/SANDBOX.md, "Projects").
    pub archived_at: Option<String>,
}

/// Everything needed to create a generation; the row is inserted with state `processing`.
#[derive(Debug, Clone)]
pub(crate) struct NewGeneration {
    pub id: String,
    pub user_id: String,
    pub project_id: String,
    pub session_id: String,
    pub kind: String,
    pub model_echo: Option<String>,
    pub model: String,
    pub provider: String,
    pub prompt: String,
    pub prompt_used: String,
    pub aspect_ratio: String,
    pub resolution: String,
    pub quality: Option<String>,
    pub num_images: u32,
    pub seed: i64,
    pub source_images: Vec<String>,
    pub request_json: String,
    pub duration_ms: u64,
    pub credits_reserved: f64,
    pub credit_base: f64,
    pub planned_failure: Option<String>,
    /// JSON of the sandbox's `render::Look` (colour grade, cinematic presets), if any.
    pub look_json: Option<String>,
    /// Video kinds: the output length in seconds after mapping to a supported duration.
    pub video_duration_secs: Option<f64>,
    /// Creative Director scenes: the batch and the 1-based scene number.
    pub batch_id: Option<String>,
    pub scene_number: Option<u32>,
}

#[derive(Debug, Clone)]
pub(crate) struct GenerationRow {
    pub id: String,
    pub user_id: String,
    pub project_id: String,
    pub session_id: String,
    pub quality: Option<String>,
    pub request_json: String,
    pub kind: String,
    pub model: String,
    pub provider: String,
    pub prompt: String,
    pub prompt_used: String,
    pub aspect_ratio: String,
    pub resolution: String,
    pub num_images: u32,
    pub seed: i64,
    pub source_images: Vec<String>,
    pub state: String,
    pub progress: f64,
    pub elapsed_ms: u64,
    pub duration_ms: u64,
    pub credits_reserved: f64,
    pub credit_base: f64,
    pub credits_used: Option<f64>,
    pub planned_failure: Option<String>,
    pub result_json: Option<String>,
    pub error: Option<String>,
    pub failure_json: Option<String>,
    pub look_json: Option<String>,
    pub video_duration_secs: Option<f64>,
    pub batch_id: Option<String>,
    pub scene_number: Option<u32>,
}

#[derive(Debug)]
pub(crate) struct GenerationSummaryRow {
    pub id: String,
    pub kind: String,
    pub prompt: String,
    pub state: String,
    pub credits_reserved: f64,
    pub credits_used: Option<f64>,
    pub created_at: String,
}

#[derive(Debug)]
pub(crate) struct UploadRow {
    pub id: String,
    pub user_id: String,
    pub project_id: Option<String>,
    pub filename: String,
    pub mime_type: String,
    pub media_type: String,
    pub size_bytes: u64,
    pub rel_path: String,
    pub thumb_rel_path: Option<String>,
}

#[derive(Debug)]
pub(crate) enum CreateOutcome {
    Created,
    /// Available credits are below the minimum; carries the available balance.
    InsufficientCredits {
        available: f64,
    },
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CancelOutcome {
    Cancelled,
    Terminal,
    NotFound,
}

pub(crate) struct Store {
    conn: Mutex<Connection>,
}

fn generation_from_row(row: &Row<'_>) -> rusqlite::Result<GenerationRow> {
    let sources: String = row.get("source_images")?;
    Ok(GenerationRow {
        id: row.get("id")?,
        user_id: row.get("user_id")?,
        project_id: row.get("project_id")?,
        session_id: row.get("session_id")?,
        quality: row.get("quality")?,
        request_json: row.get("request_json")?,
        kind: row.get("kind")?,
        model: row.get("model")?,
        provider: row.get("provider")?,
        prompt: row.get("prompt")?,
        prompt_used: row.get("prompt_used")?,
        aspect_ratio: row.get("aspect_ratio")?,
        resolution: row.get("resolution")?,
        num_images: row.get("num_images")?,
        seed: row.get("seed")?,
        // Written by us as a JSON array; an unreadable value degrades to "no sources".
        source_images: serde_json::from_str(&sources).unwrap_or_default(),
        state: row.get("state")?,
        progress: row.get("progress")?,
        elapsed_ms: row.get::<_, i64>("elapsed_ms")?.max(0) as u64,
        duration_ms: row.get::<_, i64>("duration_ms")?.max(0) as u64,
        credits_reserved: row.get("credits_reserved")?,
        credit_base: row.get("credit_base")?,
        credits_used: row.get("credits_used")?,
        planned_failure: row.get("planned_failure")?,
        result_json: row.get("result_json")?,
        error: row.get("error")?,
        failure_json: row.get("failure_json")?,
        look_json: row.get("look_json")?,
        video_duration_secs: row.get("video_duration_secs")?,
        batch_id: row.get("batch_id")?,
        scene_number: row.get("scene_number")?,
    })
}

pub(super) fn project_from_row(row: &Row<'_>) -> rusqlite::Result<ProjectRow> {
    Ok(ProjectRow {
        id: row.get("id")?,
        name: row.get("name")?,
        is_default: row.get::<_, i64>("is_default")? != 0,
        created_at: row.get("created_at")?,
        // Rows from before renames existed have no `updated_at`: they were never changed.
        updated_at: match row.get::<_, Option<String>>("updated_at")? {
            Some(updated_at) => updated_at,
            None => row.get("created_at")?,
        },
        archived_at: row.get("archived_at")?,
    })
}

/// Older data dirs lack `look_json` (the grade and cinematic look a render applies).
fn migrate_generations(conn: &Connection) -> rusqlite::Result<()> {
    let has_look = conn
        .prepare("SELECT 1 FROM pragma_table_info('generations') WHERE name = 'look_json'")?
        .exists([])?;
    if !has_look {
        conn.execute("ALTER TABLE generations ADD COLUMN look_json TEXT", [])?;
    }
    // Video length and Creative Director membership (added with the video routes).
    let has_video = conn
        .prepare(
            "SELECT 1 FROM pragma_table_info('generations') WHERE name = 'video_duration_secs'",
        )?
        .exists([])?;
    if !has_video {
        conn.execute_batch(
            "ALTER TABLE generations ADD COLUMN video_duration_secs REAL;
             ALTER TABLE generations ADD COLUMN batch_id TEXT;
             ALTER TABLE generations ADD COLUMN scene_number INTEGER;",
        )?;
    }
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS generations_batch ON generations(batch_id);
         CREATE TABLE IF NOT EXISTS cd_batches (
            id TEXT PRIMARY KEY, user_id TEXT NOT NULL, project_id TEXT NOT NULL,
            session_id TEXT NOT NULL, workflow_type TEXT NOT NULL, scene_count INTEGER NOT NULL,
            created_at TEXT NOT NULL);",
    )?;
    Ok(())
}

/// A Creative Director batch; its scenes are generation rows carrying its id.
#[derive(Debug, Clone)]
pub(crate) struct BatchRow {
    pub id: String,
    pub user_id: String,
    pub project_id: String,
    pub session_id: String,
    pub workflow_type: String,
    pub scene_count: u32,
}

pub(super) fn insert_generation_in(
    conn: &Connection,
    new: &NewGeneration,
    state: &str,
    now: &str,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO generations (id, user_id, project_id, session_id, kind, model_echo, model,
            provider, prompt, prompt_used, aspect_ratio, resolution, quality, num_images, seed,
            source_images, request_json, state, progress, elapsed_ms, duration_ms,
            credits_reserved, credit_base, credits_used, planned_failure, result_json, error,
            failure_json, created_at, updated_at, look_json, video_duration_secs, batch_id,
            scene_number)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
            ?24, 0, 0, ?18, ?19, ?20, NULL, ?21, NULL, NULL, NULL, ?22, ?22, ?23, ?25, ?26, ?27)",
        params![
            new.id,
            new.user_id,
            new.project_id,
            new.session_id,
            new.kind,
            new.model_echo,
            new.model,
            new.provider,
            new.prompt,
            new.prompt_used,
            new.aspect_ratio,
            new.resolution,
            new.quality,
            new.num_images,
            new.seed,
            serde_json::to_string(&new.source_images).unwrap_or_else(|_| "[]".to_owned()),
            new.request_json,
            new.duration_ms as i64,
            new.credits_reserved,
            new.credit_base,
            new.planned_failure,
            now,
            new.look_json,
            state,
            new.video_duration_secs,
            new.batch_id,
            new.scene_number,
        ],
    )?;
    conn.execute(
        "INSERT INTO credit_reservations (generation_id, user_id, amount, state, created_at, updated_at)
         VALUES (?1, ?2, ?3, 'active', ?4, ?4)",
        params![new.id, new.user_id, new.credits_reserved, now],
    )?;
    Ok(())
}

/// What start did with a sandbox database it could not use (see [`Store::open_or_recover`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreRecovery {
    /// The database that could not be used.
    pub file: std::path::PathBuf,
    /// Where it (with its -wal and -shm) was moved.
    pub moved_to: std::path::PathBuf,
    /// Why it could not be used, e.g. "file is not a database".
    pub problem: String,
}

impl StoreRecovery {
    /// One or two sentences for the person (the studio's status bar, the CLI's stderr).
    pub fn message(&self) -> String {
        format!(
            "The local sandbox's database {} could not be read ({}), so the sandbox started \
             again with a new one: its library, jobs and key start over. The damaged file \
             was kept as {}.",
            self.file.display(),
            self.problem,
            self.moved_to.display()
        )
    }
}

/// Whether an error opening the database means its file is damaged (not a disk, permission
/// or lock problem, which moving the file aside would not fix).
fn is_damage(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}

impl Store {
    /// Opens the database at `path` (private: 0600 in its folder), or, when the file is
    /// damaged (truncated, garbage, failing its integrity check), moves it aside as
    /// `sandbox.sqlite3.broken-<time>` with its -wal and -shm and starts a fresh store. A
    /// sandbox that cannot start leaves the studio's Library waiting for ever.
    pub(crate) fn open_or_recover(
        path: &Path,
    ) -> Result<(Self, Option<StoreRecovery>), super::error::SandboxError> {
        use super::error::SandboxError;
        let private = |path: &Path| {
            crate::local_files::make_private_file(path).map_err(|source| SandboxError::Io {
                path: path.to_path_buf(),
                source,
            })
        };
        private(path)?;
        let opened = Self::open(path).and_then(|store| Ok((store.integrity_findings()?, store)));
        let problem = match opened {
            Ok((None, store)) => return Ok((store, None)),
            Ok((Some(findings), store)) => {
                drop(store);
                format!("it failed its integrity check: {findings}")
            }
            Err(error) if is_damage(&error) => error.to_string(),
            Err(error) => return Err(SandboxError::Database(error)),
        };
        let moved_to =
            crate::local_files::move_aside(path, &["-wal", "-shm"]).map_err(|source| {
                SandboxError::Io {
                    path: path.to_path_buf(),
                    source,
                }
            })?;
        let recovery = StoreRecovery {
            file: path.to_path_buf(),
            moved_to,
            problem,
        };
        // Said once by whoever started the sandbox (the studio's notice, the CLI's stderr).
        private(path)?;
        let store = Self::open(path)?;
        Ok((store, Some(recovery)))
    }

    /// SQLite's quick check (`None` when whole): a truncated file can open and even take
    /// the schema, then fail on the first read of a lost page.
    fn integrity_findings(&self) -> rusqlite::Result<Option<String>> {
        let conn = self.lock();
        let mut statement = conn.prepare("PRAGMA quick_check")?;
        let findings = statement
            .query_map([], |row| row.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((findings.first().map(String::as_str) != Some("ok")).then(|| findings.join("; ")))
    }

    pub(crate) fn open(path: &Path) -> rusqlite::Result<Self> {
        let conn = Connection::open(path)?;
        // WAL keeps readers and the job writer from blocking each other; the busy timeout
        // covers a previous in-process instance that is still finishing a write.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // Page cache in KiB (negative = a size, not a page count): the budget is named
        // here, not left to the build's default.
        conn.pragma_update(None, "cache_size", -(SQLITE_CACHE_BUDGET_BYTES / 1024))?;
        conn.execute_batch(SCHEMA)?;
        conn.execute_batch(super::media_store::MEDIA_SCHEMA)?;
        conn.execute_batch(super::palette_store::PALETTE_SCHEMA)?;
        conn.execute_batch(super::trim_store::TRIM_SCHEMA)?;
        conn.execute_batch(super::docs::DOCS_SCHEMA)?;
        conn.execute_batch(super::creative_chat_store::CHAT_SCHEMA)?;
        conn.execute_batch(super::visual_dna::store::VISUAL_DNA_SCHEMA)?;
        conn.execute_batch(super::moodboards::MOODBOARD_SCHEMA)?;
        super::users::migrate(&conn)?;
        migrate_generations(&conn)?;
        super::project_store::migrate(&conn)?;
        Ok(Self {
            conn: Mutex::new(conn),
        })
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite inconsistent (transactions roll
        // back on drop), so a poisoned mutex is still safe to use.
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The single default user, created (with the starting balance) on first start.
    pub(crate) fn ensure_default_user(&self) -> rusqlite::Result<String> {
        let conn = self.lock();
        if let Some(id) = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'default_user'",
                [],
                |r| r.get(0),
            )
            .optional()?
        {
            return Ok(id);
        }
        let id = new_object_id();
        let tx = conn.unchecked_transaction()?;
        tx.execute(
            "INSERT INTO users (id, email, plan_credits, credit_pack, redemption, created_at)
             VALUES (?1, 'sandbox@localhost', ?2, ?3, ?4, ?5)",
            params![
                id,
                START_PLAN_CREDITS,
                START_PACK_CREDITS,
                START_REDEMPTION_CREDITS,
                now_iso()
            ],
        )?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('default_user', ?1)",
            params![id],
        )?;
        tx.commit()?;
        Ok(id)
    }

    /// The primary read/write key: the configured one (registered if new), else the one
    /// persisted at first start, else a fresh one.
    pub(crate) fn ensure_primary_key(
        &self,
        user_id: &str,
        configured: Option<&str>,
    ) -> rusqlite::Result<String> {
        let conn = self.lock();
        let key = match configured {
            Some(key) => key.to_owned(),
            None => match conn
                .query_row(
                    "SELECT value FROM meta WHERE key = 'primary_key'",
                    [],
                    |r| r.get(0),
                )
                .optional()?
            {
                Some(key) => key,
                None => new_api_key(),
            },
        };
        conn.execute(
            "INSERT INTO api_keys (key, user_id, can_write, created_at) VALUES (?1, ?2, 1, ?3)
             ON CONFLICT(key) DO UPDATE SET can_write = 1",
            params![key, user_id, now_iso()],
        )?;
        if configured.is_none() {
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('primary_key', ?1)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![key],
            )?;
        }
        Ok(key)
    }

    pub(crate) fn insert_api_key(
        &self,
        user_id: &str,
        can_write: bool,
    ) -> rusqlite::Result<String> {
        let key = new_api_key();
        self.lock().execute(
            "INSERT INTO api_keys (key, user_id, can_write, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![key, user_id, i64::from(can_write), now_iso()],
        )?;
        Ok(key)
    }

    pub(crate) fn find_api_key(&self, key: &str) -> rusqlite::Result<Option<ApiKeyRow>> {
        self.lock()
            .query_row(
                "SELECT key, user_id, can_write FROM api_keys WHERE key = ?1",
                params![key],
                |r| {
                    Ok(ApiKeyRow {
                        key: r.get(0)?,
                        user_id: r.get(1)?,
                        can_write: r.get::<_, i64>(2)? != 0,
                    })
                },
            )
            .optional()
    }

    pub(super) fn balance_in(conn: &Connection, user_id: &str) -> rusqlite::Result<Balance> {
        let (plan_credits, credit_pack, redemption) = conn.query_row(
            "SELECT plan_credits, credit_pack, redemption FROM users WHERE id = ?1",
            params![user_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        let reserved: f64 = conn.query_row(
            "SELECT COALESCE(SUM(amount), 0) FROM credit_reservations
             WHERE user_id = ?1 AND state = 'active'",
            params![user_id],
            |r| r.get(0),
        )?;
        Ok(Balance {
            plan_credits,
            credit_pack,
            redemption,
            reserved,
        })
    }

    /// Takes `amount` from the user's buckets (plan first, then the pack, then redemption)
    /// and records it in the ledger against `reference_id` (a generation or a chat
    /// completion). Call inside the transaction that settles the matching reservation.
    pub(super) fn debit_in(
        conn: &Connection,
        user_id: &str,
        amount: f64,
        reference_id: &str,
        reason: &str,
        now: &str,
    ) -> rusqlite::Result<()> {
        let balance = Self::balance_in(conn, user_id)?;
        let mut remaining = amount;
        let from_plan = remaining.min(balance.plan_credits.max(0.0));
        remaining -= from_plan;
        let from_pack = remaining.min(balance.credit_pack.max(0.0));
        remaining -= from_pack;
        let from_redemption = remaining.min(balance.redemption.max(0.0));
        remaining -= from_redemption;
        // Anything left (only possible after set_credits lowered the balance) overdraws the plan.
        conn.execute(
            "UPDATE users SET plan_credits = ?2, credit_pack = ?3, redemption = ?4 WHERE id = ?1",
            params![
                user_id,
                round_credits(balance.plan_credits - from_plan - remaining),
                round_credits(balance.credit_pack - from_pack),
                round_credits(balance.redemption - from_redemption),
            ],
        )?;
        conn.execute(
            "INSERT INTO credit_ledger (user_id, generation_id, delta, reason, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![user_id, reference_id, -amount, reason, now],
        )?;
        Ok(())
    }

    pub(crate) fn balance(&self, user_id: &str) -> rusqlite::Result<Balance> {
        Self::balance_in(&self.lock(), user_id)
    }

    /// Test control: the whole total goes into the plan bucket.
    pub(crate) fn set_total_credits(&self, user_id: &str, total: f64) -> rusqlite::Result<()> {
        let conn = self.lock();
        let before = Self::balance_in(&conn, user_id)?.total();
        conn.execute(
            "UPDATE users SET plan_credits = ?2, credit_pack = 0, redemption = 0 WHERE id = ?1",
            params![user_id, round_credits(total)],
        )?;
        conn.execute(
            "INSERT INTO credit_ledger (user_id, generation_id, delta, reason, created_at)
             VALUES (?1, NULL, ?2, 'adjustment', ?3)",
            params![user_id, round_credits(total - before), now_iso()],
        )?;
        Ok(())
    }

    /// The caller's own projects, default first; archived ones only when asked.
    pub(crate) fn list_projects(
        &self,
        user_id: &str,
        include_archived: bool,
    ) -> rusqlite::Result<Vec<ProjectRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT id, name, is_default, created_at, updated_at, archived_at FROM projects
             WHERE user_id = ?1 AND (?2 OR archived_at IS NULL)
             ORDER BY is_default DESC, created_at, id",
        )?;
        let rows = stmt.query_map(params![user_id, include_archived], project_from_row)?;
        rows.collect()
    }

    fn default_project_in(conn: &Connection, user_id: &str) -> rusqlite::Result<ProjectRow> {
        if let Some(project) = conn
            .query_row(
                "SELECT id, name, is_default, created_at, updated_at, archived_at FROM projects
                 WHERE user_id = ?1 AND is_default = 1",
                params![user_id],
                project_from_row,
            )
            .optional()?
        {
            return Ok(project);
        }
        let now = now_iso();
        let project = ProjectRow {
            id: new_object_id(),
            name: "API Generations".to_owned(),
            is_default: true,
            created_at: now.clone(),
            updated_at: now,
            archived_at: None,
        };
        conn.execute(
            "INSERT INTO projects (id, user_id, name, is_default, created_at, updated_at)
             VALUES (?1, ?2, ?3, 1, ?4, ?4)",
            params![project.id, user_id, project.name, project.created_at],
        )?;
        Ok(project)
    }

    /// The auto-created "API Generations" project, created on demand.
    pub(crate) fn ensure_default_project(&self, user_id: &str) -> rusqlite::Result<ProjectRow> {
        Self::default_project_in(&self.lock(), user_id)
    }

    pub(crate) fn create_project(&self, user_id: &str, name: &str) -> rusqlite::Result<ProjectRow> {
        let now = now_iso();
        let project = ProjectRow {
            id: new_object_id(),
            name: name.to_owned(),
            is_default: false,
            created_at: now.clone(),
            updated_at: now,
            archived_at: None,
        };
        self.lock().execute(
            "INSERT INTO projects (id, user_id, name, is_default, created_at, updated_at)
             VALUES (?1, ?2, ?3, 0, ?4, ?4)",
            params![project.id, user_id, project.name, project.created_at],
        )?;
        Ok(project)
    }

    pub(crate) fn find_project(
        &self,
        user_id: &str,
        id: &str,
    ) -> rusqlite::Result<Option<ProjectRow>> {
        self.lock()
            .query_row(
                // Owner or member with edit-level access (`edit` or `full`; `view` members
                // cannot route work into the project).
                "SELECT id, name, is_default, created_at, updated_at, archived_at FROM projects WHERE id = ?2 AND (user_id = ?1
                    OR EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = projects.id
                        AND pm.user_id = ?1 AND pm.permission IN ('edit', 'full')))",
                params![user_id, id],
                project_from_row,
            )
            .optional()
    }

    /// Checks the balance and inserts the generation plus its credit reservation atomically,
    /// so two concurrent submits cannot both spend the same credits.
    pub(crate) fn create_generation(
        &self,
        new: &NewGeneration,
        minimum_credits: f64,
    ) -> rusqlite::Result<CreateOutcome> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let available = Self::balance_in(&tx, &new.user_id)?.available();
        if available < minimum_credits {
            return Ok(CreateOutcome::InsufficientCredits { available });
        }
        insert_generation_in(&tx, new, "processing", &now_iso())?;
        tx.commit()?;
        Ok(CreateOutcome::Created)
    }

    pub(crate) fn generation(&self, id: &str) -> rusqlite::Result<Option<GenerationRow>> {
        self.lock()
            .query_row(
                "SELECT * FROM generations WHERE id = ?1",
                params![id],
                generation_from_row,
            )
            .optional()
    }

    pub(crate) fn processing_generations(&self) -> rusqlite::Result<Vec<GenerationRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT * FROM generations WHERE state = 'processing' AND batch_id IS NULL
             ORDER BY created_at",
        )?;
        let rows = stmt.query_map([], generation_from_row)?;
        rows.collect()
    }

    /// Every generation with what a black-box check needs, oldest first.
    pub(crate) fn generation_summaries(&self) -> rusqlite::Result<Vec<GenerationSummaryRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT id, kind, prompt, state, credits_reserved, credits_used, created_at
             FROM generations ORDER BY created_at, rowid",
        )?;
        let rows = stmt.query_map([], |row| {
            Ok(GenerationSummaryRow {
                id: row.get(0)?,
                kind: row.get(1)?,
                prompt: row.get(2)?,
                state: row.get(3)?,
                credits_reserved: row.get(4)?,
                credits_used: row.get(5)?,
                created_at: row.get(6)?,
            })
        })?;
        rows.collect()
    }

    pub(crate) fn generation_count(&self) -> rusqlite::Result<u64> {
        self.lock()
            .query_row("SELECT COUNT(*) FROM generations", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n.max(0) as u64)
    }

    /// Records progress; returns false once the job is no longer processing (e.g. cancelled).
    pub(crate) fn update_progress(
        &self,
        id: &str,
        progress: f64,
        elapsed_ms: u64,
    ) -> rusqlite::Result<bool> {
        let changed = self.lock().execute(
            "UPDATE generations SET progress = ?2, elapsed_ms = ?3, updated_at = ?4
             WHERE id = ?1 AND state = 'processing'",
            params![id, progress, elapsed_ms as i64, now_iso()],
        )?;
        Ok(changed > 0)
    }

    /// Completes a processing job, settles its reservation (the total drops by
    /// `credits_used`, taken from the plan bucket first, then the pack, then redemption) and
    /// registers its outputs in the media library, all in one transaction.
    pub(crate) fn complete_generation(
        &self,
        id: &str,
        result_json: &str,
        credits_used: f64,
        media: &[super::media_store::NewMedia],
    ) -> rusqlite::Result<bool> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let now = now_iso();
        let changed = tx.execute(
            "UPDATE generations SET state = 'completed', progress = 100, result_json = ?2,
                credits_used = ?3, updated_at = ?4
             WHERE id = ?1 AND state = 'processing'",
            params![id, result_json, credits_used, now],
        )?;
        if changed == 0 {
            return Ok(false);
        }
        let user_id: String = tx.query_row(
            "SELECT user_id FROM generations WHERE id = ?1",
            params![id],
            |r| r.get(0),
        )?;
        tx.execute(
            "UPDATE credit_reservations SET state = 'settled', updated_at = ?2 WHERE generation_id = ?1",
            params![id, now],
        )?;
        Self::debit_in(&tx, &user_id, credits_used, id, "generation", &now)?;
        for item in media {
            super::media_store::insert_media_in(&tx, item)?;
        }
        tx.commit()?;
        Ok(true)
    }

    /// Fails a processing job and releases its reservation.
    pub(crate) fn fail_generation(
        &self,
        id: &str,
        error: &str,
        failure_json: &str,
    ) -> rusqlite::Result<bool> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let now = now_iso();
        let changed = tx.execute(
            "UPDATE generations SET state = 'failed', error = ?2, failure_json = ?3, updated_at = ?4
             WHERE id = ?1 AND state = 'processing'",
            params![id, error, failure_json, now],
        )?;
        if changed > 0 {
            tx.execute(
                "UPDATE credit_reservations SET state = 'released', updated_at = ?2 WHERE generation_id = ?1",
                params![id, now],
            )?;
            // A failed Creative Director scene fails its batch: the scenes not yet started
            // are cancelled in the same step, so the batch is terminal at once.
            tx.execute(
                "UPDATE credit_reservations SET state = 'released', updated_at = ?2
                 WHERE state = 'active' AND generation_id IN (SELECT s.id FROM generations s
                    JOIN generations f ON s.batch_id = f.batch_id
                    WHERE f.id = ?1 AND s.state = 'pending')",
                params![id, now],
            )?;
            tx.execute(
                "UPDATE generations SET state = 'cancelled', updated_at = ?2
                 WHERE state = 'pending' AND batch_id IS NOT NULL
                    AND batch_id = (SELECT batch_id FROM generations WHERE id = ?1)",
                params![id, now],
            )?;
        }
        tx.commit()?;
        Ok(changed > 0)
    }

    pub(crate) fn cancel_generation(
        &self,
        user_id: &str,
        id: &str,
    ) -> rusqlite::Result<CancelOutcome> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let state: Option<String> = tx
            .query_row(
                "SELECT state FROM generations WHERE id = ?1 AND user_id = ?2",
                params![id, user_id],
                |r| r.get(0),
            )
            .optional()?;
        let outcome = match state.as_deref() {
            None => CancelOutcome::NotFound,
            Some("processing") | Some("pending") => {
                let now = now_iso();
                tx.execute(
                    "UPDATE generations SET state = 'cancelled', updated_at = ?2 WHERE id = ?1",
                    params![id, now],
                )?;
                tx.execute(
                    "UPDATE credit_reservations SET state = 'released', updated_at = ?2
                     WHERE generation_id = ?1 AND state = 'active'",
                    params![id, now],
                )?;
                CancelOutcome::Cancelled
            }
            Some(_) => CancelOutcome::Terminal,
        };
        tx.commit()?;
        Ok(outcome)
    }

    /// Checks the balance against the whole batch and inserts the batch plus every scene
    /// (state `pending`, each with its own reservation) atomically.
    pub(crate) fn create_batch(
        &self,
        batch: &BatchRow,
        scenes: &[NewGeneration],
        minimum_credits: f64,
    ) -> rusqlite::Result<CreateOutcome> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let available = Self::balance_in(&tx, &batch.user_id)?.available();
        if available < minimum_credits {
            return Ok(CreateOutcome::InsufficientCredits { available });
        }
        let now = now_iso();
        tx.execute(
            "INSERT INTO cd_batches (id, user_id, project_id, session_id, workflow_type,
                scene_count, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                batch.id,
                batch.user_id,
                batch.project_id,
                batch.session_id,
                batch.workflow_type,
                batch.scene_count,
                now
            ],
        )?;
        for scene in scenes {
            insert_generation_in(&tx, scene, "pending", &now)?;
        }
        tx.commit()?;
        Ok(CreateOutcome::Created)
    }

    pub(crate) fn batch(&self, id: &str) -> rusqlite::Result<Option<BatchRow>> {
        self.lock()
            .query_row(
                "SELECT id, user_id, project_id, session_id, workflow_type, scene_count
                 FROM cd_batches WHERE id = ?1",
                params![id],
                |r| {
                    Ok(BatchRow {
                        id: r.get(0)?,
                        user_id: r.get(1)?,
                        project_id: r.get(2)?,
                        session_id: r.get(3)?,
                        workflow_type: r.get(4)?,
                        scene_count: r.get(5)?,
                    })
                },
            )
            .optional()
    }

    /// A batch's scenes in scene order.
    pub(crate) fn batch_scenes(&self, batch_id: &str) -> rusqlite::Result<Vec<GenerationRow>> {
        let conn = self.lock();
        let mut stmt =
            conn.prepare("SELECT * FROM generations WHERE batch_id = ?1 ORDER BY scene_number")?;
        let rows = stmt.query_map(params![batch_id], generation_from_row)?;
        rows.collect()
    }

    /// Batches with a scene still pending or processing (resumed after a restart).
    pub(crate) fn unfinished_batches(&self) -> rusqlite::Result<Vec<String>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT DISTINCT batch_id FROM generations WHERE batch_id IS NOT NULL
             AND state IN ('pending', 'processing')",
        )?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        rows.collect()
    }

    /// pending -> processing; false when the scene is no longer pending (e.g. cancelled).
    pub(crate) fn start_scene(&self, id: &str) -> rusqlite::Result<bool> {
        let changed = self.lock().execute(
            "UPDATE generations SET state = 'processing', updated_at = ?2
             WHERE id = ?1 AND state = 'pending'",
            params![id, now_iso()],
        )?;
        Ok(changed > 0)
    }

    pub(crate) fn insert_upload(&self, upload: &UploadRow) -> rusqlite::Result<String> {
        let created_at = now_iso();
        self.lock().execute(
            "INSERT INTO uploads (id, user_id, project_id, filename, mime_type, media_type, size_bytes,
                rel_path, thumb_rel_path, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                upload.id,
                upload.user_id,
                upload.project_id,
                upload.filename,
                upload.mime_type,
                upload.media_type,
                upload.size_bytes as i64,
                upload.rel_path,
                upload.thumb_rel_path,
                created_at,
            ],
        )?;
        Ok(created_at)
    }
}
