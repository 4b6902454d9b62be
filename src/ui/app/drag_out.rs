//! Dragging a result out of the window as a file (macOS and Windows only; the `drag`
//! crate). The file must already be on disk when the gesture starts: `file_out` asks the
//! engine for it on the first drag and says so in a toast; the next drag starts here,
//! after layout, where the window handle (`eframe::Frame`) is at hand.
//!
//! Unverified: written against drag 2's `start_drag` without a macOS or Windows build.

use super::StudioApp;
use crate::ui::compose::state::file_name;
use crate::ui::toasts::ToastKind;
use std::path::PathBuf;

/// The drag preview: the app icon (a result's own pixels may be a large file).
const DRAG_ICON_PNG: &[u8] = include_bytes!("../../../assets/icon.png");

#[derive(Default)]
pub(super) struct DragOut {
    /// A local file to drag, started after this frame's layout.
    pending: Option<PathBuf>,
}

impl DragOut {
    pub(super) fn start_with(&mut self, path: PathBuf) {
        self.pending = Some(path);
    }
}

impl StudioApp {
    /// Start the drag asked for this frame, while the mouse button is still down.
    pub(super) fn start_pending_drag(&mut self, frame: &eframe::Frame) {
        let Some(path) = self.drag_out.pending.take() else {
            return;
        };
        let started = drag::start_drag(
            frame,
            drag::DragItem::Files(vec![path.clone()]),
            drag::Image::Raw(DRAG_ICON_PNG.to_vec()),
            |result: drag::DragResult, _cursor: drag::CursorPosition| {
                tracing::info!("drag out: {result:?}");
            },
            drag::Options::default(),
        );
        if let Err(error) = started {
            tracing::warn!("drag out of {}: {error}", path.display());
            self.toasts.push(
                ToastKind::Error,
                format!("Could not drag {} out: {error}", file_name(&path)),
            );
        }
    }
}
