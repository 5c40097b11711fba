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

use super::{Result, Store};

mod sync;
use schema::verdict::VerdictKind;
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
pub(crate) type Current = (i64, String, Option<f64>);

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
