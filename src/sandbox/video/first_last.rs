//! First–last frame: the motion from one image to another. Frame 0 is the first image
//! cover-fitted to the frame, exactly; the last frame is the second image, exactly. In
//! between the first image pushes in and slides away while the second settles from a
//! push-in of its own, and the two cross-dissolve (eased) through the middle of the clip.

use image::DynamicImage;

use super::compose::{ChromaGrade, ONE, View, crossfade_window, resample};
use super::edit::sink::FrameSink;
use super::yuv::I420;
use super::{MotionSpec, RenderedVideo, VideoError, check_size};
use crate::sandbox::render::smoothstep;

/// Zoom gained by the leaving image (and shed by the arriving one).
const PUSH_IN: f32 = 0.12;
/// Sideways travel of either image, as a fraction of the frame width; with [`PUSH_IN`]
/// the view never leaves the picture.
const SLIDE: f32 = 0.04;
/// The dissolve runs over this part of the clip (as fractions of it).
const DISSOLVE: (f32, f32) = (0.15, 0.85);

/// Even size and frame count of a spec.
pub(super) fn plan(spec: &MotionSpec) -> Result<(u32, u32, u32), VideoError> {
    let (width, height) = (spec.width & !1, spec.height & !1);
    check_size(width, height)?;
    if spec.fps == 0 || spec.fps > super::MAX_FPS {
        return Err(VideoError::InvalidFrameRate(spec.fps));
    }
    let duration = spec.duration_secs;
    if !duration.is_finite() || duration <= 0.0 || duration > super::MAX_DURATION_SECS {
        return Err(VideoError::InvalidDuration(duration));
    }
    let frames = ((duration * f64::from(spec.fps)).round() as u32).max(1);
    Ok((width, height, frames))
}

/// `image` cover-fitted to `width` x `height` (resampled inside `image`, fast in debug).
pub(super) fn cover(image: &DynamicImage, width: u32, height: u32) -> Result<I420, VideoError> {
    let fitted = image
        .resize_to_fill(width, height, image::imageops::FilterType::Triangle)
        .into_rgb8();
    I420::from_rgb(&fitted)
}

pub(crate) fn render_first_last(
    first: &DynamicImage,
    last: &DynamicImage,
    spec: &MotionSpec,
) -> Result<RenderedVideo, VideoError> {
    let (width, height, frames) = plan(spec)?;
    let a = cover(first, width, height)?;
    let b = cover(last, width, height)?;
    let (w, h) = (width as usize, height as usize);
    let (wf, hf) = (width as f32, height as f32);
    // The slide's direction comes from the seed, so two clips need not move alike.
    let direction = if spec.seed.rem_euclid(2) == 0 {
        1.0
    } else {
        -1.0
    };
    let neutral = ChromaGrade::new(0.0, 0.0, 0.0);
    let mut sink = FrameSink::new(width, height, spec.fps, spec.watermark)?;
    let (mut fa, mut fb, mut out) = (I420::new(w, h), I420::new(w, h), I420::new(w, h));
    for index in 0..frames {
        let t = if frames > 1 {
            index as f32 / (frames - 1) as f32
        } else {
            1.0
        };
        let eased = smoothstep(0.0, 1.0, t);
        let weight = ((smoothstep(DISSOLVE.0, DISSOLVE.1, t) * ONE as f32).round() as u32).min(ONE);
        if weight < ONE {
            let view = View {
                center_x: wf / 2.0 + direction * SLIDE * wf * eased,
                center_y: hf / 2.0,
                zoom: 1.0 + PUSH_IN * eased,
            };
            resample(&a, view, neutral, &mut fa);
        }
        if weight > 0 {
            let view = View {
                center_x: wf / 2.0 - direction * SLIDE * wf * (1.0 - eased),
                center_y: hf / 2.0,
                zoom: 1.0 + PUSH_IN * (1.0 - eased),
            };
            resample(&b, view, neutral, &mut fb);
        }
        crossfade_window(&fa, &fb, 0, 0, weight, &mut out);
        sink.push(&mut out)?;
    }
    sink.finish(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::video_codec::VideoDecoder;

    fn flat(rgb: [u8; 3]) -> DynamicImage {
        DynamicImage::ImageRgb8(image::RgbImage::from_pixel(50, 30, image::Rgb(rgb)))
    }

    fn mean(frame: &crate::video_codec::DecodedFrame) -> [u32; 3] {
        let n = frame.rgba.len() as u32 / 4;
        let mut sum = [0u32; 3];
        for px in frame.rgba.chunks(4) {
            for c in 0..3 {
                sum[c] += u32::from(px[c]);
            }
        }
        sum.map(|s| s / n)
    }

    #[test]
    fn the_clip_starts_on_the_first_image_and_ends_on_the_second() {
        let spec = MotionSpec {
            width: 64,
            height: 36,
            fps: 24,
            duration_secs: 1.0,
            seed: 3,
            watermark: false,
        };
        let video =
            render_first_last(&flat([220, 40, 40]), &flat([40, 40, 220]), &spec).expect("render");
        assert_eq!(video.frame_count, 24);
        let mut decoder = VideoDecoder::from_bytes(video.mp4).expect("decodes");
        let mut frames = Vec::new();
        while let Some(frame) = decoder.next_frame().expect("frame") {
            frames.push(mean(&frame));
        }
        let (first, last) = (frames[0], frames[frames.len() - 1]);
        assert!(first[0] > 180 && first[2] < 80, "{first:?}");
        assert!(last[2] > 180 && last[0] < 80, "{last:?}");
        let middle = frames[12];
        assert!(
            middle[0] > 80 && middle[2] > 80,
            "a dissolve in between: {middle:?}"
        );
    }

    #[test]
    fn bad_sizes_and_lengths_are_refused() {
        let image = flat([1, 2, 3]);
        let spec = MotionSpec {
            width: 8,
            height: 8,
            fps: 24,
            duration_secs: 1.0,
            seed: 0,
            watermark: false,
        };
        assert!(render_first_last(&image, &image, &spec).is_err());
        let spec = MotionSpec {
            width: 64,
            height: 64,
            duration_secs: 0.0,
            ..spec
        };
        assert!(render_first_last(&image, &image, &spec).is_err());
    }
}
