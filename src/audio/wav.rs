//! "Save as WAV": 16-bit PCM RIFF/WAVE from any [`SampleSource`].

use std::io::Write;

use super::{AudioError, SampleSource};

/// The largest data chunk a RIFF file can describe.
const MAX_DATA_BYTES: u64 = u32::MAX as u64 - 36;

/// Decodes all of `source` (from where it stands) and writes it to `out` as a 16-bit PCM
/// WAV at the source's rate and channel count. The samples are gathered first (the
/// header carries the data size and `out` need not seek): 10 minutes of stereo at
/// 48 kHz is 115 MB.
pub fn encode_wav(source: &mut dyn SampleSource, out: &mut impl Write) -> Result<(), AudioError> {
    let channels = source.channels().clamp(1, 2);
    let rate_hz = source.sample_rate_hz().max(1);
    let mut pcm: Vec<u8> = Vec::new();
    if let Some(d) = source.duration_secs() {
        let estimate = (d * rate_hz as f64) as u64 * channels as u64 * 2;
        pcm.reserve(estimate.min(MAX_DATA_BYTES) as usize);
    }
    let mut block = vec![0f32; 4096 * channels as usize];
    loop {
        let n = source.read(&mut block)?;
        if n == 0 {
            break;
        }
        if pcm.len() as u64 + n as u64 * 2 > MAX_DATA_BYTES {
            return Err(AudioError::Unsupported(
                "the sound is too long for a WAV file (over 4 GB)".into(),
            ));
        }
        for &s in &block[..n] {
            pcm.extend_from_slice(&to_i16(s).to_le_bytes());
        }
    }
    write_wav_header(out, rate_hz, channels, pcm.len() as u32)?;
    out.write_all(&pcm)?;
    out.flush()?;
    Ok(())
}

fn to_i16(s: f32) -> i16 {
    let s = if s.is_finite() {
        s.clamp(-1.0, 1.0)
    } else {
        0.0
    };
    (s * 32767.0).round() as i16
}

/// The 44-byte header of a 16-bit PCM WAV whose data is `data_bytes` long.
pub fn write_wav_header(
    out: &mut impl Write,
    rate_hz: u32,
    channels: u16,
    data_bytes: u32,
) -> std::io::Result<()> {
    let block_align = channels * 2;
    let mut header = Vec::with_capacity(44);
    header.extend_from_slice(b"RIFF");
    header.extend_from_slice(&(36u32.saturating_add(data_bytes)).to_le_bytes());
    header.extend_from_slice(b"WAVEfmt ");
    header.extend_from_slice(&16u32.to_le_bytes());
    header.extend_from_slice(&1u16.to_le_bytes()); // PCM
    header.extend_from_slice(&channels.to_le_bytes());
    header.extend_from_slice(&rate_hz.to_le_bytes());
    header.extend_from_slice(&(rate_hz * block_align as u32).to_le_bytes());
    header.extend_from_slice(&block_align.to_le_bytes());
    header.extend_from_slice(&16u16.to_le_bytes());
    header.extend_from_slice(b"data");
    header.extend_from_slice(&data_bytes.to_le_bytes());
    out.write_all(&header)
}
