//! The review queue (`review_flags`, `review_scans`): every season's flagged
//! pairs of its latest scan, one row per unordered pair, with the clique
//! holding it and its current verdict, filtered, sorted and paged in SQL.
//!
//! The rows are derived data. Each read first brings them up to date
//! ([`Store::sync_review`]): a season whose latest scan changed is rebuilt
//! from that scan's pairs at or above its threshold; when only the verdicts
//! changed, only the verdict columns are.
//!
//! Urgency, most urgent first: re-opened known relationships, then pairs
//! with no verdict, then judged ones; within each, the higher score, then the
//! larger clique, then the later season, then the names.

use super::scans::PairFilter;
use super::sql::insert_rows;
use super::{Result, Store};
use rustc_hash::FxHashMap;
use schema::verdict::{Verdict, VerdictKind};
use sqlx::Row;

/// Which flags the queue lists, by status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueStatus {
    /// Re-opened and open: what is left to review.
    #[default]
    ToReview,
    Open,
    Reopened,
    Judged,
    All,
}

impl QueueStatus {
    pub const ALL: [QueueStatus; 5] = [
        QueueStatus::ToReview,
        QueueStatus::Open,
        QueueStatus::Reopened,
        QueueStatus::Judged,
        QueueStatus::All,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            QueueStatus::ToReview => "to-review",
            QueueStatus::Open => "open",
            QueueStatus::Reopened => "re-opened",
            QueueStatus::Judged => "judged",
            QueueStatus::All => "all",
        }
    }

    pub fn parse(s: &str) -> Option<QueueStatus> {
        QueueStatus::ALL.into_iter().find(|x| x.as_str() == s)
    }

    /// The urgencies ([`FlagStatus`]) it lists.
    fn urgencies(self) -> &'static str {
        match self {
            QueueStatus::ToReview => "0, 1",
            QueueStatus::Open => "1",
            QueueStatus::Reopened => "0",
            QueueStatus::Judged => "2",
            QueueStatus::All => "0, 1, 2",
        }
    }
}

/// A flag's status; its urgency is the order here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FlagStatus {
    /// A known relationship whose score rose past its decided level.
    Reopened,
    /// No verdict yet.
    Open,
    /// A verdict rules it and it did not re-open.
    Judged,
}

impl FlagStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            FlagStatus::Reopened => "re-opened",
            FlagStatus::Open => "open",
            FlagStatus::Judged => "judged",
        }
    }
}

/// What the queue lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueFilter {
    pub season: Option<u32>,
    /// Pairs whose group (their clique, or the pair itself: 2) has at least
    /// this many accounts.
    pub min_group: Option<u32>,
    pub min_score: Option<f64>,
    pub status: QueueStatus,
}

/// One flagged pair in the queue.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueItem {
    pub season: u32,
    /// `account_a < account_b`.
    pub account_a: String,
    pub account_b: String,
    /// The larger similarity of the two directions.
    pub score: f64,
    /// The clique holding both (1-based, as in the scan), if any.
    pub clique: Option<usize>,
    /// Accounts in that clique, or 2 for a pair in none.
    pub group: usize,
    pub status: FlagStatus,
    pub verdict: Option<VerdictKind>,
}

/// A page of the queue and how many flags the filter selects in all.
#[derive(Debug, Clone, Default)]
pub struct QueuePage {
    pub items: Vec<QueueItem>,
    pub total: u64,
}

/// The current verdict of a pair: id, kind, decided level.
type Current = (i64, String, Option<f64>);

impl Store {
    /// A page of the queue, most urgent first. `margin`: how far above its
    /// decided level a known relationship's score must rise to re-open.
    pub async fn review_queue(
        &self,
        filter: &QueueFilter,
        margin: f64,
        offset: u64,
        limit: u64,
    ) -> Result<QueuePage> {
        self.sync_review().await?;
        let (from, mut args) = ranked(self, filter, margin);
        let count = format!("SELECT COUNT(*) FROM {from}");
        let total: i64 = bind_all(sqlx::query(&count), &args)
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?;
        let n = args.len();
        let sql = format!(
            "SELECT {ITEM} FROM {from} ORDER BY {ORDER} LIMIT ${} OFFSET ${}",
            n + 1,
            n + 2
        );
        args.push(Arg::I(limit.min(i64::MAX as u64) as i64));
        args.push(Arg::I(offset.min(i64::MAX as u64) as i64));
        let rows = bind_all(sqlx::query(&sql), &args)
            .fetch_all(&self.pool)
            .await?;
        Ok(QueuePage {
            items: rows.iter().map(item_of_row).collect::<Result<_>>()?,
            total: total as u64,
        })
    }

    /// The flag after the pair `(a, b)` of `season` in the queue `filter`
    /// selects (the first one when the pair is not in it), never that pair.
    pub async fn review_next(
        &self,
        filter: &QueueFilter,
        margin: f64,
        season: u32,
        a: &str,
        b: &str,
    ) -> Result<Option<QueueItem>> {
        self.sync_review().await?;
        let (a, b) = if a < b { (a, b) } else { (b, a) };
        let (from, mut args) = ranked(self, filter, margin);
        let n = args.len();
        let this = format!(
            "season = ${} AND account_a = ${} AND account_b = ${}",
            n + 1,
            n + 2,
            n + 3
        );
        args.push(Arg::I(season.into()));
        args.push(Arg::S(a.to_owned()));
        args.push(Arg::S(b.to_owned()));
        let sql = format!(
            "SELECT {ITEM} FROM {from} WHERE NOT ({this}) AND \
             (NOT EXISTS (SELECT 1 FROM {from} WHERE {this}) OR \
              ({KEY}) > (SELECT {KEY} FROM {from} WHERE {this})) \
             ORDER BY {ORDER} LIMIT 1"
        );
        let row = bind_all(sqlx::query(&sql), &args)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(item_of_row).transpose()
    }

    /// Brings the queue's rows up to date with each season's latest scan and
    /// the site's verdicts.
    pub async fn sync_review(&self) -> Result<()> {
        let site = self.site.to_string();
        let latest = pairs_i64(
            sqlx::query("SELECT season, MAX(id) FROM scans WHERE site = $1 GROUP BY season")
                .bind(site.clone())
                .fetch_all(&self.pool)
                .await?,
        )?;
        let built: FxHashMap<i64, (i64, i64)> =
            sqlx::query("SELECT season, scan_id, verdicts_seen FROM review_scans WHERE site = $1")
                .bind(site.clone())
                .fetch_all(&self.pool)
                .await?
                .iter()
                .map(|r| Ok((r.try_get(0)?, (r.try_get(1)?, r.try_get(2)?))))
                .collect::<Result<_>>()?;
        let seen: i64 = sqlx::query("SELECT COALESCE(MAX(id), 0) FROM verdicts WHERE site = $1")
            .bind(site.clone())
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?;
        let stale: Vec<(i64, i64)> = latest
            .iter()
            .copied()
            .filter(|(season, scan)| built.get(season) != Some(&(*scan, seen)))
            .collect();
        let gone: Vec<i64> = built
            .keys()
            .copied()
            .filter(|s| !latest.iter().any(|(x, _)| x == s))
            .collect();
        if stale.is_empty() && gone.is_empty() {
            return Ok(());
        }
        let verdicts = self.verdicts().await?;
        let current = current_verdicts(&verdicts);
        for (season, scan) in stale {
            let rebuild = built.get(&season).is_none_or(|(s, _)| *s != scan);
            if rebuild {
                self.rebuild_season(season, scan, seen, &current).await?;
            } else {
                self.refresh_verdicts(season, seen, &current).await?;
            }
        }
        for season in gone {
            let mut tx = self.begin_write().await?;
            for table in ["review_flags", "review_scans"] {
                sqlx::query(&format!(
                    "DELETE FROM {table} WHERE site = $1 AND season = $2"
                ))
                .bind(site.clone())
                .bind(season)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
        }
        Ok(())
    }

    /// The rows of a season from scan `scan`: its pairs at or above its
    /// threshold, once each, with their clique and current verdict.
    async fn rebuild_season(
        &self,
        season: i64,
        scan: i64,
        seen: i64,
        current: &FxHashMap<(String, String), Current>,
    ) -> Result<()> {
        let threshold: f64 = sqlx::query("SELECT threshold FROM scans WHERE id = $1")
            .bind(scan)
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?;
        let pairs = self
            .scan_pairs(scan, PairFilter::AtLeast(threshold))
            .await?;
        let cliques = self.scan_cliques(scan).await?;
        let mut best: FxHashMap<(String, String), f64> = FxHashMap::default();
        for p in &pairs {
            let key = ordered(&p.account_a, &p.account_b);
            let s = best.entry(key).or_insert(p.similarity);
            *s = s.max(p.similarity);
        }
        let rows: Vec<FlagRow> = best
            .into_iter()
            .map(|((a, b), score)| {
                let clique = cliques
                    .iter()
                    .position(|c| c.members.contains(&a) && c.members.contains(&b));
                let group = clique.map_or(2, |k| cliques[k].members.len());
                let verdict = current.get(&(a.clone(), b.clone())).cloned();
                FlagRow {
                    a,
                    b,
                    score,
                    clique: clique.map(|k| k as i64 + 1),
                    group: group as i64,
                    verdict,
                }
            })
            .collect();
        let site = self.site.to_string();
        let mut tx = self.begin_write().await?;
        for table in ["review_flags", "review_scans"] {
            sqlx::query(&format!(
                "DELETE FROM {table} WHERE site = $1 AND season = $2"
            ))
            .bind(site.clone())
            .bind(season)
            .execute(&mut *tx)
            .await?;
        }
        insert_rows(
            self.backend,
            &mut tx,
            "review_flags (site, season, scan_id, account_a, account_b, score, clique, \
             clique_size, verdict_id, verdict_kind, verdict_similarity)",
            11,
            "",
            &rows,
            |q, r| {
                let v = r.verdict.as_ref();
                q.bind(site.clone())
                    .bind(season)
                    .bind(scan)
                    .bind(r.a.clone())
                    .bind(r.b.clone())
                    .bind(r.score)
                    .bind(r.clique)
                    .bind(r.group)
                    .bind(v.map(|v| v.0))
                    .bind(v.map(|v| v.1.clone()))
                    .bind(v.and_then(|v| v.2))
            },
        )
        .await?;
        sqlx::query(
            "INSERT INTO review_scans (site, season, scan_id, verdicts_seen) VALUES ($1, $2, $3, $4)",
        )
        .bind(site)
        .bind(season)
        .bind(scan)
        .bind(seen)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The verdict columns of a season's rows, after new verdicts.
    async fn refresh_verdicts(
        &self,
        season: i64,
        seen: i64,
        current: &FxHashMap<(String, String), Current>,
    ) -> Result<()> {
        let site = self.site.to_string();
        let mut tx = self.begin_write().await?;
        let rows = sqlx::query(
            "SELECT account_a, account_b, verdict_id FROM review_flags WHERE site = $1 AND season = $2",
        )
        .bind(site.clone())
        .bind(season)
        .fetch_all(&mut *tx)
        .await?;
        for r in &rows {
            let (a, b): (String, String) = (r.try_get(0)?, r.try_get(1)?);
            let had: Option<i64> = r.try_get(2)?;
            let Some(v) = current.get(&(a.clone(), b.clone())) else {
                continue;
            };
            if had == Some(v.0) {
                continue;
            }
            sqlx::query(
                "UPDATE review_flags SET verdict_id = $1, verdict_kind = $2, verdict_similarity = $3 \
                 WHERE site = $4 AND season = $5 AND account_a = $6 AND account_b = $7",
            )
            .bind(v.0)
            .bind(v.1.clone())
            .bind(v.2)
            .bind(site.clone())
            .bind(season)
            .bind(a)
            .bind(b)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query("UPDATE review_scans SET verdicts_seen = $1 WHERE site = $2 AND season = $3")
            .bind(seen)
            .bind(site)
            .bind(season)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}

/// A row to insert.
struct FlagRow {
    a: String,
    b: String,
    score: f64,
    clique: Option<i64>,
    group: i64,
    verdict: Option<Current>,
}

/// The columns of an item.
const ITEM: &str =
    "season, account_a, account_b, score, clique, clique_size, urgency, verdict_kind";
/// Most urgent first.
const ORDER: &str = "urgency, score DESC, clique_size DESC, season DESC, account_a, account_b";
/// The order as one ascending key, for "the flag after this one".
const KEY: &str = "urgency, -score, -clique_size, -season, account_a, account_b";

/// A bound value.
#[derive(Debug, Clone)]
enum Arg {
    I(i64),
    F(f64),
    S(String),
}

type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>;

fn bind_all<'q>(mut q: AnyQuery<'q>, args: &[Arg]) -> AnyQuery<'q> {
    for a in args {
        q = match a {
            Arg::I(x) => q.bind(*x),
            Arg::F(x) => q.bind(*x),
            Arg::S(x) => q.bind(x.clone()),
        };
    }
    q
}

/// The filtered flags with their urgency, as a subquery (`(...) AS q`),
/// and the values it binds (`$1` the margin, `$2` the site).
fn ranked(store: &Store, filter: &QueueFilter, margin: f64) -> (String, Vec<Arg>) {
    let known: Vec<String> = VerdictKind::ALL
        .into_iter()
        .filter(|k| k.is_known_relationship())
        .map(|k| format!("'{}'", k.as_str()))
        .collect();
    let mut args = vec![Arg::F(margin), Arg::S(store.site.to_string())];
    let mut wheres = vec!["site = $2".to_owned()];
    let mut add = |cond: &str, arg: Arg, args: &mut Vec<Arg>| {
        args.push(arg);
        wheres.push(cond.replace('?', &format!("${}", args.len())));
    };
    if let Some(s) = filter.season {
        add("season = ?", Arg::I(s.into()), &mut args);
    }
    if let Some(g) = filter.min_group {
        add("clique_size >= ?", Arg::I(g.into()), &mut args);
    }
    if let Some(m) = filter.min_score {
        add("score >= ?", Arg::F(m), &mut args);
    }
    let from = format!(
        "(SELECT * FROM (SELECT f.*, CASE WHEN verdict_id IS NULL THEN 1 \
         WHEN verdict_kind IN ({}) AND verdict_similarity IS NOT NULL \
         AND score > verdict_similarity + $1 THEN 0 ELSE 2 END AS urgency \
         FROM review_flags f WHERE {}) AS r WHERE urgency IN ({})) AS q",
        known.join(", "),
        wheres.join(" AND "),
        filter.status.urgencies()
    );
    (from, args)
}

fn item_of_row(r: &sqlx::any::AnyRow) -> Result<QueueItem> {
    let urgency: i64 = r.try_get(6)?;
    let kind: Option<String> = r.try_get(7)?;
    let clique: Option<i64> = r.try_get(4)?;
    Ok(QueueItem {
        season: r.try_get::<i64, _>(0)? as u32,
        account_a: r.try_get(1)?,
        account_b: r.try_get(2)?,
        score: r.try_get(3)?,
        clique: clique.map(|k| k as usize),
        group: r.try_get::<i64, _>(5)? as usize,
        status: match urgency {
            0 => FlagStatus::Reopened,
            1 => FlagStatus::Open,
            _ => FlagStatus::Judged,
        },
        verdict: kind.and_then(|k| k.parse().ok()),
    })
}

fn pairs_i64(rows: Vec<sqlx::any::AnyRow>) -> Result<Vec<(i64, i64)>> {
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

fn ordered(a: &str, b: &str) -> (String, String) {
    if a < b {
        (a.to_owned(), b.to_owned())
    } else {
        (b.to_owned(), a.to_owned())
    }
}

/// The newest verdict naming both accounts, for every pair some verdict
/// names (its own, or a clique's).
fn current_verdicts(verdicts: &[Verdict]) -> FxHashMap<(String, String), Current> {
    let mut out: FxHashMap<(String, String), (i64, i64, Current)> = FxHashMap::default();
    for v in verdicts {
        for (i, a) in v.accounts.iter().enumerate() {
            for b in &v.accounts[i + 1..] {
                let entry = (v.at, v.id, (v.id, v.kind.as_str().to_owned(), v.similarity));
                let slot = out.entry(ordered(a, b)).or_insert(entry.clone());
                if (v.at, v.id) > (slot.0, slot.1) {
                    *slot = entry;
                }
            }
        }
    }
    out.into_iter().map(|(k, (_, _, c))| (k, c)).collect()
}
