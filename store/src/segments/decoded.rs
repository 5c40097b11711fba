//! A segmentation's rows decoded on every core. Rows are read first, by
//! account; each account's are decoded apart, its IPs and games numbered in
//! a table of its own; then, one account after another in the order the rows
//! came, those names become the segmentation's ids, the order decoding the
//! rows one by one gave them. At 10M moves decoding alone, on one core,
//! was 1.6 s of a 7 s scan.

use super::{chunk, days};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use schema::model::*;
use schema::StallIp;

/// An account's rows as read, in order: each row's first bucket (0 for a
/// row of days) and bytes.
pub(super) struct AccountRows {
    pub name: String,
    pub rows: Vec<(i64, Vec<u8>)>,
}

impl AccountRows {
    /// Appends a row to the last account of `accounts`, or starts another.
    pub fn push(accounts: &mut Vec<AccountRows>, name: &str, first: i64, data: Vec<u8>) {
        match accounts.last_mut() {
            Some(a) if a.name == name => a.rows.push((first, data)),
            _ => accounts.push(AccountRows {
                name: name.to_owned(),
                rows: vec![(first, data)],
            }),
        }
    }
}

/// An account's segments, decoded from its chunks; their IPs are indexes
/// into `ips`.
pub(super) struct AccountSegments<'a> {
    pub ips: Vec<&'a str>,
    pub segments: Vec<Segment>,
}

/// An account's days, decoded from its rows: sightings `(day, IP)` and
/// runs `(game, first day, last day)`, by indexes into `ips` and `games`.
pub(super) struct AccountDaysRead<'a> {
    pub ips: Vec<&'a str>,
    pub games: Vec<&'a str>,
    pub sightings: Vec<(i64, u32)>,
    pub runs: Vec<(u32, i64, i64)>,
}

/// Names in the order first seen, each numbered once.
#[derive(Default)]
struct Table<'a> {
    names: Vec<&'a str>,
    index: FxHashMap<&'a str, u32>,
}

impl<'a> Table<'a> {
    fn id(&mut self, name: &'a str) -> u32 {
        let next = self.names.len() as u32;
        *self.index.entry(name).or_insert_with(|| {
            self.names.push(name);
            next
        })
    }
}

/// Every account's chunks decoded, in the accounts' order. Runs continued
/// from one chunk to the next are joined; each list is of its exact size.
pub(super) fn segments(
    accounts: &[AccountRows],
    bucket_seconds: i64,
) -> Result<Vec<AccountSegments<'_>>, String> {
    accounts
        .par_iter()
        .map_init(Vec::new, |gathered: &mut Vec<Segment>, a| {
            let mut table = Table::default();
            for (first, data) in &a.rows {
                chunk::decode(data, *first, bucket_seconds, |ip| table.id(ip), gathered)?;
            }
            // Lists grown by doubling held a third more than their segments.
            let mut segments = Vec::with_capacity(gathered.len());
            segments.append(gathered);
            Ok(AccountSegments {
                ips: table.names,
                segments,
            })
        })
        .collect()
}

/// Every account's days decoded, in the accounts' order.
pub(super) fn days(accounts: &[AccountRows]) -> Result<Vec<AccountDaysRead<'_>>, String> {
    accounts
        .par_iter()
        .map(|a| {
            let mut read = AccountDaysRead {
                ips: Vec::new(),
                games: Vec::new(),
                sightings: Vec::new(),
                runs: Vec::new(),
            };
            for (_, data) in &a.rows {
                let (ips, games) = (&mut read.ips, &mut read.games);
                let (sightings, runs) = (&mut read.sightings, &mut read.runs);
                // Each row's names come once each, numbered here in the
                // account's order (a name in two rows gets two numbers,
                // which become one id).
                days::decode(
                    data,
                    |ip| {
                        ips.push(ip);
                        ips.len() as u32 - 1
                    },
                    |game| {
                        games.push(game);
                        games.len() as u32 - 1
                    },
                    |day, ip| sightings.push((day, ip)),
                    |game, first, last| runs.push((game, first, last)),
                )?;
            }
            Ok(read)
        })
        .collect()
}

/// Renumbers `segments`' IPs from an account's own indexes to `ids`.
pub(super) fn renumber(segments: &mut [Segment], ids: &[IpId]) {
    for seg in segments {
        for (ip, _) in seg.moves.as_mut_slice() {
            *ip = ids[*ip as usize];
        }
        if let Some(s) = seg.stall_ip {
            seg.stall_ip = Some(StallIp::new(ids[s.get() as usize]));
        }
    }
}
