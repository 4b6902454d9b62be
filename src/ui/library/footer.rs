//! The footer: how many items the view shows (the whole library's counts by type and
//! size in All media, where they are the same thing) and the keys that work here.

use super::detail::human_bytes;
use super::{LibraryState, Place, Section};
use crate::api::media::MediaTypeFilter;
use crate::ui::format;
use crate::ui::tokens;
use egui::{RichText, Ui};

pub fn footer_ui(ui: &mut Ui, state: &LibraryState) {
    ui.horizontal_centered(|ui| {
        ui.spacing_mut().item_spacing.x = tokens::SPACE_S;
        let small = |text: String| {
            RichText::new(text)
                .size(12.0)
                .color(tokens::palette().text_faint)
        };
        let counts = counts(state).join("  ");
        ui.add(egui::Label::new(small(counts)).truncate());
        // The hints only where they fit beside the counts; the counts come first.
        if ui.available_width() > 220.0 {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                ui.add(egui::Label::new(small(hints(state).to_owned())).truncate());
            });
        }
    });
}

/// The footer's counts, as separate parts joined by dots.
pub fn counts(state: &LibraryState) -> Vec<String> {
    let whole_library = state.place == Place::Section(Section::All)
        && state.type_filter == MediaTypeFilter::All
        && state.applied_search.trim().is_empty();
    if whole_library {
        return match state.stats.value.as_ref() {
            Some(stats) => {
                let n = |v: Option<u64>| format::thousands(v.unwrap_or(0) as f64);
                vec![
                    format!("{} images", n(stats.images)),
                    "·".to_owned(),
                    format!("{} videos", n(stats.videos)),
                    "·".to_owned(),
                    format!("{} audio", n(stats.audio)),
                    "·".to_owned(),
                    format!("{} total", n(stats.total)),
                    "·".to_owned(),
                    human_bytes(stats.total_size_bytes.unwrap_or(0)),
                ]
            }
            None if state.stats.error.is_some() => {
                vec!["Library statistics unavailable".to_owned()]
            }
            None => vec!["Counting…".to_owned()],
        };
    }
    if !state.items.first_page_done() {
        return vec!["Counting…".to_owned()];
    }
    if state.items.error().is_some() {
        return Vec::new();
    }
    let n = state.items.len();
    let items = format!(
        "{} {}",
        format::thousands(n as f64),
        if n == 1 { "item" } else { "items" }
    );
    let place = match &state.place {
        Place::Section(Section::Trash) => "in the trash".to_owned(),
        Place::Section(Section::All) => "shown".to_owned(),
        Place::Section(section) => format!("in {}", section.label()),
        Place::Folder(_) => match state.current_folder() {
            Some(folder) => format!("in “{}”", folder.name),
            None => "in this folder".to_owned(),
        },
    };
    let mut text = format!("{items} {place}");
    if !state.applied_search.trim().is_empty() || state.type_filter != MediaTypeFilter::All {
        text.push_str(" (filtered)");
    }
    vec![text]
}

pub fn hints(state: &LibraryState) -> &'static str {
    if state.in_trash() {
        "Click, Ctrl+click, Shift+click to select · Del delete forever · R restore"
    } else {
        "Click, Ctrl+click, Shift+click to select · Enter open · Del trash · F favourite"
    }
}
