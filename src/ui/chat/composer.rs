//! The composer: attachments as chips (thumbnail, name, upload progress, ×), the message
//! field (Enter sends, Shift+Enter starts a new line), the paperclip, and Send with the
//! estimated cost — or the reason it can't be pressed — which becomes Stop while an answer
//! streams (Esc stops too). Images pasted with Ctrl+V are attached here.

use super::state::{AttachmentStatus, ChatAction, ChatState, PendingAttachment};
use crate::ui::format;
use crate::ui::icons::Icon;
use crate::ui::textures::{self, TextureCache};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Key, RichText, TextEdit, Ui, Vec2};

/// The message field's id (its focus decides whether Enter sends).
pub fn composer_id() -> egui::Id {
    egui::Id::unique("chat_composer_text")
}

/// Side of a chip's thumbnail.
const CHIP_THUMB: f32 = 40.0;

pub fn composer_ui(
    ui: &mut Ui,
    state: &mut ChatState,
    textures: &TextureCache,
    actions: &mut Vec<ChatAction>,
) {
    take_pasted_images(ui, state);
    let modal_open = state.confirm_delete.is_some() || state.rename.is_some();
    if state.live.is_some() && !modal_open && ui.input(|i| i.key_pressed(Key::Escape)) {
        actions.push(ChatAction::Stop);
    }
    if let Some(error) = &state.send_error {
        widgets::notice(ui, error, tokens::palette().danger);
    }
    if !state.attachments.is_empty() {
        chips_ui(ui, state, textures, actions);
        if let Some(refusal) = state.current_model().and_then(|m| state.vision_refusal(m)) {
            widgets::notice(ui, &refusal, tokens::palette().warning);
        }
        ui.add_space(tokens::SPACE_XS);
    }

    let id = composer_id();
    let focused = ui.memory(|m| m.has_focus(id));
    let enter_pressed = focused && take_plain_enter(ui);
    let refusal = state.send_refusal();
    let model_name = state
        .current_model()
        .map_or("the assistant".to_owned(), |m| m.name.clone());
    ui.horizontal(|ui| {
        if attach_button_ui(ui).clicked() {
            actions.push(ChatAction::PickImages);
        }
        let buttons_width = 150.0;
        let field = ui.add(
            TextEdit::multiline(&mut state.composer)
                .id(id)
                .hint_text(format!(
                    "Message {model_name} — Enter sends, Shift+Enter starts a new line"
                ))
                .desired_rows(3)
                .desired_width(ui.available_width() - buttons_width),
        );
        widgets::name_widget(&field, "Message");
        // Opening Chat, another conversation or a new one: typing goes to the message.
        let shown_for = egui::Id::unique("chat_composer_shown_for");
        let conversation_changed = ui.data_mut(|d| {
            let changed = d.get_temp::<Option<i64>>(shown_for) != Some(state.selected);
            d.insert_temp(shown_for, state.selected);
            changed
        });
        let newly_shown = crate::ui::focus::first_frame_shown(ui.ctx(), id);
        if (newly_shown || conversation_changed) && !modal_open {
            field.request_focus();
        }
        ui.vertical(|ui| {
            if state.live.is_some() {
                let stop = ui
                    .add(widgets::secondary_button("Stop").min_size(Vec2::new(120.0, 36.0)))
                    .on_hover_text("Stop the answer here (Esc); what arrived is kept");
                if stop.clicked() {
                    actions.push(ChatAction::Stop);
                }
                return;
            }
            let send = ui.add_enabled(
                refusal.is_none(),
                widgets::primary_button("Send").min_size(Vec2::new(120.0, 36.0)),
            );
            let cost = state.estimated_cost();
            let send = match (&refusal, cost) {
                (Some(reason), _) => send.on_disabled_hover_text(reason.clone()),
                (None, Some(credits)) => send.on_hover_text(format!(
                    "Costs about {}: the conversation so far and your message, plus a typical \
                     answer; billed by the tokens actually used",
                    format::credits(credits)
                )),
                (None, None) => send,
            };
            if send.clicked() {
                actions.push(ChatAction::Send);
            }
            let hint = match (&refusal, cost) {
                (Some(reason), _) => reason.clone(),
                (None, Some(credits)) => format!("about {}", format::credits(credits)),
                (None, None) => String::new(),
            };
            ui.label(
                RichText::new(hint)
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_muted),
            );
        });
    });
    if enter_pressed {
        actions.push(ChatAction::Send);
    }
}

/// The paperclip: a larger icon button than the toolbars' (it is the composer's only way
/// to a file dialog).
fn attach_button_ui(ui: &mut Ui) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(36.0), egui::Sense::click());
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let hovered = response.hovered();
        painter.rect(
            rect,
            egui::CornerRadius::same(tokens::RADIUS_M),
            if hovered {
                tokens::palette().bg_hover
            } else {
                tokens::palette().bg_elevated
            },
            egui::Stroke::new(1.0, tokens::palette().border_strong),
            egui::StrokeKind::Inside,
        );
        let color = if hovered {
            tokens::palette().text
        } else {
            tokens::palette().text_muted
        };
        crate::ui::icons::paint_icon(
            painter,
            egui::Rect::from_center_size(rect.center(), Vec2::splat(20.0)),
            Icon::Paperclip,
            color,
        );
    }
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, "Attach images"));
    response.on_hover_text("Attach images (you can also drop them here or paste one with Ctrl+V)")
}

/// Takes Enter without modifiers out of this frame's input (so the field does not add a
/// line); Shift+Enter stays for the field.
fn take_plain_enter(ui: &Ui) -> bool {
    ui.input_mut(|input| {
        let before = input.events.len();
        input.events.retain(|event| {
            !matches!(
                event,
                egui::Event::Key {
                    key: Key::Enter,
                    pressed: true,
                    modifiers,
                    ..
                } if modifiers.is_none()
            )
        });
        input.events.len() != before
    })
}

/// Images pasted with Ctrl+V (egui hands them over when the clipboard has no text).
fn take_pasted_images(ui: &Ui, state: &mut ChatState) {
    let images: Vec<_> = ui.input(|input| {
        input
            .events
            .iter()
            .filter_map(|event| match event {
                egui::Event::PasteImage(image) => Some(image.clone()),
                _ => None,
            })
            .collect()
    });
    for image in images {
        state.add_pasted_image(image);
    }
}

fn chips_ui(
    ui: &mut Ui,
    state: &ChatState,
    textures: &TextureCache,
    actions: &mut Vec<ChatAction>,
) {
    ui.horizontal_wrapped(|ui| {
        for attachment in &state.attachments {
            ui.push_id(attachment.upload_id, |ui| {
                chip_ui(ui, attachment, textures, actions);
            });
        }
    });
}

fn chip_ui(
    ui: &mut Ui,
    attachment: &PendingAttachment,
    textures: &TextureCache,
    actions: &mut Vec<ChatAction>,
) {
    egui::Frame::new()
        .fill(tokens::palette().bg_elevated)
        .stroke(egui::Stroke::new(1.0, tokens::palette().border))
        .corner_radius(egui::CornerRadius::same(tokens::RADIUS_M))
        .inner_margin(egui::Margin::same(6))
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.set_max_width(260.0);
                match &attachment.status {
                    AttachmentStatus::Ready(file) => textures::small_thumbnail_ui(
                        ui,
                        textures,
                        &file.url,
                        CHIP_THUMB,
                        &attachment.file_name,
                    ),
                    AttachmentStatus::Failed(_) => {
                        crate::ui::icons::icon_ui(
                            ui,
                            Icon::BrokenImage,
                            24.0,
                            tokens::palette().danger,
                        );
                    }
                    _ => {
                        ui.add(egui::Spinner::new().size(18.0));
                    }
                }
                ui.vertical(|ui| {
                    ui.label(
                        RichText::new(format::excerpt(&attachment.file_name, 28))
                            .size(tokens::TEXT_SMALL)
                            .color(tokens::palette().text),
                    );
                    let (line, color) = match &attachment.status {
                        AttachmentStatus::Encoding => {
                            ("Preparing…".to_owned(), tokens::palette().text_muted)
                        }
                        AttachmentStatus::Uploading { .. } => (
                            format!(
                                "Uploading {} %",
                                (attachment.progress().unwrap_or(0.0) * 100.0).round()
                            ),
                            tokens::palette().text_muted,
                        ),
                        AttachmentStatus::Ready(file) => {
                            (byte_size(file.bytes), tokens::palette().text_faint)
                        }
                        AttachmentStatus::Failed(error) => {
                            (format!("Upload failed: {error}"), tokens::palette().danger)
                        }
                    };
                    ui.label(RichText::new(line).size(tokens::TEXT_SMALL).color(color));
                    if let Some(progress) = attachment.progress() {
                        ui.add(
                            egui::ProgressBar::new(progress)
                                .desired_width(120.0)
                                .desired_height(4.0),
                        );
                    }
                });
                let name = format!("Remove {}", attachment.file_name);
                if widgets::icon_button(ui, Icon::Close, &name).clicked() {
                    actions.push(ChatAction::RemoveAttachment(attachment.upload_id));
                }
            });
        });
}

/// 1_234_567 → "1.2 MB".
fn byte_size(bytes: u64) -> String {
    let bytes = bytes as f64;
    if bytes >= 1e6 {
        format!("{:.1} MB", bytes / 1e6)
    } else if bytes >= 1e3 {
        format!("{:.0} KB", bytes / 1e3)
    } else {
        format!("{bytes} B")
    }
}

/// While files are dragged over the window: where they go.
pub fn drop_hint_ui(ctx: &egui::Context) {
    if !ctx.input(|i| !i.raw.hovered_files.is_empty()) {
        return;
    }
    let rect = ctx.content_rect();
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Foreground,
        egui::Id::unique("chat_drop_hint"),
    ));
    painter.rect_filled(rect, 0.0, tokens::palette().scrim);
    painter.rect_stroke(
        rect.shrink(tokens::SPACE_L),
        egui::CornerRadius::same(tokens::RADIUS_L),
        egui::Stroke::new(2.0, tokens::palette().accent),
        egui::StrokeKind::Inside,
    );
    painter.text(
        rect.center() - Vec2::new(0.0, 14.0),
        egui::Align2::CENTER_CENTER,
        "Drop images to attach them",
        egui::FontId::proportional(22.0),
        tokens::palette().text,
    );
    painter.text(
        rect.center() + Vec2::new(0.0, 16.0),
        egui::Align2::CENTER_CENTER,
        "They are uploaded first and sent with your next message",
        egui::FontId::proportional(13.5),
        tokens::palette().text_muted,
    );
}
