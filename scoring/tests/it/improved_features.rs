//! Improved mode's features (`scoring::improved::features`) on
//! hand-worked examples: the 2015 score and the following share read
//! against the address-days the pair shared (round 10).

use detect_scoring::improved::{self, FEATURES, MODEL, N};
use schema::Signals;

fn feature(name: &str) -> usize {
    FEATURES
        .iter()
        .position(|f| *f == name)
        .unwrap_or_else(|| panic!("no feature {name}"))
}

#[test]
fn the_products_read_the_score_and_the_following_against_the_days_shared() {
    // 3 address-days shared: ln(1 + 3) = 1.3863. The larger reference
    // direction 0.9: log-odds ln(9) = 2.1972. Following: a 2 of 4 sittings,
    // b 1 of 4: the larger share 0.5.
    let s = Signals {
        shared_ip_days: 3,
        crowded_ip_days: 1,
        a_sittings: 4,
        a_followed: 2,
        b_sittings: 4,
        b_followed: 1,
        ..Signals::default()
    };
    let x = improved::features(0.9, 0.5, &s);
    let near = |got: f64, want: f64| (got - want).abs() < 1e-4;
    assert!(near(x[feature("reference_max_log_odds")], 2.1972));
    assert!(near(
        x[feature("reference_max_by_shared_days")],
        2.1972 * 1.3863
    ));
    assert!(near(
        x[feature("followed_max_by_shared_days")],
        0.5 * 1.3863
    ));
    // Uncrowded days are the shared ones less the crowded: ln(1 + 2).
    assert!(near(x[feature("log_uncrowded_ip_days")], 1.0986));
    assert_eq!(x.len(), N);
}

#[test]
fn strangers_behind_one_crowded_address_gain_nothing_by_the_days_they_shared() {
    // Two accounts behind carrier NAT: every address-day they shared was
    // crowded, so they have no uncrowded day whether they shared one or
    // twenty. The 2015 score is high (both move in the evenings).
    let one_day = Signals {
        a_buckets: 30,
        b_buckets: 30,
        a_sittings: 20,
        b_sittings: 20,
        shared_ip_days: 1,
        crowded_ip_days: 1,
        ..Signals::default()
    };
    let twenty_days = Signals {
        shared_ip_days: 20,
        crowded_ip_days: 20,
        ..one_day
    };
    let p = |s: &Signals| MODEL.probability(&improved::features(0.97, 0.95, s));
    assert!(
        p(&twenty_days) < p(&one_day),
        "{} >= {}",
        p(&twenty_days),
        p(&one_day)
    );
    assert!(p(&twenty_days) < 0.5, "{}", p(&twenty_days));
}
