//! The engine's typed interface: commands in (from the UI), events out (to the UI).
//! Both travel over bounded channels; the engine calls the repaint hook after each event.

use crate::api::media::{
    BulkAction, BulkOutcome, Folder, FolderAddOutcome, FolderFields, MediaDetail, MediaItem,
    MediaPage, MediaQuery, MediaStats, ShareOutcome,
};
use crate::api::{
    AnalyzedColors, ApiError, ChatConversation, ChatMessage, CinematicPresets, ColorPalette,
    Credits, Failure, GenerationSpec, JobResult, JobState, ModelRecord, NewPalette, PalettePage,
    Project, Scene, UploadedMedia, Voice,
};
use crate::media::DecodedImage;
use crate::media::video::{PreviewFrame, StripThumbnail, VideoPlayer};
use std::path::PathBuf;
use std::sync::Arc;

/// Journal row id: the client's own handle for a job, assigned before the POST is sent.
pub type LocalJobId = i64;

// Commands and events are moved through bounded channels a handful of times per frame at
// most; boxing the big variants would only complicate every match in the UI.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Command {
    /// Submit a new generation. The UI asks for this only on an explicit user action.
    Submit {
        spec: GenerationSpec,
        model_label: String,
        credits_estimate: Option<f64>,
    },
    /// Cancel a queued job (never sent) or a running one (POST /generate/:id/cancel).
    Cancel {
        local_id: LocalJobId,
    },
    /// Remove a finished job from the tray (the journal keeps no row for it afterwards).
    Dismiss {
        local_id: LocalJobId,
    },
    /// Re-check an unconfirmed submit (lost response) without re-sending it.
    Reconcile {
        local_id: LocalJobId,
    },
    RefreshCatalog,
    RefreshCredits,
    RefreshProjects,
    CreateProject {
        name: String,
    },
    /// Fetch and decode an image off the UI thread; answered by `ImageLoaded`/`ImageFailed`.
    /// `max_side_px` downsizes large images before they reach the UI.
    LoadImage {
        url: String,
        max_side_px: u32,
    },
    /// Upload a local file (an edit source, the image to animate, a reference image);
    /// answered by `SourceUploadProgress`… then `SourceUploaded`.
    UploadSource {
        path: PathBuf,
    },
    /// Fetch a GLB (a 3D result) and read it into a mesh for the turntable; answered by
    /// `Model3dLoaded`.
    LoadModel3d {
        url: String,
    },
    /// Download an output URL to a file the user picked.
    SaveUrlToFile {
        url: String,
        path: PathBuf,
    },
    /// Download an output URL into the cache and open it with the system's default viewer.
    OpenInSystemViewer {
        url: String,
    },
    /// Download a video output into the cache (once; reopening is instant) and start a
    /// player on it; answered by `VideoOpened` or `VideoFailed` with the same `request_id`
    /// (two panels may open the same URL; each keeps only its own answer).
    OpenVideo {
        request_id: u64,
        url: String,
    },
    /// Decode `frame_count` evenly spaced frames, longest side at most `max_side_px`, for
    /// hover-scrubbing; answered by `VideoPreviewLoaded`, `VideoPreviewFailed` or
    /// `VideoPreviewSkipped` (newer requests overtook it; ask again if still wanted).
    LoadVideoPreview {
        url: String,
        frame_count: u32,
        max_side_px: u32,
    },
    /// The trim timeline's thumbnail strip of the video at `url`: `slot_count` keyframe
    /// thumbnails `height_px` high, each sent as `VideoStripThumbnail` as soon as it is
    /// decoded, then `VideoStripFinished`; all with this `request_id`.
    LoadVideoStrip {
        request_id: u64,
        url: String,
        slot_count: u32,
        height_px: u32,
    },
    /// Stop a strip (its timeline closed); nothing more is sent for it.
    CancelVideoStrip {
        request_id: u64,
    },
    /// Sound: load a file and its waveform peaks, save as WAV (see `engine::audio`).
    Audio(super::audio::AudioCommand),
    // ---- Media library (document 3) ----
    /// Fetch one page of the library; answered by `MediaPage` carrying the same
    /// `request_id` (the UI drops answers for queries it no longer shows).
    LoadMediaPage {
        request_id: u64,
        query: MediaQuery,
        page: u32,
        page_size: u32,
    },
    /// GET /v1/media/:id (also accepts a generation id); answered by `MediaDetail`.
    LoadMediaDetail {
        id: String,
    },
    RefreshFolders,
    /// GET /media/stats for a project (or the caller's own media with `None`).
    RefreshMediaStats {
        project_id: Option<String>,
    },
    /// A change the UI has already shown optimistically; answered by `MediaMutationDone`
    /// with the same `op_id` so the UI can confirm it or roll it back.
    MutateMedia {
        op_id: u64,
        mutation: MediaMutation,
    },
    /// Upload local files to the library (streamed from disk, paced to the upload rate
    /// limit); answered by `TransferProgress`… then `TransferFinished`.
    UploadFiles {
        uploads: Vec<UploadRequest>,
    },
    /// Download outputs into a folder (temp file, renamed when complete).
    DownloadToFolder {
        transfer_id: u64,
        items: Vec<DownloadItem>,
        folder: PathBuf,
    },
    /// Stop a queued or running upload/download; answered by `TransferFinished` (cancelled).
    CancelTransfer {
        transfer_id: u64,
    },
    /// Find the library item that holds a job's output `url` (to favourite or trash a
    /// Create result). Answered by one `ResultLocated`.
    LocateResult {
        url: String,
        generation_id: Option<String>,
        project_id: Option<String>,
    },
    // ---- Colour palettes (document 2) and cinematic presets ----
    /// GET /color-palettes (first page, 100) with the project whose grade to mark;
    /// answered by `Palettes`.
    RefreshPalettes {
        project_id: Option<String>,
    },
    /// Create (`palette_id: None`) or update a palette; answered by `PaletteOpDone`. An
    /// update sends name, colours and sources only (never a project id or `is_active`).
    SavePalette {
        op_id: u64,
        palette_id: Option<String>,
        body: NewPalette,
    },
    DeletePalette {
        op_id: u64,
        palette_id: String,
    },
    ActivatePalette {
        op_id: u64,
        palette_id: String,
        project_id: String,
    },
    DeactivatePalette {
        op_id: u64,
        project_id: String,
    },
    /// Extract a palette from 1-5 images. Local files are decoded and analysed on the
    /// blocking pool at once (`PaletteLocalPreview`), then uploaded to the media library
    /// and analysed by the service together with the URLs (`PaletteAnalyzed`).
    AnalyzePalette {
        request_id: u64,
        sources: Vec<PaletteSource>,
    },
    /// Show the cached cinematic presets at once, then revalidate them with the service
    /// (If-None-Match); answered by one or two `Presets` events.
    RefreshPresets,
    /// Project documents; each answered by one `Event::Docs` with the same `op_id`.
    Docs(super::docs::DocsCommand),
    /// Account checks (Test connection); answered by `Event::Account`.
    Account(super::account::AccountCommand),
    /// The studio's folders (cache size and clearing, the log's tail, opening a folder);
    /// answered by `Event::Storage`.
    Storage(super::storage::StorageCommand),
    /// Rename, archive and unarchive projects, and prompt presets; answered by
    /// `Event::ProjectOps`.
    ProjectOps(super::projects::ProjectsCommand),
    // ---- Creative chat (generation-side chat; messages are sent with `Submit`) ----
    /// GET /v1/chat/conversations (first page, newest activity first); answered by
    /// `ChatConversations`.
    LoadChatConversations,
    /// Every message of one conversation, oldest first; answered by `ChatMessages` with the
    /// same `session_id`.
    LoadChatMessages {
        session_id: String,
    },
    /// Show a desktop notification for a finished job (the window is in the background);
    /// a click answers with `NoticeClicked`.
    Notify(super::notices::Notice),
    /// The coding-assistant chat (see `engine::chat`).
    Chat(super::chat::ChatCommand),
    /// A result as a local file for the desktop (reveal, copy, drag out); answered by
    /// `Event::FileOut`.
    FileOut(super::file_out::FileOutCommand),
    /// Transcripts: load a finished transcription's SRT, save an export; answered by
    /// `Event::Transcript` (loads) or `Event::FileSaved` (saves).
    Transcript(super::transcripts::TranscriptCommand),
    /// The service is unreachable and the user asked to try now (cuts the back-off short).
    RetryConnection,
    /// GET /v1/voices (the speech voice picker), once per session; answered by
    /// `Event::Voices` (from memory after the first success).
    Voices,
    /// Visual DNA entries and folders; answered by `Event::VisualDna`.
    VisualDna(super::visual_dna::VisualDnaCommand),
    /// Moodboards; answered by `Event::Moodboards`.
    Moodboards(super::moodboards::MoodboardCommand),
    /// Stop the runtime (app exit). Jobs keep running on the service and resume next start.
    Shutdown,
}

/// An image to extract colours from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaletteSource {
    File(PathBuf),
    Url(String),
}

/// Which palette change a `PaletteOpDone` answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaletteOpKind {
    Create,
    Update,
    Delete,
    Activate,
    Deactivate,
}

/// Where a `Presets` answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresetsOrigin {
    /// The copy on disk, shown before the service answers.
    Cache,
    /// A fresh answer from the service (now cached).
    Network,
    /// 304: the cached copy is current.
    Revalidated,
}

/// One change to library items or folders.
#[derive(Clone, Debug, PartialEq)]
pub enum MediaMutation {
    Favorite {
        ids: Vec<String>,
        favorited: bool,
    },
    /// Trash / restore / delete forever (bulk routes; one id uses the same route).
    Bulk {
        action: BulkAction,
        ids: Vec<String>,
    },
    /// Atomic move to another project (POST /media/bulk/move).
    MoveToProject {
        ids: Vec<String>,
        project_id: String,
    },
    CreateFolder {
        fields: FolderFields,
    },
    UpdateFolder {
        folder_id: String,
        fields: FolderFields,
    },
    DeleteFolder {
        folder_id: String,
    },
    AddToFolder {
        folder_id: String,
        ids: Vec<String>,
    },
    RemoveFromFolder {
        folder_id: String,
        ids: Vec<String>,
    },
    ShareFolder {
        folder_id: String,
        emails: Vec<String>,
    },
    UnshareFolder {
        folder_id: String,
        user_id: String,
    },
    MoveFolderContents {
        folder_id: String,
        project_id: String,
    },
}

/// What a confirmed mutation reported back.
#[derive(Clone, Debug, PartialEq)]
pub enum MutationOutcome {
    Done,
    Bulk(BulkOutcome),
    Folder(Folder),
    AddedToFolder(FolderAddOutcome),
    Shared(ShareOutcome),
    /// Items moved (bulk move, move-contents).
    Moved {
        count: u64,
    },
    /// Items taken out of a folder (a shared member may only remove what they added, so
    /// this can be less than asked).
    Removed {
        count: u64,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct UploadRequest {
    pub transfer_id: u64,
    pub path: PathBuf,
    pub project_id: Option<String>,
    /// After the upload, the new item is added to this folder (found via its URL).
    pub folder_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DownloadItem {
    pub url: String,
    /// File name to use inside the target folder (made unique if taken).
    pub file_name: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TransferOutcome {
    Uploaded(UploadedMedia),
    Downloaded { paths: Vec<PathBuf> },
    Cancelled,
    Failed(ApiError),
}

/// Why a queued job has not been sent yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueReason {
    /// Waiting for room in its rate-limit group's window (or the wait a 429 named).
    RateLimit,
    /// The service does not answer; the job is sent once it does.
    ServiceUnreachable,
}

/// Where a job is, from the artist's point of view.
#[derive(Clone, Debug, PartialEq)]
pub enum JobPhase {
    /// Waiting in the client-side submit queue: nothing sent, nothing billed. `place` is
    /// 1-based within its rate-limit group's queue; `sends_at_unix_ms` is when it should
    /// go if nothing changes (`None` while that is unknown).
    Queued {
        place: u32,
        sends_at_unix_ms: Option<i64>,
        reason: QueueReason,
    },
    /// The POST is in flight.
    Submitting,
    /// The POST was sent but no answer came back: the job may or may not exist. Never
    /// re-sent automatically; reconciled against the credit balance.
    Unconfirmed {
        note: String,
    },
    /// The service refused the submission (validation, credits…), or it could not be sent:
    /// no job exists.
    Rejected {
        error: ApiError,
    },
    /// Accepted and being polled.
    Running {
        state: JobState,
    },
    Completed,
    Failed {
        failure: Failure,
    },
    Cancelled,
}

impl JobPhase {
    pub fn is_finished(&self) -> bool {
        matches!(
            self,
            JobPhase::Rejected { .. }
                | JobPhase::Completed
                | JobPhase::Failed { .. }
                | JobPhase::Cancelled
        )
    }
    pub fn label(&self) -> &'static str {
        match self {
            JobPhase::Queued { .. } => "queued",
            JobPhase::Submitting => "submitting",
            JobPhase::Unconfirmed { .. } => "unconfirmed",
            JobPhase::Rejected { .. } => "rejected",
            JobPhase::Running { .. } => "running",
            JobPhase::Completed => "completed",
            JobPhase::Failed { .. } => "failed",
            JobPhase::Cancelled => "cancelled",
        }
    }
}

/// A snapshot of one job, sent whole on every change.
#[derive(Clone, Debug, PartialEq)]
pub struct JobRecord {
    pub local_id: LocalJobId,
    pub generation_id: Option<String>,
    pub spec: GenerationSpec,
    /// Model as the user picked it ("Auto" or a display name).
    pub model_label: String,
    pub phase: JobPhase,
    /// 0..=100
    pub progress_percent: f32,
    pub submitted_at_unix_ms: i64,
    pub finished_at_unix_ms: Option<i64>,
    pub credits_estimate: Option<f64>,
    pub credits_used: Option<f64>,
    pub result: Option<JobResult>,
    /// Last transient problem while polling (network down, 5xx, 429); cleared on success.
    pub poll_problem: Option<String>,
    pub poll_interval_secs: f64,
    /// Creative Director: the batch's scenes as last polled (scene order). Kept in
    /// `result.scenes` once the batch finishes, so they survive restarts.
    pub scenes: Vec<Scene>,
}

impl JobRecord {
    /// Whether Cancel may be offered: a queued job (never sent) always; a running one only
    /// when its kind has a cancel route (a trim has none).
    pub fn can_cancel(&self) -> bool {
        match self.phase {
            JobPhase::Queued { .. } => true,
            JobPhase::Running { .. } => self.spec.kind.can_cancel(),
            _ => false,
        }
    }

    /// The outputs known so far: the result once finished, or while a Creative Director
    /// batch runs, the scenes that have landed (scene order), so each opens on its own.
    pub fn current_result(&self) -> Option<JobResult> {
        if self.result.is_some() || self.scenes.is_empty() {
            return self.result.clone();
        }
        Some(JobResult {
            urls: self
                .scenes
                .iter()
                .flat_map(|scene| scene.output_urls().iter().cloned())
                .collect(),
            thumbnail_url: self.scenes.iter().find_map(|s| s.thumbnail_url.clone()),
            scenes: self.scenes.clone(),
            ..JobResult::default()
        })
    }

    /// Index into [`Self::current_result`]'s urls of scene `scene_index`'s first output.
    pub fn scene_output_index(&self, scene_index: usize) -> Option<usize> {
        let scene = self.scenes.get(scene_index)?;
        if scene.output_urls().is_empty() {
            return None;
        }
        Some(
            self.scenes[..scene_index]
                .iter()
                .map(|s| s.output_urls().len())
                .sum(),
        )
    }
}

#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Event {
    Catalog(Result<Vec<ModelRecord>, ApiError>),
    /// Answer to `Command::Voices`: every voice the account may use.
    Voices(Result<Vec<Voice>, ApiError>),
    Credits(Result<Credits, ApiError>),
    Projects(Result<Vec<Project>, ApiError>),
    ProjectCreated(Result<Project, ApiError>),
    /// Every job in the journal for this service, sent once at start.
    JobsRestored(Vec<JobRecord>),
    JobUpdated(JobRecord),
    JobRemoved(LocalJobId),
    ImageLoaded {
        url: String,
        image: Arc<DecodedImage>,
    },
    ImageFailed {
        url: String,
        error: String,
    },
    /// A `LoadModel3d` ended: the mesh, or why it cannot be shown (in words).
    Model3dLoaded {
        url: String,
        result: Result<Arc<crate::media::mesh::Mesh>, String>,
    },
    /// Bytes sent of a `UploadSource` so far (a few times a second while it runs).
    SourceUploadProgress {
        path: PathBuf,
        bytes_done: u64,
        bytes_total: u64,
    },
    SourceUploaded {
        path: PathBuf,
        result: Result<String, ApiError>,
    },
    /// A `SaveUrlToFile` ended; an error is in words (the raw error is logged).
    FileSaved {
        path: PathBuf,
        result: Result<(), String>,
    },
    MediaPage {
        request_id: u64,
        page: u32,
        result: Result<MediaPage, ApiError>,
    },
    MediaDetail {
        id: String,
        result: Result<MediaDetail, ApiError>,
    },
    Folders(Result<Vec<Folder>, ApiError>),
    MediaStats {
        project_id: Option<String>,
        result: Result<MediaStats, ApiError>,
    },
    MediaMutationDone {
        op_id: u64,
        mutation: MediaMutation,
        result: Result<MutationOutcome, ApiError>,
    },
    /// Bytes moved so far; monotonic per transfer.
    TransferProgress {
        transfer_id: u64,
        bytes_done: u64,
        bytes_total: u64,
    },
    TransferFinished {
        transfer_id: u64,
        outcome: TransferOutcome,
    },
    /// The library item holding the job output `url`; `Ok(None)` when none was found.
    ResultLocated {
        url: String,
        result: Result<Option<MediaItem>, ApiError>,
    },
    Palettes {
        project_id: Option<String>,
        result: Result<PalettePage, ApiError>,
    },
    /// A palette change finished; `palette` is the stored palette when the route returns one.
    PaletteOpDone {
        op_id: u64,
        kind: PaletteOpKind,
        result: Result<Option<ColorPalette>, ApiError>,
    },
    /// The instant median-cut preview of the dropped files (computed on this machine).
    PaletteLocalPreview {
        request_id: u64,
        result: Result<AnalyzedColors, String>,
    },
    /// The service's analysis; `source_urls` are the images it read (uploads included).
    PaletteAnalyzed {
        request_id: u64,
        source_urls: Vec<String>,
        result: Result<AnalyzedColors, ApiError>,
    },
    Presets {
        origin: PresetsOrigin,
        result: Result<CinematicPresets, ApiError>,
    },
    /// The answer to a `Command::Docs`.
    Docs(super::docs::DocsEvent),
    /// The answer to a `Command::Account`.
    Account(super::account::AccountEvent),
    /// The answer to a `Command::Storage`.
    Storage(super::storage::StorageEvent),
    /// The answer to a `Command::ProjectOps`.
    ProjectOps(super::projects::ProjectsEvent),
    /// The creative chat conversations, most recently active first.
    ChatConversations(Result<Vec<ChatConversation>, ApiError>),
    /// One conversation's messages, oldest first (each user message, then its answer).
    ChatMessages {
        session_id: String,
        result: Result<Vec<ChatMessage>, ApiError>,
    },
    /// Outcome of `OpenInSystemViewer` when it failed (success needs no message); `error`
    /// is in words (the raw error is logged).
    OpenFailed {
        url: String,
        error: String,
    },
    /// A player on the video at `url`, paused on its first frame.
    VideoOpened {
        request_id: u64,
        url: String,
        player: Arc<VideoPlayer>,
    },
    /// The video could not be downloaded or opened: `message` is for a person, `details`
    /// the raw error.
    VideoFailed {
        request_id: u64,
        url: String,
        message: String,
        details: String,
    },
    VideoPreviewLoaded {
        url: String,
        frames: Arc<Vec<PreviewFrame>>,
    },
    VideoPreviewFailed {
        url: String,
        message: String,
    },
    VideoPreviewSkipped {
        url: String,
    },
    /// One slot of a `LoadVideoStrip` (slot `thumbnail.index` of `thumbnail.total`).
    VideoStripThumbnail {
        request_id: u64,
        thumbnail: StripThumbnail,
    },
    /// A strip is done: every slot was sent, or `error` (for a person) says why not all.
    VideoStripFinished {
        request_id: u64,
        error: Option<String>,
    },
    /// The answers to a `Command::Audio`.
    Audio(super::audio::AudioEvent),
    /// Reads stopped getting answers (connection refused, DNS, timeout). Sent once; the
    /// engine probes with back-off until `ServiceReachable`.
    ServiceUnreachable {
        error: String,
    },
    /// The service answers again after `ServiceUnreachable`.
    ServiceReachable,
    /// The desktop notification of this job was clicked.
    NoticeClicked {
        local_id: LocalJobId,
    },
    /// The coding-assistant chat's answers (see `engine::chat`).
    Chat(super::chat::ChatEvent),
    /// The answers to a `Command::FileOut`.
    FileOut(super::file_out::FileOutEvent),
    /// The answers to a `Command::Transcript` load.
    Transcript(super::transcripts::TranscriptEvent),
    /// The answers to a `Command::VisualDna`.
    VisualDna(super::visual_dna::VisualDnaEvent),
    /// The answers to a `Command::Moodboards`.
    Moodboards(super::moodboards::MoodboardEvent),
    /// An engine task panicked (a bug) and was stopped; `doing` says what it was doing,
    /// e.g. "loading a library page". Logged already; the shell shows it once.
    TaskPanicked {
        doing: String,
    },
}
