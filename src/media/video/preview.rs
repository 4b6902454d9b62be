//! Hover-scrub previews: a few evenly spaced frames of a video, downscaled, for the
//! Library's grid tiles. Pure work on one thread (the engine runs it on the blocking pool).

use super::decode::VideoDecoder;
use crate::video_codec::VideoDecodeError;
use std::path::Path;

/// Most frames one preview may hold (a tile is a few hundred points wide).
pub const MAX_PREVIEW_FRAMES: u32 = 32;
/// Largest side a preview frame may be downscaled to.
pub const MAX_PREVIEW_SIDE_PX: u32 = 1024;

/// One downscaled frame of a preview.
#[derive(Clone, Debug, PartialEq)]
pub struct PreviewFrame {
    pub width: u32,
    pub height: u32,
    /// RGBA8, unpremultiplied, `width * height * 4` bytes.
    pub rgba: Vec<u8>,
    /// Presentation time of the source frame.
    pub time_secs: f64,
}

/// Which frames (display order) a preview of `wanted` frames shows out of `frame_count`:
/// the middle of `wanted` equal spans, so the first is near the start and the last near the
/// end, never repeated.
pub fn preview_frame_indices(frame_count: u32, wanted: u32) -> Vec<u32> {
    let wanted = wanted.min(frame_count).min(MAX_PREVIEW_FRAMES);
    (0..wanted)
        .map(|i| {
            let centre = (2 * u64::from(i) + 1) * u64::from(frame_count) / (2 * u64::from(wanted));
            centre.min(u64::from(frame_count.saturating_sub(1))) as u32
        })
        .collect()
}

/// Decodes `frame_count` evenly spaced frames of the MP4 at `path`, each downscaled so its
/// longer side is at most `max_side_px`.
pub fn decode_preview(
    path: &Path,
    frame_count: u32,
    max_side_px: u32,
) -> Result<Vec<PreviewFrame>, VideoDecodeError> {
    let mut decoder = VideoDecoder::open(path)?;
    let max_side_px = max_side_px.clamp(16, MAX_PREVIEW_SIDE_PX);
    let mut frames = Vec::new();
    for index in preview_frame_indices(decoder.info().frame_count, frame_count) {
        decoder.seek_to_frame(index)?;
        let Some(frame) = decoder.next_frame()? else {
            break;
        };
        let (width, height) = fit_within(frame.width, frame.height, max_side_px);
        let rgba = if (width, height) == (frame.width, frame.height) {
            frame.rgba
        } else {
            let source = image::RgbaImage::from_raw(frame.width, frame.height, frame.rgba)
                .ok_or_else(|| VideoDecodeError::Container("frame size mismatch".to_owned()))?;
            image::imageops::resize(&source, width, height, image::imageops::Triangle).into_raw()
        };
        frames.push(PreviewFrame {
            width,
            height,
            rgba,
            time_secs: frame.pts_secs,
        });
    }
    Ok(frames)
}

/// `width × height` scaled down (never up) so the longer side is at most `max_side_px`.
fn fit_within(width: u32, height: u32, max_side_px: u32) -> (u32, u32) {
    let longest = width.max(height).max(1);
    if longest <= max_side_px {
        return (width.max(1), height.max(1));
    }
    let scale = f64::from(max_side_px) / f64::from(longest);
    (
        ((f64::from(width) * scale).round() as u32).max(1),
        ((f64::from(height) * scale).round() as u32).max(1),
    )
}

/// The first frame of the MP4 at `path` as a still, its longer side at most `max_side_px`:
/// the picture of a video that came without a poster (a trim's output).
pub fn first_frame_still(
    path: &Path,
    max_side_px: u32,
) -> Result<crate::media::DecodedImage, VideoDecodeError> {
    let mut decoder = VideoDecoder::open(path)?;
    let frame = decoder
        .next_frame()?
        .ok_or_else(|| VideoDecodeError::Container("the video has no frames".to_owned()))?;
    let (source_width, source_height) = (frame.width, frame.height);
    let (width, height) = fit_within(frame.width, frame.height, max_side_px.max(16));
    let rgba = if (width, height) == (frame.width, frame.height) {
        frame.rgba
    } else {
        let source = image::RgbaImage::from_raw(frame.width, frame.height, frame.rgba)
            .ok_or_else(|| VideoDecodeError::Container("frame size mismatch".to_owned()))?;
        image::imageops::resize(&source, width, height, image::imageops::Triangle).into_raw()
    };
    Ok(crate::media::DecodedImage {
        width,
        height,
        rgba,
        source_width,
        source_height,
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_fixtures::{BASELINE, frame_code};
    use super::*;

    #[test]
    fn indices_are_evenly_spaced_and_inside_the_video() {
        assert_eq!(preview_frame_indices(48, 8), [3, 9, 15, 21, 27, 33, 39, 45]);
        assert_eq!(preview_frame_indices(3, 8), [0, 1, 2]);
        assert_eq!(preview_frame_indices(1, 8), [0]);
        assert!(preview_frame_indices(0, 8).is_empty());
        assert_eq!(preview_frame_indices(96, 1), [48]);
        assert_eq!(
            preview_frame_indices(1000, 100).len(),
            MAX_PREVIEW_FRAMES as usize
        );
    }

    #[test]
    fn frames_are_decoded_downscaled_and_timed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("clip.mp4");
        std::fs::write(&path, BASELINE).expect("write fixture");
        let frames = decode_preview(&path, 4, 80).expect("preview");
        assert_eq!(frames.len(), 4);
        for (frame, index) in frames.iter().zip(preview_frame_indices(48, 4)) {
            assert_eq!((frame.width, frame.height), (80, 45));
            assert_eq!(frame.rgba.len(), 80 * 45 * 4);
            assert!((frame.time_secs - f64::from(index) / 24.0).abs() < 1e-6);
        }
        // Full size keeps the pixels, so the fixture's frame code can be read back.
        let full = decode_preview(&path, 2, 1024).expect("preview");
        let decoded = super::super::DecodedFrame {
            index: 0,
            pts_secs: 0.0,
            duration_secs: 0.0,
            width: full[1].width,
            height: full[1].height,
            rgba: full[1].rgba.clone(),
        };
        assert_eq!(frame_code(&decoded), preview_frame_indices(48, 2)[1]);
    }
}
