//! Speech: a glottal pulse train through three formant resonators, one syllable at a time
//! (a vowel per vowel group of the word, a noise burst for a leading consonant), with
//! pauses at punctuation and a falling (or, for questions, rising) pitch. Its length
//! follows the text at about 4.2 syllables a second; every word's time is recorded so the
//! sandbox's transcription can give real cue times.

use super::music::VOWELS;
use super::{LowPass, RATE_HZ, Resonator, Rng, TimedWord, normalize, samples_for};

/// The voice a speech render uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct VoiceShape {
    /// Average pitch.
    pub pitch_hz: f32,
    /// Formant frequencies are multiplied by this (about 1.15 for higher voices).
    pub formant_scale: f32,
    /// Syllables per second.
    pub syllables_per_sec: f32,
}

#[derive(Debug, Clone)]
pub(crate) struct RenderedSpeech {
    pub samples: Vec<f32>,
    pub words: Vec<TimedWord>,
}

const LEAD_IN_SECS: f64 = 0.15;
const TAIL_SECS: f64 = 0.3;
const WORD_GAP_SECS: f64 = 0.06;
const COMMA_PAUSE_SECS: f64 = 0.25;
const SENTENCE_PAUSE_SECS: f64 = 0.5;
const CONSONANT_SECS: f64 = 0.045;

#[derive(Debug)]
struct Syllable {
    vowel: usize,
    consonant: bool,
}

fn vowel_index(c: char) -> Option<usize> {
    match c.to_ascii_lowercase() {
        'a' => Some(0),
        'e' => Some(1),
        'i' | 'y' => Some(2),
        'o' => Some(3),
        'u' => Some(4),
        c if c.is_alphabetic() && !c.is_ascii() => Some((c as usize) % VOWELS.len()),
        _ => None,
    }
}

/// The syllables of one written word: a vowel group each (digits: one per digit; an
/// ideographic script: one per character).
fn syllables(word: &str) -> Vec<Syllable> {
    let mut out = Vec::new();
    let mut in_vowel = false;
    let mut pending_consonant = false;
    for c in word.chars() {
        if c.is_ascii_digit() {
            out.push(Syllable {
                vowel: (c as usize) % VOWELS.len(),
                consonant: true,
            });
            in_vowel = false;
            continue;
        }
        if !c.is_alphanumeric() {
            continue;
        }
        let ideographic = !c.is_ascii() && c as u32 >= 0x2E80;
        match vowel_index(c) {
            Some(vowel) if ideographic || !in_vowel => {
                out.push(Syllable {
                    vowel,
                    consonant: pending_consonant || ideographic,
                });
                pending_consonant = false;
                in_vowel = !ideographic;
            }
            Some(_) => {}
            None => {
                pending_consonant = true;
                in_vowel = false;
            }
        }
    }
    if out.is_empty() && word.chars().any(char::is_alphanumeric) {
        out.push(Syllable {
            vowel: 1,
            consonant: true,
        });
    }
    out
}

/// The pause after a written word, from its trailing punctuation.
fn pause_after(word: &str) -> f64 {
    match word
        .chars()
        .rev()
        .find(|c| !c.is_alphanumeric() && !matches!(c, '"' | '\'' | ')' | '»' | '”'))
    {
        Some('.' | '!' | '?' | '…' | '。' | '！' | '？') => SENTENCE_PAUSE_SECS,
        Some(',' | ';' | ':' | '—' | '–' | '、' | '，') => COMMA_PAUSE_SECS,
        _ => WORD_GAP_SECS,
    }
}

/// Renders `text` in `voice`. The words are the text's whitespace-separated words as
/// written (punctuation kept), so joining them with spaces gives the text back.
pub(crate) fn render_speech(text: &str, voice: VoiceShape, seed: u64) -> RenderedSpeech {
    let mut rng = Rng::new(seed);
    let written: Vec<&str> = text.split_whitespace().collect();
    // Plan first: syllable timings, then synthesise into one buffer.
    struct Planned {
        start: usize,
        length: usize,
        syllable: Syllable,
        pitch_hz: f32,
    }
    let mut plan: Vec<Planned> = Vec::new();
    let mut words = Vec::with_capacity(written.len());
    let mut t = LEAD_IN_SECS;
    let syllable_secs = 1.0 / f64::from(voice.syllables_per_sec.max(1.0));
    let mut sentence_start = 0usize;
    for (index, word) in written.iter().enumerate() {
        let start_secs = t;
        let sylls = syllables(word);
        let question = word.ends_with('?');
        let count = sylls.len();
        for (k, syllable) in sylls.into_iter().enumerate() {
            let length_secs = syllable_secs * f64::from(rng.between(0.85, 1.15));
            // Declination over the sentence, a rise on the last syllables of a question.
            let through_sentence = ((index - sentence_start) as f32 / 12.0).min(1.0);
            let mut pitch =
                voice.pitch_hz * (1.08 - 0.16 * through_sentence) * rng.between(0.96, 1.04);
            if question && k + 2 >= count {
                pitch *= 1.25;
            }
            plan.push(Planned {
                start: samples_for(t),
                length: samples_for(length_secs),
                syllable,
                pitch_hz: pitch,
            });
            t += length_secs;
        }
        words.push(TimedWord {
            text: (*word).to_owned(),
            start_secs: round_ms(start_secs),
            end_secs: round_ms(t),
        });
        let pause = pause_after(word);
        if pause >= SENTENCE_PAUSE_SECS {
            sentence_start = index + 1;
        }
        t += pause;
    }
    let total = samples_for(t - WORD_GAP_SECS.min(t) + TAIL_SECS).max(samples_for(0.5));
    let mut samples = vec![0.0f32; total];
    let mut breath = LowPass::new(4_000.0);
    for planned in &plan {
        let end = (planned.start + planned.length).min(total);
        syllable_into(
            &mut samples[planned.start..end],
            &planned.syllable,
            planned.pitch_hz,
            voice.formant_scale,
            &mut rng,
            &mut breath,
        );
    }
    normalize(&mut samples, 0.85);
    RenderedSpeech { samples, words }
}

fn round_ms(secs: f64) -> f64 {
    (secs * 1000.0).round() / 1000.0
}

fn syllable_into(
    out: &mut [f32],
    syllable: &Syllable,
    pitch_hz: f32,
    formant_scale: f32,
    rng: &mut Rng,
    breath: &mut LowPass,
) {
    let len = out.len();
    let consonant = if syllable.consonant {
        samples_for(CONSONANT_SECS).min(len / 3)
    } else {
        0
    };
    let [f1, f2, f3] = VOWELS[syllable.vowel % VOWELS.len()].map(|f| f * formant_scale);
    let mut formants = [
        Resonator::new(f1, 80.0),
        Resonator::new(f2, 100.0),
        Resonator::new(f3, 140.0),
    ];
    let mut hiss = Resonator::new(4_200.0, 1_800.0);
    let step = pitch_hz / RATE_HZ as f32;
    let mut phase = 0.0f32;
    let mut previous = 0.0f32;
    let attack = samples_for(0.02).max(1);
    let release = samples_for(0.04).max(1);
    for (i, sample) in out.iter_mut().enumerate() {
        if i < consonant {
            let t = i as f32 / consonant as f32;
            *sample +=
                0.5 * (1.0 - t) * hiss.process(breath.process(rng.noise()) + rng.noise()) * 3.0;
            continue;
        }
        let j = i - consonant;
        let voiced_len = len - consonant;
        // Rosenberg-like glottal pulse, differentiated (lip radiation).
        phase += step;
        if phase >= 1.0 {
            phase -= 1.0;
        }
        let glottal = if phase < 0.4 {
            0.5 - 0.5 * (std::f32::consts::PI * phase / 0.4).cos()
        } else if phase < 0.56 {
            (std::f32::consts::PI * (phase - 0.4) / 0.32).cos()
        } else {
            0.0
        };
        let excitation = glottal - previous + 0.01 * rng.noise();
        previous = glottal;
        let voiced = formants[0].process(excitation)
            + 0.7 * formants[1].process(excitation)
            + 0.35 * formants[2].process(excitation);
        let envelope = if j < attack {
            j as f32 / attack as f32
        } else if j + release > voiced_len {
            (voiced_len - j) as f32 / release as f32
        } else {
            1.0
        };
        *sample += envelope * voiced * 8.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VOICE: VoiceShape = VoiceShape {
        pitch_hz: 120.0,
        formant_scale: 1.0,
        syllables_per_sec: 4.2,
    };

    #[test]
    fn length_follows_the_text_and_words_are_timed_in_order() {
        let short = render_speech("Hello there.", VOICE, 1);
        let long = render_speech(
            "Hello there. This is a much longer sentence, with a pause in it.",
            VOICE,
            1,
        );
        assert!(long.samples.len() > short.samples.len() * 3);
        assert_eq!(long.words.len(), 13);
        let joined: Vec<&str> = long.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(
            joined.join(" "),
            "Hello there. This is a much longer sentence, with a pause in it."
        );
        for pair in long.words.windows(2) {
            assert!(pair[0].end_secs <= pair[1].start_secs);
            assert!(pair[0].start_secs < pair[0].end_secs);
        }
        let end = long.words.last().map(|w| w.end_secs).unwrap_or(0.0);
        assert!(end <= long.samples.len() as f64 / f64::from(RATE_HZ));
    }

    #[test]
    fn syllables_count_vowel_groups() {
        assert_eq!(syllables("hello").len(), 2);
        assert_eq!(syllables("strength").len(), 1);
        assert_eq!(syllables("2026").len(), 4);
        assert_eq!(syllables("...").len(), 0);
    }
}
