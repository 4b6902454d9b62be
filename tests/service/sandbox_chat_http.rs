//! The sandbox's creative chat (the generation-side chat of document 1) over real HTTP,
//! checked with plain JSON values (deliberately not the crate's api types): submit shapes,
//! status polling to the answer and its charge, the conversation list and messages, the
//! refusals of the wire examples, and the "other generation" rate-limit group.
//!
//! One sandbox serves every test. Each test acts as its own directory user, because the
//! 10/min limit and the balance are per user: ana talks, ben uses POST /v1/chat, chloe is
//! refused, dev fills the rate-limit window, and the default user runs out of credits.

use std::sync::OnceLock;
use std::time::Duration;

use crate::service_support;
use service_support::{LocalService, local_service};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Answers take ~3 s at speed 1; here about a tenth of a second.
const FAST: f64 = 30.0;
const POLL_TIMEOUT: Duration = Duration::from_secs(40);

struct Shared {
    service: LocalService,
    ana: String,
    ben: String,
    chloe: String,
    dev: String,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let mut service = local_service(FAST);
        // Tests run on separate runtimes: no pooled connection may outlive its runtime.
        service.http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("client");
        let key = |email: &str| {
            service
                .sandbox
                .create_api_key_for_user(email, false)
                .expect("directory user")
        };
        let (ana, ben, chloe, dev) = (
            key("ana@studio.test"),
            key("ben@studio.test"),
            key("chloe@studio.test"),
            key("dev@studio.test"),
        );
        Shared {
            service,
            ana,
            ben,
            chloe,
            dev,
        }
    })
}

async fn post(key: &str, path: &str, body: Value) -> (StatusCode, Value) {
    shared()
        .service
        .call_as(key, Method::POST, path, Some(body))
        .await
}

async fn get(key: &str, path: &str) -> (StatusCode, Value) {
    shared().service.call_as(key, Method::GET, path, None).await
}

/// The routed default chat model as the catalog describes it (first recommended model of
/// type `text`, else the first) and its record.
async fn default_chat_model(key: &str) -> Value {
    let (status, body) = get(key, "/v1/models?type=chat").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let models = body["models"].as_array().expect("models").clone();
    assert!(models.len() >= 2, "at least two chat models: {body}");
    for model in &models {
        assert!(
            model["types"]
                .as_array()
                .is_some_and(|t| t.contains(&json!("text"))),
            "{model}"
        );
        assert!(model["credit"].as_f64().is_some_and(|c| c > 0.0), "{model}");
    }
    models
        .iter()
        .find(|m| m["recommended"] == json!(true))
        .unwrap_or(&models[0])
        .clone()
}

async fn credit_of(key: &str, identifier: &str) -> f64 {
    let (_, body) = get(key, "/v1/models?type=text").await;
    body["models"]
        .as_array()
        .and_then(|models| models.iter().find(|m| m["identifier"] == json!(identifier)))
        .and_then(|m| m["credit"].as_f64())
        .expect("the model's credit")
}

async fn total_credits(key: &str) -> f64 {
    let (status, body) = get(key, "/v1/account/credits").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["credits"]["total"].as_f64().expect("total")
}

fn is_object_id(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|s| s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Checks a submit answer against post_chat_conversations_submit.json and returns it.
fn assert_submit_shape(status: StatusCode, body: &Value, model_echo: &str) {
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], json!(true), "{body}");
    assert!(is_object_id(&body["message_id"]), "{body}");
    assert!(is_object_id(&body["session_id"]), "{body}");
    assert_eq!(body["type"], json!("chat"));
    assert_eq!(body["model"], json!(model_echo));
    assert_eq!(
        body["poll_url"],
        json!(format!(
            "/api/v1/generate/{}/status",
            body["message_id"].as_str().unwrap_or_default()
        ))
    );
    assert_eq!(body["poll_interval_hint"], json!(2));
}

/// Polls the status route until the job is terminal; every answer on the way.
async fn poll_to_end(key: &str, message_id: &str) -> Vec<Value> {
    let started = std::time::Instant::now();
    let mut seen = Vec::new();
    loop {
        let (status, body) = get(key, &format!("/v1/generate/{message_id}/status")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let state = body["state"].as_str().unwrap_or_default().to_owned();
        seen.push(body);
        if matches!(state.as_str(), "completed" | "failed" | "cancelled") {
            return seen;
        }
        assert!(
            started.elapsed() < POLL_TIMEOUT,
            "chat answer not finished: {seen:?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn a_conversation_is_answered_billed_and_listed() {
    let ana = &shared().ana;
    let default_model = default_chat_model(ana).await;
    let default_id = default_model["identifier"].as_str().expect("identifier");
    let default_credit = default_model["credit"].as_f64().expect("credit");
    let total_before = total_credits(ana).await;

    // A new conversation: model omitted → routed default, echoed "auto".
    let (status, first) = post(
        ana,
        "/v1/chat/conversations",
        json!({"message": "Write a tagline for a harbour at dawn"}),
    )
    .await;
    assert_submit_shape(status, &first, "auto");
    let session_id = first["session_id"].as_str().expect("session").to_owned();
    let first_id = first["message_id"].as_str().expect("id").to_owned();

    let answers = poll_to_end(ana, &first_id).await;
    let done = answers.last().expect("an answer");
    for running in &answers[..answers.len() - 1] {
        assert_eq!(running["state"], json!("processing"), "{running}");
        assert!(running.get("result").is_none(), "{running}");
        assert!(running["progress"].as_u64().is_some_and(|p| p < 100));
    }
    let progress: Vec<u64> = answers
        .iter()
        .filter_map(|a| a["progress"].as_u64())
        .collect();
    assert!(
        progress.windows(2).all(|w| w[0] <= w[1]),
        "progress never goes back: {progress:?}"
    );
    assert_eq!(done["state"], json!("completed"), "{done}");
    assert_eq!(done["generation_id"], json!(first_id));
    assert_eq!(done["type"], json!("chat"));
    assert_eq!(done["progress"], json!(100));
    let content = done["result"]["content"].as_str().expect("content");
    assert!(!content.trim().is_empty(), "{done}");
    assert_eq!(done["result"]["urls"], json!([]));
    assert_eq!(done["result"]["model"], json!(default_id));
    assert!(done["result"]["created_at"].is_string());
    assert_eq!(done["credits_used"].as_f64(), Some(default_credit));
    assert_eq!(total_credits(ana).await, total_before - default_credit);

    // The same conversation continues with a chosen model, in the body and in the path.
    let (status, second) = post(
        ana,
        "/v1/chat/conversations",
        json!({"message": "Shorter, please", "session_id": session_id, "model": "openai/gpt-5-mini"}),
    )
    .await;
    assert_submit_shape(status, &second, "openai/gpt-5-mini");
    assert_eq!(second["session_id"], json!(session_id));
    let (status, third) = post(
        ana,
        &format!("/v1/chat/conversations/{session_id}/messages"),
        json!({"message": "And one in French"}),
    )
    .await;
    assert_submit_shape(status, &third, "auto");
    assert_eq!(third["session_id"], json!(session_id));
    let second_id = second["message_id"].as_str().expect("id").to_owned();
    let third_id = third["message_id"].as_str().expect("id").to_owned();
    let second_done = poll_to_end(ana, &second_id).await.pop().expect("answer");
    assert_eq!(second_done["result"]["model"], json!("openai/gpt-5-mini"));
    assert_eq!(
        second_done["credits_used"].as_f64(),
        Some(credit_of(ana, "openai/gpt-5-mini").await)
    );
    poll_to_end(ana, &third_id).await;

    // The conversation list (get_chat_conversations.json).
    let (status, list) = get(ana, "/v1/chat/conversations").await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["success"], json!(true));
    assert_eq!(
        list["pagination"],
        json!({"page": 1, "limit": 20, "total": 1, "pages": 1})
    );
    let conversation = &list["conversations"][0];
    assert_eq!(conversation["session_id"], json!(session_id));
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(conversation["name"], json!(format!("API Chat - {today}")));
    for field in ["created_at", "last_activity"] {
        let text = conversation[field].as_str().expect(field);
        assert!(
            chrono::DateTime::parse_from_rfc3339(text).is_ok(),
            "{field}: {text}"
        );
    }
    assert!(conversation["last_activity"].as_str() >= conversation["created_at"].as_str());

    // Its messages (get_chat_conversation_messages.json): each message, then its answer.
    let (status, page) = get(
        ana,
        &format!("/v1/chat/conversations/{session_id}/messages"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["success"], json!(true));
    assert_eq!(page["session_id"], json!(session_id));
    assert_eq!(
        page["pagination"],
        json!({"page": 1, "limit": 50, "total": 6, "pages": 1})
    );
    let messages = page["messages"].as_array().expect("messages");
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant"
        ]
    );
    assert_eq!(
        messages[0]["content"],
        json!("Write a tagline for a harbour at dawn")
    );
    assert_eq!(messages[2]["content"], json!("Shorter, please"));
    assert_eq!(messages[1]["message_id"], json!(first_id));
    assert_eq!(messages[1]["content"], json!(content));
    assert_eq!(messages[3]["message_id"], json!(second_id));
    assert_eq!(messages[5]["message_id"], json!(third_id));
    for message in messages {
        assert!(is_object_id(&message["message_id"]), "{message}");
        assert_eq!(message["status"], json!("completed"), "{message}");
        assert!(message["created_at"].is_string(), "{message}");
    }
    assert_eq!(messages[1]["model"]["identifier"], json!(default_id));
    assert_eq!(messages[1]["model"]["name"], default_model["name"]);
    assert_eq!(messages[1]["model"]["provider"], default_model["provider"]);
    assert_eq!(
        messages[3]["model"]["identifier"],
        json!("openai/gpt-5-mini")
    );

    // Paging walks the same list.
    let (_, second_page) = get(
        ana,
        &format!("/v1/chat/conversations/{session_id}/messages?page=2&limit=4"),
    )
    .await;
    assert_eq!(
        second_page["pagination"],
        json!({"page": 2, "limit": 4, "total": 6, "pages": 2})
    );
    assert_eq!(second_page["messages"][1]["message_id"], json!(third_id));
}

#[tokio::test]
async fn post_chat_opens_a_conversation_and_reads_a_system_prompt() {
    let ben = &shared().ben;
    let (status, answer) = post(
        ben,
        "/v1/chat",
        json!({"message": "Explain a dolly zoom", "system_prompt": "You are a film teacher."}),
    )
    .await;
    assert_submit_shape(status, &answer, "auto");
    let done = poll_to_end(ben, answer["message_id"].as_str().expect("id"))
        .await
        .pop()
        .expect("answer");
    assert_eq!(done["state"], json!("completed"), "{done}");
    let (_, list) = get(ben, "/v1/chat/conversations").await;
    assert_eq!(list["conversations"][0]["session_id"], answer["session_id"]);
    // Another user's conversation is not there for ana, nor readable by her.
    let (status, body) = get(
        &shared().ana,
        &format!(
            "/v1/chat/conversations/{}/messages",
            answer["session_id"].as_str().unwrap_or_default()
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["code"], json!("NOT_FOUND"));
}

#[tokio::test]
async fn refusals_follow_the_wire_examples() {
    let chloe = &shared().chloe;
    let (status, body) = post(
        chloe,
        "/v1/chat/conversations",
        json!({"message": "hello", "model": "invalid-model"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        body,
        json!({
            "success": false,
            "error": "Model \"invalid-model\" not found or not available for chat",
            "code": "INVALID_MODEL"
        })
    );
    let (status, body) = post(
        chloe,
        "/v1/chat",
        json!({"message": "hello", "model": ["a"]}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], json!("INVALID_MODEL"));
    for bad in [json!({}), json!({"message": "   "}), json!({"message": 42})] {
        let (status, body) = post(chloe, "/v1/chat/conversations", bad.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad} → {body}");
        assert_eq!(body["success"], json!(false));
        assert_eq!(body["code"], json!("INVALID_MESSAGE"));
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.contains("message"))
        );
    }
    let (status, body) = post(
        chloe,
        "/v1/chat/conversations",
        json!({"message": "hello", "session_id": "0123456789abcdef01234567"}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["code"], json!("NOT_FOUND"));
    let (status, body) = get(chloe, "/v1/chat/conversations?limit=zero").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    // Nothing was created by any of them.
    let (_, list) = get(chloe, "/v1/chat/conversations").await;
    assert_eq!(list["pagination"]["total"], json!(0), "{list}");
    assert_eq!(list["conversations"], json!([]));
}

#[tokio::test]
async fn too_few_credits_is_402_before_any_work() {
    let service = &shared().service;
    let key = service.key.clone();
    service.sandbox.set_credits(0.5);
    let (status, body) = post(&key, "/v1/chat", json!({"message": "hello"})).await;
    service.sandbox.set_credits(1500.0);
    assert_eq!(status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(
        body,
        json!({"success": false, "error": "Insufficient credits", "code": "INSUFFICIENT_CREDITS"})
    );
    // No generation was created for it (nobody else sends "hello" and gets through).
    assert!(
        !service
            .sandbox
            .generations()
            .iter()
            .any(|g| g.kind == "chat" && g.prompt == "hello")
    );
    let (_, list) = get(&key, "/v1/chat/conversations").await;
    assert_eq!(list["pagination"]["total"], json!(0), "{list}");
}

#[tokio::test]
async fn chat_shares_the_other_generation_window() {
    let dev = &shared().dev;
    // Ten requests in the 10/min group: video submits and chat submits, all refused by
    // validation (refused requests count too).
    for _ in 0..5 {
        let (status, body) = post(dev, "/v1/generate/video", json!({})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        let (status, body) = post(dev, "/v1/chat/conversations", json!({})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    }
    // The eleventh, a valid chat message, finds the window full.
    let (status, body) = post(dev, "/v1/chat", json!({"message": "hello"})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(body["status"], json!(false));
    assert_eq!(body["retryAfter"], json!(60));
    // The lists are in the 120/min group and still answer.
    let (status, body) = get(dev, "/v1/chat/conversations").await;
    assert_eq!(status, StatusCode::OK, "{body}");
}
