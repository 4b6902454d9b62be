//! The studio's one way to put text on the system clipboard, so that a "copied" toast is
//! only shown when the copy really happened.
//!
//! `egui::Context::copy_text` hands the text to eframe at the end of the frame and any
//! failure there is only logged. Buttons therefore copy through arboard directly and can
//! report its error. The arboard handle is kept for the app's lifetime: on X11 the
//! clipboard's content is served by its owner, so dropping the handle right after copying
//! would empty the clipboard. Where no system clipboard can be opened (no display, e.g.
//! headless tests) the copy falls back to egui's path.
//!
//! Copies made by text fields (Ctrl+C / Ctrl+X) go through egui; [`AppClipboard::observe`]
//! records them too, so `last_copied` is what the studio last put on the clipboard.

/// Why text could not be put on the clipboard.
#[derive(Debug, thiserror::Error)]
#[error("the system clipboard refused the text: {0}")]
pub struct ClipboardError(String);

/// How a copy reached the clipboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyRoute {
    /// The system clipboard accepted the text.
    System,
    /// No system clipboard could be opened; handed to the window system through egui.
    Window,
}

#[derive(Default)]
pub struct AppClipboard {
    system: Option<arboard::Clipboard>,
    /// Why the system clipboard could not be opened (tried once).
    unavailable: Option<String>,
    last_copied: Option<String>,
}

impl AppClipboard {
    /// Put `text` on the clipboard.
    pub fn copy(&mut self, ctx: &egui::Context, text: &str) -> Result<CopyRoute, ClipboardError> {
        self.open_system();
        let route = match self.system.as_mut() {
            Some(clipboard) => {
                clipboard.set_text(text).map_err(|error| {
                    tracing::warn!("copy to the clipboard failed: {error}");
                    ClipboardError(error.to_string())
                })?;
                CopyRoute::System
            }
            None => {
                ctx.copy_text(text.to_owned());
                CopyRoute::Window
            }
        };
        self.last_copied = Some(text.to_owned());
        Ok(route)
    }

    /// Put files on the clipboard as files (`text/uri-list` on Linux, file references on
    /// macOS and Windows), so pasting in a file manager or a chat app pastes the file.
    /// There is no window-system fallback for files: without a system clipboard this fails.
    pub fn copy_files(
        &mut self,
        _ctx: &egui::Context,
        paths: &[std::path::PathBuf],
    ) -> Result<(), ClipboardError> {
        self.open_system();
        let Some(clipboard) = self.system.as_mut() else {
            return Err(ClipboardError(
                self.unavailable
                    .clone()
                    .unwrap_or_else(|| "no system clipboard".to_owned()),
            ));
        };
        clipboard.set().file_list(paths).map_err(|error| {
            tracing::warn!("copying files to the clipboard failed: {error}");
            ClipboardError(error.to_string())
        })?;
        self.last_copied = Some(
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        );
        Ok(())
    }

    fn open_system(&mut self) {
        if self.system.is_none() && self.unavailable.is_none() {
            match arboard::Clipboard::new() {
                Ok(clipboard) => self.system = Some(clipboard),
                Err(error) => {
                    tracing::info!("system clipboard unavailable, using the window's: {error}");
                    self.unavailable = Some(error.to_string());
                }
            }
        }
    }

    /// Record what text fields copied or cut this frame (egui's own clipboard output).
    /// Call at the end of each frame.
    pub fn observe(&mut self, ctx: &egui::Context) {
        let copied = ctx.output(|o| {
            o.commands.iter().rev().find_map(|command| match command {
                egui::OutputCommand::CopyText(text) => Some(text.clone()),
                _ => None,
            })
        });
        if let Some(text) = copied {
            self.last_copied = Some(text);
        }
    }

    /// The text most recently put on the clipboard by the studio.
    pub fn last_copied(&self) -> Option<&str> {
        self.last_copied.as_deref()
    }
}
