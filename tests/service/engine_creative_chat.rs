//! Creative chat through the engine over real HTTP against the embedded sandbox: a message
//! is a job like any generation (journalled, sent once in the other-generation queue,
//! polled every 2 s on /generate/:id/status) that completes with its Markdown answer; the
//! conversation it opened is learnt from the submit answer, survives an engine restart,
//! and is listed with its messages by the engine's chat commands.

use crate::service_support;

use framewright::api::creative_chat::chat_spec;
use framewright::api::{ChatConversation, ChatMessage, ChatRole, GenerationKind};
use framewright::engine::{
    Command, EngineConfig, EngineHandle, Event, JobPhase, JobRecord, Journal, start,
};
use service_support::{LocalService, local_service, wait_for};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

const SERVICE_ID: &str = "sandbox-test";
const WAIT: Duration = Duration::from_secs(60);
/// The routed default chat model of the sandbox's catalog and its credit per answer.
const DEFAULT_CHAT_MODEL: &str = "anthropic/claude-sonnet";
const DEFAULT_CHAT_CREDIT: f64 = 3.0;

fn journal_path(dir: &Path) -> PathBuf {
    dir.join("journal.sqlite3")
}

fn start_engine(service: &LocalService, dir: &Path) -> EngineHandle {
    start(EngineConfig {
        base_url: service.sandbox.base_url().to_owned(),
        api_key: service.key.clone(),
        journal_path: journal_path(dir),
        service_id: SERVICE_ID.to_owned(),
        cache_dir: dir.join("cache"),
        repaint: Arc::new(|| {}),
    })
    .expect("engine starts")
}

fn send_message(engine: &EngineHandle, message: &str, conversation: Option<&str>) {
    engine
        .send(Command::Submit {
            spec: chat_spec(message, conversation, None),
            model_label: "Auto".to_owned(),
            credits_estimate: Some(DEFAULT_CHAT_CREDIT),
        })
        .expect("queue submit");
}

fn job_update(event: &Event) -> Option<&JobRecord> {
    match event {
        Event::JobUpdated(record) => Some(record),
        _ => None,
    }
}

fn restored(engine: &mut EngineHandle) -> Vec<JobRecord> {
    wait_for(engine, "JobsRestored", WAIT, |event| match event {
        Event::JobsRestored(jobs) => Some(jobs.clone()),
        _ => None,
    })
}

fn finished(engine: &mut EngineHandle, local_id: i64) -> JobRecord {
    wait_for(engine, "the answer", WAIT, |event| {
        job_update(event)
            .filter(|r| r.local_id == local_id && r.phase.is_finished())
            .cloned()
    })
}

fn chats_created(service: &LocalService) -> usize {
    service
        .sandbox
        .generations()
        .iter()
        .filter(|g| g.kind == "chat")
        .count()
}

fn conversations(engine: &mut EngineHandle) -> Vec<ChatConversation> {
    engine
        .send(Command::LoadChatConversations)
        .expect("queue list");
    wait_for(engine, "the conversations", WAIT, |event| match event {
        Event::ChatConversations(result) => Some(result.clone().expect("conversations")),
        _ => None,
    })
}

fn messages(engine: &mut EngineHandle, session_id: &str) -> Vec<ChatMessage> {
    engine
        .send(Command::LoadChatMessages {
            session_id: session_id.to_owned(),
        })
        .expect("queue messages");
    wait_for(engine, "the messages", WAIT, |event| match event {
        Event::ChatMessages {
            session_id: id,
            result,
        } if id == session_id => Some(result.clone().expect("messages")),
        _ => None,
    })
}

/// A message opens a conversation, is followed every 2 s to its answer, is billed the
/// model's credit, and the conversation lists both sides; a second message continues it.
#[test]
fn a_message_is_answered_and_its_conversation_listed() {
    let service = local_service(1.5);
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(&service, dir.path());
    restored(&mut engine);
    send_message(&engine, "Write a haiku about rain on a harbour", None);

    let running = wait_for(&mut engine, "Running", WAIT, |event| {
        job_update(event)
            .filter(|r| matches!(r.phase, JobPhase::Running { .. }))
            .cloned()
    });
    assert_eq!(running.spec.kind, GenerationKind::Chat);
    assert_eq!(running.poll_interval_secs, 2.0, "chat is polled every 2 s");
    let message_id = running.generation_id.clone().expect("the message_id");
    let session_id = running
        .spec
        .request
        .session_id
        .clone()
        .expect("the conversation the service opened is learnt from the answer");

    let done = finished(&mut engine, running.local_id);
    assert_eq!(done.phase, JobPhase::Completed, "{:?}", done.phase);
    assert_eq!(done.progress_percent, 100.0);
    assert_eq!(done.credits_used, Some(DEFAULT_CHAT_CREDIT));
    let result = done.result.as_ref().expect("result");
    let answer = result.content.clone().expect("the answer");
    assert!(!answer.trim().is_empty());
    assert!(result.urls.is_empty());
    assert_eq!(result.model.as_deref(), Some(DEFAULT_CHAT_MODEL));

    let listed = conversations(&mut engine);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].session_id, session_id);
    assert!(listed[0].name.starts_with("API Chat - "), "{:?}", listed[0]);
    let said = messages(&mut engine, &session_id);
    assert_eq!(said.len(), 2);
    assert_eq!(said[0].role, ChatRole::User);
    assert_eq!(said[0].content, "Write a haiku about rain on a harbour");
    assert_eq!(said[1].role, ChatRole::Assistant);
    assert_eq!(said[1].message_id, message_id);
    assert_eq!(said[1].content, answer);

    // The next message goes into the same conversation.
    send_message(&engine, "Now in French", Some(&session_id));
    let second = wait_for(&mut engine, "the second answer", WAIT, |event| {
        job_update(event)
            .filter(|r| r.spec.request.prompt == "Now in French" && r.phase.is_finished())
            .cloned()
    });
    assert_eq!(second.phase, JobPhase::Completed);
    assert_eq!(
        second.spec.request.session_id.as_deref(),
        Some(session_id.as_str())
    );
    assert_eq!(messages(&mut engine, &session_id).len(), 4);
    assert_eq!(conversations(&mut engine).len(), 1);
    assert_eq!(chats_created(&service), 2, "each message sent once");
    engine.shutdown();
}

/// A running answer is journalled with its message_id and its conversation, resumed by a
/// new engine and completed with its answer; the message is never sent twice.
#[test]
fn a_running_answer_survives_an_engine_restart() {
    // About 6 s per answer: still running when the engine stops.
    let service = local_service(0.5);
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(&service, dir.path());
    restored(&mut engine);
    send_message(&engine, "Explain a rack focus", None);
    let running = wait_for(&mut engine, "Running", WAIT, |event| {
        job_update(event)
            .filter(|r| matches!(r.phase, JobPhase::Running { .. }))
            .cloned()
    });
    engine.shutdown();

    let journal = Journal::open(&journal_path(dir.path())).expect("journal");
    let row = journal
        .get(running.local_id)
        .expect("read")
        .expect("the row");
    assert_eq!(row.record.generation_id, running.generation_id);
    assert!(row.record.spec.request.session_id.is_some());
    assert_eq!(
        row.record.spec, running.spec,
        "the conversation is journalled"
    );
    drop(journal);

    let mut engine = start_engine(&service, dir.path());
    let jobs = restored(&mut engine);
    let job = jobs
        .iter()
        .find(|j| j.local_id == running.local_id)
        .expect("restored");
    assert!(
        matches!(job.phase, JobPhase::Running { .. }),
        "{:?}",
        job.phase
    );
    let done = finished(&mut engine, running.local_id);
    assert_eq!(done.phase, JobPhase::Completed, "{:?}", done.phase);
    assert!(
        done.result
            .as_ref()
            .and_then(|r| r.content.as_deref())
            .is_some_and(|c| !c.trim().is_empty())
    );
    assert_eq!(chats_created(&service), 1, "resumed, never re-sent");
    engine.shutdown();
}

/// A message whose answer was lost (the service made the job, the connection dropped) is
/// never sent again, before or after a restart, and says so; a failed answer shows the
/// service's reason.
#[test]
fn lost_and_failed_answers_are_told_honestly() {
    let service = local_service(4.0);
    service.sandbox.drop_next_submit_responses(1);
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(&service, dir.path());
    restored(&mut engine);
    send_message(&engine, "Is this lost?", None);
    let unconfirmed = wait_for(&mut engine, "Unconfirmed", WAIT, |event| {
        job_update(event)
            .filter(|r| matches!(r.phase, JobPhase::Unconfirmed { .. }))
            .cloned()
    });
    let JobPhase::Unconfirmed { note } = &unconfirmed.phase else {
        unreachable!()
    };
    assert!(note.contains("not sent again automatically"), "{note}");
    assert!(note.contains("conversation"), "{note}");

    service.sandbox.fail_next_jobs(1, false);
    send_message(&engine, "This one fails", None);
    let failed = wait_for(&mut engine, "Failed", WAIT, |event| {
        job_update(event)
            .filter(|r| r.spec.request.prompt == "This one fails" && r.phase.is_finished())
            .cloned()
    });
    let JobPhase::Failed { failure } = &failed.phase else {
        panic!("{:?}", failed.phase)
    };
    assert!(!failure.message.is_empty());
    assert_eq!(failure.retryable, Some(false));
    engine.shutdown();

    let mut engine = start_engine(&service, dir.path());
    let jobs = restored(&mut engine);
    let job = jobs
        .iter()
        .find(|j| j.local_id == unconfirmed.local_id)
        .expect("restored");
    assert!(
        matches!(job.phase, JobPhase::Unconfirmed { .. }),
        "{:?}",
        job.phase
    );
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(chats_created(&service), 2, "the lost one was never re-sent");
    engine.shutdown();
}

/// The older synchronous answer (post_chat_stateless.json: the content, no `message_id`) is
/// accepted as a job finished at once: never polled, completed with the answer and its
/// charge, and it stays so after a restart.
#[test]
fn an_older_synchronous_answer_is_a_job_finished_at_once() {
    let service = local_service(4.0);
    service.sandbox.answer_next_chats_synchronously(1);
    let dir = tempfile::tempdir().expect("temp dir");
    let mut engine = start_engine(&service, dir.path());
    restored(&mut engine);
    send_message(&engine, "Answer me at once", None);
    let mut phases = Vec::new();
    let done = wait_for(&mut engine, "the answer", WAIT, |event| {
        let record = job_update(event)?;
        phases.push(record.phase.label());
        record.phase.is_finished().then(|| record.clone())
    });
    assert_eq!(done.phase, JobPhase::Completed, "{:?}", done.phase);
    assert!(!phases.contains(&"running"), "never polled: {phases:?}");
    assert_eq!(done.generation_id, None);
    assert_eq!(done.credits_used, Some(DEFAULT_CHAT_CREDIT));
    assert_eq!(done.progress_percent, 100.0);
    let result = done.result.clone().expect("result");
    assert_eq!(result.model.as_deref(), Some(DEFAULT_CHAT_MODEL));
    assert!(result.content.is_some_and(|c| !c.trim().is_empty()));
    engine.shutdown();

    let mut engine = start_engine(&service, dir.path());
    let jobs = restored(&mut engine);
    let again = jobs
        .iter()
        .find(|j| j.local_id == done.local_id)
        .expect("restored");
    assert_eq!(again.phase, JobPhase::Completed);
    assert_eq!(again.result, done.result);
    assert_eq!(chats_created(&service), 1);
    engine.shutdown();
}
