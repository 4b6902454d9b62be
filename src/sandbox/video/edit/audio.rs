//! Sound in and out of an edit: finding and decoding a source's Opus track (only the
//! sandbox's own files carry one) and encoding mono 48-kHz PCM to Opus for the muxer.

use opus_rs::{Application, OpusDecoder, OpusEncoder};

use super::super::VideoError;
use super::super::mp4::{OPUS_TIMESCALE, OpusTrack};

/// Opus always runs at 48 kHz in MP4.
pub(in crate::sandbox::video) const SAMPLE_RATE_HZ: u32 = OPUS_TIMESCALE;
/// 20-ms frames, the usual Opus packet length.
const FRAME_SAMPLES: usize = 960;
/// Mono at 64 kbit/s: tones and noise come through clean, files stay small.
const BITRATE_BPS: i32 = 64_000;
/// What libopus (and opus-rs, a port) delays its output by at 48 kHz outside low-delay
/// mode: 2.5 ms of CELT overlap plus 4 ms of delay compensation. Written as `PreSkip`.
const PRE_SKIP_SAMPLES: u16 = 312;
/// A 60-ms 48-kHz stereo packet is the largest a decoder must accept.
const MAX_DECODED_SAMPLES: usize = 2880 * 2;

/// `n` samples for `secs` seconds of audio.
pub(in crate::sandbox::video) fn samples_for_secs(secs: f64) -> usize {
    if secs.is_finite() && secs > 0.0 {
        (secs * f64::from(SAMPLE_RATE_HZ)).round() as usize
    } else {
        0
    }
}

/// Parses the MP4 the way the video demuxer does (box walk first, panics caught), since
/// `re_mp4` trusts its input. `None` when it cannot be read.
fn parse(mp4: &[u8]) -> Option<re_mp4::Mp4> {
    let mut cursor = std::io::Cursor::new(mp4);
    crate::video_codec::demux::preflight(&mut cursor, mp4.len() as u64).ok()?;
    std::panic::catch_unwind(|| re_mp4::Mp4::read_bytes(mp4))
        .ok()?
        .ok()
}

/// Samples (byte ranges) of the first Opus audio track.
fn opus_packets(mp4: &[u8]) -> Option<Vec<std::ops::Range<usize>>> {
    let parsed = parse(mp4)?;
    let track = parsed.tracks().values().find(|track| {
        let trak = track.trak(&parsed);
        trak.mdia.hdlr.handler_type.value == *b"soun"
            && matches!(
                &trak.mdia.minf.stbl.stsd.contents,
                re_mp4::StsdBoxContent::Unknown(fourcc) if fourcc.value == *b"Opus"
            )
    })?;
    Some(
        track
            .samples
            .iter()
            .map(|s| s.offset as usize..(s.offset + s.size) as usize)
            .collect(),
    )
}

/// Whether the file has an audio track of any codec.
pub(super) fn has_audio_track(mp4: &[u8]) -> bool {
    parse(mp4).is_some_and(|parsed| {
        parsed
            .tracks()
            .values()
            .any(|track| track.trak(&parsed).mdia.hdlr.handler_type.value == *b"soun")
    })
}

/// `PreSkip` of the file's `dOps` box (a fixed 19-byte box, found by its header), else the
/// value our encoder writes.
fn pre_skip(mp4: &[u8]) -> usize {
    let header = [0, 0, 0, 19, b'd', b'O', b'p', b's'];
    mp4.windows(8)
        .position(|w| w == header)
        .and_then(|at| mp4.get(at + 10..at + 12))
        .map_or(usize::from(PRE_SKIP_SAMPLES), |b| {
            usize::from(u16::from_be_bytes([b[0], b[1]]))
        })
}

/// The source's own sound as mono 48-kHz PCM (pre-skip dropped), `None` without an Opus
/// track. Other codecs (AAC from elsewhere) are not decoded: edits then treat the source as
/// silent.
pub(in crate::sandbox::video) fn decode_source_audio(
    mp4: &[u8],
) -> Result<Option<Vec<f32>>, VideoError> {
    let Some(packets) = opus_packets(mp4) else {
        return Ok(None);
    };
    let mut decoder = OpusDecoder::new(SAMPLE_RATE_HZ as i32, 1)
        .map_err(|e| VideoError::Audio(format!("could not start the Opus decoder: {e}")))?;
    let mut pcm = Vec::with_capacity(packets.len() * FRAME_SAMPLES);
    let mut buffer = vec![0f32; MAX_DECODED_SAMPLES];
    for (index, range) in packets.into_iter().enumerate() {
        let packet = mp4.get(range).ok_or_else(|| {
            VideoError::Source(format!("audio packet {index} lies outside the file"))
        })?;
        let n = decoder
            .decode(packet, MAX_DECODED_SAMPLES / 2, &mut buffer)
            .map_err(|e| VideoError::Audio(format!("audio packet {index} is not Opus: {e}")))?;
        pcm.extend_from_slice(&buffer[..n.min(buffer.len())]);
    }
    let skip = pre_skip(mp4).min(pcm.len());
    pcm.drain(..skip);
    Ok(Some(pcm))
}

/// Encodes mono 48-kHz PCM (about ±1.0) as Opus, long enough that after `PreSkip` the
/// decoder gives back at least `pcm.len()` samples.
pub(in crate::sandbox::video) fn encode_opus(pcm: &[f32]) -> Result<OpusTrack, VideoError> {
    let mut encoder = OpusEncoder::new(SAMPLE_RATE_HZ as i32, 1, Application::Audio)
        .map_err(|e| VideoError::Audio(format!("could not start the Opus encoder: {e}")))?;
    encoder.bitrate_bps = BITRATE_BPS;
    encoder.complexity = 5;
    let total = pcm.len() + usize::from(PRE_SKIP_SAMPLES);
    let frames = total.div_ceil(FRAME_SAMPLES).max(1);
    let mut packets = Vec::with_capacity(frames);
    let mut input = vec![0f32; FRAME_SAMPLES];
    let mut out = vec![0u8; 4000];
    for frame in 0..frames {
        let start = frame * FRAME_SAMPLES;
        input.fill(0.0);
        if start < pcm.len() {
            let end = (start + FRAME_SAMPLES).min(pcm.len());
            input[..end - start].copy_from_slice(&pcm[start..end]);
        }
        let len = encoder
            .encode(&input, FRAME_SAMPLES, &mut out)
            .map_err(|e| VideoError::Audio(format!("Opus encoding failed: {e}")))?;
        packets.push(out[..len].to_vec());
    }
    Ok(OpusTrack {
        channels: 1,
        pre_skip: PRE_SKIP_SAMPLES,
        samples_per_packet: FRAME_SAMPLES as u32,
        packets,
    })
}

/// `pcm` cut or padded with silence to exactly `len` samples.
pub(super) fn fit_length(mut pcm: Vec<f32>, len: usize) -> Vec<f32> {
    pcm.resize(len, 0.0);
    pcm
}

/// Root-mean-square level, for tests and for "is there anything to keep".
#[cfg(test)]
pub(super) fn rms(pcm: &[f32]) -> f32 {
    if pcm.is_empty() {
        return 0.0;
    }
    (pcm.iter().map(|s| s * s).sum::<f32>() / pcm.len() as f32).sqrt()
}
