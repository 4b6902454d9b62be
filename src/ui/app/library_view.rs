//! The shell's share of the Library: its read-only accessors (tests), and the thumbnail
//! pipeline it feeds (started with the app, fed from the grid's wishes each frame, its queue
//! trimmed to what is on screen).

use super::StudioApp;
use crate::media::{ThumbnailConfig, ThumbnailPipeline, ThumbnailPriority};
use crate::session::Session;
use crate::ui::library::{self, LibraryState, Place};
use crate::ui::model::View;

impl StudioApp {
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
    }
}

/// The thumbnail pipeline under the cache folder; without it the grid shows placeholders.
pub(super) fn start_thumbnails(
    ctx: &egui::Context,
    session: &Session,
) -> Option<ThumbnailPipeline> {
    let repaint_ctx = ctx.clone();
    let config = ThumbnailConfig::new(
        Some(session.paths().cache_dir.join("thumbnails")),
        std::sync::Arc::new(move || repaint_ctx.request_repaint()),
    );
    match ThumbnailPipeline::new(config) {
        Ok(pipeline) => Some(pipeline),
        Err(error) => {
            tracing::warn!("library thumbnails disabled: {error}");
            None
        }
    }
}
