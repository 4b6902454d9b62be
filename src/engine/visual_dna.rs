//! Visual DNA: list (every page), get, create (multipart), update, delete, move to a
//! folder, and the folders. While any entry is building, the list is read again every
//! few seconds (one poll loop per engine) until none is, so the panel sees it become
//! ready without asking.

use super::guard::spawn_reported;
use super::protocol::Event;
use super::runtime::Ctx;
use crate::api::ApiError;
use crate::api::visual_dna::{NewVisualDna, VisualDna, VisualDnaFolder, VisualDnaUpdate};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often the list is read again while an entry is building.
pub const BUILDING_RELIST_SECS: u64 = 3;
/// Polls one loop makes at most (a bound if an entry never leaves "building": 20 min).
const MAX_BUILDING_POLLS: u32 = 400;

#[derive(Clone, Debug)]
pub enum VisualDnaCommand {
    /// Every entry (all pages), answered by `Listed`. While any entry is building the
    /// engine lists again every few seconds (until none is) so the panel sees it ready.
    List,
    /// -> `Detail`.
    Get { id: String },
    /// -> `Created`, then `Listed`.
    Create(NewVisualDna),
    /// -> `Updated`, then `Listed`.
    Update { id: String, update: VisualDnaUpdate },
    /// -> `Deleted`, then `Listed`.
    Delete { id: String },
    /// -> `Updated`, then `Listed`.
    MoveToFolder {
        id: String,
        folder_id: Option<String>,
    },
    /// -> `Folders`.
    ListFolders,
    /// -> `FolderSaved`, then `Folders`.
    CreateFolder { name: String },
    /// -> `FolderSaved`, then `Folders`.
    RenameFolder { id: String, name: String },
    /// -> `FolderDeleted`, then `Folders` + `Listed`.
    DeleteFolder { id: String },
}

#[derive(Clone, Debug)]
pub enum VisualDnaEvent {
    Listed(Result<Vec<VisualDna>, ApiError>),
    Detail(Result<VisualDna, ApiError>),
    Created(Result<VisualDna, ApiError>),
    Updated(Result<VisualDna, ApiError>),
    Deleted {
        id: String,
        result: Result<(), ApiError>,
    },
    Folders(Result<Vec<VisualDnaFolder>, ApiError>),
    FolderSaved(Result<VisualDnaFolder, ApiError>),
    FolderDeleted {
        id: String,
        result: Result<(), ApiError>,
    },
}

impl VisualDnaEvent {
    /// The outcome of the request behind this event (for reachability).
    pub(crate) fn read_outcome(&self) -> Option<Result<(), &ApiError>> {
        fn unit<T>(result: &Result<T, ApiError>) -> Option<Result<(), &ApiError>> {
            Some(result.as_ref().map(|_| ()))
        }
        match self {
            VisualDnaEvent::Listed(r) => unit(r),
            VisualDnaEvent::Detail(r) => unit(r),
            VisualDnaEvent::Created(r) => unit(r),
            VisualDnaEvent::Updated(r) => unit(r),
            VisualDnaEvent::Deleted { result, .. } => unit(result),
            VisualDnaEvent::Folders(r) => unit(r),
            VisualDnaEvent::FolderSaved(r) => unit(r),
            VisualDnaEvent::FolderDeleted { result, .. } => unit(result),
        }
    }
}

/// The engine's Visual DNA side: remembers whether a building-poll loop runs.
#[derive(Clone, Default)]
pub(crate) struct VisualDnas {
    polling: Arc<AtomicBool>,
}

async fn emit(ctx: &Ctx, event: VisualDnaEvent) {
    ctx.emit(Event::VisualDna(event)).await;
}

impl VisualDnas {
    pub(crate) fn handle(&self, owner: &Arc<Ctx>, command: VisualDnaCommand) {
        let ctx = owner.clone();
        let this = self.clone();
        match command {
            VisualDnaCommand::List => {
                spawn_reported(owner, "loading the Visual DNA", async move {
                    this.list(&ctx).await;
                });
            }
            VisualDnaCommand::Get { id } => {
                spawn_reported(owner, "loading a Visual DNA", async move {
                    let result = ctx.client.visual_dna(&id).await;
                    emit(&ctx, VisualDnaEvent::Detail(result)).await;
                });
            }
            VisualDnaCommand::Create(new) => {
                spawn_reported(owner, "making a Visual DNA", async move {
                    let result = create_with_downloads(&ctx, new).await;
                    if let Err(e) = &result {
                        tracing::info!("Visual DNA create refused: {e}");
                    }
                    emit(&ctx, VisualDnaEvent::Created(result)).await;
                    this.list(&ctx).await;
                });
            }
            VisualDnaCommand::Update { id, update } => {
                spawn_reported(owner, "saving a Visual DNA", async move {
                    let result = ctx.client.update_visual_dna(&id, &update).await;
                    emit(&ctx, VisualDnaEvent::Updated(result)).await;
                    this.list(&ctx).await;
                });
            }
            VisualDnaCommand::Delete { id } => {
                spawn_reported(owner, "deleting a Visual DNA", async move {
                    let result = ctx.client.delete_visual_dna(&id).await;
                    emit(&ctx, VisualDnaEvent::Deleted { id, result }).await;
                    this.list(&ctx).await;
                });
            }
            VisualDnaCommand::MoveToFolder { id, folder_id } => {
                spawn_reported(owner, "moving a Visual DNA", async move {
                    let result = ctx.client.move_visual_dna(&id, folder_id.as_deref()).await;
                    emit(&ctx, VisualDnaEvent::Updated(result)).await;
                    this.list(&ctx).await;
                    list_folders(&ctx).await;
                });
            }
            VisualDnaCommand::ListFolders => {
                spawn_reported(owner, "loading the Visual DNA folders", async move {
                    list_folders(&ctx).await;
                });
            }
            VisualDnaCommand::CreateFolder { name } => {
                spawn_reported(owner, "making a Visual DNA folder", async move {
                    let result = ctx.client.create_visual_dna_folder(&name).await;
                    emit(&ctx, VisualDnaEvent::FolderSaved(result)).await;
                    list_folders(&ctx).await;
                });
            }
            VisualDnaCommand::RenameFolder { id, name } => {
                spawn_reported(owner, "renaming a Visual DNA folder", async move {
                    let result = ctx.client.rename_visual_dna_folder(&id, &name).await;
                    emit(&ctx, VisualDnaEvent::FolderSaved(result)).await;
                    list_folders(&ctx).await;
                });
            }
            VisualDnaCommand::DeleteFolder { id } => {
                spawn_reported(owner, "deleting a Visual DNA folder", async move {
                    let result = ctx.client.delete_visual_dna_folder(&id).await;
                    emit(&ctx, VisualDnaEvent::FolderDeleted { id, result }).await;
                    list_folders(&ctx).await;
                    this.list(&ctx).await;
                });
            }
        }
    }

    /// Read every page and answer with `Listed`; start the building-poll loop when an
    /// entry is building and none runs yet.
    async fn list(&self, ctx: &Arc<Ctx>) {
        let result = ctx.client.visual_dna_all().await;
        let building = result
            .as_ref()
            .is_ok_and(|all| all.iter().any(VisualDna::is_building));
        if let Err(e) = &result {
            tracing::warn!("Visual DNA list failed: {e}");
        }
        emit(ctx, VisualDnaEvent::Listed(result)).await;
        if building && !self.polling.swap(true, Ordering::SeqCst) {
            let polling = self.polling.clone();
            let ctx_poll = ctx.clone();
            spawn_reported(ctx, "watching a Visual DNA build", async move {
                poll_while_building(&ctx_poll).await;
                polling.store(false, Ordering::SeqCst);
            });
        }
    }
}

/// List again every few seconds while anything builds; ends when nothing does or a list
/// fails (the failure is answered like any other list).
async fn poll_while_building(ctx: &Arc<Ctx>) {
    for _ in 0..MAX_BUILDING_POLLS {
        tokio::time::sleep(Duration::from_secs(BUILDING_RELIST_SECS)).await;
        let result = ctx.client.visual_dna_all().await;
        let keep_going = result
            .as_ref()
            .is_ok_and(|all| all.iter().any(VisualDna::is_building));
        emit(ctx, VisualDnaEvent::Listed(result)).await;
        if !keep_going {
            return;
        }
    }
    tracing::warn!("a Visual DNA stayed building; stopped watching it");
}

/// Create, first downloading any image given as an http(s) URL (a Library or canvas
/// image) into a temporary file beside the cache, removed afterwards.
async fn create_with_downloads(ctx: &Ctx, mut new: NewVisualDna) -> Result<VisualDna, ApiError> {
    crate::api::visual_dna_client::check_new_visual_dna(&new)?;
    let mut temporary = Vec::new();
    let mut failure = None;
    for path in &mut new.image_paths {
        let text = path.to_string_lossy().into_owned();
        if !super::moodboards::is_web_url(&text) {
            continue;
        }
        let name = text
            .split(['?', '#'])
            .next()
            .and_then(|t| t.rsplit('/').next())
            .filter(|n| !n.is_empty())
            .unwrap_or("image.png")
            .to_owned();
        let dir = ctx.cache_dir.join("visual-dna-uploads");
        let dest = dir.join(format!("{}-{name}", uuid::Uuid::new_v4().simple()));
        let fetched = match tokio::fs::create_dir_all(&dir).await {
            Ok(()) => ctx.client.download_output_to(&text, &dest).await,
            Err(e) => Err(ApiError::Io(format!("cannot write {}: {e}", dir.display()))),
        };
        match fetched {
            Ok(()) => {
                temporary.push(dest.clone());
                *path = dest;
            }
            Err(e) => {
                failure = Some(e.with_message_prefix(&format!("Could not fetch {name}")));
                break;
            }
        }
    }
    if failure.is_none() {
        // Local pictures (and the downloaded ones) are looked at before any is sent.
        for path in &new.image_paths {
            if let Err(refused) = super::source_check::check_before_sending(path).await {
                failure = Some(refused);
                break;
            }
        }
    }
    let result = match failure {
        Some(error) => Err(error),
        None => ctx.client.create_visual_dna(&new).await,
    };
    for file in temporary {
        let _ = tokio::fs::remove_file(file).await;
    }
    result
}

async fn list_folders(ctx: &Ctx) {
    let result = ctx.client.visual_dna_folders().await;
    emit(ctx, VisualDnaEvent::Folders(result)).await;
}
