//! The shell's share of the Library: uploads (the file dialog, pasted pixels saved as a
//! PNG, the project to upload into), its read-only accessors (tests), and the thumbnail
//! pipeline it feeds (started with the app, fed from the grid's wishes each frame, its queue
//! trimmed to what is on screen).

use super::StudioApp;
use crate::media::{ThumbnailConfig, ThumbnailPipeline, ThumbnailPriority};
use crate::session::Session;
use crate::ui::dialogs::DialogKind;
use crate::ui::library::add_files::UploadSource;
use crate::ui::library::{self, LibraryAction, LibraryState, Place};
use crate::ui::model::View;
use crate::ui::toasts::ToastKind;
use std::path::{Path, PathBuf};

/// Pasted pictures are kept this long for their upload, then swept at the next paste.
const PASTED_KEEP_SECS: u64 = 24 * 60 * 60;

impl StudioApp {
    /// A Library action: uploads are the shell's (dialogs, the clipboard's pixels, the
    /// project); the rest is the Library's own.
    pub(super) fn apply_library(&mut self, ctx: &egui::Context, action: LibraryAction) {
        match action {
            // The viewer covers the Library: an upload asked for now came from Ctrl+O or
            // Ctrl+V meant for the viewer, not from the Library's buttons.
            LibraryAction::Upload(UploadSource::Pick | UploadSource::Paths(_))
                if self.viewer.is_open() => {}
            LibraryAction::Upload(UploadSource::Pick) => {
                self.dialogs.open(DialogKind::LibraryFiles);
            }
            LibraryAction::Upload(UploadSource::Paths(paths)) => {
                self.upload_to_library(ctx, paths);
            }
            LibraryAction::Upload(UploadSource::PastedPng(bytes)) => {
                let folder = self.session.paths().cache_dir.join("pasted");
                match save_pasted_png(&bytes, &folder) {
                    Ok(path) => self.upload_to_library(ctx, vec![path]),
                    Err(error) => {
                        tracing::warn!("pasted image not saved for upload: {error}");
                        self.toasts.push(
                            ToastKind::Error,
                            format!(
                                "The pasted image could not be saved for upload ({error}). \
                                 Save it as a file and use Upload… instead."
                            ),
                        );
                    }
                }
            }
            action => {
                for follow_up in self.library.apply(action) {
                    self.apply(ctx, follow_up);
                }
            }
        }
    }

    /// Upload files (dropped, picked, typed or pasted) into the open folder and the project
    /// the Library shows, else the one Create uses.
    pub(super) fn upload_to_library(&mut self, ctx: &egui::Context, paths: Vec<PathBuf>) {
        let project =
            (self.library.project_filter.clone()).or_else(|| self.create.form.project_id.clone());
        for action in self.library.upload_paths(paths, project) {
            self.apply(ctx, action);
        }
    }

    /// The Library's state (tests: selection, layout, place).
    pub fn library(&self) -> &LibraryState {
        &self.library
    }

    /// Display indices of the Library tiles on screen in the last layout.
    pub fn library_visible(&self) -> std::ops::Range<usize> {
        self.library.visible.clone()
    }

    /// A thumbnail texture of `item_id` is held, at the size the grid asks for.
    pub fn library_thumbnail_ready(&self, item_id: &str) -> bool {
        self.textures
            .thumbnail_settled(item_id, self.library.thumb_request_px)
    }

    /// Why the grid shows the broken glyph for `item_id`, when it does.
    pub fn library_thumbnail_error(&self, item_id: &str) -> Option<String> {
        self.textures.thumbnail_error(item_id).map(str::to_owned)
    }

    /// Ids of the Library items loaded for the current query, in display order.
    pub fn library_item_ids(&self) -> Vec<String> {
        self.library
            .items
            .loaded_items()
            .map(|(_, item)| item.id.clone())
            .collect()
    }

    /// The Library's loaded items in display order.
    pub fn library_items(&self) -> Vec<crate::api::media::MediaItem> {
        self.library
            .items
            .loaded_items()
            .map(|(_, item)| item.clone())
            .collect()
    }

    /// Items in the current query as far as known (the grid's length).
    pub fn library_len(&self) -> usize {
        self.library.items.len()
    }

    /// Whether page 1 of the current query has answered and no page load is in flight.
    pub fn library_settled(&self) -> bool {
        self.library.items.first_page_done() && !self.library.items.is_loading()
    }

    /// Selected item ids (sorted).
    /// Select all is still taking in pages that were not loaded when it was asked for.
    pub fn library_select_all_pending(&self) -> bool {
        self.library.selection.all_pending
    }

    pub fn library_selection(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.library.selection.ids.iter().cloned().collect();
        ids.sort();
        ids
    }

    /// What the grid shows: a section or a folder.
    pub fn library_place(&self) -> Place {
        self.library.place.clone()
    }

    /// The folder list as last loaded.
    pub fn library_folders(&self) -> Vec<crate::api::media::Folder> {
        self.library.folders.value.clone().unwrap_or_default()
    }

    /// The stats footer's numbers, once loaded.
    pub fn library_stats(&self) -> Option<crate::api::media::MediaStats> {
        self.library.stats.value.clone()
    }

    /// Uploads and downloads in the transfers strip.
    pub fn library_transfers(&self) -> Vec<library::Transfer> {
        self.library.transfers.clone()
    }

    /// Optimistic library changes not yet confirmed by the engine.
    pub fn library_busy(&self) -> bool {
        self.library.has_pending_ops()
    }

    /// Settings › Storage: a new thumbnail cache limit, remembered and applied at once.
    pub(super) fn set_thumbnail_cache_mb(&mut self, mb: u32) {
        self.session
            .update_preferences(|settings| settings.thumbnail_cache_mb = mb);
        self.settings_snapshot = crate::ui::settings::SettingsSnapshot::of(&self.session);
        if let Some(pipeline) = &self.thumbnails {
            pipeline.set_cache_budget_bytes(self.session.settings().thumbnail_cache_budget_bytes());
        }
    }

    /// Bytes of thumbnails the disk cache counts against its budget.
    pub fn thumbnail_cache_bytes(&self) -> u64 {
        self.thumbnails.as_ref().map_or(0, |p| p.cache_bytes())
    }

    /// Hand the grid's thumbnail wishes to the pipeline; drop queued work for tiles that
    /// scrolled away.
    pub(super) fn request_thumbnails(&mut self) {
        let wishes = self.textures.take_thumbnail_wishes();
        let Some(pipeline) = self.thumbnails.as_ref() else {
            return;
        };
        for wish in &wishes {
            pipeline.request(
                &wish.item_id,
                &wish.url,
                wish.size_px,
                ThumbnailPriority::Visible,
            );
        }
        if self.view == View::Library {
            let size_px = self.library.thumb_request_px;
            for (item_id, url) in self.library.prefetch_thumbnails() {
                if !self.textures.thumbnail_settled(&item_id, size_px) {
                    pipeline.request(&item_id, &url, size_px, ThumbnailPriority::Nearby);
                }
            }
        }
        let key = if self.view == View::Library {
            (
                self.library.items.request_id(),
                self.library.visible.clone(),
            )
        } else {
            (0, 0..0)
        };
        if self.thumbnails_trimmed_for.as_ref() != Some(&key) {
            let keep = if self.view == View::Library {
                self.library.thumbnail_keep_ids()
            } else {
                Default::default()
            };
            pipeline.cancel_not_in(&keep);
            self.thumbnails_trimmed_for = Some(key);
        }
        self.note_visible_thumbnails();
    }

    /// DEBUG line when the last visible placeholder is filled (a scroll's thumbnails are
    /// all in): the time to compare with the last wheel event (docs/BENCHMARKS.md).
    fn note_visible_thumbnails(&mut self) {
        let visible = self.library.visible.clone();
        let all_in = self.view == View::Library
            && !visible.is_empty()
            && visible.clone().all(|index| {
                self.library.items.item(index).is_some_and(|item| {
                    item.thumbnail_source().is_none()
                        || self
                            .textures
                            .thumbnail_settled(&item.id, self.library.thumb_request_px)
                })
            });
        if all_in && !self.thumbnails_all_visible {
            let at_unix_ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis());
            tracing::debug!(
                at_unix_ms,
                tiles = visible.len(),
                "library: the last visible thumbnail placeholder was filled"
            );
        }
        self.thumbnails_all_visible = all_in;
    }
}

/// The thumbnail pipeline under the cache folder; without it the grid shows placeholders.
pub(super) fn start_thumbnails(
    ctx: &egui::Context,
    session: &Session,
) -> Option<ThumbnailPipeline> {
    let repaint_ctx = ctx.clone();
    let mut config = ThumbnailConfig::new(
        Some(session.paths().cache_dir.join("thumbnails")),
        std::sync::Arc::new(move || repaint_ctx.request_repaint()),
    );
    config.cache_budget_bytes = session.settings().thumbnail_cache_budget_bytes();
    match ThumbnailPipeline::new(config) {
        Ok(pipeline) => Some(pipeline),
        Err(error) => {
            tracing::warn!("library thumbnails disabled: {error}");
            None
        }
    }
}

/// Writes a pasted picture's PNG to `folder/<time>/Pasted image YYYY-MM-DD HH.MM.png`
/// (its own sub-folder, so two pastes in a minute keep their names and files) and sweeps
/// pastes older than a day. The file name becomes the item's name in the library.
fn save_pasted_png(png: &[u8], folder: &Path) -> Result<PathBuf, String> {
    sweep_old_pastes(folder);
    let now = chrono::Local::now();
    crate::local_files::create_private_dir_all(folder).map_err(|e| e.to_string())?;
    let stamp = now.format("%Y%m%d-%H%M%S%.3f").to_string();
    // Two pastes in the same millisecond: the second folder gets a number.
    let mut unique = folder.join(&stamp);
    let mut attempt = 1;
    loop {
        match std::fs::create_dir(&unique) {
            Ok(()) => break,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                unique = folder.join(format!("{stamp}-{attempt}"));
                attempt += 1;
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    let path = unique.join(format!("Pasted image {}.png", now.format("%Y-%m-%d %H.%M")));
    std::fs::write(&path, png).map_err(|e| e.to_string())?;
    Ok(path)
}

fn sweep_old_pastes(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age.as_secs() > PASTED_KEEP_SECS);
        if old && let Err(error) = std::fs::remove_dir_all(entry.path()) {
            tracing::debug!("old paste {} not removed: {error}", entry.path().display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_image_is_saved_as_a_png_named_by_the_time() {
        let dir = tempfile::tempdir().expect("tempdir");
        let image = egui::ColorImage::new([3, 2], vec![egui::Color32::RED; 6]);
        let png = crate::ui::chat::state::encode_png(&image).expect("encoded");
        let first = save_pasted_png(&png, dir.path()).expect("saved");
        let second = save_pasted_png(&png, dir.path()).expect("saved again");
        assert_ne!(first, second, "two pastes keep two files");
        let name = first
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        assert!(
            name.starts_with("Pasted image 20") && name.ends_with(".png"),
            "{name}"
        );
        let decoded = image::open(&first).expect("a PNG");
        assert_eq!((decoded.width(), decoded.height()), (3, 2));
    }
}
