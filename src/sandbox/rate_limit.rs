//! Fixed-window rate limits (contract "Limits": 60-second windows; `SandboxConfig::
//! rate_window_secs` may shorten them for tests and demos). Windows follow the sandbox
//! clock, so advancing it (`/admin/clock/advance`) resets them.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::auth::Caller;
use super::http_error::ApiError;
use super::state::AppState;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Group {
    /// 5000/min per API key, every /api route.
    Global,
    /// 30/min per user: /generate/image, /generate/image-edit, /edit/image.
    ImageGeneration,
    /// 10/min per user: other generation routes (elements, first-last-frame and lipsync
    /// among them), cancel, media upload.
    OtherGeneration,
    /// 10/min per user: POST /projects.
    ProjectCreation,
    /// 120/min per user: media list/get/trash/favourites/stats/folders/upload-ticket.
    Media,
    /// 20/min per user: /media/bulk/*, /media/folders/{id}/move-contents.
    BulkMedia,
    /// /color-palettes/*: counts in the media-and-lifecycle bucket (120/min per user,
    /// shared with the media routes) but answers with its own 429 body.
    ColorPalettes,
    /// 10/min per user on top of the shared bucket: /color-palettes/analyze.
    PaletteAnalysis,
    /// 120/min per user, its own counter: /docs/* (project documents).
    Docs,
    /// 60/min per user: coding-assistant uploads (`/api/kolbo/v1/files`).
    CodeUpload,
    /// 60/min per user: coding-assistant chat completions (the sandbox's choice).
    CodeChat,
    /// 100/min per user, its own counter: /transcribe.
    Transcription,
}

impl Group {
    pub(crate) fn limit(self) -> u32 {
        match self {
            Group::Global => 5000,
            Group::ImageGeneration => 30,
            Group::OtherGeneration | Group::ProjectCreation => 10,
            Group::Media | Group::ColorPalettes | Group::Docs => 120,
            Group::BulkMedia => 20,
            Group::PaletteAnalysis => 10,
            Group::CodeUpload | Group::CodeChat => 60,
            Group::Transcription => 100,
        }
    }

    /// The counter a group draws from (palette routes share the media bucket).
    fn bucket(self) -> Group {
        match self {
            Group::ColorPalettes => Group::Media,
            other => other,
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    pub reset_secs: u64,
    /// The window's length (`RateLimit-Policy`'s `w=`, the bodies' `retryAfter`).
    pub window_secs: u64,
}

struct Window {
    started_ms: i64,
    count: u32,
}

pub(crate) struct RateLimiter {
    windows: Mutex<HashMap<(Group, String), Window>>,
    window_secs: u64,
    /// Requests this limiter refused (429), every group: tests and benches assert that a
    /// paced client never collects one.
    refused: AtomicU64,
}

impl RateLimiter {
    /// Every group's window lasts `window_secs` (at least 1).
    pub(crate) fn new(window_secs: u64) -> Self {
        RateLimiter {
            windows: Mutex::new(HashMap::new()),
            window_secs: window_secs.max(1),
            refused: AtomicU64::new(0),
        }
    }

    /// Requests refused with a 429 so far (injected storms not included).
    pub(crate) fn refused_count(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    pub(crate) fn window_secs(&self) -> u64 {
        self.window_secs
    }

    /// Counts one request of `key` in `group` at `now_ms` (the sandbox clock).
    pub(crate) fn check(&self, group: Group, key: &str, now_ms: i64) -> Decision {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        let window = windows
            .entry((group.bucket(), key.to_owned()))
            .or_insert(Window {
                started_ms: now_ms,
                count: 0,
            });
        let window_ms = (self.window_secs as i64).saturating_mul(1000);
        if now_ms.saturating_sub(window.started_ms) >= window_ms {
            *window = Window {
                started_ms: now_ms,
                count: 0,
            };
        }
        let limit = group.limit();
        let allowed = window.count < limit;
        if allowed {
            window.count += 1;
        } else {
            self.refused.fetch_add(1, Ordering::Relaxed);
        }
        let left_ms = window_ms
            .saturating_sub(now_ms.saturating_sub(window.started_ms))
            .max(0);
        Decision {
            allowed,
            limit,
            remaining: limit.saturating_sub(window.count),
            reset_secs: (left_ms as f64 / 1000.0).ceil().max(1.0) as u64,
            window_secs: self.window_secs,
        }
    }
}

/// Which limiter's `RateLimit-*` headers a response carries when several counted it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Precedence {
    /// Only where none are set yet (the global ceiling under a per-endpoint limiter).
    IfAbsent,
    /// Where none are set or the set ones leave more requests than this one: the limiter
    /// that binds first speaks (analyze's 10/min inside the palettes' 120/min bucket).
    Tightest,
    /// Always (a 429 this limiter answers itself).
    Always,
}

fn remaining_in(response: &Response) -> Option<u32> {
    response
        .headers()
        .get("ratelimit-remaining")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse().ok())
}

fn apply_headers(response: &mut Response, decision: Decision, precedence: Precedence) {
    let overwrite = match precedence {
        Precedence::Always => true,
        Precedence::IfAbsent => false,
        // An inner limiter's 429 keeps its own headers: it is the one that refused.
        Precedence::Tightest => {
            response.status() != axum::http::StatusCode::TOO_MANY_REQUESTS
                && remaining_in(response).is_none_or(|set| decision.remaining < set)
        }
    };
    let headers = response.headers_mut();
    for (name, value) in [
        (
            "ratelimit-policy",
            format!("{};w={}", decision.limit, decision.window_secs),
        ),
        ("ratelimit-limit", decision.limit.to_string()),
        ("ratelimit-remaining", decision.remaining.to_string()),
        ("ratelimit-reset", decision.reset_secs.to_string()),
    ] {
        let name = HeaderName::from_static(name);
        if (overwrite || !headers.contains_key(&name))
            && let Ok(value) = HeaderValue::from_str(&value)
        {
            headers.insert(name, value);
        }
    }
}

fn caller(request: &Request) -> Option<Caller> {
    request.extensions().get::<Caller>().cloned()
}

/// Global ceiling keyed by API key. Runs after authentication.
pub(crate) async fn global_limit(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let Some(caller) = caller(&request) else {
        return next.run(request).await;
    };
    let decision = state
        .limiter
        .check(Group::Global, &caller.api_key, state.clock.now_ms());
    if !decision.allowed {
        return global_limited_response(decision);
    }
    let mut response = next.run(request).await;
    // A per-endpoint limiter's (tighter) headers win when both apply.
    apply_headers(&mut response, decision, Precedence::IfAbsent);
    response
}

/// Per-endpoint limiter keyed by user, so several keys of one account share counters.
pub(crate) async fn endpoint_limit(
    State((state, group)): State<(AppState, Group)>,
    request: Request,
    next: Next,
) -> Response {
    let Some(caller) = caller(&request) else {
        return next.run(request).await;
    };
    let decision = state
        .limiter
        .check(group, &caller.user_id, state.clock.now_ms());
    if !decision.allowed {
        return limited_response(group, decision);
    }
    let mut response = next.run(request).await;
    apply_headers(&mut response, decision, Precedence::Tightest);
    response
}

/// The global ceiling's 429 (the only one the contract gives `Retry-After`).
fn global_limited_response(decision: Decision) -> Response {
    let mut response = ApiError::raw(
        axum::http::StatusCode::TOO_MANY_REQUESTS,
        json!({
            "error": "Too many requests, please try again later",
            "retryAfter": decision.window_secs,
            "code": "RATE_LIMITED",
            "source": "global",
        }),
    )
    .with_header(
        HeaderName::from_static("retry-after"),
        decision.reset_secs.to_string(),
    )
    .with_header(
        HeaderName::from_static("x-ratelimit-source"),
        "global".to_owned(),
    )
    .into_response();
    apply_headers(&mut response, decision, Precedence::Always);
    response
}

/// The limiter group guarding an `/api` route (path without `/api`); `Global` for routes
/// with no per-endpoint limiter (status polls, credits, models, ...).
pub(crate) fn group_for_route(method: &axum::http::Method, path: &str) -> Group {
    let path = path.trim_end_matches('/');
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segments.as_slice() {
        ["v1", "generate", "image" | "image-edit"] => Group::ImageGeneration,
        ["v1", "generate", _, "cancel"]
        | [
            "v1",
            "generate",
            "video" | "creative-director" | "video-from-video" | "music" | "speech" | "sound",
        ]
        | ["v1", "generate", "3d"]
        | ["v1", "generate", "video", "from-image"]
        | ["v1", "edit", "video"]
        | ["v1", "media", "upload"] => Group::OtherGeneration,
        ["v1", "video", "trim"] if method == axum::http::Method::POST => Group::OtherGeneration,
        ["v1", "video", "trim", _] => Group::Media,
        ["v1", "transcribe"] => Group::Transcription,
        ["v1", "projects"] if method == axum::http::Method::POST => Group::ProjectCreation,
        ["v1", "media", "bulk", ..] | ["v1", "media", "folders", _, "move-contents"] => {
            Group::BulkMedia
        }
        ["v1", "media", ..] => Group::Media,
        ["v1", "color-palettes", "analyze"] => Group::PaletteAnalysis,
        ["v1", "color-palettes", ..] => Group::ColorPalettes,
        ["v1", "docs", ..] => Group::Docs,
        _ => Group::Global,
    }
}

/// An injected "rate-limit storm" answer: the route's own limiter body with a full window
/// to wait, `Retry-After` and every RateLimit-* header.
pub(crate) fn storm_response(group: Group, retry_after_secs: u64, window_secs: u64) -> Response {
    let retry_after_secs = if retry_after_secs == 0 {
        window_secs
    } else {
        retry_after_secs
    };
    let decision = Decision {
        allowed: false,
        limit: group.limit(),
        remaining: 0,
        reset_secs: retry_after_secs,
        window_secs,
    };
    let mut response = match group {
        Group::Global => global_limited_response(decision),
        other => limited_response(other, decision),
    };
    if let Ok(value) = HeaderValue::from_str(&retry_after_secs.to_string()) {
        response
            .headers_mut()
            .insert(HeaderName::from_static("retry-after"), value);
    }
    if retry_after_secs != window_secs {
        // The body names the same wait as the headers.
        response = with_body_retry_after(response, retry_after_secs);
    }
    response
}

/// Replaces `retryAfter` in a 429's JSON body (storms with a short wait).
fn with_body_retry_after(response: Response, retry_after_secs: u64) -> Response {
    let (parts, body) = response.into_parts();
    let rebuilt = async move {
        let bytes = axum::body::to_bytes(body, 64 * 1024)
            .await
            .unwrap_or_default();
        let mut value: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.insert("retryAfter".to_owned(), retry_after_secs.into());
        }
        serde_json::to_vec(&value).unwrap_or_default()
    };
    let stream = futures_util::stream::once(async move {
        Ok::<_, std::io::Error>(axum::body::Bytes::from(rebuilt.await))
    });
    let mut parts = parts;
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from_stream(stream))
}

/// The 429 a per-endpoint limiter answers with (shape depends on the group).
pub(crate) fn limited_response(group: Group, decision: Decision) -> Response {
    let status = axum::http::StatusCode::TOO_MANY_REQUESTS;
    let retry_after_secs = decision.window_secs;
    let body = match group {
        Group::ProjectCreation => json!({
            "status": false,
            "message": "Too many projects created, please try again later",
        }),
        Group::ColorPalettes => json!({
            "status": false,
            "error": "Too many generation requests",
            "message": "Too many color palette requests, please try again later",
            "retryAfter": retry_after_secs,
        }),
        // Document 2's shared limiter body, with the docs group's own message.
        Group::Docs => json!({
            "status": false,
            "error": "Too many generation requests",
            "message": "Too many document requests (120 per minute), please try again later",
            "retryAfter": retry_after_secs,
        }),
        Group::PaletteAnalysis => json!({
            "success": false,
            "code": "RATE_LIMITED",
            "message": "Too many palette analysis requests (10 per minute), please try again later",
            "retryAfter": retry_after_secs,
        }),
        _ => {
            let what = match group {
                Group::ImageGeneration => "image generation",
                Group::Media => "media",
                Group::BulkMedia => "bulk media",
                Group::Transcription => "transcription",
                _ => "generation",
            };
            json!({
                "status": false,
                "error": "Too many requests",
                "message": format!("Too many {what} requests, please try again later"),
                "retryAfter": retry_after_secs,
            })
        }
    };
    let mut response = ApiError::raw(status, body).into_response();
    apply_headers(&mut response, decision, Precedence::Always);
    response
}

/// Applies a per-endpoint decision's headers to a handler's response.
pub(crate) fn with_limit_headers(mut response: Response, decision: Decision) -> Response {
    apply_headers(&mut response, decision, Precedence::Always);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shortened_window_resets_after_its_own_length() {
        let limiter = RateLimiter::new(5);
        let start_ms = 1_000_000;
        for _ in 0..10 {
            assert!(limiter.check(Group::OtherGeneration, "u", start_ms).allowed);
        }
        let refused = limiter.check(Group::OtherGeneration, "u", start_ms + 4_000);
        assert!(!refused.allowed);
        assert_eq!((refused.reset_secs, refused.window_secs), (1, 5));
        assert!(
            limiter
                .check(Group::OtherGeneration, "u", start_ms + 5_000)
                .allowed
        );
    }

    #[test]
    fn a_far_future_clock_does_not_overflow() {
        let limiter = RateLimiter::new(60);
        assert!(limiter.check(Group::Media, "u", i64::MIN + 1).allowed);
        assert!(limiter.check(Group::Media, "u", i64::MAX).allowed);
    }
}
