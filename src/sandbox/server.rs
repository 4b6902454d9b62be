//! The sandbox's HTTP/1.1 server loop: hyper's connection builder instead of `axum::serve`,
//! because the sandbox runs inside the studio's process and must not let slow or idle clients
//! exhaust it. Each connection gets a header read timeout (which is also its idle timeout
//! between requests), its request bodies an idle timeout, and at most
//! `ConnectionLimits::max_connections` are served at once (docs/SANDBOX.md, "Connections").

use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tower_http::timeout::RequestBodyTimeout;

use super::config::ConnectionLimits;

/// After a failed accept (e.g. out of file descriptors), wait before the next one instead
/// of spinning.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(100);

/// Serves `app` on `listener` until `shutdown` turns true, then lets open connections finish
/// their current request and returns once they have closed (the caller bounds that wait).
pub(crate) async fn run(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(limits.header_read_timeout_secs));
    // Wraps every request body; the router accepts any body type.
    let service = RequestBodyTimeout::new(app, Duration::from_secs(limits.body_idle_timeout_secs));
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let mut connections = JoinSet::new();
    // Logs the start of a run of refused connections once, not each of them.
    let mut refusing = false;
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    tracing::debug!(%error, "sandbox could not accept a connection");
                    tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
                    continue;
                }
            },
            () = stopped(&mut shutdown) => break,
        };
        // Finished connections are collected here so the set does not grow.
        while connections.try_join_next().is_some() {}
        // Over the cap the new connection is closed at once rather than left waiting in
        // the backlog: its client gets a prompt, retryable failure instead of a hang, and
        // the sandbox spends nothing on it.
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            if !refusing {
                tracing::warn!(
                    max_connections = limits.max_connections,
                    "sandbox at its connection cap; closing new connections"
                );
                refusing = true;
            }
            drop(stream);
            continue;
        };
        refusing = false;
        let connection = http.serve_connection(
            TokioIo::new(stream),
            TowerToHyperService::new(service.clone()),
        );
        let mut stop = shutdown.clone();
        connections.spawn(async move {
            let _slot = slot;
            let mut connection = pin!(connection);
            let result = tokio::select! {
                result = connection.as_mut() => result,
                () = stopped(&mut stop) => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = result {
                // Timeouts and clients that go away mid-request end up here.
                tracing::debug!(%error, "sandbox connection ended with an error");
            }
        });
    }
    while connections.join_next().await.is_some() {}
}

/// Resolves once shutdown is requested (or its sender is gone).
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    // The guard `wait_for` returns is not `Send`; it is dropped here, before any await.
    let _ = shutdown.wait_for(|stop| *stop).await;
}
