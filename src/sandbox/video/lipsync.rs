//! Lip sync: a still (or a video's frames, looped when the sound is longer) with the mouth
//! of the sandbox's face stand-in (see `edit::regions`) opening with the sound's loudness,
//! frame by frame, and that sound as the clip's Opus track. The clip lasts as long as the
//! sound (whole frames). A still also breathes: a very slow push-in and out.

use super::compose::{ChromaGrade, View, resample};
use super::edit::regions::draw_mouth;
use super::edit::sink::FrameSink;
use super::edit::source::CleanSource;
use super::first_last::{cover, plan};
use super::yuv::I420;
use super::{LipsyncFace, MOTION_AUDIO_RATE_HZ, MotionSpec, RenderedVideo, VideoError};

/// The still's breathing: zoom amplitude and period.
const BREATH_ZOOM: f32 = 0.015;
const BREATH_SECS: f32 = 4.0;
/// Loudness (RMS) at which the mouth is fully open, relative to the loudest frame.
const FULL_OPEN: f32 = 0.8;
/// Below this RMS the mouth stays shut, however quiet the loudest frame is.
const SILENCE_RMS: f32 = 0.005;

/// How open the mouth is on each of `frames` frames: the RMS of the sound under each frame,
/// relative to the loudest frame's, 0 (shut) ..= 1.
pub(crate) fn mouth_openness(pcm: &[f32], fps: u32, frames: u32) -> Vec<f32> {
    let per_frame = (MOTION_AUDIO_RATE_HZ / fps.max(1)) as usize;
    let rms: Vec<f32> = (0..frames as usize)
        .map(|i| {
            let start = (i * per_frame).min(pcm.len());
            let end = ((i + 1) * per_frame).min(pcm.len());
            let window = &pcm[start..end];
            if window.is_empty() {
                0.0
            } else {
                (window.iter().map(|s| s * s).sum::<f32>() / window.len() as f32).sqrt()
            }
        })
        .collect();
    let loudest = rms.iter().copied().fold(0.0f32, f32::max);
    rms.into_iter()
        .map(|r| {
            if r < SILENCE_RMS || loudest <= 0.0 {
                0.0
            } else {
                (r / (loudest * FULL_OPEN)).clamp(0.0, 1.0)
            }
        })
        .collect()
}

pub(crate) fn render_lipsync(
    face: &LipsyncFace<'_>,
    pcm: &[f32],
    spec: &MotionSpec,
) -> Result<RenderedVideo, VideoError> {
    match face {
        LipsyncFace::Image(image) => {
            let (width, height, frames) = plan(spec)?;
            let base = cover(image, width, height)?;
            let openness = mouth_openness(pcm, spec.fps, frames);
            let mut sink = FrameSink::new(width, height, spec.fps, spec.watermark)?;
            let mut frame = I420::new(width as usize, height as usize);
            let neutral = ChromaGrade::new(0.0, 0.0, 0.0);
            for (index, open) in openness.iter().enumerate() {
                let secs = index as f32 / spec.fps as f32;
                let breath = (1.0 - (secs / BREATH_SECS * std::f32::consts::TAU).cos()) / 2.0;
                let view = View {
                    center_x: width as f32 / 2.0,
                    center_y: height as f32 / 2.0,
                    zoom: 1.0 + BREATH_ZOOM * breath,
                };
                resample(&base, view, neutral, &mut frame);
                draw_mouth(&mut frame, *open);
                sink.push(&mut frame)?;
            }
            sink.finish(Some(pcm.to_vec()))
        }
        LipsyncFace::Video(mp4) => {
            let mut source = CleanSource::open(mp4)?;
            let (width, height, fps) =
                (source.frames.width, source.frames.height, source.frames.fps);
            let (_, _, frames) = plan(&MotionSpec {
                width,
                height,
                fps,
                ..*spec
            })?;
            let openness = mouth_openness(pcm, fps, frames);
            let mut sink = FrameSink::new(width, height, fps, spec.watermark)?;
            for open in openness {
                let mut frame = match source.next()? {
                    Some(frame) => frame,
                    None => {
                        // Sound longer than the picture: the video starts over.
                        source = CleanSource::open(mp4)?;
                        source.next()?.ok_or_else(|| {
                            VideoError::Source("the source video has no frames".into())
                        })?
                    }
                };
                draw_mouth(&mut frame, open);
                sink.push(&mut frame)?;
            }
            sink.finish(Some(pcm.to_vec()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mouth_follows_the_sound_and_shuts_in_silence() {
        let per_frame = (MOTION_AUDIO_RATE_HZ / 24) as usize;
        // Frame 0 silent, frame 1 loud, frame 2 half as loud, frame 3 past the end.
        let mut pcm = vec![0.0f32; per_frame];
        pcm.extend((0..per_frame).map(|i| if i % 2 == 0 { 0.5 } else { -0.5 }));
        pcm.extend((0..per_frame).map(|i| if i % 2 == 0 { 0.25 } else { -0.25 }));
        let open = mouth_openness(&pcm, 24, 4);
        assert_eq!(open[0], 0.0);
        assert_eq!(open[1], 1.0);
        assert!((open[2] - 0.625).abs() < 0.01, "{open:?}");
        assert_eq!(open[3], 0.0);
        assert!(
            mouth_openness(&vec![0.0; per_frame * 3], 24, 3)
                .iter()
                .all(|o| *o == 0.0)
        );
    }

    #[test]
    fn an_image_clip_lasts_as_long_as_its_sound_and_carries_it() {
        let image = image::DynamicImage::ImageRgb8(image::RgbImage::from_pixel(
            40,
            40,
            image::Rgb([200, 120, 80]),
        ));
        let pcm: Vec<f32> = (0..MOTION_AUDIO_RATE_HZ / 2)
            .map(|i| (i as f32 * 0.03).sin() * 0.4)
            .collect();
        let spec = MotionSpec {
            width: 64,
            height: 64,
            fps: 24,
            duration_secs: 0.5,
            seed: 1,
            watermark: false,
        };
        let video = render_lipsync(&LipsyncFace::Image(&image), &pcm, &spec).expect("render");
        assert_eq!(video.frame_count, 12);
        assert!(video.has_audio);
        assert!((video.duration_secs - 0.5).abs() < 1e-9);
    }
}
