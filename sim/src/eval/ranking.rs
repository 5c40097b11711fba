//! Ranking: how well the scores order the scored undirected pairs (ROC AUC
//! and average precision).

use serde::Serialize;

/// How well the scores rank the scored undirected pairs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranking {
    pub pairs: usize,
    pub positives: usize,
    /// `None` unless both true and false pairs were scored.
    pub roc_auc: Option<f64>,
    /// `None` unless a true pair was scored.
    pub average_precision: Option<f64>,
}

/// ROC AUC of `(score, is_true)` items: the chance a random true item
/// scores above a random false one, ties counting one half (rank-sum with
/// average ranks). `None` without both kinds.
pub fn roc_auc(items: &[(f64, bool)]) -> Option<f64> {
    let pos = items.iter().filter(|x| x.1).count();
    let neg = items.len() - pos;
    if pos == 0 || neg == 0 {
        return None;
    }
    let mut v: Vec<(f64, bool)> = items.to_vec();
    v.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < v.len() {
        let j = i + v[i..].iter().take_while(|x| x.0 == v[i].0).count();
        // Ranks i+1 ..= j share their average.
        let avg = (i + 1 + j) as f64 / 2.0;
        rank_sum += avg * v[i..j].iter().filter(|x| x.1).count() as f64;
        i = j;
    }
    let (p, n) = (pos as f64, neg as f64);
    Some((rank_sum - p * (p + 1.0) / 2.0) / (p * n))
}

/// Average precision of `(score, is_true)` items: over distinct scores,
/// highest first, the recall gained at each times the precision at it.
/// `None` without a true item.
pub fn average_precision(items: &[(f64, bool)]) -> Option<f64> {
    let pos = items.iter().filter(|x| x.1).count();
    if pos == 0 {
        return None;
    }
    let mut v: Vec<(f64, bool)> = items.to_vec();
    v.sort_by(|x, y| y.0.total_cmp(&x.0));
    let (mut ap, mut tp, mut i) = (0.0, 0usize, 0);
    while i < v.len() {
        let j = i + v[i..].iter().take_while(|x| x.0 == v[i].0).count();
        let gained = v[i..j].iter().filter(|x| x.1).count();
        tp += gained;
        if gained > 0 {
            ap += gained as f64 / pos as f64 * (tp as f64 / j as f64);
        }
        i = j;
    }
    Some(ap)
}
