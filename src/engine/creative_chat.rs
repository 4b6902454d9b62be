//! Creative chat reads: the conversation list and one conversation's messages, paced in the
//! media-and-lifecycle gate (the sandbox counts both lists there, like the sessions list)
//! and repeated after a 429 (reads only). Sending a message is an ordinary job
//! (`Command::Submit` with a `GenerationKind::Chat` spec), never done here.

use super::guard::spawn_reported;
use super::protocol::{Command, Event};
use super::rate_limit::paced;
use super::runtime::Ctx;
use crate::api::creative_chat::{CONVERSATIONS_PAGE_LIMIT, MAX_MESSAGE_PAGES, MESSAGES_PAGE_LIMIT};
use crate::api::{ApiError, ChatMessage};
use std::sync::Arc;

/// Runs one creative chat command on its own task.
pub(super) fn handle(ctx: &Arc<Ctx>, command: Command) {
    match command {
        Command::LoadChatConversations => {
            let task_ctx = ctx.clone();
            spawn_reported(ctx, "loading the chat conversations", async move {
                let client = task_ctx.client.clone();
                let result = paced(&task_ctx.rate_gates.media, || {
                    client.chat_conversations(1, CONVERSATIONS_PAGE_LIMIT)
                })
                .await
                .map(|page| page.conversations);
                if let Err(error) = &result {
                    tracing::warn!("chat conversations: {error}");
                }
                task_ctx.emit(Event::ChatConversations(result)).await;
            });
        }
        Command::LoadChatMessages { session_id } => {
            let task_ctx = ctx.clone();
            spawn_reported(ctx, "loading a chat conversation", async move {
                let result = all_messages(&task_ctx, &session_id).await;
                if let Err(error) = &result {
                    tracing::warn!("chat messages: {error}");
                }
                task_ctx
                    .emit(Event::ChatMessages { session_id, result })
                    .await;
            });
        }
        _ => {}
    }
}

/// Every page of a conversation's messages, oldest first (at most `MAX_MESSAGE_PAGES`).
async fn all_messages(ctx: &Ctx, session_id: &str) -> Result<Vec<ChatMessage>, ApiError> {
    let mut messages = Vec::new();
    for page in 1..=MAX_MESSAGE_PAGES {
        let client = ctx.client.clone();
        let answer = paced(&ctx.rate_gates.media, || {
            client.chat_messages(session_id, page, MESSAGES_PAGE_LIMIT)
        })
        .await?;
        let empty = answer.messages.is_empty();
        messages.extend(answer.messages);
        if empty || !answer.pagination.has_more_after(u64::from(page)) {
            break;
        }
    }
    Ok(messages)
}
