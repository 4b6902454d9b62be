//! Moodboards: list, create, update, delete. Local image files named in a save are
//! uploaded to the media library first and their URLs sent; http(s) URLs go as they are.

use super::guard::spawn_reported;
use super::protocol::Event;
use super::runtime::Ctx;
use crate::api::ApiError;
use crate::api::moodboards::{Moodboard, MoodboardFields};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub enum MoodboardCommand {
    /// -> `Listed`.
    List,
    /// Local image paths in `fields.images` are uploaded to the library first (their URLs
    /// are sent); http(s) URLs are sent as they are. -> `Saved`, then `Listed`.
    Create(MoodboardFields),
    /// -> `Saved`, then `Listed`.
    Update { id: String, fields: MoodboardFields },
    /// -> `Deleted`, then `Listed`.
    Delete { id: String },
}

#[derive(Clone, Debug)]
pub enum MoodboardEvent {
    Listed(Result<Vec<Moodboard>, ApiError>),
    Saved(Result<Moodboard, ApiError>),
    Deleted {
        id: String,
        result: Result<(), ApiError>,
    },
}

impl MoodboardEvent {
    /// The outcome of the request behind this event (for reachability).
    pub(crate) fn read_outcome(&self) -> Option<Result<(), &ApiError>> {
        match self {
            MoodboardEvent::Listed(r) => Some(r.as_ref().map(|_| ())),
            MoodboardEvent::Saved(r) => Some(r.as_ref().map(|_| ())),
            MoodboardEvent::Deleted { result, .. } => Some(result.as_ref().map(|_| ())),
        }
    }
}

/// Whether an image entry is sent as it is (a web address) rather than uploaded.
pub fn is_web_url(entry: &str) -> bool {
    let lower = entry.trim().to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The local file an image entry names (a path or a file:// URL), if it is not a URL.
pub fn local_path_of(entry: &str) -> Option<PathBuf> {
    let entry = entry.trim();
    if entry.is_empty() || is_web_url(entry) {
        return None;
    }
    if entry.to_ascii_lowercase().starts_with("file://") {
        return crate::file_url::path_of_file_url(entry);
    }
    Some(PathBuf::from(entry))
}

async fn emit(ctx: &Ctx, event: MoodboardEvent) {
    ctx.emit(Event::Moodboards(event)).await;
}

pub(crate) fn handle(owner: &Arc<Ctx>, command: MoodboardCommand) {
    let ctx = owner.clone();
    match command {
        MoodboardCommand::List => {
            spawn_reported(owner, "loading the moodboards", async move {
                list(&ctx).await;
            });
        }
        MoodboardCommand::Create(fields) => {
            spawn_reported(owner, "making a moodboard", async move {
                let result = match upload_local_images(&ctx, fields).await {
                    Ok(fields) => ctx.client.create_moodboard(&fields).await,
                    Err(e) => Err(e),
                };
                if let Err(e) = &result {
                    tracing::info!("moodboard create refused: {e}");
                }
                emit(&ctx, MoodboardEvent::Saved(result)).await;
                list(&ctx).await;
            });
        }
        MoodboardCommand::Update { id, fields } => {
            spawn_reported(owner, "saving a moodboard", async move {
                let result = match upload_local_images(&ctx, fields).await {
                    Ok(fields) => ctx.client.update_moodboard(&id, &fields).await,
                    Err(e) => Err(e),
                };
                emit(&ctx, MoodboardEvent::Saved(result)).await;
                list(&ctx).await;
            });
        }
        MoodboardCommand::Delete { id } => {
            spawn_reported(owner, "deleting a moodboard", async move {
                let result = ctx.client.delete_moodboard(&id).await;
                emit(&ctx, MoodboardEvent::Deleted { id, result }).await;
                list(&ctx).await;
            });
        }
    }
}

async fn list(ctx: &Ctx) {
    let result = ctx.client.moodboards().await;
    if let Err(e) = &result {
        tracing::warn!("moodboard list failed: {e}");
    }
    emit(ctx, MoodboardEvent::Listed(result)).await;
}

/// Replace each local image of `fields` by the URL of its upload (in order).
async fn upload_local_images(
    ctx: &Ctx,
    mut fields: MoodboardFields,
) -> Result<MoodboardFields, ApiError> {
    let mut urls = Vec::with_capacity(fields.images.len());
    for entry in &fields.images {
        match local_path_of(entry) {
            None => {
                if !entry.trim().is_empty() {
                    urls.push(entry.trim().to_owned());
                }
            }
            Some(path) => {
                super::source_check::check_before_sending(&path).await?;
                let uploaded = ctx.client.upload_file(&path, None).await.map_err(|e| {
                    let name = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    e.with_message_prefix(&format!("Upload of {name} failed"))
                })?;
                urls.push(uploaded.url);
            }
        }
    }
    fields.images = urls;
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_urls_are_sent_and_paths_uploaded() {
        assert!(local_path_of("https://cdn/a.jpg").is_none());
        assert!(local_path_of("HTTP://cdn/a.jpg").is_none());
        assert_eq!(
            local_path_of("/tmp/a b.jpg"),
            Some(PathBuf::from("/tmp/a b.jpg"))
        );
        assert_eq!(
            local_path_of("file:///tmp/a%20b.jpg"),
            Some(PathBuf::from("/tmp/a b.jpg"))
        );
        assert!(local_path_of("  ").is_none());
    }
}
