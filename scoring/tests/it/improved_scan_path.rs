//! The scan's faster paths for hand-offs, the first mover, one sitting,
//! following and two bodies give the same counts as the definitions they
//! stand in for ([`handoffs`] move by move, [`first_movers`] on every move,
//! [`signals`] on every segment), on arbitrary moves by second (ties, runs
//! of one account, moves seconds apart and pauses of hours) and arbitrary
//! timelines long enough to cross words of bit rows.

use detect_scoring::improved::handoffs::handoffs_indexed;
use detect_scoring::improved::move_index::MoveIndex;
use detect_scoring::improved::{
    first_movers, first_movers_by_stretches, handoffs, handoffs_by_runs, score_both, signals,
    stretches, Context, MoveTimes,
};
use proptest::prelude::*;
use schema::{Epoch, IpDay, IpId, Names, Season, Segments};

/// Accounts `a` and `b` and `crowd` others that moved from address 1 on
/// day 0, so that address is crowded that day when `crowd` is large.
fn world(crowd: u32) -> Segments {
    let mut segs = Segments::new(1800);
    let mut ips = Names::default();
    for n in 0..4 {
        ips.intern(&format!("10.0.0.{n}"));
    }
    for name in ["a", "b"] {
        segs.accounts.intern(name);
    }
    for c in 0..crowd {
        let u = segs.accounts.intern(&format!("c{c}"));
        segs.ip_days.push(IpDay {
            account: u,
            day: 0,
            ip: 1,
        });
    }
    segs.by_account = vec![Vec::new(); segs.accounts.len()];
    segs.ips = ips;
    segs
}

/// Sorted moves: clustered within minutes, spread over hours, or both.
fn moves() -> impl Strategy<Value = Vec<(Epoch, IpId)>> {
    let time = prop_oneof![0i64..600, 0i64..20_000, 0i64..200_000];
    prop::collection::vec((time, 0u32..3), 0..40).prop_map(|mut v| {
        v.sort_unstable();
        v
    })
}

/// Sorted moves over three weeks, in bursts: many own stretches.
fn weeks_of_moves() -> impl Strategy<Value = Vec<(Epoch, IpId)>> {
    let burst = (0i64..1_800_000, prop::collection::vec(0i64..20_000, 1..6));
    prop::collection::vec(burst, 0..30).prop_map(|bursts| {
        let mut v: Vec<(Epoch, IpId)> = bursts
            .into_iter()
            .flat_map(|(at, offs)| offs.into_iter().map(move |o| (at + o, 0)))
            .collect();
        v.sort_unstable();
        v
    })
}

/// Sorted moves packed seconds apart within a few cells of time, or
/// spread over days, around a start that may lie before 1970.
fn packed_moves() -> impl Strategy<Value = Vec<(Epoch, IpId)>> {
    let time = prop_oneof![0i64..300, 0i64..8_000, 0i64..300_000];
    (
        prop_oneof![Just(0i64), Just(-4_100i64), Just(1_768_000_000i64)],
        prop::collection::vec((time, 0u32..3), 0..80),
    )
        .prop_map(|(start, v)| {
            let mut v: Vec<(Epoch, IpId)> = v.into_iter().map(|(t, ip)| (start + t, ip)).collect();
            v.sort_unstable();
            v
        })
}

/// A timeline of `improved.rs`'s kind, long enough to cross words.
fn long_spec() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        4 => Just(".".to_string()),
        2 => Just("S".to_string()),
        3 => (0u32..5).prop_map(|i| format!("M{}", [0, 1, 2, 11, 3][i as usize])),
        1 => Just("M1+2".to_string()),
    ];
    prop::collection::vec(word, 0..200).prop_map(|w| w.join(" "))
}

proptest! {
    #[test]
    fn indexed_hand_offs_equal_hand_offs_move_by_move(a in packed_moves(), b in packed_moves(), crowd in 0u32..20) {
        let segs = world(crowd);
        let season = Season::inferred(1);
        let times = MoveTimes::new(&segs);
        let cx = Context::new(&segs, &season, &times);
        let (ia, ib) = (MoveIndex::new(&a), MoveIndex::new(&b));
        prop_assert_eq!(handoffs_indexed(&cx, (&a, &ia), (&b, &ib)), handoffs(&cx, &a, &b));
        prop_assert_eq!(handoffs_indexed(&cx, (&b, &ib), (&a, &ia)), handoffs(&cx, &b, &a));
        prop_assert_eq!(handoffs_indexed(&cx, (&a, &ia), (&a, &ia)), handoffs(&cx, &a, &a));
    }

    #[test]
    fn signals_on_rows_equal_signals_on_segments(a in long_spec(), b in long_spec(), crowd in 0u32..20) {
        let segs = crate::common::world(&a, &b, crowd, 1);
        let season = Season::inferred(1);
        let times = MoveTimes::new(&segs);
        let cx = Context::new(&segs, &season, &times);
        let [ab, _] = score_both(&cx, detect_scoring::improved::Model::shipped(), 0, 1);
        let plain = signals(
            &cx,
            (&segs.by_account[0], &segs.by_account[1]),
            (cx.ip_days(0), cx.ip_days(1)),
            (cx.moves(0), cx.moves(1)),
        );
        prop_assert_eq!(*ab.evidence.signals.expect("signals"), plain);
    }

    #[test]
    fn hand_offs_by_runs_equal_hand_offs_move_by_move(a in moves(), b in moves(), crowd in 0u32..20) {
        let segs = world(crowd);
        let season = Season::inferred(1);
        let times = MoveTimes::new(&segs);
        let cx = Context::new(&segs, &season, &times);
        prop_assert_eq!(handoffs_by_runs(&cx, &a, &b), handoffs(&cx, &a, &b));
        prop_assert_eq!(handoffs_by_runs(&cx, &b, &a), handoffs(&cx, &b, &a));
    }

    #[test]
    fn first_movers_by_stretches_equal_first_movers_on_every_move(a in moves(), b in moves()) {
        let (sa, sb) = (stretches(&a), stretches(&b));
        prop_assert_eq!(first_movers_by_stretches(&sa, &sb), first_movers(&a, &b));
        prop_assert_eq!(first_movers_by_stretches(&sb, &sa), first_movers(&b, &a));
    }

    /// Over weeks, with long runs of one account's stretches between the
    /// other's (the runs the scan steps over), and shared seconds.
    #[test]
    fn first_movers_by_stretches_equal_first_movers_over_weeks(
        a in weeks_of_moves(), b in weeks_of_moves(), shared in prop::collection::vec(0usize..200, 0..6),
    ) {
        let mut b = b;
        b.extend(shared.iter().filter_map(|&k| a.get(k).copied()));
        b.sort_unstable();
        let (sa, sb) = (stretches(&a), stretches(&b));
        prop_assert_eq!(first_movers_by_stretches(&sa, &sb), first_movers(&a, &b));
        prop_assert_eq!(first_movers_by_stretches(&sb, &sa), first_movers(&b, &a));
    }
}

#[test]
fn own_stretches_end_at_a_pause_of_over_four_hours() {
    let h = 3600;
    let at = |ts: &[i64]| ts.iter().map(|&t| (t, 0)).collect::<Vec<_>>();
    assert_eq!(
        stretches(&at(&[0, 4 * h, 8 * h + 1, 9 * h])),
        vec![(0, 4 * h), (8 * h + 1, 9 * h)]
    );
    assert_eq!(stretches(&[]), vec![]);
}
