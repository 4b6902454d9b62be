//! Every published wire example decodes into the client's types, with the values the
//! examples carry. A new `.json` that no case handles fails `every_example_is_covered`.

use framewright::api::visual_dna::{DnaType, VisualDnaEnvelope, VisualDnaList};
use framewright::api::{
    ApiError, ChatConversationsPage, ChatMessagesPage, ChatRole, CreditsResponse, JobState,
    ModelsResponse, StatusResponse, SubmitResponse,
};
use reqwest::header::HeaderMap;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/wire-examples")
}

fn read(name: &str) -> String {
    let path = examples_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn submit(name: &str) -> SubmitResponse {
    serde_json::from_str(&read(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn status(name: &str) -> StatusResponse {
    serde_json::from_str(&read(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Decode an error example exactly as the client does, for the given HTTP status.
fn error(name: &str, http_status: u16) -> ApiError {
    ApiError::from_response(http_status, &HeaderMap::new(), read(name).as_bytes())
        .unwrap_or_else(|| panic!("{name} was not read as an error"))
}

/// Every `.json` example and the case that checks it.
const CASES: &[(&str, fn())] = &[
    ("delete_visual_dna.json", delete_visual_dna),
    (
        "error_400_model_not_found__live.json",
        error_model_not_found,
    ),
    ("error_429_rate_limited.json", error_rate_limited),
    ("error_generic_format.json", error_generic),
    (
        "error_insufficient_credits.json",
        error_insufficient_credits,
    ),
    ("get_account_credits.json", account_credits),
    ("get_chat_conversation_messages.json", chat_messages),
    ("get_chat_conversations.json", chat_conversations),
    ("get_models.json", models),
    ("get_visual_dna_by_id.json", visual_dna_by_id),
    ("get_visual_dna_list.json", visual_dna_list),
    ("get_voices.json", voices),
    ("kolbo_code_get_balance__live.json", coding_balance),
    ("post_api_keys_create.json", api_key_create),
    ("post_chat_conversations_submit.json", chat_submit),
    ("post_chat_stateless.json", chat_stateless),
    (
        "post_generate_creative_director_submit.json",
        creative_director_submit,
    ),
    ("post_generate_image_edit_submit.json", image_edit_submit),
    ("post_generate_image_submit.json", image_submit),
    (
        "post_generate_image_submit__overview.json",
        image_submit_overview,
    ),
    ("post_generate_music_submit.json", music_submit),
    ("post_generate_sound_submit.json", sound_submit),
    ("post_generate_speech_submit.json", speech_submit),
    ("post_generate_video_submit.json", video_submit),
    ("post_visual_dna.json", visual_dna_create),
    ("status_completed__overview_image.json", status_overview),
    (
        "status_completed__overview_image__live.json",
        status_overview_live,
    ),
    ("status_completed_image.json", status_image),
    ("status_completed_image_edit.json", status_image_edit),
    ("status_completed_music.json", status_music),
    ("status_completed_sound.json", status_sound),
    ("status_completed_speech.json", status_speech),
    ("status_completed_video.json", status_video),
    (
        "status_creative_director_completed.json",
        creative_director_completed,
    ),
    (
        "status_creative_director_processing.json",
        creative_director_processing,
    ),
    ("status_failed_failure_envelope.json", status_failed),
];

#[test]
fn every_example_is_covered() {
    let dir = examples_dir();
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    let handled: BTreeSet<String> = CASES.iter().map(|(name, _)| (*name).to_owned()).collect();
    let missing: Vec<_> = on_disk.difference(&handled).collect();
    assert!(
        missing.is_empty(),
        "wire examples without a decoding case: {missing:?}"
    );
    let stale: Vec<_> = handled.difference(&on_disk).collect();
    assert!(
        stale.is_empty(),
        "cases for examples that no longer exist: {stale:?}"
    );
}

#[test]
fn every_example_decodes() {
    for (name, case) in CASES {
        let outcome = std::panic::catch_unwind(case);
        assert!(outcome.is_ok(), "wire example {name} failed");
    }
}

/// The two `.txt` examples are not JSON; their JSON parts still read.
#[test]
fn text_examples_parts_decode() {
    let chat = read("chat_error_responses_with_comments.txt");
    let objects: Vec<&str> = chat
        .split("\n\n")
        .map(|block| {
            let start = block.find('{').expect("object");
            &block[start..]
        })
        .collect();
    let first =
        ApiError::from_response(402, &HeaderMap::new(), objects[0].as_bytes()).expect("error");
    assert_eq!(first.code(), Some("INSUFFICIENT_CREDITS"));
    assert_eq!(first.status(), Some(402));
    let second =
        ApiError::from_response(400, &HeaderMap::new(), objects[1].as_bytes()).expect("error");
    assert_eq!(second.code(), Some("INVALID_MODEL"));
    assert!(
        second
            .to_string()
            .contains("not found or not available for chat")
    );

    // The partial credits example, with its "..." placeholders removed.
    let partial = read("status_completed_credits_fields_partial.txt")
        .replace(", ... }", " }")
        .replace("[...]", "[]");
    let decoded: StatusResponse = serde_json::from_str(&partial).expect("partial status");
    assert_eq!(decoded.credits_used, Some(12.0));
    assert_eq!(decoded.credits_breakdown.len(), 1);
    assert_eq!(
        decoded.credits_breakdown[0].model.as_deref(),
        Some("nano-banana-2")
    );
    assert_eq!(decoded.credits_breakdown[0].base, Some(8.0));
    assert_eq!(decoded.credits_breakdown[0].final_amount, Some(12.0));
}

// ------------------------------------------------------------------------------------------
// Errors
// ------------------------------------------------------------------------------------------

fn error_model_not_found() {
    let e = error("error_400_model_not_found__live.json", 400);
    assert_eq!(e.status(), Some(400));
    assert_eq!(e.code(), Some("MODEL_NOT_FOUND"));
    assert_eq!(e.to_string(), "Model not found (400 MODEL_NOT_FOUND)");
    assert!(!e.is_transient());
}

fn error_rate_limited() {
    let e = error("error_429_rate_limited.json", 429);
    assert!(e.is_rate_limited() && e.is_transient());
    assert_eq!(e.code(), None);
    assert!(
        e.to_string()
            .starts_with("Too many requests, please try again later")
    );
    // The same body with the standard header gives a retry time.
    let mut headers = HeaderMap::new();
    headers.insert("RateLimit-Reset", "42".parse().expect("header"));
    let e = ApiError::from_response(
        429,
        &headers,
        read("error_429_rate_limited.json").as_bytes(),
    )
    .expect("error");
    assert_eq!(e.retry_after_secs(), Some(42.0));
}

fn error_generic() {
    let e = error("error_generic_format.json", 500);
    assert_eq!(e.code(), Some("ERROR_CODE"));
    assert!(e.to_string().starts_with("Human-readable error message"));
    // The same body on a 2xx is a failure too.
    let e = error("error_generic_format.json", 200);
    assert_eq!(e.status(), Some(200));
}

fn error_insufficient_credits() {
    // The contract says 403; the chat docs say 402: both are read the same way.
    for http_status in [403, 402] {
        let e = error("error_insufficient_credits.json", http_status);
        assert_eq!(e.code(), Some("INSUFFICIENT_CREDITS"));
        assert_eq!(
            e.to_string(),
            format!("Insufficient credits ({http_status} INSUFFICIENT_CREDITS)")
        );
        assert!(!e.is_transient());
    }
}

// ------------------------------------------------------------------------------------------
// Catalog and account
// ------------------------------------------------------------------------------------------

fn models() {
    let r: ModelsResponse = serde_json::from_str(&read("get_models.json")).expect("models");
    assert_eq!(r.success, Some(true));
    assert_eq!(r.count, Some(42));
    assert_eq!(r.models.len(), 1);
    let m = &r.models[0];
    assert_eq!(m.identifier, "fal-ai/flux/schnell");
    assert_eq!(m.display_name(), "Flux Schnell");
    assert_eq!(m.types, vec!["text_to_img"]);
    assert_eq!(m.credit, Some(2.0));
    assert_eq!(m.supported_aspect_ratios.len(), 5);
    assert!(m.supported_durations.is_empty(), "null list reads as empty");
    assert_eq!(m.max_reference_images, Some(8));
    assert_eq!(m.recommended, Some(true));
    assert_eq!(m.max_prompt_chars(), 2000, "contract default");
}

fn account_credits() {
    let r: CreditsResponse =
        serde_json::from_str(&read("get_account_credits.json")).expect("credits");
    assert_eq!(r.success, Some(true));
    assert_eq!(r.credits.total, Some(1500.0));
    assert_eq!(r.credits.plan_credits, Some(1000.0));
    assert_eq!(r.credits.credit_pack, Some(400.0));
    assert_eq!(r.credits.redemption, Some(100.0));
    assert_eq!(r.credits.spendable(), Some(1500.0));
}

fn coding_balance() {
    // A bare balance object reads as credits too.
    let r: CreditsResponse =
        serde_json::from_str(&read("kolbo_code_get_balance__live.json")).expect("balance");
    assert_eq!(r.credits.available, Some(8340.0));
    assert_eq!(r.credits.reserved, Some(0.0));
    assert_eq!(r.credits.total, Some(8340.0));
}

#[derive(Deserialize)]
struct ApiKeyCreated {
    status: bool,
    #[serde(rename = "fullKey")]
    full_key: String,
    data: Value,
}

fn api_key_create() {
    let r: ApiKeyCreated =
        serde_json::from_str(&read("post_api_keys_create.json")).expect("api key");
    assert!(r.status);
    assert!(r.full_key.starts_with("kolbo_live_"));
    assert_eq!(r.data["permissions"], serde_json::json!(["read", "write"]));
    // A `status: true` body is a success for the shared error check.
    assert_eq!(
        ApiError::from_response(
            201,
            &HeaderMap::new(),
            read("post_api_keys_create.json").as_bytes()
        ),
        None
    );
}

fn voices() {
    // The client's own type (GET /v1/voices).
    let r: framewright::api::audio::VoicesResponse =
        serde_json::from_str(&read("get_voices.json")).expect("voices");
    assert_eq!(r.success, Some(true));
    assert_eq!(r.count, Some(152));
    assert_eq!(r.voices.len(), 2);
    let rachel = &r.voices[0];
    assert_eq!(rachel.voice_id, "EXAVITQu4vr4xnSDxMaL");
    assert_eq!(rachel.name, "Rachel");
    assert_eq!(rachel.styles, vec!["conversational", "calm"]);
    assert_eq!(rachel.summary(), "English · Female · American");
    // The example's "https://..." is a placeholder, not something to play.
    assert_eq!(rachel.playable_preview_url(), None);
    let custom = &r.voices[1];
    assert!(custom.is_custom());
    assert_eq!(custom.language_code, None);
    assert_eq!(custom.gender, None);
    assert_eq!(custom.summary(), "");
}

// ------------------------------------------------------------------------------------------
// Visual DNA and chat (not typed by the client yet)
// ------------------------------------------------------------------------------------------

fn visual_dna_by_id() {
    let v: Value = serde_json::from_str(&read("get_visual_dna_by_id.json")).expect("json");
    let envelope: VisualDnaEnvelope = serde_json::from_value(v).expect("visual dna");
    let dna = envelope.visual_dna.expect("visual dna");
    assert_eq!(dna.id, "6601a1b2c3d4e5f6a7b8c9d0");
    assert_eq!(dna.name, "Emma");
    assert_eq!(dna.kind(), Some(DnaType::Character));
    assert!(!dna.is_global());
    assert!(dna.system_prompt.is_some_and(|p| !p.is_empty()));
}

fn visual_dna_list() {
    let v: Value = serde_json::from_str(&read("get_visual_dna_list.json")).expect("json");
    let list: VisualDnaList = serde_json::from_value(v).expect("list");
    assert_eq!(list.visual_dnas.len(), 1);
    assert_eq!(list.count, Some(1));
    assert_eq!(list.visual_dnas[0].images.len(), 1);
    assert!(!list.visual_dnas[0].is_building());
}

fn visual_dna_create() {
    let v: Value = serde_json::from_str(&read("post_visual_dna.json")).expect("json");
    let envelope: VisualDnaEnvelope = serde_json::from_value(v).expect("visual dna");
    let dna = envelope.visual_dna.expect("visual dna");
    assert_eq!(dna.name, "Emma");
    assert!(dna.thumbnail_url.is_some());
}

fn delete_visual_dna() {
    let body = read("delete_visual_dna.json");
    assert_eq!(
        ApiError::from_response(200, &HeaderMap::new(), body.as_bytes()),
        None
    );
    let v: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(v["message"], "Visual DNA deleted successfully");
}

fn chat_submit() {
    // Chat calls the handle `message_id`; the submit type reads it as the job handle.
    let r = submit("post_chat_conversations_submit.json");
    assert_eq!(r.generation_id.as_deref(), Some("abc123"));
    assert_eq!(r.kind.as_deref(), Some("chat"));
    assert_eq!(r.model.as_deref(), Some("auto"));
    assert_eq!(
        r.poll_url.as_deref(),
        Some("/api/v1/generate/abc123/status")
    );
    assert_eq!(r.poll_interval_hint, Some(2.0));
    assert_eq!(r.session_id.as_deref(), Some("def456"));
    assert!(!r.is_finished_answer(), "a handle to poll");
}

fn chat_stateless() {
    // The older synchronous answer: no handle, the answer itself — a job finished at once.
    let r = submit("post_chat_stateless.json");
    assert!(r.is_finished_answer());
    assert_eq!(r.generation_id, None);
    assert_eq!(r.success, Some(true));
    assert_eq!(r.model.as_deref(), Some("gpt-4o"));
    assert_eq!(r.credits_used, Some(2.0));
    assert!(
        r.content
            .as_deref()
            .is_some_and(|c| c.starts_with("Quantum computing uses quantum bits"))
    );
}

fn chat_conversations() {
    let page: ChatConversationsPage =
        serde_json::from_str(&read("get_chat_conversations.json")).expect("conversations");
    assert_eq!(page.success, Some(true));
    assert_eq!(page.conversations.len(), 1);
    let conversation = &page.conversations[0];
    assert_eq!(conversation.session_id, "def456");
    assert_eq!(conversation.name, "API Chat - 2026-03-10");
    assert_eq!(
        conversation.last_activity.as_deref(),
        Some("2026-03-10T10:30:00Z")
    );
    assert_eq!(
        conversation.created_at.as_deref(),
        Some("2026-03-10T09:00:00Z")
    );
    assert_eq!(
        (
            page.pagination.page,
            page.pagination.limit,
            page.pagination.total,
            page.pagination.pages
        ),
        (Some(1), Some(20), Some(1), Some(1))
    );
    assert!(!page.pagination.has_more_after(1));
}

fn chat_messages() {
    let page: ChatMessagesPage =
        serde_json::from_str(&read("get_chat_conversation_messages.json")).expect("messages");
    assert_eq!(page.session_id.as_deref(), Some("def456"));
    assert_eq!(page.messages.len(), 2);
    let (question, answer) = (&page.messages[0], &page.messages[1]);
    assert_eq!(question.message_id, "msg1");
    assert_eq!(question.role, ChatRole::User);
    assert_eq!(question.content, "Explain quantum computing");
    assert_eq!(question.status, JobState::Completed);
    assert_eq!(question.model, None);
    assert_eq!(answer.message_id, "msg2");
    assert_eq!(answer.role, ChatRole::Assistant);
    assert_eq!(answer.content, "Quantum computing uses quantum bits...");
    let model = answer.model.as_ref().expect("model");
    assert_eq!(model.identifier, "gpt-4o");
    assert_eq!(model.display_name(), "GPT-4o");
    assert_eq!(model.provider.as_deref(), Some("openai"));
    assert_eq!(answer.created_at.as_deref(), Some("2026-03-10T10:30:05Z"));
    assert_eq!(page.pagination.total, Some(2));
    assert_eq!(page.pagination.limit, Some(50));
}

// ------------------------------------------------------------------------------------------
// Submit answers
// ------------------------------------------------------------------------------------------

fn image_submit() {
    let r = submit("post_generate_image_submit.json");
    assert_eq!(r.success, Some(true));
    assert_eq!(r.generation_id.as_deref(), Some("abc123"));
    assert_eq!(r.kind.as_deref(), Some("image"));
    assert_eq!(r.model.as_deref(), Some("fal-ai/flux/schnell"));
    assert_eq!(r.credits_charged, Some(2.0));
    assert_eq!(
        r.poll_url.as_deref(),
        Some("/api/v1/generate/abc123/status")
    );
    assert_eq!(r.poll_interval_hint, Some(3.0));
}

fn image_submit_overview() {
    let r = submit("post_generate_image_submit__overview.json");
    assert_eq!(r.generation_id.as_deref(), Some("abc123"));
    assert_eq!(r.model, None);
    assert_eq!(r.credits_charged, None);
    assert_eq!(r.poll_interval_hint, Some(3.0));
}

fn image_edit_submit() {
    let r = submit("post_generate_image_edit_submit.json");
    assert_eq!(r.generation_id.as_deref(), Some("edit123"));
    assert_eq!(r.kind.as_deref(), Some("image_edit"));
    assert_eq!(r.model.as_deref(), Some("auto"));
    assert_eq!(r.credits_charged, Some(3.0));
    assert_eq!(r.poll_interval_hint, Some(3.0));
}

fn creative_director_submit() {
    let r = submit("post_generate_creative_director_submit.json");
    assert_eq!(r.generation_id.as_deref(), Some("cd123"));
    assert_eq!(r.scene_count, Some(4));
    assert_eq!(r.poll_interval_hint, Some(5.0));
    assert_eq!(
        r.poll_url.as_deref(),
        Some("/api/v1/generate/creative-director/cd123/status")
    );
}

fn music_submit() {
    let r = submit("post_generate_music_submit.json");
    assert_eq!(r.generation_id.as_deref(), Some("mus123"));
    assert_eq!(r.model.as_deref(), Some("chirp-v4"));
    assert_eq!(r.credits_charged, Some(10.0));
    assert_eq!(r.poll_interval_hint, Some(8.0));
}

fn sound_submit() {
    let r = submit("post_generate_sound_submit.json");
    assert_eq!(r.generation_id.as_deref(), Some("snd123"));
    assert_eq!(r.poll_interval_hint, Some(5.0));
    assert_eq!(r.credits_charged, Some(5.0));
}

fn speech_submit() {
    // The docs say 3 here where the contract says 8: whatever is sent is used.
    let r = submit("post_generate_speech_submit.json");
    assert_eq!(r.generation_id.as_deref(), Some("tts123"));
    assert_eq!(r.model.as_deref(), Some("eleven_v3"));
    assert_eq!(r.poll_interval_hint, Some(3.0));
}

fn video_submit() {
    let r = submit("post_generate_video_submit.json");
    assert_eq!(r.generation_id.as_deref(), Some("vid123"));
    assert_eq!(r.kind.as_deref(), Some("video"));
    assert_eq!(r.credits_charged, Some(35.0));
    assert_eq!(r.poll_interval_hint, Some(8.0));
}

// ------------------------------------------------------------------------------------------
// Status answers
// ------------------------------------------------------------------------------------------

fn completed(name: &str) -> StatusResponse {
    let s = status(name);
    assert_eq!(s.state, JobState::Completed, "{name}");
    assert!(s.state.is_terminal());
    assert_eq!(s.progress, Some(100.0), "{name}");
    assert!(
        s.result.as_ref().is_some_and(|r| !r.urls.is_empty()),
        "{name}: urls"
    );
    s
}

fn status_overview() {
    let s = completed("status_completed__overview_image.json");
    let result = s.result.expect("result");
    assert_eq!(result.model.as_deref(), Some("fal-ai/flux/schnell"));
    assert_eq!(
        result.prompt_used.as_deref(),
        Some("A breathtaking sunset...")
    );
}

fn status_overview_live() {
    let s = completed("status_completed__overview_image__live.json");
    assert_eq!(s.result.expect("result").model.as_deref(), Some("auto"));
}

fn status_image() {
    let s = completed("status_completed_image.json");
    assert_eq!(s.kind.as_deref(), Some("image"));
    assert_eq!(s.generation_id.as_deref(), Some("abc123"));
    let result = s.result.expect("result");
    assert_eq!(result.urls, vec!["https://cdn.kolbo.ai/images/..."]);
    assert_eq!(result.created_at.as_deref(), Some("2026-03-05T10:30:00Z"));
}

fn status_image_edit() {
    let s = completed("status_completed_image_edit.json");
    assert_eq!(s.kind.as_deref(), Some("image_edit"));
    assert_eq!(s.generation_id.as_deref(), Some("edit123"));
}

fn status_music() {
    let s = completed("status_completed_music.json");
    let result = s.result.expect("result");
    assert_eq!(result.duration, Some(120.0));
    assert_eq!(result.title.as_deref(), Some("Summer Vibes"));
    // No `variations` in the example: one track per URL with the shared title and lyrics.
    let tracks = result.audio_tracks();
    assert_eq!(tracks.len(), 1);
    assert_eq!(tracks[0].title.as_deref(), Some("Summer Vibes"));
    assert_eq!(
        tracks[0].lyrics.as_deref(),
        Some("Generated or provided lyrics...")
    );
    assert_eq!(tracks[0].duration, Some(120.0));
}

fn status_sound() {
    let s = completed("status_completed_sound.json");
    let result = s.result.expect("result");
    assert_eq!(result.model.as_deref(), Some("elevenlabs-sound"));
    assert_eq!(result.duration, Some(8.0));
}

fn status_speech() {
    let s = completed("status_completed_speech.json");
    let result = s.result.expect("result");
    assert_eq!(result.duration, Some(4.5));
    assert_eq!(result.voice.as_deref(), Some("Rachel"));
}

fn status_video() {
    let s = completed("status_completed_video.json");
    let result = s.result.expect("result");
    assert_eq!(
        result.thumbnail_url.as_deref(),
        Some("https://cdn.kolbo.ai/thumbs/...")
    );
    assert_eq!(result.duration, Some(5.0));
    assert_eq!(result.aspect_ratio.as_deref(), Some("16:9"));
    assert_eq!(result.model.as_deref(), Some("seedance-1.0"));
}

fn creative_director_completed() {
    let s = status("status_creative_director_completed.json");
    assert_eq!(s.state, JobState::Completed);
    assert_eq!(s.result, None, "scenes carry the images");
    assert_eq!(s.scenes.len(), 4);
    assert_eq!(s.scenes[0].scene_number, Some(1));
    assert_eq!(s.scenes[3].title.as_deref(), Some("Brand Statement"));
    assert!(s.scenes.iter().all(|scene| scene.image_urls.len() == 1));
}

fn creative_director_processing() {
    let s = status("status_creative_director_processing.json");
    assert_eq!(s.state, JobState::Processing);
    assert!(!s.state.is_terminal());
    assert_eq!(s.progress, Some(50.0));
    assert_eq!(s.scenes[2].progress, Some(60.0));
    assert_eq!(s.scenes[3].status.as_deref(), Some("pending"));
    assert!(s.scenes[3].image_urls.is_empty());
}

fn status_failed() {
    let s = status("status_failed_failure_envelope.json");
    assert_eq!(s.state, JobState::Failed);
    let failure = s.failure.clone().expect("failure");
    assert_eq!(failure.retryable, Some(false));
    assert_eq!(failure.code.as_deref(), Some("CONTENT_FLAGGED_SENSITIVE"));
    assert_eq!(failure.category.as_deref(), Some("content_policy"));
    assert_eq!(failure.provider.as_deref(), Some("kie-nano-banana"));
    assert_eq!(failure.message, s.error.clone().expect("error"));
    assert!(
        s.failure_message()
            .is_some_and(|m| m.starts_with("The input or output was flagged"))
    );
}
