//! Generated sound, deterministic from a prompt's hash: a sustained chord (music and the
//! main prompt's bed), filtered noise bursts (sound effects) and syllable-like voiced tones
//! (speech, whose loudness curve also drives the lipsync mouth). Mono, 48 kHz, about ±0.5.
//!
//! Sample loops use a phase accumulator and one `sin` per partial; the longest output (60 s,
//! 2.9 M samples) takes well under a second even unoptimised.

use std::f32::consts::TAU;

use crate::sandbox::ids::{SplitMix, fnv1a};

use super::audio::SAMPLE_RATE_HZ;

const RATE: f32 = SAMPLE_RATE_HZ as f32;

/// A seed for one layer: the prompt, the edit's seed and the layer's name.
pub(in crate::sandbox::video) fn layer_seed(prompt: &str, seed: i64, layer: &str) -> u64 {
    let mut key = prompt.as_bytes().to_vec();
    key.extend_from_slice(&seed.to_le_bytes());
    key.extend_from_slice(layer.as_bytes());
    fnv1a(&key)
}

/// A minor or major triad plus an octave, its root picked from the hash, with a slow swell.
pub(super) fn chord(seed: u64, len: usize) -> Vec<f32> {
    let mut rng = SplitMix::new(seed);
    // Roots from A2 (110 Hz) up an octave, in semitones.
    let root_hz = 110.0 * 2f32.powf((rng.next_u64() % 12) as f32 / 12.0);
    let third = if rng.next_u64().is_multiple_of(2) {
        3.0
    } else {
        4.0
    };
    let partials = [0.0, third, 7.0, 12.0].map(|semis| root_hz * 2f32.powf(semis / 12.0));
    let swell_hz = rng.range_f32(0.15, 0.4);
    let mut out = vec![0f32; len];
    for (k, &hz) in partials.iter().enumerate() {
        let step = TAU * hz / RATE;
        let gain = 0.12 / (1.0 + k as f32 * 0.3);
        let mut phase = 0f32;
        for sample in out.iter_mut() {
            *sample += gain * phase.sin();
            phase += step;
            if phase > TAU {
                phase -= TAU;
            }
        }
    }
    let swell_step = TAU * swell_hz / RATE;
    let fade = fade_len(len);
    for (i, sample) in out.iter_mut().enumerate() {
        let swell = 0.75 + 0.25 * (i as f32 * swell_step).sin();
        *sample *= swell * edge_fade(i, len, fade);
    }
    out
}

/// Bursts of low-passed noise (whooshes, thuds) at seeded times, 2-4 a second.
pub(super) fn noise_bursts(seed: u64, len: usize) -> Vec<f32> {
    let mut rng = SplitMix::new(seed);
    let mut out = vec![0f32; len];
    let mut at = (rng.range_f32(0.05, 0.3) * RATE) as usize;
    while at < len {
        let burst_len = (rng.range_f32(0.08, 0.35) * RATE) as usize;
        // One-pole low-pass: small coefficients sound dull (thud), large ones bright (hiss).
        let smooth = rng.range_f32(0.03, 0.4);
        let gain = rng.range_f32(0.25, 0.5);
        let mut state = 0f32;
        for i in 0..burst_len.min(len - at) {
            let white = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0;
            state += smooth * (white - state);
            // Fast attack, exponential-ish decay.
            let t = i as f32 / burst_len as f32;
            let envelope = (t * 20.0).min(1.0) * (1.0 - t) * (1.0 - t);
            out[at + i] += gain * state * envelope * 2.0;
        }
        at += burst_len + (rng.range_f32(0.1, 0.45) * RATE) as usize;
    }
    out
}

/// When a syllable sounds: start and length in seconds, pitch in Hz.
#[derive(Clone, Copy)]
struct Syllable {
    start_secs: f32,
    length_secs: f32,
    pitch_hz: f32,
    /// Which vowel colour (harmonic weights) it has.
    vowel: usize,
}

/// Words of 1-4 syllables at about 4-5 syllables a second, with short pauses between words.
pub(super) struct Speech {
    syllables: Vec<Syllable>,
}

/// Harmonic weights (1st..6th) roughly like "a", "e", "i", "o", "u".
const VOWELS: [[f32; 6]; 5] = [
    [1.0, 0.8, 0.9, 0.5, 0.3, 0.2],
    [1.0, 0.5, 0.3, 0.6, 0.5, 0.3],
    [1.0, 0.2, 0.1, 0.2, 0.5, 0.4],
    [1.0, 0.9, 0.4, 0.2, 0.1, 0.1],
    [1.0, 0.6, 0.1, 0.1, 0.05, 0.05],
];

impl Speech {
    pub(super) fn new(seed: u64, duration_secs: f32) -> Self {
        let mut rng = SplitMix::new(seed);
        let base_pitch = rng.range_f32(110.0, 200.0);
        let mut syllables = Vec::new();
        let mut t = 0.15;
        while t < duration_secs {
            let count = 1 + rng.next_u64() % 4;
            for _ in 0..count {
                let length_secs = rng.range_f32(0.14, 0.26);
                syllables.push(Syllable {
                    start_secs: t,
                    length_secs,
                    pitch_hz: base_pitch * rng.range_f32(0.85, 1.2),
                    vowel: (rng.next_u64() % VOWELS.len() as u64) as usize,
                });
                t += length_secs + rng.range_f32(0.01, 0.05);
            }
            t += rng.range_f32(0.12, 0.35);
        }
        Self { syllables }
    }

    /// How open the mouth is at `time_secs`: 0 (closed) ..= 1, the syllable's loudness.
    pub(super) fn openness(&self, time_secs: f32) -> f32 {
        let index = self
            .syllables
            .partition_point(|s| s.start_secs <= time_secs);
        let Some(s) = index.checked_sub(1).and_then(|i| self.syllables.get(i)) else {
            return 0.0;
        };
        let t = (time_secs - s.start_secs) / s.length_secs;
        if (0.0..1.0).contains(&t) {
            (t * std::f32::consts::PI).sin()
        } else {
            0.0
        }
    }

    /// The voice: each syllable a few harmonics of its pitch, shaped by `openness`.
    pub(super) fn render(&self, len: usize) -> Vec<f32> {
        let mut out = vec![0f32; len];
        for s in &self.syllables {
            let start = (s.start_secs * RATE) as usize;
            let end = (((s.start_secs + s.length_secs) * RATE) as usize).min(len);
            let weights = VOWELS[s.vowel.min(VOWELS.len() - 1)];
            let step = TAU * s.pitch_hz / RATE;
            let span = out.get_mut(start..end).unwrap_or_default();
            for (n, sample) in span.iter_mut().enumerate() {
                let t = n as f32 / RATE;
                let envelope = (t / s.length_secs * std::f32::consts::PI).sin();
                // A slight downward glide, as in speech.
                let phase = step * n as f32 * (1.0 - 0.1 * t / s.length_secs);
                let mut v = 0.0;
                for (k, w) in weights.iter().enumerate() {
                    v += w * (phase * (k + 1) as f32).sin();
                }
                *sample += 0.12 * envelope * v;
            }
        }
        out
    }
}

/// Adds `layer` into `mix` (shorter layers end early).
pub(super) fn add_into(mix: &mut [f32], layer: &[f32]) {
    for (m, l) in mix.iter_mut().zip(layer) {
        *m += l;
    }
}

/// Scales down so the loudest sample is at most `peak` (quiet mixes are left alone).
pub(in crate::sandbox::video) fn limit_peak(mix: &mut [f32], peak: f32) {
    let loudest = mix.iter().fold(0f32, |m, s| m.max(s.abs()));
    if loudest > peak {
        let gain = peak / loudest;
        mix.iter_mut().for_each(|s| *s *= gain);
    }
}

/// 20 ms, or less for very short clips: fades that stop clicks at the ends.
fn fade_len(len: usize) -> usize {
    (RATE as usize / 50).min(len / 4).max(1)
}

fn edge_fade(i: usize, len: usize, fade: usize) -> f32 {
    let from_start = i as f32 / fade as f32;
    let from_end = (len - i) as f32 / fade as f32;
    from_start.min(from_end).min(1.0)
}
