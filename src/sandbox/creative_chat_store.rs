//! Creative chat conversations (the generation-side chat of document 1): sessions and the
//! user's messages. Each assistant answer is an ordinary generation row (kind `chat`) in
//! the session, so it is polled, billed and resumed like any job; a conversation's
//! messages are its user messages, each followed by its answer's generation.

use rusqlite::{OptionalExtension, params};

use super::store::{CreateOutcome, NewGeneration, Store, insert_generation_in};

pub(crate) const CHAT_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS chat_sessions (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, project_id TEXT NOT NULL, name TEXT NOT NULL,
    created_at TEXT NOT NULL, last_activity TEXT NOT NULL, last_activity_ms INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chat_sessions_user ON chat_sessions(user_id, last_activity_ms);
CREATE TABLE IF NOT EXISTS chat_messages (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, generation_id TEXT NOT NULL,
    content TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chat_messages_session ON chat_messages(session_id);
";

#[derive(Debug, Clone)]
pub(crate) struct ChatSessionRow {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub created_at: String,
    pub last_activity: String,
}

/// A conversation to open with the first message.
#[derive(Debug, Clone)]
pub(crate) struct NewChatSession {
    pub id: String,
    pub project_id: String,
    pub name: String,
}

/// One user message and the generation that answers it.
#[derive(Debug, Clone)]
pub(crate) struct ChatTurn<'a> {
    /// `Some` when the message opens a new conversation (`generation.session_id` is its id).
    pub new_session: Option<NewChatSession>,
    pub user_message_id: String,
    pub generation: &'a NewGeneration,
    /// The sandbox clock's now, as ISO 8601 and milliseconds.
    pub now_iso: String,
    pub now_ms: i64,
}

/// A user message with what its answer's generation holds.
#[derive(Debug, Clone)]
pub(crate) struct ChatTurnRow {
    pub user_message_id: String,
    pub content: String,
    pub created_at: String,
    pub generation_id: String,
    pub state: String,
    pub model: String,
    pub result_json: Option<String>,
    pub error: Option<String>,
    pub credits_used: Option<f64>,
}

impl Store {
    /// Checks the balance against `minimum_credits` and, in one transaction, opens the
    /// conversation (when new), stores the user message, creates the answer's generation
    /// with its reservation and marks the conversation active now.
    pub(crate) fn create_chat_turn(
        &self,
        turn: &ChatTurn<'_>,
        minimum_credits: f64,
    ) -> rusqlite::Result<CreateOutcome> {
        let conn = self.lock();
        let tx = conn.unchecked_transaction()?;
        let generation = turn.generation;
        let available = Self::balance_in(&tx, &generation.user_id)?.available();
        if available < minimum_credits {
            return Ok(CreateOutcome::InsufficientCredits { available });
        }
        if let Some(session) = &turn.new_session {
            tx.execute(
                "INSERT INTO chat_sessions (id, user_id, project_id, name, created_at,
                    last_activity, last_activity_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6)",
                params![
                    session.id,
                    generation.user_id,
                    session.project_id,
                    session.name,
                    turn.now_iso,
                    turn.now_ms
                ],
            )?;
        }
        tx.execute(
            "INSERT INTO chat_messages (id, session_id, generation_id, content, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                turn.user_message_id,
                generation.session_id,
                generation.id,
                generation.prompt,
                turn.now_iso
            ],
        )?;
        insert_generation_in(&tx, generation, "processing", &turn.now_iso)?;
        tx.execute(
            "UPDATE chat_sessions SET last_activity = ?2, last_activity_ms = ?3 WHERE id = ?1",
            params![generation.session_id, turn.now_iso, turn.now_ms],
        )?;
        tx.commit()?;
        Ok(CreateOutcome::Created)
    }

    /// The caller's conversation `id`, if it exists.
    pub(crate) fn chat_session(
        &self,
        user_id: &str,
        id: &str,
    ) -> rusqlite::Result<Option<ChatSessionRow>> {
        self.lock()
            .query_row(
                "SELECT id, project_id, name, created_at, last_activity FROM chat_sessions
                 WHERE id = ?1 AND user_id = ?2",
                params![id, user_id],
                |r| {
                    Ok(ChatSessionRow {
                        id: r.get(0)?,
                        project_id: r.get(1)?,
                        name: r.get(2)?,
                        created_at: r.get(3)?,
                        last_activity: r.get(4)?,
                    })
                },
            )
            .optional()
    }

    /// One page of the caller's conversations, most recently active first, and the total.
    pub(crate) fn chat_sessions(
        &self,
        user_id: &str,
        page: u64,
        limit: u64,
    ) -> rusqlite::Result<(Vec<ChatSessionRow>, u64)> {
        let conn = self.lock();
        let total: i64 = conn.query_row(
            "SELECT COUNT(*) FROM chat_sessions WHERE user_id = ?1",
            params![user_id],
            |r| r.get(0),
        )?;
        let offset = page.saturating_sub(1).saturating_mul(limit);
        let mut stmt = conn.prepare(
            "SELECT id, project_id, name, created_at, last_activity FROM chat_sessions
             WHERE user_id = ?1 ORDER BY last_activity_ms DESC, rowid DESC LIMIT ?2 OFFSET ?3",
        )?;
        let rows = stmt.query_map(
            params![
                user_id,
                i64::try_from(limit).unwrap_or(i64::MAX),
                i64::try_from(offset).unwrap_or(i64::MAX)
            ],
            |r| {
                Ok(ChatSessionRow {
                    id: r.get(0)?,
                    project_id: r.get(1)?,
                    name: r.get(2)?,
                    created_at: r.get(3)?,
                    last_activity: r.get(4)?,
                })
            },
        )?;
        Ok((rows.collect::<Result<_, _>>()?, total.max(0) as u64))
    }

    /// Every turn of a conversation, oldest first.
    pub(crate) fn chat_turns(&self, session_id: &str) -> rusqlite::Result<Vec<ChatTurnRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT m.id, m.content, m.created_at, g.id, g.state, g.model, g.result_json,
                    g.error, g.credits_used
             FROM chat_messages m JOIN generations g ON g.id = m.generation_id
             WHERE m.session_id = ?1 ORDER BY m.rowid",
        )?;
        let rows = stmt.query_map(params![session_id], |r| {
            Ok(ChatTurnRow {
                user_message_id: r.get(0)?,
                content: r.get(1)?,
                created_at: r.get(2)?,
                generation_id: r.get(3)?,
                state: r.get(4)?,
                model: r.get(5)?,
                result_json: r.get(6)?,
                error: r.get(7)?,
                credits_used: r.get(8)?,
            })
        })?;
        rows.collect()
    }
}
