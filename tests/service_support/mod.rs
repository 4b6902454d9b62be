//! Shared setup for tests that talk to a sandbox over real HTTP: a local service in a
//! temporary folder, raw JSON calls (for contract-shape tests that must not use the
//! client's own types) and typed `ApiClient`s.

// Each test module uses a different subset of these helpers.
#![allow(dead_code)]

use framewright::api::GenerationSpec;
use framewright::api::{ApiClient, ClientConfig};
use framewright::engine::{self, Command, EngineConfig, EngineHandle, Event, JobPhase, JobRecord};
use framewright::sandbox::{SandboxConfig, SandboxHandle, start};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
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
    /// GETs `url` (a file the sandbox serves), asserting the 200; its bytes.
    pub async fn download(&self, url: &str) -> Vec<u8> {
        let response = self.http.get(url).send().await.expect("download");
        assert_eq!(response.status(), StatusCode::OK, "{url}");
        response.bytes().await.expect("bytes").to_vec()
    }

    /// Uploads `bytes` through `/v1/media/upload` with `key`, waiting out the upload rate
    /// limit on the sandbox's clock; the file's web address.
    pub async fn upload_media(
        &self,
        key: &str,
        bytes: Vec<u8>,
        filename: &str,
        mime: &str,
    ) -> String {
        loop {
            let part = reqwest::multipart::Part::bytes(bytes.clone())
                .file_name(filename.to_owned())
                .mime_str(mime)
                .expect("mime");
            let response = self
                .http
                .post(self.url("/v1/media/upload"))
                .header("X-API-Key", key)
                .multipart(reqwest::multipart::Form::new().part("file", part))
                .send()
                .await
                .expect("upload");
            if response.status() == StatusCode::TOO_MANY_REQUESTS {
                self.sandbox.advance_clock(61.0);
                continue;
            }
            assert_eq!(response.status(), StatusCode::CREATED);
            let body: Value = response.json().await.expect("json");
            return body["media"]["url"].as_str().expect("url").to_owned();
        }
    }

    /// [`upload_png`] to this sandbox.
    pub async fn upload_png(&self, key: &str, file_name: &str, bytes: Vec<u8>) -> Value {
        upload_png(&self.http, self.sandbox.base_url(), key, file_name, bytes).await
    }
}

/// The studio's engine against this sandbox, its journal and cache under `dir`
/// (`service_id` keys the journal's jobs, as a profile does).
pub fn start_engine(service: &LocalService, dir: &Path, service_id: &str) -> EngineHandle {
    engine::start(EngineConfig {
        base_url: service.sandbox.base_url().to_owned(),
        api_key: service.key.clone(),
        journal_path: dir.join("journal.sqlite3"),
        service_id: service_id.to_owned(),
        cache_dir: dir.join("cache"),
        repaint: Arc::new(|| {}),
    })
    .expect("engine starts")
}

/// The first engine event `pick` accepts within `wait`; panics naming `what` otherwise.
pub fn wait_for<T>(
    engine: &mut EngineHandle,
    what: &str,
    wait: Duration,
    mut pick: impl FnMut(&Event) -> Option<T>,
) -> T {
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        if let Some(event) = engine.recv_timeout(Duration::from_millis(200))
            && let Some(found) = pick(&event)
        {
            return found;
        }
    }
    panic!("timed out waiting for {what}");
}

/// Submits `spec` through the engine and waits until the service accepted it (the job runs
/// and has the service's id); its record.
pub fn submit_until_accepted(
    engine: &mut EngineHandle,
    spec: &GenerationSpec,
    wait: Duration,
) -> JobRecord {
    engine
        .send(Command::Submit {
            spec: spec.clone(),
            model_label: "Auto".into(),
            credits_estimate: None,
        })
        .expect("queue submit");
    wait_for(
        engine,
        "the job to be accepted",
        wait,
        |event| match event {
            Event::JobUpdated(record)
                if matches!(record.phase, JobPhase::Running { .. })
                    && record.generation_id.is_some() =>
            {
                Some(record.clone())
            }
            _ => None,
        },
    )
}

/// The jobs a (re)started engine restored from its journal.
pub fn restored_jobs(engine: &mut EngineHandle, wait: Duration) -> Vec<JobRecord> {
    wait_for(engine, "JobsRestored", wait, |event| match event {
        Event::JobsRestored(jobs) => Some(jobs.clone()),
        _ => None,
    })
}

/// `job` once finished (as it is, when it already is).
pub fn until_finished(engine: &mut EngineHandle, job: &JobRecord, wait: Duration) -> JobRecord {
    if job.phase.is_finished() {
        return job.clone();
    }
    let local_id = job.local_id;
    wait_for(engine, "the job to finish", wait, |event| match event {
        Event::JobUpdated(record) if record.local_id == local_id && record.phase.is_finished() => {
            Some(record.clone())
        }
        _ => None,
    })
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
