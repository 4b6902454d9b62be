//! Outermost layers of the whole server: one line per request (method, path, status,
//! milliseconds; never headers, keys or query strings) at the configured level
//! ([`RequestLogLevel`]) and a panic guard that turns a handler panic into a shape-2 500
//! instead of a dropped connection.

use std::panic::AssertUnwindSafe;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::FutureExt;

use super::config::RequestLogLevel;
use super::http_error::ApiError;

pub(crate) async fn log_request(
    State(level): State<RequestLogLevel>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = loggable_path(request.uri().path());
    let response = next.run(request).await;
    let status = response.status().as_u16();
    let ms = started.elapsed().as_millis() as u64;
    // tracing's levels are fixed per call site, hence two.
    match level {
        RequestLogLevel::Info => tracing::info!(%method, %path, status, ms, "request"),
        RequestLogLevel::Debug => tracing::debug!(%method, %path, status, ms, "request"),
    }
    response
}

/// Upload-ticket and document share tokens travel in the path and are credentials: they
/// are not logged.
fn loggable_path(path: &str) -> String {
    if path.starts_with("/upload-tickets/") {
        "/upload-tickets/<token>".to_owned()
    } else if path.starts_with("/share/docs/") {
        "/share/docs/<token>".to_owned()
    } else {
        path.to_owned()
    }
}

pub(crate) async fn catch_panic(request: Request, next: Next) -> Response {
    match AssertUnwindSafe(next.run(request)).catch_unwind().await {
        Ok(response) => response,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            tracing::error!(%message, "sandbox handler panicked; answered 500");
            ApiError::global(StatusCode::INTERNAL_SERVER_ERROR, "Internal server error")
                .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::loggable_path;

    #[test]
    fn path_tokens_stay_out_of_the_log() {
        assert_eq!(
            loggable_path("/upload-tickets/abc123"),
            "/upload-tickets/<token>"
        );
        assert_eq!(
            loggable_path("/share/docs/0123456789abcdef0123456789abcdef"),
            "/share/docs/<token>"
        );
        assert_eq!(loggable_path("/api/v1/media"), "/api/v1/media");
    }
}
