//! # detect-web
//!
//! The moderators' web application of `detect` (`detect serve`): sign-in,
//! the seasons with their flagged pairs and cliques, the evidence behind a
//! pair, clique timelines, "find alts of X", verdicts and the audit log.
//!
//! What it is: axum handlers and askama templates (compile-time checked,
//! escaping by default: no user-supplied string is written into a page by
//! hand). It reads and writes only through [`store::Store`]; the
//! timelines come from `viz`, the evidence in words from [`viz::explain()`].
//!
//! What it is not: it does not cut segments or scan. The binary hands it a
//! [`SegmentSource`] (the pipeline's), so the pages draw from the same
//! segments the scans were scored on.

pub mod auth;
pub mod client;
mod error;
pub mod guard;
pub mod limit;
pub mod next;
pub mod ops;
mod pages;
mod render;
mod server;

pub use auth::{hash_password, verify_password};
pub use client::TrustedProxies;
pub use error::WebError;
pub use ops::{serve_metrics, MetricsAccess, RenderMetrics};
pub use pages::case::{case_file, CaseExport, CaseOf};
pub use server::{serve, ServerLimits};

use axum::routing::{get, post};
use axum::Router;
use schema::Segments;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use store::Store;

/// Segments for a bucket size, as the binary's pipeline provides them.
pub type SegmentsFuture = Pin<Box<dyn Future<Output = Result<Segments, String>> + Send + 'static>>;

/// Where the pages get segments from (timelines, evidence in words).
pub trait SegmentSource: Send + Sync + 'static {
    fn segments(&self, store: Store, bucket_seconds: i64) -> SegmentsFuture;
}

/// How the application runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Mark the session cookie `Secure` always (behind a TLS proxy). It is
    /// also marked when a request says `X-Forwarded-Proto: https`.
    pub secure_cookies: bool,
    /// How long a sign-in lasts.
    pub session_seconds: i64,
    /// The reverse proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: TrustedProxies,
    /// Password hashes (about 19 MiB each) computed at once.
    pub hashes_at_once: usize,
    /// Timeouts and the cap on connections.
    pub server: ServerLimits,
    /// `/metrics`, for a bearer of its token; without, there is none.
    pub metrics: Option<MetricsAccess>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            secure_cookies: false,
            session_seconds: 12 * 3600,
            trusted_proxies: TrustedProxies::default(),
            hashes_at_once: limit::default_hashes_at_once(),
            server: ServerLimits::default(),
            metrics: None,
        }
    }
}

/// The application's shared state.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    source: Box<dyn SegmentSource>,
    options: Options,
    limiter: Mutex<limit::LoginLimiter>,
    hashing: limit::HashGate,
    /// The segments last used: bucket size, moves generation, segments.
    cache: tokio::sync::Mutex<Option<(i64, i64, Arc<Segments>)>>,
}

impl AppState {
    pub fn new(store: Store, source: impl SegmentSource, options: Options) -> Self {
        AppState {
            inner: Arc::new(Inner {
                store,
                source: Box::new(source),
                hashing: limit::HashGate::new(options.hashes_at_once),
                options,
                limiter: Mutex::new(limit::LoginLimiter::default()),
                cache: tokio::sync::Mutex::new(None),
            }),
        }
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn options(&self) -> &Options {
        &self.inner.options
    }

    /// The limit on failed sign-ins (a lock held for a few map look-ups).
    pub fn limiter(&self) -> std::sync::MutexGuard<'_, limit::LoginLimiter> {
        self.inner
            .limiter
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The turns at hashing a password.
    pub fn hashing(&self) -> &limit::HashGate {
        &self.inner.hashing
    }

    /// The segments of every stored move for a bucket size, kept while the
    /// moves do not change.
    pub async fn segments(&self, bucket_seconds: i64) -> Result<Arc<Segments>, WebError> {
        let generation = self.store().moves_generation().await?;
        let mut cache = self.inner.cache.lock().await;
        if let Some((b, g, s)) = cache.as_ref() {
            if *b == bucket_seconds && *g == generation {
                return Ok(s.clone());
            }
        }
        let segments = self
            .inner
            .source
            .segments(self.store().clone(), bucket_seconds)
            .await
            .map_err(WebError::Internal)?;
        let segments = Arc::new(segments);
        *cache = Some((bucket_seconds, generation, segments.clone()));
        Ok(segments)
    }
}

/// Every route of the application, with the security headers on every
/// response, the origin check on every form, the body timeout, and each
/// request's duration in the metrics.
pub fn router(state: AppState) -> Router {
    let body_timeout = state.options().server.body_timeout;
    let routes = Router::new()
        .route("/", get(pages::seasons::index))
        .route("/style.css", get(pages::style))
        .route("/keys.js", get(pages::keys_js))
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::metrics))
        .route("/login", get(auth::login_page).post(auth::login))
        .route("/logout", post(auth::logout))
        .route("/season/{season}", get(pages::seasons::season))
        .route("/pair/{a}/{b}", get(pages::pair::pair))
        .route("/pair/{a}/{b}/case", get(pages::case::pair_case))
        .route("/clique/{season}/{k}", get(pages::clique::clique))
        .route("/clique/{season}/{k}/case", get(pages::case::clique_case))
        .route("/queue", get(pages::queue::queue))
        .route("/queue/next", get(pages::queue::next))
        .route("/account/{name}", get(pages::account::account))
        .route("/account", get(pages::account::search))
        .route("/verdict", post(pages::verdict::record))
        .route("/audit", get(pages::admin::audit))
        .route(
            "/users",
            get(pages::admin::users).post(pages::admin::add_user),
        )
        .fallback(error::not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard::check_origin,
        ))
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            body_timeout,
        ))
        .layer(axum::middleware::from_fn(ops::track))
        .with_state(state);
    guard::with_security_headers(routes)
}
