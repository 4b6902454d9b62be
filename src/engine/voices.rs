//! GET /v1/voices for the speech voice picker, fetched once per session: the first
//! `Command::Voices` loads the list, later ones answer from memory (a failed load is not
//! kept, so asking again retries).

use super::guard::spawn_reported;
use super::protocol::Event;
use super::runtime::Ctx;
use crate::api::{Voice, VoiceFilter};
use std::sync::Arc;
use tokio::sync::Mutex;

/// The session's voice list (shared by every `Command::Voices`).
#[derive(Clone, Default)]
pub(crate) struct Voices {
    cached: Arc<Mutex<Option<Vec<Voice>>>>,
}

impl Voices {
    /// Answer with `Event::Voices`: from the cache, else from the service (then cached).
    /// Concurrent asks wait for the one load in flight rather than sending a second.
    pub(crate) fn load(&self, ctx: &Arc<Ctx>) {
        let cached = self.cached.clone();
        let task_ctx = ctx.clone();
        spawn_reported(ctx, "loading the voices", async move {
            let mut slot = cached.lock().await;
            let result = match slot.as_ref() {
                Some(voices) => Ok(voices.clone()),
                None => {
                    let result = task_ctx.client.voices(&VoiceFilter::default()).await;
                    match &result {
                        Ok(voices) => *slot = Some(voices.clone()),
                        Err(e) => tracing::warn!("voices failed: {e}"),
                    }
                    result
                }
            };
            drop(slot);
            task_ctx.emit(Event::Voices(result)).await;
        });
    }
}
