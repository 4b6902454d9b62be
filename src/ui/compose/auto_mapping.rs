//! What the service may make of a video form's length, ratio and tier before it is sent.
//!
//! With a chosen model the chips offer only what it makes, so nothing changes. With Auto
//! the service routes to a model of its choosing, and the contract says "unsupported
//! durations or ratios may be mapped to the closest supported match". Which model Auto
//! picks is not knowable before submit, so the note names each model of the type that
//! would change the request and what it would make instead — mapped the way the pricing
//! already prices it ([`closest_duration_secs`]: nearest, a tie to the longer length).

use super::form::ComposeForm;
use crate::api::pricing::closest_duration_secs;
use crate::ui::format;
use crate::ui::model::Model;

/// "Auto may pick Veo 3, which makes 6 s, not 5 s." — one sentence per choice (length,
/// ratio, resolution) that some model of the type would change; `None` when none would.
pub fn auto_mapping_note(form: &ComposeForm, model: &Model) -> Option<String> {
    if !form.makes_video() || form.selected_model(model).is_some() {
        return None;
    }
    let catalog_type = form.catalog_type();
    let candidates = model.models_of_kind(catalog_type);
    let mut sentences = Vec::new();

    let asked_secs = form.duration_secs;
    let mut lengths: Vec<(f64, Vec<String>)> = Vec::new();
    for record in &candidates {
        let made = closest_duration_secs(asked_secs, &record.supported_durations);
        if (made - asked_secs).abs() < 0.05 {
            continue;
        }
        match lengths
            .iter_mut()
            .find(|(secs, _)| (secs - made).abs() < 0.05)
        {
            Some((_, names)) => names.push(record.display_name().to_owned()),
            None => lengths.push((made, vec![record.display_name().to_owned()])),
        }
    }
    lengths.sort_by(|a, b| a.0.total_cmp(&b.0));
    let lengths: Vec<(String, Vec<String>)> = lengths
        .into_iter()
        .map(|(secs, names)| (format::seconds_label(secs), names))
        .collect();
    if let Some(sentence) = sentence(&format::seconds_label(asked_secs), &lengths) {
        sentences.push(sentence);
    }

    let asked_ratio = form.aspect_ratio.trim();
    if let Some(asked) = parse_ratio(asked_ratio) {
        let mut ratios: Vec<(String, Vec<String>)> = Vec::new();
        for record in &candidates {
            let offered = record.aspect_ratios_for(catalog_type);
            if offered.is_empty() || offered.iter().any(|r| r.trim() == asked_ratio) {
                continue;
            }
            let Some(made) = closest_ratio(asked, offered) else {
                continue;
            };
            match ratios.iter_mut().find(|(ratio, _)| *ratio == made) {
                Some((_, names)) => names.push(record.display_name().to_owned()),
                None => ratios.push((made, vec![record.display_name().to_owned()])),
            }
        }
        if let Some(sentence) = sentence(asked_ratio, &ratios) {
            sentences.push(sentence);
        }
    }
    // A tier is not mapped: a model without it may refuse the request or pick its own.
    let asked_tier = form.resolution.trim();
    if !asked_tier.is_empty() {
        let lacking: Vec<&str> = candidates
            .iter()
            .filter(|m| {
                !m.supported_resolutions.is_empty()
                    && !m
                        .supported_resolutions
                        .iter()
                        .any(|r| r.trim().eq_ignore_ascii_case(asked_tier))
            })
            .map(|m| m.display_name())
            .collect();
        match lacking.as_slice() {
            [] => {}
            [one] => sentences.push(format!("Auto may pick {one}, which has no {asked_tier}.")),
            many => sentences.push(format!(
                "Auto may pick {}, which have no {asked_tier}.",
                many.join(", ")
            )),
        }
    }
    (!sentences.is_empty()).then(|| sentences.join(" "))
}

/// "Auto may pick Veo 3, which makes 6 s, not 5 s." or "Auto may pick a model that makes
/// 6 s (Veo 3, Hailuo 02) or 10 s (Kling), not 5 s."
fn sentence(asked: &str, made: &[(String, Vec<String>)]) -> Option<String> {
    match made {
        [] => None,
        [(value, names)] if names.len() == 1 => Some(format!(
            "Auto may pick {}, which makes {value}, not {asked}.",
            names[0]
        )),
        _ => {
            let options: Vec<String> = made
                .iter()
                .map(|(value, names)| format!("{value} ({})", names.join(", ")))
                .collect();
            let list = match options.split_last() {
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                None => String::new(),
            };
            Some(format!(
                "Auto may pick a model that makes {list}, not {asked}."
            ))
        }
    }
}

fn parse_ratio(ratio: &str) -> Option<(f64, f64)> {
    let (w, h) = ratio.trim().split_once(':')?;
    let (w, h): (f64, f64) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
    (w > 0.0 && h > 0.0).then_some((w, h))
}

/// The offered ratio nearest to `asked` in log space (the first listed wins a tie).
fn closest_ratio(asked: (f64, f64), offered: &[String]) -> Option<String> {
    let target = (asked.0 / asked.1).ln();
    let mut best: Option<(f64, &String)> = None;
    for candidate in offered {
        let Some((w, h)) = parse_ratio(candidate) else {
            continue;
        };
        let distance = ((w / h).ln() - target).abs();
        if best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, ratio)| ratio.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{GenerationKind, ModelRecord};

    fn model_with_catalog() -> Model {
        let models: Vec<ModelRecord> =
            serde_json::from_str(include_str!("../../../assets/models.json"))
                .expect("models.json decodes");
        let mut model = Model::default();
        model.catalog.set(Ok(models));
        model
    }

    #[test]
    fn auto_says_which_models_would_change_the_length() {
        let model = model_with_catalog();
        let mut form = ComposeForm::default();
        form.set_kind(GenerationKind::TextToVideo);
        form.normalize(&model);
        form.duration_secs = 5.0;
        assert_eq!(
            auto_mapping_note(&form, &model).as_deref(),
            Some("Auto may pick Veo 3, which makes 6 s, not 5 s.")
        );
        // 10 s: Veo 3's nearest is 8 s.
        form.duration_secs = 10.0;
        assert_eq!(
            auto_mapping_note(&form, &model).as_deref(),
            Some("Auto may pick Veo 3, which makes 8 s, not 10 s.")
        );
        // A chosen model: its own lengths are the chips, nothing is mapped.
        form.model_id = Some("google/veo-3".into());
        form.normalize(&model);
        assert_eq!(auto_mapping_note(&form, &model), None);
        // A tier one of the models lacks is said too.
        form.model_id = None;
        form.normalize(&model);
        form.duration_secs = 10.0;
        form.resolution = "4K".into();
        let note = auto_mapping_note(&form, &model).unwrap_or_default();
        assert!(note.contains("which have no 4K."), "{note}");
        // Images have no length.
        form.set_kind(GenerationKind::Image);
        form.model_id = None;
        assert_eq!(auto_mapping_note(&form, &model), None);
    }

    #[test]
    fn several_outcomes_are_listed_with_their_models() {
        let made = vec![
            (
                "6 s".to_owned(),
                vec!["Veo 3".to_owned(), "Hailuo 02".to_owned()],
            ),
            ("10 s".to_owned(), vec!["Kling".to_owned()]),
        ];
        assert_eq!(
            sentence("5 s", &made).as_deref(),
            Some(
                "Auto may pick a model that makes 6 s (Veo 3, Hailuo 02) or 10 s (Kling), not 5 s."
            )
        );
        assert_eq!(
            closest_ratio((4.0, 5.0), &["16:9".into(), "1:1".into()]).as_deref(),
            Some("1:1")
        );
    }
}
