//! The texture cache: GPU textures keyed by image URL, evicted least-recently-used under a
//! byte budget. Panels look textures up during layout (read-only apart from a usage stamp
//! and a wish list); the app shell turns the wish list into `Command::LoadImage` after
//! layout, so a URL is never requested twice while a load is pending.

use crate::media::DecodedImage;
use egui::{ColorImage, TextureHandle, TextureOptions};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// Default budget: 96 MiB of RGBA pixels. With a software GL (Mesa llvmpipe) every byte
/// of texture is also process memory, so this is most of what the studio may hold beyond
/// its base (~140 MB idle, target ≤ 150 MB with every view built): a 4K image at full
/// size (~37 MB) and a screenful of grid thumbnails fit with room to spare.
pub const DEFAULT_BUDGET_BYTES: usize = 96 * 1024 * 1024;

/// What a panel gets back for a URL.
#[derive(Clone)]
pub enum TextureLookup {
    Ready(TextureHandle),
    Loading,
    Failed(String),
}

struct Entry {
    texture: TextureHandle,
    bytes: usize,
    /// Longest side asked for when it was loaded (0 = full size).
    loaded_max_side_px: u32,
    /// True when the decoded image is the source's full size (no further upgrade possible).
    is_full_size: bool,
    /// The source image's size in pixels (the texture may be downscaled).
    source_size_px: [u32; 2],
    last_used_frame: Cell<u64>,
}

/// A library thumbnail the grid wants and the cache does not have (yet) at that size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThumbnailWish {
    pub item_id: String,
    pub url: String,
    pub size_px: u32,
}

pub struct TextureCache {
    entries: HashMap<String, Entry>,
    /// Library thumbnails by item id (from the thumbnail pipeline), same byte budget.
    thumbs: HashMap<String, Entry>,
    thumb_failed: HashMap<String, String>,
    thumb_wanted: RefCell<Vec<ThumbnailWish>>,
    failed: HashMap<String, String>,
    /// URL -> the max side of the request in flight.
    pending: HashMap<String, u32>,
    /// Lookups that need a load, collected during layout.
    wanted: RefCell<Vec<(String, u32)>>,
    budget_bytes: usize,
    used_bytes: usize,
    frame: u64,
}

impl Default for TextureCache {
    fn default() -> Self {
        Self::new(DEFAULT_BUDGET_BYTES)
    }
}

/// A small square thumbnail of the image at `url` (fetched at 96 px): the picture when it
/// is loaded, a spinner while it loads, a warning icon (error on hover) if it failed. Used by
/// the source-image chips of Create and Palettes.
pub fn small_thumbnail_ui(
    ui: &mut egui::Ui,
    textures: &TextureCache,
    url: &str,
    side: f32,
    alt_text: &str,
) {
    use crate::ui::{icons, tokens};
    match textures.get(url, 96) {
        TextureLookup::Ready(texture) => {
            ui.add(
                egui::Image::from_texture(&texture)
                    .fit_to_exact_size(egui::Vec2::splat(side))
                    .corner_radius(egui::CornerRadius::same(tokens::RADIUS_S))
                    .alt_text(alt_text),
            );
        }
        TextureLookup::Loading => {
            ui.add(egui::Spinner::new().size(16.0));
        }
        TextureLookup::Failed(error) => {
            icons::icon_ui(
                ui,
                icons::Icon::BrokenImage,
                20.0,
                tokens::palette().warning,
            )
            .on_hover_text(error);
        }
    }
}

impl TextureCache {
    pub fn new(budget_bytes: usize) -> Self {
        Self {
            entries: HashMap::new(),
            thumbs: HashMap::new(),
            thumb_failed: HashMap::new(),
            thumb_wanted: RefCell::new(Vec::new()),
            failed: HashMap::new(),
            pending: HashMap::new(),
            wanted: RefCell::new(Vec::new()),
            budget_bytes,
            used_bytes: 0,
            frame: 0,
        }
    }

    /// Call once at the start of every frame.
    pub fn begin_frame(&mut self) {
        self.frame += 1;
    }

    pub fn used_bytes(&self) -> usize {
        self.used_bytes
    }

    pub fn len(&self) -> usize {
        self.entries.len() + self.thumbs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.thumbs.is_empty()
    }

    /// The library thumbnail of `item_id` for display at `size_px`. Marks it used this
    /// frame; when it is missing (or only smaller) the wish is recorded for the shell,
    /// which hands it to the thumbnail pipeline after layout.
    pub fn thumbnail(&self, item_id: &str, url: &str, size_px: u32) -> TextureLookup {
        if let Some(entry) = self.thumbs.get(item_id) {
            entry.last_used_frame.set(self.frame);
            if !entry.is_full_size && entry.loaded_max_side_px < size_px {
                self.wish_thumbnail(item_id, url, size_px);
            }
            return TextureLookup::Ready(entry.texture.clone());
        }
        if let Some(error) = self.thumb_failed.get(item_id) {
            return TextureLookup::Failed(error.clone());
        }
        self.wish_thumbnail(item_id, url, size_px);
        TextureLookup::Loading
    }

    /// True when nothing more is to be fetched for `item_id` at `size_px`: a texture at
    /// least that large (or the full image) is held, or the fetch failed.
    pub fn thumbnail_settled(&self, item_id: &str, size_px: u32) -> bool {
        self.thumb_failed.contains_key(item_id)
            || self
                .thumbs
                .get(item_id)
                .is_some_and(|entry| entry.is_full_size || entry.loaded_max_side_px >= size_px)
    }

    fn wish_thumbnail(&self, item_id: &str, url: &str, size_px: u32) {
        self.thumb_wanted.borrow_mut().push(ThumbnailWish {
            item_id: item_id.to_owned(),
            url: url.to_owned(),
            size_px,
        });
    }

    /// Why the thumbnail of `item_id` could not be made, when it could not.
    pub fn thumbnail_error(&self, item_id: &str) -> Option<&str> {
        self.thumb_failed.get(item_id).map(String::as_str)
    }

    /// Thumbnails wished for during the last layout.
    pub fn take_thumbnail_wishes(&mut self) -> Vec<ThumbnailWish> {
        std::mem::take(self.thumb_wanted.get_mut())
    }

    /// A thumbnail arrived from the pipeline: upload it (downscaled already) and evict.
    pub fn insert_thumbnail(
        &mut self,
        ctx: &egui::Context,
        item_id: &str,
        size_px: u32,
        image: &DecodedImage,
    ) {
        let size = [image.width as usize, image.height as usize];
        if image.rgba.len() != size[0] * size[1] * 4 || size[0] == 0 || size[1] == 0 {
            self.thumb_failed.insert(
                item_id.to_owned(),
                "The image data was incomplete.".to_owned(),
            );
            return;
        }
        if let Some(existing) = self.thumbs.get(item_id)
            && existing.loaded_max_side_px > size_px
        {
            return;
        }
        self.thumb_failed.remove(item_id);
        let color_image = ColorImage::from_rgba_unmultiplied(size, &image.rgba);
        let texture = ctx.load_texture(
            format!("thumb:{item_id}"),
            color_image,
            TextureOptions::LINEAR,
        );
        let bytes = image.rgba.len();
        let entry = Entry {
            texture,
            bytes,
            loaded_max_side_px: size_px,
            is_full_size: image.width >= image.source_width && image.height >= image.source_height,
            source_size_px: [image.source_width, image.source_height],
            last_used_frame: Cell::new(self.frame),
        };
        if let Some(old) = self.thumbs.insert(item_id.to_owned(), entry) {
            self.used_bytes -= old.bytes;
        }
        self.used_bytes += bytes;
        self.evict();
    }

    /// The pipeline could not make a thumbnail: show the broken glyph with the error.
    pub fn fail_thumbnail(&mut self, item_id: &str, error: String) {
        tracing::debug!(item_id, %error, "no thumbnail");
        if !self.thumbs.contains_key(item_id) {
            self.thumb_failed.insert(item_id.to_owned(), error);
        }
    }

    /// Forget a failure so the thumbnail is asked for again (the item changed).
    pub fn forget_thumbnail_failures(&mut self) {
        self.thumb_failed.clear();
    }

    /// Look up `url` for display at up to `max_side_px`. Marks the texture as used this
    /// frame; queues a load when it is missing or only a smaller version is loaded.
    pub fn get(&self, url: &str, max_side_px: u32) -> TextureLookup {
        if let Some(entry) = self.entries.get(url) {
            entry.last_used_frame.set(self.frame);
            let big_enough = entry.is_full_size
                || entry.loaded_max_side_px == 0
                || entry.loaded_max_side_px >= max_side_px;
            if !big_enough {
                self.want(url, max_side_px);
            }
            return TextureLookup::Ready(entry.texture.clone());
        }
        if let Some(error) = self.failed.get(url) {
            return TextureLookup::Failed(error.clone());
        }
        self.want(url, max_side_px);
        TextureLookup::Loading
    }

    /// The real pixel size of the image loaded for `url` (its texture may be smaller).
    pub fn source_size_px(&self, url: &str) -> Option<[u32; 2]> {
        self.entries.get(url).map(|entry| entry.source_size_px)
    }

    fn want(&self, url: &str, max_side_px: u32) {
        if self
            .pending
            .get(url)
            .is_some_and(|pending| *pending == 0 || *pending >= max_side_px)
        {
            return;
        }
        let mut wanted = self.wanted.borrow_mut();
        if let Some(existing) = wanted.iter_mut().find(|(u, _)| u == url) {
            existing.1 = existing.1.max(max_side_px);
        } else {
            wanted.push((url.to_owned(), max_side_px));
        }
    }

    /// The loads to request now; each is marked pending so it is not asked for again.
    pub fn take_wanted(&mut self) -> Vec<(String, u32)> {
        let wanted = std::mem::take(self.wanted.get_mut());
        for (url, max_side) in &wanted {
            self.pending.insert(url.clone(), *max_side);
        }
        wanted
    }

    /// An image arrived from the engine: upload it and evict to stay under budget.
    pub fn insert(&mut self, ctx: &egui::Context, url: &str, image: &DecodedImage) {
        let requested = self.pending.remove(url).unwrap_or(0);
        self.failed.remove(url);
        let size = [image.width as usize, image.height as usize];
        if image.rgba.len() != size[0] * size[1] * 4 {
            self.failed
                .insert(url.to_owned(), "The image data was incomplete.".to_owned());
            return;
        }
        let color_image = ColorImage::from_rgba_unmultiplied(size, &image.rgba);
        let texture = ctx.load_texture(url, color_image, TextureOptions::LINEAR);
        let bytes = image.rgba.len();
        let entry = Entry {
            texture,
            bytes,
            loaded_max_side_px: requested,
            is_full_size: image.width >= image.source_width && image.height >= image.source_height,
            source_size_px: [image.source_width, image.source_height],
            last_used_frame: Cell::new(self.frame),
        };
        if let Some(old) = self.entries.insert(url.to_owned(), entry) {
            self.used_bytes -= old.bytes;
        }
        self.used_bytes += bytes;
        self.evict();
    }

    /// Loading `url` failed: remember the error (shown on hover) until the cache is cleared.
    pub fn fail(&mut self, url: &str, error: String) {
        self.pending.remove(url);
        if !self.entries.contains_key(url) {
            self.failed.insert(url.to_owned(), error);
        }
    }

    /// Forget everything (connection changed).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.thumbs.clear();
        self.thumb_failed.clear();
        self.thumb_wanted.get_mut().clear();
        self.failed.clear();
        self.pending.clear();
        self.wanted.get_mut().clear();
        self.used_bytes = 0;
    }

    /// Drop every texture (full image or thumbnail) not drawn in the current frame: a
    /// screen was left, and what it showed is made again (from the engine's and the
    /// thumbnail pipeline's disk caches) when it is shown again. Call after layout.
    /// Returns how many textures were released.
    pub fn release_not_drawn_this_frame(&mut self) -> usize {
        let frame = self.frame;
        let before = self.len();
        let mut released_bytes = 0;
        for map in [&mut self.entries, &mut self.thumbs] {
            map.retain(|_, entry| {
                let keep = entry.last_used_frame.get() >= frame;
                if !keep {
                    released_bytes += entry.bytes;
                }
                keep
            });
        }
        self.used_bytes -= released_bytes;
        before - self.len()
    }

    /// Drop least-recently-used textures until under budget; never one used this frame
    /// or the previous one (it is on screen).
    fn evict(&mut self) {
        if self.used_bytes <= self.budget_bytes {
            return;
        }
        let protect_from = self.frame.saturating_sub(1);
        // (last used, is thumbnail, key)
        let mut candidates: Vec<(u64, bool, String)> = self
            .entries
            .iter()
            .map(|(key, e)| (e, false, key))
            .chain(self.thumbs.iter().map(|(key, e)| (e, true, key)))
            .filter(|(e, _, _)| e.last_used_frame.get() < protect_from)
            .map(|(e, thumb, key)| (e.last_used_frame.get(), thumb, key.clone()))
            .collect();
        candidates.sort();
        for (_, thumb, key) in candidates {
            if self.used_bytes <= self.budget_bytes {
                break;
            }
            let map = if thumb {
                &mut self.thumbs
            } else {
                &mut self.entries
            };
            if let Some(entry) = map.remove(&key) {
                self.used_bytes -= entry.bytes;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(side: u32) -> DecodedImage {
        DecodedImage {
            width: side,
            height: side,
            rgba: vec![128; (side * side * 4) as usize],
            source_width: side * 4,
            source_height: side * 4,
        }
    }

    #[test]
    fn requests_are_deduplicated() {
        let mut cache = TextureCache::default();
        assert!(matches!(cache.get("a", 256), TextureLookup::Loading));
        assert!(matches!(cache.get("a", 256), TextureLookup::Loading));
        assert_eq!(cache.take_wanted(), vec![("a".to_owned(), 256)]);
        assert!(matches!(cache.get("a", 256), TextureLookup::Loading));
        assert!(cache.take_wanted().is_empty());
    }

    #[test]
    fn lru_eviction_respects_budget_and_spares_recent() {
        let ctx = egui::Context::default();
        let one = 16 * 16 * 4;
        let mut cache = TextureCache::new(one * 2);
        for (i, url) in ["a", "b", "c"].iter().enumerate() {
            for _ in 0..3 {
                cache.begin_frame();
            }
            let _ = cache.get(url, 16);
            let _ = cache.take_wanted();
            cache.insert(&ctx, url, &image(16));
            assert!(cache.used_bytes() <= one * 2 || i == 0);
        }
        assert_eq!(cache.len(), 2);
        assert!(matches!(cache.get("c", 16), TextureLookup::Ready(_)));
        assert!(matches!(cache.get("a", 16), TextureLookup::Loading));
    }

    #[test]
    fn thumbnails_share_the_budget_and_spare_what_is_on_screen() {
        let ctx = egui::Context::default();
        let one = 16 * 16 * 4;
        let mut cache = TextureCache::new(one * 2);
        cache.begin_frame();
        assert!(matches!(
            cache.thumbnail("a", "u", 16),
            TextureLookup::Loading
        ));
        assert_eq!(cache.take_thumbnail_wishes().len(), 1);
        cache.insert_thumbnail(&ctx, "a", 16, &image(16));
        for _ in 0..3 {
            cache.begin_frame();
        }
        cache.insert_thumbnail(&ctx, "b", 16, &image(16));
        let _ = cache.thumbnail("b", "u", 16);
        cache.insert_thumbnail(&ctx, "c", 16, &image(16));
        assert!(cache.used_bytes() <= one * 2);
        assert!(matches!(
            cache.thumbnail("b", "u", 16),
            TextureLookup::Ready(_)
        ));
        assert!(matches!(
            cache.thumbnail("a", "u", 16),
            TextureLookup::Loading
        ));
    }

    #[test]
    fn a_downscaled_texture_knows_its_source_size_and_can_be_upgraded() {
        let ctx = egui::Context::default();
        let mut cache = TextureCache::default();
        let _ = cache.get("big", 16);
        let _ = cache.take_wanted();
        cache.insert(&ctx, "big", &image(16));
        assert_eq!(cache.source_size_px("big"), Some([64, 64]));
        // Zooming in asks for more pixels while the small texture stays on screen.
        assert!(matches!(cache.get("big", 64), TextureLookup::Ready(_)));
        assert_eq!(cache.take_wanted(), vec![("big".to_owned(), 64)]);
    }

    #[test]
    fn leaving_a_screen_releases_the_textures_it_drew_and_keeps_the_new_ones() {
        let ctx = egui::Context::default();
        let mut cache = TextureCache::default();
        cache.begin_frame();
        for url in ["left-1", "left-2"] {
            let _ = cache.get(url, 16);
            let _ = cache.take_wanted();
            cache.insert(&ctx, url, &image(16));
        }
        cache.insert_thumbnail(&ctx, "left-thumb", 16, &image(16));
        // The next frame shows another screen: it draws only "shown".
        cache.begin_frame();
        let _ = cache.get("shown", 16);
        let _ = cache.take_wanted();
        cache.insert(&ctx, "shown", &image(16));
        let egui_textures_before = ctx.tex_manager().read().num_allocated();
        assert_eq!(cache.release_not_drawn_this_frame(), 3);
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.used_bytes(), 16 * 16 * 4);
        assert!(matches!(cache.get("shown", 16), TextureLookup::Ready(_)));
        // egui's texture manager frees them too (nothing else held the handles).
        assert_eq!(
            ctx.tex_manager().read().num_allocated(),
            egui_textures_before - 3
        );
        // Shown again, a released texture is asked for again.
        assert!(matches!(cache.get("left-1", 16), TextureLookup::Loading));
        assert_eq!(cache.take_wanted(), vec![("left-1".to_owned(), 16)]);
    }

    #[test]
    fn failures_are_remembered() {
        let mut cache = TextureCache::default();
        let _ = cache.get("x", 64);
        let _ = cache.take_wanted();
        cache.fail("x", "404".into());
        assert!(matches!(cache.get("x", 64), TextureLookup::Failed(e) if e == "404"));
    }
}
