//! Hover-scrub previews for the Library grid: a few frames per video (asked of the engine
//! once, on first hover), held as small textures for at most [`MAX_VIDEOS`] videos, least
//! recently used first out. Lookups happen during layout (read-only apart from a usage
//! stamp and a wish list, like the texture cache); the panel sends the wishes afterwards.

use super::time;
use crate::engine::{Command, Event};
use egui::{ColorImage, TextureHandle, TextureOptions};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// Videos whose preview frames are kept.
pub const MAX_VIDEOS: usize = 16;
/// Frames per preview.
pub const FRAMES_PER_VIDEO: u32 = 8;
/// Longest side of a preview frame (a grid tile is at most ~320 pt wide).
pub const PREVIEW_SIDE_PX: u32 = 256;

enum Entry {
    Pending,
    Ready {
        frames: Vec<TextureHandle>,
        last_used: Cell<u64>,
    },
    Failed,
}

#[derive(Default)]
pub struct VideoPreviews {
    entries: HashMap<String, Entry>,
    /// URLs looked up during layout that have no entry yet.
    wanted: RefCell<Vec<String>>,
    frame: u64,
}

impl VideoPreviews {
    /// The preview frame for a pointer at `fraction` of a tile's width, when loaded. A first
    /// lookup records the wish (sent after layout by [`Self::take_commands`]).
    pub fn frame_at(&self, url: &str, fraction: f32) -> Option<TextureHandle> {
        match self.entries.get(url) {
            Some(Entry::Ready { frames, last_used }) => {
                last_used.set(self.frame);
                frames
                    .get(time::preview_index(fraction, frames.len()))
                    .cloned()
            }
            Some(Entry::Pending | Entry::Failed) => None,
            None => {
                let mut wanted = self.wanted.borrow_mut();
                if !wanted.iter().any(|u| u == url) {
                    wanted.push(url.to_owned());
                }
                None
            }
        }
    }

    /// Commands for the previews wished for in the last layout (each asked for once).
    pub fn take_commands(&mut self) -> Vec<Command> {
        self.frame += 1;
        let wanted = std::mem::take(self.wanted.get_mut());
        let mut commands = Vec::new();
        for url in wanted {
            if self.entries.contains_key(&url) {
                continue;
            }
            self.entries.insert(url.clone(), Entry::Pending);
            commands.push(Command::LoadVideoPreview {
                url,
                frame_count: FRAMES_PER_VIDEO,
                max_side_px: PREVIEW_SIDE_PX,
            });
        }
        commands
    }

    /// Take the engine's answer; returns whether it was a preview event.
    pub fn handle_event(&mut self, ctx: &egui::Context, event: &Event) -> bool {
        match event {
            Event::VideoPreviewLoaded { url, frames } => {
                let textures = frames
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| {
                        f.width > 0
                            && f.height > 0
                            && f.rgba.len() == f.width as usize * f.height as usize * 4
                    })
                    .map(|(i, f)| {
                        ctx.load_texture(
                            format!("video-preview:{url}:{i}"),
                            ColorImage::from_rgba_unmultiplied(
                                [f.width as usize, f.height as usize],
                                &f.rgba,
                            ),
                            TextureOptions::LINEAR,
                        )
                    })
                    .collect::<Vec<_>>();
                let entry = if textures.is_empty() {
                    Entry::Failed
                } else {
                    Entry::Ready {
                        frames: textures,
                        last_used: Cell::new(self.frame),
                    }
                };
                self.entries.insert(url.clone(), entry);
                self.evict();
                true
            }
            Event::VideoPreviewFailed { url, message } => {
                tracing::debug!("no hover preview for {url}: {message}");
                // The tile keeps its poster; scrubbing is a nicety, not worth a message.
                self.entries.insert(url.clone(), Entry::Failed);
                true
            }
            Event::VideoPreviewSkipped { url } => {
                // Overtaken by newer hovers: forget it so the next hover asks again.
                self.entries.remove(url);
                true
            }
            _ => false,
        }
    }

    /// Videos with loaded frames.
    pub fn ready_count(&self) -> usize {
        self.entries
            .values()
            .filter(|e| matches!(e, Entry::Ready { .. }))
            .count()
    }

    pub fn is_ready(&self, url: &str) -> bool {
        matches!(self.entries.get(url), Some(Entry::Ready { .. }))
    }

    /// Keep at most `MAX_VIDEOS` loaded previews, dropping the least recently shown.
    fn evict(&mut self) {
        while self.ready_count() > MAX_VIDEOS {
            let oldest = self
                .entries
                .iter()
                .filter_map(|(url, e)| match e {
                    Entry::Ready { last_used, .. } => Some((last_used.get(), url.clone())),
                    _ => None,
                })
                .min();
            match oldest {
                Some((_, url)) => {
                    self.entries.remove(&url);
                }
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::video::PreviewFrame;
    use std::sync::Arc;

    fn loaded(url: &str) -> Event {
        Event::VideoPreviewLoaded {
            url: url.to_owned(),
            frames: Arc::new(
                (0..3)
                    .map(|i| PreviewFrame {
                        width: 2,
                        height: 2,
                        rgba: vec![i as u8; 16],
                        time_secs: f64::from(i),
                    })
                    .collect(),
            ),
        }
    }

    #[test]
    fn asks_once_then_shows_frames_and_keeps_a_bounded_number() {
        let ctx = egui::Context::default();
        let mut previews = VideoPreviews::default();
        assert!(previews.frame_at("v0", 0.5).is_none());
        assert!(previews.frame_at("v0", 0.6).is_none());
        assert_eq!(previews.take_commands().len(), 1, "one request per video");
        assert!(previews.frame_at("v0", 0.5).is_none());
        assert!(
            previews.take_commands().is_empty(),
            "pending: not asked again"
        );
        assert!(previews.handle_event(&ctx, &loaded("v0")));
        let middle = previews.frame_at("v0", 0.5).expect("loaded");
        let last = previews.frame_at("v0", 0.99).expect("loaded");
        assert_ne!(middle.id(), last.id(), "the pointer picks the frame");

        for i in 1..=MAX_VIDEOS {
            previews.take_commands();
            previews.handle_event(&ctx, &loaded(&format!("v{i}")));
        }
        assert_eq!(previews.ready_count(), MAX_VIDEOS);
        assert!(
            !previews.is_ready("v0"),
            "the least recently used went first"
        );

        previews.handle_event(&ctx, &Event::VideoPreviewSkipped { url: "gone".into() });
        previews.frame_at("gone", 0.0);
        assert_eq!(
            previews.take_commands().len(),
            1,
            "a skipped preview is asked again"
        );
    }
}
