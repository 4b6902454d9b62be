//! The conversation list: search (filters as you type), New conversation, rows with title,
//! preview and relative time; rename inline and delete (asked first) from the selected
//! row's buttons or any row's context menu.

use super::state::{ChatAction, ChatState, RenameDraft};
use super::words;
use crate::engine::conversations::ConversationSummary;
use crate::ui::format;
use crate::ui::icons::Icon;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Key, RichText, Sense, TextEdit, Ui, Vec2};

/// Height of one conversation row.
const ROW_HEIGHT: f32 = 58.0;

pub fn conversation_list_ui(
    ui: &mut Ui,
    state: &mut ChatState,
    narrow: bool,
    actions: &mut Vec<ChatAction>,
) {
    ui.horizontal(|ui| {
        ui.label(
            RichText::new("Conversations")
                .size(tokens::TEXT_BODY)
                .strong()
                .color(tokens::palette().text),
        );
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if narrow && widgets::icon_button(ui, Icon::Close, "Hide conversations").clicked() {
                actions.push(ChatAction::ToggleList);
            }
        });
    });
    ui.add_space(tokens::SPACE_S);
    let new = ui
        .add_sized(
            [ui.available_width(), 30.0],
            widgets::small_primary_button("New conversation"),
        )
        .on_hover_text("Start an empty conversation (it is saved when you send)");
    if new.clicked() {
        actions.push(ChatAction::NewConversation);
    }
    ui.add_space(tokens::SPACE_S);
    let search = ui.add(
        TextEdit::singleline(&mut state.search)
            .hint_text("Search conversations")
            .desired_width(f32::INFINITY),
    );
    widgets::name_widget(&search, "Search conversations");
    if search.changed() {
        actions.push(ChatAction::SearchChanged);
    }
    ui.add_space(tokens::SPACE_S);

    if let Some(error) = &state.conversations.error {
        widgets::notice(
            ui,
            &format!("The conversations could not be read: {error}"),
            tokens::palette().warning,
        );
        if ui.add(widgets::secondary_button("Retry").small()).clicked() {
            actions.push(ChatAction::SearchChanged);
        }
    }
    if !state.conversations.is_loaded() && state.conversations.error.is_none() {
        ui.horizontal(|ui| {
            ui.add(egui::Spinner::new().size(14.0));
            widgets::muted(ui, "Loading conversations…");
        });
        return;
    }
    if state.conversations.value.as_ref().is_none_or(Vec::is_empty) {
        let query = state.search.trim();
        let text = if query.is_empty() {
            "No conversations yet. Write a message to start one.".to_owned()
        } else {
            format!("No conversation mentions “{query}”.")
        };
        ui.label(
            RichText::new(text)
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_muted),
        );
        return;
    }
    // Taken out while the rows are drawn (a row may edit the rename draft in the state).
    let conversations = state.conversations.value.take().unwrap_or_default();
    let now = chrono::Utc::now();
    let spacing = ui.spacing().item_spacing.y;
    egui::ScrollArea::vertical()
        .id_salt("chat_conversation_list")
        .auto_shrink([false, false])
        .show_rows(ui, ROW_HEIGHT, conversations.len(), |ui, range| {
            ui.spacing_mut().item_spacing.y = spacing;
            for conversation in &conversations[range] {
                ui.push_id(conversation.id, |ui| {
                    row_ui(ui, state, conversation, now, actions);
                });
            }
        });
    state.conversations.value = Some(conversations);
}

fn row_ui(
    ui: &mut Ui,
    state: &mut ChatState,
    conversation: &ConversationSummary,
    now: chrono::DateTime<chrono::Utc>,
    actions: &mut Vec<ChatAction>,
) {
    let selected = state.selected == Some(conversation.id);
    if let Some(draft) = state
        .rename
        .as_mut()
        .filter(|d| d.conversation_id == conversation.id)
    {
        rename_ui(ui, draft, actions);
        return;
    }
    let width = ui.available_width();
    let (rect, response) = ui.allocate_exact_size(Vec2::new(width, ROW_HEIGHT), Sense::click());
    let title = conversation.title.clone();
    response.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, selected, &title));
    if response.clicked() {
        actions.push(ChatAction::Select(conversation.id));
    }
    response.context_menu(|ui| {
        if ui.button("Rename").clicked() {
            actions.push(ChatAction::StartRename(conversation.id));
            ui.close();
        }
        if ui.button("Delete…").clicked() {
            actions.push(ChatAction::AskDelete(conversation.id));
            ui.close();
        }
    });
    // The selected row's own buttons (drawn over its right edge).
    let buttons_width = if selected { 60.0 } else { 0.0 };
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let fill = if selected {
            Some(tokens::palette().accent_soft)
        } else if response.hovered() {
            Some(tokens::palette().bg_hover)
        } else {
            None
        };
        if let Some(fill) = fill {
            painter.rect_filled(rect, egui::CornerRadius::same(tokens::RADIUS_M), fill);
        }
        let inner = rect.shrink2(Vec2::new(8.0, 7.0));
        let time = painter.text(
            egui::pos2(inner.right() - buttons_width, inner.top()),
            egui::Align2::RIGHT_TOP,
            words::relative_time(&conversation.updated_at, now),
            egui::FontId::proportional(tokens::TEXT_SMALL),
            tokens::palette().text_faint,
        );
        let title_width = (time.left() - inner.left() - 8.0).max(20.0);
        let title = one_line(
            ui,
            &conversation.title,
            tokens::TEXT_BODY,
            tokens::palette().text,
            title_width,
        );
        painter.galley(inner.left_top(), title, tokens::palette().text);
        let preview = one_line(
            ui,
            &format::excerpt(&conversation.preview, 120),
            tokens::TEXT_SMALL,
            tokens::palette().text_muted,
            inner.width() - buttons_width,
        );
        painter.galley(
            egui::pos2(inner.left(), inner.top() + 22.0),
            preview,
            tokens::palette().text_muted,
        );
    }
    if selected {
        let buttons = egui::Rect::from_min_size(
            egui::pos2(rect.right() - buttons_width - 2.0, rect.center().y - 4.0),
            Vec2::new(buttons_width, 26.0),
        );
        // A child that does not move the list's cursor (the row already took its height).
        let mut overlay = ui.new_child(
            egui::UiBuilder::new()
                .max_rect(buttons)
                .layout(egui::Layout::left_to_right(egui::Align::Center)),
        );
        overlay.spacing_mut().item_spacing.x = 4.0;
        if widgets::icon_button(&mut overlay, Icon::Edit, "Rename conversation").clicked() {
            actions.push(ChatAction::StartRename(conversation.id));
        }
        if widgets::icon_button(&mut overlay, Icon::Trash, "Delete conversation").clicked() {
            actions.push(ChatAction::AskDelete(conversation.id));
        }
    }
}

/// `text` on one line, cut with an ellipsis at `width`.
fn one_line(
    ui: &Ui,
    text: &str,
    size: f32,
    color: egui::Color32,
    width: f32,
) -> std::sync::Arc<egui::Galley> {
    let mut job = egui::text::LayoutJob::single_section(
        text.to_owned(),
        egui::TextFormat::simple(egui::FontId::proportional(size), color),
    );
    job.wrap = egui::text::TextWrapping::truncate_at_width(width.max(10.0));
    ui.fonts_mut(|fonts| fonts.layout_job(job))
}

/// The inline rename in a row's place (the same height, so the list does not jump).
fn rename_ui(ui: &mut Ui, draft: &mut RenameDraft, actions: &mut Vec<ChatAction>) {
    let (rect, _) =
        ui.allocate_exact_size(Vec2::new(ui.available_width(), ROW_HEIGHT), Sense::hover());
    ui.scope_builder(
        egui::UiBuilder::new().max_rect(rect.shrink2(Vec2::new(2.0, 4.0))),
        |ui| {
            rename_field_ui(ui, draft, actions);
        },
    );
}

fn rename_field_ui(ui: &mut Ui, draft: &mut RenameDraft, actions: &mut Vec<ChatAction>) {
    let id = ui.make_persistent_id("rename_field");
    let field = ui.add(
        TextEdit::singleline(&mut draft.title)
            .id(id)
            .desired_width(f32::INFINITY)
            .hint_text("Conversation title"),
    );
    widgets::name_widget(&field, "Conversation title");
    if draft.focus {
        field.request_focus();
        draft.focus = false;
    }
    let (enter, escape) = ui.input(|i| (i.key_pressed(Key::Enter), i.key_pressed(Key::Escape)));
    if escape {
        actions.push(ChatAction::CancelRename);
    } else if field.lost_focus() && enter {
        actions.push(ChatAction::SaveRename);
    } else if field.lost_focus() {
        // Clicking elsewhere keeps the old title, like Esc.
        actions.push(ChatAction::CancelRename);
    }
    ui.label(
        RichText::new("Enter saves · Esc cancels")
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_faint),
    );
}

/// The question asked before a conversation is deleted.
pub fn delete_confirm_ui(ctx: &egui::Context, state: &ChatState, actions: &mut Vec<ChatAction>) {
    let Some((_, title)) = &state.confirm_delete else {
        return;
    };
    let response = egui::Modal::new(egui::Id::unique("chat_delete_confirm"))
        .backdrop_color(tokens::palette().scrim)
        .frame(tokens::card_frame().inner_margin(egui::Margin::same(20)))
        .show(ctx, |ui| {
            ui.set_width(400.0);
            ui.label(
                RichText::new(format!("Delete “{title}”?"))
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::palette().text),
            );
            ui.add_space(tokens::SPACE_XS);
            ui.label(
                RichText::new("Its messages are removed from this computer. This can't be undone.")
                    .color(tokens::palette().text_muted),
            );
            ui.add_space(tokens::SPACE_M);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.add(widgets::danger_button("Delete")).clicked() {
                    actions.push(ChatAction::ConfirmDelete);
                }
                if ui.add(widgets::secondary_button("Cancel")).clicked() {
                    actions.push(ChatAction::CancelDelete);
                }
            });
        });
    if response.should_close() && actions.is_empty() {
        actions.push(ChatAction::CancelDelete);
    }
}
