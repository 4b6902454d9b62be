//! Authentication of the coding-assistant API: `X-API-Key: K` or `Authorization: Bearer K`
//! (the same keys as `/api/v1`), answered with the `auth_error` envelope.

use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::CodeError;
use crate::sandbox::auth::Caller;
use crate::sandbox::state::AppState;

/// The presented key: `X-API-Key` first, else an `Authorization: Bearer` token.
fn presented_key(headers: &HeaderMap) -> Option<String> {
    let header = |name| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::trim)
            .filter(|value| !value.is_empty())
    };
    if let Some(key) = header("x-api-key") {
        return Some(key.to_owned());
    }
    let authorization = header(AUTHORIZATION.as_str())?;
    let (scheme, token) = authorization.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then(|| token.to_owned())
}

/// Puts the [`Caller`] into the request's extensions, or answers 401.
pub(crate) async fn require_key(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let Some(key) = presented_key(request.headers()) else {
        return CodeError::auth(
            "API key is required. Send it as X-API-Key or Authorization: Bearer.",
        )
        .into_response();
    };
    let row = match state.store.find_api_key(&key) {
        Ok(Some(row)) => row,
        Ok(None) => return CodeError::auth("Invalid API key").into_response(),
        Err(error) => return CodeError::from(error).into_response(),
    };
    request.extensions_mut().insert(Caller {
        user_id: row.user_id,
        api_key: row.key,
    });
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_header_forms_are_read() {
        let mut headers = HeaderMap::new();
        headers.insert("authorization", "Bearer abc".parse().expect("header"));
        assert_eq!(presented_key(&headers).as_deref(), Some("abc"));
        headers.insert("authorization", "Basic abc".parse().expect("header"));
        assert_eq!(presented_key(&headers), None);
        headers.insert("x-api-key", " xyz ".parse().expect("header"));
        assert_eq!(presented_key(&headers).as_deref(), Some("xyz"));
    }
}
