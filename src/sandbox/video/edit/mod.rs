//! Edits, trims and restyles of existing videos: the source is demuxed and decoded with
//! `crate::video_codec`, changed frame by frame in I420, and encoded like a render.
//!
//! Every edit streams: one frame is decoded, changed and encoded before the next (extend
//! and retake keep one more, the frame they grow from), so a 60-s 1080p source never sits
//! in memory whole. Every edit first removes the source's own sandbox watermark (`unmark`)
//! and the output gets a fresh one when asked, so a resized video does not carry a scaled
//! double mark. The source's Opus sound (only sandbox files have one) is carried over,
//! time-aligned, unless the edit makes its own.
//!
//! Layout: `source` (probe, decoding, the watermark-free frames), `unmark` and `fill` (the
//! mark's removal and smooth hole fills), `sink` (fresh mark, poster, encoder, audio track),
//! `geometry` (upscale, reframe), `looks` (magic edit and the restyle look), `regions` (face
//! swap, lipsync mouth, background removal, inpaint), `timeline` (extend, retake), `synth`
//! and `audio` (generated sound, Opus in and out), `trim`.

pub(super) mod audio;
mod fill;
mod geometry;
mod looks;
pub(super) mod regions;
pub(super) mod sink;
pub(super) mod source;
pub(super) mod synth;
mod timeline;
mod trim;
mod unmark;

#[cfg(test)]
mod tests;

use crate::sandbox::ids::SplitMix;

use super::yuv::I420;
use super::{RenderedVideo, SourceProbe, VideoEditSpec, VideoError};
use sink::FrameSink;
use source::CleanSource;

/// Reads a source's size, rate, length and whether it has sound, without decoding frames.
/// The sound of a generated video whose model makes native sound: the prompt's chord bed
/// with noise hits over it, `duration_secs` long, encoded as Opus.
pub(super) fn native_sound(
    prompt: &str,
    seed: i64,
    duration_secs: f64,
) -> Result<super::mp4::OpusTrack, VideoError> {
    let len = audio::samples_for_secs(duration_secs);
    let mut mix = synth::chord(synth::layer_seed(prompt, seed, "native-bed"), len);
    let hits = synth::noise_bursts(synth::layer_seed(prompt, seed, "native-hits"), len);
    synth::add_into(&mut mix, &hits);
    synth::limit_peak(&mut mix, 0.8);
    audio::encode_opus(&mix)
}

pub(crate) fn probe_video(source_mp4: &[u8]) -> Result<SourceProbe, VideoError> {
    source::probe(source_mp4)
}

/// Applies one edit. The source's sandbox watermark (if any) is removed first; a fresh one
/// is drawn on the output when `watermark` (the routes pass false for remove_watermark).
pub(crate) fn edit_video(
    source_mp4: &[u8],
    edit: &VideoEditSpec,
    seed: i64,
    watermark: bool,
) -> Result<RenderedVideo, VideoError> {
    let source = CleanSource::open(source_mp4)?;
    let source_audio = audio::decode_source_audio(source_mp4)?;
    let prompt_seed = |prompt: &str, layer: &str| synth::layer_seed(prompt, seed, layer);
    match edit {
        VideoEditSpec::Upscale {
            width,
            height,
            target_fps,
        } => geometry::upscale(
            source,
            (*width, *height),
            *target_fps,
            watermark,
            source_audio,
        ),
        VideoEditSpec::Reframe {
            width,
            height,
            grid,
        } => geometry::reframe(source, (*width, *height), *grid, watermark, source_audio),
        VideoEditSpec::GenerateAudio {
            prompt,
            sound_effect_prompt,
            background_music_prompt,
            keep_original,
        } => {
            let duration_secs = source.frames.duration_secs;
            let len = audio::samples_for_secs(duration_secs);
            // The main prompt is a soft chord bed; sound effects are noise bursts; music a
            // brighter chord an octave up the hash's choice.
            let mut mix = synth::chord(prompt_seed(prompt, "audio"), len);
            if let Some(effects) = sound_effect_prompt {
                let layer = synth::noise_bursts(prompt_seed(effects, "effects"), len);
                synth::add_into(&mut mix, &layer);
            }
            if let Some(music) = background_music_prompt {
                let layer = synth::chord(prompt_seed(music, "music"), len);
                synth::add_into(&mut mix, &layer);
            }
            if *keep_original && let Some(original) = &source_audio {
                synth::add_into(&mut mix, original);
            }
            synth::limit_peak(&mut mix, 0.8);
            map_frames(source, watermark, Some(mix), |_, frame| Ok(frame))
        }
        VideoEditSpec::RemoveWatermark => {
            map_frames(source, watermark, source_audio, |_, frame| Ok(frame))
        }
        VideoEditSpec::FaceSwap { face_jpeg_or_png } => {
            let (w, h) = (source.frames.width as usize, source.frames.height as usize);
            let swap = regions::FaceSwap::new(face_jpeg_or_png, w, h)?;
            map_frames(source, watermark, source_audio, |_, mut frame| {
                swap.apply(&mut frame);
                Ok(frame)
            })
        }
        VideoEditSpec::Extend {
            seconds,
            at_start,
            prompt,
        } => {
            let mut rng = SplitMix::new(prompt_seed(prompt, "extend"));
            timeline::extend(
                source,
                *seconds,
                *at_start,
                &mut rng,
                watermark,
                source_audio,
            )
        }
        VideoEditSpec::MagicEdit { prompt } => {
            let mut rng = SplitMix::new(prompt_seed(prompt, "magic"));
            let (w, h) = (source.frames.width as usize, source.frames.height as usize);
            let look = looks::MagicLook::new(&mut rng, w, h);
            let fps = source.frames.fps as f32;
            map_frames(source, watermark, source_audio, |index, frame| {
                Ok(look.apply(&frame, index as f32 / fps))
            })
        }
        VideoEditSpec::Lipsync { text_prompt } => {
            let text = text_prompt.as_deref().unwrap_or("");
            let duration_secs = source.frames.duration_secs;
            let speech = synth::Speech::new(prompt_seed(text, "speech"), duration_secs as f32);
            let mut pcm = speech.render(audio::samples_for_secs(duration_secs));
            synth::limit_peak(&mut pcm, 0.8);
            let fps = source.frames.fps as f32;
            map_frames(source, watermark, Some(pcm), |index, mut frame| {
                // The mouth shows the syllable sounding mid-frame.
                regions::draw_mouth(&mut frame, speech.openness((index as f32 + 0.5) / fps));
                Ok(frame)
            })
        }
        VideoEditSpec::RemoveBackground { fill } => {
            map_frames(source, watermark, source_audio, |_, mut frame| {
                regions::remove_background(&mut frame, *fill);
                Ok(frame)
            })
        }
        VideoEditSpec::Inpaint { mask_mp4, prompt } => {
            let (w, h) = (source.frames.width as usize, source.frames.height as usize);
            let hue = (prompt_seed(prompt, "inpaint") % 360) as f32;
            let mut mask = regions::InpaintMask::ellipse(w, h, hue);
            let mut mask_frames = match mask_mp4 {
                Some(bytes) => Some(source::SourceFrames::open(bytes).map_err(|e| {
                    VideoError::Source(format!("the mask video could not be read: {e}"))
                })?),
                None => None,
            };
            map_frames(source, watermark, source_audio, |_, mut frame| {
                // A shorter mask video keeps its last frame.
                if let Some(frames) = mask_frames.as_mut()
                    && let Some(mask_frame) = frames.next_i420()?
                {
                    mask.set_from_frame(&mask_frame, w, h);
                }
                mask.apply(&mut frame);
                Ok(frame)
            })
        }
        VideoEditSpec::Retake {
            start_secs,
            duration_secs,
            mode,
            prompt,
        } => timeline::retake(
            source,
            (*start_secs, *duration_secs),
            *mode,
            prompt_seed(prompt, "retake"),
            watermark,
            source_audio,
        ),
    }
}

/// The frames whose presentation time lies in `[start_secs, end_secs)`, decoded and
/// re-encoded unchanged (frame-accurate); the source's audio, if any, cut to match.
pub(crate) fn trim_video(
    source_mp4: &[u8],
    start_secs: f64,
    end_secs: f64,
) -> Result<RenderedVideo, VideoError> {
    trim::trim(source_mp4, start_secs, end_secs)
}

/// Video-to-video: the source restyled following the prompt (and the palette when graded):
/// posterised into five bands painted in the palette's colours, with dark outlines.
pub(crate) fn restyle_video(
    source_mp4: &[u8],
    prompt: &str,
    seed: i64,
    palette: Option<&[[u8; 3]]>,
    watermark: bool,
) -> Result<RenderedVideo, VideoError> {
    let source = CleanSource::open(source_mp4)?;
    let source_audio = audio::decode_source_audio(source_mp4)?;
    let mut rng = SplitMix::new(synth::layer_seed(prompt, seed, "restyle"));
    let look = looks::PosterLook::new(prompt, palette, &mut rng);
    map_frames(source, watermark, source_audio, |_, mut frame| {
        look.apply(&mut frame);
        Ok(frame)
    })
}

/// The same size and rate as the source, each frame through `change` (given its index).
fn map_frames(
    mut source: CleanSource,
    watermark: bool,
    audio: Option<Vec<f32>>,
    mut change: impl FnMut(u32, I420) -> Result<I420, VideoError>,
) -> Result<RenderedVideo, VideoError> {
    let frames = &source.frames;
    let mut sink = FrameSink::new(frames.width, frames.height, frames.fps, watermark)?;
    let mut index = 0;
    while let Some(frame) = source.next()? {
        sink.push(&mut change(index, frame)?)?;
        index += 1;
    }
    sink.finish(audio)
}
