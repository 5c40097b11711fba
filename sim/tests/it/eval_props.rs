//! Properties of the evaluation on random pair lists: the ranking figures
//! agree with their brute-force definitions, the counts add up.

use detect_sim::eval::{average_precision, roc_auc};
use detect_sim::{evaluate, Group, Style, Truth};
use proptest::prelude::*;
use schema::{Evidence, PairScore};

/// AUC by counting: over all (true, false) pairs, 1 if the true one scores
/// higher, 1/2 on a tie.
fn auc_brute(items: &[(f64, bool)]) -> Option<f64> {
    let (mut wins, mut n) = (0.0, 0usize);
    for p in items.iter().filter(|x| x.1) {
        for q in items.iter().filter(|x| !x.1) {
            n += 1;
            wins += if p.0 > q.0 {
                1.0
            } else if p.0 == q.0 {
                0.5
            } else {
                0.0
            };
        }
    }
    (n > 0).then(|| wins / n as f64)
}

/// AP by definition: for each distinct score s, precision at threshold s
/// times the share of true items scoring exactly s.
fn ap_brute(items: &[(f64, bool)]) -> Option<f64> {
    let pos = items.iter().filter(|x| x.1).count();
    if pos == 0 {
        return None;
    }
    let mut scores: Vec<f64> = items.iter().map(|x| x.0).collect();
    scores.sort_by(f64::total_cmp);
    scores.dedup();
    let mut ap = 0.0;
    for s in scores {
        let at = items.iter().filter(|x| x.0 >= s).count();
        let tp = items.iter().filter(|x| x.0 >= s && x.1).count();
        let here = items.iter().filter(|x| x.0 == s && x.1).count();
        ap += here as f64 / pos as f64 * tp as f64 / at as f64;
    }
    Some(ap)
}

/// Scores on a coarse grid so that ties are common.
fn items() -> impl Strategy<Value = Vec<(f64, bool)>> {
    prop::collection::vec(
        ((0u8..=20).prop_map(|k| k as f64 / 20.0), any::<bool>()),
        0..40,
    )
}

proptest! {
    #[test]
    fn auc_and_ap_match_their_definitions(v in items()) {
        let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() < 1e-12,
            (a, b) => a.is_none() && b.is_none(),
        };
        prop_assert!(close(roc_auc(&v), auc_brute(&v)));
        prop_assert!(close(average_precision(&v), ap_brute(&v)));
    }

    #[test]
    fn counts_add_up(
        scores in prop::collection::vec((0usize..8, 0usize..8, 0u8..=20), 0..60),
        threshold in (0u8..=20).prop_map(|k| k as f64 / 20.0),
    ) {
        // Accounts a0..a7; one person plays a0-a2, another a3-a4.
        let name = |i: usize| format!("a{i}");
        let truth = Truth {
            groups: vec![
                Group { person: "p0".into(), accounts: (0..3).map(name).collect(), style: Style::Lockstep },
                Group { person: "p1".into(), accounts: (3..5).map(name).collect(), style: Style::Cautious },
            ],
            ..Default::default()
        };
        let pairs: Vec<PairScore> = scores
            .iter()
            .map(|&(a, b, s)| PairScore {
                account_a: name(a),
                account_b: name(b),
                similarity: s as f64 / 20.0,
                sum: 0,
                weight: 20,
                evidence: Evidence::default(),
            })
            .collect();
        let e = evaluate(&pairs, &truth, threshold);
        for c in [&e.directed, &e.undirected] {
            prop_assert_eq!(c.tp + c.fp, c.flagged);
            prop_assert!(c.flagged <= c.scored);
            prop_assert_eq!(c.tp + c.fn_, c.true_pairs);
            prop_assert_eq!(c.true_scored + c.missed_not_candidates, c.true_pairs);
            if let (Some(r), Some(rc)) = (c.recall, c.recall_of_candidates) {
                prop_assert!(r <= rc + 1e-12);
            }
        }
        prop_assert_eq!(e.directed.true_pairs, 8);
        prop_assert_eq!(e.undirected.true_pairs, 4);
        // An undirected pair is flagged when either direction is.
        prop_assert!(e.undirected.tp * 2 >= e.directed.tp);
        prop_assert!(e.undirected.tp <= e.directed.tp);
        let fp = &e.false_positives;
        prop_assert_eq!(fp.household + fp.office + fp.carrier_nat + fp.other, e.undirected.fp);
        let c = &e.cliques;
        prop_assert_eq!(c.full + c.partly + c.missed, 2);
        // Flagged counts never grow with the threshold.
        for w in e.sweep.windows(2) {
            prop_assert!(w[0].threshold < w[1].threshold);
            prop_assert!(w[0].flagged >= w[1].flagged && w[0].tp >= w[1].tp);
        }
    }
}
