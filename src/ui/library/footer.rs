//! The footer: the stats route's counts and total size.

use super::LibraryState;
use super::detail::human_bytes;
use crate::ui::format;
use crate::ui::tokens;
use egui::{RichText, Ui};

pub fn footer_ui(ui: &mut Ui, state: &LibraryState) {
    ui.horizontal_centered(|ui| {
        ui.spacing_mut().item_spacing.x = tokens::SPACE_S;
        let small = |text: String| RichText::new(text).size(12.0).color(tokens::TEXT_FAINT);
        match state.stats.value.as_ref() {
            Some(stats) => {
                let n = |v: Option<u64>| format::thousands(v.unwrap_or(0) as f64);
                ui.label(small(format!("{} images", n(stats.images))));
                ui.label(small("·".to_owned()));
                ui.label(small(format!("{} videos", n(stats.videos))));
                ui.label(small("·".to_owned()));
                ui.label(small(format!("{} audio", n(stats.audio))));
                ui.label(small("·".to_owned()));
                ui.label(small(format!("{} total", n(stats.total))));
                ui.label(small("·".to_owned()));
                ui.label(small(human_bytes(stats.total_size_bytes.unwrap_or(0))));
            }
            None if state.stats.error.is_some() => {
                ui.label(small("Library statistics unavailable".to_owned()));
            }
            None => {
                ui.label(small("Counting…".to_owned()));
            }
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.label(small(
                "Click, Ctrl+click, Shift+click to select · Del trash · F favourite".to_owned(),
            ));
        });
    });
}
