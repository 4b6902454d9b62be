//! Streamed chat completions, client side.
//!
//! The decoder: a recorded SSE body (tests/fixtures/chat/stream_recorded.sse: several
//! chunks with multi-byte UTF-8, a keep-alive comment, the usage chunk, `[DONE]`) split at
//! every byte boundary, byte by byte and in random pieces gives the same text pieces and
//! usage. This drives the very function the client feeds reqwest's byte stream into.

use framewright::api::ApiError;
use framewright::api::code_assistant::{ChatUsage, StreamItem, decode_chat_stream};
use futures_util::StreamExt;

const RECORDED: &str = include_str!("fixtures/chat/stream_recorded.sse");

/// The text pieces the recording carries, one per non-empty delta, in order.
const PIECES: [&str; 14] = [
    "Here",
    "'s a ",
    "café",
    "-style answer ",
    "→",
    " with a list:\n\n",
    "- naïve ",
    "→ fine\n",
    "- 🦀",
    " crab\n\n",
    "```rust\n",
    "fn main() { println!(\"h",
    "éllo\"); }\n",
    "```\n",
];

fn recorded_usage() -> ChatUsage {
    ChatUsage {
        prompt_tokens: 42,
        completion_tokens: 14,
        total_tokens: 56,
        cost_credits: Some(0.2),
    }
}

/// Everything the decoder yields for the body cut into `pieces`.
async fn decode_pieces(pieces: Vec<Vec<u8>>) -> Vec<Result<StreamItem, ApiError>> {
    let input = futures_util::stream::iter(pieces.into_iter().map(Ok::<_, ApiError>));
    decode_chat_stream(input).collect().await
}

/// The body cut at the given byte offsets (sorted, inside the body).
fn cut_at(body: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for &cut in cuts {
        pieces.push(body[start..cut].to_vec());
        start = cut;
    }
    pieces.push(body[start..].to_vec());
    pieces
}

fn expected() -> Vec<Result<StreamItem, ApiError>> {
    let mut items: Vec<Result<StreamItem, ApiError>> = PIECES
        .iter()
        .map(|p| Ok(StreamItem::Text((*p).to_owned())))
        .collect();
    items.push(Ok(StreamItem::Finished {
        usage: Some(recorded_usage()),
        finish_reason: Some("stop".into()),
    }));
    items
}

#[test]
fn the_recording_holds_multi_byte_characters_and_a_usage_chunk() {
    // Guards the fixture itself: the splits below only mean something if characters of
    // two, three and four bytes are in it.
    for needle in [
        "é",
        "→",
        "🦀",
        "\\u00ef",
        "\"usage\"",
        "data: [DONE]",
        ": keep-alive",
    ] {
        assert!(RECORDED.contains(needle), "the recording lacks {needle:?}");
    }
}

#[tokio::test]
async fn whole_body_decodes_to_the_pieces_then_the_usage() {
    let items = decode_pieces(vec![RECORDED.as_bytes().to_vec()]).await;
    assert_eq!(items, expected());
    let text: String = PIECES.concat();
    assert!(text.contains("café-style answer → with a list"));
}

#[tokio::test]
async fn a_split_at_every_byte_boundary_gives_the_same_answer() {
    let body = RECORDED.as_bytes();
    let expected = expected();
    for cut in 1..body.len() {
        let items = decode_pieces(cut_at(body, &[cut])).await;
        assert_eq!(items, expected, "split at byte {cut}");
    }
}

#[tokio::test]
async fn one_byte_at_a_time_gives_the_same_answer() {
    let pieces = RECORDED.as_bytes().iter().map(|b| vec![*b]).collect();
    assert_eq!(decode_pieces(pieces).await, expected());
}

#[tokio::test]
async fn random_chunkings_give_the_same_answer() {
    let body = RECORDED.as_bytes();
    let expected = expected();
    // xorshift64: reproducible pieces without a random-number crate.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..300 {
        let max_piece = 1 + (next() % 64) as usize;
        let mut cuts = Vec::new();
        let mut at = 0;
        loop {
            at += 1 + (next() as usize % max_piece);
            if at >= body.len() {
                break;
            }
            cuts.push(at);
        }
        let items = decode_pieces(cut_at(body, &cuts)).await;
        assert_eq!(items, expected, "round {round}, cuts {cuts:?}");
    }
}

#[tokio::test]
async fn a_body_cut_before_the_end_is_an_error_after_the_text_that_arrived() {
    let body = RECORDED.as_bytes();
    let usage_at = RECORDED.find("\"usage\"").expect("usage chunk");
    let items = decode_pieces(vec![body[..usage_at].to_vec()]).await;
    let (last, texts) = items.split_last().expect("items");
    assert_eq!(texts, &expected()[..PIECES.len()]);
    assert!(
        matches!(last, Err(ApiError::NoResponse(_))),
        "a cut stream is not a finished answer: {last:?}"
    );
}
