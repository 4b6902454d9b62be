//! Native file dialogs (rfd, xdg-portal backend) on short-lived named threads, and what
//! happens when none can open. rfd returns `None` both on cancel and when there is no
//! desktop portal and no zenity, so before opening one we check that a backend exists;
//! when none does, the caller gets the reason and the user gets a "type a path" prompt.

use crate::engine::protocol::DownloadItem;
use crate::ui::compose::motion_form::{MediaKind, SlotTarget};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::RichText;
use poll_promise::Promise;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Set (to anything) to act as if no dialog backend existed (tests, demos).
pub const NO_FILE_DIALOGS_ENV: &str = "FRAMEWRIGHT_NO_FILE_DIALOGS";
/// The portal service rfd's xdg-portal backend talks to.
const PORTAL_BUS_NAME: &str = "org.freedesktop.portal.Desktop";
/// How long the session-bus check may take before we call the portal missing.
const PORTAL_CHECK_TIMEOUT_SECS: u64 = 3;

/// Image types the pickers offer (and that drops and typed paths accept as images).
pub const IMAGE_EXTENSIONS: [&str; 6] = ["png", "jpg", "jpeg", "webp", "gif", "bmp"];

/// Whether `path` names an image by its extension (any case).
pub fn is_image_path(path: &std::path::Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Video types the video pickers offer (and that drops accept as videos to edit): the
/// containers the service produces.
pub use crate::media::video::VIDEO_EXTENSIONS;

/// Whether `path` names a video by its extension (any case).
pub fn is_video_path(path: &std::path::Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| VIDEO_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// What a dialog is for; decides its title, filters and what the answer feeds.
#[derive(Clone, Debug, PartialEq)]
pub enum DialogKind {
    /// Create's "Add images…": sources for an image edit.
    SourceImages,
    /// Create's "Choose video…": the video to edit or trim.
    SourceVideo,
    /// Palettes' reference images.
    PaletteImages,
    /// Images to attach to a chat message.
    ChatImages,
    /// Images for the open Visual DNA or moodboard form.
    LooksImages,
    /// Files for one media slot of Create's Elements, First and last frame or Lip sync.
    MotionFiles { target: SlotTarget },
    /// Images for Create's 3D model.
    ThreeDImages,
    /// Save one output URL to a file.
    SaveImage { url: String },
    /// The audio view's "Save as WAV…": where to write the WAV copy of `url`.
    SaveWav { url: String },
    /// Library "Save to folder…": download these items into a folder.
    DownloadFolder { items: Vec<DownloadItem> },
    /// Library "Upload…": images and videos to upload.
    LibraryFiles,
    /// Create's Transcription "Choose file…": a sound or video to transcribe.
    TranscriptionSource,
    /// Save text made in the studio (a transcript's export) as `file_name`.
    SaveText { file_name: String, contents: String },
}

impl DialogKind {
    fn title(&self) -> &'static str {
        match self {
            DialogKind::SourceImages => "Add images to edit",
            DialogKind::SourceVideo => "Choose a video to edit",
            DialogKind::PaletteImages => "Reference images for a palette",
            DialogKind::ChatImages => "Attach images to your message",
            DialogKind::LooksImages => "Images for a Visual DNA or moodboard",
            DialogKind::MotionFiles { target } => target.dialog_title(),
            DialogKind::ThreeDImages => "Images for a 3D model",
            DialogKind::SaveImage { .. } => "Save image",
            DialogKind::SaveWav { .. } => "Save as WAV",
            DialogKind::DownloadFolder { .. } => "Save to folder",
            DialogKind::LibraryFiles => "Upload to the library",
            DialogKind::SaveText { .. } => "Save transcript",
            DialogKind::TranscriptionSource => "Choose a sound or video to transcribe",
        }
    }

    fn same_purpose(&self, other: &DialogKind) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
            && !matches!(
                self,
                DialogKind::SaveImage { .. }
                    | DialogKind::SaveText { .. }
                    | DialogKind::SaveWav { .. }
            )
    }

    /// What to do instead, for the toast.
    fn alternative(&self) -> &'static str {
        match self {
            DialogKind::SourceImages
            | DialogKind::PaletteImages
            | DialogKind::ChatImages
            | DialogKind::LooksImages
            | DialogKind::ThreeDImages => {
                "Type a path instead, or drag and drop the images onto the window."
            }
            DialogKind::SourceVideo => {
                "Type a path instead, or drag and drop the video onto the window."
            }
            DialogKind::TranscriptionSource => "Type the path of the file instead.",
            DialogKind::MotionFiles { .. } => {
                "Type a path instead, or drag and drop the file onto its place in the form."
            }
            DialogKind::SaveImage { .. }
            | DialogKind::SaveText { .. }
            | DialogKind::SaveWav { .. } => "Type the path to save to instead.",
            DialogKind::DownloadFolder { .. } => "Type the folder to save to instead.",
            DialogKind::LibraryFiles => {
                "Type a path instead, or drag and drop the files onto the window."
            }
        }
    }

    fn picks_folder(&self) -> bool {
        matches!(self, DialogKind::DownloadFolder { .. })
    }

    fn saves(&self) -> bool {
        matches!(
            self,
            DialogKind::SaveImage { .. } | DialogKind::SaveText { .. } | DialogKind::SaveWav { .. }
        )
    }
}

/// What the path prompt says when no file dialog could open: what happened, then what to
/// do instead. The reason itself (often a D-Bus error) goes under Details and the log.
pub fn unavailable_message(kind: &DialogKind) -> String {
    format!(
        "This desktop has no file chooser Framewright can open (it needs the desktop \
         portal or zenity). {}",
        kind.alternative()
    )
}

/// The file name a save dialog suggests for an output URL.
pub fn suggested_file_name(url: &str) -> String {
    let without_query = url.split(['?', '#']).next().unwrap_or(url);
    // Only the path names the file, never the host.
    let path = match without_query.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, path)| path),
        None => without_query,
    };
    path.rsplit('/')
        .find(|s| !s.is_empty())
        .unwrap_or("image.png")
        .to_owned()
}

/// The file name "Save as WAV" suggests: the output's own name with `.wav`.
pub fn wav_file_name(url: &str) -> String {
    let name = suggested_file_name(url);
    let stem = name
        .rsplit_once('.')
        .map_or(name.as_str(), |(stem, _)| stem);
    let stem = if stem.is_empty() { "sound" } else { stem };
    format!("{stem}.wav")
}

/// How a dialog ended (a cancel ends it silently).
#[derive(Debug)]
pub enum DialogOutcome {
    Picked {
        kind: DialogKind,
        paths: Vec<PathBuf>,
    },
    /// No dialog could open; the path prompt is open now and says so (with the reason
    /// under Details).
    Unavailable { kind: DialogKind, reason: String },
}

type Answer = Result<Vec<PathBuf>, String>;

/// The "type a path" prompt shown when no dialog can open.
#[derive(Debug)]
struct PathPrompt {
    kind: DialogKind,
    text: String,
    reason: String,
    error: Option<String>,
}

/// Open dialogs and the path prompt; owned by the shell.
#[derive(Default)]
pub struct FileDialogs {
    pending: Vec<(DialogKind, Promise<Answer>)>,
    prompt: Option<PathPrompt>,
}

impl FileDialogs {
    /// Opens a dialog for `kind` on a "file-dialog" thread (one per purpose at a time).
    pub fn open(&mut self, kind: DialogKind) {
        if self.pending.iter().any(|(k, _)| k.same_purpose(&kind)) {
            return;
        }
        let job = kind.clone();
        let promise = Promise::spawn_thread("file-dialog", move || run_dialog(&job));
        self.pending.push((kind, promise));
    }

    /// A dialog is open (the shell repaints now and then to notice its answer).
    pub fn is_waiting(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Answers that came in since the last call.
    pub fn poll(&mut self) -> Vec<DialogOutcome> {
        let mut outcomes = Vec::new();
        for (kind, promise) in std::mem::take(&mut self.pending) {
            match promise.try_take() {
                Ok(Ok(paths)) if paths.is_empty() => {}
                Ok(Ok(paths)) => outcomes.push(DialogOutcome::Picked { kind, paths }),
                Ok(Err(reason)) => {
                    tracing::warn!("file dialog “{}” could not open: {reason}", kind.title());
                    self.prompt = Some(PathPrompt {
                        text: prefill(&kind),
                        kind: kind.clone(),
                        reason: reason.clone(),
                        error: None,
                    });
                    outcomes.push(DialogOutcome::Unavailable { kind, reason });
                }
                Err(promise) => self.pending.push((kind, promise)),
            }
        }
        outcomes
    }

    /// The path prompt while it is open; `Picked` when the typed path checks out.
    pub fn path_prompt_ui(&mut self, ctx: &egui::Context) -> Option<DialogOutcome> {
        let prompt = self.prompt.as_mut()?;
        let mut confirmed = false;
        let mut cancelled = false;
        let response = egui::Modal::new(egui::Id::unique("path_prompt"))
            .backdrop_color(tokens::palette().scrim)
            .frame(tokens::card_frame().inner_margin(egui::Margin::same(20)))
            .show(ctx, |ui| {
                ui.set_width(440.0);
                ui.label(
                    RichText::new(prompt.kind.title())
                        .size(tokens::TEXT_TITLE)
                        .strong()
                        .color(tokens::palette().text),
                );
                ui.add_space(tokens::SPACE_XS);
                // Said once, here (no toast): what happened and what to do; the raw reason
                // (a D-Bus error, say) is under Details and in the log.
                ui.label(
                    RichText::new(unavailable_message(&prompt.kind))
                        .color(tokens::palette().text_muted),
                );
                egui::CollapsingHeader::new(RichText::new("Details").size(tokens::TEXT_SMALL))
                    .id_salt("path_prompt_details")
                    .show(ui, |ui| {
                        ui.label(
                            RichText::new(&prompt.reason)
                                .size(tokens::TEXT_SMALL)
                                .color(tokens::palette().text_faint),
                        );
                    });
                ui.add_space(tokens::SPACE_S);
                let hint = if prompt.kind.picks_folder() {
                    "/home/you/Pictures"
                } else if prompt.kind.saves() {
                    "/home/you/Pictures/image.png"
                } else {
                    "One path per line"
                };
                let edit = if prompt.kind.saves() || prompt.kind.picks_folder() {
                    egui::TextEdit::singleline(&mut prompt.text)
                } else {
                    egui::TextEdit::multiline(&mut prompt.text).desired_rows(3)
                };
                let field = ui.add(edit.hint_text(hint).desired_width(f32::INFINITY));
                if crate::ui::focus::first_frame_shown(ui.ctx(), field.id) {
                    field.request_focus(); // The prompt is for typing: it opens ready for it.
                }
                widgets::name_widget(&field, "Path");
                if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                    confirmed = true;
                }
                if let Some(error) = &prompt.error {
                    widgets::field_error(ui, error);
                }
                ui.add_space(tokens::SPACE_M);
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    let yes = if prompt.kind.saves() {
                        "Save"
                    } else {
                        "Use path"
                    };
                    if ui.add(widgets::primary_button(yes)).clicked() {
                        confirmed = true;
                    }
                    if ui.add(widgets::secondary_button("Cancel")).clicked() {
                        cancelled = true;
                    }
                });
            });
        if response.should_close() && !confirmed {
            cancelled = true;
        }
        if cancelled {
            self.prompt = None;
            return None;
        }
        if !confirmed {
            return None;
        }
        match check_typed_paths(&prompt.kind, &prompt.text) {
            Ok(paths) => {
                let kind = prompt.kind.clone();
                self.prompt = None;
                Some(DialogOutcome::Picked { kind, paths })
            }
            Err(error) => {
                prompt.error = Some(error);
                None
            }
        }
    }

    /// The path prompt is open (tests).
    pub fn prompt_open(&self) -> bool {
        self.prompt.is_some()
    }
}

fn prefill(kind: &DialogKind) -> String {
    let home = std::env::var("HOME").unwrap_or_default();
    match kind {
        DialogKind::SaveImage { url } if !home.is_empty() => {
            format!("{home}/{}", suggested_file_name(url))
        }
        DialogKind::SaveText { file_name, .. } if !home.is_empty() => {
            format!("{home}/{file_name}")
        }
        DialogKind::SaveWav { url } if !home.is_empty() => {
            format!("{home}/{}", wav_file_name(url))
        }
        DialogKind::DownloadFolder { .. } if !home.is_empty() => home,
        _ => String::new(),
    }
}

/// `~/x` → `$HOME/x`; a `file://` URI (copied from a file manager) → its path.
fn expand_home(text: &str) -> PathBuf {
    if text.starts_with("file://")
        && let Some(path) = crate::ui::library::add_files::paths_in_pasted_text(text)
            .into_iter()
            .next()
    {
        return path;
    }
    match (text.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(text),
    }
}

/// The typed path(s) for `kind`, or a sentence saying what is wrong with them.
pub fn check_typed_paths(kind: &DialogKind, text: &str) -> Result<Vec<PathBuf>, String> {
    let paths: Vec<PathBuf> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(expand_home)
        .collect();
    if paths.is_empty() {
        return Err("Type a path.".to_owned());
    }
    if kind.saves() || kind.picks_folder() {
        if paths.len() > 1 {
            return Err("Type one path.".to_owned());
        }
        let path = &paths[0];
        if kind.picks_folder() {
            if !path.is_dir() {
                return Err(format!("{} is not a folder.", path.display()));
            }
        } else {
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
            if path.is_dir() {
                return Err(format!("{} is a folder; add a file name.", path.display()));
            }
            if parent.is_some_and(|p| !p.is_dir()) {
                return Err(format!(
                    "The folder {} does not exist.",
                    parent
                        .map(Path::display)
                        .map(|d| d.to_string())
                        .unwrap_or_default()
                ));
            }
        }
        return Ok(paths);
    }
    if let Some(missing) = paths.iter().find(|p| !p.is_file()) {
        return Err(format!("No file at {}.", missing.display()));
    }
    Ok(paths)
}

/// Runs on the dialog thread: check for a backend, then show the dialog. `Ok(vec![])` is
/// a cancel; `Err` says why no dialog could open.
fn run_dialog(kind: &DialogKind) -> Answer {
    backend_available()?;
    let dialog = rfd::FileDialog::new().set_title(kind.title());
    Ok(match kind {
        DialogKind::SourceImages
        | DialogKind::PaletteImages
        | DialogKind::ChatImages
        | DialogKind::LooksImages
        | DialogKind::ThreeDImages => {
            // Unlike the single-answer calls, rfd's pick_files tells a cancel (an empty
            // list) from a failure (None).
            match dialog.add_filter("Images", &IMAGE_EXTENSIONS).pick_files() {
                Some(paths) => paths,
                None => return Err("the file dialog failed to open".to_owned()),
            }
        }
        DialogKind::MotionFiles { target } => {
            let media: Vec<&str> = [
                (MediaKind::Image, &IMAGE_EXTENSIONS[..]),
                (MediaKind::Video, &VIDEO_EXTENSIONS[..]),
                (MediaKind::Audio, &crate::api::audio::AUDIO_EXTENSIONS[..]),
            ]
            .into_iter()
            .filter(|(kind, _)| target.accepts(*kind))
            .flat_map(|(_, extensions)| extensions.iter().copied())
            .collect();
            let dialog = dialog.add_filter(target.name(), &media);
            if target.takes_many() {
                match dialog.pick_files() {
                    Some(paths) => paths,
                    None => return Err("the file dialog failed to open".to_owned()),
                }
            } else {
                dialog.pick_file().into_iter().collect()
            }
        }
        DialogKind::SourceVideo => match dialog.add_filter("Videos", &VIDEO_EXTENSIONS).pick_file()
        {
            Some(path) => vec![path],
            None => Vec::new(),
        },
        DialogKind::SaveImage { url } => dialog
            .set_file_name(suggested_file_name(url))
            .save_file()
            .into_iter()
            .collect(),
        DialogKind::TranscriptionSource => {
            let media: Vec<&str> = crate::api::audio::AUDIO_EXTENSIONS
                .iter()
                .chain(VIDEO_EXTENSIONS.iter())
                .copied()
                .collect();
            match dialog.add_filter("Sound and video", &media).pick_file() {
                Some(path) => vec![path],
                None => Vec::new(),
            }
        }
        DialogKind::SaveText { file_name, .. } => dialog
            .set_file_name(file_name)
            .save_file()
            .into_iter()
            .collect(),
        DialogKind::SaveWav { url } => dialog
            .set_file_name(wav_file_name(url))
            .add_filter("WAV audio", &["wav"])
            .save_file()
            .into_iter()
            .collect(),
        DialogKind::DownloadFolder { .. } => dialog.pick_folder().into_iter().collect(),
        DialogKind::LibraryFiles => {
            let media: Vec<&str> = IMAGE_EXTENSIONS
                .iter()
                .chain(VIDEO_EXTENSIONS.iter())
                .copied()
                .collect();
            let dialog = dialog
                .add_filter("Images and videos", &media)
                .add_filter("Images", &IMAGE_EXTENSIONS)
                .add_filter("Videos", &VIDEO_EXTENSIONS);
            match dialog.pick_files() {
                Some(paths) => paths,
                None => return Err("the file dialog failed to open".to_owned()),
            }
        }
    })
}

/// Whether rfd has something to show a dialog with: the desktop portal on the session bus
/// or zenity on PATH. `Err` names what is missing.
fn backend_available() -> Result<(), String> {
    if std::env::var_os(NO_FILE_DIALOGS_ENV).is_some() {
        return Err("file dialogs are turned off".to_owned());
    }
    if cfg!(not(target_os = "linux")) || zenity_on_path() {
        return Ok(());
    }
    match portal_on_session_bus() {
        Ok(()) => Ok(()),
        Err(why) => Err(format!("{why}, and zenity is not installed")),
    }
}

fn zenity_on_path() -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("zenity").is_file()))
}

/// Asks the session bus whether the portal runs or can be started.
fn portal_on_session_bus() -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot check for a desktop portal: {e}"))?;
    runtime.block_on(async {
        let check = async {
            let connection = zbus::Connection::session()
                .await
                .map_err(|e| format!("no desktop session bus ({e})"))?;
            let bus = zbus::fdo::DBusProxy::new(&connection)
                .await
                .map_err(|e| format!("the session bus did not answer ({e})"))?;
            let name =
                zbus::names::BusName::try_from(PORTAL_BUS_NAME).map_err(|e| e.to_string())?;
            if bus.name_has_owner(name).await.unwrap_or(false) {
                return Ok(());
            }
            let activatable = bus
                .list_activatable_names()
                .await
                .map_err(|e| format!("the session bus did not answer ({e})"))?;
            if activatable.iter().any(|n| n.as_str() == PORTAL_BUS_NAME) {
                Ok(())
            } else {
                Err("no desktop portal is running".to_owned())
            }
        };
        tokio::time::timeout(Duration::from_secs(PORTAL_CHECK_TIMEOUT_SECS), check)
            .await
            .unwrap_or_else(|_| Err("the session bus did not answer in time".to_owned()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_suggests_the_last_path_segment() {
        assert_eq!(
            suggested_file_name("http://127.0.0.1:4000/files/abc/out.png?sig=1"),
            "out.png"
        );
        assert_eq!(suggested_file_name("http://host/"), "image.png");
    }

    #[test]
    fn typed_paths_are_checked_for_their_purpose() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a.png");
        std::fs::write(&file, b"x").expect("write");
        let text = file.display().to_string();
        assert_eq!(
            check_typed_paths(&DialogKind::SourceImages, &format!("\n{text}\n")),
            Ok(vec![file.clone()])
        );
        // A file manager's copied URI names the same file (spaces percent-encoded).
        let spaced = dir.path().join("a b.png");
        std::fs::write(&spaced, b"x").expect("write");
        let uri = format!("file://{}", spaced.display()).replace(' ', "%20");
        assert_eq!(
            check_typed_paths(&DialogKind::SourceImages, &uri),
            Ok(vec![spaced.clone()])
        );
        assert!(check_typed_paths(&DialogKind::SourceImages, "/no/such/file.png").is_err());
        assert!(check_typed_paths(&DialogKind::SourceImages, "  ").is_err());
        let folder = DialogKind::DownloadFolder { items: Vec::new() };
        assert!(check_typed_paths(&folder, &dir.path().display().to_string()).is_ok());
        assert!(check_typed_paths(&folder, &text).is_err());
        let save = DialogKind::SaveImage { url: "u".into() };
        let target = dir.path().join("new.png").display().to_string();
        assert!(check_typed_paths(&save, &target).is_ok());
        assert!(check_typed_paths(&save, "/no/such/dir/new.png").is_err());
    }
}
