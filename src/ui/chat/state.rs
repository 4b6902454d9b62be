//! The Chat view's state and logic: models and balance, the conversation list and search,
//! the open conversation, the reply streaming in, the composer and its attachments. It
//! handles its own `Event::Chat` events and turns what the person does ([`ChatAction`])
//! into app [`Action`]s — every store and network operation is a `Command::Chat`.

use super::markdown::{Segment, split_segments};
use super::rows::HeightCache;
use super::words;
use crate::api::ApiError;
use crate::api::code_assistant::{
    ChatMessage, ChatRequest, ChatRole, ChatUsage, CodeBalance, CodeModel, ContentPart,
    UploadedFile,
};
use crate::engine::Command;
use crate::engine::chat::{ChatCommand, ChatEvent, StreamEnd};
use crate::engine::conversations::{Attachment, ConversationSummary, MessageState, StoredMessage};
use crate::ui::model::{Action, Requested};
use crate::ui::toasts::ToastKind;
use std::path::PathBuf;

/// How many completion tokens the cost hint assumes for the answer (it is billed by the
/// tokens actually used).
pub const TYPICAL_REPLY_TOKENS: u64 = 500;
/// Tokens the cost hint counts per attached image.
pub const IMAGE_TOKENS_ESTIMATE: u64 = 800;
/// Uploaded files stop working this long after upload (the contract's `expires_at`), so
/// older images are described instead of linked when a conversation continues.
pub const ATTACHMENT_LIFETIME_SECS: i64 = 86_400;
/// Share of a model's context the conversation history may fill (the rest is the answer's).
const CONTEXT_SHARE_FOR_HISTORY: f64 = 0.75;

/// The two kinds of chat the view offers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChatMode {
    /// The coding assistant (`/api/kolbo/v1`): streamed, billed per token.
    #[default]
    Assistant,
    /// The generation service's text models, tracked as jobs.
    Creative,
}

/// A stored message as the view shows it: the text split into Markdown and code once.
#[derive(Clone, Debug)]
pub struct ShownMessage {
    pub message: StoredMessage,
    pub segments: Vec<Segment>,
    /// Token counts, when this reply ended in this run (the store keeps only the cost).
    pub usage: Option<ChatUsage>,
}

impl ShownMessage {
    pub fn new(message: StoredMessage, usage: Option<ChatUsage>) -> Self {
        let segments = split_segments(&message.text);
        Self {
            message,
            segments,
            usage,
        }
    }
}

/// The reply streaming in.
#[derive(Clone, Debug)]
pub struct LiveReply {
    pub stream_id: u64,
    pub conversation_id: i64,
    pub model_id: String,
    pub text: String,
    /// `text` split, refreshed when it grows.
    pub segments: Vec<Segment>,
    segments_len: usize,
    /// Stop was asked for; waiting for the engine to end the stream.
    pub stopping: bool,
}

impl LiveReply {
    pub fn new(stream_id: u64, conversation_id: i64, model_id: String) -> Self {
        Self {
            stream_id,
            conversation_id,
            model_id,
            text: String::new(),
            segments: Vec::new(),
            segments_len: 0,
            stopping: false,
        }
    }

    /// Re-split the text if it grew since the last call (once a frame at most).
    pub fn refresh_segments(&mut self) {
        if self.segments_len != self.text.len() {
            self.segments = split_segments(&self.text);
            self.segments_len = self.text.len();
        }
    }
}

/// Where an attachment is.
#[derive(Clone, Debug, PartialEq)]
pub enum AttachmentStatus {
    /// A pasted image being encoded as PNG.
    Encoding,
    Uploading {
        sent_bytes: u64,
        total_bytes: u64,
    },
    Ready(UploadedFile),
    Failed(String),
}

/// An image added to the composer.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingAttachment {
    pub upload_id: u64,
    pub file_name: String,
    pub status: AttachmentStatus,
}

impl PendingAttachment {
    /// 0..=1 while uploading.
    pub fn progress(&self) -> Option<f32> {
        match self.status {
            AttachmentStatus::Uploading {
                sent_bytes,
                total_bytes,
            } if total_bytes > 0 => Some((sent_bytes as f32 / total_bytes as f32).min(1.0)),
            AttachmentStatus::Uploading { .. } | AttachmentStatus::Encoding => Some(0.0),
            _ => None,
        }
    }
}

/// An inline rename in the conversation list.
#[derive(Clone, Debug, PartialEq)]
pub struct RenameDraft {
    pub conversation_id: i64,
    pub title: String,
    /// Focus the field on the next frame (it was just opened).
    pub focus: bool,
}

/// What the person did in the view; applied by [`ChatState::apply`].
#[derive(Clone, Debug, PartialEq)]
pub enum ChatAction {
    SetMode(ChatMode),
    ChooseModel(String),
    RetryModels,
    RetryBalance,
    /// The search box changed (its text is in the state).
    SearchChanged,
    NewConversation,
    Select(i64),
    StartRename(i64),
    SaveRename,
    CancelRename,
    /// Ask before deleting (the view shows the question).
    AskDelete(i64),
    ConfirmDelete,
    CancelDelete,
    Send,
    Stop,
    PickImages,
    RemoveAttachment(u64),
    CopyCode(String),
    ToggleList,
}

/// A first message waiting for its conversation to be created.
#[derive(Clone, Debug)]
struct PendingFirstSend {
    user_message: StoredMessage,
    model_id: String,
}

/// A pasted image being PNG-encoded: its upload id, file name and the encoder's answer.
type PendingPaste = (u64, String, poll_promise::Promise<Result<Vec<u8>, String>>);

/// The staged `--screenshot-to … --view chat` scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneStep {
    /// Waiting for the models and the (empty) conversation list.
    Waiting,
    /// The question was sent; waiting for the whole answer.
    Sent,
    /// The answer is in.
    Done,
}

/// The question the screenshot scene asks.
pub const SCENE_PROMPT: &str =
    "How do I debounce a search box in Rust so it only queries after typing pauses?";

pub struct ChatState {
    pub mode: ChatMode,
    /// The "Creative chat" mode's own state (it handles its own events).
    pub creative: super::creative::CreativeChatState,
    started: bool,
    pub models: Requested<Vec<CodeModel>>,
    pub balance: Requested<CodeBalance>,
    /// The balance's last failure as the engine reported it (for the details).
    pub balance_error: Option<ApiError>,
    pub model_id: Option<String>,
    pub conversations: Requested<Vec<ConversationSummary>>,
    /// The search box's text.
    pub search: String,
    /// A list request is in flight (answers carry no query, so only one is asked at a
    /// time; a change meanwhile asks again, with the latest text, when it answers).
    list_in_flight: bool,
    list_again: bool,
    pub selected: Option<i64>,
    pub messages: Vec<ShownMessage>,
    pub messages_loading: bool,
    pub messages_error: Option<String>,
    pub live: Option<LiveReply>,
    pub composer: String,
    pub attachments: Vec<PendingAttachment>,
    pending_first: Option<PendingFirstSend>,
    /// A problem sending (e.g. the conversation could not be created), shown above the
    /// composer until the next send.
    pub send_error: Option<String>,
    pub rename: Option<RenameDraft>,
    /// The conversation whose delete is being asked about (id, title).
    pub confirm_delete: Option<(i64, String)>,
    next_id: u64,
    pub heights: HeightCache,
    /// Narrow windows: the conversation list is unfolded (wide ones always show it).
    pub list_open: bool,
    /// Scroll the messages to the bottom on the next frame.
    pub scroll_to_bottom: bool,
    /// Scroll so this message row is at the top on the next frame.
    pub scroll_to_row: Option<usize>,
    /// A scroll offset to apply on the next frame (the benchmark; keeping the view still
    /// when rows above it were measured).
    pub scroll_offset_request: Option<f32>,
    /// The message rows laid out in the last frame.
    pub visible_rows: std::ops::Range<usize>,
    /// Pasted images being encoded off the UI thread (upload id, file name, PNG bytes).
    pastes: Vec<PendingPaste>,
    pub scene: Option<SceneStep>,
    /// Estimated tokens of `messages` for the cost hint, with the message count it was
    /// counted at (the hint is drawn every frame; counting 2,000 messages is not free).
    history_tokens: std::cell::Cell<Option<(usize, u64)>>,
}

impl Default for ChatState {
    fn default() -> Self {
        Self {
            mode: ChatMode::default(),
            creative: Default::default(),
            started: false,
            models: Requested::default(),
            balance: Requested::default(),
            balance_error: None,
            model_id: None,
            conversations: Requested::default(),
            search: String::new(),
            list_in_flight: false,
            list_again: false,
            selected: None,
            messages: Vec::new(),
            messages_loading: false,
            messages_error: None,
            live: None,
            composer: String::new(),
            attachments: Vec::new(),
            pending_first: None,
            send_error: None,
            rename: None,
            confirm_delete: None,
            next_id: 1,
            heights: HeightCache::default(),
            list_open: false,
            scroll_to_bottom: false,
            scroll_to_row: None,
            scroll_offset_request: None,
            visible_rows: 0..0,
            pastes: Vec::new(),
            scene: None,
            history_tokens: std::cell::Cell::new(None),
        }
    }
}

fn chat(command: ChatCommand) -> Action {
    Action::Send(Box::new(Command::Chat(command)))
}

fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl ChatState {
    /// A state showing `messages` as an open conversation (the benchmark, tests).
    pub fn with_conversation(
        models: Vec<CodeModel>,
        conversation: ConversationSummary,
        messages: Vec<StoredMessage>,
    ) -> Self {
        let mut state = Self {
            started: true,
            model_id: models.first().map(|m| m.id.clone()),
            selected: Some(conversation.id),
            ..Self::default()
        };
        state.models.set(Ok(models));
        state.conversations.set(Ok(vec![conversation]));
        state.messages = messages
            .into_iter()
            .map(|m| ShownMessage::new(m, None))
            .collect();
        state.scroll_to_bottom = true;
        state
    }

    /// Stage the screenshot scene: ask a question as soon as the models are in.
    pub fn stage_screenshot_scene(&mut self) {
        self.scene = Some(SceneStep::Waiting);
    }

    /// The staged scene's answer is on screen (or no scene was staged).
    pub fn scene_done(&self) -> bool {
        self.scene.is_none_or(|s| s == SceneStep::Done)
    }

    fn next_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// The first time the view is shown: ask for models, balance and conversations.
    pub fn start(&mut self) -> Vec<Action> {
        if self.started {
            return Vec::new();
        }
        self.started = true;
        self.models.request();
        self.balance.request();
        let mut actions = vec![
            chat(ChatCommand::RefreshModels),
            chat(ChatCommand::RefreshBalance),
        ];
        actions.extend(self.list_conversations());
        actions
    }

    /// One step of the staged screenshot scene (once a frame).
    pub fn scene_step(&mut self) -> Vec<Action> {
        match self.scene {
            Some(SceneStep::Waiting)
                if self.models.is_loaded()
                    && self.conversations.is_loaded()
                    && !self.list_in_flight =>
            {
                self.composer = SCENE_PROMPT.to_owned();
                self.scene = Some(SceneStep::Sent);
                self.send()
            }
            Some(SceneStep::Sent)
                if self.live.is_none()
                    && self.pending_first.is_none()
                    && self
                        .messages
                        .last()
                        .is_some_and(|m| m.message.role == ChatRole::Assistant) =>
            {
                if let Some(last) = self.messages.last()
                    && last.message.state != MessageState::Complete
                {
                    // The capture still shows it; the line tells CI the scene is not right.
                    eprintln!(
                        "screenshot: the staged chat answer ended {} ({})",
                        last.message.state.as_str(),
                        last.message.error.as_deref().unwrap_or("no error given")
                    );
                }
                // The picture shows the question with its answer under it.
                self.scroll_to_row = self
                    .messages
                    .iter()
                    .rposition(|m| m.message.role == ChatRole::User);
                self.scene = Some(SceneStep::Done);
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// Ask for the conversation list for the search box's text (one request at a time).
    fn list_conversations(&mut self) -> Vec<Action> {
        if self.list_in_flight {
            self.list_again = true;
            return Vec::new();
        }
        let query = self.search.trim().to_owned();
        self.list_in_flight = true;
        self.conversations.request();
        vec![chat(ChatCommand::ListConversations { query })]
    }

    // ---- reads the view uses -----------------------------------------------------------

    pub fn current_model(&self) -> Option<&CodeModel> {
        let id = self.model_id.as_deref()?;
        self.models.value.as_deref()?.iter().find(|m| m.id == id)
    }

    pub fn is_streaming(&self) -> bool {
        self.live.is_some() || self.pending_first.is_some()
    }

    /// The reply streaming into the open conversation, if any.
    pub fn live_in_view(&self) -> Option<&LiveReply> {
        self.live
            .as_ref()
            .filter(|live| Some(live.conversation_id) == self.selected)
    }

    /// The first message of a conversation still being created (shown as sent).
    pub fn pending_first_message(&self) -> Option<&StoredMessage> {
        self.pending_first.as_ref().map(|p| &p.user_message)
    }

    pub fn has_images(&self) -> bool {
        !self.attachments.is_empty()
    }

    /// Why Send is refused right now, in words; `None` when it may be pressed.
    pub fn send_refusal(&self) -> Option<String> {
        if self.is_streaming() {
            return Some("Wait for the answer to finish, or stop it".to_owned());
        }
        let Some(model) = self.current_model() else {
            return Some(if self.models.is_loaded() {
                "Choose a model first".to_owned()
            } else {
                "The models are still loading".to_owned()
            });
        };
        if let Some(refusal) = self.vision_refusal(model) {
            return Some(refusal);
        }
        if self.attachments.iter().any(|a| {
            matches!(
                a.status,
                AttachmentStatus::Uploading { .. } | AttachmentStatus::Encoding
            )
        }) {
            return Some("Wait for the upload to finish".to_owned());
        }
        if self
            .attachments
            .iter()
            .any(|a| matches!(a.status, AttachmentStatus::Failed(_)))
        {
            return Some("Remove the image that failed to upload".to_owned());
        }
        if self.composer.trim().is_empty() && self.attachments.is_empty() {
            return Some("Write a message first".to_owned());
        }
        None
    }

    /// The message at the chips when images are attached for a model that can't see them.
    pub fn vision_refusal(&self, model: &CodeModel) -> Option<String> {
        (self.has_images() && !model.supports_vision).then(|| {
            format!(
                "{} does not see images — choose a model with the eye",
                model.name
            )
        })
    }

    /// About what the next send costs with the current model: the conversation so far and
    /// the message as prompt, a typical answer as completion, the contract's rounding.
    pub fn estimated_cost(&self) -> Option<f64> {
        let model = self.current_model()?;
        let history = match self.history_tokens.get() {
            Some((count, tokens)) if count == self.messages.len() => tokens,
            _ => {
                let tokens = self
                    .messages
                    .iter()
                    .map(|m| words::estimate_tokens(&m.message.text))
                    .sum();
                self.history_tokens.set(Some((self.messages.len(), tokens)));
                tokens
            }
        };
        let images = self.attachments.len() as u64 * IMAGE_TOKENS_ESTIMATE;
        let prompt_tokens = history + words::estimate_tokens(&self.composer) + images;
        let usage = ChatUsage {
            prompt_tokens,
            completion_tokens: TYPICAL_REPLY_TOKENS,
            total_tokens: prompt_tokens + TYPICAL_REPLY_TOKENS,
            cost_credits: None,
        };
        Some(model.cost_credits(&usage))
    }

    // ---- what the person does ----------------------------------------------------------

    pub fn apply(&mut self, action: ChatAction) -> Vec<Action> {
        match action {
            ChatAction::SetMode(mode) => {
                self.mode = mode;
                Vec::new()
            }
            ChatAction::ChooseModel(id) => {
                self.model_id = Some(id);
                Vec::new()
            }
            ChatAction::RetryModels => {
                self.models.request();
                vec![chat(ChatCommand::RefreshModels)]
            }
            ChatAction::RetryBalance => {
                self.balance.request();
                vec![chat(ChatCommand::RefreshBalance)]
            }
            ChatAction::SearchChanged => self.list_conversations(),
            ChatAction::NewConversation => {
                self.open(None);
                Vec::new()
            }
            ChatAction::Select(id) => {
                if self.selected == Some(id) {
                    return Vec::new();
                }
                self.open(Some(id));
                if let Some(model_id) = self.conversation(id).map(|c| c.model_id.clone())
                    && self
                        .models
                        .value
                        .as_deref()
                        .unwrap_or_default()
                        .iter()
                        .any(|m| m.id == model_id)
                {
                    self.model_id = Some(model_id);
                }
                self.messages_loading = true;
                vec![chat(ChatCommand::LoadConversation {
                    conversation_id: id,
                })]
            }
            ChatAction::StartRename(id) => {
                let title = self.conversation(id).map(|c| c.title.clone());
                self.rename = title.map(|title| RenameDraft {
                    conversation_id: id,
                    title,
                    focus: true,
                });
                Vec::new()
            }
            ChatAction::SaveRename => self.save_rename(),
            ChatAction::CancelRename => {
                self.rename = None;
                Vec::new()
            }
            ChatAction::AskDelete(id) => {
                let title = self.conversation(id).map(|c| c.title.clone());
                self.confirm_delete = title.map(|title| (id, title));
                Vec::new()
            }
            ChatAction::ConfirmDelete => self.delete_confirmed(),
            ChatAction::CancelDelete => {
                self.confirm_delete = None;
                Vec::new()
            }
            ChatAction::Send => self.send(),
            ChatAction::Stop => self.stop(),
            ChatAction::PickImages => vec![Action::PickChatImages],
            ChatAction::RemoveAttachment(upload_id) => {
                let Some(index) = self
                    .attachments
                    .iter()
                    .position(|a| a.upload_id == upload_id)
                else {
                    return Vec::new();
                };
                let removed = self.attachments.remove(index);
                self.pastes.retain(|(id, _, _)| *id != upload_id);
                match removed.status {
                    AttachmentStatus::Uploading { .. } => {
                        vec![chat(ChatCommand::CancelUpload { upload_id })]
                    }
                    _ => Vec::new(),
                }
            }
            ChatAction::CopyCode(code) => vec![Action::CopyText {
                text: code,
                what: "Code".to_owned(),
            }],
            ChatAction::ToggleList => {
                self.list_open = !self.list_open;
                Vec::new()
            }
        }
    }

    fn conversation(&self, id: i64) -> Option<&ConversationSummary> {
        self.conversations
            .value
            .as_deref()?
            .iter()
            .find(|c| c.id == id)
    }

    /// Show conversation `id` (or a new, empty one).
    fn open(&mut self, id: Option<i64>) {
        self.selected = id;
        self.messages.clear();
        self.history_tokens.set(None);
        self.messages_error = None;
        self.messages_loading = false;
        self.heights.clear();
        self.rename = None;
        self.send_error = None;
        self.scroll_to_bottom = true;
    }

    fn save_rename(&mut self) -> Vec<Action> {
        let Some(draft) = self.rename.take() else {
            return Vec::new();
        };
        let title = draft.title.trim().to_owned();
        if title.is_empty() {
            return vec![Action::Toast(
                ToastKind::Error,
                "A conversation needs a title; the old one was kept.".to_owned(),
            )];
        }
        if let Some(list) = self.conversations.value.as_mut()
            && let Some(row) = list.iter_mut().find(|c| c.id == draft.conversation_id)
        {
            row.title = title.clone();
        }
        vec![chat(ChatCommand::RenameConversation {
            conversation_id: draft.conversation_id,
            title,
        })]
    }

    fn delete_confirmed(&mut self) -> Vec<Action> {
        let Some((id, _)) = self.confirm_delete.take() else {
            return Vec::new();
        };
        if let Some(list) = self.conversations.value.as_mut() {
            list.retain(|c| c.id != id);
        }
        if self.selected == Some(id) {
            self.open(None);
        }
        if self
            .rename
            .as_ref()
            .is_some_and(|r| r.conversation_id == id)
        {
            self.rename = None;
        }
        vec![chat(ChatCommand::DeleteConversation {
            conversation_id: id,
        })]
    }

    fn stop(&mut self) -> Vec<Action> {
        match self.live.as_mut() {
            Some(live) if !live.stopping => {
                live.stopping = true;
                vec![chat(ChatCommand::Stop {
                    stream_id: live.stream_id,
                })]
            }
            _ => Vec::new(),
        }
    }

    /// Send the composer's message: create the conversation first when none is open.
    pub fn send(&mut self) -> Vec<Action> {
        // The reason is already written under the Send button (a toast would cover it).
        if self.send_refusal().is_some() {
            return Vec::new();
        }
        let Some(model_id) = self.model_id.clone() else {
            return Vec::new();
        };
        let attachments = self
            .attachments
            .iter()
            .filter_map(|a| match &a.status {
                AttachmentStatus::Ready(file) => Some(Attachment {
                    file_id: file.id.clone(),
                    url: file.url.clone(),
                    filename: file.filename.clone(),
                    mime_type: file.mime_type.clone(),
                    bytes: file.bytes,
                }),
                _ => None,
            })
            .collect();
        let user_message = StoredMessage {
            role: ChatRole::User,
            text: self.composer.trim().to_owned(),
            attachments,
            model_id: model_id.clone(),
            cost_credits: None,
            state: MessageState::Complete,
            error: None,
            created_at: now_rfc3339(),
        };
        self.composer.clear();
        self.attachments.clear();
        self.send_error = None;
        self.scroll_to_bottom = true;
        match self.selected {
            Some(conversation_id) => self.send_in(conversation_id, user_message, model_id),
            None => {
                let title = words::title_from_message(if user_message.text.is_empty() {
                    "Image"
                } else {
                    &user_message.text
                });
                self.messages.clear();
                self.history_tokens.set(None);
                self.heights.clear();
                self.pending_first = Some(PendingFirstSend {
                    user_message,
                    model_id: model_id.clone(),
                });
                vec![chat(ChatCommand::CreateConversation { title, model_id })]
            }
        }
    }

    fn send_in(
        &mut self,
        conversation_id: i64,
        user_message: StoredMessage,
        model_id: String,
    ) -> Vec<Action> {
        let Some(model) = self
            .models
            .value
            .as_deref()
            .unwrap_or_default()
            .iter()
            .find(|m| m.id == model_id)
            .cloned()
        else {
            return Vec::new();
        };
        let now_secs = chrono::Utc::now().timestamp();
        let history: Vec<&StoredMessage> = self.messages.iter().map(|m| &m.message).collect();
        let request = build_request(&model, &history, &user_message, now_secs);
        self.messages
            .push(ShownMessage::new(user_message.clone(), None));
        let stream_id = self.next_id();
        self.live = Some(LiveReply::new(stream_id, conversation_id, model_id));
        vec![chat(ChatCommand::Send {
            conversation_id,
            stream_id,
            user_message,
            request,
        })]
    }

    /// Files dropped on the view or picked in the dialog: images are uploaded; anything
    /// else is refused with the reason.
    pub fn add_files(&mut self, paths: Vec<PathBuf>) -> Vec<Action> {
        let mut actions = Vec::new();
        let mut refused = Vec::new();
        for path in paths {
            if !crate::ui::dialogs::is_image_path(&path) {
                refused.push(crate::ui::compose::state::file_name(&path));
                continue;
            }
            let upload_id = self.next_id();
            self.attachments.push(PendingAttachment {
                upload_id,
                file_name: crate::ui::compose::state::file_name(&path),
                status: AttachmentStatus::Uploading {
                    sent_bytes: 0,
                    total_bytes: 0,
                },
            });
            actions.push(chat(ChatCommand::UploadFile { upload_id, path }));
        }
        if !refused.is_empty() {
            actions.push(Action::Toast(
                ToastKind::Error,
                format!(
                    "Only images can be attached to a chat message ({} is not one).",
                    refused.join(", ")
                ),
            ));
        }
        actions
    }

    /// An image pasted with Ctrl+V: encoded as PNG off the UI thread, then uploaded.
    pub fn add_pasted_image(&mut self, image: std::sync::Arc<egui::ColorImage>) {
        let upload_id = self.next_id();
        let file_name = format!("pasted-image-{upload_id}.png");
        self.attachments.push(PendingAttachment {
            upload_id,
            file_name: file_name.clone(),
            status: AttachmentStatus::Encoding,
        });
        let promise =
            poll_promise::Promise::spawn_thread("chat-paste-encode", move || encode_png(&image));
        self.pastes.push((upload_id, file_name, promise));
    }

    /// Pasted images whose PNG is ready go to the engine.
    pub fn poll_pastes(&mut self) -> Vec<Action> {
        let mut actions = Vec::new();
        for (upload_id, file_name, promise) in std::mem::take(&mut self.pastes) {
            match promise.try_take() {
                Ok(Ok(bytes)) => {
                    if let Some(attachment) = self.attachment_mut(upload_id) {
                        attachment.status = AttachmentStatus::Uploading {
                            sent_bytes: 0,
                            total_bytes: bytes.len() as u64,
                        };
                    }
                    actions.push(chat(ChatCommand::UploadBytes {
                        upload_id,
                        file_name,
                        bytes,
                    }));
                }
                Ok(Err(error)) => {
                    if let Some(attachment) = self.attachment_mut(upload_id) {
                        attachment.status = AttachmentStatus::Failed(error);
                    }
                }
                Err(promise) => self.pastes.push((upload_id, file_name, promise)),
            }
        }
        actions
    }

    /// Pasted images are still being encoded (the view repaints to notice).
    pub fn encoding_pastes(&self) -> bool {
        !self.pastes.is_empty()
    }

    fn attachment_mut(&mut self, upload_id: u64) -> Option<&mut PendingAttachment> {
        self.attachments
            .iter_mut()
            .find(|a| a.upload_id == upload_id)
    }

    // ---- events ------------------------------------------------------------------------

    pub fn handle_event(&mut self, event: ChatEvent) -> Vec<Action> {
        match event {
            ChatEvent::Models(result) => {
                // The engine logs the raw error; the view says it in words.
                self.models
                    .set(result.map_err(|e| crate::ui::offline::service_error(&e)));
                let models = self.models.value.as_deref().unwrap_or_default();
                let known = |id: &str| models.iter().any(|m| m.id == id);
                if !self.model_id.as_deref().is_some_and(known) {
                    self.model_id = models.first().map(|m| m.id.clone());
                }
                Vec::new()
            }
            ChatEvent::Balance(result) => {
                self.balance_error = result.as_ref().err().cloned();
                self.balance
                    .set(result.map_err(|e| crate::ui::offline::service_error(&e)));
                Vec::new()
            }
            ChatEvent::UploadProgress {
                upload_id,
                sent_bytes,
                total_bytes,
            } => {
                if let Some(attachment) = self.attachment_mut(upload_id)
                    && matches!(attachment.status, AttachmentStatus::Uploading { .. })
                {
                    attachment.status = AttachmentStatus::Uploading {
                        sent_bytes,
                        total_bytes,
                    };
                }
                Vec::new()
            }
            ChatEvent::Uploaded { upload_id, result } => {
                if let Some(attachment) = self.attachment_mut(upload_id) {
                    attachment.status = match result {
                        Ok(file) => AttachmentStatus::Ready(file),
                        Err(error) => AttachmentStatus::Failed(error.to_string()),
                    };
                }
                Vec::new()
            }
            ChatEvent::Delta { stream_id, text } => {
                if let Some(live) = self.live.as_mut().filter(|l| l.stream_id == stream_id) {
                    live.text.push_str(&text);
                }
                Vec::new()
            }
            ChatEvent::Ended {
                stream_id,
                conversation_id,
                end,
                stored,
            } => {
                if self.live.as_ref().is_some_and(|l| l.stream_id == stream_id) {
                    self.live = None;
                }
                let usage = match &end {
                    StreamEnd::Finished { usage, .. } => usage.clone(),
                    _ => None,
                };
                if self.selected == Some(conversation_id) {
                    self.messages.push(ShownMessage::new(stored, usage));
                }
                // The status bar's credits are the same account balance.
                let mut actions = vec![Action::Send(Box::new(Command::RefreshCredits))];
                if let StreamEnd::Failed(error) = end {
                    tracing::warn!("chat reply failed: {error}");
                }
                // The engine refreshes the assistant balance after every reply.
                actions.extend(self.list_conversations());
                actions
            }
            ChatEvent::Conversations(result) => {
                self.list_in_flight = false;
                self.conversations.set(result);
                // Something changed while this was in flight: ask again for the latest.
                if std::mem::take(&mut self.list_again) {
                    return self.list_conversations();
                }
                Vec::new()
            }
            ChatEvent::ConversationLoaded {
                conversation_id,
                result,
            } => {
                if self.selected != Some(conversation_id) {
                    return Vec::new();
                }
                self.messages_loading = false;
                match result {
                    Ok(mut messages) => {
                        // A reply that ended before the load answered is in the store too;
                        // one still streaming here is stored as it goes (the engine keeps
                        // its row current), but it is shown live, and stored once it ends.
                        let streaming_here = self
                            .live
                            .as_ref()
                            .is_some_and(|live| live.conversation_id == conversation_id);
                        if streaming_here
                            && messages
                                .last()
                                .is_some_and(|m| m.role == ChatRole::Assistant)
                        {
                            messages.pop();
                        }
                        self.messages = messages
                            .into_iter()
                            .map(|m| ShownMessage::new(m, None))
                            .collect();
                        self.history_tokens.set(None);
                        self.heights.clear();
                        self.scroll_to_bottom = true;
                    }
                    Err(error) => self.messages_error = Some(error),
                }
                Vec::new()
            }
            ChatEvent::ConversationCreated(result) => {
                let Some(pending) = self.pending_first.take() else {
                    return self.list_conversations();
                };
                match result {
                    Ok(summary) => {
                        let id = summary.id;
                        let list = self.conversations.value.get_or_insert_with(Vec::new);
                        if !list.iter().any(|c| c.id == id) {
                            list.insert(0, summary);
                        }
                        self.selected = Some(id);
                        let mut actions = self.send_in(id, pending.user_message, pending.model_id);
                        actions.extend(self.list_conversations());
                        actions
                    }
                    Err(error) => {
                        // Nothing was sent: give the text back so nothing is lost.
                        self.composer = pending.user_message.text;
                        self.send_error =
                            Some(format!("Could not start a new conversation: {error}"));
                        Vec::new()
                    }
                }
            }
            ChatEvent::ConversationChanged(result) => {
                let mut actions = self.list_conversations();
                if let Err(error) = result {
                    actions.push(Action::Toast(
                        ToastKind::Error,
                        format!("Could not change the conversation: {error}"),
                    ));
                }
                actions
            }
        }
    }
}

/// The request for `new` after `history`: images of messages older than the upload
/// lifetime (or for a model that can't see) are named instead of linked, and the oldest
/// messages are left out when the history would not fit the model's context.
pub fn build_request(
    model: &CodeModel,
    history: &[&StoredMessage],
    new: &StoredMessage,
    now_secs: i64,
) -> ChatRequest {
    let budget = (model.context_length as f64 * CONTEXT_SHARE_FOR_HISTORY) as u64;
    let to_wire = |message: &StoredMessage| -> Option<(ChatMessage, u64)> {
        let created_secs = chrono::DateTime::parse_from_rfc3339(&message.created_at)
            .map(|t| t.timestamp())
            .unwrap_or(now_secs);
        let fresh = now_secs - created_secs < ATTACHMENT_LIFETIME_SECS;
        let mut parts = Vec::new();
        let mut tokens = 0;
        if !message.text.is_empty() {
            tokens += words::estimate_tokens(&message.text);
            parts.push(ContentPart::Text(message.text.clone()));
        }
        for attachment in &message.attachments {
            if fresh && model.supports_vision {
                tokens += IMAGE_TOKENS_ESTIMATE;
                parts.push(ContentPart::ImageUrl(attachment.url.clone()));
            } else {
                let note = format!("[image {} no longer attached]", attachment.filename);
                tokens += words::estimate_tokens(&note);
                parts.push(ContentPart::Text(note));
            }
        }
        if parts.is_empty() {
            return None;
        }
        let role = message.role;
        Some((ChatMessage { role, parts }, tokens))
    };
    let (last, mut used) = to_wire(new).unwrap_or((
        ChatMessage {
            role: ChatRole::User,
            parts: vec![ContentPart::Text(String::new())],
        },
        0,
    ));
    let mut kept = Vec::new();
    for message in history.iter().rev() {
        let Some((wire, tokens)) = to_wire(message) else {
            continue;
        };
        if used + tokens > budget {
            break;
        }
        used += tokens;
        kept.push(wire);
    }
    kept.reverse();
    kept.push(last);
    ChatRequest {
        model: model.id.clone(),
        messages: kept,
        max_tokens: None,
    }
}

/// Pasted pixels as PNG bytes (fast compression: a paste is waited for); the Library's
/// pastes use it too.
pub(crate) fn encode_png(image: &egui::ColorImage) -> Result<Vec<u8>, String> {
    use image::ImageEncoder as _;
    let [width, height] = image.size;
    let rgba: Vec<u8> = image
        .pixels
        .iter()
        .flat_map(|c| c.to_srgba_unmultiplied())
        .collect();
    let mut bytes = Vec::new();
    image::codecs::png::PngEncoder::new_with_quality(
        &mut bytes,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Adaptive,
    )
    .write_image(
        &rgba,
        width as u32,
        height as u32,
        image::ExtendedColorType::Rgba8,
    )
    .map_err(|e| format!("The pasted image could not be encoded: {e}"))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(vision: bool) -> CodeModel {
        CodeModel {
            id: if vision { "seer" } else { "blind" }.to_owned(),
            name: if vision { "Seer" } else { "Blind" }.to_owned(),
            owned_by: "test".to_owned(),
            prompt_credits_per_token: 0.002,
            completion_credits_per_token: 0.008,
            context_length: 1_000,
            supports_vision: vision,
        }
    }

    fn message(role: ChatRole, text: &str, created_at: &str) -> StoredMessage {
        StoredMessage {
            role,
            text: text.to_owned(),
            attachments: Vec::new(),
            model_id: "seer".to_owned(),
            cost_credits: None,
            state: MessageState::Complete,
            error: None,
            created_at: created_at.to_owned(),
        }
    }

    fn image(name: &str) -> Attachment {
        Attachment {
            file_id: format!("file_{name}"),
            url: format!("http://sandbox/files/code/{name}"),
            filename: name.to_owned(),
            mime_type: "image/png".to_owned(),
            bytes: 10,
        }
    }

    const NOW: &str = "2026-11-25T12:00:00.000Z";
    fn now_secs() -> i64 {
        chrono::DateTime::parse_from_rfc3339(NOW)
            .expect("time")
            .timestamp()
    }

    fn commands(actions: &[Action]) -> Vec<&ChatCommand> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Send(command) => match command.as_ref() {
                    Command::Chat(chat) => Some(chat),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_unreachable_service_is_said_in_words_not_as_the_transport_error() {
        let mut state = ChatState::default();
        let raw = "error sending request: client error (Connect): tcp connect error";
        state.handle_event(ChatEvent::Balance(Err(ApiError::Connect(raw.into()))));
        let shown = state.balance.error.clone().expect("an error is shown");
        assert_eq!(shown, "the service can't be reached right now");
        assert!(
            matches!(state.balance_error, Some(ApiError::Connect(_))),
            "the raw error is kept for the details"
        );
        state.handle_event(ChatEvent::Models(Err(ApiError::NoResponse(raw.into()))));
        assert_eq!(
            state.models.error.as_deref(),
            Some("the service did not answer")
        );
    }

    #[test]
    fn the_request_carries_history_and_images_while_they_last() {
        let mut old = message(ChatRole::User, "old picture", "2026-11-23T12:00:00.000Z");
        old.attachments.push(image("old.png"));
        let reply = message(ChatRole::Assistant, "it is red", "2026-11-23T12:00:05.000Z");
        let mut new = message(ChatRole::User, "and this one?", NOW);
        new.attachments.push(image("new.png"));
        let roomy = CodeModel {
            context_length: 100_000,
            ..model(true)
        };
        let request = build_request(&roomy, &[&old, &reply], &new, now_secs());
        assert_eq!(request.model, "seer");
        assert_eq!(request.messages.len(), 3);
        assert_eq!(
            request.messages[0].parts,
            vec![
                ContentPart::Text("old picture".into()),
                ContentPart::Text("[image old.png no longer attached]".into()),
            ],
            "an upload past its lifetime is named, not linked"
        );
        assert_eq!(request.messages[1].role, ChatRole::Assistant);
        assert_eq!(
            request.messages[2].parts,
            vec![
                ContentPart::Text("and this one?".into()),
                ContentPart::ImageUrl("http://sandbox/files/code/new.png".into()),
            ]
        );
        // A model without vision never gets image parts.
        let request = build_request(&model(false), &[], &new, now_secs());
        assert!(
            !request.messages[0]
                .parts
                .iter()
                .any(|p| matches!(p, ContentPart::ImageUrl(_)))
        );
    }

    #[test]
    fn the_oldest_messages_give_way_when_the_context_is_full() {
        // 1,000 tokens of context, 750 for the history: each old message is ~250 tokens.
        let long = "x".repeat(1_000);
        let history: Vec<StoredMessage> = (0..6)
            .map(|i| message(ChatRole::User, &format!("{i}{long}"), NOW))
            .collect();
        let refs: Vec<&StoredMessage> = history.iter().collect();
        let new = message(ChatRole::User, "latest", NOW);
        let request = build_request(&model(true), &refs, &new, now_secs());
        let texts: Vec<String> = request
            .messages
            .iter()
            .map(|m| match &m.parts[0] {
                ContentPart::Text(t) => t.chars().next().unwrap_or(' ').to_string(),
                ContentPart::ImageUrl(_) => String::new(),
            })
            .collect();
        assert_eq!(texts, vec!["4", "5", "l"], "the newest fit, in order");
    }

    #[test]
    fn send_is_refused_with_a_reason() {
        let mut state = ChatState::default();
        assert_eq!(
            state.send_refusal().as_deref(),
            Some("The models are still loading")
        );
        state.handle_event(ChatEvent::Models(Ok(vec![model(false), model(true)])));
        assert_eq!(
            state.model_id.as_deref(),
            Some("blind"),
            "the first is chosen"
        );
        assert_eq!(
            state.send_refusal().as_deref(),
            Some("Write a message first")
        );
        state.composer = "hello".into();
        assert_eq!(state.send_refusal(), None);
        state.attachments.push(PendingAttachment {
            upload_id: 9,
            file_name: "a.png".into(),
            status: AttachmentStatus::Uploading {
                sent_bytes: 5,
                total_bytes: 10,
            },
        });
        assert_eq!(
            state.send_refusal().as_deref(),
            Some("Blind does not see images — choose a model with the eye")
        );
        state.apply(ChatAction::ChooseModel("seer".into()));
        assert_eq!(
            state.send_refusal().as_deref(),
            Some("Wait for the upload to finish")
        );
        assert_eq!(state.attachments[0].progress(), Some(0.5));
        state.handle_event(ChatEvent::Uploaded {
            upload_id: 9,
            result: Err(ApiError::Connect("refused".into())),
        });
        assert_eq!(
            state.send_refusal().as_deref(),
            Some("Remove the image that failed to upload")
        );
        let actions = state.apply(ChatAction::RemoveAttachment(9));
        assert!(
            commands(&actions).is_empty(),
            "a failed upload has nothing to cancel"
        );
        assert_eq!(state.send_refusal(), None);
        assert!(state.estimated_cost().is_some_and(|c| c >= 0.1));
    }

    #[test]
    fn the_first_send_creates_the_conversation_then_streams() {
        let mut state = ChatState::default();
        let actions = state.start();
        assert_eq!(
            commands(&actions).len(),
            3,
            "models, balance, conversations"
        );
        state.handle_event(ChatEvent::Models(Ok(vec![model(true)])));
        state.handle_event(ChatEvent::Conversations(Ok(Vec::new())));
        state.composer = "How do I parse JSON in Rust?".into();
        let actions = state.apply(ChatAction::Send);
        let ChatCommand::CreateConversation { title, model_id } = commands(&actions)[0] else {
            panic!("create first: {actions:?}");
        };
        assert_eq!(title, "How do I parse JSON in Rust?");
        assert_eq!(model_id, "seer");
        assert!(state.composer.is_empty() && state.is_streaming());
        assert!(state.send_refusal().is_some(), "no second send meanwhile");

        let summary = ConversationSummary {
            id: 7,
            title: title.clone(),
            model_id: "seer".into(),
            updated_at: NOW.into(),
            message_count: 0,
            preview: String::new(),
        };
        let actions = state.handle_event(ChatEvent::ConversationCreated(Ok(summary)));
        let sent = commands(&actions);
        let ChatCommand::Send {
            conversation_id,
            stream_id,
            user_message,
            request,
        } = sent[0]
        else {
            panic!("then send: {actions:?}");
        };
        assert_eq!(*conversation_id, 7);
        assert_eq!(user_message.text, "How do I parse JSON in Rust?");
        assert_eq!(request.messages.len(), 1);
        assert_eq!(state.selected, Some(7));
        let stream_id = *stream_id;

        state.handle_event(ChatEvent::Delta {
            stream_id,
            text: "Use ".into(),
        });
        state.handle_event(ChatEvent::Delta {
            stream_id,
            text: "serde.".into(),
        });
        assert_eq!(
            state.live_in_view().map(|l| l.text.as_str()),
            Some("Use serde.")
        );
        // Reloaded mid-reply: the store already holds the reply's row as it streams; it is
        // shown live only, so it does not appear twice once it ends.
        state.handle_event(ChatEvent::ConversationLoaded {
            conversation_id: 7,
            result: Ok(vec![
                message(ChatRole::User, "How do I parse JSON in Rust?", NOW),
                message(ChatRole::Assistant, "Use ", NOW),
            ]),
        });
        assert_eq!(
            state.messages.len(),
            1,
            "only the question is a stored message"
        );
        let mut stored = message(ChatRole::Assistant, "Use serde.", NOW);
        stored.cost_credits = Some(0.4);
        let usage = ChatUsage {
            prompt_tokens: 12,
            completion_tokens: 3,
            total_tokens: 15,
            cost_credits: Some(0.4),
        };
        state.handle_event(ChatEvent::Conversations(Ok(Vec::new())));
        let actions = state.handle_event(ChatEvent::Ended {
            stream_id,
            conversation_id: 7,
            end: StreamEnd::Finished {
                usage: Some(usage.clone()),
                cost_credits: Some(0.4),
            },
            stored,
        });
        assert!(!state.is_streaming());
        assert_eq!(state.messages.len(), 2);
        assert_eq!(state.messages[1].usage, Some(usage));
        assert!(
            matches!(
                commands(&actions)[..],
                [ChatCommand::ListConversations { .. }]
            ),
            "the list is read again after a reply"
        );
        assert!(
            actions
                .iter()
                .any(|a| matches!(a, Action::Send(c) if matches!(**c, Command::RefreshCredits))),
            "and the status bar's credits"
        );
    }

    #[test]
    fn a_failed_create_gives_the_text_back() {
        let mut state = ChatState::default();
        state.handle_event(ChatEvent::Models(Ok(vec![model(true)])));
        state.composer = "keep me".into();
        state.apply(ChatAction::Send);
        state.handle_event(ChatEvent::ConversationCreated(Err("disk full".into())));
        assert_eq!(state.composer, "keep me");
        assert!(!state.is_streaming());
        assert!(
            state
                .send_error
                .as_deref()
                .is_some_and(|e| e.contains("disk full"))
        );
    }

    #[test]
    fn searches_are_asked_one_at_a_time_and_the_latest_text_wins() {
        let mut state = ChatState {
            search: "r".into(),
            ..ChatState::default()
        };
        let first = state.apply(ChatAction::SearchChanged);
        assert!(matches!(
            commands(&first)[..],
            [ChatCommand::ListConversations { query }] if query == "r"
        ));
        state.search = "ru".into();
        assert!(
            state.apply(ChatAction::SearchChanged).is_empty(),
            "one in flight"
        );
        state.search = "rust".into();
        assert!(state.apply(ChatAction::SearchChanged).is_empty());
        let again = state.handle_event(ChatEvent::Conversations(Ok(Vec::new())));
        assert!(matches!(
            commands(&again)[..],
            [ChatCommand::ListConversations { query }] if query == "rust"
        ));
        assert!(
            state
                .handle_event(ChatEvent::Conversations(Ok(Vec::new())))
                .is_empty(),
            "the answer for the latest text ends it"
        );
    }

    #[test]
    fn rename_and_delete_change_the_list_at_once_and_tell_the_store() {
        let mut state = ChatState::default();
        let row = |id: i64, title: &str| ConversationSummary {
            id,
            title: title.into(),
            model_id: "seer".into(),
            updated_at: NOW.into(),
            message_count: 2,
            preview: "p".into(),
        };
        state
            .conversations
            .set(Ok(vec![row(1, "One"), row(2, "Two")]));
        state.apply(ChatAction::Select(2));
        state.apply(ChatAction::StartRename(2));
        state.rename.as_mut().expect("draft").title = "  Second  ".into();
        let actions = state.apply(ChatAction::SaveRename);
        assert!(matches!(
            commands(&actions)[..],
            [ChatCommand::RenameConversation { conversation_id: 2, title }] if title == "Second"
        ));
        let titles: Vec<_> = state
            .conversations
            .value
            .iter()
            .flatten()
            .map(|c| c.title.clone())
            .collect();
        assert_eq!(titles, vec!["One", "Second"]);
        // An empty title is refused, nothing sent.
        state.apply(ChatAction::StartRename(1));
        state.rename.as_mut().expect("draft").title = " ".into();
        assert!(commands(&state.apply(ChatAction::SaveRename)).is_empty());

        state.apply(ChatAction::AskDelete(2));
        assert_eq!(state.confirm_delete, Some((2, "Second".into())));
        state.apply(ChatAction::CancelDelete);
        assert!(state.confirm_delete.is_none());
        state.apply(ChatAction::AskDelete(2));
        let actions = state.apply(ChatAction::ConfirmDelete);
        assert!(matches!(
            commands(&actions)[..],
            [ChatCommand::DeleteConversation { conversation_id: 2 }]
        ));
        assert_eq!(state.selected, None, "the open conversation closed");
        assert_eq!(state.conversations.value.as_ref().map(Vec::len), Some(1));
    }

    #[test]
    fn only_images_are_attached() {
        let mut state = ChatState::default();
        let actions = state.add_files(vec![
            PathBuf::from("/tmp/photo.JPG"),
            PathBuf::from("/tmp/notes.txt"),
        ]);
        assert_eq!(state.attachments.len(), 1);
        assert_eq!(state.attachments[0].file_name, "photo.JPG");
        assert!(matches!(
            commands(&actions)[..],
            [ChatCommand::UploadFile { .. }]
        ));
        assert!(actions.iter().any(|a| matches!(
            a,
            Action::Toast(ToastKind::Error, text) if text.contains("notes.txt")
        )));
    }
}
