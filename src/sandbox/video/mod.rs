//! Procedural video for the sandbox: real, playable, deterministic H.264 MP4 files.
//!
//! What is rendered (a moving relative of the still renderer in `super::render`):
//! - text-to-video: the camera drifts across a backdrop painted like a still (colour field,
//!   soft discs, flow-field brush strokes) whose colours cross-fade from a start palette to an
//!   end palette (hue rotation of the prompt's colours, or a cycle through the project's
//!   graded palette), while soft discs and rings float across and comet-like dabs follow a
//!   drifting flow field;
//! - image-to-video: frame 0 is the source cover-fitted to the frame, then a slow push-in and
//!   pan, a gentle colour drift and a light sweeping across;
//! - optionally a small "SANDBOX" watermark bottom right.
//!
//! Why like this: the hosted service returns MP4 (H.264, fast start) with a poster, so the
//! studio's player, thumbnails and downloads are exercised with the real thing; output depends
//! only on the spec (same spec, same bytes), so tests can compare files. Frames are composed in
//! I420 with integer loops and all resampling of whole frames happens once per clip inside
//! dependencies, because the sandbox runs in unoptimised debug builds during tests.
//!
//! Layout: `render` (procedural frames) with `canvas` (the still backdrop), `source`
//! (image-to-video), `compose` (per-frame pixel operations), `yuv` (frames and colour
//! conversion), `palette`, `watermark`, `poster`, `encode` (openh264 + [`Mp4Encoder`]) and
//! `mp4` (the fast-start box writer).

mod canvas;
mod compose;
mod edit;
mod edit_spec;
mod elements;
mod encode;
mod error;
mod first_last;
mod lipsync;
mod motion_spec;
mod mp4;
mod palette;
mod poster;
mod render;
mod source;
mod spec;
mod watermark;
mod yuv;

use crate::sandbox::ids::{SplitMix, fnv1a};

pub(crate) use encode::Mp4Encoder;
pub(crate) use error::VideoError;

use render::ProceduralScene;
use source::SourceScene;
use watermark::Watermark;
use yuv::I420;

pub(crate) use spec::*;

pub(crate) use edit::{edit_video, probe_video, restyle_video, trim_video};
pub(crate) use edit_spec::*;
pub(crate) use motion_spec::*;

pub(crate) use elements::render_elements;
pub(crate) use first_last::render_first_last;
pub(crate) use lipsync::render_lipsync;

/// A spec checked and rounded to what is encoded.
struct Plan<'a> {
    prompt: &'a str,
    seed: i64,
    width: u32,
    height: u32,
    fps: u32,
    frames: u32,
}

impl Plan<'_> {
    fn new<'a>(spec: &VideoRenderSpec<'a>) -> Result<Plan<'a>, VideoError> {
        let (width, height) = (spec.width & !1, spec.height & !1);
        check_size(width, height)?;
        if spec.fps == 0 || spec.fps > MAX_FPS {
            return Err(VideoError::InvalidFrameRate(spec.fps));
        }
        let duration = spec.duration_secs;
        if !duration.is_finite() || duration <= 0.0 || duration > MAX_DURATION_SECS {
            return Err(VideoError::InvalidDuration(duration));
        }
        let frames = ((duration * f64::from(spec.fps)).round() as u32).max(1);
        Ok(Plan {
            prompt: spec.prompt,
            seed: spec.seed,
            width,
            height,
            fps: spec.fps,
            frames,
        })
    }

    fn seconds(&self) -> f32 {
        self.frames as f32 / self.fps as f32
    }

    /// Seeded like the still renderer (prompt + seed), with a tag so a video and an image
    /// from the same inputs do not share every random draw.
    fn rng(&self) -> SplitMix {
        let mut key = self.prompt.as_bytes().to_vec();
        key.extend_from_slice(&self.seed.to_le_bytes());
        key.extend_from_slice(b"video");
        SplitMix::new(fnv1a(&key))
    }
}

/// Even sides within the encoder's limits.
pub(crate) fn check_size(width: u32, height: u32) -> Result<(), VideoError> {
    let (long, short) = (width.max(height), width.min(height));
    let ok = width.is_multiple_of(2)
        && height.is_multiple_of(2)
        && short >= MIN_SIDE_PX
        && long <= MAX_LONG_SIDE_PX
        && short <= MAX_SHORT_SIDE_PX;
    if ok {
        Ok(())
    } else {
        Err(VideoError::InvalidSize { width, height })
    }
}

enum Scene {
    Procedural(Box<ProceduralScene>),
    Source(Box<SourceScene>),
}

impl Scene {
    fn draw(&mut self, index: u32, out: &mut I420) {
        match self {
            Self::Procedural(scene) => scene.draw(index, out),
            Self::Source(scene) => scene.draw(index, out),
        }
    }
}

/// Renders and encodes a whole clip. Deterministic: the same spec gives the same bytes.
pub(crate) fn render_video(spec: &VideoRenderSpec<'_>) -> Result<RenderedVideo, VideoError> {
    let plan = Plan::new(spec)?;
    let mut rng = plan.rng();
    let palette = palette::video_palette(plan.prompt, spec.palette, &mut rng);
    let mut scene = match spec.source {
        Some(source) => Scene::Source(Box::new(SourceScene::new(
            &plan, source, &palette, &mut rng,
        )?)),
        None => Scene::Procedural(Box::new(ProceduralScene::new(&plan, &palette, &mut rng)?)),
    };
    let (w, h) = (plan.width as usize, plan.height as usize);
    let watermark = spec.watermark.then(|| Watermark::new(w, h));
    let mut encoder = Mp4Encoder::new(plan.width, plan.height, plan.fps)?;
    let mut frame = I420::new(w, h);
    let mut poster_jpeg = Vec::new();
    for index in 0..plan.frames {
        scene.draw(index, &mut frame);
        if let Some(watermark) = &watermark {
            watermark.apply(&mut frame);
        }
        if index == 0 {
            poster_jpeg = poster::poster_jpeg(&frame)?;
        }
        encoder.push_yuv(&frame)?;
    }
    let duration_secs = f64::from(plan.frames) / f64::from(plan.fps);
    let mp4 = if spec.sound {
        let track = edit::native_sound(plan.prompt, spec.seed, duration_secs)?;
        encoder.finish_with_audio(Some(&track))?
    } else {
        encoder.finish()?
    };
    tracing::debug!(
        width = plan.width,
        height = plan.height,
        frames = plan.frames,
        bytes = mp4.len(),
        "rendered sandbox video"
    );
    Ok(RenderedVideo {
        mp4,
        poster_jpeg,
        width: plan.width,
        height: plan.height,
        fps: plan.fps,
        frame_count: plan.frames,
        duration_secs,
        has_audio: spec.sound,
    })
}

#[cfg(test)]
mod tests;
