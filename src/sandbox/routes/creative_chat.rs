//! The generation-side chat of document 1 ("Creative chat"): POST /v1/chat, POST
//! /v1/chat/conversations and POST /v1/chat/conversations/{session_id}/messages submit a
//! message and answer with a `message_id` polled on /v1/generate/{id}/status like any
//! generation; GET /v1/chat/conversations and GET /v1/chat/conversations/{id}/messages
//! list what was said. Shapes follow the wire examples (post_chat_conversations_submit,
//! get_chat_conversations, get_chat_conversation_messages, chat_error_responses).

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use super::generate::{AUTO_MODEL_ALIASES, bad_request, scaled_duration_ms, submit_answer};
use super::{json_object, resolve_project};
use crate::sandbox::auth::Caller;
use crate::sandbox::catalog::{Catalog, ModelSpec};
use crate::sandbox::creative_chat_job::CHAT_KIND;
use crate::sandbox::creative_chat_store::{ChatSessionRow, ChatTurn, ChatTurnRow, NewChatSession};
use crate::sandbox::http_error::{ApiError, ApiResult};
use crate::sandbox::ids::{fnv1a, new_object_id};
use crate::sandbox::jobs::{self, StoredResult};
use crate::sandbox::pricing::round_credits;
use crate::sandbox::state::AppState;
use crate::sandbox::store::{CreateOutcome, NewGeneration};

/// Catalog type of the chat models (alias `chat`).
const TEXT_TYPE: &str = "text";
/// Contract: chat is polled every 2 s.
const POLL_INTERVAL_HINT_SECS: u64 = 2;
/// Realistic wall time of one answer at speed 1.0.
const ANSWER_BASE_MS: f64 = 3_000.0;
const DEFAULT_CONVERSATIONS_LIMIT: u64 = 20;
const DEFAULT_MESSAGES_LIMIT: u64 = 50;
/// Largest page either list serves (larger values are clamped).
const MAX_LIMIT: u64 = 100;

/// POST /v1/chat `{message, model?, system_prompt?, session_id?}`: a new conversation
/// unless `session_id` names one.
pub(crate) async fn chat(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    submit(&state, &caller, &body, None)
}

/// POST /v1/chat/conversations `{message, session_id?, model?}`.
pub(crate) async fn conversation_submit(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> ApiResult<Response> {
    submit(&state, &caller, &body, None)
}

/// POST /v1/chat/conversations/{session_id}/messages `{message, model?}`.
pub(crate) async fn conversation_message(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(session_id): Path<String>,
    body: Bytes,
) -> ApiResult<Response> {
    submit(&state, &caller, &body, Some(session_id))
}

fn not_found() -> ApiError {
    ApiError::sdk(StatusCode::NOT_FOUND, "NOT_FOUND", "Conversation not found")
}

/// The wire example's 402 (chat's own status; generation routes use 403).
fn insufficient_credits() -> ApiError {
    ApiError::sdk(
        StatusCode::PAYMENT_REQUIRED,
        "INSUFFICIENT_CREDITS",
        "Insufficient credits",
    )
}

/// `model` for chat: absent, null, blank or an auto alias is the routed default (echoed
/// "auto"); a string naming no text model is the wire example's 400 INVALID_MODEL.
fn resolve_chat_model<'a>(
    catalog: &'a Catalog,
    value: Option<&Value>,
) -> ApiResult<(String, &'a ModelSpec)> {
    let requested = match value {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => {
            let trimmed = name.trim();
            let lowered = trimmed.to_ascii_lowercase();
            (!AUTO_MODEL_ALIASES.contains(&lowered.as_str())).then_some(trimmed)
        }
        Some(_) => return Err(bad_request("INVALID_MODEL", "model must be a string")),
    };
    match requested {
        None => catalog
            .default_for(TEXT_TYPE)
            .map(|spec| ("auto".to_owned(), spec))
            .ok_or_else(|| ApiError::internal("model routing", "no chat model")),
        Some(name) => catalog
            .find(name, TEXT_TYPE)
            .map(|spec| (spec.identifier.clone(), spec))
            .ok_or_else(|| {
                bad_request(
                    "INVALID_MODEL",
                    format!("Model \"{name}\" not found or not available for chat"),
                )
            }),
    }
}

fn optional_text<'a>(body: &'a Map<String, Value>, field: &str) -> ApiResult<Option<&'a str>> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.trim()).filter(|t| !t.is_empty())),
        Some(_) => Err(bad_request(
            "INVALID_PARAMETER",
            format!("{field} must be a string"),
        )),
    }
}

fn required_message(body: &Map<String, Value>, spec: &ModelSpec) -> ApiResult<String> {
    let message = match body.get("message") {
        Some(Value::String(message)) if !message.trim().is_empty() => message.clone(),
        _ => {
            return Err(bad_request(
                "INVALID_MESSAGE",
                "message is required and must be a non-empty string",
            ));
        }
    };
    let (_, max_chars) = spec.prompt_length_bounds();
    let chars = message.chars().count();
    if chars > max_chars {
        return Err(bad_request(
            "INVALID_MESSAGE",
            format!(
                "message is too long ({chars} characters); model {} allows at most {max_chars}",
                spec.identifier
            ),
        ));
    }
    Ok(message)
}

/// "API Chat - 2026-03-10": the conversation's name from the day it was opened (UTC).
fn conversation_name(now_ms: i64) -> String {
    let day = chrono::DateTime::from_timestamp_millis(now_ms)
        .unwrap_or_default()
        .format("%Y-%m-%d");
    format!("API Chat - {day}")
}

fn submit(
    state: &AppState,
    caller: &Caller,
    raw_body: &[u8],
    path_session: Option<String>,
) -> ApiResult<Response> {
    let body = json_object(raw_body)?;
    let (model_echo, spec) = resolve_chat_model(&state.catalog, body.get("model"))?;
    let message = required_message(&body, spec)?;
    optional_text(&body, "system_prompt")?;
    let body_session = optional_text(&body, "session_id")?.map(str::to_owned);
    let existing = match path_session.or(body_session) {
        Some(id) => Some(
            state
                .store
                .chat_session(&caller.user_id, id.trim())?
                .ok_or_else(not_found)?,
        ),
        None => None,
    };
    let now_ms = state.clock.now_ms();
    let (session_id, project_id, new_session) = match existing {
        Some(session) => (session.id, session.project_id, None),
        None => {
            let project_id = resolve_project(state, &caller.user_id, body.get("project_id"))?;
            let session = NewChatSession {
                id: new_object_id(),
                project_id: project_id.clone(),
                name: conversation_name(now_ms),
            };
            (session.id.clone(), project_id, Some(session))
        }
    };
    // Chat models have no token rates in the catalog: a flat `credit` per answer.
    let cost = round_credits(spec.credit.max(0.0));
    let generation = NewGeneration {
        id: new_object_id(),
        user_id: caller.user_id.clone(),
        project_id,
        session_id,
        kind: CHAT_KIND.to_owned(),
        model_echo: Some(model_echo.clone()),
        model: spec.identifier.clone(),
        provider: spec.provider.clone(),
        prompt_used: message.clone(),
        seed: (fnv1a(message.as_bytes()) >> 33) as i64,
        prompt: message,
        aspect_ratio: String::new(),
        resolution: String::new(),
        quality: None,
        num_images: 1,
        source_images: Vec::new(),
        request_json: Value::Object(body).to_string(),
        duration_ms: scaled_duration_ms(state, ANSWER_BASE_MS),
        credits_reserved: cost,
        credit_base: spec.credit,
        planned_failure: state
            .controls
            .plan_failure(&spec.provider)
            .map(|f| f.to_string()),
        look_json: None,
        video_duration_secs: None,
        batch_id: None,
        scene_number: None,
    };
    let turn = ChatTurn {
        new_session,
        user_message_id: new_object_id(),
        generation: &generation,
        now_iso: crate::sandbox::clock::Clock::iso_at(now_ms),
        now_ms,
    };
    match state.store.create_chat_turn(&turn, cost)? {
        CreateOutcome::Created => {}
        CreateOutcome::InsufficientCredits { .. } => return Err(insufficient_credits()),
    }
    tracing::info!(generation_id = %generation.id, kind = CHAT_KIND, model = %generation.model, "chat message submitted");
    if state.controls.take_synchronous_chat() {
        return answer_at_once(state, &generation.id);
    }
    jobs::spawn(state.clone(), generation.id.clone());
    let response = json!({
        "success": true,
        "message_id": generation.id,
        "session_id": generation.session_id,
        "type": CHAT_KIND,
        "model": model_echo,
        "poll_url": format!("/api/v1/generate/{}/status", generation.id),
        "poll_interval_hint": POLL_INTERVAL_HINT_SECS,
    });
    Ok(submit_answer(
        state,
        &generation.id,
        StatusCode::OK,
        response,
    ))
}

/// The older synchronous answer (post_chat_stateless.json, a test control): the answer is
/// written and billed now and sent instead of a handle.
fn answer_at_once(state: &AppState, id: &str) -> ApiResult<Response> {
    let row = state
        .store
        .generation(id)?
        .ok_or_else(|| ApiError::internal("chat", "the new message vanished"))?;
    let result = crate::sandbox::creative_chat_job::produce(&row)
        .map_err(|failure| ApiError::internal("chat", failure))?;
    let json = serde_json::to_string(&result).map_err(|e| ApiError::internal("chat", e))?;
    state
        .store
        .complete_generation(id, &json, row.credits_reserved, &[])?;
    let response = json!({
        "success": true,
        "content": result.content,
        "model": row.model,
        "credits_used": row.credits_reserved,
    });
    Ok(submit_answer(state, id, StatusCode::OK, response))
}

/// `page` and `limit` of a list: positive integers (400 otherwise), limit clamped.
fn paging(params: &HashMap<String, String>, default_limit: u64) -> ApiResult<(u64, u64)> {
    let read = |name: &str, default: u64| match params.get(name).map(|v| v.trim()) {
        None | Some("") => Ok(default),
        Some(text) => match text.parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(bad_request(
                "INVALID_PARAMETER",
                format!("{name} must be a positive integer"),
            )),
        },
    };
    Ok((
        read("page", 1)?,
        read("limit", default_limit)?.min(MAX_LIMIT),
    ))
}

fn pagination(page: u64, limit: u64, total: u64) -> Value {
    json!({"page": page, "limit": limit, "total": total, "pages": total.div_ceil(limit)})
}

fn conversation_json(session: &ChatSessionRow) -> Value {
    json!({
        "session_id": session.id,
        "name": session.name,
        "last_activity": session.last_activity,
        "created_at": session.created_at,
    })
}

/// GET /v1/chat/conversations?page&limit: the caller's conversations, most recently
/// active first.
pub(crate) async fn conversations(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Query(params): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    let (page, limit) = paging(&params, DEFAULT_CONVERSATIONS_LIMIT)?;
    let (sessions, total) = state.store.chat_sessions(&caller.user_id, page, limit)?;
    Ok(Json(json!({
        "success": true,
        "conversations": sessions.iter().map(conversation_json).collect::<Vec<_>>(),
        "pagination": pagination(page, limit, total),
    })))
}

/// The two messages of a turn: the user's, then the answer (its generation's state).
fn turn_messages(catalog: &Catalog, turn: ChatTurnRow) -> [Value; 2] {
    let user = json!({
        "message_id": turn.user_message_id,
        "role": "user",
        "content": turn.content,
        "status": "completed",
        "created_at": turn.created_at,
    });
    let stored: Option<StoredResult> = turn
        .result_json
        .as_deref()
        .and_then(|json| serde_json::from_str(json).ok());
    let model = match catalog.find(&turn.model, TEXT_TYPE) {
        Some(spec) => json!({
            "identifier": spec.identifier,
            "name": spec.name,
            "provider": spec.provider,
        }),
        None => json!({"identifier": turn.model, "name": turn.model, "provider": Value::Null}),
    };
    let mut answer = json!({
        "message_id": turn.generation_id,
        "role": "assistant",
        "content": stored.as_ref().and_then(|s| s.content.clone()).unwrap_or_default(),
        "status": turn.state,
        "model": model,
        "created_at": stored.as_ref().map_or(turn.created_at, |s| s.created_at.clone()),
    });
    if turn.state == "completed" {
        answer["credits_used"] = json!(turn.credits_used);
    }
    if turn.state == "failed" {
        answer["error"] = json!(
            turn.error
                .unwrap_or_else(|| "The answer could not be written".to_owned())
        );
    }
    [user, answer]
}

/// GET /v1/chat/conversations/{id}/messages?page&limit: oldest first, the user's message
/// then its answer.
pub(crate) async fn messages(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(session_id): Path<String>,
    Query(params): Query<HashMap<String, String>>,
) -> ApiResult<Json<Value>> {
    let (page, limit) = paging(&params, DEFAULT_MESSAGES_LIMIT)?;
    let session = state
        .store
        .chat_session(&caller.user_id, session_id.trim())?
        .ok_or_else(not_found)?;
    let all: Vec<Value> = state
        .store
        .chat_turns(&session.id)?
        .into_iter()
        .flat_map(|turn| turn_messages(&state.catalog, turn))
        .collect();
    let total = all.len() as u64;
    let skip = usize::try_from(page.saturating_sub(1).saturating_mul(limit)).unwrap_or(usize::MAX);
    let take = usize::try_from(limit).unwrap_or(usize::MAX);
    let messages: Vec<Value> = all.into_iter().skip(skip).take(take).collect();
    Ok(Json(json!({
        "success": true,
        "session_id": session.id,
        "messages": messages,
        "pagination": pagination(page, limit, total),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversations_are_named_after_their_day() {
        // 2026-03-10T10:30:00Z
        assert_eq!(
            conversation_name(1_773_138_600_000),
            "API Chat - 2026-03-10"
        );
    }

    #[test]
    fn unknown_models_get_the_wire_examples_message() {
        let catalog = Catalog::load().expect("catalog");
        let error =
            resolve_chat_model(&catalog, Some(&json!("invalid-model"))).expect_err("refused");
        assert_eq!(error.status, StatusCode::BAD_REQUEST);
        assert_eq!(
            error.body,
            json!({
                "success": false,
                "error": "Model \"invalid-model\" not found or not available for chat",
                "code": "INVALID_MODEL"
            })
        );
        let (echo, spec) = resolve_chat_model(&catalog, Some(&json!(" Auto "))).expect("auto");
        assert_eq!(echo, "auto");
        assert!(spec.has_type(TEXT_TYPE));
        // An image model is not a chat model.
        assert!(resolve_chat_model(&catalog, Some(&json!("fal-ai/flux/schnell"))).is_err());
    }
}
