//! Ways to add files to the Library besides a drop: the *Upload…* button, Ctrl+O, Ctrl+V
//! (an image's pixels, or file paths / `file://` URIs as text) and the grid's context
//! menu. All of them return [`LibraryAction::Upload`]; the shell opens the file dialog,
//! writes pasted pixels to a PNG and uploads through the same path as a drop.

use super::{LibraryAction, LibraryState};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Key, Modifiers, RichText, Ui};
use std::path::PathBuf;
use std::sync::Arc;

/// What to upload; the shell carries it out.
#[derive(Clone, Debug, PartialEq)]
pub enum UploadSource {
    /// Ask with the file dialog (or the "type a path" prompt when none can open).
    Pick,
    /// Files named on the clipboard (or dropped).
    Paths(Vec<PathBuf>),
    /// A picture pasted from the clipboard, encoded as PNG: saved as a file, then uploaded.
    PastedPng(Arc<Vec<u8>>),
}

/// Pictures pasted with Ctrl+V, being encoded as PNG off the UI thread (a screen-sized
/// picture takes a noticeable moment).
#[derive(Default)]
pub struct PastedPictures {
    encoding: Vec<poll_promise::Promise<Result<Vec<u8>, String>>>,
}

impl PastedPictures {
    pub fn encode(&mut self, image: Arc<egui::ColorImage>) {
        self.encoding.push(poll_promise::Promise::spawn_thread(
            "library-paste-encode",
            move || crate::ui::chat::state::encode_png(&image),
        ));
    }

    pub fn is_busy(&self) -> bool {
        !self.encoding.is_empty()
    }

    /// Encodings that finished: an upload each, or a toast saying why not.
    pub fn poll(&mut self) -> Vec<crate::ui::model::Action> {
        let mut actions = Vec::new();
        for promise in std::mem::take(&mut self.encoding) {
            match promise.try_take() {
                Ok(Ok(bytes)) => actions.push(crate::ui::model::Action::Library(
                    LibraryAction::Upload(UploadSource::PastedPng(Arc::new(bytes))),
                )),
                Ok(Err(error)) => actions.push(crate::ui::model::Action::Toast(
                    crate::ui::toasts::ToastKind::Error,
                    error,
                )),
                Err(promise) => self.encoding.push(promise),
            }
        }
        actions
    }
}

/// The name every *Upload…* control carries.
pub const UPLOAD_LABEL: &str = "Upload…";

/// The toolbar's *Upload…* button.
pub fn upload_button_ui(ui: &mut Ui, actions: &mut Vec<LibraryAction>) {
    let response = ui
        .add(widgets::secondary_button(UPLOAD_LABEL))
        .on_hover_text("Upload images or videos (Ctrl+O). You can also drop or paste files.");
    widgets::name_widget(&response, UPLOAD_LABEL);
    if response.clicked() {
        actions.push(LibraryAction::Upload(UploadSource::Pick));
    }
}

/// *Upload…* with "or drop files here" under it: the empty states' call to action.
pub fn upload_call_to_action_ui(ui: &mut Ui, actions: &mut Vec<LibraryAction>) {
    let response = ui.add(widgets::primary_button(UPLOAD_LABEL));
    widgets::name_widget(&response, UPLOAD_LABEL);
    if response.clicked() {
        actions.push(LibraryAction::Upload(UploadSource::Pick));
    }
    ui.add_space(tokens::SPACE_XS);
    ui.label(
        RichText::new("or drop files here")
            .size(tokens::TEXT_SMALL + 0.5)
            .color(tokens::palette().text_faint),
    );
}

/// The grid's context menu on empty space (and on the empty state).
pub fn empty_space_menu_ui(ui: &mut Ui, actions: &mut Vec<LibraryAction>) {
    ui.set_min_width(170.0);
    if ui.button(UPLOAD_LABEL).clicked() {
        actions.push(LibraryAction::Upload(UploadSource::Pick));
        ui.close();
    }
}

/// Ctrl+O and Ctrl+V while the Library is shown and no text field, menu or dialog has the
/// keyboard. Text that names no file is left alone (with a word why).
pub fn upload_keys_ui(ui: &Ui, state: &mut LibraryState) -> Vec<LibraryAction> {
    let ctx = ui.ctx();
    if ctx.egui_wants_keyboard_input()
        || egui::Popup::is_any_open(ctx)
        || state.confirm.is_some()
        || state.share.is_some()
        || state.folder_form.is_some()
    {
        return Vec::new();
    }
    let mut actions = Vec::new();
    let mut pictures = Vec::new();
    ui.input_mut(|input| {
        if input.consume_key(Modifiers::COMMAND, Key::O) {
            actions.push(LibraryAction::Upload(UploadSource::Pick));
        }
        let mut pasted_paths = Vec::new();
        let mut pasted_text = false;
        input.events.retain(|event| match event {
            egui::Event::PasteImage(image) => {
                pictures.push(image.clone());
                false
            }
            egui::Event::Paste(text) => {
                pasted_text = true;
                pasted_paths.extend(paths_in_pasted_text(text));
                false
            }
            _ => true,
        });
        if !pasted_paths.is_empty() {
            actions.push(LibraryAction::Upload(UploadSource::Paths(pasted_paths)));
        } else if pasted_text {
            actions.push(LibraryAction::PastedTextIsNoFile);
        }
    });
    for picture in pictures {
        state.pasted.encode(picture);
    }
    actions
}

/// The files a pasted text names: one per line, absolute paths (`/…`, `~/…`, `C:\…`) or
/// `file://` URIs (as file managers copy them). Other lines (a `copy` verb, comments,
/// prose) are skipped.
pub fn paths_in_pasted_text(text: &str) -> Vec<PathBuf> {
    text.lines()
        .map(|line| line.trim().trim_matches(['"', '\'']))
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(path_of_line)
        .collect()
}

fn path_of_line(line: &str) -> Option<PathBuf> {
    if line.starts_with("file://") {
        // `file:///x` or `file://localhost/x`; another host is not a file here.
        return crate::file_url::path_of_file_url(line);
    }
    if line.starts_with('/') {
        return Some(PathBuf::from(line));
    }
    if let Some(rest) = line.strip_prefix("~/") {
        let home = std::env::var_os("HOME")?;
        return Some(PathBuf::from(home).join(rest));
    }
    let bytes = line.as_bytes();
    let windows_drive = bytes.len() > 2
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'\\' | b'/');
    windows_drive.then(|| PathBuf::from(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_text_names_files_by_path_or_file_uri() {
        let text = "copy\nfile:///tmp/a%20cat%231.png\r\n/home/me/b.jpg\n\
                    file://localhost/srv/c.png\n# comment\nfile://elsewhere/d.png\n\
                    a quiet harbour at dawn\n'/tmp/quoted.png'";
        assert_eq!(
            paths_in_pasted_text(text),
            vec![
                PathBuf::from("/tmp/a cat#1.png"),
                PathBuf::from("/home/me/b.jpg"),
                PathBuf::from("/srv/c.png"),
                PathBuf::from("/tmp/quoted.png"),
            ]
        );
        assert_eq!(
            paths_in_pasted_text("file:///tmp/%C3%A9.png"),
            vec![PathBuf::from("/tmp/é.png")]
        );
        assert!(paths_in_pasted_text("just words").is_empty());
        assert_eq!(
            paths_in_pasted_text(r"C:\Users\me\a.png"),
            vec![PathBuf::from(r"C:\Users\me\a.png")]
        );
    }
}
