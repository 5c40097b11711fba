//! `detect serve`: the moderators' web application on the store.

use crate::cli::ServeArgs;
use anyhow::{Context, Result};
use app::pipeline;
use store::Store;

/// The pages draw from the same segments the scans were scored on: the
/// pipeline's, cut again when moves arrived.
struct PipelineSegments;

impl web::SegmentSource for PipelineSegments {
    fn segments(&self, store: Store, bucket_seconds: i64) -> web::SegmentsFuture {
        Box::pin(async move {
            pipeline::segments(&store, bucket_seconds, None)
                .await
                .map_err(|e| crate::error_sentence(&e))
        })
    }
}

/// The application's options from the command line.
pub fn options(args: &ServeArgs) -> Result<web::Options> {
    let timeout = std::time::Duration::from_secs(u64::from(args.request_timeout));
    let defaults = web::Options::default();
    Ok(web::Options {
        secure_cookies: args.secure_cookies,
        session_seconds: i64::from(args.session_hours) * 3600,
        trusted_proxies: web::TrustedProxies::parse(&args.trusted_proxies)
            .map_err(anyhow::Error::msg)?,
        hashes_at_once: args
            .sign_ins_at_once
            .map_or(defaults.hashes_at_once, |n| n as usize),
        server: web::ServerLimits {
            header_timeout: timeout,
            body_timeout: timeout,
            max_connections: args.max_connections as usize,
        },
        metrics: match &args.metrics_token_file {
            Some(path) => Some(web::MetricsAccess {
                token: metrics_token(path)?,
                render: app::prometheus::install()?,
            }),
            None => None,
        },
    })
}

/// The first line of the token file: at least 16 characters.
fn metrics_token(path: &std::path::Path) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the metrics token file {}", path.display()))?;
    let token = text.lines().next().unwrap_or("").trim().to_owned();
    if token.chars().count() < 16 {
        anyhow::bail!(
            "the metrics token file {} must hold a token of at least 16 characters on its first line",
            path.display()
        );
    }
    Ok(token)
}

pub async fn run(db: &app::pipeline::Db, args: ServeArgs) -> Result<()> {
    let options = options(&args)?;
    let store = pipeline::open_store(db).await?;
    if store.users().await?.is_empty() {
        eprintln!(
            "warning: nobody can sign in yet; add the first admin with \
             `detect user add NAME --role admin` (password on standard input)"
        );
    }
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    eprintln!("serving on http://{addr}/ (store {})", store.url());
    let shutdown = async {
        tokio::signal::ctrl_c().await.ok();
    };
    let state = web::AppState::new(store.clone(), PipelineSegments, options);
    web::serve(listener, state, shutdown).await?;
    store.close().await;
    Ok(())
}
