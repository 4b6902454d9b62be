//! The Chat view's creative mode hosted on its own in an egui_kittest harness, driven by
//! the real engine against a real sandbox on loopback: the host does what the Chat view
//! does (engine events into the model and `CreativeChatState::handle_event`, actions back
//! to the engine). A person picks a model (the price follows on Send), is stopped at the
//! field when the message is empty, writes two lines with Shift+Enter, sends with Enter,
//! sees "Thinking…" and then the answer in a new conversation, and opens a second one.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::api::{ChatRole, GenerationKind};
use framewright::engine::{EngineConfig, EngineHandle, Event, JobPhase, start};
use framewright::sandbox::{SandboxConfig, SandboxHandle};
use framewright::ui::chat::creative::{
    COMPOSER_LABEL, CreativeChatState, Selection, creative_chat_ui,
};
use framewright::ui::model::{Action, Model};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Answers take ~3 s at speed 1: about a second here, so "Thinking…" is on screen for a
/// few frames and the 2-s poll finds the answer.
const SANDBOX_SPEED: f64 = 3.0;
/// Upper bound for any wait; reaching it fails the test (never a timing assertion).
const WAIT_LIMIT: Duration = Duration::from_secs(60);

/// What the Chat view does around the creative mode.
struct Host {
    engine: EngineHandle,
    model: Model,
    chat: CreativeChatState,
    copied: Vec<String>,
    // Field order: the engine stops before the sandbox, the sandbox before its folder.
    sandbox: SandboxHandle,
    _dir: tempfile::TempDir,
}

impl Host {
    fn start() -> Host {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = SandboxConfig::new(dir.path().join("sandbox"));
        config.speed = SANDBOX_SPEED;
        let sandbox = framewright::sandbox::start(config).expect("sandbox starts");
        let engine = start(EngineConfig {
            base_url: sandbox.base_url().to_owned(),
            api_key: sandbox.api_key().to_owned(),
            journal_path: dir.path().join("journal.sqlite3"),
            service_id: "creative-chat-ui".to_owned(),
            cache_dir: dir.path().join("cache"),
            repaint: Arc::new(|| {}),
        })
        .expect("engine starts");
        Host {
            engine,
            model: Model::default(),
            chat: CreativeChatState::default(),
            copied: Vec::new(),
            sandbox,
            _dir: dir,
        }
    }

    /// One frame: events in, the mode laid out, its actions applied.
    fn frame(&mut self, ui: &mut egui::Ui) {
        while let Some(event) = self.engine.try_recv() {
            self.chat.handle_event(&event);
            match event {
                Event::Catalog(result) => self.model.catalog.set(result.map_err(|e| e.to_string())),
                Event::Credits(result) => self.model.credits.set(result.map_err(|e| e.to_string())),
                Event::JobsRestored(records) => {
                    self.model.jobs = records.into_iter().map(|r| (r.local_id, r)).collect();
                    self.model.jobs_restored = true;
                }
                Event::JobUpdated(record) => {
                    self.model.upsert_job(record);
                }
                _ => {}
            }
        }
        for action in creative_chat_ui(ui, &mut self.chat, &self.model) {
            match action {
                Action::Send(command) => self.engine.send(*command).expect("engine takes it"),
                Action::CopyText { text, .. } => self.copied.push(text),
                other => panic!("unexpected action in this flow: {other:?}"),
            }
        }
    }

    fn chat_jobs(&self) -> Vec<&framewright::engine::JobRecord> {
        self.model
            .jobs
            .values()
            .filter(|job| job.spec.kind == GenerationKind::Chat)
            .collect()
    }
}

type ChatHarness = Harness<'static, Host>;

fn harness() -> ChatHarness {
    Harness::builder()
        .with_size(egui::vec2(1200.0, 800.0))
        .build_ui_state(|ui, host: &mut Host| host.frame(ui), Host::start())
}

fn step_until(harness: &mut ChatHarness, what: &str, mut done: impl FnMut(&ChatHarness) -> bool) {
    let started = Instant::now();
    loop {
        harness.step();
        if done(harness) {
            return;
        }
        assert!(
            started.elapsed() < WAIT_LIMIT,
            "timed out after {WAIT_LIMIT:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(30));
    }
}

fn steps(harness: &mut ChatHarness, count: usize) {
    for _ in 0..count {
        harness.step();
    }
}

fn send_label(harness: &ChatHarness) -> String {
    harness
        .get_by(|node| {
            node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Send"))
        })
        .accesskit_node()
        .label()
        .unwrap_or_default()
}

fn click_send(harness: &mut ChatHarness) {
    harness
        .get_by(|node| {
            node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Send"))
        })
        .click_accesskit();
    steps(harness, 2);
}

fn type_message(harness: &mut ChatHarness, text: &str) {
    harness.get_by_label(COMPOSER_LABEL).click();
    harness.step();
    harness.get_by_label(COMPOSER_LABEL).type_text(text);
    harness.step();
}

/// The first words of an answer, as one run of plain text the Markdown view shows.
fn opening_words(answer: &str) -> String {
    answer
        .split(['*', '`', '_', '[', '#', '\n'])
        .map(str::trim)
        .find(|part| part.split_whitespace().count() >= 3)
        .map(|part| {
            part.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .expect("a sentence in the answer")
}

#[test]
fn a_message_is_sent_and_its_answer_arrives_in_a_new_conversation() {
    let mut harness = harness();
    step_until(&mut harness, "the models and the conversation list", |h| {
        h.state().model.catalog.is_loaded() && h.state().chat.conversations.is_loaded()
    });
    steps(&mut harness, 3);
    harness.check_accessibility();
    assert!(
        harness
            .query_by_label_contains("No conversations yet")
            .is_some(),
        "an empty list says how to start"
    );
    // Auto's price is the routed model's credit (Claude Sonnet, 3).
    assert_eq!(send_label(&harness), "Send · 3 credits");

    // Pick the cheaper model: the button's price follows.
    harness
        .get_by_role_and_label(Role::ComboBox, "Chat model")
        .click();
    steps(&mut harness, 2);
    harness
        .get_by_label("GPT-5 mini · 1 credit per message")
        .click();
    steps(&mut harness, 2);
    assert_eq!(
        harness.state().chat.model_choice.as_deref(),
        Some("openai/gpt-5-mini")
    );
    assert_eq!(send_label(&harness), "Send · 1 credit");

    // An empty message is refused at the field; nothing is sent.
    click_send(&mut harness);
    assert!(
        harness
            .query_by_label_contains("Write a message first.")
            .is_some()
    );
    assert!(harness.state().chat_jobs().is_empty());

    // Shift+Enter is a new line; Enter sends.
    type_message(&mut harness, "Three names for a harbour café");
    assert!(
        harness
            .query_by_label_contains("Write a message first.")
            .is_none(),
        "the refusal goes once the text changes"
    );
    harness.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::Enter);
    harness.step();
    harness
        .get_by_label(COMPOSER_LABEL)
        .type_text("with a nautical theme");
    harness.step();
    assert_eq!(
        harness.state().chat.composer,
        "Three names for a harbour café\nwith a nautical theme"
    );
    assert!(harness.state().chat_jobs().is_empty(), "not sent yet");
    harness.key_press(egui::Key::Enter);
    steps(&mut harness, 2);
    assert!(
        harness.state().chat.composer.is_empty(),
        "the field is cleared"
    );

    // The message is a job like any generation; while it runs its answer is "Thinking…".
    step_until(&mut harness, "the answer to be written", |h| {
        h.state()
            .chat_jobs()
            .first()
            .is_some_and(|job| matches!(job.phase, JobPhase::Running { .. }))
    });
    steps(&mut harness, 2);
    assert!(
        harness.query_by_label_contains("Thinking…").is_some(),
        "a running answer says so"
    );
    let job = harness.state().chat_jobs()[0].clone();
    assert_eq!(
        job.spec.request.prompt,
        "Three names for a harbour café\nwith a nautical theme"
    );
    assert_eq!(job.spec.request.model.as_deref(), Some("openai/gpt-5-mini"));
    assert_eq!(job.credits_estimate, Some(1.0));
    assert!(
        harness
            .query_all_by_label_contains("Three names for a harbour café")
            .next()
            .is_some(),
        "the message is shown while its answer is written"
    );

    // The service named the conversation: it is selected, listed, and read back with
    // the answer.
    let session_id = job.spec.request.session_id.clone().expect("conversation");
    step_until(&mut harness, "the answer in the conversation", |h| {
        let host = h.state();
        host.chat.selection == Selection::Conversation(session_id.clone())
            && host
                .chat
                .messages
                .get(&session_id)
                .and_then(|read| read.value.as_ref())
                .is_some_and(|messages| {
                    messages.iter().any(|m| {
                        m.role == ChatRole::Assistant
                            && m.status.is_terminal()
                            && !m.content.is_empty()
                    })
                })
            && host
                .chat
                .conversations
                .value
                .as_ref()
                .is_some_and(|list| list.iter().any(|c| c.session_id == session_id))
    });
    steps(&mut harness, 3);
    let answer = harness.state().chat.messages[&session_id]
        .value
        .as_ref()
        .and_then(|messages| messages.iter().find(|m| m.role == ChatRole::Assistant))
        .map(|m| m.content.clone())
        .expect("the answer");
    assert!(
        harness
            .query_by_label_contains(&opening_words(&answer))
            .is_some(),
        "the answer is shown: {answer}"
    );
    assert!(harness.query_by_label_contains("Thinking…").is_none());
    assert!(
        harness
            .query_by_label_contains("GPT-5 mini · 1 credit")
            .is_some(),
        "the answer names its model and charge"
    );
    // Listed and headed by its first question, not the service's "API Chat - <date>".
    assert!(
        harness
            .query_all_by_label_contains("Three names for a harbour café")
            .any(|node| node.accesskit_node().role() == Role::Button),
        "the conversation is listed by its first question"
    );
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert!(
        harness
            .query_all_by_label_contains(&format!("API Chat - {today}"))
            .next()
            .is_none(),
        "the service's automatic name is not shown"
    );
    harness.check_accessibility();

    // Copy answer hands the Markdown to the host.
    harness
        .get_by_role_and_label(Role::Button, "Copy answer")
        .click_accesskit();
    steps(&mut harness, 2);
    assert_eq!(harness.state().copied, vec![answer]);

    // A new conversation: the next message opens a second one.
    harness
        .get_by_role_and_label(Role::Button, "New conversation")
        .click_accesskit();
    steps(&mut harness, 2);
    assert_eq!(harness.state().chat.selection, Selection::New);
    type_message(&mut harness, "A logline for a lighthouse thriller");
    harness.key_press(egui::Key::Enter);
    steps(&mut harness, 2);
    step_until(&mut harness, "the second conversation", |h| {
        let host = h.state();
        host.chat
            .conversations
            .value
            .as_ref()
            .is_some_and(|list| list.len() == 2)
            && matches!(&host.chat.selection, Selection::Conversation(id) if *id != session_id)
            && host.chat_jobs().iter().all(|job| job.phase.is_finished())
    });
    let jobs = harness.state().chat_jobs();
    assert_eq!(jobs.len(), 2);
    assert!(jobs.iter().all(|job| job.phase == JobPhase::Completed));
    assert_ne!(
        jobs[0].spec.request.session_id,
        jobs[1].spec.request.session_id
    );
    // Each message was sent once.
    let sent = harness
        .state()
        .sandbox
        .generations()
        .iter()
        .filter(|g| g.kind == "chat")
        .count();
    assert_eq!(sent, 2);
}
