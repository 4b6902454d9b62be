//! Shared setup for tests that talk to a sandbox over real HTTP: a local service in a
//! temporary folder, raw JSON calls (for contract-shape tests that must not use the
//! client's own types) and typed `ApiClient`s.

// Each test crate uses a different subset of these helpers.
#![allow(dead_code)]

use framewright::api::{ApiClient, ClientConfig};
use framewright::sandbox::{SandboxConfig, SandboxHandle, start};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use tempfile::TempDir;

/// A running sandbox with its data in a temporary folder. Field order matters: the
/// sandbox stops before its folder is removed.
pub struct LocalService {
    pub sandbox: SandboxHandle,
    pub http: reqwest::Client,
    /// The sandbox's read/write key.
    pub key: String,
    _dir: TempDir,
}

/// Starts a sandbox whose jobs run `speed` times faster than real time.
pub fn local_service(speed: f64) -> LocalService {
    let dir = tempfile::tempdir().expect("temp dir");
    let sandbox = start_in(&dir, speed);
    let key = sandbox.api_key().to_owned();
    LocalService {
        sandbox,
        http: reqwest::Client::new(),
        key,
        _dir: dir,
    }
}

fn start_in(dir: &TempDir, speed: f64) -> SandboxHandle {
    let mut config = SandboxConfig::new(dir.path().join("sandbox"));
    config.speed = speed;
    start(config).expect("sandbox starts")
}

impl LocalService {
    /// Stops the sandbox and starts it again on the same data (a restart of the service:
    /// it resumes its unfinished jobs).
    pub fn restarted(self, speed: f64) -> LocalService {
        let LocalService {
            sandbox,
            http,
            _dir,
            ..
        } = self;
        sandbox.shutdown();
        let sandbox = start_in(&_dir, speed);
        let key = sandbox.api_key().to_owned();
        LocalService {
            sandbox,
            http,
            key,
            _dir,
        }
    }

    /// `path` is under the base URL, e.g. `/v1/media`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.sandbox.base_url())
    }

    /// One raw request with `key`; a body that is not JSON comes back as a JSON string.
    pub async fn call_as(
        &self,
        key: &str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self
            .http
            .request(method, self.url(path))
            .header("X-API-Key", key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("request");
        let status = response.status();
        let text = response.text().await.expect("body");
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, value)
    }
}

/// A valid greyscale PNG of `side_px × side_px` zeros: about 1 MB for 16384², 1 GiB as
/// RGBA (a decompression bomb). The zeroed buffer is never written, so its pages stay
/// unmapped.
pub fn png_of_zeros(side_px: u32) -> Vec<u8> {
    use image::ImageEncoder;
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let pixels = vec![0u8; side_px as usize * side_px as usize];
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::NoFilter)
        .write_image(&pixels, side_px, side_px, image::ExtendedColorType::L8)
        .expect("encode png of zeros");
    out
}

/// Uploads `bytes` as the PNG `file_name` to `/v1/media/upload` of the sandbox at
/// `base_url` with `key`; asserts the 201 and returns the answer's `media` object.
pub async fn upload_png(
    http: &reqwest::Client,
    base_url: &str,
    key: &str,
    file_name: &str,
    bytes: Vec<u8>,
) -> Value {
    let part = reqwest::multipart::Part::bytes(bytes)
        .file_name(file_name.to_owned())
        .mime_str("image/png")
        .expect("mime");
    let response = http
        .post(format!("{base_url}/v1/media/upload"))
        .header("X-API-Key", key)
        .multipart(reqwest::multipart::Form::new().part("file", part))
        .send()
        .await
        .expect("upload");
    assert_eq!(response.status(), StatusCode::CREATED);
    let mut body: Value = response.json().await.expect("json");
    body["media"].take()
}

impl LocalService {
    /// [`upload_png`] to this sandbox.
    pub async fn upload_png(&self, key: &str, file_name: &str, bytes: Vec<u8>) -> Value {
        upload_png(&self.http, self.sandbox.base_url(), key, file_name, bytes).await
    }
}

/// The studio's typed client for this sandbox, with `key`.
pub fn client_with_key(service: &LocalService, key: &str) -> ApiClient {
    ApiClient::new(ClientConfig {
        base_url: service.sandbox.base_url().to_owned(),
        api_key: key.to_owned(),
        request_timeout_secs: 20,
    })
    .expect("client")
}

/// The studio's typed client with the sandbox's read/write key.
pub fn client(service: &LocalService) -> ApiClient {
    client_with_key(service, service.sandbox.api_key())
}

/// An image job for Flux Schnell with `prompt`: the spec the engine-level tests submit.
pub fn image_spec(prompt: &str) -> framewright::api::GenerationSpec {
    framewright::api::GenerationSpec {
        catalog: None,
        kind: framewright::api::GenerationKind::Image,
        request: framewright::api::GenerationRequest {
            prompt: prompt.to_owned(),
            model: Some("fal-ai/flux/schnell".to_owned()),
            ..framewright::api::GenerationRequest::default()
        },
        video: None,
        audio: None,
    }
}

/// Queue `image_spec(prompt)` on `engine` as the studio's Create view would.
pub fn submit_image(engine: &framewright::engine::EngineHandle, prompt: &str) {
    engine
        .send(framewright::engine::Command::Submit {
            spec: image_spec(prompt),
            model_label: "Flux Schnell".to_owned(),
            credits_estimate: Some(2.0),
        })
        .expect("queue submit");
}
