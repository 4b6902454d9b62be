//! Decoded audio as a pull source, and opening audio files with symphonia.
//!
//! A [`SampleSource`] hands out interleaved `f32` samples in blocks; the output thread, the
//! peaks computation and the WAV export all pull from one. [`open_file`] streams: it reads
//! the container's headers and the first packet, never the whole file.

use std::fs::File;
use std::path::Path;

use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::{self, CODEC_TYPE_NULL, Decoder, DecoderOptions};
use symphonia::core::errors::Error as SymphoniaError;
use symphonia::core::formats::{FormatOptions, FormatReader, SeekMode, SeekTo};
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;
use symphonia::core::units::{Time, TimeBase};

use super::AudioError;

/// Decoded audio, pulled by the output thread (and by peaks / WAV export).
pub trait SampleSource: Send + 'static {
    fn sample_rate_hz(&self) -> u32;
    /// 1 or 2 (more are downmixed to 2 by the source).
    fn channels(&self) -> u16;
    fn duration_secs(&self) -> Option<f64>;
    /// Interleaved f32 in [-1, 1]; returns how many samples were written (a multiple of
    /// `channels`); Ok(0) only at the end.
    fn read(&mut self, out: &mut [f32]) -> Result<usize, AudioError>;
    /// The next `read` starts at this time (clamped to 0..=duration).
    fn seek(&mut self, time_secs: f64) -> Result<(), AudioError>;
}

/// What [`open_file`] learned about a sound.
#[derive(Clone, Debug, PartialEq)]
pub struct AudioInfo {
    pub duration_secs: Option<f64>,
    pub sample_rate_hz: u32,
    /// After downmixing: 1 or 2.
    pub channels: u16,
    /// "MP3", "AAC", "WAV", "FLAC", "Vorbis", "Opus".
    pub codec: String,
    /// Extension-like: "mp3", "wav", "m4a", "flac", "ogg".
    pub container: String,
}

/// Probes and opens an audio file (MP3, WAV, FLAC, Ogg Vorbis, AAC in M4A/MP4 via
/// symphonia). Streams: never decodes the whole file up front.
pub fn open_file(path: &Path) -> Result<(Box<dyn SampleSource>, AudioInfo), AudioError> {
    let file = File::open(path)?;
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match SymphoniaSource::open(Box::new(file), extension.as_deref()) {
        Ok(source) => {
            let info = source.info();
            Ok((Box::new(source), info))
        }
        // symphonia has no Opus decoder: an MP4's Opus track (the sandbox's videos and
        // sounds) goes through opus-rs.
        Err(AudioError::Unsupported(what)) if is_mp4_like(extension.as_deref()) => {
            open_mp4_track(path).map_err(|_| AudioError::Unsupported(what))
        }
        Err(error) => Err(error),
    }
}

fn is_mp4_like(extension: Option<&str>) -> bool {
    matches!(extension, Some("mp4" | "m4a" | "mov" | "m4v") | None)
}

/// The sound track of an MP4 through [`super::mp4::Mp4AudioSource`] (Opus, or what
/// symphonia refused).
fn open_mp4_track(path: &Path) -> Result<(Box<dyn SampleSource>, AudioInfo), AudioError> {
    let source = super::mp4::Mp4AudioSource::open(path)?;
    let info = AudioInfo {
        duration_secs: source.duration_secs(),
        sample_rate_hz: source.sample_rate_hz(),
        channels: source.channels(),
        codec: source.codec_name().to_owned(),
        container: "mp4".to_owned(),
    };
    Ok((Box::new(source), info))
}

/// Opens audio held in memory (tests, small downloads); same decoding as [`open_file`].
pub fn open_bytes(
    bytes: Vec<u8>,
    extension: Option<&str>,
) -> Result<(Box<dyn SampleSource>, AudioInfo), AudioError> {
    let source = SymphoniaSource::open(Box::new(std::io::Cursor::new(bytes)), extension)?;
    let info = source.info();
    Ok((Box::new(source), info))
}

/// How far before a seek's time a lossy stream is decoded from (a few frames of any
/// codec: MP3 1152 samples, AAC 1024, Vorbis up to 2048).
const PREROLL_SECS: f64 = 0.1;

/// Consecutive undecodable packets tolerated before the file counts as damaged.
const MAX_CONSECUTIVE_BAD_PACKETS: u32 = 16;

/// A symphonia demuxer + decoder behind [`SampleSource`].
pub struct SymphoniaSource {
    format: Box<dyn FormatReader>,
    decoder: Box<dyn Decoder>,
    track_id: u32,
    time_base: Option<TimeBase>,
    rate_hz: u32,
    channels: u16,
    duration_secs: Option<f64>,
    codec: String,
    container: String,
    /// Decoded, downmixed, not yet handed out (interleaved, `channels` wide).
    pending: Vec<f32>,
    pending_pos: usize,
    /// After a seek: drop decoded frames before this time (seconds).
    seek_target_secs: Option<f64>,
    sample_buf: Option<SampleBuffer<f32>>,
    ended: bool,
}

fn symphonia_error(error: SymphoniaError) -> AudioError {
    match error {
        SymphoniaError::IoError(e) => {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                AudioError::Decode("the file ends too early".into())
            } else {
                AudioError::Io(e)
            }
        }
        SymphoniaError::Unsupported(what) => AudioError::Unsupported(what.to_string()),
        other => AudioError::Decode(other.to_string()),
    }
}

pub(crate) fn codec_name(codec: codecs::CodecType) -> String {
    use symphonia::core::codecs::*;
    let name = match codec {
        CODEC_TYPE_MP3 => "MP3",
        CODEC_TYPE_MP2 => "MP2",
        CODEC_TYPE_MP1 => "MP1",
        CODEC_TYPE_AAC => "AAC",
        CODEC_TYPE_FLAC => "FLAC",
        CODEC_TYPE_VORBIS => "Vorbis",
        CODEC_TYPE_OPUS => "Opus",
        CODEC_TYPE_ALAC => "ALAC",
        CODEC_TYPE_PCM_S16LE | CODEC_TYPE_PCM_S24LE | CODEC_TYPE_PCM_S32LE | CODEC_TYPE_PCM_U8
        | CODEC_TYPE_PCM_S8 | CODEC_TYPE_PCM_F32LE | CODEC_TYPE_PCM_F64LE
        | CODEC_TYPE_PCM_S16BE | CODEC_TYPE_PCM_S24BE | CODEC_TYPE_PCM_S32BE
        | CODEC_TYPE_PCM_F32BE | CODEC_TYPE_PCM_F64BE | CODEC_TYPE_PCM_ALAW
        | CODEC_TYPE_PCM_MULAW | CODEC_TYPE_PCM_U16LE | CODEC_TYPE_PCM_U24LE
        | CODEC_TYPE_PCM_U32LE => "WAV",
        _ => "unknown",
    };
    name.to_string()
}

/// A demuxer and decoder for the first decodable audio track of a file.
pub(crate) struct Probed {
    pub format: Box<dyn FormatReader>,
    pub decoder: Box<dyn Decoder>,
    pub track_id: u32,
    pub time_base: Option<TimeBase>,
    /// From the container (0 when it does not say).
    pub rate_hz: u32,
    pub channels: u16,
    pub duration_secs: Option<f64>,
    pub codec: String,
    pub container: String,
}

/// Probes `media` (the extension is a hint) and makes a decoder for its first decodable
/// audio track. Reads headers only.
pub(crate) fn probe(
    media: Box<dyn symphonia::core::io::MediaSource>,
    extension: Option<&str>,
) -> Result<Probed, AudioError> {
    let stream = MediaSourceStream::new(media, Default::default());
    let mut hint = Hint::new();
    if let Some(ext) = extension {
        hint.with_extension(ext);
    }
    let format_options = FormatOptions {
        enable_gapless: true,
        ..Default::default()
    };
    // symphonia 0.5's MP4 reader can panic on a damaged sample table (an stsc entry's
    // subtraction overflows): a hostile file must be refused, not take the studio down.
    let probed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        symphonia::default::get_probe().format(
            &hint,
            stream,
            &format_options,
            &MetadataOptions::default(),
        )
    }))
    .map_err(|_| AudioError::Decode("the file's structure is damaged".into()))?
    .map_err(|e| match e {
        SymphoniaError::Unsupported(_) => {
            AudioError::Unsupported("not a sound file the studio can read".into())
        }
        other => symphonia_error(other),
    })?;
    let format = probed.format;
    let track = format
        .tracks()
        .iter()
        .find(|t| t.codec_params.codec != CODEC_TYPE_NULL && t.codec_params.sample_rate.is_some())
        .or_else(|| {
            format
                .tracks()
                .iter()
                .find(|t| t.codec_params.codec != CODEC_TYPE_NULL)
        })
        .ok_or(AudioError::NoTrack)?
        .clone();
    let codec = codec_name(track.codec_params.codec);
    let decoder = symphonia::default::get_codecs()
        .make(&track.codec_params, &DecoderOptions::default())
        .map_err(|e| match e {
            SymphoniaError::Unsupported(_) => {
                AudioError::Unsupported(format!("{codec} sound cannot be decoded by the studio"))
            }
            other => symphonia_error(other),
        })?;
    let params = &track.codec_params;
    let time_base = params.time_base;
    let rate_hz = params.sample_rate.unwrap_or(0);
    let duration_secs = match (params.n_frames, time_base) {
        (Some(n), Some(tb)) => {
            let t = tb.calc_time(n);
            Some(t.seconds as f64 + t.frac)
        }
        (Some(n), None) if rate_hz > 0 => Some(n as f64 / rate_hz as f64),
        _ => None,
    };
    let channels = params
        .channels
        .map(|c| c.count().clamp(1, 2) as u16)
        .unwrap_or(2);
    let container = match extension {
        Some(e) if !e.is_empty() => e.to_string(),
        _ => match codec.as_str() {
            "MP3" => "mp3",
            "AAC" => "m4a",
            "FLAC" => "flac",
            "Vorbis" | "Opus" => "ogg",
            "WAV" => "wav",
            _ => "",
        }
        .to_string(),
    };
    Ok(Probed {
        format,
        decoder,
        track_id: track.id,
        time_base,
        rate_hz,
        channels,
        duration_secs,
        codec,
        container,
    })
}

impl SymphoniaSource {
    /// Probes `media` (the extension is a hint), picks the first decodable audio track and
    /// decodes its first packet (to learn the real rate and channel count).
    pub fn open(
        media: Box<dyn symphonia::core::io::MediaSource>,
        extension: Option<&str>,
    ) -> Result<SymphoniaSource, AudioError> {
        let Probed {
            format,
            decoder,
            track_id,
            time_base,
            rate_hz: rate_guess,
            channels: channels_guess,
            duration_secs,
            codec,
            container,
        } = probe(media, extension)?;
        let mut source = SymphoniaSource {
            format,
            decoder,
            track_id,
            time_base,
            rate_hz: rate_guess,
            channels: channels_guess,
            duration_secs,
            codec,
            container,
            pending: Vec::new(),
            pending_pos: 0,
            seek_target_secs: None,
            sample_buf: None,
            ended: false,
        };
        // Decode until the first audio arrives: proves the file is audio and tells the
        // real rate and channel layout.
        let mut first = true;
        while source.pending.is_empty() && !source.ended {
            source.decode_next(first)?;
            first = false;
        }
        if source.rate_hz == 0 {
            return Err(AudioError::Decode("no sample rate".into()));
        }
        if source.ended && source.pending.is_empty() {
            // A header without any sound in it.
            return Err(AudioError::NoTrack);
        }
        Ok(source)
    }

    pub fn info(&self) -> AudioInfo {
        AudioInfo {
            duration_secs: self.duration_secs,
            sample_rate_hz: self.rate_hz,
            channels: self.channels,
            codec: self.codec.clone(),
            container: self.container.clone(),
        }
    }

    fn ts_secs(&self, ts: u64) -> f64 {
        match self.time_base {
            Some(tb) => {
                let t = tb.calc_time(ts);
                t.seconds as f64 + t.frac
            }
            None if self.rate_hz > 0 => ts as f64 / self.rate_hz as f64,
            None => 0.0,
        }
    }

    /// Decodes the next packet of our track into `pending`. Sets `ended` at the end.
    /// `learn_format`: take the channel count and rate from this decoded packet.
    fn decode_next(&mut self, learn_format: bool) -> Result<(), AudioError> {
        let mut bad_packets = 0u32;
        loop {
            let packet = match self.format.next_packet() {
                Ok(p) => p,
                Err(SymphoniaError::IoError(e))
                    if e.kind() == std::io::ErrorKind::UnexpectedEof =>
                {
                    self.ended = true;
                    return Ok(());
                }
                // A chained stream (a new Ogg logical stream): the studio plays the first.
                Err(SymphoniaError::ResetRequired) => {
                    self.ended = true;
                    return Ok(());
                }
                Err(e) => return Err(symphonia_error(e)),
            };
            if packet.track_id() != self.track_id {
                continue;
            }
            let packet_start_secs = self.ts_secs(packet.ts());
            let decoded = match self.decoder.decode(&packet) {
                Ok(d) => d,
                Err(SymphoniaError::DecodeError(msg)) => {
                    bad_packets += 1;
                    if bad_packets > MAX_CONSECUTIVE_BAD_PACKETS {
                        return Err(AudioError::Decode(msg.to_string()));
                    }
                    continue;
                }
                Err(SymphoniaError::IoError(e)) => {
                    bad_packets += 1;
                    if bad_packets > MAX_CONSECUTIVE_BAD_PACKETS {
                        return Err(AudioError::Io(e));
                    }
                    continue;
                }
                Err(e) => return Err(symphonia_error(e)),
            };
            let spec = *decoded.spec();
            let frames = decoded.frames();
            if frames == 0 {
                continue;
            }
            if learn_format {
                self.rate_hz = spec.rate;
                self.channels = spec.channels.count().clamp(1, 2) as u16;
            }
            let src_channels = spec.channels.count().max(1);
            let needed = decoded.capacity() as u64;
            let buf = match &mut self.sample_buf {
                Some(b) if b.capacity() as u64 >= needed * src_channels as u64 => b,
                _ => self.sample_buf.insert(SampleBuffer::new(needed, spec)),
            };
            buf.copy_interleaved_ref(decoded);
            let samples = buf.samples();
            let frames = samples.len() / src_channels;
            // After a seek: drop what comes before the asked time.
            let mut skip = 0usize;
            if let Some(target) = self.seek_target_secs {
                let ahead = ((target - packet_start_secs) * self.rate_hz as f64).round();
                if ahead >= frames as f64 {
                    continue;
                }
                skip = ahead.max(0.0) as usize;
                self.seek_target_secs = None;
            }
            self.pending.clear();
            self.pending_pos = 0;
            let out_channels = self.channels as usize;
            self.pending.reserve((frames - skip) * out_channels);
            for frame in samples.chunks_exact(src_channels).skip(skip) {
                push_downmixed(&mut self.pending, frame, out_channels);
            }
            return Ok(());
        }
    }
}

/// Appends one frame of `frame.len()` channels as `out_channels` (1 or 2) channels.
fn push_downmixed(out: &mut Vec<f32>, frame: &[f32], out_channels: usize) {
    let clamp = |v: f32| {
        if v.is_finite() {
            v.clamp(-1.0, 1.0)
        } else {
            0.0
        }
    };
    match (frame.len(), out_channels) {
        (1, 1) => out.push(clamp(frame[0])),
        (1, _) => {
            let v = clamp(frame[0]);
            out.push(v);
            out.push(v);
        }
        (2, 2) => {
            out.push(clamp(frame[0]));
            out.push(clamp(frame[1]));
        }
        (n, 1) => out.push(clamp(frame.iter().sum::<f32>() / n as f32)),
        (n, _) => {
            // Left, right, then everything else (centre, surrounds, LFE) into both at half.
            let rest: f32 = frame[2..].iter().sum::<f32>() * 0.5;
            let scale = 1.0 / (1.0 + 0.5 * (n - 2) as f32);
            out.push(clamp((frame[0] + rest) * scale));
            out.push(clamp((frame[1] + rest) * scale));
        }
    }
}

impl SampleSource for SymphoniaSource {
    fn sample_rate_hz(&self) -> u32 {
        self.rate_hz
    }

    fn channels(&self) -> u16 {
        self.channels
    }

    fn duration_secs(&self) -> Option<f64> {
        self.duration_secs
    }

    fn read(&mut self, out: &mut [f32]) -> Result<usize, AudioError> {
        let channels = self.channels as usize;
        let want = out.len() - out.len() % channels;
        let mut written = 0;
        while written < want {
            if self.pending_pos >= self.pending.len() {
                if self.ended {
                    break;
                }
                self.decode_next(false)?;
                continue;
            }
            let n = (want - written).min(self.pending.len() - self.pending_pos);
            out[written..written + n]
                .copy_from_slice(&self.pending[self.pending_pos..self.pending_pos + n]);
            written += n;
            self.pending_pos += n;
        }
        Ok(written)
    }

    fn seek(&mut self, time_secs: f64) -> Result<(), AudioError> {
        let mut target = if time_secs.is_finite() {
            time_secs.max(0.0)
        } else {
            0.0
        };
        if let Some(d) = self.duration_secs {
            target = target.min(d);
        }
        self.pending.clear();
        self.pending_pos = 0;
        self.ended = false;
        // Lossy codecs overlap each frame with the one before (MDCT, MP3's filterbank):
        // symphonia lands on the frame holding the time (MP3: plus the frames its bit
        // reservoir needs), whose first output would be wrong after a decoder reset. Start
        // a little earlier and drop what comes before the time.
        let preroll_secs = match self.codec.as_str() {
            "WAV" | "FLAC" | "ALAC" => 0.0,
            _ => PREROLL_SECS,
        };
        let seek = self.format.seek(
            SeekMode::Accurate,
            SeekTo::Time {
                time: Time::from((target - preroll_secs).max(0.0)),
                track_id: Some(self.track_id),
            },
        );
        match seek {
            Ok(_) => {
                self.decoder.reset();
                self.seek_target_secs = Some(target);
                Ok(())
            }
            // Past the end (a duration estimate that was too long): nothing left to play.
            Err(SymphoniaError::SeekError(_)) => {
                self.ended = true;
                Ok(())
            }
            Err(e) => Err(symphonia_error(e)),
        }
    }
}

/// A sound held in memory (tests, synthesised tones).
pub struct MemorySource {
    samples: std::sync::Arc<[f32]>,
    rate_hz: u32,
    channels: u16,
    pos: usize,
}

impl MemorySource {
    /// `samples` interleaved, `channels` 1 or 2.
    pub fn new(samples: Vec<f32>, rate_hz: u32, channels: u16) -> MemorySource {
        MemorySource {
            samples: samples.into(),
            rate_hz: rate_hz.max(1),
            channels: channels.clamp(1, 2),
            pos: 0,
        }
    }
}

impl SampleSource for MemorySource {
    fn sample_rate_hz(&self) -> u32 {
        self.rate_hz
    }
    fn channels(&self) -> u16 {
        self.channels
    }
    fn duration_secs(&self) -> Option<f64> {
        Some(self.samples.len() as f64 / self.channels as f64 / self.rate_hz as f64)
    }
    fn read(&mut self, out: &mut [f32]) -> Result<usize, AudioError> {
        let channels = self.channels as usize;
        let n = (out.len() - out.len() % channels).min(self.samples.len() - self.pos);
        out[..n].copy_from_slice(&self.samples[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
    fn seek(&mut self, time_secs: f64) -> Result<(), AudioError> {
        let channels = self.channels as usize;
        let frames = self.samples.len() / channels;
        let t = if time_secs.is_finite() {
            time_secs.max(0.0)
        } else {
            0.0
        };
        let frame = ((t * self.rate_hz as f64).round() as usize).min(frames);
        self.pos = frame * channels;
        Ok(())
    }
}
