//! A local file is looked at before it is uploaded as a job's source, so that a picture,
//! clip or sound the service could not use is refused at its field with words, and nothing
//! is sent: a decompression bomb (a huge declared size in a tiny file), a cut-off MP4, a
//! sound that is not one. By extension, as the forms sort files.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::image_codec::{self, DecodeBudget};

/// Video containers walked box by box (the ISO family); others are sent as they are.
const ISO_VIDEO_EXTENSIONS: [&str; 3] = ["mp4", "mov", "m4v"];
/// A sound whose decoded length is under this share of what its header says was cut off.
const MIN_DECODED_SHARE: f64 = 0.9;
/// Samples decoded per read while checking a sound.
const READ_CHUNK_SAMPLES: usize = 16_384;

/// [`check_source_file`] on the blocking pool, as the error a refused upload carries
/// ("Not sent: bomb.png: the picture is …").
pub(crate) async fn check_before_sending(path: &Path) -> Result<(), crate::api::ApiError> {
    let checked_path = path.to_path_buf();
    let checked = tokio::task::spawn_blocking(move || check_source_file(&checked_path))
        .await
        .unwrap_or_else(|_| Err("it could not be checked.".to_owned()));
    checked.map_err(|why| {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        tracing::info!("not sending {}: {why}", path.display());
        crate::api::ApiError::Invalid(format!("{name}: {why}"))
    })
}

/// `Err` says, in words for the field, why the file at `path` cannot be sent.
pub fn check_source_file(path: &Path) -> Result<(), String> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if image::ImageFormat::from_extension(&extension).is_some() {
        check_picture(path)
    } else if ISO_VIDEO_EXTENSIONS.contains(&extension.as_str()) {
        check_iso_video(path)
    } else if crate::api::audio::is_audio_url(&format!("x.{extension}")) {
        check_sound(path)
    } else {
        Ok(())
    }
}

/// Decodes the picture within the studio's budget (the header is read first, so a bomb
/// is refused before any pixel buffer exists).
fn check_picture(path: &Path) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("it could not be read ({e})."))?;
    image_codec::decode_then(&bytes, DecodeBudget::DEFAULT, |_| ())
        .map_err(|error| format!("{error}."))
}

/// Walks the top-level boxes: each must end inside the file, and a `moov` (the index of
/// the samples) and an `mdat` (the samples) must be there: a fast-start file cut right
/// after its index still has whole boxes, but no pictures.
fn check_iso_video(path: &Path) -> Result<(), String> {
    let cut_off = "the file ends early (it looks cut off); export or copy it again.";
    let mut file = std::fs::File::open(path).map_err(|e| format!("it could not be read ({e})."))?;
    let len = file
        .metadata()
        .map_err(|e| format!("it could not be read ({e})."))?
        .len();
    let mut pos = 0u64;
    let mut has_index = false;
    let mut has_samples = false;
    while len.saturating_sub(pos) >= 8 {
        let mut header = [0u8; 16];
        file.seek(SeekFrom::Start(pos))
            .and_then(|_| file.read_exact(&mut header[..8]))
            .map_err(|_| cut_off.to_owned())?;
        let size32 = u32::from_be_bytes([header[0], header[1], header[2], header[3]]);
        let size = match size32 {
            0 => len - pos,
            1 => {
                file.read_exact(&mut header[8..16])
                    .map_err(|_| cut_off.to_owned())?;
                u64::from_be_bytes(header[8..16].try_into().unwrap_or([0; 8]))
            }
            n => u64::from(n),
        };
        if size < 8 {
            return Err("it is not a video the studio can read (a damaged box).".to_owned());
        }
        match &header[4..8] {
            b"moov" => has_index = true,
            b"mdat" => has_samples = true,
            _ => {}
        }
        match pos.checked_add(size) {
            Some(end) if end <= len => pos = end,
            _ => return Err(cut_off.to_owned()),
        }
    }
    if pos == 0 {
        return Err("the file is empty.".to_owned());
    }
    if !has_index || !has_samples {
        return Err(cut_off.to_owned());
    }
    Ok(())
}

/// Decodes the whole sound: it must be one, and as long as its header says.
fn check_sound(path: &Path) -> Result<(), String> {
    let (mut source, info) = crate::audio::open_file(path)
        .map_err(|_| "it is not a sound the studio can read.".to_owned())?;
    let channels = usize::from(info.channels.max(1));
    let mut buffer = vec![0f32; READ_CHUNK_SAMPLES * channels];
    let mut frames = 0u64;
    loop {
        match source.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => frames += (n / channels) as u64,
            Err(_) if frames > 0 => break,
            Err(_) => return Err("it is not a sound the studio can read.".to_owned()),
        }
    }
    if frames == 0 {
        return Err("the sound is empty.".to_owned());
    }
    let decoded_secs = frames as f64 / f64::from(info.sample_rate_hz.max(1));
    if let Some(header_secs) = info.duration_secs.filter(|d| d.is_finite() && *d > 0.0)
        && decoded_secs < header_secs * MIN_DECODED_SHARE
    {
        return Err(format!(
            "the sound ends after {decoded_secs:.1} s of the {header_secs:.1} s it should last \
             (it looks cut off)."
        ));
    }
    Ok(())
}

/// Worst files for tests (as `audio::testing`).
pub mod testing {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for &byte in bytes {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut out = (data.len() as u32).to_be_bytes().to_vec();
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
        out
    }

    /// A PNG that declares `side_px × side_px` RGBA pixels in a few dozen bytes.
    pub fn bomb_png(side_px: u32) -> Vec<u8> {
        let mut ihdr = side_px.to_be_bytes().to_vec();
        ihdr.extend_from_slice(&side_px.to_be_bytes());
        ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(chunk(b"IHDR", &ihdr));
        // A deflate stream of a few zero bytes: nowhere near the declared size.
        png.extend(chunk(
            b"IDAT",
            &[0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01],
        ));
        png.extend(chunk(b"IEND", &[]));
        png
    }
}

#[cfg(test)]
mod tests {
    use super::testing::bomb_png;
    use super::*;
    use crate::audio::testing::{tones, wav_bytes};

    fn fixture(rel: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(rel)
    }

    #[test]
    fn a_decompression_bomb_picture_is_refused_by_its_declared_size() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("bomb.png");
        std::fs::write(&path, bomb_png(60_000)).expect("write");
        let why = check_source_file(&path).expect_err("a bomb is refused");
        assert!(why.contains("60000 × 60000 px"), "{why}");
        assert_eq!(check_source_file(&fixture("photos/coffee_160.png")), Ok(()));
    }

    #[test]
    fn a_picture_cut_in_half_or_not_a_picture_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let whole = std::fs::read(fixture("photos/coffee_160.png")).expect("fixture");
        let half = dir.path().join("half.png");
        std::fs::write(&half, &whole[..whole.len() / 2]).expect("write");
        assert!(check_source_file(&half).is_err());
        let text = dir.path().join("notes.jpg");
        std::fs::write(&text, "not a picture").expect("write");
        assert!(check_source_file(&text).is_err());
    }

    #[test]
    fn a_cut_off_mp4_is_refused_and_a_whole_one_passes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let whole_path = fixture("video/h264_aac_160x90_24fps_48f.mp4");
        assert_eq!(check_source_file(&whole_path), Ok(()));
        let whole = std::fs::read(&whole_path).expect("fixture");
        // The fixture is fast-start (ftyp, moov, free, mdat): cut right after its index, it
        // has only whole boxes but no pictures.
        let box_end =
            |at: usize| at + u32::from_be_bytes(whole[at..at + 4].try_into().unwrap()) as usize;
        let after_index = box_end(box_end(0));
        assert_eq!(&whole[box_end(0) + 4..box_end(0) + 8], b"moov");
        for keep in [
            whole.len() / 3,
            whole.len() * 2 / 3,
            whole.len() - 1,
            after_index,
            box_end(after_index),
        ] {
            let cut = dir.path().join(format!("cut_{keep}.mp4"));
            std::fs::write(&cut, &whole[..keep]).expect("write");
            let why = check_source_file(&cut).expect_err("a cut-off clip is refused");
            assert!(why.contains("cut off"), "{keep}: {why}");
        }
        let empty = dir.path().join("empty.mov");
        std::fs::write(&empty, b"").expect("write");
        assert!(check_source_file(&empty).is_err());
    }

    #[test]
    fn a_sound_that_is_none_or_is_cut_off_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let samples = tones(&[(1.0, 330.0), (1.0, 550.0)], 22_050, 0.5);
        let wav = wav_bytes(&samples, 22_050, 1);
        let whole = dir.path().join("line.wav");
        std::fs::write(&whole, &wav).expect("write");
        assert_eq!(check_source_file(&whole), Ok(()));
        // The header still says two seconds; a quarter of the samples are left.
        let cut = dir.path().join("cut.wav");
        std::fs::write(&cut, &wav[..wav.len() / 4]).expect("write");
        let why = check_source_file(&cut).expect_err("a cut-off sound is refused");
        assert!(why.contains("cut off"), "{why}");
        let text = dir.path().join("line.mp3");
        std::fs::write(&text, "words, not a sound ".repeat(100)).expect("write");
        let why = check_source_file(&text).expect_err("not a sound");
        assert!(why.contains("not a sound"), "{why}");
    }
}
