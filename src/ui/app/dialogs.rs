//! Where file-dialog answers go: picked images to Create or Palettes, a save path to the
//! engine, a folder to the Library's downloads. A dialog that could not open needs nothing
//! here: the path prompt is open by then and says what happened and what to do.

use super::StudioApp;
use crate::engine::Command;
use crate::ui::dialogs::{DialogKind, DialogOutcome};

impl StudioApp {
    pub(super) fn poll_dialogs(&mut self, ctx: &egui::Context) {
        for outcome in self.dialogs.poll() {
            self.dialog_outcome(ctx, outcome);
        }
    }

    pub(super) fn dialog_outcome(&mut self, ctx: &egui::Context, outcome: DialogOutcome) {
        match outcome {
            DialogOutcome::Picked { kind, paths } => match kind {
                // On the 3D form (unless its type changed meanwhile) picked images go
                // to its views, as dropped ones do.
                DialogKind::SourceImages | DialogKind::SourceVideo | DialogKind::ThreeDImages => {
                    for action in self.create.add_source_files(paths) {
                        self.apply(ctx, action);
                    }
                }
                DialogKind::PaletteImages => {
                    for action in self.palettes.add_images(paths) {
                        self.apply(ctx, action);
                    }
                }
                DialogKind::ChatImages => {
                    for action in self.chat.add_files(paths) {
                        self.apply(ctx, action);
                    }
                }
                DialogKind::LooksImages => {
                    for action in self.looks.add_picked(paths) {
                        self.apply(ctx, action);
                    }
                }
                DialogKind::SaveImage { url } => {
                    if let Some(path) = paths.into_iter().next() {
                        self.send(Command::SaveUrlToFile { url, path });
                    }
                }
                DialogKind::SaveWav { url } => {
                    if let Some(path) = paths.into_iter().next() {
                        self.send(Command::Audio(crate::engine::AudioCommand::SaveWav {
                            url,
                            path,
                        }));
                    }
                }
                DialogKind::DownloadFolder { items } => {
                    if let Some(folder) = paths.into_iter().next() {
                        for action in self.library.download_to(items, folder) {
                            self.apply_plain(action);
                        }
                    }
                }
                DialogKind::LibraryFiles => self.upload_to_library(ctx, paths),
                DialogKind::MotionFiles { target } => {
                    for action in self.create.add_motion_files(target, paths) {
                        self.apply(ctx, action);
                    }
                }
                DialogKind::TranscriptionSource => {
                    if let Some(path) = paths.into_iter().next() {
                        for action in self.create.transcription.choose_file(path) {
                            self.apply(ctx, action);
                        }
                    }
                }
                DialogKind::SaveText { contents, .. } => {
                    if let Some(path) = paths.into_iter().next() {
                        self.send(Command::Transcript(
                            crate::engine::TranscriptCommand::SaveText { path, contents },
                        ));
                    }
                }
            },
            // The path prompt says it (once) with the reason under Details; the dialog
            // module logged the reason.
            DialogOutcome::Unavailable { .. } => {}
        }
    }

    /// The "type a path" prompt is open (tests).
    pub fn path_prompt_open(&self) -> bool {
        self.dialogs.prompt_open()
    }

    /// Source images in the Create form (tests).
    pub fn compose_source_count(&self) -> usize {
        self.create.form.sources.len()
    }
}
