//! The coding-assistant API client: `{base_url}/api/kolbo/v1` with the profile's key (the
//! service client's `X-API-Key`, never sent anywhere else: uploaded files' URLs are public
//! and the studio fetches them, if at all, with the key-less client).
//!
//! Nothing here retries. A chat completion is billed, so it is sent exactly once; callers
//! decide what to do with an error (the engine never re-sends one on its own).

use super::errors::explain;
use super::stream::{ChatStream, StreamItem, decode_chat_stream};
use super::types::{
    ChatCompletion, ChatRequest, CodeBalance, CodeModel, UploadedFile, WireCompletion, WireModels,
};
use crate::api::client::{classify, decode_body, mime_for_path, send_for_json, streamed_file_part};
use crate::api::{ApiClient, ApiError, TransferCounter};
use futures_util::{StreamExt, TryStreamExt};
use serde::de::DeserializeOwned;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Where the coding-assistant API lives under the service's `/api` base.
pub const CODE_ASSISTANT_PATH: &str = "/kolbo/v1";
/// A synchronous completion may take a while (the whole answer is written first).
const SYNC_COMPLETION_TIMEOUT_SECS: u64 = 300;
/// Piece size when an in-memory upload (a pasted image) is sent, so progress moves.
const MEMORY_UPLOAD_CHUNK_BYTES: usize = 64 * 1024;

/// Cheap to clone (shares the service client's connection pool).
#[derive(Clone)]
pub struct CodeAssistantClient {
    http: reqwest::Client,
    /// `{base_url}/api/kolbo/v1`, no trailing slash.
    base_url: String,
    request_timeout: Duration,
}

impl std::fmt::Debug for CodeAssistantClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeAssistantClient")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl ApiClient {
    /// The coding-assistant API of the same service, with the same key.
    pub fn code_assistant(&self) -> CodeAssistantClient {
        CodeAssistantClient {
            http: self.service.clone(),
            base_url: format!("{}{CODE_ASSISTANT_PATH}", self.base_url()),
            request_timeout: self.request_timeout(),
        }
    }
}

impl CodeAssistantClient {
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// GET /models (no key needed; sending it does no harm).
    pub async fn models(&self) -> Result<Vec<CodeModel>, ApiError> {
        let request = self.http.get(self.url("/models"));
        let wire: WireModels = self.json(request, Some(self.request_timeout)).await?;
        Ok(wire.into_models())
    }

    /// GET /balance.
    pub async fn balance(&self) -> Result<CodeBalance, ApiError> {
        let request = self.http.get(self.url("/balance"));
        self.json(request, Some(self.request_timeout)).await
    }

    /// POST /files with the file streamed from disk, counting bytes into `counter`.
    pub async fn upload_file(
        &self,
        path: &Path,
        counter: Option<Arc<TransferCounter>>,
    ) -> Result<UploadedFile, ApiError> {
        let part = streamed_file_part(path, counter).await?;
        self.upload_part(part).await
    }

    /// POST /files with bytes already in memory (a pasted image), counting bytes into
    /// `counter` as pieces go out. `file_name`'s extension gives the MIME type.
    pub async fn upload_bytes(
        &self,
        file_name: &str,
        bytes: Vec<u8>,
        counter: Option<Arc<TransferCounter>>,
    ) -> Result<UploadedFile, ApiError> {
        let length_bytes = bytes.len() as u64;
        if let Some(counter) = &counter {
            counter.bytes_total.store(length_bytes, Ordering::Relaxed);
            counter.bytes_done.store(0, Ordering::Relaxed);
        }
        let pieces: Vec<Vec<u8>> = bytes
            .chunks(MEMORY_UPLOAD_CHUNK_BYTES)
            .map(<[u8]>::to_vec)
            .collect();
        let stream = futures_util::stream::iter(pieces).map(move |piece| {
            if let Some(counter) = &counter {
                counter
                    .bytes_done
                    .fetch_add(piece.len() as u64, Ordering::Relaxed);
            }
            Ok::<Vec<u8>, std::io::Error>(piece)
        });
        let part = reqwest::multipart::Part::stream_with_length(
            reqwest::Body::wrap_stream(stream),
            length_bytes,
        )
        .file_name(file_name.to_owned())
        .mime_str(mime_for_path(Path::new(file_name)))
        .map_err(|e| ApiError::Io(format!("bad MIME type: {e}")))?;
        self.upload_part(part).await
    }

    async fn upload_part(&self, part: reqwest::multipart::Part) -> Result<UploadedFile, ApiError> {
        let form = reqwest::multipart::Form::new().part("file", part);
        // No whole-request timeout: a large file takes long; the read timeout still applies.
        let request = self.http.post(self.url("/files")).multipart(form);
        let file: UploadedFile = self.json(request, None).await?;
        if file.id.trim().is_empty() || file.url.trim().is_empty() {
            return Err(ApiError::Decode(
                "the upload answer carried no file id or URL".into(),
            ));
        }
        Ok(file)
    }

    /// POST /chat/completions, synchronous. Sent once.
    pub async fn complete(&self, request: &ChatRequest) -> Result<ChatCompletion, ApiError> {
        let http = self
            .http
            .post(self.url("/chat/completions"))
            .json(&request.body(false));
        let wire: WireCompletion = self
            .json(
                http,
                Some(Duration::from_secs(SYNC_COMPLETION_TIMEOUT_SECS)),
            )
            .await?;
        Ok(wire.into())
    }

    /// POST /chat/completions with `stream: true`. Sent once. Answers once the service
    /// accepted the request (a refusal is the error); the answer's text then arrives on
    /// the returned stream. Dropping the stream closes the connection, and the service
    /// bills only what it had sent.
    pub async fn stream(&self, request: &ChatRequest) -> Result<ChatStream, ApiError> {
        // No whole-request timeout: it would cut long answers; a stalled stream still
        // fails after the client's read timeout.
        let response = self
            .http
            .post(self.url("/chat/completions"))
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .json(&request.body(true))
            .send()
            .await
            .map_err(classify)?;
        let status = response.status().as_u16();
        if !response.status().is_success() {
            let headers = response.headers().clone();
            let body = response.bytes().await.map_err(classify)?;
            return Err(error_from(status, &headers, &body));
        }
        let is_event_stream = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim().starts_with("text/event-stream"));
        if !is_event_stream {
            // A service that ignored `stream` and answered in one piece: still an answer.
            let headers = response.headers().clone();
            let body = response.bytes().await.map_err(classify)?;
            if let Some(error) = ApiError::from_response(status, &headers, &body) {
                return Err(explain(error));
            }
            let completion: ChatCompletion = decode_body::<WireCompletion>(&body)?.into();
            let items = vec![
                Ok(StreamItem::Text(completion.text)),
                Ok(StreamItem::Finished {
                    usage: completion.usage,
                    finish_reason: completion.finish_reason,
                }),
            ];
            return Ok(futures_util::stream::iter(items).boxed());
        }
        Ok(decode_chat_stream(
            response.bytes_stream().map_err(classify),
        ))
    }

    /// Send, then decode a JSON answer; a refusal (the `{error:{type,message}}` envelope)
    /// in words a person can act on.
    async fn json<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
        timeout: Option<Duration>,
    ) -> Result<T, ApiError> {
        send_for_json(request, timeout).await.map_err(explain)
    }
}

fn error_from(status: u16, headers: &reqwest::header::HeaderMap, body: &[u8]) -> ApiError {
    let error = ApiError::from_response(status, headers, body).unwrap_or(ApiError::Status {
        status,
        message: String::new(),
        code: None,
        retry_after_secs: None,
    });
    tracing::debug!(status, code = error.code(), "coding assistant refused");
    explain(error)
}
