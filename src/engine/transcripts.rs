//! Transcripts: a finished transcription's SRT fetched from its `srt_url` (an output URL,
//! so through the key-less client) and read into cues off the UI thread, and a transcript
//! the artist exports (SRT, WebVTT or text, made by the UI from the cues) written to the
//! file they picked.

use super::guard::spawn_reported;
use super::protocol::Event;
use super::runtime::Ctx;
use crate::media::subtitles::{self, Cue};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq)]
pub enum TranscriptCommand {
    /// GET `srt_url` and read it; answered by `Loaded` or `Failed`.
    Load { srt_url: String },
    /// Write `contents` to `path` (temp file, then rename); answered by `Event::FileSaved`.
    SaveText { path: PathBuf, contents: String },
    /// How long the sound of a local file is (the Create form's price); answered by
    /// `Probed`.
    Probe { path: PathBuf },
}

#[derive(Clone, Debug, PartialEq)]
pub enum TranscriptEvent {
    Loaded {
        srt_url: String,
        cues: Vec<Cue>,
    },
    Failed {
        srt_url: String,
        /// For a person.
        error: String,
        /// The raw error (Details, the log).
        detail: String,
    },
    /// The length of a local file's sound; `None` when it could not be read (the price
    /// then stays per minute).
    Probed {
        path: PathBuf,
        duration_secs: Option<f64>,
    },
}

pub(crate) fn handle(ctx: &Arc<Ctx>, command: TranscriptCommand) {
    match command {
        TranscriptCommand::Load { srt_url } => {
            spawn_reported(ctx, "loading a transcript", load(ctx.clone(), srt_url));
        }
        TranscriptCommand::Probe { path } => {
            spawn_reported(ctx, "reading a file's length", probe(ctx.clone(), path));
        }
        TranscriptCommand::SaveText { path, contents } => {
            spawn_reported(
                ctx,
                "saving a transcript",
                save_text(ctx.clone(), path, contents),
            );
        }
    }
}

async fn load(ctx: Arc<Ctx>, srt_url: String) {
    let fetched = ctx.client.fetch_output(&srt_url).await;
    ctx.reachability.note(fetched.as_ref());
    let event = match fetched {
        Err(error) => {
            tracing::warn!("fetching a transcript failed: {error}");
            TranscriptEvent::Failed {
                srt_url,
                error: format!(
                    "The transcript could not be downloaded: {}",
                    super::error_in_words(&error)
                ),
                detail: error.to_string(),
            }
        }
        Ok(bytes) => {
            match tokio::task::spawn_blocking(move || subtitles::parse_srt(&bytes)).await {
                Ok(Ok(cues)) => TranscriptEvent::Loaded { srt_url, cues },
                Ok(Err(error)) => {
                    tracing::warn!("reading a transcript's SRT failed: {error}");
                    TranscriptEvent::Failed {
                        srt_url,
                        error: "The transcript file the service gave could not be read.".to_owned(),
                        detail: error.to_string(),
                    }
                }
                Err(join) => TranscriptEvent::Failed {
                    srt_url,
                    error: "The transcript file could not be read.".to_owned(),
                    detail: join.to_string(),
                },
            }
        }
    };
    ctx.emit(Event::Transcript(event)).await;
}

async fn probe(ctx: Arc<Ctx>, path: PathBuf) {
    let file = path.clone();
    let duration_secs = tokio::task::spawn_blocking(move || match crate::audio::open_file(&file) {
        Ok((_, info)) => info.duration_secs.filter(|d| d.is_finite() && *d > 0.0),
        Err(error) => {
            tracing::info!("no sound length for {}: {error}", file.display());
            None
        }
    })
    .await
    .ok()
    .flatten();
    ctx.emit(Event::Transcript(TranscriptEvent::Probed {
        path,
        duration_secs,
    }))
    .await;
}

async fn save_text(ctx: Arc<Ctx>, path: PathBuf, contents: String) {
    let target = path.clone();
    let written = tokio::task::spawn_blocking(move || write_atomically(&target, &contents))
        .await
        .map_err(|e| e.to_string())
        .and_then(|r| r.map_err(|e| e.to_string()));
    let result = written.map_err(|raw| {
        tracing::warn!("saving a transcript to {} failed: {raw}", path.display());
        format!("The transcript could not be saved there ({raw}).")
    });
    ctx.emit(Event::FileSaved { path, result }).await;
}

/// `contents` into a temp file beside `path`, then renamed over it.
fn write_atomically(path: &std::path::Path, contents: &str) -> std::io::Result<()> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "transcript".to_owned());
    let temp = path.with_file_name(format!(".{file_name}.part"));
    std::fs::write(&temp, contents.as_bytes())?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}
