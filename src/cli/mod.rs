//! Command-line arguments: every command and flag, in one place.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use store::DEFAULT_DATABASE_URL;

mod model;
pub use model::*;
mod scan;
pub use scan::*;
mod simulation;
pub use simulation::*;
mod workbench;
pub use workbench::*;
mod privacy;
pub use privacy::*;
mod docs;
pub use docs::*;
mod report;
pub use report::*;
#[cfg(feature = "cluster")]
mod cluster;
#[cfg(feature = "cluster")]
pub use cluster::*;

/// Examples and exit statuses at the foot of `detect --help`.
const MAIN_AFTER_HELP: &str = "\
Examples:
  detect ingest examples/sample-season.jsonl
  detect season add 7 --games '^4pLeague_S7_'
  detect report --season 7
  detect explain --season 7 alice bob
  detect report --season 7 --out report/     (HTML with timelines)

Exit status:
  0  done
  1  failed (one sentence on standard error says why), also a report of a
     season without participants
  2  the command line could not be read
  3  report --exit-code only: at least one pair is flagged

Environment: DETECT_DATABASE_URL (the store), NO_COLOR (no colour),
RUST_LOG (log filter), DETECT_IP_KEY (a keyed store hashes every IP address
before storing it with this key).";

/// Finds players who play one asynchronous board game through several
/// accounts, and shows moderators the evidence.
#[derive(Debug, Parser)]
#[command(
    name = "detect",
    version,
    about,
    propagate_version = true,
    after_help = MAIN_AFTER_HELP
)]
pub struct Cli {
    /// The store: an SQLite file (`detect.db`, `sqlite://path`) or a
    /// PostgreSQL URL (`postgres://user:pass@host/db`). Not used by
    /// simulate, demo, completions and man.
    #[arg(long, global = true, env = "DETECT_DATABASE_URL", hide_env_values = true, default_value = DEFAULT_DATABASE_URL, value_name = "URL")]
    pub db: String,

    /// The site: one store holds several game sites, and every command
    /// reads and writes one of them (a username means one account within
    /// its site). Not used by purge (every site), user and audit; the
    /// daemon takes each source's `site` instead.
    #[arg(long, global = true, env = "DETECT_SITE", hide_env_values = true, default_value = store::DEFAULT_SITE, value_parser = parse_site, value_name = "NAME")]
    pub site: String,

    /// More log output on standard error (-v info, -vv debug); RUST_LOG
    /// overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Print only results, warnings and errors: no progress, no notes.
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Colour in help and logs: auto (on a terminal, unless NO_COLOR is
    /// set), always or never.
    #[arg(long, global = true, value_enum, ignore_case = true, default_value_t = crate::ui::ColorWhen::Auto, value_name = "WHEN")]
    pub color: crate::ui::ColorWhen,

    /// Log lines as text or as one JSON object each (for log collectors);
    /// the daemon's configuration may say `log_format` [default: text].
    #[arg(
        long,
        global = true,
        ignore_case = true,
        value_name = "FORMAT",
        value_parser = log_format_parser()
    )]
    pub log_format: Option<crate::logging::LogFormat>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load move logs (JSON lines, CSV, .gz, or - for stdin) into the store.
    Ingest(IngestArgs),
    /// Define seasons, or list them (defined and inferred from game names).
    #[command(
        subcommand,
        after_help = "Examples:\n  detect season add 7 --games '^4pLeague_S7_'\n  detect season list"
    )]
    Season(SeasonCommand),
    /// Print the time-bucket records of every account in a candidate pair of a
    /// season, as JSON lines.
    Buckets(BucketsArgs),
    /// Score a season and store the scan.
    Scan(ScanArgs),
    /// Flagged pairs and cliques of a season (scanning first if needed), or
    /// of log files read straight into memory with --input.
    Report(ReportArgs),
    /// The evidence behind one pair of accounts, in both directions.
    Explain(ExplainArgs),
    /// Draw the SVG timeline of any set of accounts in a season.
    Timeline(TimelineArgs),
    /// Two seasons' score distributions overlaid, as SVG.
    Compare(CompareArgs),
    /// Write a synthetic season with ground truth: moves.jsonl and truth.json.
    Simulate(SimulateArgs),
    /// Precision, recall and more of a season's scan against ground truth.
    Eval(EvalArgs),
    /// Simulate a season, ingest, scan, report and evaluate it, in one go.
    Demo(DemoArgs),
    /// Run scheduled ingests and scans from a TOML configuration.
    Daemon(DaemonArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Examples:\n  detect completions bash > ~/.local/share/bash-completion/completions/detect\n  detect completions zsh > ~/.zfunc/_detect\n  detect completions fish > ~/.config/fish/completions/detect.fish"
    )]
    Completions(CompletionsArgs),
    /// Print the manual page (roff), or write one page per command into a
    /// directory.
    #[command(
        after_help = "Examples:\n  detect man | man -l -\n  detect man --out /usr/local/share/man/man1"
    )]
    Man(ManArgs),
    /// Delete raw moves and IP rows older than a cutoff (scans stay).
    #[command(
        after_help = "Examples:\n  detect purge --older-than 90d\n  detect purge --before 2015-06-01"
    )]
    Purge(PurgeArgs),
    /// Copy the store (SQLite) into a new file, consistently, while the
    /// daemon and the web application run.
    Backup(crate::commands::backup::BackupArgs),
    /// Check a store: its integrity, migrations, segmentations and scans;
    /// one sentence per problem, exit 1 when there is any.
    #[command(
        after_help = "Examples:\n  detect check\n  detect --db postgres://detect@db/detect check"
    )]
    Check,
    /// Which accounts moved from an IP address (hashed with the store's key).
    #[command(subcommand, after_help = "Example:\n  detect ip lookup 192.0.2.7")]
    Ip(IpCommand),
    /// Serve the moderators' web application on the store.
    #[command(
        after_help = "Examples:\n  detect user add ann --role moderator\n  detect serve --listen 127.0.0.1:8080      (behind a TLS reverse proxy)"
    )]
    Serve(ServeArgs),
    /// Manage who may sign in to `detect serve`.
    #[command(
        subcommand,
        after_help = "Examples:\n  detect user add ann --role moderator\n  detect user list\n  detect user remove ann"
    )]
    User(UserCommand),
    /// Record a verdict on a pair or clique of accounts, or list verdicts.
    #[command(
        subcommand,
        after_help = "Examples:\n  detect verdict set u017 u030 --as household --by ann --note 'siblings'\n  detect verdict list --account u017"
    )]
    Verdict(VerdictCommand),
    /// Export the case file of a pair or clique (for an appeal).
    #[command(
        subcommand,
        after_help = "Example:\n  detect case export --season 7 u017 u030 --by ann --out case.html"
    )]
    Case(CaseCommand),
    /// Print the audit log: sign-ins, evidence viewed, verdicts, IP reveals.
    #[command(
        after_help = "Examples:\n  detect audit --since 2026-05-01\n  detect audit --by ann --format json"
    )]
    Audit(AuditArgs),
    /// Improved mode's models: fit one on the site's own verdicts; import,
    /// export and list the store's model versions.
    #[command(
        subcommand,
        after_help = "Examples:\n  detect model fit --season 7 --save\n  detect model list\n  detect model export 2 --out site-model.json\n  detect model import site-model.json"
    )]
    Model(ModelCommand),
    /// Write a season's segments and IP-day rows as Parquet, partitioned by
    /// a hash of the account (docs/scale-out.md).
    #[cfg(feature = "cluster")]
    Export(ExportArgs),
    /// Store the results of a cluster scan (a folder of Parquet files) as a
    /// scan of its season.
    #[cfg(feature = "cluster")]
    ImportScan(ImportScanArgs),
    /// Run a Ballista scheduler for cluster scans.
    #[cfg(feature = "cluster")]
    Scheduler(SchedulerArgs),
    /// Run a Ballista executor with detect's scoring function.
    #[cfg(feature = "cluster")]
    Executor(ExecutorArgs),
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  detect daemon --config /etc/detect/detect.toml\n  detect daemon --config detect.toml --once      (one tick, for cron)"
)]
pub struct DaemonArgs {
    /// The daemon's configuration (TOML); see detect.example.toml.
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// Run one tick (ingest what is new, scan, report) and exit.
    #[arg(long)]
    pub once: bool,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  detect ingest examples/sample-season.jsonl\n  detect ingest logs/*.csv.gz --skip-bad\n  zcat moves.jsonl.gz | detect ingest -"
)]
pub struct IngestArgs {
    /// Move logs: .jsonl, .csv, either gzipped (.gz), or - for standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    /// Skip lines that cannot be read (bad JSON, bad time) instead of
    /// rejecting the whole file; they are counted and the first few listed.
    #[arg(long)]
    pub skip_bad: bool,
    /// Process moves in file order, as the reference implementation did,
    /// instead of sorting them by time.
    #[arg(long)]
    pub reference_order: bool,
    /// Bucket size in minutes for the stored segments.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1440), value_name = "MINUTES")]
    pub bucket_minutes: u32,
    #[command(flatten)]
    pub limits: InputLimits,
}

#[derive(Debug, Subcommand)]
pub enum SeasonCommand {
    /// Define (or redefine) season N; says how many stored games and
    /// accounts it matches, and warns when none.
    #[command(
        after_help = "Examples:\n  detect season add 7                          (games ^4pLeague_S7_, all time)\n  detect season add 7 --from 2015-05-01 --to 2015-06-30 --games '^4pLeague_S7_'"
    )]
    Add(SeasonAddArgs),
    /// List the defined seasons and those inferred from game names.
    #[command(after_help = "Example:\n  detect season list")]
    List,
}

#[derive(Debug, Args)]
pub struct SeasonAddArgs {
    /// The season's number, e.g. 7.
    pub number: u32,
    /// First day of the season (YYYY-MM-DD, UTC); open if absent.
    #[arg(long, value_name = "DAY")]
    pub from: Option<String>,
    /// Last day of the season (YYYY-MM-DD, UTC, inclusive); open if absent.
    #[arg(long, value_name = "DAY")]
    pub to: Option<String>,
    /// Regular expression for the season's game names
    /// [default: ^4pLeague_S{N}_].
    #[arg(long, value_name = "REGEX")]
    pub games: Option<String>,
}

#[derive(Debug, Args)]
#[command(after_help = "Example:\n  detect buckets --season 7 | head")]
pub struct BucketsArgs {
    /// The season (a number from `detect season list`).
    #[arg(long, value_name = "N")]
    pub season: u32,
    /// Print the IPs as stored (raw, or their keyed hashes in a keyed store)
    /// instead of pseudonyms IP-1, IP-2, ...
    #[arg(long)]
    pub show_ips: bool,
    /// Bucket size in minutes.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1440), value_name = "MINUTES")]
    pub bucket_minutes: u32,
}

fn parse_site(s: &str) -> Result<String, String> {
    store::check_site(s)?;
    Ok(s.to_owned())
}

/// Move logs read straight into memory instead of a season of the store,
/// as `report --input` and `export --input` read them.
#[derive(Debug, Args)]
pub struct LogInput {
    /// Move logs read into memory instead of a season of the store (.jsonl,
    /// .csv, either gzipped, or - for standard input), storing nothing; with
    /// `report --cluster`, also one season folder from `detect export`.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub input: Vec<String>,
    /// With --input: the pattern of tournament games
    /// [default: ^4pLeague_S{N}_ with --season N, else ^4pLeague_].
    #[arg(long, requires = "input", value_name = "REGEX")]
    pub games: Option<String>,
    /// With --input: keep file order instead of sorting by time (holds
    /// every segment in memory).
    #[arg(long, requires = "input")]
    pub reference_order: bool,
    #[command(flatten)]
    pub limits: InputLimits,
}

impl LogInput {
    /// The logs as the application reads them, for `season` (its games'
    /// default pattern), within `limits` ([`InputLimits::limits`]).
    pub fn logs<'a>(
        &'a self,
        season: Option<u32>,
        limits: &'a schema::rules::Limits,
    ) -> app::report::season_report::Logs<'a> {
        app::report::season_report::Logs {
            files: &self.input,
            season,
            games: self.games.as_deref(),
            reference_order: self.reference_order,
            limits,
        }
    }
}

/// The record rule's bounds for reading logs (see README, "Input rules").
#[derive(Debug, Args, Clone)]
pub struct InputLimits {
    /// Earliest plausible move time, YYYY-MM-DD (UTC).
    #[arg(long, default_value = "2000-01-01")]
    pub earliest: String,
    /// Latest plausible move time, YYYY-MM-DD (UTC); default one day after now.
    #[arg(long)]
    pub latest: Option<String>,
    /// Bytes per field (username, game, ip).
    #[arg(long, default_value_t = schema::rules::DEFAULT_MAX_FIELD)]
    pub max_field_bytes: usize,
    /// Bytes per line.
    #[arg(long, default_value_t = schema::rules::DEFAULT_MAX_LINE)]
    pub max_line_bytes: usize,
}

impl InputLimits {
    /// The bounds as the reader and the store take them.
    pub fn limits(&self) -> anyhow::Result<schema::rules::Limits> {
        let day = |s: &str| ingest::time::parse_date(s).map_err(anyhow::Error::msg);
        let mut l = schema::rules::Limits {
            earliest: day(&self.earliest)?,
            max_field: self.max_field_bytes,
            max_line: self.max_line_bytes,
            ..Default::default()
        };
        if let Some(latest) = &self.latest {
            // The whole day.
            l.latest = day(latest)? + schema::SECONDS_PER_DAY - 1;
        }
        anyhow::ensure!(l.earliest <= l.latest, "--earliest lies after --latest");
        Ok(l)
    }
}

#[derive(Debug, Args)]
#[command(after_help = "Example:\n  detect scan --season 7 --threshold 0.9")]
pub struct ScanArgs {
    /// The season (a number from `detect season list`).
    #[arg(long, value_name = "N")]
    pub season: u32,
    #[command(flatten)]
    pub scan: ScanOptions,
    /// Run the scan on the Ballista scheduler at this address (host:port),
    /// or `local` for DataFusion in this process; reference mode only.
    #[cfg(feature = "cluster")]
    #[arg(long, value_name = "URL", requires = "work_dir")]
    pub cluster: Option<String>,
    /// With --cluster: the folder the season is exported to and the results
    /// are written to; every executor must read it at the same path.
    #[cfg(feature = "cluster")]
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// With --cluster: parts of the exported season.
    #[cfg(feature = "cluster")]
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub partitions: u32,
}

/// How an evaluation is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EvalFormat {
    /// For people.
    Text,
    /// For machines.
    Json,
}

/// `--log-format`'s values: the names of the application's log formats.
fn log_format_parser() -> impl clap::builder::TypedValueParser<Value = crate::logging::LogFormat> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(crate::logging::LogFormat::NAMES).map(|name| {
        crate::logging::LogFormat::from_name(&name.to_lowercase())
            .expect("a possible value is a format's name")
    })
}

#[cfg(test)]
mod tests;
