use super::*;
use crate::api::types::GenerationRequest;
use crate::api::validate::{validate, validate_with_source};
use crate::api::video_edit::{ExtendMode, VideoEditOperationKind};

const CLIP: &str = "https://cdn.example/clip.mp4";

fn edit_spec(operation: VideoEditOperation) -> GenerationSpec {
    GenerationSpec::for_video(VideoJobRequest::Edit(VideoEditRequest {
        video_url: CLIP.into(),
        model: None,
        project_id: None,
        operation,
    }))
}

fn fields(errors: &[FieldError]) -> Vec<Field> {
    errors.iter().map(|e| e.field).collect()
}

fn edit_model(operation: &str) -> ModelRecord {
    ModelRecord {
        identifier: format!("acme/{operation}"),
        name: format!("Acme {operation}"),
        types: vec!["video_edit".into()],
        model_type: Some(operation.into()),
        ..ModelRecord::default()
    }
}

fn check(
    operation: VideoEditOperation,
    model: Option<&ModelRecord>,
    source: Option<f64>,
) -> Vec<Field> {
    fields(&validate_with_source(&edit_spec(operation), model, source))
}

#[test]
fn source_video_is_required_and_a_web_address() {
    for (url, message) in [
        ("", "Add the source video"),
        ("/home/me/clip.mp4", "not a web address"),
        ("file:///clip.mp4", "not a web address"),
    ] {
        let mut spec = edit_spec(VideoEditOperation::RemoveWatermark {});
        if let Some(VideoJobRequest::Edit(edit)) = spec.video.as_mut() {
            edit.video_url = url.into();
        }
        let errors = validate(&spec, None);
        assert_eq!(fields(&errors), vec![Field::SourceVideo], "{url}");
        assert!(errors[0].message.contains(message), "{}", errors[0].message);
    }
    assert!(validate(&edit_spec(VideoEditOperation::RemoveWatermark {}), None).is_empty());
    // A video kind without its body is refused as a whole.
    let bare = GenerationSpec::new(GenerationKind::VideoTrim, GenerationRequest::default());
    assert_eq!(fields(&validate(&bare, None)), vec![Field::Operation]);
}

#[test]
fn the_model_must_be_an_edit_model_for_this_operation() {
    let upscaler = edit_model("upscale");
    let op = VideoEditOperation::empty(VideoEditOperationKind::Upscale);
    assert!(check(op.clone(), Some(&upscaler), None).is_empty());
    let errors = validate(
        &edit_spec(VideoEditOperation::RemoveWatermark {}),
        Some(&upscaler),
    );
    assert_eq!(fields(&errors), vec![Field::Model]);
    assert_eq!(
        errors[0].message,
        "Acme upscale is for Upscale, not Remove watermark; pick a model listed for it."
    );
    let mut t2v = upscaler.clone();
    t2v.types = vec!["text_to_video".into()];
    assert_eq!(check(op, Some(&t2v), None), vec![Field::Model]);
}

#[test]
fn reframe_needs_an_aspect_ratio_from_the_models_list() {
    let reframe = |ratio: &str| VideoEditOperation::Reframe {
        aspect_ratio: ratio.into(),
        resolution: None,
        grid_position_x: None,
        grid_position_y: None,
    };
    assert_eq!(check(reframe(" "), None, None), vec![Field::AspectRatio]);
    let mut model = edit_model("reframe");
    model.supported_aspect_ratios = vec!["9:16".into(), "1:1".into()];
    let errors = validate(&edit_spec(reframe("")), Some(&model));
    assert_eq!(
        errors[0].message,
        "Pick the aspect ratio to reframe to: 9:16, 1:1."
    );
    assert_eq!(
        check(reframe("21:9"), Some(&model), None),
        vec![Field::AspectRatio]
    );
    assert!(check(reframe("9:16"), Some(&model), None).is_empty());
    assert!(
        check(reframe("21:9"), None, None).is_empty(),
        "no list, no restriction"
    );
}

#[test]
fn grid_positions_and_video_strength_are_between_0_and_1() {
    let reframe = |x: f64, y: f64| VideoEditOperation::Reframe {
        aspect_ratio: "9:16".into(),
        resolution: None,
        grid_position_x: Some(x),
        grid_position_y: Some(y),
    };
    assert!(check(reframe(0.0, 1.0), None, None).is_empty());
    assert_eq!(
        check(reframe(1.2, 0.5), None, None),
        vec![Field::GridPosition]
    );
    assert_eq!(
        check(reframe(0.5, -0.1), None, None),
        vec![Field::GridPosition]
    );
    let inpaint = |strength: f64| VideoEditOperation::Inpaint {
        mask_video_url: Some("https://cdn.example/mask.mp4".into()),
        object_prompt: None,
        prompt: Some("a plant".into()),
        video_strength: Some(strength),
    };
    assert!(check(inpaint(0.0), None, None).is_empty());
    assert!(check(inpaint(1.0), None, None).is_empty());
    assert_eq!(check(inpaint(1.5), None, None), vec![Field::VideoStrength]);
    let local_mask = VideoEditOperation::Inpaint {
        mask_video_url: Some("mask.mp4".into()),
        object_prompt: None,
        prompt: None,
        video_strength: None,
    };
    assert_eq!(check(local_mask, None, None), vec![Field::MaskVideo]);
}

#[test]
fn magic_edit_needs_a_prompt() {
    let magic = |p: &str| VideoEditOperation::MagicEdit { prompt: p.into() };
    let errors = validate(&edit_spec(magic("  ")), None);
    assert_eq!(fields(&errors), vec![Field::Prompt]);
    assert_eq!(errors[0].message, "Describe the change you want.");
    assert!(check(magic("make it snow"), None, None).is_empty());
    assert_eq!(
        check(magic(&"a".repeat(2001)), None, None),
        vec![Field::Prompt]
    );
}

#[test]
fn face_swap_needs_a_web_image() {
    let swap = |url: &str| VideoEditOperation::FaceSwap {
        image_url: url.into(),
    };
    assert_eq!(check(swap(""), None, None), vec![Field::FaceImage]);
    assert_eq!(
        check(swap("C:\\face.png"), None, None),
        vec![Field::FaceImage]
    );
    assert!(check(swap("https://cdn.example/face.png"), None, None).is_empty());
}

#[test]
fn lipsync_needs_web_audio_or_words() {
    let lipsync = |source| VideoEditOperation::Lipsync { source };
    assert_eq!(
        check(lipsync(LipsyncSource::Text(" ".into())), None, None),
        vec![Field::LipsyncSource]
    );
    assert_eq!(
        check(
            lipsync(LipsyncSource::Audio("voice.mp3".into())),
            None,
            None
        ),
        vec![Field::LipsyncSource]
    );
    assert!(check(lipsync(LipsyncSource::Text("hello".into())), None, None).is_empty());
    assert!(
        check(
            lipsync(LipsyncSource::Audio("https://cdn.example/v.mp3".into())),
            None,
            None
        )
        .is_empty()
    );
}

fn audio(prompt: Option<&str>, format: Option<&str>) -> VideoEditOperation {
    VideoEditOperation::GenerateAudio {
        prompt: None,
        sound_effect_prompt: prompt.map(str::to_owned),
        background_music_prompt: None,
        original_sound: None,
        cfg_strength: None,
        audio_format: format.map(str::to_owned),
        segments: Vec::new(),
    }
}

#[test]
fn generate_audio_needs_a_prompt_unless_the_model_auto_captions() {
    assert_eq!(
        check(audio(None, None), None, None),
        vec![Field::AudioPrompts]
    );
    assert!(check(audio(Some("thunder"), None), None, None).is_empty());
    // Only a chosen model whose identifier carries the family's marker is exempt.
    let mut scorer = edit_model("generate_audio");
    scorer.identifier = "mirelo-ai/sfx-v1.5".into();
    assert!(check(audio(None, None), Some(&scorer), None).is_empty());
    let plain = edit_model("generate_audio");
    assert_eq!(
        check(audio(None, None), Some(&plain), None),
        vec![Field::AudioPrompts]
    );
}

#[test]
fn audio_format_comes_from_the_model_or_the_fallback_list() {
    assert!(check(audio(Some("rain"), Some("flac")), None, None).is_empty());
    let errors = validate(&edit_spec(audio(Some("rain"), Some("ogg"))), None);
    assert_eq!(fields(&errors), vec![Field::AudioFormat]);
    assert_eq!(
        errors[0].message,
        "Auto does not write ogg audio; choose one of wav, mp3, aac, flac."
    );
    let mut model = edit_model("generate_audio");
    model.output_audio_formats = vec!["ogg".into(), "wav".into()];
    assert!(check(audio(Some("rain"), Some("OGG")), Some(&model), None).is_empty());
    assert_eq!(
        check(audio(Some("rain"), Some("mp3")), Some(&model), None),
        vec![Field::AudioFormat]
    );
}

#[test]
fn target_fps_is_16_to_60() {
    let upscale = |fps: u32| VideoEditOperation::Upscale {
        resolution: None,
        target_fps: Some(fps),
        scale: None,
    };
    assert!(check(upscale(16), None, None).is_empty());
    assert!(check(upscale(60), None, None).is_empty());
    assert_eq!(check(upscale(15), None, None), vec![Field::TargetFps]);
    assert_eq!(check(upscale(61), None, None), vec![Field::TargetFps]);
}

#[test]
fn extend_length_and_source_limit() {
    let extend = |secs: f64| VideoEditOperation::Extend {
        duration: Some(secs),
        mode: Some(ExtendMode::End),
        prompt: None,
        context: None,
    };
    // Fallback range 1-20 s.
    assert!(check(extend(20.0), None, None).is_empty());
    assert_eq!(check(extend(21.0), None, None), vec![Field::Duration]);
    assert_eq!(check(extend(0.5), None, None), vec![Field::Duration]);
    let mut model = edit_model("extend");
    model.min_output_duration = Some(2.0);
    model.max_output_duration = Some(8.0);
    let errors = validate(&edit_spec(extend(10.0)), Some(&model));
    assert_eq!(
        errors[0].message,
        "Acme extend extends by 2 s to 8 s; 10 s is outside that."
    );
    // Sources over 30 s fail the job (rule 3).
    assert!(check(extend(5.0), None, Some(30.0)).is_empty());
    assert_eq!(
        check(extend(5.0), None, Some(30.5)),
        vec![Field::SourceVideo]
    );
}

#[test]
fn retake_span_and_source_limits() {
    let retake = |start: f64, secs: f64| VideoEditOperation::Retake {
        start_time: Some(start),
        duration: Some(secs),
        mode: None,
        prompt: None,
    };
    assert!(check(retake(0.0, 2.0), None, None).is_empty());
    assert_eq!(check(retake(0.0, 1.5), None, None), vec![Field::Duration]);
    assert_eq!(check(retake(-1.0, 2.0), None, None), vec![Field::StartTime]);
    // With the source's length: at least 3 s, at most 30 s, the span inside it.
    assert!(check(retake(1.0, 2.0), None, Some(3.0)).is_empty());
    assert_eq!(
        check(retake(0.0, 2.0), None, Some(2.5)),
        vec![Field::SourceVideo]
    );
    assert_eq!(
        check(retake(0.0, 2.0), None, Some(31.0)),
        vec![Field::SourceVideo]
    );
    let errors = validate_with_source(&edit_spec(retake(4.0, 3.0)), None, Some(6.0));
    assert_eq!(fields(&errors), vec![Field::Duration]);
    assert_eq!(
        errors[0].message,
        "The retake (3 s from 4 s) runs past the end of the 6 s video."
    );
}

fn trim(start: f64, end: f64) -> GenerationSpec {
    GenerationSpec::for_video(VideoJobRequest::Trim(TrimRequest {
        video_url: CLIP.into(),
        start_time: start,
        end_time: end,
        project_id: None,
    }))
}

#[test]
fn trim_selection_rules() {
    assert!(validate(&trim(0.0, 2.0), None).is_empty());
    assert!(
        validate(&trim(1.0, 1.1), None).is_empty(),
        "0.1 s is the minimum"
    );
    assert_eq!(
        fields(&validate(&trim(1.0, 1.05), None)),
        vec![Field::EndTime]
    );
    assert_eq!(
        fields(&validate(&trim(2.0, 1.0), None)),
        vec![Field::EndTime]
    );
    assert_eq!(
        fields(&validate(&trim(-0.5, 1.0), None)),
        vec![Field::StartTime]
    );
    // A start at or past the source's end fails the job on the service.
    assert_eq!(
        fields(&validate_with_source(&trim(6.0, 8.0), None, Some(6.0))),
        vec![Field::StartTime]
    );
    // An end past the source is clamped by the service: fine.
    assert!(validate_with_source(&trim(1.0, 8.0), None, Some(6.0)).is_empty());
}

fn v2v(model: &str, prompt: &str) -> GenerationSpec {
    GenerationSpec::for_video(VideoJobRequest::FromVideo(VideoToVideoRequest {
        video_url: CLIP.into(),
        model: model.into(),
        prompt: prompt.into(),
        ..VideoToVideoRequest::default()
    }))
}

#[test]
fn video_to_video_needs_a_named_model() {
    for auto in [
        "",
        "  ",
        "auto",
        "Auto-Select",
        "smart_select",
        "SMARTSELECT",
        "smart-select",
    ] {
        let errors = validate(&v2v(auto, "as a watercolour"), None);
        assert_eq!(fields(&errors), vec![Field::Model], "{auto:?}");
    }
    assert!(validate(&v2v("runway/aleph", "as a watercolour"), None).is_empty());
    assert_eq!(
        fields(&validate(&v2v("runway/aleph", " "), None)),
        vec![Field::Prompt]
    );
    let mut spec = v2v("runway/aleph", "as a watercolour");
    if let Some(VideoJobRequest::FromVideo(request)) = spec.video.as_mut() {
        request.video_url.clear();
    }
    assert_eq!(fields(&validate(&spec, None)), vec![Field::SourceVideo]);
}

#[test]
fn video_to_video_follows_the_model_record() {
    let catalog: Vec<ModelRecord> =
        serde_json::from_str(include_str!("../../../../assets/models.json")).expect("catalog");
    let aleph = catalog
        .iter()
        .find(|m| m.identifier == "runway/aleph")
        .expect("aleph");
    let mut spec = v2v("runway/aleph", "as a watercolour");
    if let Some(VideoJobRequest::FromVideo(request)) = spec.video.as_mut() {
        request.resolution = Some("4k".into());
        request.aspect_ratio = Some("21:9".into());
        request.duration = Some(12.0);
    }
    assert_eq!(
        fields(&validate(&spec, Some(aleph))),
        vec![Field::AspectRatio, Field::Resolution, Field::Duration]
    );
}
