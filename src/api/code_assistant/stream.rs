//! Streamed chat completions: the hand-written `chat.completion.chunk` types and the
//! decoder from a byte stream (reqwest's `bytes_stream()`, or any stream of byte pieces)
//! through `sse_stream` to text deltas and a final usage.
//!
//! Each SSE `data:` is one JSON chunk, `{error:{type,message}}`, or `[DONE]`. Text deltas
//! are yielded in order as they arrive (nothing is held back); the usage rides on the last
//! JSON chunk; `[DONE]` ends the answer. An error event, a byte-stream failure or an end
//! without `[DONE]` and without a finish reason is an error (the text so far stays with
//! the caller, who has already received it).

use super::errors::explain;
use super::types::{ChatUsage, WireUsage};
use crate::api::ApiError;
use crate::api::lenient::{lenient_string, lenient_u32, null_default};
use futures_util::stream::BoxStream;
use futures_util::{Stream, StreamExt, TryStreamExt};
use serde::Deserialize;

/// What the decoder yields.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamItem {
    /// Appended text, in order.
    Text(String),
    /// The answer is complete (sent once, last). `usage` is the final chunk's.
    Finished {
        usage: Option<ChatUsage>,
        finish_reason: Option<String>,
    },
}

/// A decoded streamed completion.
pub type ChatStream = BoxStream<'static, Result<StreamItem, ApiError>>;

/// One `chat.completion.chunk`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ChatChunk {
    #[serde(deserialize_with = "lenient_string")]
    pub id: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub object: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub model: Option<String>,
    #[serde(deserialize_with = "null_default")]
    pub choices: Vec<ChunkChoice>,
    pub usage: Option<ChunkUsage>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ChunkChoice {
    #[serde(deserialize_with = "lenient_u32")]
    pub index: Option<u32>,
    #[serde(deserialize_with = "null_default")]
    pub delta: ChunkDelta,
    /// `null` until the last chunk (`"stop"`, `"length"`…).
    #[serde(deserialize_with = "lenient_string")]
    pub finish_reason: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ChunkDelta {
    /// `"assistant"` on the first chunk.
    #[serde(deserialize_with = "lenient_string")]
    pub role: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub content: Option<String>,
}

/// The chunk's `usage` (same fields as a synchronous completion's).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkUsage(pub ChatUsage);

impl<'de> Deserialize<'de> for ChunkUsage {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(ChunkUsage(WireUsage::deserialize(deserializer)?.into()))
    }
}

/// `{error: {type, message}}` sent after the stream began.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct StreamErrorBody {
    #[serde(rename = "type", deserialize_with = "lenient_string")]
    pub kind: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub message: Option<String>,
}

/// One SSE `data:` payload, decoded.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamData {
    Chunk(ChatChunk),
    Error(StreamErrorBody),
    Done,
}

impl ChatChunk {
    /// The text this chunk adds (choice 0; the studio asks for one choice).
    pub fn text(&self) -> String {
        self.choices
            .iter()
            .filter(|c| c.index.unwrap_or(0) == 0)
            .filter_map(|c| c.delta.content.as_deref())
            .collect()
    }

    pub fn finish_reason(&self) -> Option<&str> {
        self.choices
            .iter()
            .find_map(|c| c.finish_reason.as_deref())
            .filter(|r| !r.is_empty())
    }
}

/// Decode one `data:` payload.
pub fn parse_data(data: &str) -> Result<StreamData, ApiError> {
    let data = data.trim();
    if data == "[DONE]" {
        return Ok(StreamData::Done);
    }
    let value: serde_json::Value = serde_json::from_str(data)
        .map_err(|e| ApiError::Decode(format!("a streamed chunk is not JSON: {e}")))?;
    if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
        let body = match error {
            serde_json::Value::String(message) => StreamErrorBody {
                kind: None,
                message: Some(message.clone()),
            },
            other => StreamErrorBody::deserialize(other).unwrap_or_default(),
        };
        return Ok(StreamData::Error(body));
    }
    ChatChunk::deserialize(value)
        .map(StreamData::Chunk)
        .map_err(|e| ApiError::Decode(format!("a streamed chunk could not be read: {e}")))
}

impl StreamErrorBody {
    /// The error as the client reports it. The stream's HTTP status was 200, so the
    /// status is taken from the type (auth_error 401, insufficient_credits 402,
    /// validation_error 400, not_found 404, rate_limit 429, anything else 500).
    pub fn into_error(self) -> ApiError {
        let status = match self.kind.as_deref() {
            Some("auth_error") => 401,
            Some("insufficient_credits") => 402,
            Some("validation_error") => 400,
            Some("not_found") => 404,
            Some("rate_limit") => 429,
            _ => 500,
        };
        explain(ApiError::Status {
            status,
            message: self.message.unwrap_or_default(),
            code: self.kind.filter(|k| !k.is_empty()),
            retry_after_secs: None,
        })
    }
}

/// Decode a streamed completion from byte pieces (split anywhere, even inside a UTF-8
/// character). The same function decodes reqwest's body and the tests' recorded bodies.
/// Byte-stream errors must already be `ApiError`s (the client maps reqwest's with
/// [`crate::api::client::classify`]).
pub fn decode_chat_stream<S, B>(bytes: S) -> ChatStream
where
    S: Stream<Item = Result<B, ApiError>> + Send + 'static,
    B: AsRef<[u8]> + Send + 'static,
{
    // `Cursor<B>` is a byte buffer `sse_stream` can read without copying the piece.
    let events = sse_stream::SseByteStream::new(bytes.map_ok(std::io::Cursor::new));
    let state = Decoder {
        events: Box::pin(events),
        usage: None,
        finish_reason: None,
        ended: false,
    };
    futures_util::stream::unfold(state, |mut state| async move {
        let item = state.next_item().await?;
        Some((item, state))
    })
    .boxed()
}

struct Decoder<E> {
    events: std::pin::Pin<Box<E>>,
    usage: Option<ChatUsage>,
    finish_reason: Option<String>,
    ended: bool,
}

impl<E> Decoder<E>
where
    E: Stream<Item = Result<sse_stream::Sse, sse_stream::Error>>,
{
    /// The next text piece, the end, or an error; `None` once ended.
    async fn next_item(&mut self) -> Option<Result<StreamItem, ApiError>> {
        if self.ended {
            return None;
        }
        loop {
            let event = match self.events.next().await {
                Some(Ok(event)) => event,
                Some(Err(error)) => return self.end(Err(sse_error(error))),
                None if self.finish_reason.is_some() => {
                    // Finished but the `[DONE]` line was lost: the answer is complete.
                    return self.end(Ok(self.finished()));
                }
                None => {
                    return self.end(Err(ApiError::NoResponse(
                        "the answer stopped before it was complete".into(),
                    )));
                }
            };
            // Comments, retry/id-only blocks and empty data carry nothing.
            let Some(data) = event.data.filter(|d| !d.trim().is_empty()) else {
                continue;
            };
            match parse_data(&data) {
                Ok(StreamData::Done) => return self.end(Ok(self.finished())),
                Ok(StreamData::Error(body)) => return self.end(Err(body.into_error())),
                Ok(StreamData::Chunk(chunk)) => {
                    if let Some(usage) = &chunk.usage {
                        self.usage = Some(usage.0.clone());
                    }
                    if let Some(reason) = chunk.finish_reason() {
                        self.finish_reason = Some(reason.to_owned());
                    }
                    let text = chunk.text();
                    if !text.is_empty() {
                        return Some(Ok(StreamItem::Text(text)));
                    }
                }
                Err(error) => return self.end(Err(error)),
            }
        }
    }

    fn finished(&self) -> StreamItem {
        StreamItem::Finished {
            usage: self.usage.clone(),
            finish_reason: self.finish_reason.clone(),
        }
    }

    fn end(&mut self, item: Result<StreamItem, ApiError>) -> Option<Result<StreamItem, ApiError>> {
        self.ended = true;
        Some(item)
    }
}

/// A decoder failure: the byte stream's own error when it was one, else a decode error.
fn sse_error(error: sse_stream::Error) -> ApiError {
    match error {
        sse_stream::Error::Body(inner) => match inner.downcast::<ApiError>() {
            Ok(api_error) => *api_error,
            Err(other) => ApiError::NoResponse(other.to_string()),
        },
        other => ApiError::Decode(format!("the streamed answer could not be read: {other}")),
    }
}

/// Everything a finished stream said: the whole text and the usage. An error stops it.
pub async fn collect_chat_stream(
    mut stream: ChatStream,
) -> Result<(String, Option<ChatUsage>), ApiError> {
    let mut text = String::new();
    while let Some(item) = stream.next().await {
        match item? {
            StreamItem::Text(piece) => text.push_str(&piece),
            StreamItem::Finished { usage, .. } => return Ok((text, usage)),
        }
    }
    Err(ApiError::NoResponse(
        "the answer stopped before it was complete".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn decode(pieces: Vec<&'static str>) -> Result<(String, Option<ChatUsage>), ApiError> {
        let stream =
            futures_util::stream::iter(pieces.into_iter().map(|p| Ok::<_, ApiError>(p.as_bytes())));
        collect_chat_stream(decode_chat_stream(stream)).await
    }

    #[tokio::test]
    async fn an_error_event_ends_the_stream_with_its_message() {
        let error = decode(vec![
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n",
            "data: {\"error\":{\"type\":\"insufficient_credits\",\"message\":\"Balance too low\"}}\n\n",
        ])
        .await
        .unwrap_err();
        assert_eq!(error.status(), Some(402));
        assert_eq!(error.code(), Some("insufficient_credits"));
        assert!(error.to_string().contains("credits"), "{error}");
    }

    #[tokio::test]
    async fn an_end_without_done_or_finish_is_an_error_but_a_finish_is_enough() {
        let cut = decode(vec![
            "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n",
        ])
        .await;
        assert!(matches!(cut, Err(ApiError::NoResponse(_))));
        let finished = decode(vec![
            ": keep-alive\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n",
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1,\"total_tokens\":4,\"cost\":0.1}}\n\n",
        ])
        .await
        .unwrap();
        assert_eq!(finished.0, "Hi");
        assert_eq!(finished.1.unwrap().cost_credits, Some(0.1));
    }

    #[tokio::test]
    async fn garbage_data_is_a_decode_error() {
        assert!(matches!(
            decode(vec!["data: {not json\n\n"]).await,
            Err(ApiError::Decode(_))
        ));
    }
}
