//! Estimates for video edits, video to video and trims (contract, Pricing and POST
//! /v1/edit/video rule 4). Most edits are billed per second of output, which is the
//! source's length, so the figure waits for that length: until it is known the estimate is
//! a price per source second.

use super::{PriceInputs, price, tidy};
use crate::api::types::{GenerationSpec, ModelRecord, VIDEO_EDIT_CATALOG_TYPE, VideoJobRequest};
use crate::api::video_edit::{VideoEditOperation, VideoEditOperationKind};

/// Extend bills the extension plus about one second of context, at most this many seconds.
pub const EXTEND_BILLED_SECS_CAP: f64 = 21.0;
/// The context second extend adds to the billed length.
pub const EXTEND_CONTEXT_SECS: f64 = 1.0;
/// Extend's length when none is given, and its fallback range (contract).
const EXTEND_DEFAULT_SECS: f64 = 5.0;
const EXTEND_FALLBACK_RANGE_SECS: (f64, f64) = (1.0, 20.0);

/// What a video-sourced job is expected to cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VideoPrice {
    /// A trim: no credits at all.
    Free,
    /// The estimate in credits.
    Credits(f64),
    /// Billed by the source's length, which is not known yet: this many credits per
    /// second of source video.
    PerSourceSecond(f64),
    /// No estimate: no model is known for it, or the model has no price (or video to
    /// video before the source's length is known).
    Unknown,
}

/// The model that runs an edit when none is chosen: the catalog's model for the operation
/// (`types` has `video_edit`, `model_type` is the operation) marked `recommended`, else the
/// only one there is.
pub fn default_edit_model(
    catalog: &[ModelRecord],
    operation: VideoEditOperationKind,
) -> Option<&ModelRecord> {
    let mut models = catalog.iter().filter(|m| {
        m.has_type(VIDEO_EDIT_CATALOG_TYPE)
            && m.model_type
                .as_deref()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case(operation.as_str()))
    });
    let all: Vec<&ModelRecord> = models.by_ref().collect();
    all.iter()
        .find(|m| m.recommended == Some(true))
        .copied()
        .or(if all.len() == 1 { Some(all[0]) } else { None })
}

/// The estimate for a video-sourced `spec`. `model` is the chosen model's record (`None`:
/// the edit's default from `catalog`, or video to video's model looked up by identifier);
/// `source_secs` the source video's length when known.
pub fn estimate_video_job(
    spec: &GenerationSpec,
    model: Option<&ModelRecord>,
    catalog: &[ModelRecord],
    source_secs: Option<f64>,
) -> VideoPrice {
    let source_secs = source_secs.filter(|s| s.is_finite() && *s > 0.0);
    match spec.video.as_ref() {
        None => VideoPrice::Unknown,
        Some(VideoJobRequest::Trim(_)) => VideoPrice::Free,
        Some(VideoJobRequest::Edit(edit)) => {
            let model = model.or_else(|| match edit.model.as_deref() {
                Some(id) => catalog.iter().find(|m| m.identifier == id),
                None => default_edit_model(catalog, edit.operation.kind()),
            });
            match model {
                Some(model) => edit_price(model, &edit.operation, source_secs),
                None => VideoPrice::Unknown,
            }
        }
        Some(VideoJobRequest::FromVideo(v2v)) => {
            let model = model.or_else(|| catalog.iter().find(|m| m.identifier == v2v.model));
            let (Some(model), Some(source_secs)) = (model, source_secs) else {
                return VideoPrice::Unknown;
            };
            let inputs = PriceInputs {
                catalog_type: "video_to_video".into(),
                resolution: v2v.resolution.clone().filter(|r| !r.trim().is_empty()),
                duration_secs: v2v.duration.filter(|d| *d > 0.0),
                input_video_secs: vec![source_secs],
                num_images: 1,
                ..PriceInputs::default()
            };
            price(model, &inputs).map_or(VideoPrice::Unknown, VideoPrice::Credits)
        }
    }
}

/// Credits of an edit on `model`: credit × resolution multiplier × billed seconds. Extend
/// bills min(extension + 1, 21) s; retake the whole input; every other operation the
/// source's length.
pub fn edit_price(
    model: &ModelRecord,
    operation: &VideoEditOperation,
    source_secs: Option<f64>,
) -> VideoPrice {
    let resolution = match operation {
        VideoEditOperation::Upscale { resolution, .. }
        | VideoEditOperation::Reframe { resolution, .. } => {
            resolution.clone().filter(|r| !r.trim().is_empty())
        }
        _ => None,
    };
    let per_second = |secs: f64| {
        price(
            model,
            &PriceInputs {
                catalog_type: VIDEO_EDIT_CATALOG_TYPE.into(),
                resolution: resolution.clone(),
                duration_secs: Some(secs),
                num_images: 1,
                ..PriceInputs::default()
            },
        )
    };
    let billed_secs = match operation {
        VideoEditOperation::Extend { duration, .. } => {
            let min = model
                .min_output_duration
                .filter(|s| *s > 0.0)
                .unwrap_or(EXTEND_FALLBACK_RANGE_SECS.0);
            let max = model
                .max_output_duration
                .filter(|s| *s > 0.0)
                .unwrap_or(EXTEND_FALLBACK_RANGE_SECS.1)
                .max(min);
            let extension = duration
                .filter(|d| d.is_finite())
                .unwrap_or(EXTEND_DEFAULT_SECS)
                .clamp(min, max);
            Some((extension + EXTEND_CONTEXT_SECS).min(EXTEND_BILLED_SECS_CAP))
        }
        _ => source_secs,
    };
    match billed_secs {
        Some(secs) => per_second(secs).map_or(VideoPrice::Unknown, VideoPrice::Credits),
        None => per_second(1.0).map_or(VideoPrice::Unknown, |one| {
            VideoPrice::PerSourceSecond(tidy(one))
        }),
    }
}

#[cfg(test)]
mod tests;
