//! Checks for elements, first-and-last-frame and lip-sync jobs (POST
//! /v1/generate/elements, /first-last-frame, /lipsync), from the body in
//! `GenerationSpec::catalog` and the chosen model's input caps. What the body cannot say
//! (the audio's length, the face video's length, file sizes) comes in
//! [`CatalogMediaFacts`] when the form knows it.

use super::{
    Field, FieldError, contains_ignore_case, is_http_url, kind_phrase, seconds_text, thousands,
};
use crate::api::catalog_jobs::{ElementsRequest, FirstLastFrameRequest, LipsyncRequest};
use crate::api::types::{
    CatalogJobRequest, DEFAULT_MAX_PROMPT_LENGTH, DEFAULT_MIN_PROMPT_LENGTH, GenerationKind,
    GenerationSpec, ModelRecord,
};

/// What the form knows about the chosen media that the request body does not carry.
/// Every field is optional: an unknown fact skips its check (the service still checks).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CatalogMediaFacts {
    /// Lip sync: the audio file's length in seconds.
    pub audio_secs: Option<f64>,
    /// Lip sync: the audio file's size in bytes.
    pub audio_bytes: Option<u64>,
    /// Lip sync: the audio's format (file extension such as "mp3"); else read from the URL.
    pub audio_format: Option<String>,
    /// Lip sync: whether the face is a video (`Some(false)`: an image).
    pub source_is_video: Option<bool>,
    /// Lip sync: the face video's length in seconds.
    pub source_video_secs: Option<f64>,
    /// Lip sync: the face file's size in bytes.
    pub source_bytes: Option<u64>,
    /// Lip sync: the voice ids known (GET /v1/voices), when the list has loaded.
    pub voice_ids: Option<Vec<String>>,
}

/// Every problem with an elements, first-last-frame or lip-sync job known before sending.
/// `model` is `None` for Auto.
pub fn validate_catalog(spec: &GenerationSpec, model: Option<&ModelRecord>) -> Vec<FieldError> {
    validate_catalog_with(spec, model, &CatalogMediaFacts::default())
}

/// [`validate_catalog`] with what the form knows about the media.
pub fn validate_catalog_with(
    spec: &GenerationSpec,
    model: Option<&ModelRecord>,
    facts: &CatalogMediaFacts,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let Some(job) = spec.catalog.as_ref().filter(|job| job.kind() == spec.kind) else {
        errors.push(FieldError::new(
            Field::Operation,
            format!("The {} request has no details.", spec.kind.label()),
        ));
        return errors;
    };
    let who = model.map(ModelRecord::display_name).unwrap_or("Auto");
    if let Some(model) = model
        && !model.types.is_empty()
        && !model.has_type(spec.kind.catalog_type())
    {
        errors.push(FieldError::new(
            Field::Model,
            format!(
                "{who} cannot make {}; pick a model listed for that type.",
                kind_phrase(spec.kind)
            ),
        ));
    }
    match job {
        CatalogJobRequest::Elements(r) => elements(r, model, who, &mut errors),
        CatalogJobRequest::FirstLastFrame(r) => first_last(r, model, who, &mut errors),
        CatalogJobRequest::Lipsync(r) => lipsync(r, model, who, facts, &mut errors),
        CatalogJobRequest::ThreeD(_) => {}
    }
    if job.project_id().is_some_and(|p| p.trim().is_empty()) {
        errors.push(FieldError::new(
            Field::Project,
            "The project id is blank; pick a project or leave it unset.",
        ));
    }
    errors
}

fn elements(
    r: &ElementsRequest,
    model: Option<&ModelRecord>,
    who: &str,
    errors: &mut Vec<FieldError>,
) {
    prompt(&r.prompt, true, model, who, errors);
    let (images, videos, audio) = (
        r.reference_images.len(),
        r.reference_videos.len(),
        r.reference_audio_urls.len(),
    );
    if images + videos + audio == 0 {
        errors.push(FieldError::new(
            Field::ReferenceImages,
            "Add at least one reference: an image, a clip or a sound.",
        ));
    }
    let caps = model.map(|m| {
        (
            m.elements_max_images.or(m.max_images),
            m.elements_max_videos.or(m.max_videos),
            m.elements_max_audio.or(m.max_audio),
            m.max_total_media.or(m.max_elements),
        )
    });
    if let Some((max_images, max_videos, max_audio, max_total)) = caps {
        cap(
            Field::ReferenceImages,
            images,
            max_images,
            "reference image",
            who,
            errors,
        );
        cap(
            Field::ReferenceVideos,
            videos,
            max_videos,
            "reference clip",
            who,
            errors,
        );
        cap(
            Field::ReferenceAudio,
            audio,
            max_audio,
            "reference sound",
            who,
            errors,
        );
        if let Some(max) = max_total
            && images + videos + audio > max as usize
        {
            errors.push(FieldError::new(
                Field::ReferenceImages,
                format!(
                    "{} references in all; {who} takes at most {max} (images, clips and sounds together).",
                    images + videos + audio
                ),
            ));
        }
    }
    web_addresses(
        Field::ReferenceImages,
        "Reference image",
        &r.reference_images,
        errors,
    );
    web_addresses(
        Field::ReferenceVideos,
        "Reference clip",
        &r.reference_videos,
        errors,
    );
    web_addresses(
        Field::ReferenceAudio,
        "Reference sound",
        &r.reference_audio_urls,
        errors,
    );
    duration(r.duration, model, who, errors);
    look(
        r.aspect_ratio.as_deref(),
        r.resolution.as_deref(),
        model,
        GenerationKind::Elements,
        who,
        errors,
    );
    let max_dna = model.map_or(
        crate::api::types::MAX_VISUAL_DNA_IDS,
        ModelRecord::max_visual_dna_ids,
    );
    if r.visual_dna_ids.len() > max_dna {
        errors.push(FieldError::new(
            Field::VisualDna,
            format!(
                "{} Visual DNAs picked; {who} takes at most {max_dna}.",
                r.visual_dna_ids.len()
            ),
        ));
    }
    if r.visual_dna_ids.iter().any(|id| id.trim().is_empty()) {
        errors.push(FieldError::new(
            Field::VisualDna,
            "A Visual DNA is blank; remove it.",
        ));
    }
}

fn first_last(
    r: &FirstLastFrameRequest,
    model: Option<&ModelRecord>,
    who: &str,
    errors: &mut Vec<FieldError>,
) {
    if let Some(m) = model
        && m.supports_first_last_frame == Some(false)
    {
        errors.push(FieldError::new(
            Field::Model,
            format!("{who} cannot move from a first to a last frame; pick another model."),
        ));
    }
    for (field, url, name) in [
        (Field::FirstFrame, &r.first_frame_url, "first"),
        (Field::LastFrame, &r.last_frame_url, "last"),
    ] {
        let url = url.trim();
        if url.is_empty() {
            errors.push(FieldError::new(
                field,
                format!("Add the {name} frame: drop an image in, or pick one from the Library."),
            ));
        } else if !is_http_url(url) {
            errors.push(FieldError::new(
                field,
                format!(
                    "The {name} frame is not a web address (http:// or https://); upload it first."
                ),
            ));
        }
    }
    prompt(&r.prompt, false, model, who, errors);
    duration(r.duration, model, who, errors);
    look(
        r.aspect_ratio.as_deref(),
        r.resolution.as_deref(),
        model,
        GenerationKind::FirstLastFrame,
        who,
        errors,
    );
}

fn lipsync(
    r: &LipsyncRequest,
    model: Option<&ModelRecord>,
    who: &str,
    facts: &CatalogMediaFacts,
    errors: &mut Vec<FieldError>,
) {
    let source = r.source_url.trim();
    if source.is_empty() {
        errors.push(FieldError::new(
            Field::Face,
            "Add the face: an image or a video of someone to make speak.",
        ));
    } else if !is_http_url(source) {
        errors.push(FieldError::new(
            Field::Face,
            "The face is not a web address (http:// or https://); upload it first.",
        ));
    }
    if let (Some(m), Some(is_video)) = (model, facts.source_is_video) {
        let takes_video = m.has_type("lipsync-video");
        let takes_image = m.has_type("lipsync-image");
        if is_video && !takes_video && takes_image {
            errors.push(FieldError::new(
                Field::Face,
                format!(
                    "{who} animates a still image, not a video; pick an image or another model."
                ),
            ));
        } else if !is_video
            && (m.requires_video_input == Some(true) || (takes_video && !takes_image))
        {
            errors.push(FieldError::new(
                Field::Face,
                format!("{who} needs a video of the face, not a still image."),
            ));
        }
    }
    if let (Some(max), Some(bytes)) = (model.and_then(max_file_bytes), facts.source_bytes)
        && bytes > max
    {
        errors.push(FieldError::new(
            Field::Face,
            format!(
                "The face file is {}; {who} takes files of at most {}.",
                size_text(bytes),
                size_text(max)
            ),
        ));
    }

    let audio = r
        .audio_url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty());
    let line = r
        .text_prompt
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty());
    match (audio, line) {
        (None, None) => errors.push(FieldError::new(
            Field::LipsyncSource,
            "Give the voice: an audio file, or type a line for it to say.",
        )),
        (Some(_), Some(_)) => errors.push(FieldError::new(
            Field::LipsyncSource,
            "Give either an audio file or a typed line, not both.",
        )),
        (Some(url), None) => audio_checks(url, model, who, facts, errors),
        (None, Some(text)) => {
            let chars = text.chars().count() as u64;
            let max = model.map_or(DEFAULT_MAX_PROMPT_LENGTH, ModelRecord::max_prompt_chars);
            if chars > u64::from(max) {
                errors.push(FieldError::new(
                    Field::SpokenLine,
                    format!(
                        "The line is {} characters; {who} allows at most {}.",
                        thousands(chars),
                        thousands(u64::from(max))
                    ),
                ));
            }
            if let (Some(voice), Some(known)) = (
                r.voice.as_deref().map(str::trim).filter(|v| !v.is_empty()),
                facts.voice_ids.as_ref(),
            ) && !known.iter().any(|id| id == voice)
            {
                errors.push(FieldError::new(
                    Field::Voice,
                    format!("The voice \u{201c}{voice}\u{201d} is not in your voice list; pick another, or leave it for the default voice."),
                ));
            }
        }
    }
    if !r.prompt.trim().is_empty() {
        prompt(&r.prompt, false, model, who, errors);
    }
}

fn audio_checks(
    url: &str,
    model: Option<&ModelRecord>,
    who: &str,
    facts: &CatalogMediaFacts,
    errors: &mut Vec<FieldError>,
) {
    if !is_http_url(url) {
        errors.push(FieldError::new(
            Field::VoiceAudio,
            "The audio is not a web address (http:// or https://); upload it first.",
        ));
    }
    let Some(model) = model else {
        return;
    };
    if let Some(secs) = facts.audio_secs.filter(|s| s.is_finite() && *s > 0.0) {
        if let Some(min) = model.min_audio_duration
            && secs < min
        {
            errors.push(FieldError::new(
                Field::VoiceAudio,
                format!(
                    "The audio is {}; {who} needs at least {}.",
                    seconds_text(round_tenth(secs)),
                    seconds_text(min)
                ),
            ));
        } else if let Some(max) = model.max_audio_duration
            && secs > max
        {
            errors.push(FieldError::new(
                Field::VoiceAudio,
                format!(
                    "The audio is {}; {who} takes at most {}. Trim it first.",
                    seconds_text(round_tenth(secs)),
                    seconds_text(max)
                ),
            ));
        } else if model.audio_max_follows_video_duration == Some(true)
            && facts.source_is_video != Some(false)
            && let Some(video_secs) = facts
                .source_video_secs
                .filter(|s| s.is_finite() && *s > 0.0)
            && secs > video_secs + 0.05
        {
            errors.push(FieldError::new(
                Field::VoiceAudio,
                format!(
                    "The audio is {}, longer than the face video ({}); {who} needs audio no longer than the video.",
                    seconds_text(round_tenth(secs)),
                    seconds_text(round_tenth(video_secs))
                ),
            ));
        }
    }
    if !model.supported_audio_formats.is_empty() {
        let format = facts
            .audio_format
            .clone()
            .or_else(|| extension_of(url))
            .map(|f| f.trim_start_matches('.').to_ascii_lowercase());
        if let Some(format) = format
            && !contains_ignore_case(&model.supported_audio_formats, &format)
        {
            errors.push(FieldError::new(
                Field::VoiceAudio,
                format!(
                    "{who} takes {} audio, not {format}.",
                    model.supported_audio_formats.join(", ")
                ),
            ));
        }
    }
    if let (Some(max), Some(bytes)) = (max_file_bytes(model), facts.audio_bytes)
        && bytes > max
    {
        errors.push(FieldError::new(
            Field::VoiceAudio,
            format!(
                "The audio file is {}; {who} takes files of at most {}.",
                size_text(bytes),
                size_text(max)
            ),
        ));
    }
}

/// The model's `max_file_size` in bytes. Catalogs give bytes; a figure under 1 MiB can
/// only be meant as megabytes.
fn max_file_bytes(model: &ModelRecord) -> Option<u64> {
    model.max_file_size.filter(|n| *n > 0).map(|n| {
        if n < 1024 * 1024 {
            n.saturating_mul(1024 * 1024)
        } else {
            n
        }
    })
}

fn size_text(bytes: u64) -> String {
    let mb = bytes as f64 / (1024.0 * 1024.0);
    if mb >= 10.0 {
        format!("{mb:.0} MB")
    } else {
        format!("{mb:.1} MB")
    }
}

fn round_tenth(secs: f64) -> f64 {
    (secs * 10.0).round() / 10.0
}

/// "https://h/a/line.MP3?x=1" -> "mp3".
pub fn extension_of(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let name = path.rsplit('/').next().unwrap_or(path);
    let (_, ext) = name.rsplit_once('.')?;
    (!ext.is_empty() && ext.len() <= 5).then(|| ext.to_ascii_lowercase())
}

/// The prompt's rules (required when `required`, the model's min/max length in characters),
/// shared by every kind's validation.
pub(super) fn prompt(
    text: &str,
    required: bool,
    model: Option<&ModelRecord>,
    who: &str,
    errors: &mut Vec<FieldError>,
) {
    let chars = text.chars().count() as u64;
    let (min, max) = match model {
        Some(m) => (m.min_prompt_chars(), m.max_prompt_chars()),
        None => (DEFAULT_MIN_PROMPT_LENGTH, DEFAULT_MAX_PROMPT_LENGTH),
    };
    if text.trim().is_empty() {
        if required {
            errors.push(FieldError::new(Field::Prompt, "Enter a prompt."));
        }
    } else if chars > u64::from(max) {
        errors.push(FieldError::new(
            Field::Prompt,
            format!(
                "Prompt is {} characters; {who} allows at most {}.",
                thousands(chars),
                thousands(u64::from(max))
            ),
        ));
    } else if chars < u64::from(min) {
        errors.push(FieldError::new(
            Field::Prompt,
            format!(
                "Prompt is {} characters; {who} needs at least {}.",
                thousands(chars),
                thousands(u64::from(min))
            ),
        ));
    }
}

fn cap(
    field: Field,
    count: usize,
    max: Option<u32>,
    noun: &str,
    who: &str,
    errors: &mut Vec<FieldError>,
) {
    let Some(max) = max else {
        return;
    };
    if count <= max as usize {
        return;
    }
    errors.push(FieldError::new(
        field,
        if max == 0 {
            format!("{who} takes no {noun}s; remove them.")
        } else {
            format!(
                "{count} {noun}s; {who} takes at most {max}. Remove {}.",
                count - max as usize
            )
        },
    ));
}

fn web_addresses(field: Field, what: &str, urls: &[String], errors: &mut Vec<FieldError>) {
    if let Some(index) = urls.iter().position(|url| !is_http_url(url)) {
        errors.push(FieldError::new(
            field,
            format!(
                "{what} {} is not a web address (http:// or https://); upload it first.",
                index + 1
            ),
        ));
    }
}

fn duration(
    secs: Option<f64>,
    model: Option<&ModelRecord>,
    who: &str,
    errors: &mut Vec<FieldError>,
) {
    let Some(secs) = secs else {
        return;
    };
    if !secs.is_finite() || secs <= 0.0 {
        errors.push(FieldError::new(
            Field::Duration,
            "Pick a length of more than 0 seconds.",
        ));
        return;
    }
    let Some(model) = model else {
        return;
    };
    if !model.supported_durations.is_empty() {
        if !model
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
        }
        return;
    }
    let min = model.min_video_duration.or(model.min_output_duration);
    let max = model.max_video_duration.or(model.max_output_duration);
    if let Some(min) = min
        && secs < min
    {
        errors.push(FieldError::new(
            Field::Duration,
            format!("{who} makes videos of at least {}.", seconds_text(min)),
        ));
    } else if let Some(max) = max
        && secs > max
    {
        errors.push(FieldError::new(
            Field::Duration,
            format!("{who} makes videos of at most {}.", seconds_text(max)),
        ));
    }
}

fn look(
    aspect_ratio: Option<&str>,
    resolution: Option<&str>,
    model: Option<&ModelRecord>,
    kind: GenerationKind,
    who: &str,
    errors: &mut Vec<FieldError>,
) {
    let Some(model) = model else {
        return;
    };
    let offered = model.aspect_ratios_for(kind.catalog_type());
    if let Some(ratio) = aspect_ratio.filter(|r| !r.trim().is_empty())
        && !offered.is_empty()
        && !contains_ignore_case(offered, ratio)
    {
        errors.push(FieldError::new(
            Field::AspectRatio,
            format!(
                "{who} does not offer aspect ratio {ratio}; choose one of {}.",
                offered.join(", ")
            ),
        ));
    }
    if let Some(resolution) = resolution.filter(|r| !r.trim().is_empty())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::types::{ElementsRequest, FirstLastFrameRequest, LipsyncRequest};

    fn elements_model() -> ModelRecord {
        ModelRecord {
            identifier: "sbx/elements".into(),
            name: "Sandbox Elements".into(),
            types: vec!["elements".into()],
            elements_max_images: Some(4),
            elements_max_videos: Some(2),
            elements_max_audio: Some(1),
            max_total_media: Some(5),
            supported_durations: vec![5.0, 10.0],
            max_visual_dna: Some(2),
            ..ModelRecord::default()
        }
    }

    fn lipsync_model() -> ModelRecord {
        ModelRecord {
            identifier: "sbx/lipsync".into(),
            name: "Sandbox Lipsync".into(),
            types: vec!["lipsync-image".into(), "lipsync-video".into()],
            min_audio_duration: Some(1.0),
            max_audio_duration: Some(30.0),
            audio_max_follows_video_duration: Some(true),
            supported_audio_formats: vec!["mp3".into(), "wav".into()],
            max_file_size: Some(10 * 1024 * 1024),
            ..ModelRecord::default()
        }
    }

    fn urls(n: usize, ext: &str) -> Vec<String> {
        (0..n).map(|i| format!("https://h/{i}.{ext}")).collect()
    }

    fn fields(errors: &[FieldError]) -> Vec<Field> {
        errors.iter().map(|e| e.field).collect()
    }

    fn elements(r: ElementsRequest) -> GenerationSpec {
        GenerationSpec::for_catalog(CatalogJobRequest::Elements(r))
    }

    #[test]
    fn elements_within_the_caps_passes() {
        let spec = elements(ElementsRequest {
            prompt: "a fox runs through snow".into(),
            reference_images: urls(4, "png"),
            reference_audio_urls: urls(1, "mp3"),
            duration: Some(5.0),
            ..ElementsRequest::default()
        });
        assert_eq!(validate_catalog(&spec, Some(&elements_model())), vec![]);
    }

    #[test]
    fn elements_too_many_images_is_said_at_the_image_list() {
        let spec = elements(ElementsRequest {
            prompt: "a fox".into(),
            reference_images: urls(5, "png"),
            ..ElementsRequest::default()
        });
        let errors = validate_catalog(&spec, Some(&elements_model()));
        assert_eq!(fields(&errors), vec![Field::ReferenceImages]);
        assert!(
            errors[0].message.contains("5 reference images"),
            "{errors:?}"
        );
        assert!(errors[0].message.contains("at most 4"), "{errors:?}");
    }

    #[test]
    fn elements_caps_fall_back_to_the_general_ones_and_count_the_total() {
        let mut model = elements_model();
        model.elements_max_videos = None;
        model.max_videos = Some(1);
        let spec = elements(ElementsRequest {
            prompt: "a fox".into(),
            reference_images: urls(3, "png"),
            reference_videos: urls(2, "mp4"),
            reference_audio_urls: urls(1, "mp3"),
            ..ElementsRequest::default()
        });
        let errors = validate_catalog(&spec, Some(&model));
        assert_eq!(
            fields(&errors),
            vec![Field::ReferenceVideos, Field::ReferenceImages]
        );
        assert!(
            errors[1].message.contains("6 references in all"),
            "{errors:?}"
        );
    }

    #[test]
    fn elements_needs_a_prompt_a_reference_a_listed_duration_and_few_dnas() {
        let spec = elements(ElementsRequest {
            prompt: " ".into(),
            duration: Some(7.0),
            visual_dna_ids: vec!["a".into(), "b".into(), "c".into()],
            ..ElementsRequest::default()
        });
        let errors = validate_catalog(&spec, Some(&elements_model()));
        assert_eq!(
            fields(&errors),
            vec![
                Field::Prompt,
                Field::ReferenceImages,
                Field::Duration,
                Field::VisualDna
            ]
        );
        assert!(errors[2].message.contains("5 s, 10 s"), "{errors:?}");
    }

    #[test]
    fn first_last_needs_both_frames_and_a_capable_model() {
        let spec =
            GenerationSpec::for_catalog(CatalogJobRequest::FirstLastFrame(FirstLastFrameRequest {
                first_frame_url: "https://h/a.png".into(),
                last_frame_url: String::new(),
                duration: Some(5.0),
                ..FirstLastFrameRequest::default()
            }));
        let model = ModelRecord {
            name: "Plain".into(),
            types: vec!["firstlastgenerations".into()],
            supports_first_last_frame: Some(false),
            ..ModelRecord::default()
        };
        let errors = validate_catalog(&spec, Some(&model));
        assert_eq!(fields(&errors), vec![Field::Model, Field::LastFrame]);
        assert!(errors[1].message.contains("last frame"), "{errors:?}");
        // Auto: only the missing frame.
        assert_eq!(
            fields(&validate_catalog(&spec, None)),
            vec![Field::LastFrame]
        );
    }

    fn lipsync(r: LipsyncRequest) -> GenerationSpec {
        GenerationSpec::for_catalog(CatalogJobRequest::Lipsync(r))
    }

    #[test]
    fn lipsync_needs_a_face_and_exactly_one_voice_source() {
        let errors = validate_catalog(&lipsync(LipsyncRequest::default()), None);
        assert_eq!(fields(&errors), vec![Field::Face, Field::LipsyncSource]);
        let both = lipsync(LipsyncRequest {
            source_url: "https://h/face.png".into(),
            audio_url: Some("https://h/line.mp3".into()),
            text_prompt: Some("Hello there".into()),
            ..LipsyncRequest::default()
        });
        let errors = validate_catalog(&both, None);
        assert_eq!(fields(&errors), vec![Field::LipsyncSource]);
        assert!(errors[0].message.contains("not both"));
    }

    #[test]
    fn lipsync_audio_length_format_and_size_follow_the_model() {
        let spec = lipsync(LipsyncRequest {
            source_url: "https://h/face.mp4".into(),
            audio_url: Some("https://h/line.ogg".into()),
            ..LipsyncRequest::default()
        });
        let facts = CatalogMediaFacts {
            audio_secs: Some(12.0),
            source_is_video: Some(true),
            source_video_secs: Some(8.0),
            audio_bytes: Some(11 * 1024 * 1024),
            ..CatalogMediaFacts::default()
        };
        let errors = validate_catalog_with(&spec, Some(&lipsync_model()), &facts);
        assert_eq!(
            fields(&errors),
            vec![Field::VoiceAudio, Field::VoiceAudio, Field::VoiceAudio]
        );
        assert!(
            errors[0].message.contains("longer than the face video"),
            "{errors:?}"
        );
        assert!(errors[1].message.contains("not ogg"), "{errors:?}");
        assert!(errors[2].message.contains("11 MB"), "{errors:?}");

        let short = CatalogMediaFacts {
            audio_secs: Some(0.4),
            ..CatalogMediaFacts::default()
        };
        let spec = lipsync(LipsyncRequest {
            source_url: "https://h/face.png".into(),
            audio_url: Some("https://h/line.mp3".into()),
            ..LipsyncRequest::default()
        });
        let errors = validate_catalog_with(&spec, Some(&lipsync_model()), &short);
        assert_eq!(fields(&errors), vec![Field::VoiceAudio]);
        assert!(errors[0].message.contains("at least 1 s"), "{errors:?}");
    }

    #[test]
    fn lipsync_typed_line_with_an_unknown_voice_is_said_at_the_voice() {
        let spec = lipsync(LipsyncRequest {
            source_url: "https://h/face.png".into(),
            text_prompt: Some("Good evening.".into()),
            voice: Some("nobody".into()),
            ..LipsyncRequest::default()
        });
        let facts = CatalogMediaFacts {
            voice_ids: Some(vec!["rachel".into()]),
            ..CatalogMediaFacts::default()
        };
        assert_eq!(
            fields(&validate_catalog_with(&spec, None, &facts)),
            vec![Field::Voice]
        );
        // No voice: the default voice speaks; nothing to say.
        let default_voice = lipsync(LipsyncRequest {
            voice: None,
            ..match spec.catalog.clone() {
                Some(CatalogJobRequest::Lipsync(r)) => r,
                _ => unreachable!(),
            }
        });
        assert_eq!(validate_catalog_with(&default_voice, None, &facts), vec![]);
    }

    #[test]
    fn the_general_validate_routes_catalog_kinds_here() {
        let spec = lipsync(LipsyncRequest::default());
        assert_eq!(
            fields(&super::super::validate(&spec, None)),
            vec![Field::Face, Field::LipsyncSource]
        );
    }
}
