//! `stream: true`: Server-Sent Events, exactly one JSON chunk per `data:` line. The first
//! chunk's delta carries the role, then a few tokens per chunk at the model's pace, then an
//! empty delta with the `finish_reason` (`"stop"`, or `"length"` when the token cap cut the
//! answer). With `stream_options.include_usage` every chunk carries `usage: null` and one
//! more chunk follows with `choices: []` and the usage (the industry-standard schema);
//! without it no chunk names usage. Then `data: [DONE]`. If the client goes away, the
//! stream (and with it the [`Settlement`]) is dropped and only the tokens already sent are
//! billed.

use std::collections::VecDeque;
use std::convert::Infallible;

use axum::response::sse::{Event, Sse};
use futures_util::Stream;
use serde_json::{Value, json};

use super::completions::{Chunk, Completion};
use super::settlement::{Settlement, Usage};

enum Next {
    Role,
    Content,
    Usage(Usage),
    Done,
    End,
}

struct Progress {
    id: String,
    created_secs: i64,
    model_id: &'static str,
    chunks: VecDeque<Chunk>,
    interval: std::time::Duration,
    settlement: Settlement,
    finish_reason: &'static str,
    include_usage: bool,
    next: Next,
}

impl Progress {
    fn chunk(&self, delta: Value, finish_reason: Option<&str>) -> Value {
        self.with_choices(
            json!([{"index": 0, "delta": delta, "finish_reason": finish_reason}]),
            None,
        )
    }

    /// A chunk with these choices; `usage` is named only when the client asked for it.
    fn with_choices(&self, choices: Value, usage: Option<Usage>) -> Value {
        let mut chunk = json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created_secs,
            "model": self.model_id,
            "choices": choices,
        });
        if self.include_usage {
            chunk["usage"] = usage.map_or(Value::Null, Usage::to_json);
        }
        chunk
    }
}

fn data(value: &Value) -> Event {
    Event::default().data(value.to_string())
}

pub(crate) fn respond(
    completion: Completion,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let progress = Progress {
        id: completion.id,
        created_secs: completion.created_secs,
        model_id: completion.model.id,
        chunks: completion.chunks.into(),
        interval: completion.chunk_interval,
        settlement: completion.settlement,
        finish_reason: completion.finish_reason,
        include_usage: completion.include_usage,
        next: Next::Role,
    };
    Sse::new(futures_util::stream::unfold(progress, step))
}

async fn step(mut progress: Progress) -> Option<(Result<Event, Infallible>, Progress)> {
    let event = match progress.next {
        Next::Role => {
            progress.next = Next::Content;
            data(&progress.chunk(json!({"role": "assistant", "content": ""}), None))
        }
        Next::Content => match progress.chunks.pop_front() {
            Some(chunk) => {
                tokio::time::sleep(progress.interval).await;
                progress.settlement.sent(chunk.tokens);
                data(&progress.chunk(json!({"content": chunk.text}), None))
            }
            None => finish(&mut progress),
        },
        Next::Usage(usage) => {
            progress.next = Next::Done;
            data(&progress.with_choices(json!([]), Some(usage)))
        }
        Next::Done => {
            progress.next = Next::End;
            Event::default().data("[DONE]")
        }
        Next::End => return None,
    };
    Some((Ok(event), progress))
}

/// The chunk with the `finish_reason` (empty delta), after settling the bill, or the error
/// event that ends the stream when billing fails.
fn finish(progress: &mut Progress) -> Event {
    match progress.settlement.finish() {
        Ok(usage) => {
            progress.next = if progress.include_usage {
                Next::Usage(usage)
            } else {
                Next::Done
            };
            data(&progress.chunk(json!({}), Some(progress.finish_reason)))
        }
        Err(error) => {
            progress.next = Next::End;
            data(&error.body())
        }
    }
}
