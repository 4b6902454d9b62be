//! Confirmations: every question the studio asks before a billed, destructive or final
//! step, with its wording (title, body, button, whether it is dangerous) beside it, the
//! dialog that asks it (Enter confirms, Esc cancels), and what a "yes" does.

use super::StudioApp;
use crate::engine::Command;
use crate::ui::model::{Action, Confirm, Model};
use crate::ui::{focus, format, palettes, settings, tokens, widgets};
use egui::RichText;

/// What a confirmation says and offers.
#[derive(Clone, Debug, PartialEq)]
pub struct Wording {
    pub title: String,
    pub body: String,
    /// The confirming button's label.
    pub button: &'static str,
    /// The button is drawn as a danger button (something is lost for good).
    pub danger: bool,
}

impl Wording {
    fn new(title: impl Into<String>, body: impl Into<String>, button: &'static str) -> Self {
        Self {
            title: title.into(),
            body: body.into(),
            button,
            danger: false,
        }
    }

    fn dangerous(self) -> Self {
        Self {
            danger: true,
            ..self
        }
    }
}

/// The wording of `confirm` now (the Quit question counts the jobs still running).
pub fn wording(confirm: &Confirm, model: &Model) -> Wording {
    match confirm {
        Confirm::Vary { credits, .. } => {
            let cost = match credits {
                Some(credits) => format!("It costs about {}.", format::credits(*credits)),
                None => "Its price is not known until it finishes.".to_owned(),
            };
            Wording::new(
                "Vary this result?",
                format!(
                    "This submits a new job with the same prompt and settings and a new \
                     seed. It is billed like any other job: {cost}"
                ),
                "Submit new job",
            )
        }
        Confirm::Looks(question) => {
            let (title, body, button) = question.wording();
            Wording::new(title, body, button).dangerous()
        }
        Confirm::DeletePalette { name, .. } => Wording::new(
            "Delete this palette?",
            format!(
                "“{name}” is removed from your library and every project it grades loses \
                 its colour grade. This can't be undone."
            ),
            "Delete palette",
        )
        .dangerous(),
        Confirm::Retry(local_id) => Wording::new(
            "Retry this job?",
            crate::ui::job_wording::retry_body(model.jobs.get(local_id)),
            "Submit new job",
        ),
        Confirm::RemoveProfile { name, .. } => Wording::new(
            format!("Remove “{name}” and its stored API key?"),
            settings::remove_profile_body(name),
            "Remove profile",
        )
        .dangerous(),
        Confirm::ClearCache { bytes } => Wording::new(
            "Clear the cache?",
            settings::storage::clear_cache_body(*bytes),
            "Clear cache",
        )
        .dangerous(),
        // The count asked with may be stale: the body follows the jobs as they finish.
        Confirm::Quit { .. } => Wording::new(
            "Quit Framewright?",
            crate::ui::shortcuts::quit_body(model.running_count()),
            "Quit",
        ),
        Confirm::SubmitAgain(_) => Wording::new(
            "Submit again?",
            "The first submission may have reached the service. Submitting again may bill \
             twice. Prefer “Check again” unless you are sure it did not arrive. Continue?",
            "Submit again",
        ),
    }
}

/// Whether the question no longer needs an answer and "yes" should simply happen: asked
/// to quit while jobs ran, and they have all finished since.
fn answered_by_itself(confirm: &Confirm, model: &Model) -> bool {
    matches!(confirm, Confirm::Quit { .. }) && model.running_count() == 0
}

/// The dialog: the confirming button has the keyboard focus when it opens, so Enter
/// confirms (Tab reaches Cancel); Esc or a click outside cancels.
pub fn confirm_ui(ctx: &egui::Context, confirm: &Confirm, model: &Model) -> Vec<Action> {
    let mut actions = Vec::new();
    if answered_by_itself(confirm, model) {
        actions.push(Action::Confirmed(confirm.clone()));
        return actions;
    }
    let words = wording(confirm, model);
    let modal_id = egui::Id::unique("confirm_dialog");
    let newly_shown = focus::first_frame_shown(ctx, modal_id);
    let response = egui::Modal::new(modal_id)
        .backdrop_color(tokens::palette().scrim)
        .frame(tokens::card_frame().inner_margin(egui::Margin::same(20)))
        .show(ctx, |ui| {
            ui.set_width(400.0);
            ui.label(
                RichText::new(&words.title)
                    .size(tokens::TEXT_TITLE)
                    .strong()
                    .color(tokens::palette().text),
            );
            ui.add_space(tokens::SPACE_XS);
            ui.label(RichText::new(&words.body).color(tokens::palette().text_muted));
            ui.add_space(tokens::SPACE_M);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let button = if words.danger {
                    widgets::danger_button(words.button)
                } else {
                    widgets::primary_button(words.button)
                };
                let yes = ui.add(button);
                if newly_shown {
                    yes.request_focus();
                }
                if yes.clicked() {
                    actions.push(Action::Confirmed(confirm.clone()));
                }
                if ui.add(widgets::secondary_button("Cancel")).clicked() {
                    actions.push(Action::CancelConfirm);
                }
            });
        });
    if response.should_close() && actions.is_empty() {
        actions.push(Action::CancelConfirm);
    }
    actions
}

impl StudioApp {
    /// The artist said yes: close the dialog and do what was asked.
    pub(super) fn confirmed(&mut self, ctx: &egui::Context, confirm: Confirm) {
        self.confirm = None;
        match confirm {
            Confirm::DeletePalette { .. } => {
                let palettes = self.model.palettes.value.clone().unwrap_or_default();
                let project = self.current_project();
                for follow_up in self.palettes.apply(
                    palettes::PaletteAction::Delete,
                    &palettes,
                    project.as_ref(),
                ) {
                    self.apply(ctx, follow_up);
                }
            }
            Confirm::Looks(question) => self.apply(
                ctx,
                Action::Looks(crate::ui::visual_dna::LooksAction::Confirmed(question)),
            ),
            Confirm::Vary { result, .. } => self.submit_variation(&result),
            Confirm::RemoveProfile { id, .. } => self.apply(ctx, Action::RemoveProfile(id)),
            Confirm::ClearCache { .. } => self.clear_cache(),
            Confirm::Quit { .. } => self.quit_now(ctx),
            Confirm::Retry(local_id) | Confirm::SubmitAgain(local_id) => {
                if let Some(job) = self.model.jobs.get(&local_id) {
                    let command = Command::Submit {
                        spec: job.spec.clone(),
                        model_label: job.model_label.clone(),
                        credits_estimate: job.credits_estimate,
                    };
                    self.send(command);
                }
            }
        }
    }
}
