//! Directed pairs gathered into unordered pairs, both directions side by
//! side: how reports show a pair.

use rayon::iter::{IndexedParallelIterator, IntoParallelRefIterator, ParallelIterator};
use rayon::slice::ParallelSliceMut;
use rustc_hash::{FxHashMap, FxHashSet};
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

/// The unordered pairs of a scan (only those flagged in at least one
/// direction unless `all`), strongest first, then by names.
///
/// Pairs are gathered and ordered by numbers, not by their names: each
/// account gets its rank in name order (two accounts' ranks compare as their
/// names do), and an unordered pair is the key `(lower rank, higher rank)`.
/// Names are looked up in a table of the accounts (40,000 in a season of
/// 1.3M directed pairs) rather than in one of every pair, and the sorts
/// compare numbers, on every core.
pub fn both_ways(result: &ScanResult, all: bool) -> Vec<BothWays<'_>> {
    let t = result.params.threshold;
    // Without `all`, only the pairs with a flagged direction are gathered:
    // their accounts alone are ranked.
    let kept: Vec<&PairScore> = if all {
        result.pairs.iter().collect()
    } else {
        let flagged: FxHashSet<(&str, &str)> = result
            .pairs
            .iter()
            .filter(|p| p.similarity >= t)
            .map(unordered)
            .collect();
        result
            .pairs
            .iter()
            .filter(|p| flagged.contains(&unordered(p)))
            .collect()
    };
    let ranks = Ranks::of(&kept);
    let mut keyed: Vec<(u64, u32)> = kept
        .par_iter()
        .enumerate()
        .map(|(i, p)| (ranks.key(p), i as u32))
        .collect();
    keyed.par_sort_unstable();
    let mut out: Vec<(f64, u64, BothWays)> = Vec::with_capacity(keyed.len() / 2 + 1);
    for run in keyed.chunk_by(|x, y| x.0 >> 1 == y.0 >> 1) {
        let first = kept[run[0].1 as usize];
        let (a, b) = unordered(first);
        let mut w = BothWays {
            a,
            b,
            ab: None,
            ba: None,
        };
        // In index order within a direction: the last of repeated
        // directed pairs holds, as a map filled in order keeps it.
        for &(key, i) in run {
            let p = kept[i as usize];
            if key & 1 == 0 {
                w.ab = Some(p);
            } else {
                w.ba = Some(p);
            }
        }
        out.push((w.max(), run[0].0 >> 1, w));
    }
    // Each unordered pair once: the unstable sort's order is the one order.
    out.par_sort_unstable_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    out.into_iter().map(|(_, _, w)| w).collect()
}

/// A directed pair's accounts in name order.
fn unordered(p: &PairScore) -> (&str, &str) {
    let (a, b) = (p.account_a.as_str(), p.account_b.as_str());
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// Each account's rank in name order.
struct Ranks<'a> {
    of: FxHashMap<&'a str, u64>,
}

impl<'a> Ranks<'a> {
    fn of(pairs: &[&'a PairScore]) -> Ranks<'a> {
        // Reading a pair's names is most of the cost (two strings apart
        // from it in memory): on every core.
        let seen = pairs
            .par_iter()
            .fold(FxHashSet::default, |mut seen, p| {
                seen.insert(p.account_a.as_str());
                seen.insert(p.account_b.as_str());
                seen
            })
            .reduce(FxHashSet::default, |mut x, y| {
                x.extend(y);
                x
            });
        let mut names: Vec<&str> = seen.into_iter().collect();
        names.par_sort_unstable();
        let of = names.into_iter().zip(0..).collect();
        Ranks { of }
    }

    /// The pair's key: its lower and higher rank, then its direction in the
    /// lowest bit (0 when `a` comes first by name). Ranks take 31 bits
    /// each: a scan has fewer than 2^31 accounts.
    fn key(&self, p: &PairScore) -> u64 {
        let (a, b) = (self.of[p.account_a.as_str()], self.of[p.account_b.as_str()]);
        let (lo, hi, dir) = if a <= b { (a, b, 0) } else { (b, a, 1) };
        (lo << 32 | hi) << 1 | dir
    }
}
