//! Answers as Markdown: prose through egui_commonmark, fenced code blocks drawn here as a
//! monospace block with a named "Copy code" button (egui_commonmark's own copy icon is a
//! glyph the studio's fonts do not have, and it has no accessible name).

use crate::ui::model::Action;
use crate::ui::{tokens, widgets};
use egui::{RichText, Ui};
use egui_commonmark::{CommonMarkCache, CommonMarkViewer};

/// A run of an answer: Markdown prose, or one fenced code block.
#[derive(Debug, PartialEq, Eq)]
pub enum Segment<'a> {
    Prose(&'a str),
    Code { language: &'a str, code: String },
}

/// Splits `text` at its top-level fenced code blocks (``` or ~~~, three or more). An
/// unclosed fence runs to the end, as CommonMark reads it.
pub fn segments(text: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let mut prose_start = 0;
    let mut offset = 0;
    let mut fence: Option<(char, usize, &str, Vec<&str>)> = None;
    for line in text.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        let trimmed = line.trim_end_matches(['\n', '\r']);
        let unindented = trimmed.trim_start_matches(' ');
        let indent = trimmed.len() - unindented.len();
        match &mut fence {
            None => {
                if let Some((marker, count)) = fence_marker(unindented).filter(|_| indent < 4) {
                    let info = unindented[count..].trim();
                    if marker == '`' && info.contains('`') {
                        continue; // not a fence: an inline code span
                    }
                    if line_start > prose_start {
                        out.push(Segment::Prose(&text[prose_start..line_start]));
                    }
                    let language = info.split_whitespace().next().unwrap_or("");
                    fence = Some((marker, count, language, Vec::new()));
                }
            }
            Some((marker, count, language, lines)) => {
                let closes = fence_marker(unindented).is_some_and(|(m, n)| {
                    m == *marker && n >= *count && unindented[n..].trim().is_empty()
                }) && indent < 4;
                if closes {
                    out.push(Segment::Code {
                        language,
                        code: lines.join("\n"),
                    });
                    fence = None;
                    prose_start = offset;
                } else {
                    lines.push(trimmed);
                }
            }
        }
    }
    match fence {
        Some((_, _, language, lines)) => out.push(Segment::Code {
            language,
            code: lines.join("\n"),
        }),
        None if prose_start < text.len() => out.push(Segment::Prose(&text[prose_start..])),
        None => {}
    }
    out
}

/// ``` or ~~~ (three or more) at the start of a line: the character and the count.
fn fence_marker(line: &str) -> Option<(char, usize)> {
    let marker = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let count = line.chars().take_while(|c| *c == marker).count();
    (count >= 3).then_some((marker, count))
}

/// Shows `text` (an answer) under `key`; a code block's Copy button becomes an action.
pub fn answer_ui(
    ui: &mut Ui,
    cache: &mut CommonMarkCache,
    key: &str,
    text: &str,
    actions: &mut Vec<Action>,
) {
    for (index, segment) in segments(text).into_iter().enumerate() {
        ui.push_id((key, index), |ui| match segment {
            Segment::Prose(prose) => {
                CommonMarkViewer::new().show(ui, cache, prose);
            }
            Segment::Code { language, code } => code_block_ui(ui, language, code, actions),
        });
    }
}

fn code_block_ui(ui: &mut Ui, language: &str, code: String, actions: &mut Vec<Action>) {
    egui::Frame::new()
        .fill(tokens::BG_APP)
        .stroke(egui::Stroke::new(1.0, tokens::BORDER))
        .corner_radius(egui::CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::symmetric(10, 8))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal(|ui| {
                if !language.is_empty() {
                    ui.label(
                        RichText::new(language)
                            .size(tokens::TEXT_SMALL)
                            .color(tokens::TEXT_FAINT),
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
                        .color(tokens::TEXT),
                )
                .wrap(),
            );
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_are_cut_out_of_the_prose() {
        let text = "Intro with `inline` code.\n\n```python\nprint(1)\n\nprint(2)\n```\nAfter.\n~~~~\nraw\n~~~~";
        assert_eq!(
            segments(text),
            vec![
                Segment::Prose("Intro with `inline` code.\n\n"),
                Segment::Code {
                    language: "python",
                    code: "print(1)\n\nprint(2)".into()
                },
                Segment::Prose("After.\n"),
                Segment::Code {
                    language: "",
                    code: "raw".into()
                },
            ]
        );
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end_and_plain_text_is_one_run() {
        assert_eq!(
            segments("a\n```rust\nfn main() {}\n"),
            vec![
                Segment::Prose("a\n"),
                Segment::Code {
                    language: "rust",
                    code: "fn main() {}".into()
                }
            ]
        );
        assert_eq!(segments("just text"), vec![Segment::Prose("just text")]);
        assert_eq!(segments(""), Vec::<Segment<'_>>::new());
        // A shorter or different marker does not close the block.
        assert_eq!(
            segments("````\n```\n~~~\n````"),
            vec![Segment::Code {
                language: "",
                code: "```\n~~~".into()
            }]
        );
    }
}
