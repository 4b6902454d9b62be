//! Credit pricing for image tools (contract "Pricing").

use super::catalog::ModelSpec;

/// Credits are shown with at most two decimals; rounding here keeps the ledger exact-looking.
pub(crate) fn round_credits(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// Cost of an image or image-edit request.
///
/// A non-empty `flat_credit_by_resolution` entry for the resolution is the whole total and
/// every other multiplier is ignored (the contract says so literally, num_images included).
/// Otherwise: credit x resolution multiplier x quality multiplier x num_images.
pub(crate) fn image_cost(
    model: &ModelSpec,
    resolution: &str,
    quality: Option<&str>,
    num_images: u32,
) -> f64 {
    if let Some(flat) = model
        .flat_credit_by_resolution
        .as_ref()
        .filter(|map| !map.is_empty())
        .and_then(|map| map.get(resolution))
    {
        return round_credits(*flat);
    }
    let resolution_multiplier = resolution_multiplier(model, resolution);
    let quality_multiplier = quality
        .and_then(|q| model.quality_multipliers.as_ref()?.get(q).copied())
        .unwrap_or(1.0);
    round_credits(model.credit * resolution_multiplier * quality_multiplier * f64::from(num_images))
}

/// The model's multiplier for a resolution tier (1 when it names none).
fn resolution_multiplier(model: &ModelSpec, resolution: &str) -> f64 {
    model
        .resolution_multipliers
        .as_ref()
        .and_then(|map| map.get(resolution))
        .copied()
        .unwrap_or(1.0)
}

/// Cost of one 3D generation: the model's credit, whatever the mode or polycount.
pub(crate) fn three_d_cost(model: &ModelSpec) -> f64 {
    round_credits(model.credit)
}

/// Cost of one video: credit x resolution multiplier x sound multiplier (native-sound
/// models with sound on: `sound_enabled`, else the model's default) x output seconds.
pub(crate) fn video_cost(
    model: &ModelSpec,
    resolution: &str,
    duration_secs: f64,
    sound_enabled: Option<bool>,
) -> f64 {
    let resolution_multiplier = resolution_multiplier(model, resolution);
    round_credits(
        model.credit
            * resolution_multiplier
            * model.sound_multiplier(sound_enabled)
            * duration_secs,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::catalog::Catalog;

    #[test]
    fn flat_pricing_overrides_multipliers() {
        let catalog = Catalog::load().expect("catalog");
        let nano = catalog
            .find("google/nano-banana-2", "text_to_img")
            .expect("model");
        assert_eq!(image_cost(nano, "2K", None, 1), 8.0);
        assert_eq!(image_cost(nano, "4K", None, 3), 16.0);
        let ultra = catalog
            .find("fal-ai/flux-pro/v1.1-ultra", "text_to_img")
            .expect("model");
        assert_eq!(
            image_cost(ultra, "2K", Some("high"), 2),
            6.0 * 1.5 * 1.5 * 2.0
        );
        let schnell = catalog
            .find("fal-ai/flux/schnell", "text_to_img")
            .expect("model");
        assert_eq!(image_cost(schnell, "1K", None, 1), 2.0);
    }

    #[test]
    fn a_3d_model_costs_its_credit_per_generation() {
        let catalog = Catalog::load().expect("catalog");
        for (identifier, raw_type, credit) in [
            ("tripo/v2.5-text", "3d_text_to_model", 30.0),
            ("tripo/v2.5-image", "3d_image_to_model", 30.0),
            ("hunyuan3d/v2-multiview", "3d_multi_image_to_model", 40.0),
            ("worldlabs/marble", "3d_world", 60.0),
        ] {
            let model = catalog.find(identifier, raw_type).expect("3D model");
            assert_eq!(three_d_cost(model), credit, "{identifier}");
            assert!((5.0..=300.0).contains(&credit));
        }
    }

    #[test]
    fn video_cost_is_credit_times_tier_times_seconds() {
        let catalog = Catalog::load().expect("catalog");
        let kling = catalog
            .find("kling/v2.1-master", "text_to_video")
            .expect("model");
        assert_eq!(video_cost(kling, "720p", 5.0, None), 140.0);
        assert_eq!(video_cost(kling, "1080p", 10.0, None), 420.0);
        let hailuo = catalog
            .find("minimax/hailuo-02", "img_to_video")
            .expect("model");
        // An empty multiplier map means 1.
        assert_eq!(video_cost(hailuo, "1080p", 6.0, None), 72.0);
        // veo-3's native sound is on by default: x 1.5.
        let veo = catalog
            .find("google/veo-3", "text_to_video")
            .expect("model");
        assert_eq!(video_cost(veo, "1080p", 8.0, None), 720.0);
        // ... and off on request; a model without native sound ignores the field.
        assert_eq!(video_cost(veo, "1080p", 8.0, Some(false)), 480.0);
        assert_eq!(video_cost(kling, "720p", 5.0, Some(true)), 140.0);
    }
}
