//! The job tray: one card per job, newest first, with state, progress, elapsed time,
//! credits, failures, and the results as thumbnails that open the viewer.

use crate::engine::{Command, JobPhase, JobRecord};
use crate::session::OtherProfileJob;
use crate::ui::format;
use crate::ui::icons::{Icon, paint_icon};
use crate::ui::job_wording;
use crate::ui::model::{Action, Confirm, Model, ResultRef};
use crate::ui::result_tile::{Fit, ResultTile, job_result_refs, result_tile_ui};
use crate::ui::textures::TextureCache;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{Color32, CornerRadius, RichText, Role, Sense, Ui, Vec2, WidgetInfo};

pub fn phase_color(phase: &JobPhase) -> Color32 {
    match phase {
        JobPhase::Queued { .. } => tokens::palette().text_muted,
        JobPhase::Submitting | JobPhase::Running { .. } => tokens::palette().info,
        JobPhase::Unconfirmed { .. } => tokens::palette().warning,
        JobPhase::Completed => tokens::palette().success,
        JobPhase::Failed { .. } | JobPhase::Rejected { .. } => tokens::palette().danger,
        JobPhase::Cancelled => tokens::palette().text_faint,
    }
}

/// The tray's contents (the panel frame is the shell's): the active profile's jobs and
/// `others`, the jobs of profiles switched away from, each labelled with its profile.
pub fn tray_ui(
    ui: &mut Ui,
    model: &Model,
    others: &[OtherProfileJob<'_>],
    textures: &TextureCache,
    now_ms: i64,
) -> Vec<Action> {
    let mut actions = Vec::new();
    ui.horizontal(|ui| {
        ui.label(
            RichText::new("Jobs")
                .size(tokens::TEXT_TITLE)
                .strong()
                .color(tokens::palette().text),
        );
        let running = model.running_count()
            + others
                .iter()
                .filter(|other| !other.record.phase.is_finished())
                .count();
        if running > 0 {
            widgets::pill(ui, &format!("{running} running"), tokens::palette().info);
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if widgets::icon_button(ui, Icon::CollapseRight, "Hide job tray").clicked() {
                actions.push(Action::ToggleTray);
            }
        });
    });
    ui.add_space(tokens::SPACE_XS);

    if model.jobs.is_empty() && others.is_empty() {
        ui.add_space(tokens::SPACE_L);
        ui.vertical_centered(|ui| {
            ui.label(RichText::new("No jobs yet").color(tokens::palette().text_muted));
            ui.label(
                RichText::new("Jobs you generate appear here with their progress and results.")
                    .size(12.5)
                    .color(tokens::palette().text_faint),
            );
        });
        return actions;
    }

    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            // Newest first across profiles (one journal numbers every profile's jobs).
            let mut cards: Vec<(&JobRecord, Option<&str>)> = model
                .tray_jobs()
                .map(|job| (job, None))
                .chain(others.iter().map(|o| (o.record, Some(o.profile_name))))
                .collect();
            cards.sort_by_key(|(job, _)| std::cmp::Reverse(job.local_id));
            for (job, profile_name) in cards {
                ui.push_id((job.local_id, profile_name), |ui| {
                    let card = JobCard {
                        job,
                        other_profile: profile_name,
                    };
                    job_card_ui(ui, card, model, textures, now_ms, &mut actions);
                });
                ui.add_space(tokens::SPACE_S);
            }
        });
    actions
}

/// What can be done with a job, in the order its buttons and context menu list them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobCommand {
    Open,
    Cancel,
    Retry,
    CheckAgain,
    SubmitAgain,
    Dismiss,
    CopyPrompt,
}

impl JobCommand {
    pub fn label(self) -> &'static str {
        match self {
            JobCommand::Open => "Open",
            JobCommand::Cancel => "Cancel",
            JobCommand::Retry => "Retry…",
            JobCommand::CheckAgain => "Check again",
            JobCommand::SubmitAgain => "Submit again…",
            JobCommand::Dismiss => "Dismiss",
            JobCommand::CopyPrompt => "Copy prompt",
        }
    }
}

/// The commands that apply to `job` now.
pub fn job_commands(job: &JobRecord) -> Vec<JobCommand> {
    let mut out = Vec::new();
    if job.result.as_ref().is_some_and(|r| !r.urls.is_empty()) {
        out.push(JobCommand::Open);
    }
    match &job.phase {
        // A running trim cannot be cancelled (the contract has no route for it).
        JobPhase::Queued { .. } | JobPhase::Running { .. } if job.can_cancel() => {
            out.push(JobCommand::Cancel);
        }
        JobPhase::Failed { .. } | JobPhase::Rejected { .. } => out.push(JobCommand::Retry),
        JobPhase::Unconfirmed { .. } => {
            out.extend([JobCommand::CheckAgain, JobCommand::SubmitAgain]);
        }
        _ => {}
    }
    if job.phase.is_finished() {
        out.push(JobCommand::Dismiss);
    }
    out.push(JobCommand::CopyPrompt);
    out
}

/// The action a command asks of the shell (copying happens right here, on the UI thread).
fn command_action(ui: &Ui, job: &JobRecord, command: JobCommand) -> Action {
    let local_id = job.local_id;
    match command {
        JobCommand::Open => Action::OpenViewer { local_id, index: 0 },
        JobCommand::Cancel => Action::Send(Box::new(Command::Cancel { local_id })),
        JobCommand::Retry => Action::Ask(Confirm::Retry(local_id)),
        JobCommand::CheckAgain => Action::Send(Box::new(Command::Reconcile { local_id })),
        JobCommand::SubmitAgain => Action::Ask(Confirm::SubmitAgain(local_id)),
        JobCommand::Dismiss => Action::Send(Box::new(Command::Dismiss { local_id })),
        JobCommand::CopyPrompt => {
            ui.ctx().copy_text(job.spec.request.prompt.clone());
            Action::Toast(
                crate::ui::toasts::ToastKind::Info,
                "Prompt copied to the clipboard".to_owned(),
            )
        }
    }
}

/// A Creative Director batch's scenes under its card: one line each with its state.
fn scene_rows_ui(ui: &mut Ui, job: &JobRecord) {
    use crate::ui::compose::storyboard::{SceneView, scene_views};
    ui.indent(("scenes", job.local_id), |ui| {
        ui.spacing_mut().item_spacing.y = 2.0;
        for (title, view) in scene_views(job) {
            let (state, color) = match view {
                SceneView::Waiting => ("waiting".to_owned(), tokens::palette().text_faint),
                SceneView::Running { percent } => {
                    (format!("{percent:.0} %"), tokens::palette().info)
                }
                SceneView::Done { .. } => ("done".to_owned(), tokens::palette().success),
                SceneView::Failed => ("failed".to_owned(), tokens::palette().danger),
            };
            ui.horizontal(|ui| {
                ui.add(
                    egui::Label::new(
                        RichText::new(job_wording::short_title(&title, 40))
                            .size(tokens::TEXT_SMALL)
                            .color(tokens::palette().text_muted),
                    )
                    .truncate(),
                )
                .on_hover_text(&title);
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.label(RichText::new(state).size(tokens::TEXT_SMALL).color(color));
                });
            });
        }
    });
}

/// One card: a job, and the profile it belongs to when that is not the active one.
#[derive(Clone, Copy)]
struct JobCard<'a> {
    job: &'a JobRecord,
    other_profile: Option<&'a str>,
}

/// What a card of another profile's job offers: its results open and a retry is submitted
/// only on its own profile (switch to it), but Cancel and Dismiss reach its engine.
fn offered_on_other_profile(command: JobCommand) -> bool {
    !matches!(
        command,
        JobCommand::Open | JobCommand::Retry | JobCommand::SubmitAgain
    )
}

/// The raw text behind an error, collapsed under "Details".
fn details_ui(ui: &mut Ui, raw: &str) {
    egui::CollapsingHeader::new(RichText::new("Details").size(tokens::TEXT_SMALL))
        .id_salt("job_error_details")
        .show(ui, |ui| {
            ui.label(
                RichText::new(raw)
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_faint),
            );
        });
}

/// The line on a tray card of a job that belongs to a profile other than the active one.
pub fn other_profile_label(profile_name: &str) -> String {
    format!("On {profile_name}")
}

/// Where the results of another profile's job can be opened.
fn other_profile_results_hint(profile_name: &str) -> String {
    format!("Switch to {profile_name} to open its results.")
}

fn job_card_ui(
    ui: &mut Ui,
    card: JobCard<'_>,
    model: &Model,
    textures: &TextureCache,
    now_ms: i64,
    actions: &mut Vec<Action>,
) {
    let JobCard { job, other_profile } = card;
    let commands: Vec<JobCommand> = job_commands(job)
        .into_iter()
        .filter(|command| other_profile.is_none() || offered_on_other_profile(*command))
        .collect();
    let card = tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.spacing_mut().item_spacing.y = 6.0;

        // Title row: "Image · Flux Schnell · a quiet harbour…", and the state pill.
        let prompt = &job.spec.request.prompt;
        ui.horizontal(|ui| {
            let title = job_wording::job_title(
                job.spec.kind.label(),
                &job_wording::model_name(job, model),
                prompt,
            );
            let row = Vec2::new(ui.available_width(), 22.0);
            ui.allocate_ui_with_layout(
                row,
                egui::Layout::right_to_left(egui::Align::Center),
                |ui| {
                    widgets::pill(ui, job.phase.label(), phase_color(&job.phase));
                    ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                        ui.add(
                            egui::Label::new(
                                RichText::new(title).strong().color(tokens::palette().text),
                            )
                            .truncate(),
                        )
                        .on_hover_text(prompt.clone());
                    });
                },
            );
        });

        if let Some(profile_name) = other_profile {
            ui.add(
                egui::Label::new(
                    RichText::new(other_profile_label(profile_name))
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_muted),
                )
                .truncate(),
            );
        }

        if let JobPhase::Queued {
            place,
            sends_at_unix_ms,
            reason,
        } = job.phase
        {
            ui.label(
                RichText::new(job_wording::queued_text(
                    place,
                    sends_at_unix_ms,
                    reason,
                    now_ms,
                ))
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_muted),
            );
        }
        if matches!(job.phase, JobPhase::Running { .. } | JobPhase::Submitting) {
            widgets::job_progress_bar(ui, job.progress_percent);
            let elapsed_secs = (now_ms - job.submitted_at_unix_ms).max(0) as f64 / 1000.0;
            let estimate_secs = job_wording::estimated_duration_secs(job, model);
            ui.label(
                RichText::new(job_wording::progress_text(
                    job.progress_percent,
                    elapsed_secs,
                    estimate_secs,
                ))
                .size(tokens::TEXT_SMALL)
                .color(tokens::palette().text_muted),
            );
        }

        if !job.scenes.is_empty() {
            scene_rows_ui(ui, job);
        }
        // Finished: what the service made and charged, next to what was asked (then the
        // meta row leaves the credits out).
        let outcome = crate::ui::job_outcome::outcome_line(job, model);
        let credits_in_outcome = outcome.is_some()
            && (job.credits_used.is_some()
                || job.spec.kind == crate::api::GenerationKind::VideoTrim);
        if let Some(outcome) = outcome {
            ui.add(
                egui::Label::new(
                    RichText::new(outcome)
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_muted),
                )
                .wrap(),
            );
        }

        // Meta row: elapsed, credits, actions.
        ui.horizontal(|ui| {
            let end = job.finished_at_unix_ms.unwrap_or(now_ms);
            let elapsed = format::elapsed(end - job.submitted_at_unix_ms);
            let mut meta = elapsed;
            match (job.credits_used, job.credits_estimate) {
                _ if credits_in_outcome => {}
                // A trim uses no credits at all (the contract has no credits field for it).
                _ if job.spec.kind == crate::api::GenerationKind::VideoTrim => {
                    meta.push_str("  ·  free");
                }
                (Some(used), _) => meta.push_str(&format!("  ·  {}", format::credits(used))),
                (None, Some(estimate)) => {
                    meta.push_str(&format!("  ·  {} est.", format::credits(estimate)))
                }
                (None, None) => {}
            }
            ui.label(
                RichText::new(meta)
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_faint),
            );
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                // Open is the thumbnails, Copy prompt and the unconfirmed pair live
                // elsewhere on the card; the context menu lists them all.
                let queued = matches!(job.phase, JobPhase::Queued { .. });
                for command in commands.iter().copied() {
                    if !matches!(
                        command,
                        JobCommand::Cancel | JobCommand::Dismiss | JobCommand::Retry
                    ) {
                        continue;
                    }
                    let mut response = ui.add(widgets::subtle_button(command.label()));
                    if queued && command == JobCommand::Cancel {
                        response = response
                            .accessible_name(job_wording::CANCEL_QUEUED_NAME)
                            .on_hover_text(job_wording::CANCEL_QUEUED_HOVER);
                    }
                    if response.clicked() {
                        actions.push(command_action(ui, job, command));
                    }
                }
            });
        });

        if let Some(problem) = &job.poll_problem {
            widgets::notice(ui, problem, tokens::palette().warning);
        }

        match &job.phase {
            JobPhase::Failed { failure } => {
                let message = if failure.message.is_empty() {
                    "The job failed without a message."
                } else {
                    failure.message.as_str()
                };
                ui.label(
                    RichText::new(message)
                        .size(12.5)
                        .color(tokens::palette().danger),
                );
                let (retry, color) = match failure.retryable {
                    Some(true) => ("Retry is safe", tokens::palette().text_muted),
                    Some(false) => ("Retry may not help", tokens::palette().text_muted),
                    None => (
                        "Whether a retry helps is unknown",
                        tokens::palette().text_faint,
                    ),
                };
                ui.label(RichText::new(retry).size(tokens::TEXT_SMALL).color(color));
                if let Some(details) = job_wording::failure_details(failure) {
                    details_ui(ui, &details);
                }
            }
            JobPhase::Rejected { error } => {
                let balance = model.credits.value.as_ref().and_then(|c| c.spendable());
                let (headline, note) = job_wording::rejected_job_text(job, error, balance);
                ui.label(
                    RichText::new(headline)
                        .size(12.5)
                        .color(tokens::palette().danger),
                );
                ui.label(
                    RichText::new(note)
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_faint),
                );
                details_ui(ui, &job_wording::rejected_details(error));
            }
            JobPhase::Unconfirmed { note } => {
                ui.label(
                    RichText::new(note)
                        .size(12.5)
                        .color(tokens::palette().warning),
                );
                ui.horizontal(|ui| {
                    let check = JobCommand::CheckAgain;
                    if ui.add(widgets::secondary_button(check.label())).clicked() {
                        actions.push(command_action(ui, job, check));
                    }
                    let again = JobCommand::SubmitAgain;
                    if commands.contains(&again)
                        && ui.add(widgets::subtle_button(again.label())).clicked()
                    {
                        actions.push(command_action(ui, job, again));
                    }
                });
            }
            _ => {}
        }

        // A chat answer has no pictures: its first line stands in for them.
        if let Some(answer) = job.result.as_ref().and_then(|r| r.content.as_deref()) {
            ui.add(
                egui::Label::new(
                    RichText::new(format::excerpt(answer, 140))
                        .size(12.5)
                        .color(tokens::palette().text_muted),
                )
                .wrap(),
            );
        }
        let has_outputs = job.result.as_ref().is_some_and(|r| !r.urls.is_empty());
        if let (true, Some(profile_name)) = (has_outputs, other_profile) {
            ui.label(
                RichText::new(other_profile_results_hint(profile_name))
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_faint),
            );
        }
        if let Some(result) = job
            .result
            .as_ref()
            .filter(|r| !r.urls.is_empty() && other_profile.is_none())
        {
            if job.spec.kind == crate::api::GenerationKind::Transcription {
                ui.add_space(2.0);
                let width = ui.available_width();
                crate::ui::transcript::jobs::result_card_ui(ui, job, width, actions);
            } else if job.spec.kind.outputs_audio() {
                // Sound: the shared audio tiles (▶, title, waveform), one under another.
                ui.add_space(2.0);
                ui.push_id(("tray_audio", job.local_id), |ui| {
                    crate::ui::compose::audio_results::audio_job_ui(
                        ui,
                        job,
                        ui.available_width(),
                        &job_result_refs(job),
                        |_| false,
                        actions,
                    );
                });
            } else {
                ui.add_space(2.0);
                // Rows of as many tiles as fit the card (a tile's own layout does not
                // wrap, and an over-long row would widen the card past the tray).
                let gap = 6.0;
                let per_row = (((ui.available_width() + gap) / (tokens::THUMB_SIDE + gap)).floor()
                    as usize)
                    .max(1);
                // A 3D model is one tile (GLB and OBJ are files of one model).
                let shown = if job.spec.kind.outputs_3d() {
                    1
                } else {
                    result.urls.len()
                };
                let indexed: Vec<(usize, &String)> =
                    result.urls.iter().enumerate().take(shown).collect();
                for row in indexed.chunks(per_row) {
                    ui.horizontal(|ui| {
                        ui.spacing_mut().item_spacing = Vec2::splat(gap);
                        for &(index, url) in row {
                            let source = crate::ui::result_tile::job_output_picture(result, index)
                                .unwrap_or(url);
                            let name = if job.spec.kind.outputs_3d() {
                                "Open 3D model".to_owned()
                            } else {
                                format!("Open result {} of {}", index + 1, result.urls.len())
                            };
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
                                model_3d: job.spec.kind.outputs_3d(),
                                video: crate::ui::result_tile::job_output_video(result, index),
                            };
                            if let Some(event) = result_tile_ui(ui, textures, &tile) {
                                let action = event.into_action(|| job_result_refs(job), index);
                                actions.push(Action::Result(action));
                            }
                        }
                    });
                }
            }
        }
    });
    card.response.container_context_menu(|ui| {
        for command in commands.iter().copied() {
            if ui.button(command.label()).clicked() {
                actions.push(command_action(ui, job, command));
                ui.close();
            }
        }
    });
}
/// Narrower windows get the collapsed strip so the panels keep their room.
pub const TRAY_COLLAPSE_BELOW_PT: f32 = 1200.0;
/// Width of the collapsed strip.
pub const TRAY_STRIP_WIDTH_PT: f32 = 44.0;
/// The narrowest and widest the open tray may be dragged.
pub const TRAY_MIN_WIDTH_PT: f32 = 280.0;
pub const TRAY_MAX_WIDTH_PT: f32 = 560.0;
/// The key of the tray's entry in `UiMemory.panels`.
pub const TRAY_PANEL_KEY: &str = "tray";

/// What the tray remembers across restarts: the artist's open/closed choice and the width
/// they dragged it to.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct TrayMemory {
    pub open: bool,
    pub width_pt: f32,
}

impl Default for TrayMemory {
    fn default() -> Self {
        Self {
            open: false,
            width_pt: tokens::TRAY_WIDTH,
        }
    }
}

/// Whether the tray is open or a narrow strip, and how wide it is. The artist decides:
/// the strip, the status bar's button, Ctrl+J and the tray's hide button toggle it, and
/// the choice and the width are remembered. Only the first job submitted in a run opens
/// it by itself (and only when the artist has not toggled it yet in that run). A window
/// narrower than [`TRAY_COLLAPSE_BELOW_PT`] shows the strip without forgetting the
/// choice; a click on the strip there shows the tray until the window changes class.
#[derive(Clone, Debug)]
pub struct TrayState {
    memory: TrayMemory,
    /// A narrow window's strip was clicked: the tray shows anyway.
    shown_while_narrow: bool,
    /// Whether the window was wide enough last frame (`None` before the first frame).
    wide: Option<bool>,
    /// The artist toggled the tray, or the first job opened it, in this run.
    settled_this_run: bool,
    /// `memory` changed since it was last written.
    unsaved: bool,
}

impl Default for TrayState {
    fn default() -> Self {
        Self::restore(None)
    }
}

impl TrayState {
    /// From `UiMemory.panels["tray"]` (an unreadable value falls back to the defaults).
    pub fn restore(value: Option<&serde_json::Value>) -> Self {
        let mut memory: TrayMemory = value
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default();
        if !memory.width_pt.is_finite() {
            memory.width_pt = tokens::TRAY_WIDTH;
        }
        memory.width_pt = memory.width_pt.clamp(TRAY_MIN_WIDTH_PT, TRAY_MAX_WIDTH_PT);
        Self {
            memory,
            shown_while_narrow: false,
            wide: None,
            settled_this_run: false,
            unsaved: false,
        }
    }

    /// Start open or closed whatever was remembered (open even in a narrow window), and
    /// stay so when the first job comes (`--tray open|closed`, for screenshots). Not
    /// written to the settings.
    pub fn start_as(&mut self, open: bool) {
        self.memory.open = open;
        self.shown_while_narrow = open;
        self.settled_this_run = true;
    }

    /// Called once per frame before layout.
    pub fn update(&mut self, window_width_pt: f32) {
        let wide = window_width_pt >= TRAY_COLLAPSE_BELOW_PT;
        if self.wide.is_some_and(|was_wide| was_wide != wide) {
            self.shown_while_narrow = false;
        }
        self.wide = Some(wide);
    }

    /// Whether the tray shows open this frame (else the strip).
    pub fn expanded(&self) -> bool {
        if self.wide.unwrap_or(true) {
            self.memory.open
        } else {
            self.shown_while_narrow
        }
    }

    /// The artist's remembered choice (a narrow window may still show the strip).
    pub fn open_chosen(&self) -> bool {
        self.memory.open
    }

    /// The open tray's width, as the artist left it.
    pub fn width_pt(&self) -> f32 {
        self.memory.width_pt
    }

    /// The artist dragged the tray's edge.
    pub fn set_width(&mut self, width_pt: f32) {
        let width_pt = width_pt.clamp(TRAY_MIN_WIDTH_PT, TRAY_MAX_WIDTH_PT);
        if (width_pt - self.memory.width_pt).abs() >= 0.5 {
            self.memory.width_pt = width_pt;
            self.unsaved = true;
        }
    }

    /// A job was submitted in this run: the first one opens the tray, later ones leave it
    /// as the artist has it (the strip and the status bar count them).
    pub fn job_submitted(&mut self) {
        if self.settled_this_run {
            return;
        }
        self.settled_this_run = true;
        if !self.memory.open {
            self.memory.open = true;
            self.unsaved = true;
        }
    }

    pub fn toggle(&mut self) {
        self.settled_this_run = true;
        if self.wide.unwrap_or(true) {
            self.memory.open = !self.memory.open;
            self.unsaved = true;
        } else {
            self.shown_while_narrow = !self.shown_while_narrow;
        }
    }

    /// The value to store under [`TRAY_PANEL_KEY`] when it changed; `settled`: no drag is
    /// under way (a drag is written once, when it ends).
    pub fn memory_to_write(&mut self, settled: bool) -> Option<serde_json::Value> {
        if !self.unsaved || !settled {
            return None;
        }
        self.unsaved = false;
        serde_json::to_value(&self.memory).ok()
    }
}

/// The collapsed tray: a badge with the running count and a "Show job tray" button.
pub fn tray_strip_ui(ui: &mut Ui, model: &Model) -> Vec<Action> {
    let mut actions = Vec::new();
    ui.vertical_centered(|ui| {
        ui.add_space(tokens::SPACE_S);
        let response = ui
            .allocate_exact_size(Vec2::new(32.0, 32.0), Sense::click())
            .1;
        let rect = response.rect;
        let painter = ui.painter();
        let hovered = response.hovered();
        if hovered {
            painter.rect_filled(
                rect,
                CornerRadius::same(tokens::RADIUS_M),
                tokens::palette().bg_elevated,
            );
        }
        let color = if hovered {
            tokens::palette().text
        } else {
            tokens::palette().text_muted
        };
        // The expand glyph: the collapse icon mirrored is not available, so a chevron.
        paint_icon(painter, rect.shrink(7.0), Icon::ChevronLeft, color);
        let running = model.running_count();
        if running > 0 {
            let center = egui::pos2(rect.right() - 3.0, rect.top() + 3.0);
            painter.circle_filled(center, 8.0, tokens::palette().accent);
            painter.text(
                center,
                egui::Align2::CENTER_CENTER,
                running.min(99).to_string(),
                egui::FontId::proportional(10.0),
                tokens::palette().on_accent,
            );
        }
        let name = if running > 0 {
            format!("Show job tray ({running} running)")
        } else {
            "Show job tray".to_owned()
        };
        response.widget_info(|| WidgetInfo::labeled(Role::Button, true, "Show job tray"));
        let response = response
            .on_hover_cursor(egui::CursorIcon::PointingHand)
            .on_hover_text(name);
        if response.clicked() {
            actions.push(Action::ToggleTray);
        }
    });
    actions
}

#[cfg(test)]
mod tray_tests {
    use super::*;

    #[test]
    fn a_fresh_tray_is_closed_and_the_first_job_of_a_run_opens_it() {
        let mut tray = TrayState::default();
        tray.update(1440.0);
        assert!(!tray.expanded());
        tray.job_submitted();
        assert!(tray.expanded());
    }

    #[test]
    fn later_jobs_leave_a_closed_tray_closed() {
        let mut tray = TrayState::default();
        tray.update(1440.0);
        tray.job_submitted();
        tray.toggle();
        assert!(!tray.expanded());
        tray.job_submitted();
        tray.job_submitted();
        assert!(
            !tray.expanded(),
            "only the first job of a run opens the tray"
        );
    }

    #[test]
    fn a_choice_made_before_the_first_job_is_kept() {
        let mut tray = TrayState::default();
        tray.update(1440.0);
        tray.toggle();
        tray.toggle();
        tray.job_submitted();
        assert!(!tray.expanded(), "the artist closed it in this run");
    }

    #[test]
    fn a_narrow_window_shows_the_strip_without_forgetting_the_choice() {
        let mut tray = TrayState::default();
        tray.update(1440.0);
        tray.toggle();
        assert!(tray.expanded());
        tray.update(1000.0);
        assert!(!tray.expanded());
        assert!(tray.open_chosen());
        // A click on the strip shows it while narrow, and does not change the choice.
        tray.toggle();
        assert!(tray.expanded());
        tray.toggle();
        assert!(!tray.expanded());
        assert!(tray.open_chosen());
        tray.update(1440.0);
        assert!(tray.expanded());
    }

    #[test]
    fn the_choice_and_the_width_survive_a_restart() {
        let mut tray = TrayState::default();
        tray.update(1440.0);
        tray.toggle();
        tray.set_width(412.0);
        assert_eq!(tray.memory_to_write(false), None, "not while dragging");
        let stored = tray.memory_to_write(true).expect("changed");
        assert_eq!(tray.memory_to_write(true), None, "written once");
        let mut again = TrayState::restore(Some(&stored));
        again.update(1440.0);
        assert!(again.expanded());
        assert_eq!(again.width_pt(), 412.0);
        let odd = serde_json::json!({"open": true, "width_pt": 5000.0});
        assert_eq!(TrayState::restore(Some(&odd)).width_pt(), TRAY_MAX_WIDTH_PT);
        let mut narrow = TrayState::restore(Some(&stored));
        narrow.start_as(true);
        narrow.update(960.0);
        assert!(
            narrow.expanded(),
            "--tray open shows it in a narrow window too"
        );
        let broken = serde_json::json!("nonsense");
        assert!(!TrayState::restore(Some(&broken)).open_chosen());
    }
}
