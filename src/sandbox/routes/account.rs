use axum::extract::State;
use axum::{Extension, Json};
use serde_json::{Value, json};

use crate::sandbox::auth::Caller;
use crate::sandbox::http_error::ApiResult;
use crate::sandbox::state::AppState;

/// GET /v1/account/credits. Reservations lower `available` but never `total`.
pub(crate) async fn credits(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> ApiResult<Json<Value>> {
    let balance = state.store.balance(&caller.user_id)?;
    Ok(Json(json!({
        "success": true,
        "credits": {
            "total": balance.total(),
            "plan_credits": balance.plan_credits,
            "credit_pack": balance.credit_pack,
            "redemption": balance.redemption,
            "available": balance.available(),
        }
    })))
}
