//! The HTTP client for the service. Two reqwest clients: one for `{base_url}` routes that
//! carries the API key (as a sensitive `X-API-Key` header and nothing else), and one for
//! output URLs that never sees the key. Every answer goes through
//! [`ApiError::from_response`]; reqwest failures are classified as "not sent" (`Connect`)
//! or "sent, answer lost" (`NoResponse`). Nothing here retries a submit.

use super::audio::{Voice, VoiceFilter};
use super::error::{ApiError, RateLimitInfo};
use super::types::{
    Credits, CreditsResponse, GenerationKind, GenerationSpec, ModelRecord, ModelsResponse, Project,
    ProjectResponse, ProjectsResponse, StatusResponse, SubmitResponse, UploadResponse,
    UploadedMedia,
};
use super::video_edit::TrimJob;
use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderValue};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Header that carries the key (contract, Authentication).
pub const API_KEY_HEADER: &str = "X-API-Key";
/// Connecting must not take longer than this.
const CONNECT_TIMEOUT_SECS: u64 = 10;
/// Transfers (uploads, downloads) fail when no byte moves for this long.
const TRANSFER_READ_TIMEOUT_SECS: u64 = 60;
/// Largest output `fetch_output` keeps in memory.
pub const MAX_FETCH_BYTES: u64 = 256 * 1024 * 1024;
/// Chunk size when streaming a file from disk. Each tokio file read is a hop to the
/// blocking pool, so bigger chunks mean fewer hops (1 MiB: at most a few MiB in flight).
const UPLOAD_CHUNK_BYTES: usize = 1024 * 1024;

/// Byte counts of one upload or download, shared with whoever reports progress.
#[derive(Debug, Default)]
pub struct TransferCounter {
    pub bytes_done: AtomicU64,
    /// 0 while unknown (a download without Content-Length).
    pub bytes_total: AtomicU64,
}

/// Where and how to reach the service.
#[derive(Clone)]
pub struct ClientConfig {
    /// Ends with `/api`; routes are appended as `/v1/...`.
    pub base_url: String,
    pub api_key: String,
    /// Whole-request timeout for JSON routes.
    pub request_timeout_secs: u64,
}

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("base_url", &self.base_url)
            .field(
                "api_key",
                &if self.api_key.is_empty() {
                    "<empty>"
                } else {
                    "<redacted>"
                },
            )
            .field("request_timeout_secs", &self.request_timeout_secs)
            .finish()
    }
}

/// Cheap to clone (the reqwest clients share their pools).
#[derive(Clone)]
pub struct ApiClient {
    /// For `{base_url}` routes; carries the key.
    pub(super) service: reqwest::Client,
    /// For output URLs; never carries the key.
    pub(super) public: reqwest::Client,
    base_url: String,
    request_timeout: Duration,
}

impl std::fmt::Debug for ApiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiClient")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl ApiClient {
    pub fn new(config: ClientConfig) -> Result<Self, ApiError> {
        let mut key = HeaderValue::from_str(config.api_key.trim()).map_err(|_| {
            ApiError::Connect("the API key contains characters a header cannot carry".into())
        })?;
        key.set_sensitive(true);
        let mut headers = HeaderMap::new();
        headers.insert(API_KEY_HEADER, key);

        let base_url = config.base_url.trim().trim_end_matches('/').to_owned();
        let service_origin = reqwest::Url::parse(&base_url)
            .ok()
            .map(|u| (u.host_str().map(str::to_owned), u.port_or_known_default()));
        // A redirect may only stay on the service's host: the key header must never follow
        // a redirect to another origin.
        let redirect = reqwest::redirect::Policy::custom(move |attempt| {
            let target = (
                attempt.url().host_str().map(str::to_owned),
                attempt.url().port_or_known_default(),
            );
            if attempt.previous().len() >= 5 || service_origin.as_ref() != Some(&target) {
                attempt.stop()
            } else {
                attempt.follow()
            }
        });
        let user_agent = concat!("framewright/", env!("CARGO_PKG_VERSION"));
        let service = reqwest::Client::builder()
            .default_headers(headers)
            .redirect(redirect)
            .user_agent(user_agent)
            .connect_timeout(Duration::from_secs(CONNECT_TIMEOUT_SECS))
            .read_timeout(Duration::from_secs(TRANSFER_READ_TIMEOUT_SECS))
            .build()
            .map_err(|e| ApiError::Connect(format!("HTTP client setup failed: {e}")))?;
        let public = reqwest::Client::builder()
            .user_agent(user_agent)
            .connect_timeout(Duration::from_secs(CONNECT_TIMEOUT_SECS))
            .read_timeout(Duration::from_secs(TRANSFER_READ_TIMEOUT_SECS))
            .build()
            .map_err(|e| ApiError::Connect(format!("HTTP client setup failed: {e}")))?;
        Ok(ApiClient {
            service,
            public,
            base_url,
            request_timeout: Duration::from_secs(config.request_timeout_secs.max(1)),
        })
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Whole-request timeout of JSON routes.
    pub(super) fn request_timeout(&self) -> Duration {
        self.request_timeout
    }

    pub(super) fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    // ---------------------------------------------------------------------------------
    // Catalog, account, projects
    // ---------------------------------------------------------------------------------

    /// GET /v1/models, optionally filtered by a catalog type or alias.
    pub async fn list_models(
        &self,
        type_filter: Option<&str>,
    ) -> Result<Vec<ModelRecord>, ApiError> {
        let mut request = self.service.get(self.url("/v1/models"));
        if let Some(filter) = type_filter.map(str::trim).filter(|f| !f.is_empty()) {
            request = request.query(&[("type", filter)]);
        }
        let mut response: ModelsResponse = self.json(request).await?;
        for record in &mut response.models {
            record.avatar_url = record
                .avatar
                .as_deref()
                .and_then(|avatar| super::avatars::avatar_url(&self.base_url, avatar));
        }
        Ok(response.models)
    }

    /// GET /v1/account/credits.
    pub async fn credits(&self) -> Result<Credits, ApiError> {
        self.credits_dated().await.map(|(credits, _)| credits)
    }

    /// GET /v1/account/credits, with the service's clock at the answer (its `Date`
    /// header, whole seconds) when it sends one: reconcile compares it with when the
    /// service says jobs finished, which our own clock cannot do.
    pub async fn credits_dated(&self) -> Result<(Credits, Option<i64>), ApiError> {
        let request = self
            .service
            .get(self.url("/v1/account/credits"))
            .timeout(self.request_timeout);
        let (result, headers) = self.json_and_headers::<CreditsResponse>(request).await;
        let service_time_unix_ms = headers.as_ref().and_then(|headers| {
            let value = headers.get(reqwest::header::DATE)?.to_str().ok()?;
            chrono::DateTime::parse_from_rfc2822(value.trim())
                .ok()
                .map(|t| t.timestamp_millis())
        });
        result.map(|response| (response.credits, service_time_unix_ms))
    }

    /// GET /v1/projects, archived ones included (each carries `archived`; the studio
    /// hides them from pickers unless asked).
    pub async fn projects(&self) -> Result<Vec<Project>, ApiError> {
        let request = self
            .service
            .get(self.url("/v1/projects"))
            .query(&[("include_archived", "true")]);
        let response: ProjectsResponse = self.json(request).await?;
        Ok(response.projects)
    }

    /// GET /v1/voices with the filter's query parameters (the route has no limiter).
    pub async fn voices(&self, filter: &VoiceFilter) -> Result<Vec<Voice>, ApiError> {
        let request = self
            .service
            .get(self.url("/v1/voices"))
            .query(&filter.query())
            .timeout(self.request_timeout);
        let response: super::audio::VoicesResponse = self.json(request).await?;
        Ok(response
            .voices
            .into_iter()
            .filter(|voice| !voice.voice_id.trim().is_empty())
            .collect())
    }

    /// POST /v1/projects `{name}`.
    pub async fn create_project(&self, name: &str) -> Result<Project, ApiError> {
        let request = self
            .service
            .post(self.url("/v1/projects"))
            .json(&serde_json::json!({ "name": name }));
        let response: ProjectResponse = self.json(request).await?;
        response.project.ok_or_else(|| {
            ApiError::Decode("the new project's id was missing from the answer".into())
        })
    }

    // ---------------------------------------------------------------------------------
    // Generations
    // ---------------------------------------------------------------------------------

    /// POST the spec to its endpoint. Sent exactly once: never retried here. Any 2xx is a
    /// success provided it carries a job handle.
    pub async fn submit(&self, spec: &GenerationSpec) -> Result<SubmitResponse, ApiError> {
        self.submit_observed(spec).await.result
    }

    /// [`Self::submit`], also handing out what the answer's `RateLimit-*` headers said (on
    /// success and on error alike) so the submit queue can learn the service's window.
    ///
    /// Video-sourced kinds send their `spec.video` body; a spec whose body does not match
    /// its kind is refused here, before anything is sent.
    pub async fn submit_observed(&self, spec: &GenerationSpec) -> Submitted {
        let body = match submit_body(spec) {
            Ok(body) => body,
            Err(error) => {
                return Submitted {
                    result: Err(error),
                    rate_limit: None,
                };
            }
        };
        let request = self
            .service
            .post(self.url(spec.kind.submit_path()))
            .json(&body)
            .timeout(self.request_timeout);
        let (result, headers) = self.submit_and_headers(request).await;
        let rate_limit = headers.as_ref().and_then(RateLimitInfo::from_headers);
        let result = result.and_then(|response| {
            // A chat may answer the older synchronous way: the content, no handle.
            let finished_chat = spec.kind == GenerationKind::Chat && response.is_finished_answer();
            if !finished_chat
                && response
                    .generation_id
                    .as_deref()
                    .is_none_or(|id| id.trim().is_empty())
            {
                Err(ApiError::MissingJobHandle)
            } else {
                Ok(response)
            }
        });
        Submitted { result, rate_limit }
    }

    /// GET /v1/generate/:id/status.
    pub async fn status(&self, generation_id: &str) -> Result<StatusResponse, ApiError> {
        let url = self.url(&format!(
            "/v1/generate/{}/status",
            encode_segment(generation_id)
        ));
        self.json(self.service.get(url)).await
    }

    /// GET /v1/generate/creative-director/:id/status: the preferred poll path for a
    /// Creative Director batch (the generic route delegates to it).
    pub async fn creative_director_status(
        &self,
        batch_id: &str,
    ) -> Result<StatusResponse, ApiError> {
        let url = self.url(&format!(
            "/v1/generate/creative-director/{}/status",
            encode_segment(batch_id)
        ));
        self.json(self.service.get(url)).await
    }

    /// GET /v1/video/trim/:jobId (the job id is passed verbatim, `trim_…`). A failed trim
    /// is a 200 with `status: failed`; an unknown or expired id is a 404.
    pub async fn trim_status(&self, job_id: &str) -> Result<TrimJob, ApiError> {
        let url = self.url(&format!("/v1/video/trim/{}", encode_segment(job_id)));
        self.json(self.service.get(url)).await
    }

    /// The status of a job of `kind` on its preferred route (a trim's job read as a
    /// status: see [`TrimJob::into_status`]).
    pub async fn status_of(
        &self,
        kind: GenerationKind,
        generation_id: &str,
    ) -> Result<StatusResponse, ApiError> {
        match kind {
            GenerationKind::CreativeDirector => self.creative_director_status(generation_id).await,
            GenerationKind::VideoTrim => self
                .trim_status(generation_id)
                .await
                .map(TrimJob::into_status),
            _ => self.status(generation_id).await,
        }
    }

    /// POST /v1/generate/:id/cancel. 409 `CANNOT_CANCEL` comes back as an error. A trim
    /// has no cancel route: for `VideoTrim` nothing is sent and the answer is
    /// `ApiError::Invalid` ([`TRIM_CANNOT_BE_CANCELLED`]).
    pub async fn cancel(&self, kind: GenerationKind, generation_id: &str) -> Result<(), ApiError> {
        if !kind.can_cancel() {
            return Err(ApiError::Invalid(TRIM_CANNOT_BE_CANCELLED.to_owned()));
        }
        let url = self.url(&format!(
            "/v1/generate/{}/cancel",
            encode_segment(generation_id)
        ));
        let _: serde_json::Value = self.json(self.service.post(url)).await?;
        Ok(())
    }

    // ---------------------------------------------------------------------------------
    // Uploads and outputs
    // ---------------------------------------------------------------------------------

    /// POST /v1/media/upload: multipart field `file`, streamed from disk, MIME type from
    /// the file extension.
    pub async fn upload_file(
        &self,
        path: &Path,
        project_id: Option<&str>,
    ) -> Result<UploadedMedia, ApiError> {
        self.upload_file_tracked(path, project_id, None).await
    }

    /// Like [`Self::upload_file`], counting the bytes read from disk into `counter` (set
    /// `bytes_total` first, then `bytes_done` grows as chunks go out). The file is never
    /// held in memory: at most a few chunks are in flight.
    pub async fn upload_file_tracked(
        &self,
        path: &Path,
        project_id: Option<&str>,
        counter: Option<Arc<TransferCounter>>,
    ) -> Result<UploadedMedia, ApiError> {
        let part = streamed_file_part(path, counter).await?;
        let mut form = reqwest::multipart::Form::new().part("file", part);
        if let Some(project_id) = project_id.filter(|p| !p.trim().is_empty()) {
            form = form.text("project_id", project_id.to_owned());
        }
        // No whole-request timeout: large files take long; the read timeout still applies.
        let request = self
            .service
            .post(self.url("/v1/media/upload"))
            .multipart(form);
        let response: UploadResponse = self.json_with_timeout(request, None).await?;
        response
            .media
            .ok_or_else(|| ApiError::Decode("the upload answer carried no media url".into()))
    }

    /// GET an output URL verbatim, without the API key. Kept in memory (capped).
    pub async fn fetch_output(&self, url: &str) -> Result<Vec<u8>, ApiError> {
        let response = self.public.get(url).send().await.map_err(classify)?;
        let response = check_status(response).await?;
        if response
            .content_length()
            .is_some_and(|n| n > MAX_FETCH_BYTES)
        {
            return Err(ApiError::Io(format!(
                "the file is larger than {} MB",
                MAX_FETCH_BYTES / (1024 * 1024)
            )));
        }
        let mut out = Vec::new();
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(classify)?;
            if out.len() as u64 + chunk.len() as u64 > MAX_FETCH_BYTES {
                return Err(ApiError::Io(format!(
                    "the file is larger than {} MB",
                    MAX_FETCH_BYTES / (1024 * 1024)
                )));
            }
            out.extend_from_slice(&chunk);
        }
        Ok(out)
    }

    /// Stream an output URL (without the key) into a temp file beside `dest`, then rename.
    pub async fn download_output_to(&self, url: &str, dest: &Path) -> Result<(), ApiError> {
        self.download_output_typed(url, dest).await.map(|_| ())
    }

    /// Like [`Self::download_output_to`], also returning the response's Content-Type.
    pub async fn download_output_typed(
        &self,
        url: &str,
        dest: &Path,
    ) -> Result<Option<String>, ApiError> {
        self.download_output_tracked(url, dest, None).await
    }

    /// Stream an output URL (without the key) into a temp file beside `dest`, counting
    /// bytes into `counter` (`bytes_total` is the Content-Length, 0 when unknown), then
    /// rename. Dropping the future (cancel) removes the temp file; `dest` is only ever a
    /// complete file.
    pub async fn download_output_tracked(
        &self,
        url: &str,
        dest: &Path,
        counter: Option<Arc<TransferCounter>>,
    ) -> Result<Option<String>, ApiError> {
        let response = self.public.get(url).send().await.map_err(classify)?;
        let response = check_status(response).await?;
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|s| s.split(';').next().unwrap_or(s).trim().to_owned());
        if let Some(counter) = &counter {
            counter
                .bytes_total
                .store(response.content_length().unwrap_or(0), Ordering::Relaxed);
        }
        let temp = TempFile::beside(dest);
        let mut file = tokio::fs::File::create(temp.path())
            .await
            .map_err(|e| ApiError::Io(format!("cannot create {}: {e}", temp.path().display())))?;
        let write_error = |e: std::io::Error| {
            ApiError::Io(format!("cannot write {}: {e}", temp.path().display()))
        };
        let mut stream = response.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(classify)?;
            file.write_all(&chunk).await.map_err(write_error)?;
            if let Some(counter) = &counter {
                counter
                    .bytes_done
                    .fetch_add(chunk.len() as u64, Ordering::Relaxed);
            }
        }
        file.flush().await.map_err(write_error)?;
        file.sync_all().await.map_err(write_error)?;
        drop(file);
        tokio::fs::rename(temp.path(), dest).await.map_err(|e| {
            ApiError::Io(format!(
                "cannot move the download to {}: {e}",
                dest.display()
            ))
        })?;
        temp.disarm();
        Ok(content_type)
    }

    // ---------------------------------------------------------------------------------
    // Plumbing
    // ---------------------------------------------------------------------------------

    /// Send `request` and decode its answer, returning the response headers whenever an
    /// answer arrived (also with an error status).
    async fn json_and_headers<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
    ) -> (Result<T, ApiError>, Option<HeaderMap>) {
        match read_answer(request).await {
            Ok((status, headers, body)) => (checked_body(status, &headers, &body), Some(headers)),
            Err((error, headers)) => (Err(error), headers),
        }
    }

    /// [`Self::json_and_headers`] for a submit, where a 409 `DUPLICATE_REQUEST` naming the
    /// job a same request already started (/edit/image) reads as that job accepted.
    async fn submit_and_headers(
        &self,
        request: reqwest::RequestBuilder,
    ) -> (Result<SubmitResponse, ApiError>, Option<HeaderMap>) {
        let (status, headers, body) = match read_answer(request).await {
            Ok(answer) => answer,
            Err((error, headers)) => return (Err(error), headers),
        };
        if let Some(existing) = super::image_tools::duplicate_of(status, &body) {
            tracing::info!("submit was a duplicate; following the job already started");
            let answer = SubmitResponse {
                success: Some(true),
                generation_id: Some(existing),
                existing_job: true,
                ..SubmitResponse::default()
            };
            return (Ok(answer), Some(headers));
        }
        (checked_body(status, &headers, &body), Some(headers))
    }

    pub(super) async fn json<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<T, ApiError> {
        self.json_with_timeout(request, Some(self.request_timeout))
            .await
    }

    async fn json_with_timeout<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
        timeout: Option<Duration>,
    ) -> Result<T, ApiError> {
        send_for_json(request, timeout).await
    }
}

/// A multipart `file` part streamed from disk (never whole in memory), MIME type from the
/// extension, counting the bytes read into `counter` (`bytes_total` set first, then
/// `bytes_done` grows as chunks go out).
pub(crate) async fn streamed_file_part(
    path: &Path,
    counter: Option<Arc<TransferCounter>>,
) -> Result<reqwest::multipart::Part, ApiError> {
    let file = tokio::fs::File::open(path)
        .await
        .map_err(|e| ApiError::Io(format!("cannot open {}: {e}", path.display())))?;
    let length_bytes = file
        .metadata()
        .await
        .map_err(|e| ApiError::Io(format!("cannot read {}: {e}", path.display())))?
        .len();
    if let Some(counter) = &counter {
        counter.bytes_total.store(length_bytes, Ordering::Relaxed);
        counter.bytes_done.store(0, Ordering::Relaxed);
    }
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "upload".to_owned());
    let stream = futures_util::stream::unfold((file, counter), |(mut file, counter)| async move {
        // Capacity only: `read_buf` fills it without zeroing it first.
        let mut buffer = Vec::with_capacity(UPLOAD_CHUNK_BYTES);
        match file.read_buf(&mut buffer).await {
            Ok(0) => None,
            Ok(n) => {
                if let Some(counter) = &counter {
                    counter.bytes_done.fetch_add(n as u64, Ordering::Relaxed);
                }
                Some((Ok::<Vec<u8>, std::io::Error>(buffer), (file, counter)))
            }
            Err(e) => Some((Err(e), (file, counter))),
        }
    });
    let part = reqwest::multipart::Part::stream_with_length(
        reqwest::Body::wrap_stream(stream),
        length_bytes,
    )
    .file_name(file_name)
    .mime_str(mime_for_path(path))
    .map_err(|e| ApiError::Io(format!("bad MIME type: {e}")))?;
    Ok(part)
}

/// Why a trim's Cancel is refused without sending anything.
pub const TRIM_CANNOT_BE_CANCELLED: &str = "A trim cannot be cancelled: the service has no cancel for trims; it runs until it \
completes or fails (trims are free).";

/// The JSON body of a submit: the `GenerationRequest` for generations, the `video` body for
/// video-sourced kinds. A kind and body that do not match are refused (nothing is sent).
pub fn submit_body(spec: &GenerationSpec) -> Result<serde_json::Value, ApiError> {
    let encode =
        |e: serde_json::Error| ApiError::Invalid(format!("the request could not be encoded: {e}"));
    if spec.kind == GenerationKind::Chat {
        return super::creative_chat::chat_body(spec);
    }
    if GenerationKind::CATALOG.contains(&spec.kind) || spec.catalog.is_some() {
        return match &spec.catalog {
            Some(job) if job.kind() == spec.kind => job.body().map_err(encode),
            Some(job) => Err(ApiError::Invalid(format!(
                "not sent: a {} request cannot be sent as {}",
                job.kind().label(),
                spec.kind.label()
            ))),
            None => Err(ApiError::Invalid(format!(
                "not sent: the {} request has no details",
                spec.kind.label()
            ))),
        };
    }
    if spec.kind.outputs_audio()
        || spec.kind == GenerationKind::Transcription
        || spec.audio.is_some()
    {
        return match &spec.audio {
            Some(audio) if audio.kind() == spec.kind => audio.body().map_err(encode),
            Some(audio) => Err(ApiError::Invalid(format!(
                "not sent: a {} request cannot be sent as {}",
                audio.kind().label(),
                spec.kind.label()
            ))),
            None => Err(ApiError::Invalid(format!(
                "not sent: the {} request has no details",
                spec.kind.label()
            ))),
        };
    }
    match (
        &spec.video,
        GenerationKind::VIDEO_SOURCED.contains(&spec.kind),
    ) {
        (None, false) => serde_json::to_value(&spec.request).map_err(encode),
        (Some(video), true) if video.kind() == spec.kind => video.body().map_err(encode),
        (Some(video), _) => Err(ApiError::Invalid(format!(
            "not sent: a {} request cannot be sent as {}",
            video.kind().label(),
            spec.kind.label()
        ))),
        (None, true) => Err(ApiError::Invalid(format!(
            "not sent: the {} request has no source video details",
            spec.kind.label()
        ))),
    }
}

/// A submit's outcome and the rate-limit headers of its answer, if one arrived.
#[derive(Clone, Debug, PartialEq)]
pub struct Submitted {
    pub result: Result<SubmitResponse, ApiError>,
    pub rate_limit: Option<RateLimitInfo>,
}

/// Decode a 2xx body; an empty body reads as `{}`.
pub(super) fn decode_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        body
    };
    serde_json::from_slice(body).map_err(|e| ApiError::Decode(e.to_string()))
}

/// A non-2xx answer on an output URL becomes a `Status` error.
async fn check_status(response: reqwest::Response) -> Result<reqwest::Response, ApiError> {
    if response.status().is_success() {
        return Ok(response);
    }
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.bytes().await.unwrap_or_default();
    Err(
        ApiError::from_response(status, &headers, &body).unwrap_or(ApiError::Status {
            status,
            message: String::new(),
            code: None,
            retry_after_secs: None,
        }),
    )
}

/// `is_connect()` or a request that could not be built: not sent. Anything else after
/// sending (timeout, reset, truncated body): the answer was lost.
pub fn classify(error: reqwest::Error) -> ApiError {
    let (not_sent, decode) = (error.is_connect() || error.is_builder(), error.is_decode());
    // Output URLs are opaque; keep them out of messages and logs.
    let text = error_chain(&error.without_url());
    if not_sent {
        ApiError::Connect(text)
    } else if decode {
        ApiError::Decode(text)
    } else {
        ApiError::NoResponse(text)
    }
}

/// The error and its sources on one line.
fn error_chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        let part = inner.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = inner.source();
    }
    text
}

/// Percent-encode one path segment (ids are passed verbatim but must stay one segment).
pub fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// MIME type from the file extension (unknown -> application/octet-stream).
pub fn mime_for_path(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "gif" => "image/gif",
        "bmp" => "image/bmp",
        "tif" | "tiff" => "image/tiff",
        "avif" => "image/avif",
        "heic" => "image/heic",
        "svg" => "image/svg+xml",
        "mp4" | "m4v" => "video/mp4",
        "mov" => "video/quicktime",
        "webm" => "video/webm",
        "mkv" => "video/x-matroska",
        "avi" => "video/x-msvideo",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" => "audio/ogg",
        "flac" => "audio/flac",
        "m4a" => "audio/mp4",
        "aac" => "audio/aac",
        "glb" => "model/gltf-binary",
        "gltf" => "model/gltf+json",
        "pdf" => "application/pdf",
        "txt" => "text/plain",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

/// A temp file that is removed when dropped unless disarmed (a cancelled or failed
/// download leaves nothing behind).
struct TempFile {
    path: PathBuf,
    armed: bool,
}

impl TempFile {
    fn beside(dest: &Path) -> Self {
        TempFile {
            path: temp_path_beside(dest),
            armed: true,
        }
    }
    fn path(&self) -> &Path {
        &self.path
    }
    fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.armed {
            // Blocking remove of one small directory entry; fine even inside async code.
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// `.<name>.<random>.part` in the destination's folder, so the final rename is atomic.
fn temp_path_beside(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "download".to_owned());
    let temp_name = format!(".{name}.{}.part", uuid::Uuid::new_v4().simple());
    match dest.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.join(temp_name),
        _ => PathBuf::from(temp_name),
    }
}

/// Send `request` (with `timeout`, if any), then decode a JSON answer; an error status is
/// read into an `ApiError` (every envelope `ApiError::from_response` knows). Shared by the
/// service client and the coding-assistant client.
pub(crate) async fn send_for_json<T: DeserializeOwned>(
    request: reqwest::RequestBuilder,
    timeout: Option<Duration>,
) -> Result<T, ApiError> {
    let request = match timeout {
        Some(timeout) => request.timeout(timeout),
        None => request,
    };
    let response = request.send().await.map_err(classify)?;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.bytes().await.map_err(classify)?;
    if let Some(error) = ApiError::from_response(status, &headers, &body) {
        tracing::debug!(
            status,
            code = error.code(),
            "service answered with an error"
        );
        return Err(error);
    }
    decode_body(&body)
}

/// Sends `request` and reads the whole answer: status, headers and body. A failure after
/// the headers arrived still returns them (wait hints live there).
async fn read_answer(
    request: reqwest::RequestBuilder,
) -> Result<(u16, HeaderMap, Vec<u8>), (ApiError, Option<HeaderMap>)> {
    let response = request.send().await.map_err(|e| (classify(e), None))?;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    match response.bytes().await {
        // JSON answers are small; owning them keeps this signature free of `bytes`.
        Ok(body) => Ok((status, headers, body.to_vec())),
        Err(e) => Err((classify(e), Some(headers))),
    }
}

/// The service's error for an error answer, else the decoded body.
fn checked_body<T: DeserializeOwned>(
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<T, ApiError> {
    if let Some(error) = ApiError::from_response(status, headers, body) {
        tracing::debug!(
            status,
            code = error.code(),
            "service answered with an error"
        );
        return Err(error);
    }
    decode_body(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_redacts_the_key() {
        let config = ClientConfig {
            base_url: "http://127.0.0.1:1/api".into(),
            api_key: "kolbo_live_secret".into(),
            request_timeout_secs: 5,
        };
        let text = format!("{config:?}");
        assert!(!text.contains("secret"), "{text}");
        let client = ApiClient::new(config).expect("client");
        assert!(!format!("{client:?}").contains("secret"));
    }

    #[test]
    fn submit_body_follows_the_kind() {
        use crate::api::{GenerationRequest, TrimRequest, VideoJobRequest};
        let trim = GenerationSpec::for_video(VideoJobRequest::Trim(TrimRequest {
            video_url: "https://cdn.example/a.mp4".into(),
            start_time: 0.0,
            end_time: 1.0,
            project_id: None,
        }));
        let body = submit_body(&trim).expect("trim body");
        assert_eq!(body["end_time"], 1.0);
        assert!(body.get("prompt").is_none());
        // A video kind without its body, or a body under another kind, is never sent.
        let mut bare = trim.clone();
        bare.video = None;
        assert!(matches!(submit_body(&bare), Err(ApiError::Invalid(_))));
        let mut wrong = trim;
        wrong.kind = GenerationKind::VideoEdit;
        assert!(matches!(submit_body(&wrong), Err(ApiError::Invalid(_))));
        let image = GenerationSpec::new(
            GenerationKind::Image,
            GenerationRequest {
                prompt: "a cat".into(),
                ..GenerationRequest::default()
            },
        );
        assert_eq!(submit_body(&image).expect("image body")["prompt"], "a cat");
    }

    #[tokio::test]
    async fn a_trim_cancel_is_refused_without_sending() {
        // Nothing listens on this port: a request would fail with Connect, not Invalid.
        let client = ApiClient::new(ClientConfig {
            base_url: "http://127.0.0.1:9/api".into(),
            api_key: "k".into(),
            request_timeout_secs: 5,
        })
        .expect("client");
        let error = client
            .cancel(GenerationKind::VideoTrim, "trim_1")
            .await
            .expect_err("refused");
        assert_eq!(
            error,
            ApiError::Invalid(TRIM_CANNOT_BE_CANCELLED.to_owned())
        );
    }

    #[test]
    fn segments_and_mime() {
        assert_eq!(encode_segment("abc-123"), "abc-123");
        assert_eq!(encode_segment("a/b c"), "a%2Fb%20c");
        assert_eq!(mime_for_path(Path::new("x/y.PNG")), "image/png");
        assert_eq!(mime_for_path(Path::new("clip.mov")), "video/quicktime");
        assert_eq!(
            mime_for_path(Path::new("noext")),
            "application/octet-stream"
        );
    }

    #[test]
    fn temp_file_is_beside_the_destination() {
        let temp = temp_path_beside(Path::new("/tmp/out/image.png"));
        assert_eq!(temp.parent(), Some(Path::new("/tmp/out")));
        assert!(
            temp.file_name()
                .unwrap()
                .to_string_lossy()
                .ends_with(".part")
        );
    }

    #[tokio::test]
    async fn refused_connection_is_connect_error() {
        // Port 9 on loopback is almost never listening.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        drop(listener);
        let client = ApiClient::new(ClientConfig {
            base_url: format!("http://127.0.0.1:{port}/api"),
            api_key: "k".into(),
            request_timeout_secs: 5,
        })
        .expect("client");
        let error = client.credits().await.expect_err("nothing listens");
        assert!(matches!(error, ApiError::Connect(_)), "{error:?}");
    }
}
