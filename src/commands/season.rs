//! `detect season add|list`

use crate::cli::SeasonCommand;
use anyhow::{Context, Result};
use app::pipeline;
use ingest::time::parse_date;
use schema::season::seasons_in_game_names;
use schema::{Season, SECONDS_PER_DAY};

pub async fn run(db: &app::pipeline::Db, cmd: SeasonCommand) -> Result<()> {
    let store = pipeline::open_store(db).await?;
    match cmd {
        SeasonCommand::Add(a) => {
            let from = a
                .from
                .as_deref()
                .map(parse_date)
                .transpose()
                .map_err(anyhow::Error::msg)
                .context("--from")?;
            let to =
                a.to.as_deref()
                    .map(|d| parse_date(d).map(|t| t + SECONDS_PER_DAY))
                    .transpose()
                    .map_err(anyhow::Error::msg)
                    .context("--to")?;
            let season = Season::new(a.number, from, to, a.games)?;
            store.put_season(&season).await?;
            println!("season {}: {}", season.number, describe(&season));
            let (games, accounts) = matches(&store, &season).await?;
            println!(
                "  matches {games} stored game{} and {accounts} account{}",
                plural(games),
                plural(accounts)
            );
            if accounts == 0 {
                let names = store.game_names().await?;
                let sample: Vec<&str> = names.iter().take(3).map(String::as_str).collect();
                crate::ui::warn(format!(
                    "season {} matches no stored move, so its report would be empty; {}",
                    season.number,
                    if sample.is_empty() {
                        "the store holds no games yet (detect ingest FILE)".to_owned()
                    } else {
                        format!(
                            "check the pattern and the days against the stored games (e.g. {})",
                            sample.join(", ")
                        )
                    }
                ));
            }
        }
        SeasonCommand::List => {
            let defined = store.seasons().await?;
            let games = store.game_names().await?;
            let inferred = seasons_in_game_names(games.iter().map(String::as_str));
            if defined.is_empty() && inferred.is_empty() {
                println!("no seasons: define one with `detect season add N` or ingest games named 4pLeague_S<N>_...");
            }
            for s in &defined {
                println!("season {}: {}", s.number, describe(s));
            }
            for n in inferred {
                if !defined.iter().any(|s| s.number == n) {
                    let s = Season::inferred(n);
                    println!("season {}: {} (inferred from game names)", n, describe(&s));
                }
            }
        }
    }
    store.close().await;
    Ok(())
}

/// How many stored games and accounts (participants) a season matches,
/// within its days.
async fn matches(store: &store::Store, season: &Season) -> Result<(usize, usize)> {
    let segments = pipeline::segments(store, pipeline::bucket_seconds(30), None).await?;
    let accounts = scoring::participants(&segments, season)?.len();
    let re = season.games_regex()?;
    let mut games: Vec<u32> = segments
        .game_days
        .iter()
        .filter(|gd| re.is_match(segments.games.name(gd.game)))
        .filter(|gd| scoring::days_in_season(gd.first_day, gd.last_day, season))
        .map(|gd| gd.game)
        .collect();
    games.sort_unstable();
    games.dedup();
    Ok((games.len(), accounts))
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

pub use viz::guide::season_words as describe;
