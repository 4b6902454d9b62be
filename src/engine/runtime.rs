//! The engine thread: a named thread running a small multi-thread tokio runtime, bounded
//! channels both ways, and the dispatch of commands to the tracker and transfer tasks.

use super::chat::Chat;
use super::conversations::CHAT_STORE_FILE;
use super::guard::spawn_reported;
use super::journal::{Journal, JournalError};
use super::library::Library;
use super::library_transfers::TransferTuning;
use super::protocol::{Command, Event};
use super::rate_limit::RateGates;
use super::reachability::Reachability;
use super::reconcile::ReconcileTiming;
use super::tracker::Tracker;
use super::transfers::Transfers;
use super::video::Videos;
use crate::api::{ApiClient, ApiError, ClientConfig};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Commands the UI may queue before `send` reports the engine as busy.
pub const COMMAND_QUEUE_LEN: usize = 256;
/// Events the engine may queue before it waits for the UI to drain them.
pub const EVENT_QUEUE_LEN: usize = 1024;
/// Whole-request timeout for JSON routes.
pub const REQUEST_TIMEOUT_SECS: u64 = 30;
/// Worker threads of the engine's tokio runtime.
const WORKER_THREADS: usize = 2;
/// How long shutdown waits for blocking tasks (decodes, journal writes) to finish.
const SHUTDOWN_GRACE_SECS: u64 = 2;

/// How to start the engine.
#[derive(Clone)]
pub struct EngineConfig {
    pub base_url: String,
    pub api_key: String,
    /// SQLite file of the job journal.
    pub journal_path: PathBuf,
    /// Journal rows are scoped to a service profile; only this one's rows are loaded/resumed.
    pub service_id: String,
    /// Downloads for "open in system viewer".
    pub cache_dir: PathBuf,
    /// Called after every event send (egui's `request_repaint`).
    pub repaint: Arc<dyn Fn() + Send + Sync>,
}

impl std::fmt::Debug for EngineConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &"<redacted>")
            .field("journal_path", &self.journal_path)
            .field("service_id", &self.service_id)
            .field("cache_dir", &self.cache_dir)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error("cannot set up the service client: {0}")]
    Client(ApiError),
    #[error("cannot start the engine: {0}")]
    Start(String),
    #[error("the engine is busy; try again in a moment")]
    Busy,
    #[error("the engine has stopped")]
    Stopped,
}

/// The UI's end of the engine. Dropping it stops the engine and joins its thread.
pub struct EngineHandle {
    commands: Option<mpsc::Sender<Command>>,
    events: mpsc::Receiver<Event>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for EngineHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineHandle")
            .field("running", &self.thread.is_some())
            .finish()
    }
}

impl EngineHandle {
    /// Queue a command without blocking. A full queue gives `Busy`, a stopped engine `Stopped`.
    pub fn send(&self, command: Command) -> Result<(), EngineError> {
        let sender = self.commands.as_ref().ok_or(EngineError::Stopped)?;
        sender.try_send(command).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => EngineError::Busy,
            mpsc::error::TrySendError::Closed(_) => EngineError::Stopped,
        })
    }

    /// The next event, if one is waiting. Never blocks.
    pub fn try_recv(&mut self) -> Option<Event> {
        self.events.try_recv().ok()
    }

    /// Wait up to `timeout` for the next event (tests and tools; the UI uses `try_recv`).
    pub fn recv_timeout(&mut self, timeout: Duration) -> Option<Event> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.events.try_recv() {
                Ok(event) => return Some(event),
                Err(mpsc::error::TryRecvError::Disconnected) => return None,
                Err(mpsc::error::TryRecvError::Empty) => {}
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            std::thread::sleep((deadline - now).min(Duration::from_millis(5)));
        }
    }

    /// Stop the engine and wait for its thread. Jobs keep running on the service and are
    /// resumed from the journal on the next start.
    pub fn shutdown(self) {
        drop(self);
    }

    fn stop(&mut self) {
        // Close the event side first so no engine task can wait on a full queue.
        self.events.close();
        if let Some(sender) = self.commands.take() {
            let _ = sender.try_send(Command::Shutdown);
        }
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the engine thread panicked");
        }
    }
}

impl Drop for EngineHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// State shared by every engine task.
pub(crate) struct Ctx {
    pub client: ApiClient,
    pub journal: Journal,
    pub service_id: String,
    pub cache_dir: PathBuf,
    pub reachability: Reachability,
    pub rate_gates: RateGates,
    /// How long a lost submit is looked for (see `reconcile`).
    pub reconcile_timing: ReconcileTiming,
    events: mpsc::Sender<Event>,
    repaint: Arc<dyn Fn() + Send + Sync>,
}

impl Ctx {
    /// Send an event to the UI, then ask for a repaint. Waits while the queue is full;
    /// returns quietly once the UI side is gone.
    pub async fn emit(&self, event: Event) {
        self.reachability.observe(&event);
        if self.events.send(event).await.is_ok() {
            (self.repaint)();
        }
    }

    /// The UI's repaint hook, for threads outside the engine that wake the UI (players).
    pub fn repaint_hook(&self) -> Arc<dyn Fn() + Send + Sync> {
        self.repaint.clone()
    }
}

/// Start the engine: open the journal, spawn the "engine-runtime" thread with a
/// two-worker tokio runtime, restore and resume jobs, fetch catalog, credits and projects.
pub fn start(config: EngineConfig) -> Result<EngineHandle, EngineError> {
    start_with(config, TransferTuning::default())
}

/// [`start`] with non-default transfer knobs (tests, tools).
pub fn start_with(
    config: EngineConfig,
    tuning: TransferTuning,
) -> Result<EngineHandle, EngineError> {
    let journal = Journal::open(&config.journal_path)?;
    let client = ApiClient::new(ClientConfig {
        base_url: config.base_url.clone(),
        api_key: config.api_key.clone(),
        request_timeout_secs: REQUEST_TIMEOUT_SECS,
    })
    .map_err(EngineError::Client)?;
    let (command_tx, command_rx) = mpsc::channel(COMMAND_QUEUE_LEN);
    let (event_tx, event_rx) = mpsc::channel(EVENT_QUEUE_LEN);
    let ctx = Arc::new(Ctx {
        client,
        journal,
        service_id: config.service_id.clone(),
        cache_dir: config.cache_dir.clone(),
        reachability: Reachability::default(),
        rate_gates: RateGates::new(tuning.uploads_per_window, tuning.rate_window_secs),
        reconcile_timing: ReconcileTiming {
            margin_secs: tuning.reconcile_margin_secs,
            duration_factor: tuning.reconcile_duration_factor,
        },
        events: event_tx,
        repaint: config.repaint.clone(),
    });

    // The chat history lives beside the journal, in the data folder, in its own file.
    let chat_store_path = config.journal_path.with_file_name(CHAT_STORE_FILE);

    let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel::<Result<(), String>>(1);
    let thread = std::thread::Builder::new()
        .name("engine-runtime".to_owned())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .worker_threads(WORKER_THREADS)
                .thread_name("engine-worker")
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(e) => {
                    let _ = ready_tx.send(Err(format!("tokio runtime: {e}")));
                    return;
                }
            };
            let _ = ready_tx.send(Ok(()));
            runtime.block_on(run(ctx, command_rx, tuning, chat_store_path));
            runtime.shutdown_timeout(Duration::from_secs(SHUTDOWN_GRACE_SECS));
        })
        .map_err(|e| EngineError::Start(format!("engine thread: {e}")))?;

    match ready_rx.recv() {
        Ok(Ok(())) => Ok(EngineHandle {
            commands: Some(command_tx),
            events: event_rx,
            thread: Some(thread),
        }),
        Ok(Err(reason)) => {
            let _ = thread.join();
            Err(EngineError::Start(reason))
        }
        Err(_) => {
            let _ = thread.join();
            Err(EngineError::Start(
                "the engine thread ended during start".into(),
            ))
        }
    }
}

/// The engine's main loop: start-up work, then one task per command until shutdown.
async fn run(
    ctx: Arc<Ctx>,
    mut commands: mpsc::Receiver<Command>,
    tuning: TransferTuning,
    chat_store_path: PathBuf,
) {
    let tracker = Tracker::new(ctx.clone());
    let chat = {
        let ctx = ctx.clone();
        tokio::task::spawn_blocking(move || Chat::new(ctx, &chat_store_path))
            .await
            .ok()
    };
    let transfers = Transfers::new(ctx.clone());
    let library = Library::new(ctx.clone(), &tuning);
    let videos = Videos::new(ctx.clone(), transfers.clone());
    let sounds = super::audio::Sounds::new(ctx.clone(), transfers.clone());
    let docs = super::docs::Docs::new(ctx.clone());
    let voices = super::voices::Voices::default();
    let visual_dnas = super::visual_dna::VisualDnas::default();

    tokio::spawn(super::reachability::probe_task(ctx.clone()));
    tracker.restore().await;
    spawn_reported(&ctx, "loading the models", refresh_catalog(ctx.clone()));
    spawn_reported(
        &ctx,
        "loading the credit balance",
        refresh_credits(ctx.clone()),
    );
    spawn_reported(&ctx, "loading the projects", refresh_projects(ctx.clone()));

    while let Some(command) = commands.recv().await {
        match command {
            Command::Shutdown => {
                // A delete sent just before quitting (its Undo window ended) must not be cut off.
                docs.finish_deletes().await;
                break;
            }
            Command::Docs(command) => docs.handle(command),
            Command::Account(command) => super::account::handle(&ctx, command),
            Command::Storage(command) => super::storage::handle(&ctx, command),
            Command::ProjectOps(command) => super::projects::handle(&ctx, command),
            Command::RetryConnection => ctx.reachability.retry_now(),
            Command::Voices => voices.load(&ctx),
            Command::VisualDna(command) => visual_dnas.handle(&ctx, command),
            Command::Moodboards(command) => super::moodboards::handle(&ctx, command),
            Command::FileOut(command) => super::file_out::handle(&ctx, &transfers, command),
            Command::Transcript(command) => super::transcripts::handle(&ctx, command),
            Command::Chat(command) => match &chat {
                Some(chat) => chat.handle(command),
                None => tracing::error!("the chat could not start; command dropped"),
            },
            Command::Notify(notice) => {
                spawn_reported(
                    &ctx,
                    "showing a notification",
                    super::notices::show(ctx.clone(), transfers.clone(), notice),
                );
            }
            library_command @ (Command::LoadMediaPage { .. }
            | Command::LoadMediaDetail { .. }
            | Command::RefreshFolders
            | Command::RefreshMediaStats { .. }
            | Command::MutateMedia { .. }
            | Command::UploadFiles { .. }
            | Command::DownloadToFolder { .. }
            | Command::CancelTransfer { .. }
            | Command::LocateResult { .. }) => {
                library.handle(library_command);
            }
            palette_command @ (Command::RefreshPalettes { .. }
            | Command::SavePalette { .. }
            | Command::DeletePalette { .. }
            | Command::ActivatePalette { .. }
            | Command::DeactivatePalette { .. }
            | Command::AnalyzePalette { .. }
            | Command::RefreshPresets) => {
                super::palettes::handle(&ctx, palette_command);
            }
            chat_command @ (Command::LoadChatConversations | Command::LoadChatMessages { .. }) => {
                super::creative_chat::handle(&ctx, chat_command);
            }
            Command::Submit {
                spec,
                model_label,
                credits_estimate,
            } => {
                spawn_reported(
                    &ctx,
                    "adding a job to the queue",
                    tracker.clone().submit(spec, model_label, credits_estimate),
                );
            }
            Command::Cancel { local_id } => {
                tracker.spawn_job_task("job cancel", local_id, tracker.clone().cancel(local_id));
            }
            Command::Dismiss { local_id } => {
                spawn_reported(&ctx, "removing a job", tracker.clone().dismiss(local_id));
            }
            Command::Reconcile { local_id } => {
                tracker.spawn_job_task(
                    "job reconcile",
                    local_id,
                    tracker.clone().reconcile(local_id),
                );
            }
            Command::RefreshCatalog => {
                spawn_reported(&ctx, "loading the models", refresh_catalog(ctx.clone()));
            }
            Command::RefreshCredits => {
                spawn_reported(
                    &ctx,
                    "loading the credit balance",
                    refresh_credits(ctx.clone()),
                );
            }
            Command::RefreshProjects => {
                spawn_reported(&ctx, "loading the projects", refresh_projects(ctx.clone()));
            }
            Command::CreateProject { name } => {
                let task_ctx = ctx.clone();
                spawn_reported(&ctx, "creating a project", async move {
                    let result = task_ctx.client.create_project(&name).await;
                    let created = result.is_ok();
                    task_ctx.emit(Event::ProjectCreated(result)).await;
                    if created {
                        refresh_projects(task_ctx).await;
                    }
                });
            }
            Command::LoadImage { url, max_side_px } => {
                transfers.load_image(url, max_side_px);
            }
            Command::UploadSource { path } => {
                spawn_reported(
                    &ctx,
                    "uploading a source image",
                    transfers.clone().upload_source(path),
                );
            }
            Command::LoadModel3d { url } => {
                spawn_reported(
                    &ctx,
                    "loading a 3D model",
                    super::model3d::load_model_3d(ctx.clone(), url),
                );
            }
            Command::SaveUrlToFile { url, path } => {
                spawn_reported(
                    &ctx,
                    "saving a file",
                    transfers.clone().save_url_to_file(url, path),
                );
            }
            Command::OpenVideo { request_id, url } => videos.open(request_id, url),
            Command::LoadVideoPreview {
                url,
                frame_count,
                max_side_px,
            } => videos.preview(url, frame_count, max_side_px),
            Command::LoadVideoStrip {
                request_id,
                url,
                slot_count,
                height_px,
            } => videos.strip(request_id, url, slot_count, height_px),
            Command::CancelVideoStrip { request_id } => videos.cancel_strip(request_id),
            Command::Audio(command) => sounds.handle(command),
            Command::OpenInSystemViewer { url } => {
                spawn_reported(
                    &ctx,
                    "opening an image",
                    transfers.clone().open_in_system_viewer(url),
                );
            }
        }
    }
    tracing::debug!("engine loop stopped");
}

/// GET /v1/models (all types) -> `Event::Catalog`.
pub(crate) async fn refresh_catalog(ctx: Arc<Ctx>) {
    let result = ctx.client.list_models(None).await;
    if let Err(e) = &result {
        tracing::warn!("catalog refresh failed: {e}");
    }
    ctx.emit(Event::Catalog(result)).await;
}

/// GET /v1/account/credits -> `Event::Credits`.
pub(crate) async fn refresh_credits(ctx: Arc<Ctx>) {
    let result = ctx.client.credits().await;
    if let Err(e) = &result {
        tracing::warn!("credits refresh failed: {e}");
    }
    ctx.emit(Event::Credits(result)).await;
}

/// GET /v1/projects -> `Event::Projects`.
pub(crate) async fn refresh_projects(ctx: Arc<Ctx>) {
    let result = ctx.client.projects().await;
    if let Err(e) = &result {
        tracing::warn!("projects refresh failed: {e}");
    }
    ctx.emit(Event::Projects(result)).await;
}
