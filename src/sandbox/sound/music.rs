//! Music: a drum beat, a bass line, a pad and a lead (or a sung "aah" line) over a chord
//! progression, all chosen from the seed and the prompt's words. Two 4-bar cycles (A and
//! B) are rendered once and tiled A A B A … to the requested length, so a 4-minute song
//! costs about as much as 16 seconds of synthesis.

use super::{
    LowPass, RATE_HZ, Resonator, Rng, fade_edges, mentions, normalize, prompt_words, samples_for,
};

/// What a music render needs.
#[derive(Debug, Clone)]
pub(crate) struct MusicSpec<'a> {
    pub prompt: &'a str,
    pub style: Option<&'a str>,
    pub seed: u64,
    pub duration_secs: f64,
    pub instrumental: bool,
    pub female_vocals: bool,
}

/// The musical choices of one render (exposed for tests and the docs).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Arrangement {
    pub bpm: f32,
    pub root_midi: i32,
    pub minor: bool,
    pub progression: [i32; 4],
    pub four_on_the_floor: bool,
}

const MAJOR_PROGRESSIONS: [[i32; 4]; 4] = [[0, 7, 9, 5], [0, 5, 7, 5], [9, 5, 0, 7], [0, 9, 5, 7]];
const MINOR_PROGRESSIONS: [[i32; 4]; 4] =
    [[0, 8, 3, 10], [0, 5, 8, 7], [0, 10, 8, 7], [0, 3, 10, 8]];

/// Chooses tempo, key and progression from the words and the seed.
pub(crate) fn arrange(spec: &MusicSpec<'_>) -> Arrangement {
    let mut words = prompt_words(spec.prompt);
    if let Some(style) = spec.style {
        words.extend(prompt_words(style));
    }
    let mut rng = Rng::new(spec.seed);
    let (low, high) = if mentions(
        &words,
        &[
            "ambient", "calm", "lofi", "lo", "chill", "ballad", "sleep", "piano", "slow", "soft",
        ],
    ) {
        (68.0, 88.0)
    } else if mentions(
        &words,
        &[
            "rock", "punk", "metal", "dance", "edm", "house", "techno", "disco", "fast", "drum",
        ],
    ) {
        (118.0, 140.0)
    } else {
        (88.0, 124.0)
    };
    let bpm = rng.between(low, high).round();
    let minor = if mentions(
        &words,
        &[
            "sad",
            "dark",
            "minor",
            "melanchol",
            "night",
            "rain",
            "lonely",
            "grief",
        ],
    ) {
        true
    } else if mentions(
        &words,
        &[
            "happy", "summer", "bright", "sunny", "joy", "major", "upbeat",
        ],
    ) {
        false
    } else {
        rng.unit() < 0.4
    };
    let progression = if minor {
        MINOR_PROGRESSIONS[rng.below(MINOR_PROGRESSIONS.len())]
    } else {
        MAJOR_PROGRESSIONS[rng.below(MAJOR_PROGRESSIONS.len())]
    };
    Arrangement {
        bpm,
        root_midi: 40 + rng.below(12) as i32,
        minor,
        progression,
        four_on_the_floor: bpm >= 116.0
            || mentions(&words, &["dance", "house", "disco", "techno", "edm"]),
    }
}

fn midi_hz(note: i32) -> f32 {
    440.0 * 2f32.powf((note - 69) as f32 / 12.0)
}

/// The triad on `degree` (semitones above the key's root) in the key.
fn triad(degree: i32, minor_key: bool) -> [i32; 3] {
    let minor_chord = if minor_key {
        matches!(degree, 0 | 5 | 7)
    } else {
        matches!(degree, 2 | 4 | 9)
    };
    let third = if minor_chord { 3 } else { 4 };
    [degree, degree + third, degree + 7]
}

/// Renders the song: exactly `duration_secs` long, faded in and out, peak 0.89.
pub(crate) fn render_music(spec: &MusicSpec<'_>) -> Vec<f32> {
    let arrangement = arrange(spec);
    let total = samples_for(spec.duration_secs).max(1);
    let beat = (60.0 / arrangement.bpm * RATE_HZ as f32) as usize;
    let cycle_len = beat * 16;
    let cycles = [
        render_cycle(spec, &arrangement, beat, 0),
        render_cycle(spec, &arrangement, beat, 1),
    ];
    // A A B A, over and over.
    const ORDER: [usize; 4] = [0, 0, 1, 0];
    let mut out = Vec::with_capacity(total);
    let mut n = 0usize;
    while out.len() < total {
        let cycle = &cycles[ORDER[n % ORDER.len()]];
        let take = (total - out.len()).min(cycle_len);
        out.extend_from_slice(&cycle[..take]);
        n += 1;
    }
    let fade_out = (spec.duration_secs * 0.08).clamp(0.3, 3.0);
    fade_edges(&mut out, 0.4_f64.min(spec.duration_secs / 4.0), fade_out);
    normalize(&mut out, 0.89);
    out
}

/// One 4-bar cycle; `section` 1 (the B part) has a busier lead and a drum fill.
fn render_cycle(spec: &MusicSpec<'_>, arr: &Arrangement, beat: usize, section: u64) -> Vec<f32> {
    let len = beat * 16;
    let mut out = vec![0.0f32; len];
    let mut rng = Rng::new(spec.seed ^ (0xA5A5 + section * 0x1_0000_0001));
    let eighth = beat / 2;
    // Drums.
    for step in 0..32usize {
        let at = step * eighth;
        let beat_in_bar = (step / 2) % 4;
        let on_beat = step % 2 == 0;
        if on_beat && (arr.four_on_the_floor || beat_in_bar == 0 || beat_in_bar == 2) {
            kick(&mut out[at..], 0.9);
        }
        if on_beat && (beat_in_bar == 1 || beat_in_bar == 3) {
            snare(&mut out[at..], &mut rng, 0.45);
        }
        // The B section's last bar ends in a fill.
        if section == 1 && step >= 28 && !on_beat {
            snare(&mut out[at..], &mut rng, 0.3);
        }
        hat(&mut out[at..], &mut rng, if on_beat { 0.12 } else { 0.08 });
    }
    let bar = beat * 4;
    let mut pad_filter = LowPass::new(1_800.0);
    for (bar_index, &degree) in arr.progression.iter().enumerate() {
        let chord = triad(degree, arr.minor);
        let start = bar_index * bar;
        // Bass: root on beats 1 and 3 plus a pushed eighth.
        for (offset, length) in [
            (0, beat * 2 - eighth),
            (beat * 2, beat),
            (beat * 3 + eighth, eighth),
        ] {
            tone(
                &mut out[start + offset..start + offset + length],
                midi_hz(arr.root_midi + chord[0]),
                0.32,
                Timbre::Bass,
            );
        }
        // Pad: the triad an octave and a half up, slow attack.
        let mut pad = vec![0.0f32; bar];
        for &note in &chord {
            tone(
                &mut pad,
                midi_hz(arr.root_midi + 24 + note),
                0.1,
                Timbre::Pad,
            );
        }
        for (i, s) in pad.into_iter().enumerate() {
            out[start + i] += pad_filter.process(s);
        }
        // Lead: chord tones on eighths, more of them in the B section.
        let density = if section == 1 { 0.75 } else { 0.5 };
        let mut step = 0;
        while step < 8 {
            let hold = if rng.unit() < 0.3 { 2 } else { 1 };
            if rng.unit() < density {
                let note = arr.root_midi
                    + 36
                    + chord[rng.below(3)]
                    + if rng.unit() < 0.2 { 12 } else { 0 };
                let at = start + step * eighth;
                let length = (eighth * hold).min(start + bar - at);
                let timbre = if spec.instrumental {
                    Timbre::Pluck
                } else {
                    Timbre::Voice {
                        female: spec.female_vocals,
                        vowel: rng.below(VOWELS.len()),
                    }
                };
                tone(
                    &mut out[at..at + length],
                    midi_hz(
                        note - if spec.instrumental || spec.female_vocals {
                            0
                        } else {
                            12
                        },
                    ),
                    0.2,
                    timbre,
                );
            }
            step += hold;
        }
    }
    out
}

/// Formants (Hz) of a, e, i, o, u.
pub(crate) const VOWELS: [[f32; 3]; 5] = [
    [730.0, 1090.0, 2440.0],
    [530.0, 1840.0, 2480.0],
    [270.0, 2290.0, 3010.0],
    [570.0, 840.0, 2410.0],
    [300.0, 870.0, 2240.0],
];

#[derive(Debug, Clone, Copy)]
enum Timbre {
    Bass,
    Pad,
    Pluck,
    Voice { female: bool, vowel: usize },
}

/// Adds a note filling `out` (attack, sustain, release by timbre).
fn tone(out: &mut [f32], freq_hz: f32, amplitude: f32, timbre: Timbre) {
    let len = out.len();
    if len == 0 {
        return;
    }
    let step = freq_hz / RATE_HZ as f32;
    let mut phase = 0.0f32;
    let attack = match timbre {
        Timbre::Pad => len / 3,
        Timbre::Voice { .. } => 600,
        _ => 40,
    }
    .min(len / 2)
    .max(1);
    let release = (len / 4).clamp(1, 1500);
    let mut formants = match timbre {
        Timbre::Voice { female, vowel } => {
            let scale = if female { 1.15 } else { 1.0 };
            Some(VOWELS[vowel % VOWELS.len()].map(|f| Resonator::new(f * scale, 90.0)))
        }
        _ => None,
    };
    for (i, sample) in out.iter_mut().enumerate() {
        phase = (phase + step).fract();
        let envelope = if i < attack {
            i as f32 / attack as f32
        } else if i + release > len {
            (len - i) as f32 / release as f32
        } else {
            1.0
        };
        let value = match timbre {
            // Triangle: round and low.
            Timbre::Bass => 1.0 - 4.0 * (phase - 0.5).abs(),
            // Saw, filtered by the caller.
            Timbre::Pad => 2.0 * phase - 1.0,
            Timbre::Pluck => {
                let decay = (-(i as f32) / (RATE_HZ as f32 * 0.18)).exp();
                decay
                    * ((phase * std::f32::consts::TAU).sin()
                        + 0.3 * (phase * 2.0 * std::f32::consts::TAU).sin())
            }
            Timbre::Voice { .. } => {
                let pulse = if phase < 0.1 { 1.0 } else { 0.0 };
                match formants.as_mut() {
                    Some([f1, f2, f3]) => {
                        6.0 * (f1.process(pulse)
                            + 0.6 * f2.process(pulse)
                            + 0.3 * f3.process(pulse))
                    }
                    None => 0.0,
                }
            }
        };
        *sample += amplitude * envelope * value;
    }
}

fn kick(out: &mut [f32], amplitude: f32) {
    let len = out.len().min(samples_for(0.25));
    let mut phase = 0.0f32;
    for (i, sample) in out[..len].iter_mut().enumerate() {
        let t = i as f32 / RATE_HZ as f32;
        let freq = 45.0 + 90.0 * (-t * 30.0).exp();
        phase += freq / RATE_HZ as f32;
        *sample += amplitude * (-t * 14.0).exp() * (phase * std::f32::consts::TAU).sin();
    }
}

fn snare(out: &mut [f32], rng: &mut Rng, amplitude: f32) {
    let len = out.len().min(samples_for(0.18));
    let mut body = Resonator::new(190.0, 60.0);
    for (i, sample) in out[..len].iter_mut().enumerate() {
        let t = i as f32 / RATE_HZ as f32;
        let noise = rng.noise();
        *sample += amplitude * (-t * 22.0).exp() * (0.7 * noise + 4.0 * body.process(noise));
    }
}

fn hat(out: &mut [f32], rng: &mut Rng, amplitude: f32) {
    let len = out.len().min(samples_for(0.05));
    let mut low = LowPass::new(5_000.0);
    for (i, sample) in out[..len].iter_mut().enumerate() {
        let t = i as f32 / RATE_HZ as f32;
        let noise = rng.noise();
        // High-pass: noise minus its low part.
        *sample += amplitude * (-t * 80.0).exp() * (noise - low.process(noise));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(seed: u64) -> MusicSpec<'static> {
        MusicSpec {
            prompt: "a happy summer pop song",
            style: Some("pop"),
            seed,
            duration_secs: 6.0,
            instrumental: false,
            female_vocals: true,
        }
    }

    #[test]
    fn songs_have_the_requested_length_and_differ_by_seed() {
        let a = render_music(&spec(1));
        let b = render_music(&spec(2));
        assert_eq!(a.len(), samples_for(6.0));
        assert_eq!(a, render_music(&spec(1)));
        assert_ne!(a, b);
        assert!(a.iter().all(|s| s.abs() <= 1.0));
        let rms = (a.iter().map(|s| s * s).sum::<f32>() / a.len() as f32).sqrt();
        assert!(rms > 0.05, "{rms}");
    }

    #[test]
    fn words_pick_the_tempo_and_mode() {
        let calm = arrange(&MusicSpec {
            prompt: "calm ambient piano",
            ..spec(3)
        });
        assert!(calm.bpm < 90.0);
        let sad = arrange(&MusicSpec {
            prompt: "a sad song",
            ..spec(3)
        });
        assert!(sad.minor);
    }
}
