//! Price of a 3D job: once per generation, the model's credit, whatever the mode, the
//! triangle target or PBR. For Auto the range covers the models of the mode's catalog type
//! (not every 3D type: a world model costs more than an object model).

use crate::api::types::{CatalogJobRequest, GenerationSpec, ModelRecord};

/// The catalog type whose models serve this 3D job's mode (`None`: not a 3D job).
pub fn three_d_catalog_type(spec: &GenerationSpec) -> Option<&'static str> {
    match spec.catalog.as_ref()? {
        CatalogJobRequest::ThreeD(request) => Some(request.mode.catalog_type()),
        _ => None,
    }
}

/// Credits for one 3D generation on `model` (`None`: the model has no price).
pub fn three_d_price(model: &ModelRecord) -> Option<f64> {
    model.credit.filter(|c| c.is_finite() && *c >= 0.0)
}

/// "30 credits per model" — the line the form shows under Generate.
pub fn three_d_price_line(model: &ModelRecord) -> Option<String> {
    let credits = three_d_price(model)?;
    Some(format!(
        "{} per model",
        super::credits_text(super::tidy(credits))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::pricing::{estimate_credits, estimate_range_for_auto};
    use crate::api::types::{ThreeDMode, ThreeDRequest};

    fn model(id: &str, catalog_type: &str, credit: f64) -> ModelRecord {
        ModelRecord {
            identifier: id.into(),
            types: vec![catalog_type.into()],
            credit: Some(credit),
            ..ModelRecord::default()
        }
    }

    fn spec(mode: ThreeDMode, polycount: Option<u32>) -> GenerationSpec {
        GenerationSpec::for_catalog(CatalogJobRequest::ThreeD(ThreeDRequest {
            mode,
            prompt: "a lamp".into(),
            target_polycount: polycount,
            enable_pbr: Some(true),
            ..ThreeDRequest::default()
        }))
    }

    #[test]
    fn a_3d_model_costs_the_model_credit_once() {
        let text = model("tripo/v2.5-text", "3d_text_to_model", 30.0);
        assert_eq!(
            estimate_credits(&text, &spec(ThreeDMode::Text, None)),
            Some(30.0)
        );
        assert_eq!(
            estimate_credits(&text, &spec(ThreeDMode::Text, Some(300_000))),
            Some(30.0)
        );
        assert_eq!(
            three_d_price_line(&text).as_deref(),
            Some("30 credits per model")
        );
    }

    #[test]
    fn auto_ranges_over_the_modes_models_only() {
        let models = [
            model("t", "3d_text_to_model", 30.0),
            model("m", "3d_multi_image_to_model", 40.0),
            model("w", "3d_world", 60.0),
            model("v", "text_to_video", 5.0),
        ];
        assert_eq!(
            estimate_range_for_auto(&models, &spec(ThreeDMode::Text, None)),
            Some((30.0, 30.0))
        );
        assert_eq!(
            estimate_range_for_auto(&models, &spec(ThreeDMode::Multi, None)),
            Some((40.0, 40.0))
        );
    }
}
