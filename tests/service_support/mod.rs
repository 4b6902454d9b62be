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
