//! How good a scan is, measured against the ground truth: pure arithmetic on
//! the scored pairs and a [`Truth`].
//!
//! Definitions (all documented on the fields too):
//!
//! - A directed pair is **flagged** when its similarity is at least the
//!   threshold; it is **true** when both accounts belong to one person
//!   ([`Truth::same_person`]). An undirected pair's score is the larger of
//!   its two directions (one direction if only one was scored).
//! - **Recall** is over *all* true pairs of the truth, including those the
//!   scan never scored because the accounts never shared an IP on a day
//!   (`missed_not_candidates`); **recall of candidates** is over the true
//!   pairs that were scored.
//! - Precision is undefined (`None`, `null` in JSON) when nothing is
//!   flagged, recall when the truth has no pairs; F1 is `2tp / (2tp + fp +
//!   fn)`, which equals the harmonic mean of precision and recall when both
//!   are defined, is 0 when nothing true is found, and `None` only when there
//!   is nothing to find and nothing flagged.
//! - ROC AUC and average precision rank the scored undirected pairs (those
//!   the scan never scored are not ranked): AUC is the Mann-Whitney statistic
//!   with average ranks for ties (a tie between a true and a false pair
//!   counts one half); AP is the sum over distinct scores, highest first, of
//!   the recall gained at that score times the precision at it.
//! - Duplicate pairs in the input count once, with their largest score;
//!   pairs of an account with itself are ignored.

mod cliques;
mod counts;
mod false_positives;
mod ranking;
mod styles;
mod summary;

use crate::truth::{Style, Truth, TruthIndex};
use cliques::clique_recovery;
use counts::{count_directed, sweep_points, truth_pairs};
use false_positives::count_false_positives;
use schema::PairScore;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use styles::style_recovery;

pub use cliques::{CliqueRecovery, CliqueStatus, GroupOutcome};
pub use counts::{Counts, SweepPoint, SWEEP};
pub use false_positives::{FalsePositive, FalsePositives};
pub use ranking::{average_precision, roc_auc, Ranking};
pub use styles::StyleRecovery;

/// A scan measured against the truth (`detect eval`; stable JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    pub threshold: f64,
    pub directed: Counts,
    pub undirected: Counts,
    /// Flagged undirected false pairs by cause.
    pub false_positives: FalsePositives,
    /// The highest-scoring false positives (at most 10), highest first.
    pub worst_false_positives: Vec<FalsePositive>,
    pub cliques: CliqueRecovery,
    /// Per style, in [`Style::ALL`] order, styles without groups left out.
    pub by_style: Vec<StyleRecovery>,
    pub ranking: Ranking,
    /// Undirected figures at [`SWEEP`] and at `threshold`, ascending.
    pub sweep: Vec<SweepPoint>,
}

/// Measures the scored pairs of a scan (all directed pairs, both directions)
/// against the truth at `threshold`. See the module documentation for the
/// definitions.
pub fn evaluate(pairs: &[PairScore], truth: &Truth, threshold: f64) -> Evaluation {
    let ix = truth.index();

    let directed = directed_scores(pairs);
    let undirected = undirected_scores(&directed);

    let true_directed = truth_pairs(truth, true);
    let true_undirected = truth_pairs(truth, false);
    let directed_counts = count_directed(&directed, &ix, true_directed, threshold);

    let labelled = label_pairs(&undirected, &ix);
    let true_scored = labelled.iter().filter(|x| x.1).count();
    let flagged = labelled.partition_point(|x| x.0 >= threshold);
    let tp = labelled[..flagged].iter().filter(|x| x.1).count();
    let undirected_counts = Counts::new(
        labelled.len(),
        true_undirected,
        true_scored,
        tp,
        flagged - tp,
    );

    let (false_positives, worst_false_positives) = count_false_positives(&labelled[..flagged], &ix);

    let cliques = clique_recovery(&labelled[..flagged], &ix);
    let by_style = Style::ALL
        .into_iter()
        .filter_map(|style| style_recovery(style, &cliques, &labelled[..flagged], &ix))
        .collect();

    let sweep = sweep_points(&labelled, true_undirected, true_scored, threshold);

    let scores: Vec<(f64, bool)> = labelled.iter().map(|x| (x.0, x.1)).collect();
    Evaluation {
        threshold,
        directed: directed_counts,
        undirected: undirected_counts,
        false_positives,
        worst_false_positives,
        cliques,
        by_style,
        ranking: Ranking {
            pairs: scores.len(),
            positives: true_scored,
            roc_auc: roc_auc(&scores),
            average_precision: average_precision(&scores),
        },
        sweep,
    }
}

/// Directed pairs, each once with its largest score.
fn directed_scores(pairs: &[PairScore]) -> HashMap<(&str, &str), f64> {
    let mut directed: HashMap<(&str, &str), f64> = HashMap::with_capacity(pairs.len());
    for p in pairs.iter().filter(|p| p.account_a != p.account_b) {
        let s = directed
            .entry((p.account_a.as_str(), p.account_b.as_str()))
            .or_insert(p.similarity);
        *s = s.max(p.similarity);
    }
    directed
}

/// Undirected pairs (smaller name first), sorted for a stable output.
fn undirected_scores<'a>(
    directed: &HashMap<(&'a str, &'a str), f64>,
) -> BTreeMap<(&'a str, &'a str), f64> {
    let mut undirected: BTreeMap<(&str, &str), f64> = BTreeMap::new();
    for (&(a, b), &s) in directed {
        let key = if a < b { (a, b) } else { (b, a) };
        let u = undirected.entry(key).or_insert(s);
        *u = u.max(s);
    }
    undirected
}

/// Undirected pairs labelled, sorted by score (highest first, then names).
fn label_pairs<'a>(
    undirected: &BTreeMap<(&'a str, &'a str), f64>,
    ix: &TruthIndex<'_>,
) -> Vec<(f64, bool, &'a str, &'a str)> {
    let mut labelled: Vec<(f64, bool, &str, &str)> = undirected
        .iter()
        .map(|(&(a, b), &s)| (s, ix.same_person(a, b), a, b))
        .collect();
    labelled.sort_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then_with(|| (x.2, x.3).cmp(&(y.2, y.3)))
    });
    labelled
}
