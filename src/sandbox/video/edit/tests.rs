//! What a person would see in each edit's output: sizes, placements, which frames and
//! regions changed and which did not, and whether there is sound. Sources are tiny sandbox
//! renders (160x90, 12 fps, 2 s) or the decoder's fixtures (frame numbers drawn in them).

use crate::video_codec::test_fixtures::{BASELINE, BFRAMES, frame_code};
use crate::video_codec::{DecodedFrame, VideoDecoder};

use super::super::encode::Mp4Encoder;
use super::super::{
    BackgroundFill, GridPosition, RenderedVideo, RetakeMode, VideoEditSpec, VideoRenderSpec,
    render_video,
};
use super::audio::{decode_source_audio, rms};
use super::unmark::Unmark;
use super::*;

const W: u32 = 160;
const H: u32 = 90;
const FPS: u32 = 12;
/// Mean RGB difference of a frame re-encoded unchanged (H.264 at QP 26 on a small, busy
/// procedural frame loses about 3 levels); "changed" thresholds sit well above it.
const SAME: f64 = 6.0;

fn source(watermark: bool) -> Vec<u8> {
    let spec = VideoRenderSpec {
        prompt: "a lighthouse on a cliff at dusk",
        seed: 7,
        width: W,
        height: H,
        fps: FPS,
        duration_secs: 2.0,
        palette: None,
        source: None,
        watermark,
        sound: false,
    };
    render_video(&spec)
        .unwrap_or_else(|e| panic!("render failed: {e}"))
        .mp4
}

fn edit(source: &[u8], spec: VideoEditSpec, watermark: bool) -> RenderedVideo {
    edit_video(source, &spec, 3, watermark).unwrap_or_else(|e| panic!("edit failed: {e}"))
}

fn frames(mp4: &[u8]) -> Vec<DecodedFrame> {
    let mut decoder = VideoDecoder::from_bytes(mp4.to_vec()).expect("output opens");
    let mut out = Vec::new();
    while let Some(frame) = decoder.next_frame().expect("output decodes") {
        out.push(frame);
    }
    out
}

/// Mean absolute RGB difference over a rectangle (x, y, w, h) of two same-size frames.
fn diff(a: &DecodedFrame, b: &DecodedFrame, (x0, y0, w, h): (u32, u32, u32, u32)) -> f64 {
    assert_eq!((a.width, a.height), (b.width, b.height));
    let mut sum = 0u64;
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            let i = ((y * a.width + x) * 4) as usize;
            for c in 0..3 {
                sum += u64::from(a.rgba[i + c].abs_diff(b.rgba[i + c]));
            }
        }
    }
    sum as f64 / f64::from(w * h * 3)
}

fn whole(frame: &DecodedFrame) -> (u32, u32, u32, u32) {
    (0, 0, frame.width, frame.height)
}

/// Mean of one RGB channel over a rectangle.
fn channel_mean(frame: &DecodedFrame, channel: usize, (x0, y0, w, h): (u32, u32, u32, u32)) -> f64 {
    let mut sum = 0u64;
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            sum += u64::from(frame.rgba[((y * frame.width + x) * 4) as usize + channel]);
        }
    }
    sum as f64 / f64::from(w * h)
}

fn audio_of(mp4: &[u8]) -> Vec<f32> {
    decode_source_audio(mp4)
        .expect("audio decodes")
        .expect("an Opus track")
}

fn as_i420(frame: &DecodedFrame) -> I420 {
    I420::from_rgba(frame.width, frame.height, &frame.rgba).expect("even frame")
}

/// Frame codes of the trimmed fixture are exactly the source frames in the span.
#[test]
fn trim_keeps_exactly_the_frames_in_the_span() {
    for fixture in [BASELINE, BFRAMES] {
        let before = fixture.to_vec();
        // 24 fps: 0.51 s shows frame 12; frames before 1.0 s end at 23.
        let cut = trim_video(fixture, 0.51, 1.0).expect("trim");
        assert_eq!(fixture, before.as_slice(), "the source bytes are untouched");
        let out = frames(&cut.mp4);
        let codes: Vec<u32> = out.iter().map(frame_code).collect();
        assert_eq!(codes, (12..24).collect::<Vec<u32>>());
        assert_eq!((cut.width, cut.height, cut.fps), (160, 90, 24));
        assert_eq!(cut.frame_count, 12);
        assert!(!cut.has_audio);
        // An end past the duration is clamped to it.
        let tail = trim_video(fixture, 1.5, 99.0).expect("trim to the end");
        let codes: Vec<u32> = frames(&tail.mp4).iter().map(frame_code).collect();
        assert_eq!(codes, (36..48).collect::<Vec<u32>>());
    }
}

#[test]
fn trim_starting_at_or_after_the_end_fails_clearly() {
    for start in [2.0, 5.0] {
        let error = trim_video(BASELINE, start, 6.0)
            .err()
            .map(|e| e.to_string());
        let message = error.unwrap_or_default();
        assert!(message.contains("at or after the end"), "{message}");
    }
    assert!(trim_video(BASELINE, 1.0, 0.5).is_err(), "end before start");
}

#[test]
fn probe_reads_size_rate_length_and_sound() {
    let probe = probe_video(BASELINE).expect("probe");
    assert_eq!((probe.width, probe.height, probe.fps), (160, 90, 24));
    assert_eq!(probe.frame_count, 48);
    assert!((probe.duration_secs - 2.0).abs() < 1e-6);
    assert!(!probe.has_audio);
    assert!(probe_video(b"not a video").is_err());
}

/// Generated sound: both tracks there, the picture as it was, the sound audible; trimming
/// it keeps a matching piece of the sound.
#[test]
fn generate_audio_adds_a_track_that_is_not_silent_and_trim_cuts_it() {
    let src = source(false);
    let out = edit(
        &src,
        VideoEditSpec::GenerateAudio {
            prompt: "waves on rocks".into(),
            sound_effect_prompt: Some("gulls".into()),
            background_music_prompt: None,
            keep_original: true,
        },
        false,
    );
    assert!(out.has_audio);
    assert!(probe_video(&out.mp4).expect("probe").has_audio);
    let parsed = re_mp4::Mp4::read_bytes(&out.mp4).expect("re_mp4 reads it");
    assert_eq!(parsed.tracks().len(), 2, "video and audio");
    let sound = audio_of(&out.mp4);
    assert!(sound.len() >= 2 * 48_000, "{} samples for 2 s", sound.len());
    assert!(rms(&sound[..96_000]) > 0.02, "audible");
    let (before, after) = (frames(&src), frames(&out.mp4));
    assert_eq!(before.len(), after.len());
    for (a, b) in before.iter().zip(&after) {
        assert!(diff(a, b, whole(a)) < SAME, "the picture is unchanged");
    }

    let cut = trim_video(&out.mp4, 1.0, 2.0).expect("trim");
    assert!(cut.has_audio);
    let piece = audio_of(&cut.mp4);
    assert!((47_000..50_000).contains(&piece.len()), "{}", piece.len());
    assert!(rms(&piece) > 0.02);
}

#[test]
fn upscale_resizes_and_interpolates_to_the_target_rate() {
    let src = source(false);
    let out = edit(
        &src,
        VideoEditSpec::Upscale {
            width: 320,
            height: 180,
            target_fps: Some(24),
        },
        false,
    );
    assert_eq!((out.width, out.height, out.fps), (320, 180, 24));
    assert_eq!(out.frame_count, 48, "same 2 s at twice the rate");
    let out_frames = frames(&out.mp4);
    assert_eq!((out_frames[0].width, out_frames[0].height), (320, 180));
    // Frame 3 (t = 0.125 s) lies halfway between source frames 1 and 2: a blend of the
    // even output frames around it.
    let (a, mid, b) = (&out_frames[2], &out_frames[3], &out_frames[4]);
    let mut blend = a.clone();
    for (i, p) in blend.rgba.iter_mut().enumerate() {
        *p = ((u16::from(a.rgba[i]) + u16::from(b.rgba[i])) / 2) as u8;
    }
    let to_blend = diff(mid, &blend, whole(mid));
    assert!(to_blend < diff(mid, a, whole(mid)) || diff(a, b, whole(a)) < 1.0);
    assert!(to_blend < 4.0, "{to_blend}");
}

/// Reframing to portrait fits the whole picture across the width; the grid position puts
/// it at the top, and unset centres it.
#[test]
fn reframe_places_the_picture_by_grid_position() {
    let src = source(false);
    let reframe = |y: Option<f32>| {
        edit(
            &src,
            VideoEditSpec::Reframe {
                width: 90,
                height: 160,
                grid: GridPosition { x: None, y },
            },
            false,
        )
    };
    let top = reframe(Some(0.0));
    let centred = reframe(None);
    assert_eq!((top.width, top.height), (90, 160));
    // The source's first frame fitted to 90 px wide is 90x50 (rounded to even).
    let first = as_i420(&frames(&src)[0]);
    let fitted = geometry::scale_cover(&first, 90, 50);
    let expected_at = |offset: usize| {
        let mut frame = I420::new(90, 160);
        frame.y[offset * 90..(offset + 50) * 90].copy_from_slice(&fitted.y);
        frame
    };
    let luma_diff = |out: &RenderedVideo, at: usize| {
        let got = as_i420(&frames(&out.mp4)[0]);
        let expected = expected_at(at);
        let (from, to) = (at * 90, (at + 50) * 90);
        got.y[from..to]
            .iter()
            .zip(&expected.y[from..to])
            .map(|(a, b)| f64::from(a.abs_diff(*b)))
            .sum::<f64>()
            / (to - from) as f64
    };
    assert!(luma_diff(&top, 0) < 6.0, "picture at the top");
    assert!(luma_diff(&centred, 54) < 6.0, "picture centred");
    assert!(luma_diff(&top, 54) > luma_diff(&top, 0) + 4.0);
}

#[test]
fn remove_watermark_fills_the_mark_and_edits_draw_a_fresh_one() {
    let marked = source(true);
    let first = as_i420(&frames(&marked)[0]);
    let rect = Unmark::detect(&first)
        .expect("the source carries the mark")
        .rect();
    let clean = edit(&marked, VideoEditSpec::RemoveWatermark, false);
    let clean_frames = frames(&clean.mp4);
    assert!(
        Unmark::detect(&as_i420(&clean_frames[0])).is_none(),
        "mark gone"
    );
    // Away from the mark nothing changed.
    let (before, after) = (&frames(&marked)[5], &clean_frames[5]);
    assert!(diff(before, after, (0, 0, W, rect.1 as u32)) < SAME);
    assert!(
        diff(
            before,
            after,
            (rect.0 as u32, rect.1 as u32, rect.2 as u32, rect.3 as u32)
        ) > 2.0 * SAME
    );

    // An upscale of a marked source carries one mark, at the new size's place.
    let big = edit(
        &marked,
        VideoEditSpec::Upscale {
            width: 320,
            height: 180,
            target_fps: None,
        },
        true,
    );
    let big_first = as_i420(&frames(&big.mp4)[0]);
    assert!(Unmark::detect(&big_first).is_some(), "fresh mark");
    let scaled_old = (
        rect.0 as u32 * 2,
        rect.1 as u32 * 2,
        rect.2 as u32 * 2,
        rect.3 as u32 * 2,
    );
    let fresh = Unmark::detect(&big_first)
        .map(|u| u.rect())
        .unwrap_or_default();
    assert_ne!(
        (fresh.0 as u32, fresh.1 as u32),
        (scaled_old.0, scaled_old.1)
    );
}

#[test]
fn face_swap_puts_the_reference_colours_in_the_upper_middle_only() {
    let src = source(false);
    let face = image::RgbImage::from_pixel(40, 48, image::Rgb([230, 40, 40]));
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(face)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("png");
    let out = edit(
        &src,
        VideoEditSpec::FaceSwap {
            face_jpeg_or_png: png,
        },
        false,
    );
    let (before, after) = (frames(&src), frames(&out.mp4));
    let (left, top, side) = regions::face_square(W as usize, H as usize);
    let centre = (
        left as u32 + side as u32 / 3,
        top as u32 + side as u32 / 3,
        side as u32 / 3,
        side as u32 / 3,
    );
    for (a, b) in before.iter().zip(&after).step_by(6) {
        let red_gain = channel_mean(b, 0, centre) - channel_mean(a, 0, centre);
        assert!(red_gain > 25.0, "redder face: {red_gain}");
        assert!(
            diff(a, b, (0, 70, 40, 20)) < SAME,
            "bottom-left corner untouched"
        );
    }
    assert!(
        edit_video(
            &src,
            &VideoEditSpec::FaceSwap {
                face_jpeg_or_png: b"nope".to_vec()
            },
            3,
            false
        )
        .is_err()
    );
}

#[test]
fn extend_adds_frames_at_the_chosen_end() {
    let src = source(false);
    let before = frames(&src);
    for at_start in [false, true] {
        let out = edit(
            &src,
            VideoEditSpec::Extend {
                seconds: 1.0,
                at_start,
                prompt: "the camera keeps going".into(),
            },
            false,
        );
        assert_eq!(out.frame_count, 24 + 12);
        let after = frames(&out.mp4);
        let offset = if at_start { 12 } else { 0 };
        for (i, a) in before.iter().enumerate() {
            assert!(
                diff(a, &after[i + offset], whole(a)) < SAME,
                "source frame {i} kept"
            );
        }
        // The new frames move: the furthest one differs clearly from the frame it grew from.
        let (anchor, furthest) = if at_start {
            (&before[0], &after[0])
        } else {
            (&before[23], &after[35])
        };
        assert!(diff(anchor, furthest, whole(anchor)) > 2.0 * SAME);
    }
}

#[test]
fn magic_edit_changes_every_frame() {
    let src = source(false);
    let out = edit(
        &src,
        VideoEditSpec::MagicEdit {
            prompt: "make it neon".into(),
        },
        false,
    );
    for (a, b) in frames(&src).iter().zip(&frames(&out.mp4)) {
        assert!(diff(a, b, whole(a)) > 2.0 * SAME);
    }
}

#[test]
fn lipsync_speaks_and_moves_the_mouth() {
    let src = source(false);
    let out = edit(
        &src,
        VideoEditSpec::Lipsync {
            text_prompt: Some("hello there".into()),
        },
        false,
    );
    assert!(out.has_audio);
    assert!(rms(&audio_of(&out.mp4)) > 0.02);
    let (before, after) = (frames(&src), frames(&out.mp4));
    let (left, top, side) = regions::face_square(W as usize, H as usize);
    let mouth = (
        left as u32,
        top as u32 + side as u32 / 2,
        side as u32,
        side as u32 / 2,
    );
    let changes: Vec<f64> = before
        .iter()
        .zip(&after)
        .map(|(a, b)| diff(a, b, mouth))
        .collect();
    let (most, least) = changes
        .iter()
        .fold((0f64, f64::MAX), |(hi, lo), &c| (hi.max(c), lo.min(c)));
    assert!(
        most > least + 4.0,
        "the mouth opens and closes: {changes:?}"
    );
    for (a, b) in before.iter().zip(&after) {
        assert!(diff(a, b, (0, 0, 40, 30)) < SAME, "elsewhere untouched");
    }
}

#[test]
fn remove_background_fills_the_edges_and_keeps_the_centre() {
    let src = source(false);
    let out = edit(
        &src,
        VideoEditSpec::RemoveBackground {
            fill: BackgroundFill::Flat([0, 200, 0]),
        },
        false,
    );
    let (before, after) = (frames(&src), frames(&out.mp4));
    for (a, b) in before.iter().zip(&after).step_by(5) {
        let corner = (0, 0, 12, 8);
        assert!(
            channel_mean(b, 1, corner) > 170.0 && channel_mean(b, 0, corner) < 40.0,
            "green"
        );
        assert!(diff(a, b, (70, 38, 20, 14)) < SAME, "centre kept");
    }
}

#[test]
fn inpaint_refills_the_ellipse_or_the_mask_videos_white_area() {
    let src = source(false);
    let before = frames(&src);
    let out = edit(
        &src,
        VideoEditSpec::Inpaint {
            mask_mp4: None,
            prompt: "a boat".into(),
        },
        false,
    );
    let after = frames(&out.mp4);
    for (a, b) in before.iter().zip(&after).step_by(6) {
        assert!(diff(a, b, (72, 38, 16, 14)) > 2.0 * SAME, "centre refilled");
        assert!(diff(a, b, (0, 0, 30, 20)) < SAME, "corner untouched");
    }
    // A mask video (smaller than the frame) white on its left half only.
    let mut encoder = Mp4Encoder::new(80, 46, FPS).expect("encoder");
    for _ in 0..6 {
        let mut frame = I420::new(80, 46);
        for row in frame.y.chunks_mut(80) {
            row[..40].fill(235);
        }
        encoder.push_yuv(&frame).expect("mask frame");
    }
    let mask = encoder.finish().expect("mask video");
    let out = edit(
        &src,
        VideoEditSpec::Inpaint {
            mask_mp4: Some(mask),
            prompt: "a boat".into(),
        },
        false,
    );
    let after = frames(&out.mp4);
    for (a, b) in before.iter().zip(&after).step_by(6) {
        assert!(
            diff(a, b, (10, 10, 50, 70)) > 2.0 * SAME,
            "left half refilled"
        );
        assert!(diff(a, b, (100, 10, 50, 70)) < SAME, "right half untouched");
    }
}

#[test]
fn retake_changes_only_the_span() {
    let src = source(false);
    let before = frames(&src);
    let out = edit(
        &src,
        VideoEditSpec::Retake {
            start_secs: 0.5,
            duration_secs: 1.0,
            mode: RetakeMode::ReplaceVideo,
            prompt: "a different angle".into(),
        },
        false,
    );
    let after = frames(&out.mp4);
    assert_eq!(after.len(), 24);
    for (i, (a, b)) in before.iter().zip(&after).enumerate() {
        let d = diff(a, b, whole(a));
        if (6..18).contains(&i) {
            assert!(d > 2.0 * SAME, "frame {i} regenerated ({d})");
        } else {
            assert!(d < SAME, "frame {i} kept ({d})");
        }
    }
    assert!(!out.has_audio, "no sound was asked for");

    let sound = edit(
        &src,
        VideoEditSpec::Retake {
            start_secs: 0.5,
            duration_secs: 1.0,
            mode: RetakeMode::ReplaceAudio,
            prompt: "a different angle".into(),
        },
        false,
    );
    for (a, b) in before.iter().zip(&frames(&sound.mp4)) {
        assert!(diff(a, b, whole(a)) < SAME, "picture unchanged");
    }
    let pcm = audio_of(&sound.mp4);
    assert!(rms(&pcm[30_000..66_000]) > 0.02, "new sound in the span");
    assert!(rms(&pcm[..20_000]) < 0.005, "silence before it");
    assert!(rms(&pcm[76_000..96_000]) < 0.005, "silence after it");
}

#[test]
fn restyle_repaints_every_frame_in_the_palette() {
    let src = source(false);
    let palette = [
        [250, 220, 30],
        [20, 20, 120],
        [240, 240, 240],
        [200, 30, 30],
        [10, 90, 20],
    ];
    let graded = restyle_video(&src, "ink and paper", 3, Some(&palette), false).expect("restyle");
    let plain = restyle_video(&src, "ink and paper", 3, None, false).expect("restyle");
    let (before, graded, plain) = (frames(&src), frames(&graded.mp4), frames(&plain.mp4));
    for i in (0..24).step_by(6) {
        assert!(diff(&before[i], &graded[i], whole(&before[i])) > 2.0 * SAME);
        assert!(
            diff(&graded[i], &plain[i], whole(&graded[i])) > 2.0 * SAME,
            "the palette shows"
        );
    }
}

/// Writes sample outputs for checking by hand (ffprobe, ffmpeg, looking at frames):
/// `FRAMEWRIGHT_EDIT_SAMPLES=/tmp/dir cargo test --lib write_samples -- --ignored`.
#[test]
#[ignore = "writes files for a person to look at"]
fn write_samples() {
    let Ok(dir) = std::env::var("FRAMEWRIGHT_EDIT_SAMPLES") else {
        return;
    };
    let spec = VideoRenderSpec {
        prompt: "a lighthouse on a cliff at dusk",
        seed: 7,
        width: 320,
        height: 180,
        fps: 24,
        duration_secs: 3.0,
        palette: None,
        source: None,
        watermark: true,
        sound: false,
    };
    let src = render_video(&spec).expect("render").mp4;
    let face = image::RgbImage::from_fn(64, 80, |x, y| {
        image::Rgb([200, (x * 3) as u8, (y * 2) as u8])
    });
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(face)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("png");
    let edits = [
        (
            "upscale",
            VideoEditSpec::Upscale {
                width: 640,
                height: 360,
                target_fps: Some(30),
            },
        ),
        (
            "reframe",
            VideoEditSpec::Reframe {
                width: 180,
                height: 320,
                grid: GridPosition {
                    x: None,
                    y: Some(0.2),
                },
            },
        ),
        (
            "generate_audio",
            VideoEditSpec::GenerateAudio {
                prompt: "waves".into(),
                sound_effect_prompt: Some("gulls".into()),
                background_music_prompt: Some("piano".into()),
                keep_original: true,
            },
        ),
        ("remove_watermark", VideoEditSpec::RemoveWatermark),
        (
            "face_swap",
            VideoEditSpec::FaceSwap {
                face_jpeg_or_png: png,
            },
        ),
        (
            "extend",
            VideoEditSpec::Extend {
                seconds: 2.0,
                at_start: false,
                prompt: "on".into(),
            },
        ),
        (
            "magic_edit",
            VideoEditSpec::MagicEdit {
                prompt: "neon".into(),
            },
        ),
        (
            "lipsync",
            VideoEditSpec::Lipsync {
                text_prompt: Some("hello".into()),
            },
        ),
        (
            "remove_background",
            VideoEditSpec::RemoveBackground {
                fill: BackgroundFill::Checker,
            },
        ),
        (
            "inpaint",
            VideoEditSpec::Inpaint {
                mask_mp4: None,
                prompt: "a boat".into(),
            },
        ),
        (
            "retake",
            VideoEditSpec::Retake {
                start_secs: 0.5,
                duration_secs: 2.0,
                mode: RetakeMode::ReplaceAudioAndVideo,
                prompt: "again".into(),
            },
        ),
    ];
    let write = |name: &str, video: &RenderedVideo| {
        std::fs::write(format!("{dir}/{name}.mp4"), &video.mp4).expect("write");
        std::fs::write(format!("{dir}/{name}.jpg"), &video.poster_jpeg).expect("write");
    };
    std::fs::write(format!("{dir}/source.mp4"), &src).expect("write");
    for (name, spec) in edits {
        let watermark = !matches!(spec, VideoEditSpec::RemoveWatermark);
        write(name, &edit(&src, spec, watermark));
    }
    write(
        "restyle",
        &restyle_video(&src, "ink", 3, None, true).expect("restyle"),
    );
    let with_sound = std::fs::read(format!("{dir}/generate_audio.mp4")).expect("read");
    write("trim", &trim_video(&with_sound, 1.0, 2.5).expect("trim"));
}

#[test]
fn native_sound_renders_an_opus_track_of_the_clip_length() {
    let spec = |sound: bool| VideoRenderSpec {
        prompt: "waves on a pebble beach",
        seed: 11,
        width: W,
        height: H,
        fps: FPS,
        duration_secs: 2.0,
        palette: None,
        source: None,
        watermark: false,
        sound,
    };
    let with_sound = crate::sandbox::video::render_video(&spec(true)).expect("renders");
    assert!(with_sound.has_audio);
    let pcm = super::audio::decode_source_audio(&with_sound.mp4)
        .expect("decodes")
        .expect("an Opus track");
    let expected = super::audio::samples_for_secs(2.0);
    assert!(
        pcm.len() >= expected && pcm.len() < expected + 960 * 2,
        "{}",
        pcm.len()
    );
    assert!(super::audio::rms(&pcm) > 0.01);
    // Deterministic per seed; silent videos stay silent.
    let again = crate::sandbox::video::render_video(&spec(true)).expect("renders");
    assert_eq!(again.mp4, with_sound.mp4);
    let silent = crate::sandbox::video::render_video(&spec(false)).expect("renders");
    assert!(!super::audio::has_audio_track(&silent.mp4));
}
