//! The first mover (`scoring/src/improved/order.rs`), which timing pairs
//! read against chance, on hand-worked examples: who opened each stretch
//! of play both accounts moved in.

use detect_scoring::improved::first_movers;

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
