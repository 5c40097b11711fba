//! Improved mode's first mover (`scoring/src/improved/order.rs`) on
//! hand-worked examples: who opened each stretch of play both accounts
//! moved in, how lopsided that reads, and how `explain` says it.

use detect_scoring::improved::{self, first_movers};
use schema::Signals;

/// One first-mover row: a's and b's move seconds, the stretches each
/// opened (of those both moved in), and why.
type FirstRow<'a> = (&'a [i64], &'a [i64], (u32, u32), &'a str);

#[test]
fn first_movers_count_who_opened_each_stretch_both_moved_in() {
    const H: i64 = 3600;
    let rows: &[FirstRow] = &[
        (&[0], &[H], (1, 0), "one stretch, a first"),
        (
            &[0, 24 * H, 48 * H],
            &[H, 25 * H, 49 * H],
            (3, 0),
            "a careful owner: the main account opens every evening",
        ),
        (
            &[0, 25 * H, 48 * H],
            &[H, 24 * H, 49 * H],
            (2, 1),
            "a family taking turns: b went first on the second evening",
        ),
        (
            &[0, 24 * H],
            &[30 * H],
            (0, 0),
            "b played alone, 6 hours after a: no stretch with both",
        ),
        (
            &[0, 8 * H],
            &[4 * H],
            (1, 0),
            "pauses of exactly 4 hours do not end the stretch: one stretch, a first",
        ),
        (
            &[0, 4 * H + 2],
            &[4 * H + 1],
            (0, 1),
            "a pause of 4 hours and a second ends it: a alone, then b first",
        ),
        (
            &[100, 200],
            &[100],
            (0, 0),
            "both first at the same second: neither",
        ),
        (&[], &[0, H], (0, 0), "a never moved"),
    ];
    let at = |ts: &[i64]| -> Vec<(i64, u32)> { ts.iter().map(|&t| (t, 0)).collect() };
    for &(a, b, (x, y), why) in rows {
        assert_eq!(first_movers(&at(a), &at(b)), (x, y), "{why}");
        assert_eq!(first_movers(&at(b), &at(a)), (y, x), "{why} (swapped)");
    }
}

#[test]
fn the_lead_share_reads_a_lopsided_count_as_one_person() {
    let s = |a_first, b_first| Signals {
        a_first,
        b_first,
        ..Signals::default()
    };
    // |18 - 1| / (18 + 1 + 2) = 17 / 21; even counts read 0; one stretch
    // reads 1/3, not 1.
    assert!((improved::lead_share(&s(18, 1)) - 17.0 / 21.0).abs() < 1e-12);
    assert_eq!(improved::lead_share(&s(9, 9)), 0.0);
    assert!((improved::lead_share(&s(0, 1)) - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(
        improved::lead_share(&s(3, 7)),
        improved::lead_share(&s(7, 3))
    );
}

#[test]
fn explain_names_the_first_mover_in_words() {
    let s = Signals {
        a_first: 18,
        b_first: 1,
        ..Signals::default()
    };
    let lines = improved::describe(&s, "ann", "bob");
    assert!(
        lines.iter().any(|l| l.starts_with("First mover:")
            && l.contains("no pause over 4 hours")
            && l.contains("ann opened 18 and bob 1")),
        "{lines:#?}"
    );
}
