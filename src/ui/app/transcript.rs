//! The transcript's routing in the shell: the subtitles choice restored at start and
//! written when C or the Subtitles button changes it (`UiMemory.panels["transcript"]`).

use super::StudioApp;
use crate::ui::transcript::viewer::{PANEL_KEY, subtitles_from_memory, subtitles_to_memory};

impl StudioApp {
    pub(super) fn restore_transcript_memory(&mut self) {
        let on = subtitles_from_memory(self.session.ui_memory().panels.get(PANEL_KEY));
        self.viewer.restore_subtitles(on);
    }

    pub(super) fn write_transcript_memory(&mut self) {
        if let Some(on) = self.viewer.subtitles_to_write() {
            self.session.update_ui_memory(|m| {
                m.panels
                    .insert(PANEL_KEY.to_owned(), subtitles_to_memory(on));
            });
        }
    }
}
