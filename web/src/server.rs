//! The server's accept loop: HTTP/1 over hyper, with what `axum::serve`
//! does not set. A connection that has not sent a whole request head within
//! the header timeout is closed, whether it trickles bytes or sends none
//! (hyper's timer runs from the moment it waits for a head, so an idle
//! keep-alive connection closes after the same time); a body that does not
//! arrive within the body timeout ends its request; and no more than
//! `max_connections` are open at once (the next waits in the kernel's
//! backlog until one closes).

use crate::AppState;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How long connections may take and how many may be open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerLimits {
    /// A request head (or, on a kept-alive connection, the next one) must
    /// arrive within this time.
    pub header_timeout: Duration,
    /// A request body must arrive within this time.
    pub body_timeout: Duration,
    /// Connections open at once.
    pub max_connections: usize,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            max_connections: 1024,
        }
    }
}

impl ServerLimits {
    /// The daemon's metrics listener: the workbench's timeouts, and 16
    /// connections (a scraper or two, and whoever else reaches the port).
    pub fn metrics() -> Self {
        ServerLimits {
            max_connections: 16,
            ..ServerLimits::default()
        }
    }
}

/// How long a shutdown waits for requests under way.
const DRAIN: Duration = Duration::from_secs(10);

/// Serves the application on a bound listener until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = state.options().server;
    serve_router(listener, crate::router(state), limits, shutdown).await
}

/// Serves `app` on a bound listener within `limits` until `shutdown`
/// completes: the one accept loop of the workbench and the daemon's
/// metrics listener.
pub(crate) async fn serve_router(
    listener: TcpListener,
    app: axum::Router,
    limits: ServerLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let open = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            p = open.clone().acquire_owned() => p.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors, or a connection reset before
                    // it was accepted: wait a little, never stop serving.
                    tracing::warn!("cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let service = tower::ServiceExt::map_request(
            app.clone(),
            move |mut request: axum::http::Request<Incoming>| {
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            },
        );
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("connection ended: {e}");
            }
            drop(permit);
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN) => {}
    }
    Ok(())
}
