//! Improved mode's signals, each on a hand-worked example, through tables;
//! and properties of the improved score (hand-offs: `improved_handoffs.rs`).
//!
//! Timelines are written one bucket per word, `k0` first, as in
//! `similarity.rs`: `.` idle, `S` stalled, `M1` moved from IP 1, `M1+2`
//! moved from IPs 1 and 2. IP `n` is the address `10.0.{n / 10}.{n % 10}`,
//! so IPs 1 to 9 share a /24 network and IP 11 lies in another; IP 0 is
//! `h:0`, a hashed address whose network is unknown. Buckets are 30
//! minutes, days are 48 buckets.

use detect_scoring::improved::{self, signals, Context, MoveTimes, MODEL};
use proptest::prelude::*;
use schema::{Season, Segments, Signals};

use crate::common::world;

/// The moves by second of a world: each move of a bucket one minute after
/// the one before, from the bucket's start.
fn times_of(segs: &Segments) -> MoveTimes {
    let mut times = MoveTimes::new(segs);
    for (u, list) in segs.by_account.iter().enumerate() {
        let account = segs.accounts.name(u as u32).to_owned();
        for s in list {
            let mut t = s.bucket;
            for &(ip, count) in &s.moves {
                for _ in 0..count {
                    times.push(segs, &account, t, segs.ips.name(ip));
                    t += 60;
                }
            }
        }
    }
    times.finish()
}

fn signals_of(a: &str, b: &str, crowd: u32) -> Signals {
    let segs = world(a, b, crowd, 1);
    let times = times_of(&segs);
    let season = Season::inferred(1);
    let cx = Context::new(&segs, &season, &times);
    signals(
        &cx,
        (&segs.by_account[0], &segs.by_account[1]),
        (cx.ip_days(0), cx.ip_days(1)),
        (cx.moves(0), cx.moves(1)),
    )
}

/// Each row: a's timeline, b's timeline, extra accounts on IP 1 in bucket
/// 0, the expected (a_buckets, a_accompanied_milli, b_buckets,
/// b_accompanied_milli), and why.
type SittingRow<'a> = (&'a str, &'a str, u32, (u32, u32, u32, u32), &'a str);

#[test]
fn one_sitting_looks_two_hours_either_way_from_the_same_address() {
    let rows: &[SittingRow] = &[
        (
            "M1 . . . . . . . . . M1",
            ". . . M1 . . . . . . . . . . . . M1",
            0,
            (2, 1000, 2, 1000),
            "k0 and k3 are 90 minutes apart: one sitting; k10 and k16 have no partner within 4 buckets",
        ),
        (
            "M1 . . . . M1",
            ". . . . M1",
            0,
            (2, 2000, 1, 1000),
            "exactly two hours apart still counts, and one move can accompany two",
        ),
        (
            "M1 . . . . .",
            ". . . . . M1",
            0,
            (1, 0, 1, 0),
            "two and a half hours apart: two sittings",
        ),
        (
            "M1 M1",
            "M2 M2",
            0,
            (2, 0, 2, 0),
            "the same network is not the same address",
        ),
        (
            "M1 .",
            ". M1",
            11,
            (1, 417, 1, 417),
            "13 accounts on IP 1 that day: weight (18 - 13) / 12",
        ),
        (
            "M1",
            "M1",
            20,
            (1, 0, 1, 0),
            "22 accounts on IP 1 that day: it counts for nothing",
        ),
        ("S S", "M1 M1", 0, (0, 0, 2, 0), "stalls are not moves"),
    ];
    for &(a, b, crowd, want, why) in rows {
        let s = signals_of(a, b, crowd);
        let got = (
            s.a_buckets,
            s.a_accompanied_milli,
            s.b_buckets,
            s.b_accompanied_milli,
        );
        assert_eq!(got, want, "{why}: a = {a:?}, b = {b:?}");
    }
}

#[test]
fn two_bodies_are_both_moving_from_different_networks_at_once() {
    let rows: &[(&str, &str, u32, &str)] = &[
        (
            "M1 M1 M11",
            "M2 M21 M11",
            1,
            "only k1: 10.0.0.1 against 10.0.2.1",
        ),
        ("M1 . M11", ". M21 .", 0, "never in the same bucket"),
        (
            "M1+11",
            "M12",
            0,
            "IPs 11 and 12 share a network: not apart",
        ),
        (
            "M0",
            "M1",
            1,
            "a hashed address against a real one: different",
        ),
        ("M0", "M0", 0, "the same hashed address"),
        ("M1 S", "M11 M11", 1, "a stall is not a move"),
    ];
    for &(a, b, want, why) in rows {
        assert_eq!(
            signals_of(a, b, 0).apart,
            want,
            "{why}: a = {a:?}, b = {b:?}"
        );
    }
}

/// a, b, expected (a_sittings, a_followed, b_sittings, b_followed), why.
type FollowRow<'a> = (&'a str, &'a str, (u32, u32, u32, u32), &'a str);

#[test]
fn following_counts_sittings_begun_within_two_hours_after_the_other_moved() {
    // Rows: a, b, expected (a_sittings, a_followed, b_sittings, b_followed).
    let rows: &[FollowRow] = &[
        (
            "M1 . . . . . . . . . . . M1",
            ". . M2 M2 . . . . . . . . . . . . . M2",
            (2, 0, 2, 1),
            "b's first sitting begins an hour after a moved (from any address); a's never follow b",
        ),
        (
            "M1 M1 . M1",
            ". . . . . M5",
            (1, 0, 1, 1),
            "a gap of an hour does not begin a new sitting; b follows a's last move",
        ),
        (
            "M1 . . . . . .",
            ". . . . . M1 .",
            (1, 0, 1, 0),
            "two and a half hours later is a sitting of its own",
        ),
        (
            "M1",
            "M3",
            (1, 1, 1, 1),
            "both in one bucket: each follows the other",
        ),
        (
            "S S M1",
            "M1 S",
            (1, 1, 1, 0),
            "stalls neither begin nor lead sittings",
        ),
    ];
    for &(a, b, want, why) in rows {
        let s = signals_of(a, b, 0);
        assert_eq!(
            (s.a_sittings, s.a_followed, s.b_sittings, s.b_followed),
            want,
            "{why}: a = {a:?}, b = {b:?}"
        );
    }
}

/// A timeline of `len` buckets, idle but for the given (bucket, word)s.
fn spread(len: usize, at: &[(usize, &str)]) -> String {
    let mut words = vec!["."; len];
    for &(k, w) in at {
        words[k] = w;
    }
    words.join(" ")
}

/// a's moves, b's moves (bucket, word; days are 48 buckets), expected
/// (a_followed_by_chance_milli, b_followed_by_chance_milli), why.
type ChanceRow<'a> = (
    &'a [(usize, &'a str)],
    &'a [(usize, &'a str)],
    (u32, u32),
    &'a str,
);

#[test]
fn following_by_chance_moves_sittings_by_whole_days() {
    let rows: &[ChanceRow] = &[
        (
            &[(2, "M1")],
            &[(0, "M2"), (48, "M2")],
            (1000, 500),
            "b plays at this hour every day: a's sitting a day later still follows b (1 of 1 \
             landing), earlier days lie before b's play; b's sittings moved a day land \
             nowhere a played (no reading, 500)",
        ),
        (
            &[(2, "M1")],
            &[(0, "M2"), (60, "M2")],
            (0, 500),
            "b's next day is six hours later: a moved a day lands in b's play but after \
             none of b's moves",
        ),
        (
            &[(2, "M1"), (50, "M1"), (98, "M1")],
            &[(0, "M2"), (48, "M2"), (96, "M2")],
            (1000, 0),
            "three evenings alike: each of a's sittings moved one or two days either way \
             lands after b's move of that day (6 of 6); b's moved land before a's moves \
             (a plays an hour after b, so never in the two hours before b)",
        ),
        (
            &[(2, "M1"), (110, "M1")],
            &[(0, "M2"), (48, "M2"), (96, "M2")],
            (500, 0),
            "a's second sitting seven hours after b's: of a's sittings moved, two land \
             after a move of b (bucket 2 moved to days 1 and 2), two do not (bucket 110 \
             moved to days 0 and 1)",
        ),
    ];
    for &(a, b, want, why) in rows {
        let (a, b) = (spread(150, a), spread(150, b));
        let s = signals_of(&a, &b, 0);
        assert_eq!(
            (s.a_followed_by_chance_milli, s.b_followed_by_chance_milli),
            want,
            "{why}: a = {a:?}, b = {b:?}"
        );
    }
}

/// a's moves, b's moves, expected (a_followed_long,
/// a_followed_long_by_chance_milli, b_followed_long,
/// b_followed_long_by_chance_milli), why.
type LongRow<'a> = (
    &'a [(usize, &'a str)],
    &'a [(usize, &'a str)],
    (u32, u32, u32, u32),
    &'a str,
);

#[test]
fn long_following_reads_four_hours_after_the_other() {
    let rows: &[LongRow] = &[
        (
            &[(6, "M1")],
            &[(0, "M2")],
            (1, 500, 0, 500),
            "three hours after b: beyond two hours, within four (b has no sitting after a's \
             moves); moved a day, a's sitting lands nowhere b played",
        ),
        (
            &[(9, "M1")],
            &[(0, "M2")],
            (0, 500, 0, 500),
            "four and a half hours after b is a sitting of its own",
        ),
        (
            &[(6, "M1"), (54, "M1"), (102, "M1")],
            &[(0, "M2"), (48, "M2"), (120, "M2")],
            (2, 667, 0, 0),
            "a three hours after b on days 0 and 1, not on day 2 (b played after a that \
             day); a's sittings moved land six times in b's play and four of them after a \
             move of b (days 0 and 1 moved to each other, day 2 moved to both); b's moved \
             land five times in a's play, never after a's moves",
        ),
    ];
    for &(a, b, want, why) in rows {
        let (a, b) = (spread(150, a), spread(150, b));
        let s = signals_of(&a, &b, 0);
        assert_eq!(
            (
                s.a_followed_long,
                s.a_followed_long_by_chance_milli,
                s.b_followed_long,
                s.b_followed_long_by_chance_milli
            ),
            want,
            "{why}: a = {a:?}, b = {b:?}"
        );
    }
}

/// a, b, extra accounts on IP 1, expected (shared, crowded, networks), why.
type TravelRow<'a> = (String, String, u32, (u32, u32, u32), &'a str);

#[test]
fn co_travel_counts_distinct_uncrowded_networks_shared_on_a_day() {
    // Days are 48 buckets: the word after 47 idle ones is the next day.
    let next_day = |first: &str, then: &str| format!("{first} {}{then}", ". ".repeat(47));
    let rows: Vec<TravelRow> = vec![
        (
            "M1 M2".into(),
            "M2 M1".into(),
            0,
            (2, 0, 1),
            "IPs 1 and 2 on one day: two address-days, one network",
        ),
        (
            next_day("M1", "M11"),
            next_day("M1", "M11"),
            0,
            (2, 0, 2),
            "home on day 0, another network on day 1: two networks",
        ),
        (
            "M1 M11".into(),
            "M11 .".into(),
            0,
            (1, 0, 1),
            "IP 1 is a's alone",
        ),
        (
            "M1 M11".into(),
            "M1 M11".into(),
            20,
            (2, 1, 1),
            "IP 1 is crowded that day: shared, but not a network of their own",
        ),
    ];
    for (a, b, crowd, want, why) in rows {
        let s = signals_of(&a, &b, crowd);
        assert_eq!(
            (s.shared_ip_days, s.crowded_ip_days, s.networks),
            want,
            "{why}: a = {a:?}, b = {b:?}"
        );
    }
}

#[test]
fn the_model_reads_a_careful_owner_above_a_family_at_one_computer() {
    // A careful owner: every sitting of one account is accompanied by the
    // other, from home and from work; a family member also plays alone
    // from work while the other plays at home.
    let owner = Signals {
        a_buckets: 40,
        b_buckets: 20,
        a_accompanied_milli: 30_000,
        b_accompanied_milli: 20_000,
        a_sittings: 30,
        a_followed: 6,
        b_sittings: 20,
        b_followed: 19,
        a_followed_by_chance_milli: 150,
        b_followed_by_chance_milli: 300,
        a_followed_long: 8,
        b_followed_long: 20,
        a_followed_long_by_chance_milli: 250,
        b_followed_long_by_chance_milli: 450,
        apart: 0,
        networks: 2,
        shared_ip_days: 20,
        crowded_ip_days: 0,
        close: 0,
        switches: 30,
        quick: 4,
        turns: 6,
        spaced: 20,
        returns: 8,
        a_first: 18,
        b_first: 1,
        timing: None,
    };
    let family = Signals {
        a_accompanied_milli: 12_000,
        b_accompanied_milli: 8_000,
        a_followed: 15,
        b_followed: 7,
        // Two evening players: as often on other days.
        a_followed_by_chance_milli: 450,
        b_followed_by_chance_milli: 400,
        a_followed_long: 18,
        b_followed_long: 10,
        a_followed_long_by_chance_milli: 600,
        b_followed_long_by_chance_milli: 550,
        apart: 6,
        networks: 1,
        close: 3,
        quick: 2,
        turns: 24,
        spaced: 4,
        returns: 1,
        a_first: 9,
        b_first: 10,
        ..owner
    };
    let p = |s: &Signals| MODEL.probability(&improved::features(0.6, 0.55, s));
    assert!(p(&owner) > p(&family), "{} <= {}", p(&owner), p(&family));
    assert!((0.0..=1.0).contains(&p(&owner)));
    // The owner's puppet follows him far more often than on other days; as
    // often as by chance, the same pair reads less likely one person.
    let by_chance = Signals {
        a_followed_by_chance_milli: 200,
        b_followed_by_chance_milli: 950,
        ..owner
    };
    assert!(
        p(&owner) > p(&by_chance),
        "{} <= {}",
        p(&owner),
        p(&by_chance)
    );
}

fn spec() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just(".".to_string()),
            Just("S".to_string()),
            (0u32..4).prop_map(|i| format!("M{}", [0, 1, 2, 11][i as usize])),
        ],
        0..30,
    )
    .prop_map(|w| w.join(" "))
}

proptest! {
    #[test]
    fn the_improved_score_lies_in_0_1_and_is_symmetric(a in spec(), b in spec(), crowd in 0u32..25) {
        let segs = world(&a, &b, crowd, 1);
        let times = times_of(&segs);
        let season = Season::inferred(1);
        let cx = Context::new(&segs, &season, &times);
        let [ab, ba] = improved::score_both(&cx, 0, 1);
        let [ba2, ab2] = improved::score_both(&cx, 1, 0);
        prop_assert!((0.0..=1.0).contains(&ab.similarity));
        prop_assert_eq!(ab.similarity, ba.similarity);
        prop_assert_eq!(ab.similarity, ab2.similarity);
        prop_assert_eq!(&ab.evidence, &ab2.evidence);
        prop_assert_eq!(&ba.evidence, &ba2.evidence);
        let s = ab.evidence.signals.expect("signals");
        prop_assert_eq!(s.swapped(), ba.evidence.signals.expect("signals"));
        // The scan's path (counts from the context, jumping over far
        // buckets) agrees with the plain one.
        let plain = signals(
            &cx,
            (&segs.by_account[0], &segs.by_account[1]),
            (cx.ip_days(0), cx.ip_days(1)),
            (cx.moves(0), cx.moves(1)),
        );
        prop_assert_eq!(s, plain);
    }

    #[test]
    fn the_model_stays_in_0_1(x in prop::array::uniform22(-1e6f64..1e6)) {
        let p = MODEL.probability(&x);
        prop_assert!((0.0..=1.0).contains(&p));
    }
}
