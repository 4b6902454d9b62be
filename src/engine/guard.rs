//! Engine tasks whose panic must not vanish. A tokio task that panics ends silently (its
//! `JoinHandle` is rarely awaited), leaving a job, tile or transfer waiting forever. Tasks
//! spawned here catch the panic at the task boundary, log it once and hand it to the
//! owner's `on_panic`, which shows the failure (a failed job, an error toast). The engine
//! and its other tasks keep running.

use super::protocol::Event;
use super::runtime::Ctx;
use futures_util::FutureExt as _;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use tokio::task::JoinHandle;

/// Spawn `future` on the current runtime. If it panics, the panic is logged once (with
/// `name`) and `on_panic(message)` runs on the same task.
pub(crate) fn spawn_guarded<F, P, R>(name: &'static str, future: F, on_panic: P) -> JoinHandle<()>
where
    F: Future<Output = ()> + Send + 'static,
    P: FnOnce(String) -> R + Send + 'static,
    R: Future<Output = ()> + Send + 'static,
{
    // Unwind safety: the task's state dies with it; what it shares (journal, channels,
    // mutex-guarded maps) is left consistent at every await point or guarded by poisoning.
    tokio::spawn(async move {
        if let Err(payload) = AssertUnwindSafe(future).catch_unwind().await {
            let message = panic_message(payload.as_ref()).to_owned();
            tracing::error!(task = name, "engine task panicked: {message}");
            on_panic(message).await;
        }
    })
}

/// [`spawn_guarded`] for work started by a person's action (library, palettes, transfers,
/// projects): a panic is shown to them as `Event::TaskPanicked`, naming what was being
/// done (`doing`, e.g. "loading a library page").
pub(crate) fn spawn_reported<F>(ctx: &Arc<Ctx>, doing: &'static str, future: F) -> JoinHandle<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let ctx = ctx.clone();
    spawn_guarded(doing, future, move |_message| async move {
        ctx.emit(Event::TaskPanicked {
            doing: doing.to_owned(),
        })
        .await;
    })
}

/// The text of a panic payload (`panic!` gives a `&str` or a `String`).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn a_panic_reaches_on_panic_once_and_the_runtime_keeps_going() {
        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        let handle = spawn_guarded(
            "test-task",
            async {
                tokio::task::yield_now().await;
                panic!("injected task panic");
            },
            move |message| async move {
                let _ = tx.send(message).await;
            },
        );
        // The task itself ends normally: the panic was caught at its boundary.
        assert!(handle.await.is_ok());
        assert_eq!(rx.recv().await.as_deref(), Some("injected task panic"));
        assert_eq!(rx.recv().await, None, "on_panic runs once");
        // Other tasks still run on the same runtime.
        assert_eq!(tokio::spawn(async { 7 }).await.ok(), Some(7));
    }

    #[tokio::test]
    async fn a_task_that_finishes_never_calls_on_panic() {
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = calls.clone();
        spawn_guarded("fine", async {}, move |_| async move {
            counted.fetch_add(1, Ordering::SeqCst);
        })
        .await
        .expect("task ends");
        assert_eq!(calls.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn panic_messages_are_read_from_both_payload_kinds() {
        let literal: Box<dyn std::any::Any + Send> = Box::new("literal");
        let formatted: Box<dyn std::any::Any + Send> = Box::new(format!("formatted {}", 1));
        assert_eq!(panic_message(literal.as_ref()), "literal");
        assert_eq!(panic_message(formatted.as_ref()), "formatted 1");
        assert_eq!(panic_message(Box::new(3u8).as_ref()), "(no message)");
    }
}
