//! The job tray's place in the shell: the open tray at the width the artist dragged it to
//! (content never widens it; its cards wrap or ellipsize), or the narrow strip, and the
//! tray's choice and width written to the settings when they change.

use super::StudioApp;
use crate::ui::jobs::{self, TRAY_MAX_WIDTH_PT, TRAY_MIN_WIDTH_PT};
use crate::ui::model::Action;
use crate::ui::tokens;
use egui::accesskit::Role;
use egui::{Sense, Stroke, WidgetInfo};

/// The central column keeps at least this much when the tray is dragged wide.
const CENTRAL_MIN_WIDTH_PT: f32 = 560.0;
/// How far either side of the tray's edge the splitter can be grabbed.
const SPLITTER_GRAB_PT: f32 = 4.0;

impl StudioApp {
    /// Whether the job tray is open (else the strip shows).
    pub fn tray_open(&self) -> bool {
        self.tray.expanded()
    }

    /// The open tray's width as remembered (points).
    pub fn tray_width_pt(&self) -> f32 {
        self.tray.width_pt()
    }

    /// The tray, or the strip, on the right; its splitter; its memory written.
    pub(super) fn tray_panel_ui(&mut self, ui: &mut egui::Ui, now_ms: i64) -> Vec<Action> {
        let ctx = ui.ctx().clone();
        let window_width_pt = ctx.content_rect().width();
        self.tray.update(window_width_pt);
        let mut actions = Vec::new();
        if !self.tray.expanded() {
            egui::Panel::right("job_tray_strip")
                .exact_size(jobs::TRAY_STRIP_WIDTH_PT)
                .resizable(false)
                .show_separator_line(false)
                .frame(tokens::panel_frame())
                .show(ui, |ui| {
                    actions.extend(jobs::tray_strip_ui(ui, &self.model))
                });
        } else {
            let widest = (window_width_pt - tokens::RAIL_WIDTH - CENTRAL_MIN_WIDTH_PT)
                .clamp(TRAY_MIN_WIDTH_PT, TRAY_MAX_WIDTH_PT);
            let width_pt = self.tray.width_pt().min(widest);
            // Jobs of profiles switched away from while they ran stay in view here.
            let other_jobs: Vec<_> = self.session.other_profile_jobs().collect();
            // An exact size: egui's resizable panel grows to fit wide content, which made
            // the tray (and the columns beside it) change width as jobs came and went.
            let panel = egui::Panel::right("job_tray")
                .exact_size(width_pt)
                .resizable(false)
                .show_separator_line(false)
                .frame(tokens::panel_frame().inner_margin(egui::Margin::same(12)))
                .show(ui, |ui| {
                    // Laid out in a child the panel does not grow with: an over-wide card
                    // is clipped at the tray's edge instead of pushing the panel's edge
                    // over the view beside it.
                    let inside = ui.max_rect();
                    let mut content = ui.new_child(
                        egui::UiBuilder::new()
                            .max_rect(inside)
                            .layout(egui::Layout::top_down(egui::Align::Min)),
                    );
                    content.shrink_clip_rect(inside);
                    actions.extend(jobs::tray_ui(
                        &mut content,
                        &self.model,
                        &other_jobs,
                        &self.textures,
                        now_ms,
                    ));
                    ui.advance_cursor_after_rect(inside);
                });
            let rect = panel.response.rect;
            if let Some(dragged_to) = splitter_ui(ui, rect) {
                self.tray.set_width((rect.right() - dragged_to).min(widest));
            }
        }
        let dragging = ctx.input(|i| i.pointer.any_down());
        if let Some(value) = self.tray.memory_to_write(!dragging) {
            self.session.update_ui_memory(|m| {
                m.panels.insert(jobs::TRAY_PANEL_KEY.to_owned(), value);
            });
        }
        actions
    }
}

/// The grab handle on the tray's left edge; the pointer's x while it is dragged.
fn splitter_ui(ui: &mut egui::Ui, tray_rect: egui::Rect) -> Option<f32> {
    let edge = tray_rect.left();
    let grab = egui::Rect::from_x_y_ranges(
        (edge - SPLITTER_GRAB_PT)..=(edge + SPLITTER_GRAB_PT),
        tray_rect.y_range(),
    );
    let response = ui.interact(grab, egui::Id::unique("job_tray_splitter"), Sense::drag());
    response.widget_info(|| WidgetInfo::labeled(Role::Splitter, true, "Resize the job tray"));
    if response.hovered() || response.dragged() {
        ui.ctx().set_cursor_icon(egui::CursorIcon::ResizeHorizontal);
        ui.painter().vline(
            edge,
            tray_rect.y_range(),
            Stroke::new(2.0, tokens::palette().accent),
        );
    }
    response
        .dragged()
        .then(|| response.interact_pointer_pos().map(|p| p.x))
        .flatten()
}
