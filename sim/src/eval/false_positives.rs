//! False positives: flagged pairs of distinct people, counted by what
//! explains them (a household, an office, carrier NAT, or nothing known).

use crate::truth::{FalsePositiveCause, TruthIndex};
use serde::Serialize;

/// Flagged undirected pairs of distinct people, by what explains them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FalsePositives {
    pub household: usize,
    pub office: usize,
    pub carrier_nat: usize,
    pub other: usize,
}

impl FalsePositives {
    pub fn get(&self, cause: FalsePositiveCause) -> usize {
        match cause {
            FalsePositiveCause::Household => self.household,
            FalsePositiveCause::Office => self.office,
            FalsePositiveCause::CarrierNat => self.carrier_nat,
            FalsePositiveCause::Other => self.other,
        }
    }

    fn add(&mut self, cause: FalsePositiveCause) {
        *match cause {
            FalsePositiveCause::Household => &mut self.household,
            FalsePositiveCause::Office => &mut self.office,
            FalsePositiveCause::CarrierNat => &mut self.carrier_nat,
            FalsePositiveCause::Other => &mut self.other,
        } += 1;
    }
}

/// One flagged undirected pair of distinct people.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FalsePositive {
    pub a: String,
    pub b: String,
    pub similarity: f64,
    pub cause: FalsePositiveCause,
}

/// The flagged undirected false pairs by cause, and the highest-scoring
/// ones (at most 10) of the labelled flagged pairs (highest score first).
pub(super) fn count_false_positives(
    flagged: &[(f64, bool, &str, &str)],
    ix: &TruthIndex<'_>,
) -> (FalsePositives, Vec<FalsePositive>) {
    let mut false_positives = FalsePositives::default();
    let mut worst_false_positives = Vec::new();
    for &(s, same, a, b) in flagged {
        if same {
            continue;
        }
        let cause = ix.cause(a, b);
        false_positives.add(cause);
        if worst_false_positives.len() < 10 {
            worst_false_positives.push(FalsePositive {
                a: a.to_owned(),
                b: b.to_owned(),
                similarity: s,
                cause,
            });
        }
    }
    (false_positives, worst_false_positives)
}
