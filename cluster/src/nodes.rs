//! Ballista's scheduler and executor with detect's functions registered, and
//! the client session that submits a plan to a scheduler.

use crate::{packed, part, score};
use anyhow::{Context, Result};
use ballista_core::config::{
    TaskSchedulingPolicy, BALLISTA_BROADCAST_JOIN_THRESHOLD_BYTES,
    BALLISTA_BROADCAST_JOIN_THRESHOLD_ROWS, BALLISTA_SHUFFLE_COMPRESSION_CODEC,
    BALLISTA_SHUFFLE_SORT_BASED_BATCH_SIZE,
    BALLISTA_SHUFFLE_SORT_BASED_MEMORY_LIMIT_PER_TASK_BYTES as SHUFFLE_SPILL_BYTES,
};
use ballista_core::extension::{SessionConfigExt, SessionStateExt};
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::prelude::{SessionConfig, SessionContext};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// Ballista's default session plus `detect_part`, `detect_pack` and
/// `detect_score`: what
/// the scheduler plans with and the executors run with.
pub fn session_state(config: SessionConfig) -> datafusion::common::Result<SessionState> {
    let state = ballista_core::utils::default_session_builder(config)?;
    let mut scalars: Vec<_> = state.scalar_functions().values().cloned().collect();
    scalars.push(Arc::new(part::udf()));
    scalars.push(Arc::new(packed::udf()));
    let mut windows: Vec<_> = state.window_functions().values().cloned().collect();
    windows.push(Arc::new(score::udwf()));
    Ok(SessionStateBuilder::new_from_existing(state)
        .with_scalar_functions(scalars)
        .with_window_functions(windows)
        .build())
}

/// Rows a record batch holds in a scan. A packed row holds all of an account's
/// segments (about 1,000 over a season): at DataFusion's default of 8,192
/// rows a batch of them is near half a gigabyte.
pub const BATCH_ROWS: usize = 128;

/// Plain strings from Parquet (not string views): what the layout declares;
/// small batches (see [`BATCH_ROWS`]).
fn client_config(config: SessionConfig) -> SessionConfig {
    let mut config = config.with_batch_size(BATCH_ROWS);
    let options = config.options_mut();
    options.execution.parquet.schema_force_view_types = false;
    // Every join partitioned by its key: a join that collects one side whole
    // (DataFusion's choice for a side it deems small) would hold every
    // account's packed segments in each task.
    options.optimizer.hash_join_single_partition_threshold = 0;
    options.optimizer.hash_join_single_partition_threshold_rows = 0;
    // The joins as plan.rs writes them: the packed segments as build side.
    options.optimizer.join_reordering = false;
    config
}

/// The session a scan runs on, `partitions` wide: the cluster whose
/// scheduler is at `url` ([`remote_context`]), or with "local" DataFusion
/// in this process ([`local_context_with`]).
pub async fn context(url: &str, partitions: usize) -> Result<SessionContext> {
    if url == "local" {
        Ok(local_context_with(partitions))
    } else {
        remote_context(url, partitions).await
    }
}

/// A local session (no cluster) with detect's functions, `partitions` wide:
/// `scan --cluster local`.
pub fn local_context_with(partitions: usize) -> SessionContext {
    let config = SessionConfig::new().with_target_partitions(partitions.max(1));
    let ctx = SessionContext::new_with_config(client_config(config));
    register(&ctx);
    ctx
}

/// A session that plans locally and runs its plans on the scheduler at
/// `addr` (`host:port`), shuffling into `partitions` parts (more parts,
/// smaller tasks: what keeps each executor within its memory).
pub async fn remote_context(addr: &str, partitions: usize) -> Result<SessionContext> {
    let addr = addr.trim_start_matches("df://");
    let config = client_config(SessionConfig::new_with_ballista())
        .with_target_partitions(partitions.max(1))
        // No broadcast joins: a broadcast side (up to 128 MiB by default)
        // would be held whole by every task that joins with it.
        .set_usize(BALLISTA_BROADCAST_JOIN_THRESHOLD_BYTES, 0)
        .set_usize(BALLISTA_BROADCAST_JOIN_THRESHOLD_ROWS, 0)
        // The shuffle writer spills past 16 MiB a task (default 256 MiB),
        // and coalesces batches of rows as small as the plan's.
        .set_usize(SHUFFLE_SPILL_BYTES, 16 << 20)
        .set_usize(BALLISTA_SHUFFLE_SORT_BASED_BATCH_SIZE, BATCH_ROWS)
        // Shuffle files compressed with zstd rather than lz4: the packed
        // segments (repeated addresses, near buckets) took 44% less at 1M
        // moves (docs/scale-out.md).
        .set_str(BALLISTA_SHUFFLE_COMPRESSION_CODEC, "zstd");
    let state = session_state(config)?
        .upgrade_for_ballista(format!("http://{addr}"))
        .with_context(|| format!("cannot use the scheduler at {addr}"))?;
    let ctx = SessionContext::new_with_state(state);
    register(&ctx);
    Ok(ctx)
}

/// Registers detect's functions in a client session.
fn register(ctx: &SessionContext) {
    ctx.register_udf(part::udf());
    ctx.register_udf(packed::udf());
    ctx.register_udwf(score::udwf());
}

/// Runs a scheduler on `bind` until the process stops.
pub async fn run_scheduler(bind: SocketAddr) -> Result<()> {
    let config = SchedulerConfig {
        bind_host: bind.ip().to_string(),
        ..SchedulerConfig::default()
    }
    .with_hostname(bind.ip().to_string())
    .with_port(bind.port())
    .with_scheduler_policy(TaskSchedulingPolicy::PullStaged)
    .with_override_session_builder(Arc::new(session_state));
    let cluster = BallistaCluster::new_from_config(&config).await?;
    start_server(cluster, bind, Arc::new(config))
        .await
        .with_context(|| format!("the scheduler on {bind} stopped"))
}

/// How an executor is started.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    pub scheduler: SocketAddr,
    /// Address (IP and Arrow Flight port) the executor serves shuffle data on.
    pub bind: SocketAddr,
    /// Tasks run at once.
    pub slots: usize,
    /// Bytes of the DataFusion memory pool shared by its tasks (operators
    /// spill to `work_dir` past it); `None` for no limit.
    pub memory_limit: Option<u64>,
    pub work_dir: Option<PathBuf>,
}

/// Runs an executor with detect's functions until the process stops.
pub async fn run_executor(opt: ExecutorOptions) -> Result<()> {
    let state = session_state(SessionConfig::new_with_ballista())?;
    let registry: BallistaFunctionRegistry = (&state).into();
    let config = ExecutorProcessConfig {
        bind_host: opt.bind.ip().to_string(),
        external_host: Some(opt.bind.ip().to_string()),
        port: opt.bind.port(),
        grpc_port: 0,
        scheduler_host: opt.scheduler.ip().to_string(),
        scheduler_port: opt.scheduler.port(),
        scheduler_connect_timeout_seconds: 30,
        vcores: opt.slots.max(1),
        task_scheduling_policy: TaskSchedulingPolicy::PullStaged,
        work_dir: opt.work_dir.map(|d| d.display().to_string()),
        memory_pool_size: opt.memory_limit,
        print_thread_info: false,
        override_function_registry: Some(Arc::new(registry)),
        ..ExecutorProcessConfig::default()
    };
    start_executor_process(Arc::new(config))
        .await
        .with_context(|| format!("the executor on {} stopped", opt.bind))
}
