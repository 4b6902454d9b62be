//! Waveform peaks: per bucket the lowest and highest sample, for drawing and for the
//! disk cache next to a downloaded sound (`<name>.peaks`).

use std::path::Path;

use std::collections::VecDeque;

use symphonia::core::audio::SampleBuffer;
use symphonia::core::errors::Error as SymphoniaError;
use symphonia::core::formats::Packet;

use super::AudioError;
use super::source::{Probed, probe};

/// What a waveform draws: `buckets` evenly spread over `duration_secs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Peaks {
    pub duration_secs: f64,
    /// Per bucket (min, max) in -1..=1.
    pub buckets: Vec<(f32, f32)>,
}

/// The bucket count waveforms are computed at (and cached with).
pub const DEFAULT_BUCKETS: usize = 2000;
/// `from_bytes` refuses more buckets than this.
pub const MAX_BUCKETS: usize = 1 << 20;

const MAGIC: &[u8; 4] = b"FWPK";
const VERSION: u8 = 1;

impl Peaks {
    /// The cache file's bytes: "FWPK", version 1, duration (f64 LE), count (u32 LE), then
    /// each bucket as two i16 LE (min, max scaled by 32767).
    pub fn to_bytes(&self) -> Vec<u8> {
        let count = self.buckets.len().min(MAX_BUCKETS);
        let mut out = Vec::with_capacity(17 + count * 4);
        out.extend_from_slice(MAGIC);
        out.push(VERSION);
        out.extend_from_slice(&self.duration_secs.to_le_bytes());
        out.extend_from_slice(&(count as u32).to_le_bytes());
        for &(lo, hi) in &self.buckets[..count] {
            out.extend_from_slice(&quantize(lo).to_le_bytes());
            out.extend_from_slice(&quantize(hi).to_le_bytes());
        }
        out
    }

    /// Reads [`Peaks::to_bytes`]; None for anything else (another version, a truncated or
    /// absurd file).
    pub fn from_bytes(b: &[u8]) -> Option<Peaks> {
        if b.len() < 17 || &b[..4] != MAGIC || b[4] != VERSION {
            return None;
        }
        let duration_secs = f64::from_le_bytes(b[5..13].try_into().ok()?);
        if !duration_secs.is_finite() || duration_secs < 0.0 {
            return None;
        }
        let count = u32::from_le_bytes(b[13..17].try_into().ok()?) as usize;
        if count > MAX_BUCKETS || b.len() != 17 + count * 4 {
            return None;
        }
        let buckets = b[17..]
            .chunks_exact(4)
            .map(|c| {
                let lo = i16::from_le_bytes([c[0], c[1]]) as f32 / 32767.0;
                let hi = i16::from_le_bytes([c[2], c[3]]) as f32 / 32767.0;
                (lo.max(-1.0), hi.max(-1.0))
            })
            .collect();
        Some(Peaks {
            duration_secs,
            buckets,
        })
    }

    /// Fewer buckets: each new bucket is the min/max over the old buckets it covers.
    /// Asking for as many or more returns a copy.
    pub fn resample(&self, bucket_count: usize) -> Peaks {
        let n = self.buckets.len();
        if bucket_count == 0 || n == 0 {
            return Peaks {
                duration_secs: self.duration_secs,
                buckets: Vec::new(),
            };
        }
        if bucket_count >= n {
            return self.clone();
        }
        let buckets = (0..bucket_count)
            .map(|i| {
                let from = i * n / bucket_count;
                let to = ((i + 1) * n / bucket_count).max(from + 1);
                self.buckets[from..to]
                    .iter()
                    .fold((f32::MAX, f32::MIN), |(lo, hi), &(a, b)| {
                        (lo.min(a), hi.max(b))
                    })
            })
            .collect();
        Peaks {
            duration_secs: self.duration_secs,
            buckets,
        }
    }
}

fn quantize(v: f32) -> i16 {
    let v = if v.is_finite() {
        v.clamp(-1.0, 1.0)
    } else {
        0.0
    };
    (v * 32767.0).round() as i16
}

/// Sounds up to this long are decoded whole (exact peaks).
pub const FULL_DECODE_MAX_SECS: f64 = 60.0;
/// Longer sounds: this many packets, evenly spread over the sound, are decoded and
/// measured (each after up to two priming packets), so the cost is bounded whatever the
/// length. For MP3 a packet is one 1152-sample frame (26 ms at 44.1 kHz).
pub const SAMPLED_PACKETS: usize = 800;
/// Packets decoded (and dropped) before each measured one. One is not enough for MP3:
/// a frame's main data may start up to 511 bytes back (the bit reservoir), more than one
/// 128 kbps frame holds, and granules whose data is missing decode as silence.
const PRIMING_PACKETS: usize = 2;

/// Peaks of the sound in `path` in `bucket_count` buckets.
///
/// Up to [`FULL_DECODE_MAX_SECS`] every sample counts. Longer sounds whose duration the
/// container states are sampled: the demuxer walks every packet (reading frame headers
/// and bytes, no decoding) and [`SAMPLED_PACKETS`] of them, evenly spread, are decoded,
/// each after the two packets before it (MP3's bit reservoir and the codecs' overlapping
/// windows need them), and their samples go to the buckets they fall in. Buckets no
/// measured packet fell in are interpolated between their measured neighbours. The
/// waveform's shape (loud and quiet passages, silences longer than a bucket or two) is
/// right; a short isolated peak between measured packets can be missed.
pub fn compute_peaks(path: &Path, bucket_count: usize) -> Result<Peaks, AudioError> {
    let bucket_count = bucket_count.clamp(1, MAX_BUCKETS);
    let file = std::fs::File::open(path)?;
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    let probed = probe(Box::new(file), extension.as_deref())?;
    match probed.duration_secs {
        Some(d) if d > FULL_DECODE_MAX_SECS => sampled_peaks(probed, d, bucket_count),
        _ => full_peaks(probed, bucket_count),
    }
}

/// Peaks from every sample whatever the length (the reference the sampled method is
/// measured against; slow for long files).
pub fn compute_peaks_exact(path: &Path, bucket_count: usize) -> Result<Peaks, AudioError> {
    let bucket_count = bucket_count.clamp(1, MAX_BUCKETS);
    let file = std::fs::File::open(path)?;
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    full_peaks(probe(Box::new(file), extension.as_deref())?, bucket_count)
}

/// Every sample: fine buckets of 64 frames, shrunk to `bucket_count` at the end.
fn full_peaks(probed: Probed, bucket_count: usize) -> Result<Peaks, AudioError> {
    let mut walker = PacketWalker::new(probed);
    const FINE_FRAMES: usize = 64;
    let mut fine: Vec<(f32, f32)> = Vec::new();
    let mut frames_total = 0u64;
    let mut in_fine = 0usize;
    let mut rate_hz = walker.rate_hz;
    while let Some(packet) = walker.next_packet()? {
        let Some(decoded) = walker.decode(&packet)? else {
            continue;
        };
        rate_hz = decoded.rate_hz;
        for frame in decoded.samples.chunks_exact(decoded.channels) {
            let (lo, hi) = frame
                .iter()
                .fold((f32::MAX, f32::MIN), |(lo, hi), &s| (lo.min(s), hi.max(s)));
            if in_fine == 0 {
                fine.push((lo, hi));
            } else if let Some(last) = fine.last_mut() {
                *last = (last.0.min(lo), last.1.max(hi));
            }
            in_fine = (in_fine + 1) % FINE_FRAMES;
            frames_total += 1;
        }
    }
    if frames_total == 0 {
        return Err(AudioError::NoTrack);
    }
    let duration_secs = frames_total as f64 / rate_hz.max(1) as f64;
    let fine = Peaks {
        duration_secs,
        buckets: fine.into_iter().map(clamp_pair).collect(),
    };
    if fine.buckets.len() >= bucket_count {
        return Ok(fine.resample(bucket_count));
    }
    // Fewer fine buckets than asked (a very short sound): spread them out.
    let n = fine.buckets.len();
    Ok(Peaks {
        duration_secs,
        buckets: (0..bucket_count)
            .map(|i| fine.buckets[i * n / bucket_count])
            .collect(),
    })
}

fn clamp_pair((lo, hi): (f32, f32)) -> (f32, f32) {
    let c = |v: f32| {
        if v.is_finite() {
            v.clamp(-1.0, 1.0)
        } else {
            0.0
        }
    };
    (c(lo), c(hi))
}

/// A bounded number of packets, evenly spread (see [`compute_peaks`]).
fn sampled_peaks(
    probed: Probed,
    duration_secs: f64,
    bucket_count: usize,
) -> Result<Peaks, AudioError> {
    let mut walker = PacketWalker::new(probed);
    let mut buckets = vec![(f32::MAX, f32::MIN); bucket_count];
    let targets = SAMPLED_PACKETS;
    let priming = PRIMING_PACKETS;
    let mut next_target = 0usize;
    // The packets before the current one (priming) and the index of the last packet
    // fed to the decoder (consecutive packets need no priming).
    let mut previous: VecDeque<(u64, Packet)> = VecDeque::with_capacity(4);
    let mut last_fed: Option<u64> = None;
    let mut index = 0u64;
    let mut measured = 0usize;
    while let Some(packet) = walker.next_packet()? {
        let start = walker.ts_secs(packet.ts());
        let end = walker.ts_secs(packet.ts() + packet.dur());
        let target_secs = (next_target as f64 + 0.5) * duration_secs / targets as f64;
        if next_target < targets && end > target_secs {
            // Measure this packet.
            while next_target < targets
                && end > (next_target as f64 + 0.5) * duration_secs / targets as f64
            {
                next_target += 1;
            }
            let contiguous = last_fed.is_some_and(|l| l + 1 + previous.len() as u64 >= index);
            if !contiguous {
                walker.reset();
            }
            for (i, p) in &previous {
                if last_fed.is_none_or(|l| *i > l) {
                    // Priming: the output is dropped.
                    let _ = walker.decode(p);
                }
            }
            if let Some(decoded) = walker.decode(&packet)? {
                measured += 1;
                // The whole packet counts for the bucket its middle falls in (a bucket that
                // got only a few samples of a packet would show a sliver).
                let per_bucket = duration_secs / bucket_count as f64;
                let middle = (start + end) * 0.5;
                let b = ((middle / per_bucket).max(0.0) as usize).min(bucket_count - 1);
                let (lo, hi) = decoded
                    .samples
                    .iter()
                    .fold((f32::MAX, f32::MIN), |(lo, hi), &s| (lo.min(s), hi.max(s)));
                let slot = &mut buckets[b];
                *slot = (slot.0.min(lo), slot.1.max(hi));
            }
            last_fed = Some(index);
            previous.clear();
        } else {
            previous.push_back((index, packet));
            if previous.len() > priming {
                previous.pop_front();
            }
        }
        index += 1;
    }
    if measured == 0 {
        return Err(AudioError::NoTrack);
    }
    fill_gaps(&mut buckets);
    Ok(Peaks {
        duration_secs,
        buckets: buckets.into_iter().map(clamp_pair).collect(),
    })
}

/// Empty buckets (min > max) take values interpolated between their filled neighbours.
fn fill_gaps(buckets: &mut [(f32, f32)]) {
    let filled: Vec<usize> = (0..buckets.len())
        .filter(|&i| buckets[i].0 <= buckets[i].1)
        .collect();
    let (Some(&first), Some(&last)) = (filled.first(), filled.last()) else {
        buckets.fill((0.0, 0.0));
        return;
    };
    let first_value = buckets[first];
    let last_value = buckets[last];
    buckets[..first].fill(first_value);
    buckets[last + 1..].fill(last_value);
    for pair in filled.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (va, vb) = (buckets[a], buckets[b]);
        for (k, slot) in buckets[a + 1..b].iter_mut().enumerate() {
            let t = (k + 1) as f32 / (b - a) as f32;
            *slot = (va.0 + (vb.0 - va.0) * t, va.1 + (vb.1 - va.1) * t);
        }
    }
}

/// One decoded packet, interleaved.
struct Decoded<'a> {
    rate_hz: u32,
    channels: usize,
    samples: &'a [f32],
}

/// Packets of one track, and decoding them to interleaved f32 (all channels).
struct PacketWalker {
    probed: Probed,
    rate_hz: u32,
    decoded_channels: usize,
    sample_buf: Option<SampleBuffer<f32>>,
    bad_packets: u32,
}

impl PacketWalker {
    fn new(probed: Probed) -> PacketWalker {
        PacketWalker {
            rate_hz: probed.rate_hz,
            decoded_channels: 1,
            probed,
            sample_buf: None,
            bad_packets: 0,
        }
    }

    fn ts_secs(&self, ts: u64) -> f64 {
        match self.probed.time_base {
            Some(tb) => {
                let t = tb.calc_time(ts);
                t.seconds as f64 + t.frac
            }
            None => ts as f64 / self.rate_hz.max(1) as f64,
        }
    }

    /// The next packet of the track; None at the end.
    fn next_packet(&mut self) -> Result<Option<Packet>, AudioError> {
        loop {
            match self.probed.format.next_packet() {
                Ok(p) if p.track_id() == self.probed.track_id => return Ok(Some(p)),
                Ok(_) => continue,
                Err(SymphoniaError::IoError(e))
                    if e.kind() == std::io::ErrorKind::UnexpectedEof =>
                {
                    return Ok(None);
                }
                Err(SymphoniaError::ResetRequired) => return Ok(None),
                Err(SymphoniaError::IoError(e)) => return Err(AudioError::Io(e)),
                Err(e) => return Err(AudioError::Decode(e.to_string())),
            }
        }
    }

    fn reset(&mut self) {
        self.probed.decoder.reset();
    }

    /// Decodes `packet`; None when it does not decode (a few damaged packets are
    /// skipped; many in a row are an error).
    fn decode(&mut self, packet: &Packet) -> Result<Option<Decoded<'_>>, AudioError> {
        let decoded = match self.probed.decoder.decode(packet) {
            Ok(d) => d,
            Err(SymphoniaError::DecodeError(msg)) => {
                self.bad_packets += 1;
                if self.bad_packets > 64 {
                    return Err(AudioError::Decode(msg.to_string()));
                }
                return Ok(None);
            }
            Err(SymphoniaError::IoError(_)) => return Ok(None),
            Err(e) => return Err(AudioError::Decode(e.to_string())),
        };
        self.bad_packets = 0;
        if decoded.frames() == 0 {
            return Ok(None);
        }
        let spec = *decoded.spec();
        self.rate_hz = spec.rate;
        self.decoded_channels = spec.channels.count().max(1);
        let needed = decoded.capacity() as u64;
        let fits = self
            .sample_buf
            .as_ref()
            .is_some_and(|b| b.capacity() >= needed as usize * self.decoded_channels);
        if !fits {
            self.sample_buf = Some(SampleBuffer::new(needed, spec));
        }
        let Some(buf) = self.sample_buf.as_mut() else {
            return Ok(None);
        };
        buf.copy_interleaved_ref(decoded);
        Ok(Some(Decoded {
            rate_hz: spec.rate,
            channels: self.decoded_channels,
            samples: buf.samples(),
        }))
    }
}
