//! An account's days as one row of bytes (`account_days`): the sightings (who
//! moved from which IP on which day) and the runs of days on which they
//! moved in each game. A row per account instead of a row per sighting and per
//! run: 3.7M rows at 10M moves took 7 to 10 s to decode one by one.
//!
//! Layout, every integer an unsigned LEB128 varint (see `chunk.rs`):
//! the IPs (count, then names), the games (count, then names), the
//! sightings (count, then each as its day's zigzag step from the previous
//! sighting's, the first from day 0, and its IP's index), the runs (count,
//! then each as its game's index, its first day and the days after it).

use super::super::sql::{insert_rows, numbered_marks};
use super::super::{Result, StoreError};
use super::chunk::{put, put_name, unzigzag, zigzag, Reader};
use super::writer::SegmentationWriter;
use rustc_hash::FxHashMap;
use schema::model::*;
use sqlx::Row;
use std::collections::BTreeSet;

/// Accounts' rows saved per statement batch.
const ROWS_PER_BATCH: usize = 1_000;

/// One account's days, by names: sightings `(day, IP)` and runs `(game, first
/// day, last day)`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct AccountDays {
    pub sightings: BTreeSet<(i64, String)>,
    pub runs: Vec<(String, i64, i64)>,
}

impl AccountDays {
    /// Adds runs, merging those of one game that touch or overlap.
    fn add_runs(&mut self, runs: impl IntoIterator<Item = (String, i64, i64)>) {
        self.runs.extend(runs);
        self.runs.sort();
        let mut merged: Vec<(String, i64, i64)> = Vec::with_capacity(self.runs.len());
        for r in self.runs.drain(..) {
            match merged.last_mut() {
                Some(l) if l.0 == r.0 && r.1 <= l.2 + 1 => l.2 = l.2.max(r.2),
                _ => merged.push(r),
            }
        }
        self.runs = merged;
    }
}

/// Encodes sightings (sorted by day) and runs.
pub(super) fn encode<'a>(
    sightings: impl Iterator<Item = (i64, &'a str)> + Clone,
    runs: impl Iterator<Item = (&'a str, i64, i64)> + Clone,
) -> Vec<u8> {
    let mut ips: FxHashMap<&str, u64> = FxHashMap::default();
    let mut games: FxHashMap<&str, u64> = FxHashMap::default();
    let (mut ip_names, mut game_names) = (Vec::new(), Vec::new());
    for (_, ip) in sightings.clone() {
        let next = ips.len() as u64;
        ips.entry(ip).or_insert_with(|| {
            put_name(&mut ip_names, ip);
            next
        });
    }
    for (game, _, _) in runs.clone() {
        let next = games.len() as u64;
        games.entry(game).or_insert_with(|| {
            put_name(&mut game_names, game);
            next
        });
    }
    let mut out = Vec::with_capacity(ip_names.len() + game_names.len() + 64);
    put(&mut out, ips.len() as u64);
    out.extend_from_slice(&ip_names);
    put(&mut out, games.len() as u64);
    out.extend_from_slice(&game_names);
    let mut body = Vec::new();
    let mut n = 0u64;
    let mut prev = 0i64;
    for (day, ip) in sightings {
        put(&mut body, zigzag(day - prev));
        put(&mut body, ips[ip]);
        prev = day;
        n += 1;
    }
    put(&mut out, n);
    out.append(&mut body);
    n = 0;
    for (game, first, last) in runs {
        put(&mut body, games[game]);
        put(&mut body, zigzag(first));
        put(&mut body, (last - first).max(0) as u64);
        n += 1;
    }
    put(&mut out, n);
    out.append(&mut body);
    out
}

/// Decodes an account's days, handing over each sighting and each run. Each
/// of the account's own IP and game names is turned once into what `ip` and
/// `game` make of it (an id of a scan's names, say), not once a sighting.
pub(super) fn decode<'a, I: Copy, G: Copy>(
    data: &'a [u8],
    ip: impl FnMut(&'a str) -> I,
    game: impl FnMut(&'a str) -> G,
    mut sighting: impl FnMut(i64, I),
    mut run: impl FnMut(G, i64, i64),
) -> std::result::Result<(), String> {
    let mut r = Reader::new(data);
    fn names<'a, T>(
        r: &mut Reader<'a>,
        mut f: impl FnMut(&'a str) -> T,
    ) -> std::result::Result<Vec<T>, String> {
        let n = r.int()?;
        let mut out = Vec::with_capacity(n.min(1 << 16) as usize);
        for _ in 0..n {
            out.push(f(r.name()?));
        }
        Ok(out)
    }
    let ips = names(&mut r, ip)?;
    let games = names(&mut r, game)?;
    fn name<T: Copy>(v: &[T], i: u64) -> std::result::Result<T, String> {
        v.get(i as usize)
            .copied()
            .ok_or_else(|| format!("name index {i} of {}", v.len()))
    }
    let mut day = 0i64;
    for _ in 0..r.int()? {
        day += unzigzag(r.int()?);
        sighting(day, name(&ips, r.int()?)?);
    }
    for _ in 0..r.int()? {
        let game = name(&games, r.int()?)?;
        let first = unzigzag(r.int()?);
        let last = first + r.int()? as i64;
        run(game, first, last);
    }
    if !r.done() {
        return Err("bytes after an account's days".to_owned());
    }
    Ok(())
}

/// One account's stored days, by names.
fn decode_days(data: &[u8]) -> Result<AccountDays> {
    let mut days = AccountDays::default();
    let mut runs = Vec::new();
    decode(
        data,
        |ip| ip,
        |game| game,
        |day, ip: &str| {
            days.sightings.insert((day, ip.to_owned()));
        },
        |game: &str, first, last| runs.push((game.to_owned(), first, last)),
    )
    .map_err(|e| StoreError::Corrupt(format!("an account's stored days: {e}")))?;
    days.runs = runs;
    Ok(days)
}

impl SegmentationWriter<'_> {
    /// Saves every account's days of a whole cut: `rest.ip_days` and
    /// `rest.game_days` are sorted by account.
    pub(super) async fn insert_days(&mut self, rest: &Segments) -> Result<()> {
        let (mut s, mut g) = (0, 0);
        let (ip_days, game_days) = (&rest.ip_days, &rest.game_days);
        let mut rows: Vec<(String, u64, Vec<u8>)> = Vec::new();
        while s < ip_days.len() || g < game_days.len() {
            let account = match (ip_days.get(s), game_days.get(g)) {
                (Some(a), Some(b)) => a.account.min(b.account),
                (Some(a), None) => a.account,
                (None, Some(b)) => b.account,
                (None, None) => unreachable!(),
            };
            let s_end = s + ip_days[s..].partition_point(|d| d.account == account);
            let g_end = g + game_days[g..].partition_point(|d| d.account == account);
            let sightings = ip_days[s..s_end]
                .iter()
                .map(|d| (d.day, rest.ips.name(d.ip)));
            let runs = game_days[g..g_end]
                .iter()
                .map(|d| (rest.games.name(d.game), d.first_day, d.last_day));
            let data = encode(sightings, runs);
            rows.push((
                rest.accounts.name(account).to_owned(),
                (s_end - s) as u64,
                data,
            ));
            (s, g) = (s_end, g_end);
            if rows.len() >= ROWS_PER_BATCH {
                self.insert_account_days(&rows).await?;
                rows.clear();
            }
        }
        self.insert_account_days(&rows).await
    }

    /// Adds an extension's sightings and runs of game days to the stored
    /// days of each account it touched.
    pub(super) async fn merge_days(&mut self, rest: &Segments) -> Result<()> {
        let mut touched: FxHashMap<AccountId, AccountDays> = FxHashMap::default();
        for d in &rest.ip_days {
            let days = touched.entry(d.account).or_default();
            days.sightings
                .insert((d.day, rest.ips.name(d.ip).to_owned()));
        }
        for d in &rest.game_days {
            let game = rest.games.name(d.game).to_owned();
            let days = touched.entry(d.account).or_default();
            days.runs.push((game, d.first_day, d.last_day));
        }
        let names: Vec<&str> = touched.keys().map(|&u| rest.accounts.name(u)).collect();
        let mut stored = self.take_days(&names).await?;
        let mut rows = Vec::with_capacity(touched.len());
        for (account, new) in touched {
            let name = rest.accounts.name(account);
            let mut days = stored.remove(name).unwrap_or_default();
            days.sightings.extend(new.sightings);
            days.add_runs(new.runs);
            let sightings = days.sightings.iter().map(|(d, ip)| (*d, ip.as_str()));
            let runs = days.runs.iter().map(|(g, f, l)| (g.as_str(), *f, *l));
            let data = encode(sightings, runs);
            rows.push((name.to_owned(), days.sightings.len() as u64, data));
        }
        self.insert_account_days(&rows).await
    }

    /// Takes the stored days of `accounts` out of the segmentation being
    /// extended, a few hundred accounts a statement (each a round trip to
    /// the database's thread); an account with none is left out.
    async fn take_days(&mut self, accounts: &[&str]) -> Result<FxHashMap<String, AccountDays>> {
        let mut out = FxHashMap::default();
        for part in accounts.chunks(ROWS_PER_BATCH) {
            let sql = format!(
                "DELETE FROM account_days WHERE segmentation_id = $1 AND username IN ({}) \
                 RETURNING username, data",
                numbered_marks(2, part.len())
            );
            let mut query = sqlx::query(&sql).bind(self.id);
            for account in part {
                query = query.bind(*account);
            }
            for row in query.fetch_all(&mut *self.tx).await? {
                let data: Vec<u8> = row.try_get(1)?;
                out.insert(row.try_get(0)?, decode_days(&data)?);
            }
        }
        Ok(out)
    }

    async fn insert_account_days(&mut self, rows: &[(String, u64, Vec<u8>)]) -> Result<()> {
        let (id, generation) = (self.id, self.generation);
        insert_rows(
            self.store.backend,
            &mut self.tx,
            "account_days (segmentation_id, username, sightings, data, generation)",
            5,
            "",
            rows,
            |q, (account, n, data)| {
                q.bind(id)
                    .bind(account.clone())
                    .bind(*n as i64)
                    .bind(data.clone())
                    .bind(generation)
            },
        )
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn days_decode_to_what_was_encoded(
            sightings in prop::collection::btree_set((16_000..16_100i64, 0..4u8), 0..40),
            runs in prop::collection::vec((0..3u8, 16_000..16_100i64, 0..5i64), 0..20),
        ) {
            let sightings: Vec<(i64, String)> =
                sightings.into_iter().map(|(d, ip)| (d, format!("10.0.0.{ip}"))).collect();
            let runs: Vec<(String, i64, i64)> =
                runs.into_iter().map(|(g, f, n)| (format!("game {g}"), f, f + n)).collect();
            let data = encode(
                sightings.iter().map(|(d, ip)| (*d, ip.as_str())),
                runs.iter().map(|(g, f, l)| (g.as_str(), *f, *l)),
            );
            let (mut s, mut r) = (Vec::new(), Vec::new());
            decode(
                &data,
                |ip| ip,
                |game| game,
                |d, ip: &str| s.push((d, ip.to_owned())),
                |g: &str, f, l| r.push((g.to_owned(), f, l)),
            )
            .unwrap();
            prop_assert_eq!(s, sightings);
            prop_assert_eq!(r, runs);
        }
    }

    #[test]
    fn runs_that_touch_merge() {
        let mut days = AccountDays::default();
        let g = |f, l| ("g".to_owned(), f, l);
        days.add_runs([g(10, 12), g(20, 20)]);
        days.add_runs([g(13, 14), g(19, 19), ("h".to_owned(), 11, 11)]);
        assert_eq!(
            days.runs,
            vec![g(10, 14), g(19, 20), ("h".to_owned(), 11, 11)]
        );
    }
}
