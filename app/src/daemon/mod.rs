//! `detect daemon --config FILE [--once]`: scheduled ingests and scans.
//!
//! The configuration (TOML, see `detect.example.toml` and [`config`]) names
//! the store, the sources of moves (a directory of move logs, the site's own
//! database), cron schedules for ingests and for scans, the seasons to scan
//! and where reports go.
//!
//! - An **ingest tick** ingests what is new from every source. A **scan
//!   tick** does the same, then rescans the active seasons (only when their
//!   moves changed), writes `report_dir/season-N.{json,txt}`, logs one
//!   summary line per season and the pairs and cliques newly flagged since
//!   the season's previous scan. The daemon runs a scan tick when it starts,
//!   then follows the schedules; `--once` runs one scan tick and exits.
//! - **Ticks never overlap**: one lock guards them, and a tick that fires
//!   while another runs is skipped with a log line.
//! - **Crashes lose nothing**: a file, or a page of a site database's rows,
//!   is stored in one store transaction together with its mark (the file's
//!   size and time; the last key pulled), and a scan is one transaction. So
//!   whatever instant the daemon dies at, the next tick redoes exactly what
//!   was not committed.
//! - **SIGINT/SIGTERM** stop the daemon cleanly: no new tick starts, the
//!   running tick stops at its next step boundary (each step a transaction),
//!   the store is closed and the process exits 0. A second signal exits at
//!   once (non-zero); the open transaction is rolled back by the database.
//! - The **store** is the configuration's `database` when it names one
//!   (it wins over `--db` and `DETECT_DATABASE_URL`, so that one file
//!   describes the whole deployment); otherwise `--db`, the environment or
//!   the default `sqlite://detect.db` apply, as for every command.
//!
//! For tests only, `DETECT_DAEMON_TEST_PAUSE_MS=N` makes every tick sleep N
//! milliseconds inside each ingest transaction (after its moves and mark are
//! written, before the commit) and between its steps (after ingesting,
//! before writing each report), so that tests can kill the daemon mid-tick
//! or make ticks outlast their schedule.

pub mod alerts;
pub mod config;
pub mod fnv;
pub mod reports;
pub mod retention;
mod scans;
mod similarities;
pub mod sources;
pub mod tick;

use anyhow::{anyhow, Context as _, Result};
use config::Config;
use sources::Live;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use store::{normalize_url, redact_url, Store, DEFAULT_DATABASE_URL};
use tick::{Kind, Memory};
use tokio_cron_scheduler::{Job, JobScheduler};

/// The environment variable of the test pause (see the module docs).
pub const TEST_PAUSE_ENV: &str = "DETECT_DAEMON_TEST_PAUSE_MS";

/// Whether the daemon is stopping, and the test pause.
#[derive(Debug, Clone, Default)]
pub struct Control {
    stopping: Arc<AtomicBool>,
    test_pause: Option<Duration>,
}

impl Control {
    fn from_env() -> Result<Control> {
        let test_pause = match std::env::var(TEST_PAUSE_ENV) {
            Ok(v) => Some(Duration::from_millis(v.trim().parse().map_err(|_| {
                anyhow!("{TEST_PAUSE_ENV} must be a number of milliseconds, not {v:?}")
            })?)),
            Err(_) => None,
        };
        Ok(Control {
            stopping: Arc::new(AtomicBool::new(false)),
            test_pause,
        })
    }

    /// Whether a signal asked the daemon to stop: a tick checks it between
    /// its steps.
    pub fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
    }

    /// The test pause inside an ingest transaction, before its commit.
    pub async fn pause_in_transaction(&self) {
        if let Some(d) = self.test_pause {
            tracing::debug!("test pause inside an ingest transaction");
            tokio::time::sleep(d).await;
        }
    }

    /// The test pause between two steps of a tick (none once stopping).
    pub async fn pause_between_steps(&self) {
        if self.stopping() {
            return;
        }
        if let Some(d) = self.test_pause {
            tracing::debug!("test pause between steps");
            tokio::time::sleep(d).await;
        }
    }
}

/// The running daemon: what every tick shares, and the lock that keeps
/// ticks from overlapping.
struct Daemon {
    ctx: tick::Context,
    memory: tokio::sync::Mutex<Memory>,
    /// Held while a tick takes or releases `memory` and says so, and while
    /// a tick that found it taken says it is skipped: the log then reads in
    /// the order the lock was taken (a skip never lands between another
    /// tick taking the lock and logging its start, or after its end).
    log_order: std::sync::Mutex<()>,
    ticks: AtomicU64,
}

impl Daemon {
    /// Runs a tick unless one is running (then logs the skip) or the daemon
    /// is stopping. `None` when it did not run.
    async fn tick(&self, kind: Kind) -> Option<tick::Outcome> {
        if self.ctx.control.stopping() {
            return None;
        }
        let (mut memory, n) = {
            let _order = self.log_order.lock().unwrap_or_else(|e| e.into_inner());
            let Ok(memory) = self.memory.try_lock() else {
                metrics::counter!("detect_ticks_skipped_total", "kind" => kind.as_str())
                    .increment(1);
                tracing::info!(
                    kind = kind.as_str(),
                    "tick skipped: the previous tick is still running"
                );
                return None;
            };
            if self.ctx.control.stopping() {
                return None;
            }
            let n = self.ticks.fetch_add(1, Ordering::SeqCst) + 1;
            metrics::counter!("detect_ticks_started_total", "kind" => kind.as_str()).increment(1);
            tracing::info!(tick = n, kind = kind.as_str(), "tick started");
            (memory, n)
        };
        let started = Instant::now();
        let outcome = tick::run(&self.ctx, &mut memory, kind).await;
        let ended = if outcome.problems.is_empty() {
            "detect_ticks_finished_total"
        } else {
            "detect_ticks_failed_total"
        };
        metrics::counter!(ended, "kind" => kind.as_str()).increment(1);
        metrics::histogram!("detect_tick_duration_seconds", "kind" => kind.as_str())
            .record(started.elapsed().as_secs_f64());
        let _order = self.log_order.lock().unwrap_or_else(|e| e.into_inner());
        tracing::info!(
            tick = n,
            kind = kind.as_str(),
            new_moves = outcome.new_moves,
            problems = outcome.problems.len(),
            stopping = self.ctx.control.stopping(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "tick finished"
        );
        drop(memory);
        Some(outcome)
    }

    /// Waits for a running tick to end, then closes the store and sources.
    async fn close(&self) {
        let memory = self.memory.lock().await;
        for (_, s) in &memory.sources {
            s.close().await;
        }
        self.ctx.store.close().await;
    }
}

/// SIGTERM and SIGINT.
struct Signals {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
}

impl Signals {
    fn install() -> Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Signals {
                term: signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?,
                int: signal(SignalKind::interrupt()).context("cannot listen for SIGINT")?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The name of the next signal.
    async fn recv(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.term.recv() => "SIGTERM",
                _ = self.int.recv() => "SIGINT",
            }
        }
        #[cfg(not(unix))]
        {
            tokio::signal::ctrl_c().await.ok();
            "Ctrl-C"
        }
    }
}

/// What `detect daemon` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DaemonOptions {
    /// The configuration file (TOML).
    pub config: std::path::PathBuf,
    /// Run one scan tick and exit.
    pub once: bool,
}

/// Runs the daemon on the store `cli_db` (unless the configuration names
/// one) until a signal stops it, or for one tick.
pub async fn run(cli_db: &str, args: DaemonOptions) -> Result<()> {
    let mut config = Config::load(&args.config)?;
    if !args.once {
        config::require_schedule(&config)?;
    }
    let url = config::store_url(&config, cli_db);
    if config.database.is_some()
        && normalize_url(cli_db) != normalize_url(&url)
        && cli_db != DEFAULT_DATABASE_URL
    {
        tracing::info!(
            "the configuration names the store {}: --db / DETECT_DATABASE_URL ({}) is ignored",
            redact_url(&url),
            redact_url(cli_db)
        );
    }
    let control = Control::from_env()?;
    // The sources first: a wrong site database fails before the store is
    // created.
    let mut live = Vec::with_capacity(config.sources.len());
    for source in &config.sources {
        live.push((source.site().to_owned(), Live::open(source).await?));
    }
    probe_server(&url).await?;
    let key = match config.ip_key.clone() {
        Some(k) => Some(k),
        None => crate::privacy::ip_key_from_env()?,
    };
    let store = Store::open(&url).await?.with_ip_key(key).await?;
    // The model the configuration names, from the store (a version) or
    // stored (a file), so every scan records its version.
    config.model = crate::model::resolve(Some(&store), &config.model_choice, "the daemon")
        .await?
        .map(Arc::new);
    std::fs::create_dir_all(&config.report_dir).with_context(|| {
        format!(
            "cannot create the report directory {}",
            config.report_dir.display()
        )
    })?;
    if let Some(addr) = config.metrics_listen {
        serve_metrics(addr).await?;
    }
    let mut signals = Signals::install()?;
    if let Some(d) = control.test_pause {
        tracing::warn!(
            "{TEST_PAUSE_ENV} is set: every tick pauses {} ms at each step (for tests only)",
            d.as_millis()
        );
    }
    tracing::info!(
        store = %store.url(),
        sources = config.sources.len(),
        ingest = config.ingest_schedule.as_deref().unwrap_or("-"),
        scan = config.scan_schedule.as_deref().unwrap_or("-"),
        once = args.once,
        "daemon started"
    );
    let daemon = Arc::new(Daemon {
        ctx: tick::Context {
            config,
            store,
            control,
        },
        memory: tokio::sync::Mutex::new(Memory::new(live)),
        log_order: std::sync::Mutex::new(()),
        ticks: AtomicU64::new(0),
    });
    if args.once {
        run_once(daemon, &mut signals).await
    } else {
        run_scheduled(daemon, &mut signals).await
    }
}

/// One scan tick; a signal stops it at its next step.
async fn run_once(daemon: Arc<Daemon>, signals: &mut Signals) -> Result<()> {
    let d = daemon.clone();
    let mut tick = tokio::spawn(async move { d.tick(Kind::Scan).await });
    let outcome = tokio::select! {
        done = &mut tick => done,
        signal = signals.recv() => {
            tracing::info!("{signal} received: stopping after the current step");
            daemon.ctx.control.stop();
            tokio::select! {
                done = &mut tick => done,
                signal = signals.recv() => return Err(second_signal(signal)),
            }
        }
    }
    .context("the tick panicked")?;
    daemon.close().await;
    let problems = outcome.map(|o| o.problems).unwrap_or_default();
    match problems.as_slice() {
        [] => Ok(()),
        [one] => Err(anyhow!("the tick met a problem: {one}")),
        [first, rest @ ..] => Err(anyhow!(
            "the tick met {} problems (see the warnings above), the first: {first}",
            rest.len() + 1
        )),
    }
}

/// A scan tick now, then ticks on schedule until a signal.
async fn run_scheduled(daemon: Arc<Daemon>, signals: &mut Signals) -> Result<()> {
    let scheduler = JobScheduler::new()
        .await
        .map_err(|e| anyhow!("cannot start the scheduler: {e}"))?;
    let schedules = [
        (Kind::Ingest, daemon.ctx.config.ingest_schedule.clone()),
        (Kind::Scan, daemon.ctx.config.scan_schedule.clone()),
    ];
    for (kind, expr) in schedules {
        let Some(expr) = expr else { continue };
        let d = daemon.clone();
        let job = Job::new_async(expr.as_str(), move |_, _| {
            let d = d.clone();
            Box::pin(async move {
                d.tick(kind).await;
            })
        })
        .map_err(|e| anyhow!("cannot schedule the {} ticks {expr:?}: {e}", kind.as_str()))?;
        scheduler
            .add(job)
            .await
            .map_err(|e| anyhow!("cannot schedule the {} ticks: {e}", kind.as_str()))?;
    }
    scheduler
        .start()
        .await
        .map_err(|e| anyhow!("cannot start the scheduler: {e}"))?;
    let d = daemon.clone();
    tokio::spawn(async move { d.tick(Kind::Scan).await });

    let signal = signals.recv().await;
    tracing::info!("{signal} received: stopping after the current step of a running tick");
    daemon.ctx.control.stop();
    let mut scheduler = scheduler;
    if let Err(e) = scheduler.shutdown().await {
        tracing::warn!("the scheduler did not shut down cleanly: {e}");
    }
    tokio::select! {
        _ = daemon.close() => {}
        signal = signals.recv() => return Err(second_signal(signal)),
    }
    tracing::info!("daemon stopped");
    Ok(())
}

/// Serves `/metrics` on `addr` for as long as the process runs; an
/// address that cannot be bound stops the daemon at start.
async fn serve_metrics(addr: std::net::SocketAddr) -> Result<()> {
    let render = crate::prometheus::install()?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot serve metrics on {addr} (metrics_listen)"))?;
    tracing::info!(address = %listener.local_addr()?, "metrics served");
    tokio::spawn(async move {
        if let Err(e) = web::serve_metrics(
            listener,
            render,
            web::ServerLimits::metrics(),
            std::future::pending(),
        )
        .await
        {
            tracing::warn!("the metrics server stopped: {e}");
        }
    });
    Ok(())
}

/// One connection attempt to a database server, so that an unreachable
/// store fails at once with its cause (the store's pool would retry for
/// seconds and then report only that it timed out).
async fn probe_server(url: &str) -> Result<()> {
    use sqlx::Connection;
    let url = normalize_url(url);
    if !url.starts_with("postgres") {
        // SQLite needs no server; another scheme is refused by the store.
        return Ok(());
    }
    sqlx::any::install_default_drivers();
    let fail = |e: sqlx::Error| anyhow!("cannot open the database {}: {e}", redact_url(&url));
    let conn = sqlx::AnyConnection::connect(&url).await.map_err(fail)?;
    conn.close().await.ok();
    Ok(())
}

fn second_signal(signal: &str) -> anyhow::Error {
    anyhow!(
        "a second {signal}: stopped without waiting for the running tick (its open transaction is rolled back)"
    )
}
