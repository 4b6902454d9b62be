//! MP4 demuxing with `re_mp4`: the first H.264 track's geometry, timing, per-sample table
//! (decode order) and the SPS/PPS from its `avcC`, plus sample reads and AVCC → Annex B.
//!
//! `re_mp4` trusts its input: some malformed tables make it panic, and a nested box of
//! size 0 makes it loop forever. So [`preflight`] walks the box tree first (bounded, no
//! allocation from file sizes) and rejects what would hang or balloon it, and the parse
//! itself runs under `catch_unwind`.

use super::error::VideoDecodeError;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Most samples a track may have (~38 h at 30 fps); bounds the sample tables.
pub const MAX_SAMPLES: u64 = 1 << 22;
/// Largest single sample read from the file (a 4K intra frame is a few MB).
pub const MAX_SAMPLE_BYTES: u64 = 64 * 1024 * 1024;
/// Largest width or height accepted (H.264 level 6.2 tops out at 8192).
pub const MAX_SIDE_PX: u32 = 8192;
/// Box nesting deeper than this is not a real MP4.
const MAX_BOX_DEPTH: u32 = 16;

/// One coded sample (one access unit), in decode order. Times are in track ticks
/// (`timescale` per second); `cts_ticks` is shifted so the first frame shows at 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VideoSample {
    pub offset: u64,
    pub size: u32,
    pub dts_ticks: i64,
    pub cts_ticks: i64,
    pub duration_ticks: u64,
    pub is_sync: bool,
}

/// The H.264 track the player decodes, with display-order lookups precomputed.
#[derive(Clone, Debug)]
pub struct H264Track {
    pub track_id: u32,
    /// RFC 6381 codec string, e.g. `avc1.64000C`.
    pub codec: String,
    pub width: u32,
    pub height: u32,
    /// Ticks per second.
    pub timescale: u64,
    /// Presentation span of the track, in ticks.
    pub duration_ticks: u64,
    /// Bytes of the big-endian length before each NAL unit in a sample (1, 2 or 4).
    pub nal_length_size: u8,
    /// Sequence parameter sets, without start codes.
    pub sps: Vec<Vec<u8>>,
    /// Picture parameter sets, without start codes.
    pub pps: Vec<Vec<u8>>,
    samples: Vec<VideoSample>,
    /// Decode index → display index.
    display_of_sample: Vec<u32>,
    /// Display index → decode index.
    sample_of_display: Vec<u32>,
    /// `min_display_from[i]`: smallest display index among samples `i..` (`n` past the end).
    min_display_from: Vec<u32>,
    /// Decode indices of the sync samples, ascending.
    sync_samples: Vec<u32>,
    reorder_depth: u32,
}

impl H264Track {
    /// All samples, in decode order.
    pub fn samples(&self) -> &[VideoSample] {
        &self.samples
    }

    pub fn frame_count(&self) -> u32 {
        self.samples.len() as u32
    }

    pub fn duration_secs(&self) -> f64 {
        self.duration_ticks as f64 / self.timescale as f64
    }

    /// Average frame rate over the whole track.
    pub fn fps(&self) -> f64 {
        let duration_secs = self.duration_secs();
        if duration_secs > 0.0 {
            f64::from(self.frame_count()) / duration_secs
        } else {
            0.0
        }
    }

    /// Display index of the sample at `sample_index` (decode order).
    pub fn display_index(&self, sample_index: u32) -> Option<u32> {
        self.display_of_sample.get(sample_index as usize).copied()
    }

    /// Decode index of the frame shown at `display_index`.
    pub fn sample_index(&self, display_index: u32) -> Option<u32> {
        self.sample_of_display.get(display_index as usize).copied()
    }

    /// Presentation time of a frame in display order (0 for an index past the end).
    pub fn pts_secs(&self, display_index: u32) -> f64 {
        self.sample_index(display_index)
            .and_then(|s| self.samples.get(s as usize))
            .map_or(0.0, |s| s.cts_ticks as f64 / self.timescale as f64)
    }

    /// How long a frame stays on screen: up to the next frame, or to the end for the last.
    pub fn frame_duration_secs(&self, display_index: u32) -> f64 {
        let pts_secs = self.pts_secs(display_index);
        let end_secs = if display_index + 1 < self.frame_count() {
            self.pts_secs(display_index + 1)
        } else {
            self.duration_secs()
        };
        (end_secs - pts_secs).max(0.0)
    }

    /// The frame on screen at `time_secs` (clamped to the first and last frame).
    pub fn frame_at_secs(&self, time_secs: f64) -> u32 {
        let ticks = time_secs * self.timescale as f64;
        // Frames whose pts is <= t; pts are ascending in display order.
        let shown = self.sample_of_display.partition_point(|&s| {
            self.samples
                .get(s as usize)
                .is_some_and(|s| s.cts_ticks as f64 <= ticks)
        });
        (shown as u32).saturating_sub(1)
    }

    /// Decode indices of the sync samples, ascending.
    pub fn sync_samples(&self) -> &[u32] {
        &self.sync_samples
    }

    /// Sync samples a decode for `display_index` may start from, best first: the latest at or
    /// before its sample (decode order) that is also shown no later than it (so an open-GOP
    /// keyframe whose leading pictures include the target is passed over).
    pub fn seek_candidates(&self, display_index: u32) -> impl Iterator<Item = u32> + '_ {
        let target_sample = self.sample_index(display_index).unwrap_or(0);
        let before = self.sync_samples.partition_point(|&s| s <= target_sample);
        self.sync_samples[..before]
            .iter()
            .rev()
            .copied()
            .filter(move |&s| self.display_index(s).is_some_and(|d| d <= display_index))
    }

    /// Smallest display index among the samples from `sample_index` on (decode order).
    pub fn min_display_from(&self, sample_index: u32) -> u32 {
        self.min_display_from
            .get(sample_index as usize)
            .copied()
            .unwrap_or(self.frame_count())
    }

    /// Most frames a decoder must hold back to emit in display order when decoding from the
    /// start: 0 without B-frames, typically 1–3 with them.
    pub fn reorder_depth(&self) -> u32 {
        self.reorder_depth
    }
}

/// Where sample bytes come from: the whole file in memory, or read on demand.
enum SampleSource {
    Bytes(Vec<u8>),
    File(File),
}

/// An opened MP4: its H.264 track and a way to read samples.
pub struct Mp4Demuxer {
    track: H264Track,
    source: SampleSource,
    source_len: u64,
}

impl std::fmt::Debug for Mp4Demuxer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mp4Demuxer")
            .field("track", &self.track)
            .field("source_len", &self.source_len)
            .finish_non_exhaustive()
    }
}

impl Mp4Demuxer {
    /// Opens a file; only the box tree is read now, samples are read as they are decoded.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, VideoDecodeError> {
        let path = path.as_ref();
        let io_error = |source| VideoDecodeError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io_error)?;
        let source_len = file.metadata().map_err(io_error)?.len();
        let track = read_track(&mut BufReader::new(&file), source_len)?;
        Ok(Self {
            track,
            source: SampleSource::File(file),
            source_len,
        })
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, VideoDecodeError> {
        let source_len = bytes.len() as u64;
        let track = read_track(&mut std::io::Cursor::new(bytes.as_slice()), source_len)?;
        Ok(Self {
            track,
            source: SampleSource::Bytes(bytes),
            source_len,
        })
    }

    pub fn track(&self) -> &H264Track {
        &self.track
    }

    /// Whether the sample at `sample_index` holds an IDR slice, reading only NAL headers.
    pub fn is_idr_sample(&mut self, sample_index: u32) -> Result<bool, VideoDecodeError> {
        let sample = self.sample(sample_index)?;
        let prefix_len = u64::from(self.track.nal_length_size);
        let end = sample.offset + u64::from(sample.size);
        let mut pos = sample.offset;
        // Length prefix plus the NAL header byte.
        let mut head = [0u8; 5];
        let head_len = prefix_len as usize + 1;
        while pos + prefix_len < end {
            match &mut self.source {
                SampleSource::Bytes(bytes) => {
                    let at = pos as usize;
                    let Some(found) = bytes.get(at..at + head_len) else {
                        return Ok(false);
                    };
                    head[..head_len].copy_from_slice(found);
                }
                SampleSource::File(file) => {
                    file.seek(SeekFrom::Start(pos))?;
                    file.read_exact(&mut head[..head_len])?;
                }
            }
            let nal_len = head[..head_len - 1]
                .iter()
                .fold(0u64, |len, &byte| (len << 8) | u64::from(byte));
            if nal_len > 0 && head[head_len - 1] & 0x1f == 5 {
                return Ok(true);
            }
            pos += prefix_len + nal_len;
        }
        Ok(false)
    }

    fn sample(&self, sample_index: u32) -> Result<VideoSample, VideoDecodeError> {
        self.track
            .samples
            .get(sample_index as usize)
            .copied()
            .ok_or_else(|| {
                VideoDecodeError::Container(format!("sample {sample_index} does not exist"))
            })
    }

    /// Reads the sample at `sample_index` (decode order) into `out`, as stored (AVCC).
    pub fn read_sample(
        &mut self,
        sample_index: u32,
        out: &mut Vec<u8>,
    ) -> Result<(), VideoDecodeError> {
        let sample = self.sample(sample_index)?;
        // Bounds were checked when the track was built.
        let size = sample.size as usize;
        out.clear();
        match &mut self.source {
            SampleSource::Bytes(bytes) => {
                let start = usize::try_from(sample.offset)
                    .map_err(|_| VideoDecodeError::Container("sample offset too large".into()))?;
                let data = bytes.get(start..start + size).ok_or_else(|| {
                    VideoDecodeError::Container(format!("sample {sample_index} is out of bounds"))
                })?;
                out.extend_from_slice(data);
            }
            SampleSource::File(file) => {
                out.resize(size, 0);
                file.seek(SeekFrom::Start(sample.offset))?;
                file.read_exact(out)?;
            }
        }
        Ok(())
    }
}

/// Checks, parses and indexes the first H.264 track of the MP4 in `reader`.
fn read_track<R: Read + Seek>(reader: &mut R, len: u64) -> Result<H264Track, VideoDecodeError> {
    let (mp4, preflight) = parse_guarded(reader, len)?;
    track_from_mp4(&mp4, &preflight, len)
}

/// [`preflight`], then `re_mp4`'s parse of what passed it, its panics caught: the one safe
/// way into `re_mp4` for a file from elsewhere (also used for the audio track).
pub(crate) fn parse_guarded<R: Read + Seek>(
    reader: &mut R,
    len: u64,
) -> Result<(re_mp4::Mp4, Preflight), VideoDecodeError> {
    let preflight = preflight(reader, len)?;
    reader.seek(SeekFrom::Start(0))?;
    // `re_mp4` indexes its tables without checks; its panics mean "malformed", not a bug here.
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        re_mp4::Mp4::read(&mut *reader, preflight.parse_len)
    }));
    let mp4 = match parsed {
        Ok(Ok(mp4)) => mp4,
        Ok(Err(e)) => return Err(VideoDecodeError::Container(e.to_string())),
        Err(panic) => {
            let detail = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            return Err(VideoDecodeError::Container(format!(
                "inconsistent sample tables ({detail})"
            )));
        }
    };
    Ok((mp4, preflight))
}

/// Finds the first H.264 track and builds its tables.
fn track_from_mp4(
    mp4: &re_mp4::Mp4,
    preflight: &Preflight,
    len: u64,
) -> Result<H264Track, VideoDecodeError> {
    let mut unsupported: Option<String> = None;
    for track in mp4.tracks().values() {
        let Some(trak) = mp4
            .moov
            .traks
            .iter()
            .find(|t| t.tkhd.track_id == track.track_id)
        else {
            continue;
        };
        let stsd = &trak.mdia.minf.stbl.stsd.contents;
        let is_video = track.kind == Some(re_mp4::TrackKind::Video)
            || trak.mdia.hdlr.handler_type.value == *b"vide";
        let (config, codec, entry_size) = match stsd {
            re_mp4::StsdBoxContent::Avc1(avc1) => {
                let avcc = &avc1.avcc.contents;
                let config = AvcConfig {
                    nal_length_size: (avcc.length_size_minus_one & 3) + 1,
                    sps: avcc
                        .sequence_parameter_sets
                        .iter()
                        .map(|n| n.bytes.clone())
                        .collect(),
                    pps: avcc
                        .picture_parameter_sets
                        .iter()
                        .map(|n| n.bytes.clone())
                        .collect(),
                    profile_level: None,
                };
                let codec = stsd.codec_string().unwrap_or_else(|| "avc1".to_owned());
                (config, codec, Some((avc1.width, avc1.height)))
            }
            // `re_mp4` does not parse `avc3`; the preflight walk kept its `avcC`.
            re_mp4::StsdBoxContent::Unknown(fourcc) if fourcc.value == *b"avc3" => {
                let Some((_, config)) = preflight
                    .avc3_configs
                    .iter()
                    .find(|(id, _)| *id == track.track_id)
                else {
                    return Err(VideoDecodeError::Container(
                        "avc3 sample entry without a readable avcC".into(),
                    ));
                };
                let codec = match config.profile_level {
                    Some([p, c, l]) => format!("avc3.{p:02X}{c:02X}{l:02X}"),
                    None => "avc3".to_owned(),
                };
                (config.clone(), codec, None)
            }
            other => {
                if is_video && unsupported.is_none() {
                    let codec = match other {
                        re_mp4::StsdBoxContent::Unknown(fourcc) => fourcc.to_string(),
                        known => known.codec_string().unwrap_or_else(|| "unknown".to_owned()),
                    };
                    unsupported = Some(codec);
                }
                continue;
            }
        };
        let (width, height) = entry_size
            .filter(|&(w, h)| w > 0 && h > 0)
            .unwrap_or((track.width, track.height));
        return build_track(
            track,
            codec,
            u32::from(width),
            u32::from(height),
            config,
            len,
        );
    }
    Err(match unsupported {
        Some(codec) => VideoDecodeError::UnsupportedCodec { codec },
        None => VideoDecodeError::NoVideoTrack,
    })
}

fn build_track(
    track: &re_mp4::Track,
    codec: String,
    width: u32,
    height: u32,
    config: AvcConfig,
    len: u64,
) -> Result<H264Track, VideoDecodeError> {
    // `avc1` keeps its parameter sets in the sample entry; `avc3` may carry them in-band.
    if (config.sps.is_empty() || config.pps.is_empty()) && codec.starts_with("avc1") {
        return Err(VideoDecodeError::MissingParameterSets);
    }
    if width > MAX_SIDE_PX || height > MAX_SIDE_PX {
        return Err(VideoDecodeError::TooLarge(format!(
            "{width}x{height} px (at most {MAX_SIDE_PX} a side)"
        )));
    }
    if track.timescale == 0 {
        return Err(VideoDecodeError::Container("track timescale is 0".into()));
    }
    if track.samples.len() as u64 > MAX_SAMPLES {
        return Err(VideoDecodeError::TooLarge(format!(
            "{} samples (at most {MAX_SAMPLES})",
            track.samples.len()
        )));
    }

    // A truncated file keeps the samples that are wholly inside it (decode order).
    let mut samples = Vec::with_capacity(track.samples.len());
    for sample in &track.samples {
        let fits = sample.size <= MAX_SAMPLE_BYTES
            && sample
                .offset
                .checked_add(sample.size)
                .is_some_and(|end| end <= len);
        if !fits {
            tracing::warn!(
                "video sample {} lies outside the file; playing the {} before it",
                sample.id,
                samples.len()
            );
            break;
        }
        samples.push(VideoSample {
            offset: sample.offset,
            size: sample.size as u32,
            dts_ticks: sample.decode_timestamp,
            cts_ticks: sample.composition_timestamp,
            duration_ticks: sample.duration,
            is_sync: sample.is_sync,
        });
    }
    if samples.is_empty() {
        return Err(VideoDecodeError::NoFrames);
    }

    let n = samples.len();
    let mut sample_of_display: Vec<u32> = (0..n as u32).collect();
    sample_of_display.sort_by_key(|&s| (samples[s as usize].cts_ticks, s));
    let mut display_of_sample = vec![0u32; n];
    for (display, &sample) in sample_of_display.iter().enumerate() {
        display_of_sample[sample as usize] = display as u32;
    }
    let mut min_display_from = vec![n as u32; n + 1];
    for i in (0..n).rev() {
        min_display_from[i] = min_display_from[i + 1].min(display_of_sample[i]);
    }
    // After feeding samples 0..=i, frames shown before `min_display_from[i + 1]` can go out;
    // the rest wait.
    let reorder_depth = (0..n)
        .map(|i| (i as u32 + 1).saturating_sub(min_display_from[i + 1]))
        .max()
        .unwrap_or(0);
    let sync_samples = samples
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_sync)
        .map(|(i, _)| i as u32)
        .collect();

    let duration_ticks = presentation_end_ticks(&samples, &sample_of_display);
    Ok(H264Track {
        track_id: track.track_id,
        codec,
        width,
        height,
        timescale: track.timescale,
        duration_ticks,
        nal_length_size: config.nal_length_size,
        sps: config.sps,
        pps: config.pps,
        samples,
        display_of_sample,
        sample_of_display,
        min_display_from,
        sync_samples,
        reorder_depth,
    })
}

/// End of the last frame shown. The container's own duration of the last sample is not
/// trusted (`re_mp4` derives it from `mdhd`); past ten typical frames it is replaced by the
/// typical frame duration.
fn presentation_end_ticks(samples: &[VideoSample], sample_of_display: &[u32]) -> u64 {
    let pts = |display: usize| {
        sample_of_display
            .get(display)
            .and_then(|&s| samples.get(s as usize))
            .map_or(0, |s| s.cts_ticks)
    };
    let mut deltas: Vec<u64> = (1..sample_of_display.len())
        .map(|d| pts(d).saturating_sub(pts(d - 1)).max(0) as u64)
        .filter(|&d| d > 0)
        .collect();
    deltas.sort_unstable();
    let typical = deltas.get(deltas.len() / 2).copied().unwrap_or(1);
    let last = sample_of_display.len().saturating_sub(1);
    let last_duration = sample_of_display
        .get(last)
        .and_then(|&s| samples.get(s as usize))
        .map_or(typical, |s| s.duration_ticks);
    let last_duration = if last_duration == 0 || last_duration > typical.saturating_mul(10) {
        typical
    } else {
        last_duration
    };
    (pts(last).max(0) as u64).saturating_add(last_duration)
}

/// `avcC` contents: NAL length size and parameter sets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AvcConfig {
    pub nal_length_size: u8,
    pub sps: Vec<Vec<u8>>,
    pub pps: Vec<Vec<u8>>,
    /// Profile, compatibility and level bytes, for the codec string.
    profile_level: Option<[u8; 3]>,
}

/// Parses an `AVCDecoderConfigurationRecord` (ISO/IEC 14496-15 §5.3.3.1), the `avcC` payload.
pub fn parse_avcc(record: &[u8]) -> Option<AvcConfig> {
    let header = record.get(..6)?;
    let mut config = AvcConfig {
        nal_length_size: (header[4] & 3) + 1,
        profile_level: Some([header[1], header[2], header[3]]),
        ..AvcConfig::default()
    };
    let mut pos = 6;
    let read_sets = |count: usize, pos: &mut usize| -> Option<Vec<Vec<u8>>> {
        let mut sets = Vec::with_capacity(count);
        for _ in 0..count {
            let len_bytes = record.get(*pos..*pos + 2)?;
            let len = usize::from(u16::from_be_bytes([len_bytes[0], len_bytes[1]]));
            sets.push(record.get(*pos + 2..*pos + 2 + len)?.to_vec());
            *pos += 2 + len;
        }
        Some(sets)
    };
    config.sps = read_sets(usize::from(header[5] & 0x1f), &mut pos)?;
    let pps_count = usize::from(*record.get(pos)?);
    pos += 1;
    config.pps = read_sets(pps_count, &mut pos)?;
    Some(config)
}

/// Annex B start code put before every NAL unit for openh264.
pub const START_CODE: [u8; 4] = [0, 0, 0, 1];

/// Appends the length-prefixed NAL units of `sample` to `out` as Annex B (start codes).
/// Emulation-prevention bytes are already in MP4 NAL units, so payloads copy as they are.
pub fn avcc_to_annexb(
    sample: &[u8],
    nal_length_size: u8,
    out: &mut Vec<u8>,
) -> Result<(), &'static str> {
    for nal in nal_units(sample, nal_length_size) {
        let nal = nal?;
        if !nal.is_empty() {
            out.extend_from_slice(&START_CODE);
            out.extend_from_slice(nal);
        }
    }
    Ok(())
}

/// The NAL units of an AVCC sample; an `Err` item ends the walk at a bad length.
fn nal_units(
    sample: &[u8],
    nal_length_size: u8,
) -> impl Iterator<Item = Result<&[u8], &'static str>> {
    let prefix_len = usize::from(nal_length_size);
    let mut rest = sample;
    let mut failed = false;
    std::iter::from_fn(move || {
        if rest.is_empty() || failed {
            return None;
        }
        if !(1..=4).contains(&prefix_len) || rest.len() < prefix_len {
            failed = true;
            return Some(Err("NAL length prefix runs past the sample"));
        }
        let (prefix, body) = rest.split_at(prefix_len);
        let nal_len = prefix
            .iter()
            .fold(0usize, |len, &byte| (len << 8) | usize::from(byte));
        if nal_len > body.len() {
            failed = true;
            return Some(Err("NAL unit runs past the sample"));
        }
        let (nal, tail) = body.split_at(nal_len);
        rest = tail;
        Some(Ok(nal))
    })
}

/// What the preflight walk learned besides "safe to parse".
#[derive(Debug, Default)]
pub struct Preflight {
    /// `avcC` of `avc3` sample entries, by track id (`re_mp4` leaves `avc3` unparsed).
    pub avc3_configs: Vec<(u32, AvcConfig)>,
    fragment_samples: u64,
    current_track_id: u32,
    file_len: u64,
    /// Bytes to hand `re_mp4`: the file up to a truncated last box.
    parse_len: u64,
}

/// Walks the box tree `re_mp4` will parse and rejects what would make it hang (a nested box
/// of size 0 or smaller than its header) or build huge tables (sample counts past
/// [`MAX_SAMPLES`]). Reads headers and a few fields only.
pub fn preflight<R: Read + Seek>(reader: &mut R, len: u64) -> Result<Preflight, VideoDecodeError> {
    let mut state = Preflight {
        file_len: len,
        parse_len: len,
        ..Preflight::default()
    };
    walk_boxes(reader, 0, len, 0, *b"root", &mut state)?;
    Ok(state)
}

fn malformed(what: &str) -> VideoDecodeError {
    VideoDecodeError::Container(what.to_owned())
}

/// Children of a box start right after its header except for these, which have fields
/// (version/flags, entry counts, sample-entry fields) first. `None`: not walked.
fn children_offset(kind: &[u8; 4], payload: &[u8]) -> Option<u64> {
    match kind {
        b"moov" | b"trak" | b"edts" | b"mdia" | b"minf" | b"dinf" | b"stbl" | b"mvex" | b"moof"
        | b"traf" | b"udta" | b"ilst" | b"mfra" | b"sinf" | b"schi" => Some(0),
        // Full box in ISO files, plain container in QuickTime ones (then `hdlr` comes first).
        b"meta" => Some(if payload.get(4..8) == Some(b"hdlr") {
            0
        } else {
            4
        }),
        b"stsd" | b"dref" => Some(8),
        // Visual sample entries: 78 bytes of fields before their child boxes.
        b"avc1" | b"avc3" | b"hvc1" | b"hev1" | b"av01" | b"vp08" | b"vp09" | b"mp4v" | b"encv" => {
            Some(78)
        }
        // Audio sample entries (version 0).
        b"mp4a" | b"enca" => Some(28),
        _ => None,
    }
}

fn walk_boxes<R: Read + Seek>(
    reader: &mut R,
    start: u64,
    end: u64,
    depth: u32,
    parent: [u8; 4],
    state: &mut Preflight,
) -> Result<(), VideoDecodeError> {
    if depth > MAX_BOX_DEPTH {
        return Err(malformed("boxes nested too deeply"));
    }
    let top_level = depth == 0;
    let mut pos = start;
    while end.saturating_sub(pos) >= 8 {
        reader.seek(SeekFrom::Start(pos))?;
        let mut header = [0u8; 8];
        reader.read_exact(&mut header)?;
        let size32 = u32::from_be_bytes([header[0], header[1], header[2], header[3]]);
        let kind = [header[4], header[5], header[6], header[7]];
        let (size, header_len) = match size32 {
            // "To the end of the file": only meaningful (and only stopped at) top level.
            0 if top_level => break,
            0 => return Err(malformed("box of size 0 inside another box")),
            1 => {
                let mut large = [0u8; 8];
                reader.read_exact(&mut large)?;
                (u64::from_be_bytes(large), 16)
            }
            n => (u64::from(n), 8),
        };
        if size < header_len {
            return Err(malformed("box smaller than its header"));
        }
        let box_end = pos.saturating_add(size);
        if box_end > end {
            if top_level {
                // A truncated last box (usually `mdat`): `re_mp4` parses up to it, and the
                // samples past the end are dropped when the track is built.
                state.parse_len = pos;
                break;
            }
            return Err(malformed("box runs past its parent"));
        }
        let payload_start = pos + header_len;
        let payload_len = box_end - payload_start;
        // Enough of the payload for the fields read below.
        let mut payload = [0u8; 16];
        let peek = payload_len.min(payload.len() as u64) as usize;
        reader.read_exact(&mut payload[..peek])?;
        let payload = &payload[..peek];
        match &kind {
            b"tkhd" => {
                let id_at = if payload.first() == Some(&1) { 20 } else { 12 };
                // Fields past the 16 peeked bytes: read the id where it is.
                reader.seek(SeekFrom::Start(payload_start + id_at))?;
                let mut id = [0u8; 4];
                if payload_len >= id_at + 4 {
                    reader.read_exact(&mut id)?;
                }
                state.current_track_id = u32::from_be_bytes(id);
            }
            b"stsz" => {
                let count = payload
                    .get(8..12)
                    .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
                let constant_size = payload
                    .get(4..8)
                    .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
                let too_many = u64::from(count) > MAX_SAMPLES
                    || (constant_size > 0
                        && u64::from(count).saturating_mul(u64::from(constant_size))
                            > state.file_len);
                if too_many {
                    return Err(VideoDecodeError::TooLarge(format!(
                        "sample table of {count} samples"
                    )));
                }
            }
            b"trun" => {
                let count = payload
                    .get(4..8)
                    .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
                state.fragment_samples = state.fragment_samples.saturating_add(u64::from(count));
                if state.fragment_samples > MAX_SAMPLES {
                    return Err(VideoDecodeError::TooLarge(format!(
                        "fragments of {} samples",
                        state.fragment_samples
                    )));
                }
            }
            // Only `avc3` needs this (see `Preflight::avc3_configs`); small, so read whole.
            b"avcC" if parent == *b"avc3" && payload_len <= 64 * 1024 => {
                reader.seek(SeekFrom::Start(payload_start))?;
                let mut record = vec![0u8; payload_len as usize];
                reader.read_exact(&mut record)?;
                if let Some(config) = parse_avcc(&record) {
                    state.avc3_configs.push((state.current_track_id, config));
                }
            }
            _ => {}
        }
        if let Some(offset) = children_offset(&kind, payload)
            && offset <= payload_len
        {
            walk_boxes(
                reader,
                payload_start + offset,
                box_end,
                depth + 1,
                kind,
                state,
            )?;
        }
        pos = box_end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::test_fixtures::{BASELINE, BFRAMES, HEVC, MPEG4_PART2, OPEN_GOP};
    use super::*;

    #[test]
    fn baseline_track_metadata() {
        let demuxer = Mp4Demuxer::from_bytes(BASELINE.to_vec()).expect("baseline opens");
        let track = demuxer.track();
        assert_eq!((track.width, track.height), (160, 90));
        assert_eq!(track.frame_count(), 48);
        assert!((track.fps() - 24.0).abs() < 1e-9, "fps {}", track.fps());
        assert!((track.duration_secs() - 2.0).abs() < 1e-9);
        assert!(track.codec.starts_with("avc1.42"), "{}", track.codec);
        assert_eq!(track.nal_length_size, 4);
        assert_eq!(track.sps.len(), 1);
        assert_eq!(track.pps.len(), 1);
        // No B-frames: decode order is display order.
        assert_eq!(track.reorder_depth(), 0);
        assert_eq!(track.sync_samples(), &[0, 12, 24, 36]);
        for (i, s) in track.samples().iter().enumerate() {
            assert_eq!(track.display_index(i as u32), Some(i as u32));
            assert_eq!(s.dts_ticks, s.cts_ticks);
        }
    }

    #[test]
    fn bframe_track_has_reordering() {
        let demuxer = Mp4Demuxer::from_bytes(BFRAMES.to_vec()).expect("B-frame file opens");
        let track = demuxer.track();
        assert_eq!(track.frame_count(), 48);
        assert!(track.codec.starts_with("avc1.64"), "{}", track.codec);
        assert!(track.reorder_depth() >= 1);
        assert!(
            (0..48).any(|i| track.display_index(i) != Some(i)),
            "decode order should differ from display order"
        );
        // pts strictly increase in display order, starting at 0.
        assert_eq!(track.pts_secs(0), 0.0);
        for d in 1..48 {
            assert!(track.pts_secs(d) > track.pts_secs(d - 1));
        }
        assert_eq!(track.frame_at_secs(1.0), 24);
        assert_eq!(track.frame_at_secs(1.0 - 1e-6), 23);
        assert_eq!(track.frame_at_secs(-5.0), 0);
        assert_eq!(track.frame_at_secs(99.0), 47);
        // Every candidate is a sync sample shown no later than the target.
        for d in 0..48 {
            let start = track.seek_candidates(d).next().expect("a keyframe");
            assert!(track.samples()[start as usize].is_sync);
            assert!(track.display_index(start).is_some_and(|s| s <= d));
        }
    }

    #[test]
    fn open_gop_keyframes_are_sync_but_not_idr() {
        let mut demuxer = Mp4Demuxer::from_bytes(OPEN_GOP.to_vec()).expect("opens");
        let syncs = demuxer.track().sync_samples().to_vec();
        assert!(syncs.len() >= 4, "{syncs:?}");
        assert!(demuxer.is_idr_sample(0).expect("readable"));
        for &sync in &syncs[1..] {
            assert!(!demuxer.is_idr_sample(sync).expect("readable"));
        }
        // A leading B-frame shows before its keyframe: that keyframe is no candidate for it.
        let track = demuxer.track();
        let keyframe = syncs[1];
        let key_display = track.display_index(keyframe).expect("in range");
        let leading = track.display_index(keyframe + 1).expect("in range");
        assert!(leading < key_display);
        assert!(track.seek_candidates(leading).all(|s| s < keyframe));
    }

    #[test]
    fn non_h264_is_unsupported_codec() {
        for (bytes, expected) in [(HEVC, "hvc1"), (MPEG4_PART2, "mp4v")] {
            match Mp4Demuxer::from_bytes(bytes.to_vec()) {
                Err(VideoDecodeError::UnsupportedCodec { codec }) => {
                    assert!(codec.starts_with(expected), "{codec}");
                }
                other => panic!("expected UnsupportedCodec, got {other:?}"),
            }
        }
    }

    #[test]
    fn avc3_entry_is_read_through_preflight() {
        // Same file with its sample entry renamed: `re_mp4` no longer parses it.
        let bytes = super::super::test_fixtures::as_avc3(BASELINE);
        let demuxer = Mp4Demuxer::from_bytes(bytes).expect("avc3 opens");
        let track = demuxer.track();
        assert!(track.codec.starts_with("avc3.42"), "{}", track.codec);
        assert_eq!(track.sps.len(), 1);
        assert_eq!(track.frame_count(), 48);
    }

    #[test]
    fn annexb_conversion() {
        let sample = [0, 0, 0, 2, 0x65, 0xAA, 0, 0, 0, 0, 0, 0, 0, 1, 0x06];
        let mut out = Vec::new();
        avcc_to_annexb(&sample, 4, &mut out).expect("valid sample");
        assert_eq!(out, [0, 0, 0, 1, 0x65, 0xAA, 0, 0, 0, 1, 0x06]);
        let mut out = Vec::new();
        assert!(avcc_to_annexb(&[0, 0, 0, 9, 0x65], 4, &mut out).is_err());
        assert!(avcc_to_annexb(&[0, 0], 4, &mut out).is_err());
        assert!(avcc_to_annexb(&[1, 0x65], 3, &mut out).is_err());
    }

    #[test]
    fn nested_zero_size_box_is_rejected_not_looped() {
        // `re_mp4` would spin forever on this; the preflight refuses it.
        let mut bytes = BASELINE.to_vec();
        let at = bytes.windows(4).position(|w| w == b"vmhd").expect("vmhd") - 4;
        bytes[at..at + 4].copy_from_slice(&[0, 0, 0, 0]);
        assert!(matches!(
            Mp4Demuxer::from_bytes(bytes),
            Err(VideoDecodeError::Container(_))
        ));
    }

    #[test]
    fn truncated_file_keeps_whole_samples() {
        // faststart: moov first, so cutting the tail loses only the last samples.
        let cut = BASELINE.len() - 3000;
        let demuxer = Mp4Demuxer::from_bytes(BASELINE[..cut].to_vec()).expect("prefix opens");
        let count = demuxer.track().frame_count();
        assert!(count > 0 && count < 48, "{count}");
        assert!(Mp4Demuxer::from_bytes(BASELINE[..200].to_vec()).is_err());
        assert!(Mp4Demuxer::from_bytes(Vec::new()).is_err());
    }

    #[test]
    fn open_from_path_reads_same_samples() {
        let path =
            std::env::temp_dir().join(format!("framewright-demux-test-{}.mp4", std::process::id()));
        std::fs::write(&path, BASELINE).expect("temp file written");
        let opened = Mp4Demuxer::open(&path);
        let _ = std::fs::remove_file(&path);
        let mut from_file = opened.expect("opens from path");
        let mut from_bytes = Mp4Demuxer::from_bytes(BASELINE.to_vec()).expect("opens");
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in [0, 1, 11, 12, 47] {
            from_file.read_sample(i, &mut a).expect("file sample");
            from_bytes.read_sample(i, &mut b).expect("bytes sample");
            assert_eq!(a, b);
            // Keyframes of these x264 files are IDRs.
            let is_idr = i % 12 == 0;
            assert_eq!(from_file.is_idr_sample(i).expect("file headers"), is_idr);
            assert_eq!(from_bytes.is_idr_sample(i).expect("byte headers"), is_idr);
        }
        assert!(matches!(
            Mp4Demuxer::open("/nonexistent/video.mp4"),
            Err(VideoDecodeError::Io { .. })
        ));
    }
}
