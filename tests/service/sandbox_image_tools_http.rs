//! The sandbox's image tools (POST /v1/edit/image) and model avatars (GET /assets/<file>)
//! over real HTTP, checked against the contract with plain JSON values.
//!
//! One sandbox serves the whole binary. The rate-window test runs as a user of its own so
//! the 30/min image group of other tests never meets it; tests that depend on the sandbox clock (the
//! 30-second duplicate window, the rate window) take turns, since one of them moves it.

use std::sync::OnceLock;
use std::time::Duration;

use crate::service_support;
use service_support::{LocalService, local_service};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::sync::{Mutex, MutexGuard};

const FAST: f64 = 50.0;
const POLL_TIMEOUT: Duration = Duration::from_secs(60);
const PHOTO: &str = "../shared/fixtures/photos/coffee.png";

fn service() -> &'static LocalService {
    static SHARED: OnceLock<LocalService> = OnceLock::new();
    SHARED.get_or_init(|| {
        let mut service = local_service(FAST);
        // Tests run on separate runtimes: no pooled connection may outlive its runtime.
        service.http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("client");
        service
    })
}

/// Tests that read or move the sandbox clock run one at a time.
async fn clock_turn() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::const_new(());
    TURN.lock().await
}

/// A key of a directory user (`name@studio.test`). Ana runs the tools' outputs, Ben the
/// refusals and duplicates, Chloé plays another account, Dev fills the rate window alone.
fn user(name: &str) -> String {
    service()
        .sandbox
        .create_api_key_for_user(&format!("{name}@studio.test"), false)
        .expect("key")
}

async fn post(key: &str, path: &str, body: Value) -> (StatusCode, Value) {
    service().call_as(key, Method::POST, path, Some(body)).await
}

async fn tool(key: &str, body: Value) -> (StatusCode, Value) {
    post(key, "/v1/edit/image", body).await
}

async fn wait(key: &str, id: &str) -> Value {
    let deadline = tokio::time::Instant::now() + POLL_TIMEOUT;
    loop {
        let (status, body) = service()
            .call_as(key, Method::GET, &format!("/v1/generate/{id}/status"), None)
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        if matches!(
            body["state"].as_str(),
            Some("completed" | "failed" | "cancelled")
        ) {
            return body;
        }
        assert!(tokio::time::Instant::now() < deadline, "{id} never ended");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn download(url: &str) -> Vec<u8> {
    let response = service().http.get(url).send().await.expect("download");
    assert_eq!(response.status(), StatusCode::OK, "{url}");
    response.bytes().await.expect("bytes").to_vec()
}

fn decode(bytes: &[u8]) -> image::RgbaImage {
    image::load_from_memory(bytes).expect("an image").to_rgba8()
}

/// A sandbox-generated 1:1 image's URL and size.
async fn generated_image(key: &str, prompt: &str) -> (String, (u32, u32)) {
    let (status, answer) = post(
        key,
        "/v1/generate/image",
        json!({"prompt": prompt, "aspect_ratio": "1:1"}),
    )
    .await;
    assert!(status.is_success(), "{answer}");
    let done = wait(key, answer["generation_id"].as_str().expect("id")).await;
    assert_eq!(done["state"], "completed", "{done}");
    let url = done["result"]["urls"][0].as_str().expect("url").to_owned();
    let size = decode(&download(&url).await).dimensions();
    (url, size)
}

/// The coffee photo uploaded through the media route; its URL.
async fn uploaded_photo(key: &str) -> String {
    let bytes = std::fs::read(PHOTO).expect("fixture photo");
    uploaded_png(key, bytes, "coffee.png").await
}

/// A small picture (a gradient, so resampling has something to do) uploaded as a PNG; its
/// URL. Small, because a 4× upscale of a generated 1024-px image takes half a minute in a
/// debug build.
async fn uploaded_gradient(key: &str, width: u32, height: u32) -> String {
    let image = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x * 255 / width) as u8, (y * 255 / height) as u8, 128])
    });
    let mut bytes = std::io::Cursor::new(Vec::new());
    image
        .write_to(&mut bytes, image::ImageFormat::Png)
        .expect("encode gradient");
    uploaded_png(key, bytes.into_inner(), "gradient.png").await
}

async fn uploaded_png(key: &str, bytes: Vec<u8>, file_name: &str) -> String {
    let media = service().upload_png(key, file_name, bytes).await;
    media["url"].as_str().expect("url").to_owned()
}

/// Submits a tool (202) and waits for its completed status.
async fn completed_tool(key: &str, body: Value) -> Value {
    let (status, answer) = tool(key, body).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{answer}");
    assert_eq!(answer["success"], true);
    assert!(answer["poll_url"].as_str().is_some());
    let done = wait(key, answer["generation_id"].as_str().expect("id")).await;
    assert_eq!(done["state"], "completed", "{done}");
    done
}

#[tokio::test]
async fn upscale_doubles_or_quadruples_an_image() {
    let key = user("ana");
    let (w, h) = (240, 160);
    let url = uploaded_gradient(&key, w, h).await;
    for scale in [2u32, 4] {
        let _turn = clock_turn().await;
        // The same image and operation within 30 s is a duplicate: move past the window.
        service().sandbox.advance_clock(31.0);
        let done = completed_tool(
            &key,
            json!({"image_url": url, "operation": "upscale", "scale": scale}),
        )
        .await;
        assert_eq!(done["type"], "image_tool");
        assert_eq!(done["result"]["edit_type"], "upscale");
        assert_eq!(done["credits_used"], f64::from(scale));
        let out = decode(&download(done["result"]["urls"][0].as_str().expect("url")).await);
        assert_eq!(out.dimensions(), (w * scale, h * scale));
    }
}

#[tokio::test]
async fn the_submit_answer_echoes_the_model_as_sent() {
    let key = user("ana");
    let (url, _) = generated_image(&key, "a red kite").await;
    let (status, answer) = tool(&key, json!({"image_url": url, "operation": "upscale"})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{answer}");
    assert_eq!(answer["model"], Value::Null);
    assert_eq!(answer["type"], "image_tool");
}

#[tokio::test]
async fn remove_background_cuts_the_subject_out_of_a_photo() {
    let key = user("ana");
    let url = uploaded_photo(&key).await;
    let done = completed_tool(
        &key,
        json!({"image_url": url, "operation": "remove_background"}),
    )
    .await;
    assert_eq!(done["result"]["edit_type"], "background_removal");
    let bytes = download(done["result"]["urls"][0].as_str().expect("url")).await;
    assert_eq!(
        image::guess_format(&bytes).expect("format"),
        image::ImageFormat::Png
    );
    let out = decode(&bytes);
    let (w, h) = out.dimensions();
    assert_eq!((w, h), (600, 400));
    for (x, y) in [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)] {
        assert_eq!(out.get_pixel(x, y)[3], 0, "corner ({x},{y}) is transparent");
    }
    assert_eq!(out.get_pixel(w / 2, h / 2)[3], 255, "the centre is opaque");
    // The edited image lands in the library.
    let (status, media) = service()
        .call_as(&key, Method::GET, "/v1/media?limit=5", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{media}");
    assert!(
        media.to_string().contains("edited-image"),
        "an edited image in the library: {media}"
    );
}

#[tokio::test]
async fn a_repeat_within_thirty_seconds_names_the_existing_job() {
    let _turn = clock_turn().await;
    let key = user("ben");
    let (url, _) = generated_image(&key, "a paper boat").await;
    let body = json!({"image_url": url, "operation": "remove_background"});
    let (status, first) = tool(&key, body.clone()).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{first}");
    let first_id = first["generation_id"].as_str().expect("id").to_owned();

    let (status, again) = tool(&key, body.clone()).await;
    assert_eq!(status, StatusCode::CONFLICT, "{again}");
    assert_eq!(again["success"], false);
    assert_eq!(again["code"], "DUPLICATE_REQUEST");
    assert!(again["error"].as_str().is_some_and(|e| !e.is_empty()));
    assert_eq!(again["existingGenerationId"], first_id.as_str());

    // Another operation on the same image is not a duplicate.
    let (status, other) = tool(&key, json!({"image_url": url, "operation": "upscale"})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{other}");

    // Another key of another account is not either.
    let (status, stranger) = tool(&user("chloe"), body.clone()).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{stranger}");

    service().sandbox.advance_clock(30.5);
    let (status, later) = tool(&key, body).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{later}");
    assert_ne!(later["generation_id"], first_id.as_str(), "a new job");
}

#[tokio::test]
async fn bad_requests_are_refused_with_the_reason() {
    let key = user("ben");
    let (url, _) = generated_image(&key, "a tin robot").await;
    let (status, answer) = tool(&key, json!({"image_url": url, "operation": "sharpen"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    let message = answer["error"].as_str().expect("error");
    assert!(message.contains("upscale") && message.contains("remove_background"));

    let (status, answer) = tool(&key, json!({"operation": "upscale"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");

    let (status, answer) = tool(
        &key,
        json!({"image_url": url, "operation": "upscale", "scale": 3}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");

    for private in [
        "http://10.0.0.7/a.png",
        "http://127.0.0.1:1/secret.png",
        "ftp://example.com/a.png",
    ] {
        let (status, answer) =
            tool(&key, json!({"image_url": private, "operation": "upscale"})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{private}: {answer}");
    }
}

#[tokio::test]
async fn edit_image_shares_the_image_generation_rate_group() {
    let _turn = clock_turn().await;
    let key = user("dev");
    let (url, _) = generated_image(&key, "a windmill").await;
    // One image generation is counted already; 28 more fill the window to 29…
    for n in 0..28 {
        let (status, answer) = post(
            &key,
            "/v1/generate/image",
            json!({"prompt": format!("tile {n}")}),
        )
        .await;
        assert!(status.is_success(), "{answer}");
    }
    // …the image tool is the 30th…
    let (status, answer) = tool(&key, json!({"image_url": url, "operation": "upscale"})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{answer}");
    // …and the 31st request of the group, on either route, is refused.
    let (status, _) = tool(
        &key,
        json!({"image_url": url, "operation": "remove_background"}),
    )
    .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    let (status, _) = post(&key, "/v1/generate/image", json!({"prompt": "one more"})).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    service().sandbox.advance_clock(61.0);
}

#[tokio::test]
async fn too_few_credits_refuse_before_any_work() {
    let key = service().key.clone();
    let (url, _) = generated_image(&key, "a glass marble").await;
    let before = service().sandbox.generation_count();
    service().sandbox.set_credits(1.0);
    let (status, answer) = tool(
        &key,
        json!({"image_url": url, "operation": "upscale", "scale": 4}),
    )
    .await;
    service().sandbox.set_credits(10_000.0);
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    assert_eq!(answer["code"], "INSUFFICIENT_CREDITS");
    assert_eq!(
        service().sandbox.generation_count(),
        before,
        "no job created"
    );
}

#[tokio::test]
async fn every_catalog_avatar_is_served_as_a_png() {
    let key = service().key.clone();
    let (status, models) = service()
        .call_as(&key, Method::GET, "/v1/models", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let mut files: Vec<String> = models["models"]
        .as_array()
        .expect("models")
        .iter()
        .filter_map(|m| m["avatar"].as_str())
        .filter(|a| !a.contains("://"))
        .map(str::to_owned)
        .collect();
    files.sort();
    files.dedup();
    assert!(files.len() > 10, "the catalog names avatars: {files:?}");
    // {base_url}/assets/<file>, where {base_url} is the service address without /api.
    let origin = service().sandbox.origin().to_owned();
    for file in &files {
        let response = service()
            .http
            .get(format!("{origin}/assets/{file}"))
            .send()
            .await
            .expect("avatar");
        assert_eq!(response.status(), StatusCode::OK, "{file}");
        assert_eq!(response.headers()["content-type"], "image/png", "{file}");
        let bytes = response.bytes().await.expect("bytes");
        assert_eq!(decode(&bytes).dimensions(), (64, 64), "{file}");
    }
    let missing = service()
        .http
        .get(format!("{origin}/assets/not-a-model.png"))
        .send()
        .await
        .expect("answer");
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
}
