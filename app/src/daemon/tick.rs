//! One tick: ingest what is new from every source; on a scan tick, also
//! rescan the active seasons, write their reports and log what changed.

use super::alerts;
use super::config::{Config, Seasons};
use super::reports::{publish, Published, Written};
use super::scans::{current_scan, loaded, HeldScan, TickSegments};
use super::sources::Live;
use super::Control;
use crate::pipeline::{self, bucket_seconds, rethreshold, HeldSegments};
use crate::report::known::Reviewed;
use anyhow::Result;
use schema::season::seasons_in_game_names;
use schema::{ScanParams, ScanResult, Season, Segments};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use store::Store;

/// What a tick does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Ingest what is new.
    Ingest,
    /// Ingest what is new, then rescan the active seasons and write their
    /// reports.
    Scan,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Ingest => "ingest",
            Kind::Scan => "scan",
        }
    }
}

/// What the daemon remembers from one tick to the next.
pub struct Memory {
    /// Each source with the site its moves belong to.
    pub sources: Vec<(String, Live)>,
    /// The flags of each season's last scan, by site and season, to log
    /// what is new.
    flags: HashMap<(String, u32), Flags>,
    /// The seasons found active per site, and the site's moves generation
    /// they were found at.
    active: HashMap<String, (i64, Vec<u32>)>,
    /// Each site's segments, held from one scan tick to the next.
    segments: HashMap<String, HeldSegments>,
    /// What is held of each season's last scan (every pair's similarity
    /// for the chart, the next rescan's base), by site and season.
    latest: HashMap<(String, u32), HeldScan>,
    /// What each season's report was last written from, and its files.
    reports: Written,
}

impl Memory {
    pub fn new(sources: Vec<(String, Live)>) -> Memory {
        Memory {
            sources,
            flags: HashMap::new(),
            active: HashMap::new(),
            segments: HashMap::new(),
            latest: HashMap::new(),
            reports: HashMap::new(),
        }
    }
}

/// The flagged directed pairs and cliques of a scan.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Flags {
    /// Each flagged pair once (names in order), at the larger similarity
    /// of its flagged directions: a pair is logged once, not per direction.
    pairs: BTreeMap<(String, String), f64>,
    cliques: BTreeSet<Vec<String>>,
}

/// Flagged directions `(a, b, similarity)` as unordered pairs, each at its
/// larger similarity.
fn unordered<'a>(
    directions: impl Iterator<Item = (&'a str, &'a str, f64)>,
) -> BTreeMap<(String, String), f64> {
    let mut pairs: BTreeMap<(String, String), f64> = BTreeMap::new();
    for (a, b, s) in directions {
        let key = if a <= b { (a, b) } else { (b, a) };
        let e = pairs
            .entry((key.0.to_owned(), key.1.to_owned()))
            .or_insert(s);
        *e = e.max(s);
    }
    pairs
}

impl Flags {
    pub fn of(result: &ScanResult) -> Flags {
        Flags {
            pairs: unordered(
                result
                    .flagged()
                    .map(|p| (p.account_a.as_str(), p.account_b.as_str(), p.similarity)),
            ),
            cliques: result.cliques.iter().map(|c| c.members.clone()).collect(),
        }
    }

    /// Log lines for what `self` has that `before` had not, and what it lost.
    pub fn changes_since(&self, before: &Flags) -> Vec<String> {
        // Names are escaped: a newline in one must not forge a log line.
        let t = |n: &str| viz::escape::terminal(n).into_owned();
        let mut lines = Vec::new();
        for ((a, b), s) in &self.pairs {
            if !before.pairs.contains_key(&(a.clone(), b.clone())) {
                let (a, b) = (t(a), t(b));
                lines.push(format!("newly flagged: {a} and {b} {s:.4}"));
            }
        }
        for c in &self.cliques {
            if !before.cliques.contains(c) {
                let names: Vec<String> = c.iter().map(|n| t(n)).collect();
                lines.push(format!("new clique: {}", names.join(", ")));
            }
        }
        for ((a, b), s) in &before.pairs {
            if !self.pairs.contains_key(&(a.clone(), b.clone())) {
                let (a, b) = (t(a), t(b));
                lines.push(format!("no longer flagged: {a} and {b} (was {s:.4})"));
            }
        }
        lines
    }
}

/// How a tick went.
#[derive(Debug, Default)]
pub struct Outcome {
    pub new_moves: u64,
    /// Each one sentence, already logged as a warning.
    pub problems: Vec<String>,
}

/// The fixed parts of every tick.
pub struct Context {
    pub config: Config,
    pub store: Store,
    pub control: Control,
}

impl Context {
    fn params(&self) -> ScanParams {
        ScanParams {
            threshold: self.config.threshold,
            bucket_seconds: bucket_seconds(self.config.bucket_minutes),
            mode: self.config.mode,
            ..ScanParams::default()
        }
    }
}

/// Runs one tick.
pub async fn run(ctx: &Context, memory: &mut Memory, kind: Kind) -> Outcome {
    let mut out = Outcome::default();
    for (site, source) in &mut memory.sources {
        if ctx.control.stopping() {
            return out;
        }
        let store = ctx
            .store
            .clone()
            .with_site(site)
            .expect("checked by the configuration");
        let pulled = source.pull(&store, &ctx.control).await;
        out.new_moves += pulled.new_moves;
        metrics::counter!("detect_moves_ingested_total", "site" => site.clone())
            .increment(pulled.new_moves);
        out.problems.extend(pulled.problems);
    }
    if let Err(e) = super::retention::apply_daily(&ctx.store, ctx.config.retention_days).await {
        let m = format!("the daily purge failed: {}", crate::error_sentence(&e));
        tracing::warn!("{m}");
        out.problems.push(m);
    }
    ctx.control.pause_between_steps().await;
    if kind == Kind::Scan {
        // Each site on its own: its seasons, scans and reports.
        for site in ctx.config.sites() {
            if ctx.control.stopping() {
                break;
            }
            let store = ctx
                .store
                .clone()
                .with_site(&site)
                .expect("checked by the configuration");
            if let Err(e) = scan_seasons(ctx, &store, memory, &mut out).await {
                let m = crate::error_sentence(&e);
                let m = if site == store::DEFAULT_SITE {
                    m
                } else {
                    format!("site {site}: {m}")
                };
                tracing::warn!("the scan failed: {m}");
                out.problems.push(m);
            }
        }
    }
    out
}

/// Scans the site's seasons with its segments held from the last tick,
/// kept for the next one (a tick that fails keeps them too: the accounts it
/// left half read are read again, as their rows are still newer than the
/// copy).
async fn scan_seasons(
    ctx: &Context,
    store: &Store,
    memory: &mut Memory,
    out: &mut Outcome,
) -> Result<()> {
    let site = store.site().to_owned();
    let held = memory.segments.remove(&site).unwrap_or_default();
    let mut segments = TickSegments::new(held);
    let scanned = scan_seasons_with(ctx, store, memory, out, &mut segments).await;
    memory.segments.insert(site, segments.held);
    scanned
}

async fn scan_seasons_with(
    ctx: &Context,
    store: &Store,
    memory: &mut Memory,
    out: &mut Outcome,
    segments: &mut TickSegments,
) -> Result<()> {
    let params = ctx.params();
    let generation = store.moves_generation().await?;
    let numbers = match &ctx.config.seasons {
        Seasons::List(ns) => ns.clone(),
        Seasons::Current => match memory.active.get(store.site()) {
            Some((g, ns)) if *g == generation => ns.clone(),
            _ => {
                let segs = loaded(store, &params, segments).await?;
                let ns = active_seasons(store, segs, ctx.config.current_days).await?;
                memory
                    .active
                    .insert(store.site().to_owned(), (generation, ns.clone()));
                if ns.is_empty() {
                    tracing::info!(
                        "no season has moves in the {} days up to the newest stored move: nothing to scan",
                        ctx.config.current_days
                    );
                }
                ns
            }
        },
    };
    // A season no longer scanned lets go of what is held of its scan.
    memory
        .latest
        .retain(|(site, n), _| site != store.site() || numbers.contains(n));
    for n in numbers {
        if ctx.control.stopping() {
            break;
        }
        let scanned = scan_season(ctx, store, memory, n, generation, &params, segments);
        if let Err(e) = scanned.await {
            let m = format!("season {n}: {}", crate::error_sentence(&e));
            tracing::warn!("{m}");
            out.problems.push(m);
        }
    }
    Ok(())
}

/// Rescans one season if its moves or definition changed, writes its
/// report, and logs its summary and what is newly flagged.
async fn scan_season(
    ctx: &Context,
    store: &Store,
    memory: &mut Memory,
    number: u32,
    generation: i64,
    params: &ScanParams,
    segments: &mut TickSegments,
) -> Result<()> {
    let season = pipeline::resolve_season(store, number).await?;
    // Only the pairs flagged at this threshold, to compare the new scan
    // with: every pair is read only when the latest scan is reused.
    let latest = store.latest_scan_at_least(number, params.threshold).await?;
    let flags_key = (store.site().to_owned(), number);
    let label = label(store, number);
    let before = memory.flags.remove(&flags_key).or_else(|| {
        latest.as_ref().map(|l| {
            let mut r = l.result.clone();
            rethreshold(&mut r, params.threshold);
            Flags::of(&r)
        })
    });
    let mut held = memory.latest.remove(&flags_key).unwrap_or_default();
    let (scan, fresh, similarities) = current_scan(
        &ctx.config,
        store,
        &season,
        latest,
        params,
        generation,
        (segments, &mut held),
    )
    .await?;
    memory.latest.insert(flags_key.clone(), held);
    ctx.control.pause_between_steps().await;
    let started = std::time::Instant::now();
    let verdicts = store.verdicts().await?;
    let reviewed = Reviewed::new(&scan.result, &verdicts, false, ctx.config.reopen_margin);
    let published = Published {
        label: &label,
        dir: ctx.config.site_report_dir(store.site()),
        scan: &scan,
        fresh,
        generation,
        similarities: similarities.as_deref(),
        verdicts: &verdicts,
        reviewed: &reviewed,
    };
    let files = publish(store, &mut memory.reports, &season, published, segments).await?;
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "{label}: report published"
    );
    let s = crate::report::summary(&scan.result);
    metrics::gauge!("detect_pairs_flagged", "site" => store.site().to_owned(),
        "season" => number.to_string())
    .set(s.flagged_pairs as f64);
    tracing::info!(
        "{label}: {} participants, {} candidate pairs, {} flagged pairs, {} cliques; scan #{} ({}); report {}",
        s.participants,
        s.candidate_pairs,
        s.flagged_pairs,
        s.cliques,
        scan.id,
        if fresh { "new" } else { "unchanged" },
        files[0].display()
    );
    let now = Flags::of(&scan.result);
    for line in now.changes_since(&before.unwrap_or_default()) {
        tracing::info!("{label}: {line}");
    }
    memory.flags.insert(flags_key, now);
    let alerts = alerts::alerts_for(
        store.site(),
        number,
        &reviewed.triage,
        ctx.config.public_url.as_ref(),
    );
    let failed = alerts::deliver(store, number, &ctx.config.alerts, &alerts).await;
    if !failed.is_empty() {
        anyhow::bail!("{}", failed.join("; "));
    }
    Ok(())
}

/// What logs call a season: with its site, unless it is the default.
fn label(store: &Store, number: u32) -> String {
    if store.site() == store::DEFAULT_SITE {
        format!("season {number}")
    } else {
        format!("site {} season {number}", store.site())
    }
}

/// The seasons (defined, or inferred from game names) with a move in one of
/// their games during the `days` days up to the newest stored move. The
/// newest move, not the clock, so that a replayed old log has a current
/// season too.
pub async fn active_seasons(store: &Store, segments: &Segments, days: u32) -> Result<Vec<u32>> {
    let Some(newest) = segments.game_days.iter().map(|d| d.last_day).max() else {
        return Ok(Vec::new());
    };
    let first = newest - days as i64 + 1;
    let recent: Vec<(&str, i64, i64)> = segments
        .game_days
        .iter()
        .filter(|d| d.last_day >= first)
        .map(|d| {
            (
                segments.games.name(d.game),
                d.first_day.max(first),
                d.last_day,
            )
        })
        .collect();
    let mut candidates: BTreeMap<u32, Season> = store
        .seasons()
        .await?
        .into_iter()
        .map(|s| (s.number, s))
        .collect();
    for n in seasons_in_game_names(segments.games.as_slice().iter().map(String::as_str)) {
        candidates.entry(n).or_insert_with(|| Season::inferred(n));
    }
    let mut active = Vec::new();
    for (n, season) in candidates {
        let re = season.games_regex()?;
        let hit = recent.iter().any(|&(game, first, last)| {
            re.is_match(game) && scoring::days_in_season(first, last, &season)
        });
        if hit {
            active.push(n);
        }
    }
    Ok(active)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(pairs: &[(&str, &str, f64)], cliques: &[&[&str]]) -> Flags {
        Flags {
            pairs: unordered(pairs.iter().copied()),
            cliques: cliques
                .iter()
                .map(|c| c.iter().map(|m| m.to_string()).collect())
                .collect(),
        }
    }

    #[test]
    fn changes_name_new_and_lost_flags() {
        let before = flags(
            &[("a", "b", 0.95), ("c", "d", 0.91)],
            &[&["a", "b"], &["c", "d"]],
        );
        let now = flags(
            &[("a", "b", 0.96), ("b", "a", 0.93), ("a", "e", 0.9)],
            &[&["a", "b", "e"]],
        );
        assert_eq!(
            now.changes_since(&before),
            vec![
                "newly flagged: a and e 0.9000",
                "new clique: a, b, e",
                "no longer flagged: c and d (was 0.9100)",
            ]
        );
        assert!(now.changes_since(&now).is_empty());
    }

    #[test]
    fn a_pair_flagged_both_ways_is_logged_once() {
        let before = flags(&[], &[]);
        let now = flags(&[("b", "a", 0.93), ("a", "b", 0.96)], &[]);
        assert_eq!(
            now.changes_since(&before),
            ["newly flagged: a and b 0.9600"]
        );
        assert_eq!(
            before.changes_since(&now),
            ["no longer flagged: a and b (was 0.9600)"]
        );
    }
}
