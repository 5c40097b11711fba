//! A rescan gives the season's scan exactly: the previous scan's pairs
//! naming no replaced account plus the pairs scored again equal a whole scan
//! of the moves as they are now, and the moderator's view (pairs flagged
//! either way, cliques) equals the whole scan's.

use detect_scoring::rescan::{digests, flagged_result, rescan, Previous, PreviousCandidates};
use detect_scoring::{both_ways, scan};
use ingest::{segment_moves, sort_by_time};
use proptest::prelude::*;
use schema::{Move, PairScore, ScanParams, ScanResult, Season};

const K0: i64 = 1_430_647_200;

/// Moves of 6 accounts in 3 season games from 4 IPs over about three days.
fn moves(n: usize) -> impl Strategy<Value = Vec<Move>> {
    prop::collection::vec((0..6u8, 0..3u8, 0..250_000i64, 0..4u8), 0..n).prop_map(|raw| {
        raw.into_iter()
            .map(|(u, g, t, ip)| Move {
                username: format!("u{u}"),
                game: format!("4pLeague_S1_g{g}"),
                timestamp: K0 + t,
                ip: format!("10.0.0.{ip}"),
            })
            .collect()
    })
}

fn sorted(mut moves: Vec<Move>) -> Vec<Move> {
    sort_by_time(&mut moves);
    moves
}

/// The previous scan's pairs kept plus those scored again, in report order.
fn composed(before: &ScanResult, again: &[PairScore], replaced: &[String]) -> Vec<PairScore> {
    let named = |p: &PairScore| replaced.contains(&p.account_a) || replaced.contains(&p.account_b);
    let mut pairs: Vec<PairScore> = before.pairs.iter().filter(|p| !named(p)).cloned().collect();
    pairs.extend(again.iter().cloned());
    schema::order::sort_pairs(&mut pairs);
    pairs
}

/// `extra`: accounts (by id) handed to the rescan as changed besides
/// those whose digest changed.
fn check(old: Vec<Move>, new: Vec<Move>, crowd_limit: usize, threshold: f64, extra: &[bool]) {
    let season = Season::inferred(1);
    let params = ScanParams {
        threshold,
        crowd_limit,
        ..ScanParams::default()
    };
    let before_moves = sorted(old.clone());
    let now_moves = sorted(old.into_iter().chain(new).collect());
    let before_segs = segment_moves(&before_moves, params.bucket_seconds);
    let segs = segment_moves(&now_moves, params.bucket_seconds);
    let before = scan(&before_segs, &season, &params).unwrap();
    let whole = scan(&segs, &season, &params).unwrap();
    let kept_digests = digests(&before_segs, &season);
    let previous = Previous {
        digests: &kept_digests,
        crowded: &before.crowded,
        changed: None,
        candidates: None,
    };
    let again = rescan(&segs, &season, &params, &previous).unwrap();
    reusing_digests_changes_nothing(&segs, &season, &params, &previous, &again, extra);
    touched_candidates_change_nothing(&segs, &season, &params, (&previous, &before), &again);
    assert_eq!(again.result.participants, whole.participants);
    assert_eq!(again.result.candidate_pairs, whole.candidate_pairs);
    assert_eq!(again.result.crowded, whole.crowded);
    assert_eq!(again.digests, digests(&segs, &season));
    let all = composed(&before, &again.result.pairs, &again.replaced);
    assert_eq!(
        all, whole.pairs,
        "kept and scored again equal the whole scan"
    );
    // The previous pairs at hand: every one (the kept copied), or only the
    // flagged directions (the kept scored again).
    let flagged: Vec<PairScore> = before.flagged().cloned().collect();
    let copied = flagged_result(&segs, &season, &again, &before.pairs);
    let view = flagged_result(&segs, &season, &again, &flagged);
    assert_eq!(copied, view);
    let shown = |r: &ScanResult| -> Vec<(String, String, Option<f64>, Option<f64>)> {
        both_ways(r, false)
            .iter()
            .map(|w| {
                let s = |p: Option<&PairScore>| p.map(|p| p.similarity);
                (w.a.to_owned(), w.b.to_owned(), s(w.ab), s(w.ba))
            })
            .collect()
    };
    assert_eq!(shown(&view), shown(&whole));
    assert_eq!(view.cliques, whole.cliques);
    assert!(view.pairs.iter().all(|p| whole.pairs.contains(p)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_rescan_equals_the_whole_scan(
        old in moves(150),
        new in moves(12),
        crowd_limit in prop_oneof![Just(500usize), 2usize..5],
        threshold in prop_oneof![Just(0.9), 0.0f64..1.0],
    ) {
        check(old, new, crowd_limit, threshold, &[]);
    }

    /// Accounts handed over as changed beyond those that did: the same.
    #[test]
    fn a_rescan_told_which_accounts_changed_equals_one_not_told(
        old in moves(150),
        new in moves(12),
        extra in prop::collection::vec(any::<bool>(), 0..8),
    ) {
        check(old, new, 500, 0.9, &extra);
    }
}

/// An (IP, day) that becomes a crowd replaces its accounts, who did not
/// move: each one's pairs met elsewhere are scored again too.
#[test]
fn a_crowd_that_forms_replaces_its_accounts_with_all_their_pairs() {
    let at = |u: &str, ip: u8, t: i64| Move {
        username: u.into(),
        game: format!("4pLeague_S1_g{}", u8::from(u == "n")),
        timestamp: K0 + t,
        ip: format!("10.0.0.{ip}"),
    };
    // z and w1 share address 1 (no crowd at a limit of 2); z and w share
    // address 2. Then n moves from address 1 the same day, in a game of
    // its own (so no one else's stalls change): a crowd of 3.
    let old = vec![
        at("z", 1, 0),
        at("w1", 1, 100),
        at("z", 2, 200),
        at("w", 2, 300),
    ];
    let new = vec![at("n", 1, 150)];
    check(old, new, 2, 0.9, &[]);
}

/// Later moves only, as a daemon's tick brings them: most accounts unchanged.
#[test]
fn a_tick_of_later_moves_replaces_only_who_moved() {
    let old: Vec<Move> = (0..400)
        .map(|i| Move {
            username: format!("u{}", i % 8),
            game: format!("4pLeague_S1_g{}", i % 3),
            timestamp: K0 + i * 700,
            ip: format!("10.0.0.{}", (i / 8) % 2),
        })
        .collect();
    let new: Vec<Move> = (0..4)
        .map(|i| Move {
            username: "u1".into(),
            game: "4pLeague_S1_g1".into(),
            timestamp: K0 + 400 * 700 + i * 60,
            ip: "10.0.0.1".into(),
        })
        .collect();
    let season = Season::inferred(1);
    let params = ScanParams::default();
    let before_segs = segment_moves(&sorted(old.clone()), params.bucket_seconds);
    let before = scan(&before_segs, &season, &params).unwrap();
    let segs = segment_moves(
        &sorted([old.clone(), new.clone()].concat()),
        params.bucket_seconds,
    );
    let kept = digests(&before_segs, &season);
    let previous = Previous {
        digests: &kept,
        crowded: &before.crowded,
        changed: None,
        candidates: None,
    };
    let again = rescan(&segs, &season, &params, &previous).unwrap();
    assert!(again.replaced.contains(&"u1".to_owned()));
    assert!(again.replaced.len() < 8, "{:?}", again.replaced);
    assert!(again.result.pairs.len() < before.pairs.len());
    check(old, new, 500, 0.9, &[]);
}

/// The rescan told which accounts may have changed since the previous
/// digests (those whose digest did, and `extra`) takes the others' digests
/// from before, and gives what the rescan taking every digest again gave.
fn reusing_digests_changes_nothing(
    segs: &schema::Segments,
    season: &Season,
    params: &ScanParams,
    previous: &Previous,
    again: &detect_scoring::rescan::Rescan,
    extra: &[bool],
) {
    let now = digests(segs, season);
    let changed: Vec<bool> = (0..segs.accounts.len())
        .map(|u| {
            let name = segs.accounts.name(u as schema::AccountId);
            previous.digests.get(name) != now.get(name) || extra.get(u).copied().unwrap_or(false)
        })
        .collect();
    let told = Previous {
        changed: Some(&changed),
        ..*previous
    };
    let hinted = rescan(segs, season, params, &told).unwrap();
    assert_eq!(hinted.digests, again.digests);
    assert_eq!(hinted.replaced, again.replaced);
    assert_eq!(hinted.result.pairs, again.result.pairs);
}

/// The rescan handed the previous scan's count of candidate pairs and a
/// count of those naming any accounts (as a daemon holding every pair of
/// its latest scan hands them) finds its candidates among the (IP, day)s
/// its change touched, and gives what the rescan reading every sighting
/// gave.
fn touched_candidates_change_nothing(
    segs: &schema::Segments,
    season: &Season,
    params: &ScanParams,
    (previous, before): (&Previous, &ScanResult),
    again: &detect_scoring::rescan::Rescan,
) {
    let naming = |names: &[String]| {
        let named = |n: &String| names.contains(n);
        // Every candidate pair is scored both ways.
        before
            .pairs
            .iter()
            .filter(|p| named(&p.account_a) || named(&p.account_b))
            .count()
            / 2
    };
    let held = Previous {
        candidates: Some(PreviousCandidates {
            count: before.candidate_pairs,
            naming: &naming,
        }),
        ..*previous
    };
    let touched = rescan(segs, season, params, &held).unwrap();
    assert_eq!(touched.result.candidate_pairs, again.result.candidate_pairs);
    assert_eq!(touched.result.crowded, again.result.crowded);
    assert_eq!(touched.replaced, again.replaced);
    assert_eq!(touched.result.pairs, again.result.pairs);
    assert_eq!(touched.result.participants, again.result.participants);
}
