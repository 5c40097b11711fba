//! A site's own database as a source: pages of rows past the stored mark,
//! each page stored with its new mark in one ingest batch, identical rows
//! numbered by the store's one numbering as identical lines of a file are,
//! carried across pages and, through the tail kept with the mark, ticks.

use super::super::config::Mark;
use super::super::Control;
use super::Pulled;
use anyhow::{anyhow, bail, Result};
use schema::Move;
use store::{Occurrences, SiteDatabase, SiteKey, SiteRow, SiteTime, Store};

/// Pulls pages of rows past the mark until the query returns none; each
/// page is stored with its new mark in one transaction.
#[allow(clippy::too_many_arguments)]
pub(super) async fn pull_database(
    store: &Store,
    name: &str,
    db: &SiteDatabase,
    key: &str,
    start: &Mark,
    control: &Control,
    pulled: &mut Pulled,
) -> Result<()> {
    let mut mark = match store.source_mark(name).await? {
        Some(s) => {
            Mark::decode(&s).ok_or_else(|| anyhow!("the stored mark {s:?} is unreadable"))?
        }
        None => start.clone(),
    };
    // Identical rows (same account, game, second and IP) are distinct moves,
    // numbered 0, 1, ... like identical lines of a file; the numbers of the
    // newest second are kept with the mark, so that a pair split by a page
    // or a tick keeps both.
    let tail_name = format!("{name}/tail");
    let mut numbering = match store.source_mark(&tail_name).await? {
        Some(s) => Occurrences::from_tail(&s)
            .ok_or_else(|| anyhow!("the stored mark {tail_name} is unreadable"))?,
        None => Occurrences::default(),
    };
    let mut count = PageCount::default();
    let reading = Reading {
        store,
        name,
        key,
        shown: crate::pipeline::Shown::of(store).await?,
    };
    while !control.stopping() {
        let site_key = match &mark {
            Mark::Int(n) => SiteKey::Int(*n),
            Mark::Text(t) => SiteKey::Text(t.clone()),
        };
        let rows = db.rows_past(&site_key).await?;
        if rows.is_empty() {
            break;
        }
        count.pages += 1;
        let (moves, last) = read_page(&reading, &mark, rows, &mut count)?;
        let mut batch = store.begin_ingest_numbered(numbering).await?;
        for m in moves {
            batch.push(m).await?;
        }
        batch.set_source_mark(name, &last.encode()).await?;
        batch
            .set_source_mark(&tail_name, &batch.numbering_tail())
            .await?;
        control.pause_in_transaction().await;
        let (stored, next) = batch.commit_numbered().await?;
        numbering = next;
        count.stored += stored;
        pulled.new_moves = count.stored;
        mark = last;
    }
    let PageCount {
        rows_read,
        skipped,
        bad,
        pages,
        stored,
    } = count;
    if bad > 0 {
        pulled.problems.push(format!(
            "source {name}: {bad} rows skipped because they could not be read (see the warnings naming their keys)"
        ));
    }
    if rows_read > 0 {
        tracing::info!(
            "source {name}: {rows_read} rows in {pages} pages, {stored} new moves, {skipped} skipped \
             (no username or ip), {bad} unreadable; mark now {mark}"
        );
    }
    Ok(())
}

/// What a pull read, over its pages.
#[derive(Default)]
struct PageCount {
    rows_read: u64,
    skipped: u64,
    bad: u64,
    pages: u64,
    stored: u64,
}

/// Which source a page is read for, and what its warnings may show.
struct Reading<'a> {
    store: &'a Store,
    name: &'a str,
    key: &'a str,
    /// A keyed store's warnings show no address of a row.
    shown: crate::pipeline::Shown,
}

/// The moves of one page of rows past `mark`, in row order, and the page's
/// last key; unreadable rows are counted and logged by key, and a key that
/// does not grow is an error.
fn read_page(
    reading: &Reading,
    mark: &Mark,
    rows: Vec<SiteRow>,
    count: &mut PageCount,
) -> Result<(Vec<Move>, Mark)> {
    let Reading {
        store,
        name,
        key,
        shown,
    } = *reading;
    let mut moves: Vec<Move> = Vec::with_capacity(rows.len());
    let mut last = mark.clone();
    for row in rows {
        let k = match &row.key {
            SiteKey::Int(n) => Mark::Int(*n),
            SiteKey::Text(t) => Mark::Text(t.clone()),
        };
        if let (Mark::Int(prev), Mark::Int(next)) = (&last, &k) {
            if next <= prev {
                bail!(
                    "the key `{key}` went from {prev} to {next}: the query must return only rows past $1, \
                     ordered by the key"
                );
            }
        }
        last = k;
        count.rows_read += 1;
        match read_move(row, store.limits()) {
            Ok(Some(m)) => moves.push(m),
            Ok(None) => count.skipped += 1,
            Err(e) => {
                count.bad += 1;
                let problem = shown.text(&e);
                tracing::warn!(source = %name, key = %key, row = %last, problem = %problem, "a row is skipped");
            }
        }
    }
    if last == *mark {
        bail!(
            "the query returned rows but none past the mark {mark}: it must read only rows past $1"
        );
    }
    Ok((moves, last))
}

/// A row as a move: `None` without username or IP (NULL: skipped, like a
/// log record without them). The error is one row's (a time that cannot be
/// read, a row that breaks the record rule of `schema::rules`, as a log line
/// would), and skips the row; what is the query's fault (a missing column,
/// a column of the wrong type) already stopped the pull in the store.
fn read_move(row: SiteRow, limits: &ingest::Limits) -> Result<Option<Move>, String> {
    let timestamp = match row.timestamp {
        SiteTime::Epoch(t) => t,
        SiteTime::Float(t) => {
            if !t.is_finite() {
                return Err(format!("bad time {t}"));
            }
            // No epoch second at all: refused with the value as written.
            if t.abs() >= 1e17 {
                return Err(limits.time_as_written(format!("{t:e}")).to_string());
            }
            t.floor() as i64
        }
        SiteTime::Text(t) => ingest::time::parse_time(&t)?,
        SiteTime::Null => return Err("its timestamp is NULL".into()),
    };
    let game = row.game.unwrap_or_default();
    let (Some(username), Some(ip)) = (row.username, row.ip) else {
        return Ok(None);
    };
    let mut m = Move {
        username,
        game,
        timestamp,
        ip,
    };
    limits.check_move(&m).map_err(|v| v.to_string())?;
    // The one normal form of an address, as the log readers give it.
    m.ip = schema::rules::normal_ip(&m.ip)
        .map_err(|v| v.to_string())?
        .into_owned();
    Ok(Some(m))
}
