//! What a feature is ([`Feature`], read from a pair's [`Reading`]) and the
//! features a [`super::model::Model`] may read, each with the sign its
//! weight must have and why. A model file names the ones it reads.

use super::fit::Sign;
use schema::Signals;
use std::fmt;

/// What a feature is read from: the pair's two reference similarities
/// (`ab` seen from `a`, `ba` from `b`) and its signals.
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    pub ab: f64,
    pub ba: f64,
    pub signals: &'a Signals,
}

/// One feature the model may read.
pub struct Feature {
    /// Its name in model files.
    pub name: &'static str,
    pub sign: Sign,
    /// Why the sign, in a sentence.
    pub reason: &'static str,
    /// Its value; the same for `{a, b}` and `{b, a}` (the signals
    /// swapped, the similarities exchanged).
    pub value: fn(&Reading<'_>) -> f64,
}

impl fmt::Debug for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({:?})", self.name, self.sign)
    }
}

impl PartialEq for Feature {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// The feature named `name`.
pub fn feature(name: &str) -> Option<&'static Feature> {
    FEATURES.iter().find(|f| f.name == name)
}

/// The log-odds of a reference similarity, clamped to [1e-4, 1 - 1e-4]
/// (about ±9.2): 0.9 and 0.97 differ as 2.2 and 3.5, not as 0.8 and 0.94.
pub fn log_odds(p: f64) -> f64 {
    let p = p.clamp(1e-4, 1.0 - 1e-4);
    (p / (1.0 - p)).ln()
}

fn share(k: u32, n: u32) -> f64 {
    if n == 0 {
        0.0
    } else {
        (k as f64 / n as f64).min(1.0)
    }
}

fn ln1p(k: u32) -> f64 {
    (k as f64).ln_1p()
}

fn fewer_buckets(s: &Signals) -> u32 {
    s.a_buckets.min(s.b_buckets).max(1)
}

/// Every feature a model may read.
pub const FEATURES: &[Feature] = &[
    Feature {
        name: "reference_max_log_odds",
        sign: Sign::Positive,
        reason: "the 2015 score, from the side where it is higher: the same moments, the same place, the same silences",
        value: |r| log_odds(r.ab.max(r.ba)),
    },
    Feature {
        name: "reference_min_log_odds",
        sign: Sign::Positive,
        reason: "the 2015 score from the other side: one person's accounts score high from both sides unless one also plays elsewhere",
        value: |r| log_odds(r.ab.min(r.ba)),
    },
    Feature {
        name: "apart_share",
        sign: Sign::Negative,
        reason: "one body cannot move from two networks in the same half-hour",
        value: |r| share(r.signals.apart, fewer_buckets(r.signals)),
    },
    Feature {
        name: "log_apart",
        sign: Sign::Negative,
        reason: "one body cannot move from two networks in the same half-hour",
        value: |r| ln1p(r.signals.apart),
    },
    Feature {
        name: "log_close",
        sign: Sign::Negative,
        reason: "moves of both within seconds of each other take two bodies deciding at once",
        value: |r| ln1p(r.signals.close),
    },
    Feature {
        name: "log_networks",
        sign: Sign::Positive,
        reason: "one person takes all his accounts wherever he goes; two people share only the places they share",
        value: |r| ln1p(r.signals.networks),
    },
    Feature {
        name: "places",
        sign: Sign::Positive,
        reason: "one person's accounts are together at every place he plays from in the same weeks (home and work, home and travel); two people share one place, or one at a time",
        value: |r| r.signals.places as f64,
    },
    Feature {
        name: "private_min",
        sign: Sign::Negative,
        reason: "when both accounts move from networks the other never used, each has a life of its own: two people",
        value: |r| r.signals.a_private_milli.min(r.signals.b_private_milli) as f64 / 1000.0,
    },
    Feature {
        name: "private_max",
        sign: Sign::Negative,
        reason: "one person's second account lives where his first does, and his first mostly too; an account mostly elsewhere is more likely someone else's",
        value: |r| r.signals.a_private_milli.max(r.signals.b_private_milli) as f64 / 1000.0,
    },
    Feature {
        name: "log_uncrowded_ip_days",
        sign: Sign::Positive,
        reason: "strangers rarely share an address few others use, day after day",
        value: |r| ln1p(r.signals.shared_ip_days.saturating_sub(r.signals.crowded_ip_days)),
    },
    Feature {
        name: "crowded_share",
        sign: Sign::Negative,
        reason: "a pair that met only where many accounts were is explained by the crowd",
        value: |r| share(r.signals.crowded_ip_days, r.signals.shared_ip_days),
    },
    Feature {
        name: "following_ratio_max",
        sign: Sign::Positive,
        reason: "one account's sittings start after the other's moves more often than on other days at the same hours",
        value: |r| {
            let (a, b) = following_ratios(r.signals);
            a.max(b) / 10.0
        },
    },
    Feature {
        name: "following_ratio_min",
        sign: Sign::Positive,
        reason: "the same from the other account's side",
        value: |r| {
            let (a, b) = following_ratios(r.signals);
            a.min(b) / 10.0
        },
    },
    Feature {
        name: "following_excess_max",
        sign: Sign::Positive,
        reason: "one account's sittings start after the other's moves more often than on other days at the same hours",
        value: |r| {
            let s = r.signals;
            let ex = |k: u32, n: u32, chance: u32| share(k, n) - chance as f64 / 1000.0;
            ex(s.a_followed, s.a_sittings, s.a_followed_by_chance_milli)
                .max(ex(s.b_followed, s.b_sittings, s.b_followed_by_chance_milli))
        },
    },
    Feature {
        name: "close_share",
        sign: Sign::Negative,
        reason: "moves of both within seconds of each other take two bodies deciding at once",
        value: |r| share(r.signals.close, fewer_buckets(r.signals)),
    },
    Feature {
        name: "turn_share",
        sign: Sign::Negative,
        reason: "hand-overs after 5 to 30 minutes at one address are people taking turns",
        value: |r| share(r.signals.turns, r.signals.switches),
    },
    Feature {
        name: "return_share",
        sign: Sign::Positive,
        reason: "switching back within half an hour is one person going back and forth between tabs",
        value: |r| share(r.signals.returns, r.signals.switches),
    },
    Feature {
        name: "log_close_over_pace",
        sign: Sign::Negative,
        reason: "moves of both within seconds of each other take two bodies only beyond what the accounts' own pace makes of their chances: a player who moves his own games seconds apart moves his accounts so too",
        value: |r| {
            let s = r.signals;
            let (n, p) = (s.near as f64, pace_of(s));
            // Beyond what one body of this pace makes of the chances, by
            // more than two standard deviations of its count.
            let expected = n * p + 2.0 * (n * p * (1.0 - p)).sqrt();
            (s.close as f64 - expected).max(0.0).ln_1p()
        },
    },
];

/// The share of the two accounts' own moves in a row ([`super::pace`])
/// that came within the close seconds, with a weak prior of a slow body
/// (one close move in 20 chances): what one body of their pace makes of
/// each of the pair's chances of a close move.
pub fn pace_of(s: &Signals) -> f64 {
    ((s.a_pace_close + s.b_pace_close) as f64 + 0.5)
        / ((s.a_pace_near + s.b_pace_near) as f64 + 10.0)
}

/// Following against chance, each side's as a log-likelihood ratio
/// ([`super::timing::llr`]): how much more often than on other days its
/// sittings began within two hours after a move of the other account.
pub fn following_ratios(s: &Signals) -> (f64, f64) {
    let ratio = |k: u32, n: u32, chance: u32| super::timing::llr(k, n, chance as f64 / 1000.0);
    (
        ratio(s.a_followed, s.a_sittings, s.a_followed_by_chance_milli),
        ratio(s.b_followed, s.b_sittings, s.b_followed_by_chance_milli),
    )
}

/// The feature values of `r` for the features `names` (unknown names read
/// 0), for tools that fit models.
pub fn values_of(names: &[&str], r: &Reading<'_>) -> Vec<f64> {
    names
        .iter()
        .map(|n| {
            FEATURES
                .iter()
                .find(|f| f.name == *n)
                .map_or(0.0, |f| (f.value)(r))
        })
        .collect()
}
