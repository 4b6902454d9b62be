//! The Chat view: a mode switch between the coding assistant ("Assistant": streamed,
//! billed per token) and the generation service's text models ("Creative chat", hosted from
//! [`creative`]); for the assistant a header with the model picker and the balance, the
//! conversation list, the virtualised message view and the composer with image
//! attachments.
//!
//! Like the other panels it owns its state, handles its own `Event::Chat` events and
//! returns actions; no I/O happens here (store and network work are `Command::Chat`s).

pub mod composer;
pub mod creative;
pub mod header;
pub mod list;
pub mod markdown;
pub mod messages;
pub mod rows;
pub mod state;
pub mod words;

pub use state::{
    AttachmentStatus, ChatAction, ChatMode, ChatState, LiveReply, PendingAttachment, SceneStep,
    ShownMessage,
};

use crate::ui::model::{Action, Model};
use crate::ui::textures::TextureCache;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Ui};

/// Below this width of the view the conversation list folds away behind a button.
pub const NARROW_WIDTH: f32 = 900.0;
/// Width of the conversation list.
pub const LIST_WIDTH: f32 = 260.0;

pub fn chat_ui(
    ui: &mut Ui,
    state: &mut ChatState,
    model: &Model,
    textures: &TextureCache,
) -> Vec<Action> {
    let mut actions = state.start();
    actions.extend(state.scene_step());
    actions.extend(state.poll_pastes());
    if state.encoding_pastes() {
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(50));
    }
    let mut chat_actions = Vec::new();

    ui.add_space(tokens::SPACE_S);
    mode_switch_ui(ui, state, &mut chat_actions);
    ui.add_space(tokens::SPACE_S);
    match state.mode {
        ChatMode::Assistant => assistant_ui(ui, state, model, textures, &mut chat_actions),
        ChatMode::Creative => {
            actions.extend(creative::creative_chat_ui(ui, &mut state.creative, model))
        }
    }

    for action in chat_actions {
        actions.extend(state.apply(action));
    }
    actions
}

fn mode_switch_ui(ui: &mut Ui, state: &ChatState, actions: &mut Vec<state::ChatAction>) {
    ui.horizontal(|ui| {
        ui.label(
            RichText::new("Chat")
                .size(tokens::TEXT_TITLE)
                .strong()
                .color(tokens::palette().text),
        );
        ui.add_space(tokens::SPACE_M);
        let assistant = ui
            .add(widgets::toggle_button(
                "Assistant",
                state.mode == ChatMode::Assistant,
            ))
            .on_hover_text("The coding assistant: answers stream in, billed per token");
        if assistant.clicked() {
            actions.push(ChatAction::SetMode(ChatMode::Assistant));
        }
        let creative = ui
            .add(widgets::toggle_button(
                "Creative chat",
                state.mode == ChatMode::Creative,
            ))
            .on_hover_text(
                "The service's text models: each message is a job like any generation, \
                 priced per message",
            );
        if creative.clicked() {
            actions.push(ChatAction::SetMode(ChatMode::Creative));
        }
    });
}

fn assistant_ui(
    ui: &mut Ui,
    state: &mut ChatState,
    model: &Model,
    textures: &TextureCache,
    actions: &mut Vec<ChatAction>,
) {
    let narrow = ui.available_width() < NARROW_WIDTH;
    let mut list_open = state.list_open || !narrow;
    egui::Panel::left("chat_conversations")
        .exact_size(LIST_WIDTH.min(ui.available_width() * 0.45))
        .resizable(false)
        .show_separator_line(false)
        .frame(
            egui::Frame::new()
                .fill(tokens::palette().bg_panel)
                .stroke(egui::Stroke::new(1.0, tokens::palette().border))
                .corner_radius(egui::CornerRadius::same(tokens::RADIUS_M))
                .inner_margin(egui::Margin::symmetric(10, 12)),
        )
        .show_collapsible(ui, &mut list_open, |ui| {
            list::conversation_list_ui(ui, state, narrow, actions);
        });
    if narrow {
        state.list_open = list_open;
    }

    egui::CentralPanel::default()
        .frame(egui::Frame::new().inner_margin(egui::Margin {
            left: 16,
            right: 0,
            top: 0,
            bottom: 8,
        }))
        .show(ui, |ui| {
            header::header_ui(ui, state, narrow, actions);
            ui.add(egui::Separator::default().spacing(tokens::SPACE_M));
            egui::Panel::bottom("chat_composer")
                .resizable(false)
                .show_separator_line(false)
                .frame(egui::Frame::new().inner_margin(egui::Margin::symmetric(0, 6)))
                .show(ui, |ui| {
                    composer::composer_ui(ui, state, textures, actions);
                });
            egui::CentralPanel::default()
                .frame(egui::Frame::new())
                .show(ui, |ui| {
                    messages::messages_ui(ui, state, model, textures, actions);
                });
        });
    list::delete_confirm_ui(ui.ctx(), state, actions);
    composer::drop_hint_ui(ui.ctx());
}
