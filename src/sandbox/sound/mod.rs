//! The sandbox's own sound: procedural music, speech and sound effects, deterministic per
//! seed, encoded as MP3 (LAME) or WAV with a "SANDBOX" title tag. It shares no code with
//! `crate::audio` (the studio's player) on purpose, like the rest of the sandbox.
//!
//! Everything renders mono at [`RATE_HZ`]: cheap enough in a debug build (a 4-minute song
//! renders two 4-bar cycles and tiles them) and plenty for a stand-in service.

pub(crate) mod effects;
pub(crate) mod encode;
pub(crate) mod music;
pub(crate) mod probe;
pub(crate) mod speech;
pub(crate) mod transcript;
pub(crate) mod voices;

/// Sample rate of every rendered sound.
pub(crate) const RATE_HZ: u32 = 22_050;

/// A word of rendered speech and when it is heard.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct TimedWord {
    pub text: String,
    pub start_secs: f64,
    pub end_secs: f64,
}

/// Samples for `secs` seconds at [`RATE_HZ`].
pub(crate) fn samples_for(secs: f64) -> usize {
    (secs.max(0.0) * f64::from(RATE_HZ)).round() as usize
}

/// splitmix64: small, fast and the same on every platform.
#[derive(Debug, Clone)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..1.
    pub(crate) fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in -1..1 (white noise).
    pub(crate) fn noise(&mut self) -> f32 {
        self.unit() * 2.0 - 1.0
    }

    /// Uniform in 0..n (0 when n is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    pub(crate) fn between(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }
}

/// A two-pole resonator (band-pass) at `freq_hz` with bandwidth `bandwidth_hz`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Resonator {
    a1: f32,
    a2: f32,
    gain: f32,
    y1: f32,
    y2: f32,
}

impl Resonator {
    pub(crate) fn new(freq_hz: f32, bandwidth_hz: f32) -> Self {
        let mut r = Resonator::default();
        r.tune(freq_hz, bandwidth_hz);
        r
    }

    /// Changes the centre and width, keeping the filter's state (sweeps).
    pub(crate) fn tune(&mut self, freq_hz: f32, bandwidth_hz: f32) {
        let rate = RATE_HZ as f32;
        let freq = freq_hz.clamp(20.0, rate * 0.45);
        let radius = (-std::f32::consts::PI * bandwidth_hz.max(10.0) / rate).exp();
        self.a1 = 2.0 * radius * (std::f32::consts::TAU * freq / rate).cos();
        self.a2 = -radius * radius;
        self.gain = 1.0 - radius;
    }

    pub(crate) fn process(&mut self, x: f32) -> f32 {
        let y = self.gain * x + self.a1 * self.y1 + self.a2 * self.y2;
        self.y2 = self.y1;
        self.y1 = y;
        y
    }
}

/// A one-pole low-pass.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LowPass {
    alpha: f32,
    y: f32,
}

impl LowPass {
    pub(crate) fn new(cutoff_hz: f32) -> Self {
        let mut f = LowPass::default();
        f.set(cutoff_hz);
        f
    }

    pub(crate) fn set(&mut self, cutoff_hz: f32) {
        let dt = 1.0 / RATE_HZ as f32;
        let rc = 1.0 / (std::f32::consts::TAU * cutoff_hz.max(1.0));
        self.alpha = dt / (rc + dt);
    }

    pub(crate) fn process(&mut self, x: f32) -> f32 {
        self.y += self.alpha * (x - self.y);
        self.y
    }
}

/// Scales `samples` so the loudest peak is `target` (silence stays silence).
pub(crate) fn normalize(samples: &mut [f32], target: f32) {
    let peak = samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
    if peak > 1e-6 {
        let gain = target / peak;
        samples.iter_mut().for_each(|s| *s *= gain);
    }
}

/// Linear fades at both ends.
pub(crate) fn fade_edges(samples: &mut [f32], fade_in_secs: f64, fade_out_secs: f64) {
    let len = samples.len();
    let fade_in = samples_for(fade_in_secs).min(len / 2);
    let fade_out = samples_for(fade_out_secs).min(len / 2);
    for (i, sample) in samples.iter_mut().take(fade_in).enumerate() {
        *sample *= i as f32 / fade_in as f32;
    }
    for (i, sample) in samples.iter_mut().rev().take(fade_out).enumerate() {
        *sample *= i as f32 / fade_out as f32;
    }
}

/// A stable 64-bit seed from a generation's i64 seed and a salt.
pub(crate) fn mix_seed(seed: i64, salt: u64) -> u64 {
    let mut rng = Rng::new((seed as u64) ^ salt.wrapping_mul(0xD6E8_FEB8_6659_FD93));
    rng.next_u64()
}

/// Lower-case words of a prompt (letters and digits only).
pub(crate) fn prompt_words(prompt: &str) -> Vec<String> {
    prompt
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether any word of `words` starts with one of `stems` ("footsteps" matches "footstep").
pub(crate) fn mentions(words: &[String], stems: &[&str]) -> bool {
    words
        .iter()
        .any(|w| stems.iter().any(|stem| w.starts_with(stem)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_deterministic_and_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..1000 {
            let x = a.unit();
            assert_eq!(x, b.unit());
            assert!((0.0..1.0).contains(&x));
        }
    }
}

/// The seeded library's audio file (assets/sandbox-seed/track.mp3): ten seconds of
/// instrumental music. Shipped rather than rendered at every start (rendering and encoding
/// it costs ~150 ms in a debug build, paid by every test sandbox); `write_seed_track`
/// below regenerates it.
pub(crate) const SEED_TRACK_SECS: f64 = 10.0;
#[cfg(test)]
const SEED_TRACK_TITLE: &str = "Seed track · SANDBOX";

/// Renders the seeded track.
#[cfg(test)]
fn render_seed_track() -> Result<Vec<u8>, String> {
    let samples = music::render_music(&music::MusicSpec {
        prompt: "seed track, bright pop groove",
        style: Some("pop"),
        seed: 2026,
        duration_secs: SEED_TRACK_SECS,
        instrumental: true,
        female_vocals: false,
    });
    let tags = encode::Tags {
        title: SEED_TRACK_TITLE.to_owned(),
        words: None,
    };
    encode::encode(&samples, &tags, encode::AudioFormat::Mp3)
}

#[cfg(test)]
mod timing {
    #[test]
    #[ignore = "writes assets/sandbox-seed/track.mp3: cargo test --lib write_seed_track -- --ignored"]
    fn write_seed_track() {
        let bytes = super::render_seed_track().expect("renders");
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/sandbox-seed/track.mp3");
        std::fs::write(path, bytes).expect("writes");
    }

    #[test]
    #[ignore = "prints render timings"]
    fn print_render_timings() {
        use std::time::Instant;
        let t = Instant::now();
        let song = super::music::render_music(&super::music::MusicSpec {
            prompt: "pop song",
            style: None,
            seed: 1,
            duration_secs: 120.0,
            instrumental: false,
            female_vocals: true,
        });
        let render = t.elapsed();
        let mp3 = super::encode::encode(
            &song,
            &super::encode::Tags {
                title: "SANDBOX".into(),
                words: None,
            },
            super::encode::AudioFormat::Mp3,
        )
        .unwrap();
        println!(
            "music 120 s: render {:?}, +encode {:?}, {} bytes",
            render,
            t.elapsed(),
            mp3.len()
        );
        let t = Instant::now();
        let s = super::speech::render_speech(
            &"Hello there, this is a test of speech. ".repeat(20),
            super::voices::VOICES[0].shape(),
            3,
        );
        println!("speech {} s: {:?}", s.samples.len() / 22050, t.elapsed());
        let t = Instant::now();
        let e = super::effects::render_effect("explosion and wind", 3, 22.0, true);
        println!("effect {} s: {:?}", e.len() / 22050, t.elapsed());
        let t = Instant::now();
        let short = super::music::render_music(&super::music::MusicSpec {
            prompt: "pop song",
            style: None,
            seed: 1,
            duration_secs: 8.0,
            instrumental: true,
            female_vocals: true,
        });
        let mp3 = super::encode::encode(
            &short,
            &super::encode::Tags {
                title: "SANDBOX".into(),
                words: None,
            },
            super::encode::AudioFormat::Mp3,
        )
        .unwrap();
        println!("music 8 s + encode: {:?} {} bytes", t.elapsed(), mp3.len());
    }
}
