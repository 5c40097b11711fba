//! Timing pairs (`scoring::improved::timing`): a hidden account behind a
//! shared exit paired, by when it plays, with an account it never shared an
//! address with. Hand-worked examples on timelines written by code (one
//! word per 30-minute bucket, as in `similarity.rs`), and properties of the
//! timing model.

use detect_scoring::improved::timing::{self, llr, ratios};
use detect_scoring::improved::Model;
use detect_scoring::improved::MoveTimes;
use proptest::prelude::*;
use schema::{Season, Segments, Signals, Timing};

use crate::common::world;

const DAYS: usize = 12;

/// One word per bucket over [`DAYS`] days: `M{ip}` in the bucket of each
/// `(day, hour)`, `.` elsewhere.
fn timeline(ip: u32, at: impl Fn(usize) -> Option<usize>) -> String {
    let mut words = vec!["."; DAYS * 48];
    let word = format!("M{ip}");
    for d in 0..DAYS {
        if let Some(hour) = at(d) {
            words[d * 48 + hour * 2] = &word;
        }
    }
    words.join(" ")
}

/// The moves by second: each move at the start of its bucket.
fn times_of(segs: &Segments) -> MoveTimes {
    let mut times = MoveTimes::new(segs);
    for (u, list) in segs.by_account.iter().enumerate() {
        let account = segs.accounts.name(u as u32).to_owned();
        for s in list {
            for &(ip, _) in &s.moves {
                times.push(segs, &account, s.bucket, segs.ips.name(ip));
            }
        }
    }
    times.finish()
}

/// The timing pairs of `a` (on its own IP 1) and `b` (on IP 5, which
/// `others` more accounts use in bucket 0).
fn timing_of(a: &str, b: &str, others: u32) -> Vec<(String, String, Timing)> {
    let segs = world(a, b, others, 5);
    let times = times_of(&segs);
    let season = Season::inferred(1);
    let members: Vec<u32> = (0..segs.accounts.len() as u32).collect();
    // The crowd and `b` share IP 5 on day 0: those are candidate pairs.
    let candidates: Vec<(u32, u32)> = (2..members.len() as u32).map(|c| (1, c)).collect();
    timing::timing_pairs(&segs, &season, &times, &members, &candidates)
        .into_iter()
        .map(|(h, x, t)| {
            (
                segs.accounts.name(h).to_owned(),
                segs.accounts.name(x).to_owned(),
                t,
            )
        })
        .collect()
}

/// The main account plays at a different hour each day (6, 10, 14, 18 or
/// 22 o'clock in turn); the hidden one an hour after it.
fn main_hour(d: usize) -> usize {
    6 + 4 * (d % 5)
}

#[test]
fn a_hidden_account_that_follows_the_other_at_changing_hours_is_a_timing_pair() {
    let a = timeline(1, |d| Some(main_hour(d)));
    let b = timeline(5, |d| Some(main_hour(d) + 1));
    let got = timing_of(&a, &b, 7);
    assert_eq!(got.len(), 1, "{got:?}");
    let (h, x, t) = &got[0];
    assert_eq!((h.as_str(), x.as_str()), ("b", "a"));
    // Each of b's 12 sittings began an hour after a moved: 12 of 12.
    assert_eq!((t.followed, t.sittings), (12, 12));
    // Moved one to three days, b's sittings fall 3 to 17 hours away from
    // a's move of that day (hours differ by 4, 8 or 12, and the day before
    // ends at 22 o'clock at the latest): never followed by chance.
    assert_eq!(t.followed_by_chance_milli, 0);
    // a opened every stretch (b an hour later, within four hours).
    assert_eq!((t.other_opened, t.hidden_opened), (12, 0));
    assert!(t.other_opened_by_chance_milli < 700, "{t:?}");
    // 12 of 12 against a chance clamped to 0.02: 12 ln 50.
    let [follow, _] = ratios(t);
    assert!((follow - 12.0 * 50f64.ln()).abs() < 1e-9, "{follow}");
    let s = Signals {
        timing: Some(*t),
        ..Signals::default()
    };
    assert!(time_model().probability(&s) > 0.9);
}

#[test]
fn following_at_the_same_hour_every_day_is_habit_not_evidence() {
    // a at 19:00 and b at 20:00 every day: b follows a each day, but it
    // follows a just as well on the days either side.
    let a = timeline(1, |_| Some(19));
    let b = timeline(5, |_| Some(20));
    assert_eq!(timing_of(&a, &b, 7), vec![]);
}

#[test]
fn an_account_with_an_address_of_its_own_is_not_hidden() {
    // Fewer than eight accounts on IP 5 in the season: not a shared exit,
    // so b is not hidden and no timing pair is sought.
    let a = timeline(1, |d| Some(main_hour(d)));
    let b = timeline(5, |d| Some(main_hour(d) + 1));
    assert_eq!(timing_of(&a, &b, 6), vec![]);
    // b also plays from IP 2 (its own) on 4 of 12 days: 8 of 12 sightings
    // on the exit, under 80 %.
    let b = timeline(5, |d| Some(main_hour(d) + 1))
        .split(' ')
        .enumerate()
        .map(|(k, w)| {
            if w == "M5" && k / 48 % 3 == 0 {
                "M2"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(timing_of(&a, &b, 7), vec![]);
}

#[test]
fn the_log_likelihood_ratio_is_signed_and_grows_with_the_evidence() {
    // 10 of 10 against 0.5: 10 ln 2.
    assert!((llr(10, 10, 0.5) - 10.0 * 2f64.ln()).abs() < 1e-12);
    // 2 of 10 against 0.5: below chance, negative.
    let want = 10.0 * (0.2 * (0.2f64 / 0.5).ln() + 0.8 * (0.8f64 / 0.5).ln());
    assert!((llr(2, 10, 0.5) + want).abs() < 1e-12);
    assert_eq!(llr(5, 10, 0.5), 0.0);
    assert_eq!(llr(0, 0, 0.3), 0.0);
    // The same share on twice the sittings is twice the evidence.
    assert!((llr(16, 20, 0.4) - 2.0 * llr(8, 10, 0.4)).abs() < 1e-12);
}

/// A hidden account that followed the other in 24 of 30 sittings (30 %
/// by chance) and was opened for in 20 of 22 stretches (60 % by chance),
/// read against `tested` members.
fn a_timing(tested: u32) -> Timing {
    Timing {
        a_hidden: true,
        sittings: 30,
        followed: 24,
        followed_by_chance_milli: 300,
        other_opened: 20,
        hidden_opened: 2,
        other_opened_by_chance_milli: 600,
        tested,
    }
}

#[test]
fn moves_within_seconds_of_each_other_lower_a_timing_pair() {
    let t = a_timing(300);
    let p = |close| {
        time_model().probability(&Signals {
            timing: Some(t),
            close,
            ..Signals::default()
        })
    };
    assert!(p(4) < p(0), "{} {}", p(4), p(0));
    assert_eq!(time_model().probability(&Signals::default()), 0.0);
}

#[test]
fn the_same_timing_read_against_more_members_is_worth_less() {
    // Each member read against may follow the hidden account by chance:
    // against a hundred times the members, the odds of one person are a
    // hundredth of what they were.
    let at = |tested| {
        time_model().probability(&Signals {
            timing: Some(a_timing(tested)),
            ..Signals::default()
        })
    };
    let odds = |p: f64| p / (1.0 - p);
    assert!(at(30_000) < at(300), "{} {}", at(30_000), at(300));
    assert!((odds(at(300)) / odds(at(30_000)) - 100.0).abs() < 1e-6);
    // A model file from before the members were counted reads as it was
    // fitted: the same probability at any number of members.
    let mut before = *time_model();
    before.per_member = false;
    let p = |tested| {
        before.probability(&Signals {
            timing: Some(Timing {
                sittings: 10,
                followed: 9,
                tested,
                ..Timing::default()
            }),
            ..Signals::default()
        })
    };
    assert_eq!(p(300), p(30_000));
}

fn any_timing() -> impl Strategy<Value = (Timing, u32)> {
    (
        (any::<bool>(), 0u32..200, 0u32..200, 0u32..=1000),
        (0u32..200, 0u32..200, 0u32..=1000, 0u32..50, 0u32..100_000),
    )
        .prop_map(|((a_hidden, n, k, fc), (o, h, oc, close, tested))| {
            (
                Timing {
                    a_hidden,
                    sittings: n.max(k),
                    followed: k.min(n),
                    followed_by_chance_milli: fc,
                    other_opened: o,
                    hidden_opened: h,
                    other_opened_by_chance_milli: oc,
                    tested,
                },
                close,
            )
        })
}

proptest! {
    #[test]
    fn the_timing_score_is_a_probability_and_the_same_from_either_side((t, close) in any_timing()) {
        let s = Signals { timing: Some(t), close, ..Signals::default() };
        let p = time_model().probability(&s);
        prop_assert!((0.0..=1.0).contains(&p));
        prop_assert_eq!(p, time_model().probability(&s.swapped()));
        prop_assert_eq!(s.swapped().swapped(), s);
    }
}

/// The shipped model's timing model.
fn time_model() -> &'static detect_scoring::improved::TimeModel {
    Model::shipped()
        .timing()
        .expect("the shipped model looks for timing pairs")
}
