//! Checks for music, speech and sound effects (POST /v1/generate/music, /speech, /sound),
//! from the model record when one is chosen and the voice list when it is known. The
//! speech route's `VOICE_REQUIRED` (400) and `VOICE_NOT_FOUND` (404) are said here, at the
//! voice field, before anything is sent.

use super::{FieldError, seconds_text, thousands};
use crate::api::audio::{AudioJobRequest, MusicRequest, SoundRequest, SpeechRequest, Voice};
use crate::api::types::{GenerationSpec, ModelRecord};
use crate::api::validate::Field;

/// Sound effect lengths when the model lists none (reference: 0.5-30 s).
pub const SOUND_DURATION_RANGE_SECS: (f64, f64) = (0.5, 30.0);
/// Vocal genders the music route takes.
pub const VOCAL_GENDERS: [&str; 2] = ["m", "f"];

/// Every problem with an audio job known before sending. `voices` is the voice list when
/// it has loaded (`None`: an unknown voice cannot be told yet; a missing one still is).
pub fn validate_audio_job(
    spec: &GenerationSpec,
    model: Option<&ModelRecord>,
    voices: Option<&[Voice]>,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let Some(job) = spec.audio.as_ref().filter(|job| job.kind() == spec.kind) else {
        errors.push(FieldError::new(
            Field::Operation,
            format!("The {} request has no details.", spec.kind.label()),
        ));
        return errors;
    };
    if let AudioJobRequest::Transcription(request) = job {
        return transcription_errors(request, None);
    }
    let who = model.map(ModelRecord::display_name).unwrap_or("Auto");
    if let Some(model) = model {
        let catalog_type = spec.kind.catalog_type();
        if !model.types.is_empty() && !model.has_type(catalog_type) {
            errors.push(FieldError::new(
                Field::Model,
                format!(
                    "{who} cannot make {}; pick a model listed for that type.",
                    spec.kind.label().to_lowercase()
                ),
            ));
        }
    }
    let what = match job {
        AudioJobRequest::Speech(_) => "Text",
        _ => "Prompt",
    };
    check_text(what, job.prompt(), model, &mut errors);
    match job {
        AudioJobRequest::Music(music) => check_music(music, model, &mut errors),
        AudioJobRequest::Speech(speech) => check_speech(speech, voices, &mut errors),
        AudioJobRequest::Sound(sound) => check_sound(sound, model, &mut errors),
        AudioJobRequest::Transcription(_) => {}
    }
    if job.project_id().is_some_and(|p| p.trim().is_empty()) {
        errors.push(FieldError::new(
            Field::Project,
            "The project id is blank; pick a project or leave it unset.",
        ));
    }
    errors
}

/// A transcription's problems (`api::transcription`), at their fields; `source_secs` is
/// the source's length when known.
pub fn transcription_errors(
    request: &crate::api::transcription::TranscriptionRequest,
    source_secs: Option<f64>,
) -> Vec<FieldError> {
    use crate::api::transcription::TranscriptionProblem;
    match request.check(source_secs) {
        Ok(()) => Vec::new(),
        Err(problem) => {
            let field = match &problem {
                TranscriptionProblem::Source(_) => Field::SourceVideo,
                TranscriptionProblem::WordsPerLine(_)
                | TranscriptionProblem::LinesPerSubtitle(_) => Field::Operation,
            };
            vec![FieldError::new(field, problem.to_string())]
        }
    }
}

/// Prompt (or speech text): required, within the model's character limits.
fn check_text(what: &str, text: &str, model: Option<&ModelRecord>, errors: &mut Vec<FieldError>) {
    let who = model.map(ModelRecord::display_name).unwrap_or("Auto");
    let chars = text.chars().count() as u64;
    let (min_chars, max_chars) = match model {
        Some(m) => (m.min_prompt_chars(), m.max_prompt_chars()),
        None => (
            crate::api::DEFAULT_MIN_PROMPT_LENGTH,
            crate::api::DEFAULT_MAX_PROMPT_LENGTH,
        ),
    };
    if text.trim().is_empty() {
        let message = if what == "Text" {
            "Enter the text to speak."
        } else {
            "Enter a prompt."
        };
        errors.push(FieldError::new(Field::Prompt, message));
    } else if chars > u64::from(max_chars) {
        errors.push(FieldError::new(
            Field::Prompt,
            format!(
                "{what} is {} characters; {who} allows at most {}.",
                thousands(chars),
                thousands(u64::from(max_chars))
            ),
        ));
    } else if chars < u64::from(min_chars) {
        errors.push(FieldError::new(
            Field::Prompt,
            format!(
                "{what} is {} characters; {who} needs at least {}.",
                thousands(chars),
                thousands(u64::from(min_chars))
            ),
        ));
    }
}

fn check_music(music: &MusicRequest, model: Option<&ModelRecord>, errors: &mut Vec<FieldError>) {
    let who = model.map(ModelRecord::display_name).unwrap_or("Auto");
    if let Some(secs) = music.duration {
        let offered = model
            .map(|m| m.supported_durations.as_slice())
            .unwrap_or(&[]);
        if offered.is_empty() {
            errors.push(FieldError::new(
                Field::Duration,
                format!("{who} chooses the song's length itself; leave Length unset."),
            ));
        } else if !offered.iter().any(|d| (d - secs).abs() < 1e-6) {
            errors.push(FieldError::new(
                Field::Duration,
                format!(
                    "{who} makes songs of {}; {} is not one of them.",
                    list_text(offered),
                    seconds_text(secs)
                ),
            ));
        }
    }
    if !music.instrumental
        && let Some(gender) = music.vocal_gender.as_deref()
        && !VOCAL_GENDERS.contains(&gender)
    {
        errors.push(FieldError::new(
            Field::VocalGender,
            "Choose Any, Male or Female for the voice.",
        ));
    }
    if music.instrumental
        && music
            .lyrics
            .as_deref()
            .is_some_and(|l| !l.trim().is_empty())
    {
        // The body drops them; say so rather than silently losing the words.
        errors.push(FieldError::new(
            Field::Lyrics,
            "An instrumental has no lyrics; clear them or turn Instrumental off.",
        ));
    }
}

fn check_speech(speech: &SpeechRequest, voices: Option<&[Voice]>, errors: &mut Vec<FieldError>) {
    let voice = speech.voice.trim();
    if voice.is_empty() {
        errors.push(FieldError::new(Field::Voice, "Choose a voice."));
    } else if let Some(voices) = voices
        && !voices.is_empty()
        && !voices.iter().any(|v| v.matches(voice))
    {
        errors.push(FieldError::new(
            Field::Voice,
            format!("The voice “{voice}” is not in your voice list; choose another."),
        ));
    }
    if speech
        .language
        .as_deref()
        .is_some_and(|l| l.trim().is_empty())
    {
        errors.push(FieldError::new(
            Field::Language,
            "The language is blank; pick one or leave it automatic.",
        ));
    }
}

fn check_sound(sound: &SoundRequest, model: Option<&ModelRecord>, errors: &mut Vec<FieldError>) {
    let who = model.map(ModelRecord::display_name).unwrap_or("Auto");
    let Some(secs) = sound.duration else {
        return;
    };
    let offered = model
        .map(|m| m.supported_durations.as_slice())
        .unwrap_or(&[]);
    if !secs.is_finite() || secs <= 0.0 {
        errors.push(FieldError::new(
            Field::Duration,
            "Pick a length of more than 0 seconds, or Automatic.",
        ));
    } else if !offered.is_empty() {
        if !offered.iter().any(|d| (d - secs).abs() < 1e-6) {
            errors.push(FieldError::new(
                Field::Duration,
                format!(
                    "{who} makes sounds of {}; {} is not one of them.",
                    list_text(offered),
                    seconds_text(secs)
                ),
            ));
        }
    } else {
        let (min, max) = sound_range_secs(model);
        if secs < min - 1e-9 || secs > max + 1e-9 {
            errors.push(FieldError::new(
                Field::Duration,
                format!(
                    "A sound effect lasts {} to {}; {} is outside that.",
                    seconds_text(min),
                    seconds_text(max),
                    seconds_text(secs)
                ),
            ));
        }
    }
}

/// The lengths a sound model makes when it lists none: its min/max output duration where
/// given, else 0.5-30 s.
pub fn sound_range_secs(model: Option<&ModelRecord>) -> (f64, f64) {
    let (mut min, mut max) = SOUND_DURATION_RANGE_SECS;
    if let Some(model) = model {
        if let Some(m) = model.min_output_duration.filter(|m| *m > 0.0) {
            min = m;
        }
        if let Some(m) = model.max_output_duration.filter(|m| *m >= min) {
            max = m;
        }
    }
    (min, max)
}

fn list_text(secs: &[f64]) -> String {
    secs.iter()
        .map(|d| seconds_text(*d))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::types::{GenerationKind, GenerationSpec};

    fn model(types: &[&str], durations: &[f64]) -> ModelRecord {
        ModelRecord {
            identifier: "m".into(),
            name: "Model".into(),
            types: types.iter().map(|t| (*t).to_owned()).collect(),
            supported_durations: durations.to_vec(),
            max_prompt_length: Some(20),
            ..ModelRecord::default()
        }
    }

    fn fields(errors: &[FieldError]) -> Vec<Field> {
        errors.iter().map(|e| e.field).collect()
    }

    #[test]
    fn speech_needs_a_voice_and_a_known_one_when_the_list_is_known() {
        let mut speech = SpeechRequest {
            text: "Hello there".into(),
            ..SpeechRequest::default()
        };
        let spec = GenerationSpec::for_audio(AudioJobRequest::Speech(speech.clone()));
        let errors = validate_audio_job(&spec, None, None);
        assert_eq!(fields(&errors), vec![Field::Voice]);
        assert_eq!(errors[0].message, "Choose a voice.");

        speech.voice = "Nobody".into();
        let spec = GenerationSpec::for_audio(AudioJobRequest::Speech(speech.clone()));
        assert!(validate_audio_job(&spec, None, None).is_empty());
        let voices = vec![Voice {
            voice_id: "v1".into(),
            name: "Rachel".into(),
            ..Voice::default()
        }];
        let errors = validate_audio_job(&spec, None, Some(&voices));
        assert_eq!(fields(&errors), vec![Field::Voice]);
        assert!(errors[0].message.contains("Nobody"), "{errors:?}");

        speech.voice = "rachel".into();
        let spec = GenerationSpec::for_audio(AudioJobRequest::Speech(speech));
        assert!(validate_audio_job(&spec, None, Some(&voices)).is_empty());
    }

    #[test]
    fn music_length_only_from_the_models_list() {
        let suno = model(&["music_gen"], &[30.0, 60.0]);
        let plain = model(&["music_gen"], &[]);
        let job = |duration| {
            GenerationSpec::for_audio(AudioJobRequest::Music(MusicRequest {
                prompt: "lofi".into(),
                duration,
                ..MusicRequest::default()
            }))
        };
        assert!(validate_audio_job(&job(Some(60.0)), Some(&suno), None).is_empty());
        assert_eq!(
            fields(&validate_audio_job(&job(Some(45.0)), Some(&suno), None)),
            vec![Field::Duration]
        );
        assert_eq!(
            fields(&validate_audio_job(&job(Some(30.0)), Some(&plain), None)),
            vec![Field::Duration]
        );
        assert!(validate_audio_job(&job(None), Some(&plain), None).is_empty());
    }

    #[test]
    fn sound_length_automatic_listed_or_in_range() {
        let listed = model(&["text_to_sound"], &[1.0, 5.0]);
        let job = |duration| {
            GenerationSpec::for_audio(AudioJobRequest::Sound(SoundRequest {
                prompt: "thunder".into(),
                duration,
                ..SoundRequest::default()
            }))
        };
        assert!(validate_audio_job(&job(None), Some(&listed), None).is_empty());
        assert!(validate_audio_job(&job(Some(5.0)), Some(&listed), None).is_empty());
        assert!(!validate_audio_job(&job(Some(3.0)), Some(&listed), None).is_empty());
        assert!(validate_audio_job(&job(Some(0.5)), None, None).is_empty());
        assert!(!validate_audio_job(&job(Some(31.0)), None, None).is_empty());
    }

    #[test]
    fn text_bounds_and_model_type() {
        let video = model(&["text_to_video"], &[]);
        let spec = GenerationSpec::for_audio(AudioJobRequest::Sound(SoundRequest {
            prompt: "x".repeat(21),
            ..SoundRequest::default()
        }));
        assert_eq!(spec.kind, GenerationKind::Sound);
        let errors = validate_audio_job(&spec, Some(&video), None);
        assert_eq!(fields(&errors), vec![Field::Model, Field::Prompt]);
        assert!(errors[1].message.contains("at most 20"), "{errors:?}");
    }
}
