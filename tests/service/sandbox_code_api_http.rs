//! The sandbox's coding-assistant API (`{base_url}/api/kolbo/v1`, contract document 3) over
//! real HTTP, checked with plain JSON (not the client's types): health and models without a
//! key, both key headers, the error envelope, the balance, file uploads (descriptor, dedup,
//! JPEG re-encoding, the 8K cap, transparent PNGs, expiry, 413), and chat completions
//! (synchronous and streamed, image parts, reservations, billing, partial billing on
//! disconnect). One sandbox serves every test of this binary.

use crate::service_support;

use std::io::Cursor;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use service_support::{LocalService, local_service};
use tokio::sync::RwLock;

/// Streams take about 1.5 s at this speed: long enough to look at a stream while it runs.
const SPEED: f64 = 4.0;
const ANA: &str = "ana@studio.test";
const BEN: &str = "ben@studio.test";
const CHLOE: &str = "chloe@studio.test";
const DEV: &str = "dev@studio.test";
const PHOTO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/fixtures/photos/coffee.png"
);
const PROMPT: &str = "How do I read a file line by line in Rust?";
/// How long a settlement after a disconnect may take to show before the test gives up.
const SETTLE_DEADLINE: Duration = Duration::from_secs(20);

struct Shared {
    service: LocalService,
    ana: String,
    ben: String,
    chloe: String,
    dev: String,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let mut service = local_service(SPEED);
        // Tests run on separate runtimes: no pooled connection may outlive its runtime.
        service.http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("client");
        let key = |email| {
            service
                .sandbox
                .create_api_key_for_user(email, false)
                .expect("directory user's key")
        };
        let (ana, ben, chloe, dev) = (key(ANA), key(BEN), key(CHLOE), key(DEV));
        Shared {
            service,
            ana,
            ben,
            chloe,
            dev,
        }
    })
}

fn service() -> &'static LocalService {
    &shared().service
}

fn key() -> &'static str {
    &shared().service.key
}

/// Uploads hold this for reading; the expiry test, which moves the sandbox clock a day
/// on, holds it for writing so no other test's file expires under it.
static CLOCK: RwLock<()> = RwLock::const_new(());

fn code_url(path: &str) -> String {
    format!("{}/api/kolbo/v1{path}", service().sandbox.origin())
}

async fn answer(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    let text = response.text().await.expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn get(key: Option<&str>, path: &str) -> (StatusCode, Value) {
    let mut request = service().http.get(code_url(path));
    if let Some(key) = key {
        request = request.header("X-API-Key", key);
    }
    answer(request.send().await.expect("request")).await
}

async fn post(key: &str, path: &str, body: &Value) -> (StatusCode, Value) {
    let response = service()
        .http
        .post(code_url(path))
        .header("X-API-Key", key)
        .json(body)
        .send()
        .await
        .expect("request");
    answer(response).await
}

async fn upload(key: &str, filename: &str, mime: &str, bytes: Vec<u8>) -> (StatusCode, Value) {
    let part = reqwest::multipart::Part::bytes(bytes)
        .file_name(filename.to_owned())
        .mime_str(mime)
        .expect("mime");
    let form = reqwest::multipart::Form::new().part("file", part);
    let response = service()
        .http
        .post(code_url("/files"))
        .header("X-API-Key", key)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    answer(response).await
}

async fn uploaded(filename: &str, mime: &str, bytes: Vec<u8>) -> Value {
    let (status, descriptor) = upload(key(), filename, mime, bytes).await;
    assert_eq!(status, StatusCode::OK, "{descriptor}");
    descriptor
}

async fn download(url: &str) -> (StatusCode, Vec<u8>) {
    let response = service().http.get(url).send().await.expect("download");
    let status = response.status();
    (status, response.bytes().await.expect("bytes").to_vec())
}

async fn balance(key: &str) -> Value {
    let (status, balance) = get(Some(key), "/balance").await;
    assert_eq!(status, StatusCode::OK, "{balance}");
    balance
}

fn number(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

fn png_bytes(image: &image::DynamicImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png)
        .expect("encode png");
    bytes
}

/// A real photo scaled up 4× (2400 × 1600) and saved as PNG: a large photographic PNG.
fn large_photo_png() -> Vec<u8> {
    let photo = match std::fs::read(PHOTO) {
        Ok(bytes) => image::load_from_memory(&bytes).expect("fixture photo decodes"),
        // The shared fixtures live outside the repository; a gradient stands in.
        Err(_) => image::DynamicImage::ImageRgb8(image::RgbImage::from_fn(600, 400, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x * y) % 251) as u8])
        })),
    };
    let large = photo.resize(
        photo.width() * 4,
        photo.height() * 4,
        image::imageops::FilterType::Triangle,
    );
    png_bytes(&large)
}

fn chat_body(model: &str, content: Value, stream: bool) -> Value {
    json!({
        "model": model,
        "messages": [
            {"role": "system", "content": "You are a helpful coding assistant."},
            {"role": "user", "content": content},
        ],
        "stream": stream,
    })
}

/// `body` with `stream_options.include_usage` set: the stream ends with a usage chunk.
fn with_usage(mut body: Value) -> Value {
    body["stream_options"] = json!({"include_usage": true});
    body
}

/// Sends `head` then `body` on a fresh connection while reading the answer, which the
/// server may send before it read the whole body (and then stop reading). Returns the
/// status, the head's lines in lower case and the body as text.
async fn raw_exchange(head: String, body: Vec<u8>) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let origin = service().sandbox.origin();
    let address = origin.strip_prefix("http://").expect("http origin");
    let connection = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect");
    let (mut reader, mut writer) = connection.into_split();
    let sending = tokio::spawn(async move {
        let mut sent = writer.write_all(head.as_bytes()).await;
        if sent.is_ok() {
            sent = writer.write_all(&body).await;
        }
        // The write half goes back to the caller: dropping it would shut the connection's
        // sending side, which the server takes for a client that left (no half-close).
        (sent, writer)
    });
    let mut response = Vec::new();
    let mut buffer = [0u8; 4096];
    let mut read_error = None;
    loop {
        let text = String::from_utf8_lossy(&response).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|line| {
                    line.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().to_owned())
                })
                .and_then(|value| value.parse::<usize>().ok());
            if length.is_some_and(|length| body.len() >= length) {
                break;
            }
        }
        match reader.read(&mut buffer).await {
            Ok(0) => break,
            Ok(read) => response.extend_from_slice(&buffer[..read]),
            Err(error) => {
                read_error = Some(error);
                break;
            }
        }
    }
    let sent = sending.await.ok().map(|(sent, _writer)| sent);
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| {
            panic!("no status line: {text:?}, read error {read_error:?}, sent {sent:?}")
        });
    (status, head.to_ascii_lowercase(), body.to_owned())
}

/// Events of a streamed completion, each the text after `data: `; asserts that every
/// event is exactly one `data:` line.
struct EventReader {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<axum::body::Bytes>>,
    buffer: String,
}

impl EventReader {
    async fn open(key: &str, body: &Value) -> EventReader {
        let response = service()
            .http
            .post(code_url("/chat/completions"))
            .header("Authorization", format!("Bearer {key}"))
            .json(body)
            .send()
            .await
            .expect("stream request");
        assert_eq!(response.status(), StatusCode::OK);
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        assert!(
            content_type.starts_with("text/event-stream"),
            "{content_type}"
        );
        EventReader {
            body: response.bytes_stream().boxed(),
            buffer: String::new(),
        }
    }

    async fn next(&mut self) -> Option<String> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let lines: Vec<&str> = event.trim_end().lines().collect();
                assert_eq!(lines.len(), 1, "one line per event: {event:?}");
                let data = lines[0]
                    .strip_prefix("data: ")
                    .unwrap_or_else(|| panic!("not a data line: {event:?}"));
                return Some(data.to_owned());
            }
            match self.body.next().await {
                Some(chunk) => self
                    .buffer
                    .push_str(std::str::from_utf8(&chunk.expect("chunk")).expect("utf-8")),
                None => {
                    assert!(self.buffer.trim().is_empty(), "{:?}", self.buffer);
                    return None;
                }
            }
        }
    }

    async fn next_json(&mut self) -> Value {
        let data = self.next().await.expect("another event");
        serde_json::from_str(&data).unwrap_or_else(|_| panic!("not JSON: {data}"))
    }
}

/// Every JSON chunk of a whole stream, after checking it ends with `[DONE]`.
async fn whole_stream(key: &str, body: &Value) -> Vec<Value> {
    let mut events = EventReader::open(key, body).await;
    let mut chunks = Vec::new();
    let mut done = false;
    while let Some(data) = events.next().await {
        assert!(!done, "nothing may follow [DONE]: {data}");
        if data == "[DONE]" {
            done = true;
        } else {
            chunks.push(serde_json::from_str(&data).expect("JSON chunk"));
        }
    }
    assert!(done, "the stream ends with data: [DONE]");
    chunks
}

fn streamed_text(chunks: &[Value]) -> String {
    chunks
        .iter()
        .filter_map(|chunk| chunk["choices"][0]["delta"]["content"].as_str())
        .collect()
}

/// Waits until no credits are reserved for `key` (a settlement after a disconnect).
async fn settled_balance(key: &str) -> Value {
    let started = Instant::now();
    loop {
        let now = balance(key).await;
        if number(&now["reserved"]) == 0.0 {
            return now;
        }
        assert!(
            started.elapsed() < SETTLE_DEADLINE,
            "the reservation was never settled: {now}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn assert_envelope(body: &Value, kind: &str) {
    assert_eq!(body["error"]["type"], kind, "{body}");
    assert!(body["error"]["message"].is_string(), "{body}");
}

/// The status, the envelope's type and the Content-Type of a raw refusal.
async fn refusal(request: reqwest::RequestBuilder) -> (StatusCode, Value, String) {
    let response = request.send().await.expect("request");
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let (status, body) = answer(response).await;
    (status, body, content_type)
}

#[tokio::test]
async fn health_answers_without_a_key() {
    for path in ["", "/"] {
        let (status, body) = get(None, path).await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        assert_eq!(body["status"], "ok");
        assert_eq!(body["service"], "kolbo-code");
        assert!(body["version"].is_string(), "{body}");
    }
}

#[tokio::test]
async fn models_are_listed_without_a_key_with_per_token_prices() {
    let (status, body) = get(None, "/models").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["object"], "list");
    let models = body["data"].as_array().expect("data");
    assert!(models.len() >= 3, "{body}");
    for model in models {
        assert_eq!(model["object"], "model", "{model}");
        assert!(
            model["id"].is_string() && model["owned_by"].is_string(),
            "{model}"
        );
        assert!(model["name"].is_string(), "{model}");
        let prompt = number(&model["pricing"]["prompt"]);
        let completion = number(&model["pricing"]["completion"]);
        assert!(prompt > 0.0 && prompt < 1.0, "credits per token: {model}");
        assert!(completion >= prompt, "{model}");
        assert!(
            model["context_length"].as_u64().is_some_and(|n| n >= 1000),
            "{model}"
        );
        assert!(model["supports_vision"].is_boolean(), "{model}");
    }
    assert!(
        models.iter().any(|model| model["supports_vision"] == false),
        "one model sees no images: {body}"
    );
}

#[tokio::test]
async fn both_key_headers_work_and_anything_else_is_an_auth_error() {
    let bearer = service()
        .http
        .get(code_url("/balance"))
        .header("Authorization", format!("Bearer {}", key()))
        .send()
        .await
        .expect("request");
    assert_eq!(bearer.status(), StatusCode::OK);
    let (status, _) = get(Some(key()), "/balance").await;
    assert_eq!(status, StatusCode::OK);

    let (status, body) = get(None, "/balance").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_envelope(&body, "auth_error");
    let (status, body) = get(Some("fwsb_not_a_key"), "/balance").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_envelope(&body, "auth_error");
    let wrong_bearer = service()
        .http
        .post(code_url("/chat/completions"))
        .header("Authorization", "Bearer fwsb_not_a_key")
        .json(&chat_body("sandbox-coder", json!("hi"), false))
        .send()
        .await
        .expect("request");
    let (status, body) = answer(wrong_bearer).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_envelope(&body, "auth_error");
    // The /api/v1 layers do not apply here: an unknown route is this API's 404.
    let (status, body) = get(Some(key()), "/no-such-route").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_envelope(&body, "not_found");
}

#[tokio::test]
async fn the_balance_is_the_account_balance() {
    let chloe = &shared().chloe;
    let balance = balance(chloe).await;
    let (available, reserved, total) = (
        number(&balance["available"]),
        number(&balance["reserved"]),
        number(&balance["total"]),
    );
    assert!(total > 0.0, "{balance}");
    assert!((available + reserved - total).abs() < 1e-9, "{balance}");
    let (status, credits) = service()
        .call_as(chloe, reqwest::Method::GET, "/v1/account/credits", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{credits}");
    assert_eq!(number(&credits["credits"]["total"]), total);
}

#[tokio::test]
async fn chat_requests_are_validated_in_the_envelope() {
    let raw = service()
        .http
        .post(code_url("/chat/completions"))
        .header("X-API-Key", key())
        .header("Content-Type", "application/json")
        .body("{not json")
        .send()
        .await
        .expect("request");
    let (status, body) = answer(raw).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_envelope(&body, "validation_error");

    let (status, body) = post(
        key(),
        "/chat/completions",
        &json!({"model": "sandbox-coder"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_envelope(&body, "validation_error");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("messages")
    );

    let (status, body) = post(
        key(),
        "/chat/completions",
        &chat_body("no-such-model", json!("hi"), false),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_envelope(&body, "validation_error");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("no-such-model"),
        "{body}"
    );
}

#[tokio::test]
async fn uploads_are_described_and_other_files_kept_unchanged() {
    let _clock = CLOCK.read().await;
    let text = b"fn main() {\n    println!(\"hello\");\n}\n".to_vec();
    let descriptor = uploaded("main.rs", "text/plain", text.clone()).await;
    let id = descriptor["id"].as_str().expect("id");
    let hex = id.strip_prefix("file_").expect("file_ prefix");
    assert!(
        hex.len() == 24 && hex.bytes().all(|b| b.is_ascii_hexdigit()),
        "{descriptor}"
    );
    assert_eq!(descriptor["object"], "file");
    assert_eq!(descriptor["filename"], "main.rs");
    assert_eq!(descriptor["bytes"], text.len());
    assert_eq!(descriptor["mime_type"], "text/plain");
    assert_eq!(descriptor["deduplicated"], false);
    let created = descriptor["created"].as_i64().expect("created");
    assert_eq!(descriptor["expires_at"].as_i64(), Some(created + 86_400));
    let url = descriptor["url"].as_str().expect("url");
    assert!(
        url.starts_with(&format!("{}/files/code/", service().sandbox.origin())),
        "{url}"
    );
    // The link needs no key.
    let (status, stored) = download(url).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(stored, text);
}

#[tokio::test]
async fn identical_uploads_are_deduplicated() {
    let _clock = CLOCK.read().await;
    let bytes = format!("notes {}\n", uuid::Uuid::new_v4()).into_bytes();
    let first = uploaded("notes.md", "text/markdown", bytes.clone()).await;
    let second = uploaded("notes-again.md", "text/markdown", bytes).await;
    assert_eq!(first["deduplicated"], false);
    assert_eq!(second["deduplicated"], true, "{second}");
    assert_eq!(second["id"], first["id"]);
    assert_eq!(second["url"], first["url"]);
    assert_eq!(second["expires_at"], first["expires_at"]);
    // Another user's identical upload is their own file.
    let (status, theirs) = upload(
        &shared().ben,
        "notes.md",
        "text/markdown",
        download(first["url"].as_str().expect("url")).await.1,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{theirs}");
    assert_eq!(theirs["deduplicated"], false);
    assert_ne!(theirs["id"], first["id"]);
}

#[tokio::test]
async fn photos_are_reencoded_as_smaller_jpegs() {
    let _clock = CLOCK.read().await;
    let png = large_photo_png();
    let descriptor = uploaded("coffee.png", "image/png", png.clone()).await;
    assert_eq!(descriptor["mime_type"], "image/jpeg", "{descriptor}");
    assert_eq!(descriptor["filename"], "coffee.jpg");
    let bytes = descriptor["bytes"].as_u64().expect("bytes");
    assert!(bytes < png.len() as u64, "{bytes} < {}", png.len());
    let (status, stored) = download(descriptor["url"].as_str().expect("url")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(stored.len() as u64, bytes);
    assert_eq!(
        image::guess_format(&stored).ok(),
        Some(image::ImageFormat::Jpeg)
    );
    let decoded = image::load_from_memory(&stored).expect("decodes");
    assert_eq!((decoded.width(), decoded.height()), (2400, 1600));
}

#[tokio::test]
async fn images_larger_than_8k_are_scaled_down() {
    let _clock = CLOCK.read().await;
    let wide = image::DynamicImage::ImageRgb8(image::RgbImage::from_fn(9000, 300, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
    }));
    let descriptor = uploaded("panorama.png", "image/png", png_bytes(&wide)).await;
    assert_eq!(descriptor["mime_type"], "image/jpeg", "{descriptor}");
    let (_, stored) = download(descriptor["url"].as_str().expect("url")).await;
    let decoded = image::load_from_memory(&stored).expect("decodes");
    assert_eq!(decoded.width(), 8192);
    assert!(decoded.height() <= 8192 && decoded.height() >= 272);
}

#[tokio::test]
async fn transparent_pngs_are_kept_as_they_are() {
    let _clock = CLOCK.read().await;
    let logo = image::DynamicImage::ImageRgba8(image::RgbaImage::from_fn(200, 120, |x, y| {
        let inside = (x as i32 - 100).pow(2) + (y as i32 - 60).pow(2) < 50 * 50;
        image::Rgba([30, 90, 200, if inside { 255 } else { 0 }])
    }));
    let png = png_bytes(&logo);
    let descriptor = uploaded("logo.png", "image/png", png.clone()).await;
    assert_eq!(descriptor["mime_type"], "image/png", "{descriptor}");
    assert_eq!(descriptor["filename"], "logo.png");
    let (_, stored) = download(descriptor["url"].as_str().expect("url")).await;
    assert_eq!(stored, png);
}

/// One second of a 440 Hz tone, 16-bit stereo PCM at 48 kHz.
fn tone_wav() -> Vec<u8> {
    let (channels, rate, frames) = (2u16, 48_000u32, 48_000u32);
    let data_len = frames * u32::from(channels) * 2;
    let mut wav = Vec::new();
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    for field in [
        16u32.to_le_bytes().to_vec(),
        1u16.to_le_bytes().to_vec(),
        channels.to_le_bytes().to_vec(),
        rate.to_le_bytes().to_vec(),
        (rate * 4).to_le_bytes().to_vec(),
        4u16.to_le_bytes().to_vec(),
        16u16.to_le_bytes().to_vec(),
    ] {
        wav.extend_from_slice(&field);
    }
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    for n in 0..frames {
        let value =
            ((n as f32 * 440.0 * std::f32::consts::TAU / rate as f32).sin() * 9000.0) as i16;
        for _ in 0..channels {
            wav.extend_from_slice(&value.to_le_bytes());
        }
    }
    wav
}

#[tokio::test]
async fn wav_audio_becomes_mp3_and_other_audio_is_kept() {
    let _clock = CLOCK.read().await;
    let descriptor = uploaded("tone.wav", "audio/wav", tone_wav()).await;
    assert_eq!(descriptor["mime_type"], "audio/mpeg", "{descriptor}");
    assert_eq!(descriptor["filename"], "tone.mp3");
    let (status, mp3) = download(descriptor["url"].as_str().expect("url")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        mp3.len() as u64,
        descriptor["bytes"].as_u64().expect("bytes")
    );
    // MPEG-1 Layer III frame header: 128 kbps (bitrate index 9), 44.1 kHz (index 0).
    assert_eq!((mp3[0], mp3[1] & 0xFE), (0xFF, 0xFA), "{:02x?}", &mp3[..4]);
    assert_eq!(mp3[2] >> 4, 9);
    assert_eq!((mp3[2] >> 2) & 0b11, 0);

    let ogg = b"OggS\0\x02not really vorbis, kept as sent".to_vec();
    let kept = uploaded("voice.ogg", "audio/ogg", ogg.clone()).await;
    assert_eq!(kept["mime_type"], "audio/ogg", "{kept}");
    assert_eq!(download(kept["url"].as_str().expect("url")).await.1, ogg);
}

#[tokio::test]
async fn an_upload_without_a_file_field_is_refused() {
    let form = reqwest::multipart::Form::new().text("purpose", "chat");
    let response = service()
        .http
        .post(code_url("/files"))
        .header("X-API-Key", key())
        .multipart(form)
        .send()
        .await
        .expect("upload");
    let (status, body) = answer(response).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_envelope(&body, "validation_error");
}

/// A body declared larger than 500 MB is refused before any of it is read, so the test
/// sends only the headers and a few bytes over a raw connection.
#[tokio::test]
async fn uploads_over_500_mb_are_refused_with_413() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let origin = service().sandbox.origin();
    let address = origin.strip_prefix("http://").expect("http origin");
    let mut connection = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect");
    let declared = 600u64 * 1024 * 1024;
    let head = format!(
        "POST /api/kolbo/v1/files HTTP/1.1\r\nHost: {address}\r\nX-API-Key: {}\r\n\
         Content-Type: multipart/form-data; boundary=XYZ\r\nContent-Length: {declared}\r\n\
         Connection: close\r\n\r\n--XYZ\r\n",
        key()
    );
    connection.write_all(head.as_bytes()).await.expect("send");
    // The server answers without waiting for the rest of the body; read the whole answer
    // (headers and its Content-Length of body).
    let mut response = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&response).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|line| {
                    line.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().to_owned())
                })
                .and_then(|value| value.parse::<usize>().ok())
                .unwrap_or(0);
            if body.len() >= length {
                break;
            }
        }
        match connection.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => response.extend_from_slice(&buffer[..read]),
        }
    }
    let response = String::from_utf8_lossy(&response);
    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
    assert!(
        response.contains(r#""type":"validation_error""#),
        "{response}"
    );
    assert!(
        response.contains("File too large. Maximum size is 500MB."),
        "{response}"
    );
}

#[tokio::test]
async fn file_links_stop_working_after_24_hours() {
    let _clock = CLOCK.write().await;
    let descriptor = uploaded(
        "expiring.txt",
        "text/plain",
        format!("short-lived {}", uuid::Uuid::new_v4()).into_bytes(),
    )
    .await;
    let url = descriptor["url"].as_str().expect("url");
    assert_eq!(download(url).await.0, StatusCode::OK);
    service().sandbox.advance_clock(23.0 * 3600.0);
    assert_eq!(download(url).await.0, StatusCode::OK, "still within 24 h");
    service().sandbox.advance_clock(3600.0 + 1.0);
    let (status, _) = download(url).await;
    assert_eq!(status, StatusCode::GONE);
    // An expired file is no longer offered to chat either.
    let (status, body) = post(
        key(),
        "/chat/completions",
        &chat_body(
            "sandbox-coder",
            json!([
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": url}},
            ]),
            false,
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_envelope(&body, "validation_error");
}

#[tokio::test]
async fn a_stream_is_chunked_and_matches_the_synchronous_answer() {
    let chloe = &shared().chloe;
    let (status, synchronous) = post(
        chloe,
        "/chat/completions",
        &chat_body("sandbox-coder", json!(PROMPT), false),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{synchronous}");
    assert_eq!(synchronous["object"], "chat.completion");
    assert!(
        synchronous["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("chatcmpl-"))
    );
    assert_eq!(synchronous["model"], "sandbox-coder");
    let choice = &synchronous["choices"][0];
    assert_eq!(choice["finish_reason"], "stop");
    assert_eq!(choice["message"]["role"], "assistant");
    let content = choice["message"]["content"].as_str().expect("content");
    assert!(content.contains("```rust"), "{content}");
    let usage = &synchronous["usage"];
    assert_eq!(
        usage["total_tokens"].as_u64(),
        Some(
            usage["prompt_tokens"].as_u64().expect("prompt")
                + usage["completion_tokens"].as_u64().expect("completion")
        )
    );

    let chunks = whole_stream(
        chloe,
        &with_usage(chat_body("sandbox-coder", json!(PROMPT), true)),
    )
    .await;
    assert!(chunks.len() > 10, "several chunks: {}", chunks.len());
    for chunk in &chunks {
        assert_eq!(chunk["object"], "chat.completion.chunk", "{chunk}");
        assert_eq!(chunk["model"], "sandbox-coder");
        assert_eq!(chunk["id"], chunks[0]["id"]);
    }
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let (usage_chunk, answer_chunks) = chunks.split_last().expect("chunks");
    let (finish_chunk, content_chunks) = answer_chunks.split_last().expect("answer chunks");
    for chunk in content_chunks {
        assert_eq!(chunk["choices"][0]["finish_reason"], Value::Null, "{chunk}");
        assert_eq!(chunk["usage"], Value::Null, "{chunk}");
    }
    assert_eq!(finish_chunk["choices"][0]["finish_reason"], "stop");
    assert_eq!(finish_chunk["choices"][0]["delta"], json!({}));
    assert_eq!(finish_chunk["usage"], Value::Null, "{finish_chunk}");
    // include_usage: one more chunk, no choices, the whole request's usage.
    assert_eq!(usage_chunk["choices"], json!([]), "{usage_chunk}");
    assert_eq!(
        usage_chunk["usage"], synchronous["usage"],
        "same tokens, same cost"
    );
    assert_eq!(streamed_text(&chunks), content);
}

#[tokio::test]
async fn without_include_usage_no_chunk_carries_usage() {
    for options in [None, Some(json!({"include_usage": false}))] {
        let mut body = chat_body("sandbox-coder-mini", json!(PROMPT), true);
        if let Some(options) = options {
            body["stream_options"] = options;
        }
        let chunks = whole_stream(key(), &body).await;
        for chunk in &chunks {
            assert!(chunk.get("usage").is_none(), "{chunk}");
            assert_eq!(
                chunk["choices"].as_array().map(Vec::len),
                Some(1),
                "{chunk}"
            );
        }
        let last = chunks.last().expect("last chunk");
        assert_eq!(last["choices"][0]["finish_reason"], "stop", "{last}");
    }
}

#[tokio::test]
async fn the_developer_role_is_read_as_system() {
    let mut system = chat_body("sandbox-coder-mini", json!("Hi"), false);
    system["max_completion_tokens"] = json!(3);
    let mut developer = system.clone();
    developer["messages"][0]["role"] = json!("developer");
    let (status, as_system) = post(key(), "/chat/completions", &system).await;
    assert_eq!(status, StatusCode::OK, "{as_system}");
    let (status, as_developer) = post(key(), "/chat/completions", &developer).await;
    assert_eq!(status, StatusCode::OK, "{as_developer}");
    assert_eq!(
        as_developer["usage"]["prompt_tokens"], as_system["usage"]["prompt_tokens"],
        "the developer message counts like a system message"
    );
    assert_eq!(
        as_developer["choices"][0]["message"]["content"],
        as_system["choices"][0]["message"]["content"]
    );
}

#[tokio::test]
async fn max_completion_tokens_cuts_the_answer_with_finish_reason_length() {
    const CAP_TOKENS: u64 = 5;
    let uncut = |mut body: Value| {
        body["max_completion_tokens"] = json!(100_000);
        body
    };
    let (status, whole) = post(
        key(),
        "/chat/completions",
        &uncut(chat_body("sandbox-coder-mini", json!(PROMPT), false)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{whole}");
    assert_eq!(whole["choices"][0]["finish_reason"], "stop", "{whole}");
    let whole_text = whole["choices"][0]["message"]["content"]
        .as_str()
        .expect("content");

    // The newer name wins over the deprecated `max_tokens` when both are sent.
    let mut capped = chat_body("sandbox-coder-mini", json!(PROMPT), false);
    capped["max_completion_tokens"] = json!(CAP_TOKENS);
    capped["max_tokens"] = json!(1000);
    let (status, cut) = post(key(), "/chat/completions", &capped).await;
    assert_eq!(status, StatusCode::OK, "{cut}");
    assert_eq!(cut["choices"][0]["finish_reason"], "length", "{cut}");
    let completion_tokens = cut["usage"]["completion_tokens"]
        .as_u64()
        .expect("completion tokens");
    assert!(
        (1..=CAP_TOKENS).contains(&completion_tokens),
        "{completion_tokens} tokens for a cap of {CAP_TOKENS}"
    );
    let cut_text = cut["choices"][0]["message"]["content"]
        .as_str()
        .expect("content");
    assert!(
        cut_text.len() < whole_text.len() && whole_text.starts_with(cut_text),
        "{cut_text:?}"
    );

    // The stream says the same in its last choice chunk.
    capped["stream"] = json!(true);
    let chunks = whole_stream(key(), &capped).await;
    let last = chunks.last().expect("last chunk");
    assert_eq!(last["choices"][0]["finish_reason"], "length", "{last}");
    assert_eq!(streamed_text(&chunks), cut_text);
}

/// A chat body is read up to 2 MiB; a larger one (here 3 MiB) is refused with 413 in the
/// envelope, whether the size was declared or the body came in chunks, and the client,
/// still sending when the limit is reached, receives that answer (not a reset connection).
#[tokio::test]
async fn a_chat_body_over_the_limit_is_a_413_in_the_envelope() {
    const LIMIT_BYTES: usize = 2 * 1024 * 1024;
    let filler = "x".repeat(LIMIT_BYTES + LIMIT_BYTES / 2);
    let body = json!({
        "model": "sandbox-coder-mini",
        "messages": [{"role": "user", "content": filler}],
    })
    .to_string()
    .into_bytes();
    assert!(body.len() > LIMIT_BYTES);
    let origin = service().sandbox.origin();
    let host = origin.strip_prefix("http://").expect("http origin");
    let declared = format!(
        "POST /api/kolbo/v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        key(),
        body.len()
    );
    let mut chunked_body = Vec::new();
    for piece in body.chunks(64 * 1024) {
        chunked_body.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        chunked_body.extend_from_slice(piece);
        chunked_body.extend_from_slice(b"\r\n");
    }
    chunked_body.extend_from_slice(b"0\r\n\r\n");
    let chunked = format!(
        "POST /api/kolbo/v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        key()
    );
    // Declared far over the limit: refused before the body is read (none is sent).
    let huge = format!(
        "POST /api/kolbo/v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        key(),
        100 * 1024 * 1024
    );
    for (head, body) in [
        (declared, body.clone()),
        (chunked, chunked_body),
        (huge, b"{\"model\": ".to_vec()),
    ] {
        let (status, head, body) = raw_exchange(head, body).await;
        assert_eq!(status, 413, "{head}\n{body}");
        assert!(head.contains("content-type: application/json"), "{head}");
        let body: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("JSON: {body}"));
        assert_envelope(&body, "validation_error");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap_or("")
                .contains(&LIMIT_BYTES.to_string()),
            "the limit is named: {body}"
        );
    }
}

#[tokio::test]
async fn wrong_methods_routes_and_bodies_are_refused_in_the_envelope() {
    let http = &service().http;
    let cases = [
        // A wrong method on each route; the 405 keeps its Allow header.
        (
            http.get(code_url("/chat/completions"))
                .header("X-API-Key", key()),
            StatusCode::METHOD_NOT_ALLOWED,
            "validation_error",
        ),
        (
            http.delete(code_url("/balance")).header("X-API-Key", key()),
            StatusCode::METHOD_NOT_ALLOWED,
            "validation_error",
        ),
        (
            http.post(code_url("/models")),
            StatusCode::METHOD_NOT_ALLOWED,
            "validation_error",
        ),
        (
            http.put(code_url("/files")).header("X-API-Key", key()),
            StatusCode::METHOD_NOT_ALLOWED,
            "validation_error",
        ),
        (
            http.post(code_url("/")),
            StatusCode::METHOD_NOT_ALLOWED,
            "validation_error",
        ),
        (
            http.request(reqwest::Method::OPTIONS, code_url("/chat/completions"))
                .header("X-API-Key", key()),
            StatusCode::METHOD_NOT_ALLOWED,
            "validation_error",
        ),
        (
            http.patch(code_url("/models")),
            StatusCode::METHOD_NOT_ALLOWED,
            "validation_error",
        ),
        // Unknown routes under the prefix, with and without a key.
        (
            http.get(code_url("/v2/chat/completions")),
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        (
            http.post(code_url("/completions"))
                .header("X-API-Key", key()),
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        // Bodies that are not a chat request.
        (
            http.post(code_url("/chat/completions"))
                .header("X-API-Key", key())
                .header("Content-Type", "application/json")
                .body("{\"model\": \"sandbox-coder\", \"messages\": [}"),
            StatusCode::BAD_REQUEST,
            "validation_error",
        ),
        (
            http.post(code_url("/chat/completions"))
                .header("X-API-Key", key())
                .header("Content-Type", "application/json")
                .body("[1, 2, 3]"),
            StatusCode::BAD_REQUEST,
            "validation_error",
        ),
        (
            http.post(code_url("/chat/completions"))
                .header("X-API-Key", key()),
            StatusCode::BAD_REQUEST,
            "validation_error",
        ),
        (
            http.post(code_url("/chat/completions"))
                .header("X-API-Key", key())
                .header("Content-Type", "application/json")
                .body(vec![0xff, 0xfe, b'{', 0x80]),
            StatusCode::BAD_REQUEST,
            "validation_error",
        ),
        (
            http.post(code_url("/files"))
                .header("X-API-Key", key())
                .header("Content-Type", "text/plain")
                .body("not a form"),
            StatusCode::BAD_REQUEST,
            "validation_error",
        ),
    ];
    for (request, expected_status, kind) in cases {
        let (status, body, content_type) = refusal(request).await;
        assert_eq!(status, expected_status, "{body}");
        assert!(
            content_type.starts_with("application/json"),
            "{status}: {content_type:?} {body}"
        );
        assert_envelope(&body, kind);
    }
    let response = http
        .get(code_url("/chat/completions"))
        .header("X-API-Key", key())
        .send()
        .await
        .expect("request");
    let allow = response
        .headers()
        .get("allow")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(allow.contains("POST"), "Allow: {allow:?}");
    let (_, body) = answer(response).await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("Method GET is not allowed on /api/kolbo/v1/chat/completions"),
        "{body}"
    );
}

#[tokio::test]
async fn credits_are_reserved_while_streaming_and_charged_on_completion() {
    let ana = &shared().ana;
    let before = balance(ana).await;
    assert_eq!(number(&before["reserved"]), 0.0, "{before}");
    let mut events = EventReader::open(
        ana,
        &with_usage(chat_body("sandbox-coder-pro", json!(PROMPT), true)),
    )
    .await;
    let first = events.next_json().await;
    assert_eq!(first["choices"][0]["delta"]["role"], "assistant");
    let during = balance(ana).await;
    let reserved = number(&during["reserved"]);
    assert!(reserved > 0.0, "{during}");
    assert_eq!(
        number(&during["total"]),
        number(&before["total"]),
        "nothing charged yet"
    );
    assert!((number(&during["available"]) - (number(&before["total"]) - reserved)).abs() < 1e-9);
    let mut last = first;
    loop {
        let data = events.next().await.expect("stream continues");
        if data == "[DONE]" {
            break;
        }
        last = serde_json::from_str(&data).expect("JSON chunk");
    }
    let cost = number(&last["usage"]["cost"]);
    assert!(cost >= 0.1, "{last}");
    assert!(cost <= reserved + 1e-9, "never more than was reserved");
    let after = balance(ana).await;
    assert_eq!(number(&after["reserved"]), 0.0, "{after}");
    let charged = number(&before["total"]) - number(&after["total"]);
    assert!(
        (charged - cost).abs() < 1e-9,
        "charged {charged}, usage.cost {cost}"
    );
    // The cost follows the published prices: prompt and completion tokens, rounded up.
    let (_, models) = get(None, "/models").await;
    let pro = models["data"]
        .as_array()
        .and_then(|models| {
            models
                .iter()
                .find(|model| model["id"] == "sandbox-coder-pro")
        })
        .expect("pro model");
    let raw = number(&last["usage"]["prompt_tokens"]) * number(&pro["pricing"]["prompt"])
        + number(&last["usage"]["completion_tokens"]) * number(&pro["pricing"]["completion"]);
    assert!(
        cost >= raw - 1e-9 && cost < raw + 0.1 + 1e-9,
        "{cost} for {raw}"
    );
}

#[tokio::test]
async fn a_client_that_disconnects_pays_only_for_what_was_sent() {
    let ben = &shared().ben;
    let body = chat_body("sandbox-coder-pro", json!(PROMPT), true);
    let before = settled_balance(ben).await;
    let mut events = EventReader::open(ben, &body).await;
    for _ in 0..4 {
        let chunk = events.next_json().await;
        assert_eq!(chunk["choices"][0]["finish_reason"], Value::Null, "{chunk}");
    }
    drop(events);
    let after = settled_balance(ben).await;
    let charged = number(&before["total"]) - number(&after["total"]);

    let (status, full) = post(
        &shared().chloe,
        "/chat/completions",
        &chat_body("sandbox-coder-pro", json!(PROMPT), false),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{full}");
    let full_cost = number(&full["usage"]["cost"]);
    assert!(
        charged >= 0.1,
        "the prompt and the sent tokens are billed: {charged}"
    );
    assert!(charged < full_cost, "charged {charged} of {full_cost}");
}

#[tokio::test]
async fn attached_images_are_described_by_size_and_colour() {
    let _clock = CLOCK.read().await;
    let photo = match std::fs::read(PHOTO) {
        Ok(bytes) => bytes,
        Err(_) => large_photo_png(),
    };
    let (width, height) = image::load_from_memory(&photo)
        .map(|image| (image.width(), image.height()))
        .expect("photo decodes");
    let descriptor = uploaded("photo.png", "image/png", photo).await;
    let url = descriptor["url"].as_str().expect("url");
    let content = json!([
        {"type": "text", "text": "What colours are in this picture?"},
        {"type": "image_url", "image_url": {"url": url}},
    ]);
    let (status, reply) = post(
        key(),
        "/chat/completions",
        &chat_body("sandbox-coder", content.clone(), false),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    let text = reply["choices"][0]["message"]["content"]
        .as_str()
        .expect("content");
    assert!(text.contains(&format!("{width} × {height} px")), "{text}");
    assert!(
        text.contains("(`#"),
        "dominant colours with their hex: {text}"
    );
    let (status, body) = post(
        key(),
        "/chat/completions",
        &chat_body("sandbox-coder-mini", content, false),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_envelope(&body, "validation_error");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("sandbox-coder-mini")
    );
}

#[tokio::test]
async fn images_on_private_addresses_are_not_fetched() {
    let content = json!([
        {"type": "text", "text": "Describe this"},
        {"type": "image_url", "image_url": {"url": "http://10.1.2.3/secret.png"}},
    ]);
    let (status, body) = post(
        key(),
        "/chat/completions",
        &chat_body("sandbox-coder", content, false),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_envelope(&body, "validation_error");
}

#[tokio::test]
async fn a_completion_the_balance_cannot_cover_is_refused_with_402() {
    let dev = &shared().dev;
    let admin = service()
        .http
        .put(format!("{}/admin/credits", service().sandbox.origin()))
        .bearer_auth(service().sandbox.admin_token())
        .json(&json!({"email": DEV, "total": 0.05}))
        .send()
        .await
        .expect("admin");
    assert_eq!(admin.status(), StatusCode::OK);
    let (status, body) = post(
        dev,
        "/chat/completions",
        &chat_body("sandbox-coder", json!(PROMPT), false),
    )
    .await;
    assert_eq!(status, StatusCode::PAYMENT_REQUIRED, "{body}");
    assert_envelope(&body, "insufficient_credits");
    let after = balance(dev).await;
    assert_eq!(number(&after["total"]), 0.05, "nothing charged: {after}");
    assert_eq!(number(&after["reserved"]), 0.0);
}

/// A decompression bomb (issue 19): the picture's size is read from its header and the
/// upload refused in the envelope with the "too large" status, the size said in words;
/// nothing is decoded, so the studio this sandbox runs in keeps its memory.
#[tokio::test]
async fn a_decompression_bomb_is_refused_from_its_header() {
    let _clock = CLOCK.read().await;
    let (status, body) = upload(
        key(),
        "zeros.png",
        "image/png",
        service_support::png_of_zeros(16_384),
    )
    .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_envelope(&body, "validation_error");
    let message = body["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("16384 × 16384 px") && message.contains("50 megapixels"),
        "{message}"
    );
}
