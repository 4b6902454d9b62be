//! Sound generation: the bodies of POST /v1/generate/music, /speech and /sound, the voice
//! list (GET /v1/voices) and what a finished audio job carries. No egui here.
//!
//! Bodies carry only the fields the contract, its wire examples or the reference
//! (`catalog-families.md`) name; `None` fields are left out so the service applies its
//! own defaults (a concrete default model for each of the three routes).

use super::lenient::{lenient_bool, lenient_f64, lenient_list, lenient_string, null_default};
use super::types::GenerationKind;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------

/// Body of POST /v1/generate/music.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MusicRequest {
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    #[serde(default)]
    pub instrumental: bool,
    /// Sent only when not instrumental.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lyrics: Option<String>,
    /// "m" or "f"; `None` lets the model choose. Sent only when not instrumental.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vocal_gender: Option<String>,
    /// Seconds; only for models with `supported_durations`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
}

/// Body of POST /v1/generate/speech.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SpeechRequest {
    pub text: String,
    /// A voice id or name (the studio sends the id it picked from GET /v1/voices).
    pub voice: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// e.g. "en-US"; `None` lets the voice decide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
}

/// Body of POST /v1/generate/sound.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SoundRequest {
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Seconds; `None` = automatic (the field is left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// A seamless loop; sent only when true.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sound_loop: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// The body of an audio job, stored in [`super::GenerationSpec::audio`]. Its variant
/// decides the route; [`AudioJobRequest::kind`] is the matching `GenerationKind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AudioJobRequest {
    /// POST /v1/generate/music.
    Music(MusicRequest),
    /// POST /v1/generate/speech.
    Speech(SpeechRequest),
    /// POST /v1/generate/sound.
    Sound(SoundRequest),
}

impl AudioJobRequest {
    pub fn kind(&self) -> GenerationKind {
        match self {
            AudioJobRequest::Music(_) => GenerationKind::Music,
            AudioJobRequest::Speech(_) => GenerationKind::Speech,
            AudioJobRequest::Sound(_) => GenerationKind::Sound,
        }
    }
    /// The model sent (`None`: the service's default for the route).
    pub fn model(&self) -> Option<&str> {
        match self {
            AudioJobRequest::Music(r) => r.model.as_deref(),
            AudioJobRequest::Speech(r) => r.model.as_deref(),
            AudioJobRequest::Sound(r) => r.model.as_deref(),
        }
    }
    pub fn project_id(&self) -> Option<&str> {
        match self {
            AudioJobRequest::Music(r) => r.project_id.as_deref(),
            AudioJobRequest::Speech(r) => r.project_id.as_deref(),
            AudioJobRequest::Sound(r) => r.project_id.as_deref(),
        }
    }
    /// The prompt (music, sound) or the text to speak (speech).
    pub fn prompt(&self) -> &str {
        match self {
            AudioJobRequest::Music(r) => &r.prompt,
            AudioJobRequest::Speech(r) => &r.text,
            AudioJobRequest::Sound(r) => &r.prompt,
        }
    }
    /// The duration asked for, in seconds (`None`: automatic or not asked).
    pub fn duration_secs(&self) -> Option<f64> {
        match self {
            AudioJobRequest::Music(r) => r.duration,
            AudioJobRequest::Speech(_) => None,
            AudioJobRequest::Sound(r) => r.duration,
        }
    }
    pub fn set_project_id(&mut self, project_id: Option<String>) {
        match self {
            AudioJobRequest::Music(r) => r.project_id = project_id,
            AudioJobRequest::Speech(r) => r.project_id = project_id,
            AudioJobRequest::Sound(r) => r.project_id = project_id,
        }
    }
    /// The JSON body sent to the route. Music drops lyrics and vocal gender when
    /// instrumental (the form disables them; a stale value must not reach the service).
    pub fn body(&self) -> Result<serde_json::Value, serde_json::Error> {
        match self {
            AudioJobRequest::Music(r) => {
                let mut r = r.clone();
                if r.instrumental {
                    r.lyrics = None;
                    r.vocal_gender = None;
                }
                r.lyrics = r.lyrics.filter(|l| !l.trim().is_empty());
                r.style = r.style.filter(|s| !s.trim().is_empty());
                serde_json::to_value(r)
            }
            AudioJobRequest::Speech(r) => serde_json::to_value(r),
            AudioJobRequest::Sound(r) => serde_json::to_value(r),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------

/// One playable output of an audio job: a music variation, or the single file of a
/// speech or sound job.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AudioVariation {
    #[serde(
        deserialize_with = "null_default",
        alias = "audio_url",
        alias = "audioUrl"
    )]
    pub url: String,
    #[serde(
        deserialize_with = "lenient_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub title: Option<String>,
    #[serde(
        deserialize_with = "lenient_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub lyrics: Option<String>,
    #[serde(
        deserialize_with = "lenient_f64",
        skip_serializing_if = "Option::is_none"
    )]
    pub duration: Option<f64>,
}

// ---------------------------------------------------------------------------------------
// Voices (GET /v1/voices)
// ---------------------------------------------------------------------------------------

/// One voice of GET /v1/voices (get_voices.json). Every field is tolerant: custom voices
/// send `null` for most of them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Voice {
    #[serde(deserialize_with = "null_default", alias = "voiceId", alias = "id")]
    pub voice_id: String,
    #[serde(deserialize_with = "null_default")]
    pub name: String,
    #[serde(deserialize_with = "lenient_string")]
    pub provider: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub language: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "languageCode")]
    pub language_code: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub gender: Option<String>,
    #[serde(deserialize_with = "lenient_string")]
    pub accent: Option<String>,
    #[serde(deserialize_with = "lenient_string", alias = "previewUrl")]
    pub preview_url: Option<String>,
    #[serde(deserialize_with = "super::lenient::string_list")]
    pub styles: Vec<String>,
    #[serde(deserialize_with = "lenient_bool")]
    pub custom: Option<bool>,
}

impl Voice {
    /// The name to show (the id when the name is missing).
    pub fn display_name(&self) -> &str {
        if self.name.trim().is_empty() {
            &self.voice_id
        } else {
            &self.name
        }
    }
    /// Whether `value` (an id or a name, as the speech route accepts) names this voice.
    pub fn matches(&self, value: &str) -> bool {
        let value = value.trim();
        !value.is_empty()
            && (self.voice_id == value || self.name.trim().eq_ignore_ascii_case(value))
    }
    /// A preview URL that can be fetched (the wire example's "https://..." placeholder
    /// and blanks are not).
    pub fn playable_preview_url(&self) -> Option<&str> {
        self.preview_url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty() && !u.ends_with("..."))
    }
    pub fn is_custom(&self) -> bool {
        self.custom.unwrap_or(false)
    }
    /// "English · Female · American", leaving out what is unknown.
    pub fn summary(&self) -> String {
        [
            self.language.as_deref(),
            self.gender.as_deref(),
            self.accent.as_deref(),
        ]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case("auto"))
        .collect::<Vec<_>>()
        .join(" · ")
    }
}

/// Filters of GET /v1/voices; `None` = no filter. Sent as query parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct VoiceFilter {
    pub provider: Option<String>,
    pub language: Option<String>,
    pub gender: Option<String>,
}

impl VoiceFilter {
    /// The query pairs to send (blank filters are left out).
    pub fn query(&self) -> Vec<(&'static str, String)> {
        [
            ("provider", &self.provider),
            ("language", &self.language),
            ("gender", &self.gender),
        ]
        .into_iter()
        .filter_map(|(key, value)| {
            value
                .as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(|v| (key, v.to_owned()))
        })
        .collect()
    }
}

/// GET /v1/voices: `{success, voices: [...], count}` (unreadable voices are skipped).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct VoicesResponse {
    #[serde(deserialize_with = "lenient_bool")]
    pub success: Option<bool>,
    #[serde(deserialize_with = "lenient_list")]
    pub voices: Vec<Voice>,
    #[serde(deserialize_with = "super::lenient::lenient_u32")]
    pub count: Option<u32>,
}

// ---------------------------------------------------------------------------------------
// Output kind
// ---------------------------------------------------------------------------------------

/// Extensions of audio outputs.
pub const AUDIO_EXTENSIONS: [&str; 7] = ["mp3", "wav", "m4a", "aac", "ogg", "flac", "opus"];

/// Whether `url` names an audio file by its extension (case-insensitive; a query string
/// or fragment is ignored).
pub fn is_audio_url(url: &str) -> bool {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let file = path.rsplit('/').next().unwrap_or_default();
    file.rsplit_once('.').is_some_and(|(_, ext)| {
        AUDIO_EXTENSIONS
            .iter()
            .any(|known| known.eq_ignore_ascii_case(ext))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audio_urls_are_recognised_by_extension() {
        assert!(is_audio_url("https://cdn.example/audio/a.MP3"));
        assert!(is_audio_url("http://127.0.0.1:9/files/audio/x.wav?sig=1"));
        assert!(is_audio_url("/tmp/voice.opus"));
        assert!(!is_audio_url("https://cdn.example/audio/"));
        assert!(!is_audio_url("https://cdn.example/v.mp4"));
        assert!(!is_audio_url("https://cdn.example/mp3/picture.png"));
    }

    #[test]
    fn instrumental_music_sends_no_lyrics_or_vocal_gender() {
        let job = AudioJobRequest::Music(MusicRequest {
            prompt: "calm piano".into(),
            instrumental: true,
            lyrics: Some("la la".into()),
            vocal_gender: Some("f".into()),
            ..MusicRequest::default()
        });
        let body = job.body().unwrap();
        assert_eq!(body["prompt"], "calm piano");
        assert_eq!(body["instrumental"], true);
        assert!(body.get("lyrics").is_none());
        assert!(body.get("vocal_gender").is_none());
        assert!(body.get("model").is_none());
    }

    #[test]
    fn automatic_sound_leaves_duration_and_loop_out() {
        let job = AudioJobRequest::Sound(SoundRequest {
            prompt: "door creak".into(),
            ..SoundRequest::default()
        });
        let body = job.body().unwrap();
        assert!(body.get("duration").is_none());
        assert!(body.get("sound_loop").is_none());
    }

    #[test]
    fn voice_filter_sends_only_set_filters() {
        let filter = VoiceFilter {
            language: Some("English".into()),
            gender: Some("  ".into()),
            ..VoiceFilter::default()
        };
        assert_eq!(filter.query(), vec![("language", "English".to_owned())]);
    }
}
