//! The Markdown editor: a toolbar whose buttons (and Ctrl+B / Ctrl+I / Ctrl+K while the
//! editor has focus) act on the editor's selection through `markup::edit`, a monospace
//! multi-line text field, and the live preview (`ui::formatted_text`: bold in the bold face,
//! table headers set apart) beside it — or below it in a narrow window. The preview renders
//! the document as the service will keep it (`DocDraft::preview`), so what it shows is what
//! a save, a reopen or the share page shows; what is dropped is named by the notice above.

use super::state::DocDraft;
use crate::markup::edit::{self, Format};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::text::{CCursor, CCursorRange};
use egui::{Key, Modifiers, RichText, TextEdit, Ui};

/// Below this width the preview goes under the editor instead of beside it.
pub const SIDE_BY_SIDE_MIN_WIDTH: f32 = 760.0;
/// The gap between editor and preview.
const GAP: f32 = 12.0;

/// The Markdown text field's id (its cursor state is read and written through it).
pub fn editor_id() -> egui::Id {
    egui::Id::unique("docs_markdown_editor")
}

/// The toolbar; the format of the button pressed, if any.
pub fn toolbar_ui(ui: &mut Ui, enabled: bool) -> Option<Format> {
    let mut pressed = None;
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        for format in Format::ALL {
            let text = match format {
                Format::Bold => RichText::new(format.label()).strong(),
                Format::Italic => RichText::new(format.label()).italics(),
                _ => RichText::new(format.label()),
            };
            let response = ui
                .add_enabled(
                    enabled,
                    egui::Button::new(text.color(tokens::palette().text))
                        .fill(tokens::palette().bg_elevated)
                        .min_size(egui::vec2(30.0, 26.0)),
                )
                .on_hover_text(format.hint())
                .accessible_name(format.name());
            if response.clicked() {
                pressed = Some(format);
            }
            if matches!(format, Format::Heading(3) | Format::Link | Format::Quote) {
                ui.add_space(6.0);
            }
        }
    });
    pressed
}

/// Ctrl+B / Ctrl+I / Ctrl+K while the editor has the keyboard focus (consumed, so the
/// text field never sees them).
pub fn shortcut_format(ui: &Ui) -> Option<Format> {
    if !ui.memory(|m| m.has_focus(editor_id())) {
        return None;
    }
    ui.input_mut(|i| {
        [
            (Key::B, Format::Bold),
            (Key::I, Format::Italic),
            (Key::K, Format::Link),
        ]
        .into_iter()
        .find(|(key, _)| i.consume_key(Modifiers::COMMAND, *key))
        .map(|(_, format)| format)
    })
}

/// Apply `format` to the editor's selection (the cursor at the end when it never had
/// one), select what `markup::edit` says, and give the editor the focus back.
pub fn apply_format(ui: &Ui, markdown: &mut String, format: Format) {
    let ctx = ui.ctx();
    let id = editor_id();
    let mut state = TextEdit::load_state(ctx, id).unwrap_or_default();
    let chars = markdown.chars().count();
    let selection = state
        .cursor
        .char_range()
        .map(|range| range.secondary.index.0..range.primary.index.0)
        .unwrap_or(chars..chars);
    let edited = edit::apply(markdown, selection, format);
    *markdown = edited.text;
    state.cursor.set_char_range(Some(CCursorRange::two(
        CCursor::new(edited.selection.start),
        CCursor::new(edited.selection.end),
    )));
    TextEdit::store_state(ctx, id, state);
    ctx.memory_mut(|m| m.request_focus(id));
}

/// The editor and the preview in the space left. Returns whether the text changed.
pub fn editor_and_preview_ui(ui: &mut Ui, draft: &mut DocDraft, enabled: bool) -> bool {
    let available = ui.available_size();
    let side_by_side = available.x >= SIDE_BY_SIDE_MIN_WIDTH;
    let (pane, second_at) = if side_by_side {
        let width = (available.x - GAP) / 2.0;
        (egui::vec2(width, available.y), egui::vec2(width + GAP, 0.0))
    } else {
        let height = ((available.y - GAP) / 2.0).max(120.0);
        (
            egui::vec2(available.x, height),
            egui::vec2(0.0, height + GAP),
        )
    };
    let origin = ui.cursor().min;
    let editor_rect = egui::Rect::from_min_size(origin, pane);
    let preview_rect = egui::Rect::from_min_size(origin + second_at, pane);
    let mut changed = false;
    ui.scope_builder(egui::UiBuilder::new().max_rect(editor_rect), |ui| {
        changed = markdown_pane_ui(ui, draft, enabled);
    });
    ui.scope_builder(egui::UiBuilder::new().max_rect(preview_rect), |ui| {
        preview_pane_ui(ui, &draft.preview);
    });
    ui.allocate_rect(editor_rect.union(preview_rect), egui::Sense::hover());
    changed
}

fn pane_frame() -> egui::Frame {
    egui::Frame::new()
        .fill(tokens::palette().bg_surface)
        .stroke(egui::Stroke::new(1.0, tokens::palette().border))
        .corner_radius(egui::CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::same(10))
}

fn pane_caption(ui: &mut Ui, text: &str) {
    ui.label(
        RichText::new(text)
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_faint)
            .strong(),
    );
}

fn markdown_pane_ui(ui: &mut Ui, draft: &mut DocDraft, enabled: bool) -> bool {
    let height = ui.available_height();
    let mut changed = false;
    pane_frame().show(ui, |ui| {
        ui.set_min_size(ui.available_size());
        pane_caption(ui, "MARKDOWN");
        egui::ScrollArea::vertical()
            .id_salt("docs_markdown_scroll")
            .auto_shrink([false, false])
            .max_height(height - 44.0)
            .show(ui, |ui| {
                let rows = ((height - 60.0) / 17.0).max(4.0) as usize;
                let response = ui.add_enabled(
                    enabled,
                    TextEdit::multiline(&mut draft.markdown)
                        .id(editor_id())
                        .font(egui::TextStyle::Monospace)
                        .desired_width(f32::INFINITY)
                        .desired_rows(rows)
                        .frame(egui::Frame::NONE)
                        .hint_text("Write in Markdown: # Heading, **bold**, - list, | table |…"),
                );
                widgets::name_widget(&response, "Markdown");
                changed = response.changed();
            });
    });
    changed
}

fn preview_pane_ui(ui: &mut Ui, markdown: &str) {
    let height = ui.available_height();
    pane_frame().show(ui, |ui| {
        ui.set_min_size(ui.available_size());
        pane_caption(ui, "PREVIEW · AS SAVED");
        egui::ScrollArea::vertical()
            .id_salt("docs_preview_scroll")
            .auto_shrink([false, false])
            .max_height(height - 44.0)
            .show(ui, |ui| {
                if markdown.trim().is_empty() {
                    widgets::muted(ui, "The formatted document appears here as you write.");
                } else {
                    crate::ui::formatted_text::show(ui, markdown);
                }
            });
    });
}
