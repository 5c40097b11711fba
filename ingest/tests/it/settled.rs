//! Settled segments: handed over part by part while time-sorted moves come
//! in (`Segmenter::take_settled`), then the rest from `finish`, they are
//! exactly the segments of one `finish` over the same moves. This is what
//! lets an ingest save segments as it cuts them instead of holding them all.

use detect_ingest::{segment_moves, Segmenter};
use proptest::prelude::*;
use schema::{Move, Segment, Segments};

use crate::common::{moves, B, K0};

/// Cuts `moves`, taking the settled segments after every move whose index
/// is in `takes`; returns the segments put back together.
fn cut_in_parts(moves: &[Move], takes: &[usize]) -> Segments {
    let mut segmenter = Segmenter::new(B);
    let mut parts: Vec<Vec<Segment>> = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        segmenter.push_move(m);
        if takes.contains(&i) {
            for (account, settled) in segmenter.take_settled() {
                let account = account as usize;
                if parts.len() <= account {
                    parts.resize_with(account + 1, Vec::new);
                }
                assert!(
                    settled.iter().all(|s| !s.stalled() || s.stall_ip.is_some()),
                    "a settled stall knows its IP"
                );
                parts[account].extend(settled);
            }
        }
    }
    let mut rest = segmenter.finish();
    for (account, part) in parts.into_iter().enumerate() {
        let tail = std::mem::take(&mut rest.by_account[account]);
        rest.by_account[account] = part.into_iter().chain(tail).collect();
    }
    rest
}

proptest! {
    #[test]
    fn settled_parts_and_the_rest_are_the_whole(
        moves in moves(),
        takes in prop::collection::vec(0..120usize, 0..12),
    ) {
        let whole = segment_moves(&moves, B);
        let parts = cut_in_parts(&moves, &takes);
        prop_assert_eq!(&parts.by_account, &whole.by_account);
        prop_assert_eq!(&parts.ip_days, &whole.ip_days);
        prop_assert_eq!(&parts.game_days, &whole.game_days);
        prop_assert_eq!(parts.accounts.as_slice(), whole.accounts.as_slice());
        prop_assert_eq!(parts.ips.as_slice(), whole.ips.as_slice());
    }
}

#[test]
fn a_stall_is_settled_with_the_move_after_it() {
    let mv = |u: &str, k: i64, ip: &str| Move {
        username: u.into(),
        game: "g".into(),
        timestamp: K0 + k * B + 60,
        ip: ip.into(),
    };
    let mut segmenter = Segmenter::new(B);
    segmenter.push_move(&mv("a", 0, "1"));
    segmenter.push_move(&mv("b", 3, "2"));
    assert!(
        segmenter.take_settled().is_empty(),
        "b's run of stalls (k1, k2) and moved bucket (k3) stay open"
    );
    segmenter.push_move(&mv("b", 5, "3"));
    let settled = segmenter.take_settled();
    assert_eq!(settled.len(), 1, "b's first run settles with k3");
    let run = &settled[0].1[0];
    assert_eq!(settled[0].1.len(), 2);
    assert_eq!((run.bucket, run.stalls), (K0 + B, 2), "one run of two");
    assert!(run.is_run() && run.stall_ip.is_some());
    segmenter.push_move(&mv("b", 5, "4"));
    assert!(
        segmenter.take_settled().is_empty(),
        "b's last stall and moved bucket stay open"
    );
    let rest = segmenter.finish();
    assert_eq!(rest.of("b").len(), 2);
    assert_eq!(rest.of("b")[1].moves.len(), 2);
}

#[test]
#[should_panic(expected = "time order")]
fn an_older_move_leaves_nothing_settled() {
    let mv = |k: i64| Move {
        username: "a".into(),
        game: "g".into(),
        timestamp: K0 + k * B,
        ip: "1".into(),
    };
    let mut segmenter = Segmenter::new(B);
    segmenter.push_move(&mv(5));
    segmenter.push_move(&mv(2));
    segmenter.take_settled();
}
