//! The media-library commands: pages, detail, folders, stats, mutations and transfers.
//! Every `MutateMedia` is answered by exactly one `MediaMutationDone` with its `op_id`;
//! the UI has already applied the change optimistically and rolls it back on an `Err`.

use super::guard::spawn_reported;
use super::library_transfers::{LibraryTransfers, TransferTuning};
use super::protocol::{Command, Event, MediaMutation, MutationOutcome};
use super::rate_limit::{RateLimiter, paced};
use super::runtime::Ctx;
use crate::api::media::{BulkOutcome, MediaCategory, MediaItem, MediaQuery};
use crate::api::media_client::MAX_BULK_IDS;
use crate::api::{ApiClient, ApiError};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Clone)]
pub(crate) struct Library {
    ctx: Arc<Ctx>,
    transfers: Arc<LibraryTransfers>,
    /// Paces list pages and favourites, so scrolling or acting on a select-all of a huge
    /// library waits its turn instead of collecting 429s.
    media_limiter: Arc<RateLimiter>,
    /// Paces bulk chunks (a select-all of 30,000 items is 30 calls at 20 a minute).
    bulk_limiter: Arc<RateLimiter>,
    /// The list request id last asked for: a page of an older request still waiting for
    /// its turn is dropped unsent (the UI only takes answers for its current request).
    latest_page_request: Arc<AtomicU64>,
}

impl Library {
    pub fn new(ctx: Arc<Ctx>, tuning: &TransferTuning) -> Self {
        let transfers = LibraryTransfers::new(ctx.clone(), tuning);
        Library {
            ctx: ctx.clone(),
            transfers,
            media_limiter: ctx.rate_gates.media.clone(),
            bulk_limiter: ctx.rate_gates.bulk.clone(),
            latest_page_request: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Start the work for one library command (never blocks the engine loop).
    pub fn handle(&self, command: Command) {
        let ctx = self.ctx.clone();
        match command {
            Command::LoadMediaPage {
                request_id,
                query,
                page,
                page_size,
            } => {
                self.latest_page_request
                    .store(request_id, Ordering::Relaxed);
                let limiter = self.media_limiter.clone();
                let latest = self.latest_page_request.clone();
                spawn_reported(&self.ctx, "loading a library page", async move {
                    let result = paced(&limiter, || async {
                        // Dropped unsent if the query changed while it waited for its turn.
                        if latest.load(Ordering::Relaxed) != request_id {
                            return Ok(None);
                        }
                        ctx.client
                            .list_media(&query, page, page_size)
                            .await
                            .map(Some)
                    })
                    .await;
                    let result = match result {
                        Ok(None) => return,
                        Ok(Some(answer)) => Ok(answer),
                        Err(error) => Err(error),
                    };
                    if let Err(e) = &result {
                        tracing::warn!("media page {page} failed: {e}");
                    }
                    ctx.emit(Event::MediaPage {
                        request_id,
                        page,
                        result,
                    })
                    .await;
                });
            }
            Command::LoadMediaDetail { id } => {
                spawn_reported(&self.ctx, "loading a library item", async move {
                    let result = ctx.client.media_item(&id).await;
                    ctx.emit(Event::MediaDetail { id, result }).await;
                });
            }
            Command::RefreshFolders => {
                spawn_reported(&self.ctx, "loading the folders", refresh_folders(ctx));
            }
            Command::RefreshMediaStats { project_id } => {
                spawn_reported(&self.ctx, "counting the library", async move {
                    let result = ctx.client.media_stats(project_id.as_deref()).await;
                    ctx.emit(Event::MediaStats { project_id, result }).await;
                });
            }
            Command::MutateMedia { op_id, mutation } => {
                let limits = Limits {
                    media: self.media_limiter.clone(),
                    bulk: self.bulk_limiter.clone(),
                };
                spawn_reported(&self.ctx, "changing the library", async move {
                    let result = apply(&ctx.client, &limits, &mutation).await;
                    if let Err(e) = &result {
                        tracing::info!(op_id, "library change refused: {e}");
                    }
                    let touches_folders = result.is_ok() && changes_folders(&mutation);
                    ctx.emit(Event::MediaMutationDone {
                        op_id,
                        mutation,
                        result,
                    })
                    .await;
                    // Item counts and sharing changed: the side list refreshes itself.
                    if touches_folders {
                        refresh_folders(ctx).await;
                    }
                });
            }
            Command::UploadFiles { uploads } => {
                for upload in uploads {
                    self.transfers.upload(upload);
                }
            }
            Command::DownloadToFolder {
                transfer_id,
                items,
                folder,
            } => {
                self.transfers.download(transfer_id, items, folder);
            }
            Command::CancelTransfer { transfer_id } => {
                self.transfers.cancel(transfer_id);
            }
            Command::LocateResult {
                url,
                generation_id,
                project_id,
            } => {
                let limiter = self.media_limiter.clone();
                spawn_reported(&self.ctx, "finding a result in the library", async move {
                    let result =
                        locate_result(&ctx.client, &limiter, &url, generation_id, project_id).await;
                    if let Err(e) = &result {
                        tracing::info!("looking up a result in the library failed: {e}");
                    }
                    ctx.emit(Event::ResultLocated { url, result }).await;
                });
            }
            other => {
                tracing::error!("not a library command: {other:?}");
            }
        }
    }
}

/// Newest AI items looked through for a job's output (a result is looked up soon after
/// it finished, so it is among the newest).
const LOCATE_PAGE_SIZE: u32 = 50;

/// The library item whose `url` is the job output `url` (else, with one output per
/// generation, the item naming `generation_id`), among the newest AI items of the project.
async fn locate_result(
    client: &ApiClient,
    limiter: &RateLimiter,
    url: &str,
    generation_id: Option<String>,
    project_id: Option<String>,
) -> Result<Option<MediaItem>, ApiError> {
    let query = MediaQuery {
        project_id,
        category: MediaCategory::Ai,
        ..MediaQuery::default()
    };
    let page = paced(limiter, || client.list_media(&query, 1, LOCATE_PAGE_SIZE)).await?;
    let by_url = page.items.iter().find(|item| item.url == url);
    let by_generation = || {
        let id = generation_id.as_deref()?;
        let mut same: Vec<&MediaItem> = page
            .items
            .iter()
            .filter(|item| item.generation_id() == Some(id))
            .collect();
        // Only unambiguous: several outputs of one generation need the url to tell apart.
        (same.len() == 1).then(|| same.remove(0))
    };
    Ok(by_url.or_else(by_generation).cloned())
}

async fn refresh_folders(ctx: Arc<Ctx>) {
    let result = ctx.client.folders().await;
    if let Err(e) = &result {
        tracing::warn!("folder refresh failed: {e}");
    }
    ctx.emit(Event::Folders(result)).await;
}

fn changes_folders(mutation: &MediaMutation) -> bool {
    !matches!(
        mutation,
        MediaMutation::Favorite { .. } | MediaMutation::MoveToProject { .. }
    )
}

/// The pacing gates a mutation's calls go through.
pub(crate) struct Limits {
    media: Arc<RateLimiter>,
    bulk: Arc<RateLimiter>,
}

/// Perform one mutation. Several favourites are set one by one and stop at the first
/// error (the UI rolls all back and should reload the page, since earlier ones stuck).
/// Favourites and bulk chunks are paced to the service's limits, so acting on thousands of
/// items takes its time instead of failing half-way on a 429.
pub(crate) async fn apply(
    client: &ApiClient,
    limits: &Limits,
    mutation: &MediaMutation,
) -> Result<MutationOutcome, ApiError> {
    Ok(match mutation {
        MediaMutation::Favorite { ids, favorited } => {
            for id in ids {
                paced(&limits.media, || client.set_favorite(id, *favorited)).await?;
            }
            MutationOutcome::Done
        }
        MediaMutation::Bulk { action, ids } => {
            let mut total = BulkOutcome::default();
            for chunk in ids.chunks(MAX_BULK_IDS) {
                total.absorb(paced(&limits.bulk, || client.bulk(*action, chunk)).await?);
            }
            MutationOutcome::Bulk(total)
        }
        MediaMutation::MoveToProject { ids, project_id } => MutationOutcome::Moved {
            count: client.bulk_move(ids, project_id).await?,
        },
        MediaMutation::CreateFolder { fields } => {
            MutationOutcome::Folder(client.create_folder(fields).await?)
        }
        MediaMutation::UpdateFolder { folder_id, fields } => {
            MutationOutcome::Folder(client.update_folder(folder_id, fields).await?)
        }
        MediaMutation::DeleteFolder { folder_id } => {
            client.delete_folder(folder_id).await?;
            MutationOutcome::Done
        }
        MediaMutation::AddToFolder { folder_id, ids } => {
            MutationOutcome::AddedToFolder(client.add_to_folder(folder_id, ids).await?)
        }
        MediaMutation::RemoveFromFolder { folder_id, ids } => MutationOutcome::Removed {
            count: client.remove_from_folder(folder_id, ids).await?,
        },
        MediaMutation::ShareFolder { folder_id, emails } => {
            MutationOutcome::Shared(client.share_folder(folder_id, emails).await?)
        }
        MediaMutation::UnshareFolder { folder_id, user_id } => {
            match client.unshare_folder(folder_id, user_id).await? {
                Some(folder) => MutationOutcome::Folder(folder),
                None => MutationOutcome::Done,
            }
        }
        MediaMutation::MoveFolderContents {
            folder_id,
            project_id,
        } => MutationOutcome::Moved {
            count: paced(&limits.bulk, || {
                client.move_folder_contents(folder_id, project_id)
            })
            .await?,
        },
    })
}
