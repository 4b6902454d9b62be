//! The shell's fixed chrome: the left navigation rail and the bottom status bar.

use crate::engine::Command;
use crate::ui::account;
use crate::ui::format;
use crate::ui::model::{Action, Model, View};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{CornerRadius, RichText, Role, Sense, Ui, Vec2, WidgetInfo};

pub fn rail_ui(ui: &mut Ui, current: View, running_jobs: usize) -> Vec<Action> {
    let mut actions = Vec::new();
    ui.add_space(tokens::SPACE_M);
    ui.vertical_centered(|ui| {
        // Monogram.
        let (rect, _) = ui.allocate_exact_size(Vec2::splat(36.0), Sense::hover());
        ui.painter().rect_filled(
            rect,
            CornerRadius::same(tokens::RADIUS_M),
            tokens::palette().accent,
        );
        ui.painter().text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            "F",
            egui::FontId::proportional(20.0),
            tokens::palette().on_accent,
        );
    });
    ui.add_space(tokens::SPACE_L);
    for view in View::ALL {
        if view == View::Settings {
            continue;
        }
        let badge = (view == View::Create && running_jobs > 0).then_some(running_jobs);
        if rail_item_ui(ui, view, current == view, badge).clicked() {
            actions.push(Action::Navigate(view));
        }
        ui.add_space(tokens::SPACE_XS);
    }
    ui.with_layout(egui::Layout::bottom_up(egui::Align::Center), |ui| {
        ui.add_space(tokens::SPACE_S);
        if rail_item_ui(ui, View::Settings, current == View::Settings, None).clicked() {
            actions.push(Action::Navigate(View::Settings));
        }
    });
    actions
}

fn rail_item_ui(ui: &mut Ui, view: View, selected: bool, badge: Option<usize>) -> egui::Response {
    let width = ui.available_width() - 2.0 * tokens::SPACE_S;
    let size = Vec2::new(width, 58.0);
    let (rect, response) = ui
        .vertical_centered(|ui| ui.allocate_exact_size(size, Sense::click()))
        .inner;
    if ui.is_rect_visible(rect) {
        let painter = ui.painter();
        let radius = CornerRadius::same(tokens::RADIUS_M);
        if selected {
            painter.rect_filled(rect, radius, tokens::palette().accent_soft);
            let bar = egui::Rect::from_min_size(
                egui::pos2(rect.left() - tokens::SPACE_S + 1.0, rect.top() + 14.0),
                Vec2::new(3.0, rect.height() - 28.0),
            );
            painter.rect_filled(bar, CornerRadius::same(2), tokens::palette().accent);
        } else if response.hovered() {
            painter.rect_filled(rect, radius, tokens::palette().bg_elevated);
        }
        let color = if selected {
            tokens::palette().accent_hover
        } else if response.hovered() {
            tokens::palette().text
        } else {
            tokens::palette().text_muted
        };
        let icon_rect = egui::Rect::from_center_size(
            egui::pos2(rect.center().x, rect.top() + 21.0),
            Vec2::splat(20.0),
        );
        crate::ui::icons::paint_icon(painter, icon_rect, view.icon(), color);
        painter.text(
            egui::pos2(rect.center().x, rect.bottom() - 14.0),
            egui::Align2::CENTER_CENTER,
            view.label(),
            egui::FontId::proportional(11.5),
            if selected {
                tokens::palette().text
            } else {
                color
            },
        );
        if let Some(count) = badge {
            let center = egui::pos2(rect.center().x + 16.0, rect.top() + 10.0);
            painter.circle_filled(center, 8.0, tokens::palette().accent);
            painter.text(
                center,
                egui::Align2::CENTER_CENTER,
                count.min(99).to_string(),
                egui::FontId::proportional(10.0),
                tokens::palette().on_accent,
            );
        }
    }
    let label = view.label();
    response.widget_info(|| WidgetInfo::selected(Role::Button, true, selected, label));
    response.on_hover_cursor(egui::CursorIcon::PointingHand)
}

/// What the status bar shows.
pub struct StatusInfo<'a> {
    pub service_label: &'a str,
    pub connection_error: Option<&'a str>,
    pub project_name: Option<&'a str>,
    pub tray_open: bool,
    /// Jobs of profiles switched away from while they ran (the tray shows them too).
    pub other_profiles: crate::session::OtherProfileCounts,
    /// The warning threshold, while the balance is below it.
    pub low_balance_threshold: Option<f64>,
}

pub fn status_bar_ui(ui: &mut Ui, model: &Model, info: &StatusInfo<'_>) -> Vec<Action> {
    let mut actions = Vec::new();
    let small = |text: String, color| RichText::new(text).size(12.0).color(color);
    ui.horizontal_centered(|ui| {
        ui.spacing_mut().item_spacing.x = tokens::SPACE_S;
        let offline = model.service.unreachable.as_ref();
        let (dot_color, connected) = match info.connection_error {
            Some(_) => (tokens::palette().danger, false),
            None if offline.is_some() => (tokens::palette().danger, false),
            None if model.catalog.is_loaded() || model.credits.is_loaded() => {
                (tokens::palette().success, true)
            }
            None => (tokens::palette().warning, false),
        };
        let (rect, _) = ui.allocate_exact_size(Vec2::splat(8.0), Sense::hover());
        ui.painter().circle_filled(rect.center(), 4.0, dot_color);
        ui.label(small(
            info.service_label.to_owned(),
            tokens::palette().text_muted,
        ))
        .on_hover_text(match (offline, connected) {
            (Some(_), _) => "Not answering",
            (None, true) => "Connected",
            (None, false) => "Connecting…",
        });
        if let Some(error) = info.connection_error {
            ui.label(small(error.to_owned(), tokens::palette().danger));
        } else if let Some(unreachable) = offline {
            ui.label(small(
                "Offline — retrying".to_owned(),
                tokens::palette().danger,
            ))
            .on_hover_text(format!(
                "Can't reach {}\n{}",
                unreachable.base_url, unreachable.error
            ));
            let retry = ui.add(
                egui::Button::new(small("Retry".to_owned(), tokens::palette().text))
                    .min_size(Vec2::new(0.0, 20.0)),
            );
            if retry
                .on_hover_text("Try to reach the service now")
                .clicked()
            {
                actions.push(Action::Send(Box::new(Command::RetryConnection)));
            }
        }
        separator(ui);
        ui.label(small(
            format!("Project: {}", info.project_name.unwrap_or("–")),
            tokens::palette().text_muted,
        ));
        separator(ui);
        actions.extend(credits_ui(ui, model, info.low_balance_threshold));
        separator(ui);
        let running = model.running_count() + info.other_profiles.running;
        ui.label(small(
            format!("{running} running"),
            if running > 0 {
                tokens::palette().info
            } else {
                tokens::palette().text_muted
            },
        ));
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            let count = model.jobs.len() + info.other_profiles.shown;
            let text = if info.tray_open {
                format!("Hide jobs ({count})")
            } else {
                format!("Show jobs ({count})")
            };
            let response = ui.add(
                egui::Button::new(small(text, tokens::palette().text_muted))
                    .frame_when_inactive(false)
                    .min_size(Vec2::new(0.0, 20.0)),
            );
            if response.clicked() {
                actions.push(Action::ToggleTray);
            }
            separator(ui);
            crate::ui::sound::volume_control_ui(ui);
        });
    });
    actions
}

/// The balance, a "Low balance" badge while it is below the threshold, and a popover with
/// the credit buckets when clicked.
fn credits_ui(ui: &mut Ui, model: &Model, low_threshold: Option<f64>) -> Vec<Action> {
    let mut actions = Vec::new();
    let small = |text: String, color| RichText::new(text).size(12.0).color(color);
    let credits = match model.credits.value.as_ref().and_then(|c| c.spendable()) {
        Some(v) => format::credits(v),
        None if model.credits.error.is_some() => "credits unavailable".to_owned(),
        None => "credits …".to_owned(),
    };
    let color = if low_threshold.is_some() {
        tokens::palette().warning
    } else {
        tokens::palette().text_muted
    };
    let button = ui
        .add(
            egui::Button::new(small(credits, color))
                .frame_when_inactive(false)
                .min_size(Vec2::new(0.0, 20.0)),
        )
        .on_hover_text("Credit balance: click for the buckets");
    if let Some(threshold) = low_threshold {
        widgets::pill(ui, "Low balance", tokens::palette().warning).on_hover_text(format!(
            "Below your warning threshold of {} (Settings › Account)",
            format::credits(threshold)
        ));
    }
    egui::Popup::from_toggle_button_response(&button)
        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside)
        .show(|ui| {
            ui.set_min_width(260.0);
            ui.label(
                RichText::new("Credits")
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::palette().text),
            );
            match model.credits.value.as_ref() {
                Some(credits) => account::buckets_ui(
                    ui,
                    "status_credit_buckets",
                    credits,
                    account::reserved_by_running_jobs(model),
                ),
                None => match model.credits.error.as_deref() {
                    // Words here; the service's raw answer under Details.
                    Some(raw) => {
                        ui.label("The balance could not be loaded. Try Refresh in a moment.");
                        egui::CollapsingHeader::new(
                            RichText::new("Details").size(tokens::TEXT_SMALL),
                        )
                        .id_salt("status_credit_error_details")
                        .show(ui, |ui| {
                            ui.label(
                                RichText::new(raw)
                                    .size(tokens::TEXT_SMALL)
                                    .color(tokens::palette().text_faint),
                            );
                        });
                    }
                    None => {
                        ui.label("The balance has not loaded yet.");
                    }
                },
            }
            ui.horizontal(|ui| {
                if ui.add(widgets::subtle_button("Refresh")).clicked() {
                    actions.push(Action::Send(Box::new(Command::RefreshCredits)));
                }
                if ui.add(widgets::subtle_button("Account settings")).clicked() {
                    actions.push(Action::Navigate(View::Settings));
                }
            });
        });
    actions
}

fn separator(ui: &mut Ui) {
    ui.label(
        RichText::new("·")
            .size(12.0)
            .color(tokens::palette().text_faint),
    );
}
