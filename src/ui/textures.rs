//! The texture cache: GPU textures keyed by image URL, evicted least-recently-used under a
//! byte budget. Panels look textures up during layout (read-only apart from a usage stamp
//! and a wish list); the app shell turns the wish list into `Command::LoadImage` after
//! layout, so a URL is never requested twice while a load is pending.

use crate::media::DecodedImage;
use egui::{ColorImage, TextureHandle, TextureOptions};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// Default budget: 256 MiB of RGBA pixels.
pub const DEFAULT_BUDGET_BYTES: usize = 256 * 1024 * 1024;

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
    last_used_frame: Cell<u64>,
}

pub struct TextureCache {
    entries: HashMap<String, Entry>,
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

impl TextureCache {
    pub fn new(budget_bytes: usize) -> Self {
        Self {
            entries: HashMap::new(),
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
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
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
        self.failed.clear();
        self.pending.clear();
        self.wanted.get_mut().clear();
        self.used_bytes = 0;
    }

    /// Drop least-recently-used textures until under budget; never one used this frame
    /// or the previous one (it is on screen).
    fn evict(&mut self) {
        if self.used_bytes <= self.budget_bytes {
            return;
        }
        let protect_from = self.frame.saturating_sub(1);
        let mut candidates: Vec<(u64, String)> = self
            .entries
            .iter()
            .filter(|(_, e)| e.last_used_frame.get() < protect_from)
            .map(|(url, e)| (e.last_used_frame.get(), url.clone()))
            .collect();
        candidates.sort();
        for (_, url) in candidates {
            if self.used_bytes <= self.budget_bytes {
                break;
            }
            if let Some(entry) = self.entries.remove(&url) {
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
    fn failures_are_remembered() {
        let mut cache = TextureCache::default();
        let _ = cache.get("x", 64);
        let _ = cache.take_wanted();
        cache.fail("x", "404".into());
        assert!(matches!(cache.get("x", 64), TextureLookup::Failed(e) if e == "404"));
    }
}
