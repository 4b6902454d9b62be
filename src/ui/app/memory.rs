//! Memory held for screens not shown: when the view changes or the viewer closes, the
//! textures the left screen drew are released (they are made again on return, from the
//! disk caches) and glibc is asked to give the freed pages back.

use super::StudioApp;
use crate::ui::model::View;

/// What a frame laid out, as far as the memory it holds goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ScreenShown {
    view: View,
    viewer_open: bool,
}

impl ScreenShown {
    /// True when going from `self` to `next` leaves a screen whose textures no longer show:
    /// another view, or the viewer closed. Opening the viewer keeps the view's textures
    /// (closing it shows them again at once).
    fn leaves_screen(self, next: ScreenShown) -> bool {
        self.view != next.view || (self.viewer_open && !next.viewer_open)
    }
}

impl StudioApp {
    /// Before layout: what this frame is about to show.
    pub(super) fn screen_shown(&self) -> ScreenShown {
        ScreenShown {
            view: self.view,
            viewer_open: self.viewer.is_open(),
        }
    }

    /// After layout: when `shown` (laid out this frame) differs from the last frame's
    /// screen in a way that left one, release what was not drawn; a few frames later,
    /// give the freed memory back.
    pub(super) fn release_left_screen(&mut self, ctx: &egui::Context, shown: ScreenShown) {
        let previous = self.last_screen_shown.replace(shown);
        if previous.is_some_and(|previous| previous.leaves_screen(shown)) {
            let released = self.textures.release_not_drawn_this_frame();
            tracing::debug!(
                released,
                texture_bytes = self.textures.used_bytes(),
                "a screen was left: its textures were released"
            );
            self.trim_heap_at_frame = Some(self.frames_laid_out + TRIM_AFTER_FRAMES);
        }
        match self.trim_heap_at_frame {
            Some(frame) if self.frames_laid_out >= frame => {
                self.trim_heap_at_frame = None;
                crate::desktop::heap::give_back_freed_memory();
            }
            Some(_) => ctx.request_repaint(),
            None => {}
        }
    }
}

/// Frames between releasing a screen's textures and trimming the heap: the painter frees
/// the GL textures (llvmpipe's copies in process memory) after the frame that dropped
/// them, and a closed player's last frames are dropped a frame later still.
const TRIM_AFTER_FRAMES: u64 = 2;

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(view: View, viewer_open: bool) -> ScreenShown {
        ScreenShown { view, viewer_open }
    }

    #[test]
    fn another_view_or_a_closed_viewer_leaves_a_screen() {
        let library = shown(View::Library, false);
        assert!(library.leaves_screen(shown(View::Create, false)));
        assert!(shown(View::Library, true).leaves_screen(library));
        // Opening the viewer over the library keeps the grid's thumbnails for its return.
        assert!(!library.leaves_screen(shown(View::Library, true)));
        assert!(!library.leaves_screen(library));
    }
}
