//! Limits shared by the multipart upload routes (`/api/v1/media/upload`, both
//! `/upload-tickets` routes, `/api/kolbo/v1/files`): a cap on the whole request per route,
//! refused from a declared `Content-Length` before any of the body is read, and a small cap
//! on every text field. The sandbox runs inside the studio's process, so a request must not
//! be able to make it hold more than these in memory (docs/SANDBOX.md, "Upload limits").

use std::pin::pin;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::HeaderMap;
use axum::http::header::CONTENT_LENGTH;
use axum::middleware::{Next, from_fn_with_state};
use axum::response::Response;
use axum::routing::MethodRouter;
use futures_util::{Stream, StreamExt};

/// The largest file an upload route stores (contract: 500 MB).
pub(crate) const MAX_UPLOAD_FILE_BYTES: u64 = 500 * 1024 * 1024;
/// Multipart framing around the file (boundaries, part headers, the small text fields)
/// allowed on top of the file before a request counts as too large.
pub(crate) const MULTIPART_OVERHEAD_BYTES: u64 = 1024 * 1024;
/// The whole request of an upload route: the file plus its framing.
pub(crate) const MAX_UPLOAD_REQUEST_BYTES: u64 = MAX_UPLOAD_FILE_BYTES + MULTIPART_OVERHEAD_BYTES;
/// Any non-file multipart field (`description`, `project_id`): far above a real
/// description or a 24-character id, far below anything that costs memory.
pub(crate) const MAX_TEXT_FIELD_BYTES: usize = 8 * 1024;

/// A route's cap on the whole request, and how that route says "too large" in its own
/// error shape.
#[derive(Clone, Copy)]
pub(crate) struct RequestCap {
    pub max_request_bytes: u64,
    pub too_large: fn() -> Response,
}

impl RequestCap {
    /// Caps `route`: a declared `Content-Length` above the cap is refused before the body is
    /// read (the client may not even send it), and a body that runs past the cap anyway
    /// (chunked, or a wrong length) fails its multipart extractor with a 413-status error.
    pub(crate) fn apply<S>(self, route: MethodRouter<S>) -> MethodRouter<S>
    where
        S: Clone + Send + Sync + 'static,
    {
        let max_body_bytes = usize::try_from(self.max_request_bytes).unwrap_or(usize::MAX);
        route
            .layer(DefaultBodyLimit::max(max_body_bytes))
            .layer(from_fn_with_state(self, refuse_declared_length))
    }
}

/// The body length a request declares in `Content-Length`, when it declares a valid one.
pub(crate) fn declared_length_bytes(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok())
}

async fn refuse_declared_length(
    State(cap): State<RequestCap>,
    request: Request,
    next: Next,
) -> Response {
    if declared_length_bytes(request.headers()).is_some_and(|bytes| bytes > cap.max_request_bytes) {
        return (cap.too_large)();
    }
    next.run(request).await
}

/// Why a text field was not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TextFieldError<E> {
    #[error("field '{name}' is longer than {max_bytes} bytes")]
    TooLong { name: String, max_bytes: usize },
    #[error(transparent)]
    Read(E),
}

/// Reads a text field chunk by chunk and stops at the first chunk that would take it past
/// `max_bytes`, so an oversized field costs at most `max_bytes` plus one chunk. Invalid
/// UTF-8 is replaced, as `Field::text` does.
pub(crate) async fn read_text_field<S, E>(
    name: &str,
    chunks: S,
    max_bytes: usize,
) -> Result<String, TextFieldError<E>>
where
    S: Stream<Item = Result<Bytes, E>>,
{
    let mut chunks = pin!(chunks);
    let mut text = Vec::new();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(TextFieldError::Read)?;
        if text.len().saturating_add(chunk.len()) > max_bytes {
            return Err(TextFieldError::TooLong {
                name: name.to_owned(),
                max_bytes,
            });
        }
        text.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8_lossy(&text).into_owned())
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// An endless field of 1 KB chunks that counts how many bytes were pulled from it.
    fn endless_field(pulled: Arc<AtomicUsize>) -> impl Stream<Item = Result<Bytes, Infallible>> {
        futures_util::stream::repeat_with(move || {
            pulled.fetch_add(1024, Ordering::SeqCst);
            Ok(Bytes::from(vec![b'a'; 1024]))
        })
    }

    #[tokio::test]
    async fn an_endless_field_is_refused_after_the_cap_without_reading_on() {
        let pulled = Arc::new(AtomicUsize::new(0));
        let result = read_text_field(
            "description",
            endless_field(pulled.clone()),
            MAX_TEXT_FIELD_BYTES,
        )
        .await;
        assert!(
            matches!(result, Err(TextFieldError::TooLong { ref name, .. }) if name == "description"),
            "{result:?}"
        );
        assert!(pulled.load(Ordering::SeqCst) <= MAX_TEXT_FIELD_BYTES + 1024);
    }

    #[tokio::test]
    async fn a_field_up_to_the_cap_is_read_whole() {
        let chunks = futures_util::stream::iter([
            Ok::<_, Infallible>(Bytes::from(vec![b'x'; MAX_TEXT_FIELD_BYTES - 1])),
            Ok(Bytes::from_static(b"y")),
        ]);
        let text = read_text_field("description", chunks, MAX_TEXT_FIELD_BYTES)
            .await
            .expect("fits");
        assert_eq!(text.len(), MAX_TEXT_FIELD_BYTES);
        assert!(text.ends_with("xy"));
    }
}
