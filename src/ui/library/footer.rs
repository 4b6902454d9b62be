//! The footer: how many items the view shows (the whole library's counts by type and
//! size in All media, where they are the same thing) and the keys that work here.

use super::detail::human_bytes;
use super::{LibraryState, Place, Section};
use crate::api::media::MediaTypeFilter;
use crate::ui::format;
use crate::ui::tokens;
use egui::{RichText, Ui};

/// Room kept between the counts and the hints.
const GAP_PT: f32 = 24.0;
/// The hints' last resort: one word whose tooltip lists them all.
const SHORTCUTS: &str = "Shortcuts";

pub fn footer_ui(ui: &mut Ui, state: &LibraryState) {
    let small = |text: &str| {
        RichText::new(text)
            .size(12.0)
            .color(tokens::palette().text_faint)
    };
    let font = egui::FontId::proportional(12.0);
    let painter = ui.painter().clone();
    let width_of = |text: &str| {
        painter
            .layout_no_wrap(text.to_owned(), font.clone(), egui::Color32::WHITE)
            .size()
            .x
    };
    // Whole words only: the counts drop their last parts, the hints shorten, and in the
    // end the hints become one word with a tooltip. The counts come first.
    let available = ui.available_width();
    let shortcuts_w = width_of(SHORTCUTS) + GAP_PT;
    let parts = counts(state);
    let counts_text = (1..=parts.len())
        .rev()
        .map(|n| counts_prefix(&parts, n))
        .find(|text| width_of(text) + shortcuts_w <= available)
        .unwrap_or_default();
    let room = available - width_of(&counts_text) - GAP_PT;
    let variants = hint_variants(state);
    let hint = variants.iter().find(|text| width_of(text) <= room);
    ui.horizontal_centered(|ui| {
        ui.spacing_mut().item_spacing.x = tokens::SPACE_S;
        ui.label(small(&counts_text));
        ui.with_layout(
            egui::Layout::right_to_left(egui::Align::Center),
            |ui| match hint {
                Some(text) => {
                    let label = ui.add(egui::Label::new(small(text)).sense(egui::Sense::hover()));
                    if *text != variants[0] {
                        label.on_hover_text(variants[0]);
                    }
                }
                None if room >= width_of(SHORTCUTS) => {
                    ui.add(egui::Label::new(small(SHORTCUTS)).sense(egui::Sense::hover()))
                        .on_hover_text(variants[0]);
                }
                None => {}
            },
        );
    });
}

/// The first `n` parts of the counts, without a dangling separator.
fn counts_prefix(parts: &[String], n: usize) -> String {
    let mut shown: Vec<&str> = parts.iter().take(n).map(String::as_str).collect();
    while shown.last() == Some(&"·") {
        shown.pop();
    }
    shown.join("  ")
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

/// The keys that work here, longest first; each shorter one keeps whole words.
pub fn hint_variants(state: &LibraryState) -> [&'static str; 3] {
    if state.in_trash() {
        [
            "Click, Ctrl+click, Shift+click to select · Del delete forever · R restore",
            "Del delete forever · R restore",
            "Del · R",
        ]
    } else {
        [
            "Click, Ctrl+click, Shift+click to select · Enter open · Del trash · F favourite \
             · Ctrl+O upload",
            "Enter open · Del trash · F favourite",
            "Enter · Del · F",
        ]
    }
}
