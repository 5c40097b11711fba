//! Improved mode: the published score plus evidence of how people use their
//! addresses, combined into a calibrated probability that two accounts are
//! one person.
//!
//! For each candidate pair `{a, b}` it scores both directions the reference
//! way ([`crate::score_pair`]: asymmetric, windowed, boosted by joint
//! stalls) and reads [`Signals`] from both timelines:
//!
//! - **one sitting** and **following** ([`signals::side`]): the share of each account's
//!   moved buckets in which the other moved from the same address within
//!   two hours, each weighted by how uncrowded the address was that day;
//!   and the share of its sittings that began within two hours after a
//!   move of the other (from any address), against the same share with
//!   its sittings moved one to three days ([`following`]: two evening
//!   players follow each other by chance, a puppet follows its owner's
//!   main account more), within two hours and within four;
//! - **two bodies** ([`signals::apart`]): buckets in which both moved from
//!   different networks;
//! - **co-travel** ([`signals::shared_days`]): distinct uncrowded networks
//!   both used on one day;
//! - **hand-offs** ([`handoffs::handoffs`]): at second resolution, how the
//!   two accounts' moves follow each other on one address (quick, turns,
//!   spaced, returns) and whether they ever move within seconds of each
//!   other (two bodies);
//! - **first mover** ([`order::first_movers`]): of the stretches of play
//!   in which both accounts moved, how many each opened (one person keeps
//!   his own order, two people do not);
//! - **crowded addresses** ([`context::crowd_weight`]): an address used by
//!   many accounts on a day counts for less, down to nothing; the /24 or /64
//!   network is weaker evidence than the address itself (only `apart` and
//!   co-travel use it).
//!
//! [`Model::probability`] maps them through a logistic model fit on
//! simulated seasons with ground truth (see EVALUATION.md), so that the
//! score reads as the share of pairs at that score that were one person in
//! the evaluation. The probability is symmetric: "one person" is a fact
//! about the unordered pair. Both directions keep their own reference sum,
//! weight and cells as evidence.

pub mod context;
pub mod following;
pub mod handoffs;
pub mod moved;
pub mod order;
pub mod signals;
pub mod timing;

pub use context::{crowd_weight, network_of, Context};
pub use handoffs::{handoffs, handoffs_by_runs, Handoffs, MoveTimes};
pub use order::{first_movers, first_movers_by_stretches, stretches};
pub use signals::signals;
pub use timing::{timing_pairs, TimeModel, TIME_MODEL};

use crate::similarity::PairOutcome;
use schema::{AccountId, PairScore, Segments, Signals};

/// The features of an unordered pair, in the model's order.
pub const FEATURES: [&str; N] = [
    "reference_max_log_odds",
    "reference_min_log_odds",
    "sitting_max",
    "sitting_min",
    "followed_max",
    "followed_min",
    "apart_rate",
    "log_networks",
    "log_uncrowded_ip_days",
    "return_share",
    "spaced_share",
    "turn_share",
    "log_close",
    "log_switches",
    "lead_share",
    "lead_share_squared",
    "following_ratio_max",
    "following_ratio_min",
    "long_following_ratio_max",
    "long_following_ratio_min",
    "reference_max_by_shared_days",
    "followed_max_by_shared_days",
];

/// How many features the model reads.
pub const N: usize = 22;

/// A logistic model over [`FEATURES`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    pub intercept: f64,
    pub weights: [f64; N],
}

/// The model improved mode scores with: L2-regularised logistic regression
/// fit by `scripts/evaluate.d/fit.py` on the undirected candidate pairs of
/// `detect simulate` seeds 1 to 10, 31 to 60 and 101 to 180 (116,168
/// pairs, 4,994 of them one person); seeds 11 to 30 are held out for
/// EVALUATION.md.
pub const MODEL: Model = Model {
    intercept: -12.986,
    weights: [
        5.462, 0.090, -1.497, -1.228, 0.266, -0.584, -3.021, 1.256, 3.878, 1.404, -1.276, -3.400,
        -4.741, 0.015, 3.109, 4.480, 4.851, -0.254, 3.331, 0.288, -1.402, -2.465,
    ],
};

/// The threshold improved mode flags at unless told otherwise: a calibrated
/// score of 0.5 reads "more likely one person than two".
pub const DEFAULT_THRESHOLD: f64 = 0.5;

/// What an improved-mode similarity means, in the words every report
/// (text, web) prints beside an improved scan.
pub const CALIBRATED: &str =
    "Similarities are calibrated: on simulated seasons, about that share of pairs scoring so were one person.";

/// The reference similarity of an outcome, in (0, 1).
fn reference(o: &PairOutcome) -> f64 {
    o.similarity()
}

/// The features of `{a, b}` from both reference directions and the signals.
pub fn features(ab: f64, ba: f64, s: &Signals) -> [f64; N] {
    let share = |milli: u32, n: u32| {
        if n == 0 {
            0.0
        } else {
            (milli as f64 / 1000.0 / n as f64).min(1.0)
        }
    };
    let (sa, sb) = (
        share(s.a_accompanied_milli, s.a_buckets),
        share(s.b_accompanied_milli, s.b_buckets),
    );
    let (fa, fb) = (
        share(s.a_followed * 1000, s.a_sittings),
        share(s.b_followed * 1000, s.b_sittings),
    );
    let fewer = s.a_buckets.min(s.b_buckets).max(1) as f64;
    let uncrowded = s.shared_ip_days.saturating_sub(s.crowded_ip_days) as f64;
    let switches = s.switches.max(1) as f64;
    let (ra, rb) = following_ratios(s, false);
    let (la, lb) = following_ratios(s, true);
    // Over many shared days, housemates too reach a high 2015 score and
    // follow each other: the last two features let the model weigh those
    // for less the more days the pair shared (crowded days included, so
    // that strangers behind one crowded address gain nothing by them).
    let days = (1.0 + s.shared_ip_days as f64).ln();
    [
        log_odds(ab.max(ba)),
        log_odds(ab.min(ba)),
        sa.max(sb),
        sa.min(sb),
        fa.max(fb),
        fa.min(fb),
        (s.apart as f64 / fewer).min(1.0),
        (1.0 + s.networks as f64).ln(),
        (1.0 + uncrowded).ln(),
        s.returns as f64 / switches,
        s.spaced as f64 / switches,
        s.turns as f64 / switches,
        (1.0 + s.close as f64).ln(),
        (1.0 + s.switches as f64).ln(),
        lead_share(s),
        lead_share(s).powi(2),
        // The ratios in tens: a few tens of nats for a puppet over a season.
        ra.max(rb) / 10.0,
        ra.min(rb) / 10.0,
        la.max(lb) / 10.0,
        la.min(lb) / 10.0,
        log_odds(ab.max(ba)) * days,
        fa.max(fb) * days,
    ]
}

/// Following against chance, each side's as a log-likelihood ratio
/// ([`timing::llr`]): how much more often than on other days its sittings
/// began after a move of the other account; within four hours when `long`
/// ([`following::LONG_FOLLOW_SECONDS`]), else within two.
pub fn following_ratios(s: &Signals, long: bool) -> (f64, f64) {
    let ratio = |k: u32, n: u32, chance: u32| timing::llr(k, n, chance as f64 / 1000.0);
    let [ak, bk, ac, bc] = if long {
        [
            s.a_followed_long,
            s.b_followed_long,
            s.a_followed_long_by_chance_milli,
            s.b_followed_long_by_chance_milli,
        ]
    } else {
        [
            s.a_followed,
            s.b_followed,
            s.a_followed_by_chance_milli,
            s.b_followed_by_chance_milli,
        ]
    };
    (ratio(ak, s.a_sittings, ac), ratio(bk, s.b_sittings, bc))
}

/// The log-odds of a reference similarity, clamped to [1e-4, 1 - 1e-4]
/// (about ±9.2): 0.9 and 0.97 differ as 2.2 and 3.5, not as 0.8 and 0.94.
pub fn log_odds(p: f64) -> f64 {
    let p = p.clamp(1e-4, 1.0 - 1e-4);
    (p / (1.0 - p)).ln()
}

/// How lopsided the first movers are: |opened by a - opened by b| over the
/// stretches both moved in plus two (so that one or two stretches read as
/// little), in [0, 1).
pub fn lead_share(s: &Signals) -> f64 {
    s.a_first.abs_diff(s.b_first) as f64 / (s.a_first as f64 + s.b_first as f64 + 2.0)
}

impl Model {
    /// The probability of one person, in [0, 1].
    pub fn probability(&self, x: &[f64; N]) -> f64 {
        let z: f64 = self.intercept + self.weights.iter().zip(x).map(|(w, v)| w * v).sum::<f64>();
        let p = 1.0 / (1.0 + (-z).exp());
        if p.is_nan() {
            0.0
        } else {
            p.clamp(0.0, 1.0)
        }
    }
}

/// Both directed scores of the candidate pair `{x, y}` in improved mode.
pub fn score_both(cx: &Context<'_>, x: AccountId, y: AccountId) -> [PairScore; 2] {
    let (xy, yx) = cx.references(x, y);
    let s = signals::signals_of_accounts(cx, x, y);
    let p = MODEL.probability(&features(reference(&xy), reference(&yx), &s));
    both(cx, (x, y), (xy, yx), s, p)
}

/// Both directed scores of the timing pair of the hidden account `h` and
/// `x` ([`timing`]): the same evidence, scored by [`TIME_MODEL`].
pub fn score_timing(
    cx: &Context<'_>,
    h: AccountId,
    x: AccountId,
    t: schema::Timing,
) -> [PairScore; 2] {
    let (hx, xh) = cx.references(h, x);
    let s = Signals {
        timing: Some(t),
        ..signals::signals_of_accounts(cx, h, x)
    };
    both(cx, (h, x), (hx, xh), s, TIME_MODEL.probability(&s))
}

/// The two directed pairs of `{x, y}` at the probability `p`, each with its
/// own reference sum, weight and cells, and the signals seen from its side.
fn both(
    cx: &Context<'_>,
    (x, y): (AccountId, AccountId),
    (xy, yx): (PairOutcome, PairOutcome),
    s: Signals,
    p: f64,
) -> [PairScore; 2] {
    let segs: &Segments = cx.segments;
    let make = |a: AccountId, b: AccountId, o: PairOutcome, s: Signals| {
        let mut evidence = o.evidence;
        evidence.signals = Some(s);
        PairScore {
            account_a: segs.accounts.name(a).to_owned(),
            account_b: segs.accounts.name(b).to_owned(),
            similarity: p,
            sum: o.sum,
            weight: o.weight,
            evidence,
        }
    };
    [make(x, y, xy, s), make(y, x, yx, s.swapped())]
}

/// The signals in a moderator's words, one line each.
pub fn describe(s: &Signals, a: &str, b: &str) -> Vec<String> {
    let pct = |milli: u32, n: u32| {
        if n == 0 {
            0.0
        } else {
            100.0 * milli as f64 / 1000.0 / n as f64
        }
    };
    let mut lines = vec![
        format!(
            "One sitting: in {:.0}% of the {} buckets {a} moved in, {b} moved from the same uncrowded address within two hours; {:.0}% of {b}'s {} buckets the other way round.",
            pct(s.a_accompanied_milli, s.a_buckets),
            s.a_buckets,
            pct(s.b_accompanied_milli, s.b_buckets),
            s.b_buckets
        ),
        format!(
            "Following: {:.0}% of {a}'s {} sittings began within two hours after a move of {b} (by chance, reading the same hours on other days: {:.0}%); {:.0}% of {b}'s {} sittings after one of {a} (by chance: {:.0}%).",
            pct(s.a_followed * 1000, s.a_sittings),
            s.a_sittings,
            s.a_followed_by_chance_milli as f64 / 10.0,
            pct(s.b_followed * 1000, s.b_sittings),
            s.b_sittings,
            s.b_followed_by_chance_milli as f64 / 10.0,
        ),
        format!(
            "Long following: within four hours, {:.0}% of {a}'s sittings after {b} (by chance: {:.0}%); {:.0}% of {b}'s after {a} (by chance: {:.0}%).",
            pct(s.a_followed_long * 1000, s.a_sittings),
            s.a_followed_long_by_chance_milli as f64 / 10.0,
            pct(s.b_followed_long * 1000, s.b_sittings),
            s.b_followed_long_by_chance_milli as f64 / 10.0,
        ),
        format!(
            "Two bodies: in {} buckets both moved from different networks at once.",
            s.apart
        ),
        format!(
            "Co-travel: together on {} distinct uncrowded networks.",
            s.networks
        ),
        format!(
            "Crowded addresses: of {} days-and-addresses they shared, {} were crowded (many accounts that day) and count for little or nothing.",
            s.shared_ip_days, s.crowded_ip_days
        ),
        format!(
            "Hand-offs: {} times one account moved right after the other from the same uncrowded address: {} within 5 minutes, {} within half an hour (like people taking turns), {} after half an hour to two hours (like one person spacing his accounts); {} went back to the first account within half an hour (switching back and forth). They moved within {} seconds of each other {} times (two people at once).",
            s.switches, s.quick, s.turns, s.spaced, s.returns, handoffs::CLOSE_SECONDS, s.close
        ),
        format!(
            "First mover: of the stretches of play (no pause over {} hours) in which both moved, {a} opened {} and {b} {} (one person tends to open his accounts in the same order; people taking turns or playing on their own, in either order).",
            order::STRETCH_GAP_SECONDS / 3600,
            s.a_first,
            s.b_first
        ),
    ];
    if let Some(t) = s.timing {
        lines.push(timing_words(&t, a, b));
    }
    lines
}

/// A timing pair's evidence in words.
fn timing_words(t: &schema::Timing, a: &str, b: &str) -> String {
    let (hidden, other) = if t.a_hidden { (a, b) } else { (b, a) };
    let [follow, lead] = timing::ratios(t);
    format!(
        "Timing: {a} and {b} never moved from one address on one day; {hidden} moved mostly from shared exits, addresses many accounts used this season (a VPN exit, carrier NAT, a campus). {} of {hidden}'s {} sittings began within {} hours after a move of {other} (by chance, reading the same hours on other days: {:.0}%); of the stretches both played in, {other} opened {} and {hidden} {} (by chance: {other} {:.0}%). As evidence against chance: {follow:.1} and {lead:.1}; this pair is scored by the timing model.",
        t.followed,
        t.sittings,
        timing::FOLLOW_SECONDS / 3600,
        t.followed_by_chance_milli as f64 / 10.0,
        t.other_opened,
        t.hidden_opened,
        t.other_opened_by_chance_milli as f64 / 10.0,
    )
}
