//! The bit-row scoring of `detect_scoring::bits` against the walk that
//! defines the method: equal outcomes (sum, weight and every piece of
//! evidence) on arbitrary timelines, across word boundaries and at any
//! offset in time.

use detect_scoring::bits::{score_rows, score_rows_both, Rows};
use detect_scoring::similarity::score_pair;
use proptest::prelude::*;
use schema::{join_runs, Segment};

const B: i64 = 1800;

/// Per bucket: a state (mostly idle, so runs of records and gaps both
/// happen) and up to two addresses from a small set.
fn arb_timeline() -> impl Strategy<Value = (i64, Vec<(u8, u8, u8)>)> {
    (
        -200i64..200,
        prop::collection::vec((0u8..10, 1u8..5, 0u8..5), 0..260),
    )
}

/// State 0-4 idle, 5-6 stalled, 7-8 moved, 9 both (only out-of-order input
/// gives that); a second address when the third number is 0.
fn segments((k0, t): &(i64, Vec<(u8, u8, u8)>)) -> Vec<Segment> {
    t.iter()
        .enumerate()
        .filter(|(_, (s, _, _))| *s >= 5)
        .map(|(k, &(s, ip, other))| {
            let mut moves: Vec<(u32, u32)> = Vec::new();
            if s >= 7 {
                moves.push((ip as u32, 1));
                if other == 0 && ip != 4 {
                    moves.push((4, 2));
                }
            }
            Segment {
                bucket: (k0 + k as i64) * B,
                moves: moves.into(),
                stalls: (s <= 6 || s == 9) as u32,
                stall_ip: None,
            }
        })
        .collect()
}

/// The rows of one segment a bucket, and of the same timeline with its
/// stalls as runs, score as the walk (one segment a bucket).
fn both_ways_equal(x: &[Segment], y: &[Segment]) -> Result<(), TestCaseError> {
    let (rx, ry) = (Rows::new(x, B).unwrap(), Rows::new(y, B).unwrap());
    prop_assert_eq!(score_rows(&rx, &ry, B), score_pair(x, y, B));
    prop_assert_eq!(score_rows(&ry, &rx, B), score_pair(y, x, B));
    let (jx, jy) = (join_runs(x.to_vec(), B), join_runs(y.to_vec(), B));
    let (qx, qy) = (Rows::new(&jx, B).unwrap(), Rows::new(&jy, B).unwrap());
    prop_assert_eq!(score_rows(&qx, &qy, B), score_pair(x, y, B));
    prop_assert_eq!(score_rows(&qy, &qx, B), score_pair(y, x, B));
    prop_assert_eq!(score_pair(&jx, &jy, B), score_pair(x, y, B));
    one_pass_equal(&rx, &ry)?;
    one_pass_equal(&qx, &qy)
}

/// Both directions in one pass equal the two directed calls.
fn one_pass_equal(rx: &Rows, ry: &Rows) -> Result<(), TestCaseError> {
    let both = (score_rows(rx, ry, B), score_rows(ry, rx, B));
    prop_assert_eq!(score_rows_both(rx, ry, B), both);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn rows_score_as_the_walk(a in arb_timeline(), b in arb_timeline()) {
        both_ways_equal(&segments(&a), &segments(&b))?;
    }

    /// Dense timelines (mostly moved, two addresses often), where both
    /// directions walk the same words and share most address tests.
    #[test]
    fn one_pass_scores_as_two_calls(
        k0 in -130i64..130,
        a in prop::collection::vec((5u8..10, 1u8..5, 0u8..3), 0..300),
        b in prop::collection::vec((3u8..10, 1u8..5, 0u8..3), 0..300),
    ) {
        let (x, y) = (segments(&(0, a)), segments(&(k0, b)));
        let (rx, ry) = (Rows::new(&x, B).unwrap(), Rows::new(&y, B).unwrap());
        one_pass_equal(&rx, &ry)?;
        one_pass_equal(&rx, &rx)?;
    }

    /// Long joint stalls (runs that cross several words) before shared moves.
    #[test]
    fn long_runs_score_as_the_walk(
        gap in 0usize..200, lead in 0usize..80, moves in prop::collection::vec(0usize..6, 1..8)
    ) {
        let mut spec: Vec<(u8, u8, u8)> = vec![(5, 1, 1); lead];
        spec.extend(std::iter::repeat_n((0, 1, 1), gap % 7));
        spec.extend(std::iter::repeat_n((5, 1, 1), gap));
        for m in moves {
            spec.extend(std::iter::repeat_n((5, 1, 1), m));
            spec.push((7, 1, 1));
        }
        let a = segments(&(-64, spec.clone()));
        let mut other = spec;
        other.iter_mut().step_by(5).for_each(|s| s.0 = 0);
        let b = segments(&(-63, other));
        both_ways_equal(&a, &b)?;
        both_ways_equal(&a, &a)?;
    }
}

/// Timelines as the segmenter keeps them on a sparse site: moves far apart
/// and long stall runs (up to some days of buckets, across many words),
/// some moved buckets also stalled.
fn arb_runs() -> impl Strategy<Value = Vec<Segment>> {
    (
        -300i64..300,
        prop::collection::vec((0i64..4, 0u8..6, 1u32..400, 1u32..4), 0..30),
    )
        .prop_map(|(k0, parts)| {
            let mut k = k0;
            let mut out: Vec<Segment> = Vec::new();
            for (gap, kind, len, ip) in parts {
                k += gap;
                let seg = match kind {
                    0..=2 => Segment::stall_run(k * B, len, None),
                    _ => {
                        let mut s = Segment::moved(k * B);
                        s.moves.push((ip, 1));
                        s.stalls = (kind == 5) as u32;
                        s
                    }
                };
                k += seg.span() as i64;
                schema::push_joined(&mut out, seg, B);
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Rows built from long runs score as the walk of their buckets.
    #[test]
    fn rows_from_long_runs_score_as_the_walk(x in arb_runs(), y in arb_runs()) {
        let (ex, ey) = (schema::expand(&x, B), schema::expand(&y, B));
        let (rx, ry) = (Rows::new(&x, B).unwrap(), Rows::new(&y, B).unwrap());
        prop_assert_eq!(score_rows(&rx, &ry, B), score_pair(&ex, &ey, B));
        prop_assert_eq!(score_rows(&ry, &rx, B), score_pair(&ey, &ex, B));
        prop_assert_eq!(score_rows(&rx, &rx, B), score_pair(&ex, &ex, B));
        one_pass_equal(&rx, &ry)?;
    }
}

#[test]
fn a_bucket_off_the_grid_is_left_to_the_walk() {
    let seg = Segment {
        bucket: 7,
        ..Segment::default()
    };
    assert!(Rows::new(&[seg], B).is_none());
    assert!(Rows::new(&[], B).is_some());
}
