//! The account's credits as the studio shows them: the buckets, what running jobs hold,
//! the low-balance warning (once per crossing) and how many credits a refused submit
//! lacked. Pure logic and small widgets; the status bar and Settings both use it.

use crate::api::{ApiError, Credits};
use crate::engine::JobPhase;
use crate::ui::format;
use crate::ui::model::Model;
use crate::ui::tokens;
use egui::{RichText, Ui};

/// What running jobs hold: the service's own figure when it sends one (`reserved`, or
/// `total - available`), else the sum of this studio's running jobs' estimates.
pub fn reserved_by_running_jobs(model: &Model) -> Option<f64> {
    let credits = model.credits.value.as_ref();
    let from_service = credits.and_then(|c| {
        c.reserved
            .or_else(|| Some(c.total? - c.available?))
            .map(|r| r.max(0.0))
    });
    if from_service.is_some() {
        return from_service;
    }
    let estimates: Vec<f64> = model
        .jobs
        .values()
        .filter(|job| {
            matches!(
                job.phase,
                JobPhase::Running { .. } | JobPhase::Submitting | JobPhase::Unconfirmed { .. }
            )
        })
        .filter_map(|job| job.credits_estimate)
        .collect();
    (!estimates.is_empty()).then(|| estimates.iter().sum())
}

/// The low-balance warning: on when the spendable balance is below the threshold (0 = off).
/// `observe` says `true` once each time the balance crosses below it, so the toast is not
/// repeated on every refresh while it stays low.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LowBalanceWatch {
    below: bool,
}

impl LowBalanceWatch {
    pub fn observe(&mut self, spendable: Option<f64>, threshold_credits: f64) -> bool {
        let Some(balance) = spendable else {
            return false;
        };
        let below = threshold_credits > 0.0 && balance < threshold_credits;
        let crossed = below && !self.below;
        self.below = below;
        crossed
    }

    pub fn is_low(&self) -> bool {
        self.below
    }

    /// A new service: its balance is judged afresh.
    pub fn reset(&mut self) {
        self.below = false;
    }
}

/// The toast shown once per crossing.
pub fn low_balance_text(balance: f64, threshold_credits: f64) -> String {
    format!(
        "Low balance: {} left (your warning is set at {}). Add credits to keep generating.",
        format::credits(balance),
        format::credits(threshold_credits)
    )
}

/// How short a refused submit was.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MissingCredits {
    pub needed: f64,
    pub available: f64,
    pub missing: f64,
}

/// For a 403/402 INSUFFICIENT_CREDITS refusal: what was needed (the larger of the job's
/// estimate and the minimum the service names — "balance 3, minimum 8"), what was
/// available (the service's figure, else the last known balance) and the difference.
/// `None` for other errors or when either figure is unknown.
pub fn missing_credits(
    error: &ApiError,
    estimate: Option<f64>,
    known_available: Option<f64>,
) -> Option<MissingCredits> {
    if !is_insufficient_credits(error) {
        return None;
    }
    let message = match error {
        ApiError::Status { message, .. } => message.as_str(),
        _ => "",
    };
    let minimum = number_after(message, "minimum");
    let available = number_after(message, "balance").or(known_available)?;
    let needed = match (estimate, minimum) {
        (Some(e), Some(m)) => e.max(m),
        (e, m) => e.or(m)?,
    };
    Some(MissingCredits {
        needed,
        available,
        missing: (needed - available).max(0.0),
    })
}

pub fn is_insufficient_credits(error: &ApiError) -> bool {
    error
        .code()
        .is_some_and(|c| c.eq_ignore_ascii_case("INSUFFICIENT_CREDITS"))
        || error.status() == Some(402)
}

/// "Not enough credits: this job needs 80 credits and 30 are available — 50 missing."
pub fn missing_credits_text(missing: &MissingCredits) -> String {
    format!(
        "Not enough credits: this job needs {} and {} {} available — {} missing.",
        format::credits(missing.needed),
        format::credits(missing.available),
        if (missing.available - 1.0).abs() < f64::EPSILON {
            "is"
        } else {
            "are"
        },
        format::credits(missing.missing)
    )
}

/// The number following `word` in `text` ("balance 3.5, minimum 8" → 3.5 for "balance").
fn number_after(text: &str, word: &str) -> Option<f64> {
    let lower = text.to_ascii_lowercase();
    let start = lower.find(word)? + word.len();
    let rest = lower[start..].trim_start_matches([' ', ':', '=']);
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(rest.len());
    rest[..end]
        .trim_end_matches('.')
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
}

/// Before submitting: the warning at the Generate button when the estimate exceeds the
/// spendable balance. The button stays enabled: the balance shown may be stale (a top-up,
/// a job ending) and the service decides, refusing without billing if it is short.
pub fn shortfall_before_submit(estimate: Option<f64>, spendable: Option<f64>) -> Option<f64> {
    let (estimate, spendable) = (estimate?, spendable?);
    (estimate > spendable).then_some(estimate - spendable)
}

/// The credit buckets as a grid (status bar popover and Settings' account area).
pub fn buckets_ui(ui: &mut Ui, id: &str, credits: &Credits, reserved: Option<f64>) {
    let figure = |value: Option<f64>| value.map_or_else(|| "–".to_owned(), format::credits);
    egui::Grid::new(id)
        .num_columns(2)
        .spacing(egui::vec2(tokens::SPACE_M, tokens::SPACE_XS))
        .show(ui, |ui| {
            let rows = [
                ("Plan credits", credits.plan_credits),
                ("Credit packs", credits.credit_pack),
                ("Redeemed", credits.redemption),
                ("Total", credits.total),
                ("Reserved by running jobs", reserved),
                ("Available now", credits.spendable()),
            ];
            for (name, value) in rows {
                ui.label(RichText::new(name).color(tokens::palette().text_muted));
                ui.label(
                    RichText::new(figure(value))
                        .color(tokens::palette().text)
                        .strong(),
                );
                ui.end_row();
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(message: &str) -> ApiError {
        ApiError::Status {
            status: 403,
            message: message.into(),
            code: Some("INSUFFICIENT_CREDITS".into()),
            retry_after_secs: None,
        }
    }

    #[test]
    fn missing_is_needed_minus_available_from_the_service_message() {
        let error = refused("Insufficient credits: balance 3, minimum 8");
        let missing = missing_credits(&error, None, None).expect("missing");
        assert_eq!(
            (missing.needed, missing.available, missing.missing),
            (8.0, 3.0, 5.0)
        );
        // The job's estimate is what it really needs when it is above the minimum.
        let missing = missing_credits(&error, Some(40.0), Some(100.0)).expect("missing");
        assert_eq!(
            (missing.needed, missing.available, missing.missing),
            (40.0, 3.0, 37.0)
        );
        assert!(missing_credits_text(&missing).contains("37 credits missing"));
    }

    #[test]
    fn without_figures_in_the_body_the_estimate_and_known_balance_are_used() {
        let error = refused("Insufficient credits");
        let missing = missing_credits(&error, Some(80.0), Some(30.0)).expect("missing");
        assert_eq!(missing.missing, 50.0);
        assert_eq!(missing_credits(&error, None, Some(30.0)), None);
        assert_eq!(missing_credits(&error, Some(80.0), None), None);
        let other = ApiError::Connect("down".into());
        assert_eq!(missing_credits(&other, Some(80.0), Some(1.0)), None);
    }

    #[test]
    fn the_warning_fires_once_per_crossing() {
        let mut watch = LowBalanceWatch::default();
        assert!(!watch.observe(Some(500.0), 100.0));
        assert!(watch.observe(Some(80.0), 100.0));
        assert!(watch.is_low());
        assert!(
            !watch.observe(Some(60.0), 100.0),
            "still low: no second toast"
        );
        assert!(!watch.observe(Some(150.0), 100.0));
        assert!(!watch.is_low());
        assert!(
            watch.observe(Some(99.0), 100.0),
            "a new crossing warns again"
        );
        assert!(!watch.observe(Some(5.0), 0.0), "0 turns the warning off");
        assert!(!watch.is_low());
        assert!(!watch.observe(None, 100.0));
    }

    #[test]
    fn a_shortfall_is_reported_only_when_the_estimate_exceeds_the_balance() {
        assert_eq!(shortfall_before_submit(Some(80.0), Some(30.0)), Some(50.0));
        assert_eq!(shortfall_before_submit(Some(20.0), Some(30.0)), None);
        assert_eq!(shortfall_before_submit(None, Some(30.0)), None);
    }
}
