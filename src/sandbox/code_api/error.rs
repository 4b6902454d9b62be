//! The coding-assistant error envelope `{error: {type, message}}` (contract document 3,
//! "Errors"); the `/api/v1` shapes never appear under `/api/kolbo/v1`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

#[derive(Debug)]
pub(crate) struct CodeError {
    pub status: StatusCode,
    /// `validation_error`, `auth_error`, `insufficient_credits`, `not_found`,
    /// `rate_limit` or `server_error`.
    pub kind: &'static str,
    pub message: String,
}

pub(crate) type CodeResult<T> = Result<T, CodeError>;

impl CodeError {
    pub(crate) fn validation(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "validation_error", message)
    }

    pub(crate) fn auth(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "auth_error", message)
    }

    pub(crate) fn insufficient_credits(needed: f64, available: f64) -> Self {
        Self::new(
            StatusCode::PAYMENT_REQUIRED,
            "insufficient_credits",
            format!(
                "Insufficient credits: this completion may cost up to {needed} credits and {available} are available."
            ),
        )
    }

    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    pub(crate) fn too_large() -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "validation_error",
            "File too large. Maximum size is 500MB.",
        )
    }

    /// A request body over the API's limit (not an upload: those have their own 500 MB).
    pub(crate) fn body_too_large(path: &str, limit_bytes: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "validation_error",
            format!(
                "Request body too large: the limit on {path} is {limit_bytes} bytes ({} MB)",
                limit_bytes / (1024 * 1024)
            ),
        )
    }

    /// Logs the cause; the caller only learns which step failed.
    pub(crate) fn server(context: &str, error: impl std::fmt::Display) -> Self {
        tracing::error!(%error, "coding-assistant API: {context} failed");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            format!("Internal server error: {context}"),
        )
    }

    pub(crate) fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            kind,
            message: message.into(),
        }
    }

    /// The body, also sent as an SSE event when a stream fails after it began.
    pub(crate) fn body(&self) -> Value {
        json!({"error": {"type": self.kind, "message": self.message}})
    }
}

impl IntoResponse for CodeError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body())).into_response()
    }
}

impl From<rusqlite::Error> for CodeError {
    fn from(error: rusqlite::Error) -> Self {
        Self::server("database", error)
    }
}
