//! The sound track of an MP4 as a [`SampleSource`]: packets from
//! [`crate::video_codec::audio_track`] (re_mp4 behind the box walk), decoded by symphonia
//! (AAC-LC, MP3) or opus-rs (Opus), as interleaved f32 in one or two channels.
//!
//! Times are presentation times: the edit list's start (AAC priming, Opus pre-skip) is
//! decoded and dropped, and the end is cut at the edit's length, so time 0 is the first
//! sample a player should hear, the same 0 as the video's first frame. A seek decodes from
//! a little before the target (the codec's pre-roll) and drops up to it, so what follows is
//! exactly what a straight play would give at that time.
//!
//! Hostile files: the demuxer's checks, bounded packet sizes, decoder panics caught (the
//! decoder is rebuilt); a packet that does not decode becomes silence of its length, so
//! the clock keeps to the picture; too many in a row end the source with an error.

use super::{AudioError, SampleSource};
use crate::video_codec::audio_track::{AudioCodec, AudioTrack, AudioTrackError, find_audio_track};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::{
    CODEC_TYPE_AAC, CODEC_TYPE_MP3, CodecParameters, Decoder as SymphoniaDecoder, DecoderOptions,
};
use symphonia::core::formats::Packet;

/// Undecodable packets in a row after which the source gives up.
const MAX_CONSECUTIVE_ERRORS: u32 = 50;
/// Largest Opus packet output: 120 ms at 48 kHz, per channel.
const OPUS_MAX_FRAMES: usize = 5760;

/// The audio track of an MP4, decoded on demand (see the module docs).
pub struct Mp4AudioSource {
    track: AudioTrack,
    data: Data,
    decoder: Decoder,
    /// Channels handed out: 1 or 2.
    channels: u16,
    /// Frames a second of the output (the codec's rate).
    rate_hz: u32,
    /// Next packet to decode.
    next_packet: usize,
    /// Decoded, interleaved, not yet read; `pending[pending_at..]` is what is left.
    pending: Vec<f32>,
    pending_at: usize,
    /// Frames still to drop from what the decoder gives (pre-roll and priming).
    drop_frames: u64,
    /// Frames still to hand out before the presentation ends.
    remaining_frames: u64,
    packet: Vec<u8>,
    consecutive_errors: u32,
    warned: bool,
}

impl std::fmt::Debug for Mp4AudioSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mp4AudioSource")
            .field("codec", &self.track.codec.name())
            .field("channels", &self.channels)
            .field("rate_hz", &self.rate_hz)
            .field("duration_secs", &self.track.duration_secs())
            .finish_non_exhaustive()
    }
}

enum Data {
    File(File),
    Bytes(Vec<u8>),
}

enum Decoder {
    Symphonia {
        decoder: Box<dyn SymphoniaDecoder>,
        params: CodecParameters,
        buffer: Option<SampleBuffer<f32>>,
    },
    Opus {
        decoder: Box<opus_rs::OpusDecoder>,
        channels: usize,
        gain: f32,
        buffer: Vec<f32>,
    },
}

impl Mp4AudioSource {
    /// Opens the sound track of the MP4 at `path` (only its tables are read now).
    pub fn open(path: &Path) -> Result<Self, AudioError> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        let track = find_audio_track(&mut BufReader::new(&file), len).map_err(track_error)?;
        Self::with_track(track, Data::File(file))
    }

    /// The sound track of an MP4 held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, AudioError> {
        let len = bytes.len() as u64;
        let track = find_audio_track(&mut std::io::Cursor::new(bytes.as_slice()), len)
            .map_err(track_error)?;
        Self::with_track(track, Data::Bytes(bytes))
    }

    fn with_track(track: AudioTrack, data: Data) -> Result<Self, AudioError> {
        let decoder = Decoder::new(&track)?;
        let channels = track.channels.clamp(1, 2);
        let rate_hz = track.sample_rate_hz;
        let mut source = Self {
            track,
            data,
            decoder,
            channels,
            rate_hz,
            next_packet: 0,
            pending: Vec::new(),
            pending_at: 0,
            drop_frames: 0,
            remaining_frames: 0,
            packet: Vec::new(),
            consecutive_errors: 0,
            warned: false,
        };
        source.seek(0.0)?;
        Ok(source)
    }

    /// "AAC", "Opus" or "MP3".
    pub fn codec_name(&self) -> &'static str {
        self.track.codec.name()
    }

    /// The demuxed track (packet table, timing).
    pub fn track(&self) -> &AudioTrack {
        &self.track
    }

    fn ticks_to_frames(&self, ticks: u64) -> u64 {
        (u128::from(ticks) * u128::from(self.rate_hz) / u128::from(self.track.timescale.max(1)))
            .min(u128::from(u64::MAX)) as u64
    }

    fn frames_to_ticks(&self, frames: u64) -> u64 {
        (u128::from(frames) * u128::from(self.track.timescale) / u128::from(self.rate_hz.max(1)))
            .min(u128::from(u64::MAX)) as u64
    }

    fn duration_frames(&self) -> u64 {
        self.ticks_to_frames(self.track.duration_ticks)
    }

    /// Frames decoded before a seek target and dropped, so the target sounds as in a
    /// straight play (MDCT overlap, Opus's recommended 80 ms, MP3's bit reservoir).
    fn preroll_frames(&self) -> u64 {
        match self.track.codec {
            AudioCodec::Aac { .. } => 2048,
            AudioCodec::Opus { .. } => 3840,
            AudioCodec::Mp3 => 2 * 1152,
        }
    }

    fn read_packet(&mut self, index: usize) -> Result<(), AudioError> {
        let Some(packet) = self.track.packets.get(index).copied() else {
            return Err(AudioError::Decode(format!("packet {index} does not exist")));
        };
        let size = packet.size as usize;
        self.packet.clear();
        match &mut self.data {
            Data::Bytes(bytes) => {
                let start = usize::try_from(packet.offset)
                    .map_err(|_| AudioError::Decode("packet offset too large".into()))?;
                let found = start
                    .checked_add(size)
                    .and_then(|end| bytes.get(start..end))
                    .ok_or_else(|| {
                        AudioError::Decode(format!("packet {index} is out of bounds"))
                    })?;
                self.packet.extend_from_slice(found);
            }
            Data::File(file) => {
                self.packet.resize(size, 0);
                file.seek(SeekFrom::Start(packet.offset))?;
                file.read_exact(&mut self.packet)?;
            }
        }
        Ok(())
    }

    /// Decodes the next packet into `pending` (after dropping and cutting). `false` at the
    /// end of the presentation.
    fn decode_next(&mut self) -> Result<bool, AudioError> {
        if self.remaining_frames == 0 || self.next_packet >= self.track.packets.len() {
            return Ok(false);
        }
        let index = self.next_packet;
        self.next_packet += 1;
        let packet = self.track.packets[index];
        self.read_packet(index)?;
        let out_channels = usize::from(self.channels);
        self.pending.clear();
        self.pending_at = 0;
        match self.decoder.decode(
            &self.packet,
            packet.dts_ticks,
            out_channels,
            &mut self.pending,
        ) {
            Ok(()) => self.consecutive_errors = 0,
            Err(message) => {
                if !self.warned {
                    tracing::warn!("sound packet {index} did not decode: {message}");
                    self.warned = true;
                }
                self.consecutive_errors += 1;
                if self.consecutive_errors >= MAX_CONSECUTIVE_ERRORS {
                    return Err(AudioError::Decode(format!(
                        "{MAX_CONSECUTIVE_ERRORS} packets in a row did not decode ({message})"
                    )));
                }
                // Silence as long as the packet keeps the sound on time.
                let frames = self.ticks_to_frames(packet.duration_ticks).min(1 << 20) as usize;
                self.pending.resize(frames * out_channels, 0.0);
            }
        }
        let decoded_frames = (self.pending.len() / out_channels) as u64;
        let dropped = self.drop_frames.min(decoded_frames);
        self.drop_frames -= dropped;
        self.pending_at = dropped as usize * out_channels;
        let kept = (decoded_frames - dropped).min(self.remaining_frames);
        self.remaining_frames -= kept;
        self.pending
            .truncate(self.pending_at + kept as usize * out_channels);
        Ok(true)
    }
}

impl SampleSource for Mp4AudioSource {
    fn sample_rate_hz(&self) -> u32 {
        self.rate_hz
    }

    fn channels(&self) -> u16 {
        self.channels
    }

    fn duration_secs(&self) -> Option<f64> {
        Some(self.track.duration_secs())
    }

    fn read(&mut self, out: &mut [f32]) -> Result<usize, AudioError> {
        let channels = usize::from(self.channels);
        let wanted = out.len() - out.len() % channels;
        let mut written = 0;
        while written < wanted {
            if self.pending_at >= self.pending.len() && !self.decode_next()? {
                break;
            }
            let take = (self.pending.len() - self.pending_at).min(wanted - written);
            out[written..written + take]
                .copy_from_slice(&self.pending[self.pending_at..self.pending_at + take]);
            self.pending_at += take;
            written += take;
        }
        Ok(written)
    }

    fn seek(&mut self, time_secs: f64) -> Result<(), AudioError> {
        let duration_frames = self.duration_frames();
        let at_frames = if time_secs.is_finite() && time_secs > 0.0 {
            ((time_secs * f64::from(self.rate_hz)).round() as u64).min(duration_frames)
        } else {
            0
        };
        let start_frames = self.ticks_to_frames(self.track.start_ticks);
        let target = start_frames + at_frames;
        let from = target.saturating_sub(self.preroll_frames());
        let packet = self.track.packet_at(self.frames_to_ticks(from));
        let packet_frames = self.ticks_to_frames(self.track.packets[packet].dts_ticks);
        self.next_packet = packet;
        self.drop_frames = target.saturating_sub(packet_frames);
        self.remaining_frames = duration_frames - at_frames;
        self.pending.clear();
        self.pending_at = 0;
        self.consecutive_errors = 0;
        self.decoder.reset(&self.track)
    }
}

impl Decoder {
    fn new(track: &AudioTrack) -> Result<Self, AudioError> {
        match &track.codec {
            AudioCodec::Aac {
                audio_specific_config,
            } => {
                let mut params = CodecParameters::new();
                params
                    .for_codec(CODEC_TYPE_AAC)
                    .with_sample_rate(track.sample_rate_hz)
                    .with_extra_data(audio_specific_config.clone().into_boxed_slice());
                Self::symphonia(params)
            }
            AudioCodec::Mp3 => {
                let mut params = CodecParameters::new();
                params
                    .for_codec(CODEC_TYPE_MP3)
                    .with_sample_rate(track.sample_rate_hz);
                Self::symphonia(params)
            }
            AudioCodec::Opus { output_gain_q8, .. } => {
                let channels = usize::from(track.channels.clamp(1, 2));
                let decoder = catch_unwind(|| opus_rs::OpusDecoder::new(48_000, channels))
                    .map_err(|_| AudioError::Decode("the Opus decoder failed to start".into()))?
                    .map_err(|e| AudioError::Decode(format!("Opus decoder: {e}")))?;
                Ok(Self::Opus {
                    decoder: Box::new(decoder),
                    channels,
                    gain: 10f32.powf(f32::from(*output_gain_q8) / 256.0 / 20.0),
                    buffer: vec![0.0; OPUS_MAX_FRAMES * channels],
                })
            }
        }
    }

    fn symphonia(params: CodecParameters) -> Result<Self, AudioError> {
        let made = catch_unwind(AssertUnwindSafe(|| {
            symphonia::default::get_codecs().make(&params, &DecoderOptions::default())
        }))
        .map_err(|_| AudioError::Decode("the decoder failed to start".into()))?;
        let decoder = made.map_err(|e| AudioError::Unsupported(e.to_string()))?;
        Ok(Self::Symphonia {
            decoder,
            params,
            buffer: None,
        })
    }

    /// Back to a fresh state (after a seek).
    fn reset(&mut self, track: &AudioTrack) -> Result<(), AudioError> {
        match self {
            Self::Symphonia { decoder, .. } => {
                if catch_unwind(AssertUnwindSafe(|| decoder.reset())).is_err() {
                    *self = Self::new(track)?;
                }
            }
            // A new decoder is the sure way back to silence (no concealment state).
            Self::Opus { .. } => *self = Self::new(track)?,
        }
        Ok(())
    }

    /// Decodes `packet` and appends it to `out` as `out_channels` interleaved.
    fn decode(
        &mut self,
        packet: &[u8],
        ts: u64,
        out_channels: usize,
        out: &mut Vec<f32>,
    ) -> Result<(), String> {
        match self {
            Self::Symphonia {
                decoder,
                params,
                buffer,
            } => {
                let input = Packet::new_from_slice(0, ts, 0, packet);
                let result = catch_unwind(AssertUnwindSafe(|| {
                    let decoded = decoder.decode(&input).map_err(|e| e.to_string())?;
                    let spec = *decoded.spec();
                    let frames = decoded.frames();
                    let fits = buffer
                        .as_ref()
                        .is_some_and(|b| b.capacity() >= frames * spec.channels.count());
                    if !fits {
                        *buffer = Some(SampleBuffer::new(frames.max(4096) as u64, spec));
                    }
                    let Some(buffer) = buffer.as_mut() else {
                        return Err("no sample buffer".to_owned());
                    };
                    buffer.copy_interleaved_ref(decoded);
                    Ok((spec.channels.count(), buffer.samples().to_vec()))
                }));
                match result {
                    Ok(Ok((channels, samples))) => {
                        remix(&samples, channels, out_channels, 1.0, out);
                        Ok(())
                    }
                    Ok(Err(e)) => Err(e),
                    Err(_) => {
                        // The decoder's state is unknown after a panic: start it afresh.
                        if let Ok(Self::Symphonia { decoder: fresh, .. }) =
                            Self::symphonia(params.clone())
                        {
                            *decoder = fresh;
                        }
                        *buffer = None;
                        Err("the decoder panicked on this packet".to_owned())
                    }
                }
            }
            Self::Opus {
                decoder,
                channels,
                gain,
                buffer,
            } => {
                let result = catch_unwind(AssertUnwindSafe(|| {
                    decoder.decode(packet, OPUS_MAX_FRAMES, buffer)
                }));
                match result {
                    Ok(Ok(frames)) => {
                        let len = (frames * *channels).min(buffer.len());
                        remix(&buffer[..len], *channels, out_channels, *gain, out);
                        Ok(())
                    }
                    Ok(Err(e)) => Err(e.to_owned()),
                    Err(_) => {
                        let count = *channels;
                        if let Ok(Ok(fresh)) =
                            catch_unwind(|| opus_rs::OpusDecoder::new(48_000, count))
                        {
                            **decoder = fresh;
                        }
                        Err("the Opus decoder panicked on this packet".to_owned())
                    }
                }
            }
        }
    }
}

/// Appends `input` (`in_channels` interleaved) to `out` as `out_channels` (1 or 2), times
/// `gain`: mono is doubled, more channels keep the first two (stereo) or are averaged
/// (mono).
fn remix(input: &[f32], in_channels: usize, out_channels: usize, gain: f32, out: &mut Vec<f32>) {
    let in_channels = in_channels.max(1);
    out.reserve(input.len() / in_channels * out_channels);
    for frame in input.chunks_exact(in_channels) {
        match (in_channels, out_channels) {
            (a, b) if a == b => out.extend(frame.iter().map(|s| s * gain)),
            (1, _) => out.extend([frame[0] * gain, frame[0] * gain]),
            (_, 1) => out.push((frame[0] + frame[1]) * 0.5 * gain),
            _ => out.extend([frame[0] * gain, frame[1] * gain]),
        }
    }
}

fn track_error(error: AudioTrackError) -> AudioError {
    match error {
        AudioTrackError::NoTrack => AudioError::NoTrack,
        AudioTrackError::Unsupported(codec) => AudioError::Unsupported(format!("sound in {codec}")),
        AudioTrackError::Damaged(what) => AudioError::Decode(what),
        AudioTrackError::Container(e) => AudioError::Decode(e.to_string()),
        AudioTrackError::Io(e) => AudioError::Io(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const AAC: &[u8] =
        include_bytes!("../../tests/fixtures/video/h264_aac_160x90_24fps_48f.mp4");
    pub(crate) const OPUS: &[u8] =
        include_bytes!("../../tests/fixtures/video/h264_opus_160x90_24fps_48f.mp4");

    fn read_all(source: &mut dyn SampleSource) -> Vec<f32> {
        let mut all = Vec::new();
        let mut buf = vec![0.0; 1000];
        loop {
            let n = source.read(&mut buf).expect("reads");
            if n == 0 {
                return all;
            }
            assert_eq!(n % usize::from(source.channels()), 0);
            all.extend_from_slice(&buf[..n]);
        }
    }

    /// Left channel of interleaved stereo.
    fn left(samples: &[f32]) -> Vec<f32> {
        samples.iter().step_by(2).copied().collect()
    }

    /// Frequency of a tone from its zero crossings.
    fn tone_hz(mono: &[f32], rate: f64) -> f64 {
        let crossings = mono
            .windows(2)
            .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
            .count();
        crossings as f64 / 2.0 / (mono.len() as f64 / rate)
    }

    /// The fixtures play 400 + 100·k Hz during the k-th eighth of a second.
    fn expected_hz(time_secs: f64) -> f64 {
        400.0 + 100.0 * (time_secs * 8.0).floor()
    }

    fn check_whole(bytes: &[u8], codec: &str) {
        let mut source = Mp4AudioSource::from_bytes(bytes.to_vec()).expect("opens");
        assert_eq!(source.codec_name(), codec);
        assert_eq!((source.sample_rate_hz(), source.channels()), (48_000, 2));
        let all = read_all(&mut source);
        // Exactly the presentation: 2 s, priming dropped, padding cut.
        assert_eq!(all.len(), 2 * 96_000, "{codec}");
        let mono = left(&all);
        // Each eighth of a second plays its tone (its edges left out: codec smear).
        for k in 0..16 {
            let from = k * 6000 + 600;
            let hz = tone_hz(&mono[from..from + 4800], 48_000.0);
            let want = expected_hz(k as f64 / 8.0);
            assert!(
                (hz - want).abs() < 15.0,
                "{codec} segment {k}: {hz} Hz, want {want}"
            );
        }
    }

    #[test]
    fn aac_track_decodes_to_its_tones_in_order() {
        check_whole(AAC, "AAC");
    }

    #[test]
    fn opus_track_decodes_to_its_tones_in_order() {
        check_whole(OPUS, "Opus");
    }

    #[test]
    fn seek_lands_on_the_sound_of_that_time() {
        for bytes in [AAC, OPUS] {
            let mut source = Mp4AudioSource::from_bytes(bytes.to_vec()).expect("opens");
            let mut straight = read_all(&mut source);
            for time_secs in [1.3125, 0.0, 0.7, 1.95] {
                source.seek(time_secs).expect("seeks");
                let after = read_all(&mut source);
                let at = (time_secs * 48_000.0).round() as usize * 2;
                assert_eq!(after.len(), straight.len() - at, "seek to {time_secs}");
                // Same samples as a straight play (pre-roll makes the decoder state match).
                let n = after.len().min(4800);
                let max_diff = after[..n]
                    .iter()
                    .zip(&straight[at..at + n])
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0f32, f32::max);
                assert!(
                    max_diff < 0.02,
                    "seek to {time_secs}: differs by {max_diff}"
                );
            }
            source.seek(99.0).expect("past the end");
            assert!(read_all(&mut source).is_empty());
            source.seek(-1.0).expect("before the start");
            straight.truncate(10);
            let mut head = vec![0.0; 10];
            assert_eq!(source.read(&mut head).expect("reads"), 10);
        }
    }

    #[test]
    fn a_video_without_sound_says_so() {
        let silent = include_bytes!("../../tests/fixtures/video/baseline_160x90_24fps_48f.mp4");
        assert!(matches!(
            Mp4AudioSource::from_bytes(silent.to_vec()),
            Err(AudioError::NoTrack)
        ));
    }

    #[test]
    fn damaged_packets_become_silence_of_their_length() {
        let mut bytes = AAC.to_vec();
        let track = Mp4AudioSource::from_bytes(bytes.clone())
            .expect("opens")
            .track()
            .clone();
        for packet in &track.packets[10..20] {
            let at = packet.offset as usize;
            for b in &mut bytes[at..at + packet.size as usize] {
                *b = 0xff;
            }
        }
        let mut source = Mp4AudioSource::from_bytes(bytes).expect("opens");
        let all = read_all(&mut source);
        assert_eq!(all.len(), 2 * 96_000, "the length is kept");
        let mono = left(&all);
        let hz = tone_hz(&mono[90_000..94_800], 48_000.0);
        assert!(
            (hz - expected_hz(1.9)).abs() < 15.0,
            "sound after the damage: {hz}"
        );
    }

    #[test]
    fn opens_from_a_path() {
        let path =
            std::env::temp_dir().join(format!("framewright-mp4-audio-{}.mp4", std::process::id()));
        std::fs::write(&path, AAC).expect("written");
        let opened = Mp4AudioSource::open(&path);
        let _ = std::fs::remove_file(&path);
        let mut source = opened.expect("opens");
        assert_eq!(read_all(&mut source).len(), 2 * 96_000);
        assert!(matches!(
            Mp4AudioSource::open(Path::new("/nonexistent/x.mp4")),
            Err(AudioError::Io(_))
        ));
    }
}
