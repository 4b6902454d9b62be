//! How the tray says things about a job: its title as a person would say it, progress with
//! an ETA range from the catalog's estimate, and the retry confirmation's cost sentence.
//! Pure functions, so the wording is tested without a UI.

use crate::api::{ApiError, ModelRecord};
use crate::engine::{JobPhase, JobRecord, QueueReason};
use crate::ui::format;
use crate::ui::model::Model;

/// Characters of the prompt in a tray title.
pub const TITLE_PROMPT_CHARS: usize = 40;

/// "Image · Flux Schnell · a quiet harbour at dawn…".
pub fn job_title(kind_label: &str, model_name: &str, prompt: &str) -> String {
    let excerpt = format::excerpt(prompt, TITLE_PROMPT_CHARS);
    if excerpt.is_empty() {
        format!("{kind_label} · {model_name}")
    } else {
        format!("{kind_label} · {model_name} · {excerpt}")
    }
}

/// The model a job ran on (or was asked for) as the catalog names it; "Auto" when the
/// service chose and has not said which yet.
pub fn model_name(job: &JobRecord, model: &Model) -> String {
    // An image tool runs no catalog model: its label says what it does to which image.
    if job.spec.kind == crate::api::GenerationKind::ImageTool {
        return job.model_label.clone();
    }
    let ran = job
        .result
        .as_ref()
        .and_then(|r| r.model.as_deref())
        .filter(|m| !m.is_empty());
    let asked = job.spec.request.model.as_deref();
    for identifier in ran.into_iter().chain(asked) {
        if let Some(record) = model.model_by_id(identifier) {
            return record.display_name().to_owned();
        }
    }
    match ran {
        Some(identifier) => identifier.to_owned(),
        None => job.model_label.clone(),
    }
}

/// The catalog's expected run time for this job's model; for Auto, the longest of the
/// models of its type (the service may pick any of them).
pub fn estimated_duration_secs(job: &JobRecord, model: &Model) -> Option<f64> {
    let of = |record: &ModelRecord| record.estimated_duration_seconds.filter(|s| *s > 0.0);
    if let Some(record) = job
        .spec
        .request
        .model
        .as_deref()
        .and_then(|id| model.model_by_id(id))
    {
        return of(record);
    }
    model
        .models_of_kind(job.spec.catalog_type())
        .into_iter()
        .filter_map(of)
        .reduce(f64::max)
}

/// What a running job's progress line says.
///
/// The remaining time is estimated two ways: the catalog's duration less the time spent,
/// and the time spent scaled by the progress still to go. The range spans both (or ±30 %
/// around the one that exists). Past the estimate it says "finishing…" instead of a
/// number that would stall at zero.
pub fn progress_text(percent: f32, elapsed_secs: f64, estimate_secs: Option<f64>) -> String {
    let percent = percent.clamp(0.0, 100.0);
    let shown_percent = format!("{} %", percent.round() as u32);
    let by_catalog = estimate_secs.map(|total| total - elapsed_secs);
    // Early progress figures are too noisy to extrapolate from.
    let by_progress = (5.0..100.0)
        .contains(&percent)
        .then(|| elapsed_secs * f64::from(100.0 - percent) / f64::from(percent));
    let (low, high) = match (by_catalog, by_progress) {
        (Some(catalog), Some(progress)) => (catalog.min(progress), catalog.max(progress)),
        (Some(remaining), None) | (None, Some(remaining)) => (remaining * 0.7, remaining * 1.3),
        (None, None) => {
            return if percent > 0.0 {
                shown_percent
            } else {
                "working…".to_owned()
            };
        }
    };
    if high <= 1.0 {
        return format!("{shown_percent} · finishing…");
    }
    let low = low.max(1.0);
    let (low, high) = (round_for_eta(low), round_for_eta(high));
    if low == high {
        format!("{shown_percent} · about {} left", duration_words(high))
    } else if high < 60.0 {
        format!(
            "{shown_percent} · about {}–{} s left",
            low as u64, high as u64
        )
    } else {
        format!(
            "{shown_percent} · about {}–{} left",
            duration_words(low).trim_end_matches(" min"),
            duration_words(high)
        )
    }
}

/// Seconds rounded the way people say them: 5 s steps under a minute, whole minutes above.
fn round_for_eta(secs: f64) -> f64 {
    if secs < 60.0 {
        ((secs / 5.0).ceil() * 5.0).max(5.0)
    } else {
        (secs / 60.0).round().max(1.0) * 60.0
    }
}

fn duration_words(secs: f64) -> String {
    if secs < 60.0 {
        format!("{} s", secs as u64)
    } else {
        format!("{} min", (secs / 60.0) as u64)
    }
}

/// Accessible name of a queued job's Cancel button.
pub const CANCEL_QUEUED_NAME: &str = "Cancel queued job";
/// Hover text of a queued job's Cancel button.
pub const CANCEL_QUEUED_HOVER: &str = "Not sent yet — nothing is billed";

/// "1st", "2nd", "3rd", "4th", "11th", "22nd".
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A queued job's line: "Queued — sends in ~12 s · 3rd in line", counting down from the
/// engine's send time; "Queued — waiting for the service" while it does not answer.
pub fn queued_text(
    place: u32,
    sends_at_unix_ms: Option<i64>,
    reason: QueueReason,
    now_ms: i64,
) -> String {
    let status = match (reason, sends_at_unix_ms) {
        (QueueReason::ServiceUnreachable, _) => "Queued — waiting for the service".to_owned(),
        (QueueReason::RateLimit, None) => "Queued — sends in a moment".to_owned(),
        (QueueReason::RateLimit, Some(at)) => {
            let secs = ((at - now_ms).max(0) as f64 / 1000.0).ceil() as u64;
            match secs {
                0 => "Queued — sending now".to_owned(),
                1..90 => format!("Queued — sends in ~{secs} s"),
                _ => format!(
                    "Queued — sends in ~{} min",
                    (secs as f64 / 60.0).round() as u64
                ),
            }
        }
    };
    if place == 0 {
        status
    } else {
        format!("{status} · {} in line", ordinal(place))
    }
}

/// What a refused (or unsent) job says: the headline and what it means for billing.
pub fn rejected_text(error: &ApiError) -> (String, &'static str) {
    match error {
        ApiError::Connect(_) => (
            "Not sent: the service could not be reached.".to_owned(),
            "Nothing was billed. Submit it again when the service answers.",
        ),
        other => (
            format!("Not accepted: {}", crate::engine::error_in_words(other)),
            "No job was created and nothing was billed.",
        ),
    }
}

/// The raw side of a refused job for its Details expander: the service's message with
/// status and code, as logged.
pub fn rejected_details(error: &ApiError) -> String {
    error.to_string()
}

/// The raw side of a failed job for its Details expander (code, category, provider), or
/// `None` when the service sent nothing beyond its message.
pub fn failure_details(failure: &crate::api::Failure) -> Option<String> {
    let parts: Vec<String> = [
        ("code", &failure.code),
        ("category", &failure.category),
        ("provider", &failure.provider),
    ]
    .into_iter()
    .filter_map(|(name, value)| value.as_deref().map(|v| format!("{name}: {v}")))
    .collect();
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// [`rejected_text`] for a job: a refusal for credits says how many were missing (the
/// job's estimate or the service's minimum, less the balance the service named or
/// `known_available`).
pub fn rejected_job_text(
    job: &JobRecord,
    error: &ApiError,
    known_available: Option<f64>,
) -> (String, &'static str) {
    match crate::ui::account::missing_credits(error, job.credits_estimate, known_available) {
        Some(missing) => (
            crate::ui::account::missing_credits_text(&missing),
            "No job was created and nothing was billed. Add credits, or pick a cheaper model \
             or setting.",
        ),
        None => rejected_text(error),
    }
}

/// The retry confirmation's body: the new job's cost and what happened to the failed one.
pub fn retry_body(job: Option<&JobRecord>) -> String {
    let Some(job) = job else {
        return "This submits a new job with the same settings and it will be billed.".to_owned();
    };
    let cost = match job.credits_estimate {
        Some(credits) => format!("It is billed again: about {}.", format::credits(credits)),
        None => "It is billed again; its cost is not known in advance.".to_owned(),
    };
    let earlier = match &job.phase {
        JobPhase::Rejected { .. } => {
            "The earlier attempt was not accepted, so nothing was billed for it."
        }
        JobPhase::Failed { .. } => {
            "The failed job was not billed: the service refunds a failed job \
             (reserved credits released, anything deducted returned)."
        }
        _ => "",
    };
    format!("This submits a new job with the same settings. {cost} {earlier}")
        .trim_end()
        .to_owned()
}

/// `text` (its first line) shortened to at most `max_chars` at a word boundary, with "…"
/// where it was cut: "Scene 2: The boat drifts past…" rather than "…past the ha…". A
/// single word longer than the room is cut where it must be.
pub fn short_title(text: &str, max_chars: usize) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() <= max_chars {
        return line.to_owned();
    }
    let room: String = line.chars().take(max_chars.saturating_sub(1)).collect();
    // Cut at the last space that keeps at least a third of the room; else mid-word.
    let cut = room
        .char_indices()
        .filter(|(_, c)| c.is_whitespace())
        .map(|(i, _)| i)
        .rfind(|i| room[..*i].chars().count() * 3 >= room.chars().count())
        .unwrap_or(room.len());
    let kept = room[..cut].trim_end_matches(|c: char| c.is_whitespace() || ",;:-–—".contains(c));
    format!("{kept}…")
}

/// What a job is about, in a few words: its prompt, or for an edit, restyle or trim what
/// was done to which video ("Upscale of clip.mp4").
pub fn job_subject(job: &JobRecord) -> String {
    use crate::api::video_edit::VideoJobRequest;
    if job.spec.kind == crate::api::GenerationKind::ImageTool {
        return job.model_label.clone();
    }
    let Some(video) = job.spec.video.as_ref() else {
        return job.spec.request.prompt.clone();
    };
    let url = video.video_url();
    let file = url
        .rsplit('/')
        .next()
        .filter(|f| !f.is_empty())
        .unwrap_or(url);
    let what = match video {
        VideoJobRequest::Edit(edit) => edit.operation.label(),
        VideoJobRequest::FromVideo(_) => "Restyle",
        // A trim's label names its source file and span ("clip.mp4, 0:01.00 to 0:03.12").
        VideoJobRequest::Trim(_) if job.model_label.contains(" to ") => {
            return format!("Trim of {}", job.model_label);
        }
        VideoJobRequest::Trim(_) => "Trim",
    };
    format!("{what} of {file}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn queued_wording_counts_down_with_the_place() {
        use crate::engine::QueueReason;
        assert_eq!(ordinal(1), "1st");
        assert_eq!(ordinal(2), "2nd");
        assert_eq!(ordinal(3), "3rd");
        assert_eq!(ordinal(4), "4th");
        assert_eq!(ordinal(11), "11th");
        assert_eq!(ordinal(13), "13th");
        assert_eq!(ordinal(22), "22nd");
        let now = 1_000_000;
        assert_eq!(
            queued_text(3, Some(now + 11_200), QueueReason::RateLimit, now),
            "Queued — sends in ~12 s · 3rd in line"
        );
        assert_eq!(
            queued_text(3, Some(now + 11_200), QueueReason::RateLimit, now + 5_000),
            "Queued — sends in ~7 s · 3rd in line"
        );
        assert_eq!(
            queued_text(1, Some(now + 150_000), QueueReason::RateLimit, now),
            "Queued — sends in ~3 min · 1st in line"
        );
        assert_eq!(
            queued_text(1, Some(now - 10), QueueReason::RateLimit, now),
            "Queued — sending now · 1st in line"
        );
        assert_eq!(
            queued_text(2, None, QueueReason::ServiceUnreachable, now),
            "Queued — waiting for the service · 2nd in line"
        );
    }

    #[test]
    fn a_submit_that_could_not_connect_says_it_was_not_sent() {
        let (headline, note) = rejected_text(&ApiError::Connect("refused".into()));
        assert!(headline.starts_with("Not sent"), "{headline}");
        assert!(note.contains("Nothing was billed"));
        let (headline, _) = rejected_text(&ApiError::Status {
            status: 400,
            message: "Prompt is required".into(),
            code: Some("INVALID_PROMPT".into()),
            retry_after_secs: None,
        });
        // The status and code go under Details, not in the headline.
        assert_eq!(headline, "Not accepted: Prompt is required.");
    }

    use super::*;

    #[test]
    fn titles_are_shortened_between_words() {
        let title = "Scene 2: The paper boat drifts past the harbour lights at dusk";
        assert_eq!(short_title(title, 80), title);
        assert_eq!(short_title(title, 30), "Scene 2: The paper boat…");
        assert_eq!(
            short_title("Scene 1: Establishing, wide shot", 20),
            "Scene 1…"
        );
        assert_eq!(short_title("Supercalifragilistic", 8), "Superca…");
    }

    #[test]
    fn retry_without_a_job_still_says_it_bills() {
        assert!(retry_body(None).contains("billed"));
    }

    #[test]
    fn title_reads_kind_model_and_prompt_excerpt() {
        assert_eq!(
            job_title("Image", "Flux Schnell", "a quiet harbour at dawn"),
            "Image · Flux Schnell · a quiet harbour at dawn"
        );
        let long = "a quiet harbour at dawn, fishing boats moored along a stone quay";
        let title = job_title("Image", "Flux Schnell", long);
        assert!(title.starts_with("Image · Flux Schnell · a quiet harbour at dawn"));
        assert!(title.ends_with('…'), "{title}");
        assert_eq!(job_title("Image edit", "Auto", "  "), "Image edit · Auto");
    }

    #[test]
    fn eta_is_a_range_from_catalog_and_progress() {
        // 30 s expected, 10 s in, 42 %: ~20 s by the catalog, ~14 s by progress.
        assert_eq!(
            progress_text(42.0, 10.0, Some(30.0)),
            "42 % · about 15–20 s left"
        );
        // Only the catalog: ±30 % around 20 s.
        assert_eq!(
            progress_text(0.0, 10.0, Some(30.0)),
            "0 % · about 15–30 s left"
        );
        // Long jobs speak in minutes.
        assert_eq!(
            progress_text(10.0, 30.0, Some(300.0)),
            "10 % · about 5 min left"
        );
        assert_eq!(
            progress_text(50.0, 120.0, Some(600.0)),
            "50 % · about 2–8 min left"
        );
    }

    #[test]
    fn past_the_estimate_it_says_finishing() {
        assert_eq!(progress_text(0.0, 45.0, Some(30.0)), "0 % · finishing…");
        assert_eq!(progress_text(99.5, 45.0, Some(30.0)), "100 % · finishing…");
    }

    #[test]
    fn without_an_estimate_only_the_percentage() {
        assert_eq!(progress_text(0.0, 3.0, None), "working…");
        assert_eq!(progress_text(3.0, 3.0, None), "3 %");
        assert_eq!(progress_text(50.0, 10.0, None), "50 % · about 10–15 s left");
    }
}
