//! The Chat view driven through egui_kittest against the studio with its embedded sandbox
//! (the coding-assistant API over loopback HTTP, the conversation store on disk): a
//! streamed answer grows over frames and its code copies through the app's clipboard; Stop
//! keeps what arrived; images are uploaded, shown as chips and sent (the answer names their
//! size), refused at the chip for a model without the eye; conversations are searched,
//! renamed and deleted.

use crate::support;
use support::{Studio, drop_file, fixture_photo, step_until, steps, studio_at_speed};

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::api::code_assistant::ChatRole;
use framewright::engine::conversations::MessageState;
use framewright::ui::View;
use framewright::ui::chat::{AttachmentStatus, markdown};

/// Streams at the sandbox's realistic pace, so an answer takes a few seconds to arrive:
/// long enough to watch it grow and to stop it.
const REAL_PACE: f64 = 1.0;
/// Fast enough for flows that only need whole answers.
const FAST: f64 = 20.0;

fn chat_studio(dir: &tempfile::TempDir, speed: f64) -> Studio {
    let mut harness = studio_at_speed(dir, View::Chat, speed);
    step_until(&mut harness, "the models and the conversation list", |h| {
        let chat = h.state().chat();
        chat.models.is_loaded() && chat.conversations.is_loaded() && chat.balance.is_loaded()
    });
    steps(&mut harness, 3);
    harness
}

/// Type `text` into the message field and press Enter.
fn send_message(harness: &mut Studio, text: &str) {
    support::replace_field_text(harness, "Message", text);
    harness.key_press(egui::Key::Enter);
    harness.step();
}

fn wait_for_reply(harness: &mut Studio) {
    step_until(harness, "the answer to end", |h| {
        let chat = h.state().chat();
        !chat.is_streaming()
            && chat
                .messages
                .last()
                .is_some_and(|m| m.message.role == ChatRole::Assistant)
    });
    steps(harness, 2);
}

fn last_reply(harness: &Studio) -> framewright::engine::conversations::StoredMessage {
    harness
        .state()
        .chat()
        .messages
        .last()
        .expect("a message")
        .message
        .clone()
}

fn choose_model(harness: &mut Studio, vision: bool) -> String {
    let model = harness
        .state()
        .chat()
        .models
        .value
        .clone()
        .unwrap_or_default()
        .into_iter()
        .find(|m| m.supports_vision == vision)
        .expect("the sandbox lists a model with and one without vision");
    harness.get_by_label("Choose the model").click();
    steps(harness, 2);
    harness
        .get_by_label(&framewright::ui::chat::header::model_description(&model))
        .click();
    steps(harness, 2);
    assert_eq!(
        harness.state().chat().model_id.as_deref(),
        Some(model.id.as_str())
    );
    model.name
}

/// Turn the mouse wheel over the message view (positive `delta_y` scrolls up).
fn scroll_messages(harness: &mut Studio, delta_y: f32) {
    let over_messages = egui::pos2(800.0, 400.0);
    harness
        .input_mut()
        .events
        .push(egui::Event::PointerMoved(over_messages));
    harness.input_mut().events.push(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, delta_y),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: egui::Modifiers::NONE,
    });
}

fn send_button_enabled(harness: &Studio) -> bool {
    !harness
        .get_by_role_and_label(Role::Button, "Send")
        .accesskit_node()
        .is_disabled()
}

#[test]
fn an_answer_streams_in_over_frames_its_code_copies_and_stop_keeps_what_arrived() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = chat_studio(&dir, REAL_PACE);
    harness.check_accessibility();
    assert!(!send_button_enabled(&harness), "nothing to send yet");

    let question = "How do I read a file line by line in Rust?";
    send_message(&mut harness, question);
    assert!(
        harness.state().chat().composer.is_empty(),
        "Enter sent the message (no new line was added)"
    );

    // The text grows over several frames before the answer ends.
    let mut lengths_seen = Vec::new();
    step_until(&mut harness, "the streamed answer to end", |h| {
        let chat = h.state().chat();
        if let Some(live) = chat.live_in_view() {
            let len = live.text.len();
            if len > 0 && lengths_seen.last() != Some(&len) {
                lengths_seen.push(len);
            }
        }
        !chat.is_streaming() && chat.messages.len() == 2
    });
    assert!(
        lengths_seen.len() >= 3 && lengths_seen.windows(2).all(|w| w[0] < w[1]),
        "the answer arrived in growing pieces over frames: {lengths_seen:?}"
    );
    steps(&mut harness, 3);
    let reply = last_reply(&harness);
    assert_eq!(reply.state, MessageState::Complete);
    assert!(
        reply.text.len() >= *lengths_seen.last().expect("lengths"),
        "the stored answer holds everything streamed"
    );
    let cost = reply.cost_credits.expect("the reply's cost");
    assert!(cost >= 0.1, "billed at least the minimum: {cost}");

    // The conversation was created with the question's first words as title.
    let chat = harness.state().chat();
    let conversations = chat.conversations.value.clone().unwrap_or_default();
    assert_eq!(conversations.len(), 1);
    assert_eq!(conversations[0].title, question);
    assert_eq!(chat.selected, Some(conversations[0].id));

    // Markdown with a fenced block whose Copy goes through the app's clipboard path.
    let code = markdown::code_blocks(&reply.text);
    assert!(
        !code.is_empty(),
        "the answer has a code block: {}",
        reply.text
    );
    assert!(
        harness
            .query_all_by_label_contains(" credit")
            .next()
            .is_some(),
        "cost shown"
    );
    harness
        .get_all_by_role_and_label(Role::Button, "Copy")
        .next()
        .expect("a Copy button on the code block")
        .click();
    steps(&mut harness, 2);
    assert_eq!(harness.state().last_copied(), Some(code[0].as_str()));
    assert!(
        harness
            .state()
            .toast_texts()
            .iter()
            .any(|t| t == "Code copied to the clipboard")
    );

    // The balance was read again after the reply: nothing is reserved any more.
    step_until(&mut harness, "the balance after the reply", |h| {
        h.state()
            .chat()
            .balance
            .value
            .as_ref()
            .is_some_and(|b| b.reserved == 0.0)
    });
    assert!(harness.query_by_label_contains("Available ").is_some());

    // A second question, stopped with Esc once some of it has arrived.
    send_message(&mut harness, "And how do I write one back, in Rust?");
    step_until(&mut harness, "the second answer to start", |h| {
        h.state()
            .chat()
            .live_in_view()
            .is_some_and(|l| l.text.len() > 20)
    });
    assert!(
        harness
            .query_by_role_and_label(Role::Button, "Stop")
            .is_some()
    );
    // The view follows the answer as it grows (the first answer alone is taller than it)…
    let live_row = 3;
    step_until(&mut harness, "the view to follow the answer", |h| {
        h.state().chat().visible_rows.contains(&live_row)
    });
    assert!(
        !harness.state().chat().visible_rows.contains(&0),
        "the first question scrolled away: {:?}",
        harness.state().chat().visible_rows
    );
    // …until the person scrolls up: then it stays where they put it while text arrives.
    scroll_messages(&mut harness, 4_000.0);
    steps(&mut harness, 3);
    let grown_from = harness
        .state()
        .chat()
        .live_in_view()
        .map_or(0, |l| l.text.len());
    step_until(&mut harness, "more of the answer", |h| {
        h.state()
            .chat()
            .live_in_view()
            .is_some_and(|l| l.text.len() > grown_from + 10)
    });
    steps(&mut harness, 2);
    let shown = harness.state().chat().visible_rows.clone();
    assert!(
        shown.contains(&0) && !shown.contains(&live_row),
        "scrolled up, the view stays at the top: {shown:?}"
    );
    harness.key_press(egui::Key::Escape);
    step_until(&mut harness, "the stopped answer to be stored", |h| {
        !h.state().chat().is_streaming() && h.state().chat().messages.len() == 4
    });
    steps(&mut harness, 3);
    let stopped = last_reply(&harness);
    assert_eq!(stopped.state, MessageState::Stopped);
    assert!(
        stopped.text.len() > 20,
        "the text that arrived is kept: {:?}",
        stopped.text
    );
    // Only rows in view are laid out: back down to the stopped answer.
    scroll_messages(&mut harness, -20_000.0);
    steps(&mut harness, 4);
    assert!(
        harness
            .query_by_label_contains("Stopped — the answer was cut short")
            .is_some(),
        "the bubble says it was stopped"
    );
    harness.check_accessibility();
}

#[test]
fn images_are_uploaded_as_chips_sent_to_a_model_that_sees_and_refused_for_one_that_does_not() {
    // No desktop file dialog under test: the paperclip falls back to the "type a path"
    // prompt, whose answer must come back to the Chat view.
    // SAFETY: set before this test's studio starts; no other test in this binary opens a
    // file dialog or reads this variable.
    unsafe { std::env::set_var(framewright::ui::dialogs::NO_FILE_DIALOGS_ENV, "1") };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = chat_studio(&dir, FAST);

    // A model without the eye refuses the image at the chip.
    let blind = choose_model(&mut harness, false);
    let photo = fixture_photo("coffee.png");
    let (width, height) = image::image_dimensions(&photo).expect("fixture size");
    drop_file(&mut harness, photo);
    step_until(&mut harness, "the dropped image to upload", |h| {
        h.state()
            .chat()
            .attachments
            .iter()
            .any(|a| matches!(a.status, AttachmentStatus::Ready(_)))
    });
    steps(&mut harness, 2);
    assert!(
        harness.query_by_label("Remove coffee.png").is_some(),
        "a chip"
    );
    let refusal = format!("{blind} does not see images — choose a model with the eye");
    assert!(
        harness.query_all_by_label(&refusal).next().is_some(),
        "the chip says why it can't be sent"
    );
    harness.get_by_label("Message").click();
    harness.step();
    harness
        .get_by_label("Message")
        .type_text("What colours are in this picture?");
    steps(&mut harness, 2);
    assert!(!send_button_enabled(&harness), "Send is refused");
    harness.key_press(egui::Key::Enter);
    steps(&mut harness, 2);
    assert!(
        harness.state().chat().messages.is_empty(),
        "Enter did not send either"
    );

    // With a model that sees, the image goes with the message as an image part.
    choose_model(&mut harness, true);
    // The composer panel settles to its smaller height (the refusal is gone) first.
    steps(&mut harness, 3);
    assert!(harness.query_all_by_label(&refusal).next().is_none());
    assert!(send_button_enabled(&harness));
    harness.get_by_role_and_label(Role::Button, "Send").click();
    steps(&mut harness, 2);
    assert!(
        harness.state().chat().attachments.is_empty(),
        "chips go with it"
    );
    wait_for_reply(&mut harness);
    let messages = &harness.state().chat().messages;
    assert_eq!(messages[0].message.attachments.len(), 1);
    // The service may re-encode the picture (the name follows its new type).
    let sent = &messages[0].message.attachments[0];
    assert!(sent.filename.starts_with("coffee.") && sent.mime_type.starts_with("image/"));
    let answer = &messages[1].message.text;
    assert!(
        answer.contains(&format!("{width} × {height} px")),
        "the answer describes the attached image by its size: {answer}"
    );

    // The paperclip's dialog (here its typed-path fallback) attaches to the message too.
    harness
        .get_by_role_and_label(Role::Button, "Attach images")
        .click();
    step_until(&mut harness, "the path prompt", |h| {
        h.state().path_prompt_open()
    });
    steps(&mut harness, 2);
    harness.get_by_label("Path").click();
    harness.step();
    harness
        .get_by_label("Path")
        .type_text(&fixture_photo("astronaut.png").display().to_string());
    harness.step();
    harness.get_by_label("Use path").click();
    step_until(&mut harness, "the picked image to upload", |h| {
        !h.state().path_prompt_open()
            && h.state().chat().attachments.iter().any(|a| {
                a.file_name == "astronaut.png" && matches!(a.status, AttachmentStatus::Ready(_))
            })
    });
    steps(&mut harness, 2);
    harness
        .get_by_label("Remove astronaut.png")
        .click_accesskit();
    steps(&mut harness, 2);
    assert!(harness.state().chat().attachments.is_empty());

    // A pasted image (Ctrl+V with a picture on the clipboard) becomes a chip too.
    let pasted = egui::ColorImage::filled([64, 48], egui::Color32::from_rgb(200, 40, 40));
    harness
        .input_mut()
        .events
        .push(egui::Event::PasteImage(std::sync::Arc::new(pasted)));
    step_until(&mut harness, "the pasted image to upload", |h| {
        h.state().chat().attachments.iter().any(|a| {
            a.file_name.starts_with("pasted-image")
                && matches!(&a.status, AttachmentStatus::Ready(f) if f.mime_type.starts_with("image/"))
        })
    });
    steps(&mut harness, 2);
    let chip = harness
        .state()
        .chat()
        .attachments
        .first()
        .expect("pasted chip")
        .file_name
        .clone();
    // By accessibility: the chip's thumbnail may still be arriving and moving the ×.
    harness
        .get_by_label(&format!("Remove {chip}"))
        .click_accesskit();
    steps(&mut harness, 2);
    assert!(
        harness.state().chat().attachments.is_empty(),
        "× removes it"
    );
    harness.check_accessibility();
}

#[test]
fn conversations_are_searched_renamed_and_deleted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = chat_studio(&dir, FAST);
    send_message(&mut harness, "Sorting a list of tuples in Python");
    wait_for_reply(&mut harness);
    harness
        .get_by_role_and_label(Role::Button, "New conversation")
        .click();
    steps(&mut harness, 2);
    assert_eq!(harness.state().chat().selected, None);
    // Shift+Enter starts a new line; Enter sends.
    harness.get_by_label("Message").click();
    harness.step();
    harness
        .get_by_label("Message")
        .type_text("Reading environment variables in Rust");
    harness.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::Enter);
    harness.step();
    harness.get_by_label("Message").type_text("with a default");
    harness.step();
    assert_eq!(
        harness.state().chat().composer,
        "Reading environment variables in Rust\nwith a default"
    );
    harness.key_press(egui::Key::Enter);
    harness.step();
    wait_for_reply(&mut harness);
    let titles = |h: &Studio| -> Vec<String> {
        h.state()
            .chat()
            .conversations
            .value
            .clone()
            .unwrap_or_default()
            .into_iter()
            .map(|c| c.title)
            .collect()
    };
    step_until(&mut harness, "both conversations listed", |h| {
        titles(h).len() == 2
    });

    // Search filters as you type (titles and message text).
    harness.get_by_label("Search conversations").click();
    harness.step();
    harness
        .get_by_label("Search conversations")
        .type_text("tuples");
    step_until(&mut harness, "the search to filter", |h| {
        titles(h) == vec!["Sorting a list of tuples in Python".to_owned()]
    });
    harness.get_by_label("Search conversations").click();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.key_press(egui::Key::Backspace);
    step_until(&mut harness, "the whole list again", |h| {
        titles(h).len() == 2
    });
    steps(&mut harness, 2);

    // Rename the selected conversation inline: Esc cancels, Enter saves.
    harness
        .get_by_role_and_label(Role::Button, "Rename conversation")
        .click();
    steps(&mut harness, 2);
    harness.key_press(egui::Key::Escape);
    steps(&mut harness, 2);
    assert!(harness.state().chat().rename.is_none(), "Esc cancels");
    // The title is the first message's first words, its line break as a space.
    assert!(titles(&harness).contains(&"Reading environment variables in Rust with a…".to_owned()));
    harness
        .get_by_role_and_label(Role::Button, "Rename conversation")
        .click();
    steps(&mut harness, 2);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.step();
    harness
        .get_by_label("Conversation title")
        .type_text("Env vars");
    harness.step();
    harness.key_press(egui::Key::Enter);
    step_until(&mut harness, "the new title in the stored list", |h| {
        titles(h).contains(&"Env vars".to_owned()) && !h.state().chat().is_streaming()
    });

    // Any row's context menu offers the same: Delete… on the other conversation, cancelled.
    harness
        .get_by_role_and_label(Role::Button, "Sorting a list of tuples in Python")
        .click_secondary();
    steps(&mut harness, 2);
    harness
        .get_by_role_and_label(Role::Button, "Delete…")
        .click();
    steps(&mut harness, 4);
    assert!(
        harness
            .query_by_label_contains("Delete “Sorting a list of tuples in Python”?")
            .is_some()
    );
    harness
        .get_by_role_and_label(Role::Button, "Cancel")
        .click();
    steps(&mut harness, 2);
    assert!(harness.state().chat().confirm_delete.is_none());

    // Delete asks first; Cancel keeps it, Delete removes it from the store.
    harness
        .get_by_role_and_label(Role::Button, "Delete conversation")
        .click();
    steps(&mut harness, 2);
    assert_eq!(
        harness
            .state()
            .chat()
            .confirm_delete
            .as_ref()
            .map(|(_, t)| t.as_str()),
        Some("Env vars")
    );
    // A new modal's first frame only measures it.
    steps(&mut harness, 2);
    assert!(
        harness
            .query_by_label_contains("Delete “Env vars”?")
            .is_some()
    );
    harness
        .get_by_role_and_label(Role::Button, "Cancel")
        .click();
    steps(&mut harness, 2);
    assert_eq!(titles(&harness).len(), 2);
    harness
        .get_by_role_and_label(Role::Button, "Delete conversation")
        .click();
    steps(&mut harness, 4);
    harness
        .get_by_role_and_label(Role::Button, "Delete")
        .click();
    steps(&mut harness, 2);
    assert_eq!(harness.state().chat().selected, None, "the view is empty");
    step_until(&mut harness, "the list from the store without it", |h| {
        titles(h) == vec!["Sorting a list of tuples in Python".to_owned()]
    });
    harness.check_accessibility();
}

#[test]
fn the_creative_mode_is_hosted_in_the_chat_view_and_answers_as_a_job() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = chat_studio(&dir, FAST);
    harness
        .get_by_role_and_label(Role::Button, "Creative chat")
        .click();
    step_until(&mut harness, "the creative mode's picker", |h| {
        h.query_by_role_and_label(Role::ComboBox, "Chat model")
            .is_some()
    });
    assert!(
        harness.query_by_label("Choose the model").is_none(),
        "the assistant's header is not shown in this mode"
    );
    step_until(&mut harness, "the creative conversations", |h| {
        h.state().chat().creative.conversations.is_loaded()
    });
    steps(&mut harness, 2);
    send_message(&mut harness, "Three names for a harbour café");
    step_until(&mut harness, "the creative answer", |h| {
        h.state().jobs().iter().any(|job| {
            job.spec.kind == framewright::api::GenerationKind::Chat
                && job.phase == framewright::engine::JobPhase::Completed
        })
    });
    // The answer shows in the creative mode's conversation (events routed by the studio).
    step_until(&mut harness, "the conversation with its answer", |h| {
        let creative = &h.state().chat().creative;
        creative.selected_conversation().is_some_and(|id| {
            creative
                .messages
                .get(id)
                .and_then(|m| m.value.as_ref())
                .is_some_and(|m| {
                    m.iter()
                        .any(|m| m.role == framewright::api::ChatRole::Assistant)
                })
        })
    });
    // Back to the assistant: its own state is where it was.
    harness
        .get_by_role_and_label(Role::Button, "Assistant")
        .click();
    steps(&mut harness, 2);
    assert!(harness.query_by_label("Choose the model").is_some());
    harness.check_accessibility();
}
