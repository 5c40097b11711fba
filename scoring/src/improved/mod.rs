//! Improved mode: the published score, read beside evidence of how people
//! use their addresses and times that held on simulated worlds the model
//! was not fitted on, combined into the probability that two accounts are
//! one person.
//!
//! For each candidate pair `{a, b}` it scores both directions the reference
//! way ([`crate::score_pair`]: asymmetric, windowed, boosted by joint
//! stalls) and reads [`Signals`] from both timelines:
//!
//! - **following** ([`signals::side`], [`following`]): the share of each
//!   account's sittings that began within two hours after a move of the
//!   other (from any address), against the same share with its sittings
//!   moved one to three days (two evening players follow each other by
//!   chance, a puppet follows its owner's main account more);
//! - **two bodies** ([`signals::apart`]): buckets in which both moved from
//!   different networks; and moves of both within seconds of each other
//!   ([`handoffs::handoffs`], close moves);
//! - **co-travel** and **places** ([`signals::shared_days`]): distinct
//!   uncrowded networks both used on one day, and the most of them in use
//!   at one time of the season (home and work, not one home renumbered);
//! - **private networks** ([`signals::private_shares`]): each account's
//!   share of moves from networks the other never used;
//! - **hand-offs** ([`handoffs::handoffs`]): at second resolution, how the
//!   two accounts' moves follow each other on one address (turns, returns);
//! - **crowded addresses** ([`addresses::crowd_weight`]): an address used by
//!   many accounts on a day counts for less, down to nothing.
//!
//! [`model::Model`] maps them to a probability: a logistic model whose
//! features, weights (each of a sign fixed by reasoning), threshold and
//! provenance are a data value; the shipped one ([`model::Model::shipped`])
//! was fitted on simulated world families and measured on each family
//! held out in turn (EVALUATION.md). The probability is symmetric: "one
//! person" is a fact about the unordered pair. Both directions keep their
//! own reference sum, weight and cells as evidence.
//!
//! Dependencies point one way (`scripts/import-cycles` keeps it so). The
//! scan's path: the pure definitions at the bottom ([`following`]:
//! sittings and following; [`addresses`]: crowds, networks, shared exits;
//! [`moves`]: moves by second), the per-account indexes built on them
//! ([`move_index`], [`moved_rows`]), the per-scan [`Context`] that holds
//! them, and on top the signals that read it ([`mod@handoffs`], [`moved`],
//! [`mod@signals`], [`timing`]). The model's path: [`fit`] (signs, the
//! logistic fit) under [`features`] under [`model`] under [`verdicts`].

pub mod addresses;
pub mod context;
pub mod features;
pub mod fit;
pub mod following;
pub mod handoffs;
pub mod model;
pub mod move_index;
pub mod moved;
pub mod moved_rows;
pub mod moves;
pub mod order;
pub mod pace;
pub mod signals;
pub mod timing;
pub mod verdicts;

pub use addresses::{crowd_weight, network_of};
pub use context::Context;
pub use features::Reading;
pub use features::{following_ratios, log_odds};
pub use handoffs::{handoffs, handoffs_by_runs, Handoffs};
pub use model::{Model, ModelError};
pub use moves::MoveTimes;
pub use order::{first_movers, first_movers_by_stretches, stretches};
pub use signals::signals;
pub use timing::{timing_pairs, TimeModel};

use crate::similarity::PairOutcome;
use schema::{AccountId, PairScore, Segments, Signals};

/// The threshold improved mode flags at unless told otherwise: the shipped
/// model's ([`Model::threshold`]; a test holds them equal).
pub const DEFAULT_THRESHOLD: f64 = 0.33;

/// What an improved-mode similarity means and how it was measured, in the
/// words every report (text, web) prints beside an improved scan: from the
/// model's provenance, never more than was measured.
pub fn score_words(model: &Model) -> String {
    let p = model.provenance();
    let precision: Vec<f64> = p.held_out.iter().map(|h| h.precision).collect();
    let head = format!(
        "Similarities are the model's probability ({}) that the two accounts are one person; pairs at {} or above are flagged.",
        model.name(),
        model.threshold()
    );
    if precision.is_empty() && p.measured.is_empty() {
        return format!("{head} How the model was fitted: {}.", p.fitted_on);
    }
    if precision.is_empty() {
        return format!(
            "{head} How the model was fitted: {}. How it was measured: {}.",
            p.fitted_on, p.measured
        );
    }
    let lo = precision.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = precision.iter().copied().fold(0.0, f64::max);
    let mean = precision.iter().sum::<f64>() / precision.len() as f64;
    format!(
        "{head} Measured on {} simulated world families, each held out of the fit in turn: {:.0} % to {:.0} % of flagged pairs were one person ({:.0} % on average). Read it as a ranking and a reason to look, not as a calibrated chance (EVALUATION.md).",
        precision.len(),
        lo * 100.0,
        hi * 100.0,
        mean * 100.0
    )
}

/// The reference similarity of an outcome, in (0, 1).
fn reference(o: &PairOutcome) -> f64 {
    o.similarity()
}

/// Both directed scores of the candidate pair `{x, y}` in improved mode,
/// scored by `model`.
pub fn score_both(cx: &Context<'_>, model: &Model, x: AccountId, y: AccountId) -> [PairScore; 2] {
    let (xy, yx) = cx.references(x, y);
    let s = signals::signals_of_accounts(cx, x, y);
    let p = model.probability(&Reading {
        ab: reference(&xy),
        ba: reference(&yx),
        signals: &s,
    });
    both(cx, (x, y), (xy, yx), s, p)
}

/// Both directed scores of the timing pair of the hidden account `h` and
/// `x` ([`timing`]): the same evidence, scored by the timing model `t`.
pub fn score_timing(
    cx: &Context<'_>,
    t: &TimeModel,
    h: AccountId,
    x: AccountId,
    timing: schema::Timing,
) -> [PairScore; 2] {
    let (hx, xh) = cx.references(h, x);
    let s = Signals {
        timing: Some(timing),
        ..signals::signals_of_accounts(cx, h, x)
    };
    both(cx, (h, x), (hx, xh), s, t.probability(&s))
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
        evidence.signals = Some(Box::new(s));
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
            "Following: {:.0}% of {a}'s {} sittings began within two hours after a move of {b} (by chance, reading the same hours on other days: {:.0}%); {:.0}% of {b}'s {} sittings after one of {a} (by chance: {:.0}%).",
            pct(s.a_followed * 1000, s.a_sittings),
            s.a_sittings,
            s.a_followed_by_chance_milli as f64 / 10.0,
            pct(s.b_followed * 1000, s.b_sittings),
            s.b_sittings,
            s.b_followed_by_chance_milli as f64 / 10.0,
        ),
        two_bodies_words(s),
        format!(
            "Places: together on {} distinct uncrowded networks, at most {} of them in use at one time of the season (one person takes all his accounts wherever he plays: home, work, travel).",
            s.networks, s.places
        ),
        format!(
            "Private networks: {:.0}% of {a}'s moves were from networks {b} never used, {:.0}% of {b}'s from networks {a} never used (two people each have places of their own).",
            s.a_private_milli as f64 / 10.0,
            s.b_private_milli as f64 / 10.0,
        ),
        format!(
            "Crowded addresses: of {} days-and-addresses they shared, {} were crowded (many accounts that day) and count for little or nothing.",
            s.shared_ip_days, s.crowded_ip_days
        ),
        format!(
            "Hand-offs: {} times one account moved right after the other from the same uncrowded address: {} within 5 minutes, {} within half an hour (like people taking turns), {} after half an hour to two hours; {} went back to the first account within half an hour (switching back and forth).",
            s.switches, s.quick, s.turns, s.spaced, s.returns
        ),
    ];
    if let Some(t) = s.timing {
        lines.push(timing_words(&t, a, b));
    }
    lines
}

/// Two bodies in words: moves from different networks at once, and close
/// moves against the accounts' own pace.
fn two_bodies_words(s: &Signals) -> String {
    let close = if s.close == 0 {
        format!(
            "they never moved within {} seconds of each other",
            handoffs::CLOSE_SECONDS
        )
    } else {
        format!(
            "they moved within {} seconds of each other {} times, of {} moves within {} minutes of each other; on their own, {} of their {} moves in a row came that close (one person moves his accounts at his own pace)",
            handoffs::CLOSE_SECONDS,
            s.close,
            s.near,
            pace::PACE_SECONDS / 60,
            s.a_pace_close + s.b_pace_close,
            s.a_pace_near + s.b_pace_near,
        )
    };
    format!(
        "Two bodies: in {} buckets both moved from different networks at once; {close}.",
        s.apart
    )
}

/// A timing pair's evidence in words.
fn timing_words(t: &schema::Timing, a: &str, b: &str) -> String {
    let (hidden, other) = if t.a_hidden { (a, b) } else { (b, a) };
    let [follow, lead] = timing::ratios(t);
    format!(
        "Timing: {a} and {b} never moved from one address on one day; {hidden} moved mostly from shared exits, addresses many accounts used this season (a VPN exit, carrier NAT, a campus). {} of {hidden}'s {} sittings began within {} hours after a move of {other} (by chance, reading the same hours on other days: {:.0}%); of the stretches both played in, {other} opened {} and {hidden} {} (by chance: {other} {:.0}%). As evidence against chance: {follow:.1} and {lead:.1}; this pair is scored by the timing model.{}",
        t.followed,
        t.sittings,
        timing::FOLLOW_SECONDS / 3600,
        t.followed_by_chance_milli as f64 / 10.0,
        t.other_opened,
        t.hidden_opened,
        t.other_opened_by_chance_milli as f64 / 10.0,
        tested_words(t.tested, hidden),
    )
}

/// How many members a hidden account was read against, when counted.
fn tested_words(tested: u32, hidden: &str) -> String {
    if tested == 0 {
        return String::new();
    }
    format!(" {hidden} was read against {tested} other members: the more members a season has, the more of them it follows by chance.")
}
