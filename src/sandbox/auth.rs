//! `X-API-Key` authentication and the read-only check.

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::http_error::ApiError;
use super::state::AppState;

/// The authenticated caller, stored in request extensions by [`require_api_key`].
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    pub user_id: String,
    /// The key itself keys the global limiter; it is never logged.
    pub api_key: String,
}

fn is_mutating(method: &Method) -> bool {
    matches!(
        *method,
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    )
}

pub(crate) async fn require_api_key(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let presented = request
        .headers()
        .get("x-api-key")
        .and_then(|value| value.to_str().ok())
        .map(str::trim)
        .filter(|key| !key.is_empty())
        .map(str::to_owned);
    let Some(presented) = presented else {
        return ApiError::unauthorized("API key is required. Send it in the X-API-Key header.")
            .into_response();
    };
    let row = match state.store.find_api_key(&presented) {
        Ok(Some(row)) => row,
        Ok(None) => return ApiError::unauthorized("Invalid API key").into_response(),
        Err(error) => return ApiError::from(error).into_response(),
    };
    if is_mutating(request.method()) && !row.can_write {
        return ApiError::read_only().into_response();
    }
    request.extensions_mut().insert(Caller {
        user_id: row.user_id,
        api_key: row.key,
    });
    next.run(request).await
}
