//! GET /balance: `{available, reserved, total}` of the caller's account — the same balance
//! as `/api/v1/account/credits`, with credits held by running completions as `reserved`.

use axum::extract::State;
use axum::{Extension, Json};
use serde_json::{Value, json};

use super::error::CodeResult;
use crate::sandbox::auth::Caller;
use crate::sandbox::pricing::round_credits;
use crate::sandbox::state::AppState;

pub(crate) async fn get(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> CodeResult<Json<Value>> {
    let balance = state.store.balance(&caller.user_id)?;
    Ok(Json(json!({
        "available": balance.available(),
        "reserved": round_credits(balance.reserved),
        "total": balance.total(),
    })))
}
