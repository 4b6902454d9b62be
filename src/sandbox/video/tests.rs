//! End-to-end tests: render, then read the MP4 back with an independent demuxer (`re_mp4`)
//! and decode every sample with openh264's decoder.

use image::{DynamicImage, Rgb, RgbImage};
use openh264::decoder::Decoder;
use openh264::formats::YUVSource;
use re_mp4::{Mp4, StsdBoxContent};

use super::mp4::read::{find, top_level, u32_at};
use super::*;

fn spec<'a>(prompt: &'a str, seed: i64) -> VideoRenderSpec<'a> {
    VideoRenderSpec {
        prompt,
        seed,
        width: 160,
        height: 90,
        fps: 12,
        duration_secs: 2.0,
        palette: None,
        source: None,
        watermark: false,
        sound: false,
    }
}

fn render(spec: &VideoRenderSpec<'_>) -> RenderedVideo {
    render_video(spec).unwrap_or_else(|e| panic!("render failed: {e}"))
}

struct Decoded {
    width: usize,
    height: usize,
    /// RGB8 per frame.
    frames: Vec<Vec<u8>>,
    sync: Vec<bool>,
    timescale: u64,
    duration: u64,
    sample_durations: Vec<u64>,
}

/// Demuxes with `re_mp4` and decodes each sample (AVCC turned back into Annex B).
fn decode(mp4: &[u8]) -> Decoded {
    let parsed = Mp4::read_bytes(mp4).expect("re_mp4 parses the file");
    assert_eq!(parsed.tracks().len(), 1);
    let track = parsed.tracks().values().next().expect("one track");
    let StsdBoxContent::Avc1(avc1) = &track.trak(&parsed).mdia.minf.stbl.stsd.contents else {
        panic!("not avc1");
    };
    let avcc = &avc1.avcc.contents;
    assert_eq!(avcc.length_size_minus_one, 3);
    let mut decoder = Decoder::new().expect("decoder");
    let mut frames = Vec::new();
    let mut dims = (0, 0);
    let mut keep = |yuv: &openh264::decoder::DecodedYUV<'_>| {
        dims = yuv.dimensions();
        let mut rgb = vec![0u8; yuv.rgb8_len()];
        yuv.write_rgb8(&mut rgb);
        frames.push(rgb);
    };
    for (i, sample) in track.samples.iter().enumerate() {
        let mut annex_b = Vec::new();
        if i == 0 {
            for nal in avcc
                .sequence_parameter_sets
                .iter()
                .chain(&avcc.picture_parameter_sets)
            {
                annex_b.extend_from_slice(&[0, 0, 0, 1]);
                annex_b.extend_from_slice(&nal.bytes);
            }
        }
        let data = &mp4[sample.byte_range()];
        let mut at = 0;
        while at < data.len() {
            let len = u32_at(data, at) as usize;
            let nal = &data[at + 4..at + 4 + len];
            assert!(
                !matches!(nal[0] & 0x1f, 7 | 8),
                "SPS/PPS belong in avcC only"
            );
            annex_b.extend_from_slice(&[0, 0, 0, 1]);
            annex_b.extend_from_slice(nal);
            at += 4 + len;
        }
        assert_eq!(at, data.len(), "sample {i} is whole NAL units");
        if let Some(yuv) = decoder.decode(&annex_b).expect("decodes") {
            keep(&yuv);
        }
    }
    for yuv in decoder.flush_remaining().expect("flush") {
        keep(&yuv);
    }
    Decoded {
        width: dims.0,
        height: dims.1,
        frames,
        sync: track.samples.iter().map(|s| s.is_sync).collect(),
        timescale: track.timescale,
        duration: track.duration,
        sample_durations: track.samples.iter().map(|s| s.duration).collect(),
    }
}

fn mean_abs_diff(a: &[u8], b: &[u8]) -> f64 {
    let sum: u64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| u64::from(x.abs_diff(y)))
        .sum();
    sum as f64 / a.len() as f64
}

fn mean_channels(rgb: &[u8]) -> [f64; 3] {
    let mut sum = [0u64; 3];
    for px in rgb.chunks_exact(3) {
        for c in 0..3 {
            sum[c] += u64::from(px[c]);
        }
    }
    let n = (rgb.len() / 3) as f64;
    sum.map(|s| s as f64 / n)
}

#[test]
fn same_spec_gives_the_same_bytes_and_inputs_change_the_video() {
    let a = render(&spec("a quiet ocean at night", 7));
    let b = render(&spec("a quiet ocean at night", 7));
    assert!(a.mp4 == b.mp4, "mp4 differs between identical renders");
    assert!(a.poster_jpeg == b.poster_jpeg);
    let other_prompt = render(&spec("a burning sunset over red desert", 7));
    let other_seed = render(&spec("a quiet ocean at night", 8));
    let first = decode(&a.mp4).frames;
    for other in [&other_prompt, &other_seed] {
        let frames = decode(&other.mp4).frames;
        assert!(
            mean_abs_diff(&first[0], &frames[0]) > 10.0,
            "visibly different"
        );
    }
}

#[test]
fn decodes_to_the_requested_size_count_and_motion() {
    let video = render(&spec("forest of glass", 3));
    assert_eq!((video.width, video.height, video.fps), (160, 90, 12));
    assert_eq!(video.frame_count, 24);
    assert_eq!(video.duration_secs, 2.0);
    let decoded = decode(&video.mp4);
    assert_eq!((decoded.width, decoded.height), (160, 90));
    assert_eq!(decoded.frames.len(), 24);
    // Every frame moves on from the previous one, and the clip travels a long way.
    for pair in decoded.frames.windows(2) {
        assert!(mean_abs_diff(&pair[0], &pair[1]) > 0.3, "a frozen frame");
    }
    let last = decoded.frames.len() - 1;
    assert!(mean_abs_diff(&decoded.frames[0], &decoded.frames[last]) > 8.0);
}

#[test]
fn file_is_fast_start_with_exact_duration_and_regular_keyframes() {
    let mut s = spec("neon city rain", 11);
    s.duration_secs = 2.5;
    let video = render(&s);
    let file = &video.mp4;
    let kinds: Vec<[u8; 4]> = top_level(file).iter().map(|b| b.0).collect();
    assert_eq!(kinds, [*b"ftyp", *b"moov", *b"mdat"], "moov before mdat");

    let (mvhd, _) = find(file, &["moov", "mvhd"]).expect("mvhd");
    let (timescale, duration) = (u32_at(file, mvhd + 20), u32_at(file, mvhd + 24));
    assert_eq!(video.frame_count, 30);
    assert_eq!(f64::from(duration) / f64::from(timescale), 2.5);

    let decoded = decode(file);
    assert_eq!(decoded.frames.len(), 30);
    assert_eq!(decoded.duration as f64 / decoded.timescale as f64, 2.5);
    assert!(
        decoded
            .sample_durations
            .iter()
            .all(|&d| d == decoded.sample_durations[0])
    );
    // A sync sample at frame 0 and at least every `fps` frames (and stss is really there:
    // without it every sample would count as sync).
    assert!(find(file, &["moov", "trak", "mdia", "minf", "stbl", "stss"]).is_some());
    assert!(decoded.sync.iter().filter(|&&s| s).count() < decoded.sync.len());
    assert!(decoded.sync[0]);
    let sync: Vec<usize> = (0..decoded.sync.len())
        .filter(|&i| decoded.sync[i])
        .collect();
    assert!(sync.windows(2).all(|w| w[1] - w[0] <= 12), "{sync:?}");
    assert!(decoded.sync.len() - 1 - sync[sync.len() - 1] < 12);
}

#[test]
fn image_to_video_starts_from_the_source() {
    let source = DynamicImage::ImageRgb8(RgbImage::from_fn(300, 200, |x, y| {
        let checker = ((x / 25 + y / 25) % 2) as u8;
        Rgb([40 + checker * 160, (y / 2) as u8, 200 - checker * 120])
    }));
    let mut s = spec("slow push", 5);
    s.source = Some(&source);
    s.duration_secs = 1.5;
    let video = render(&s);
    let decoded = decode(&video.mp4);
    assert_eq!(decoded.frames.len(), 18);
    let fitted = source
        .resize_to_fill(160, 90, image::imageops::FilterType::Triangle)
        .into_rgb8();
    let first = mean_abs_diff(&decoded.frames[0], fitted.as_raw());
    assert!(
        first < 10.0,
        "frame 0 is the source, cover-fitted ({first})"
    );
    let last = mean_abs_diff(&decoded.frames[17], fitted.as_raw());
    assert!(last > first + 5.0, "then it moves away ({last} vs {first})");
}

#[test]
fn graded_palette_colours_the_frames() {
    let reds: [[u8; 3]; 3] = [[200, 30, 30], [90, 10, 10], [250, 120, 100]];
    let mut s = spec("anything at all", 1);
    s.palette = Some(&reds);
    let decoded = decode(&render(&s).mp4);
    for frame in [&decoded.frames[0], &decoded.frames[23]] {
        let [r, g, b] = mean_channels(frame);
        assert!(r > g + 30.0 && r > b + 30.0, "reds only: {r} {g} {b}");
    }
}

#[test]
fn watermark_poster_and_odd_sizes() {
    let mut s = spec("harbour lights", 2);
    s.width = 161;
    s.height = 91;
    s.watermark = true;
    let video = render(&s);
    assert_eq!((video.width, video.height), (160, 90));
    let poster = image::load_from_memory(&video.poster_jpeg).expect("poster is an image");
    assert_eq!((poster.width(), poster.height()), (160, 90));
    s.watermark = false;
    let plain = render(&s);
    let (marked, plain) = (decode(&video.mp4), decode(&plain.mp4));
    // The mark sits in the bottom-right corner: compare that corner and the top-left one.
    let corner = |rgb: &[u8], x0: usize, y0: usize| -> Vec<u8> {
        (y0..y0 + 10)
            .flat_map(|y| {
                (x0..x0 + 40).flat_map(move |x| (0..3).map(move |c| (y * 160 + x) * 3 + c))
            })
            .map(|i| rgb[i])
            .collect()
    };
    let br = mean_abs_diff(
        &corner(&marked.frames[0], 116, 78),
        &corner(&plain.frames[0], 116, 78),
    );
    let tl = mean_abs_diff(
        &corner(&marked.frames[0], 0, 0),
        &corner(&plain.frames[0], 0, 0),
    );
    assert!(
        br > 15.0 && br > tl * 3.0,
        "bottom-right {br}, top-left {tl}"
    );
}

#[test]
fn large_posters_are_scaled_down() {
    let mut s = spec("wide", 4);
    s.width = 1280;
    s.height = 720;
    s.duration_secs = 1.0 / 12.0;
    let video = render(&s);
    assert_eq!(video.frame_count, 1);
    let poster = image::load_from_memory(&video.poster_jpeg).expect("poster");
    assert_eq!((poster.width(), poster.height()), (512, 288));
    assert_eq!(decode(&video.mp4).frames.len(), 1);
}

#[test]
fn bad_specs_are_errors() {
    let cases: [(u32, u32, u32, f64); 6] = [
        (8, 90, 12, 1.0),
        (4000, 90, 12, 1.0),
        (160, 90, 0, 1.0),
        (160, 90, 61, 1.0),
        (160, 90, 12, 0.0),
        (160, 90, 12, f64::NAN),
    ];
    for (width, height, fps, duration_secs) in cases {
        let s = VideoRenderSpec {
            width,
            height,
            fps,
            duration_secs,
            ..spec("x", 0)
        };
        assert!(
            render_video(&s).is_err(),
            "{width}x{height}@{fps} {duration_secs}s"
        );
    }
}

#[test]
fn rgb_frames_round_trip_through_the_encoder() {
    // The path video edits will take: RGB frames in, a playable MP4 out.
    let colours = [[200u8, 40, 40], [40, 200, 40], [40, 40, 200]];
    let frames: Vec<RgbImage> = (0..30)
        .map(|i| RgbImage::from_pixel(96, 64, Rgb(colours[i / 10])))
        .collect();
    let mut encoder = Mp4Encoder::new(96, 64, 10).expect("encoder");
    for frame in &frames {
        encoder.push_frame(frame).expect("frame");
    }
    let decoded = decode(&encoder.finish().expect("mp4"));
    assert_eq!((decoded.width, decoded.height), (96, 64));
    assert_eq!(decoded.frames.len(), 30);
    assert_eq!(decoded.duration as f64 / decoded.timescale as f64, 3.0);
    for (i, frame) in decoded.frames.iter().enumerate() {
        let mean = mean_channels(frame);
        let expected = colours[i / 10];
        for c in 0..3 {
            assert!(
                (mean[c] - f64::from(expected[c])).abs() < 12.0,
                "frame {i}: {mean:?} vs {expected:?}"
            );
        }
    }
}
