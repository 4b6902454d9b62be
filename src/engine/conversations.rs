//! The local store of assistant conversations: `chat.sqlite` in the data folder (beside,
//! never inside, the job journal). One row per conversation and one per message; deleting
//! a conversation deletes its messages. Calls are synchronous and short; the engine runs
//! them on tokio's blocking pool.

use crate::api::code_assistant::{ChatRole, ChatUsage};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Mutex;

/// The store's file name in the data folder.
pub const CHAT_STORE_FILE: &str = "chat.sqlite";
/// Schema version stored in `PRAGMA user_version`.
const SCHEMA_VERSION: i64 = 1;
/// Characters of the last message shown under a conversation's title.
const PREVIEW_CHARS: usize = 120;
/// Longest title kept (a title made from a long first message is cut).
pub const MAX_TITLE_CHARS: usize = 200;

/// One conversation in the list.
#[derive(Clone, Debug, PartialEq)]
pub struct ConversationSummary {
    pub id: i64,
    pub title: String,
    pub model_id: String,
    /// RFC 3339 (UTC, milliseconds).
    pub updated_at: String,
    pub message_count: u64,
    /// The start of the last message, on one line.
    pub preview: String,
}

/// An uploaded file a message refers to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    pub file_id: String,
    pub url: String,
    pub filename: String,
    pub mime_type: String,
    pub bytes: u64,
}

/// How a stored message ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageState {
    Complete,
    /// The person stopped the answer; `text` is what had arrived.
    Stopped,
    /// The answer broke off or was refused; `error` says why.
    Failed,
}

impl MessageState {
    pub fn as_str(self) -> &'static str {
        match self {
            MessageState::Complete => "complete",
            MessageState::Stopped => "stopped",
            MessageState::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<MessageState> {
        match text {
            "complete" => Some(MessageState::Complete),
            "stopped" => Some(MessageState::Stopped),
            "failed" => Some(MessageState::Failed),
            _ => None,
        }
    }
}

/// One message as kept.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredMessage {
    pub role: ChatRole,
    pub text: String,
    pub attachments: Vec<Attachment>,
    pub model_id: String,
    /// Credits the reply cost (assistant messages that finished).
    pub cost_credits: Option<f64>,
    pub state: MessageState,
    /// Why a failed message failed, for a person.
    pub error: Option<String>,
    /// RFC 3339 (UTC, milliseconds).
    pub created_at: String,
}

/// Now as the store writes times: RFC 3339, UTC, milliseconds (sorts as text).
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the chat history could not be used because {}", describe_sql(.0))]
    Sql(#[from] rusqlite::Error),
    #[error("the chat history file {path} could not be created readable only by you: {source}")]
    File {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the chat history folder {path} could not be created: {source}")]
    Folder {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("that conversation no longer exists")]
    NotFound,
    #[error("a conversation needs a title")]
    EmptyTitle,
    #[error("the chat history is unavailable (an earlier error left it unusable)")]
    Poisoned,
    #[error("a message could not be read back ({0})")]
    Corrupt(String),
}

/// Why SQLite failed, in words ("the disk is full"), as the journal says it.
fn describe_sql(error: &rusqlite::Error) -> String {
    match error {
        rusqlite::Error::SqliteFailure(e, message) => {
            super::journal::JournalError::Sql(rusqlite::Error::SqliteFailure(*e, message.clone()))
                .reason_in_words()
        }
        other => format!("of a database error ({other})"),
    }
}

/// The conversation store. Cheap to share behind an `Arc`.
pub struct ConversationStore {
    connection: Mutex<Connection>,
}

impl std::fmt::Debug for ConversationStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ConversationStore")
    }
}

impl ConversationStore {
    /// Open or create the store (WAL) and bring its schema up to date. A file that is not
    /// a usable database (damaged, or from a newer studio) is moved aside
    /// (`chat.sqlite.broken-<time>`, logged) and a new empty store is started: the chat
    /// history must never stop the studio.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            crate::local_files::create_private_dir_all(parent).map_err(|source| {
                StoreError::Folder {
                    path: parent.display().to_string(),
                    source,
                }
            })?;
        }
        match Self::open_checked(path) {
            Ok(store) => Ok(store),
            Err(OpenFailure::Broken(problem)) => {
                let moved_to = crate::settings::broken_file::move_aside(path, &["-wal", "-shm"])
                    .map_err(|source| StoreError::Folder {
                        path: path.display().to_string(),
                        source,
                    })?;
                tracing::warn!(
                    "the chat history {} could not be read ({problem}); it was moved to {} and \
                     a new one started",
                    path.display(),
                    moved_to.display()
                );
                Self::open_checked(path).map_err(OpenFailure::into_error)
            }
            Err(OpenFailure::Other(error)) => Err(error),
        }
    }

    /// An in-memory store (tests, tools).
    pub fn open_in_memory() -> Result<Self, StoreError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn open_checked(path: &Path) -> Result<Self, OpenFailure> {
        // 0600 before SQLite writes a byte: the store holds the person's conversations.
        crate::local_files::make_private_file(path).map_err(|source| {
            OpenFailure::Other(StoreError::File {
                path: path.display().to_string(),
                source,
            })
        })?;
        let connection = Connection::open(path).map_err(OpenFailure::from_sql)?;
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(OpenFailure::from_sql)?;
        if version > SCHEMA_VERSION {
            return Err(OpenFailure::Broken(format!(
                "it was written by a newer version of Framewright (format {version})"
            )));
        }
        Self::init(connection).map_err(|e| match e {
            StoreError::Sql(e) => OpenFailure::from_sql(e),
            other => OpenFailure::Other(other),
        })
    }

    fn init(connection: Connection) -> Result<Self, StoreError> {
        connection.busy_timeout(std::time::Duration::from_secs(5))?;
        // `journal_mode` answers with a row; read it rather than execute.
        let _mode: String =
            connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        connection.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")?;
        let version: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if version < 1 {
            connection.execute_batch(
                "BEGIN;
                 CREATE TABLE IF NOT EXISTS conversations (
                     id INTEGER PRIMARY KEY AUTOINCREMENT,
                     title TEXT NOT NULL,
                     model_id TEXT NOT NULL,
                     created_at TEXT NOT NULL,
                     updated_at TEXT NOT NULL,
                     -- Bumped on every change: orders the list even within one millisecond.
                     touched_seq INTEGER NOT NULL DEFAULT 0
                 );
                 CREATE TABLE IF NOT EXISTS messages (
                     id INTEGER PRIMARY KEY AUTOINCREMENT,
                     conversation_id INTEGER NOT NULL
                         REFERENCES conversations(id) ON DELETE CASCADE,
                     role TEXT NOT NULL,
                     text TEXT NOT NULL,
                     attachments TEXT NOT NULL DEFAULT '[]',
                     model_id TEXT NOT NULL,
                     cost_credits REAL,
                     prompt_tokens INTEGER,
                     completion_tokens INTEGER,
                     state TEXT NOT NULL,
                     error TEXT,
                     created_at TEXT NOT NULL
                 );
                 CREATE INDEX IF NOT EXISTS messages_by_conversation
                     ON messages(conversation_id, id);
                 CREATE INDEX IF NOT EXISTS conversations_by_touch
                     ON conversations(touched_seq DESC);
                 PRAGMA user_version = 1;
                 COMMIT;",
            )?;
        }
        Ok(ConversationStore {
            connection: Mutex::new(connection),
        })
    }

    fn with<R>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let mut connection = self.connection.lock().map_err(|_| StoreError::Poisoned)?;
        f(&mut connection)
    }

    /// A new empty conversation.
    pub fn create(&self, title: &str, model_id: &str) -> Result<ConversationSummary, StoreError> {
        let title = clean_title(title)?;
        let now = now_rfc3339();
        let id = self.with(|c| {
            c.execute(
                "INSERT INTO conversations (title, model_id, created_at, updated_at, touched_seq)
                 VALUES (?1, ?2, ?3, ?3, (SELECT COALESCE(MAX(touched_seq), 0) + 1
                                          FROM conversations))",
                params![title, model_id, now],
            )?;
            Ok(c.last_insert_rowid())
        })?;
        Ok(ConversationSummary {
            id,
            title,
            model_id: model_id.to_owned(),
            updated_at: now,
            message_count: 0,
            preview: String::new(),
        })
    }

    /// Conversations, most recently updated first. A non-empty `query` keeps those whose
    /// title or any message contains it (case-insensitive for ASCII letters: SQLite LIKE).
    pub fn list(&self, query: &str) -> Result<Vec<ConversationSummary>, StoreError> {
        let query = query.trim();
        let pattern = format!("%{}%", escape_like(query));
        self.with(|c| {
            let mut statement = c.prepare(
                "SELECT c.id, c.title, c.model_id, c.updated_at,
                        (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id),
                        (SELECT m.text FROM messages m WHERE m.conversation_id = c.id
                             ORDER BY m.id DESC LIMIT 1)
                 FROM conversations c
                 WHERE ?1 = ''
                    OR c.title LIKE ?2 ESCAPE '\\'
                    OR EXISTS (SELECT 1 FROM messages m
                               WHERE m.conversation_id = c.id AND m.text LIKE ?2 ESCAPE '\\')
                 ORDER BY c.touched_seq DESC, c.id DESC",
            )?;
            let rows = statement.query_map(params![query, pattern], |row| {
                let last_text: Option<String> = row.get(5)?;
                Ok(ConversationSummary {
                    id: row.get(0)?,
                    title: row.get(1)?,
                    model_id: row.get(2)?,
                    updated_at: row.get(3)?,
                    message_count: row.get::<_, i64>(4)?.max(0) as u64,
                    preview: preview_of(last_text.as_deref().unwrap_or_default()),
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })
    }

    /// One conversation's summary, if it exists.
    pub fn summary(&self, conversation_id: i64) -> Result<ConversationSummary, StoreError> {
        self.list("")?
            .into_iter()
            .find(|c| c.id == conversation_id)
            .ok_or(StoreError::NotFound)
    }

    /// The messages of a conversation, oldest first.
    pub fn load(&self, conversation_id: i64) -> Result<Vec<StoredMessage>, StoreError> {
        self.with(|c| {
            require_conversation(c, conversation_id)?;
            let mut statement = c.prepare(
                "SELECT role, text, attachments, model_id, cost_credits, state, error, created_at
                 FROM messages WHERE conversation_id = ?1 ORDER BY id",
            )?;
            let mut rows = statement.query(params![conversation_id])?;
            let mut messages = Vec::new();
            while let Some(row) = rows.next()? {
                let role: String = row.get(0)?;
                let attachments: String = row.get(2)?;
                let state: String = row.get(5)?;
                messages.push(StoredMessage {
                    role: ChatRole::parse(&role)
                        .ok_or_else(|| StoreError::Corrupt(format!("unknown role {role:?}")))?,
                    text: row.get(1)?,
                    attachments: serde_json::from_str(&attachments)
                        .map_err(|e| StoreError::Corrupt(format!("attachments: {e}")))?,
                    model_id: row.get(3)?,
                    cost_credits: row.get(4)?,
                    state: MessageState::parse(&state)
                        .ok_or_else(|| StoreError::Corrupt(format!("unknown state {state:?}")))?,
                    error: row.get(6)?,
                    created_at: row.get(7)?,
                });
            }
            Ok(messages)
        })
    }

    /// Add a message (with the reply's token counts when known) and mark the
    /// conversation as updated now. Returns the message's row id.
    pub fn append(
        &self,
        conversation_id: i64,
        message: &StoredMessage,
        usage: Option<&ChatUsage>,
    ) -> Result<i64, StoreError> {
        let attachments = serde_json::to_string(&message.attachments)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let to_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        self.with(|c| {
            let tx = c.transaction()?;
            require_conversation(&tx, conversation_id)?;
            tx.execute(
                "INSERT INTO messages (conversation_id, role, text, attachments, model_id,
                     cost_credits, prompt_tokens, completion_tokens, state, error, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    conversation_id,
                    message.role.as_str(),
                    message.text,
                    attachments,
                    message.model_id,
                    message.cost_credits,
                    usage.map(|u| to_i64(u.prompt_tokens)),
                    usage.map(|u| to_i64(u.completion_tokens)),
                    message.state.as_str(),
                    message.error,
                    message.created_at,
                ],
            )?;
            let id = tx.last_insert_rowid();
            tx.execute(
                "UPDATE conversations SET updated_at = ?2, touched_seq = (SELECT
                         COALESCE(MAX(touched_seq), 0) + 1 FROM conversations),
                     model_id = CASE WHEN ?3 = '' THEN model_id ELSE ?3 END
                 WHERE id = ?1",
                params![conversation_id, now_rfc3339(), message.model_id],
            )?;
            tx.commit()?;
            Ok(id)
        })
    }

    /// Rewrite a stored message (a reply kept current while it streams, then its end).
    pub fn update_message(
        &self,
        message_id: i64,
        message: &StoredMessage,
        usage: Option<&ChatUsage>,
    ) -> Result<(), StoreError> {
        let to_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        self.with(|c| {
            c.execute(
                "UPDATE messages SET text = ?2, cost_credits = ?3, prompt_tokens = ?4,
                     completion_tokens = ?5, state = ?6, error = ?7
                 WHERE id = ?1",
                params![
                    message_id,
                    message.text,
                    message.cost_credits,
                    usage.map(|u| to_i64(u.prompt_tokens)),
                    usage.map(|u| to_i64(u.completion_tokens)),
                    message.state.as_str(),
                    message.error,
                ],
            )?;
            Ok(())
        })
    }

    pub fn rename(&self, conversation_id: i64, title: &str) -> Result<(), StoreError> {
        let title = clean_title(title)?;
        let changed = self.with(|c| {
            Ok(c.execute(
                "UPDATE conversations SET title = ?2, updated_at = ?3, touched_seq = (SELECT
                     COALESCE(MAX(touched_seq), 0) + 1 FROM conversations)
                 WHERE id = ?1",
                params![conversation_id, title, now_rfc3339()],
            )?)
        })?;
        if changed == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }

    /// Delete a conversation and all its messages.
    pub fn delete(&self, conversation_id: i64) -> Result<(), StoreError> {
        let changed = self.with(|c| {
            Ok(c.execute(
                "DELETE FROM conversations WHERE id = ?1",
                params![conversation_id],
            )?)
        })?;
        if changed == 0 {
            return Err(StoreError::NotFound);
        }
        Ok(())
    }
}

fn require_conversation(c: &Connection, conversation_id: i64) -> Result<(), StoreError> {
    c.query_row(
        "SELECT 1 FROM conversations WHERE id = ?1",
        params![conversation_id],
        |_| Ok(()),
    )
    .optional()?
    .ok_or(StoreError::NotFound)
}

fn clean_title(title: &str) -> Result<String, StoreError> {
    let title: String = title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_TITLE_CHARS)
        .collect();
    if title.is_empty() {
        return Err(StoreError::EmptyTitle);
    }
    Ok(title)
}

/// The start of a message on one line.
fn preview_of(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= PREVIEW_CHARS {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(PREVIEW_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// `%`, `_` and the escape itself match literally.
fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

enum OpenFailure {
    /// The file is not usable as this store: move it aside and start again.
    Broken(String),
    Other(StoreError),
}

impl OpenFailure {
    fn from_sql(error: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        match &error {
            rusqlite::Error::SqliteFailure(e, _)
                if matches!(e.code, ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) =>
            {
                OpenFailure::Broken(error.to_string())
            }
            _ => OpenFailure::Other(StoreError::Sql(error)),
        }
    }

    fn into_error(self) -> StoreError {
        match self {
            OpenFailure::Broken(problem) => StoreError::Corrupt(problem),
            OpenFailure::Other(error) => error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(role: ChatRole, text: &str, state: MessageState) -> StoredMessage {
        StoredMessage {
            role,
            text: text.into(),
            attachments: Vec::new(),
            model_id: "model-a".into(),
            cost_credits: None,
            state,
            error: None,
            created_at: now_rfc3339(),
        }
    }

    #[test]
    fn messages_survive_a_reopen_in_order_with_attachments_and_state() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data").join(CHAT_STORE_FILE);
        let id = {
            let store = ConversationStore::open(&path).unwrap();
            let conversation = store.create("  Rust   lifetimes ", "model-a").unwrap();
            assert_eq!(conversation.title, "Rust lifetimes");
            let mut question = message(ChatRole::User, "What is 'a → 'b?", MessageState::Complete);
            question.attachments.push(Attachment {
                file_id: "file_0123456789abcdef01234567".into(),
                url: "http://127.0.0.1:1/files/code/x.jpg".into(),
                filename: "x.jpg".into(),
                mime_type: "image/jpeg".into(),
                bytes: 1234,
            });
            store.append(conversation.id, &question, None).unwrap();
            let mut answer = message(
                ChatRole::Assistant,
                "Café: a partial",
                MessageState::Stopped,
            );
            answer.cost_credits = Some(0.3);
            let usage = ChatUsage {
                prompt_tokens: 10,
                completion_tokens: 5,
                total_tokens: 15,
                cost_credits: Some(0.3),
            };
            store
                .append(conversation.id, &answer, Some(&usage))
                .unwrap();
            conversation.id
        };
        let store = ConversationStore::open(&path).unwrap();
        let loaded = store.load(id).unwrap();
        assert_eq!(loaded.len(), 2);
        assert_eq!(loaded[0].role, ChatRole::User);
        assert_eq!(loaded[0].attachments[0].bytes, 1234);
        assert_eq!(loaded[1].state, MessageState::Stopped);
        assert_eq!(loaded[1].text, "Café: a partial");
        assert_eq!(loaded[1].cost_credits, Some(0.3));
        let listed = store.list("").unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].message_count, 2);
        assert_eq!(listed[0].preview, "Café: a partial");
        let mode: String = store
            .with(|c| Ok(c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn list_is_newest_first_and_search_matches_titles_and_text() {
        let store = ConversationStore::open_in_memory().unwrap();
        let first = store.create("Shaders", "m").unwrap();
        let second = store.create("Borrow checker", "m").unwrap();
        store
            .append(
                first.id,
                &message(
                    ChatRole::User,
                    "How do I write a GLSL loop?",
                    MessageState::Complete,
                ),
                None,
            )
            .unwrap();
        // `first` was updated last, so it leads.
        let order: Vec<i64> = store.list("").unwrap().iter().map(|c| c.id).collect();
        assert_eq!(order, vec![first.id, second.id]);
        let by_text: Vec<i64> = store.list("glsl").unwrap().iter().map(|c| c.id).collect();
        assert_eq!(by_text, vec![first.id]);
        let by_title: Vec<i64> = store.list("BORROW").unwrap().iter().map(|c| c.id).collect();
        assert_eq!(by_title, vec![second.id]);
        assert!(store.list("100%").unwrap().is_empty(), "% is literal");
        assert!(store.list("_").unwrap().is_empty(), "_ is literal");
    }

    #[test]
    fn rename_and_delete_cascade_and_report_unknown_ids() {
        let store = ConversationStore::open_in_memory().unwrap();
        let conversation = store.create("Old", "m").unwrap();
        store
            .append(
                conversation.id,
                &message(ChatRole::User, "hello", MessageState::Complete),
                None,
            )
            .unwrap();
        store.rename(conversation.id, "New title").unwrap();
        assert_eq!(store.list("").unwrap()[0].title, "New title");
        assert!(matches!(
            store.rename(conversation.id, "   "),
            Err(StoreError::EmptyTitle)
        ));
        store.delete(conversation.id).unwrap();
        assert!(store.list("").unwrap().is_empty());
        let orphans: i64 = store
            .with(|c| Ok(c.query_row("SELECT COUNT(*) FROM messages", [], |r| r.get(0))?))
            .unwrap();
        assert_eq!(orphans, 0, "messages go with their conversation");
        assert!(matches!(
            store.delete(conversation.id),
            Err(StoreError::NotFound)
        ));
        assert!(matches!(
            store.load(conversation.id),
            Err(StoreError::NotFound)
        ));
        assert!(matches!(
            store.append(
                conversation.id,
                &message(ChatRole::User, "x", MessageState::Complete),
                None
            ),
            Err(StoreError::NotFound)
        ));
    }

    #[test]
    fn a_damaged_file_is_moved_aside_and_a_new_store_starts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CHAT_STORE_FILE);
        std::fs::write(&path, vec![0x42u8; 8192]).unwrap();
        let store = ConversationStore::open(&path).unwrap();
        assert!(store.list("").unwrap().is_empty());
        let kept_aside = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().contains("broken"));
        assert!(kept_aside, "the damaged file is kept for inspection");
    }

    #[test]
    fn long_previews_are_cut_on_one_line() {
        let long = format!("line one\nline two {}", "x".repeat(300));
        let preview = preview_of(&long);
        assert!(preview.starts_with("line one line two"));
        assert_eq!(preview.chars().count(), PREVIEW_CHARS);
        assert!(preview.ends_with('…'));
    }
}
