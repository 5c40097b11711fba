//! The cluster commands' arguments (feature `cluster`): export, import-scan,
//! scheduler, executor.

use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  detect export --season 7 --out season-7/\n  detect export --input moves-*.jsonl.gz --games '^4pLeague_S7_' --out season-7/"
)]
pub struct ExportArgs {
    /// The season (a number from `detect season list`), from the store.
    #[arg(
        long,
        required_unless_present = "input",
        conflicts_with = "input",
        value_name = "N"
    )]
    pub season: Option<u32>,
    #[command(flatten)]
    pub logs: super::LogInput,
    /// The folder to write (meta.json, segments/, ip_days/): absent or
    /// empty; see docs/scale-out.md for the layout. Written beside it first
    /// and renamed into place, so a failed export leaves no folder.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Parts per table; an account's rows go to one part by a hash of the name.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub partitions: u32,
    /// Bucket size in minutes.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1440), value_name = "MINUTES")]
    pub bucket_minutes: u32,
}

#[derive(Debug, Args)]
#[command(after_help = "Example:\n  detect import-scan work/scan/")]
pub struct ImportScanArgs {
    /// A scan's results folder (pairs.parquet, crowded.parquet, meta.json,
    /// params.json), as `detect scan --cluster` writes it.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
#[command(after_help = "Example:\n  detect scheduler --bind 127.0.0.1:50050")]
pub struct SchedulerArgs {
    /// Address the scheduler listens on (gRPC).
    #[arg(long, default_value = "127.0.0.1:50050", value_name = "ADDR")]
    pub bind: SocketAddr,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  detect executor --scheduler 127.0.0.1:50050 --bind 127.0.0.1:50051 --memory-limit-mb 512"
)]
pub struct ExecutorArgs {
    /// The scheduler's address.
    #[arg(long, default_value = "127.0.0.1:50050", value_name = "ADDR")]
    pub scheduler: SocketAddr,
    /// Address the executor serves its shuffle data on (Arrow Flight).
    #[arg(long, default_value = "127.0.0.1:50051", value_name = "ADDR")]
    pub bind: SocketAddr,
    /// Tasks run at once.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub slots: u32,
    /// Memory pool of the executor's tasks, in MiB; joins and aggregations
    /// spill to the work folder past it. No limit if absent.
    #[arg(long, value_name = "MIB")]
    pub memory_limit_mb: Option<u64>,
    /// Folder for shuffle files and spills [default: a temporary folder].
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
}
