//! The sound track of an MP4: the first `soun` track whose codec the studio decodes (AAC-LC
//! through symphonia, Opus through opus-rs, MP3), its decoder configuration, its sample
//! table and the edit list's start (encoder priming / Opus pre-skip). Demuxing only: the
//! decoding lives in `audio::mp4`.
//!
//! Like the video demuxer it distrusts the file: `re_mp4` runs after the box walk and under
//! `catch_unwind` ([`super::demux::parse_guarded`]), the sample entry's own boxes are read by
//! a bounded walk here (`re_mp4` keeps neither the raw AudioSpecificConfig nor `dOps`), and
//! samples outside the file end the table.

use super::demux::{MAX_SAMPLES, parse_guarded};
use super::error::VideoDecodeError;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Largest audio packet read from a file (an AAC frame is at most 768 bytes a channel, an
/// Opus packet at most 1275 bytes a frame of up to 120 ms).
pub const MAX_PACKET_BYTES: u64 = 64 * 1024;
/// A sample entry (with its `esds` / `dOps`) larger than this is not a real one.
const MAX_ENTRY_BYTES: u64 = 64 * 1024;
const MAX_BOX_DEPTH: u32 = 12;

/// Why there is no sound to play from a file.
#[derive(Debug, thiserror::Error)]
pub enum AudioTrackError {
    #[error("the file has no sound track")]
    NoTrack,
    /// A sound track in a codec the studio does not decode (`ac-3`, HE-AAC, …).
    #[error("unsupported sound codec {0}")]
    Unsupported(String),
    #[error("damaged sound track: {0}")]
    Damaged(String),
    #[error("{0}")]
    Container(VideoDecodeError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl From<VideoDecodeError> for AudioTrackError {
    fn from(error: VideoDecodeError) -> Self {
        match error {
            VideoDecodeError::Read(e) => Self::Io(e),
            VideoDecodeError::Io { source, .. } => Self::Io(source),
            other => Self::Container(other),
        }
    }
}

/// The decoder configuration of the track.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AudioCodec {
    /// AAC-LC; `audio_specific_config` is the raw ISO/IEC 14496-3 AudioSpecificConfig.
    Aac { audio_specific_config: Vec<u8> },
    /// Opus (`Opus` sample entry, `dOps`), channel mapping family 0 (mono or stereo).
    Opus { pre_skip: u16, output_gain_q8: i16 },
    /// MPEG-1/2 Layer III in MP4 (object type 0x69 or 0x6B).
    Mp3,
}

impl AudioCodec {
    /// For people: "AAC", "Opus", "MP3".
    pub fn name(&self) -> &'static str {
        match self {
            Self::Aac { .. } => "AAC",
            Self::Opus { .. } => "Opus",
            Self::Mp3 => "MP3",
        }
    }
}

/// One coded audio packet, in decode order. `dts_ticks` counts from the track's start in
/// `timescale` units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AudioPacket {
    pub offset: u64,
    pub size: u32,
    pub dts_ticks: u64,
    pub duration_ticks: u64,
}

#[derive(Clone, Debug)]
pub struct AudioTrack {
    pub track_id: u32,
    pub codec: AudioCodec,
    /// 1 or 2 (what the sample entry or the decoder configuration says).
    pub channels: u16,
    pub sample_rate_hz: u32,
    /// Ticks per second of the packet times.
    pub timescale: u64,
    pub packets: Vec<AudioPacket>,
    /// Media ticks before the presentation starts (the edit list's `media_time`, else an Opus
    /// track's pre-skip): the encoder's priming, decoded and dropped.
    pub start_ticks: u64,
    /// Presentation length in media ticks (the edit's duration, else the packets' end less
    /// `start_ticks`).
    pub duration_ticks: u64,
}

impl AudioTrack {
    pub fn duration_secs(&self) -> f64 {
        self.duration_ticks as f64 / self.timescale as f64
    }

    pub fn start_secs(&self) -> f64 {
        self.start_ticks as f64 / self.timescale as f64
    }

    /// Media ticks at the end of the last packet.
    pub fn media_end_ticks(&self) -> u64 {
        self.packets
            .last()
            .map_or(0, |p| p.dts_ticks.saturating_add(p.duration_ticks))
    }

    /// Index of the packet that holds media tick `ticks` (the last one past the end).
    pub fn packet_at(&self, ticks: u64) -> usize {
        self.packets
            .partition_point(|p| p.dts_ticks <= ticks)
            .saturating_sub(1)
    }
}

/// Opens `path` and finds its sound track.
pub fn read_audio_track(path: &Path) -> Result<AudioTrack, AudioTrackError> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    find_audio_track(&mut BufReader::new(file), len)
}

/// Finds the first playable sound track of the MP4 in `reader` (`len` bytes long).
pub fn find_audio_track<R: Read + Seek>(
    reader: &mut R,
    len: u64,
) -> Result<AudioTrack, AudioTrackError> {
    let (mp4, _) = parse_guarded(reader, len)?;
    let entries = sample_entries(reader, len)?;
    let movie_timescale = u64::from(mp4.moov.mvhd.timescale);
    let mut unsupported = None;
    for track in mp4.tracks().values() {
        let Some(trak) = mp4
            .moov
            .traks
            .iter()
            .find(|t| t.tkhd.track_id == track.track_id)
        else {
            continue;
        };
        let is_sound = trak.mdia.hdlr.handler_type.value == *b"soun"
            || track.kind == Some(re_mp4::TrackKind::Audio);
        if !is_sound {
            continue;
        }
        let entry = entries.iter().find(|e| e.track_id == track.track_id);
        let codec = match entry {
            Some(entry) => codec_of(entry, &trak.mdia.minf.stbl.stsd.contents),
            None => Err(AudioTrackError::Damaged("no sample description".into())),
        };
        let (codec, channels, rate) = match codec {
            Ok(found) => found,
            Err(e @ (AudioTrackError::Unsupported(_) | AudioTrackError::Damaged(_))) => {
                unsupported.get_or_insert(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        let edit = trak
            .edts
            .as_ref()
            .and_then(|e| e.elst.as_ref())
            .map(|elst| {
                elst.entries
                    .iter()
                    .map(|e| (e.segment_duration, e.media_time))
                    .collect::<Vec<_>>()
            });
        return build_track(
            track,
            codec,
            channels,
            rate,
            edit.as_deref(),
            movie_timescale,
            len,
        );
    }
    Err(unsupported.unwrap_or(AudioTrackError::NoTrack))
}

fn build_track(
    track: &re_mp4::Track,
    codec: AudioCodec,
    channels: u16,
    sample_rate_hz: u32,
    edit: Option<&[(u64, u64)]>,
    movie_timescale: u64,
    len: u64,
) -> Result<AudioTrack, AudioTrackError> {
    if track.timescale == 0 {
        return Err(AudioTrackError::Damaged("track timescale is 0".into()));
    }
    if track.samples.len() as u64 > MAX_SAMPLES {
        return Err(AudioTrackError::Damaged(format!(
            "{} packets",
            track.samples.len()
        )));
    }
    let mut packets = Vec::with_capacity(track.samples.len());
    for sample in &track.samples {
        let fits = sample.size <= MAX_PACKET_BYTES
            && sample
                .offset
                .checked_add(sample.size)
                .is_some_and(|end| end <= len);
        if !fits || sample.decode_timestamp < 0 {
            tracing::warn!(
                "audio packet {} lies outside the file; playing the {} before it",
                sample.id,
                packets.len()
            );
            break;
        }
        packets.push(AudioPacket {
            offset: sample.offset,
            size: sample.size as u32,
            dts_ticks: sample.decode_timestamp as u64,
            duration_ticks: sample.duration,
        });
    }
    if packets.is_empty() {
        return Err(AudioTrackError::Damaged(
            "the sound track has no packets".into(),
        ));
    }
    let timescale = track.timescale;
    let media_end = packets
        .last()
        .map_or(0, |p| p.dts_ticks.saturating_add(p.duration_ticks));

    // The first edit that shows media (an empty edit, media_time -1, only delays: ignored).
    let shown = edit.and_then(|entries| {
        entries
            .iter()
            .find(|(_, media_time)| *media_time != u64::from(u32::MAX) && *media_time != u64::MAX)
            .copied()
    });
    let (start_ticks, edit_duration_ticks) = match shown {
        Some((segment_duration, media_time)) => {
            let duration = (movie_timescale > 0 && segment_duration > 0).then(|| {
                (u128::from(segment_duration) * u128::from(timescale) / u128::from(movie_timescale))
                    .min(u128::from(u64::MAX)) as u64
            });
            (media_time.min(media_end), duration)
        }
        None => match &codec {
            AudioCodec::Opus { pre_skip, .. } => (
                (u64::from(*pre_skip) * timescale / 48_000).min(media_end),
                None,
            ),
            _ => (0, None),
        },
    };
    let available = media_end - start_ticks;
    let duration_ticks = edit_duration_ticks.map_or(available, |d| d.min(available));
    Ok(AudioTrack {
        track_id: track.track_id,
        codec,
        channels,
        sample_rate_hz,
        timescale,
        packets,
        start_ticks,
        duration_ticks,
    })
}

/// A sound sample entry's raw bytes, by track.
#[derive(Debug)]
struct SampleEntry {
    track_id: u32,
    fourcc: [u8; 4],
    /// The whole entry box, header included.
    bytes: Vec<u8>,
}

/// Walks `moov` for the first sample entry of each track (bounded, headers only except
/// for the entries themselves).
fn sample_entries<R: Read + Seek>(
    reader: &mut R,
    len: u64,
) -> Result<Vec<SampleEntry>, AudioTrackError> {
    let mut walk = EntryWalk::default();
    walk.boxes(reader, 0, len, 0)?;
    Ok(walk.entries)
}

#[derive(Default)]
struct EntryWalk {
    entries: Vec<SampleEntry>,
    track_id: u32,
}

impl EntryWalk {
    fn boxes<R: Read + Seek>(
        &mut self,
        reader: &mut R,
        start: u64,
        end: u64,
        depth: u32,
    ) -> Result<(), AudioTrackError> {
        if depth > MAX_BOX_DEPTH {
            return Ok(());
        }
        let mut pos = start;
        while end.saturating_sub(pos) >= 8 {
            reader.seek(SeekFrom::Start(pos))?;
            let mut header = [0u8; 8];
            reader.read_exact(&mut header)?;
            let size32 = u32::from_be_bytes([header[0], header[1], header[2], header[3]]);
            let kind = [header[4], header[5], header[6], header[7]];
            let (size, header_len) = match size32 {
                0 => (end - pos, 8),
                1 => {
                    let mut large = [0u8; 8];
                    reader.read_exact(&mut large)?;
                    (u64::from_be_bytes(large), 16)
                }
                n => (u64::from(n), 8),
            };
            if size < header_len || pos.saturating_add(size) > end {
                // The preflight accepted the file; a truncated tail is simply not walked.
                return Ok(());
            }
            let body = pos + header_len;
            let box_end = pos + size;
            match &kind {
                b"moov" | b"trak" | b"mdia" | b"minf" | b"stbl" => {
                    self.boxes(reader, body, box_end, depth + 1)?;
                }
                b"tkhd" => {
                    let mut version = [0u8; 1];
                    reader.read_exact(&mut version)?;
                    let id_at = if version[0] == 1 { 20 } else { 12 };
                    if size >= header_len + id_at + 4 {
                        reader.seek(SeekFrom::Start(body + id_at))?;
                        let mut id = [0u8; 4];
                        reader.read_exact(&mut id)?;
                        self.track_id = u32::from_be_bytes(id);
                    }
                }
                // Full box and entry count, then the entries: the first one is kept.
                b"stsd"
                    if size >= header_len + 16
                        && size - header_len - 8 <= MAX_ENTRY_BYTES + 8
                        && !self.entries.iter().any(|e| e.track_id == self.track_id) =>
                {
                    reader.seek(SeekFrom::Start(body + 8))?;
                    let mut entry_header = [0u8; 8];
                    reader.read_exact(&mut entry_header)?;
                    let entry_size = u64::from(u32::from_be_bytes([
                        entry_header[0],
                        entry_header[1],
                        entry_header[2],
                        entry_header[3],
                    ]));
                    if (8..=MAX_ENTRY_BYTES).contains(&entry_size)
                        && body + 8 + entry_size <= box_end
                    {
                        let mut bytes = vec![0u8; entry_size as usize];
                        reader.seek(SeekFrom::Start(body + 8))?;
                        reader.read_exact(&mut bytes)?;
                        self.entries.push(SampleEntry {
                            track_id: self.track_id,
                            fourcc: [
                                entry_header[4],
                                entry_header[5],
                                entry_header[6],
                                entry_header[7],
                            ],
                            bytes,
                        });
                    }
                }
                _ => {}
            }
            pos = box_end;
        }
        Ok(())
    }
}

/// The child boxes of a sound sample entry (after its version 0/1/2 fields), as
/// `(fourcc, payload)`; a `wave` (QuickTime) box is looked into.
fn entry_children(entry: &[u8]) -> Vec<([u8; 4], &[u8])> {
    // 8 header + 8 (reserved, data reference index) then the version.
    let version = entry
        .get(16..18)
        .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]));
    let fields_end = match version {
        1 => 8 + 28 + 16,
        2 => 8 + 28 + 36,
        _ => 8 + 28,
    };
    let mut out = Vec::new();
    if let Some(children) = entry.get(fields_end..) {
        collect_children(children, &mut out, 0);
    }
    out
}

fn collect_children<'a>(mut bytes: &'a [u8], out: &mut Vec<([u8; 4], &'a [u8])>, depth: u32) {
    while bytes.len() >= 8 && depth < 3 {
        let size = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
        let kind = [bytes[4], bytes[5], bytes[6], bytes[7]];
        if size < 8 || size > bytes.len() {
            return;
        }
        let payload = &bytes[8..size];
        if kind == *b"wave" {
            collect_children(payload, out, depth + 1);
        } else {
            out.push((kind, payload));
        }
        bytes = &bytes[size..];
    }
}

/// The sample entry's channel count and sample rate fields (16.16).
fn entry_fields(entry: &[u8]) -> (u16, u32) {
    let channels = entry
        .get(24..26)
        .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]));
    let rate = entry
        .get(32..34)
        .map_or(0, |b| u32::from(u16::from_be_bytes([b[0], b[1]])));
    (channels, rate)
}

/// Codec, channels and rate of a sample entry, or why it cannot be played.
fn codec_of(
    entry: &SampleEntry,
    parsed: &re_mp4::StsdBoxContent,
) -> Result<(AudioCodec, u16, u32), AudioTrackError> {
    let (entry_channels, entry_rate) = entry_fields(&entry.bytes);
    let children = entry_children(&entry.bytes);
    match &entry.fourcc {
        b"mp4a" => {
            let esds = children
                .iter()
                .find(|(kind, _)| kind == b"esds")
                .map(|(_, payload)| parse_esds(payload));
            let (object_type, asc) = match esds {
                Some(Some(found)) => found,
                _ => {
                    // Fall back on what `re_mp4` read of it (profile, rate index, channels).
                    let re_mp4::StsdBoxContent::Mp4a(mp4a) = parsed else {
                        return Err(AudioTrackError::Damaged("mp4a without esds".into()));
                    };
                    let Some(esds) = &mp4a.esds else {
                        return Err(AudioTrackError::Damaged("mp4a without esds".into()));
                    };
                    let d = &esds.es_desc.dec_config.dec_specific;
                    let asc = vec![
                        (d.profile << 3) | (d.freq_index >> 1),
                        (d.freq_index << 7) | (d.chan_conf << 3),
                    ];
                    (esds.es_desc.dec_config.object_type_indication, Some(asc))
                }
            };
            match object_type {
                // MPEG-4 audio, MPEG-2 AAC LC.
                0x40 | 0x67 => {
                    let asc = asc.ok_or_else(|| {
                        AudioTrackError::Damaged("AAC without an AudioSpecificConfig".into())
                    })?;
                    let config = parse_asc(&asc).ok_or_else(|| {
                        AudioTrackError::Damaged("bad AudioSpecificConfig".into())
                    })?;
                    match config.object_type {
                        2 => {}
                        5 | 29 => return Err(AudioTrackError::Unsupported("HE-AAC".into())),
                        other => {
                            return Err(AudioTrackError::Unsupported(format!(
                                "AAC object type {other}"
                            )));
                        }
                    }
                    let channels = match config.channels {
                        1 | 2 => config.channels,
                        0 => entry_channels.clamp(1, 2),
                        n => {
                            return Err(AudioTrackError::Unsupported(format!(
                                "AAC with {n} channels"
                            )));
                        }
                    };
                    let rate = if config.sample_rate_hz > 0 {
                        config.sample_rate_hz
                    } else {
                        entry_rate
                    };
                    if !(8_000..=96_000).contains(&rate) {
                        return Err(AudioTrackError::Damaged(format!("sample rate {rate} Hz")));
                    }
                    Ok((
                        AudioCodec::Aac {
                            audio_specific_config: asc,
                        },
                        channels,
                        rate,
                    ))
                }
                0x69 | 0x6B => {
                    let rate = if entry_rate > 0 { entry_rate } else { 44_100 };
                    Ok((AudioCodec::Mp3, entry_channels.clamp(1, 2), rate))
                }
                other => Err(AudioTrackError::Unsupported(format!(
                    "mp4a object type 0x{other:02x}"
                ))),
            }
        }
        b"Opus" => {
            let dops = children
                .iter()
                .find(|(kind, _)| kind == b"dOps")
                .map(|(_, payload)| *payload)
                .ok_or_else(|| AudioTrackError::Damaged("Opus without dOps".into()))?;
            if dops.len() < 11 || dops[0] != 0 {
                return Err(AudioTrackError::Damaged("bad dOps box".into()));
            }
            let channels = u16::from(dops[1]);
            let pre_skip = u16::from_be_bytes([dops[2], dops[3]]);
            let output_gain_q8 = i16::from_be_bytes([dops[8], dops[9]]);
            let family = dops[10];
            if family != 0 || !(1..=2).contains(&channels) {
                return Err(AudioTrackError::Unsupported(format!(
                    "Opus with {channels} channels (mapping family {family})"
                )));
            }
            Ok((
                AudioCodec::Opus {
                    pre_skip,
                    output_gain_q8,
                },
                channels,
                48_000,
            ))
        }
        other => Err(AudioTrackError::Unsupported(
            String::from_utf8_lossy(other).trim().to_owned(),
        )),
    }
}

/// The object type indication and the raw DecoderSpecificInfo of an `esds` payload.
fn parse_esds(payload: &[u8]) -> Option<(u8, Option<Vec<u8>>)> {
    // Version and flags, then the ES_Descriptor.
    let mut r = Descriptors::new(payload.get(4..)?);
    let (tag, es) = r.next()?;
    if tag != 0x03 {
        return None;
    }
    let flags = *es.get(2)?;
    let mut at = 3;
    if flags & 0x80 != 0 {
        at += 2; // dependsOn_ES_ID
    }
    if flags & 0x40 != 0 {
        let url_len = usize::from(*es.get(at)?);
        at += 1 + url_len;
    }
    if flags & 0x20 != 0 {
        at += 2; // OCR_ES_Id
    }
    let mut inner = Descriptors::new(es.get(at..)?);
    while let Some((tag, body)) = inner.next() {
        if tag == 0x04 {
            let object_type = *body.first()?;
            let mut specific = Descriptors::new(body.get(13..).unwrap_or_default());
            let asc = std::iter::from_fn(|| specific.next())
                .find(|(tag, _)| *tag == 0x05)
                .map(|(_, asc)| asc.to_vec());
            return Some((object_type, asc));
        }
    }
    None
}

/// MPEG-4 descriptors: a tag byte, a 1–4 byte size (7 bits a byte), the body.
struct Descriptors<'a> {
    rest: &'a [u8],
}

impl<'a> Descriptors<'a> {
    fn new(rest: &'a [u8]) -> Self {
        Self { rest }
    }

    fn next(&mut self) -> Option<(u8, &'a [u8])> {
        let (&tag, mut rest) = self.rest.split_first()?;
        let mut size = 0usize;
        for _ in 0..4 {
            let (&b, tail) = rest.split_first()?;
            rest = tail;
            size = (size << 7) | usize::from(b & 0x7f);
            if b & 0x80 == 0 {
                break;
            }
        }
        let body = rest.get(..size)?;
        self.rest = &rest[size..];
        Some((tag, body))
    }
}

/// What the studio reads of an AudioSpecificConfig.
#[derive(Debug, PartialEq, Eq)]
pub struct AscInfo {
    pub object_type: u8,
    pub sample_rate_hz: u32,
    pub channels: u16,
}

/// Parses the start of an AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1).
pub fn parse_asc(asc: &[u8]) -> Option<AscInfo> {
    const RATES: [u32; 13] = [
        96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025,
        8_000, 7_350,
    ];
    let mut bits = Bits { bytes: asc, at: 0 };
    let mut object_type = bits.read(5)? as u8;
    if object_type == 31 {
        object_type = 32 + bits.read(6)? as u8;
    }
    let rate_index = bits.read(4)? as usize;
    let sample_rate_hz = if rate_index == 15 {
        bits.read(24)?
    } else {
        RATES.get(rate_index).copied().unwrap_or(0)
    };
    let channels = bits.read(4)? as u16;
    Some(AscInfo {
        object_type,
        sample_rate_hz,
        channels,
    })
}

struct Bits<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Bits<'_> {
    fn read(&mut self, n: usize) -> Option<u32> {
        let mut value = 0u32;
        for _ in 0..n {
            let byte = self.bytes.get(self.at / 8)?;
            let bit = (byte >> (7 - self.at % 8)) & 1;
            value = (value << 1) | u32::from(bit);
            self.at += 1;
        }
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    const AAC: &[u8] = include_bytes!("../../tests/fixtures/video/h264_aac_160x90_24fps_48f.mp4");
    const OPUS: &[u8] = include_bytes!("../../tests/fixtures/video/h264_opus_160x90_24fps_48f.mp4");
    const SILENT: &[u8] =
        include_bytes!("../../tests/fixtures/video/baseline_160x90_24fps_48f.mp4");

    fn track(bytes: &[u8]) -> Result<AudioTrack, AudioTrackError> {
        find_audio_track(&mut Cursor::new(bytes), bytes.len() as u64)
    }

    #[test]
    fn aac_track_with_priming_from_the_edit_list() {
        let track = track(AAC).expect("an AAC track");
        let AudioCodec::Aac {
            audio_specific_config,
        } = &track.codec
        else {
            panic!("AAC, got {:?}", track.codec);
        };
        assert_eq!(
            parse_asc(audio_specific_config),
            Some(AscInfo {
                object_type: 2,
                sample_rate_hz: 48_000,
                channels: 2
            })
        );
        assert_eq!((track.channels, track.sample_rate_hz), (2, 48_000));
        assert_eq!(track.timescale, 48_000);
        // ffmpeg's AAC encoder primes 1024 samples and says so in `elst`.
        assert_eq!(track.start_ticks, 1024);
        assert!(
            (track.duration_secs() - 2.0).abs() < 0.001,
            "{}",
            track.duration_secs()
        );
        assert!(
            track
                .packets
                .windows(2)
                .all(|w| w[1].dts_ticks > w[0].dts_ticks)
        );
        assert_eq!(track.packet_at(0), 0);
        assert_eq!(track.packet_at(1024), 1);
        assert_eq!(track.packet_at(u64::MAX), track.packets.len() - 1);
    }

    #[test]
    fn opus_track_pre_skip_comes_from_the_edit_list_once() {
        let track = track(OPUS).expect("an Opus track");
        assert_eq!(
            track.codec,
            AudioCodec::Opus {
                pre_skip: 312,
                output_gain_q8: 0
            }
        );
        assert_eq!(track.channels, 2);
        assert_eq!(track.start_ticks, 312);
        assert!((track.duration_secs() - 2.0).abs() < 0.001);
    }

    #[test]
    fn video_without_sound_has_no_track() {
        assert!(matches!(track(SILENT), Err(AudioTrackError::NoTrack)));
    }

    #[test]
    fn hostile_bytes_are_refused_not_panicked_on() {
        assert!(track(&AAC[..300]).is_err());
        assert!(track(&[]).is_err());
        // Every byte of the sample entry flipped in turn: no panic, no hang.
        let at = AAC.windows(4).position(|w| w == b"mp4a").expect("mp4a");
        for i in at - 4..at + 90 {
            let mut bytes = AAC.to_vec();
            bytes[i] ^= 0xff;
            let _ = track(&bytes);
        }
        let at = OPUS.windows(4).position(|w| w == b"dOps").expect("dOps");
        for i in at - 40..at + 15 {
            let mut bytes = OPUS.to_vec();
            bytes[i] ^= 0x5a;
            let _ = track(&bytes);
        }
    }

    #[test]
    fn asc_parsing() {
        // AAC-LC 44.1 kHz stereo.
        assert_eq!(
            parse_asc(&[0x12, 0x10]),
            Some(AscInfo {
                object_type: 2,
                sample_rate_hz: 44_100,
                channels: 2
            })
        );
        assert_eq!(parse_asc(&[0x12]), None);
    }
}
