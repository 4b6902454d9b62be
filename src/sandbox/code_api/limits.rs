//! Per-user rate limits of the coding-assistant API (uploads 60/min as the contract says,
//! chat 60/min by the sandbox's choice), counted by the sandbox's shared limiter and
//! refused with the `rate_limit` envelope.

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::CodeError;
use crate::sandbox::auth::Caller;
use crate::sandbox::rate_limit::{Group, with_limit_headers};
use crate::sandbox::state::AppState;

/// Runs after [`super::auth::require_key`], which put the caller in the extensions.
pub(crate) async fn limit(
    State((state, group)): State<(AppState, Group)>,
    request: Request,
    next: Next,
) -> Response {
    let Some(caller) = request.extensions().get::<Caller>().cloned() else {
        return next.run(request).await;
    };
    let decision = state
        .limiter
        .check(group, &caller.user_id, state.clock.now_ms());
    if !decision.allowed {
        let what = match group {
            Group::CodeUpload => "file uploads",
            _ => "chat completions",
        };
        let mut response = CodeError::new(
            axum::http::StatusCode::TOO_MANY_REQUESTS,
            "rate_limit",
            format!(
                "Too many {what}: the limit is {} per {}. Try again in {} s.",
                decision.limit,
                match decision.window_secs {
                    60 => "minute".to_owned(),
                    secs => format!("{secs} s"),
                },
                decision.reset_secs
            ),
        )
        .into_response();
        if let Ok(value) = HeaderValue::from_str(&decision.reset_secs.to_string()) {
            response
                .headers_mut()
                .insert(HeaderName::from_static("retry-after"), value);
        }
        return with_limit_headers(response, decision);
    }
    with_limit_headers(next.run(request).await, decision)
}
