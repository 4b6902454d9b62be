//! Result files handed to the desktop: "Reveal in file manager", "Copy file" (the UI puts
//! the path on the clipboard as a file) and, on macOS and Windows, dragging a result out.
//! Each needs the file on disk first: the output is downloaded into the cache (the same
//! copy "Open in system viewer" and the player use), reporting progress, then revealed
//! here or handed back ready.

use super::guard::spawn_reported;
use super::protocol::Event;
use super::runtime::Ctx;
use super::transfers::Transfers;
use crate::api::TransferCounter;
use crate::desktop::reveal::{Revealed, reveal};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Folder under the cache for files handed out under their own names.
const OUT_FOLDER: &str = "out";
/// How often a download reports its progress.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);

/// What the file is wanted for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileOutPurpose {
    /// Show it selected in the file manager (done by the engine).
    Reveal,
    /// Put it on the clipboard as a file (done by the UI, which owns the clipboard).
    Copy,
    /// Drag it into another application (macOS and Windows).
    Drag,
}

#[derive(Debug)]
pub enum FileOutCommand {
    /// Make output `url` a local file named `file_name` (made safe; the extension is the
    /// file's own) for `purpose`; answered by `Progress`… (only while downloading) then
    /// one `Finished`.
    Prepare {
        url: String,
        file_name: String,
        purpose: FileOutPurpose,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum FileOutEvent {
    Progress {
        url: String,
        purpose: FileOutPurpose,
        bytes_done: u64,
        /// 0 while unknown.
        bytes_total: u64,
    },
    Finished {
        url: String,
        purpose: FileOutPurpose,
        /// The local file (and how it was revealed), or why not, in words for a person.
        outcome: Result<FileOutcome, String>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct FileOutcome {
    pub path: PathBuf,
    /// For `Reveal`: how the file manager was reached.
    pub revealed: Option<Revealed>,
}

pub(crate) fn handle(ctx: &Arc<Ctx>, transfers: &Transfers, command: FileOutCommand) {
    match command {
        FileOutCommand::Prepare {
            url,
            file_name,
            purpose,
        } => spawn_reported(
            ctx,
            "preparing a file",
            prepare(ctx.clone(), transfers.clone(), url, file_name, purpose),
        ),
    };
}

async fn prepare(
    ctx: Arc<Ctx>,
    transfers: Transfers,
    url: String,
    file_name: String,
    purpose: FileOutPurpose,
) {
    let local = match crate::file_url::path_of_file_url(&url) {
        // A file opened from this computer (`--play`) is revealed or copied as it is.
        Some(path) => Ok(path),
        None => match download_reporting(&ctx, &transfers, &url, purpose).await {
            Ok(cached) => named_copy(&ctx.cache_dir, &cached, &file_name).await,
            Err(error) => Err(error),
        },
    };
    let outcome = match local {
        Err(error) => {
            tracing::warn!("preparing {url} for {purpose:?}: {error}");
            Err(format!("it could not be downloaded ({error})"))
        }
        Ok(path) if purpose == FileOutPurpose::Reveal => match reveal(&path).await {
            Ok(revealed) => {
                tracing::info!("revealed {}: {revealed:?}", path.display());
                Ok(FileOutcome {
                    path,
                    revealed: Some(revealed),
                })
            }
            Err(error) => {
                tracing::warn!("reveal {}: {}", path.display(), error.details);
                Err(error.message)
            }
        },
        Ok(path) => Ok(FileOutcome {
            path,
            revealed: None,
        }),
    };
    ctx.emit(Event::FileOut(FileOutEvent::Finished {
        url,
        purpose,
        outcome,
    }))
    .await;
}

/// The cached copy of `url`, downloading it first if needed with a `Progress` event every
/// [`PROGRESS_INTERVAL`].
async fn download_reporting(
    ctx: &Ctx,
    transfers: &Transfers,
    url: &str,
    purpose: FileOutPurpose,
) -> Result<PathBuf, String> {
    let counter = Arc::new(TransferCounter::default());
    let download = transfers.cached_output_tracked(url, Some(counter.clone()));
    tokio::pin!(download);
    let mut ticker = tokio::time::interval(PROGRESS_INTERVAL);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    ticker.tick().await; // the first tick is immediate; a cached file needs no progress
    loop {
        tokio::select! {
            result = &mut download => return result,
            _ = ticker.tick() => {
                ctx.emit(Event::FileOut(FileOutEvent::Progress {
                    url: url.to_owned(),
                    purpose,
                    bytes_done: counter.bytes_done.load(Ordering::Relaxed),
                    bytes_total: counter.bytes_total.load(Ordering::Relaxed),
                }))
                .await;
            }
        }
    }
}

/// The cached download under a name a person recognises (the cache's own name is a hash):
/// `<cache>/out/<hash>/<name>.<ext>`, a hard link where possible, else a copy.
async fn named_copy(cache_dir: &Path, cached: &Path, file_name: &str) -> Result<PathBuf, String> {
    /// Long prompts make long labels; file systems allow 255 bytes.
    const MAX_NAME_CHARS: usize = 80;
    let hash = cached
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = cached
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    let safe = super::library_transfers::file_name_for(&super::protocol::DownloadItem {
        url: String::new(),
        file_name: file_name.chars().take(MAX_NAME_CHARS).collect(),
    });
    let name = if ext.is_empty() || safe.to_lowercase().ends_with(&format!(".{ext}")) {
        safe
    } else {
        format!("{safe}.{ext}")
    };
    let folder = cache_dir.join(OUT_FOLDER).join(hash);
    let target = folder.join(name);
    if tokio::fs::metadata(&target).await.is_ok() {
        return Ok(target);
    }
    let cannot = |e: std::io::Error| format!("could not name the file {}: {e}", target.display());
    tokio::fs::create_dir_all(&folder).await.map_err(cannot)?;
    if tokio::fs::hard_link(cached, &target).await.is_err() {
        tokio::fs::copy(cached, &target).await.map_err(cannot)?;
    }
    Ok(target)
}
