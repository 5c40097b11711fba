//! What a site's operators watch: `/healthz` (the process answers),
//! `/readyz` (the store answers and its migrations are current), both open
//! to anyone and saying nothing else; `/metrics` in the Prometheus text
//! format, answered only to a bearer of the configured token (without one
//! configured it does not exist); and the duration of every request by its
//! route's template, never its concrete path.

use crate::AppState;
use axum::extract::{MatchedPath, Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use sha2::{Digest, Sha256};
use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

/// The text format's content type.
const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Renders the process's metrics in the Prometheus text format.
pub type RenderMetrics = Arc<dyn Fn() -> String + Send + Sync>;

/// `/metrics` on `detect serve`: what renders it, and the token a scraper
/// sends as `Authorization: Bearer TOKEN`.
#[derive(Clone)]
pub struct MetricsAccess {
    pub render: RenderMetrics,
    pub token: String,
}

impl std::fmt::Debug for MetricsAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MetricsAccess { token: *** }")
    }
}

/// 200 while the process serves.
pub async fn healthz() -> impl IntoResponse {
    (StatusCode::OK, "ok\n")
}

/// 200 when the store answers with every migration applied; else 503 with
/// a fixed body (the cause is logged, never sent).
pub async fn readyz(State(state): State<AppState>) -> Response {
    match state.store().ready().await {
        Ok(()) => (StatusCode::OK, "ready\n").into_response(),
        Err(e) => {
            tracing::warn!("not ready: {e}");
            (StatusCode::SERVICE_UNAVAILABLE, "not ready\n").into_response()
        }
    }
}

/// `/metrics`: the rendering to a bearer of the token; any other request
/// is told there is no such page, as if it did not exist.
pub async fn metrics(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let Some(access) = state.options().metrics.as_ref() else {
        return crate::error::not_found().await.into_response();
    };
    let sent = headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    // Compared as digests: the time taken says nothing of the token.
    if Sha256::digest(sent.as_bytes()) != Sha256::digest(access.token.as_bytes()) {
        return crate::error::not_found().await.into_response();
    }
    rendered(&access.render)
}

fn rendered(render: &RenderMetrics) -> Response {
    ([(CONTENT_TYPE, PROMETHEUS_TEXT)], render()).into_response()
}

/// Records each request's duration under its route's template (`/pair/{a}/{b}`),
/// its method and status class; unmatched paths count as `other`.
pub async fn track(request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "other".to_owned(), |m| m.as_str().to_owned());
    let method = request.method().as_str().to_owned();
    let start = Instant::now();
    let response = next.run(request).await;
    let status = format!("{}xx", response.status().as_u16() / 100);
    metrics::histogram!("detect_http_request_duration_seconds",
        "route" => route, "method" => method, "status" => status)
    .record(start.elapsed().as_secs_f64());
    response
}

/// Serves only `/metrics` (and `/healthz`) on `listener`, open to whoever
/// reaches it: the daemon's own address, off unless configured. The
/// workbench's accept loop serves it, within `limits`
/// ([`crate::ServerLimits::metrics`] for the daemon): a scraper needs a connection
/// or two, and idle or trickling clients cannot hold more.
pub async fn serve_metrics(
    listener: tokio::net::TcpListener,
    render: RenderMetrics,
    limits: crate::ServerLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = Router::new()
        .route("/metrics", get(move || async move { rendered(&render) }))
        .route("/healthz", get(healthz));
    crate::server::serve_router(listener, app, limits, shutdown).await
}
