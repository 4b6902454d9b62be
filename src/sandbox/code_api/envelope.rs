//! The outermost layer of `/api/kolbo/v1`: every refusal leaves in the `{error: {type,
//! message}}` envelope (contract document 3, "Errors"), whoever produced it. The handlers
//! answer with [`CodeError`] already; what they do not control — axum's own rejections
//! (a body over the limit is a plain-text 413, a wrong method an empty 405, a body that
//! cannot be read a plain-text 400) and a handler's panic — is rewritten here, keeping the
//! status and the headers that go with it (`Retry-After`, rate-limit headers; the method
//! router adds `Allow` to a 405 outside this layer).
//! Successful answers, Server-Sent Events included, pass untouched and unbuffered.

use std::panic::AssertUnwindSafe;

use axum::body::{Body, Bytes, to_bytes};
use axum::extract::Request;
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::FutureExt;
use serde_json::Value;

use super::error::CodeError;

/// Largest refusal body read to check or reuse it; refusals are a sentence, anything longer
/// is replaced by a generic message rather than held in memory.
const MAX_REFUSAL_BODY_BYTES: usize = 64 * 1024;

pub(crate) async fn envelope_refusals(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let response = match AssertUnwindSafe(next.run(request)).catch_unwind().await {
        Ok(response) => response,
        // Caught here rather than by the sandbox-wide catcher, whose answer is the
        // `/api/v1` shape.
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            return CodeError::server("the request handler", message).into_response();
        }
    };
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // `None` when the body could not be read or is too long to be a refusal's sentence.
    let bytes = to_bytes(body, MAX_REFUSAL_BODY_BYTES).await.ok();
    if let Some(bytes) = &bytes
        && is_json(&parts.headers)
        && is_envelope(bytes)
    {
        return Response::from_parts(parts, Body::from(bytes.clone()));
    }
    let detail = bytes
        .as_deref()
        .map(String::from_utf8_lossy)
        .map(|text| text.trim().to_owned())
        .unwrap_or_default();
    let message = refusal_message(status, &method, &path, &detail);
    let envelope = CodeError::new(status, kind_for(status), message).body();
    // The old body's headers describe bytes that are gone; the rest (Allow, Retry-After,
    // X-RateLimit-*) still holds.
    parts.headers.remove(CONTENT_LENGTH);
    parts
        .headers
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Response::from_parts(parts, Body::from(envelope.to_string()))
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim().starts_with("application/json"))
}

/// An answer a handler already built with [`CodeError`]: left as it is.
fn is_envelope(bytes: &Bytes) -> bool {
    serde_json::from_slice::<Value>(bytes).is_ok_and(|value| value["error"]["type"].is_string())
}

/// The contract's types (document 3, "Errors") by status; a request the API does not accept
/// for its form (method, size, encoding) is a `validation_error` like the contract's 413.
fn kind_for(status: StatusCode) -> &'static str {
    match status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => "auth_error",
        StatusCode::PAYMENT_REQUIRED => "insufficient_credits",
        StatusCode::NOT_FOUND | StatusCode::GONE => "not_found",
        StatusCode::TOO_MANY_REQUESTS => "rate_limit",
        status if status.is_server_error() => "server_error",
        _ => "validation_error",
    }
}

fn refusal_message(
    status: StatusCode,
    method: &axum::http::Method,
    path: &str,
    detail: &str,
) -> String {
    match status {
        // The method router adds `Allow` outside this layer, so the header (kept) names
        // the methods, not the message.
        StatusCode::METHOD_NOT_ALLOWED => {
            format!("Method {method} is not allowed on {path}; the Allow header lists the methods")
        }
        StatusCode::PAYLOAD_TOO_LARGE => {
            CodeError::body_too_large(path, super::BODY_LIMIT_BYTES).message
        }
        StatusCode::NOT_FOUND => format!("Route not found: {method} {path}"),
        _ if !detail.is_empty() => detail.to_owned(),
        _ => status
            .canonical_reason()
            .unwrap_or("Request refused")
            .to_owned(),
    }
}
