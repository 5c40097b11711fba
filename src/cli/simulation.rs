//! The simulator's commands: `detect simulate`, `detect eval` and `detect
//! demo`.

use super::{EvalFormat, ScanOptions};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  detect simulate --seed 3 --accounts 500 --out world/\n  detect ingest world/moves.jsonl && detect eval --season 1 --truth world/truth.json"
)]
pub struct SimulateArgs {
    /// Same seed, same world, byte for byte.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The world family: default, lunch (colleagues at lunch in a fixed
    /// order), couples (hand-overs after an hour, couples at one office),
    /// campus (students behind a campus network), phone-plan (families on
    /// one phone plan, crowded carrier NAT), sparse (few moves, games
    /// waiting for days), fast (a move in seconds) or careful (owners without
    /// the owner-side habits). EVALUATION.md describes each.
    #[arg(long, default_value = "default", value_name = "NAME", value_parser = sim::Family::parse)]
    pub family: sim::Family,
    /// Accounts on the site (about 12 moves per account and day; default:
    /// the family's, 300 in the default world).
    // `--players`: its former name, a hidden alias for one release.
    #[arg(long, alias = "players", value_name = "N")]
    pub accounts: Option<usize>,
    /// Length of the simulated season, in days.
    #[arg(long, default_value_t = 28, value_name = "N")]
    pub days: u32,
    /// People who play several accounts (default: the family's, 12 in the
    /// default world).
    #[arg(long, value_name = "N")]
    pub cliques: Option<usize>,
    /// The season number of the league games (4pLeague_S{N}_...).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub season: u32,
    /// Crowded carrier NAT: about this many phone players per carrier
    /// address (default: the family's; about three in the default world).
    #[arg(long)]
    pub nat_crowd: Option<u32>,
    /// Directory for moves.jsonl and truth.json (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
#[command(after_help = "Example:\n  detect eval --season 1 --truth world/truth.json --format json")]
pub struct EvalArgs {
    /// The season (a number from `detect season list`).
    #[arg(long, value_name = "N")]
    pub season: u32,
    /// The simulator's truth.json.
    #[arg(long, value_name = "FILE")]
    pub truth: PathBuf,
    /// Output format.
    #[arg(long, value_enum, ignore_case = true, default_value_t = EvalFormat::Text)]
    pub format: EvalFormat,
    #[command(flatten)]
    pub scan: ScanOptions,
}

#[derive(Debug, Args)]
#[command(after_help = "Example:\n  detect demo && xdg-open demo-out/report/index.html")]
pub struct DemoArgs {
    /// Where the demo writes its store (detect.db), log and report.
    #[arg(long, default_value = "demo-out", value_name = "DIR")]
    pub dir: PathBuf,
    /// The simulated world's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}
