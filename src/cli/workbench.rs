//! The workbench's commands: `detect serve`, `detect user`, `detect verdict`
//! and `detect audit`.

use super::EvalFormat;
use clap::{Args, Subcommand};

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
    /// A reverse proxy (an address, or a network such as 10.0.0.0/8) whose
    /// X-Forwarded-For names the client; repeat for more. Without one the
    /// client is the connection's peer.
    #[arg(long = "trusted-proxy", value_name = "ADDR")]
    pub trusted_proxies: Vec<String>,
    /// Password checks run at once (each takes about 19 MiB); a sign-in
    /// waits up to 3 s for its turn, then is told to come back
    /// [default: half the cores, at least 1].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub sign_ins_at_once: Option<u32>,
    /// Connections open at once; more wait to be accepted.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub max_connections: u32,
    /// Seconds a connection may take to send a request's head (and stay
    /// idle between requests), and a request its body.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=600))]
    pub request_timeout: u32,
    /// Serve /metrics (Prometheus text format) to a scraper that sends
    /// `Authorization: Bearer TOKEN`, TOKEN being this file's first line.
    /// Without it there is no /metrics.
    #[arg(long, env = "DETECT_METRICS_TOKEN_FILE", value_name = "FILE")]
    pub metrics_token_file: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Add a user; the password is asked for on a terminal (twice, not
    /// shown), else read from the first line of standard input.
    #[command(
        after_help = "Examples:\n  detect user add ann --role moderator          (asks for the password)\n  printf '%s\\n' \"$PASS\" | detect user add bot --role viewer\n  detect user add ann --role admin --update"
    )]
    Add(UserAddArgs),
    /// List the users and their roles.
    #[command(after_help = "Example:\n  detect user list")]
    List,
    /// Remove a user (and end their sessions).
    #[command(after_help = "Example:\n  detect user remove ann")]
    Remove { name: String },
}

#[derive(Debug, Args)]
pub struct UserAddArgs {
    pub name: String,
    /// viewer (reads), moderator (also records verdicts) or admin (also
    /// manages users, reads the audit log, may reveal raw IPs).
    #[arg(long, value_parser = clap::value_parser!(store::Role))]
    pub role: store::Role,
    /// Set the role and password of an existing user instead of refusing.
    #[arg(long)]
    pub update: bool,
}

#[derive(Debug, Subcommand)]
pub enum VerdictCommand {
    /// Record a verdict: two accounts for a pair, more for a whole clique.
    /// A newer verdict supersedes an older one; none is ever deleted.
    #[command(
        after_help = "Examples:\n  detect verdict set u017 u030 --as household --by ann --note 'siblings'\n  detect verdict set u014 u019 u011 --as same-person --by ann     (a clique)\n  detect verdict set u017 u030 --as cleared --by bo --supersedes 4 --note 'wrong pair'\n  detect verdict set u017 old_acct --as same-person --by ann --unseen"
    )]
    Set(VerdictSetArgs),
    /// List verdicts, newest first.
    #[command(
        after_help = "Examples:\n  detect verdict list\n  detect verdict list --account u017 --format json"
    )]
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
    /// Record it even though an account has no stored move on this site
    /// (recorded as such); without it such a verdict is refused.
    #[arg(long)]
    pub unseen: bool,
    /// Correct verdict #ID (on the same accounts; --note says why). Both
    /// stay in the log; the newer one rules.
    #[arg(long, value_name = "ID", requires = "note")]
    pub supersedes: Option<i64>,
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

#[derive(Debug, Subcommand)]
pub enum CaseCommand {
    /// Write the case file of a pair or a clique for an appeal: one
    /// self-contained HTML file (scores, evidence, timeline, verdict
    /// history; IPs as the season's pseudonyms), the same as the web's
    /// "Export case file".
    #[command(
        after_help = "Examples:\n  detect case export --season 7 u017 u030 --by ann --out case-u017-u030.html\n  detect case export --season 7 --clique 2 --by ann --out case-clique2.html"
    )]
    Export(CaseExportArgs),
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("case").required(true).args(["accounts", "clique"])))]
pub struct CaseExportArgs {
    /// The season (a number from `detect season list`); its latest scan.
    #[arg(long, value_name = "N")]
    pub season: u32,
    /// The pair's two accounts.
    #[arg(num_args = 2, value_name = "ACCOUNT")]
    pub accounts: Vec<String>,
    /// The clique numbered K in the season's report (instead of a pair).
    #[arg(long, value_name = "K", conflicts_with = "accounts")]
    pub clique: Option<usize>,
    /// Who exports it (named in the file and the audit log).
    #[arg(long)]
    pub by: String,
    /// The file to write.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub out: std::path::PathBuf,
}
