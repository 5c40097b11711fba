//! Directed pairs gathered into unordered pairs, both directions side by
//! side: how reports show a pair.

use rayon::slice::ParallelSliceMut;
use rustc_hash::FxHashMap;
use schema::{PairScore, ScanResult};

/// One unordered pair `{a, b}` (`a < b`) with both directed scores.
#[derive(Debug, Clone, Copy)]
pub struct BothWays<'a> {
    pub a: &'a str,
    pub b: &'a str,
    /// The score of `(a, b)`.
    pub ab: Option<&'a PairScore>,
    /// The score of `(b, a)`.
    pub ba: Option<&'a PairScore>,
}

impl BothWays<'_> {
    /// The larger similarity of the two directions.
    pub fn max(&self) -> f64 {
        let s = |p: Option<&PairScore>| p.map_or(f64::NEG_INFINITY, |p| p.similarity);
        s(self.ab).max(s(self.ba))
    }

    /// The largest stall-length boost paid in either direction.
    pub fn max_boost(&self) -> u32 {
        let b = |p: Option<&PairScore>| p.map_or(0, |p| p.evidence.max_boost);
        b(self.ab).max(b(self.ba))
    }
}

type Directions<'a> = (Option<&'a PairScore>, Option<&'a PairScore>);

/// The unordered pairs of a scan (only those flagged in at least one
/// direction unless `all`), strongest first, then by names.
pub fn both_ways(result: &ScanResult, all: bool) -> Vec<BothWays<'_>> {
    let t = result.params.threshold;
    let mut by_pair: FxHashMap<(&str, &str), Directions> = FxHashMap::default();
    by_pair.reserve(result.pairs.len() / 2);
    for p in &result.pairs {
        let (a, b) = (p.account_a.as_str(), p.account_b.as_str());
        if a <= b {
            by_pair.entry((a, b)).or_default().0 = Some(p);
        } else {
            by_pair.entry((b, a)).or_default().1 = Some(p);
        }
    }
    let mut out: Vec<BothWays> = by_pair
        .into_iter()
        .map(|((a, b), (ab, ba))| BothWays { a, b, ab, ba })
        .filter(|w| all || w.max() >= t)
        .collect();
    // Each unordered pair once: the unstable sort's order is the one order.
    out.par_sort_unstable_by(|x, y| {
        y.max()
            .total_cmp(&x.max())
            .then_with(|| (x.a, x.b).cmp(&(y.a, y.b)))
    });
    out
}
