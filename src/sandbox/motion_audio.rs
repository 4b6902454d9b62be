//! Sound for the catalog's video jobs (elements' reference audio, lip sync's audio or
//! spoken line): recognising an audio file, decoding it to mono PCM with symphonia, and
//! the sandbox's speech renderer, all at the rate the video renders mux
//! ([`MOTION_AUDIO_RATE_HZ`]). Shares nothing with the studio's `crate::audio`.

use std::io::Cursor;

use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::{CODEC_TYPE_NULL, DecoderOptions};
use symphonia::core::errors::Error as SymphoniaError;
use symphonia::core::formats::FormatOptions;
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

use super::sound::voices::BuiltInVoice;
use super::sound::{RATE_HZ, speech};
use super::video::MOTION_AUDIO_RATE_HZ;

/// Longest sound decoded (a lip sync lasts at most a minute; references are cut to the clip).
const MAX_DECODED_SECS: f64 = 600.0;

/// The container of an audio file by its first bytes, named as the catalog's
/// `supported_audio_formats` name them: mp3, wav, m4a, ogg, flac.
pub(crate) fn audio_format(bytes: &[u8]) -> Option<&'static str> {
    let head = bytes.get(..12)?;
    if head.starts_with(b"ID3") || (head[0] == 0xFF && head[1] & 0xE0 == 0xE0) {
        Some("mp3")
    } else if head.starts_with(b"RIFF") && &head[8..12] == b"WAVE" {
        Some("wav")
    } else if &head[4..8] == b"ftyp" {
        Some("m4a")
    } else if head.starts_with(b"OggS") {
        Some("ogg")
    } else if head.starts_with(b"fLaC") {
        Some("flac")
    } else {
        None
    }
}

/// Mono PCM at [`MOTION_AUDIO_RATE_HZ`] (channels averaged), or why it could not be read.
pub(crate) fn decode_audio(bytes: &[u8]) -> Result<Vec<f32>, String> {
    let stream = MediaSourceStream::new(Box::new(Cursor::new(bytes.to_vec())), Default::default());
    let mut hint = Hint::new();
    if let Some(format) = audio_format(bytes) {
        hint.with_extension(format);
    }
    let probed = symphonia::default::get_probe()
        .format(
            &hint,
            stream,
            // Gapless: the encoder's priming and padding (AAC, MP3 with LAME info) are not
            // part of the sound, so a 1-s file decodes to 1 s.
            &FormatOptions {
                enable_gapless: true,
                ..FormatOptions::default()
            },
            &MetadataOptions::default(),
        )
        .map_err(|e| format!("not a sound file we can read ({e})"))?;
    let mut format = probed.format;
    let track = format
        .tracks()
        .iter()
        .find(|t| t.codec_params.codec != CODEC_TYPE_NULL)
        .ok_or("the file has no sound track")?;
    let track_id = track.id;
    let rate_hz = track
        .codec_params
        .sample_rate
        .ok_or("the sound track has no sample rate")?;
    let mut decoder = symphonia::default::get_codecs()
        .make(&track.codec_params, &DecoderOptions::default())
        .map_err(|e| format!("its sound codec is not supported ({e})"))?;
    let max_samples = (MAX_DECODED_SECS * f64::from(rate_hz)) as usize;
    let mut mono: Vec<f32> = Vec::new();
    let mut buffer: Option<SampleBuffer<f32>> = None;
    loop {
        let packet = match format.next_packet() {
            Ok(packet) => packet,
            Err(SymphoniaError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                break;
            }
            Err(SymphoniaError::ResetRequired) => break,
            Err(e) => return Err(format!("the sound could not be read ({e})")),
        };
        if packet.track_id() != track_id {
            continue;
        }
        let decoded = match decoder.decode(&packet) {
            Ok(decoded) => decoded,
            // A damaged packet is skipped, as players do.
            Err(SymphoniaError::DecodeError(_)) => continue,
            Err(e) => return Err(format!("the sound could not be decoded ({e})")),
        };
        let spec = *decoded.spec();
        let channels = spec.channels.count().max(1);
        let needed = decoded.capacity() as u64;
        let buf = match buffer.as_mut() {
            Some(buf) if buf.capacity() as u64 >= needed * channels as u64 => buf,
            _ => buffer.insert(SampleBuffer::new(needed, spec)),
        };
        buf.copy_interleaved_ref(decoded);
        for frame in buf.samples().chunks(channels) {
            mono.push(frame.iter().sum::<f32>() / channels as f32);
        }
        if mono.len() >= max_samples {
            break;
        }
    }
    if mono.is_empty() {
        return Err("the file holds no sound".to_owned());
    }
    Ok(resample(&mono, rate_hz, MOTION_AUDIO_RATE_HZ))
}

/// `text` spoken in `voice` (the speech route's renderer), at [`MOTION_AUDIO_RATE_HZ`].
pub(crate) fn speak(text: &str, voice: &BuiltInVoice, seed: u64) -> Vec<f32> {
    let spoken = speech::render_speech(text, voice.shape(), seed);
    resample(&spoken.samples, RATE_HZ, MOTION_AUDIO_RATE_HZ)
}

/// Seconds of `pcm` at [`MOTION_AUDIO_RATE_HZ`].
pub(crate) fn duration_secs(pcm: &[f32]) -> f64 {
    pcm.len() as f64 / f64::from(MOTION_AUDIO_RATE_HZ)
}

/// Linear-interpolation resampling (plenty for a stand-in's sound).
fn resample(samples: &[f32], from_hz: u32, to_hz: u32) -> Vec<f32> {
    if from_hz == to_hz || samples.is_empty() || from_hz == 0 {
        return samples.to_vec();
    }
    let ratio = f64::from(from_hz) / f64::from(to_hz);
    let len = ((samples.len() as f64) / ratio).round() as usize;
    let last = samples.len() - 1;
    (0..len)
        .map(|i| {
            let pos = i as f64 * ratio;
            let i0 = (pos.floor() as usize).min(last);
            let i1 = (i0 + 1).min(last);
            let frac = (pos - i0 as f64) as f32;
            samples[i0] * (1.0 - frac) + samples[i1] * frac
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::sound::encode::{AudioFormat, Tags, encode};

    #[test]
    fn mp3_and_wav_decode_to_their_length_at_48_khz() {
        let tone: Vec<f32> = (0..crate::sandbox::sound::samples_for(2.0))
            .map(|i| (i as f32 * 0.05).sin() * 0.5)
            .collect();
        for (format, name) in [(AudioFormat::Mp3, "mp3"), (AudioFormat::Wav, "wav")] {
            let bytes = encode(
                &tone,
                &Tags {
                    title: "SANDBOX".into(),
                    words: None,
                },
                format,
            )
            .expect("encode");
            assert_eq!(audio_format(&bytes), Some(name));
            let pcm = decode_audio(&bytes).expect("decode");
            let secs = duration_secs(&pcm);
            assert!((secs - 2.0).abs() < 0.15, "{name}: {secs}");
        }
        assert!(decode_audio(b"definitely not a sound file at all").is_err());
        assert_eq!(audio_format(b"\x89PNG\r\n\x1a\n0000"), None);
    }

    #[test]
    fn speech_is_resampled_to_the_mux_rate() {
        let voice = crate::sandbox::sound::voices::find("Rachel").expect("Rachel");
        let pcm = speak("Hello there, how are you today?", voice, 7);
        assert!(duration_secs(&pcm) > 1.0);
        assert!(pcm.iter().any(|s| s.abs() > 0.05));
    }
}
