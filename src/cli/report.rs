//! What a moderator reads of a season: the report (from the store, or
//! logs read into memory, or scanned on a cluster), the evidence of one
//! pair, timelines and the comparison of two seasons.

use super::{LogInput, ScanOptions};
use clap::Args;
use std::path::PathBuf;

/// How a report is printed.
pub use app::report::season_report::Format;

const REPORT_AFTER_HELP: &str = "\
Examples:
  detect report --season 7
  detect report --season 7 --out report/          (also report/index.html)
  detect report --season 7 --format csv --all > pairs.csv
  detect report --input moves.jsonl --games '^4pLeague_S7_'
  detect report --season 7 --exit-code -q || mail-moderators   (cron)

A flag is a reason to look, not a verdict: people sharing a home or an office
are the usual false positives. `detect explain` shows the evidence.";

#[derive(Debug, Args)]
#[command(after_help = REPORT_AFTER_HELP)]
pub struct ReportArgs {
    /// The season to report on (from the store).
    #[arg(long, required_unless_present = "input", value_name = "N")]
    pub season: Option<u32>,
    #[command(flatten)]
    pub logs: LogInput,
    /// Output format.
    #[arg(long, value_enum, ignore_case = true, default_value_t = Format::Text)]
    pub format: Format,
    /// List every scored candidate pair, not only flagged ones.
    #[arg(long)]
    pub all: bool,
    /// Also write an HTML report with SVG pictures into this directory.
    #[arg(long, value_name = "DIR", conflicts_with = "input")]
    pub out: Option<PathBuf>,
    /// Show raw IP addresses instead of pseudonyms in pictures.
    #[arg(long)]
    pub show_ips: bool,
    /// Exit with status 3 when at least one pair is flagged (for cron jobs);
    /// without it a report that ran exits 0.
    #[arg(long)]
    pub exit_code: bool,
    /// A known relationship (different people, cleared) is flagged again,
    /// re-opened, when its similarity rises more than this above the level
    /// at which it was decided.
    #[arg(long, default_value_t = scoring::DEFAULT_REOPEN_MARGIN)]
    pub reopen_margin: f64,
    #[command(flatten)]
    pub scan: ScanOptions,
    /// Scan --input on the Ballista scheduler at this address (host:port),
    /// or `local` for DataFusion in this process; reference mode only.
    #[cfg(feature = "cluster")]
    #[arg(long, value_name = "URL", requires_all = ["input", "work_dir"])]
    pub cluster: Option<String>,
    /// With --cluster: the folder logs are exported to (season-N) and the
    /// results written to (scan-N); every executor must read it at the same path.
    #[cfg(feature = "cluster")]
    #[arg(long, value_name = "DIR", requires = "cluster")]
    pub work_dir: Option<PathBuf>,
    /// With --cluster: parts of the exported logs, and the scan's width.
    #[cfg(feature = "cluster")]
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub partitions: u32,
}

#[derive(Debug, Args)]
#[command(after_help = "Example:\n  detect explain --season 7 alice bob --top 5")]
pub struct ExplainArgs {
    /// The season (a number from `detect season list`).
    #[arg(long, value_name = "N")]
    pub season: u32,
    /// One account of the pair.
    pub account_a: String,
    /// The other account.
    pub account_b: String,
    /// How many of the strongest buckets to list per direction.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub top: usize,
    /// Show raw IP addresses instead of pseudonyms.
    #[arg(long)]
    pub show_ips: bool,
    #[command(flatten)]
    pub scan: ScanOptions,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  detect timeline --season 7 -o t.svg alice bob\n  detect timeline --season 7 alice bob carol > t.svg"
)]
pub struct TimelineArgs {
    /// The season (a number from `detect season list`).
    #[arg(long, value_name = "N")]
    pub season: u32,
    /// The accounts to draw.
    #[arg(required = true, value_name = "ACCOUNT")]
    pub accounts: Vec<String>,
    /// Write the SVG here (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Label IP columns with raw addresses instead of pseudonyms.
    #[arg(long)]
    pub show_ips: bool,
    /// Bucket size in minutes.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1440), value_name = "MINUTES")]
    pub bucket_minutes: u32,
}

#[derive(Debug, Args)]
#[command(after_help = "Example:\n  detect compare --season 6 --season 7 -o compare.svg")]
pub struct CompareArgs {
    /// Two seasons: --season 6 --season 7.
    #[arg(long = "season", num_args = 1, required = true, value_name = "N")]
    pub seasons: Vec<u32>,
    /// Write the SVG here (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub scan: ScanOptions,
}
