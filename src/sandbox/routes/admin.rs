//! `/admin/*`: a control surface for black-box tests of a running sandbox (the CLI's
//! child process), guarded by the bearer token printed at start. It has its own JSON
//! wire types and is never subject to `/api` fault injection or rate limits.

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::sandbox::faults::{FaultCounts, FaultRates};
use crate::sandbox::generations::{self, GenerationSummary};
use crate::sandbox::state::AppState;

pub(crate) fn router(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/admin/keys", post(create_key))
        .route("/admin/credits", put(set_credits))
        .route("/admin/fail-next", post(fail_next))
        .route("/admin/drop-submit-answers", post(drop_submit_answers))
        .route("/admin/faults", get(get_faults).put(put_faults))
        .route("/admin/clock/advance", post(advance_clock))
        .route("/admin/generations", get(list_generations))
        .route_layer(from_fn_with_state(state.clone(), require_admin_token))
}

/// An admin error: `{"error": "..."}` with a status.
struct AdminError(StatusCode, String);

impl IntoResponse for AdminError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({"error": self.1}))).into_response()
    }
}

type AdminResult<T> = Result<Json<T>, AdminError>;

fn internal(error: impl std::fmt::Display) -> AdminError {
    tracing::error!(%error, "sandbox admin request failed");
    AdminError(StatusCode::INTERNAL_SERVER_ERROR, error.to_string())
}

fn parse<T: DeserializeOwned>(body: &Bytes) -> Result<T, AdminError> {
    let body: &[u8] = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        body
    };
    serde_json::from_slice(body)
        .map_err(|error| AdminError(StatusCode::BAD_REQUEST, format!("invalid body: {error}")))
}

async fn require_admin_token(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim);
    match presented {
        Some(token) if same_secret(token, &state.admin_token) => next.run(request).await,
        _ => AdminError(
            StatusCode::UNAUTHORIZED,
            "missing or wrong admin token (Authorization: Bearer <FRAMEWRIGHT_ADMIN_TOKEN>)"
                .to_owned(),
        )
        .into_response(),
    }
}

/// Compares without stopping at the first difference.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |diff, (x, y)| diff | (x ^ y))
            == 0
}

/// The user behind an optional e-mail: the default user when absent.
fn user_for(state: &AppState, email: Option<&str>) -> Result<String, AdminError> {
    match email.map(str::trim).filter(|e| !e.is_empty()) {
        None => Ok(state.default_user_id.clone()),
        Some(email) => state
            .store
            .user_id_by_email(email)
            .map_err(internal)?
            .ok_or_else(|| AdminError(StatusCode::NOT_FOUND, format!("no user '{email}'"))),
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct CreateKeyRequest {
    email: Option<String>,
    read_only: bool,
}

#[derive(Debug, Serialize)]
struct CreateKeyResponse {
    key: String,
    user_id: String,
    read_only: bool,
}

/// POST /admin/keys {email?, read_only?}
async fn create_key(State(state): State<AppState>, body: Bytes) -> AdminResult<CreateKeyResponse> {
    let request: CreateKeyRequest = parse(&body)?;
    let user_id = user_for(&state, request.email.as_deref())?;
    let key = state
        .store
        .insert_api_key(&user_id, !request.read_only)
        .map_err(internal)?;
    Ok(Json(CreateKeyResponse {
        key,
        user_id,
        read_only: request.read_only,
    }))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SetCreditsRequest {
    #[serde(default)]
    email: Option<String>,
    total: f64,
}

#[derive(Debug, Serialize)]
struct CreditsResponse {
    total: f64,
    available: f64,
}

/// PUT /admin/credits {email?, total}: the whole balance in the plan bucket.
async fn set_credits(State(state): State<AppState>, body: Bytes) -> AdminResult<CreditsResponse> {
    let request: SetCreditsRequest = parse(&body)?;
    if !request.total.is_finite() || request.total < 0.0 {
        return Err(AdminError(
            StatusCode::BAD_REQUEST,
            "total must be a number of credits, 0 or more".to_owned(),
        ));
    }
    let user_id = user_for(&state, request.email.as_deref())?;
    state
        .store
        .set_total_credits(&user_id, request.total)
        .map_err(internal)?;
    let balance = state.store.balance(&user_id).map_err(internal)?;
    Ok(Json(CreditsResponse {
        total: balance.total(),
        available: balance.available(),
    }))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FailNextRequest {
    count: u32,
    #[serde(default)]
    retryable: bool,
}

/// POST /admin/fail-next {count, retryable}: the next jobs fail at about half way.
async fn fail_next(State(state): State<AppState>, body: Bytes) -> AdminResult<serde_json::Value> {
    let request: FailNextRequest = parse(&body)?;
    state
        .controls
        .fail_next_jobs(request.count, request.retryable);
    Ok(Json(
        json!({"count": request.count, "retryable": request.retryable}),
    ))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CountRequest {
    count: u32,
}

/// POST /admin/drop-submit-answers {count}: jobs are created, their answers lost.
async fn drop_submit_answers(
    State(state): State<AppState>,
    body: Bytes,
) -> AdminResult<serde_json::Value> {
    let request: CountRequest = parse(&body)?;
    state.controls.drop_next_submit_responses(request.count);
    Ok(Json(json!({"count": request.count})))
}

#[derive(Debug, Serialize)]
struct FaultsResponse {
    rates: FaultRates,
    counts: FaultCounts,
}

fn faults_now(state: &AppState) -> FaultsResponse {
    FaultsResponse {
        rates: state.faults.rates(),
        counts: state.faults.counts(),
    }
}

/// GET /admin/faults: the rates in force and how many faults were injected so far.
async fn get_faults(State(state): State<AppState>) -> Json<FaultsResponse> {
    Json(faults_now(&state))
}

/// PUT /admin/faults <FaultRates>: fields left out are 0 (off).
async fn put_faults(State(state): State<AppState>, body: Bytes) -> AdminResult<FaultsResponse> {
    let rates: FaultRates = parse(&body)?;
    state.faults.set_rates(rates);
    tracing::info!(rates = ?state.faults.rates(), "fault rates changed");
    Ok(Json(faults_now(&state)))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AdvanceClockRequest {
    seconds: f64,
}

/// POST /admin/clock/advance {seconds}: 0 up to what is left of the clock's range (a
/// century ahead of wall time); anything else is a 400 naming `max_seconds`, the largest
/// advance still accepted.
async fn advance_clock(State(state): State<AppState>, body: Bytes) -> Response {
    let request: AdvanceClockRequest = match parse(&body) {
        Ok(request) => request,
        Err(error) => return error.into_response(),
    };
    let remaining_secs = state.clock.remaining_ms().div_euclid(1000);
    // Compared in f64 before any conversion: `1e17 * 1000.0 as i64` would saturate.
    if !request.seconds.is_finite()
        || request.seconds < 0.0
        || request.seconds > remaining_secs as f64
    {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({
                "error": format!(
                    "seconds must be between 0 and {remaining_secs} (the sandbox clock runs at most {} s ahead of wall time)",
                    crate::sandbox::clock::MAX_OFFSET_MS / 1000
                ),
                "max_seconds": remaining_secs,
            })),
        )
            .into_response();
    }
    if let Err(error) = state
        .clock
        .advance_ms((request.seconds * 1000.0).round() as i64)
    {
        // Only a concurrent advance can get here.
        return AdminError(StatusCode::BAD_REQUEST, error.to_string()).into_response();
    }
    match crate::sandbox::retention::sweep(&state) {
        Ok(purged) => {
            Json(json!({"now_unix_ms": state.clock.now_ms(), "purged_trash_items": purged}))
                .into_response()
        }
        Err(error) => internal(error).into_response(),
    }
}

#[derive(Debug, Serialize)]
struct GenerationsResponse {
    generations: Vec<GenerationSummary>,
}

/// GET /admin/generations: every job the service created, oldest first.
async fn list_generations(State(state): State<AppState>) -> AdminResult<GenerationsResponse> {
    let generations = generations::list(&state).map_err(internal)?;
    Ok(Json(GenerationsResponse { generations }))
}
