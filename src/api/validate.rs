//! Rules that can be checked before a request is sent, from the catalog record of the
//! chosen model (or the contract defaults for Auto). Messages are plain and specific.

use super::types::{
    GenerationKind, GenerationSpec, MAX_SCENE_COUNT, MAX_VISUAL_DNA_IDS, MIN_SCENE_COUNT,
    ModelRecord,
};

/// The form field a problem belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    Prompt,
    Model,
    AspectRatio,
    Resolution,
    NumImages,
    SourceImages,
    Project,
    /// Video seconds.
    Duration,
    /// Image-to-video's `image_url`.
    SourceImage,
    VisualDna,
    ReferenceImages,
    SceneCount,
    /// The source video's `video_url` (edits, video to video, trims).
    SourceVideo,
    /// The edit operation as a whole (e.g. an operation the request cannot carry).
    Operation,
    /// Upscale's `target_fps`.
    TargetFps,
    /// Generate audio's `audio_format`.
    AudioFormat,
    /// Generate audio's three prompts together (one is needed).
    AudioPrompts,
    /// Lipsync's `audio_url` or `text_prompt`.
    LipsyncSource,
    /// Face swap's reference face `image_url`.
    FaceImage,
    /// Inpaint's `mask_video_url`.
    MaskVideo,
    /// Reframe's `grid_position_x` / `grid_position_y`.
    GridPosition,
    /// Inpaint's `video_strength`.
    VideoStrength,
    /// Retake's and trim's `start_time`.
    StartTime,
    /// Trim's `end_time`.
    EndTime,
    /// Speech's `voice` (VOICE_REQUIRED / VOICE_NOT_FOUND before sending).
    Voice,
    /// Music's `lyrics`.
    Lyrics,
    /// Music's `vocal_gender`.
    VocalGender,
    /// Speech's `language`.
    Language,
    /// Elements' `reference_videos`.
    ReferenceVideos,
    /// Elements' `reference_audio_urls`.
    ReferenceAudio,
    /// First and last frame's `first_frame_url`.
    FirstFrame,
    /// First and last frame's `last_frame_url`.
    LastFrame,
    /// Lip sync's face (`source_url`: an image or a video).
    Face,
    /// Lip sync's audio file (`audio_url`): its length, format and size.
    VoiceAudio,
    /// Lip sync's typed line (`text_prompt`).
    SpokenLine,
    /// `moodboard_id` / Creative Director's `moodboard_ids`.
    Moodboard,
    /// 3D's `target_polycount`.
    Polycount,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub field: Field,
    pub message: String,
}

impl FieldError {
    pub(super) fn new(field: Field, message: impl Into<String>) -> Self {
        FieldError {
            field,
            message: message.into(),
        }
    }
}

mod audio;
mod catalog;
mod three_d;
mod video;

pub use catalog::{CatalogMediaFacts, extension_of, validate_catalog, validate_catalog_with};
pub use three_d::{
    THREE_D_MAX_VIEWS, THREE_D_POLYCOUNT_RANGE, three_d_image_range, validate_three_d,
};

pub use audio::{SOUND_DURATION_RANGE_SECS, VOCAL_GENDERS, sound_range_secs, validate_audio_job};

pub use video::{
    AUDIO_FORMAT_FALLBACK, AUDIO_SCORING_AUTO_CAPTION_MARKER, MIN_TRIM_SELECTION_SECS,
    V2V_AUTO_ALIASES,
};

/// Every problem with `spec` known before sending. `model` is `None` for Auto.
pub fn validate(spec: &GenerationSpec, model: Option<&ModelRecord>) -> Vec<FieldError> {
    validate_with_source(spec, model, None)
}

/// [`validate`], also checking the rules that need the source video's length in seconds
/// (video edits and trims; `None` when it is not known yet).
pub fn validate_with_source(
    spec: &GenerationSpec,
    model: Option<&ModelRecord>,
    source_secs: Option<f64>,
) -> Vec<FieldError> {
    if GenerationKind::VIDEO_SOURCED.contains(&spec.kind) {
        return video::validate_video_job(spec, model, source_secs);
    }
    if spec.kind.outputs_audio() {
        return audio::validate_audio_job(spec, model, None);
    }
    if matches!(
        spec.kind,
        GenerationKind::Elements | GenerationKind::FirstLastFrame | GenerationKind::Lipsync
    ) {
        return catalog::validate_catalog_with(
            spec,
            model,
            &CatalogMediaFacts {
                source_video_secs: source_secs,
                ..CatalogMediaFacts::default()
            },
        );
    }
    if spec.kind == GenerationKind::ThreeD {
        return three_d::validate_three_d(spec, model);
    }
    if spec.kind == GenerationKind::Transcription {
        return match &spec.audio {
            Some(crate::api::audio::AudioJobRequest::Transcription(request)) => {
                audio::transcription_errors(request, source_secs)
            }
            _ => vec![FieldError::new(
                Field::SourceVideo,
                "The transcription request has no source.",
            )],
        };
    }
    let mut errors = Vec::new();
    let request = &spec.request;
    let who = model.map(ModelRecord::display_name).unwrap_or("Auto");

    // Prompt: required, non-blank, within the model's limits (counted in characters).
    let prompt_required =
        spec.kind.requires_prompt() || model.is_some_and(|m| m.requires_prompt == Some(true));
    catalog::prompt(&request.prompt, prompt_required, model, who, &mut errors);

    if let Some(model) = model {
        // The model must do this kind of work.
        let kind_type = spec.catalog_type();
        if !model.types.is_empty() && !model.has_type(kind_type) {
            errors.push(FieldError::new(
                Field::Model,
                format!(
                    "{who} cannot do {}; pick a model listed for that type.",
                    kind_phrase(spec.kind)
                ),
            ));
        }

        if let Some(ratio) = request
            .aspect_ratio
            .as_deref()
            .filter(|r| !r.trim().is_empty())
            && !model.aspect_ratios_for(kind_type).is_empty()
            && !contains_ignore_case(model.aspect_ratios_for(kind_type), ratio)
        {
            errors.push(FieldError::new(
                Field::AspectRatio,
                format!(
                    "{who} does not offer aspect ratio {ratio}; choose one of {}.",
                    model.aspect_ratios_for(kind_type).join(", ")
                ),
            ));
        }

        if spec.makes_video()
            && let Some(secs) = request.duration
            && secs > 0.0
        {
            if !model.supported_durations.is_empty()
                && !model
                    .supported_durations
                    .iter()
                    .any(|d| (d - secs).abs() < 1e-6)
            {
                let offered: Vec<String> = model
                    .supported_durations
                    .iter()
                    .map(|d| seconds_text(*d))
                    .collect();
                errors.push(FieldError::new(
                    Field::Duration,
                    format!(
                        "{who} makes {} videos; {} is not one of them.",
                        offered.join(", "),
                        seconds_text(secs)
                    ),
                ));
            } else if let Some(min) = model.min_output_duration
                && secs < min
            {
                errors.push(FieldError::new(
                    Field::Duration,
                    format!("{who} makes videos of at least {}.", seconds_text(min)),
                ));
            } else if let Some(max) = model.max_output_duration
                && secs > max
            {
                errors.push(FieldError::new(
                    Field::Duration,
                    format!("{who} makes videos of at most {}.", seconds_text(max)),
                ));
            }
        }

        if let Some(resolution) = request
            .resolution
            .as_deref()
            .filter(|r| !r.trim().is_empty())
            && !model.supported_resolutions.is_empty()
            && !contains_ignore_case(&model.supported_resolutions, resolution)
        {
            errors.push(FieldError::new(
                Field::Resolution,
                format!(
                    "{who} does not offer resolution {resolution}; choose one of {}.",
                    model.supported_resolutions.join(", ")
                ),
            ));
        }
    }

    // Number of images.
    if let Some(count) = request.num_images {
        let max = model.map(ModelRecord::max_images_per_request).unwrap_or(1);
        if count == 0 {
            errors.push(FieldError::new(
                Field::NumImages,
                "Ask for at least 1 image.",
            ));
        } else if count > max {
            errors.push(FieldError::new(
                Field::NumImages,
                if max == 1 {
                    format!("{who} makes 1 image per request; you asked for {count}.")
                } else {
                    format!("{who} makes at most {max} images per request; you asked for {count}.")
                },
            ));
        }
    }

    // Image-edit sources.
    if spec.kind == GenerationKind::ImageEdit {
        let sources = &request.source_images;
        if let Some(max) = model.and_then(|m| m.max_reference_images)
            && sources.len() > max as usize
        {
            errors.push(FieldError::new(
                Field::SourceImages,
                format!(
                    "{} source images attached; {who} accepts at most {max}.",
                    sources.len()
                ),
            ));
        }
        for (index, url) in sources.iter().enumerate() {
            if !is_http_url(url) {
                errors.push(FieldError::new(
                    Field::SourceImages,
                    format!(
                        "Source image {} is not a web address (http:// or https://); upload it first.",
                        index + 1
                    ),
                ));
            }
        }
    }

    if let Some(secs) = request.duration
        && spec.makes_video()
        && (!secs.is_finite() || secs <= 0.0)
    {
        errors.push(FieldError::new(
            Field::Duration,
            "Pick a length of more than 0 seconds.",
        ));
    }

    if spec.kind == GenerationKind::ImageToVideo {
        match request.image_url.as_deref().map(str::trim) {
            None | Some("") => errors.push(FieldError::new(
                Field::SourceImage,
                "Add the image to animate: drop one in, pick one from the Library, or use Animate on a result.",
            )),
            Some(url) if !is_http_url(url) => errors.push(FieldError::new(
                Field::SourceImage,
                "The image to animate is not a web address (http:// or https://); upload it first.",
            )),
            Some(_) => {}
        }
    }

    errors.extend(visual_dna_and_moodboard_errors(spec, model));

    if !request.reference_images.is_empty() {
        if let Some(max) = model.and_then(|m| m.max_reference_images)
            && request.reference_images.len() > max as usize
        {
            errors.push(FieldError::new(
                Field::ReferenceImages,
                if max == 0 {
                    format!("{who} does not take reference images.")
                } else {
                    format!(
                        "{} reference images; {who} accepts at most {max}.",
                        request.reference_images.len()
                    )
                },
            ));
        }
        if let Some(index) = request
            .reference_images
            .iter()
            .position(|url| !is_http_url(url))
        {
            errors.push(FieldError::new(
                Field::ReferenceImages,
                format!(
                    "Reference image {} is not a web address (http:// or https://); upload it first.",
                    index + 1
                ),
            ));
        }
    }

    if spec.kind == GenerationKind::CreativeDirector
        && let Some(count) = request.scene_count
        && !(MIN_SCENE_COUNT..=MAX_SCENE_COUNT).contains(&count)
    {
        errors.push(FieldError::new(
            Field::SceneCount,
            format!("Pick {MIN_SCENE_COUNT} to {MAX_SCENE_COUNT} scenes; {count} is outside that."),
        ));
    }

    if let Some(project) = request.project_id.as_deref()
        && project.trim().is_empty()
    {
        errors.push(FieldError::new(
            Field::Project,
            "The project id is blank; pick a project or leave it unset.",
        ));
    }

    errors
}

/// Kinds whose route takes `visual_dna_ids` (contract: image-edit, video, video from image,
/// Creative Director; reference: elements). Plain image generation is not listed with them
/// in the contract, so its form offers no Visual DNA.
pub fn kind_takes_visual_dna(kind: GenerationKind) -> bool {
    matches!(
        kind,
        GenerationKind::ImageEdit
            | GenerationKind::TextToVideo
            | GenerationKind::ImageToVideo
            | GenerationKind::CreativeDirector
            | GenerationKind::Elements
    )
}

/// Kinds whose form offers a moodboard (`moodboard_id`: image, image-edit, video, video from
/// image, Creative Director; Creative Director also `moodboard_ids`, one per scene).
pub fn kind_takes_moodboard(kind: GenerationKind) -> bool {
    matches!(
        kind,
        GenerationKind::Image
            | GenerationKind::ImageEdit
            | GenerationKind::TextToVideo
            | GenerationKind::ImageToVideo
            | GenerationKind::CreativeDirector
    )
}

/// How many Visual DNA a request of `kind` with `model` (None = Auto) may carry: 0 when the
/// kind or the model takes none (the picker is hidden), else the contract's 3 or the
/// model's smaller `max_visual_dna` (see [`ModelRecord::takes_visual_dna`]).
pub fn visual_dna_cap(kind: GenerationKind, model: Option<&ModelRecord>) -> usize {
    if !kind_takes_visual_dna(kind) {
        return 0;
    }
    match model {
        Some(m) if !m.takes_visual_dna() => 0,
        Some(m) => m.max_visual_dna_ids(),
        None => MAX_VISUAL_DNA_IDS,
    }
}

/// `visual_dna_ids`, `moodboard_id` and `moodboard_ids` against the kind, the model and the
/// scene count. (Whether each id still exists is the form's check: it knows the lists.)
pub fn visual_dna_and_moodboard_errors(
    spec: &GenerationSpec,
    model: Option<&ModelRecord>,
) -> Vec<FieldError> {
    let request = &spec.request;
    let who = model.map(ModelRecord::display_name).unwrap_or("Auto");
    let mut errors = Vec::new();
    let dna_count = request.visual_dna_ids.len();
    if dna_count > 0 {
        let cap = visual_dna_cap(spec.kind, model);
        if !kind_takes_visual_dna(spec.kind) {
            errors.push(FieldError::new(
                Field::VisualDna,
                format!(
                    "Visual DNA cannot be used for {}; remove it.",
                    kind_phrase(spec.kind)
                ),
            ));
        } else if cap == 0 {
            errors.push(FieldError::new(
                Field::VisualDna,
                format!("{who} does not take Visual DNA; remove it or pick another model."),
            ));
        } else if dna_count > cap {
            errors.push(FieldError::new(
                Field::VisualDna,
                format!(
                    "{dna_count} Visual DNA picked; {who} takes at most {cap}. Remove {}.",
                    dna_count - cap
                ),
            ));
        }
    }
    if request.visual_dna_ids.iter().any(|id| id.trim().is_empty()) {
        errors.push(FieldError::new(
            Field::VisualDna,
            "A Visual DNA id is blank; remove it.",
        ));
    }
    let mut seen = std::collections::HashSet::new();
    if request
        .visual_dna_ids
        .iter()
        .any(|id| !seen.insert(id.trim()))
    {
        errors.push(FieldError::new(
            Field::VisualDna,
            "The same Visual DNA is picked twice; remove one.",
        ));
    }

    let has_board = request.moodboard_id.is_some() || !request.moodboard_ids.is_empty();
    if has_board && !kind_takes_moodboard(spec.kind) {
        errors.push(FieldError::new(
            Field::Moodboard,
            format!(
                "A moodboard cannot be used for {}; remove it.",
                kind_phrase(spec.kind)
            ),
        ));
    }
    if request
        .moodboard_id
        .as_deref()
        .is_some_and(|id| id.trim().is_empty())
    {
        errors.push(FieldError::new(
            Field::Moodboard,
            "The moodboard id is blank; pick a moodboard or None.",
        ));
    }
    if !request.moodboard_ids.is_empty() {
        if spec.kind != GenerationKind::CreativeDirector {
            errors.push(FieldError::new(
                Field::Moodboard,
                "One moodboard per scene is only for Creative Director.",
            ));
        }
        if request.moodboard_id.is_some() {
            errors.push(FieldError::new(
                Field::Moodboard,
                "Pick one moodboard for all scenes or one per scene, not both.",
            ));
        }
        let scenes = request
            .scene_count
            .unwrap_or(crate::api::DEFAULT_SCENE_COUNT) as usize;
        if request.moodboard_ids.len() > scenes {
            errors.push(FieldError::new(
                Field::Moodboard,
                format!(
                    "{} scene moodboards for {scenes} scenes; remove the extra ones.",
                    request.moodboard_ids.len()
                ),
            ));
        }
        // A blank entry is a scene without a moodboard (the sandbox reads it so).
    }
    errors
}

fn kind_phrase(kind: GenerationKind) -> &'static str {
    match kind {
        GenerationKind::Image => "image generation",
        GenerationKind::ImageEdit => "image edits",
        GenerationKind::TextToVideo => "text-to-video",
        GenerationKind::ImageToVideo => "image-to-video",
        GenerationKind::CreativeDirector => "Creative Director scenes of this kind",
        GenerationKind::VideoEdit => "this video edit",
        GenerationKind::VideoToVideo => "video-to-video",
        GenerationKind::VideoTrim => "trims",
        GenerationKind::Chat => "chat",
        GenerationKind::ImageTool => "image tools",
        GenerationKind::Music => "music",
        GenerationKind::Speech => "speech",
        GenerationKind::Sound => "sound effects",
        GenerationKind::Transcription => "transcription",
        GenerationKind::Elements => "elements videos",
        GenerationKind::FirstLastFrame => "first-and-last-frame videos",
        GenerationKind::Lipsync => "lip sync",
        GenerationKind::ThreeD => "3D models",
    }
}

/// 5.0 -> "5 s", 2.5 -> "2.5 s".
pub(super) fn seconds_text(secs: f64) -> String {
    let text = format!("{secs:.2}");
    format!("{} s", text.trim_end_matches('0').trim_end_matches('.'))
}

pub(super) fn contains_ignore_case(list: &[String], value: &str) -> bool {
    list.iter()
        .any(|item| item.trim().eq_ignore_ascii_case(value.trim()))
}

pub(super) fn is_http_url(url: &str) -> bool {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return false;
    };
    !rest.is_empty() && !rest.starts_with('/') && !rest.contains(char::is_whitespace)
}

/// 2140 -> "2,140".
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, ch) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::types::GenerationRequest;

    fn flux() -> ModelRecord {
        ModelRecord {
            identifier: "fal-ai/flux/schnell".into(),
            name: "Flux Schnell".into(),
            types: vec!["text_to_img".into()],
            supported_aspect_ratios: vec!["1:1".into(), "16:9".into()],
            supported_resolutions: vec!["1K".into(), "2K".into()],
            images_per_request: Some(4),
            ..ModelRecord::default()
        }
    }

    fn spec(kind: GenerationKind, prompt: &str) -> GenerationSpec {
        GenerationSpec {
            catalog: None,
            kind,
            request: GenerationRequest {
                prompt: prompt.into(),
                ..GenerationRequest::default()
            },
            video: None,
            audio: None,
        }
    }

    fn fields(errors: &[FieldError]) -> Vec<Field> {
        errors.iter().map(|e| e.field).collect()
    }

    #[test]
    fn valid_request_has_no_errors() {
        let mut s = spec(GenerationKind::Image, "a lighthouse at dusk");
        s.request.aspect_ratio = Some("16:9".into());
        s.request.resolution = Some("2k".into());
        s.request.num_images = Some(4);
        assert!(validate(&s, Some(&flux())).is_empty());
        assert!(validate(&s, None).len() == 1, "Auto allows one image");
    }

    #[test]
    fn prompt_rules() {
        let errors = validate(&spec(GenerationKind::Image, "   "), Some(&flux()));
        assert_eq!(fields(&errors), vec![Field::Prompt]);
        assert_eq!(errors[0].message, "Enter a prompt.");

        let long = "a".repeat(2140);
        let errors = validate(&spec(GenerationKind::Image, &long), Some(&flux()));
        assert_eq!(
            errors[0].message,
            "Prompt is 2,140 characters; Flux Schnell allows at most 2,000."
        );
        // Characters, not bytes: 2000 multi-byte characters are fine.
        let wide = "é".repeat(2000);
        assert!(validate(&spec(GenerationKind::Image, &wide), Some(&flux())).is_empty());

        let mut strict = flux();
        strict.min_prompt_length = Some(10);
        strict.max_prompt_length = Some(20);
        let errors = validate(&spec(GenerationKind::Image, "short"), Some(&strict));
        assert_eq!(
            errors[0].message,
            "Prompt is 5 characters; Flux Schnell needs at least 10."
        );
        let errors = validate(&spec(GenerationKind::Image, &"b".repeat(2001)), None);
        assert_eq!(
            errors[0].message,
            "Prompt is 2,001 characters; Auto allows at most 2,000."
        );
    }

    #[test]
    fn ratio_resolution_and_count() {
        let mut s = spec(GenerationKind::Image, "cat");
        s.request.aspect_ratio = Some("21:9".into());
        s.request.resolution = Some("4K".into());
        s.request.num_images = Some(5);
        let errors = validate(&s, Some(&flux()));
        assert_eq!(
            fields(&errors),
            vec![Field::AspectRatio, Field::Resolution, Field::NumImages]
        );
        assert_eq!(
            errors[0].message,
            "Flux Schnell does not offer aspect ratio 21:9; choose one of 1:1, 16:9."
        );
        assert_eq!(
            errors[2].message,
            "Flux Schnell makes at most 4 images per request; you asked for 5."
        );
        // Empty lists mean no restriction.
        let mut open = flux();
        open.supported_aspect_ratios.clear();
        open.supported_resolutions.clear();
        s.request.num_images = Some(1);
        assert!(validate(&s, Some(&open)).is_empty());
        s.request.num_images = Some(0);
        assert_eq!(fields(&validate(&s, Some(&open))), vec![Field::NumImages]);
    }

    #[test]
    fn image_edit_sources() {
        let mut editor = flux();
        editor.name = "Editor".into();
        editor.types = vec!["image_editing".into()];
        editor.max_reference_images = Some(2);
        let mut s = spec(GenerationKind::ImageEdit, "make it blue");
        s.request.source_images = vec![
            "https://cdn.example/a.png".into(),
            "file:///home/me/b.png".into(),
            "http://127.0.0.1:8080/c.png".into(),
        ];
        let errors = validate(&s, Some(&editor));
        assert_eq!(
            fields(&errors),
            vec![Field::SourceImages, Field::SourceImages]
        );
        assert_eq!(
            errors[0].message,
            "3 source images attached; Editor accepts at most 2."
        );
        assert!(
            errors[1]
                .message
                .starts_with("Source image 2 is not a web address")
        );
        // The wrong kind of model is reported too.
        let errors = validate(&s, Some(&flux()));
        assert!(fields(&errors).contains(&Field::Model));
    }

    fn veo() -> ModelRecord {
        let catalog: Vec<ModelRecord> =
            serde_json::from_str(include_str!("../../assets/models.json")).expect("catalog");
        catalog
            .into_iter()
            .find(|m| m.identifier == "google/veo-3")
            .expect("veo-3 in the catalog")
    }

    #[test]
    fn video_rules_come_from_the_model_record() {
        let mut s = spec(GenerationKind::TextToVideo, "waves at dawn");
        s.request.duration = Some(6.0);
        s.request.aspect_ratio = Some("9:16".into());
        s.request.resolution = Some("1080p".into());
        assert!(validate(&s, Some(&veo())).is_empty());

        // veo-3 offers 1:1 only for image-to-video (supported_aspect_ratios_by_type).
        s.request.aspect_ratio = Some("1:1".into());
        s.request.duration = Some(5.0);
        let errors = validate(&s, Some(&veo()));
        assert_eq!(fields(&errors), vec![Field::AspectRatio, Field::Duration]);
        assert_eq!(
            errors[0].message,
            "Veo 3 does not offer aspect ratio 1:1; choose one of 16:9, 9:16."
        );
        assert_eq!(
            errors[1].message,
            "Veo 3 makes 4 s, 6 s, 8 s videos; 5 s is not one of them."
        );
        let mut i2v = spec(GenerationKind::ImageToVideo, "");
        i2v.request.aspect_ratio = Some("1:1".into());
        i2v.request.image_url = Some("https://cdn.example/a.png".into());
        assert!(validate(&i2v, Some(&veo())).is_empty(), "prompt optional");

        s.request.aspect_ratio = None;
        s.request.duration = Some(0.0);
        assert_eq!(fields(&validate(&s, None)), vec![Field::Duration]);
    }

    #[test]
    fn image_to_video_needs_a_web_image() {
        let mut s = spec(GenerationKind::ImageToVideo, "slow push in");
        let errors = validate(&s, None);
        assert_eq!(fields(&errors), vec![Field::SourceImage]);
        s.request.image_url = Some("/home/me/cat.png".into());
        assert!(validate(&s, None)[0].message.contains("upload it first"));
        s.request.image_url = Some("http://127.0.0.1:9/files/cat.png".into());
        assert!(validate(&s, None).is_empty());
    }

    #[test]
    fn visual_dna_references_and_scenes() {
        let mut s = spec(GenerationKind::CreativeDirector, "a heist in four acts");
        s.request.visual_dna_ids = vec!["a".into(), "b".into(), "c".into(), "d".into()];
        s.request.reference_images = vec!["https://x.example/1.png".into(), "ftp://y".into()];
        s.request.scene_count = Some(9);
        let errors = validate(&s, None);
        assert_eq!(
            fields(&errors),
            vec![Field::VisualDna, Field::ReferenceImages, Field::SceneCount]
        );
        assert_eq!(
            errors[0].message,
            "4 Visual DNA picked; Auto takes at most 3. Remove 1."
        );
        assert_eq!(errors[2].message, "Pick 1 to 8 scenes; 9 is outside that.");
        s.request.visual_dna_ids.truncate(3);
        s.request.reference_images.truncate(1);
        s.request.scene_count = Some(8);
        assert!(validate(&s, None).is_empty());
        // kling takes no reference images (max_reference_images 0 in the catalog).
        let mut t2v = spec(GenerationKind::TextToVideo, "rain");
        t2v.request.reference_images = vec!["https://x.example/1.png".into()];
        let mut kling = veo();
        kling.name = "Kling".into();
        kling.max_reference_images = Some(0);
        assert_eq!(
            validate(&t2v, Some(&kling))[0].message,
            "Kling does not take reference images."
        );
    }

    #[test]
    fn visual_dna_follows_the_kind_and_the_model() {
        let mut s = spec(GenerationKind::ImageEdit, "make it dusk");
        s.request.visual_dna_ids = vec!["a".into(), "b".into()];
        assert!(validate(&s, None).is_empty());
        // A model whose own cap is smaller.
        let mut one = flux();
        one.types = vec!["image_editing".into()];
        one.name = "Solo".into();
        one.max_visual_dna = Some(1);
        assert_eq!(visual_dna_cap(GenerationKind::ImageEdit, Some(&one)), 1);
        assert_eq!(
            validate(&s, Some(&one))[0].message,
            "2 Visual DNA picked; Solo takes at most 1. Remove 1."
        );
        // max_visual_dna 0, or supports_visual_dna false without a max: none at all.
        one.max_visual_dna = Some(0);
        assert_eq!(visual_dna_cap(GenerationKind::ImageEdit, Some(&one)), 0);
        assert!(
            validate(&s, Some(&one))[0]
                .message
                .contains("does not take Visual DNA")
        );
        one.max_visual_dna = None;
        one.supports_visual_dna = Some(false);
        assert_eq!(visual_dna_cap(GenerationKind::ImageEdit, Some(&one)), 0);
        // supports false but a positive max: the max wins (published video models).
        one.max_visual_dna = Some(2);
        assert_eq!(visual_dna_cap(GenerationKind::ImageEdit, Some(&one)), 2);
        // Plain image generation takes none; duplicates are refused.
        assert_eq!(visual_dna_cap(GenerationKind::Image, None), 0);
        let mut image = spec(GenerationKind::Image, "cat");
        image.request.visual_dna_ids = vec!["a".into()];
        assert_eq!(fields(&validate(&image, None)), vec![Field::VisualDna]);
        s.request.visual_dna_ids = vec!["a".into(), "a".into()];
        assert!(validate(&s, None)[0].message.contains("twice"));
    }

    #[test]
    fn moodboards_per_kind_and_per_scene() {
        let mut s = spec(GenerationKind::Image, "cat");
        s.request.moodboard_id = Some("m1".into());
        assert!(validate(&s, None).is_empty());
        s.request.moodboard_ids = vec!["m1".into()];
        assert_eq!(fields(&validate(&s, None)), vec![Field::Moodboard; 2]);
        let mut cd = spec(GenerationKind::CreativeDirector, "a heist");
        cd.request.scene_count = Some(2);
        cd.request.moodboard_ids = vec!["m1".into(), "m2".into()];
        assert!(validate(&cd, None).is_empty());
        // A blank entry: that scene has none.
        cd.request.moodboard_ids = vec![String::new(), "m2".into()];
        assert!(validate(&cd, None).is_empty());
        cd.request.moodboard_ids = vec!["m1".into(), "m2".into(), "m3".into()];
        assert!(
            validate(&cd, None)[0]
                .message
                .contains("3 scene moodboards for 2 scenes")
        );
        assert!(!kind_takes_moodboard(GenerationKind::VideoToVideo));
    }

    #[test]
    fn blank_project() {
        let mut s = spec(GenerationKind::Image, "cat");
        s.request.project_id = Some(" ".into());
        assert_eq!(fields(&validate(&s, None)), vec![Field::Project]);
    }

    #[test]
    fn thousands_separator() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
