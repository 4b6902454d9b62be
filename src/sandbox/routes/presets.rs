//! GET /v1/cinematic-presets (bare map, ETag / 304) and the embedded thumbnails under
//! /assets/presets/.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::sandbox::cinematic::catalog;
use crate::sandbox::http_error::ApiError;
use crate::sandbox::ids::fnv1a;
use crate::sandbox::preset_thumbs::thumbnail;
use crate::sandbox::state::AppState;

/// Whether an `If-None-Match` value matches `etag` (weak comparison, lists, `*`).
fn matches_etag(if_none_match: &str, etag: &str) -> bool {
    let strip = |tag: &str| tag.trim().trim_start_matches("W/").to_owned();
    if_none_match
        .split(',')
        .any(|candidate| candidate.trim() == "*" || strip(candidate) == strip(etag))
}

pub(crate) async fn list(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let body = catalog().served_map(&state.origin).to_string();
    let etag = format!("\"{:016x}\"", fnv1a(body.as_bytes()));
    let not_modified = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|value| matches_etag(value, &etag));
    let mut response = if not_modified {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body,
        )
            .into_response()
    };
    if let Ok(value) = HeaderValue::from_str(&etag) {
        response.headers_mut().insert(header::ETAG, value);
    }
    response
}

pub(crate) async fn thumbnail_file(Path(file): Path<String>) -> Response {
    match thumbnail(&file) {
        Some(bytes) => (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static("image/png")),
                (
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("public, max-age=86400"),
                ),
            ],
            bytes,
        )
            .into_response(),
        None => ApiError::sdk(StatusCode::NOT_FOUND, "NOT_FOUND", "File not found").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etag_matching_handles_weak_tags_and_lists() {
        assert!(matches_etag("\"abc\"", "\"abc\""));
        assert!(matches_etag("W/\"abc\"", "\"abc\""));
        assert!(matches_etag("\"x\", \"abc\"", "\"abc\""));
        assert!(matches_etag("*", "\"abc\""));
        assert!(!matches_etag("\"abd\"", "\"abc\""));
    }
}
