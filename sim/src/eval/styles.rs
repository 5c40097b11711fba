//! Recovery per style: how many groups of each multi-account style the
//! cliques found, and how many of their pairs were flagged.

use super::cliques::{CliqueRecovery, CliqueStatus, GroupOutcome};
use super::counts::ratio;
use crate::truth::{Style, TruthIndex};
use serde::Serialize;

/// Recovery of the groups of one style.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StyleRecovery {
    pub style: Style,
    pub groups: usize,
    pub full: usize,
    pub partly: usize,
    pub missed: usize,
    /// Undirected true pairs of these groups, and how many were flagged.
    pub true_pairs: usize,
    pub tp: usize,
    pub recall: Option<f64>,
}

pub(super) fn style_recovery(
    style: Style,
    cliques: &CliqueRecovery,
    flagged: &[(f64, bool, &str, &str)],
    ix: &TruthIndex<'_>,
) -> Option<StyleRecovery> {
    let outcomes: Vec<&GroupOutcome> = cliques
        .outcomes
        .iter()
        .filter(|o| o.style == style)
        .collect();
    if outcomes.is_empty() {
        return None;
    }
    let count = |s| outcomes.iter().filter(|o| o.status == s).count();
    let true_pairs = outcomes
        .iter()
        .map(|o| o.accounts * (o.accounts - 1) / 2)
        .sum();
    let tp = flagged
        .iter()
        .filter(|x| x.1)
        .filter(|x| {
            ix.group_of(x.2)
                .is_some_and(|g| ix.truth.groups[g].style == style)
        })
        .count();
    Some(StyleRecovery {
        style,
        groups: outcomes.len(),
        full: count(CliqueStatus::Full),
        partly: count(CliqueStatus::Partly),
        missed: count(CliqueStatus::Missed),
        true_pairs,
        tp,
        recall: ratio(tp, true_pairs),
    })
}
