//! A scan's unordered pairs ([`both_ways`]), gathered by ranks of names,
//! against the definition: a map from the pair's names in order to its two
//! directions, filtered, then sorted by the larger similarity and the names.

use crate::common::{pair, scan_of};
use detect_scoring::both_ways;
use proptest::prelude::*;
use rustc_hash::FxHashMap;
use schema::{PairScore, ScanResult};

type Row = (String, String, Option<f64>, Option<f64>);

/// A pair's similarity each way.
type Directions = (Option<f64>, Option<f64>);

/// The definition, written plainly.
fn defined(result: &ScanResult, all: bool) -> Vec<Row> {
    let mut by_pair: FxHashMap<(&str, &str), Directions> = FxHashMap::default();
    for p in &result.pairs {
        let (a, b) = (p.account_a.as_str(), p.account_b.as_str());
        if a <= b {
            by_pair.entry((a, b)).or_default().0 = Some(p.similarity);
        } else {
            by_pair.entry((b, a)).or_default().1 = Some(p.similarity);
        }
    }
    let max = |r: &Row| r.2.into_iter().chain(r.3).fold(f64::NEG_INFINITY, f64::max);
    let mut rows: Vec<Row> = by_pair
        .into_iter()
        .map(|((a, b), (ab, ba))| (a.to_owned(), b.to_owned(), ab, ba))
        .filter(|r| all || max(r) >= result.params.threshold)
        .collect();
    rows.sort_by(|x, y| {
        max(y)
            .total_cmp(&max(x))
            .then((&x.0, &x.1).cmp(&(&y.0, &y.1)))
    });
    rows
}

fn gathered(result: &ScanResult, all: bool) -> Vec<Row> {
    both_ways(result, all)
        .into_iter()
        .map(|w| {
            let sim = |p: Option<&PairScore>| p.map(|p| p.similarity);
            (w.a.to_owned(), w.b.to_owned(), sim(w.ab), sim(w.ba))
        })
        .collect()
}

proptest! {
    /// Names that share prefixes and differ in length (so that their order
    /// is not their length's), few similarities (so that ties are common),
    /// either direction or both.
    #[test]
    fn gathered_by_ranks_as_defined(
        pairs in proptest::collection::btree_map(
            (0usize..12, 0usize..12),
            0usize..6,
            0..60,
        ),
    ) {
        let name = |k: usize| ["a", "ab", "b", "B", "aa", "ba", "Ab", "é", "a b", "z", "zz", "bb"][k];
        let sims = [0.2, 0.5, 0.89, 0.9, 0.95, 1.0];
        let pairs: Vec<PairScore> = pairs
            .into_iter()
            .filter(|((a, b), _)| a != b)
            .map(|((a, b), s)| pair(name(a), name(b), sims[s]))
            .collect();
        let result = scan_of(pairs);
        for all in [false, true] {
            prop_assert_eq!(gathered(&result, all), defined(&result, all));
        }
    }
}

#[test]
fn both_directions_side_by_side_strongest_first() {
    let result = scan_of(vec![
        pair("b", "a", 0.95),
        pair("a", "b", 0.5),
        pair("c", "d", 0.95),
        pair("e", "f", 0.3),
    ]);
    let rows = gathered(&result, false);
    let want = |a: &str, b: &str, ab, ba| (a.to_owned(), b.to_owned(), ab, ba);
    assert_eq!(
        rows,
        vec![
            want("a", "b", Some(0.5), Some(0.95)),
            want("c", "d", Some(0.95), None),
        ]
    );
    assert_eq!(gathered(&result, true).len(), 3);
}
