//! Error bodies exactly as the contract's Errors section shows them.

use axum::Json;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// An HTTP error: status, JSON body and any extra headers.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub status: StatusCode,
    pub body: Value,
    pub headers: Vec<(HeaderName, String)>,
}

impl ApiError {
    fn new(status: StatusCode, body: Value) -> Self {
        Self {
            status,
            body,
            headers: Vec::new(),
        }
    }

    /// Shape 1 (SDK layer): `{success:false, error, code}`.
    pub(crate) fn sdk(status: StatusCode, code: &str, error: impl Into<String>) -> Self {
        Self::new(
            status,
            json!({"success": false, "error": error.into(), "code": code}),
        )
    }

    /// Shape 2 (global error middleware): `{status:false, message, errors:[message]}`.
    pub(crate) fn global(status: StatusCode, message: impl Into<String>) -> Self {
        let message = message.into();
        Self::new(
            status,
            json!({"status": false, "message": message, "errors": [message]}),
        )
    }

    /// Unhandled failures (database, disk) surface as Shape 2 with status 500.
    pub(crate) fn internal(context: &str, error: impl std::fmt::Display) -> Self {
        tracing::error!(%error, "sandbox internal error: {context}");
        Self::global(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("Internal server error: {context}"),
        )
    }

    pub(crate) fn unauthorized(message: &str) -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            json!({"message": message, "tokenExpired": false}),
        )
    }

    pub(crate) fn read_only() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            json!({
                "status": false,
                "message": "This API key is read-only and cannot perform write operations",
                "code": "API_KEY_READ_ONLY"
            }),
        )
    }

    pub(crate) fn malformed_json(detail: impl std::fmt::Display) -> Self {
        Self::global(
            StatusCode::BAD_REQUEST,
            format!("Invalid JSON body: {detail}"),
        )
    }

    pub(crate) fn invalid_generation_id() -> Self {
        Self::global(StatusCode::BAD_REQUEST, "Invalid generation ID format")
    }

    pub(crate) fn raw(status: StatusCode, body: Value) -> Self {
        Self::new(status, body)
    }

    pub(crate) fn with_header(mut self, name: HeaderName, value: String) -> Self {
        self.headers.push((name, value));
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body)).into_response();
        for (name, value) in self.headers {
            if let Ok(value) = HeaderValue::from_str(&value) {
                response.headers_mut().insert(name, value);
            }
        }
        response
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(error: rusqlite::Error) -> Self {
        Self::internal("database", error)
    }
}

pub(crate) type ApiResult<T> = Result<T, ApiError>;
