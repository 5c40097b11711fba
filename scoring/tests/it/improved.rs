//! Improved mode's signals, each on a hand-worked example, through tables;
//! and properties of the improved score (hand-offs: `improved_handoffs.rs`).
//!
//! Timelines are written one bucket per word, `k0` first, as in
//! `similarity.rs`: `.` idle, `S` stalled, `M1` moved from IP 1, `M1+2`
//! moved from IPs 1 and 2. IP `n` is the address `10.0.{n / 10}.{n % 10}`,
//! so IPs 1 to 9 share a /24 network and IP 11 lies in another; IP 0 is
//! `h:0`, a hashed address whose network is unknown. Buckets are 30
//! minutes, days are 48 buckets.

use detect_scoring::improved::{self, signals, Context, Model, MoveTimes};
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

/// a's timeline, b's timeline, expected (a_private_milli,
/// b_private_milli), why.
type PrivateRow<'a> = (&'a str, &'a str, (u32, u32), &'a str);

#[test]
fn private_shares_count_moves_from_networks_the_other_never_used() {
    let rows: &[PrivateRow] = &[
        ("M1 M1", "M1", (0, 0), "one network, both"),
        (
            "M1 M1 M11 M11",
            "M2",
            (500, 0),
            "IPs 1 and 2 are one network; half of a's moves are from IP 11, which b never used",
        ),
        (
            "M1 . . . . . . . . . . . M11",
            ". . . . . . M21 M11",
            (500, 500),
            "on another day, not at once, still: a's IP 1 and b's IP 21 are each their own",
        ),
        (
            "M0 M1",
            "M0",
            (500, 0),
            "a hashed address is a network of its own",
        ),
        (
            "S S",
            "M1",
            (0, 1000),
            "a never moved: no private share, and every move of b's is from a network a never used",
        ),
    ];
    for &(a, b, want, why) in rows {
        let s = signals_of(a, b, 0);
        assert_eq!(
            (s.a_private_milli, s.b_private_milli),
            want,
            "{why}: a = {a:?}, b = {b:?}"
        );
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

/// a, b, extra accounts on IP 1, expected (shared, crowded, networks,
/// places), why.
type TravelRow<'a> = (String, String, u32, (u32, u32, u32, u32), &'a str);

#[test]
fn co_travel_and_places_count_distinct_uncrowded_networks_shared_on_a_day() {
    // Days are 48 buckets: the word after 47 idle ones is the next day.
    let next_day = |first: &str, then: &str| format!("{first} {}{then}", ". ".repeat(47));
    let rows: Vec<TravelRow> = vec![
        (
            "M1 M2".into(),
            "M2 M1".into(),
            0,
            (2, 0, 1, 1),
            "IPs 1 and 2 on one day: two address-days, one network",
        ),
        (
            next_day("M1", "M11"),
            next_day("M1", "M11"),
            0,
            (2, 0, 2, 1),
            "home on day 0, another network on day 1: two networks, one at a time (a \
             home renumbered)",
        ),
        (
            "M1 M11".into(),
            "M11 .".into(),
            0,
            (1, 0, 1, 1),
            "IP 1 is a's alone",
        ),
        (
            "M1 M11".into(),
            "M1 M11".into(),
            20,
            (2, 1, 1, 1),
            "IP 1 is crowded that day: shared, but not a network of their own",
        ),
        (
            format!("{} M11", next_day("M1", "M1")),
            format!("{} M11", next_day("M1", "M1")),
            0,
            (3, 0, 2, 2),
            "home on days 0 and 1, work on day 1: two places in use at once",
        ),
        (
            "M1 M11".into(),
            "M1 M11".into(),
            7,
            (2, 0, 1, 1),
            "nine accounts used IP 1 this season: a shared exit, neither a network nor a place \
             of theirs (though few used it that day)",
        ),
    ];
    for (a, b, crowd, want, why) in rows {
        let s = signals_of(&a, &b, crowd);
        assert_eq!(
            (s.shared_ip_days, s.crowded_ip_days, s.networks, s.places),
            want,
            "{why}: a = {a:?}, b = {b:?}"
        );
    }
}

#[test]
fn the_model_reads_an_owner_above_a_couple_on_their_own_devices() {
    // An owner's two accounts at home and at work, the second following
    // the first; a couple at home, each also at work and on the phone,
    // moving at once now and then.
    let owner = Signals {
        a_buckets: 40,
        b_buckets: 20,
        a_sittings: 30,
        a_followed: 6,
        b_sittings: 20,
        b_followed: 19,
        a_followed_by_chance_milli: 150,
        b_followed_by_chance_milli: 300,
        networks: 2,
        places: 2,
        shared_ip_days: 20,
        switches: 30,
        spaced: 20,
        returns: 8,
        a_private_milli: 200,
        ..Signals::default()
    };
    let couple = Signals {
        a_followed: 15,
        b_followed: 7,
        // Two evening players: as often on other days.
        a_followed_by_chance_milli: 450,
        b_followed_by_chance_milli: 400,
        apart: 6,
        networks: 1,
        places: 1,
        close: 3,
        turns: 20,
        returns: 1,
        a_private_milli: 300,
        b_private_milli: 350,
        ..owner
    };
    let m = Model::shipped();
    let p = |s: &Signals| {
        m.probability(&improved::Reading {
            ab: 0.6,
            ba: 0.55,
            signals: s,
        })
    };
    assert!(p(&owner) > p(&couple), "{} <= {}", p(&owner), p(&couple));
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
        let m = Model::shipped();
        let [ab, ba] = improved::score_both(&cx, m, 0, 1);
        let [ba2, ab2] = improved::score_both(&cx, m, 1, 0);
        prop_assert!((0.0..=1.0).contains(&ab.similarity));
        prop_assert_eq!(ab.similarity, ba.similarity);
        prop_assert_eq!(ab.similarity, ab2.similarity);
        prop_assert_eq!(&ab.evidence, &ab2.evidence);
        prop_assert_eq!(&ba.evidence, &ba2.evidence);
        let s = *ab.evidence.signals.expect("signals");
        prop_assert_eq!(s.swapped(), *ba.evidence.signals.expect("signals"));
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
}
