//! The Chat view's "Creative chat" mode: the generation-side chat of document 1. The
//! service's conversations on the left (with "New conversation"), the chosen one's
//! messages rendered as Markdown, and a composer with a model picker of the catalog's text
//! models whose Send button carries the price. A message is an ordinary job
//! (`Command::Submit` with a [`GenerationKind::Chat`] spec), so it shows in the tray like
//! any generation; while it runs its answer reads "Thinking…" with the job's progress,
//! then the answer, or the failure as it is.
//!
//! Hosting takes two calls: [`creative_chat_ui`] once per frame (returns the actions to
//! apply) and [`CreativeChatState::handle_event`] for every engine event (it keeps the
//! conversation list and messages it asked for; other events are ignored). No I/O here.

use crate::api::creative_chat::{
    chat_message_price, chat_message_problem, chat_models, chat_spec, routed_chat_model,
};
use crate::api::{ChatConversation, ChatMessage, ChatRole, GenerationKind, JobState};
use crate::engine::{Command, Event, JobPhase, JobRecord, LocalJobId};
use crate::ui::model::{Action, Confirm, Model, Requested};
use crate::ui::{format, job_wording, offline, tokens, widgets};
use egui::{RichText, Ui};
use std::collections::{HashMap, HashSet};

pub mod markdown;
pub mod names;

/// Width of the conversation list.
const LIST_WIDTH_PT: f32 = 240.0;
/// Height of the composer's text field, in text rows.
const COMPOSER_ROWS: usize = 3;
/// The composer's accessible name (also its label).
pub const COMPOSER_LABEL: &str = "Message";
/// The model picker's accessible name.
pub const MODEL_PICKER_LABEL: &str = "Chat model";
/// The conversation being written in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Selection {
    /// The next message opens a new conversation.
    #[default]
    New,
    /// A conversation of the service, by its `session_id`.
    Conversation(String),
}

/// Everything the creative chat remembers between frames.
#[derive(Default)]
pub struct CreativeChatState {
    /// The service's conversations, most recently active first.
    pub conversations: Requested<Vec<ChatConversation>>,
    /// Messages by conversation, as last read.
    pub messages: HashMap<String, Requested<Vec<ChatMessage>>>,
    pub selection: Selection,
    /// The message being written.
    pub composer: String,
    /// Why the last Send was refused, shown under the field until the text changes.
    pub composer_problem: Option<String>,
    /// The chosen chat model's identifier; `None` is Auto (the service routes it).
    pub model_choice: Option<String>,
    /// Messages sent into a new conversation whose job has not been seen yet.
    new_conversation_sends: Vec<String>,
    /// Chat jobs sent into a new conversation that has no id yet.
    awaiting_conversation: HashSet<LocalJobId>,
    /// Every chat job seen so far.
    known_jobs: HashSet<LocalJobId>,
    /// Chat jobs already seen finished (their conversation was re-read once).
    finished_seen: HashSet<LocalJobId>,
    /// Whether the journal's jobs were taken in (restored jobs finished long ago must not
    /// each re-read their conversation).
    jobs_primed: bool,
    /// Scroll the messages to the end on the next frame.
    scroll_to_end: bool,
}

impl std::fmt::Debug for CreativeChatState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CreativeChatState")
            .field("selection", &self.selection)
            .field("composer", &self.composer)
            .field("model_choice", &self.model_choice)
            .finish_non_exhaustive()
    }
}

impl CreativeChatState {
    /// Take in an engine event; only the creative chat's own answers change anything.
    /// Returns actions to apply (none today; kept so hosts treat every panel alike).
    pub fn handle_event(&mut self, event: &Event) -> Vec<Action> {
        match event {
            Event::ChatConversations(result) => {
                self.conversations
                    .set(result.clone().map_err(|e| e.to_string()));
            }
            Event::ChatMessages { session_id, result } => {
                let entry = self.messages.entry(session_id.clone()).or_default();
                entry.set(result.clone().map_err(|e| e.to_string()));
                if self.selection == Selection::Conversation(session_id.clone()) {
                    self.scroll_to_end = true;
                }
            }
            _ => {}
        }
        Vec::new()
    }

    /// What `conversation` is called on screen: its first question while the service's
    /// automatic name stands (see [`names`]).
    pub fn conversation_title(&self, conversation: &ChatConversation, model: &Model) -> String {
        let question = self.first_question(&conversation.session_id, model);
        names::conversation_title(conversation, question.as_deref())
    }

    /// The first question asked in `session_id`: from its messages as read, else from this
    /// studio's own chat jobs into it (the list is read before any conversation is opened).
    fn first_question(&self, session_id: &str, model: &Model) -> Option<String> {
        let read = self
            .messages
            .get(session_id)
            .and_then(|read| read.value.as_ref())
            .and_then(|messages| {
                messages
                    .iter()
                    .find(|m| m.role == ChatRole::User && !m.content.trim().is_empty())
            });
        if let Some(message) = read {
            return Some(message.content.clone());
        }
        model
            .jobs
            .values()
            .filter(|job| job.spec.kind == GenerationKind::Chat)
            .filter(|job| job.spec.request.session_id.as_deref() == Some(session_id))
            .min_by_key(|job| job.submitted_at_unix_ms)
            .map(|job| job.spec.request.prompt.clone())
    }

    /// The selected conversation's id, if one is selected.
    pub fn selected_conversation(&self) -> Option<&str> {
        match &self.selection {
            Selection::Conversation(id) => Some(id),
            Selection::New => None,
        }
    }

    /// Show `session_id` and read its messages (again).
    fn select(&mut self, session_id: String, actions: &mut Vec<Action>) {
        self.selection = Selection::Conversation(session_id.clone());
        self.scroll_to_end = true;
        self.request_messages(&session_id, actions);
    }

    fn request_conversations(&mut self, actions: &mut Vec<Action>) {
        if !self.conversations.pending {
            self.conversations.request();
            actions.push(Action::Send(Box::new(Command::LoadChatConversations)));
        }
    }

    fn request_messages(&mut self, session_id: &str, actions: &mut Vec<Action>) {
        let entry = self.messages.entry(session_id.to_owned()).or_default();
        if !entry.pending {
            entry.request();
            actions.push(Action::Send(Box::new(Command::LoadChatMessages {
                session_id: session_id.to_owned(),
            })));
        }
    }

    /// Follow the chat jobs: a message sent into a new conversation selects that
    /// conversation once the service named it; a finished answer re-reads its
    /// conversation (the service's copy replaces the job's) and the list.
    fn observe_jobs(&mut self, model: &Model, actions: &mut Vec<Action>) {
        let chat_jobs = model
            .jobs
            .values()
            .filter(|job| job.spec.kind == GenerationKind::Chat);
        if !model.jobs_restored {
            return; // the journal's jobs are not in yet
        }
        if !self.jobs_primed {
            self.jobs_primed = true;
            self.known_jobs = chat_jobs.clone().map(|job| job.local_id).collect();
            self.finished_seen = chat_jobs
                .clone()
                .filter(|job| job.phase.is_finished())
                .map(|job| job.local_id)
                .collect();
        }
        let mut learnt = None;
        let mut finished = Vec::new();
        for job in chat_jobs {
            // A job first seen (several of its updates may arrive in one frame) is ours to
            // file under a new conversation when it carries a message sent that way.
            if self.known_jobs.insert(job.local_id)
                && let Some(index) = self
                    .new_conversation_sends
                    .iter()
                    .position(|sent| *sent == job.spec.request.prompt)
            {
                self.new_conversation_sends.remove(index);
                self.awaiting_conversation.insert(job.local_id);
            }
            let conversation = job.spec.request.session_id.clone();
            if let Some(id) = &conversation
                && self.awaiting_conversation.remove(&job.local_id)
            {
                learnt = Some(id.clone());
            }
            if job.phase.is_finished() {
                // Refused or lost without a conversation: nothing to wait for.
                self.awaiting_conversation.remove(&job.local_id);
                if self.finished_seen.insert(job.local_id) {
                    finished.push(conversation);
                }
            }
        }
        if let Some(id) = learnt {
            if self.selection == Selection::New {
                self.select(id, actions);
            }
            self.request_conversations(actions);
        }
        if finished.is_empty() {
            return;
        }
        for id in finished.into_iter().flatten() {
            // Forget a pending read: it may have left before the answer was written.
            if let Some(entry) = self.messages.get_mut(&id) {
                entry.pending = false;
            }
            self.request_messages(&id, actions);
        }
        self.scroll_to_end = true;
        self.conversations.pending = false;
        self.request_conversations(actions);
    }

    /// Validate and send the composer's text; a refusal is shown at the field.
    fn send(&mut self, model: &Model, actions: &mut Vec<Action>) {
        let catalog = model.catalog.value.as_deref().unwrap_or_default();
        let record = match &self.model_choice {
            Some(id) => catalog.iter().find(|m| &m.identifier == id),
            None => routed_chat_model(catalog),
        };
        if let Some(problem) = chat_message_problem(&self.composer, record) {
            self.composer_problem = Some(problem);
            return;
        }
        let message = self.composer.trim().to_owned();
        if self.selection == Selection::New {
            self.new_conversation_sends.push(message.clone());
        }
        let spec = chat_spec(
            &message,
            self.selected_conversation(),
            self.model_choice.as_deref(),
        );
        let model_label = match (&self.model_choice, record) {
            (Some(_), Some(record)) => record.display_name().to_owned(),
            (Some(id), None) => id.clone(),
            (None, _) => "Auto".to_owned(),
        };
        actions.push(Action::Send(Box::new(Command::Submit {
            spec,
            model_label,
            credits_estimate: chat_message_price(catalog, self.model_choice.as_deref()),
        })));
        self.composer.clear();
        self.composer_problem = None;
        self.scroll_to_end = true;
    }
}

/// The creative chat, laid out in `ui` (the Chat view's body). Returns the actions for the
/// host to apply (engine commands, copies, confirmations).
pub fn creative_chat_ui(ui: &mut Ui, state: &mut CreativeChatState, model: &Model) -> Vec<Action> {
    let mut actions = Vec::new();
    if !state.conversations.is_loaded() && state.conversations.error.is_none() {
        state.request_conversations(&mut actions);
    }
    state.observe_jobs(model, &mut actions);
    if let Some(id) = state.selected_conversation().map(str::to_owned)
        && !state.messages.contains_key(&id)
    {
        state.request_messages(&id, &mut actions);
    }

    egui::Panel::left("creative_chat_conversations")
        .exact_size(LIST_WIDTH_PT)
        .resizable(false)
        .show_separator_line(false)
        .frame(widgets::side_panel_frame(egui::Margin::symmetric(10, 12)))
        .show(ui, |ui| {
            conversation_list_ui(ui, state, model, &mut actions)
        });
    egui::Panel::bottom("creative_chat_composer")
        .resizable(false)
        .show_separator_line(false)
        .frame(egui::Frame::new().inner_margin(egui::Margin {
            left: 16,
            right: 8,
            top: 8,
            bottom: 10,
        }))
        .show(ui, |ui| composer_ui(ui, state, model, &mut actions));
    egui::CentralPanel::default()
        .frame(egui::Frame::new().inner_margin(egui::Margin {
            left: 16,
            right: 8,
            top: 12,
            bottom: 0,
        }))
        .show(ui, |ui| transcript_ui(ui, state, model, &mut actions));
    actions
}

fn conversation_list_ui(
    ui: &mut Ui,
    state: &mut CreativeChatState,
    model: &Model,
    actions: &mut Vec<Action>,
) {
    ui.horizontal(|ui| {
        widgets::section_label(ui, "Conversations");
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let refresh = ui
                .add(widgets::subtle_button("Refresh").small())
                .on_hover_text("Read the conversation list again");
            if refresh.clicked() {
                state.conversations.pending = false;
                state.request_conversations(actions);
            }
        });
    });
    ui.add_space(tokens::SPACE_XS);
    let new_selected = state.selection == Selection::New;
    let new = ui.add_sized(
        [ui.available_width(), 30.0],
        widgets::toggle_button("New conversation", new_selected),
    );
    if new.clicked() {
        state.selection = Selection::New;
        state.composer_problem = None;
    }
    ui.add_space(tokens::SPACE_S);
    if let Some(error) = &state.conversations.error {
        offline::load_error_ui(ui, model, "Conversations could not be read", error);
        if ui.add(widgets::secondary_button("Try again")).clicked() {
            state.conversations.error = None;
            state.conversations.pending = false;
            state.request_conversations(actions);
        }
    }
    let Some(conversations) = state.conversations.value.clone() else {
        if state.conversations.pending {
            widgets::muted(ui, "Loading conversations…");
        }
        return;
    };
    if conversations.is_empty() {
        widgets::muted(ui, "No conversations yet. Write a message to start one.");
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("creative_chat_conversation_list")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for conversation in &conversations {
                let selected = state.selected_conversation() == Some(&conversation.session_id);
                let when = conversation
                    .last_activity
                    .as_deref()
                    .or(conversation.created_at.as_deref())
                    .map(format::timestamp)
                    .unwrap_or_default();
                let title = state.conversation_title(conversation, model);
                let text = if when.is_empty() {
                    title
                } else {
                    format!("{title}\n{when}")
                };
                let response = ui.add_sized(
                    [ui.available_width(), 40.0],
                    egui::Button::selectable(selected, text),
                );
                if response.clicked() {
                    state.composer_problem = None;
                    state.select(conversation.session_id.clone(), actions);
                }
            }
        });
}

/// The chat jobs filed under the selection, oldest first.
fn jobs_in<'m>(model: &'m Model, selection: &Selection) -> Vec<&'m JobRecord> {
    model
        .jobs
        .values()
        .filter(|job| job.spec.kind == GenerationKind::Chat)
        .filter(|job| match selection {
            Selection::New => job.spec.request.session_id.is_none(),
            Selection::Conversation(id) => job.spec.request.session_id.as_deref() == Some(id),
        })
        .collect()
}

/// One message or answer of the transcript, in display order.
enum Turn<'a> {
    Said(&'a ChatMessage),
    /// The user's message of a job the service's list does not show yet.
    Sent(&'a JobRecord),
    /// An answer still followed by the engine (or finished but not yet re-read).
    Answer(&'a JobRecord),
}

fn transcript<'a>(messages: &'a [ChatMessage], jobs: &[&'a JobRecord]) -> Vec<Turn<'a>> {
    let mut turns = Vec::with_capacity(messages.len() + jobs.len() * 2);
    let mut listed = HashSet::new();
    for message in messages {
        let job = (message.role == ChatRole::Assistant)
            .then(|| {
                jobs.iter()
                    .find(|job| job.generation_id.as_deref() == Some(&message.message_id))
            })
            .flatten();
        if message.role == ChatRole::Assistant {
            listed.insert(message.message_id.as_str());
        }
        match job {
            // The engine's copy is newer while it runs (progress) and until the service's
            // list holds the finished answer.
            Some(job) if !message.status.is_terminal() => turns.push(Turn::Answer(job)),
            _ => turns.push(Turn::Said(message)),
        }
    }
    for job in jobs {
        let in_list = job
            .generation_id
            .as_deref()
            .is_some_and(|id| listed.contains(id));
        if !in_list {
            turns.push(Turn::Sent(job));
            turns.push(Turn::Answer(job));
        }
    }
    turns
}

fn transcript_ui(
    ui: &mut Ui,
    state: &mut CreativeChatState,
    model: &Model,
    actions: &mut Vec<Action>,
) {
    let title = match &state.selection {
        Selection::New => "New conversation".to_owned(),
        Selection::Conversation(id) => state
            .conversations
            .value
            .as_deref()
            .unwrap_or_default()
            .iter()
            .find(|c| &c.session_id == id)
            .map_or_else(|| id.clone(), |c| state.conversation_title(c, model)),
    };
    ui.label(
        RichText::new(title)
            .size(tokens::TEXT_TITLE)
            .strong()
            .color(tokens::palette().text),
    );
    ui.add_space(tokens::SPACE_XS);

    let jobs = jobs_in(model, &state.selection);
    let (messages, loading, error) = match state.selected_conversation() {
        Some(id) => match state.messages.get(id) {
            Some(read) => (
                read.value.clone().unwrap_or_default(),
                read.pending && !read.is_loaded(),
                read.error.clone(),
            ),
            None => (Vec::new(), true, None),
        },
        None => (Vec::new(), false, None),
    };
    if let Some(error) = &error {
        offline::load_error_ui(ui, model, "Messages could not be read", error);
    }
    let turns = transcript(&messages, &jobs);
    let scroll_to_end = std::mem::take(&mut state.scroll_to_end);
    egui::ScrollArea::vertical()
        .id_salt("creative_chat_transcript")
        .auto_shrink([false, false])
        .stick_to_bottom(true)
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            if turns.is_empty() {
                let hint = if loading {
                    "Loading messages…"
                } else {
                    "Ask for ideas, a script, a shot list or a prompt. Each answer is billed \
                     at the model's price per message, shown on Send."
                };
                widgets::muted(ui, hint);
            }
            for (index, turn) in turns.iter().enumerate() {
                ui.push_id(("turn", index), |ui| match turn {
                    Turn::Said(message) => said_ui(ui, message, actions),
                    Turn::Sent(job) => user_bubble(ui, &job.spec.request.prompt),
                    Turn::Answer(job) => job_answer_ui(ui, model, job, actions),
                });
                ui.add_space(tokens::SPACE_S);
            }
            if scroll_to_end {
                ui.scroll_to_cursor(Some(egui::Align::BOTTOM));
            }
        });
}

fn user_bubble(ui: &mut Ui, text: &str) {
    ui.with_layout(egui::Layout::top_down(egui::Align::Max), |ui| {
        egui::Frame::new()
            .fill(tokens::palette().accent_soft)
            .corner_radius(egui::CornerRadius::same(tokens::RADIUS_L))
            .inner_margin(egui::Margin::symmetric(12, 8))
            .show(ui, |ui| {
                ui.set_max_width((ui.available_width() * 0.8).max(200.0));
                ui.add(
                    egui::Label::new(
                        RichText::new(text)
                            .size(tokens::TEXT_BODY)
                            .color(tokens::palette().text),
                    )
                    .wrap(),
                );
            });
    });
}

/// The frame every answer sits in, with its byline ("Claude Sonnet · 3 credits").
fn answer_frame(ui: &mut Ui, byline: &str, body: impl FnOnce(&mut Ui)) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        if !byline.is_empty() {
            ui.label(
                RichText::new(byline)
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_faint),
            );
        }
        body(ui);
    });
}

fn copy_button(ui: &mut Ui, content: &str, actions: &mut Vec<Action>) {
    let copy = ui
        .add(widgets::subtle_button("Copy answer").small())
        .on_hover_text("Copy the answer's Markdown");
    if copy.clicked() {
        actions.push(Action::CopyText {
            text: content.to_owned(),
            what: "Answer".to_owned(),
        });
    }
}

/// A message from the service's list.
fn said_ui(ui: &mut Ui, message: &ChatMessage, actions: &mut Vec<Action>) {
    match &message.role {
        ChatRole::User => user_bubble(ui, &message.content),
        role => {
            let mut byline = message
                .model
                .as_ref()
                .map(|m| m.display_name().to_owned())
                .unwrap_or_default();
            if let ChatRole::Other(name) = role {
                byline = format!("{name} {byline}");
            }
            if let Some(credits) = message.credits_used {
                byline.push_str(&format!(" · {}", format::credits(credits)));
            }
            answer_frame(ui, byline.trim(), |ui| match &message.status {
                JobState::Completed => {
                    markdown::answer_ui(ui, &message.message_id, &message.content, actions);
                    copy_button(ui, &message.content, actions);
                }
                JobState::Failed => {
                    let reason = message
                        .error
                        .as_deref()
                        .unwrap_or("The answer could not be written; nothing was billed.");
                    widgets::notice(ui, reason, tokens::palette().danger);
                }
                JobState::Cancelled => {
                    widgets::muted(ui, "Cancelled before it was answered; nothing was billed.");
                }
                _ => {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        widgets::muted(ui, "Thinking…");
                    });
                }
            });
        }
    }
}

/// An answer the engine follows: its phase as it is.
fn job_answer_ui(ui: &mut Ui, model: &Model, job: &JobRecord, actions: &mut Vec<Action>) {
    let mut byline = job_wording::model_name(job, model);
    match (job.credits_used, job.credits_estimate) {
        (Some(used), _) => byline.push_str(&format!(" · {}", format::credits(used))),
        (None, Some(estimate)) => {
            byline.push_str(&format!(" · about {}", format::credits(estimate)))
        }
        (None, None) => {}
    }
    answer_frame(ui, &byline, |ui| match &job.phase {
        JobPhase::Queued {
            place,
            sends_at_unix_ms,
            reason,
        } => {
            widgets::muted(
                ui,
                job_wording::queued_text(*place, *sends_at_unix_ms, *reason, format::now_unix_ms()),
            );
            cancel_button(ui, job, actions);
        }
        JobPhase::Submitting => {
            ui.horizontal(|ui| {
                ui.spinner();
                widgets::muted(ui, "Sending…");
            });
        }
        JobPhase::Running { .. } => {
            ui.horizontal(|ui| {
                ui.spinner();
                widgets::muted(
                    ui,
                    format!("Thinking… {} %", job.progress_percent.round() as u32),
                );
            });
            widgets::job_progress_bar(ui, job.progress_percent);
            if let Some(problem) = &job.poll_problem {
                widgets::notice(ui, problem, tokens::palette().warning);
            }
        }
        JobPhase::Completed => {
            let content = job
                .result
                .as_ref()
                .and_then(|r| r.content.clone())
                .unwrap_or_default();
            if content.trim().is_empty() {
                widgets::muted(ui, "The service finished without an answer text.");
            } else {
                markdown::answer_ui(ui, &format!("job-{}", job.local_id), &content, actions);
                copy_button(ui, &content, actions);
            }
        }
        JobPhase::Failed { failure } => {
            let reason = if failure.message.trim().is_empty() {
                "The answer could not be written."
            } else {
                failure.message.as_str()
            };
            widgets::notice(ui, reason, tokens::palette().danger);
            widgets::muted(ui, "Nothing was billed for it.");
            retry_button(ui, job, actions);
        }
        JobPhase::Rejected { error } => {
            let (headline, note) = job_wording::rejected_text(error);
            widgets::notice(ui, &headline, tokens::palette().danger);
            widgets::muted(ui, note);
            retry_button(ui, job, actions);
        }
        JobPhase::Unconfirmed { note } => {
            widgets::notice(ui, note, tokens::palette().warning);
        }
        JobPhase::Cancelled => {
            widgets::muted(ui, "Cancelled; nothing was billed.");
        }
    });
}

fn cancel_button(ui: &mut Ui, job: &JobRecord, actions: &mut Vec<Action>) {
    let cancel = ui
        .add(widgets::subtle_button("Cancel message").small())
        .on_hover_text(job_wording::CANCEL_QUEUED_HOVER);
    if cancel.clicked() {
        actions.push(Action::Send(Box::new(Command::Cancel {
            local_id: job.local_id,
        })));
    }
}

fn retry_button(ui: &mut Ui, job: &JobRecord, actions: &mut Vec<Action>) {
    let retry = ui
        .add(widgets::secondary_button("Send again…").small())
        .on_hover_text("Send the same message again (asks first: it is billed)");
    if retry.clicked() {
        actions.push(Action::Ask(Confirm::Retry(job.local_id)));
    }
}

/// The chat model's name and price, as the picker lists it.
fn model_option_text(name: &str, credit: Option<f64>) -> String {
    match credit {
        Some(credit) => format!("{name} · {} per message", format::credits(credit)),
        None => name.to_owned(),
    }
}

fn composer_ui(
    ui: &mut Ui,
    state: &mut CreativeChatState,
    model: &Model,
    actions: &mut Vec<Action>,
) {
    let catalog = model.catalog.value.as_deref().unwrap_or_default();
    let models = chat_models(catalog);
    // The choice may have left the catalog (renamed or retired): back to Auto.
    if let Some(id) = &state.model_choice
        && model.catalog.is_loaded()
        && !models.iter().any(|m| &m.identifier == id)
    {
        state.model_choice = None;
    }
    let auto_text = match routed_chat_model(catalog) {
        Some(routed) => {
            model_option_text(&format!("Auto ({})", routed.display_name()), routed.credit)
        }
        None => "Auto".to_owned(),
    };
    ui.horizontal(|ui| {
        let label = ui.label(
            RichText::new(MODEL_PICKER_LABEL)
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_muted),
        );
        let selected_text = match &state.model_choice {
            None => auto_text.clone(),
            Some(id) => models.iter().find(|m| &m.identifier == id).map_or_else(
                || id.clone(),
                |m| model_option_text(m.display_name(), m.credit),
            ),
        };
        egui::ComboBox::from_id_salt("creative_chat_model")
            .selected_text(selected_text)
            .width(320.0)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut state.model_choice, None, auto_text.clone());
                for record in &models {
                    ui.selectable_value(
                        &mut state.model_choice,
                        Some(record.identifier.clone()),
                        model_option_text(record.display_name(), record.credit),
                    );
                }
            })
            .response
            .labelled_by(label.id);
        if models.is_empty() && model.catalog.pending {
            widgets::muted(ui, "Loading models…");
        }
    });
    ui.add_space(tokens::SPACE_XS);

    let composer_id = ui.make_persistent_id("creative_chat_composer_text");
    // Enter sends, Shift+Enter (or any modifier) is a new line: a plain Enter is taken out
    // of the input before the field sees it.
    let mut enter_pressed = false;
    if ui.memory(|m| m.has_focus(composer_id)) {
        ui.input_mut(|input| {
            input.events.retain(|event| {
                let plain_enter = matches!(
                    event,
                    egui::Event::Key { key: egui::Key::Enter, pressed: true, modifiers, .. }
                        if modifiers.is_none()
                );
                enter_pressed |= plain_enter;
                !plain_enter
            });
        });
    }
    let price = chat_message_price(catalog, state.model_choice.as_deref());
    let send_text = match price {
        Some(credits) => format!("Send · {}", format::credits(credits)),
        None => "Send".to_owned(),
    };
    let mut send = enter_pressed;
    ui.horizontal(|ui| {
        let button_width = 130.0;
        let field_width = (ui.available_width() - button_width - tokens::SPACE_S).max(120.0);
        let before = state.composer.clone();
        let field = ui.add(
            egui::TextEdit::multiline(&mut state.composer)
                .id(composer_id)
                .desired_rows(COMPOSER_ROWS)
                .desired_width(field_width)
                .hint_text("Write a message — Enter sends, Shift+Enter starts a new line"),
        );
        widgets::name_widget(&field, COMPOSER_LABEL);
        if state.composer != before {
            state.composer_problem = None;
        }
        let button = ui
            .add_sized([button_width, 32.0], widgets::primary_button(send_text))
            .on_hover_text("Each answer is billed at the model's price per message");
        send |= button.clicked();
    });
    if let Some(problem) = &state.composer_problem {
        widgets::field_error(ui, problem);
    }
    if send {
        state.send(model, actions);
        ui.memory_mut(|m| m.request_focus(composer_id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ChatModelRef, GenerationSpec, JobResult};

    fn job(local_id: LocalJobId, generation_id: Option<&str>, phase: JobPhase) -> JobRecord {
        JobRecord {
            local_id,
            generation_id: generation_id.map(str::to_owned),
            spec: chat_spec("hello", Some("s1"), None),
            model_label: "Auto".into(),
            phase,
            progress_percent: 40.0,
            submitted_at_unix_ms: 0,
            finished_at_unix_ms: None,
            credits_estimate: Some(3.0),
            credits_used: None,
            result: None,
            poll_problem: None,
            poll_interval_secs: 2.0,
            scenes: Vec::new(),
        }
    }

    fn message(id: &str, role: ChatRole, status: JobState) -> ChatMessage {
        ChatMessage {
            message_id: id.into(),
            role,
            content: "text".into(),
            status,
            model: Some(ChatModelRef::default()),
            ..ChatMessage::default()
        }
    }

    fn kinds(turns: &[Turn<'_>]) -> Vec<String> {
        turns
            .iter()
            .map(|turn| match turn {
                Turn::Said(m) => format!("said {}", m.message_id),
                Turn::Sent(j) => format!("sent {}", j.local_id),
                Turn::Answer(j) => format!("answer {}", j.local_id),
            })
            .collect()
    }

    #[test]
    fn the_services_list_wins_once_it_holds_the_finished_answer() {
        let running = job(
            1,
            Some("g1"),
            JobPhase::Running {
                state: JobState::Processing,
            },
        );
        let queued = job(
            2,
            None,
            JobPhase::Queued {
                place: 1,
                sends_at_unix_ms: None,
                reason: crate::engine::QueueReason::RateLimit,
            },
        );
        let mut done = job(3, Some("g3"), JobPhase::Completed);
        done.result = Some(JobResult {
            content: Some("answer".into()),
            ..JobResult::default()
        });
        let jobs = vec![&running, &queued, &done];
        // Nothing read yet: every job is its message and its answer.
        assert_eq!(
            kinds(&transcript(&[], &jobs)),
            [
                "sent 1", "answer 1", "sent 2", "answer 2", "sent 3", "answer 3"
            ]
        );
        // The service lists the running answer (still processing) and the finished one.
        let messages = vec![
            message("u1", ChatRole::User, JobState::Completed),
            message("g1", ChatRole::Assistant, JobState::Processing),
            message("u3", ChatRole::User, JobState::Completed),
            message("g3", ChatRole::Assistant, JobState::Completed),
        ];
        assert_eq!(
            kinds(&transcript(&messages, &jobs)),
            [
                "said u1", "answer 1", "said u3", "said g3", "sent 2", "answer 2"
            ]
        );
    }

    #[test]
    fn picker_options_name_the_price() {
        // The option text the picker shows for a priced model.
        assert_eq!(
            model_option_text("GPT-5 mini", Some(1.0)),
            "GPT-5 mini · 1 credit per message"
        );
        assert_eq!(model_option_text("X", None), "X");
    }

    #[test]
    fn a_spec_for_the_selection() {
        let mut state = CreativeChatState::default();
        let model = Model::default();
        let mut actions = Vec::new();
        state.send(&model, &mut actions);
        assert!(actions.is_empty(), "an empty message is not sent");
        assert_eq!(
            state.composer_problem.as_deref(),
            Some("Write a message first.")
        );
        state.composer = "  Three loglines for a heist  ".into();
        state.selection = Selection::Conversation("s9".into());
        state.send(&model, &mut actions);
        let [Action::Send(command)] = actions.as_slice() else {
            panic!("{actions:?}")
        };
        let Command::Submit { spec, .. } = command.as_ref() else {
            panic!("{command:?}")
        };
        let expected: GenerationSpec = chat_spec("Three loglines for a heist", Some("s9"), None);
        assert_eq!(spec, &expected);
        assert!(state.composer.is_empty());
        assert!(state.composer_problem.is_none());
    }
}
