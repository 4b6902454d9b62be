//! The Moodboards tab of the Visual DNA view: the grid of boards, a board's detail pane
//! (images, style guide, master prompt, Show in Library) and the moodboard form.

use super::forms::{FormModal, ImagesField, form_error_ui, form_images_ui, form_modal, name_field};
use super::parts::{
    DETAIL_MIN_WIDTH, DETAIL_WIDTH, card_grid, card_ui, detail_header, detail_pane,
    edit_delete_buttons, list_status_ui, service_prompt_ui, thumbnails_row_ui,
};
use super::{FormField, LooksAction, LooksConfirm, LooksState, wrap};
use crate::api::moodboards::{MOODBOARD_STYLE_GUIDE_MAX_CHARS, Moodboard};
use crate::ui::model::{Action, Model};
use crate::ui::textures::TextureCache;
use crate::ui::{tokens, widgets};
use egui::{RichText, TextEdit, Ui};

pub(super) fn boards_tab_ui(
    ui: &mut Ui,
    state: &mut LooksState,
    model: &Model,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let total = ui.available_width();
    let selected = state
        .board_selected
        .as_deref()
        .and_then(|id| state.board(id))
        .cloned();
    if let Some(board) = &selected {
        let width = (total * 0.32).clamp(DETAIL_MIN_WIDTH, DETAIL_WIDTH + 40.0);
        detail_pane(ui, "moodboard_detail", width, |ui| {
            board_detail_ui(ui, board, textures, actions)
        });
    }
    egui::CentralPanel::default()
        .frame(egui::Frame::new().inner_margin(egui::Margin::symmetric(16, 12)))
        .show(ui, |ui| {
            let loaded = list_status_ui(
                ui,
                model,
                state.boards_error.as_ref(),
                state.boards_loaded,
                "moodboard_list_error",
                "Loading moodboards…",
                actions,
            );
            if !loaded {
                return;
            }
            if state.boards.is_empty() {
                ui.add_space(tokens::SPACE_L);
                widgets::muted(
                    ui,
                    "No moodboards yet. Drop reference images here or press New moodboard.",
                );
                return;
            }
            let selected_id = state.board_selected.as_deref();
            card_grid(
                ui,
                "moodboard_grid_scroll",
                &state.boards,
                |ui, board, width| {
                    let selected = selected_id == Some(board.id.as_str());
                    board_card_ui(ui, board, selected, width, textures, actions);
                },
            );
        });
}

fn image_count(count: usize) -> String {
    if count == 1 {
        "1 image".to_owned()
    } else {
        format!("{count} images")
    }
}

fn board_card_ui(
    ui: &mut Ui,
    board: &Moodboard,
    selected: bool,
    width: f32,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let count = board.image_urls().count();
    let url = board.thumbnail_url.as_deref().or(board.image_urls().next());
    let card = card_ui(ui, width, selected, url, &board.name, textures, |_, _| {});
    if card.visible {
        ui.painter().text(
            card.second_line,
            egui::Align2::LEFT_TOP,
            image_count(count),
            egui::FontId::proportional(tokens::TEXT_SMALL),
            tokens::palette().text_faint,
        );
    }
    let name = format!("Moodboard {}, {}", board.name, image_count(count));
    card.response
        .widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, selected, &name));
    if card.response.clicked() {
        actions.push(wrap(LooksAction::SelectBoard(board.id.clone())));
    }
}

fn board_detail_ui(
    ui: &mut Ui,
    board: &Moodboard,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    if detail_header(ui, &board.name, "Close moodboard details") {
        actions.push(wrap(LooksAction::CloseBoard));
    }
    let urls: Vec<String> = board.image_urls().map(str::to_owned).collect();
    widgets::muted(ui, image_count(urls.len()));
    ui.add_space(tokens::SPACE_S);
    thumbnails_row_ui(ui, textures, &urls, 64.0, &board.name);
    ui.add_space(tokens::SPACE_S);
    ui.horizontal_wrapped(|ui| {
        if ui.add(widgets::primary_button("Show in Library")).clicked() {
            actions.push(wrap(LooksAction::ShowBoardInLibrary {
                id: board.id.clone(),
                name: board.name.clone(),
            }));
        }
        let delete = LooksConfirm::DeleteMoodboard {
            id: board.id.clone(),
            name: board.name.clone(),
        };
        let edit = LooksAction::EditBoard(board.id.clone());
        edit_delete_buttons(ui, edit, delete, actions);
    });
    ui.add_space(tokens::SPACE_M);
    if let Some(guide) = board
        .style_guide
        .as_deref()
        .filter(|g| !g.trim().is_empty())
    {
        widgets::section_label(ui, "Style guide");
        ui.add(egui::Label::new(RichText::new(guide).color(tokens::palette().text)).wrap());
        ui.add_space(tokens::SPACE_S);
    }
    widgets::section_label(ui, "Master prompt");
    match board
        .master_prompt
        .as_deref()
        .filter(|p| !p.trim().is_empty())
    {
        Some(prompt) => service_prompt_ui(ui, prompt),
        None => {
            widgets::muted(ui, "None yet.");
        }
    }
}

pub(super) fn board_form_ui(
    ctx: &egui::Context,
    state: &mut LooksState,
    textures: &TextureCache,
    actions: &mut Vec<Action>,
) {
    let Some(form) = state.board_form.as_mut() else {
        return;
    };
    let new = form.editing.is_none();
    let modal = FormModal {
        id: "moodboard_form",
        max_width: 560.0,
        title: if new {
            "New moodboard"
        } else {
            "Edit moodboard"
        },
        intro: Some(
            "Up to 15 reference images and a style guide: pictures made with this \
             moodboard follow its look.",
        ),
        save_label: if new {
            "Make moodboard"
        } else {
            "Save moodboard"
        },
        sending_label: "Uploading and saving…",
        sending: form.sending,
        save: LooksAction::SaveBoardForm,
        cancel: LooksAction::CancelBoardForm,
    };
    form_modal(ctx, modal, actions, |ui, newly_shown, actions| {
        let problem = form.problem(FormField::Name);
        name_field(
            ui,
            &mut form.name,
            "e.g. Neon dusk",
            "Moodboard name",
            newly_shown,
            problem,
        );
        ui.add_space(tokens::SPACE_S);
        ui.horizontal(|ui| {
            widgets::section_label(ui, "Style guide");
            let count = form.style_guide_chars();
            let color = if count > MOODBOARD_STYLE_GUIDE_MAX_CHARS {
                tokens::palette().danger
            } else {
                tokens::palette().text_faint
            };
            ui.label(
                RichText::new(format!("{count} / {MOODBOARD_STYLE_GUIDE_MAX_CHARS}"))
                    .size(tokens::TEXT_SMALL)
                    .color(color),
            );
        });
        let guide = ui.add(
            TextEdit::multiline(&mut form.style_guide)
                .hint_text("Palette, light, lenses, texture, mood…")
                .desired_rows(3)
                .desired_width(f32::INFINITY),
        );
        widgets::name_widget(&guide, "Style guide");
        if let Some(problem) = form.problem(FormField::StyleGuide) {
            widgets::field_error(ui, &problem);
        }
        ui.add_space(tokens::SPACE_S);
        let problem = form.problem(FormField::Images);
        form_images_ui(
            ui,
            ImagesField {
                list: &mut form.images,
                problem,
                remove: LooksAction::RemoveBoardImage,
                add_url: LooksAction::AddBoardUrl,
            },
            textures,
            actions,
        );
        form_error_ui(ui, form.error.as_ref(), "moodboard_form_error");
    });
}
