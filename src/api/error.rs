//! The one error type of the service client, built the way the contract's Errors section
//! says: HTTP status first, then `error` or else `message`, with `code` optional. A 2xx
//! whose body says `success: false` or `status: false` is a failure too (TRACKING_ERROR).

use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::lenient::value_as_f64;

/// Code the contract uses for a 2xx body that reports failure.
pub const TRACKING_ERROR: &str = "TRACKING_ERROR";

/// Everything that can go wrong talking to the service.
#[derive(Clone, Debug, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum ApiError {
    /// A non-2xx answer, or a 2xx whose body reports failure.
    #[error("{}", status_line(*.status, .message, .code.as_deref(), *.retry_after_secs))]
    Status {
        status: u16,
        message: String,
        code: Option<String>,
        retry_after_secs: Option<f64>,
    },
    /// The request never reached the service (it was not sent; safe to retry).
    #[error("Could not reach the service: {0}")]
    Connect(String),
    /// The request was sent but the answer was lost: the outcome is unknown.
    #[error("The service did not answer (the request may still have been processed): {0}")]
    NoResponse(String),
    /// A 2xx answer whose body could not be read.
    #[error("The service's answer could not be read: {0}")]
    Decode(String),
    /// A 2xx submit answer without a `generation_id`: no job handle to follow.
    #[error("The service accepted the request but returned no job id (TRACKING_ERROR)")]
    MissingJobHandle,
    /// A local file problem (upload source, save target, cache).
    #[error("File error: {0}")]
    Io(String),
    /// Refused by the client before anything was sent (e.g. a bulk move over the limit).
    #[error("Not sent: {0}")]
    Invalid(String),
}

fn status_line(
    status: u16,
    message: &str,
    code: Option<&str>,
    retry_after_secs: Option<f64>,
) -> String {
    let message = message.trim();
    let mut out = if message.is_empty() {
        default_reason(status).to_owned()
    } else {
        message.to_owned()
    };
    match code {
        Some(code) if !code.is_empty() => out.push_str(&format!(" ({status} {code})")),
        _ => out.push_str(&format!(" ({status})")),
    }
    if let Some(secs) = retry_after_secs {
        out.push_str(&format!("; retry in {} s", secs.max(0.0).ceil() as u64));
    }
    out
}

fn default_reason(status: u16) -> &'static str {
    match status {
        400 => "The request was not valid",
        401 => "The API key was not accepted",
        402 => "Not enough credits",
        403 => "Not allowed",
        404 => "Not found",
        409 => "Conflict",
        413 => "The file is too large",
        422 => "The request could not be processed",
        429 => "Too many requests",
        500 => "The service had an internal error",
        502 => "An upstream service failed",
        503 => "The service is unavailable",
        504 => "An upstream service timed out",
        200..=299 => "The service reported a failure",
        _ => "The service returned an error",
    }
}

impl ApiError {
    /// HTTP status for `Status` errors.
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The optional machine code (`INSUFFICIENT_CREDITS`, `CANNOT_CANCEL`, …).
    pub fn code(&self) -> Option<&str> {
        match self {
            ApiError::Status { code, .. } => code.as_deref(),
            ApiError::MissingJobHandle => Some(TRACKING_ERROR),
            _ => None,
        }
    }

    pub fn is_rate_limited(&self) -> bool {
        self.status() == Some(429)
            || self
                .code()
                .is_some_and(|c| c == "RATE_LIMITED" || c.ends_with("_RATE_LIMITED"))
    }

    /// Seconds to wait before trying again, when the service said so.
    /// The same error with `prefix: ` before a service message (other kinds unchanged),
    /// so a multi-step operation can say which step failed without losing status or code.
    pub fn with_message_prefix(self, prefix: &str) -> ApiError {
        match self {
            ApiError::Status {
                status,
                message,
                code,
                retry_after_secs,
            } => ApiError::Status {
                status,
                message: format!("{prefix}: {message}"),
                code,
                retry_after_secs,
            },
            other => other,
        }
    }

    pub fn retry_after_secs(&self) -> Option<f64> {
        match self {
            ApiError::Status {
                retry_after_secs, ..
            } => *retry_after_secs,
            _ => None,
        }
    }

    /// The request was sent but whether it took effect is unknown (never re-send a submit).
    pub fn outcome_unknown(&self) -> bool {
        matches!(self, ApiError::NoResponse(_))
    }

    /// Worth retrying later for idempotent reads: 5xx, 429, connection problems, lost answers.
    pub fn is_transient(&self) -> bool {
        match self {
            ApiError::Status { status, .. } => *status >= 500 || *status == 429,
            ApiError::Connect(_) | ApiError::NoResponse(_) => true,
            _ => false,
        }
    }

    /// Turn a received answer into an error when it is one: a non-2xx status, or a 2xx body
    /// with `success: false` / `status: false`. `None` means the answer is a success.
    /// This is the single function the client uses for every response.
    pub fn from_response(status: u16, headers: &HeaderMap, body: &[u8]) -> Option<ApiError> {
        let json: Option<Value> = serde_json::from_slice(body).ok();
        let ok_status = (200..300).contains(&status);
        let body_says_failure = json.as_ref().is_some_and(|v| {
            v.get("success") == Some(&Value::Bool(false))
                || v.get("status") == Some(&Value::Bool(false))
        });
        if ok_status && !body_says_failure {
            return None;
        }
        // An `{error: {type}}` envelope without a message is not shown as raw JSON: the
        // status's reason says more.
        let error_object = json
            .as_ref()
            .is_some_and(|v| v.get("error").is_some_and(Value::is_object));
        let mut message = json
            .as_ref()
            .and_then(message_of)
            .or_else(|| (!error_object).then(|| text_snippet(body)).flatten())
            .unwrap_or_default();
        // The body validator's `{status: false, message: Validation error, details: [...]}`:
        // the details say which field is wrong, so they belong in the one message shown.
        if let Some(details) = json.as_ref().and_then(details_text) {
            if message.is_empty() {
                message = details;
            } else if !message.contains(&details) {
                message = format!("{message}: {details}");
            }
        }
        let code_of = |c: &Value| match c {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        // `code` at the top, else the coding-assistant envelope's `{error: {type}}` (or an
        // `error.code`), so `auth_error`, `insufficient_credits`… reach the caller too.
        let mut code = json.as_ref().and_then(|v| {
            v.get("code").and_then(code_of).or_else(|| {
                let inner = v.get("error").filter(|e| e.is_object())?;
                inner
                    .get("type")
                    .and_then(code_of)
                    .or_else(|| inner.get("code").and_then(code_of))
            })
        });
        if ok_status && code.is_none() {
            code = Some(TRACKING_ERROR.to_owned());
        }
        // RateLimit-* headers ride on every limited response, so a reset time means "wait"
        // only when the answer is itself a refusal to serve now (429, or 503 Retry-After).
        // The headers come first: they say when this window really resets, while the
        // bodies' `retryAfter` is the contract's fixed 60 (waiting a whole minute after a
        // 429 that frees up in five seconds drains a burst twice as slowly).
        let waiting_is_meaningful = status == 429 || status == 503;
        let retry_after_secs = header_retry_after(headers)
            .or_else(|| {
                json.as_ref()
                    .and_then(|v| v.get("retryAfter").or_else(|| v.get("retry_after")))
                    .and_then(value_as_f64)
                    .filter(|s| s.is_finite() && *s >= 0.0)
            })
            .filter(|_| waiting_is_meaningful);
        Some(ApiError::Status {
            status,
            message,
            code,
            retry_after_secs,
        })
    }
}

/// `error` (string, or an object with `message`), else `message`, else `errors[0]`.
fn message_of(value: &Value) -> Option<String> {
    let as_text = |v: &Value| -> Option<String> {
        match v {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            Value::Object(map) => map
                .get("message")
                .and_then(Value::as_str)
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty()),
            _ => None,
        }
    };
    value
        .get("error")
        .and_then(as_text)
        .or_else(|| value.get("message").and_then(as_text))
        .or_else(|| {
            value
                .get("errors")
                .and_then(Value::as_array)
                .and_then(|a| a.iter().find_map(as_text))
        })
}

/// The validator's `details` as one line: strings, or objects' `message` (prefixed by
/// their `path`/`field` when the message does not already name it).
fn details_text(value: &Value) -> Option<String> {
    let items = value.get("details")?.as_array()?;
    let parts: Vec<String> = items
        .iter()
        .filter_map(|item| match item {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            Value::Object(map) => {
                let text = map
                    .get("message")
                    .or_else(|| map.get("msg"))
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|s| !s.is_empty())?;
                let path = match map.get("path").or_else(|| map.get("field")) {
                    Some(Value::String(p)) => p.clone(),
                    Some(Value::Array(parts)) => parts
                        .iter()
                        .map(|p| match p {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join("."),
                    _ => String::new(),
                };
                if path.is_empty() || text.contains(&path) {
                    Some(text.to_owned())
                } else {
                    Some(format!("{path}: {text}"))
                }
            }
            _ => None,
        })
        .take(5)
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// A short readable piece of a non-JSON body (a proxy's HTML error page, plain text).
fn text_snippet(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() || text.starts_with('<') {
        return None;
    }
    Some(text.chars().take(200).collect())
}

/// What a response's `RateLimit-*` headers say about the caller's window (contract,
/// Limits: every limiter sends them). Each field is `None` when its header is missing or
/// unreadable, so a partial set still teaches what it can.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateLimitInfo {
    /// `RateLimit-Limit`: requests allowed per window.
    pub limit: Option<u32>,
    /// `RateLimit-Remaining`: requests left in the current window.
    pub remaining: Option<u32>,
    /// `RateLimit-Reset`: seconds until the current window ends.
    pub reset_secs: Option<f64>,
    /// The `w=` of `RateLimit-Policy` (`30;w=60`): the window length.
    pub window_secs: Option<f64>,
}

impl RateLimitInfo {
    /// Read the headers; `None` when the response carries none of them.
    pub fn from_headers(headers: &HeaderMap) -> Option<RateLimitInfo> {
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        let count = |name: &str| header(name).and_then(|v| v.parse::<u32>().ok());
        let policy = header("ratelimit-policy").map(parse_policy);
        let info = RateLimitInfo {
            limit: count("ratelimit-limit").or(policy.and_then(|(limit, _)| limit)),
            remaining: count("ratelimit-remaining"),
            reset_secs: header("ratelimit-reset")
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s >= 0.0),
            window_secs: policy.and_then(|(_, window)| window),
        };
        (info != RateLimitInfo::default()).then_some(info)
    }
}

/// `30;w=60` (first policy of a list): the limit and the window in seconds.
fn parse_policy(value: &str) -> (Option<u32>, Option<f64>) {
    let first = value.split(',').next().unwrap_or_default();
    let mut parts = first.split(';').map(str::trim);
    let limit = parts.next().and_then(|l| l.parse::<u32>().ok());
    let window_secs = parts
        .filter_map(|p| p.strip_prefix("w="))
        .find_map(|w| w.trim().parse::<f64>().ok())
        .filter(|w| w.is_finite() && *w > 0.0);
    (limit, window_secs)
}

/// `Retry-After` (seconds or an HTTP date), else `RateLimit-Reset` (seconds).
fn header_retry_after(headers: &HeaderMap) -> Option<f64> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    if let Some(value) = header("retry-after") {
        if let Ok(secs) = value.parse::<f64>() {
            if secs.is_finite() && secs >= 0.0 {
                return Some(secs);
            }
        } else if let Ok(date) = chrono::DateTime::parse_from_rfc2822(value) {
            let delta_ms = date.timestamp_millis() - chrono::Utc::now().timestamp_millis();
            return Some((delta_ms.max(0) as f64) / 1000.0);
        }
    }
    header("ratelimit-reset")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_prefix_keeps_status_and_code() {
        let error = ApiError::Status {
            status: 429,
            message: "Too many requests".into(),
            code: Some("RATE_LIMITED".into()),
            retry_after_secs: Some(60.0),
        }
        .with_message_prefix("Upload of a.png failed");
        assert_eq!(error.status(), Some(429));
        assert!(error.is_rate_limited());
        assert_eq!(error.retry_after_secs(), Some(60.0));
        assert!(
            error
                .to_string()
                .contains("Upload of a.png failed: Too many requests")
        );
        let other = ApiError::Invalid("bad".into()).with_message_prefix("x");
        assert_eq!(
            other.to_string(),
            ApiError::Invalid("bad".into()).to_string()
        );
    }
    use reqwest::header::HeaderValue;

    fn err(status: u16, body: &str) -> Option<ApiError> {
        ApiError::from_response(status, &HeaderMap::new(), body.as_bytes())
    }

    #[test]
    fn success_bodies_are_not_errors() {
        assert_eq!(err(200, r#"{"success":true}"#), None);
        assert_eq!(err(201, "not json at all"), None);
        assert_eq!(err(202, r#"{"status":true}"#), None);
    }

    #[test]
    fn two_xx_with_success_false_is_tracking_error() {
        let e = err(200, r#"{"success":false,"error":"could not track"}"#).unwrap();
        assert_eq!(e.status(), Some(200));
        assert_eq!(e.code(), Some(TRACKING_ERROR));
        let e = err(200, r#"{"status":false,"message":"nope"}"#).unwrap();
        assert_eq!(e.to_string(), "nope (200 TRACKING_ERROR)");
    }

    #[test]
    fn error_then_message_then_errors() {
        let e = err(403, r#"{"success":false,"error":"Insufficient credits: balance 3, minimum 8","code":"INSUFFICIENT_CREDITS"}"#).unwrap();
        assert_eq!(
            e.to_string(),
            "Insufficient credits: balance 3, minimum 8 (403 INSUFFICIENT_CREDITS)"
        );
        let e = err(
            500,
            r#"{"status":false,"message":"boom","errors":["boom"]}"#,
        )
        .unwrap();
        assert_eq!(e.code(), None);
        assert!(e.is_transient());
        let e = err(500, r#"{"status":false,"errors":["only here"]}"#).unwrap();
        assert_eq!(e.to_string(), "only here (500)");
        let e = err(401, r#"{"message":"Invalid API key","tokenExpired":false}"#).unwrap();
        assert_eq!((e.status(), e.code()), (Some(401), None));
        assert!(!e.is_transient());
    }

    #[test]
    fn all_four_rate_limit_shapes() {
        let global = err(
            429,
            r#"{"error":"Too many","retryAfter":60,"code":"RATE_LIMITED","source":"global"}"#,
        )
        .unwrap();
        assert_eq!(global.retry_after_secs(), Some(60.0));
        let per_endpoint = err(
            429,
            r#"{"status":false,"error":"Too many","message":"Slow down","retryAfter":"60"}"#,
        )
        .unwrap();
        assert_eq!(per_endpoint.retry_after_secs(), Some(60.0));
        assert!(per_endpoint.to_string().starts_with("Too many"));
        let palette = err(
            429,
            r#"{"success":false,"code":"RATE_LIMITED","message":"Slow","retryAfter":60}"#,
        )
        .unwrap();
        assert_eq!(palette.code(), Some("RATE_LIMITED"));
        let mut headers = HeaderMap::new();
        headers.insert("RateLimit-Reset", HeaderValue::from_static("17"));
        let project = ApiError::from_response(
            429,
            &headers,
            br#"{"status":false,"message":"Too many requests, please try again later"}"#,
        )
        .unwrap();
        assert!(project.is_rate_limited() && project.is_transient());
        assert_eq!(project.retry_after_secs(), Some(17.0));
        headers.insert("Retry-After", HeaderValue::from_static("5"));
        let both = ApiError::from_response(429, &headers, b"{}").unwrap();
        assert_eq!(both.retry_after_secs(), Some(5.0));
        // The window's real reset beats the body's fixed 60.
        let mut reset_only = HeaderMap::new();
        reset_only.insert("RateLimit-Reset", HeaderValue::from_static("4"));
        let per_endpoint_with_reset = ApiError::from_response(
            429,
            &reset_only,
            br#"{"status":false,"error":"Too many","message":"Slow down","retryAfter":60}"#,
        )
        .unwrap();
        assert_eq!(per_endpoint_with_reset.retry_after_secs(), Some(4.0));
    }

    #[test]
    fn rate_limit_headers_on_a_validation_error_do_not_mean_wait() {
        let mut headers = HeaderMap::new();
        headers.insert("RateLimit-Reset", HeaderValue::from_static("60"));
        let e = ApiError::from_response(
            400,
            &headers,
            br#"{"success":false,"error":"Model 'x' not found","code":"MODEL_NOT_FOUND"}"#,
        )
        .unwrap();
        assert_eq!(e.retry_after_secs(), None);
        assert!(!e.to_string().contains("retry in"), "{e}");
    }

    #[test]
    fn validation_details_join_the_message() {
        let e = err(
            400,
            r#"{"status":false,"message":"Validation error","details":[{"path":["colors",0,"hex"],"message":"must match #RRGGBB"},"\"foo\" is not allowed"]}"#,
        )
        .unwrap();
        assert_eq!(
            e.to_string(),
            "Validation error: colors.0.hex: must match #RRGGBB; \"foo\" is not allowed (400)"
        );
    }

    #[test]
    fn the_coding_assistant_envelope_gives_message_and_type() {
        let e = err(
            401,
            r#"{"error":{"type":"auth_error","message":"Invalid API key"}}"#,
        )
        .unwrap();
        assert_eq!(e.code(), Some("auth_error"));
        assert_eq!(e.to_string(), "Invalid API key (401 auth_error)");
        let e = err(402, r#"{"error":{"type":"insufficient_credits"}}"#).unwrap();
        assert_eq!(
            e.to_string(),
            "Not enough credits (402 insufficient_credits)"
        );
        // A top-level code still wins.
        let e = err(400, r#"{"error":{"type":"t","message":"m"},"code":"C"}"#).unwrap();
        assert_eq!(e.code(), Some("C"));
    }

    #[test]
    fn html_bodies_fall_back_to_a_reason() {
        let e = err(502, "<html>Bad gateway</html>").unwrap();
        assert_eq!(e.to_string(), "An upstream service failed (502)");
    }

    #[test]
    fn rate_limit_headers_are_read_with_their_policy() {
        let mut headers = HeaderMap::new();
        assert_eq!(RateLimitInfo::from_headers(&headers), None);
        headers.insert("RateLimit-Limit", HeaderValue::from_static("30"));
        headers.insert("RateLimit-Remaining", HeaderValue::from_static("0"));
        headers.insert("RateLimit-Reset", HeaderValue::from_static("42"));
        headers.insert("RateLimit-Policy", HeaderValue::from_static("30;w=60"));
        assert_eq!(
            RateLimitInfo::from_headers(&headers),
            Some(RateLimitInfo {
                limit: Some(30),
                remaining: Some(0),
                reset_secs: Some(42.0),
                window_secs: Some(60.0),
            })
        );
        let mut policy_only = HeaderMap::new();
        policy_only.insert(
            "RateLimit-Policy",
            HeaderValue::from_static("10;w=30, 100;w=3600"),
        );
        let info = RateLimitInfo::from_headers(&policy_only).unwrap();
        assert_eq!((info.limit, info.window_secs), (Some(10), Some(30.0)));
        let mut garbage = HeaderMap::new();
        garbage.insert("RateLimit-Remaining", HeaderValue::from_static("lots"));
        garbage.insert("RateLimit-Reset", HeaderValue::from_static("-3"));
        assert_eq!(RateLimitInfo::from_headers(&garbage), None);
    }

    #[test]
    fn classification() {
        assert!(ApiError::NoResponse("reset".into()).outcome_unknown());
        assert!(!ApiError::Connect("refused".into()).outcome_unknown());
        assert!(ApiError::Connect("refused".into()).is_transient());
        assert!(!ApiError::MissingJobHandle.is_transient());
    }
}
