//! Command-line arguments: every command and flag, in one place.

use clap::{Args, Parser, Subcommand, ValueEnum};
use schema::store::DEFAULT_DATABASE_URL;
use std::path::PathBuf;

/// Finds players who play one asynchronous board game through several
/// accounts, and shows moderators the evidence.
#[derive(Debug, Parser)]
#[command(
    name = "detect",
    version,
    about,
    propagate_version = true,
    after_help = "A keyed store hashes every IP address before storing it: set DETECT_IP_KEY to its key."
)]
pub struct Cli {
    /// The store: an SQLite file (`detect.db`, `sqlite://path`) or a
    /// PostgreSQL URL (`postgres://user:pass@host/db`).
    #[arg(long, global = true, env = "DETECT_DATABASE_URL", hide_env_values = true, default_value = DEFAULT_DATABASE_URL)]
    pub db: String,

    /// More log output on standard error (-v info, -vv debug); RUST_LOG
    /// overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load move logs (JSON lines, CSV, .gz, or - for stdin) into the store.
    Ingest(IngestArgs),
    /// Define seasons, or list them (defined and inferred from game names).
    #[command(subcommand)]
    Season(SeasonCommand),
    /// Print the time-bucket records of every user in a candidate pair of a
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
    /// Delete raw moves and IP rows older than a cutoff (scans stay).
    Purge(crate::commands::purge::PurgeArgs),
    /// Which accounts moved from an IP address (hashed with the store's key).
    #[command(subcommand)]
    Ip(crate::commands::ip::IpCommand),
    /// Serve the moderators' web application on the store.
    Serve(ServeArgs),
    /// Manage who may sign in to `detect serve`.
    #[command(subcommand)]
    User(UserCommand),
    /// Record a verdict on a pair or clique of accounts, or list verdicts.
    #[command(subcommand)]
    Verdict(VerdictCommand),
    /// Print the audit log: sign-ins, evidence viewed, verdicts, IP reveals.
    Audit(AuditArgs),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address and port to listen on (keep it on loopback behind a TLS
    /// reverse proxy).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Mark the session cookie Secure (the site is served over HTTPS).
    /// Requests with X-Forwarded-Proto: https get it anyway.
    #[arg(long)]
    pub secure_cookies: bool,
    /// How long a sign-in lasts.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=720))]
    pub session_hours: u32,
}

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Add a user; the password is the first line of standard input.
    Add(UserAddArgs),
    /// List the users and their roles.
    List,
    /// Remove a user (and end their sessions).
    Remove { name: String },
}

#[derive(Debug, Args)]
pub struct UserAddArgs {
    pub name: String,
    /// viewer (reads), moderator (also records verdicts) or admin (also
    /// manages users, reads the audit log, may reveal raw IPs).
    #[arg(long, value_parser = clap::value_parser!(schema::store::Role))]
    pub role: schema::store::Role,
    /// Set the role and password of an existing user instead of refusing.
    #[arg(long)]
    pub update: bool,
}

#[derive(Debug, Args)]
pub struct DaemonArgs {
    /// The daemon's configuration (TOML); see detect.example.toml.
    #[arg(long)]
    pub config: PathBuf,
    /// Run one tick (ingest what is new, scan, report) and exit.
    #[arg(long)]
    pub once: bool,
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Move logs: .jsonl, .csv, either gzipped (.gz), or - for standard input.
    #[arg(required = true)]
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
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1440))]
    pub bucket_minutes: u32,
}

#[derive(Debug, Subcommand)]
pub enum SeasonCommand {
    /// Define (or redefine) season N.
    Add(SeasonAddArgs),
    /// List the defined seasons and those inferred from game names.
    List,
}

#[derive(Debug, Args)]
pub struct SeasonAddArgs {
    pub number: u32,
    /// First day of the season (YYYY-MM-DD, UTC); open if absent.
    #[arg(long)]
    pub from: Option<String>,
    /// Last day of the season (YYYY-MM-DD, UTC, inclusive); open if absent.
    #[arg(long)]
    pub to: Option<String>,
    /// Regular expression for the season's game names
    /// [default: ^4pLeague_S{N}_].
    #[arg(long)]
    pub games: Option<String>,
}

#[derive(Debug, Args)]
pub struct BucketsArgs {
    #[arg(long)]
    pub season: u32,
    /// Print the IPs as stored (raw, or their keyed hashes in a keyed store)
    /// instead of pseudonyms IP-1, IP-2, ...
    #[arg(long)]
    pub show_ips: bool,
    /// Bucket size in minutes.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1440))]
    pub bucket_minutes: u32,
}

#[derive(Debug, Args, Clone)]
pub struct ScanOptions {
    /// Flag directed pairs at or above this similarity.
    #[arg(long, default_value_t = 0.9)]
    pub threshold: f64,
    /// Bucket size in minutes.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1440))]
    pub bucket_minutes: u32,
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    #[arg(long)]
    pub season: u32,
    #[command(flatten)]
    pub scan: ScanOptions,
}

/// How a report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Csv,
    /// The HTML page (its pictures come with --out DIR).
    Html,
}

/// How an evaluation is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EvalFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The season to report on (from the store).
    #[arg(long, required_unless_present = "input")]
    pub season: Option<u32>,
    /// Analyse these log files in memory instead, storing nothing.
    #[arg(long, num_args = 1.., conflicts_with = "out")]
    pub input: Vec<String>,
    /// With --input: the pattern of tournament games
    /// [default: ^4pLeague_S{N}_ with --season N, else ^4pLeague_].
    #[arg(long, requires = "input")]
    pub games: Option<String>,
    /// With --input: keep file order instead of sorting by time.
    #[arg(long, requires = "input")]
    pub reference_order: bool,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// List every scored candidate pair, not only flagged ones.
    #[arg(long)]
    pub all: bool,
    /// Also write an HTML report with SVG pictures into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Show raw IP addresses instead of pseudonyms in pictures.
    #[arg(long)]
    pub show_ips: bool,
    /// A known relationship (different people, cleared) is flagged again,
    /// re-opened, when its similarity rises more than this above the level
    /// at which it was decided.
    #[arg(long, default_value_t = scoring::DEFAULT_REOPEN_MARGIN)]
    pub reopen_margin: f64,
    #[command(flatten)]
    pub scan: ScanOptions,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[arg(long)]
    pub season: u32,
    pub user_a: String,
    pub user_b: String,
    /// How many of the strongest buckets to list per direction.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Show raw IP addresses instead of pseudonyms.
    #[arg(long)]
    pub show_ips: bool,
    #[command(flatten)]
    pub scan: ScanOptions,
}

#[derive(Debug, Args)]
pub struct TimelineArgs {
    #[arg(long)]
    pub season: u32,
    /// The accounts to draw.
    #[arg(required = true)]
    pub users: Vec<String>,
    /// Write the SVG here (default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Label IP columns with raw addresses instead of pseudonyms.
    #[arg(long)]
    pub show_ips: bool,
    /// Bucket size in minutes.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1440))]
    pub bucket_minutes: u32,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Two seasons: --season 6 --season 7.
    #[arg(long = "season", num_args = 1, required = true)]
    pub seasons: Vec<u32>,
    /// Write the SVG here (default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub scan: ScanOptions,
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Same seed, same world, byte for byte.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Accounts on the site (about 12 moves per account and day).
    #[arg(long, default_value_t = 300)]
    pub players: usize,
    #[arg(long, default_value_t = 28)]
    pub days: u32,
    /// People who play several accounts.
    #[arg(long, default_value_t = 12)]
    pub cliques: usize,
    /// The season number of the league games (4pLeague_S{N}_...).
    #[arg(long, default_value_t = 1)]
    pub season: u32,
    /// Directory for moves.jsonl and truth.json (created if missing).
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    #[arg(long)]
    pub season: u32,
    /// The simulator's truth.json.
    #[arg(long)]
    pub truth: PathBuf,
    #[arg(long, value_enum, default_value_t = EvalFormat::Text)]
    pub format: EvalFormat,
    #[command(flatten)]
    pub scan: ScanOptions,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where the demo writes its store (detect.db), log and report.
    #[arg(long, default_value = "demo-out")]
    pub dir: PathBuf,
    /// The simulated world's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Debug, Subcommand)]
pub enum VerdictCommand {
    /// Record a verdict: two accounts for a pair, more for a whole clique.
    /// A newer verdict supersedes an older one; none is ever deleted.
    Set(VerdictSetArgs),
    /// List verdicts, newest first.
    List(VerdictListArgs),
}

#[derive(Debug, Args)]
pub struct VerdictSetArgs {
    /// The accounts: two for a pair, more for a clique.
    #[arg(required = true, num_args = 2..)]
    pub accounts: Vec<String>,
    /// same-person, suspicious, household, shared-network or cleared.
    #[arg(long = "as", value_name = "KIND")]
    pub kind: schema::VerdictKind,
    /// Why (kept for appeals).
    #[arg(long, default_value = "")]
    pub note: String,
    /// Who decided.
    #[arg(long)]
    pub by: String,
    /// The season the decision is about; its newest scan gives the similarity
    /// at decision time [default: the newest scan holding these accounts].
    #[arg(long)]
    pub season: Option<u32>,
}

#[derive(Debug, Args)]
pub struct VerdictListArgs {
    /// Only verdicts naming this account.
    #[arg(long)]
    pub account: Option<String>,
    #[arg(long, value_enum, default_value_t = EvalFormat::Text)]
    pub format: EvalFormat,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Only entries from this day on (YYYY-MM-DD, UTC) or this moment
    /// (YYYY-MM-DD HH:MM:SS, UTC).
    #[arg(long)]
    pub since: Option<String>,
    /// Only entries by this user.
    #[arg(long)]
    pub by: Option<String>,
    #[arg(long, value_enum, default_value_t = EvalFormat::Text)]
    pub format: EvalFormat,
}
