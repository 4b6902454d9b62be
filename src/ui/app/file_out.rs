//! Results out of the studio as files: "Reveal in file manager", "Copy file" and (macOS,
//! Windows) dragging out. The engine downloads the output into the cache first, reporting
//! progress in one toast that is updated in place; the reveal itself runs in the engine,
//! the copy here (the clipboard handle lives in the app).

use super::StudioApp;
use crate::desktop::reveal::Revealed;
use crate::engine::{Command, FileOutCommand, FileOutEvent, FileOutPurpose, FileOutcome};
use crate::ui::compose::state::file_name;
use crate::ui::library::detail::human_bytes;
use crate::ui::model::ResultRef;
use crate::ui::toasts::ToastKind;
use std::collections::HashMap;
use std::path::PathBuf;

/// Files being prepared (their progress toast) and files known to be on disk.
#[derive(Default)]
pub(super) struct FileOutState {
    /// (url, purpose) → (the result's name, its progress toast once downloading).
    pending: HashMap<(String, FileOutPurpose), (String, Option<u64>)>,
    /// Outputs already in the cache, by url (a drag can start at once).
    pub(super) ready: HashMap<String, PathBuf>,
}

impl StudioApp {
    /// A result's Reveal / Copy file / drag: ask the engine for the local file.
    pub(super) fn start_file_out(&mut self, result: &ResultRef, purpose: FileOutPurpose) {
        let Some(output) = self.output_of(result).filter(|o| !o.url.is_empty()) else {
            self.toasts.push(
                ToastKind::Error,
                "The service gave no address for this file, so there is nothing to hand over.",
            );
            return;
        };
        #[cfg(any(target_os = "macos", target_os = "windows"))]
        if purpose == FileOutPurpose::Drag {
            if let Some(path) = self.file_out.ready.get(&output.url) {
                self.drag_out.start_with(path.clone());
                return;
            }
            // The gesture cannot wait for a download: say so rather than drop it silently.
            self.toasts.push(
                ToastKind::Info,
                format!(
                    "Getting {} ready to drag: drag it again once it has downloaded.",
                    output.label
                ),
            );
        }
        let key = (output.url.clone(), purpose);
        if self.file_out.pending.contains_key(&key) {
            return; // Already under way; its toast tells how far.
        }
        self.file_out
            .pending
            .insert(key, (output.label.clone(), None));
        self.send(Command::FileOut(FileOutCommand::Prepare {
            url: output.url,
            file_name: output.label,
            purpose,
        }));
    }

    pub(super) fn file_out_event(&mut self, ctx: &egui::Context, event: FileOutEvent) {
        match event {
            FileOutEvent::Progress {
                url,
                purpose,
                bytes_done,
                bytes_total,
            } => {
                let Some((name, toast)) = self.file_out.pending.get_mut(&(url, purpose)) else {
                    return;
                };
                let amount = match bytes_done.saturating_mul(100).checked_div(bytes_total) {
                    Some(percent) => format!("{percent} %"),
                    None => human_bytes(bytes_done),
                };
                let text = format!("Downloading {name}… {amount}");
                match toast {
                    Some(id) if self.toasts.set_text(*id, text.clone()) => {}
                    _ => *toast = Some(self.toasts.push_progress(text)),
                }
            }
            FileOutEvent::Finished {
                url,
                purpose,
                outcome,
            } => {
                let (name, toast) = self
                    .file_out
                    .pending
                    .remove(&(url.clone(), purpose))
                    .unwrap_or_else(|| ("The file".to_owned(), None));
                if let Some(id) = toast {
                    self.toasts.dismiss(id);
                }
                match outcome {
                    Ok(done) => {
                        self.file_out.ready.insert(url, done.path.clone());
                        self.file_out_done(ctx, purpose, &name, done);
                    }
                    Err(why) => self
                        .toasts
                        .push(ToastKind::Error, failure_text(purpose, &name, &why)),
                }
            }
        }
    }

    fn file_out_done(
        &mut self,
        ctx: &egui::Context,
        purpose: FileOutPurpose,
        name: &str,
        done: FileOutcome,
    ) {
        let file = file_name(&done.path);
        match (purpose, done.revealed) {
            (FileOutPurpose::Reveal, Some(Revealed::FolderOpened { folder })) => self.toasts.push(
                ToastKind::Info,
                format!(
                    "Opened the folder holding {file} ({}): no file manager could select it",
                    folder.display()
                ),
            ),
            (FileOutPurpose::Reveal, _) => self.toasts.push(
                ToastKind::Success,
                format!("Shown in the file manager: {file}"),
            ),
            (FileOutPurpose::Copy, _) => match self.keys.clipboard.copy_files(ctx, &[done.path]) {
                Ok(()) => self.toasts.push(
                    ToastKind::Success,
                    format!(
                        "{name} copied as a file: paste it into a file manager or another \
                             application"
                    ),
                ),
                Err(error) => self.toasts.push(
                    ToastKind::Error,
                    format!("Could not copy {name} as a file: {error}"),
                ),
            },
            (FileOutPurpose::Drag, _) => self.toasts.push(
                ToastKind::Success,
                format!("{name} is ready: drag it again to drop it into another application"),
            ),
        }
    }
}

fn failure_text(purpose: FileOutPurpose, name: &str, why: &str) -> String {
    match purpose {
        FileOutPurpose::Reveal => format!("Could not show {name} in the file manager: {why}"),
        FileOutPurpose::Copy => format!("Could not copy {name} as a file: {why}"),
        FileOutPurpose::Drag => format!("Could not get {name} ready to drag: {why}"),
    }
}
