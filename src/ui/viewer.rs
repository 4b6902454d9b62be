//! The image viewer: a large modal with one result of a job, its prompt, model, credits
//! and date, and copy/save/open actions. Esc or Close closes it.

use crate::engine::{Command, JobRecord, LocalJobId};
use crate::ui::format;
use crate::ui::icons::{Icon, paint_icon};
use crate::ui::model::{Action, Model};
use crate::ui::textures::{TextureCache, TextureLookup};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{CornerRadius, Key, RichText, Stroke, Ui, Vec2};

/// Longest side requested for the viewer's image.
pub const VIEWER_MAX_SIDE_PX: u32 = 2048;
const INFO_WIDTH: f32 = 300.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewerState {
    pub local_id: LocalJobId,
    pub index: usize,
}

pub fn viewer_ui(
    ctx: &egui::Context,
    model: &Model,
    state: ViewerState,
    textures: &TextureCache,
) -> Vec<Action> {
    let mut actions = Vec::new();
    let Some(job) = model.jobs.get(&state.local_id) else {
        actions.push(Action::CloseViewer);
        return actions;
    };
    let urls = job
        .result
        .as_ref()
        .map(|r| r.urls.clone())
        .unwrap_or_default();
    if urls.is_empty() {
        actions.push(Action::CloseViewer);
        return actions;
    }
    let index = state.index.min(urls.len() - 1);
    let url = urls[index].clone();

    let content = ctx.content_rect();
    let size = Vec2::new(
        (content.width() * 0.9).max(480.0),
        (content.height() * 0.88).max(360.0),
    );

    let response = egui::Modal::new(egui::Id::unique("image_viewer"))
        .backdrop_color(tokens::SCRIM)
        .frame(
            egui::Frame::new()
                .fill(tokens::BG_PANEL)
                .stroke(Stroke::new(1.0, tokens::BORDER_STRONG))
                .corner_radius(CornerRadius::same(tokens::RADIUS_L))
                .inner_margin(egui::Margin::same(16)),
        )
        .show(ctx, |ui| {
            ui.set_min_size(size);
            ui.set_max_size(size);
            ui.horizontal_top(|ui| {
                let image_size = Vec2::new(size.x - INFO_WIDTH - tokens::SPACE_M, size.y);
                image_area_ui(
                    ui,
                    textures,
                    &url,
                    image_size,
                    index,
                    urls.len(),
                    &mut actions,
                );
                ui.add_space(tokens::SPACE_S);
                ui.vertical(|ui| {
                    ui.set_width(INFO_WIDTH - tokens::SPACE_S);
                    info_ui(ui, job, &url, index, urls.len(), &mut actions);
                });
            });
        });

    let (esc, left, right) = ctx.input(|i| {
        (
            i.key_pressed(Key::Escape),
            i.key_pressed(Key::ArrowLeft),
            i.key_pressed(Key::ArrowRight),
        )
    });
    if esc || response.backdrop_response.clicked() {
        actions.push(Action::CloseViewer);
    }
    if left && index > 0 {
        actions.push(Action::ViewerStep(-1));
    }
    if right && index + 1 < urls.len() {
        actions.push(Action::ViewerStep(1));
    }
    actions
}

fn image_area_ui(
    ui: &mut Ui,
    textures: &TextureCache,
    url: &str,
    size: Vec2,
    index: usize,
    count: usize,
    actions: &mut Vec<Action>,
) {
    let (rect, _) = ui.allocate_exact_size(size, egui::Sense::hover());
    ui.painter()
        .rect_filled(rect, CornerRadius::same(tokens::RADIUS_M), tokens::BG_APP);
    match textures.get(url, VIEWER_MAX_SIDE_PX) {
        TextureLookup::Ready(texture) => {
            let tex = texture.size_vec2();
            let scale = (rect.width() / tex.x).min(rect.height() / tex.y).min(4.0);
            let fitted = egui::Rect::from_center_size(rect.center(), tex * scale);
            egui::Image::from_texture(&texture)
                .alt_text(format!("Result {} of {count}", index + 1))
                .paint_at(ui, fitted);
        }
        TextureLookup::Loading => {
            egui::Spinner::new()
                .size(28.0)
                .color(tokens::TEXT_MUTED)
                .paint_at(
                    ui,
                    egui::Rect::from_center_size(rect.center(), Vec2::splat(28.0)),
                );
        }
        TextureLookup::Failed(error) => {
            paint_icon(
                ui.painter(),
                egui::Rect::from_center_size(
                    rect.center() - egui::vec2(0.0, 30.0),
                    Vec2::splat(40.0),
                ),
                Icon::BrokenImage,
                tokens::TEXT_FAINT,
            );
            ui.painter().text(
                rect.center() + egui::vec2(0.0, 16.0),
                egui::Align2::CENTER_TOP,
                format!("The image could not be loaded\n{error}"),
                egui::FontId::proportional(14.0),
                tokens::TEXT_MUTED,
            );
        }
    }
    if count > 1 {
        let button_size = Vec2::splat(36.0);
        let left = egui::Rect::from_center_size(
            egui::pos2(rect.left() + 28.0, rect.center().y),
            button_size,
        );
        let right = egui::Rect::from_center_size(
            egui::pos2(rect.right() - 28.0, rect.center().y),
            button_size,
        );
        if index > 0
            && widgets::round_icon_button(ui, left, Icon::ChevronLeft, "Previous image").clicked()
        {
            actions.push(Action::ViewerStep(-1));
        }
        if index + 1 < count
            && widgets::round_icon_button(ui, right, Icon::ChevronRight, "Next image").clicked()
        {
            actions.push(Action::ViewerStep(1));
        }
    }
}

fn info_ui(
    ui: &mut Ui,
    job: &JobRecord,
    url: &str,
    index: usize,
    count: usize,
    actions: &mut Vec<Action>,
) {
    ui.horizontal(|ui| {
        ui.label(
            RichText::new(format!("{} · {}", job.spec.kind.label(), job.model_label))
                .size(tokens::TEXT_TITLE)
                .strong()
                .color(tokens::TEXT),
        );
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if widgets::icon_button(ui, Icon::Close, "Close viewer").clicked() {
                actions.push(Action::CloseViewer);
            }
        });
    });
    if count > 1 {
        widgets::muted(ui, format!("Image {} of {count}", index + 1));
    }
    ui.add_space(tokens::SPACE_S);

    let result = job.result.clone().unwrap_or_default();
    let prompt = result
        .prompt_used
        .clone()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| job.spec.request.prompt.clone());

    widgets::section_label(ui, "Prompt");
    egui::ScrollArea::vertical()
        .max_height(220.0)
        .id_salt("viewer_prompt")
        .show(ui, |ui| {
            ui.add(egui::Label::new(RichText::new(prompt).color(tokens::TEXT)).wrap());
        });
    ui.add_space(tokens::SPACE_S);

    let model_ran = result
        .model
        .clone()
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| job.model_label.clone());
    let mut rows: Vec<(&str, String)> = vec![("Model", model_ran)];
    let credits = match (job.credits_used, job.credits_estimate) {
        (Some(used), _) => format::credits(used),
        (None, Some(est)) => format!("{} (est.)", format::credits(est)),
        _ => "–".to_owned(),
    };
    rows.push(("Credits", credits));
    if let Some(created) = &result.created_at {
        rows.push(("Created", format::timestamp(created)));
    }
    if let Some(ratio) = result
        .aspect_ratio
        .clone()
        .or_else(|| job.spec.request.aspect_ratio.clone())
    {
        rows.push(("Aspect ratio", ratio));
    }
    egui::Grid::new("viewer_meta")
        .num_columns(2)
        .spacing(Vec2::new(tokens::SPACE_M, 6.0))
        .show(ui, |ui| {
            for (key, value) in rows {
                ui.label(
                    RichText::new(key)
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::TEXT_FAINT),
                );
                ui.add(egui::Label::new(RichText::new(value).color(tokens::TEXT)).wrap());
                ui.end_row();
            }
        });

    ui.add_space(tokens::SPACE_M);
    ui.horizontal_wrapped(|ui| {
        if ui.add(widgets::secondary_button("Copy URL")).clicked() {
            actions.push(Action::CopyUrl(url.to_owned()));
        }
        if ui.add(widgets::secondary_button("Save…")).clicked() {
            actions.push(Action::SaveAs {
                url: url.to_owned(),
            });
        }
        if ui
            .add(widgets::secondary_button("Open in viewer"))
            .clicked()
        {
            actions.push(Action::Send(Box::new(Command::OpenInSystemViewer {
                url: url.to_owned(),
            })));
        }
    });
    ui.add_space(tokens::SPACE_S);
    ui.with_layout(egui::Layout::bottom_up(egui::Align::Max), |ui| {
        if ui.add(widgets::secondary_button("Close")).clicked() {
            actions.push(Action::CloseViewer);
        }
    });
}
