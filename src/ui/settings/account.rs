//! Settings › Account: the active service's credit buckets, what running jobs hold, the
//! low-balance warning threshold, and the "Test connection" outcome of each profile.

use super::{SettingsAction, SettingsForm};
use crate::engine::{AccountEvent, ConnectionProblem, ConnectionReport};
use crate::ui::account;
use crate::ui::format;
use crate::ui::model::{Action, Model};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, TextEdit, Ui};

/// Where one profile's connection test is.
#[derive(Clone, Debug, PartialEq)]
pub enum TestState {
    Running { request_id: u64 },
    Passed(ConnectionReport),
    Failed(ConnectionProblem),
}

impl SettingsForm {
    /// A `Test connection` answer; stale answers (an older request) are dropped.
    pub fn handle_account_event(&mut self, event: AccountEvent) {
        match event {
            AccountEvent::ConnectionTested {
                request_id,
                profile_id,
                result,
            } => {
                let current = matches!(
                    self.tests.get(&profile_id),
                    Some(TestState::Running { request_id: r }) if *r == request_id
                );
                if current {
                    let state = match result {
                        Ok(report) => TestState::Passed(report),
                        Err(problem) => TestState::Failed(problem),
                    };
                    self.tests.insert(profile_id, state);
                }
            }
        }
    }

    /// The next request id for a test (the shell sends it with the profile's key).
    pub fn start_test(&mut self, profile_id: &str) -> u64 {
        self.next_request_id += 1;
        let request_id = self.next_request_id;
        self.tests
            .insert(profile_id.to_owned(), TestState::Running { request_id });
        request_id
    }

    /// The shell could not even send the test (no key stored, the sandbox not running).
    pub fn test_not_started(&mut self, profile_id: &str, message: String) {
        self.tests.insert(
            profile_id.to_owned(),
            TestState::Failed(ConnectionProblem {
                details: message.clone(),
                message,
            }),
        );
    }
}

/// The button and the outcome line on a profile card.
pub fn test_connection_ui(
    ui: &mut Ui,
    profile_id: &str,
    form: &SettingsForm,
    actions: &mut Vec<Action>,
) {
    let state = form.tests.get(profile_id);
    ui.horizontal_wrapped(|ui| {
        let running = matches!(state, Some(TestState::Running { .. }));
        let button = ui
            .add_enabled(!running, widgets::subtle_button("Test connection"))
            .on_hover_text("Checks the key, the time an answer takes and the credit balance");
        if button.clicked() {
            actions.push(Action::Settings(SettingsAction::TestConnection {
                profile_id: profile_id.to_owned(),
            }));
        }
        match state {
            None => {}
            Some(TestState::Running { .. }) => {
                ui.spinner();
                widgets::muted(ui, "Testing…");
            }
            Some(TestState::Passed(report)) => {
                let credits = match report.credits.spendable() {
                    Some(v) => format!("{} available", format::credits(v)),
                    None => "balance not reported".to_owned(),
                };
                ui.label(
                    RichText::new(format!(
                        "Connected: key accepted · {} ms · {credits}",
                        report.latency_ms
                    ))
                    .size(12.5)
                    .color(tokens::palette().success),
                );
            }
            Some(TestState::Failed(problem)) => {
                ui.label(
                    RichText::new(&problem.message)
                        .size(12.5)
                        .color(tokens::palette().danger),
                );
            }
        }
    });
    if let Some(TestState::Failed(problem)) = state
        && problem.details != problem.message
    {
        egui::CollapsingHeader::new("Details")
            .id_salt(("test_details", profile_id))
            .show(ui, |ui| {
                ui.label(
                    RichText::new(&problem.details)
                        .monospace()
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_muted),
                );
            });
    }
}

/// The account card: buckets, reserved, and the low-balance threshold.
pub fn account_ui(
    ui: &mut Ui,
    model: &Model,
    threshold_credits: f64,
    form: &mut SettingsForm,
    actions: &mut Vec<Action>,
) {
    widgets::section_label(ui, "Account");
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        match model.credits.value.as_ref() {
            Some(credits) => account::buckets_ui(
                ui,
                "settings_credit_buckets",
                credits,
                account::reserved_by_running_jobs(model),
            ),
            None if model.credits.error.is_some() => {
                widgets::muted(ui, "The credit balance could not be loaded.");
            }
            None => {
                widgets::muted(ui, "Loading the credit balance…");
            }
        }
        if ui
            .add(widgets::subtle_button("Refresh balance"))
            .on_hover_text("Ask the service for the current balance")
            .clicked()
        {
            actions.push(Action::Send(Box::new(
                crate::engine::Command::RefreshCredits,
            )));
        }
        ui.add_space(tokens::SPACE_S);
        threshold_ui(ui, threshold_credits, form, actions);
    });
}

fn threshold_ui(
    ui: &mut Ui,
    threshold_credits: f64,
    form: &mut SettingsForm,
    actions: &mut Vec<Action>,
) {
    if form.threshold_input.is_none() {
        form.threshold_input = Some(format!("{threshold_credits}"));
    }
    let label = "Warn when the balance is below (credits, 0 = never)";
    widgets::section_label(ui, label);
    let input = form.threshold_input.get_or_insert_with(String::new);
    let response = ui.add(TextEdit::singleline(input).desired_width(120.0));
    widgets::name_widget(&response, "Low-balance warning threshold");
    if response.lost_focus() || response.changed() {
        match parse_threshold(input) {
            Ok(value) => {
                form.threshold_error = None;
                if (value - threshold_credits).abs() > f64::EPSILON {
                    actions.push(Action::Settings(SettingsAction::SetLowBalanceThreshold(
                        value,
                    )));
                }
            }
            Err(message) => form.threshold_error = Some(message),
        }
    }
    if let Some(error) = &form.threshold_error {
        widgets::field_error(ui, error);
    }
}

/// A threshold as typed: a whole or decimal number of credits, 0 or more.
pub fn parse_threshold(text: &str) -> Result<f64, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(0.0);
    }
    match text.replace([',', '_', ' '], "").parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err("Enter a number of credits, 0 or more (0 turns the warning off).".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_are_numbers_of_zero_or_more() {
        assert_eq!(parse_threshold(" 1,000 "), Ok(1000.0));
        assert_eq!(parse_threshold(""), Ok(0.0));
        assert!(parse_threshold("-5").is_err());
        assert!(parse_threshold("lots").is_err());
    }
}
