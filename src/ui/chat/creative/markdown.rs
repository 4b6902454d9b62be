//! Answers as Markdown: prose through `ui::formatted_text`, fenced code blocks (split out by
//! the Chat view's `markdown::split_segments`) drawn here as a monospace block with a named "Copy code" button (egui_commonmark's own copy icon is a
//! glyph the studio's fonts do not have, and it has no accessible name).

use crate::ui::chat::markdown::{Segment, split_segments};
use crate::ui::model::Action;
use crate::ui::{tokens, widgets};
use egui::{RichText, Ui};

/// Shows `text` (an answer) under `key`; a code block's Copy button becomes an action.
pub fn answer_ui(ui: &mut Ui, key: &str, text: &str, actions: &mut Vec<Action>) {
    for (index, segment) in split_segments(text).into_iter().enumerate() {
        ui.push_id((key, index), |ui| match segment {
            Segment::Markdown(prose) => {
                crate::ui::formatted_text::show(ui, &prose);
            }
            Segment::Code { lang, code, .. } => {
                code_block_ui(ui, lang.as_deref().unwrap_or(""), code, actions);
            }
        });
    }
}

fn code_block_ui(ui: &mut Ui, language: &str, code: String, actions: &mut Vec<Action>) {
    egui::Frame::new()
        .fill(tokens::palette().bg_app)
        .stroke(egui::Stroke::new(1.0, tokens::palette().border))
        .corner_radius(egui::CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::symmetric(10, 8))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal(|ui| {
                if !language.is_empty() {
                    ui.label(
                        RichText::new(language)
                            .size(tokens::TEXT_SMALL)
                            .color(tokens::palette().text_faint),
                    );
                }
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    let copy = ui
                        .add(widgets::subtle_button("Copy code").small())
                        .on_hover_text("Copy this code block");
                    if copy.clicked() {
                        actions.push(Action::CopyText {
                            text: code.clone(),
                            what: "Code".to_owned(),
                        });
                    }
                });
            });
            ui.add(
                egui::Label::new(
                    RichText::new(&code)
                        .monospace()
                        .size(tokens::TEXT_MONO)
                        .color(tokens::palette().text),
                )
                .wrap(),
            );
        });
}
