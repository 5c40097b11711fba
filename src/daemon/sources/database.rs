//! A site's own database as a source: pages of rows past the stored mark,
//! each page stored with its new mark in one transaction, and identical
//! rows numbered across pages and ticks (the tail kept with the mark).

use super::super::config::Mark;
use super::super::Control;
use super::Pulled;
use anyhow::{anyhow, bail, Result};
use schema::Move;
use std::collections::HashMap;
use store::{NewMove, SiteDatabase, SiteKey, SiteRow, SiteTime, Store, INSERT_CHUNK};

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
        Some(s) => Numbering::from_tail(&s)
            .ok_or_else(|| anyhow!("the stored mark {tail_name} is unreadable"))?,
        None => Numbering::default(),
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
        let (moves, last) = read_page(&reading, &mark, rows, &mut numbering, &mut count)?;
        let mut batch = store.begin_ingest().await?;
        for chunk in moves.chunks(INSERT_CHUNK) {
            count.stored += batch.insert(chunk).await?;
        }
        batch.set_source_mark(name, &last.encode()).await?;
        batch.set_source_mark(&tail_name, &numbering.tail()).await?;
        control.pause_in_transaction().await;
        batch.commit().await?;
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

/// The moves of one page of rows past `mark`, numbered, and the page's
/// last key; unreadable rows are counted and logged by key, and a key that
/// does not grow is an error.
fn read_page(
    reading: &Reading,
    mark: &Mark,
    rows: Vec<SiteRow>,
    numbering: &mut Numbering,
    count: &mut PageCount,
) -> Result<(Vec<NewMove>, Mark)> {
    let Reading {
        store,
        name,
        key,
        shown,
    } = *reading;
    let mut moves: Vec<NewMove> = Vec::with_capacity(rows.len());
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
            Ok(Some(m)) => {
                // Numbered by the IP as stored (its hash in a keyed
                // store): the tail kept with the mark holds no raw IP.
                let ip = store.stored_ip(&m.ip);
                moves.push(numbering.number(m, ip));
            }
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

/// The occurrence numbers of a site database's moves: identical moves in
/// the newest second seen so far, carried from one pull to the next in the
/// store (with the mark, in the same transaction), and older ones within
/// one pull. So identical rows keep distinct numbers wherever pages and
/// ticks split them, as long as rows come in time order; a row older than
/// the newest second of an earlier pull is numbered within its own pull.
#[derive(Debug, Default)]
struct Numbering {
    newest: Option<i64>,
    at_newest: HashMap<(String, String, String), u32>,
    older: HashMap<(String, String, i64, String), u32>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Tail {
    second: Option<i64>,
    /// (username, game, ip, moves numbered so far)
    seen: Vec<(String, String, String, u32)>,
}

impl Numbering {
    fn from_tail(s: &str) -> Option<Numbering> {
        let tail: Tail = serde_json::from_str(s).ok()?;
        Some(Numbering {
            newest: tail.second,
            at_newest: tail
                .seen
                .into_iter()
                .map(|(u, g, ip, n)| ((u, g, ip), n))
                .collect(),
            older: HashMap::new(),
        })
    }

    fn tail(&self) -> String {
        let mut seen: Vec<_> = self
            .at_newest
            .iter()
            .map(|((u, g, ip), &n)| (u.clone(), g.clone(), ip.clone(), n))
            .collect();
        seen.sort();
        serde_json::to_string(&Tail {
            second: self.newest,
            seen,
        })
        .expect("a tail serializes")
    }

    /// Numbers `m`, whose IP has the stored form `ip`.
    fn number(&mut self, m: Move, ip: String) -> NewMove {
        let counter = match self.newest {
            Some(t) if m.timestamp < t => self
                .older
                .entry((m.username.clone(), m.game.clone(), m.timestamp, ip))
                .or_insert(0),
            Some(t) if m.timestamp == t => self
                .at_newest
                .entry((m.username.clone(), m.game.clone(), ip))
                .or_insert(0),
            _ => {
                self.newest = Some(m.timestamp);
                self.at_newest.clear();
                self.at_newest
                    .entry((m.username.clone(), m.game.clone(), ip))
                    .or_insert(0)
            }
        };
        let occurrence = *counter;
        *counter += 1;
        NewMove { mv: m, occurrence }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(u: &str, t: i64) -> Move {
        Move {
            username: u.into(),
            game: "g".into(),
            timestamp: t,
            ip: "1".into(),
        }
    }

    #[test]
    fn numbering_continues_across_pulls_through_the_tail() {
        let mut a = Numbering::default();
        let first: Vec<u32> = [mv("x", 1), mv("x", 2), mv("y", 2), mv("x", 2)]
            .into_iter()
            .map(|m| a.number(m, "1".into()).occurrence)
            .collect();
        assert_eq!(first, [0, 0, 0, 1]);
        let mut b = Numbering::from_tail(&a.tail()).unwrap();
        let second: Vec<u32> = [mv("x", 2), mv("y", 2), mv("x", 1), mv("x", 3), mv("x", 3)]
            .into_iter()
            .map(|m| b.number(m, "1".into()).occurrence)
            .collect();
        assert_eq!(second, [2, 1, 0, 0, 1]);
        assert!(Numbering::from_tail("junk").is_none());
    }
}
