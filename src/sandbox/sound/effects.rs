//! Sound effects shaped by the prompt's words: rumble (explosion, thunder, engine), a
//! noise sweep (whoosh, wind), clicks (footsteps, clock, typing), tones (laser, beep,
//! alarm, chime) and water (rain, waves). A prompt naming none gets two layers picked by
//! the seed. `looped`: the tail is cross-faded into the head, so the end meets the start.

use super::{
    LowPass, RATE_HZ, Resonator, Rng, fade_edges, mentions, normalize, prompt_words, samples_for,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layer {
    Rumble,
    Sweep,
    Clicks,
    Tone,
    Water,
}

const RUMBLE: &[&str] = &[
    "explo",
    "boom",
    "thunder",
    "rumbl",
    "earthquake",
    "engine",
    "crash",
    "bang",
    "blast",
    "motor",
    "truck",
];
const SWEEP: &[&str] = &[
    "whoosh",
    "swoosh",
    "wind",
    "swipe",
    "sweep",
    "riser",
    "transition",
    "air",
    "swish",
    "breeze",
];
const CLICKS: &[&str] = &[
    "click", "tick", "clock", "footstep", "step", "knock", "tap", "typing", "keyboard", "heel",
    "walk",
];
const TONE: &[&str] = &[
    "laser",
    "zap",
    "beep",
    "alarm",
    "siren",
    "sci",
    "notification",
    "chime",
    "bell",
    "ding",
    "ui",
    "robot",
];
const WATER: &[&str] = &[
    "rain", "water", "ocean", "wave", "stream", "river", "splash", "drip", "sea", "storm",
];

/// The layers a prompt asks for (at most three), else two chosen by the seed.
pub(crate) fn layers_for(prompt: &str, seed: u64) -> Vec<Layer> {
    let words = prompt_words(prompt);
    let mut layers: Vec<Layer> = [
        (Layer::Rumble, RUMBLE),
        (Layer::Sweep, SWEEP),
        (Layer::Clicks, CLICKS),
        (Layer::Tone, TONE),
        (Layer::Water, WATER),
    ]
    .into_iter()
    .filter(|(_, stems)| mentions(&words, stems))
    .map(|(layer, _)| layer)
    .take(3)
    .collect();
    if layers.is_empty() {
        const ALL: [Layer; 5] = [
            Layer::Rumble,
            Layer::Sweep,
            Layer::Clicks,
            Layer::Tone,
            Layer::Water,
        ];
        let mut rng = Rng::new(seed);
        let first = rng.below(ALL.len());
        layers.push(ALL[first]);
        layers.push(ALL[(first + 1 + rng.below(ALL.len() - 1)) % ALL.len()]);
    }
    layers
}

/// The length an effect gets when the request leaves `duration` out ("automatic"): short
/// hits for hits, longer beds for ambience, 1.5-6 s.
pub(crate) fn automatic_duration_secs(prompt: &str, seed: u64) -> f64 {
    let words = prompt_words(prompt);
    let mut rng = Rng::new(seed ^ 0xD0);
    let (low, high) = if mentions(
        &words,
        &[
            "ambien", "rain", "wind", "ocean", "wave", "engine", "crowd", "forest", "room", "loop",
        ],
    ) {
        (4.0, 6.0)
    } else if mentions(
        &words,
        &[
            "click",
            "beep",
            "ding",
            "zap",
            "knock",
            "tap",
            "notification",
            "ui",
        ],
    ) {
        (1.5, 2.0)
    } else {
        (2.0, 4.0)
    };
    (f64::from(rng.between(low, high)) * 10.0).round() / 10.0
}

/// Renders exactly `duration_secs` of the effect.
pub(crate) fn render_effect(prompt: &str, seed: u64, duration_secs: f64, looped: bool) -> Vec<f32> {
    let total = samples_for(duration_secs).max(1);
    let crossfade = if looped {
        samples_for((duration_secs * 0.2).min(0.5))
    } else {
        0
    };
    let length = total + crossfade;
    let mut out = vec![0.0f32; length];
    let mut rng = Rng::new(seed);
    for (index, layer) in layers_for(prompt, seed).into_iter().enumerate() {
        let gain = if index == 0 { 1.0 } else { 0.6 };
        let mut buffer = vec![0.0f32; length];
        match layer {
            Layer::Rumble => rumble(&mut buffer, &mut rng, looped),
            Layer::Sweep => sweep(&mut buffer, &mut rng, looped),
            Layer::Clicks => clicks(&mut buffer, &mut rng),
            Layer::Tone => tones(&mut buffer, &mut rng),
            Layer::Water => water(&mut buffer, &mut rng),
        }
        normalize(&mut buffer, 1.0);
        for (o, b) in out.iter_mut().zip(buffer) {
            *o += gain * b;
        }
    }
    if looped && crossfade > 0 {
        for i in 0..crossfade {
            let w = i as f32 / crossfade as f32;
            out[i] = out[i] * w + out[total + i] * (1.0 - w);
        }
        out.truncate(total);
    } else {
        fade_edges(&mut out, 0.005, 0.05_f64.min(duration_secs / 4.0));
    }
    normalize(&mut out, 0.89);
    out
}

fn secs(i: usize) -> f32 {
    i as f32 / RATE_HZ as f32
}

fn rumble(out: &mut [f32], rng: &mut Rng, sustained: bool) {
    let len = out.len() as f32;
    let mut low = LowPass::new(140.0);
    let mut lower = LowPass::new(60.0);
    let throb = rng.between(6.0, 30.0);
    for (i, s) in out.iter_mut().enumerate() {
        let t = secs(i);
        let envelope = if sustained {
            0.7 + 0.3 * (std::f32::consts::TAU * throb * t).sin()
        } else {
            (-4.0 * i as f32 / len).exp() * (1.0 - (-t * 200.0).exp())
        };
        *s = envelope
            * (lower.process(low.process(rng.noise())) * 6.0 + 0.3 * low.process(rng.noise()));
    }
}

fn sweep(out: &mut [f32], rng: &mut Rng, looped: bool) {
    let len = out.len().max(1) as f32;
    let (from, to) = if rng.unit() < 0.5 {
        (250.0, 3_500.0)
    } else {
        (3_000.0, 300.0)
    };
    let mut band = Resonator::new(from, 400.0);
    for (i, s) in out.iter_mut().enumerate() {
        let x = i as f32 / len;
        let centre = from * (to / from).powf(x);
        if i % 64 == 0 {
            band.tune(centre, centre * 0.5);
        }
        let envelope = if looped {
            0.6 + 0.4 * (std::f32::consts::TAU * x * 2.0).sin().abs()
        } else {
            (std::f32::consts::PI * x).sin()
        };
        *s = envelope * band.process(rng.noise());
    }
}

fn clicks(out: &mut [f32], rng: &mut Rng) {
    let interval = rng.between(0.12, 0.55);
    let mut at = rng.between(0.02, 0.1);
    let len = out.len();
    let mut body = Resonator::new(rng.between(600.0, 2_400.0), 300.0);
    while samples_for(f64::from(at)) < len {
        let start = samples_for(f64::from(at));
        let click_len = samples_for(0.04).min(len - start);
        let amplitude = rng.between(0.6, 1.0);
        for i in 0..click_len {
            let t = secs(i);
            let noise = rng.noise();
            out[start + i] +=
                amplitude * (-t * 120.0).exp() * (0.4 * noise + 3.0 * body.process(noise));
        }
        at += interval * rng.between(0.8, 1.2);
    }
}

fn tones(out: &mut [f32], rng: &mut Rng) {
    let base = rng.between(400.0, 1_400.0);
    let beep_secs = rng.between(0.08, 0.4);
    let gap_secs = rng.between(0.05, 0.3);
    let falling = rng.unit() < 0.5;
    let mut phase = 0.0f32;
    let period = beep_secs + gap_secs;
    for (i, s) in out.iter_mut().enumerate() {
        let t = secs(i);
        let within = t % period;
        if within > beep_secs {
            continue;
        }
        let x = within / beep_secs;
        let freq = if falling {
            base * (2.0 - x)
        } else {
            base * (1.0 + 0.5 * x)
        };
        phase = (phase + freq / RATE_HZ as f32).fract();
        let envelope = (x * 20.0).min(1.0) * ((1.0 - x) * 10.0).min(1.0);
        *s = envelope * (phase * std::f32::consts::TAU).sin();
    }
}

fn water(out: &mut [f32], rng: &mut Rng) {
    let mut low = LowPass::new(1_200.0);
    let swell = rng.between(0.08, 0.2);
    for (i, s) in out.iter_mut().enumerate() {
        let t = secs(i);
        let noise = rng.noise();
        // Drops: sparse crackle over a swelling wash.
        let drop = if rng.unit() < 0.002 {
            rng.noise() * 2.0
        } else {
            0.0
        };
        let wash = 0.55 + 0.45 * (std::f32::consts::TAU * swell * t).sin();
        *s = wash * low.process(noise) * 2.0 + drop;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effects_are_shaped_by_words_and_loops_meet_their_start() {
        assert_eq!(layers_for("a huge explosion", 1), vec![Layer::Rumble]);
        assert_eq!(
            layers_for("footsteps in the rain", 1),
            vec![Layer::Clicks, Layer::Water]
        );
        assert_eq!(layers_for("something odd", 9).len(), 2);
        let looped = render_effect("wind through trees", 4, 2.0, true);
        assert_eq!(looped.len(), samples_for(2.0));
        let jump = (looped[looped.len() - 1] - looped[0]).abs();
        assert!(jump < 0.3, "{jump}");
        let auto = automatic_duration_secs("a door knock", 1);
        assert!((1.5..=2.0).contains(&auto));
    }
}
