//! Reading a JSON request body under the API's limit ([`super::BODY_LIMIT_BYTES`]). A body
//! over it is refused with the 413 envelope, but only after the rest of what the client is
//! sending has been read and dropped (up to [`DRAIN_BYTES`]): a server that answers and
//! closes while bytes are still arriving makes the connection reset, and the client (an
//! SDK still writing its request) sees "connection reset" instead of the 413.

use axum::body::{Body, Bytes};
use axum::http::HeaderMap;
use futures_util::StreamExt;

use super::BODY_LIMIT_BYTES;
use super::error::{CodeError, CodeResult};

/// Most bytes past the limit read and dropped before the 413; a body declared larger than
/// the limit plus this is refused before any of it is read.
const DRAIN_BYTES: usize = 64 * 1024 * 1024;

/// The whole body, or 413 when it is over the limit (declared or as sent, chunked too).
pub(crate) async fn read_limited(path: &str, headers: &HeaderMap, body: Body) -> CodeResult<Bytes> {
    let declared_bytes = crate::sandbox::upload_limits::declared_length_bytes(headers);
    let refusal = || CodeError::body_too_large(path, BODY_LIMIT_BYTES);
    let drain_limit_bytes = (BODY_LIMIT_BYTES + DRAIN_BYTES) as u64;
    if declared_bytes.is_some_and(|declared| declared > drain_limit_bytes) {
        return Err(refusal());
    }
    let mut frames = body.into_data_stream();
    let mut received = Vec::new();
    let mut drained_bytes = 0usize;
    while let Some(frame) = frames.next().await {
        let data = frame.map_err(|error| {
            CodeError::validation(format!("The request body could not be read: {error}"))
        })?;
        if drained_bytes > 0 || received.len() + data.len() > BODY_LIMIT_BYTES {
            // Over the limit: nothing more is kept, the rest is only read.
            received = Vec::new();
            drained_bytes += data.len();
            if drained_bytes > DRAIN_BYTES {
                break;
            }
            continue;
        }
        received.extend_from_slice(&data);
    }
    if drained_bytes > 0 {
        return Err(refusal());
    }
    Ok(Bytes::from(received))
}
