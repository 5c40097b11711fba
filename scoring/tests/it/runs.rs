//! Stall runs: a game waiting on a player for days is one record, and the
//! scan on runs equals the published walk bucket by bucket, in every field
//! of every pair and in the cliques, on arbitrary timelines (waits across
//! days, address changes inside a wait, moves out of time order, seasons
//! that cut a wait).

use detect_scoring::scan;
use detect_scoring::similarity::score_pair;
use ingest::{segment_moves, sort_by_time};
use proptest::prelude::*;
use schema::{expand, join_runs, Move, ScanParams, Season, Segments};

const K0: i64 = 1_430_647_200;
const B: i64 = 1800;
const DAY: i64 = 86_400;

/// Moves of 5 accounts in 3 season games from 4 IPs over six days, few
/// enough that games wait hours to days.
fn moves() -> impl Strategy<Value = Vec<Move>> {
    prop::collection::vec((0..5u8, 0..3u8, 0..6 * DAY, 0..4u8), 0..80).prop_map(|raw| {
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

/// The same segments one a bucket: the view the method is defined on.
fn bucket_by_bucket(segs: &Segments) -> Segments {
    let mut out = segs.clone();
    for list in &mut out.by_account {
        *list = expand(list, segs.bucket_seconds);
    }
    out
}

fn check(segs: &Segments, season: &Season, threshold: f64) -> Result<(), TestCaseError> {
    let params = ScanParams {
        threshold,
        ..ScanParams::default()
    };
    let on_runs = scan(segs, season, &params).unwrap();
    let on_buckets = scan(&bucket_by_bucket(segs), season, &params).unwrap();
    prop_assert_eq!(&on_runs, &on_buckets);
    // Each pair as the walk scores it, from the buckets the runs stand for.
    for p in &on_runs.pairs {
        let of = |name: &str| {
            let u = segs.accounts.get(name).unwrap();
            let within = detect_scoring::in_season(&segs.by_account[u as usize], season, B);
            expand(&within, B)
        };
        let walk = score_pair(&of(&p.account_a), &of(&p.account_b), B);
        prop_assert_eq!((p.sum, p.weight), (walk.sum, walk.weight));
        prop_assert_eq!(&p.evidence, &walk.evidence);
        prop_assert_eq!(p.similarity, walk.similarity());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_scan_on_runs_is_the_walk_bucket_by_bucket(
        mut moves in moves(),
        in_time_order in any::<bool>(),
        cut in (0..6 * DAY, 0..6 * DAY),
        threshold in 0.5..0.95f64,
    ) {
        if in_time_order {
            sort_by_time(&mut moves);
        }
        let segs = segment_moves(&moves, B);
        for list in &segs.by_account {
            // Runs whole: the buckets joined again give the same list.
            prop_assert_eq!(&join_runs(expand(list, B), B), list);
            if in_time_order {
                // A record a moved bucket and at most one run before it.
                let moved = list.iter().filter(|s| !s.moves.is_empty()).count();
                prop_assert!(list.len() <= 2 * moved);
            }
        }
        let (from, to) = (K0 + cut.0.min(cut.1), K0 + cut.0.max(cut.1) + 1);
        let cut_season = Season::new(1, Some(from), Some(to), None).unwrap();
        check(&segs, &Season::inferred(1), threshold)?;
        check(&segs, &cut_season, threshold)?;
    }
}

#[test]
fn a_wait_of_three_days_is_one_record_and_scores_as_its_buckets() {
    let mv = |u: &str, g: &str, t: i64, ip: &str| Move {
        username: u.into(),
        game: format!("4pLeague_S1_{g}"),
        timestamp: K0 + t,
        ip: ip.into(),
    };
    // a and b take turns in two games; b's game h then waits three days
    // on b, while a's waits on a in g.
    let moves = vec![
        mv("a", "g", 0, "1"),
        mv("b", "h", 60, "1"),
        mv("a", "h", 2 * B, "1"),
        mv("b", "g", 2 * B + 60, "1"),
        mv("a", "g", 3 * DAY, "2"),
        mv("b", "h", 3 * DAY + 60, "2"),
    ];
    let segs = segment_moves(&moves, B);
    let b = segs.of("b");
    let spans: Vec<_> = b.iter().map(|s| ((s.bucket - K0) / B, s.stalls)).collect();
    // Moved k0, stalled k1 (g waited since a's k0), moved k2, one run of
    // 141 stalls (h waited three days), moved k144.
    assert_eq!(spans, [(0, 0), (1, 1), (2, 0), (3, 141), (144, 0)]);
    let season = Season::inferred(1);
    let params = ScanParams::default();
    assert_eq!(
        scan(&segs, &season, &params).unwrap(),
        scan(&bucket_by_bucket(&segs), &season, &params).unwrap()
    );
}
