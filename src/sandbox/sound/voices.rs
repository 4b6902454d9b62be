//! The sandbox's built-in voices (GET /v1/voices), shaped like the wire example
//! get_voices.json, and what each sounds like.

use super::speech::VoiceShape;

#[derive(Debug, Clone, Copy)]
pub(crate) struct BuiltInVoice {
    pub voice_id: &'static str,
    pub name: &'static str,
    pub provider: &'static str,
    pub language: &'static str,
    pub language_code: &'static str,
    pub gender: &'static str,
    pub accent: &'static str,
    pub styles: &'static [&'static str],
    pub pitch_hz: f32,
    /// The sentence its preview says.
    pub preview_text: &'static str,
}

impl BuiltInVoice {
    pub(crate) fn shape(&self) -> VoiceShape {
        let female = self.gender == "Female";
        VoiceShape {
            pitch_hz: self.pitch_hz,
            formant_scale: if female { 1.15 } else { 1.0 },
            syllables_per_sec: 4.0 + (self.pitch_hz % 7.0) / 10.0,
        }
    }

    /// Where its preview lives under /files/.
    pub(crate) fn preview_rel_path(&self) -> String {
        format!("voices/{}.mp3", self.voice_id)
    }
}

const EN: &str = "Hello, this is my voice. I can read your script out loud.";

pub(crate) const VOICES: [BuiltInVoice; 16] = [
    BuiltInVoice {
        voice_id: "EXAVITQu4vr4xnSDxMaL",
        name: "Rachel",
        provider: "elevenLabs",
        language: "English",
        language_code: "en-US",
        gender: "Female",
        accent: "American",
        styles: &["conversational", "calm"],
        pitch_hz: 205.0,
        preview_text: EN,
    },
    BuiltInVoice {
        voice_id: "sbx_adam_en_us",
        name: "Adam",
        provider: "elevenLabs",
        language: "English",
        language_code: "en-US",
        gender: "Male",
        accent: "American",
        styles: &["narration", "deep"],
        pitch_hz: 105.0,
        preview_text: EN,
    },
    BuiltInVoice {
        voice_id: "sbx_grace_en_gb",
        name: "Grace",
        provider: "elevenLabs",
        language: "English",
        language_code: "en-GB",
        gender: "Female",
        accent: "British",
        styles: &["news", "warm"],
        pitch_hz: 215.0,
        preview_text: EN,
    },
    BuiltInVoice {
        voice_id: "sbx_oliver_en_gb",
        name: "Oliver",
        provider: "elevenLabs",
        language: "English",
        language_code: "en-GB",
        gender: "Male",
        accent: "British",
        styles: &["storytelling"],
        pitch_hz: 118.0,
        preview_text: EN,
    },
    BuiltInVoice {
        voice_id: "sbx_aria_en_au",
        name: "Aria",
        provider: "google",
        language: "English",
        language_code: "en-AU",
        gender: "Female",
        accent: "Australian",
        styles: &["cheerful"],
        pitch_hz: 225.0,
        preview_text: EN,
    },
    BuiltInVoice {
        voice_id: "sbx_marcus_en_us",
        name: "Marcus",
        provider: "openai",
        language: "English",
        language_code: "en-US",
        gender: "Male",
        accent: "American",
        styles: &["commercial", "energetic"],
        pitch_hz: 125.0,
        preview_text: EN,
    },
    BuiltInVoice {
        voice_id: "sbx_lucia_es_es",
        name: "Lucía",
        provider: "elevenLabs",
        language: "Spanish",
        language_code: "es-ES",
        gender: "Female",
        accent: "Castilian",
        styles: &["conversational"],
        pitch_hz: 210.0,
        preview_text: "Hola, esta es mi voz. Puedo leer tu guion en voz alta.",
    },
    BuiltInVoice {
        voice_id: "sbx_mateo_es_mx",
        name: "Mateo",
        provider: "google",
        language: "Spanish",
        language_code: "es-MX",
        gender: "Male",
        accent: "Mexican",
        styles: &["narration"],
        pitch_hz: 115.0,
        preview_text: "Hola, esta es mi voz. Puedo leer tu guion en voz alta.",
    },
    BuiltInVoice {
        voice_id: "sbx_camille_fr_fr",
        name: "Camille",
        provider: "elevenLabs",
        language: "French",
        language_code: "fr-FR",
        gender: "Female",
        accent: "Parisian",
        styles: &["calm"],
        pitch_hz: 200.0,
        preview_text: "Bonjour, voici ma voix. Je peux lire votre texte à voix haute.",
    },
    BuiltInVoice {
        voice_id: "sbx_louis_fr_fr",
        name: "Louis",
        provider: "google",
        language: "French",
        language_code: "fr-FR",
        gender: "Male",
        accent: "Parisian",
        styles: &["news"],
        pitch_hz: 112.0,
        preview_text: "Bonjour, voici ma voix. Je peux lire votre texte à voix haute.",
    },
    BuiltInVoice {
        voice_id: "sbx_hanna_de_de",
        name: "Hanna",
        provider: "elevenLabs",
        language: "German",
        language_code: "de-DE",
        gender: "Female",
        accent: "Standard",
        styles: &["conversational"],
        pitch_hz: 198.0,
        preview_text: "Hallo, das ist meine Stimme. Ich kann Ihren Text vorlesen.",
    },
    BuiltInVoice {
        voice_id: "sbx_jonas_de_de",
        name: "Jonas",
        provider: "openai",
        language: "German",
        language_code: "de-DE",
        gender: "Male",
        accent: "Standard",
        styles: &["narration"],
        pitch_hz: 110.0,
        preview_text: "Hallo, das ist meine Stimme. Ich kann Ihren Text vorlesen.",
    },
    BuiltInVoice {
        voice_id: "sbx_giulia_it_it",
        name: "Giulia",
        provider: "google",
        language: "Italian",
        language_code: "it-IT",
        gender: "Female",
        accent: "Standard",
        styles: &["warm"],
        pitch_hz: 212.0,
        preview_text: "Ciao, questa è la mia voce. Posso leggere il tuo testo ad alta voce.",
    },
    BuiltInVoice {
        voice_id: "sbx_rafael_pt_br",
        name: "Rafael",
        provider: "elevenLabs",
        language: "Portuguese",
        language_code: "pt-BR",
        gender: "Male",
        accent: "Brazilian",
        styles: &["energetic"],
        pitch_hz: 122.0,
        preview_text: "Olá, esta é a minha voz. Posso ler o seu texto em voz alta.",
    },
    BuiltInVoice {
        voice_id: "sbx_yuki_ja_jp",
        name: "Yuki",
        provider: "google",
        language: "Japanese",
        language_code: "ja-JP",
        gender: "Female",
        accent: "Tokyo",
        styles: &["cheerful"],
        pitch_hz: 230.0,
        preview_text: "こんにちは、 これは わたしの こえ です。",
    },
    BuiltInVoice {
        voice_id: "sbx_arjun_hi_in",
        name: "Arjun",
        provider: "openai",
        language: "Hindi",
        language_code: "hi-IN",
        gender: "Male",
        accent: "Standard",
        styles: &["conversational"],
        pitch_hz: 120.0,
        preview_text: "नमस्ते, यह मेरी आवाज़ है।",
    },
];

/// A built-in voice by id, else by name (case-insensitive, trimmed).
pub(crate) fn find(id_or_name: &str) -> Option<&'static BuiltInVoice> {
    let wanted = id_or_name.trim();
    VOICES.iter().find(|v| v.voice_id == wanted).or_else(|| {
        VOICES
            .iter()
            .find(|v| v.name.to_lowercase() == wanted.to_lowercase())
    })
}

/// Filters of GET /v1/voices: each case-insensitive; `language` matches the language name,
/// its code, or the code's language part ("en" matches "en-US").
pub(crate) fn matches(
    voice: &BuiltInVoice,
    provider: Option<&str>,
    language: Option<&str>,
    gender: Option<&str>,
) -> bool {
    let eq = |a: &str, b: &str| a.eq_ignore_ascii_case(b.trim());
    provider.is_none_or(|p| eq(voice.provider, p))
        && gender.is_none_or(|g| {
            let g = g.trim().to_lowercase();
            let wanted = match g.as_str() {
                "m" | "male" => "male",
                "f" | "female" => "female",
                other => other,
            };
            voice.gender.to_lowercase() == wanted
        })
        && language.is_none_or(|l| {
            let l = l.trim();
            eq(voice.language, l)
                || eq(voice.language_code, l)
                || voice
                    .language_code
                    .split('-')
                    .next()
                    .is_some_and(|code| eq(code, l))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn voices_are_found_by_id_or_name_and_filtered() {
        assert_eq!(
            find("rachel").map(|v| v.voice_id),
            Some("EXAVITQu4vr4xnSDxMaL")
        );
        assert_eq!(find("sbx_adam_en_us").map(|v| v.name), Some("Adam"));
        assert!(find("nobody").is_none());
        let english_women = VOICES
            .iter()
            .filter(|v| matches(v, None, Some("en"), Some("FEMALE")))
            .count();
        assert_eq!(english_women, 3);
        assert!(VOICES.iter().all(|v| matches(v, None, None, None)));
        let ids: std::collections::HashSet<_> = VOICES.iter().map(|v| v.voice_id).collect();
        assert_eq!(ids.len(), VOICES.len());
    }
}
