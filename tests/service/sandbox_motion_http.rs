//! The sandbox's elements, first–last frame and lip-sync routes over real HTTP: statuses,
//! prices, every validation error, and the MP4s they make (decoded with the studio's own
//! `video_codec`). Plain JSON values, not the client's types.
//!
//! One sandbox serves the whole binary. The "Other generation" limiter allows 10 requests a
//! minute per user, so a request that meets a 429 moves the sandbox clock past the window
//! and retries. Jobs run as the default user with plenty of credits; the one credit check
//! takes the write side of `CREDITS` so no job is submitted while the balance is low.

use std::io::Cursor;
use std::sync::OnceLock;
use std::time::Duration;

use crate::service_support;
use service_support::{LocalService, local_service};

use framewright::video_codec::audio_track::find_audio_track;
use framewright::video_codec::{DecodedFrame, VideoDecoder};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::sync::{OnceCell, RwLock};

/// Fast waits: a 90-s job waits ~0.5 s (renders take their real time).
const FAST: f64 = 200.0;
const POLL_TIMEOUT: Duration = Duration::from_secs(120);
const PLENTY: f64 = 1_000_000.0;
const FIXTURE_MP4: &str = "tests/fixtures/video/baseline_160x90_24fps_48f.mp4";
const FIXTURE_FLAC: &str = "tests/fixtures/audio/tones_440_880.flac";
const FIXTURE_M4A: &str = "tests/fixtures/audio/tones_440_880.m4a";
/// Colours of the two first-last frames (far apart).
const WARM: [u8; 3] = [220, 90, 40];
const COOL: [u8; 3] = [30, 110, 210];

fn service() -> &'static LocalService {
    static SERVICE: OnceLock<LocalService> = OnceLock::new();
    SERVICE.get_or_init(|| {
        let mut service = local_service(FAST);
        // Tests run on separate runtimes: no pooled connection may outlive its runtime.
        service.http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("client");
        service.sandbox.set_credits(PLENTY);
        service
    })
}

/// Read side: a test that may submit jobs; write side: the credit check.
static CREDITS: RwLock<()> = RwLock::const_new(());

async fn call(method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
    loop {
        let (status, answer) = service()
            .call_as(&service().key, method.clone(), path, body.clone())
            .await;
        if status != StatusCode::TOO_MANY_REQUESTS {
            return (status, answer);
        }
        service().sandbox.advance_clock(61.0);
    }
}

async fn post(path: &str, body: Value) -> (StatusCode, Value) {
    call(Method::POST, path, Some(body)).await
}

async fn submit(path: &str, body: Value) -> Value {
    let (status, answer) = post(path, body).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{answer}");
    assert_eq!(answer["success"], true, "{answer}");
    assert_eq!(answer["poll_interval_hint"], 8, "{answer}");
    answer
}

async fn cancel(answer: &Value) {
    let id = answer["generation_id"].as_str().expect("id");
    let (status, body) = call(Method::POST, &format!("/v1/generate/{id}/cancel"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn wait(answer: &Value) -> Value {
    let id = answer["generation_id"].as_str().expect("id");
    let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
    loop {
        let (status, body) = call(Method::GET, &format!("/v1/generate/{id}/status"), None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        if matches!(
            body["state"].as_str(),
            Some("completed" | "failed" | "cancelled")
        ) {
            assert_eq!(body["state"], "completed", "{body}");
            return body;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{id} never finished"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn assert_error(status: StatusCode, body: &Value, expected: StatusCode, code: &str, words: &str) {
    assert_eq!(status, expected, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert_eq!(body["code"], code, "{body}");
    let text = body["error"].as_str().unwrap_or_default();
    assert!(text.contains(words), "{words:?} not in {body}");
}

async fn download(url: &str) -> Vec<u8> {
    service().download(url).await
}

/// Uploads bytes through the media upload route; returns the file URL.
async fn upload(bytes: Vec<u8>, filename: &str, mime: &str) -> String {
    service()
        .upload_media(&service().key, bytes, filename, mime)
        .await
}

/// A 96x96 PNG mostly of `colour`, with a soft stripe so it is not flat.
fn png(colour: [u8; 3]) -> Vec<u8> {
    let image = image::RgbImage::from_fn(96, 96, |x, y| {
        let stripe = if (x / 12 + y / 24) % 2 == 0 { 0 } else { 12 };
        image::Rgb(colour.map(|c| c.saturating_add(stripe)))
    });
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgb8(image)
        .write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png)
        .expect("png");
    bytes
}

/// A mono 16-bit WAV at 16 kHz: a 220 Hz tone switched on and off four times a second
/// (like syllables), `secs` long.
fn wav(secs: f64) -> Vec<u8> {
    const RATE: u32 = 16_000;
    let samples = (secs * f64::from(RATE)).round() as u32;
    let mut bytes = Vec::with_capacity(44 + samples as usize * 2);
    let data_len = samples * 2;
    bytes.extend_from_slice(b"RIFF");
    bytes.extend_from_slice(&(36 + data_len).to_le_bytes());
    bytes.extend_from_slice(b"WAVEfmt ");
    bytes.extend_from_slice(&16u32.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes()); // PCM
    bytes.extend_from_slice(&1u16.to_le_bytes()); // mono
    bytes.extend_from_slice(&RATE.to_le_bytes());
    bytes.extend_from_slice(&(RATE * 2).to_le_bytes());
    bytes.extend_from_slice(&2u16.to_le_bytes());
    bytes.extend_from_slice(&16u16.to_le_bytes());
    bytes.extend_from_slice(b"data");
    bytes.extend_from_slice(&data_len.to_le_bytes());
    for i in 0..samples {
        let t = f64::from(i) / f64::from(RATE);
        let on = (t * 4.0).fract() < 0.5;
        let s = if on {
            (t * 220.0 * std::f64::consts::TAU).sin() * 0.6
        } else {
            0.0
        };
        bytes.extend_from_slice(&((s * 32_000.0) as i16).to_le_bytes());
    }
    bytes
}

async fn warm_url() -> String {
    static URL: OnceCell<String> = OnceCell::const_new();
    URL.get_or_init(|| upload(png(WARM), "warm.png", "image/png"))
        .await
        .clone()
}

async fn cool_url() -> String {
    static URL: OnceCell<String> = OnceCell::const_new();
    URL.get_or_init(|| upload(png(COOL), "cool.png", "image/png"))
        .await
        .clone()
}

async fn wav_url(secs_tenths: u32) -> String {
    static URLS: tokio::sync::Mutex<Vec<(u32, String)>> = tokio::sync::Mutex::const_new(Vec::new());
    let mut urls = URLS.lock().await;
    if let Some((_, url)) = urls.iter().find(|(t, _)| *t == secs_tenths) {
        return url.clone();
    }
    let bytes = wav(f64::from(secs_tenths) / 10.0);
    let url = upload(bytes, "line.wav", "audio/wav").await;
    urls.push((secs_tenths, url.clone()));
    url
}

async fn fixture_video_url() -> String {
    static URL: OnceCell<String> = OnceCell::const_new();
    URL.get_or_init(|| async {
        upload(
            std::fs::read(FIXTURE_MP4).expect("fixture"),
            "clip.mp4",
            "video/mp4",
        )
        .await
    })
    .await
    .clone()
}

fn frames(mp4: &[u8]) -> (VideoDecoder, Vec<DecodedFrame>) {
    let mut decoder = VideoDecoder::from_bytes(mp4.to_vec()).expect("our decoder opens it");
    let mut all = Vec::new();
    while let Some(frame) = decoder.next_frame().expect("frame decodes") {
        all.push(frame);
    }
    (decoder, all)
}

/// Mean RGB of a frame, away from the bottom-right watermark.
fn mean_rgb(frame: &DecodedFrame) -> [f64; 3] {
    let (w, h) = (frame.width as usize, frame.height as usize);
    let mut sum = [0f64; 3];
    let mut n = 0f64;
    for y in 0..h * 3 / 4 {
        for x in 0..w * 3 / 4 {
            let at = (y * w + x) * 4;
            for (c, total) in sum.iter_mut().enumerate() {
                *total += f64::from(frame.rgba[at + c]);
            }
            n += 1.0;
        }
    }
    sum.map(|s| s / n)
}

fn distance(a: [f64; 3], b: [u8; 3]) -> f64 {
    (0..3)
        .map(|c| (a[c] - f64::from(b[c]) - 6.0).powi(2))
        .sum::<f64>()
        .sqrt()
}

fn sound_secs(mp4: &[u8]) -> f64 {
    find_audio_track(&mut Cursor::new(mp4), mp4.len() as u64)
        .expect("the MP4 has a sound track")
        .duration_secs()
}

async fn result_mp4(done: &Value) -> Vec<u8> {
    let result = &done["result"];
    let url = result["urls"][0].as_str().expect("url");
    assert!(url.ends_with(".mp4"), "{done}");
    assert!(result["thumbnail_url"].as_str().is_some(), "{done}");
    download(url).await
}

// ---- catalog ----

#[tokio::test]
async fn catalog_lists_the_models_with_the_caps_the_studio_validates_against() {
    let (status, body) = call(Method::GET, "/v1/models?type=elements", None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let elements = &body["models"][0];
    assert_eq!(elements["elements_max_images"], 4, "{elements}");
    assert_eq!(elements["elements_max_videos"], 1);
    assert_eq!(elements["elements_max_audio"], 1);
    assert_eq!(elements["max_total_media"], 5);
    assert_eq!(elements["supports_visual_dna"], true);
    assert_eq!(elements["supported_durations"], json!([5, 10]));

    let (_, body) = call(Method::GET, "/v1/models?type=first_last_frame", None).await;
    let models = body["models"].as_array().expect("models");
    assert_eq!(models.len(), 2, "{body}");
    assert!(
        models
            .iter()
            .all(|m| m["supports_first_last_frame"] == true)
    );
    let durations: Vec<&Value> = models.iter().map(|m| &m["supported_durations"]).collect();
    assert!(durations.contains(&&json!([5, 10])) && durations.contains(&&json!([5, 8])));

    let (_, body) = call(Method::GET, "/v1/models?type=lipsync", None).await;
    let models = body["models"].as_array().expect("models");
    assert_eq!(models.len(), 2, "{body}");
    for model in models {
        assert_eq!(model["min_audio_duration"], 1, "{model}");
        assert_eq!(
            model["supported_audio_formats"],
            json!(["mp3", "wav", "m4a"])
        );
        assert!(model["max_file_size"].as_u64().is_some());
    }
    let video = models
        .iter()
        .find(|m| m["types"] == json!(["lipsync-video"]))
        .expect("a lipsync-video model");
    assert_eq!(video["audio_max_follows_video_duration"], true);
    assert_eq!(video["max_audio_duration"], 30);
}

// ---- elements ----

#[tokio::test]
async fn elements_makes_a_video_of_the_requested_length_with_the_reference_sound() {
    let _turn = CREDITS.read().await;
    let answer = submit(
        "/v1/generate/elements",
        json!({
            "prompt": "The fox and the lantern meet at dusk",
            "reference_images": [warm_url().await, cool_url().await],
            "reference_audio_urls": [wav_url(20).await],
            "duration": 5,
            "resolution": "720p",
            "aspect_ratio": "16:9",
        }),
    )
    .await;
    assert_eq!(answer["type"], "elements");
    assert_eq!(answer["model"], "auto");
    // kling/elements: 24 credits per second, 720p x1.
    assert_eq!(answer["credits_charged"], 120.0);
    let done = wait(&answer).await;
    assert_eq!(done["result"]["model"], "kling/elements", "{done}");
    assert!((done["result"]["duration"].as_f64().expect("duration") - 5.0).abs() < 0.05);
    let mp4 = result_mp4(&done).await;
    let (decoder, all) = frames(&mp4);
    assert_eq!((decoder.info().width, decoder.info().height), (1280, 720));
    assert!((decoder.info().duration_secs - 5.0).abs() < 0.05);
    assert_eq!(all.len(), 120);
    // The first picture opens the clip and the second closes it.
    assert!(distance(mean_rgb(&all[0]), WARM) < 30.0);
    assert!(distance(mean_rgb(&all[all.len() - 1]), COOL) < 40.0);
    // The 2-s reference sound is the track, padded to the clip.
    assert!((sound_secs(&mp4) - 5.0).abs() < 0.1);
    // The library lists the clip as an elements video.
    let id = answer["generation_id"].as_str().expect("id");
    let (status, list) = call(Method::GET, "/v1/media?type=video&page_size=100", None).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let item = list["media"]
        .as_array()
        .expect("media")
        .iter()
        .find(|m| m["metadata"]["generationId"] == id)
        .unwrap_or_else(|| panic!("no library item for {id}: {list}"))
        .clone();
    assert_eq!(item["generation_type"], "elements", "{item}");
    assert_eq!(item["category"], "elements");
    assert!((item["duration"].as_f64().expect("duration") - 5.0).abs() < 0.05);
}

#[tokio::test]
async fn elements_prices_per_second_times_the_resolution_multiplier() {
    let _turn = CREDITS.read().await;
    let answer = submit(
        "/v1/generate/elements",
        json!({
            "prompt": "A chase through the market",
            "model": "kling/elements",
            "reference_images": ["https://cdn.example.com/a.png"],
            "duration": 10,
            "resolution": "1080p",
        }),
    )
    .await;
    assert_eq!(answer["model"], "kling/elements");
    assert_eq!(answer["credits_charged"], 24.0 * 1.5 * 10.0);
    cancel(&answer).await;
}

#[tokio::test]
async fn elements_rejects_what_the_model_does_not_take() {
    let image = "https://cdn.example.com/a.png";
    let video = "https://cdn.example.com/a.mp4";
    let audio = "https://cdn.example.com/a.mp3";
    let base = || {
        json!({
            "prompt": "A chase through the market",
            "reference_images": [image],
        })
    };
    let with = |field: &str, value: Value| {
        let mut body = base();
        body[field] = value;
        body
    };
    let cases = [
        (
            json!({"reference_images": [image]}),
            "INVALID_PROMPT",
            "prompt is required",
        ),
        (
            with("prompt", json!("x".repeat(2001))),
            "INVALID_PROMPT",
            "at most 2000",
        ),
        (
            json!({"prompt": "Nothing to go on"}),
            "REFERENCE_REQUIRED",
            "at least one reference",
        ),
        (
            with(
                "reference_images",
                json!([image, image, image, image, image]),
            ),
            "TOO_MANY_REFERENCES",
            "reference_images has 5 entries",
        ),
        (
            with("reference_videos", json!([video, video])),
            "TOO_MANY_REFERENCES",
            "reference_videos has 2 entries",
        ),
        (
            with("reference_audio_urls", json!([audio, audio])),
            "TOO_MANY_REFERENCES",
            "reference_audio_urls has 2 entries",
        ),
        (
            json!({
                "prompt": "Everything at once",
                "reference_images": [image, image, image, image],
                "reference_videos": [video],
                "reference_audio_urls": [audio],
            }),
            "TOO_MANY_REFERENCES",
            "at most 5",
        ),
        (
            with("reference_images", json!(["not a url"])),
            "INVALID_REFERENCES",
            "reference_images",
        ),
        (with("duration", json!(7)), "INVALID_DURATION", "5, 10"),
        (
            with("aspect_ratio", json!("4:3")),
            "INVALID_ASPECT_RATIO",
            "4:3",
        ),
        (
            with("resolution", json!("4k")),
            "INVALID_RESOLUTION",
            "720p, 1080p",
        ),
        (
            with("visual_dna_ids", json!(["a", "b", "c", "d"])),
            "INVALID_VISUAL_DNA",
            "at most 3",
        ),
        (
            with("model", json!("nobody/elements-9")),
            "MODEL_NOT_FOUND",
            "nobody/elements-9",
        ),
    ];
    for (body, code, words) in cases {
        let (status, answer) = post("/v1/generate/elements", body.clone()).await;
        assert_error(status, &answer, StatusCode::BAD_REQUEST, code, words);
    }
}

// ---- first-last frame ----

#[tokio::test]
async fn first_last_frame_starts_on_the_first_image_and_ends_on_the_second() {
    let _turn = CREDITS.read().await;
    let answer = submit(
        "/v1/generate/first-last-frame",
        json!({
            "first_frame_url": warm_url().await,
            "last_frame_url": cool_url().await,
            "prompt": "The sky turns from sunset to night",
        }),
    )
    .await;
    assert_eq!(answer["type"], "first_last_frame");
    assert_eq!(answer["model"], "auto");
    // vidu/q1-first-last: 14 per second, its default 5 s at 720p.
    assert_eq!(answer["credits_charged"], 70.0);
    let done = wait(&answer).await;
    let mp4 = result_mp4(&done).await;
    let (decoder, all) = frames(&mp4);
    assert!((decoder.info().duration_secs - 5.0).abs() < 0.05);
    let (first, last) = (mean_rgb(&all[0]), mean_rgb(&all[all.len() - 1]));
    assert!(distance(first, WARM) < 25.0, "first frame {first:?}");
    assert!(distance(last, COOL) < 25.0, "last frame {last:?}");
    assert!(distance(first, COOL) > 100.0 && distance(last, WARM) > 100.0);
    // In between, a dissolve: the middle frame lies between the two.
    let middle = mean_rgb(&all[all.len() / 2]);
    assert!(
        distance(middle, WARM) > 40.0 && distance(middle, COOL) > 40.0,
        "{middle:?}"
    );
}

#[tokio::test]
async fn first_last_frame_prices_each_model_by_its_durations_and_tiers() {
    let _turn = CREDITS.read().await;
    let (warm, cool) = (warm_url().await, cool_url().await);
    let answer = submit(
        "/v1/generate/first-last-frame",
        json!({
            "first_frame_url": warm,
            "last_frame_url": cool,
            "model": "pixverse/v4.5-transition",
            "duration": 8,
            "resolution": "1080p",
        }),
    )
    .await;
    assert_eq!(answer["model"], "pixverse/v4.5-transition");
    assert_eq!(answer["credits_charged"], 10.0 * 2.0 * 8.0);
    cancel(&answer).await;
    // 8 s is PixVerse's, not Vidu's.
    let (status, body) = post(
        "/v1/generate/first-last-frame",
        json!({"first_frame_url": warm, "last_frame_url": cool, "duration": 8}),
    )
    .await;
    assert_error(
        status,
        &body,
        StatusCode::BAD_REQUEST,
        "INVALID_DURATION",
        "5, 10",
    );
}

#[tokio::test]
async fn first_last_frame_needs_two_readable_images() {
    let (warm, sound) = (warm_url().await, wav_url(20).await);
    let cases = [
        (
            json!({"last_frame_url": warm}),
            "INVALID_IMAGE_URL",
            "first_frame_url is required",
        ),
        (
            json!({"first_frame_url": warm}),
            "INVALID_IMAGE_URL",
            "last_frame_url is required",
        ),
        (
            json!({"first_frame_url": warm, "last_frame_url": "ftp://host/b.png"}),
            "INVALID_IMAGE_URL",
            "last_frame_url must be an http(s) URL",
        ),
        (
            json!({"first_frame_url": warm, "last_frame_url": "http://10.0.0.7/b.png"}),
            "INVALID_IMAGE_URL",
            "last_frame_url points at an internal or private network address",
        ),
        (
            json!({"first_frame_url": sound, "last_frame_url": warm}),
            "INVALID_IMAGE",
            "first_frame_url is not an image",
        ),
        (
            json!({"first_frame_url": warm, "last_frame_url": "https://cdn.example.invalid/b.png"}),
            "INVALID_IMAGE_URL",
            "last_frame_url could not be downloaded",
        ),
    ];
    for (body, code, words) in cases {
        let (status, answer) = post("/v1/generate/first-last-frame", body.clone()).await;
        assert_error(status, &answer, StatusCode::BAD_REQUEST, code, words);
    }
}

// ---- lip sync ----

#[tokio::test]
async fn lipsync_of_an_image_lasts_as_long_as_the_audio_and_carries_it() {
    let _turn = CREDITS.read().await;
    let answer = submit(
        "/v1/generate/lipsync",
        json!({"source_url": warm_url().await, "audio_url": wav_url(30).await}),
    )
    .await;
    assert_eq!(answer["type"], "lipsync");
    assert_eq!(answer["model"], "auto");
    // hedra/character-3 (the image model): 11 per second x 3 s.
    assert_eq!(answer["credits_charged"], 33.0);
    let done = wait(&answer).await;
    assert_eq!(done["result"]["model"], "hedra/character-3");
    let mp4 = result_mp4(&done).await;
    let (decoder, all) = frames(&mp4);
    assert!((decoder.info().duration_secs - 3.0).abs() < 0.05);
    assert!((sound_secs(&mp4) - 3.0).abs() < 0.1);
    // A square source makes a square clip, and the mouth moves: frames differ in the lower
    // middle of the face, where nothing else changes that much.
    assert_eq!(decoder.info().width, decoder.info().height);
    let mouth_luma = |frame: &DecodedFrame| {
        let (w, h) = (frame.width as usize, frame.height as usize);
        let (x0, y0) = (w * 45 / 100, h * 40 / 100);
        let mut sum = 0u64;
        for y in y0..y0 + h / 25 {
            for x in x0..x0 + w / 10 {
                sum += u64::from(frame.rgba[(y * w + x) * 4]);
            }
        }
        sum
    };
    let levels: Vec<u64> = all.iter().map(mouth_luma).collect();
    let (low, high) = (
        levels.iter().min().copied().unwrap_or(0),
        levels.iter().max().copied().unwrap_or(0),
    );
    assert!(high > low + low / 10, "the mouth never moved: {levels:?}");
    // It moves with the sound, not on its own: the line is a tone gated on and off every
    // eighth of a second, and frames wholly inside a sounding eighth show the mouth
    // differently from frames wholly inside a silent one.
    let (mut sounding, mut silent) = (Vec::new(), Vec::new());
    for (index, level) in levels.iter().enumerate() {
        let (start, end) = (index as f64 / 24.0, (index + 1) as f64 / 24.0 - 1e-6);
        let half = |t: f64| ((t * 8.0).floor() as i64) % 2 == 0;
        if half(start) == half(end) {
            if half(start) {
                sounding.push(*level as f64);
            } else {
                silent.push(*level as f64);
            }
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let (sounding, silent) = (mean(&sounding), mean(&silent));
    assert!(
        (sounding - silent).abs() > (high - low) as f64 / 4.0,
        "the mouth does not follow the sound: sounding {sounding:.0}, silent {silent:.0}, \
         range {low}..{high}: {levels:?}"
    );
}

#[tokio::test]
async fn lipsync_speaks_a_text_line_in_the_default_or_the_chosen_voice() {
    let _turn = CREDITS.read().await;
    let answer = submit(
        "/v1/generate/lipsync",
        json!({
            "source_url": cool_url().await,
            "text_prompt": "Hello, and welcome to the harbour.",
        }),
    )
    .await;
    let done = wait(&answer).await;
    assert!(
        done["result"]["prompt_used"]
            .as_str()
            .is_some_and(|p| p.contains("Rachel")),
        "{done}"
    );
    let secs = done["result"]["duration"].as_f64().expect("duration");
    assert!(secs > 1.0, "{done}");
    // Billed per started second of the spoken line (past a 50-ms grace).
    assert_eq!(answer["credits_charged"], 11.0 * (secs - 0.05).ceil());
    let mp4 = result_mp4(&done).await;
    assert!((sound_secs(&mp4) - secs).abs() < 0.1);

    let answer = submit(
        "/v1/generate/lipsync",
        json!({
            "source_url": cool_url().await,
            "text_prompt": "Hello, and welcome to the harbour.",
            "voice": "Adam",
        }),
    )
    .await;
    cancel(&answer).await;
}

#[tokio::test]
async fn lipsync_of_a_video_uses_the_video_model_and_its_frames() {
    let _turn = CREDITS.read().await;
    let answer = submit(
        "/v1/generate/lipsync",
        json!({"source_url": fixture_video_url().await, "audio_url": wav_url(15).await}),
    )
    .await;
    // sync/lipsync-2: 9 per second x 2 started seconds.
    assert_eq!(answer["credits_charged"], 18.0);
    let done = wait(&answer).await;
    assert_eq!(done["result"]["model"], "sync/lipsync-2");
    let mp4 = result_mp4(&done).await;
    let (decoder, made) = frames(&mp4);
    assert_eq!((decoder.info().width, decoder.info().height), (160, 90));
    assert!((decoder.info().duration_secs - 1.5).abs() < 0.05);
    assert!((sound_secs(&mp4) - 1.5).abs() < 0.1);
    // Its pictures are the source video's, not a still or a blank of the right size.
    let (_, source) = frames(&std::fs::read(FIXTURE_MP4).expect("fixture"));
    for (index, frame) in made.iter().enumerate().step_by(6) {
        let wanted = mean_rgb(&source[index.min(source.len() - 1)]);
        let got = mean_rgb(frame);
        let off = (0..3)
            .map(|c| (got[c] - wanted[c]).abs())
            .fold(0.0, f64::max);
        assert!(
            off < 25.0,
            "frame {index}: {got:?} against the source's {wanted:?}"
        );
    }
}

#[tokio::test]
async fn lipsync_accepts_m4a_audio() {
    let _turn = CREDITS.read().await;
    let m4a = upload(
        std::fs::read(FIXTURE_M4A).expect("m4a"),
        "tones.m4a",
        "audio/mp4",
    )
    .await;
    let answer = submit(
        "/v1/generate/lipsync",
        json!({"source_url": warm_url().await, "audio_url": m4a}),
    )
    .await;
    assert_eq!(answer["credits_charged"], 11.0);
    cancel(&answer).await;
}

#[tokio::test]
async fn lipsync_rejects_missing_or_doubled_sound_unknown_voices_and_bad_lengths() {
    let (face, clip) = (warm_url().await, fixture_video_url().await);
    let (short, long, fits, too_long_for_clip) = (
        wav_url(5).await,
        wav_url(610).await,
        wav_url(20).await,
        wav_url(30).await,
    );
    let flac = upload(
        std::fs::read(FIXTURE_FLAC).expect("flac"),
        "t.flac",
        "audio/flac",
    )
    .await;
    let cases = [
        (
            json!({"source_url": face}),
            StatusCode::BAD_REQUEST,
            "AUDIO_REQUIRED",
            "audio_url or text_prompt",
        ),
        (
            json!({"source_url": face, "audio_url": fits, "text_prompt": "Hi"}),
            StatusCode::BAD_REQUEST,
            "INVALID_PARAMETER",
            "not both",
        ),
        (
            json!({"audio_url": fits}),
            StatusCode::BAD_REQUEST,
            "INVALID_SOURCE_URL",
            "source_url is required",
        ),
        (
            json!({"source_url": face, "text_prompt": "Hi there", "voice": "nobody-at-all"}),
            StatusCode::NOT_FOUND,
            "VOICE_NOT_FOUND",
            "nobody-at-all",
        ),
        (
            json!({"source_url": face, "audio_url": short}),
            StatusCode::BAD_REQUEST,
            "AUDIO_TOO_SHORT",
            "at least 1 s",
        ),
        (
            json!({"source_url": face, "audio_url": long}),
            StatusCode::BAD_REQUEST,
            "AUDIO_TOO_LONG",
            "at most 60 s",
        ),
        (
            json!({"source_url": clip, "audio_url": too_long_for_clip}),
            StatusCode::BAD_REQUEST,
            "AUDIO_TOO_LONG",
            "longer than the source video",
        ),
        (
            json!({"source_url": face, "audio_url": flac}),
            StatusCode::BAD_REQUEST,
            "UNSUPPORTED_AUDIO_FORMAT",
            "mp3, wav, m4a",
        ),
        (
            json!({"source_url": fits, "audio_url": fits}),
            StatusCode::BAD_REQUEST,
            "INVALID_SOURCE",
            "neither an image nor a video",
        ),
        (
            json!({"source_url": face, "audio_url": fits, "model": "sync/lipsync-2"}),
            StatusCode::BAD_REQUEST,
            "INVALID_SOURCE",
            "source_url is an image",
        ),
        (
            json!({"source_url": face, "audio_url": fits, "model": "nobody/lips"}),
            StatusCode::BAD_REQUEST,
            "MODEL_NOT_FOUND",
            "nobody/lips",
        ),
    ];
    for (body, expected, code, words) in cases {
        let (status, answer) = post("/v1/generate/lipsync", body.clone()).await;
        assert_error(status, &answer, expected, code, words);
    }
}

// ---- credits ----

#[tokio::test]
async fn every_route_refuses_a_job_the_balance_cannot_pay() {
    let _turn = CREDITS.write().await;
    let (warm, cool, line) = (warm_url().await, cool_url().await, wav_url(20).await);
    service().sandbox.set_credits(10.0);
    let cases = [
        (
            "/v1/generate/elements",
            json!({"prompt": "A duel", "reference_images": [warm]}),
        ),
        (
            "/v1/generate/first-last-frame",
            json!({"first_frame_url": warm, "last_frame_url": cool}),
        ),
        (
            "/v1/generate/lipsync",
            json!({"source_url": warm, "audio_url": line}),
        ),
    ];
    let mut outcomes = Vec::new();
    for (path, body) in cases {
        outcomes.push(post(path, body).await);
    }
    service().sandbox.set_credits(PLENTY);
    for (status, body) in outcomes {
        assert_error(
            status,
            &body,
            StatusCode::FORBIDDEN,
            "INSUFFICIENT_CREDITS",
            "Insufficient credits",
        );
    }
}

// ---- the studio's client ----

/// The bodies `api::catalog_jobs` sends are the ones these routes read: a lip sync with a
/// text line and an elements job (a picture and a video) go through `ApiClient::submit` and
/// come back completed.
#[tokio::test]
async fn the_studios_catalog_bodies_submit_and_complete() {
    use framewright::api::{
        CatalogJobRequest, ElementsRequest, GenerationSpec, JobState, LipsyncRequest,
    };
    let _turn = CREDITS.read().await;
    let client = service_support::client(service());
    let specs = [
        GenerationSpec::for_catalog(CatalogJobRequest::Lipsync(LipsyncRequest {
            source_url: warm_url().await,
            text_prompt: Some("Good evening.".to_owned()),
            voice: Some("Adam".to_owned()),
            ..LipsyncRequest::default()
        })),
        GenerationSpec::for_catalog(CatalogJobRequest::Elements(ElementsRequest {
            prompt: "A lantern in the rain".to_owned(),
            reference_images: vec![cool_url().await],
            reference_videos: vec![fixture_video_url().await],
            duration: Some(5.0),
            aspect_ratio: Some("1:1".to_owned()),
            ..ElementsRequest::default()
        })),
    ];
    for spec in specs {
        let submitted = loop {
            match client.submit(&spec).await {
                Ok(submitted) => break submitted,
                Err(error) if error.is_rate_limited() => {
                    service().sandbox.advance_clock(61.0);
                }
                Err(error) => panic!("{:?} submit failed: {error}", spec.kind),
            }
        };
        assert_eq!(submitted.model.as_deref(), Some("auto"));
        assert!(submitted.credits_charged.is_some_and(|c| c > 0.0));
        let id = submitted.generation_id.expect("id");
        let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
        let status = loop {
            let status = client.status(&id).await.expect("status");
            if !matches!(status.state, JobState::Pending | JobState::Processing) {
                break status;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{id} never finished"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert_eq!(status.state, JobState::Completed, "{status:?}");
        let result = status.result.expect("result");
        assert!(result.urls[0].ends_with(".mp4"));
        assert!(result.thumbnail_url.is_some() && result.duration.is_some());
    }
}
