//! Flag counts and the rates derived from them, at the evaluation's
//! threshold and across the sweep.

use crate::truth::{Truth, TruthIndex};
use serde::Serialize;
use std::collections::HashMap;

/// Thresholds of the sweep (the evaluation's own threshold is added).
pub const SWEEP: [f64; 12] = [
    0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90, 0.95, 0.975, 0.99,
];

/// Flag counts and the rates derived from them, for directed or undirected
/// pairs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Counts {
    /// Pairs that were scored.
    pub scored: usize,
    /// Pairs of accounts of one person in the truth (all of them, scored or
    /// not).
    pub true_pairs: usize,
    /// True pairs among the scored ones.
    pub true_scored: usize,
    /// Scored pairs at or above the threshold.
    pub flagged: usize,
    pub tp: usize,
    pub fp: usize,
    /// True pairs not flagged: scored below the threshold, or never scored.
    #[serde(rename = "fn")]
    pub fn_: usize,
    /// True pairs that were never scored (part of `fn`).
    pub missed_not_candidates: usize,
    /// `tp / flagged`; `None` when nothing is flagged.
    pub precision: Option<f64>,
    /// `tp / true_pairs`; `None` when the truth has no pairs.
    pub recall: Option<f64>,
    /// `tp / true_scored`; `None` when no true pair was scored.
    pub recall_of_candidates: Option<f64>,
    /// `2tp / (2tp + fp + fn)`; `None` when all three are 0.
    pub f1: Option<f64>,
}

impl Counts {
    pub(super) fn new(
        scored: usize,
        true_pairs: usize,
        true_scored: usize,
        tp: usize,
        fp: usize,
    ) -> Counts {
        let fn_ = true_pairs - tp;
        Counts {
            scored,
            true_pairs,
            true_scored,
            flagged: tp + fp,
            tp,
            fp,
            fn_,
            missed_not_candidates: true_pairs - true_scored,
            precision: ratio(tp, tp + fp),
            recall: ratio(tp, true_pairs),
            recall_of_candidates: ratio(tp, true_scored),
            f1: ratio(2 * tp, 2 * tp + fp + fn_),
        }
    }
}

pub(super) fn ratio(a: usize, b: usize) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// Undirected figures at one threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepPoint {
    pub threshold: f64,
    pub flagged: usize,
    pub tp: usize,
    pub fp: usize,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1: Option<f64>,
}

/// Counts the scored directed pairs against the truth at `threshold`.
pub(super) fn count_directed(
    directed: &HashMap<(&str, &str), f64>,
    ix: &TruthIndex<'_>,
    true_directed: usize,
    threshold: f64,
) -> Counts {
    let (mut tp, mut fp, mut true_scored) = (0, 0, 0);
    for (&(a, b), &s) in directed {
        let same = ix.same_person(a, b);
        true_scored += same as usize;
        if s >= threshold {
            if same {
                tp += 1;
            } else {
                fp += 1;
            }
        }
    }
    Counts::new(directed.len(), true_directed, true_scored, tp, fp)
}

/// Undirected figures at [`SWEEP`] and at `threshold`, ascending, of the
/// labelled undirected pairs (highest score first).
pub(super) fn sweep_points(
    labelled: &[(f64, bool, &str, &str)],
    true_undirected: usize,
    true_scored: usize,
    threshold: f64,
) -> Vec<SweepPoint> {
    let mut thresholds: Vec<f64> = SWEEP.to_vec();
    thresholds.push(threshold);
    thresholds.sort_by(f64::total_cmp);
    thresholds.dedup();
    thresholds
        .into_iter()
        .map(|t| {
            let flagged = labelled.partition_point(|x| x.0 >= t);
            let tp = labelled[..flagged].iter().filter(|x| x.1).count();
            let c = Counts::new(
                labelled.len(),
                true_undirected,
                true_scored,
                tp,
                flagged - tp,
            );
            SweepPoint {
                threshold: t,
                flagged,
                tp,
                fp: c.fp,
                precision: c.precision,
                recall: c.recall,
                f1: c.f1,
            }
        })
        .collect()
}

/// The number of true pairs in the truth, ordered or unordered.
pub(super) fn truth_pairs(truth: &Truth, ordered: bool) -> usize {
    let d = truth.true_directed_pairs();
    if ordered {
        d
    } else {
        d / 2
    }
}
