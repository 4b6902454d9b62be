//! The job tray: one card per job, newest first, with state, progress, elapsed time,
//! credits, failures, and the results as thumbnails that open the viewer.

use crate::engine::{Command, JobPhase, JobRecord};
use crate::ui::format;
use crate::ui::icons::Icon;
use crate::ui::model::{Action, Confirm, Model, ResultRef};
use crate::ui::result_tile::{Fit, ResultTile, job_result_refs, result_tile_ui};
use crate::ui::textures::TextureCache;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Color32, CornerRadius, RichText, Ui, Vec2};

pub fn phase_color(phase: &JobPhase) -> Color32 {
    match phase {
        JobPhase::Submitting | JobPhase::Running { .. } => tokens::INFO,
        JobPhase::Unconfirmed { .. } => tokens::WARNING,
        JobPhase::Completed => tokens::SUCCESS,
        JobPhase::Failed { .. } | JobPhase::Rejected { .. } => tokens::DANGER,
        JobPhase::Cancelled => tokens::TEXT_FAINT,
    }
}

/// The tray's contents (the panel frame is the shell's).
pub fn tray_ui(ui: &mut Ui, model: &Model, textures: &TextureCache, now_ms: i64) -> Vec<Action> {
    let mut actions = Vec::new();
    ui.horizontal(|ui| {
        ui.label(
            RichText::new("Jobs")
                .size(tokens::TEXT_TITLE)
                .strong()
                .color(tokens::TEXT),
        );
        let running = model.running_count();
        if running > 0 {
            widgets::pill(ui, &format!("{running} running"), tokens::INFO);
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if widgets::icon_button(ui, Icon::CollapseRight, "Hide job tray").clicked() {
                actions.push(Action::ToggleTray);
            }
        });
    });
    ui.add_space(tokens::SPACE_XS);

    if model.jobs.is_empty() {
        ui.add_space(tokens::SPACE_L);
        ui.vertical_centered(|ui| {
            ui.label(RichText::new("No jobs yet").color(tokens::TEXT_MUTED));
            ui.label(
                RichText::new("Jobs you generate appear here with their progress and results.")
                    .size(12.5)
                    .color(tokens::TEXT_FAINT),
            );
        });
        return actions;
    }

    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for job in model.tray_jobs() {
                ui.push_id(job.local_id, |ui| {
                    job_card_ui(ui, job, textures, now_ms, &mut actions);
                });
                ui.add_space(tokens::SPACE_S);
            }
        });
    actions
}

fn job_card_ui(
    ui: &mut Ui,
    job: &JobRecord,
    textures: &TextureCache,
    now_ms: i64,
    actions: &mut Vec<Action>,
) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.spacing_mut().item_spacing.y = 6.0;

        // Title row: type · model, and the state pill.
        ui.horizontal(|ui| {
            let ran = job
                .result
                .as_ref()
                .and_then(|r| r.model.clone())
                .filter(|m| !m.is_empty() && *m != job.model_label);
            let mut title = format!("{} · {}", job.spec.kind.label(), job.model_label);
            if let Some(ran) = &ran {
                title.push_str(&format!(" · ran {ran}"));
            }
            let row = Vec2::new(ui.available_width(), 22.0);
            ui.allocate_ui_with_layout(
                row,
                egui::Layout::right_to_left(egui::Align::Center),
                |ui| {
                    widgets::pill(ui, job.phase.label(), phase_color(&job.phase));
                    ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                        ui.add(
                            egui::Label::new(RichText::new(title).strong().color(tokens::TEXT))
                                .truncate(),
                        );
                    });
                },
            );
        });

        // Prompt excerpt, one line.
        let prompt = &job.spec.request.prompt;
        ui.add(
            egui::Label::new(
                RichText::new(format::excerpt(prompt, 200))
                    .size(12.5)
                    .color(tokens::TEXT_MUTED),
            )
            .truncate(),
        )
        .on_hover_text(prompt.clone());

        if matches!(job.phase, JobPhase::Running { .. } | JobPhase::Submitting) {
            let fraction = (job.progress_percent / 100.0).clamp(0.0, 1.0);
            ui.add(
                egui::ProgressBar::new(fraction)
                    .desired_height(6.0)
                    .fill(tokens::ACCENT)
                    .corner_radius(CornerRadius::same(3))
                    .animate(fraction <= 0.0),
            );
        }

        // Meta row: elapsed, credits, actions.
        ui.horizontal(|ui| {
            let end = job.finished_at_unix_ms.unwrap_or(now_ms);
            let elapsed = format::elapsed(end - job.submitted_at_unix_ms);
            let mut meta = elapsed;
            match (job.credits_used, job.credits_estimate) {
                (Some(used), _) => meta.push_str(&format!("  ·  {}", format::credits(used))),
                (None, Some(estimate)) => {
                    meta.push_str(&format!("  ·  {} est.", format::credits(estimate)))
                }
                (None, None) => {}
            }
            ui.label(
                RichText::new(meta)
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::TEXT_FAINT),
            );
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let running = matches!(job.phase, JobPhase::Running { .. });
                if running && ui.add(widgets::subtle_button("Cancel")).clicked() {
                    actions.push(Action::Send(Box::new(Command::Cancel {
                        local_id: job.local_id,
                    })));
                }
                if job.phase.is_finished() && ui.add(widgets::subtle_button("Dismiss")).clicked() {
                    actions.push(Action::Send(Box::new(Command::Dismiss {
                        local_id: job.local_id,
                    })));
                }
                if matches!(
                    job.phase,
                    JobPhase::Failed { .. } | JobPhase::Rejected { .. }
                ) && ui.add(widgets::subtle_button("Retry…")).clicked()
                {
                    actions.push(Action::Ask(Confirm::Retry(job.local_id)));
                }
            });
        });

        if let Some(problem) = &job.poll_problem {
            widgets::notice(ui, problem, tokens::WARNING);
        }

        match &job.phase {
            JobPhase::Failed { failure } => {
                let message = if failure.message.is_empty() {
                    "The job failed without a message."
                } else {
                    failure.message.as_str()
                };
                ui.label(RichText::new(message).size(12.5).color(tokens::DANGER));
                let (retry, color) = match failure.retryable {
                    Some(true) => ("Retry is safe", tokens::TEXT_MUTED),
                    Some(false) => ("Retry may not help", tokens::TEXT_MUTED),
                    None => ("Whether a retry helps is unknown", tokens::TEXT_FAINT),
                };
                ui.label(RichText::new(retry).size(tokens::TEXT_SMALL).color(color));
            }
            JobPhase::Rejected { error } => {
                ui.label(
                    RichText::new(format!("Not accepted: {error}"))
                        .size(12.5)
                        .color(tokens::DANGER),
                );
                ui.label(
                    RichText::new("No job was created and nothing was billed.")
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::TEXT_FAINT),
                );
            }
            JobPhase::Unconfirmed { note } => {
                ui.label(RichText::new(note).size(12.5).color(tokens::WARNING));
                ui.horizontal(|ui| {
                    if ui.add(widgets::secondary_button("Check again")).clicked() {
                        actions.push(Action::Send(Box::new(Command::Reconcile {
                            local_id: job.local_id,
                        })));
                    }
                    if ui.add(widgets::subtle_button("Submit again…")).clicked() {
                        actions.push(Action::Ask(Confirm::SubmitAgain(job.local_id)));
                    }
                });
            }
            _ => {}
        }

        if let Some(result) = job.result.as_ref().filter(|r| !r.urls.is_empty()) {
            {
                ui.add_space(2.0);
                ui.horizontal_wrapped(|ui| {
                    ui.spacing_mut().item_spacing = Vec2::splat(6.0);
                    for (index, url) in result.urls.iter().enumerate() {
                        let source = if index == 0 {
                            result.thumbnail_url.as_deref().unwrap_or(url)
                        } else {
                            url
                        };
                        let name = format!("Open result {} of {}", index + 1, result.urls.len());
                        let result_ref = ResultRef::Job {
                            local_id: job.local_id,
                            index,
                        };
                        let tile = ResultTile {
                            result: &result_ref,
                            image_url: source,
                            name: &name,
                            favourite: false,
                            side: tokens::THUMB_SIDE,
                            fit: Fit::Cover,
                            buttons: false,
                        };
                        if let Some(event) = result_tile_ui(ui, textures, &tile) {
                            let action = event.into_action(|| job_result_refs(job), index);
                            actions.push(Action::Result(action));
                        }
                    }
                });
            }
        }
    });
}
