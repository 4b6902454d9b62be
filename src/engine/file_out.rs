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
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

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
    /// Make output `url` a local file for `purpose`; answered by `Progress`… (only while
    /// downloading) then one `Finished`.
    Prepare {
        url: String,
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
        FileOutCommand::Prepare { url, purpose } => spawn_reported(
            ctx,
            "preparing a file",
            prepare(ctx.clone(), transfers.clone(), url, purpose),
        ),
    };
}

async fn prepare(ctx: Arc<Ctx>, transfers: Transfers, url: String, purpose: FileOutPurpose) {
    let outcome = match download_reporting(&ctx, &transfers, &url, purpose).await {
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
                tracing::warn!("reveal {}: {error}", path.display());
                Err(error.to_string())
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
