//! The background runtime: a tokio runtime on a named thread that owns all service I/O
//! (job tracker, journal, catalog/credits/projects fetches, image loading, uploads).
//! The UI talks to it only through [`Command`]s in and [`Event`]s out.

pub mod account;
pub mod audio;
pub mod chat;
pub mod conversations;
pub mod creative_chat;
pub mod docs;
pub mod error_words;
pub mod file_out;
pub mod guard;
mod job_guard;
pub mod journal;
pub mod library;
pub mod library_transfers;
pub mod model3d;
pub mod moodboards;
pub mod notices;
pub mod palettes;
pub mod projects;
pub mod protocol;
pub mod rate_limit;
pub mod reachability;
mod reconcile;
pub mod runtime;
pub mod source_check;
pub mod storage;
mod submit_queue;
pub mod tracker;
pub mod transcripts;
pub mod transfers;
pub mod video;
pub mod visual_dna;
mod voices;

pub use account::{AccountCommand, AccountEvent, ApiKey, ConnectionProblem, ConnectionReport};
pub use audio::{AudioCommand, AudioEvent};
pub use docs::{DocsCommand, DocsEvent};
pub use error_words::error_in_words;
pub use file_out::{FileOutCommand, FileOutEvent, FileOutPurpose, FileOutcome};
pub use journal::{CreditSnapshot, Journal, JournalError, JournalRow};
pub use library_transfers::TransferTuning;
pub use moodboards::{MoodboardCommand, MoodboardEvent};
pub use projects::{ProjectsCommand, ProjectsEvent};
pub use protocol::{
    Command, Event, JobPhase, JobRecord, LocalJobId, PaletteOpKind, PaletteSource, PresetsOrigin,
    QueueReason,
};
pub use runtime::{EngineConfig, EngineError, EngineHandle, start, start_with};
pub use storage::{CacheCleared, CacheSize, StorageCommand, StorageEvent};
pub use submit_queue::{FOLLOWED_SUFFIX, followed_label};
pub use transcripts::{TranscriptCommand, TranscriptEvent};
pub use visual_dna::{VisualDnaCommand, VisualDnaEvent};
