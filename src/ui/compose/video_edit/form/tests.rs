use super::*;
use crate::api::ModelRecord;

/// A UI model whose catalog is the sandbox's own (assets/models.json).
fn model_with_catalog() -> Model {
    let models: Vec<ModelRecord> =
        serde_json::from_str(include_str!("../../../../../assets/models.json"))
            .expect("models.json decodes");
    let mut model = Model::default();
    model.catalog.set(Ok(models));
    model
}

fn form_with_source(choice: EditChoice, duration_secs: Option<f64>) -> VideoEditForm {
    let mut form = VideoEditForm::default();
    form.set_source_url(
        "http://127.0.0.1:1/files/clip.mp4",
        "clip.mp4",
        duration_secs,
        None,
    );
    form.set_choice(choice);
    form
}

fn body(form: &VideoEditForm) -> serde_json::Value {
    let spec = form.build_spec(None);
    spec.video.expect("a video job").body().expect("serialises")
}

#[test]
fn each_operation_sends_only_its_own_fields() {
    let mut form = form_with_source(
        EditChoice::Operation(VideoEditOperationKind::Reframe),
        Some(6.0),
    );
    // Fields of other operations typed earlier must not leak into this one.
    form.fields.prompt = "make it snow".into();
    form.fields.face_image_url = "https://example.com/face.png".into();
    form.fields.aspect_ratio = "1:1".into();
    form.fields.grid_x = Some(1.0);
    let reframe = body(&form);
    assert_eq!(reframe["operation"], "reframe");
    assert_eq!(reframe["aspect_ratio"], "1:1");
    assert_eq!(reframe["grid_position_x"], 1.0);
    assert!(reframe.get("prompt").is_none(), "reframe reads no prompt");
    assert!(reframe.get("image_url").is_none());

    form.set_choice(EditChoice::Operation(VideoEditOperationKind::MagicEdit));
    let magic = body(&form);
    assert_eq!(magic["operation"], "magic_edit");
    assert_eq!(magic["prompt"], "make it snow");
    assert!(magic.get("aspect_ratio").is_none());

    form.set_choice(EditChoice::Operation(
        VideoEditOperationKind::RemoveWatermark,
    ));
    let watermark = body(&form);
    let keys: Vec<&str> = watermark
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["operation", "video_url"],
        "remove_watermark sends nothing else"
    );
}

#[test]
fn a_trim_sends_the_in_and_out_points_as_numbers_and_is_free() {
    let model = model_with_catalog();
    let mut form = form_with_source(EditChoice::Trim, Some(8.0));
    form.fields.trim_in_secs = 1.5;
    form.fields.trim_out_secs = Some(4.25);
    let trim = body(&form);
    assert_eq!(trim["start_time"], 1.5);
    assert_eq!(trim["end_time"], 4.25);
    assert_eq!(form.estimate(&model, None), Estimate::Exact(0.0));
    assert_eq!(form.button_text(&model, None), "Trim · free");
    assert!(form.validation_errors(&model, None).is_empty());
}

#[test]
fn reframe_without_an_aspect_ratio_is_refused_at_that_field() {
    let model = model_with_catalog();
    let form = form_with_source(
        EditChoice::Operation(VideoEditOperationKind::Reframe),
        Some(6.0),
    );
    assert!(
        form.fields.aspect_ratio.is_empty(),
        "nothing chosen before the form has seen the catalog"
    );
    let errors = form.validation_errors(&model, None);
    assert!(
        errors.iter().any(|e| e.field == Field::AspectRatio),
        "{errors:?}"
    );
}

#[test]
fn magic_edit_needs_a_prompt_and_face_swap_a_face() {
    let model = model_with_catalog();
    let form = form_with_source(
        EditChoice::Operation(VideoEditOperationKind::MagicEdit),
        Some(6.0),
    );
    let errors = form.validation_errors(&model, None);
    assert!(
        errors.iter().any(|e| e.field == Field::Prompt),
        "{errors:?}"
    );

    let form = form_with_source(
        EditChoice::Operation(VideoEditOperationKind::FaceSwap),
        Some(6.0),
    );
    let errors = form.validation_errors(&model, None);
    assert!(
        errors.iter().any(|e| e.field == Field::FaceImage),
        "{errors:?}"
    );
}

#[test]
fn nothing_is_sent_without_a_ready_source() {
    let model = model_with_catalog();
    let mut form = VideoEditForm::default();
    form.set_choice(EditChoice::Operation(VideoEditOperationKind::Upscale));
    let errors = form.validation_errors(&model, None);
    assert_eq!(errors.first().map(|e| &e.field), Some(&Field::SourceVideo));

    form.set_source_upload(std::path::PathBuf::from("/tmp/clip.mp4"));
    let errors = form.validation_errors(&model, None);
    assert!(
        errors
            .iter()
            .any(|e| e.field == Field::SourceVideo && e.message.contains("uploading")),
        "{errors:?}"
    );
    let finished = form.upload_finished(
        std::path::Path::new("/tmp/clip.mp4"),
        &Ok("http://127.0.0.1:1/files/clip.mp4".to_owned()),
    );
    assert!(finished);
    assert_eq!(
        form.source.as_ref().and_then(VideoSource::url),
        Some("http://127.0.0.1:1/files/clip.mp4")
    );
}

#[test]
fn restyle_requires_a_chosen_model() {
    let model = model_with_catalog();
    let mut form = form_with_source(EditChoice::Restyle, Some(4.0));
    form.fields.prompt = "watercolour".into();
    let errors = form.validation_errors(&model, None);
    assert!(errors.iter().any(|e| e.field == Field::Model), "{errors:?}");
    form.model_id = Some("runway/aleph".into());
    assert!(form.validation_errors(&model, None).is_empty());
}

#[test]
fn an_edit_is_priced_on_the_operations_default_model_once_the_length_is_known() {
    let model = model_with_catalog();
    let mut form = form_with_source(
        EditChoice::Operation(VideoEditOperationKind::RemoveWatermark),
        None,
    );
    assert_eq!(form.estimate(&model, None), Estimate::Unknown);
    form.source_measured("http://127.0.0.1:1/files/clip.mp4", 4.0, 24.0);
    // videoclean/watermark-remover: 1 credit per second of source.
    assert_eq!(form.estimate(&model, None), Estimate::Exact(4.0));
    assert_eq!(
        form.effective_model(&model).map(|m| m.identifier.as_str()),
        Some("videoclean/watermark-remover")
    );
}

#[test]
fn measuring_the_source_sets_the_out_point_to_its_end() {
    let mut form = form_with_source(EditChoice::Trim, None);
    assert_eq!(form.fields.trim_out_secs, None);
    form.source_measured("http://127.0.0.1:1/files/clip.mp4", 2.5, 24.0);
    assert_eq!(form.fields.trim_out_secs, Some(2.5));
    assert_eq!(form.source_fps(), Some(24.0));
}

#[test]
fn required_choices_start_from_the_model_record() {
    let mut model = model_with_catalog();
    // Reframe: the record's default ratio.
    let mut reframe = form_with_source(
        EditChoice::Operation(VideoEditOperationKind::Reframe),
        Some(6.0),
    );
    reframe.normalize(&model);
    assert_eq!(reframe.fields.aspect_ratio, "9:16");
    assert!(reframe.validation_errors(&model, None).is_empty());
    // A choice the artist made is kept.
    reframe.fields.aspect_ratio = "1:1".into();
    reframe.normalize(&model);
    assert_eq!(reframe.fields.aspect_ratio, "1:1");

    // Restyle: the only video-to-video model in the catalog.
    let mut restyle = form_with_source(EditChoice::Restyle, Some(4.0));
    restyle.normalize(&model);
    assert_eq!(restyle.model_id.as_deref(), Some("runway/aleph"));

    // Without a record default and with several ratios, the artist chooses.
    for m in model.catalog.value.iter_mut().flatten() {
        m.default_aspect_ratio = None;
    }
    let mut open = form_with_source(
        EditChoice::Operation(VideoEditOperationKind::Reframe),
        Some(6.0),
    );
    open.normalize(&model);
    assert!(open.fields.aspect_ratio.is_empty());
    let errors = open.validation_errors(&model, None);
    assert!(
        errors.iter().any(|e| e.field == Field::AspectRatio),
        "{errors:?}"
    );
}
