//! The message view, virtualised: only the rows in the viewport are laid out, each at the
//! top edge given by the heights measured before (or estimated); the rest of the scroll
//! area is empty space of the right height. Measured heights are kept per (message index,
//! width), so scrolling a conversation of thousands of messages lays out a handful.
//!
//! User messages are right-aligned bubbles (text and image thumbnails); assistant replies
//! are Markdown (`ui::formatted_text`) with their fenced code drawn here, each block with a
//! Copy button that goes through the app's clipboard. Under a reply: its cost (tokens on
//! hover), or that it was stopped or failed.

use super::markdown::Segment;
use super::rows::{self, HeightCache};
use super::state::{ChatAction, ChatState, LiveReply, ShownMessage};
use super::words;
use crate::api::code_assistant::{ChatRole, CodeModel};
use crate::engine::conversations::{MessageState, StoredMessage};
use crate::ui::model::Model;
use crate::ui::textures::{self, TextureCache};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Ui, Vec2};

/// Widest an assistant reply gets (long lines are hard to read).
pub const REPLY_MAX_WIDTH: f32 = 860.0;
/// Widest a user bubble gets, as a share of the view.
const USER_BUBBLE_SHARE: f32 = 0.72;
/// Side of an attached image's thumbnail in a bubble.
const ATTACHMENT_THUMB: f32 = 72.0;
/// Inner padding of a bubble.
const BUBBLE_PADDING: i8 = 12;

/// One row of the view.
enum Row<'a> {
    Stored(&'a ShownMessage),
    /// The first message of a conversation still being created.
    Pending(&'a StoredMessage),
    Live(&'a LiveReply),
    /// Waiting for the new conversation before the reply can start.
    Starting,
}

pub fn messages_ui(
    ui: &mut Ui,
    state: &mut ChatState,
    _model: &Model,
    textures: &TextureCache,
    actions: &mut Vec<ChatAction>,
) {
    if let Some(error) = &state.messages_error {
        widgets::notice(
            ui,
            &format!("This conversation could not be read: {error}"),
            tokens::palette().warning,
        );
    }
    if state.messages_loading {
        ui.horizontal(|ui| {
            ui.add(egui::Spinner::new().size(16.0));
            widgets::muted(ui, "Opening the conversation…");
        });
        return;
    }
    if let Some(live) = state.live.as_mut() {
        live.refresh_segments();
    }
    let pending = state.pending_first_message().cloned();
    let live_shown = state.live_in_view().is_some();
    if state.messages.is_empty() && pending.is_none() && !live_shown {
        empty_ui(ui);
        return;
    }

    let ChatState {
        messages,
        models,
        live,
        heights,
        selected,
        scroll_to_bottom,
        scroll_to_row,
        scroll_offset_request,
        visible_rows,
        ..
    } = state;
    let live = live
        .as_ref()
        .filter(|l| Some(l.conversation_id) == *selected);
    let mut rows: Vec<Row> = messages.iter().map(Row::Stored).collect();
    if let Some(pending) = pending.as_ref() {
        rows.push(Row::Pending(pending));
        rows.push(Row::Starting);
    }
    if let Some(live) = live {
        rows.push(Row::Live(live));
    }

    let width = (ui.available_width() - tokens::SCROLLBAR_ALLOWANCE).max(120.0);
    let heights_now: Vec<f32> = rows
        .iter()
        .enumerate()
        .map(|(index, row)| row_height(heights, index, width, row))
        .collect();
    let tops = rows::row_tops(heights_now.iter().copied());
    let total = rows::total_height(&tops);

    // Where to scroll this frame, if somewhere explicit.
    let requested_offset = if std::mem::take(scroll_to_bottom) {
        Some(total + 10_000.0)
    } else if let Some(row) = scroll_to_row.take().filter(|row| *row < rows.len()) {
        Some(tops[row])
    } else {
        scroll_offset_request.take()
    };
    // Following the end (a streaming answer) unless the person scrolled up. An explicit
    // offset turns it off for the frame, or the scroll area would snap back to the end; it
    // turns on again by itself once the view is at the end.
    let mut area = egui::ScrollArea::vertical()
        .id_salt("chat_messages")
        .auto_shrink([false, false])
        .stick_to_bottom(requested_offset.is_none());
    if let Some(offset) = requested_offset {
        area = area.vertical_scroll_offset(offset);
    }
    let output = area.show_viewport(ui, |ui, viewport| {
        ui.set_height(total);
        ui.set_width(width);
        let origin = ui.max_rect().min;
        let shown = rows::visible_rows(&tops, viewport.min.y..viewport.max.y);
        // Rows that start above the viewport and turned out taller or shorter than
        // assumed would shift what is on screen: the scroll offset follows them.
        let mut shift_above = 0.0;
        for index in shown.clone() {
            let top_left = origin + Vec2::new(0.0, tops[index]);
            let max_rect = egui::Rect::from_min_size(top_left, Vec2::new(width, 100_000.0));
            let response = ui.scope_builder(
                egui::UiBuilder::new()
                    .max_rect(max_rect)
                    .id_salt(("chat_row", index))
                    .layout(egui::Layout::top_down(egui::Align::Min)),
                |ui| {
                    let models = models.value.as_deref().unwrap_or_default();
                    row_ui(ui, &rows[index], models, textures, width, actions);
                },
            );
            let measured = response.response.rect.height();
            if (measured - heights_now[index]).abs() > 0.5 && tops[index] < viewport.min.y {
                shift_above += measured - heights_now[index];
            }
            heights.insert(index, width, measured);
        }
        *visible_rows = shown;
        shift_above
    });
    let shift_above = output.inner;
    let offset = output.state.clamped_offset().y;
    // At the bottom the scroll area follows the end by itself (and must keep doing so).
    let at_bottom = offset >= output.content_size.y - output.inner_rect.height() - 2.0;
    if shift_above != 0.0 && !at_bottom && scroll_offset_request.is_none() {
        *scroll_offset_request = Some(offset + shift_above);
    }
}

fn row_height(heights: &mut HeightCache, index: usize, width: f32, row: &Row) -> f32 {
    heights.height_or_estimate(index, width, || match row {
        Row::Stored(shown) => {
            let mut height = rows::estimate_height(&shown.message.text, bubble_width(row, width));
            if !shown.message.attachments.is_empty() {
                height += ATTACHMENT_THUMB + 8.0;
            }
            height
        }
        Row::Pending(message) => rows::estimate_height(&message.text, width),
        Row::Live(live) => rows::estimate_height(&live.text, width),
        Row::Starting => 40.0,
    })
}

fn bubble_width(row: &Row, width: f32) -> f32 {
    match row {
        Row::Stored(shown) if shown.message.role == ChatRole::User => width * USER_BUBBLE_SHARE,
        Row::Pending(_) => width * USER_BUBBLE_SHARE,
        _ => width.min(REPLY_MAX_WIDTH),
    }
}

fn empty_ui(ui: &mut Ui) {
    ui.add_space(ui.available_height() * 0.3);
    ui.vertical_centered(|ui| {
        ui.label(
            RichText::new("Ask the coding assistant")
                .size(tokens::TEXT_HEADING)
                .color(tokens::palette().text),
        );
        ui.add_space(tokens::SPACE_S);
        ui.label(
            RichText::new(
                "Answers stream in as formatted text with code you can copy. Attach images \
                 with the paperclip, by dropping them here or pasting them (Ctrl+V).",
            )
            .color(tokens::palette().text_muted),
        );
    });
}

fn row_ui(
    ui: &mut Ui,
    row: &Row,
    models: &[CodeModel],
    textures: &TextureCache,
    width: f32,
    actions: &mut Vec<ChatAction>,
) {
    match row {
        Row::Stored(shown) if shown.message.role == ChatRole::User => {
            user_bubble_ui(ui, &shown.message, textures, width);
        }
        Row::Pending(message) => user_bubble_ui(ui, message, textures, width),
        Row::Stored(shown) => {
            reply_ui(ui, &shown.segments, false, width, actions);
            reply_footer_ui(ui, shown, models);
        }
        Row::Live(live) => {
            reply_ui(ui, &live.segments, true, width, actions);
            ui.horizontal(|ui| {
                ui.add(egui::Spinner::new().size(12.0));
                let text = if live.stopping {
                    "Stopping…"
                } else if live.text.is_empty() {
                    "Thinking…"
                } else {
                    "Writing… (Esc stops)"
                };
                ui.label(
                    RichText::new(text)
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_muted),
                );
            });
        }
        Row::Starting => {
            ui.horizontal(|ui| {
                ui.add(egui::Spinner::new().size(12.0));
                ui.label(
                    RichText::new("Starting the conversation…")
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_muted),
                );
            });
        }
    }
}

fn user_bubble_ui(ui: &mut Ui, message: &StoredMessage, textures: &TextureCache, width: f32) {
    let max_inner = width * USER_BUBBLE_SHARE - 2.0 * BUBBLE_PADDING as f32;
    let galley = (!message.text.is_empty()).then(|| {
        let mut job = egui::text::LayoutJob::single_section(
            message.text.clone(),
            egui::TextFormat::simple(
                egui::FontId::proportional(tokens::TEXT_BODY),
                tokens::palette().text,
            ),
        );
        job.wrap.max_width = max_inner;
        ui.fonts_mut(|fonts| fonts.layout_job(job))
    });
    let images_width = message.attachments.len() as f32 * (ATTACHMENT_THUMB + 6.0);
    let inner_width = galley
        .as_ref()
        .map_or(0.0, |g| g.size().x)
        .max(images_width.min(max_inner))
        .max(24.0);
    let bubble_width = inner_width + 2.0 * BUBBLE_PADDING as f32;
    let left = ui.max_rect().left() + width - bubble_width;
    let rect = egui::Rect::from_min_size(
        egui::pos2(left, ui.max_rect().top()),
        Vec2::new(bubble_width, 100_000.0),
    );
    ui.scope_builder(egui::UiBuilder::new().max_rect(rect), |ui| {
        egui::Frame::new()
            .fill(tokens::palette().accent_soft)
            .corner_radius(egui::CornerRadius::same(tokens::RADIUS_L))
            .inner_margin(egui::Margin::same(BUBBLE_PADDING))
            .show(ui, |ui| {
                ui.set_width(inner_width);
                if !message.attachments.is_empty() {
                    ui.horizontal_wrapped(|ui| {
                        for attachment in &message.attachments {
                            textures::small_thumbnail_ui(
                                ui,
                                textures,
                                &attachment.url,
                                ATTACHMENT_THUMB,
                                &attachment.filename,
                            );
                        }
                    });
                }
                if let Some(galley) = galley {
                    ui.add(egui::Label::new(galley).selectable(true));
                }
            });
    });
}

/// A reply's bubble; `streaming`: still arriving (an open code block shows a spinner).
fn reply_ui(
    ui: &mut Ui,
    segments: &[Segment],
    streaming: bool,
    width: f32,
    actions: &mut Vec<ChatAction>,
) {
    let reply_width = width.min(REPLY_MAX_WIDTH);
    egui::Frame::new()
        .fill(tokens::palette().bg_surface)
        .stroke(egui::Stroke::new(1.0, tokens::palette().border))
        .corner_radius(egui::CornerRadius::same(tokens::RADIUS_L))
        .inner_margin(egui::Margin::same(BUBBLE_PADDING))
        .show(ui, |ui| {
            ui.set_width(reply_width - 2.0 * BUBBLE_PADDING as f32 - 2.0);
            if segments.is_empty() {
                ui.label(RichText::new(" ").size(tokens::TEXT_BODY));
            }
            for (index, segment) in segments.iter().enumerate() {
                ui.push_id(index, |ui| match segment {
                    Segment::Markdown(text) => {
                        crate::ui::formatted_text::show(ui, text);
                    }
                    Segment::Code { lang, code, closed } => {
                        let arriving = streaming && !*closed;
                        code_block_ui(ui, lang.as_deref(), code, arriving, actions);
                    }
                });
            }
        });
}

/// A fenced code block: language, a Copy button through the app's clipboard, the code
/// (`arriving`: its closing fence has not streamed in yet).
fn code_block_ui(
    ui: &mut Ui,
    lang: Option<&str>,
    code: &str,
    arriving: bool,
    actions: &mut Vec<ChatAction>,
) {
    ui.add_space(4.0);
    egui::Frame::new()
        .fill(tokens::palette().bg_app)
        .stroke(egui::Stroke::new(1.0, tokens::palette().border))
        .corner_radius(egui::CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::symmetric(10, 8))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal(|ui| {
                ui.label(
                    RichText::new(lang.unwrap_or("code"))
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_faint),
                );
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    let copy = ui
                        .add(widgets::secondary_button("Copy").small())
                        .on_hover_text("Copy this code to the clipboard");
                    if copy.clicked() {
                        actions.push(ChatAction::CopyCode(code.to_owned()));
                    }
                    if arriving {
                        ui.add(egui::Spinner::new().size(10.0));
                    }
                });
            });
            ui.add_space(2.0);
            ui.add(
                egui::Label::new(
                    RichText::new(code.strip_suffix('\n').unwrap_or(code))
                        .monospace()
                        .size(tokens::TEXT_MONO)
                        .color(tokens::palette().text),
                )
                .wrap(),
            );
        });
    ui.add_space(4.0);
}

fn reply_footer_ui(ui: &mut Ui, shown: &ShownMessage, models: &[CodeModel]) {
    let message = &shown.message;
    ui.add_space(2.0);
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 10.0;
        match message.state {
            MessageState::Complete => {}
            MessageState::Stopped => {
                ui.label(
                    RichText::new("Stopped — the answer was cut short here")
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().warning),
                );
            }
            MessageState::Failed => {
                let reason = message
                    .error
                    .as_deref()
                    .unwrap_or("the service did not say why");
                ui.label(
                    RichText::new(format!("This answer failed: {reason}"))
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().danger),
                );
            }
        }
        if let Some(cost) = message.cost_credits {
            let tokens_text = match &shown.usage {
                Some(usage) => words::tokens_line(usage.prompt_tokens, usage.completion_tokens),
                None => "Token counts are kept only for answers of this session".to_owned(),
            };
            ui.label(
                RichText::new(words::cost_label(cost))
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_muted),
            )
            .on_hover_text(tokens_text);
        }
        if !message.model_id.is_empty() {
            let name = models
                .iter()
                .find(|m| m.id == message.model_id)
                .map_or(message.model_id.as_str(), |m| m.name.as_str());
            ui.label(
                RichText::new(name)
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_faint),
            );
        }
    });
}
