//! Close moves read against each account's own pace
//! (`scoring::improved::pace`), on hand-worked moves by second: the
//! chances of a close move, each account's pace, and whether the feature
//! the shipped model reads (`log_close_over_pace`) counts them as two
//! bodies.

use detect_scoring::improved::features::feature;
use detect_scoring::improved::pace::{near, pace, Pace};
use detect_scoring::improved::Reading;
use schema::{Epoch, IpId, Signals};

/// a's and b's moves (seconds), the pair's close moves (within 15 s, from
/// either side), the expected chances of one (`near`), a's and b's paces,
/// whether the feature reads two bodies, and why.
type PaceRow<'a> = (&'a [i64], &'a [i64], u32, u32, Pace, Pace, bool, &'a str);

const fn p(close: u32, near: u32) -> Pace {
    Pace { close, near }
}

const ROWS: &[PaceRow<'static>] = &[
    (
        &[0, 120, 240],
        &[5, 125, 245],
        6,
        6,
        p(0, 2),
        p(0, 2),
        true,
        "two slow players moving at once: six close moves, and neither ever moves that quickly on its own",
    ),
    (
        &[0, 240],
        &[120, 360],
        0,
        4,
        p(0, 1),
        p(0, 1),
        false,
        "one slow player switching tabs: every chance of a close move, none taken",
    ),
    (
        &[0],
        &[1000],
        0,
        0,
        p(0, 0),
        p(0, 0),
        false,
        "apart by more than five minutes: no chance of a close move",
    ),
];

fn moves(times: &[i64]) -> Vec<(Epoch, IpId)> {
    times.iter().map(|&t| (t, 0)).collect()
}

/// One quick player: ten runs of three moves 8 seconds apart, the runs
/// going to a and b in turn (a at 0, 8, 16; b at 24, 32, 40; ...).
fn quick_player() -> (Vec<i64>, Vec<i64>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for run in 0..10 {
        let to = if run % 2 == 0 { &mut a } else { &mut b };
        to.extend((0..3).map(|k| (run * 3 + k) * 8));
    }
    (a, b)
}

#[test]
fn close_moves_count_as_two_bodies_only_beyond_the_accounts_own_pace() {
    let f = feature("log_close_over_pace").expect("the feature");
    let (qa, qb) = quick_player();
    let quick: PaceRow = (
        &qa,
        &qb,
        18,
        30,
        p(10, 14),
        p(10, 14),
        false,
        "one quick player: 8 seconds between his own moves in a row, so 8 between his accounts' at each of the 9 switches (two close moves each)",
    );
    for &(a, b, close, want_near, want_a, want_b, two, why) in ROWS.iter().chain([&quick]) {
        let (a, b) = (moves(a), moves(b));
        assert_eq!(near(&a, &b), want_near, "{why}");
        assert_eq!((pace(&a), pace(&b)), (want_a, want_b), "{why}");
        let s = Signals {
            close,
            near: want_near,
            a_pace_close: want_a.close,
            a_pace_near: want_a.near,
            b_pace_close: want_b.close,
            b_pace_near: want_b.near,
            ..Signals::default()
        };
        let r = Reading {
            ab: 0.5,
            ba: 0.5,
            signals: &s,
        };
        let value = (f.value)(&r);
        assert_eq!(value > 0.0, two, "{why}: {value}");
        // Seen from the other account, the same.
        let swapped = s.swapped();
        let r = Reading {
            ab: 0.5,
            ba: 0.5,
            signals: &swapped,
        };
        assert_eq!((f.value)(&r), value, "{why}");
    }
}
