//! The media-library commands: pages, detail, folders, stats, mutations and transfers.
//! Every `MutateMedia` is answered by exactly one `MediaMutationDone` with its `op_id`;
//! the UI has already applied the change optimistically and rolls it back on an `Err`.

use super::library_transfers::{LibraryTransfers, TransferTuning};
use super::protocol::{Command, Event, MediaMutation, MutationOutcome};
use super::runtime::Ctx;
use crate::api::{ApiClient, ApiError};
use std::sync::Arc;

#[derive(Clone)]
pub(crate) struct Library {
    ctx: Arc<Ctx>,
    transfers: Arc<LibraryTransfers>,
}

impl Library {
    pub fn new(ctx: Arc<Ctx>, tuning: &TransferTuning) -> Self {
        let transfers = LibraryTransfers::new(ctx.clone(), tuning);
        Library { ctx, transfers }
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
                tokio::spawn(async move {
                    let result = ctx.client.list_media(&query, page, page_size).await;
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
                tokio::spawn(async move {
                    let result = ctx.client.media_item(&id).await;
                    ctx.emit(Event::MediaDetail { id, result }).await;
                });
            }
            Command::RefreshFolders => {
                tokio::spawn(refresh_folders(ctx));
            }
            Command::RefreshMediaStats { project_id } => {
                tokio::spawn(async move {
                    let result = ctx.client.media_stats(project_id.as_deref()).await;
                    ctx.emit(Event::MediaStats { project_id, result }).await;
                });
            }
            Command::MutateMedia { op_id, mutation } => {
                tokio::spawn(async move {
                    let result = apply(&ctx.client, &mutation).await;
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
            other => {
                tracing::error!("not a library command: {other:?}");
            }
        }
    }
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

/// Perform one mutation. Several favourites are set one by one and stop at the first
/// error (the UI rolls all back and should reload the page, since earlier ones stuck).
pub(crate) async fn apply(
    client: &ApiClient,
    mutation: &MediaMutation,
) -> Result<MutationOutcome, ApiError> {
    Ok(match mutation {
        MediaMutation::Favorite { ids, favorited } => {
            for id in ids {
                client.set_favorite(id, *favorited).await?;
            }
            MutationOutcome::Done
        }
        MediaMutation::Bulk { action, ids } => {
            MutationOutcome::Bulk(client.bulk(*action, ids).await?)
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
            count: client.move_folder_contents(folder_id, project_id).await?,
        },
    })
}
