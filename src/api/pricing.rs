//! Credit estimates from the catalog (contract, Pricing). Pure functions: the real charge is
//! always `credits_used` on the completed status; these figures are shown before submit.

use super::types::{GenerationKind, GenerationSpec, ModelRecord};
use std::collections::BTreeMap;

mod catalog;
mod three_d;
mod video;

pub use three_d::{three_d_catalog_type, three_d_price, three_d_price_line};

pub use catalog::{LIPSYNC_CHARS_PER_SEC, lipsync_line_secs};

pub use video::{
    EXTEND_BILLED_SECS_CAP, EXTEND_CONTEXT_SECS, VideoPrice, default_edit_model, edit_price,
    estimate_video_job,
};

/// What the base `credit` of a model is counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PriceUnit {
    /// Once per generation, times `num_images` for image tools.
    PerGeneration,
    /// Per second of output (video, lipsync, elements, first-last-frame).
    PerOutputSecond,
    /// Per 100 characters of text, rounded up (speech).
    Per100Characters,
    /// Per minute of input audio, rounded up, at least one (transcription).
    PerInputMinute,
    /// Chat: flat `credit` per completion when no token rates are known.
    PerCompletion,
}

impl PriceUnit {
    /// The unit for a catalog type name (`text_to_img`, `text_to_video`, `stt`, …).
    pub fn for_catalog_type(catalog_type: &str) -> PriceUnit {
        match catalog_type.trim().to_ascii_lowercase().as_str() {
            "text_to_video"
            | "img_to_video"
            | "draw_to_video"
            | "video_to_video"
            | "elements"
            | "firstlastgenerations"
            | "lipsync-image"
            | "lipsync-video"
            | "video"
            | "video_from_image"
            | "video_from_video"
            | "video_edit"
            | "first_last_frame"
            | "lipsync" => PriceUnit::PerOutputSecond,
            "text_to_speech" | "speech" => PriceUnit::Per100Characters,
            "stt" | "transcription" => PriceUnit::PerInputMinute,
            "text" | "chat" => PriceUnit::PerCompletion,
            _ => PriceUnit::PerGeneration,
        }
    }
}

/// Whether `num_images` multiplies the price (image tools only).
fn is_image_tool(catalog_type: &str) -> bool {
    matches!(
        catalog_type.trim().to_ascii_lowercase().as_str(),
        "text_to_img" | "image_editing" | "image" | "image_edit"
    )
}

/// Everything a price may depend on. Fields that do not apply to the type are ignored.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PriceInputs {
    /// Catalog type name of the request (decides the unit).
    pub catalog_type: String,
    pub resolution: Option<String>,
    pub quality: Option<String>,
    pub sound_enabled: bool,
    /// Output seconds (video tools); `None` uses the model's default duration, else 5 s.
    pub duration_secs: Option<f64>,
    /// Images per request (image tools); 0 is read as 1.
    pub num_images: u32,
    /// Duration of each input video, for models with `video_input_credit`.
    pub input_video_secs: Vec<f64>,
    /// Characters of text (speech).
    pub characters: Option<u64>,
    /// Minutes of input audio (transcription).
    pub audio_minutes: Option<f64>,
}

/// Contract default output duration for video tools, in seconds.
pub const DEFAULT_VIDEO_DURATION_SECS: f64 = 5.0;

/// The price of one request in credits, or `None` when the model has no usable price.
pub fn price(model: &ModelRecord, inputs: &PriceInputs) -> Option<f64> {
    // 1. A flat price per resolution is the whole price.
    if !model.flat_credit_by_resolution.is_empty() {
        let resolution = inputs
            .resolution
            .clone()
            .or_else(|| model.supported_resolutions.first().cloned());
        let flat = match resolution {
            Some(resolution) => lookup(&model.flat_credit_by_resolution, &resolution),
            // No resolution known at all: the cheapest tier is the best guess.
            None => model
                .flat_credit_by_resolution
                .values()
                .copied()
                .reduce(f64::min),
        };
        if let Some(flat) = flat {
            return Some(tidy(flat));
        }
        // A resolution without a flat entry falls through to the standard formula.
    }

    let unit = PriceUnit::for_catalog_type(&inputs.catalog_type);
    let duration_secs = inputs
        .duration_secs
        .or(model.default_duration)
        .unwrap_or(DEFAULT_VIDEO_DURATION_SECS)
        .max(0.0);

    // 2. Video input billing.
    if let Some(video_input_credit) = model.video_input_credit
        && !inputs.input_video_secs.is_empty()
    {
        let input_secs: f64 = inputs
            .input_video_secs
            .iter()
            .map(|s| s.max(0.0).ceil())
            .sum();
        let output_secs = if unit == PriceUnit::PerOutputSecond {
            duration_secs
        } else {
            0.0
        };
        let multiplier = inputs
            .resolution
            .as_deref()
            .and_then(|r| lookup(&model.video_input_resolution_multipliers, r))
            .unwrap_or(1.0);
        return Some(tidy(
            (video_input_credit * (input_secs + output_secs) * multiplier).ceil(),
        ));
    }

    // 3. The standard formula.
    let credit = model.credit?;
    let resolution_multiplier = inputs
        .resolution
        .as_deref()
        .and_then(|r| lookup(&model.resolution_multipliers, r))
        .unwrap_or(1.0);
    let quality_multiplier = inputs
        .quality
        .as_deref()
        .or(model.default_quality.as_deref())
        .and_then(|q| lookup(&model.quality_multipliers, q))
        .unwrap_or(1.0);
    let sound_multiplier = if inputs.sound_enabled {
        model.sound_credit_multiplier.unwrap_or(1.0)
    } else {
        1.0
    };
    let units = match unit {
        PriceUnit::PerGeneration if is_image_tool(&inputs.catalog_type) => {
            f64::from(inputs.num_images.max(1))
        }
        PriceUnit::PerGeneration | PriceUnit::PerCompletion => 1.0,
        PriceUnit::PerOutputSecond => duration_secs,
        PriceUnit::Per100Characters => (inputs.characters.unwrap_or(0) as f64 / 100.0).ceil(),
        PriceUnit::PerInputMinute => inputs.audio_minutes.unwrap_or(0.0).ceil().max(1.0),
    };
    Some(tidy(
        credit * resolution_multiplier * quality_multiplier * sound_multiplier * units,
    ))
}

/// How [`price`] arrives at its figure, in words: "Flat price for 2K: 20 credits" or
/// "2 credits × 1.5 (2K) × 3 images = 9 credits". `None` when the model has no price.
pub fn price_breakdown(model: &ModelRecord, inputs: &PriceInputs) -> Option<String> {
    let total = price(model, inputs)?;
    if !model.flat_credit_by_resolution.is_empty() {
        let resolution = inputs
            .resolution
            .clone()
            .or_else(|| model.supported_resolutions.first().cloned());
        if let Some(resolution) = resolution
            && lookup(&model.flat_credit_by_resolution, &resolution).is_some()
        {
            return Some(format!(
                "Flat price for {resolution}: {}",
                credits_text(total)
            ));
        }
    }
    let Some(credit) = model.credit else {
        return Some(format!("Estimated {}", credits_text(total)));
    };
    if model.video_input_credit.is_some() && !inputs.input_video_secs.is_empty() {
        return Some(format!(
            "Priced by input and output seconds: {}",
            credits_text(total)
        ));
    }
    let mut factors = vec![credits_text(credit)];
    if let Some(resolution) = inputs.resolution.as_deref()
        && let Some(m) = lookup(&model.resolution_multipliers, resolution)
        && m != 1.0
    {
        factors.push(format!("{} ({resolution})", number_text(m)));
    }
    if let Some(quality) = inputs
        .quality
        .as_deref()
        .or(model.default_quality.as_deref())
        && let Some(m) = lookup(&model.quality_multipliers, quality)
        && m != 1.0
    {
        factors.push(format!("{} ({quality} quality)", number_text(m)));
    }
    if inputs.sound_enabled
        && let Some(m) = model.sound_credit_multiplier.filter(|m| *m != 1.0)
    {
        factors.push(format!("{} (sound)", number_text(m)));
    }
    match PriceUnit::for_catalog_type(&inputs.catalog_type) {
        PriceUnit::PerGeneration if is_image_tool(&inputs.catalog_type) => {
            let n = inputs.num_images.max(1);
            if n > 1 {
                factors.push(format!("{n} images"));
            }
        }
        PriceUnit::PerOutputSecond => {
            let secs = inputs
                .duration_secs
                .or(model.default_duration)
                .unwrap_or(DEFAULT_VIDEO_DURATION_SECS);
            factors.push(format!("{} s", number_text(secs)));
        }
        PriceUnit::Per100Characters => {
            let characters = inputs.characters.unwrap_or(0);
            factors.push(format!(
                "{} ({} characters)",
                speech_units(characters),
                super::validate::thousands(characters)
            ));
        }
        _ => {}
    }
    if factors.len() == 1 {
        return Some(format!("Base price: {}", credits_text(total)));
    }
    Some(format!("{} = {}", factors.join(" × "), credits_text(total)))
}

fn number_text(value: f64) -> String {
    let text = format!("{:.2}", tidy(value));
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn credits_text(value: f64) -> String {
    let unit = if value == 1.0 { "credit" } else { "credits" };
    format!("{} {unit}", number_text(value))
}

/// Estimate for a generation spec sent to `model`: one request, or for Creative Director
/// scene_count times one scene (every scene is an independent generation).
pub fn estimate_credits(model: &ModelRecord, spec: &GenerationSpec) -> Option<f64> {
    let one = price(model, &inputs_for_model(model, spec))?;
    Some(tidy(one * f64::from(spec.priced_units())))
}

/// Whether `model` makes sound on a request that does not mention it. No generation route
/// has a sound field, so a native-sound model's default decides (and its multiplier).
pub fn sound_enabled(model: &ModelRecord) -> bool {
    model
        .sound_generation_type
        .as_deref()
        .is_some_and(|t| t.eq_ignore_ascii_case("native"))
        && model.sound_enabled_by_default == Some(true)
}

/// The inputs a generation spec implies for `model`. A length the model does not make is
/// priced at the one the service maps it to (contract: "may be mapped to the closest").
pub fn inputs_for_model(model: &ModelRecord, spec: &GenerationSpec) -> PriceInputs {
    let mut inputs = inputs_for_spec(spec);
    inputs.sound_enabled = spec.makes_video() && sound_enabled(model);
    catalog::adjust_for_model(model, spec, &mut inputs);
    if let Some(secs) = inputs.duration_secs {
        inputs.duration_secs = Some(closest_duration_secs(secs, &model.supported_durations));
    }
    inputs
}

/// The supported length nearest to `requested_secs`; a tie goes to the longer one (the
/// artist asked for at least that much). With no list, the request stands.
pub fn closest_duration_secs(requested_secs: f64, supported_secs: &[f64]) -> f64 {
    supported_secs
        .iter()
        .copied()
        .filter(|d| d.is_finite() && *d > 0.0)
        .min_by(|a, b| {
            let (da, db) = ((a - requested_secs).abs(), (b - requested_secs).abs());
            da.total_cmp(&db).then(b.total_cmp(a))
        })
        .unwrap_or(requested_secs)
}

/// The inputs a generation spec implies (model-independent part).
pub fn inputs_for_spec(spec: &GenerationSpec) -> PriceInputs {
    let mut inputs = plain_inputs_for_spec(spec);
    catalog::adjust_for_spec(spec, &mut inputs);
    inputs
}

fn plain_inputs_for_spec(spec: &GenerationSpec) -> PriceInputs {
    PriceInputs {
        catalog_type: spec.catalog_type().to_owned(),
        resolution: spec
            .request
            .resolution
            .clone()
            .filter(|r| !r.trim().is_empty()),
        num_images: spec.request.num_images.unwrap_or(1).max(1),
        duration_secs: spec
            .makes_video()
            .then_some(spec.request.duration)
            .flatten()
            .filter(|d| *d > 0.0),
        characters: (spec.kind == GenerationKind::Speech)
            .then(|| speech_characters(&spec.request.prompt)),
        ..PriceInputs::default()
    }
}

/// Characters of speech text as priced (every character the route is sent).
pub fn speech_characters(text: &str) -> u64 {
    text.chars().count() as u64
}

/// Speech is priced per 100 characters, rounded up: how many hundreds `characters` is.
pub fn speech_units(characters: u64) -> u64 {
    characters.div_ceil(100)
}

/// The live line under the speech text: "312 characters · 4 × 1 credit = 4 credits"
/// (without a price: "312 characters").
pub fn speech_price_line(characters: u64, credit: Option<f64>) -> String {
    let count = format!(
        "{} character{}",
        super::validate::thousands(characters),
        if characters == 1 { "" } else { "s" }
    );
    match credit {
        Some(credit) if characters == 0 => {
            format!("{count} · {} per 100 characters", credits_text(credit))
        }
        Some(credit) => {
            let units = speech_units(characters);
            format!(
                "{count} · {units} × {} = {}",
                credits_text(credit),
                credits_text(tidy(credit * units as f64))
            )
        }
        None => count,
    }
}

/// Cheapest and dearest estimate over the catalog's models of the spec's type, for Auto.
pub fn estimate_range_for_auto(
    models: &[ModelRecord],
    spec: &GenerationSpec,
) -> Option<(f64, f64)> {
    let catalog_type = three_d_catalog_type(spec).unwrap_or(spec.catalog_type());
    models
        .iter()
        .filter(|m| {
            m.has_type(catalog_type) || (spec.kind == GenerationKind::Image && m.has_type("image"))
        })
        .filter_map(|m| estimate_credits(m, spec))
        .fold(None, |range, price| match range {
            None => Some((price, price)),
            Some((low, high)) => Some((f64::min(low, price), f64::max(high, price))),
        })
}

/// Exact key, else a case-insensitive match.
fn lookup(map: &BTreeMap<String, f64>, key: &str) -> Option<f64> {
    map.get(key).copied().or_else(|| {
        map.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key.trim()))
            .map(|(_, v)| *v)
    })
}

/// Round away floating-point noise (credits have at most two decimals).
fn tidy(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::types::GenerationRequest;

    fn model(credit: f64, types: &[&str]) -> ModelRecord {
        ModelRecord {
            identifier: "m".into(),
            name: "M".into(),
            types: types.iter().map(|t| t.to_string()).collect(),
            credit: Some(credit),
            ..ModelRecord::default()
        }
    }

    fn inputs(catalog_type: &str) -> PriceInputs {
        PriceInputs {
            catalog_type: catalog_type.into(),
            num_images: 1,
            ..PriceInputs::default()
        }
    }

    fn image_spec(resolution: Option<&str>, num_images: Option<u32>) -> GenerationSpec {
        GenerationSpec {
            catalog: None,
            kind: GenerationKind::Image,
            request: GenerationRequest {
                prompt: "a cat".into(),
                resolution: resolution.map(str::to_owned),
                num_images,
                ..GenerationRequest::default()
            },
            video: None,
            audio: None,
        }
    }

    #[test]
    fn breakdown_names_base_multipliers_and_count() {
        let mut m = model(2.0, &["text_to_img"]);
        m.resolution_multipliers.insert("2K".into(), 1.5);
        let mut i = inputs("text_to_img");
        assert_eq!(
            price_breakdown(&m, &i).as_deref(),
            Some("Base price: 2 credits")
        );
        i.resolution = Some("2K".into());
        i.num_images = 3;
        assert_eq!(
            price_breakdown(&m, &i).as_deref(),
            Some("2 credits × 1.5 (2K) × 3 images = 9 credits")
        );
        // A tier without a multiplier is not listed.
        i.resolution = Some("1K".into());
        assert_eq!(
            price_breakdown(&m, &i).as_deref(),
            Some("2 credits × 3 images = 6 credits")
        );
    }

    #[test]
    fn breakdown_of_a_flat_price_names_the_resolution() {
        let mut m = model(5.0, &["text_to_img"]);
        m.flat_credit_by_resolution.insert("1K".into(), 8.0);
        m.flat_credit_by_resolution.insert("4K".into(), 20.5);
        let mut i = inputs("text_to_img");
        i.resolution = Some("4K".into());
        i.num_images = 2;
        assert_eq!(
            price_breakdown(&m, &i).as_deref(),
            Some("Flat price for 4K: 20.5 credits")
        );
        let free = ModelRecord {
            credit: None,
            ..model(0.0, &["text_to_img"])
        };
        assert_eq!(price_breakdown(&free, &i), None);
    }

    #[test]
    fn per_generation_times_images_and_multipliers() {
        let mut m = model(2.0, &["text_to_img"]);
        m.resolution_multipliers.insert("2K".into(), 1.5);
        m.quality_multipliers.insert("high".into(), 2.0);
        let mut i = inputs("text_to_img");
        i.num_images = 3;
        assert_eq!(price(&m, &i), Some(6.0));
        i.resolution = Some("2K".into());
        assert_eq!(price(&m, &i), Some(9.0));
        i.quality = Some("high".into());
        assert_eq!(price(&m, &i), Some(18.0));
        // Missing tiers multiply by 1.
        i.resolution = Some("8K".into());
        i.quality = Some("ultra".into());
        assert_eq!(price(&m, &i), Some(6.0));
        // Music is per generation, num_images does not apply.
        let music = model(10.0, &["music_gen"]);
        let mut i = inputs("music_gen");
        i.num_images = 4;
        assert_eq!(price(&music, &i), Some(10.0));
    }

    #[test]
    fn per_second_with_sound() {
        let mut m = model(7.0, &["text_to_video"]);
        m.sound_credit_multiplier = Some(1.5);
        m.resolution_multipliers.insert("1080p".into(), 2.0);
        let mut i = inputs("text_to_video");
        assert_eq!(price(&m, &i), Some(35.0), "default 5 s");
        i.duration_secs = Some(8.0);
        i.resolution = Some("1080p".into());
        assert_eq!(price(&m, &i), Some(112.0));
        i.sound_enabled = true;
        assert_eq!(price(&m, &i), Some(168.0));
        m.default_duration = Some(10.0);
        let i = inputs("text_to_video");
        assert_eq!(price(&m, &i), Some(70.0), "model default duration");
    }

    #[test]
    fn speech_and_transcription_round_up() {
        let speech = model(2.0, &["text_to_speech"]);
        let mut i = inputs("text_to_speech");
        i.characters = Some(101);
        assert_eq!(price(&speech, &i), Some(4.0));
        i.characters = Some(100);
        assert_eq!(price(&speech, &i), Some(2.0));
        let stt = model(3.0, &["stt"]);
        let mut i = inputs("stt");
        i.audio_minutes = Some(0.2);
        assert_eq!(price(&stt, &i), Some(3.0), "minimum one minute");
        i.audio_minutes = Some(2.1);
        assert_eq!(price(&stt, &i), Some(9.0));
    }

    #[test]
    fn flat_by_resolution_ignores_everything_else() {
        let mut m = model(5.0, &["text_to_img"]);
        m.flat_credit_by_resolution.insert("1K".into(), 8.0);
        m.flat_credit_by_resolution.insert("4K".into(), 20.0);
        m.resolution_multipliers.insert("4K".into(), 3.0);
        let mut i = inputs("text_to_img");
        i.num_images = 4;
        i.resolution = Some("4K".into());
        assert_eq!(price(&m, &i), Some(20.0));
        i.resolution = Some("1k".into());
        assert_eq!(price(&m, &i), Some(8.0));
        i.resolution = None;
        assert_eq!(price(&m, &i), Some(8.0), "cheapest tier when unknown");
    }

    #[test]
    fn video_input_formula_rounds_up() {
        let mut m = model(5.0, &["video_to_video"]);
        m.video_input_credit = Some(1.3);
        m.video_input_resolution_multipliers
            .insert("1080p".into(), 1.5);
        let mut i = inputs("video_to_video");
        i.input_video_secs = vec![2.2, 3.0];
        i.duration_secs = Some(5.0);
        // ceil(1.3 * (3 + 3 + 5) * 1) = ceil(14.3) = 15
        assert_eq!(price(&m, &i), Some(15.0));
        i.resolution = Some("1080p".into());
        // ceil(1.3 * 11 * 1.5) = ceil(21.45) = 22
        assert_eq!(price(&m, &i), Some(22.0));
        // Without input video the standard formula applies.
        i.input_video_secs.clear();
        assert_eq!(price(&m, &i), Some(25.0));
    }

    #[test]
    fn no_credit_no_price() {
        let mut m = model(1.0, &["text_to_img"]);
        m.credit = None;
        assert_eq!(price(&m, &inputs("text_to_img")), None);
    }

    #[test]
    fn spec_estimate_and_auto_range() {
        let cheap = model(1.0, &["text_to_img"]);
        let mut dear = model(4.0, &["text_to_img"]);
        dear.identifier = "dear".into();
        let editor = model(50.0, &["image_editing"]);
        let spec = image_spec(None, Some(2));
        assert_eq!(estimate_credits(&dear, &spec), Some(8.0));
        let models = vec![cheap, dear, editor];
        assert_eq!(estimate_range_for_auto(&models, &spec), Some((2.0, 8.0)));
        assert_eq!(estimate_range_for_auto(&[], &spec), None);
    }

    /// Real entries of the sandbox's catalog (assets/models.json).
    #[test]
    fn real_catalog_entries() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/models.json");
        let text = std::fs::read_to_string(path).expect("assets/models.json is readable");
        let models: Vec<ModelRecord> = serde_json::from_str(&text).expect("models.json decodes");
        let by_id = |id: &str| {
            models
                .iter()
                .find(|m| m.identifier == id)
                .unwrap_or_else(|| panic!("{id} is in the catalog"))
        };
        let with = |catalog_type: &str, resolution: Option<&str>, quality: Option<&str>, n: u32| {
            PriceInputs {
                catalog_type: catalog_type.into(),
                resolution: resolution.map(str::to_owned),
                quality: quality.map(str::to_owned),
                num_images: n,
                ..PriceInputs::default()
            }
        };

        // Standard formula: credit 2 x resolution multiplier x images.
        let schnell = by_id("fal-ai/flux/schnell");
        assert_eq!(
            price(schnell, &with("text_to_img", Some("1K"), None, 1)),
            Some(2.0)
        );
        assert_eq!(
            price(schnell, &with("text_to_img", Some("2K"), None, 2)),
            Some(8.0)
        );

        // Resolution and quality multipliers together: 6 x 1.5 x 1.5 x 2.
        let ultra = by_id("fal-ai/flux-pro/v1.1-ultra");
        assert_eq!(
            price(ultra, &with("text_to_img", Some("2K"), Some("high"), 2)),
            Some(27.0)
        );
        // Default quality (standard = 1) when none is picked.
        assert_eq!(
            price(ultra, &with("text_to_img", Some("4K"), None, 1)),
            Some(12.0)
        );

        // Flat by resolution: the flat value is the total, images and multipliers ignored.
        let nano = by_id("google/nano-banana-2");
        assert_eq!(
            price(nano, &with("text_to_img", Some("2K"), None, 1)),
            Some(8.0)
        );
        assert_eq!(
            price(nano, &with("text_to_img", Some("4K"), None, 3)),
            Some(16.0)
        );
        let seedream = by_id("bytedance/seedream-4");
        assert_eq!(
            price(seedream, &with("text_to_img", Some("4K"), None, 1)),
            Some(9.0)
        );

        // Video per second with sound: 40 x 1.5 (1080p) x 1.5 (sound) x 8 s.
        let veo = by_id("google/veo-3");
        let mut video = with("text_to_video", Some("1080p"), None, 1);
        video.duration_secs = Some(8.0);
        video.sound_enabled = true;
        assert_eq!(price(veo, &video), Some(720.0));

        // Video input credit: ceil(8 x (ceil(4.2) + 5)) = 80.
        let aleph = by_id("runway/aleph");
        let mut v2v = with("video_to_video", None, None, 1);
        v2v.input_video_secs = vec![4.2];
        v2v.duration_secs = Some(5.0);
        assert_eq!(price(aleph, &v2v), Some(80.0));

        // Auto over the real image catalog spans the cheapest and dearest 1K image.
        let spec = image_spec(None, None);
        let (low, high) = estimate_range_for_auto(&models, &spec).expect("range");
        assert_eq!(low, 2.0);
        assert_eq!(high, 8.0);
    }

    fn catalog() -> Vec<ModelRecord> {
        serde_json::from_str(include_str!("../../assets/models.json")).expect("models.json")
    }

    fn video_spec(kind: GenerationKind, resolution: &str, duration: f64) -> GenerationSpec {
        GenerationSpec {
            catalog: None,
            kind,
            request: GenerationRequest {
                prompt: "surf at dawn".into(),
                resolution: Some(resolution.into()),
                duration: Some(duration),
                ..GenerationRequest::default()
            },
            video: None,
            audio: None,
        }
    }

    /// Video pricing against the catalog: per second x resolution x sound (where the model
    /// makes sound by default); Creative Director is scene_count x one scene.
    #[test]
    fn video_and_creative_director_estimates_from_catalog_entries() {
        let models = catalog();
        let by_id = |id: &str| models.iter().find(|m| m.identifier == id).expect(id);
        let veo = by_id("google/veo-3");
        let kling = by_id("kling/v2.1-master");
        // veo-3: 40/s x 1.5 (1080p) x 1.5 (native sound, on by default) x 8 s.
        let spec = video_spec(GenerationKind::TextToVideo, "1080p", 8.0);
        assert_eq!(estimate_credits(veo, &spec), Some(720.0));
        assert_eq!(
            price_breakdown(veo, &inputs_for_model(veo, &spec)).as_deref(),
            Some("40 credits × 1.5 (1080p) × 1.5 (sound) × 8 s = 720 credits")
        );
        // kling makes no sound: 28/s x 1 (720p) x 10 s.
        let spec = video_spec(GenerationKind::ImageToVideo, "720p", 10.0);
        assert_eq!(estimate_credits(kling, &spec), Some(280.0));
        // No duration: the model's default (kling 5 s).
        let mut spec = video_spec(GenerationKind::TextToVideo, "720p", 0.0);
        spec.request.duration = None;
        assert_eq!(estimate_credits(kling, &spec), Some(140.0));

        // Creative Director, video mode: 3 scenes of kling 720p 5 s.
        let mut cd = video_spec(GenerationKind::CreativeDirector, "720p", 5.0);
        cd.request.workflow_type = Some(crate::api::WorkflowType::Video);
        cd.request.scene_count = Some(3);
        assert_eq!(cd.catalog_type(), "text_to_video");
        assert_eq!(estimate_credits(kling, &cd), Some(420.0));
        // Image mode: 4 scenes (the default) of Flux Schnell at 2K: 2 x 2 x 4; the
        // duration field is ignored for images.
        let mut cd = video_spec(GenerationKind::CreativeDirector, "2K", 5.0);
        cd.request.workflow_type = Some(crate::api::WorkflowType::Image);
        assert_eq!(cd.catalog_type(), "text_to_img");
        assert_eq!(
            estimate_credits(by_id("fal-ai/flux/schnell"), &cd),
            Some(16.0)
        );

        // Auto over video models: kling 28 x 5 s .. veo 40 x 1.5 x 6 s (veo makes 4, 6
        // or 8 s; 5 maps to the closer-or-longer 6, as the service does).
        let spec = video_spec(GenerationKind::TextToVideo, "720p", 5.0);
        assert_eq!(
            estimate_range_for_auto(&models, &spec),
            Some((140.0, 360.0))
        );
        assert_eq!(closest_duration_secs(5.0, &[4.0, 6.0, 8.0]), 6.0);
        assert_eq!(closest_duration_secs(3.0, &[5.0, 10.0]), 5.0);
        assert_eq!(closest_duration_secs(7.0, &[]), 7.0);
    }

    #[test]
    fn resolution_only_from_spec() {
        let spec = image_spec(Some("  "), None);
        assert_eq!(inputs_for_spec(&spec).resolution, None);
        assert_eq!(inputs_for_spec(&spec).num_images, 1);
    }
}

#[cfg(test)]
mod audio_tests {
    use super::*;
    use crate::api::audio::{AudioJobRequest, MusicRequest, SpeechRequest};

    fn record(catalog_type: &str, credit: f64) -> ModelRecord {
        ModelRecord {
            identifier: "m".into(),
            types: vec![catalog_type.into()],
            credit: Some(credit),
            supported_durations: vec![30.0, 120.0],
            default_duration: Some(120.0),
            ..ModelRecord::default()
        }
    }

    #[test]
    fn speech_costs_credit_per_started_hundred_characters() {
        let model = record("text_to_speech", 1.0);
        let spec = |chars: usize| {
            GenerationSpec::for_audio(AudioJobRequest::Speech(SpeechRequest {
                text: "a".repeat(chars),
                voice: "Rachel".into(),
                ..SpeechRequest::default()
            }))
        };
        assert_eq!(estimate_credits(&model, &spec(1)), Some(1.0));
        assert_eq!(estimate_credits(&model, &spec(100)), Some(1.0));
        assert_eq!(estimate_credits(&model, &spec(101)), Some(2.0));
        assert_eq!(estimate_credits(&model, &spec(312)), Some(4.0));
        assert_eq!(
            speech_price_line(312, Some(1.0)),
            "312 characters · 4 × 1 credit = 4 credits"
        );
        assert_eq!(speech_price_line(1, None), "1 character");
    }

    #[test]
    fn music_is_priced_per_generation_whatever_its_length() {
        let model = record("music_gen", 10.0);
        let spec = GenerationSpec::for_audio(AudioJobRequest::Music(MusicRequest {
            prompt: "lofi".into(),
            duration: Some(30.0),
            ..MusicRequest::default()
        }));
        assert_eq!(estimate_credits(&model, &spec), Some(10.0));
    }
}
