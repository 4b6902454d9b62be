//! Billing one completion: the reservation taken before the answer starts, and the
//! settlement that charges the prompt plus the completion tokens actually sent. A
//! [`Settlement`] dropped before it was finished (the client went away mid-stream, or
//! a synchronous request was abandoned) settles on drop for what had been sent by then.

use serde_json::{Value, json};

use super::billing::{self, Reservation, cost_credits};
use super::error::{CodeError, CodeResult};
use super::models::ChatModel;
use crate::sandbox::state::AppState;

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost_credits: f64,
}

impl Usage {
    pub(crate) fn to_json(self) -> Value {
        json!({
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "cost": self.cost_credits,
        })
    }
}

pub(crate) struct Settlement {
    state: AppState,
    completion_id: String,
    model: &'static ChatModel,
    prompt_tokens: u64,
    sent_completion_tokens: u64,
    settled: bool,
}

impl Settlement {
    /// Reserves the most the completion can cost (prompt plus every planned token);
    /// 402 `insufficient_credits` when that is more than the available balance.
    pub(crate) fn reserve(
        state: &AppState,
        user_id: &str,
        completion_id: &str,
        model: &'static ChatModel,
        prompt_tokens: u64,
        planned_completion_tokens: u64,
    ) -> CodeResult<Settlement> {
        let most = cost_credits(model, prompt_tokens, planned_completion_tokens);
        match billing::reserve(&state.store, user_id, completion_id, most)? {
            Reservation::Held => Ok(Settlement {
                state: state.clone(),
                completion_id: completion_id.to_owned(),
                model,
                prompt_tokens,
                sent_completion_tokens: 0,
                settled: false,
            }),
            Reservation::Insufficient { available } => {
                Err(CodeError::insufficient_credits(most, available))
            }
        }
    }

    /// Counts tokens handed to the client.
    pub(crate) fn sent(&mut self, completion_tokens: u64) {
        self.sent_completion_tokens += completion_tokens;
    }

    /// Charges the prompt and the tokens sent so far, releasing the reservation.
    pub(crate) fn finish(&mut self) -> CodeResult<Usage> {
        let usage = Usage {
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.sent_completion_tokens,
            cost_credits: cost_credits(self.model, self.prompt_tokens, self.sent_completion_tokens),
        };
        self.settled = true;
        billing::settle(&self.state.store, &self.completion_id, usage.cost_credits)?;
        Ok(usage)
    }
}

impl Drop for Settlement {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        match self.finish() {
            Ok(usage) => tracing::info!(
                completion_id = %self.completion_id,
                completion_tokens = usage.completion_tokens,
                cost = usage.cost_credits,
                "chat completion abandoned by the client; billed what was sent"
            ),
            Err(error) => tracing::error!(
                completion_id = %self.completion_id,
                message = %error.message,
                "could not settle an abandoned chat completion"
            ),
        }
    }
}
