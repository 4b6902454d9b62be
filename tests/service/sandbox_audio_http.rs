//! The sandbox's sound routes over real HTTP (music, speech, sound effects, voices,
//! transcription), checked with plain JSON values against the contract, the wire examples
//! and INTERFACES §4. Every output is decoded with symphonia (our own decoder, not the
//! sandbox's code) and measured.
//!
//! One sandbox serves every test. Each test acts as its own directory user, because the
//! 10/min "Other generation" limit and the balance are per user: the default user makes
//! music, ana speaks, ben makes sound effects, chloe fills the rate-limit window and dev
//! transcribes.

use std::io::Cursor;
use std::sync::OnceLock;
use std::time::Duration;

use crate::service_support;
use service_support::{LocalService, local_service};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::DecoderOptions;
use symphonia::core::formats::FormatOptions;
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

/// A 30-s music job waits ~0.6 s; renders take their real time.
const FAST: f64 = 50.0;
const POLL_TIMEOUT: Duration = Duration::from_secs(60);
/// Decoded length against the requested one (issue 21 §7).
const LENGTH_TOLERANCE_SECS: f64 = 0.3;
const MUSIC_MODEL: &str = "suno/v4.5";
const SPEECH_MODEL: &str = "elevenlabs/multilingual-v2";
const SOUND_MODEL: &str = "elevenlabs/sound-effects";

struct Shared {
    service: LocalService,
    default: String,
    ana: String,
    ben: String,
    chloe: String,
    dev: String,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let mut service = local_service(FAST);
        // Tests run on separate runtimes: no pooled connection may outlive its runtime.
        service.http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("client");
        let key = |email: &str| {
            service
                .sandbox
                .create_api_key_for_user(email, false)
                .expect("directory user")
        };
        let (ana, ben, chloe, dev) = (
            key("ana@studio.test"),
            key("ben@studio.test"),
            key("chloe@studio.test"),
            key("dev@studio.test"),
        );
        let default = service.key.clone();
        Shared {
            service,
            default,
            ana,
            ben,
            chloe,
            dev,
        }
    })
}

async fn post(key: &str, path: &str, body: Value) -> (StatusCode, Value) {
    shared()
        .service
        .call_as(key, Method::POST, path, Some(body))
        .await
}

async fn get(key: &str, path: &str) -> (StatusCode, Value) {
    shared().service.call_as(key, Method::GET, path, None).await
}

/// Submits and checks the submit shape shared by every sound route; returns the answer.
async fn submit(key: &str, path: &str, body: Value, kind: &str, model: &str, hint: u64) -> Value {
    let (status, answer) = post(key, path, body).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{answer}");
    assert_eq!(answer["success"], true, "{answer}");
    assert_eq!(answer["type"], kind, "{answer}");
    assert_eq!(answer["model"], model, "{answer}");
    assert_eq!(answer["poll_interval_hint"], hint, "{answer}");
    let id = answer["generation_id"].as_str().expect("generation_id");
    assert_eq!(
        answer["poll_url"],
        format!("/api/v1/generate/{id}/status"),
        "{answer}"
    );
    assert!(answer["credits_charged"].is_number(), "{answer}");
    answer
}

async fn wait(key: &str, answer: &Value) -> Value {
    let id = answer["generation_id"].as_str().expect("generation_id");
    let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
    loop {
        let (status, body) = get(key, &format!("/v1/generate/{id}/status")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        match body["state"].as_str() {
            Some("completed") => return body,
            Some("failed" | "cancelled") => panic!("job did not complete: {body}"),
            _ => {}
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never finished: {body}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn download(url: &str) -> Vec<u8> {
    // Output URLs are plain links: no API key.
    let response = shared()
        .service
        .http
        .get(url)
        .send()
        .await
        .expect("download");
    assert_eq!(response.status(), StatusCode::OK, "{url}");
    response.bytes().await.expect("bytes").to_vec()
}

async fn credits(key: &str) -> (f64, f64) {
    let (status, body) = get(key, "/v1/account/credits").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    (
        body["credits"]["available"].as_f64().expect("available"),
        body["credits"]["total"].as_f64().expect("total"),
    )
}

fn assert_error(status: StatusCode, body: &Value, expected: StatusCode, code: &str) {
    assert_eq!(status, expected, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{body}"
    );
}

/// Decoded audio: its length and its samples (first channel).
struct Decoded {
    secs: f64,
    samples: Vec<f32>,
}

fn decode(bytes: Vec<u8>, extension: &str) -> Decoded {
    let stream = MediaSourceStream::new(Box::new(Cursor::new(bytes)), Default::default());
    let mut hint = Hint::new();
    hint.with_extension(extension);
    let probed = symphonia::default::get_probe()
        .format(
            &hint,
            stream,
            &FormatOptions::default(),
            &MetadataOptions::default(),
        )
        .expect("a container symphonia reads");
    let mut format = probed.format;
    let track = format.default_track().expect("an audio track").clone();
    let mut decoder = symphonia::default::get_codecs()
        .make(&track.codec_params, &DecoderOptions::default())
        .expect("a codec symphonia decodes");
    let rate = track.codec_params.sample_rate.expect("sample rate");
    let mut frames = 0usize;
    let mut samples = Vec::new();
    while let Ok(packet) = format.next_packet() {
        if packet.track_id() != track.id {
            continue;
        }
        let decoded = decoder.decode(&packet).expect("decodes");
        let spec = *decoded.spec();
        let channels = spec.channels.count();
        let mut buffer = SampleBuffer::<f32>::new(decoded.capacity() as u64, spec);
        buffer.copy_interleaved_ref(decoded);
        frames += buffer.samples().len() / channels;
        samples.extend(buffer.samples().iter().step_by(channels));
    }
    Decoded {
        secs: frames as f64 / f64::from(rate),
        samples,
    }
}

fn rms(samples: &[f32]) -> f64 {
    (samples.iter().map(|s| f64::from(*s).powi(2)).sum::<f64>() / samples.len().max(1) as f64)
        .sqrt()
}

fn assert_length(decoded: &Decoded, expected_secs: f64, what: &str) {
    assert!(
        (decoded.secs - expected_secs).abs() <= LENGTH_TOLERANCE_SECS,
        "{what}: decoded {} s, expected {expected_secs} s",
        decoded.secs
    );
    assert!(rms(&decoded.samples) > 0.01, "{what} is silent");
}

/// The ID3v2 TIT2 title of an MP3 (ISO-8859-1 or UTF-16 with BOM).
fn id3_title(bytes: &[u8]) -> String {
    assert_eq!(&bytes[..3], b"ID3", "an ID3v2 tag first");
    let size = bytes[6..10]
        .iter()
        .fold(0usize, |acc, b| (acc << 7) | usize::from(b & 0x7F));
    let tag = &bytes[10..10 + size];
    let mut at = 0;
    while at + 10 <= tag.len() && tag[at] != 0 {
        let len = u32::from_be_bytes([tag[at + 4], tag[at + 5], tag[at + 6], tag[at + 7]]) as usize;
        let body = &tag[at + 10..at + 10 + len];
        if &tag[at..at + 4] == b"TIT2" {
            return match body[0] {
                0 => body[1..].iter().map(|b| char::from(*b)).collect(),
                1 => {
                    let units: Vec<u16> = body[3..]
                        .chunks_exact(2)
                        .map(|c| u16::from_le_bytes([c[0], c[1]]))
                        .collect();
                    String::from_utf16_lossy(&units)
                }
                other => panic!("unexpected text encoding {other}"),
            };
        }
        at += 10 + len;
    }
    panic!("no TIT2 frame");
}

fn extension_of(url: &str) -> &str {
    url.rsplit('.').next().expect("extension")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn music_makes_two_different_variations_at_the_requested_length() {
    let key = &shared().default;
    let (available_before, total_before) = credits(key).await;
    let answer = submit(
        key,
        "/v1/generate/music",
        json!({"prompt": "a happy summer pop song about the beach", "style": "synth pop",
               "vocal_gender": "f", "duration": 30}),
        "music",
        MUSIC_MODEL,
        8,
    )
    .await;
    assert_eq!(answer["credits_charged"], 10.0, "per generation: {answer}");
    let (available, _) = credits(key).await;
    assert_eq!(available, available_before - 10.0, "reserved at submit");
    let status = wait(key, &answer).await;
    let result = &status["result"];
    assert_eq!(result["model"], MUSIC_MODEL, "{status}");
    assert_eq!(result["duration"], 30.0, "{status}");
    let title = result["title"].as_str().expect("title").to_owned();
    assert!(
        result["lyrics"].as_str().is_some_and(|l| !l.is_empty()),
        "{status}"
    );
    let urls = result["urls"].as_array().expect("urls");
    let variations = result["variations"].as_array().expect("variations");
    assert_eq!(urls.len(), 2, "{status}");
    assert_eq!(variations.len(), 2, "{status}");
    assert_eq!(status["credits_used"], 10.0, "{status}");
    let (_, total) = credits(key).await;
    assert_eq!(total, total_before - 10.0, "settled on completion");
    let mut decoded = Vec::new();
    for (url, variation) in urls.iter().zip(variations) {
        let url = url.as_str().expect("url");
        assert_eq!(variation["url"], url);
        assert_eq!(variation["duration"], 30.0);
        assert!(variation["title"].is_string() && variation["lyrics"].is_string());
        assert_eq!(extension_of(url), "mp3");
        let bytes = download(url).await;
        assert!(
            id3_title(&bytes).contains("SANDBOX"),
            "{}",
            id3_title(&bytes)
        );
        let audio = decode(bytes, "mp3");
        assert_length(&audio, 30.0, url);
        decoded.push(audio);
    }
    let difference = rms(&decoded[0]
        .samples
        .iter()
        .zip(&decoded[1].samples)
        .map(|(a, b)| a - b)
        .collect::<Vec<_>>());
    assert!(
        difference > 0.05,
        "the two variations sound alike ({difference})"
    );

    // The library has both, typed audio, findable by the song's title.
    let search = title.to_lowercase().replace(' ', "%20");
    let (status_code, media) = get(key, &format!("/v1/media?search={search}")).await;
    assert_eq!(status_code, StatusCode::OK, "{media}");
    let items = media["media"].as_array().expect("media");
    assert_eq!(items.len(), 2, "{media}");
    for item in items {
        assert_eq!(item["type"], "audio", "{item}");
        assert_eq!(item["duration"], 30.0, "{item}");
        assert_eq!(item["metadata"]["model"], MUSIC_MODEL, "{item}");
        assert_eq!(item["metadata"]["style"], "synth pop", "{item}");
        assert!(item["metadata"]["lyrics"].is_string(), "{item}");
    }
    let (_, by_style) = get(key, "/v1/media?search=synth%20pop").await;
    assert_eq!(
        by_style["media"].as_array().map(Vec::len),
        Some(2),
        "{by_style}"
    );

    // An auto alias still echoes the concrete model; WAV where the model lists it.
    let answer = submit(
        key,
        "/v1/generate/music",
        json!({"prompt": "calm ambient piano", "model": "auto", "instrumental": true,
               "output_format": "wav", "duration_seconds": 60}),
        "music",
        MUSIC_MODEL,
        8,
    )
    .await;
    let status = wait(key, &answer).await;
    assert!(
        status["result"]["lyrics"].is_null(),
        "instrumental: {status}"
    );
    let url = status["result"]["urls"][1].as_str().expect("url");
    assert_eq!(extension_of(url), "wav");
    assert_length(&decode(download(url).await, "wav"), 60.0, url);

    // Validation from the model record.
    let (code, body) = post(key, "/v1/generate/music", json!({"style": "pop"})).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "INVALID_PROMPT");
    let (code, body) = post(
        key,
        "/v1/generate/music",
        json!({"prompt": "x", "duration": 45}),
    )
    .await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "INVALID_DURATION");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("30, 60, 120, 240")),
        "{body}"
    );
    let (code, body) = post(
        key,
        "/v1/generate/music",
        json!({"prompt": "x", "vocal_gender": "robot"}),
    )
    .await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "INVALID_PARAMETER");
    let (code, body) = post(
        key,
        "/v1/generate/music",
        json!({"prompt": "x", "output_format": "flac"}),
    )
    .await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "INVALID_AUDIO_FORMAT");
}

const SHORT_TEXT: &str = "Hello there. Welcome to the studio.";
const LONG_TEXT: &str = "Hello there. Welcome to the studio, where every sound is made by the \
    sandbox. This sentence is much longer than the first one, so the speech that reads it \
    takes longer too. Listen to the pauses at the commas, and at the end of each sentence.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn speech_length_follows_the_text_and_voices_are_checked() {
    let key = &shared().ana;
    let (_, total_before) = credits(key).await;
    let short = submit(
        key,
        "/v1/generate/speech",
        json!({"text": SHORT_TEXT, "voice": "Rachel"}),
        "speech",
        SPEECH_MODEL,
        8,
    )
    .await;
    assert_eq!(short["credits_charged"], 1.0, "ceil(35/100) x 1: {short}");
    let long = submit(
        key,
        "/v1/generate/speech",
        json!({"text": LONG_TEXT, "voice": "sbx_adam_en_us", "language": "en-US"}),
        "speech",
        SPEECH_MODEL,
        8,
    )
    .await;
    let chars = LONG_TEXT.chars().count() as f64;
    assert_eq!(long["credits_charged"], (chars / 100.0).ceil(), "{long}");
    let short = wait(key, &short).await;
    let long = wait(key, &long).await;
    assert_eq!(short["result"]["voice"], "Rachel", "{short}");
    assert_eq!(long["result"]["voice"], "Adam", "{long}");
    assert_eq!(long["result"]["text"], LONG_TEXT, "{long}");
    assert_eq!(long["result"]["model"], SPEECH_MODEL, "{long}");
    let mut lengths = Vec::new();
    for status in [&short, &long] {
        let url = status["result"]["urls"][0].as_str().expect("url");
        let bytes = download(url).await;
        assert!(id3_title(&bytes).contains("SANDBOX"));
        let reported = status["result"]["duration"].as_f64().expect("duration");
        assert_length(&decode(bytes, "mp3"), reported, url);
        lengths.push(reported);
    }
    assert!(
        lengths[1] > lengths[0] * 3.0,
        "speech grows with the text: {lengths:?}"
    );
    // A plausible speaking rate: 2-4 words a second.
    let words_per_sec = LONG_TEXT.split_whitespace().count() as f64 / lengths[1];
    assert!(
        (2.0..=4.0).contains(&words_per_sec),
        "{words_per_sec} words/s"
    );
    let (_, total) = credits(key).await;
    assert_eq!(total, total_before - 1.0 - (chars / 100.0).ceil());
    // The library finds speech by its voice's name.
    let (_, by_voice) = get(key, "/v1/media?search=adam").await;
    let items = by_voice["media"].as_array().expect("media");
    assert_eq!(items.len(), 1, "{by_voice}");
    assert_eq!(items[0]["type"], "audio");
    assert_eq!(items[0]["metadata"]["voice"], "Adam");
    assert_eq!(items[0]["metadata"]["prompt"], LONG_TEXT);

    let (code, body) = post(key, "/v1/generate/speech", json!({"text": "Hi"})).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "VOICE_REQUIRED");
    let (code, body) = post(
        key,
        "/v1/generate/speech",
        json!({"text": "Hi", "voice": "Nobody"}),
    )
    .await;
    assert_error(code, &body, StatusCode::NOT_FOUND, "VOICE_NOT_FOUND");
    let (code, body) = post(key, "/v1/generate/speech", json!({"voice": "Rachel"})).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "INVALID_PROMPT");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn voices_filter_and_each_preview_plays() {
    let key = &shared().default;
    let (status, all) = get(key, "/v1/voices").await;
    assert_eq!(status, StatusCode::OK, "{all}");
    assert_eq!(all["success"], true);
    let voices = all["voices"].as_array().expect("voices");
    assert!((12..=20).contains(&voices.len()), "{all}");
    assert_eq!(all["count"], voices.len());
    for voice in voices {
        for field in [
            "voice_id",
            "name",
            "provider",
            "language",
            "language_code",
            "gender",
            "accent",
            "preview_url",
        ] {
            assert!(voice[field].is_string(), "{field}: {voice}");
        }
        assert!(
            voice["styles"].is_array() && voice["custom"] == false,
            "{voice}"
        );
    }
    let rachel = voices
        .iter()
        .find(|v| v["name"] == "Rachel")
        .expect("Rachel, as in the wire example");
    assert_eq!(rachel["voice_id"], "EXAVITQu4vr4xnSDxMaL");
    let (_, english_women) = get(key, "/v1/voices?language=EN&gender=female").await;
    let list = english_women["voices"].as_array().expect("voices");
    assert!(
        list.len() >= 2 && list.len() < voices.len(),
        "{english_women}"
    );
    assert!(list.iter().all(|v| {
        v["gender"] == "Female"
            && v["language_code"]
                .as_str()
                .is_some_and(|c| c.starts_with("en"))
    }));
    let (_, google) = get(key, "/v1/voices?provider=GOOGLE").await;
    let list = google["voices"].as_array().expect("voices");
    assert!(
        !list.is_empty() && list.iter().all(|v| v["provider"] == "google"),
        "{google}"
    );
    let (_, none) = get(key, "/v1/voices?language=klingon").await;
    assert_eq!(none["count"], 0);
    // Every preview is a short real MP3; a man's and a woman's differ in pitch.
    for voice in voices {
        let url = voice["preview_url"].as_str().expect("preview_url");
        let bytes = download(url).await;
        assert!(id3_title(&bytes).contains("SANDBOX"));
        let decoded = decode(bytes, "mp3");
        assert!(
            (1.0..=8.0).contains(&decoded.secs),
            "{url}: {} s",
            decoded.secs
        );
        assert!(rms(&decoded.samples) > 0.01, "{url} is silent");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sound_effects_have_their_length_and_loop() {
    let key = &shared().ben;
    let automatic = submit(
        key,
        "/v1/generate/sound",
        json!({"prompt": "a heavy door knock"}),
        "sound",
        SOUND_MODEL,
        5,
    )
    .await;
    assert_eq!(
        automatic["credits_charged"], 2.0,
        "per generation: {automatic}"
    );
    let looped = submit(
        key,
        "/v1/generate/sound",
        json!({"prompt": "wind through pine trees", "duration": 2.5, "loop": true,
               "model": SOUND_MODEL, "output_format": "wav"}),
        "sound",
        SOUND_MODEL,
        5,
    )
    .await;
    let automatic = wait(key, &automatic).await;
    let secs = automatic["result"]["duration"].as_f64().expect("duration");
    assert!((0.5..=10.0).contains(&secs), "{automatic}");
    let url = automatic["result"]["urls"][0].as_str().expect("url");
    let bytes = download(url).await;
    assert!(id3_title(&bytes).contains("SANDBOX"));
    assert_length(&decode(bytes, "mp3"), secs, url);
    let looped = wait(key, &looped).await;
    assert_eq!(looped["result"]["duration"], 2.5, "{looped}");
    assert_eq!(looped["result"]["model"], SOUND_MODEL);
    let url = looped["result"]["urls"][0].as_str().expect("url");
    assert_eq!(extension_of(url), "wav");
    let decoded = decode(download(url).await, "wav");
    assert_length(&decoded, 2.5, url);
    // The end meets the start: no jump larger than the signal's own steps.
    let jump = (decoded.samples[decoded.samples.len() - 1] - decoded.samples[0]).abs();
    let typical = decoded
        .samples
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0f32, f32::max);
    assert!(jump <= typical, "loop seam {jump} > largest step {typical}");

    let (code, body) = post(
        key,
        "/v1/generate/sound",
        json!({"prompt": "boom", "duration": 40}),
    )
    .await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "INVALID_DURATION");
    let (code, body) = post(
        key,
        "/v1/generate/sound",
        json!({"prompt": "boom", "duration": 0.2}),
    )
    .await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "INVALID_DURATION");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_eleventh_sound_submit_in_a_minute_is_refused() {
    let key = &shared().chloe;
    // Refused submits count too: the limiter runs before validation, as on the service.
    for n in 0..10 {
        let (status, body) = post(
            key,
            "/v1/generate/music",
            json!({"prompt": "x", "duration": 45}),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "submit {n}: {body}");
    }
    let (status, body) = post(key, "/v1/generate/music", json!({"prompt": "a song"})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    // Speech and sound share the "Other generation" group...
    let (status, _) = post(
        key,
        "/v1/generate/speech",
        json!({"text": "Hi", "voice": "Rachel"}),
    )
    .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    let (status, _) = post(key, "/v1/generate/sound", json!({"prompt": "boom"})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    // ... transcription has its own (100/min), and the voices list has none.
    let (status, body) = post(key, "/v1/transcribe", json!({})).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "AUDIO_REQUIRED");
    let (status, _) = get(key, "/v1/voices").await;
    assert_eq!(status, StatusCode::OK);
}

/// A 16-bit mono WAV of a quiet tone, `secs` long at 8 kHz.
fn tone_wav(secs: f64) -> Vec<u8> {
    let rate = 8_000u32;
    let frames = (secs * f64::from(rate)) as u32;
    let mut out = Vec::new();
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + frames * 2).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&(rate * 2).to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(frames * 2).to_le_bytes());
    for n in 0..frames {
        let value = ((f64::from(n) * 0.2).sin() * 3000.0) as i16;
        out.extend_from_slice(&value.to_le_bytes());
    }
    out
}

/// SRT cues: (start, end, text lines).
fn cues(srt: &str) -> Vec<(f64, f64, Vec<String>)> {
    let time = |t: &str| {
        let (hms, ms) = t.trim().split_once(',').expect("HH:MM:SS,mmm");
        let parts: Vec<f64> = hms.split(':').map(|p| p.parse().expect("number")).collect();
        parts[0] * 3600.0 + parts[1] * 60.0 + parts[2] + ms.parse::<f64>().expect("ms") / 1000.0
    };
    srt.split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .map(|block| {
            let mut lines = block.lines();
            lines.next().expect("index");
            let (start, end) = lines
                .next()
                .expect("times")
                .split_once(" --> ")
                .expect("arrow");
            (time(start), time(end), lines.map(str::to_owned).collect())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transcript_of_sandbox_speech_is_what_was_spoken() {
    let key = &shared().dev;
    let spoken = "Good morning. The transcript of this speech gives back the words it was \
        given, with cue times that follow the voice.";
    let speech = submit(
        key,
        "/v1/generate/speech",
        json!({"text": spoken, "voice": "Grace"}),
        "speech",
        SPEECH_MODEL,
        8,
    )
    .await;
    let speech = wait(key, &speech).await;
    let audio_url = speech["result"]["urls"][0]
        .as_str()
        .expect("url")
        .to_owned();
    let speech_secs = speech["result"]["duration"].as_f64().expect("duration");
    let (_, total_before) = credits(key).await;
    let answer = submit(
        key,
        "/v1/transcribe",
        json!({"audio_url": audio_url, "words_per_line": 4, "lines_per_subtitle": 1, "language": "en"}),
        "transcription",
        "auto",
        8,
    )
    .await;
    assert_eq!(
        answer["credits_charged"], 1.0,
        "one minute, the minimum: {answer}"
    );
    let status = wait(key, &answer).await;
    let result = &status["result"];
    assert_eq!(
        result["text"],
        spoken.split_whitespace().collect::<Vec<_>>().join(" "),
        "{status}"
    );
    let srt_url = result["srt_url"].as_str().expect("srt_url");
    assert_eq!(result["urls"], json!([srt_url]), "{status}");
    assert_eq!(status["credits_used"], 1.0);
    let (_, total) = credits(key).await;
    assert_eq!(total, total_before - 1.0);
    let srt = String::from_utf8(download(srt_url).await).expect("UTF-8");
    let cues = cues(&srt);
    assert!(cues.len() >= 5, "{srt}");
    let mut previous_end = 0.0;
    for (start, end, lines) in &cues {
        assert!(
            *start >= previous_end && end > start && *end <= speech_secs,
            "{srt}"
        );
        assert_eq!(lines.len(), 1, "{srt}");
        assert!(lines[0].split_whitespace().count() <= 4, "{srt}");
        previous_end = *end;
    }
    let txt = String::from_utf8(download(result["txt_url"].as_str().expect("txt_url")).await)
        .expect("UTF-8");
    assert_eq!(txt.trim(), result["text"].as_str().expect("text"));
    let words = String::from_utf8(
        download(result["word_by_word_srt_url"].as_str().expect("word srt")).await,
    )
    .expect("UTF-8");
    assert_eq!(
        words.matches(" --> ").count(),
        spoken.split_whitespace().count()
    );

    // Another recording: an upload, 65 s long, priced by its minutes (rounded up).
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(tone_wav(65.0))
                .file_name("interview.wav")
                .mime_str("audio/wav")
                .expect("mime"),
        )
        .text("generate_srt", "false")
        .text("diarize", "true");
    let response = shared()
        .service
        .http
        .post(shared().service.url("/v1/transcribe"))
        .header("X-API-Key", key)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let answer: Value = response.json().await.expect("json");
    assert_eq!(answer["credits_charged"], 2.0, "65 s = 2 minutes: {answer}");
    let status = wait(key, &answer).await;
    let result = &status["result"];
    assert!(result["srt_url"].is_null(), "generate_srt false: {status}");
    assert_eq!(result["urls"], json!([result["txt_url"]]), "{status}");
    assert!((result["duration"].as_f64().expect("duration") - 65.0).abs() < 0.1);
    assert!(
        result["text"]
            .as_str()
            .is_some_and(|t| t.split_whitespace().count() > 50),
        "{status}"
    );
    assert_eq!(status["credits_used"], 2.0);

    let (code, body) = post(
        key,
        "/v1/transcribe",
        json!({"audio_url": audio_url, "words_per_line": 19}),
    )
    .await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "INVALID_PARAMETER");
    let (code, body) = post(key, "/v1/transcribe", json!({"audio_url": 5})).await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "INVALID_AUDIO_URL");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seeded_audio_items_play() {
    let service = &shared().service;
    service.sandbox.seed_media(10, None);
    let (status, media) = get(&shared().default, "/v1/media?type=audio&search=seed").await;
    assert_eq!(status, StatusCode::OK, "{media}");
    let items = media["media"].as_array().expect("media");
    let seeded = items
        .iter()
        .find(|item| {
            item["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("/seed/track.mp3"))
        })
        .unwrap_or_else(|| panic!("a seeded audio item: {media}"));
    assert_eq!(seeded["duration"], 10.0, "{seeded}");
    let bytes = download(seeded["url"].as_str().expect("url")).await;
    assert_eq!(seeded["size"], bytes.len(), "{seeded}");
    assert!(id3_title(&bytes).contains("SANDBOX"));
    assert_length(&decode(bytes, "mp3"), 10.0, "seed track");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sound_job_survives_a_restart() {
    // Its own sandbox: slow enough that the job is still running at the restart.
    let service = local_service(1.0);
    // Cancel releases the reservation; a cancelled job has no outputs.
    let available_before = service.sandbox.credits_available();
    let (status, doomed) = service
        .call_as(
            &service.key,
            Method::POST,
            "/v1/generate/speech",
            Some(json!({"text": "Never said.", "voice": "Rachel"})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{doomed}");
    assert_eq!(service.sandbox.credits_available(), available_before - 1.0);
    let doomed_id = doomed["generation_id"].as_str().expect("id");
    let (status, cancelled) = service
        .call_as(
            &service.key,
            Method::POST,
            &format!("/v1/generate/{doomed_id}/cancel"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(cancelled["state"], "cancelled");
    assert_eq!(service.sandbox.credits_available(), available_before);
    let (status, answer) = service
        .call_as(
            &service.key,
            Method::POST,
            "/v1/generate/sound",
            Some(json!({"prompt": "a click", "duration": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{answer}");
    let id = answer["generation_id"].as_str().expect("id").to_owned();
    let service = service.restarted(1.0);
    // The job resumes where it stopped; the clock skips the rest of its wait.
    service.sandbox.advance_clock(10.0);
    let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
    loop {
        let (_, body) = service
            .call_as(
                &service.key,
                Method::GET,
                &format!("/v1/generate/{id}/status"),
                None,
            )
            .await;
        if body["state"] == "completed" {
            let url = body["result"]["urls"][0].as_str().expect("url");
            let bytes = service
                .http
                .get(url)
                .send()
                .await
                .expect("get")
                .bytes()
                .await
                .expect("bytes");
            assert_length(&decode(bytes.to_vec(), "mp3"), 1.0, url);
            break;
        }
        assert_eq!(body["state"], "processing", "{body}");
        assert!(tokio::time::Instant::now() < deadline, "{body}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Seconds of the MP4's Opus sound track (20-ms packets), `None` without one.
fn opus_track_secs(mp4: &[u8]) -> Option<f64> {
    let parsed = re_mp4::Mp4::read_bytes(mp4).expect("an MP4 re_mp4 reads");
    parsed.tracks().values().find_map(|track| {
        let trak = track.trak(&parsed);
        let opus = matches!(
            &trak.mdia.minf.stbl.stsd.contents,
            re_mp4::StsdBoxContent::Unknown(fourcc) if fourcc.value == *b"Opus"
        );
        (trak.mdia.hdlr.handler_type.value == *b"soun" && opus)
            .then_some(track.samples.len() as f64 * 0.02)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_sound_videos_carry_an_opus_track() {
    let key = &shared().ben;
    let veo = "google/veo-3";
    let request = |sound: Option<bool>| {
        let mut body = json!({"prompt": "waves breaking on a rocky shore", "model": veo,
                              "duration": 4, "resolution": "720p"});
        if let Some(sound) = sound {
            body["sound_enabled"] = json!(sound);
        }
        body
    };
    // veo-3 makes sound by default (x 1.5): 40 x 1.5 x 4 s; off on request: 40 x 4 s.
    let (status, with_sound) = post(key, "/v1/generate/video", request(None)).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{with_sound}");
    assert_eq!(with_sound["credits_charged"], 240.0, "{with_sound}");
    let (status, silent) = post(key, "/v1/generate/video", request(Some(false))).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{silent}");
    assert_eq!(silent["credits_charged"], 160.0, "{silent}");
    let (code, body) = post(
        key,
        "/v1/generate/video",
        json!({"prompt": "x", "sound_enabled": "yes"}),
    )
    .await;
    assert_error(code, &body, StatusCode::BAD_REQUEST, "INVALID_PARAMETER");
    let with_sound = wait(key, &with_sound).await;
    let mp4 = download(with_sound["result"]["urls"][0].as_str().expect("url")).await;
    let secs = opus_track_secs(&mp4).expect("an Opus sound track");
    assert!((secs - 4.0).abs() < 0.1, "{secs} s of sound");
    let silent = wait(key, &silent).await;
    let mp4 = download(silent["result"]["urls"][0].as_str().expect("url")).await;
    assert_eq!(opus_track_secs(&mp4), None, "sound_enabled false: no track");
    // A video transcribes too: a made-up transcript over its length.
    let video_url = with_sound["result"]["urls"][0].as_str().expect("url");
    let answer = submit(
        key,
        "/v1/transcribe",
        json!({"audio_url": video_url}),
        "transcription",
        "auto",
        8,
    )
    .await;
    let status = wait(key, &answer).await;
    assert!(
        (status["result"]["duration"].as_f64().expect("duration") - 4.0).abs() < 0.1,
        "{status}"
    );
    let srt = String::from_utf8(download(status["result"]["srt_url"].as_str().expect("srt")).await)
        .expect("UTF-8");
    let cues = cues(&srt);
    assert!(
        !cues.is_empty()
            && cues
                .iter()
                .all(|(start, end, _)| start < end && *end <= 4.0),
        "{srt}"
    );
}
