//! What a finished job actually got, next to what was asked: the length and ratio the
//! service made, the model that ran and the credits used against the estimate
//! ("Asked 5 s · got 6 s · Veo 3 · 360 credits (estimate 240–360)"). Auto may route to a
//! model whose lengths differ from the chip; this is where the artist learns it did.

use crate::api::GenerationKind;
use crate::api::pricing::{estimate_credits, estimate_range_for_auto};
use crate::engine::{JobPhase, JobRecord};
use crate::ui::format;
use crate::ui::model::Model;

/// The line for a completed job; `None` while it runs, when it failed, or when the
/// service said nothing worth adding.
pub fn outcome_line(job: &JobRecord, model: &Model) -> Option<String> {
    if job.phase != JobPhase::Completed {
        return None;
    }
    let result = job.result.as_ref()?;
    let mut parts = Vec::new();

    let asked_secs = job.spec.request.duration.filter(|_| job.spec.makes_video());
    match (asked_secs, result.duration.filter(|d| *d > 0.0)) {
        (Some(asked), Some(got)) if (asked - got).abs() >= 0.05 => parts.push(format!(
            "Asked {} · got {}",
            format::seconds_label(asked),
            format::seconds_label(got)
        )),
        (_, Some(got)) => parts.push(format::seconds_label(got)),
        _ => {}
    }
    let asked_ratio = job.spec.request.aspect_ratio.as_deref().map(str::trim);
    match (asked_ratio, result.aspect_ratio.as_deref().map(str::trim)) {
        (Some(asked), Some(got)) if !got.is_empty() && !asked.eq_ignore_ascii_case(got) => {
            parts.push(format!("asked {asked} · got {got}"));
        }
        _ => {}
    }

    // The model: what ran, when the service says; else the one asked for by name.
    let ran = result
        .model
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty() && !m.eq_ignore_ascii_case("auto"));
    // An image tool runs no catalog model (its label says what it did, already the title).
    if job.spec.kind != GenerationKind::ImageTool
        && (ran.is_some() || job.spec.request.model.is_some())
    {
        parts.push(crate::ui::job_wording::model_name(job, model));
    }

    if job.spec.kind == GenerationKind::VideoTrim {
        parts.push("free".to_owned());
    } else if let Some(used) = job.credits_used {
        let mut credits = format::credits(used);
        if let Some((low, high)) = estimate_range(job, model)
            && ((low - used).abs() >= 0.05 || (high - used).abs() >= 0.05)
        {
            let estimate = if (high - low).abs() < 0.05 {
                format::thousands(low)
            } else {
                format!("{}–{}", format::thousands(low), format::thousands(high))
            };
            credits.push_str(&format!(" (estimate {estimate})"));
        }
        parts.push(credits);
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// The estimate as it read before submit: the model's price, or for Auto the range over
/// the models of the type; the stored figure when the catalog cannot say.
fn estimate_range(job: &JobRecord, model: &Model) -> Option<(f64, f64)> {
    let catalog = model.catalog.value.as_deref().unwrap_or_default();
    if job.spec.video.is_none() {
        let asked = job
            .spec
            .request
            .model
            .as_deref()
            .and_then(|id| model.model_by_id(id));
        let figure = match asked {
            Some(record) => estimate_credits(record, &job.spec).map(|v| (v, v)),
            None if !catalog.is_empty() => estimate_range_for_auto(catalog, &job.spec),
            None => None,
        };
        if figure.is_some() {
            return figure;
        }
    }
    job.credits_estimate.map(|v| (v, v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{GenerationRequest, GenerationSpec, JobResult, ModelRecord};

    fn model_with_catalog() -> Model {
        let models: Vec<ModelRecord> =
            serde_json::from_str(include_str!("../../assets/models.json"))
                .expect("models.json decodes");
        let mut model = Model::default();
        model.catalog.set(Ok(models));
        model
    }

    fn finished_video(asked_model: Option<&str>, ran: &str, got_secs: f64, used: f64) -> JobRecord {
        JobRecord {
            local_id: 1,
            generation_id: Some("g".into()),
            spec: GenerationSpec {
                catalog: None,
                kind: GenerationKind::TextToVideo,
                request: GenerationRequest {
                    prompt: "a harbour".into(),
                    model: asked_model.map(str::to_owned),
                    duration: Some(5.0),
                    aspect_ratio: Some("16:9".into()),
                    resolution: Some("720p".into()),
                    ..Default::default()
                },
                video: None,
                audio: None,
            },
            model_label: "Auto".into(),
            phase: JobPhase::Completed,
            progress_percent: 100.0,
            submitted_at_unix_ms: 0,
            finished_at_unix_ms: Some(1),
            credits_estimate: Some(240.0),
            credits_used: Some(used),
            result: Some(JobResult {
                urls: vec!["http://x/v.mp4".into()],
                model: Some(ran.into()),
                duration: Some(got_secs),
                aspect_ratio: Some("16:9".into()),
                ..Default::default()
            }),
            poll_problem: None,
            poll_interval_secs: 1.0,
            scenes: Vec::new(),
        }
    }

    #[test]
    fn auto_says_what_it_got_against_what_was_asked() {
        let model = model_with_catalog();
        let job = finished_video(None, "google/veo-3", 6.0, 360.0);
        let line = outcome_line(&job, &model).expect("a line");
        assert!(
            line.starts_with("Asked 5 s · got 6 s · Veo 3 · 360 credits (estimate "),
            "{line}"
        );
        // A chosen model that made what was asked: the length, the model and the price.
        let job = finished_video(Some("kling/v2.1-master"), "kling/v2.1-master", 5.0, 140.0);
        assert_eq!(
            outcome_line(&job, &model).as_deref(),
            Some("5 s · Kling 2.1 Master · 140 credits")
        );
    }
}
