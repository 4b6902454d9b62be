//! The info column: title, Close, where we are in the list, the actions, the prompt, the
//! facts and a line of keyboard hints. Scrolls when the window is short.

use super::actions;
use super::focus_ring;
use super::subject::Subject;
use crate::ui::icons::Icon;
use crate::ui::model::{Action, ResultRef};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Ui, Vec2};

/// The side column: title, close, where we are, the actions, the prompt and the facts.
/// Returns true when Close was pressed.
pub(super) fn info_column_ui(
    ui: &mut Ui,
    result: &ResultRef,
    subject: &Subject,
    (index, count): (usize, usize),
    actions: &mut Vec<Action>,
) -> bool {
    let mut close = false;
    ui.horizontal_top(|ui| {
        let title_width = (ui.available_width() - 34.0).max(60.0);
        ui.allocate_ui(Vec2::new(title_width, 0.0), |ui| {
            ui.add(
                egui::Label::new(
                    RichText::new(&subject.title)
                        .size(tokens::TEXT_TITLE)
                        .strong()
                        .color(tokens::palette().text),
                )
                .wrap(),
            );
        });
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Min), |ui| {
            let close_button = widgets::icon_button(ui, Icon::Close, "Close viewer");
            focus_ring(ui, &close_button);
            close = close_button.clicked();
        });
    });
    let mut where_line = Vec::new();
    if let Some(subtitle) = &subject.subtitle {
        where_line.push(subtitle.clone());
    }
    if count > 1 {
        let noun = if subject.is_audio {
            "Sound"
        } else if subject.is_video {
            "Video"
        } else {
            "Image"
        };
        where_line.push(format!("{noun} {} of {count}", index + 1));
    }
    if !where_line.is_empty() {
        widgets::muted(ui, where_line.join(" · "));
    }
    ui.add_space(tokens::SPACE_S);

    egui::ScrollArea::vertical()
        .id_salt("viewer_info")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            // Room for the focus ring of the buttons at the column's edges.
            egui::Frame::new()
                .inner_margin(egui::Margin::symmetric(4, 4))
                .show(ui, |ui| info_body_ui(ui, result, subject, actions));
        });
    close
}

fn info_body_ui(ui: &mut Ui, result: &ResultRef, subject: &Subject, actions: &mut Vec<Action>) {
    ui.spacing_mut().item_spacing.y = 6.0;
    actions::result_actions_ui(ui, result, subject, actions::Placement::Column, actions);
    ui.add_space(tokens::SPACE_S);

    widgets::prompt_block(ui, subject.prompt.as_deref(), tokens::TEXT_BODY);
    ui.add_space(tokens::SPACE_S);
    egui::Grid::new("viewer_facts")
        .num_columns(2)
        .spacing(Vec2::new(tokens::SPACE_M, 6.0))
        .show(ui, |ui| {
            for (key, value) in &subject.facts {
                ui.label(
                    RichText::new(*key)
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_faint),
                );
                ui.add(egui::Label::new(RichText::new(value).color(tokens::palette().text)).wrap());
                ui.end_row();
            }
        });
    ui.add_space(tokens::SPACE_S);
    let keys = if subject.is_model_3d {
        // The turntable takes the arrow keys, so previous/next is not offered here.
        "Drag or arrow keys turn · wheel zooms · R or Home resets the view · Esc close"
    } else if subject.is_audio {
        "Space play/pause · J back 5 s · K pause · Left/Right back/forward 1 s · I/O loop start/end · L loop \
         on/off · Esc close"
    } else if subject.source_video_url.is_some() {
        "Space play/pause · , . one frame · J back 1 s · K pause · L play, again 2× and 4× (muted) · B before/after \
         · Left/Right previous/next · Esc close"
    } else if subject.is_video {
        "Space play/pause · , . one frame · J back 1 s · K pause · L play, again 2× and 4× (muted) · Left/Right \
         previous/next · Esc close"
    } else {
        "Left/Right previous/next · +/- zoom · 0 fit · 1 100 % · drag to pan · Esc close"
    };
    ui.label(
        RichText::new(keys)
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_faint),
    );
}
