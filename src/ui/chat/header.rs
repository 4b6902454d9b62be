//! The assistant's header: the conversation list toggle (narrow windows), the model picker
//! (name, price per 1K tokens in and out, context length, an eye for models that see
//! images) and the balance, with a Retry when either could not be loaded.

use super::state::{ChatAction, ChatState};
use super::words;
use crate::api::code_assistant::CodeModel;
use crate::ui::icons::{Icon, paint_icon};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Sense, Ui, Vec2};

/// Width of the model picker's rows.
const MODEL_ROW_WIDTH: f32 = 360.0;

/// Below this width the balance gets a row of its own instead of crowding the picker.
const BALANCE_INLINE_MIN_WIDTH_PT: f32 = 640.0;

pub fn header_ui(ui: &mut Ui, state: &ChatState, narrow: bool, actions: &mut Vec<ChatAction>) {
    let balance_inline = ui.available_width() >= BALANCE_INLINE_MIN_WIDTH_PT;
    ui.horizontal(|ui| {
        if narrow {
            let name = if state.list_open {
                "Hide conversations"
            } else {
                "Show conversations"
            };
            if widgets::icon_button(ui, Icon::Chat, name).clicked() {
                actions.push(ChatAction::ToggleList);
            }
        }
        model_picker_ui(ui, state, actions);
        if balance_inline {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                balance_ui(ui, state, actions);
            });
        }
    });
    if !balance_inline {
        ui.horizontal(|ui| balance_ui(ui, state, actions));
    }
    if let Some(model) = state.current_model() {
        ui.label(
            RichText::new(format!(
                "{} · {}{}",
                words::price_line(
                    model.prompt_credits_per_token,
                    model.completion_credits_per_token
                ),
                words::context_label(model.context_length),
                if model.supports_vision {
                    " · sees images"
                } else {
                    " · does not see images"
                }
            ))
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_muted),
        );
    }
}

/// The accessible name of a model's row: everything the row shows.
pub fn model_description(model: &CodeModel) -> String {
    let mut text = format!(
        "{} — {}, {}",
        model.name,
        words::price_line(
            model.prompt_credits_per_token,
            model.completion_credits_per_token
        ),
        words::context_label(model.context_length)
    );
    if model.supports_vision {
        text.push_str(", sees images");
    }
    text
}

fn model_picker_ui(ui: &mut Ui, state: &ChatState, actions: &mut Vec<ChatAction>) {
    widgets::muted(ui, "Model");
    let models = state.models.value.as_deref().unwrap_or_default();
    if let Some(error) = &state.models.error
        && models.is_empty()
    {
        widgets::notice(
            ui,
            &format!("The models could not be loaded: {error}"),
            tokens::palette().warning,
        );
        if ui.add(widgets::secondary_button("Retry").small()).clicked() {
            actions.push(ChatAction::RetryModels);
        }
        return;
    }
    if models.is_empty() {
        ui.add(egui::Spinner::new().size(14.0));
        widgets::muted(ui, "Loading models…");
        return;
    }
    let current = state.current_model();
    let selected_text = current.map_or("Choose a model".to_owned(), |m| m.name.clone());
    let combo = egui::ComboBox::from_id_salt("chat_model_picker")
        .selected_text(RichText::new(selected_text).color(tokens::palette().text))
        .width(220.0)
        .height(480.0)
        .show_ui(ui, |ui| {
            for model in models {
                let selected = current.is_some_and(|c| c.id == model.id);
                if model_row_ui(ui, model, selected).clicked() && !selected {
                    actions.push(ChatAction::ChooseModel(model.id.clone()));
                }
            }
        });
    widgets::name_widget(&combo.response, "Choose the model");
    if let Some(model) = current {
        combo.response.on_hover_text(model_description(model));
        if model.supports_vision {
            let eye = eye_marker_ui(ui);
            eye.on_hover_text("Sees images: you can attach pictures");
        }
    }
}

/// The eye that marks a model that sees images.
fn eye_marker_ui(ui: &mut Ui) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(18.0), Sense::hover());
    paint_icon(ui.painter(), rect, Icon::Eye, tokens::palette().info);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, "Sees images"));
    response
}

/// One model in the picker: name and eye on the first line, price and context under it.
fn model_row_ui(ui: &mut Ui, model: &CodeModel, selected: bool) -> egui::Response {
    let height = 42.0;
    let (rect, response) =
        ui.allocate_exact_size(Vec2::new(MODEL_ROW_WIDTH, height), Sense::click());
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        if selected || response.hovered() {
            let fill = if selected {
                tokens::palette().accent_soft
            } else {
                tokens::palette().bg_hover
            };
            painter.rect_filled(rect, egui::CornerRadius::same(tokens::RADIUS_S), fill);
        }
        let left = rect.left() + 8.0;
        let name = painter.text(
            egui::pos2(left, rect.top() + 5.0),
            egui::Align2::LEFT_TOP,
            &model.name,
            egui::FontId::proportional(tokens::TEXT_BODY),
            tokens::palette().text,
        );
        if model.supports_vision {
            let eye = egui::Rect::from_min_size(
                egui::pos2(name.right() + 6.0, name.top() + 1.0),
                Vec2::splat(16.0),
            );
            paint_icon(painter, eye, Icon::Eye, tokens::palette().info);
        }
        painter.text(
            egui::pos2(left, rect.top() + 24.0),
            egui::Align2::LEFT_TOP,
            format!(
                "{} · {}",
                words::price_line(
                    model.prompt_credits_per_token,
                    model.completion_credits_per_token
                ),
                words::context_label(model.context_length)
            ),
            egui::FontId::proportional(tokens::TEXT_SMALL),
            tokens::palette().text_muted,
        );
    }
    let description = model_description(model);
    response.widget_info(|| {
        egui::WidgetInfo::selected(egui::Role::Button, true, selected, &description)
    });
    response
}

fn balance_ui(ui: &mut Ui, state: &ChatState, actions: &mut Vec<ChatAction>) {
    match (&state.balance.value, &state.balance.error) {
        (_, Some(error)) => {
            // Laid out right to left: the button, then the sentence before it.
            if ui
                .add(widgets::secondary_button("Retry").small())
                .on_hover_text("Read the balance again")
                .clicked()
            {
                actions.push(ChatAction::RetryBalance);
            }
            widgets::notice(
                ui,
                &format!("The balance could not be read: {error}"),
                tokens::palette().warning,
            );
        }
        (Some(balance), None) => {
            let line = words::balance_line(balance.available, balance.reserved, balance.total);
            ui.label(
                RichText::new(line)
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_muted),
            )
            .on_hover_text(
                "Credits: available to spend now, reserved by answers still streaming, and \
                 the total on the account",
            );
        }
        (None, None) => {
            widgets::muted(ui, "Reading the balance…");
            ui.add(egui::Spinner::new().size(12.0));
        }
    }
}
