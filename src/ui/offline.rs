//! The service as the UI sees it (answering or not), and the one widget every panel shows
//! in place of a raw networking error while it is unreachable.

use crate::ui::model::Model;
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Ui};

/// What the engine last said about reachability.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServiceStatus {
    /// Set while reads get no answer; `None` when the service answers (or has not failed).
    pub unreachable: Option<Unreachable>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Unreachable {
    /// Where the studio tries to reach it, for the message.
    pub base_url: String,
    /// The raw networking error (details expander and log).
    pub error: String,
}

impl ServiceStatus {
    pub fn is_offline(&self) -> bool {
        self.unreachable.is_some()
    }
}

/// The sentence a person reads while the service is unreachable.
pub fn unreachable_message(base_url: &str) -> String {
    format!("Can't reach the service at {base_url} — retrying")
}

/// Shown where a panel failed to load something. While the service is unreachable: the
/// human message, a Retry button and the raw error in a details expander; otherwise the
/// panel's own `what: error` line.
///
/// Retry is recorded in egui memory and taken by the shell after layout
/// ([`take_retry_request`]), so panels need not thread an action out of deep layout code.
pub fn load_error_ui(ui: &mut Ui, model: &Model, what: &str, error: &str) {
    match &model.service.unreachable {
        Some(unreachable) => unreachable_ui(ui, unreachable, error),
        None => widgets::notice(ui, &format!("{what}: {error}"), tokens::palette().warning),
    }
}

/// The offline banner alone (nothing while the service answers); for panels whose own
/// error spot has no model at hand.
pub fn banner_ui(ui: &mut Ui, model: &Model) {
    if let Some(unreachable) = &model.service.unreachable {
        unreachable_ui(ui, unreachable, &unreachable.error);
    }
}

fn unreachable_ui(ui: &mut Ui, unreachable: &Unreachable, raw_error: &str) {
    ui.push_id("service_unreachable", |ui| {
        ui.horizontal_wrapped(|ui| {
            widgets::notice(
                ui,
                &unreachable_message(&unreachable.base_url),
                tokens::palette().warning,
            );
            let retry = ui
                .add(widgets::secondary_button("Retry").small())
                .on_hover_text("Try to reach the service now instead of waiting");
            if retry.clicked() {
                request_retry(ui.ctx());
            }
        });
        egui::CollapsingHeader::new(RichText::new("Details").size(tokens::TEXT_SMALL))
            .id_salt("service_unreachable_details")
            .show(ui, |ui| {
                ui.label(
                    RichText::new(raw_error)
                        .size(tokens::TEXT_SMALL)
                        .color(tokens::palette().text_faint),
                );
            });
    });
}

/// For panels that keep only an error's text (the Library's grid and folder list): a
/// networking failure reads as the short human sentence (the offline banner above them
/// has Retry and the details); any other error is shown as it is.
pub fn human_error(raw: &str) -> std::borrow::Cow<'_, str> {
    let unreachable_prefixes = [
        crate::api::ApiError::Connect(String::new()).to_string(),
        crate::api::ApiError::NoResponse(String::new()).to_string(),
    ];
    if unreachable_prefixes
        .iter()
        .any(|prefix| raw.starts_with(prefix.as_str()))
    {
        "Can't reach the service — retrying".into()
    } else {
        raw.into()
    }
}

/// [`human_error`] for panels that keep the error itself and offer their own Retry (the
/// Chat view's models and balance, the Docs view): unreachable and unanswered said plainly
/// (the engine logs the raw error); any other refusal is the service's own sentence.
pub fn service_error(error: &crate::api::ApiError) -> String {
    use crate::api::ApiError;
    match error {
        ApiError::Connect(_) => "the service can't be reached right now".to_owned(),
        ApiError::NoResponse(_) => "the service did not answer".to_owned(),
        // Words without status numbers or codes, as a clause ("Not saved: …. Your text…");
        // the raw error is logged where it arrives.
        other => as_clause(&crate::engine::error_in_words(other)),
    }
}

/// A sentence as a clause inside another: no full stop, and a lower-case first letter
/// unless the first word is an acronym ("API key…").
fn as_clause(sentence: &str) -> String {
    let text = sentence.trim().trim_end_matches('.');
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => {
            first.to_lowercase().chain(text.chars().skip(1)).collect()
        }
        _ => text.to_owned(),
    }
}

fn retry_id() -> egui::Id {
    egui::Id::unique("framewright_service_retry_requested")
}

/// Records that the user pressed a Retry for the service.
pub fn request_retry(ctx: &egui::Context) {
    ctx.data_mut(|d| d.insert_temp(retry_id(), true));
}

/// Whether Retry was pressed since the last call (the shell sends the engine command).
pub fn take_retry_request(ctx: &egui::Context) -> bool {
    ctx.data_mut(|d| d.remove_temp::<bool>(retry_id()).unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_the_address_and_says_it_retries() {
        assert_eq!(
            unreachable_message("http://127.0.0.1:4100/api"),
            "Can't reach the service at http://127.0.0.1:4100/api — retrying"
        );
    }

    #[test]
    fn networking_errors_read_as_a_sentence_and_others_stay() {
        let refused = crate::api::ApiError::Connect("tcp connect error".into()).to_string();
        assert_eq!(human_error(&refused), "Can't reach the service — retrying");
        assert_eq!(human_error("Not found (404)"), "Not found (404)");
    }

    #[test]
    fn a_refusal_reads_as_a_clause_without_status_numbers() {
        let refusal = |status: u16, message: &str| crate::api::ApiError::Status {
            status,
            message: message.to_owned(),
            code: Some("SOME_CODE".to_owned()),
            retry_after_secs: None,
        };
        assert_eq!(
            service_error(&refusal(503, "")),
            "the service had a problem"
        );
        assert_eq!(
            service_error(&refusal(400, "Title is too long")),
            "title is too long"
        );
        assert_eq!(
            service_error(&refusal(401, "API key not valid")),
            "API key not valid"
        );
    }

    #[test]
    fn retry_request_is_taken_once() {
        let ctx = egui::Context::default();
        assert!(!take_retry_request(&ctx));
        request_retry(&ctx);
        assert!(take_retry_request(&ctx));
        assert!(!take_retry_request(&ctx));
    }
}
