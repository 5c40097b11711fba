//! Fitting improved mode's model on a site's own verdicts: pairs its
//! moderators judged one person or different people. The fit starts from
//! a prior model (the shipped one, or a site's earlier one) and is pulled
//! toward its weights, so a hundred verdicts move the weights only as far
//! as they show; every weight keeps the sign its feature's reasoning fixed.
//! The intercept is pulled toward the prior's too: moderators judge the
//! pairs they were shown, so the share of one-person pairs among verdicts
//! says nothing of a season's. Timing pairs keep the prior's timing model,
//! and the threshold is the prior's. Judged pairs that share an account
//! (one person's several accounts, a household's) are one group of
//! evidence: the pull is measured against groups, not pairs.
//!
//! Pure: verdicts in, a model out.

use super::features::Reading;
use super::fit::{cross_validated, fit, FitOptions, Row, Sign};
use super::model::{Model, ModelError, Provenance};
use schema::{PairScore, Signals, VerdictKind};
use std::collections::HashMap;

/// The fewest verdicts of each kind (one person, different people) a fit
/// takes: with fewer, the weights would follow a handful of pairs.
pub const MIN_EACH: usize = 10;

/// How strongly the fit is pulled toward the prior's weights: the L2
/// penalty `l2 / 2 * sum (w - prior)^2` against the log-loss summed over
/// the verdicts, for verdicts each in a group of its own (about ten
/// verdicts' worth per unit of weight). It is scaled by the verdicts per
/// group ([`fit_on_verdicts`]).
pub const DEFAULT_L2: f64 = 10.0;

/// One judged pair: what improved mode read of it, the verdict, and its
/// group: judged pairs linked through shared accounts have the same group
/// ([`groups`]).
#[derive(Debug, Clone, Copy)]
pub struct Verdict<'a> {
    pub reading: Reading<'a>,
    pub same: bool,
    pub group: u64,
}

/// The group of each of `pairs` (two accounts each): pairs linked through
/// shared accounts, directly or by a chain of judged pairs, share a group;
/// groups are numbered from 0 in the order they first appear.
pub fn groups<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<u64> {
    let pairs: Vec<(&str, &str)> = pairs.into_iter().collect();
    let mut linked = schema::linked::Linked::default();
    for &(a, b) in &pairs {
        linked.link(a, b);
    }
    let mut number: HashMap<&str, u64> = HashMap::new();
    pairs
        .iter()
        .map(|&(a, _)| {
            let n = number.len() as u64;
            *number.entry(linked.root(a)).or_insert(n)
        })
        .collect()
}

/// How many groups `verdicts` fall in.
fn group_count(verdicts: &[Verdict<'_>]) -> usize {
    let mut g: Vec<u64> = verdicts.iter().map(|v| v.group).collect();
    g.sort_unstable();
    g.dedup();
    g.len()
}

/// Fits `prior`'s features on `verdicts`, pulled toward `prior`'s
/// weights with strength `l2` per group: `l2` times the verdicts per group.
/// Refused, in one sentence, when there are fewer than [`MIN_EACH`]
/// verdicts of either kind.
pub fn fit_on_verdicts(
    prior: &Model,
    verdicts: &[Verdict<'_>],
    name: &str,
    l2: f64,
) -> Result<Model, ModelError> {
    let same = verdicts.iter().filter(|v| v.same).count();
    let different = verdicts.len() - same;
    if same < MIN_EACH || different < MIN_EACH {
        return Err(ModelError(format!(
            "{same} verdicts of one person and {different} of different people are too few: \
             a model is fitted on at least {MIN_EACH} of each"
        )));
    }
    let (signs, rows, opts) = problem(prior, verdicts, l2);
    let fitted = fit(&signs, &rows, &opts);
    let names: Vec<&str> = prior.features().iter().map(|f| f.name).collect();
    let provenance = Provenance {
        fitted_on: format!(
            "{} verdicts ({same} one person, {different} different people; \
             {} groups of pairs sharing accounts), starting from the model {}",
            verdicts.len(),
            group_count(verdicts),
            prior.name()
        ),
        pairs: verdicts.len() as u64,
        positives: same as u64,
        ..Provenance::default()
    };
    Model::new(
        name,
        &names,
        fitted.intercept,
        &fitted.weights,
        prior.threshold(),
        prior.timing().copied(),
        provenance,
    )
}

/// The fit's rows, signs and options: `prior`'s features of each verdict,
/// pulled toward `prior`'s weights and intercept with strength `l2` per
/// group.
fn problem(prior: &Model, verdicts: &[Verdict<'_>], l2: f64) -> (Vec<Sign>, Vec<Row>, FitOptions) {
    // Pairs linked through shared accounts say much the same thing: one
    // person's three accounts make three pairs with much the same readings,
    // a verdict on a clique covers all its pairs at once, and a household's
    // or a shared network's pairs share its members' play. Their evidence
    // is about one observation per group, not per pair, so the pull, set
    // per observation, is scaled by the verdicts per group (the design
    // effect of clustered samples); each pair still counts as much as any
    // other against the others. Where one account links many pairs (a hub
    // cleared against many) this errs toward the prior: learning less, not
    // learning wrong. The strength per group is the earlier one per verdict
    // (10), not tuned.
    let per_group = verdicts.len() as f64 / group_count(verdicts).max(1) as f64;
    let l2 = l2 * per_group;
    let rows: Vec<Row> = verdicts
        .iter()
        .map(|v| Row {
            x: prior.values(&v.reading),
            y: v.same,
            weight: 1.0,
            offset: 0.0,
        })
        .collect();
    let signs: Vec<Sign> = prior.features().iter().map(|f| f.sign).collect();
    let opts = FitOptions {
        l2,
        prior: Some(prior.weights().to_vec()),
        prior_intercept: Some(prior.intercept()),
        ..FitOptions::default()
    };
    (signs, rows, opts)
}

/// How a model's flags (at the prior's threshold) agree with verdicts:
/// "one person" is the positive class.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agreement {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

impl Agreement {
    fn of(probabilities: impl Iterator<Item = (f64, bool)>, threshold: f64) -> Agreement {
        let (mut tp, mut fp, mut fn_) = (0.0, 0.0, 0.0);
        for (p, same) in probabilities {
            match (p >= threshold, same) {
                (true, true) => tp += 1.0,
                (true, false) => fp += 1.0,
                (false, true) => fn_ += 1.0,
                (false, false) => {}
            }
        }
        let ratio = |a: f64, b: f64| if a + b > 0.0 { a / (a + b) } else { 0.0 };
        let (precision, recall) = (ratio(tp, fp), ratio(tp, fn_));
        let f1 = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        Agreement {
            precision,
            recall,
            f1,
        }
    }
}

/// A fit's figures on the verdicts it did not see, beside the prior's on
/// the same verdicts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrossValidated {
    pub folds: u64,
    /// Each verdict scored by the model fitted on the other folds.
    pub fitted: Agreement,
    pub prior: Agreement,
}

/// Cross-validates [`fit_on_verdicts`] in `folds` folds (the verdicts of
/// group `g` in fold `g % folds`: a group's pairs would vouch for each
/// other across folds; verdict `i` in fold `i % folds` when there are
/// fewer groups than folds), at the prior's threshold.
pub fn cross_validate(
    prior: &Model,
    verdicts: &[Verdict<'_>],
    l2: f64,
    folds: u64,
) -> CrossValidated {
    let (signs, rows, opts) = problem(prior, verdicts, l2);
    // With fewer groups than folds some fold would have nothing to fit on
    // or nothing to score: then each verdict goes to a fold by its number.
    let keys: Vec<u64> = if group_count(verdicts) as u64 >= folds {
        verdicts.iter().map(|v| v.group).collect()
    } else {
        (0..verdicts.len() as u64).collect()
    };
    let held_out = cross_validated(&signs, &rows, &keys, folds, &opts);
    let t = prior.threshold();
    CrossValidated {
        folds,
        fitted: Agreement::of(
            held_out
                .iter()
                .copied()
                .zip(verdicts.iter().map(|v| v.same)),
            t,
        ),
        prior: Agreement::of(
            verdicts
                .iter()
                .map(|v| (prior.probability(&v.reading), v.same)),
            t,
        ),
    }
}

/// A judged pair as an improved scan read it: its signals, the reference
/// similarity from each side, whether the verdict says one person, and its
/// group among the judged pairs ([`groups`]).
#[derive(Debug, Clone, PartialEq)]
pub struct JudgedPair {
    pub a: String,
    pub b: String,
    pub ab: f64,
    pub ba: f64,
    pub signals: Signals,
    pub same: bool,
    pub group: u64,
}

impl JudgedPair {
    pub fn verdict(&self) -> Verdict<'_> {
        Verdict {
            reading: Reading {
                ab: self.ab,
                ba: self.ba,
                signals: &self.signals,
            },
            same: self.same,
            group: self.group,
        }
    }
}

/// What a verdict says for a fit: one person, different people, or
/// nothing (a pair to watch is not an answer).
fn answer(kind: VerdictKind) -> Option<bool> {
    match kind {
        VerdictKind::SamePerson => Some(true),
        VerdictKind::Household | VerdictKind::SharedNetwork | VerdictKind::Cleared => Some(false),
        VerdictKind::Suspicious => None,
    }
}

/// The pairs of an improved scan (`pairs`, directed, with their signals)
/// that `verdicts` judged, one per undirected pair, each under its newest
/// verdict (a pair or a clique verdict covering it; "suspicious" judges
/// nothing), in the order of `pairs`, each with its group among them.
/// Pairs without signals (a reference scan) are left out.
pub fn judged_pairs(pairs: &[PairScore], verdicts: &[schema::Verdict]) -> Vec<JudgedPair> {
    let mut newest: Vec<&schema::Verdict> = verdicts.iter().collect();
    newest.sort_by(|x, y| y.at.cmp(&x.at).then(y.id.cmp(&x.id)));
    let similarity = |p: &PairScore| (p.sum as f64 / p.weight as f64) / 2.0 + 0.5;
    let mut by_pair: HashMap<(&str, &str), &PairScore> = HashMap::new();
    for p in pairs {
        by_pair.insert((p.account_a.as_str(), p.account_b.as_str()), p);
    }
    let mut out = Vec::new();
    for p in pairs {
        let (a, b) = (p.account_a.as_str(), p.account_b.as_str());
        let (Some(signals), Some(back)) = (&p.evidence.signals, by_pair.get(&(b, a))) else {
            continue;
        };
        if a > b || p.weight == 0 || back.weight == 0 {
            continue;
        }
        let Some(same) = newest
            .iter()
            .find(|v| v.covers(a, b))
            .and_then(|v| answer(v.kind))
        else {
            continue;
        };
        out.push(JudgedPair {
            a: a.to_owned(),
            b: b.to_owned(),
            ab: similarity(p),
            ba: similarity(back),
            signals: **signals,
            same,
            group: 0,
        });
    }
    let g = groups(out.iter().map(|j| (j.a.as_str(), j.b.as_str())));
    for (j, g) in out.iter_mut().zip(g) {
        j.group = g;
    }
    out
}
