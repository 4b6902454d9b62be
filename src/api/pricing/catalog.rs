//! Prices of elements, first-and-last-frame and lip-sync jobs: per output second, like
//! video (model credit × seconds × resolution and sound multipliers). The seconds of a
//! lip sync are the sound's: the audio file's length when known (the form probes it and
//! puts it in `GenerationSpec::request.duration`), an estimate from the characters of a
//! typed line, else the model's default or longest audio.

use super::PriceInputs;
use crate::api::types::{CatalogJobRequest, GenerationSpec, ModelRecord};

/// Speech runs at about 150 words a minute, about 15 characters a second.
pub const LIPSYNC_CHARS_PER_SEC: f64 = 15.0;

/// How long a typed line takes to say, in seconds (at least one second).
pub fn lipsync_line_secs(text: &str) -> f64 {
    let chars = text.trim().chars().count() as f64;
    (chars / LIPSYNC_CHARS_PER_SEC).ceil().max(1.0)
}

/// The model-independent part: the body's resolution and sound, and a lip sync's length.
pub(super) fn adjust_for_spec(spec: &GenerationSpec, inputs: &mut PriceInputs) {
    let Some(job) = spec.catalog.as_ref() else {
        return;
    };
    let resolution = match job {
        CatalogJobRequest::Elements(r) => r.resolution.clone(),
        CatalogJobRequest::FirstLastFrame(r) => r.resolution.clone(),
        _ => None,
    };
    if let Some(resolution) = resolution.filter(|r| !r.trim().is_empty()) {
        inputs.resolution = Some(resolution);
    }
    match job {
        CatalogJobRequest::Elements(r) => {
            inputs.duration_secs = r.duration.filter(|d| *d > 0.0).or(inputs.duration_secs);
        }
        CatalogJobRequest::FirstLastFrame(r) => {
            inputs.duration_secs = r.duration.filter(|d| *d > 0.0).or(inputs.duration_secs);
        }
        CatalogJobRequest::Lipsync(r) => {
            // The audio's length (set by the form), else the typed line's.
            let line = r
                .text_prompt
                .as_deref()
                .filter(|t| !t.trim().is_empty() && r.audio_url.is_none())
                .map(lipsync_line_secs);
            inputs.duration_secs = spec
                .request
                .duration
                .filter(|d| d.is_finite() && *d > 0.0)
                .or(line);
        }
        CatalogJobRequest::ThreeD(_) => {}
    }
}

/// The model's part: a sound choice the body makes, and a lip sync of unknown length
/// priced at the model's default (else its longest audio), capped by the longest audio.
pub(super) fn adjust_for_model(
    model: &ModelRecord,
    spec: &GenerationSpec,
    inputs: &mut PriceInputs,
) {
    match spec.catalog.as_ref() {
        Some(CatalogJobRequest::Elements(r)) => {
            if let Some(sound) = r.sound_enabled {
                inputs.sound_enabled = sound;
            }
        }
        Some(CatalogJobRequest::Lipsync(_)) => {
            // Lip sync is not priced by supported_durations: its length is the sound's.
            let asked = inputs
                .duration_secs
                .or(spec.request.duration.filter(|d| d.is_finite() && *d > 0.0));
            let secs = asked
                .or(model.default_duration)
                .or(model.max_audio_duration);
            inputs.duration_secs = match (secs, model.max_audio_duration) {
                (Some(secs), Some(max)) if max > 0.0 => Some(secs.min(max).ceil()),
                (Some(secs), _) => Some(secs.ceil()),
                (None, _) => None,
            };
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::pricing::{estimate_credits, price_breakdown};
    use crate::api::types::{ElementsRequest, FirstLastFrameRequest, LipsyncRequest};
    use std::collections::BTreeMap;

    fn model(types: &[&str]) -> ModelRecord {
        ModelRecord {
            identifier: "m".into(),
            name: "M".into(),
            types: types.iter().map(|t| t.to_string()).collect(),
            credit: Some(2.0),
            resolution_multipliers: BTreeMap::from([("1080p".to_owned(), 1.5)]),
            ..ModelRecord::default()
        }
    }

    #[test]
    fn elements_is_credit_times_seconds_times_resolution() {
        let spec = GenerationSpec::for_catalog(CatalogJobRequest::Elements(ElementsRequest {
            prompt: "p".into(),
            duration: Some(10.0),
            resolution: Some("1080p".into()),
            ..ElementsRequest::default()
        }));
        let m = model(&["elements"]);
        assert_eq!(estimate_credits(&m, &spec), Some(30.0));
        let line = price_breakdown(&m, &super::super::inputs_for_model(&m, &spec));
        assert_eq!(
            line.as_deref(),
            Some("2 credits × 1.5 (1080p) × 10 s = 30 credits")
        );
    }

    #[test]
    fn elements_sound_on_uses_the_sound_multiplier() {
        let spec = GenerationSpec::for_catalog(CatalogJobRequest::Elements(ElementsRequest {
            prompt: "p".into(),
            duration: Some(5.0),
            sound_enabled: Some(true),
            ..ElementsRequest::default()
        }));
        let m = ModelRecord {
            sound_credit_multiplier: Some(2.0),
            ..model(&["elements"])
        };
        assert_eq!(estimate_credits(&m, &spec), Some(20.0));
    }

    #[test]
    fn first_last_without_a_length_uses_the_models_default() {
        let spec = GenerationSpec::for_catalog(CatalogJobRequest::FirstLastFrame(
            FirstLastFrameRequest::default(),
        ));
        let m = ModelRecord {
            default_duration: Some(4.0),
            ..model(&["firstlastgenerations"])
        };
        assert_eq!(estimate_credits(&m, &spec), Some(8.0));
    }

    #[test]
    fn lipsync_is_priced_by_the_audio_then_the_line_then_the_model() {
        let m = ModelRecord {
            max_audio_duration: Some(30.0),
            ..model(&["lipsync-image"])
        };
        // The audio's probed length (rounded up to whole seconds).
        let mut spec = GenerationSpec::for_catalog(CatalogJobRequest::Lipsync(LipsyncRequest {
            source_url: "https://h/f.png".into(),
            audio_url: Some("https://h/a.mp3".into()),
            ..LipsyncRequest::default()
        }));
        spec.request.duration = Some(6.2);
        assert_eq!(estimate_credits(&m, &spec), Some(14.0));
        // Longer than the model takes: capped.
        spec.request.duration = Some(50.0);
        assert_eq!(estimate_credits(&m, &spec), Some(60.0));
        // A typed line of 45 characters: about 3 seconds.
        let spec = GenerationSpec::for_catalog(CatalogJobRequest::Lipsync(LipsyncRequest {
            source_url: "https://h/f.png".into(),
            text_prompt: Some("x".repeat(45)),
            ..LipsyncRequest::default()
        }));
        assert_eq!(estimate_credits(&m, &spec), Some(6.0));
        // Nothing known: the model's longest audio.
        let spec = GenerationSpec::for_catalog(CatalogJobRequest::Lipsync(LipsyncRequest {
            source_url: "https://h/f.png".into(),
            audio_url: Some("https://h/a.mp3".into()),
            ..LipsyncRequest::default()
        }));
        assert_eq!(estimate_credits(&m, &spec), Some(60.0));
    }
}
