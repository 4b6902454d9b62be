//! Waveform peaks: per bucket the lowest and highest sample, for drawing and for the
//! disk cache next to a downloaded sound (`<name>.peaks`).

use std::path::Path;

use super::AudioError;
use super::source::open_file;

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

/// Peaks of the sound in `path` in `bucket_count` buckets.
pub fn compute_peaks(path: &Path, bucket_count: usize) -> Result<Peaks, AudioError> {
    let (mut source, info) = open_file(path)?;
    let bucket_count = bucket_count.clamp(1, MAX_BUCKETS);
    let channels = source.channels().max(1) as usize;
    let rate = source.sample_rate_hz().max(1) as f64;
    // Full decode, gathered into fine buckets, then shrunk to the asked count.
    let mut frames_total = 0usize;
    let mut per_frame_peaks: Vec<(f32, f32)> = Vec::new();
    let frames_per_fine = 256usize;
    let mut block = vec![0f32; frames_per_fine * channels];
    loop {
        let n = source.read(&mut block)?;
        if n == 0 {
            break;
        }
        let (lo, hi) = block[..n]
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &s| (lo.min(s), hi.max(s)));
        per_frame_peaks.push((lo, hi));
        frames_total += n / channels;
    }
    let duration_secs = info
        .duration_secs
        .unwrap_or(frames_total as f64 / rate)
        .max(frames_total as f64 / rate);
    let fine = Peaks {
        duration_secs,
        buckets: per_frame_peaks,
    };
    let mut peaks = fine.resample(bucket_count);
    peaks.duration_secs = frames_total as f64 / rate;
    Ok(peaks)
}
