//! Markdown drawn with the studio's own type: the document preview and chat replies.
//! `markup::blocks` parses; this draws. Bold runs and headings use the bold face
//! ([`fonts::bold`]), a table's header row is bold on a tinted band above a rule, quotes
//! have a bar, links open in the browser.
//!
//! Each run of text is its own label in a wrapping row (so a paragraph wraps as one and
//! can be selected across runs), which also makes every run findable by its text.

use crate::markup::blocks::{self, Block, Inline, ListItem, Run};
use crate::ui::fonts;
use crate::ui::tokens;
use egui::{RichText, Stroke, Ui};

/// Space between paragraphs, lists, tables.
const BLOCK_GAP: f32 = 10.0;
/// Left indent of a list's items and of a quote's text.
const INDENT: f32 = 18.0;
/// Padding of a table cell.
const CELL_PADDING_X: f32 = 10.0;
const CELL_PADDING_Y: f32 = 4.0;

/// Draw `markdown`.
pub fn show(ui: &mut Ui, markdown: &str) {
    let blocks = blocks::parse(markdown);
    ui.vertical(|ui| {
        ui.spacing_mut().item_spacing.y = BLOCK_GAP;
        // Rows as tall as their text (a row is otherwise at least a button's height).
        ui.spacing_mut().interact_size.y = 0.0;
        blocks_ui(ui, &blocks, 0);
    });
}

/// The size of a heading at `level` (1 largest).
pub fn heading_size(level: u8) -> f32 {
    match level {
        1 => tokens::TEXT_HEADING,
        2 => tokens::TEXT_TITLE + 2.0,
        3 => tokens::TEXT_TITLE,
        _ => tokens::TEXT_BODY + 1.0,
    }
}

fn blocks_ui(ui: &mut Ui, blocks: &[Block], depth: usize) {
    for (index, block) in blocks.iter().enumerate() {
        // A heading sits closer to what it heads than to what came before.
        if let Block::Heading { level, .. } = block
            && index > 0
        {
            ui.add_space(if *level <= 2 { 8.0 } else { 4.0 });
        }
        ui.push_id(index, |ui| block_ui(ui, block, depth));
    }
}

fn block_ui(ui: &mut Ui, block: &Block, depth: usize) {
    match block {
        Block::Heading { level, text } => inline_ui(ui, text, Some(heading_size(*level)), true),
        Block::Paragraph(text) => inline_ui(ui, text, None, false),
        Block::List { start, items } => list_ui(ui, *start, items, depth),
        Block::Quote(inner) => quote_ui(ui, inner, depth),
        Block::Code(code) => code_ui(ui, code),
        Block::Table { header, rows, .. } => table_ui(ui, header, rows),
        Block::Rule => {
            ui.separator();
        }
    }
}

fn run_text(run: &Run, size: Option<f32>, heading: bool) -> RichText {
    let mut text = RichText::new(&run.text);
    if let Some(size) = size {
        text = text.size(size);
    }
    if run.style.bold || heading {
        text = text.family(fonts::bold());
    }
    if run.style.italic {
        text = text.italics();
    }
    if run.style.strikethrough {
        text = text.strikethrough();
    }
    if run.style.code {
        text = text.code();
    }
    // Links keep the hyperlink colour.
    if run.link.is_none() {
        text = text.color(tokens::palette().text);
    }
    text
}

/// One paragraph, heading or cell: its runs in a wrapping row.
fn inline_ui(ui: &mut Ui, text: &Inline, size: Option<f32>, bold: bool) {
    ui.horizontal_wrapped(|ui| runs_ui(ui, text, size, bold));
}

fn runs_ui(ui: &mut Ui, text: &Inline, size: Option<f32>, bold: bool) {
    ui.spacing_mut().item_spacing.x = 0.0;
    for run in text {
        let rich = run_text(run, size, bold);
        match &run.link {
            Some(url) => {
                ui.hyperlink_to(rich, url).on_hover_text(url);
            }
            None => {
                ui.label(rich);
            }
        }
    }
}

fn list_ui(ui: &mut Ui, start: Option<u64>, items: &[ListItem], depth: usize) {
    for (index, item) in items.iter().enumerate() {
        let marker = match start {
            Some(first) => format!("{}.", first + index as u64),
            None if depth.is_multiple_of(2) => "•".to_owned(),
            None => "◦".to_owned(),
        };
        ui.push_id(index, |ui| {
            ui.horizontal_top(|ui| {
                ui.spacing_mut().item_spacing.x = 4.0;
                let (rect, _) = ui.allocate_exact_size(
                    egui::vec2(INDENT, ui.text_style_height(&egui::TextStyle::Body)),
                    egui::Sense::hover(),
                );
                match item.checked {
                    Some(checked) => task_box(ui.painter(), rect, checked),
                    None => {
                        ui.painter().text(
                            rect.right_center() - egui::vec2(4.0, 0.0),
                            egui::Align2::RIGHT_CENTER,
                            marker,
                            egui::TextStyle::Body.resolve(ui.style()),
                            tokens::palette().text_muted,
                        );
                    }
                }
                ui.vertical(|ui| {
                    ui.spacing_mut().item_spacing.y = tokens::SPACE_XS;
                    blocks_ui(ui, &item.blocks, depth + 1);
                });
            });
        });
    }
}

/// A task list item's box, ticked or not (drawn: the fonts have no ballot-box glyphs).
fn task_box(painter: &egui::Painter, row: egui::Rect, checked: bool) {
    let side = 11.0;
    let square = egui::Rect::from_center_size(
        egui::pos2(row.right() - 4.0 - side / 2.0, row.center().y),
        egui::vec2(side, side),
    );
    let radius = egui::CornerRadius::same(2);
    if checked {
        painter.rect_filled(square, radius, tokens::palette().accent);
        let stroke = Stroke::new(1.6, tokens::palette().on_accent);
        let at = |x: f32, y: f32| square.min + egui::vec2(x * side, y * side);
        painter.line_segment([at(0.2, 0.52), at(0.42, 0.74)], stroke);
        painter.line_segment([at(0.42, 0.74), at(0.8, 0.28)], stroke);
    } else {
        painter.rect_stroke(
            square,
            radius,
            Stroke::new(1.2, tokens::palette().text_muted),
            egui::StrokeKind::Inside,
        );
    }
}

fn quote_ui(ui: &mut Ui, inner: &[Block], depth: usize) {
    let response = ui.horizontal_top(|ui| {
        ui.add_space(INDENT - 4.0);
        ui.vertical(|ui| blocks_ui(ui, inner, depth));
    });
    let rect = response.response.rect;
    ui.painter().line_segment(
        [
            rect.left_top() + egui::vec2(3.0, 0.0),
            rect.left_bottom() + egui::vec2(3.0, 0.0),
        ],
        Stroke::new(3.0, tokens::palette().border_strong),
    );
}

fn code_ui(ui: &mut Ui, code: &str) {
    egui::Frame::new()
        .fill(tokens::palette().bg_elevated)
        .stroke(Stroke::new(1.0, tokens::palette().border))
        .corner_radius(egui::CornerRadius::same(tokens::RADIUS_S))
        .inner_margin(egui::Margin::symmetric(10, 8))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.label(
                RichText::new(code)
                    .monospace()
                    .color(tokens::palette().text),
            );
        });
}

/// A table: the header row bold on a tinted band with a rule under it, then the rows. A
/// table wider than the space scrolls sideways.
fn table_ui(ui: &mut Ui, header: &[Inline], rows: &[Vec<Inline>]) {
    egui::ScrollArea::horizontal()
        .auto_shrink([true, true])
        .show(ui, |ui| {
            ui.add_space(CELL_PADDING_Y);
            ui.horizontal(|ui| {
                ui.add_space(CELL_PADDING_X);
                grid_ui(ui, header, rows);
                ui.add_space(CELL_PADDING_X);
            });
            ui.add_space(CELL_PADDING_Y);
        });
}

fn grid_ui(ui: &mut Ui, header: &[Inline], rows: &[Vec<Inline>]) {
    // The band is painted under the header once its height is known.
    let band = ui.painter().add(egui::Shape::Noop);
    let mut header_bottom = f32::NEG_INFINITY;
    let grid = egui::Grid::new("table")
        .spacing(egui::vec2(2.0 * CELL_PADDING_X, 2.0 * CELL_PADDING_Y))
        .show(ui, |ui| {
            for cell in header {
                let response = ui.horizontal(|ui| runs_ui(ui, cell, None, true)).response;
                header_bottom = header_bottom.max(response.rect.bottom());
            }
            ui.end_row();
            for row in rows {
                for cell in row {
                    ui.horizontal(|ui| runs_ui(ui, cell, None, false));
                }
                ui.end_row();
            }
        });
    if header_bottom.is_finite() {
        let table = grid
            .response
            .rect
            .expand2(egui::vec2(CELL_PADDING_X, CELL_PADDING_Y));
        let rule_y = header_bottom + CELL_PADDING_Y;
        let head = egui::Rect::from_min_max(table.min, egui::pos2(table.max.x, rule_y));
        ui.painter().set(
            band,
            egui::Shape::rect_filled(
                head,
                egui::CornerRadius::same(tokens::RADIUS_S),
                tokens::palette().bg_elevated,
            ),
        );
        ui.painter().hline(
            table.x_range(),
            rule_y,
            Stroke::new(1.0, tokens::palette().border_strong),
        );
    }
}
