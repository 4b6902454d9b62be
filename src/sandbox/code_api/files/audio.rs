//! Audio uploads: MP3 at 128 kbps and 44.1 kHz, as the contract's limits say. The sandbox
//! decodes WAV itself (PCM 8/16/24/32-bit integer and 32/64-bit float, plain or
//! WAVE_FORMAT_EXTENSIBLE) and encodes with LAME, which also resamples. It has no decoder
//! for other audio (MP3, Ogg, FLAC, AAC/M4A…): those are stored unchanged.

use std::fs::File;
use std::io::{BufReader, Read};
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};

use mp3lame_encoder::{Bitrate, Builder, DualPcm, Encoder, FlushNoGap, MonoPcm, Quality};

use super::super::error::{CodeError, CodeResult};

const OUTPUT_SAMPLE_RATE_HZ: u32 = 44_100;
/// Frames converted and encoded at a time, so a long recording never sits in memory as
/// samples.
const FRAMES_PER_BLOCK: usize = 8192;
const FORMAT_PCM: u16 = 1;
const FORMAT_IEEE_FLOAT: u16 = 3;
const FORMAT_EXTENSIBLE: u16 = 0xFFFE;

#[derive(Debug, thiserror::Error)]
pub(super) enum AudioError {
    #[error("the WAV file could not be read: {0}")]
    Wav(String),
    #[error("the MP3 encoder failed: {0}")]
    Encode(String),
}

fn wav(message: impl Into<String>) -> AudioError {
    AudioError::Wav(message.into())
}

fn is_wav(head: &[u8]) -> bool {
    head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WAVE"
}

/// The MP3 to store instead of the upload, or `None` when this audio is kept as it is.
pub(super) async fn transcode_to_mp3(path: &Path, head: &[u8]) -> CodeResult<Option<Vec<u8>>> {
    if !is_wav(head) {
        return Ok(None);
    }
    let path: PathBuf = path.to_owned();
    let encoded = tokio::task::spawn_blocking(move || wav_to_mp3(&path))
        .await
        .map_err(|e| CodeError::server("audio transcoding", e))?;
    match encoded {
        Ok(mp3) => Ok(Some(mp3)),
        Err(error @ AudioError::Wav(_)) => Err(CodeError::validation(error.to_string())),
        Err(error) => Err(CodeError::server("audio transcoding", error)),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WavFormat {
    channels: u16,
    sample_rate_hz: u32,
    bits_per_sample: u16,
    float: bool,
}

impl WavFormat {
    fn bytes_per_frame(self) -> usize {
        usize::from(self.channels) * usize::from(self.bits_per_sample / 8)
    }

    /// One sample in -1..1.
    fn sample(self, bytes: &[u8]) -> f32 {
        match (self.float, self.bits_per_sample) {
            (false, 8) => (f32::from(bytes[0]) - 128.0) / 128.0,
            (false, 16) => f32::from(i16::from_le_bytes([bytes[0], bytes[1]])) / 32_768.0,
            (false, 24) => {
                let value = i32::from_le_bytes([0, bytes[0], bytes[1], bytes[2]]) >> 8;
                value as f32 / 8_388_608.0
            }
            (false, _) => {
                i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f32
                    / 2_147_483_648.0
            }
            (true, 32) => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
            (true, _) => {
                let mut eight = [0u8; 8];
                eight.copy_from_slice(&bytes[..8]);
                f64::from_le_bytes(eight) as f32
            }
        }
    }
}

fn read_u16(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn parse_fmt(chunk: &[u8]) -> Result<WavFormat, AudioError> {
    if chunk.len() < 16 {
        return Err(wav("the fmt chunk is too short"));
    }
    let mut tag = read_u16(chunk, 0);
    if tag == FORMAT_EXTENSIBLE {
        // The sub-format GUID starts with the real format code.
        if chunk.len() < 26 {
            return Err(wav("the extensible fmt chunk is too short"));
        }
        tag = read_u16(chunk, 24);
    }
    let format = WavFormat {
        channels: read_u16(chunk, 2),
        sample_rate_hz: read_u32(chunk, 4),
        bits_per_sample: read_u16(chunk, 14),
        float: tag == FORMAT_IEEE_FLOAT,
    };
    let supported_bits = match tag {
        FORMAT_PCM => matches!(format.bits_per_sample, 8 | 16 | 24 | 32),
        FORMAT_IEEE_FLOAT => matches!(format.bits_per_sample, 32 | 64),
        other => return Err(wav(format!("format code {other} is not PCM or float"))),
    };
    if !supported_bits {
        return Err(wav(format!(
            "{} bits per sample is not supported",
            format.bits_per_sample
        )));
    }
    if format.channels == 0 || format.channels > 32 {
        return Err(wav(format!("{} channels", format.channels)));
    }
    if !(1_000..=384_000).contains(&format.sample_rate_hz) {
        return Err(wav(format!("sample rate {} Hz", format.sample_rate_hz)));
    }
    Ok(format)
}

/// Reads the RIFF header and chunks up to `data`; returns the format and the data length
/// (`None`: up to the end of the file, as streaming writers leave it).
fn read_header(reader: &mut impl Read) -> Result<(WavFormat, Option<u64>), AudioError> {
    let io = |e: std::io::Error| wav(e.to_string());
    let mut riff = [0u8; 12];
    reader.read_exact(&mut riff).map_err(io)?;
    if !is_wav(&riff) {
        return Err(wav("not a RIFF/WAVE file"));
    }
    let mut format = None;
    loop {
        let mut chunk_head = [0u8; 8];
        reader
            .read_exact(&mut chunk_head)
            .map_err(|_| wav("no data chunk"))?;
        let size = read_u32(&chunk_head, 4);
        match &chunk_head[..4] {
            b"fmt " => {
                let mut chunk = vec![0u8; size.min(1024) as usize];
                reader.read_exact(&mut chunk).map_err(io)?;
                skip(
                    reader,
                    u64::from(size) - chunk.len() as u64 + u64::from(size % 2),
                )?;
                format = Some(parse_fmt(&chunk)?);
            }
            b"data" => {
                let format = format.ok_or_else(|| wav("the data chunk comes before fmt"))?;
                let length = (size != u32::MAX && size != 0).then_some(u64::from(size));
                return Ok((format, length));
            }
            _ => skip(reader, u64::from(size) + u64::from(size % 2))?,
        }
    }
}

fn skip(reader: &mut impl Read, bytes: u64) -> Result<(), AudioError> {
    let skipped = std::io::copy(&mut reader.take(bytes), &mut std::io::sink())
        .map_err(|e| wav(e.to_string()))?;
    if skipped < bytes {
        return Err(wav("the file ends inside a chunk"));
    }
    Ok(())
}

fn encoder_for(format: WavFormat) -> Result<Encoder, AudioError> {
    let encode = |e: mp3lame_encoder::BuildError| AudioError::Encode(format!("{e:?}"));
    let mut builder =
        Builder::new().ok_or_else(|| AudioError::Encode("LAME did not start".to_owned()))?;
    builder
        .set_num_channels(if format.channels == 1 { 1 } else { 2 })
        .map_err(encode)?;
    builder
        .set_sample_rate(format.sample_rate_hz)
        .map_err(encode)?;
    builder
        .set_output_sample_rate(NonZeroU32::new(OUTPUT_SAMPLE_RATE_HZ))
        .map_err(encode)?;
    builder.set_brate(Bitrate::Kbps128).map_err(encode)?;
    builder.set_quality(Quality::Good).map_err(encode)?;
    // The Xing/Info frame would need a second pass to fill in; plain CBR frames only.
    builder.set_to_write_vbr_tag(false).map_err(encode)?;
    builder.build().map_err(encode)
}

/// Decodes the WAV at `path` block by block and encodes it as MP3 (stereo sources keep
/// their first two channels, mono stays mono).
fn wav_to_mp3(path: &Path) -> Result<Vec<u8>, AudioError> {
    let file = File::open(path).map_err(|e| wav(e.to_string()))?;
    let mut reader = BufReader::new(file);
    let (format, data_length) = read_header(&mut reader)?;
    let mut data: Box<dyn Read> = match data_length {
        Some(length) => Box::new(reader.take(length)),
        None => Box::new(reader),
    };
    let mut encoder = encoder_for(format)?;
    let frame_bytes = format.bytes_per_frame();
    let sample_bytes = usize::from(format.bits_per_sample / 8);
    let mut block = vec![0u8; frame_bytes * FRAMES_PER_BLOCK];
    let mut left = Vec::with_capacity(FRAMES_PER_BLOCK);
    let mut right = Vec::with_capacity(FRAMES_PER_BLOCK);
    let mut mp3 = Vec::new();
    let encode_error = |e: mp3lame_encoder::EncodeError| AudioError::Encode(format!("{e:?}"));
    loop {
        let filled = read_full(&mut data, &mut block)?;
        let frames = filled / frame_bytes;
        if frames == 0 {
            break;
        }
        left.clear();
        right.clear();
        for frame in block[..frames * frame_bytes].chunks_exact(frame_bytes) {
            left.push(format.sample(&frame[..sample_bytes]));
            if format.channels > 1 {
                right.push(format.sample(&frame[sample_bytes..2 * sample_bytes]));
            }
        }
        mp3.reserve(mp3lame_encoder::max_required_buffer_size(frames));
        if format.channels == 1 {
            encoder
                .encode_to_vec(MonoPcm(left.as_slice()), &mut mp3)
                .map_err(encode_error)?;
        } else {
            encoder
                .encode_to_vec(
                    DualPcm {
                        left: left.as_slice(),
                        right: right.as_slice(),
                    },
                    &mut mp3,
                )
                .map_err(encode_error)?;
        }
        if filled < block.len() {
            break;
        }
    }
    // LAME asks for at least 7200 bytes for the final frames.
    mp3.reserve(7200);
    encoder
        .flush_to_vec::<FlushNoGap>(&mut mp3)
        .map_err(encode_error)?;
    if mp3.is_empty() {
        return Err(wav("the file holds no samples"));
    }
    Ok(mp3)
}

/// Fills `buffer` unless the input ends first; returns how many bytes were read.
fn read_full(reader: &mut impl Read, buffer: &mut [u8]) -> Result<usize, AudioError> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(wav(error.to_string())),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 16-bit PCM WAV of a sine tone.
    fn sine_wav(channels: u16, sample_rate_hz: u32, seconds: f32) -> Vec<u8> {
        let frames = (sample_rate_hz as f32 * seconds) as u32;
        let data_len = frames * u32::from(channels) * 2;
        let mut out = Vec::new();
        out.extend_from_slice(b"RIFF");
        out.extend_from_slice(&(36 + data_len).to_le_bytes());
        out.extend_from_slice(b"WAVEfmt ");
        out.extend_from_slice(&16u32.to_le_bytes());
        out.extend_from_slice(&FORMAT_PCM.to_le_bytes());
        out.extend_from_slice(&channels.to_le_bytes());
        out.extend_from_slice(&sample_rate_hz.to_le_bytes());
        out.extend_from_slice(&(sample_rate_hz * u32::from(channels) * 2).to_le_bytes());
        out.extend_from_slice(&(channels * 2).to_le_bytes());
        out.extend_from_slice(&16u16.to_le_bytes());
        out.extend_from_slice(b"data");
        out.extend_from_slice(&data_len.to_le_bytes());
        for n in 0..frames {
            let value = ((n as f32 * 440.0 * std::f32::consts::TAU / sample_rate_hz as f32).sin()
                * 12_000.0) as i16;
            for _ in 0..channels {
                out.extend_from_slice(&value.to_le_bytes());
            }
        }
        out
    }

    #[test]
    fn wav_becomes_128_kbps_mp3_at_44_1_khz() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("tone.wav");
        std::fs::write(&path, sine_wav(2, 48_000, 1.0)).expect("write");
        let mp3 = wav_to_mp3(&path).expect("encodes");
        // First frame header: sync, MPEG-1 Layer III, bitrate index 9 (128 kbps), 44.1 kHz.
        assert_eq!(mp3[0], 0xFF);
        assert_eq!(mp3[1] & 0xFE, 0xFA);
        assert_eq!(mp3[2] >> 4, 9);
        assert_eq!((mp3[2] >> 2) & 0b11, 0);
        // About one second at 128 kbps.
        assert!((14_000..20_000).contains(&mp3.len()), "{}", mp3.len());
    }

    #[test]
    fn broken_wavs_are_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("broken.wav");
        let mut bytes = sine_wav(1, 44_100, 0.1);
        bytes.truncate(30);
        std::fs::write(&path, bytes).expect("write");
        assert!(matches!(wav_to_mp3(&path), Err(AudioError::Wav(_))));
    }
}
