//! The process's metrics in the Prometheus text format, for `detect serve`
//! (`/metrics` with a bearer token) and the daemon (`metrics_listen`).
//!
//! Code records through the `metrics` facade (counters and histograms named
//! `detect_*`); this installs the exporter's recorder once per process.
//! Labels are routes' templates, methods, statuses, kinds of tick, seasons
//! and reasons: never an account, a user or an address.

use anyhow::{Context, Result};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
use std::sync::Arc;

/// Bucket bounds in seconds: a request takes milliseconds, a scan minutes.
const SECONDS: &[f64] = &[
    0.001, 0.005, 0.025, 0.1, 0.25, 1.0, 2.5, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0,
];

/// Installs the recorder and returns what renders its metrics.
pub fn install() -> Result<web::RenderMetrics> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".to_owned()), SECONDS)
        .context("cannot set the metrics' buckets")?
        .install_recorder()
        .context("cannot install the metrics recorder")?;
    Ok(Arc::new(move || {
        handle.run_upkeep();
        handle.render()
    }))
}
