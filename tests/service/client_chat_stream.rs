//! Streamed chat completions, client side.
//!
//! The decoder: a recorded SSE body (tests/fixtures/chat/stream_recorded.sse: several
//! chunks with multi-byte UTF-8, a keep-alive comment, the usage chunk, `[DONE]`) split at
//! every byte boundary, byte by byte and in random pieces gives the same text pieces and
//! usage. This drives the very function the client feeds reqwest's byte stream into.
//!
//! Then the client against a real sandbox over HTTP: models without a key, the balance,
//! an upload of a fixture photo with progress and dedup, a streamed answer equal to the
//! synchronous one, an image part, a wrong key refused in words.

use crate::service_support;

use framewright::api::code_assistant::{
    ChatMessage, ChatRequest, ChatRole, ChatUsage, CodeAssistantClient, ContentPart, StreamItem,
    collect_chat_stream, decode_chat_stream,
};
use framewright::api::{ApiError, TransferCounter};
use futures_util::StreamExt;
use service_support::{LocalService, client, client_with_key, local_service};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

const RECORDED: &str = include_str!("../fixtures/chat/stream_recorded.sse");

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

// ---------------------------------------------------------------------------------------
// Against a real sandbox over HTTP
// ---------------------------------------------------------------------------------------

/// Fast replies (the sandbox paces chunks; 50× keeps each reply well under a second).
const SANDBOX_SPEED: f64 = 50.0;
const PHOTO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/fixtures/photos/rocket.jpg"
);

fn assistant(service: &LocalService) -> CodeAssistantClient {
    client(service).code_assistant()
}

fn ask(model: &str, parts: Vec<ContentPart>) -> ChatRequest {
    ChatRequest {
        model: model.to_owned(),
        messages: vec![
            ChatMessage::text(ChatRole::System, "You are a helpful coding assistant."),
            ChatMessage {
                role: ChatRole::User,
                parts,
            },
        ],
        max_tokens: None,
    }
}

#[tokio::test]
async fn models_need_no_key_and_the_balance_adds_up() {
    let service = local_service(SANDBOX_SPEED);
    let without_key = client_with_key(&service, "not-a-key").code_assistant();
    let models = without_key
        .models()
        .await
        .expect("models without a valid key");
    assert!(models.len() >= 3, "{models:?}");
    assert!(models.iter().any(|m| !m.supports_vision));
    assert!(models.iter().any(|m| m.supports_vision));
    for model in &models {
        assert!(
            !model.name.is_empty() && model.context_length > 0,
            "{model:?}"
        );
        assert!(model.prompt_credits_per_token > 0.0 && model.completion_credits_per_token > 0.0);
    }
    let balance = assistant(&service).balance().await.expect("balance");
    assert_eq!(balance.reserved, 0.0, "nothing is streaming");
    assert_eq!(balance.available + balance.reserved, balance.total);
    assert_eq!(balance.available, service.sandbox.credits_available());
}

#[tokio::test]
async fn a_wrong_key_is_said_in_words() {
    let service = local_service(SANDBOX_SPEED);
    let wrong = client_with_key(&service, "kolbo_live_wrong").code_assistant();
    let model = assistant(&service).models().await.expect("models")[0]
        .id
        .clone();
    let error = match wrong
        .stream(&ask(&model, vec![ContentPart::Text("hi".into())]))
        .await
    {
        Ok(_) => panic!("a wrong key must be refused"),
        Err(error) => error,
    };
    assert_eq!(error.status(), Some(401));
    assert_eq!(error.code(), Some("auth_error"));
    let words = error.to_string();
    assert!(words.starts_with("The API key was not accepted"), "{words}");
    let balance_error = wrong.balance().await.expect_err("balance with a wrong key");
    assert!(
        balance_error.to_string().contains("check the key"),
        "{balance_error}"
    );
}

#[tokio::test]
async fn a_photo_uploads_with_progress_and_its_url_needs_no_key() {
    let service = local_service(SANDBOX_SPEED);
    let size_bytes = std::fs::metadata(PHOTO).expect("fixture photo").len();
    let counter = Arc::new(TransferCounter::default());
    let file = assistant(&service)
        .upload_file(Path::new(PHOTO), Some(counter.clone()))
        .await
        .expect("upload");
    // Every byte of the file was counted as it went out.
    assert_eq!(counter.bytes_total.load(Ordering::Relaxed), size_bytes);
    assert_eq!(counter.bytes_done.load(Ordering::Relaxed), size_bytes);
    assert!(file.id.starts_with("file_"), "{file:?}");
    assert_eq!(file.mime_type, "image/jpeg");
    assert_eq!(file.expires_at, file.created + 86_400);
    assert!(
        file.url
            .starts_with(service.sandbox.base_url().trim_end_matches("/api"))
    );
    // The same bytes again: the earlier record comes back.
    let again = assistant(&service)
        .upload_file(Path::new(PHOTO), None)
        .await
        .expect("second upload");
    assert!(again.deduplicated);
    assert_eq!(again.id, file.id);
    // The file URL is public: fetched with no key at all.
    let fetched = reqwest::get(&file.url).await.expect("file URL");
    assert!(fetched.status().is_success(), "{}", fetched.status());
    assert_eq!(
        fetched.bytes().await.expect("bytes").len() as u64,
        file.bytes
    );
}

#[tokio::test]
async fn a_streamed_answer_equals_the_synchronous_one() {
    let service = local_service(SANDBOX_SPEED);
    let assistant = assistant(&service);
    let model = assistant.models().await.expect("models")[0].id.clone();
    let request = ask(
        &model,
        vec![ContentPart::Text(
            "How do I read a file line by line in Rust?".into(),
        )],
    );
    let synchronous = assistant.complete(&request).await.expect("completion");
    assert!(!synchronous.text.is_empty());
    let mut stream = assistant.stream(&request).await.expect("stream");
    let mut pieces = Vec::new();
    let mut usage = None;
    while let Some(item) = stream.next().await {
        match item.expect("stream item") {
            StreamItem::Text(piece) => pieces.push(piece),
            StreamItem::Finished {
                usage: final_usage, ..
            } => usage = final_usage,
        }
    }
    assert!(pieces.len() > 1, "the answer arrives in several chunks");
    assert_eq!(pieces.concat(), synchronous.text);
    let usage = usage.expect("usage in the last chunk");
    let expected = synchronous.usage.expect("synchronous usage");
    assert_eq!(usage.completion_tokens, expected.completion_tokens);
    assert_eq!(usage.prompt_tokens, expected.prompt_tokens);
    assert!(usage.cost_credits.is_some_and(|c| c >= 0.1));
}

#[tokio::test]
async fn an_image_part_is_described_by_its_size() {
    let service = local_service(SANDBOX_SPEED);
    let assistant = assistant(&service);
    let vision_model = assistant
        .models()
        .await
        .expect("models")
        .into_iter()
        .find(|m| m.supports_vision)
        .expect("a vision model")
        .id;
    let file = assistant
        .upload_file(Path::new(PHOTO), None)
        .await
        .expect("upload");
    let (width, height) = image::image_dimensions(PHOTO).expect("photo size");
    let request = ask(
        &vision_model,
        vec![
            ContentPart::Text("What is in this picture?".into()),
            ContentPart::ImageUrl(file.url.clone()),
        ],
    );
    let (text, usage) = collect_chat_stream(assistant.stream(&request).await.expect("stream"))
        .await
        .expect("answer");
    assert!(
        text.contains(&format!("{width} × {height} px")),
        "the answer describes the attached image: {text}"
    );
    assert!(usage.is_some());
}
