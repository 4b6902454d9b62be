//! The coding-assistant chat: models, balance, attachments (uploads with progress and
//! cancel), streamed replies and the local conversation store.
//!
//! A reply streams as a task on the engine runtime; each text piece is sent as a `Delta`
//! as it arrives (no coalescing). `Stop` drops the stream inside its task, which closes
//! the connection (the service bills only what it had sent), and the text so far is kept
//! as a "stopped" message. The engine stores the assistant message itself when the stream
//! ends (finished, stopped or failed), then refreshes the balance (read again a few times
//! while credits are still held: a stopped stream is settled when the service notices).
//!
//! A completion is billed, so it is sent exactly once: never re-sent after a network error,
//! and not after a 429 either (nothing was billed then, but the person decides; the error
//! says how long to wait).

use super::conversations::{
    Attachment, ConversationStore, ConversationSummary, MessageState, StoreError, StoredMessage,
    now_rfc3339,
};
use super::guard::{spawn_guarded, spawn_reported};
use super::protocol::Event;
use super::runtime::Ctx;
use crate::api::code_assistant::{
    ChatRequest, ChatRole, ChatUsage, CodeAssistantClient, CodeBalance, CodeModel, StreamItem,
    UploadedFile,
};
use crate::api::{ApiError, TransferCounter};
use futures_util::StreamExt;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// Upload progress events are at most this frequent (10 per second).
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);
/// How often a streaming reply's text is written to the chat history.
const REPLY_CHECKPOINT_INTERVAL: Duration = Duration::from_secs(1);

/// A reply as stored while it streams: what a studio killed mid-reply leaves behind.
fn interrupted_reply(model_id: &str, text: String, created_at: String) -> StoredMessage {
    StoredMessage {
        role: ChatRole::Assistant,
        text,
        attachments: Vec::new(),
        model_id: model_id.to_owned(),
        cost_credits: None,
        state: MessageState::Failed,
        error: Some("The studio closed before this reply finished.".to_owned()),
        created_at,
    }
}

/// Extra balance reads after a reply while credits are still held, and their spacing.
const SETTLE_REREADS: u32 = 4;
const SETTLE_REREAD_DELAY: Duration = Duration::from_millis(500);
/// What a reply or upload that stopped on a bug says (the panic itself is in the log).
const INTERNAL_ERROR: &str = "it stopped because of an internal error (see the log)";
/// What a cancelled upload's `Uploaded` says.
pub const UPLOAD_CANCELLED: &str = "The upload was cancelled.";

/// What the Chat view asks of the engine.
#[derive(Debug)]
pub enum ChatCommand {
    /// → `Models`
    RefreshModels,
    /// → `Balance`
    RefreshBalance,
    /// → `UploadProgress`…, then one `Uploaded`.
    UploadFile { upload_id: u64, path: PathBuf },
    /// A pasted image (PNG): → `UploadProgress`…, then one `Uploaded`.
    UploadBytes {
        upload_id: u64,
        file_name: String,
        bytes: Vec<u8>,
    },
    /// Stop an upload; its `Uploaded` then carries an error saying it was cancelled
    /// ([`UPLOAD_CANCELLED`]). Unknown or finished ids are ignored.
    CancelUpload { upload_id: u64 },
    /// Stores `user_message` in the conversation, then streams the completion. The engine
    /// stores the assistant message itself when the stream ends (finished, stopped or
    /// failed, with whatever text arrived), then refreshes the balance. Never re-sent
    /// automatically.
    Send {
        conversation_id: i64,
        stream_id: u64,
        user_message: StoredMessage,
        request: ChatRequest,
    },
    /// Drops the stream → `Ended{Stopped}`. Unknown or finished ids are ignored.
    Stop { stream_id: u64 },
    /// `""` = all; → `Conversations`
    ListConversations { query: String },
    /// → `ConversationLoaded`
    LoadConversation { conversation_id: i64 },
    /// → `ConversationCreated`
    CreateConversation { title: String, model_id: String },
    /// → `ConversationChanged`
    RenameConversation { conversation_id: i64, title: String },
    /// Deletes it and its messages → `ConversationChanged`
    DeleteConversation { conversation_id: i64 },
}

/// What the engine answers.
#[derive(Clone, Debug)]
pub enum ChatEvent {
    Models(Result<Vec<CodeModel>, ApiError>),
    Balance(Result<CodeBalance, ApiError>),
    UploadProgress {
        upload_id: u64,
        sent_bytes: u64,
        total_bytes: u64,
    },
    Uploaded {
        upload_id: u64,
        result: Result<UploadedFile, ApiError>,
    },
    /// Appended text, in order.
    Delta {
        stream_id: u64,
        text: String,
    },
    /// The stream is over; `stored` is the assistant message as it was stored.
    Ended {
        stream_id: u64,
        conversation_id: i64,
        end: StreamEnd,
        stored: StoredMessage,
    },
    Conversations(Result<Vec<ConversationSummary>, String>),
    ConversationLoaded {
        conversation_id: i64,
        result: Result<Vec<StoredMessage>, String>,
    },
    ConversationCreated(Result<ConversationSummary, String>),
    /// A rename or delete finished; also `Err` when a finished reply could not be stored.
    ConversationChanged(Result<(), String>),
}

/// How a reply stream ended.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEnd {
    /// `cost_credits`: `usage.cost`, else computed from the model's prices (None when
    /// neither is known).
    Finished {
        usage: Option<ChatUsage>,
        cost_credits: Option<f64>,
    },
    Stopped,
    Failed(ApiError),
}

/// The chat's state in the engine.
pub(crate) struct Chat {
    ctx: Arc<Ctx>,
    client: CodeAssistantClient,
    /// The store, or why it could not be opened (every store command then says so).
    store: Result<Arc<ConversationStore>, String>,
    /// Stop switches of running streams.
    streams: Mutex<HashMap<u64, watch::Sender<bool>>>,
    /// Cancel switches of running uploads.
    uploads: Mutex<HashMap<u64, watch::Sender<bool>>>,
    /// The last model list, for costs the service did not state.
    models: Mutex<Vec<CodeModel>>,
}

impl Chat {
    /// Open the conversation store at `store_path` (a failure is kept and reported by each
    /// store command; the rest of the chat works).
    pub fn new(ctx: Arc<Ctx>, store_path: &Path) -> Arc<Self> {
        let store = ConversationStore::open(store_path)
            .map(Arc::new)
            .map_err(|e| {
                tracing::error!("chat history unavailable: {e}");
                format!("The chat history could not be opened: {e}")
            });
        Arc::new(Chat {
            client: ctx.client.code_assistant(),
            ctx,
            store,
            streams: Mutex::new(HashMap::new()),
            uploads: Mutex::new(HashMap::new()),
            models: Mutex::new(Vec::new()),
        })
    }

    /// Start the work for one command (never blocks the engine loop).
    pub fn handle(self: &Arc<Self>, command: ChatCommand) {
        let this = self.clone();
        match command {
            ChatCommand::RefreshModels => {
                spawn_reported(&self.ctx, "loading the assistant's models", async move {
                    let result = this.client.models().await;
                    match &result {
                        Ok(models) => this.remember_models(models.clone()),
                        Err(e) => tracing::warn!("assistant models refresh failed: {e}"),
                    }
                    this.emit(ChatEvent::Models(result)).await;
                });
            }
            ChatCommand::RefreshBalance => {
                spawn_reported(&self.ctx, "loading the assistant balance", async move {
                    this.refresh_balance().await;
                });
            }
            ChatCommand::UploadFile { upload_id, path } => {
                self.upload(upload_id, UploadSource::File(path));
            }
            ChatCommand::UploadBytes {
                upload_id,
                file_name,
                bytes,
            } => self.upload(upload_id, UploadSource::Bytes { file_name, bytes }),
            ChatCommand::CancelUpload { upload_id } => flip(&self.uploads, upload_id),
            ChatCommand::Send {
                conversation_id,
                stream_id,
                user_message,
                request,
            } => {
                let stop = register(&self.streams, stream_id);
                let owner = self.clone();
                let model_id = request.model.clone();
                // A panic (a bug) still ends the stream for the view, as a failed reply.
                spawn_guarded(
                    "streaming an assistant reply",
                    async move {
                        this.send(conversation_id, stream_id, user_message, request, stop)
                            .await;
                    },
                    move |_panic| async move {
                        unregister(&owner.streams, stream_id);
                        let error = ApiError::Decode(INTERNAL_ERROR.to_owned());
                        let stored = StoredMessage {
                            role: ChatRole::Assistant,
                            text: String::new(),
                            attachments: Vec::new(),
                            model_id,
                            cost_credits: None,
                            state: MessageState::Failed,
                            error: Some(error.to_string()),
                            created_at: now_rfc3339(),
                        };
                        owner
                            .emit(ChatEvent::Ended {
                                stream_id,
                                conversation_id,
                                end: StreamEnd::Failed(error),
                                stored,
                            })
                            .await;
                    },
                );
            }
            ChatCommand::Stop { stream_id } => flip(&self.streams, stream_id),
            ChatCommand::ListConversations { query } => {
                spawn_reported(&self.ctx, "listing conversations", async move {
                    let result = this.with_store(move |s| s.list(&query)).await;
                    this.emit(ChatEvent::Conversations(result)).await;
                });
            }
            ChatCommand::LoadConversation { conversation_id } => {
                spawn_reported(&self.ctx, "opening a conversation", async move {
                    let result = this.with_store(move |s| s.load(conversation_id)).await;
                    this.emit(ChatEvent::ConversationLoaded {
                        conversation_id,
                        result,
                    })
                    .await;
                });
            }
            ChatCommand::CreateConversation { title, model_id } => {
                spawn_reported(&self.ctx, "creating a conversation", async move {
                    let result = this.with_store(move |s| s.create(&title, &model_id)).await;
                    this.emit(ChatEvent::ConversationCreated(result)).await;
                });
            }
            ChatCommand::RenameConversation {
                conversation_id,
                title,
            } => {
                spawn_reported(&self.ctx, "renaming a conversation", async move {
                    let result = this
                        .with_store(move |s| s.rename(conversation_id, &title))
                        .await;
                    this.emit(ChatEvent::ConversationChanged(result)).await;
                });
            }
            ChatCommand::DeleteConversation { conversation_id } => {
                spawn_reported(&self.ctx, "deleting a conversation", async move {
                    let result = this.with_store(move |s| s.delete(conversation_id)).await;
                    this.emit(ChatEvent::ConversationChanged(result)).await;
                });
            }
        }
    }

    async fn emit(&self, event: ChatEvent) {
        self.ctx.emit(Event::Chat(event)).await;
    }

    fn remember_models(&self, models: Vec<CodeModel>) {
        if let Ok(mut cached) = self.models.lock() {
            *cached = models;
        }
    }

    async fn refresh_balance(&self) {
        let result = self.client.balance().await;
        if let Err(e) = &result {
            tracing::warn!("assistant balance refresh failed: {e}");
        }
        self.emit(ChatEvent::Balance(result)).await;
    }

    /// Run a store call on the blocking pool; errors in words.
    async fn with_store<R: Send + 'static>(
        &self,
        work: impl FnOnce(&ConversationStore) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, String> {
        let store = self.store.clone()?;
        tokio::task::spawn_blocking(move || work(&store))
            .await
            .map_err(|e| format!("the chat history task failed: {e}"))?
            .map_err(|e| capitalised(&e.to_string()))
    }

    // -----------------------------------------------------------------------------------
    // Replies
    // -----------------------------------------------------------------------------------

    async fn send(
        self: Arc<Self>,
        conversation_id: i64,
        stream_id: u64,
        user_message: StoredMessage,
        request: ChatRequest,
        stop: watch::Receiver<bool>,
    ) {
        let model_id = request.model.clone();
        let stored_question = self
            .with_store(move |s| s.append(conversation_id, &user_message, None))
            .await;
        let question_saved = stored_question.is_ok();
        // The reply's row exists from the start and is kept current while it streams, so a
        // studio killed mid-reply still shows what arrived (billed text is never lost).
        let reply_created_at = now_rfc3339();
        let reply_row = if question_saved {
            let placeholder = interrupted_reply(&model_id, String::new(), reply_created_at.clone());
            self.with_store(move |s| s.append(conversation_id, &placeholder, None))
                .await
                .ok()
        } else {
            None
        };
        let mut text = String::new();
        let end = match stored_question {
            // Nothing was sent, nothing billed: better than a reply with no question.
            Err(reason) => StreamEnd::Failed(ApiError::Io(format!(
                "The message was not sent because it could not be saved: {reason}"
            ))),
            Ok(_) => {
                let streamed = tokio::select! {
                    biased;
                    () = stopped(stop) => None,
                    result = self.stream_reply(stream_id, &request, &mut text, reply_row) => Some(result),
                };
                match streamed {
                    None => {
                        tracing::info!(stream_id, "assistant reply stopped");
                        StreamEnd::Stopped
                    }
                    Some(Ok(usage)) => {
                        let cost_credits = match &usage {
                            Some(usage) => self.cost_of(&model_id, usage).await,
                            None => None,
                        };
                        StreamEnd::Finished {
                            usage,
                            cost_credits,
                        }
                    }
                    Some(Err(error)) => {
                        tracing::warn!(stream_id, "assistant reply failed: {error}");
                        StreamEnd::Failed(error)
                    }
                }
            }
        };
        unregister(&self.streams, stream_id);
        let (state, error, cost_credits, usage) = match &end {
            StreamEnd::Finished {
                usage,
                cost_credits,
            } => (MessageState::Complete, None, *cost_credits, usage.clone()),
            StreamEnd::Stopped => (MessageState::Stopped, None, None, None),
            StreamEnd::Failed(error) => (MessageState::Failed, Some(error.to_string()), None, None),
        };
        let stored = StoredMessage {
            role: ChatRole::Assistant,
            text,
            attachments: Vec::new(),
            model_id,
            cost_credits,
            state,
            error,
            created_at: reply_created_at, // when the reply began, as its row says
        };
        // Stored before `Ended`, so a load after it shows the reply.
        let store_result = if !question_saved {
            Ok(()) // the store refused the question already; `Ended` says so
        } else {
            let to_store = stored.clone();
            self.with_store(move |s| match reply_row {
                Some(row) => s.update_message(row, &to_store, usage.as_ref()),
                None => s
                    .append(conversation_id, &to_store, usage.as_ref())
                    .map(|_| ()),
            })
            .await
        };
        self.emit(ChatEvent::Ended {
            stream_id,
            conversation_id,
            end,
            stored,
        })
        .await;
        if let Err(reason) = store_result {
            tracing::warn!("an assistant reply could not be stored: {reason}");
            self.emit(ChatEvent::ConversationChanged(Err(format!(
                "The reply could not be saved to the chat history: {reason}"
            ))))
            .await;
        }
        self.refresh_balance_after_reply().await;
    }

    /// Read the balance after a reply. A stopped stream is settled by the service only when
    /// it notices the closed connection (at its next chunk), so while credits are still
    /// reserved the balance is read again a few times, briefly spaced.
    async fn refresh_balance_after_reply(&self) {
        for attempt in 0..=SETTLE_REREADS {
            if attempt > 0 {
                tokio::time::sleep(SETTLE_REREAD_DELAY).await;
            }
            let result = self.client.balance().await;
            let still_reserved = matches!(&result, Ok(balance) if balance.reserved > 0.0);
            if let Err(e) = &result {
                tracing::warn!("assistant balance refresh failed: {e}");
            }
            self.emit(ChatEvent::Balance(result)).await;
            if !still_reserved {
                return;
            }
        }
    }

    /// Send the request once and pass each text piece on as it arrives; the final usage.
    async fn stream_reply(
        self: &Arc<Self>,
        stream_id: u64,
        request: &ChatRequest,
        text: &mut String,
        reply_row: Option<i64>,
    ) -> Result<Option<ChatUsage>, ApiError> {
        let mut stream = self.client.stream(request).await?;
        let mut last_checkpoint = Instant::now();
        // The service holds the reply's credits while it streams: read the balance once now
        // (beside the stream, never delaying it), so "Reserved" shows them.
        let this = Arc::clone(self);
        spawn_reported(&self.ctx, "loading the assistant balance", async move {
            this.refresh_balance().await;
        });
        while let Some(item) = stream.next().await {
            match item? {
                StreamItem::Text(piece) => {
                    text.push_str(&piece);
                    self.emit(ChatEvent::Delta {
                        stream_id,
                        text: piece,
                    })
                    .await;
                    if let Some(row) = reply_row
                        && last_checkpoint.elapsed() >= REPLY_CHECKPOINT_INTERVAL
                    {
                        last_checkpoint = Instant::now();
                        // `created_at` is not rewritten by an update.
                        let so_far = interrupted_reply(&request.model, text.clone(), String::new());
                        // A failed checkpoint only loses this copy; the end writes again.
                        let _ = self
                            .with_store(move |s| s.update_message(row, &so_far, None))
                            .await;
                    }
                }
                StreamItem::Finished { usage, .. } => return Ok(usage),
            }
        }
        Err(ApiError::NoResponse(
            "the answer stopped before it was complete".into(),
        ))
    }

    /// `usage.cost`, else the model's prices (the list is fetched if not known yet).
    async fn cost_of(&self, model_id: &str, usage: &ChatUsage) -> Option<f64> {
        if let Some(cost) = usage.cost_credits {
            return Some(cost);
        }
        let known = |chat: &Chat| {
            chat.models
                .lock()
                .ok()
                .and_then(|m| m.iter().find(|m| m.id == model_id).cloned())
        };
        let model = match known(self) {
            Some(model) => Some(model),
            None => {
                if let Ok(models) = self.client.models().await {
                    self.remember_models(models);
                }
                known(self)
            }
        };
        model.map(|m| m.cost_credits(usage))
    }

    // -----------------------------------------------------------------------------------
    // Uploads
    // -----------------------------------------------------------------------------------

    fn upload(self: &Arc<Self>, upload_id: u64, source: UploadSource) {
        let cancel = register(&self.uploads, upload_id);
        let this = self.clone();
        let owner = self.clone();
        // A panic (a bug) still ends the upload for the view, as a failed one.
        spawn_guarded(
            "uploading an attachment",
            async move {
                let result = tokio::select! {
                    biased;
                    () = stopped(cancel) => Err(ApiError::Invalid(UPLOAD_CANCELLED.to_owned())),
                    result = this.send_upload(upload_id, source) => result,
                };
                unregister(&this.uploads, upload_id);
                if let Err(e) = &result {
                    tracing::info!(upload_id, "attachment upload did not finish: {e}");
                }
                this.emit(ChatEvent::Uploaded { upload_id, result }).await;
            },
            move |_panic| async move {
                unregister(&owner.uploads, upload_id);
                owner
                    .emit(ChatEvent::Uploaded {
                        upload_id,
                        result: Err(ApiError::Io(INTERNAL_ERROR.to_owned())),
                    })
                    .await;
            },
        );
    }

    async fn send_upload(
        &self,
        upload_id: u64,
        source: UploadSource,
    ) -> Result<UploadedFile, ApiError> {
        let counter = Arc::new(TransferCounter::default());
        let work = async {
            match source {
                UploadSource::File(path) => {
                    self.client.upload_file(&path, Some(counter.clone())).await
                }
                UploadSource::Bytes { file_name, bytes } => {
                    self.client
                        .upload_bytes(&file_name, bytes, Some(counter.clone()))
                        .await
                }
            }
        };
        tokio::pin!(work);
        let mut ticker = tokio::time::interval(PROGRESS_INTERVAL);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut reported = None;
        let result = loop {
            tokio::select! {
                result = &mut work => break result,
                _ = ticker.tick() => {
                    let total = counter.bytes_total.load(Ordering::Relaxed);
                    let sent = counter.bytes_done.load(Ordering::Relaxed).min(total);
                    // The size is known once the file is open; report each change once.
                    if total > 0 && reported != Some(sent) {
                        reported = Some(sent);
                        self.emit(ChatEvent::UploadProgress {
                            upload_id,
                            sent_bytes: sent,
                            total_bytes: total,
                        })
                        .await;
                    }
                }
            }
        };
        let total = counter.bytes_total.load(Ordering::Relaxed);
        if result.is_ok() && reported != Some(total) {
            self.emit(ChatEvent::UploadProgress {
                upload_id,
                sent_bytes: total,
                total_bytes: total,
            })
            .await;
        }
        result
    }
}

enum UploadSource {
    File(PathBuf),
    Bytes { file_name: String, bytes: Vec<u8> },
}

/// A new switch for `id` (replacing any older one with the same id).
fn register(switches: &Mutex<HashMap<u64, watch::Sender<bool>>>, id: u64) -> watch::Receiver<bool> {
    let (tx, rx) = watch::channel(false);
    if let Ok(mut switches) = switches.lock() {
        switches.insert(id, tx);
    }
    rx
}

fn unregister(switches: &Mutex<HashMap<u64, watch::Sender<bool>>>, id: u64) {
    if let Ok(mut switches) = switches.lock() {
        switches.remove(&id);
    }
}

fn flip(switches: &Mutex<HashMap<u64, watch::Sender<bool>>>, id: u64) {
    if let Ok(switches) = switches.lock()
        && let Some(switch) = switches.get(&id)
    {
        switch.send_replace(true);
    }
}

/// Resolves once the switch is flipped; never, if it is dropped unflipped.
async fn stopped(mut switch: watch::Receiver<bool>) {
    if switch.wait_for(|on| *on).await.is_err() {
        std::future::pending::<()>().await;
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// An attachment record for an uploaded file (what the Chat view stores with a message).
impl From<&UploadedFile> for Attachment {
    fn from(file: &UploadedFile) -> Self {
        Attachment {
            file_id: file.id.clone(),
            url: file.url.clone(),
            filename: file.filename.clone(),
            mime_type: file.mime_type.clone(),
            bytes: file.bytes,
        }
    }
}
