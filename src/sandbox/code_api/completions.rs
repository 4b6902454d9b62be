//! POST /chat/completions: validates, reads the attached images, writes the answer (cut at
//! the token cap, then `finish_reason: "length"`), reserves its most possible cost, then
//! answers synchronously or as a stream (`stream.rs`), both at the same pace.

use std::time::Duration;

use axum::Extension;
use axum::Json;
use axum::body::Body;
use axum::extract::{OriginalUri, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::attachments::image_facts;
use super::billing::new_completion_id;
use super::body::read_limited;
use super::error::CodeResult;
use super::models::ChatModel;
use super::request::ChatRequest;
use super::settlement::Settlement;
use super::stream;
use super::tokens::split_tokens;
use crate::sandbox::assistant::write_answer;
use crate::sandbox::auth::Caller;
use crate::sandbox::state::AppState;

/// Realistic generation speed at `--speed 1`.
const TOKENS_PER_SECOND: f64 = 40.0;
/// Tokens per streamed chunk.
pub(crate) const TOKENS_PER_CHUNK: usize = 3;

/// A completion ready to be delivered: its answer split into chunks and its reservation.
pub(crate) struct Completion {
    pub id: String,
    pub created_secs: i64,
    pub model: &'static ChatModel,
    /// The answer, a few tokens per piece; the pieces concatenate to the answer.
    pub chunks: Vec<Chunk>,
    pub settlement: Settlement,
    pub chunk_interval: Duration,
    /// `"length"` when the token cap cut the answer, else `"stop"`.
    pub finish_reason: &'static str,
    /// Streams only: end with a usage chunk (`stream_options.include_usage`).
    pub include_usage: bool,
}

pub(crate) struct Chunk {
    pub text: String,
    pub tokens: u64,
}

pub(crate) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    // Read here rather than by the `Bytes` extractor, whose 413 closes on a client still
    // sending (see `body.rs`).
    let body = match read_limited(uri.path(), &headers, body).await {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    let request = match ChatRequest::parse(&body) {
        Ok(request) => request,
        Err(error) => return error.into_response(),
    };
    let completion = match prepare(&state, &caller, &request).await {
        Ok(completion) => completion,
        Err(error) => return error.into_response(),
    };
    if request.stream {
        stream::respond(completion).into_response()
    } else {
        match synchronous(completion).await {
            Ok(response) => response,
            Err(error) => error.into_response(),
        }
    }
}

async fn prepare(
    state: &AppState,
    caller: &Caller,
    request: &ChatRequest,
) -> CodeResult<Completion> {
    let images = image_facts(state, &request.image_urls()).await?;
    let answer = write_answer(&request.prompt_text(), &images);
    let mut tokens = split_tokens(&answer);
    let cap_tokens = request
        .max_completion_tokens
        .map_or(usize::MAX, |cap| usize::try_from(cap).unwrap_or(usize::MAX));
    // An answer exactly as long as the cap was not cut: it ended by itself.
    let finish_reason = if tokens.len() > cap_tokens {
        tokens.truncate(cap_tokens);
        "length"
    } else {
        "stop"
    };
    let chunks: Vec<Chunk> = tokens
        .chunks(TOKENS_PER_CHUNK)
        .map(|piece| Chunk {
            text: piece.concat(),
            tokens: piece.len() as u64,
        })
        .collect();
    let planned_tokens = tokens.len() as u64;
    let id = new_completion_id();
    let settlement = Settlement::reserve(
        state,
        &caller.user_id,
        &id,
        request.model,
        request.prompt_tokens(),
        planned_tokens,
    )?;
    Ok(Completion {
        id,
        created_secs: state.clock.now_ms().div_euclid(1000),
        model: request.model,
        chunks,
        settlement,
        chunk_interval: Duration::from_secs_f64(
            TOKENS_PER_CHUNK as f64 / TOKENS_PER_SECOND / state.speed.max(f64::MIN_POSITIVE),
        ),
        finish_reason,
        include_usage: request.include_usage,
    })
}

/// Takes as long as the stream would, then answers with the whole message.
async fn synchronous(mut completion: Completion) -> CodeResult<Response> {
    tokio::time::sleep(completion.chunk_interval * completion.chunks.len() as u32).await;
    let content: String = completion
        .chunks
        .iter()
        .map(|chunk| chunk.text.as_str())
        .collect();
    let tokens: u64 = completion.chunks.iter().map(|chunk| chunk.tokens).sum();
    completion.settlement.sent(tokens);
    let usage = completion.settlement.finish()?;
    Ok(Json(json!({
        "id": completion.id,
        "object": "chat.completion",
        "created": completion.created_secs,
        "model": completion.model.id,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": completion.finish_reason,
        }],
        "usage": usage.to_json(),
    }))
    .into_response())
}
