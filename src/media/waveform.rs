//! Waveform thumbnails: a sound file drawn as light bars on a transparent square, for the
//! Library's audio tiles (made by the thumbnail pipeline and cached on disk like any other
//! thumbnail). No egui; decoding goes through `audio` (`media → audio`, never `api`).

use super::DecodedImage;

/// Bars across a thumbnail (each bar one column group; gaps between them).
const BAR_COUNT: usize = 48;
/// Share of the height the loudest bar takes.
const FILL_SHARE: f32 = 0.62;
/// The bars' colour (light, drawn over the tile's own background).
const BAR_RGBA: [u8; 4] = [0xC9, 0xCF, 0xFF, 0xD8];

/// Extensions of the sound files the studio decodes.
const AUDIO_EXTENSIONS: [&str; 8] = ["mp3", "wav", "m4a", "aac", "ogg", "oga", "flac", "opus"];

/// Whether fetched bytes (or their URL) are a sound rather than a picture.
pub fn looks_like_audio(url: &str, bytes: &[u8]) -> bool {
    if extension(url).is_some_and(|ext| AUDIO_EXTENSIONS.contains(&ext.as_str())) {
        return true;
    }
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    starts(b"ID3")
        || starts(b"fLaC")
        || starts(b"OggS")
        || (starts(b"RIFF") && bytes.get(8..12) == Some(b"WAVE"))
        || (bytes.len() > 1 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0)
}

/// The waveform of the sound in `bytes` as a `side_px` square (its extension, from the URL,
/// helps the decoder guess). Errors are for the tile's tooltip.
pub fn waveform_thumbnail(bytes: &[u8], url: &str, side_px: u32) -> Result<DecodedImage, String> {
    let extension = extension(url);
    let (mut source, _info) =
        crate::audio::source::open_bytes(bytes.to_vec(), extension.as_deref())
            .map_err(|e| format!("this sound could not be read ({e})"))?;
    let channels = usize::from(source.channels().max(1));
    // Whole file into fine buckets (min, max), then grouped into the bars.
    let mut fine: Vec<f32> = Vec::new();
    let mut block = vec![0f32; 1024 * channels];
    loop {
        let n = source
            .read(&mut block)
            .map_err(|e| format!("this sound could not be decoded ({e})"))?;
        if n == 0 {
            break;
        }
        fine.push(
            block[..n]
                .iter()
                .fold(0.0f32, |peak, sample| peak.max(sample.abs())),
        );
    }
    if fine.is_empty() {
        return Err("this sound is empty".to_owned());
    }
    Ok(draw(&bars(&fine, BAR_COUNT), side_px.max(8)))
}

fn extension(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
}

/// `count` peak heights (0..=1, the loudest 1) from the fine peaks.
fn bars(fine: &[f32], count: usize) -> Vec<f32> {
    let mut out: Vec<f32> = (0..count)
        .map(|bar| {
            let from = bar * fine.len() / count;
            let to = ((bar + 1) * fine.len() / count)
                .max(from + 1)
                .min(fine.len());
            fine[from.min(fine.len() - 1)..to]
                .iter()
                .fold(0.0f32, |m, v| m.max(*v))
        })
        .collect();
    let loudest = out.iter().fold(0.0f32, |m, v| m.max(*v)).max(0.05);
    for v in &mut out {
        *v = (*v / loudest).clamp(0.0, 1.0);
    }
    out
}

fn draw(bars: &[f32], side: u32) -> DecodedImage {
    let (w, h) = (side as usize, side as usize);
    let mut rgba = vec![0u8; w * h * 4];
    let pitch = w as f32 / bars.len() as f32;
    let bar_width = (pitch * 0.6).max(1.0);
    let centre = h as f32 / 2.0;
    for (i, height) in bars.iter().enumerate() {
        let half = (height * FILL_SHARE * h as f32 / 2.0).max(0.75);
        let x0 = i as f32 * pitch + (pitch - bar_width) / 2.0;
        let x1 = x0 + bar_width;
        let (y0, y1) = (
            (centre - half).floor().max(0.0),
            (centre + half).ceil().min(h as f32),
        );
        for y in y0 as usize..y1 as usize {
            for x in x0.floor().max(0.0) as usize..(x1.ceil() as usize).min(w) {
                rgba[(y * w + x) * 4..(y * w + x) * 4 + 4].copy_from_slice(&BAR_RGBA);
            }
        }
    }
    DecodedImage {
        width: side,
        height: side,
        rgba,
        source_width: side,
        source_height: side,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tone_draws_bars_and_noise_is_not_a_sound() {
        let samples = crate::audio::testing::sine(1.0, 440.0, 44_100, 0.5);
        let wav = crate::audio::testing::wav_bytes(&samples, 44_100, 1);
        assert!(looks_like_audio("http://h/x", &wav));
        let image = waveform_thumbnail(&wav, "http://h/x.wav", 64).expect("waveform");
        assert_eq!((image.width, image.height), (64, 64));
        let lit = image.rgba.chunks(4).filter(|p| p[3] > 0).count();
        assert!(lit > 64 * 10, "bars are drawn ({lit} pixels)");
        assert!(!looks_like_audio("http://h/x.png", b"\x89PNG\r\n\x1a\n"));
        assert!(waveform_thumbnail(b"not a sound at all", "http://h/x.mp3", 64).is_err());
    }
}
