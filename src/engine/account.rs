//! Account checks for Settings: "Test connection" for a profile (auth, round-trip latency,
//! credits). Runs on its own client so any profile can be tried, not only the active one;
//! each request is answered once by an `AccountEvent` with its `request_id`.

use super::guard::spawn_reported;
use super::protocol::Event;
use super::runtime::Ctx;
use crate::api::{ApiClient, ApiError, ClientConfig, Credits};
use std::sync::Arc;
use std::time::Instant;

/// A test should answer quickly or say the service is slow; it is a single cheap GET.
pub const TEST_CONNECTION_TIMEOUT_SECS: u64 = 15;

/// An API key travelling to the engine: never printed (`Debug` shows `<redacted>`).
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(pub String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum AccountCommand {
    /// GET /v1/account/credits on `base_url` with `api_key`, timed; answered by
    /// `AccountEvent::ConnectionTested`.
    TestConnection {
        request_id: u64,
        profile_id: String,
        base_url: String,
        api_key: ApiKey,
    },
}

/// What a successful test found.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnectionReport {
    /// Request sent to answer read, in milliseconds.
    pub latency_ms: u64,
    pub credits: Credits,
}

/// Why a test failed, in words a person understands, with the raw error for details.
#[derive(Clone, Debug, PartialEq)]
pub struct ConnectionProblem {
    pub message: String,
    pub details: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AccountEvent {
    ConnectionTested {
        request_id: u64,
        profile_id: String,
        result: Result<ConnectionReport, ConnectionProblem>,
    },
}

pub(crate) fn handle(ctx: &Arc<Ctx>, command: AccountCommand) {
    match command {
        AccountCommand::TestConnection {
            request_id,
            profile_id,
            base_url,
            api_key,
        } => {
            let task_ctx = ctx.clone();
            spawn_reported(ctx, "testing the connection", async move {
                let result = test_connection(&base_url, api_key).await;
                match &result {
                    Ok(report) => tracing::info!(
                        profile = %profile_id,
                        latency_ms = report.latency_ms,
                        "connection test passed"
                    ),
                    Err(problem) => tracing::warn!(
                        profile = %profile_id,
                        "connection test failed: {}",
                        problem.details
                    ),
                }
                let event = AccountEvent::ConnectionTested {
                    request_id,
                    profile_id,
                    result,
                };
                task_ctx.emit(Event::Account(event)).await;
            });
        }
    }
}

/// One timed GET /v1/account/credits on a fresh client (no connection reuse, so the time
/// includes connecting, as a person's first request would).
pub async fn test_connection(
    base_url: &str,
    api_key: ApiKey,
) -> Result<ConnectionReport, ConnectionProblem> {
    let client = ApiClient::new(ClientConfig {
        base_url: base_url.to_owned(),
        api_key: api_key.0,
        request_timeout_secs: TEST_CONNECTION_TIMEOUT_SECS,
    })
    .map_err(|e| problem_of(&e))?;
    let started = Instant::now();
    let credits = client.credits().await.map_err(|e| problem_of(&e))?;
    Ok(ConnectionReport {
        latency_ms: started.elapsed().as_millis().min(u128::from(u64::MAX)) as u64,
        credits,
    })
}

/// The failure in words: a refused key, an unreachable service, a slow one, or the
/// service's own message.
pub fn problem_of(error: &ApiError) -> ConnectionProblem {
    let message = match error {
        ApiError::Status { status: 401, .. } => "The service refused the API key.".to_owned(),
        ApiError::Status { status: 403, .. } => {
            "The service refused the API key for this account (it may be disabled or lack \
             permission)."
                .to_owned()
        }
        ApiError::Status { status: 404, .. } => {
            "The address answers, but not like a Generation Service: check the base URL (it \
             should end in /api)."
                .to_owned()
        }
        ApiError::Status { status: 429, .. } => {
            "The service is limiting requests right now; the key was not checked. Try again \
             in a minute."
                .to_owned()
        }
        ApiError::Status { status, .. } if *status >= 500 => {
            format!("The service has a problem of its own right now (error {status}).")
        }
        ApiError::Status { .. } => format!("The service answered with an error: {error}"),
        ApiError::Connect(_) => {
            "The service could not be reached: check the base URL and your network.".to_owned()
        }
        ApiError::NoResponse(_) => {
            format!("The service did not answer within {TEST_CONNECTION_TIMEOUT_SECS} seconds.")
        }
        ApiError::Decode(_) => {
            "The service answered, but not with a credit balance: check the base URL.".to_owned()
        }
        ApiError::Invalid(_) | ApiError::Io(_) | ApiError::MissingJobHandle => {
            format!("The test could not run: {error}")
        }
    };
    ConnectionProblem {
        message,
        details: error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_never_printed() {
        let command = AccountCommand::TestConnection {
            request_id: 1,
            profile_id: "p".into(),
            base_url: "http://x/api".into(),
            api_key: ApiKey("fw_live_secret".into()),
        };
        assert!(!format!("{command:?}").contains("fw_live_secret"));
    }

    #[test]
    fn a_refused_key_and_an_unreachable_service_are_worded() {
        let refused = ApiError::Status {
            status: 401,
            message: "Invalid API key".into(),
            code: None,
            retry_after_secs: None,
        };
        assert_eq!(
            problem_of(&refused).message,
            "The service refused the API key."
        );
        let down = ApiError::Connect("connection refused".into());
        assert!(problem_of(&down).message.contains("could not be reached"));
        assert!(problem_of(&down).details.contains("connection refused"));
    }
}
