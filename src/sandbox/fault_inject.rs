//! The `/api` middleware that applies `FaultRates`: it rolls the dice once per request and
//! answers wrong, late, slowly or not at all. Each injected fault is counted and logged.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{OriginalUri, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;

use super::faults::FaultKind;
use super::http_error::ApiError;
use super::rate_limit::{group_for_route, storm_response};
use super::state::AppState;

/// A slow body arrives in this many pieces spread over the configured time.
const SLOW_BODY_CHUNKS: u32 = 10;

pub(crate) async fn inject(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let (fault, rates) = state.faults.roll();
    if rates.added_latency_ms > 0 {
        tokio::time::sleep(Duration::from_millis(rates.added_latency_ms)).await;
    }
    let Some(kind) = fault else {
        return next.run(request).await;
    };
    let method = request.method().clone();
    let route = request.extensions().get::<OriginalUri>().map_or_else(
        || request.uri().path().to_owned(),
        |uri| uri.path().to_owned(),
    );
    state.faults.count(kind);
    tracing::info!(fault = kind.name(), %method, %route, "fault injected");
    match kind {
        FaultKind::ServerError => {
            ApiError::global(StatusCode::INTERNAL_SERVER_ERROR, "Internal server error")
                .into_response()
        }
        FaultKind::RateLimitStorm => storm_response(
            group_for_route(&method, request.uri().path()),
            rates.storm_retry_after_secs,
            state.limiter.window_secs(),
        ),
        FaultKind::DropBeforeHandling => {
            drain(request.into_body()).await;
            lost_response(StatusCode::INTERNAL_SERVER_ERROR)
        }
        FaultKind::DropAfterHandling => {
            let response = next.run(request).await;
            lost_response(response.status())
        }
        FaultKind::MalformedJson => malformed(next.run(request).await).await,
        FaultKind::SlowBody => slow(next.run(request).await, rates.slow_body_duration_secs()).await,
    }
}

/// Reads the whole request so the loss happens after the client finished sending.
async fn drain(body: Body) {
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        if chunk.is_err() {
            break;
        }
    }
}

/// Status and headers may go out, then the body stream errors so the connection is aborted:
/// the client never gets an answer it can read.
pub(crate) fn lost_response(status: StatusCode) -> Response {
    let stream = futures_util::stream::once(async {
        Err::<Bytes, std::io::Error>(std::io::Error::new(
            std::io::ErrorKind::ConnectionAborted,
            "sandbox fault injection: response dropped",
        ))
    });
    let mut response = Response::new(Body::from_stream(stream));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    response
}

/// Same status and headers, but the JSON is cut in half (a strict prefix of a JSON value
/// never parses).
async fn malformed(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let cut = if bytes.len() >= 2 {
        bytes.slice(..bytes.len() / 2)
    } else {
        Bytes::from_static(b"{\"status\":")
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, Body::from(cut))
}

/// Same answer, trickled out in pieces over about `secs`.
async fn slow(response: Response, secs: f64) -> Response {
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let pause = Duration::from_secs_f64(secs / f64::from(SLOW_BODY_CHUNKS));
    let piece_len = bytes.len().div_ceil(SLOW_BODY_CHUNKS as usize).max(1);
    let pieces: Vec<Bytes> = (0..bytes.len())
        .step_by(piece_len)
        .map(|start| bytes.slice(start..(start + piece_len).min(bytes.len())))
        .collect();
    let stream = futures_util::stream::iter(pieces).then(move |piece| async move {
        tokio::time::sleep(pause).await;
        Ok::<Bytes, std::io::Error>(piece)
    });
    Response::from_parts(parts, Body::from_stream(stream))
}
