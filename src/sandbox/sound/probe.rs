//! The length of a transcription input: an MP4's movie header when it has one, else the
//! audio track's frames as symphonia's demuxers count them (no decoding).

use std::io::Cursor;

use symphonia::core::formats::FormatOptions;
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

/// Seconds of sound (or picture, for a video without sound) in `bytes`, if it is a
/// container we can read.
pub(crate) fn duration_secs(bytes: &[u8], extension: Option<&str>) -> Option<f64> {
    if bytes.get(4..8) == Some(b"ftyp")
        && let Some(secs) = mp4_movie_secs(bytes)
    {
        return Some(secs);
    }
    symphonia_secs(bytes.to_vec(), extension)
}

fn symphonia_secs(bytes: Vec<u8>, extension: Option<&str>) -> Option<f64> {
    let stream = MediaSourceStream::new(Box::new(Cursor::new(bytes)), Default::default());
    let mut hint = Hint::new();
    if let Some(ext) = extension {
        hint.with_extension(ext);
    }
    let probed = symphonia::default::get_probe()
        .format(
            &hint,
            stream,
            &FormatOptions::default(),
            &MetadataOptions::default(),
        )
        .ok()?;
    let mut format = probed.format;
    let track = format.default_track()?;
    let track_id = track.id;
    let params = track.codec_params.clone();
    let rate = f64::from(params.sample_rate?);
    if let Some(frames) = params.n_frames {
        return Some(frames as f64 / rate);
    }
    // Count packet durations (MP3 without a Xing header has no frame count).
    let mut frames: u64 = 0;
    while let Ok(packet) = format.next_packet() {
        if packet.track_id() == track_id {
            frames += packet.dur;
        }
    }
    (frames > 0).then(|| frames as f64 / rate)
}

/// `moov/mvhd` duration ÷ timescale.
fn mp4_movie_secs(bytes: &[u8]) -> Option<f64> {
    let moov = find_box(bytes, b"moov")?;
    let mvhd = find_box(moov, b"mvhd")?;
    let version = *mvhd.first()?;
    let (timescale, duration) = if version == 1 {
        let timescale = u32::from_be_bytes(mvhd.get(20..24)?.try_into().ok()?);
        let duration = u64::from_be_bytes(mvhd.get(24..32)?.try_into().ok()?);
        (timescale, duration)
    } else {
        let timescale = u32::from_be_bytes(mvhd.get(12..16)?.try_into().ok()?);
        let duration = u32::from_be_bytes(mvhd.get(16..20)?.try_into().ok()?);
        (timescale, u64::from(duration))
    };
    (timescale > 0 && duration > 0).then(|| duration as f64 / f64::from(timescale))
}

/// The body of the first top-level box of `kind` in `bytes`.
fn find_box<'a>(bytes: &'a [u8], kind: &[u8; 4]) -> Option<&'a [u8]> {
    let mut at = 0usize;
    while at + 8 <= bytes.len() {
        let size32 = u32::from_be_bytes(bytes[at..at + 4].try_into().ok()?) as usize;
        let (header, size) = match size32 {
            1 => (
                16,
                u64::from_be_bytes(bytes.get(at + 8..at + 16)?.try_into().ok()?) as usize,
            ),
            0 => (8, bytes.len() - at),
            n => (8, n),
        };
        if size < header || at + size > bytes.len() {
            return None;
        }
        if &bytes[at + 4..at + 8] == kind {
            return Some(&bytes[at + header..at + size]);
        }
        at += size;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::encode::{AudioFormat, Tags, encode};
    use super::*;

    #[test]
    fn mp3_and_wav_lengths_are_read_back() {
        let samples = vec![0.2f32; super::super::samples_for(3.0)];
        for format in [AudioFormat::Mp3, AudioFormat::Wav] {
            let bytes = encode(
                &samples,
                &Tags {
                    title: "SANDBOX".into(),
                    words: None,
                },
                format,
            )
            .expect("encode");
            let secs = duration_secs(&bytes, Some(format.extension())).expect("duration");
            assert!((secs - 3.0).abs() < 0.2, "{format:?} {secs}");
        }
        assert_eq!(duration_secs(b"not audio at all", None), None);
    }
}
