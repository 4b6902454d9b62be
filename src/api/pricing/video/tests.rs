use super::*;
use crate::api::types::GenerationKind;
use crate::api::video_edit::{
    ExtendMode, RetakeMode, TrimRequest, VideoEditRequest, VideoToVideoRequest,
};

fn edit_model(id: &str, operation: &str, credit: f64, recommended: bool) -> ModelRecord {
    ModelRecord {
        identifier: id.into(),
        name: id.into(),
        types: vec!["video_edit".into()],
        model_type: Some(operation.into()),
        credit: Some(credit),
        recommended: Some(recommended),
        ..ModelRecord::default()
    }
}

fn edit(operation: VideoEditOperation, model: Option<&str>) -> GenerationSpec {
    GenerationSpec::for_video(VideoJobRequest::Edit(VideoEditRequest {
        video_url: "https://cdn.example/clip.mp4".into(),
        model: model.map(str::to_owned),
        project_id: None,
        operation,
    }))
}

fn upscale(resolution: &str) -> VideoEditOperation {
    VideoEditOperation::Upscale {
        resolution: Some(resolution.into()),
        target_fps: None,
        scale: None,
    }
}

fn catalog() -> Vec<ModelRecord> {
    let mut fast = edit_model("acme/upscale-fast", "upscale", 2.0, false);
    fast.resolution_multipliers.insert("4k".into(), 3.0);
    let mut best = edit_model("acme/upscale-best", "upscale", 4.0, true);
    best.resolution_multipliers.insert("4k".into(), 2.5);
    vec![
        fast,
        best,
        edit_model("acme/extend", "extend", 10.0, true),
        edit_model("acme/retake", "retake", 6.0, true),
        edit_model("acme/watermark", "remove_watermark", 1.5, false),
        edit_model("acme/inpaint-a", "inpaint", 3.0, false),
        edit_model("acme/inpaint-b", "inpaint", 5.0, false),
    ]
}

#[test]
fn edits_cost_credit_times_resolution_times_source_seconds() {
    let catalog = catalog();
    // No model chosen: the recommended upscaler (4 credits/s) at 4k (× 2.5) for 8 s = 80.
    let spec = edit(upscale("4k"), None);
    assert_eq!(
        estimate_video_job(&spec, None, &catalog, Some(8.0)),
        VideoPrice::Credits(80.0)
    );
    // The fast one, chosen by id: 2 × 3 × 8 = 48.
    let spec = edit(upscale("4k"), Some("acme/upscale-fast"));
    assert_eq!(
        estimate_video_job(&spec, None, &catalog, Some(8.0)),
        VideoPrice::Credits(48.0)
    );
    // Unknown length: 2 × 3 = 6 credits per second of source.
    assert_eq!(
        estimate_video_job(&spec, None, &catalog, None),
        VideoPrice::PerSourceSecond(6.0)
    );
    // A tier without a multiplier counts 1: 4 × 1 × 2.5 s = 10.
    let spec = edit(upscale("1080p"), None);
    assert_eq!(
        estimate_video_job(&spec, None, &catalog, Some(2.5)),
        VideoPrice::Credits(10.0)
    );
    // The only model of an operation is its default even if not marked: 1.5 × 6 s = 9.
    let spec = edit(VideoEditOperation::RemoveWatermark {}, None);
    assert_eq!(
        estimate_video_job(&spec, None, &catalog, Some(6.0)),
        VideoPrice::Credits(9.0)
    );
    // Two candidates, none recommended: no guess.
    let spec = edit(
        VideoEditOperation::empty(VideoEditOperationKind::Inpaint),
        None,
    );
    assert_eq!(
        estimate_video_job(&spec, None, &catalog, Some(6.0)),
        VideoPrice::Unknown
    );
    // No model for the operation at all.
    let spec = edit(
        VideoEditOperation::empty(VideoEditOperationKind::Lipsync),
        None,
    );
    assert_eq!(
        estimate_video_job(&spec, None, &catalog, Some(6.0)),
        VideoPrice::Unknown
    );
}

#[test]
fn extend_bills_the_extension_plus_a_second_capped_at_21() {
    let catalog = catalog();
    let extend = |secs: Option<f64>| {
        edit(
            VideoEditOperation::Extend {
                duration: secs,
                mode: Some(ExtendMode::End),
                prompt: None,
                context: None,
            },
            None,
        )
    };
    // 10 credits × (5 + 1) s = 60, whatever the source's length.
    assert_eq!(
        estimate_video_job(&extend(Some(5.0)), None, &catalog, None),
        VideoPrice::Credits(60.0)
    );
    // Default 5 s.
    assert_eq!(
        estimate_video_job(&extend(None), None, &catalog, Some(12.0)),
        VideoPrice::Credits(60.0)
    );
    // 20 s (the fallback maximum) + 1 = 21 s → 210; 30 s is clamped to 20 → 210.
    assert_eq!(
        estimate_video_job(&extend(Some(20.0)), None, &catalog, None),
        VideoPrice::Credits(210.0)
    );
    assert_eq!(
        estimate_video_job(&extend(Some(30.0)), None, &catalog, None),
        VideoPrice::Credits(210.0)
    );
    // A model allowing 25 s of extension still bills at most 21 s.
    let mut long = edit_model("acme/extend", "extend", 10.0, true);
    long.max_output_duration = Some(25.0);
    assert_eq!(
        estimate_video_job(&extend(Some(25.0)), Some(&long), &catalog, None),
        VideoPrice::Credits(210.0)
    );
}

#[test]
fn retake_bills_the_whole_input() {
    let catalog = catalog();
    let spec = edit(
        VideoEditOperation::Retake {
            start_time: Some(2.0),
            duration: Some(2.0),
            mode: Some(RetakeMode::ReplaceVideo),
            prompt: None,
        },
        None,
    );
    // 6 credits × 12 s of input (not the 2 s retaken) = 72.
    assert_eq!(
        estimate_video_job(&spec, None, &catalog, Some(12.0)),
        VideoPrice::Credits(72.0)
    );
    assert_eq!(
        estimate_video_job(&spec, None, &catalog, None),
        VideoPrice::PerSourceSecond(6.0)
    );
}

#[test]
fn video_to_video_uses_the_video_input_credit_formula() {
    let catalog: Vec<ModelRecord> =
        serde_json::from_str(include_str!("../../../../assets/models.json")).expect("catalog");
    let spec = |resolution: &str, duration: f64| {
        GenerationSpec::for_video(VideoJobRequest::FromVideo(VideoToVideoRequest {
            video_url: "https://cdn.example/clip.mp4".into(),
            model: "runway/aleph".into(),
            prompt: "as a watercolour".into(),
            resolution: Some(resolution.into()),
            duration: Some(duration),
            ..VideoToVideoRequest::default()
        }))
    };
    // aleph: video_input_credit 8. ceil(8 × (ceil(4.2) + 5) × 1) = 8 × 10 = 80.
    assert_eq!(
        estimate_video_job(&spec("720p", 5.0), None, &catalog, Some(4.2)),
        VideoPrice::Credits(80.0)
    );
    // 1080p multiplies by 1.5: ceil(8 × (7 + 10) × 1.5) = 204.
    assert_eq!(
        estimate_video_job(&spec("1080p", 10.0), None, &catalog, Some(6.3)),
        VideoPrice::Credits(204.0)
    );
    assert_eq!(
        estimate_video_job(&spec("720p", 5.0), None, &catalog, None),
        VideoPrice::Unknown
    );
}

#[test]
fn trims_are_free() {
    let spec = GenerationSpec::for_video(VideoJobRequest::Trim(TrimRequest {
        video_url: "https://cdn.example/clip.mp4".into(),
        start_time: 0.0,
        end_time: 4.0,
        project_id: None,
    }));
    assert_eq!(spec.kind, GenerationKind::VideoTrim);
    assert_eq!(
        estimate_video_job(&spec, None, &[], Some(10.0)),
        VideoPrice::Free
    );
}
