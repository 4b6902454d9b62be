//! The transfers strip under the grid: each upload or download with a progress bar, a
//! cancel button while it runs, and its error when it failed.

use super::detail::human_bytes;
use super::{LibraryAction, LibraryState, TransferState};
use crate::ui::icons::Icon;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{CornerRadius, RichText, Ui};

/// At most this many rows are shown; the rest are summarised.
const MAX_ROWS: usize = 4;

pub fn transfers_ui(ui: &mut Ui, state: &LibraryState) -> Vec<LibraryAction> {
    let mut actions = Vec::new();
    let running = state
        .transfers
        .iter()
        .filter(|t| t.state == TransferState::Running)
        .count();
    ui.horizontal(|ui| {
        let title = if running > 0 {
            format!("Transfers · {running} in progress")
        } else {
            "Transfers · done".to_owned()
        };
        ui.label(
            RichText::new(title)
                .size(12.5)
                .strong()
                .color(tokens::palette().text_muted),
        );
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if running < state.transfers.len()
                && ui.add(widgets::subtle_button("Clear finished")).clicked()
            {
                actions.push(LibraryAction::ClearFinishedTransfers);
            }
        });
    });
    // Running first, then the most recent finished ones.
    let mut rows: Vec<_> = state.transfers.iter().collect();
    rows.sort_by_key(|t| (t.state != TransferState::Running, std::cmp::Reverse(t.id)));
    for transfer in rows.iter().take(MAX_ROWS) {
        ui.horizontal(|ui| {
            ui.spacing_mut().item_spacing.x = tokens::SPACE_S;
            let name_width = 220.0;
            ui.allocate_ui(egui::vec2(name_width, 20.0), |ui| {
                ui.set_width(name_width);
                ui.add(
                    egui::Label::new(
                        RichText::new(&transfer.label)
                            .size(12.5)
                            .color(tokens::palette().text),
                    )
                    .truncate(),
                );
            });
            match &transfer.state {
                TransferState::Running => {
                    let fraction = if transfer.bytes_total > 0 {
                        (transfer.bytes_done as f32 / transfer.bytes_total as f32).clamp(0.0, 1.0)
                    } else {
                        0.0
                    };
                    let bar_width = (ui.available_width() - 160.0).max(80.0);
                    ui.add(
                        egui::ProgressBar::new(fraction)
                            .desired_width(bar_width)
                            .desired_height(6.0)
                            .fill(tokens::palette().accent)
                            .corner_radius(CornerRadius::same(3))
                            .animate(fraction <= 0.0),
                    );
                    let size = if transfer.bytes_total > 0 {
                        format!(
                            "{} / {}",
                            human_bytes(transfer.bytes_done),
                            human_bytes(transfer.bytes_total)
                        )
                    } else {
                        "starting…".to_owned()
                    };
                    ui.label(
                        RichText::new(size)
                            .size(11.5)
                            .color(tokens::palette().text_faint),
                    );
                    let verb = if transfer.is_upload {
                        "upload"
                    } else {
                        "download"
                    };
                    if widgets::icon_button(
                        ui,
                        Icon::Close,
                        &format!("Cancel {verb} of {}", transfer.label),
                    )
                    .clicked()
                    {
                        actions.push(LibraryAction::CancelTransfer(transfer.id));
                    }
                }
                TransferState::Done => {
                    let text = if transfer.is_upload {
                        "Uploaded"
                    } else {
                        "Saved"
                    };
                    ui.label(
                        RichText::new(text)
                            .size(12.0)
                            .color(tokens::palette().success),
                    );
                }
                TransferState::Cancelled => {
                    ui.label(
                        RichText::new("Cancelled")
                            .size(12.0)
                            .color(tokens::palette().text_faint),
                    );
                }
                TransferState::Failed(error) => {
                    ui.add(
                        egui::Label::new(
                            RichText::new(format!("Failed: {error}"))
                                .size(12.0)
                                .color(tokens::palette().danger),
                        )
                        .truncate(),
                    );
                }
            }
        });
    }
    if rows.len() > MAX_ROWS {
        ui.label(
            RichText::new(format!("and {} more", rows.len() - MAX_ROWS))
                .size(11.5)
                .color(tokens::palette().text_faint),
        );
    }
    actions
}
