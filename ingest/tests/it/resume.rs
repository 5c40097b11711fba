//! Resuming a cut: a Segmenter that takes up an earlier cut of time-sorted
//! moves from each account's latest two records and each game's latest bucket
//! (what the store keeps of a segmentation), then takes later moves, gives
//! the segments one cut of all the moves gives. This is what lets a daemon
//! tick cut only its new moves.

use detect_ingest::{segment_moves, Segmenter};
use proptest::prelude::*;
use rustc_hash::FxHashMap;
use schema::{GameDays, Move, Segment, Segments, StallIp};
use std::collections::BTreeSet;

use crate::common::{moves, B, K0};

/// A segment by names: bucket, stalls, stall IP, moves.
type NamedSegment = (i64, u32, Option<String>, Vec<(String, u32)>);

fn named(s: &Segments, seg: &Segment) -> NamedSegment {
    let ip = |i| s.ips.name(i).to_owned();
    (
        seg.bucket,
        seg.stalls,
        seg.stall_ip.map(|i| ip(i.get())),
        seg.moves.iter().map(|&(i, n)| (ip(i), n)).collect(),
    )
}

fn by_account(s: &Segments) -> FxHashMap<String, Vec<NamedSegment>> {
    let accounts = s.by_account.iter().enumerate();
    accounts
        .filter(|(_, segs)| !segs.is_empty())
        .map(|(u, segs)| {
            let name = s.accounts.name(u as u32).to_owned();
            (name, segs.iter().map(|g| named(s, g)).collect())
        })
        .collect()
}

fn sightings(s: &Segments) -> BTreeSet<(String, i64, String)> {
    let name = |d: &schema::IpDay| {
        let account = s.accounts.name(d.account).to_owned();
        (account, d.day, s.ips.name(d.ip).to_owned())
    };
    s.ip_days.iter().map(name).collect()
}

fn game_days(s: &Segments) -> Vec<(String, String, i64, i64)> {
    let name = |d: &GameDays| {
        let account = s.accounts.name(d.account).to_owned();
        (
            account,
            s.games.name(d.game).to_owned(),
            d.first_day,
            d.last_day,
        )
    };
    s.game_days.iter().map(name).collect()
}

/// Where an account's stored tail starts: the latest record and the one before
/// it (a stall run is one record, as the store keeps runs).
fn tail_start(segs: &[Segment]) -> usize {
    segs.len().saturating_sub(2)
}

/// Cuts `moves[..at]`, then resumes from its tails to cut `moves[at..]`;
/// returns the first cut and the resumed one.
fn cut_and_resume(moves: &[Move], at: usize) -> (Segments, Segments) {
    let mut first = Segmenter::new(B);
    for m in &moves[..at] {
        first.push_move(m);
    }
    let last_buckets = first.last_buckets();
    let games = first.names().2.clone();
    let done = first.finish();
    let last: FxHashMap<String, i64> = last_buckets
        .into_iter()
        .map(|(g, b)| (games.name(g).to_owned(), b))
        .collect();
    let mut resumed = Segmenter::new(B);
    let (mut accounts, mut games) = (BTreeSet::new(), BTreeSet::new());
    for m in &moves[at..] {
        if accounts.insert(m.username.clone()) {
            let account = resumed.account_id(&m.username);
            if let Some(u) = done.accounts.get(&m.username) {
                let segs = &done.by_account[u as usize];
                let records = segs[tail_start(segs)..]
                    .iter()
                    .map(|seg| {
                        let mut ip = |i| resumed.ip_id(done.ips.name(i));
                        Segment {
                            bucket: seg.bucket,
                            moves: seg.moves.iter().map(|&(i, n)| (ip(i), n)).collect(),
                            stalls: seg.stalls,
                            stall_ip: seg.stall_ip.map(|i| StallIp::new(ip(i.get()))),
                        }
                    })
                    .collect();
                resumed.resume_account(account, records);
            }
        }
        if games.insert(m.game.clone()) {
            let game = resumed.game_id(&m.game);
            if let Some(&b) = last.get(&m.game) {
                resumed.resume_game(game, b);
            }
        }
        resumed.push_move(m);
    }
    (done, resumed.finish())
}

proptest! {
    #[test]
    fn a_resumed_cut_is_the_whole_cut(moves in moves(), at in 0..120usize) {
        let at = at.min(moves.len());
        let whole = segment_moves(&moves, B);
        let (first, resumed) = cut_and_resume(&moves, at);
        // Put together as the store does: the first cut without the tails
        // of the accounts who moved again, then what the resumed cut made.
        let stored = by_account(&first);
        let mut together = stored.clone();
        for (account, segs) in by_account(&resumed) {
            let mut all = stored.get(&account).cloned().unwrap_or_default();
            if let Some(u) = first.accounts.get(&account) {
                all.truncate(tail_start(&first.by_account[u as usize]));
            }
            all.extend(segs);
            together.insert(account, all);
        }
        prop_assert_eq!(together, by_account(&whole));
        let mut seen = sightings(&first);
        seen.extend(sightings(&resumed));
        prop_assert_eq!(seen, sightings(&whole));
        // Runs of game days: the resumed runs extend the stored ones.
        let mut runs: Vec<_> = game_days(&first);
        runs.extend(game_days(&resumed));
        runs.sort();
        let mut merged: Vec<(String, String, i64, i64)> = Vec::new();
        for r in runs {
            match merged.last_mut() {
                Some(l) if (&l.0, &l.1) == (&r.0, &r.1) && r.2 <= l.3 + 1 => l.3 = l.3.max(r.3),
                _ => merged.push(r),
            }
        }
        let mut whole_runs = game_days(&whole);
        whole_runs.sort();
        prop_assert_eq!(merged, whole_runs);
    }
}

#[test]
fn a_move_into_the_latest_bucket_stalls_back_to_the_record_before_it() {
    // b moved at k1 (game h) and k5 (game i, its first move); a moved in g
    // at k0; b's move in g at k5 stalls k2..k4, between the two records
    // resumed.
    let mv = |u: &str, g: &str, k: i64| Move {
        username: u.into(),
        game: g.into(),
        timestamp: K0 + k * B + 60,
        ip: "1".into(),
    };
    let moves = [
        mv("a", "g", 0),
        mv("b", "h", 1),
        mv("b", "i", 5),
        mv("b", "g", 5),
    ];
    let whole = segment_moves(&moves, B);
    let spans = |s: &Segments| -> Vec<(i64, u32)> {
        let b = s.of("b").iter();
        b.map(|g| ((g.bucket - K0) / B, g.stalls)).collect()
    };
    assert_eq!(
        spans(&whole),
        [(1, 0), (2, 3), (5, 0)],
        "k1, a run k2..k4, k5"
    );
    let (first, resumed) = cut_and_resume(&moves, 3);
    assert_eq!(first.of("b").len(), 2);
    assert_eq!(spans(&resumed), spans(&whole), "the tail is k1 and k5");
}
