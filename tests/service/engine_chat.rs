//! The assistant chat through the engine against a real sandbox on loopback: a reply
//! streams in as several `Delta` events and ends `Finished` with its cost; both messages
//! are in the local store afterwards and still there after the engine restarts; Stop
//! mid-stream ends `Stopped`, keeps the partial text, and the service bills less than the
//! whole answer; attachments (a file and pasted bytes) report progress; a reply refused for
//! lack of credits ends `Failed` in words and is kept as a failed message.

use framewright::api::ApiClient;
use framewright::api::ClientConfig;
use framewright::api::code_assistant::{ChatMessage, ChatRequest, ChatRole};
use framewright::engine::chat::{ChatCommand, ChatEvent, StreamEnd};
use framewright::engine::conversations::{MessageState, StoredMessage, now_rfc3339};
use framewright::engine::{Command, EngineConfig, EngineHandle, Event, start};
use framewright::sandbox::{self, SandboxConfig, SandboxHandle};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Upper bound for any single wait; only there to stop a broken build from hanging.
const WAIT: Duration = Duration::from_secs(60);
const QUESTION: &str = "How do I share state between threads in Rust?";

fn start_sandbox(data_dir: &Path, speed: f64) -> SandboxHandle {
    let mut config = SandboxConfig::new(data_dir.to_path_buf());
    config.speed = speed;
    sandbox::start(config).expect("sandbox starts")
}

fn start_engine(sandbox: &SandboxHandle, dir: &Path) -> EngineHandle {
    start(EngineConfig {
        base_url: sandbox.base_url().to_owned(),
        api_key: sandbox.api_key().to_owned(),
        journal_path: dir.join("journal.sqlite3"),
        service_id: "chat-test".to_owned(),
        cache_dir: dir.join("cache"),
        repaint: Arc::new(|| {}),
    })
    .expect("engine starts")
}

fn send(engine: &EngineHandle, command: ChatCommand) {
    engine.send(Command::Chat(command)).expect("queue command");
}

/// Drain events until `pick` returns something; panics after `WAIT`.
fn wait_for<T>(
    engine: &mut EngineHandle,
    what: &str,
    mut pick: impl FnMut(ChatEvent) -> Option<T>,
) -> T {
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        if let Some(Event::Chat(event)) = engine.recv_timeout(Duration::from_millis(200))
            && let Some(found) = pick(event)
        {
            return found;
        }
    }
    panic!("timed out waiting for {what}");
}

fn first_model(engine: &mut EngineHandle) -> String {
    send(engine, ChatCommand::RefreshModels);
    wait_for(engine, "models", |event| match event {
        ChatEvent::Models(models) => Some(models.expect("models")[0].id.clone()),
        _ => None,
    })
}

fn create_conversation(engine: &mut EngineHandle, title: &str, model_id: &str) -> i64 {
    send(
        engine,
        ChatCommand::CreateConversation {
            title: title.to_owned(),
            model_id: model_id.to_owned(),
        },
    );
    wait_for(engine, "conversation created", |event| match event {
        ChatEvent::ConversationCreated(created) => Some(created.expect("created").id),
        _ => None,
    })
}

fn send_question(engine: &EngineHandle, conversation_id: i64, stream_id: u64, model_id: &str) {
    send(
        engine,
        ChatCommand::Send {
            conversation_id,
            stream_id,
            user_message: StoredMessage {
                role: ChatRole::User,
                text: QUESTION.to_owned(),
                attachments: Vec::new(),
                model_id: model_id.to_owned(),
                cost_credits: None,
                state: MessageState::Complete,
                error: None,
                created_at: now_rfc3339(),
            },
            request: ChatRequest {
                model: model_id.to_owned(),
                messages: vec![ChatMessage::text(ChatRole::User, QUESTION)],
                max_tokens: None,
            },
        },
    );
}

/// The deltas of `stream_id` until its `Ended`.
fn until_ended(
    engine: &mut EngineHandle,
    stream_id: u64,
    mut on_delta: impl FnMut(&EngineHandle, usize),
) -> (Vec<String>, StreamEnd, StoredMessage, Vec<f64>) {
    let mut deltas = Vec::new();
    // `reserved` of each balance read that arrived while the reply streamed.
    let mut reserved_while_streaming = Vec::new();
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        match engine.recv_timeout(Duration::from_millis(200)) {
            Some(Event::Chat(ChatEvent::Delta {
                stream_id: id,
                text,
            })) if id == stream_id => {
                deltas.push(text);
                on_delta(engine, deltas.len());
            }
            Some(Event::Chat(ChatEvent::Ended {
                stream_id: id,
                end,
                stored,
                ..
            })) if id == stream_id => return (deltas, end, stored, reserved_while_streaming),
            Some(Event::Chat(ChatEvent::Balance(Ok(balance)))) => {
                reserved_while_streaming.push(balance.reserved);
            }
            _ => {}
        }
    }
    panic!("timed out waiting for stream {stream_id} to end");
}

fn load(engine: &mut EngineHandle, conversation_id: i64) -> Vec<StoredMessage> {
    send(engine, ChatCommand::LoadConversation { conversation_id });
    wait_for(engine, "conversation loaded", |event| match event {
        ChatEvent::ConversationLoaded {
            conversation_id: id,
            result,
        } if id == conversation_id => Some(result.expect("loaded")),
        _ => None,
    })
}

/// The balance once no credits are held (a stopped stream settles when the sandbox
/// notices the closed connection).
async fn settled_available(client: &ApiClient) -> f64 {
    let deadline = Instant::now() + WAIT;
    loop {
        let balance = client.code_assistant().balance().await.expect("balance");
        if balance.reserved == 0.0 {
            return balance.available;
        }
        assert!(Instant::now() < deadline, "credits stayed reserved");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn keyed_client(sandbox: &SandboxHandle) -> ApiClient {
    ApiClient::new(ClientConfig {
        base_url: sandbox.base_url().to_owned(),
        api_key: sandbox.api_key().to_owned(),
        request_timeout_secs: 20,
    })
    .expect("client")
}

#[test]
fn a_reply_streams_is_billed_stored_and_survives_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = start_sandbox(&dir.path().join("sandbox"), 20.0);
    let mut engine = start_engine(&sandbox, dir.path());
    let model_id = first_model(&mut engine);
    let conversation_id = create_conversation(&mut engine, "Threads", &model_id);
    let available_before = sandbox.credits_available();

    send_question(&engine, conversation_id, 1, &model_id);
    let (deltas, end, stored, reserved_while_streaming) = until_ended(&mut engine, 1, |_, _| {});
    assert!(deltas.len() > 1, "the reply arrives as several deltas");
    // The balance is read once the stream opens, so "Reserved" shows the held credits.
    assert!(
        reserved_while_streaming
            .iter()
            .any(|reserved| *reserved > 0.0),
        "a balance read during the stream shows credits reserved: {reserved_while_streaming:?}"
    );
    let StreamEnd::Finished {
        usage,
        cost_credits,
    } = end
    else {
        panic!("the reply did not finish: {end:?}");
    };
    let cost = cost_credits.expect("a cost");
    assert!(usage.is_some_and(|u| u.completion_tokens > 0));
    assert_eq!(stored.text, deltas.concat());
    assert_eq!(stored.state, MessageState::Complete);
    assert_eq!(stored.cost_credits, Some(cost));
    // The balance is read again after the reply, and it shows the reply's cost.
    let balance = wait_for(
        &mut engine,
        "balance after the reply",
        |event| match event {
            ChatEvent::Balance(balance) => Some(balance.expect("balance")),
            _ => None,
        },
    );
    assert!((available_before - balance.available - cost).abs() < 1e-6);

    let messages = load(&mut engine, conversation_id);
    assert_eq!(messages.len(), 2);
    assert_eq!(
        (messages[0].role, messages[0].text.as_str()),
        (ChatRole::User, QUESTION)
    );
    assert_eq!(messages[1], stored);

    // A new engine on the same data folder lists and loads the conversation.
    engine.shutdown();
    let mut engine = start_engine(&sandbox, dir.path());
    send(
        &engine,
        ChatCommand::ListConversations {
            query: "threads".into(),
        },
    );
    let listed = wait_for(&mut engine, "conversations", |event| match event {
        ChatEvent::Conversations(list) => Some(list.expect("list")),
        _ => None,
    });
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, conversation_id);
    assert_eq!(listed[0].message_count, 2);
    assert_eq!(load(&mut engine, conversation_id), messages);
}

#[test]
fn stop_keeps_the_partial_text_and_bills_less_than_the_whole_answer() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A chunk every ~19 ms (speed 4): the reply (hundreds of tokens) is still streaming
    // when Stop arrives after the second delta, and the whole answer takes ~2 s.
    let sandbox = start_sandbox(&dir.path().join("sandbox"), 4.0);
    let client = keyed_client(&sandbox);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mut engine = start_engine(&sandbox, dir.path());
    let model_id = first_model(&mut engine);
    let conversation_id = create_conversation(&mut engine, "Stopped", &model_id);

    // What the whole answer to this question costs.
    let whole = runtime
        .block_on(client.code_assistant().complete(&ChatRequest {
            model: model_id.clone(),
            messages: vec![ChatMessage::text(ChatRole::User, QUESTION)],
            max_tokens: None,
        }))
        .expect("whole answer");
    let whole_cost = whole.usage.and_then(|u| u.cost_credits).expect("cost");

    let before = runtime.block_on(settled_available(&client));
    send_question(&engine, conversation_id, 7, &model_id);
    let (deltas, end, stored, _) = until_ended(&mut engine, 7, |engine, received| {
        if received == 2 {
            engine
                .send(Command::Chat(ChatCommand::Stop { stream_id: 7 }))
                .expect("stop");
        }
    });
    assert_eq!(end, StreamEnd::Stopped);
    assert_eq!(stored.state, MessageState::Stopped);
    assert_eq!(
        stored.text,
        deltas.concat(),
        "the text that arrived is kept"
    );
    assert!(!stored.text.is_empty() && whole.text.starts_with(&stored.text));
    assert!(stored.text.len() < whole.text.len());

    let after = runtime.block_on(settled_available(&client));
    let billed = before - after;
    assert!(billed > 0.0, "what was sent is billed");
    assert!(
        billed < whole_cost,
        "a stopped reply costs less ({billed}) than the whole answer ({whole_cost})"
    );
    let messages = load(&mut engine, conversation_id);
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[1].state, MessageState::Stopped);
    assert_eq!(messages[1].text, stored.text);
}

#[test]
fn attachments_report_progress_and_a_refused_reply_is_kept_as_failed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = start_sandbox(&dir.path().join("sandbox"), 20.0);
    let mut engine = start_engine(&sandbox, dir.path());
    let photo = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/photos/chelsea.png"
    ));
    let size_bytes = std::fs::metadata(photo).expect("fixture photo").len();

    send(
        &engine,
        ChatCommand::UploadFile {
            upload_id: 3,
            path: photo.to_path_buf(),
        },
    );
    let mut progress = Vec::new();
    let uploaded = wait_for(&mut engine, "the upload", |event| match event {
        ChatEvent::UploadProgress {
            upload_id: 3,
            sent_bytes,
            total_bytes,
        } => {
            progress.push((sent_bytes, total_bytes));
            None
        }
        ChatEvent::Uploaded {
            upload_id: 3,
            result,
        } => Some(result),
        _ => None,
    });
    let file = uploaded.expect("uploaded");
    assert!(file.id.starts_with("file_"));
    assert!(!progress.is_empty(), "progress is reported");
    assert!(progress.iter().all(|&(_, total)| total == size_bytes));
    assert!(
        progress.windows(2).all(|w| w[0].0 <= w[1].0),
        "never backwards"
    );
    assert_eq!(progress.last().copied(), Some((size_bytes, size_bytes)));

    // A pasted image (bytes in memory) goes the same way.
    let png = std::fs::read(photo).expect("read photo");
    send(
        &engine,
        ChatCommand::UploadBytes {
            upload_id: 4,
            file_name: "pasted.png".into(),
            bytes: png,
        },
    );
    let pasted = wait_for(&mut engine, "the pasted upload", |event| match event {
        ChatEvent::Uploaded {
            upload_id: 4,
            result,
        } => Some(result),
        _ => None,
    });
    assert!(pasted.expect("pasted uploaded").url.starts_with("http"));

    // No credits: the service refuses before streaming; the refusal is said in words and
    // kept in the conversation as a failed reply; nothing is billed.
    let model_id = first_model(&mut engine);
    let conversation_id = create_conversation(&mut engine, "Broke", &model_id);
    sandbox.set_credits(0.0);
    send_question(&engine, conversation_id, 9, &model_id);
    let (deltas, end, stored, _) = until_ended(&mut engine, 9, |_, _| {});
    assert!(deltas.is_empty());
    let StreamEnd::Failed(error) = end else {
        panic!("a reply without credits cannot finish: {end:?}");
    };
    assert_eq!(error.status(), Some(402));
    assert!(
        error.to_string().starts_with("Not enough credits"),
        "{error}"
    );
    assert_eq!(stored.state, MessageState::Failed);
    assert_eq!(stored.error, Some(error.to_string()));
    assert_eq!(sandbox.credits_available(), 0.0);
    let messages = load(&mut engine, conversation_id);
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[1].state, MessageState::Failed);
}

#[test]
fn a_reply_cut_off_by_the_studio_closing_keeps_what_arrived() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Speed 2: the whole answer takes several seconds, so the engine stops mid-reply after
    // the reply's text has been written to the history at least once (every second).
    let sandbox = start_sandbox(&dir.path().join("sandbox"), 2.0);
    let mut engine = start_engine(&sandbox, dir.path());
    let model_id = first_model(&mut engine);
    let conversation_id = create_conversation(&mut engine, "Cut off", &model_id);
    send_question(&engine, conversation_id, 11, &model_id);

    let mut received = String::new();
    let first_piece_at = loop {
        if let Some(Event::Chat(ChatEvent::Delta {
            stream_id: 11,
            text,
        })) = engine.recv_timeout(WAIT)
        {
            received.push_str(&text);
            break Instant::now();
        }
    };
    while first_piece_at.elapsed() < Duration::from_millis(1600) {
        match engine.recv_timeout(Duration::from_millis(100)) {
            Some(Event::Chat(ChatEvent::Delta {
                stream_id: 11,
                text,
            })) => {
                received.push_str(&text);
            }
            Some(Event::Chat(ChatEvent::Ended { stream_id: 11, .. })) => {
                panic!("the reply ended before the engine was stopped: make it longer")
            }
            _ => {}
        }
    }
    // The studio goes away mid-reply (the engine is dropped with the stream running).
    engine.shutdown();

    let mut engine = start_engine(&sandbox, dir.path());
    let messages = load(&mut engine, conversation_id);
    assert_eq!(
        messages.len(),
        2,
        "the question and the cut-off reply: {messages:?}"
    );
    let reply = &messages[1];
    assert_eq!(reply.role, ChatRole::Assistant);
    assert!(
        !reply.text.is_empty() && received.starts_with(&reply.text),
        "the stored reply is what had arrived: {:?} of {received:?}",
        reply.text
    );
    assert_ne!(reply.state, MessageState::Complete);
}
