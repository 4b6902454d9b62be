//! Test sounds made on the spot (tests and benches of any module may use these): sines
//! and tone sequences as MP3 (LAME) or 16-bit WAV bytes.

use mp3lame_encoder::{Bitrate, Builder, DualPcm, FlushNoGap, MonoPcm, Quality};

use super::wav::write_wav_header;

/// `secs` of a `freq_hz` sine at `amplitude`, mono, as f32.
pub fn sine(secs: f64, freq_hz: f64, rate_hz: u32, amplitude: f32) -> Vec<f32> {
    let n = (secs * rate_hz as f64).round() as usize;
    (0..n)
        .map(|i| {
            let t = i as f64 / rate_hz as f64;
            amplitude * (2.0 * std::f64::consts::PI * freq_hz * t).sin() as f32
        })
        .collect()
}

/// Consecutive tones, one per `(secs, freq_hz)`, mono (sample content tells the time).
pub fn tones(segments: &[(f64, f64)], rate_hz: u32, amplitude: f32) -> Vec<f32> {
    let mut out = Vec::new();
    for &(secs, freq) in segments {
        out.extend(sine(secs, freq, rate_hz, amplitude));
    }
    out
}

fn to_i16(s: f32) -> i16 {
    (s.clamp(-1.0, 1.0) * 32767.0).round() as i16
}

/// Interleaved samples (`channels` 1 or 2) as a 16-bit PCM WAV file's bytes.
pub fn wav_bytes(samples: &[f32], rate_hz: u32, channels: u16) -> Vec<u8> {
    let mut out = Vec::with_capacity(44 + samples.len() * 2);
    // Writing to a Vec cannot fail.
    let _ = write_wav_header(&mut out, rate_hz, channels, (samples.len() * 2) as u32);
    for &s in samples {
        out.extend_from_slice(&to_i16(s).to_le_bytes());
    }
    out
}

/// Interleaved samples (`channels` 1 or 2) as CBR MP3 bytes at `kbps` (LAME, no Xing
/// frame). Panics on an encoder error: for tests and benches only.
pub fn mp3_bytes(samples: &[f32], rate_hz: u32, channels: u16, kbps: u32) -> Vec<u8> {
    let mut builder = Builder::new().expect("LAME builder");
    builder
        .set_num_channels(if channels == 1 { 1 } else { 2 })
        .expect("channels");
    builder.set_sample_rate(rate_hz).expect("rate");
    let bitrate = match kbps {
        0..=64 => Bitrate::Kbps64,
        65..=96 => Bitrate::Kbps96,
        97..=128 => Bitrate::Kbps128,
        129..=192 => Bitrate::Kbps192,
        _ => Bitrate::Kbps320,
    };
    builder.set_brate(bitrate).expect("bitrate");
    builder.set_quality(Quality::Good).expect("quality");
    builder.set_to_write_vbr_tag(false).expect("vbr tag");
    let mut encoder = builder.build().expect("LAME");
    let mut mp3 = Vec::new();
    let block = 1152 * 16;
    if channels == 1 {
        for chunk in samples.chunks(block) {
            let pcm: Vec<i16> = chunk.iter().map(|&s| to_i16(s)).collect();
            mp3.reserve(mp3lame_encoder::max_required_buffer_size(pcm.len()));
            encoder
                .encode_to_vec(MonoPcm(pcm.as_slice()), &mut mp3)
                .expect("encode");
        }
    } else {
        for chunk in samples.chunks(block * 2) {
            let left: Vec<i16> = chunk.iter().step_by(2).map(|&s| to_i16(s)).collect();
            let right: Vec<i16> = chunk
                .iter()
                .skip(1)
                .step_by(2)
                .map(|&s| to_i16(s))
                .collect();
            mp3.reserve(mp3lame_encoder::max_required_buffer_size(left.len()));
            encoder
                .encode_to_vec(
                    DualPcm {
                        left: &left,
                        right: &right,
                    },
                    &mut mp3,
                )
                .expect("encode");
        }
    }
    mp3.reserve(7200);
    encoder.flush_to_vec::<FlushNoGap>(&mut mp3).expect("flush");
    mp3
}

/// Estimated frequency of a mono signal (zero crossings), for checking which tone plays.
pub fn frequency_hz(samples: &[f32], rate_hz: u32) -> f64 {
    if samples.len() < 2 {
        return 0.0;
    }
    let crossings = samples
        .windows(2)
        .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
        .count();
    crossings as f64 / 2.0 / (samples.len() as f64 / rate_hz as f64)
}

/// Root mean square.
pub fn rms(samples: &[f32]) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    (samples.iter().map(|s| s * s).sum::<f32>() / samples.len() as f32).sqrt()
}

/// The left channel of interleaved stereo.
pub fn left(interleaved: &[f32]) -> Vec<f32> {
    interleaved.iter().step_by(2).copied().collect()
}
