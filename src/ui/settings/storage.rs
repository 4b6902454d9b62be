//! Settings › Storage and Log: where things live (with buttons that open the folders),
//! the cache's size with Clear, and the last lines of the log. Every read and delete is an
//! engine `StorageCommand`; this view only shows the answers.

use super::{SettingsForm, SettingsSnapshot};
use crate::engine::storage::LOG_TAIL_LINES;
use crate::engine::{CacheCleared, CacheSize, Command, StorageCommand, StorageEvent};
use crate::ui::model::{Action, Confirm};
use crate::ui::toasts::ToastKind;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Ui};
use std::path::PathBuf;

/// The cache figure and what is being done to it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CacheState {
    pub size: Option<Result<CacheSize, String>>,
    pub busy: bool,
}

/// The log viewer's lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogState {
    pub lines: Option<Result<Vec<String>, String>>,
    pub loading: bool,
}

/// Bytes for people: "0 bytes", "812 KB", "1.4 MB", "2.1 GB".
pub fn bytes_text(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64;
    let mut unit = "bytes";
    for next in UNITS {
        if value < 1000.0 {
            break;
        }
        value /= 1000.0;
        unit = next;
    }
    if value < 10.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.0} {unit}")
    }
}

impl SettingsForm {
    /// Settings was opened: measure the cache and read the log afresh.
    pub fn on_shown(&mut self, snapshot: &SettingsSnapshot) -> Vec<Command> {
        self.threshold_input = None;
        self.cache_limit_input = None;
        self.cache_limit_error = None;
        self.cache.busy = true;
        self.log.loading = true;
        vec![
            Command::Storage(StorageCommand::MeasureCache),
            read_log(snapshot.log_file.clone()),
        ]
    }

    /// A storage answer; returns what to tell the person (a toast) when something ended.
    pub fn handle_storage_event(&mut self, event: StorageEvent) -> Vec<Action> {
        match event {
            StorageEvent::CacheMeasured(result) => {
                self.cache.busy = false;
                self.cache.size = Some(result);
                Vec::new()
            }
            StorageEvent::CacheCleared(result) => {
                self.cache.busy = true;
                let toast = match &result {
                    Ok(done) => (ToastKind::Success, cleared_text(done)),
                    Err(error) => (
                        ToastKind::Error,
                        format!("The cache could not be cleared: {error}."),
                    ),
                };
                // Measure again: in-use files stay, and thumbnails may already be back.
                vec![
                    Action::Toast(toast.0, toast.1),
                    Action::Settings(super::SettingsAction::CacheCleared),
                    Action::Send(Box::new(Command::Storage(StorageCommand::MeasureCache))),
                ]
            }
            StorageEvent::LogTail { result, .. } => {
                self.log.loading = false;
                self.log.lines = Some(result);
                Vec::new()
            }
            StorageEvent::FolderOpenFailed { path, error } => vec![Action::Toast(
                ToastKind::Error,
                format!("Could not open {}: {error}.", path.display()),
            )],
        }
    }
}

fn read_log(log_file: PathBuf) -> Command {
    Command::Storage(StorageCommand::ReadLogTail {
        log_file,
        max_lines: LOG_TAIL_LINES,
    })
}

pub fn cleared_text(done: &CacheCleared) -> String {
    let mut text = format!("Cache cleared: {} freed.", bytes_text(done.freed_bytes));
    if done.kept_files > 0 {
        text.push_str(&format!(
            " {} file{} in use right now stayed.",
            done.kept_files,
            if done.kept_files == 1 { "" } else { "s" }
        ));
    }
    text
}

fn open_action(path: &std::path::Path) -> Action {
    Action::Send(Box::new(Command::Storage(StorageCommand::OpenFolder {
        path: path.to_path_buf(),
    })))
}

pub fn storage_ui(
    ui: &mut Ui,
    snapshot: &SettingsSnapshot,
    form: &mut SettingsForm,
    actions: &mut Vec<Action>,
) {
    widgets::section_label(ui, "Storage");
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        let folders: [(&str, &str, Option<&std::path::Path>); 5] = [
            ("API keys", &snapshot.secret_store, None),
            ("Settings", &snapshot.config_dir, None),
            (
                "Data & journal",
                &snapshot.data_dir,
                Some(&snapshot.paths.data_dir),
            ),
            (
                "Cache",
                &snapshot.cache_dir,
                Some(&snapshot.paths.cache_dir),
            ),
            ("Logs", &snapshot.log_dir, Some(&snapshot.paths.log_dir)),
        ];
        for (key, value, folder) in folders {
            folder_row_ui(ui, key, value, folder, actions);
        }
        ui.add_space(tokens::SPACE_S);
        ui.separator();
        cache_row_ui(ui, form, actions);
        ui.add_space(tokens::SPACE_S);
        cache_limit_ui(ui, snapshot.thumbnail_cache_mb, form, actions);
    });
}

/// The thumbnail cache's size limit: typed in MB, checked as typed, saved when valid (the
/// pipeline applies it at once).
fn cache_limit_ui(ui: &mut Ui, saved_mb: u32, form: &mut SettingsForm, actions: &mut Vec<Action>) {
    let label = "Thumbnail cache limit (MB); the least recently seen thumbnails go first";
    widgets::section_label(ui, label);
    let input = form
        .cache_limit_input
        .get_or_insert_with(|| saved_mb.to_string());
    let response = ui.add(egui::TextEdit::singleline(input).desired_width(120.0));
    widgets::name_widget(&response, "Thumbnail cache limit in MB");
    if response.lost_focus() || response.changed() {
        match parse_cache_limit_mb(input) {
            Ok(mb) => {
                form.cache_limit_error = None;
                if mb != saved_mb {
                    actions.push(Action::Settings(
                        super::SettingsAction::SetThumbnailCacheMb(mb),
                    ));
                }
            }
            Err(message) => form.cache_limit_error = Some(message),
        }
    }
    if let Some(error) = &form.cache_limit_error {
        widgets::field_error(ui, error);
    }
}

/// A cache limit as typed: a whole number of MB within the supported range.
pub fn parse_cache_limit_mb(text: &str) -> Result<u32, String> {
    use crate::media::thumb_cache::{MAX_BUDGET_MB, MIN_BUDGET_MB};
    match text.trim().replace([',', '_', ' '], "").parse::<u32>() {
        Ok(mb) if (MIN_BUDGET_MB..=MAX_BUDGET_MB).contains(&mb) => Ok(mb),
        _ => Err(format!(
            "Enter a whole number of MB from {MIN_BUDGET_MB} to {MAX_BUDGET_MB}."
        )),
    }
}

/// Height of the log's scroll area (about 20 lines).
const LOG_VIEW_HEIGHT_PT: f32 = 300.0;
/// Width of the row names ("Data & journal") and of the Open button's column.
const KEY_WIDTH_PT: f32 = 110.0;
const OPEN_WIDTH_PT: f32 = 56.0;

/// "Cache   /home/…/cache   Open": the path wraps in the middle at any window width.
fn folder_row_ui(
    ui: &mut Ui,
    key: &str,
    value: &str,
    folder: Option<&std::path::Path>,
    actions: &mut Vec<Action>,
) {
    ui.horizontal_top(|ui| {
        let spacing = ui.spacing().item_spacing.x;
        ui.allocate_ui(egui::vec2(KEY_WIDTH_PT, 0.0), |ui| {
            ui.set_min_width(KEY_WIDTH_PT);
            ui.label(
                RichText::new(key)
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_faint),
            );
        });
        let path_width = (ui.available_width() - OPEN_WIDTH_PT - spacing).max(80.0);
        ui.allocate_ui(egui::vec2(path_width, 0.0), |ui| {
            ui.set_min_width(path_width);
            ui.add(
                egui::Label::new(
                    RichText::new(value)
                        .monospace()
                        .color(tokens::palette().text_muted),
                )
                .wrap(),
            );
        });
        if let Some(path) = folder {
            let name = format!("Open the {} folder", key.to_lowercase());
            let button = ui.add(widgets::subtle_button("Open")).on_hover_text(&name);
            widgets::name_widget(&button, &name);
            if button.clicked() {
                actions.push(open_action(path));
            }
        }
    });
    ui.add_space(tokens::SPACE_XS);
}

fn cache_row_ui(ui: &mut Ui, form: &SettingsForm, actions: &mut Vec<Action>) {
    ui.horizontal_wrapped(|ui| {
        let text = match &form.cache.size {
            _ if form.cache.busy => "Cache: measuring…".to_owned(),
            Some(Ok(size)) => format!(
                "Cache: {} in {} file{}",
                bytes_text(size.bytes),
                size.files,
                if size.files == 1 { "" } else { "s" }
            ),
            Some(Err(error)) => format!("Cache size unknown: {error}"),
            None => "Cache: not measured yet".to_owned(),
        };
        ui.label(RichText::new(text).color(tokens::palette().text));
        let bytes = match &form.cache.size {
            Some(Ok(size)) => Some(size.bytes),
            _ => None,
        };
        let clear = ui
            .add_enabled(
                !form.cache.busy && bytes != Some(0),
                widgets::secondary_button("Clear cache…"),
            )
            .on_hover_text(
                "Deletes downloaded previews and thumbnails; they are fetched again when needed",
            );
        if clear.clicked() {
            actions.push(Action::Ask(Confirm::ClearCache { bytes }));
        }
    });
}

/// The confirmation's body for clearing the cache.
pub fn clear_cache_body(bytes: Option<u64>) -> String {
    let size = bytes.map_or_else(
        || "Everything".to_owned(),
        |b| format!("{} of", bytes_text(b)),
    );
    format!(
        "{size} downloaded previews, thumbnails and opened files are deleted from this \
         computer. Your results stay on the service and in the library; they download again \
         when you look at them."
    )
}

pub fn log_ui(
    ui: &mut Ui,
    snapshot: &SettingsSnapshot,
    form: &SettingsForm,
    actions: &mut Vec<Action>,
) {
    egui::CollapsingHeader::new(RichText::new("Log").strong().color(tokens::palette().text))
        .id_salt("settings_log")
        .default_open(false)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                widgets::muted(
                    ui,
                    format!(
                        "The last {LOG_TAIL_LINES} lines of {}",
                        snapshot.log_file.display()
                    ),
                );
            });
            ui.horizontal(|ui| {
                if ui
                    .add_enabled(!form.log.loading, widgets::secondary_button("Refresh log"))
                    .clicked()
                {
                    actions.push(Action::Send(Box::new(read_log(snapshot.log_file.clone()))));
                }
                let open = ui.add(widgets::subtle_button("Open log folder"));
                if open.clicked() {
                    actions.push(open_action(&snapshot.paths.log_dir));
                }
            });
            let text = match &form.log.lines {
                None => "Loading…".to_owned(),
                Some(Err(error)) => format!("The log could not be read: {error}"),
                Some(Ok(lines)) if lines.is_empty() => "The log is empty.".to_owned(),
                Some(Ok(lines)) => lines.join("\n"),
            };
            tokens::card_frame().show(ui, |ui| {
                ui.set_width(ui.available_width());
                egui::ScrollArea::both()
                    .id_salt("settings_log_lines")
                    .max_height(LOG_VIEW_HEIGHT_PT)
                    .min_scrolled_height(LOG_VIEW_HEIGHT_PT)
                    .stick_to_bottom(true)
                    .auto_shrink([false, true])
                    .show(ui, |ui| {
                        ui.add(
                            egui::Label::new(
                                RichText::new(text)
                                    .monospace()
                                    .size(tokens::TEXT_SMALL)
                                    .color(tokens::palette().text_muted),
                            )
                            .extend(),
                        );
                    });
            });
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_limit_is_a_whole_number_of_mb_in_range() {
        assert_eq!(parse_cache_limit_mb(" 1,024 "), Ok(1024));
        assert_eq!(parse_cache_limit_mb("512"), Ok(512));
        assert!(parse_cache_limit_mb("0").is_err());
        assert!(parse_cache_limit_mb("9").is_err());
        assert!(parse_cache_limit_mb("-5").is_err());
        assert!(parse_cache_limit_mb("2.5").is_err());
        assert!(parse_cache_limit_mb("lots").is_err());
        assert!(parse_cache_limit_mb("").is_err());
    }

    #[test]
    fn sizes_read_like_a_file_manager() {
        assert_eq!(bytes_text(0), "0 bytes");
        assert_eq!(bytes_text(812_000), "812 KB");
        assert_eq!(bytes_text(1_400_000), "1.4 MB");
        let done = CacheCleared {
            freed_bytes: 2_500_000,
            removed_files: 4,
            kept_files: 1,
        };
        assert_eq!(
            cleared_text(&done),
            "Cache cleared: 2.5 MB freed. 1 file in use right now stayed."
        );
    }
}
