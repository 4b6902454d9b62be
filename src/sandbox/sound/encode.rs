//! MP3 (LAME, mono, 64 kbps at 22.05 kHz) behind a small ID3v2.3 tag, or 16-bit WAV with
//! a RIFF INFO title. The title always contains "SANDBOX". Speech also carries its word
//! times (a TXXX frame / a private `fwsp` RIFF chunk) so a transcription of the file
//! — even after a download and an upload — gives the words that were spoken.

use mp3lame_encoder::{Bitrate, Builder, FlushNoGap, MonoPcm, Quality};

use super::{RATE_HZ, TimedWord};

/// The TXXX description of the embedded word times.
pub(crate) const WORDS_TAG: &str = "FRAMEWRIGHT_SPEECH";
/// The WAV chunk of the embedded word times.
const WORDS_CHUNK: &[u8; 4] = b"fwsp";

/// What goes into the file's tags.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tags {
    pub title: String,
    pub words: Option<Vec<TimedWord>>,
}

/// The file format of an output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AudioFormat {
    Mp3,
    Wav,
}

impl AudioFormat {
    pub(crate) fn parse(value: &str) -> Option<AudioFormat> {
        match value.trim().to_ascii_lowercase().as_str() {
            "mp3" => Some(AudioFormat::Mp3),
            "wav" => Some(AudioFormat::Wav),
            _ => None,
        }
    }

    pub(crate) fn extension(self) -> &'static str {
        match self {
            AudioFormat::Mp3 => "mp3",
            AudioFormat::Wav => "wav",
        }
    }
}

pub(crate) fn encode(samples: &[f32], tags: &Tags, format: AudioFormat) -> Result<Vec<u8>, String> {
    match format {
        AudioFormat::Mp3 => encode_mp3(samples, tags),
        AudioFormat::Wav => Ok(encode_wav(samples, tags)),
    }
}

/// JSON with every non-ASCII character escaped, so it fits an ISO-8859-1 frame unchanged.
fn ascii_json(words: &[TimedWord]) -> String {
    let json = serde_json::to_string(words).unwrap_or_else(|_| "[]".to_owned());
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

fn id3_frame(id: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(10 + body.len());
    frame.extend_from_slice(id);
    frame.extend_from_slice(&(body.len() as u32).to_be_bytes());
    frame.extend_from_slice(&[0, 0]);
    frame.extend_from_slice(body);
    frame
}

/// An ID3v2.3 tag: TIT2 (UTF-16 with BOM), TPE1, and TXXX with the word times.
pub(crate) fn id3v2_tag(tags: &Tags) -> Vec<u8> {
    let mut frames = Vec::new();
    let utf16 = |text: &str| {
        let mut body = vec![1u8, 0xFF, 0xFE];
        for unit in text.encode_utf16() {
            body.extend_from_slice(&unit.to_le_bytes());
        }
        body
    };
    frames.extend(id3_frame(b"TIT2", &utf16(&tags.title)));
    frames.extend(id3_frame(b"TPE1", &utf16("Framewright sandbox")));
    if let Some(words) = &tags.words {
        let mut body = vec![0u8];
        body.extend_from_slice(WORDS_TAG.as_bytes());
        body.push(0);
        body.extend_from_slice(ascii_json(words).as_bytes());
        frames.extend(id3_frame(b"TXXX", &body));
    }
    let size = frames.len() as u32;
    let mut tag = Vec::with_capacity(10 + frames.len());
    tag.extend_from_slice(b"ID3\x03\x00\x00");
    // Sync-safe size: 7 bits per byte.
    tag.extend_from_slice(&[
        ((size >> 21) & 0x7F) as u8,
        ((size >> 14) & 0x7F) as u8,
        ((size >> 7) & 0x7F) as u8,
        (size & 0x7F) as u8,
    ]);
    tag.extend(frames);
    tag
}

fn encode_mp3(samples: &[f32], tags: &Tags) -> Result<Vec<u8>, String> {
    let build = |e: mp3lame_encoder::BuildError| format!("LAME setup failed: {e:?}");
    let mut builder = Builder::new().ok_or_else(|| "LAME did not start".to_owned())?;
    builder.set_num_channels(1).map_err(build)?;
    builder.set_sample_rate(RATE_HZ).map_err(build)?;
    builder.set_brate(Bitrate::Kbps64).map_err(build)?;
    builder.set_quality(Quality::Ok).map_err(build)?;
    builder.set_to_write_vbr_tag(false).map_err(build)?;
    let mut encoder = builder.build().map_err(build)?;
    let mut mp3 = id3v2_tag(tags);
    let encode = |e: mp3lame_encoder::EncodeError| format!("LAME failed: {e:?}");
    for block in samples.chunks(16_384) {
        mp3.reserve(mp3lame_encoder::max_required_buffer_size(block.len()));
        encoder
            .encode_to_vec(MonoPcm(block), &mut mp3)
            .map_err(encode)?;
    }
    mp3.reserve(7200);
    encoder
        .flush_to_vec::<FlushNoGap>(&mut mp3)
        .map_err(encode)?;
    Ok(mp3)
}

fn riff_chunk(out: &mut Vec<u8>, id: &[u8; 4], body: &[u8]) {
    out.extend_from_slice(id);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    if body.len() % 2 == 1 {
        out.push(0);
    }
}

fn encode_wav(samples: &[f32], tags: &Tags) -> Vec<u8> {
    let mut fmt = Vec::with_capacity(16);
    fmt.extend_from_slice(&1u16.to_le_bytes()); // PCM
    fmt.extend_from_slice(&1u16.to_le_bytes()); // mono
    fmt.extend_from_slice(&RATE_HZ.to_le_bytes());
    fmt.extend_from_slice(&(RATE_HZ * 2).to_le_bytes());
    fmt.extend_from_slice(&2u16.to_le_bytes());
    fmt.extend_from_slice(&16u16.to_le_bytes());
    let mut info = b"INFO".to_vec();
    let mut title = tags.title.as_bytes().to_vec();
    title.push(0);
    riff_chunk(&mut info, b"INAM", &title);
    let mut chunks = Vec::with_capacity(samples.len() * 2 + 256);
    riff_chunk(&mut chunks, b"fmt ", &fmt);
    riff_chunk(&mut chunks, b"LIST", &info);
    if let Some(words) = &tags.words {
        riff_chunk(&mut chunks, WORDS_CHUNK, ascii_json(words).as_bytes());
    }
    let data: Vec<u8> = samples
        .iter()
        .flat_map(|s| ((s.clamp(-1.0, 1.0) * 32_767.0).round() as i16).to_le_bytes())
        .collect();
    riff_chunk(&mut chunks, b"data", &data);
    let mut out = Vec::with_capacity(12 + chunks.len());
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&((4 + chunks.len()) as u32).to_le_bytes());
    out.extend_from_slice(b"WAVE");
    out.extend(chunks);
    out
}

/// The word times a sandbox speech file carries (MP3 with our TXXX frame, or WAV with
/// our chunk), if any.
pub(crate) fn embedded_words(bytes: &[u8]) -> Option<Vec<TimedWord>> {
    let json = if bytes.starts_with(b"ID3") && bytes.len() >= 10 {
        let size = bytes[6..10]
            .iter()
            .fold(0usize, |acc, b| (acc << 7) | usize::from(b & 0x7F));
        let tag = bytes.get(10..10 + size)?;
        let mut at = 0;
        let mut found = None;
        while at + 10 <= tag.len() {
            let id = &tag[at..at + 4];
            let len =
                u32::from_be_bytes([tag[at + 4], tag[at + 5], tag[at + 6], tag[at + 7]]) as usize;
            let body = tag.get(at + 10..at + 10 + len)?;
            if id == b"TXXX" && body.first() == Some(&0) {
                let rest = &body[1..];
                if let Some(nul) = rest.iter().position(|b| *b == 0)
                    && &rest[..nul] == WORDS_TAG.as_bytes()
                {
                    found = Some(&rest[nul + 1..]);
                    break;
                }
            }
            if id[0] == 0 {
                break;
            }
            at += 10 + len;
        }
        found?
    } else if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WAVE") {
        let mut at = 12;
        let mut found = None;
        while at + 8 <= bytes.len() {
            let id = &bytes[at..at + 4];
            let len =
                u32::from_le_bytes([bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7]])
                    as usize;
            if id == WORDS_CHUNK {
                found = bytes.get(at + 8..at + 8 + len);
                break;
            }
            at += 8 + len + len % 2;
        }
        found?
    } else {
        return None;
    };
    serde_json::from_slice(json).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words() -> Vec<TimedWord> {
        vec![
            TimedWord {
                text: "Grüße,".into(),
                start_secs: 0.15,
                end_secs: 0.6,
            },
            TimedWord {
                text: "world".into(),
                start_secs: 0.85,
                end_secs: 1.2,
            },
        ]
    }

    #[test]
    fn the_tag_names_the_sandbox_and_carries_words_in_both_formats() {
        let tags = Tags {
            title: "Speech · SANDBOX".into(),
            words: Some(words()),
        };
        let samples = vec![0.1f32; 22_050];
        for format in [AudioFormat::Mp3, AudioFormat::Wav] {
            let bytes = encode(&samples, &tags, format).expect("encodes");
            assert_eq!(embedded_words(&bytes), Some(words()), "{format:?}");
        }
        let mp3 = encode(
            &samples,
            &Tags {
                title: "x SANDBOX".into(),
                words: None,
            },
            AudioFormat::Mp3,
        )
        .expect("mp3");
        assert!(mp3.starts_with(b"ID3\x03"));
        assert_eq!(embedded_words(&mp3), None);
    }
}
