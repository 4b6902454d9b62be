//! Credits for chat completions: the price rule of document 1 ("chat is billed on token
//! usage": prompt tokens at the prompt rate plus completion tokens at the completion rate,
//! rounded up to one decimal, at least 0.1) and the reservations that hold the most a
//! completion can cost while it runs. Reservations live in the sandbox's
//! `credit_reservations` table (keyed by the completion id), so `/balance` and
//! `/api/v1/account/credits` both show them.

use rusqlite::{OptionalExtension, params};

use super::models::ChatModel;
use crate::sandbox::store::{Store, now_iso};

/// Ledger reason of a settled completion.
const LEDGER_REASON: &str = "chat_completion";
const COMPLETION_ID_PREFIX: &str = "chatcmpl-";
const MINIMUM_COST_CREDITS: f64 = 0.1;

/// Credits for a completion: rounded up to one decimal, minimum 0.1.
pub(crate) fn cost_credits(model: &ChatModel, prompt_tokens: u64, completion_tokens: u64) -> f64 {
    let raw = prompt_tokens as f64 * model.prompt_credits_per_token
        + completion_tokens as f64 * model.completion_credits_per_token;
    // The epsilon keeps 0.30000000000000004 from becoming 0.4.
    let tenths = (raw * 10.0 - 1e-9).ceil().max(1.0);
    (tenths / 10.0).max(MINIMUM_COST_CREDITS)
}

pub(crate) fn new_completion_id() -> String {
    format!(
        "{COMPLETION_ID_PREFIX}{}",
        crate::sandbox::ids::new_object_id()
    )
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Reservation {
    Held,
    /// Nothing was reserved: the balance's `available` is below the amount.
    Insufficient {
        available: f64,
    },
}

/// Holds `amount` credits for `completion_id` if the user has that much available.
pub(crate) fn reserve(
    store: &Store,
    user_id: &str,
    completion_id: &str,
    amount: f64,
) -> rusqlite::Result<Reservation> {
    let conn = store.lock();
    let tx = conn.unchecked_transaction()?;
    let available = Store::balance_in(&tx, user_id)?.available();
    if available < amount {
        return Ok(Reservation::Insufficient { available });
    }
    let now = now_iso();
    tx.execute(
        "INSERT INTO credit_reservations (generation_id, user_id, amount, state, created_at, updated_at)
         VALUES (?1, ?2, ?3, 'active', ?4, ?4)",
        params![completion_id, user_id, amount, now],
    )?;
    tx.commit()?;
    Ok(Reservation::Held)
}

/// Releases the reservation and takes `cost` from the balance, once: false when the
/// reservation was already settled.
pub(crate) fn settle(store: &Store, completion_id: &str, cost: f64) -> rusqlite::Result<bool> {
    let conn = store.lock();
    let tx = conn.unchecked_transaction()?;
    let now = now_iso();
    let user_id: Option<String> = tx
        .query_row(
            "SELECT user_id FROM credit_reservations WHERE generation_id = ?1 AND state = 'active'",
            params![completion_id],
            |row| row.get(0),
        )
        .optional()?;
    let Some(user_id) = user_id else {
        return Ok(false);
    };
    tx.execute(
        "UPDATE credit_reservations SET state = 'settled', updated_at = ?2 WHERE generation_id = ?1",
        params![completion_id, now],
    )?;
    Store::debit_in(&tx, &user_id, cost, completion_id, LEDGER_REASON, &now)?;
    tx.commit()?;
    Ok(true)
}

/// Completions still holding credits when the sandbox stopped can never finish: their
/// reservations are released at start (nothing was billed for them).
pub(crate) fn release_abandoned(store: &Store) -> rusqlite::Result<usize> {
    store.lock().execute(
        "UPDATE credit_reservations SET state = 'released', updated_at = ?1
         WHERE state = 'active' AND generation_id LIKE 'chatcmpl-%'",
        params![now_iso()],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> ChatModel {
        ChatModel {
            id: "m",
            name: "M",
            prompt_credits_per_token: 0.002,
            completion_credits_per_token: 0.008,
            context_length_tokens: 1000,
            supports_vision: false,
        }
    }

    #[test]
    fn costs_round_up_to_a_tenth_with_a_minimum() {
        assert_eq!(cost_credits(&model(), 0, 0), 0.1);
        assert_eq!(cost_credits(&model(), 10, 2), 0.1);
        // 100 × 0.002 + 100 × 0.008 = 1.0 exactly: not rounded up to 1.1.
        assert_eq!(cost_credits(&model(), 100, 100), 1.0);
        // 0.2 + 0.808 = 1.008 → 1.1
        assert_eq!(cost_credits(&model(), 100, 101), 1.1);
    }
}
