//! Mutation fuzzing of the thumbnail decoders: the hand-written JPEG DC decoder
//! (`jpeg_dc`), the scaled libjpeg path (`jpeg_fast`) and `decode_image` with its limits,
//! over small re-encodings of the real photos in `../shared/fixtures/photos/` as JPEG
//! (baseline 4:2:0, 4:4:4 with restart markers, grey, progressive), PNG, WebP and GIF.
//!
//! What must hold for every mutated file: no panic, the pixel buffer matches the size the
//! decoder reports, a thumbnail is never larger than asked for, and no single allocation
//! exceeds the decode limit (a tiny file claiming a huge picture is refused from its
//! header). Replay a failing case with the `FUZZ_SEED=… FUZZ_CASE=…` the report prints.

use crate::fuzz_support;

use framewright::media::decode::{MAX_DECODE_BYTES, MAX_DECODE_SIDE_PX};
use framewright::media::{DecodeError, decode_image, fuzz_entry};
use fuzz_support::{Rng, fixture, mutate, run};
use jpeg_encoder::{ColorType, Encoder, SamplingFactor};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Cursor;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Counts the largest single allocation made by this thread, so a case can tell whether
/// the decode limits held (the decoders' Rust allocations; libjpeg's own are its business).
struct LargestAllocation;

thread_local! {
    static LARGEST_BYTES: Cell<usize> = const { Cell::new(0) };
}

fn note(bytes: usize) {
    let _ = LARGEST_BYTES.try_with(|largest| largest.set(largest.get().max(bytes)));
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for LargestAllocation {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: LargestAllocation = LargestAllocation;

/// Run `decode` and fail if any single allocation during it went over the decode limit.
fn within_allocation_limit(decode: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    LARGEST_BYTES.with(|largest| largest.set(0));
    let outcome = decode();
    let largest = LARGEST_BYTES.with(Cell::get) as u64;
    // The limit is for the decoded picture; a little over covers a decoder's row padding.
    if largest > MAX_DECODE_BYTES + MAX_DECODE_BYTES / 16 {
        return Err(format!(
            "allocated {largest} bytes at once (limit {MAX_DECODE_BYTES})"
        ));
    }
    outcome
}

/// Thumbnail side asked for: small, so the 64 px seeds take the scaled JPEG paths.
const THUMB_SIDE_PX: u32 = 8;
/// Side of the seed pictures: small so each case is cheap, several blocks and MCUs wide.
const SEED_WIDTH_PX: u32 = 64;
const SEED_HEIGHT_PX: u32 = 40;

fn photo(name: &str) -> image::RgbImage {
    let decoded =
        image::load_from_memory(&fixture(&format!("photos/{name}"))).expect("fixture photo");
    image::imageops::resize(
        &decoded.to_rgb8(),
        SEED_WIDTH_PX,
        SEED_HEIGHT_PX,
        image::imageops::FilterType::Triangle,
    )
}

fn jpeg(image: &image::RgbImage, sampling: SamplingFactor, restarts: Option<u16>) -> Vec<u8> {
    jpeg_with(image, sampling, restarts, false, false)
}

fn jpeg_with(
    image: &image::RgbImage,
    sampling: SamplingFactor,
    restarts: Option<u16>,
    progressive: bool,
    grey: bool,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = Encoder::new(&mut out, 85);
    encoder.set_sampling_factor(sampling);
    encoder.set_progressive(progressive);
    if let Some(interval) = restarts {
        encoder.set_restart_interval(interval);
    }
    let (width, height) = (image.width() as u16, image.height() as u16);
    if grey {
        let luma = image::DynamicImage::ImageRgb8(image.clone()).to_luma8();
        encoder
            .encode(luma.as_raw(), width, height, ColorType::Luma)
            .expect("encode grey");
    } else {
        encoder
            .encode(image.as_raw(), width, height, ColorType::Rgb)
            .expect("encode");
    }
    out
}

fn encoded(image: &image::RgbImage, format: image::ImageFormat) -> Vec<u8> {
    let mut out = Vec::new();
    let picture = if format == image::ImageFormat::WebP {
        // The `image` crate writes lossless WebP only, RGBA.
        image::DynamicImage::ImageRgba8(image::DynamicImage::ImageRgb8(image.clone()).to_rgba8())
    } else {
        image::DynamicImage::ImageRgb8(image.clone())
    };
    picture
        .write_to(&mut Cursor::new(&mut out), format)
        .expect("encode seed");
    out
}

/// The seed files, built once per test binary.
struct Seeds {
    jpegs: Vec<Vec<u8>>,
    others: Vec<Vec<u8>>,
}

fn seeds() -> &'static Seeds {
    static SEEDS: OnceLock<Seeds> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let rocket = photo("rocket.jpg");
        let retina = photo("retina.jpg");
        let coffee = photo("coffee.png");
        let jpegs = vec![
            jpeg(&rocket, SamplingFactor::R_4_2_0, None),
            jpeg(&retina, SamplingFactor::R_4_4_4, Some(2)),
            jpeg(&coffee, SamplingFactor::R_4_2_2, Some(1)),
            jpeg_with(&coffee, SamplingFactor::R_4_2_0, None, false, true),
            jpeg_with(&rocket, SamplingFactor::R_4_2_0, None, true, false),
            encoded(&retina, image::ImageFormat::Jpeg),
        ];
        let others = vec![
            encoded(&coffee, image::ImageFormat::Png),
            encoded(&rocket, image::ImageFormat::WebP),
            encoded(&retina, image::ImageFormat::Gif),
        ];
        for (n, seed) in jpegs.iter().enumerate() {
            assert!(seed.starts_with(&[0xFF, 0xD8]), "seed {n} is a JPEG");
        }
        Seeds { jpegs, others }
    })
}

fn mutated_jpeg(rng: &mut Rng) -> Vec<u8> {
    let seeds = &seeds().jpegs;
    let seed = rng.below(seeds.len());
    mutate(rng, &seeds[seed], seeds)
}

/// The sizes a decoded thumbnail may have, and its buffer must match.
fn check_image(width: u32, height: u32, rgba_len: usize, max_side_px: u32) -> Result<(), String> {
    if rgba_len as u64 != u64::from(width) * u64::from(height) * 4 {
        return Err(format!("{width}x{height} with {rgba_len} bytes of RGBA"));
    }
    if width == 0 || height == 0 || width > MAX_DECODE_SIDE_PX || height > MAX_DECODE_SIDE_PX {
        return Err(format!("decoded to {width}x{height}"));
    }
    if max_side_px > 0 && width.max(height) > max_side_px {
        return Err(format!(
            "thumbnail {width}x{height} is larger than {max_side_px} px"
        ));
    }
    Ok(())
}

#[test]
fn jpeg_dc_decoder_survives_mutated_jpegs() {
    const CASES: u64 = 60_000;
    // Mutations that only ever give headers the decoder declines would test nothing:
    // count the cases that reach the entropy-coded data and come out as a picture.
    let decoded = Arc::new(AtomicU64::new(0));
    let counter = decoded.clone();
    run("jpeg_dc", CASES, mutated_jpeg, move |bytes| {
        let Some((width, height, rgba)) = fuzz_entry::jpeg_dc(bytes) else {
            return Ok(());
        };
        counter.fetch_add(1, Ordering::Relaxed);
        check_image(width, height, rgba.len(), 0)?;
        // One pixel per 8×8 block, so never more than the frame allows.
        let max_side = MAX_DECODE_SIDE_PX.div_ceil(8);
        if width > max_side || height > max_side {
            return Err(format!("DC image {width}x{height}"));
        }
        Ok(())
    });
    let decoded = decoded.load(Ordering::Relaxed);
    if std::env::var_os("FUZZ_CASE").is_none() && fuzz_support::case_count(CASES) == CASES {
        assert!(
            decoded > CASES / 20,
            "only {decoded} of {CASES} mutated files were decoded: the mutations are too coarse"
        );
    }
}

#[test]
fn scaled_jpeg_path_survives_mutated_jpegs() {
    run("jpeg_scaled", 30_000, mutated_jpeg, |bytes| {
        within_allocation_limit(|| match fuzz_entry::jpeg_scaled(bytes, THUMB_SIDE_PX) {
            Ok(Some(image)) => {
                check_image(image.width, image.height, image.rgba.len(), THUMB_SIDE_PX)
            }
            Ok(None) | Err(_) => Ok(()),
        })
    });
}

#[test]
fn decode_image_survives_every_format_mutated() {
    run(
        "decode_image",
        30_000,
        |rng| {
            let seeds = seeds();
            let all: Vec<Vec<u8>> = seeds.jpegs.iter().chain(&seeds.others).cloned().collect();
            // Every other case a non-JPEG seed, so PNG/WebP/GIF get their share.
            let pool = if rng.one_in(2) { &seeds.others } else { &all };
            let seed = rng.pick(pool).clone();
            mutate(rng, &seed, &all)
        },
        |bytes| {
            within_allocation_limit(|| {
                for max_side_px in [THUMB_SIDE_PX, 0] {
                    if let Ok(image) = decode_image(bytes, max_side_px) {
                        check_image(image.width, image.height, image.rgba.len(), max_side_px)?;
                    }
                }
                Ok(())
            })
        },
    );
}

/// The case the fuzzer found (`FUZZ_SEED=20261128 FUZZ_CASE=11377`, `decode_image`): a
/// 1,907-byte VP8L WebP claiming 16260 × 9985 px. `image::Limits::max_alloc` did not hold
/// for it (the WebP decoder checks RGB output size but allocates RGBA: 649 MB at once); the
/// header check of `image_codec` refuses it before any pixel buffer exists.
#[test]
fn a_webp_claiming_16260_by_9985_is_refused_without_allocating() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/images/webp-vp8l-16260x9985.webp"
    ))
    .expect("fixture");
    for max_side_px in [THUMB_SIDE_PX, 0] {
        LARGEST_BYTES.with(|largest| largest.set(0));
        let outcome = decode_image(&bytes, max_side_px);
        let largest_bytes = LARGEST_BYTES.with(Cell::get);
        match outcome {
            Err(DecodeError::TooLarge { width, height, .. }) => {
                assert_eq!((width, height), (16_260, 9_985));
            }
            other => panic!("expected TooLarge, got {other:?}"),
        }
        // Header parsing only: nothing near the size of a picture.
        assert!(
            largest_bytes < 1024 * 1024,
            "allocated {largest_bytes} bytes at once"
        );
    }
}

#[test]
fn seeds_decode_before_mutation() {
    // The fuzzing means something only if the unmutated seeds take the paths under test.
    let seeds = seeds();
    let dc_decoded = seeds
        .jpegs
        .iter()
        .filter(|bytes| fuzz_entry::jpeg_dc(bytes).is_some())
        .count();
    assert!(
        dc_decoded >= 4,
        "only {dc_decoded} seeds take the DC decoder"
    );
    for bytes in seeds.jpegs.iter().chain(&seeds.others) {
        let image = decode_image(bytes, THUMB_SIDE_PX).expect("seed decodes");
        assert_eq!(image.width.max(image.height), THUMB_SIDE_PX);
    }
}

#[test]
fn the_runner_names_a_panicking_case_so_it_can_be_replayed() {
    if std::env::var_os("FUZZ_CASE").is_some() || std::env::var_os("FUZZ_CASES").is_some() {
        return; // about the default run only
    }
    // A "decoder" that panics on a quarter of the inputs and refuses another quarter.
    let report = std::panic::catch_unwind(|| {
        run(
            "runner_self_test",
            200,
            |rng| vec![rng.next_u64() as u8],
            |bytes| match bytes.first().map(|b| b % 4) {
                Some(0) => panic!("injected decoder panic"),
                Some(1) => Err("refused".to_owned()),
                _ => Ok(()),
            },
        );
    })
    .expect_err("failing cases fail the test");
    let report = fuzz_support::panic_text(report.as_ref());
    let seed = fuzz_support::seed_for("runner_self_test");
    assert!(report.contains(&format!("seed {seed}")), "{report}");
    assert!(report.contains("FUZZ_CASE="), "{report}");
    assert!(report.contains("injected decoder panic"), "{report}");
    assert!(report.contains("refused"), "{report}");
    // The first reported case replays to the same input.
    let case: u64 = report
        .split("FUZZ_CASE=")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse().ok())
        .expect("a case number");
    let replayed = Rng::for_case(seed, case).next_u64() as u8;
    assert!(replayed % 4 <= 1, "case {case} gave {replayed:#x}");
}

/// The case the fuzzer found (`FUZZ_SEED=1795897062 FUZZ_CASE=27941`, `decode_image`): a
/// GIF whose logical screen is 0 × 40 px decoded to a picture with no pixels, which no
/// texture or thumbnail can hold. It is refused as empty instead.
#[test]
fn a_gif_with_a_zero_width_screen_is_refused_as_empty() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/images/gif-screen-0x40.gif"
    ))
    .expect("fixture");
    for max_side_px in [THUMB_SIDE_PX, 0] {
        match decode_image(&bytes, max_side_px) {
            Err(DecodeError::Empty { width, height }) => {
                assert_eq!(width.min(height), 0, "{width} × {height}");
            }
            other => panic!("expected Empty, got {other:?}"),
        }
    }
}

/// Transcripts' SRT files come from the network: mutated SRT must never panic, every cue
/// read must be well formed (finite, ordered, non-empty text), and what is read must
/// survive being written out and read again unchanged (export then re-import).
#[test]
fn srt_reader_survives_mutated_subtitles() {
    use framewright::media::subtitles::{parse_srt, to_srt, to_txt, to_vtt};
    const SEEDS: [&str; 3] = [
        "1\n00:00:00,000 --> 00:00:01,500\nHello there,\nfriend.\n\n2\n00:00:01,500 --> 00:00:03,250\n[Speaker 2] How are you?\n\n",
        "\u{feff}00:01.5 --> 00:02.000 align:start\r\nSPEAKER_00: First\r\n\r\n7\r\n10:00:00,999 --> 10:00:01,000\r\n<v Speaker 1>Zweite Zeile – ünïcödé</v>\r\n",
        "3\n00:00:05,000 --> 00:00:04,000\n[music]\n\n\n4\n99:59:59,999 --> 100:00:00,000\nlast\n",
    ];
    let seeds: Vec<Vec<u8>> = SEEDS.iter().map(|s| s.as_bytes().to_vec()).collect();
    run(
        "srt",
        20_000,
        move |rng| {
            let seed = rng.pick(&seeds).clone();
            mutate(rng, &seed, &seeds)
        },
        |bytes| {
            let Ok(cues) = parse_srt(bytes) else {
                return Ok(());
            };
            for pair in cues.windows(2) {
                if pair[1].start_secs < pair[0].start_secs {
                    return Err("cues out of order".into());
                }
            }
            for cue in &cues {
                if !(cue.start_secs.is_finite() && cue.start_secs >= 0.0)
                    || cue.end_secs < cue.start_secs
                    || cue.text.trim().is_empty()
                {
                    return Err(format!("malformed cue {cue:?}"));
                }
            }
            let again = parse_srt(to_srt(&cues).as_bytes()).map_err(|e| e.to_string())?;
            if again != cues {
                return Err(format!(
                    "SRT round trip changed the cues: {cues:?} → {again:?}"
                ));
            }
            let _ = (to_vtt(&cues), to_txt(&cues));
            Ok(())
        },
    );
}

/// Seeds for the sound decoders: short MP3s and a WAV made here, and the AAC (M4A),
/// Vorbis and FLAC fixtures, each with its extension (the probe's hint).
fn sound_seeds() -> &'static Vec<(Vec<u8>, &'static str)> {
    use framewright::audio::testing::{mp3_bytes, tones, wav_bytes};
    static SEEDS: OnceLock<Vec<(Vec<u8>, &'static str)>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mono = tones(&[(0.15, 440.0), (0.15, 880.0)], 22_050, 0.5);
        let stereo: Vec<f32> = mono.iter().flat_map(|&s| [s, -s]).collect();
        let file = |name: &str| {
            std::fs::read(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/audio")
                    .join(name),
            )
            .expect("audio fixture")
        };
        vec![
            (mp3_bytes(&mono, 22_050, 1, 64), "mp3"),
            (mp3_bytes(&stereo, 22_050, 2, 96), "mp3"),
            (wav_bytes(&stereo, 22_050, 2), "wav"),
            (file("tones_440_880.m4a"), "m4a"),
            (file("tones_440_880.ogg"), "ogg"),
            (file("tones_440_880.flac"), "flac"),
        ]
    })
}

/// Every sound decoder the studio uses (symphonia: MP3, WAV, AAC in MP4, Vorbis in Ogg,
/// FLAC) over mutated files: no panic, samples stay in -1..=1, a file never yields more
/// than its bytes could hold (no endless decode) and seeking anywhere is safe.
///
/// Allocations are NOT held to the picture limit: this fuzzer found that symphonia 0.5
/// allocates a zero-filled buffer of whatever length a header claims before reading it
/// (a FLAC Vorbis comment's u32 length in `read_comment_no_framing`, an MP4 sample size in
/// `read_boxed_slice_exact`), up to 4 GiB for a 1 KB file; the read then fails on the short
/// file and the open is an `AudioError`. On Linux the zeroed allocation is lazy (calloc,
/// no page touched), so it costs nothing, but a system that refuses the reservation would
/// abort. Cases: `FUZZ_SEED=15557898766829253904 FUZZ_CASE=642`, `2003` (FLAC), `2739`
/// (M4A). What is checked instead: no allocation beyond what a u32 length can claim.
#[test]
fn sound_decoders_survive_mutated_files() {
    use framewright::audio::source::open_bytes;
    run(
        "sound_decoders",
        2_000,
        |rng| {
            let seeds = sound_seeds();
            let all: Vec<Vec<u8>> = seeds.iter().map(|(b, _)| b.clone()).collect();
            let (seed, ext) = rng.pick(seeds);
            let mut bytes = mutate(rng, seed, &all);
            // The extension hint rides in front of the file (0 = none), so a saved
            // failing case replays as it ran.
            let hint = if rng.one_in(4) {
                0u8
            } else {
                match *ext {
                    "mp3" => 1,
                    "wav" => 2,
                    "m4a" => 3,
                    "ogg" => 4,
                    _ => 5,
                }
            };
            bytes.insert(0, hint);
            bytes
        },
        |input| {
            let (hint, bytes) = input.split_first().ok_or("empty case")?;
            let ext = match hint {
                1 => Some("mp3"),
                2 => Some("wav"),
                3 => Some("m4a"),
                4 => Some("ogg"),
                5 => Some("flac"),
                _ => None,
            };
            LARGEST_BYTES.with(|largest| largest.set(0));
            let outcome = (|| {
                for ext in [ext, None] {
                    let Ok((mut source, info)) = open_bytes(bytes.to_vec(), ext) else {
                        continue;
                    };
                    if !(1..=2).contains(&info.channels) || info.sample_rate_hz == 0 {
                        return Err(format!("odd format {info:?}"));
                    }
                    let mut buf = vec![0f32; 4096];
                    // A lossy decoder may make far more samples than bytes, but not
                    // without bound: 1 s of stereo 48 kHz per 100 bytes is generous.
                    let budget = 96_000 * (bytes.len() / 100 + 10);
                    let mut total = 0usize;
                    for pass in 0..2 {
                        loop {
                            match source.read(&mut buf) {
                                Ok(0) | Err(_) => break,
                                Ok(n) => {
                                    if buf[..n].iter().any(|v| !(-1.0..=1.0).contains(v)) {
                                        return Err("a sample outside -1..=1".into());
                                    }
                                    total += n;
                                    if total > budget {
                                        return Err(format!(
                                            "{total} samples from {} bytes",
                                            bytes.len()
                                        ));
                                    }
                                }
                            }
                        }
                        if pass == 0 {
                            let _ = source.seek(0.1);
                        }
                    }
                }
                Ok(())
            })();
            let largest = LARGEST_BYTES.with(Cell::get) as u64;
            if largest > u64::from(u32::MAX) + 4096 {
                return Err(format!("allocated {largest} bytes at once"));
            }
            outcome
        },
    );
}

/// The 3D viewer's GLB loader (`media::mesh::load_glb`) over mutations of the sandbox's
/// generated models (small ones, so a case stays quick): never a panic out of it, and a
/// mesh it accepts is consistent (every index inside the vertex list, one normal and one
/// colour per vertex, whole triangles, finite bounds).
#[test]
fn glb_loader_survives_mutated_models() {
    static MODELS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let models = MODELS.get_or_init(|| {
        vec![
            framewright::sandbox::procedural_glb(1, 1_000),
            framewright::sandbox::procedural_glb(2, 2_000),
        ]
    });
    run(
        "glb_loader",
        3_000,
        move |rng| {
            let base = rng.pick(models).clone();
            mutate(rng, &base, models)
        },
        |bytes: &Vec<u8>| {
            let Ok(mesh) = framewright::media::mesh::load_glb(bytes) else {
                return Ok(());
            };
            let vertices = mesh.positions.len();
            if mesh.normals.len() != vertices || mesh.colors.len() != vertices {
                return Err("attribute lengths differ".into());
            }
            if mesh.indices.len() % 3 != 0 || mesh.indices.is_empty() {
                return Err(format!("{} indices", mesh.indices.len()));
            }
            if mesh.indices.iter().any(|&i| i as usize >= vertices) {
                return Err("an index past the vertex list".into());
            }
            if mesh
                .bounds
                .min
                .iter()
                .chain(&mesh.bounds.max)
                .any(|v| !v.is_finite())
            {
                return Err("bounds are not finite".into());
            }
            Ok(())
        },
    );
}

/// A fuzz finding (FUZZ_SEED=1795924503, case 61): an M4A whose sample-to-chunk table made
/// symphonia's MP4 reader overflow a subtraction. Refused in words, never a panic.
#[test]
fn an_m4a_with_a_damaged_sample_table_is_refused() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/audio/damaged-stsc.m4a");
    assert!(framewright::audio::open_file(&path).is_err());
}

/// The look at a local video before it is sent (`engine::source_check`, a walk over the
/// MP4's top-level boxes): for every mutated file it answers, never panics, and a refusal
/// is a sentence for the field. A file cut short of its end is always refused.
#[test]
fn the_check_before_sending_survives_mutated_videos() {
    use framewright::engine::source_check::check_source_file;
    static VIDEOS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let videos = VIDEOS.get_or_init(|| {
        [
            "baseline_160x90_24fps_48f.mp4",
            "h264_aac_160x90_24fps_48f.mp4",
        ]
        .iter()
        .map(|name| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/video")
                .join(name);
            std::fs::read(&path).expect("video fixture")
        })
        .collect()
    });
    let dir = Arc::new(tempfile::tempdir().expect("tempdir"));
    run(
        "source_check_video",
        600,
        move |rng| {
            // The first byte says which kind of case follows: 0 mutated, 1 cut short.
            let base = rng.pick(videos).clone();
            if rng.below(4) == 0 {
                let cut_at = rng.below(base.len());
                [&[1u8][..], &base[..cut_at]].concat()
            } else {
                [vec![0u8], mutate(rng, &base, videos)].concat()
            }
        },
        move |case: &Vec<u8>| {
            let Some((&kind, bytes)) = case.split_first() else {
                return Ok(());
            };
            let path = dir
                .path()
                .join(format!("{:?}.mp4", std::thread::current().id()));
            std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
            match check_source_file(&path) {
                Ok(()) if kind == 1 => Err(format!(
                    "a file cut at {} bytes was let through",
                    bytes.len()
                )),
                Err(why) if !why.ends_with('.') => Err(format!("not a sentence: {why}")),
                _ => Ok(()),
            }
        },
    );
}
