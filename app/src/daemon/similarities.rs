//! Every directed pair's similarity of a season's latest scan, held from
//! one tick to the next for the report's chart. A rescan's result holds
//! only the flagged pairs, and reading every pair back from the store took
//! about 3 s a tick at 10M moves (1.3M pairs through the store's driver,
//! one row each); after a rescan of the scan held, only the rescan's own
//! pairs are read (tens of thousands) and applied to the copy.
//!
//! The pairs are held by account, at both of their accounts, so that what
//! a rescan touches (the pairs of the accounts it replaces, and their
//! count) costs those accounts' pairs, not every pair of the season.

use anyhow::Result;
use rustc_hash::{FxHashMap, FxHashSet};
use schema::PairScore;
use store::{PairSimilarity, Store};

/// The similarities of scan `scan`.
pub(super) struct HeldSimilarities {
    scan: i64,
    /// Each account's number in `partners`.
    numbers: FxHashMap<Box<str>, u32>,
    /// By account number `a`, by partner number `b`: the similarities of
    /// (a, b) and of (b, a), when the scan has that direction. Each pair
    /// sits at both of its accounts.
    partners: Vec<FxHashMap<u32, [Option<f64>; 2]>>,
}

impl HeldSimilarities {
    fn empty(scan: i64) -> Self {
        HeldSimilarities {
            scan,
            numbers: FxHashMap::default(),
            partners: Vec::new(),
        }
    }

    /// Holds in `held` the similarities of scan `scan`, whose every pair
    /// is `pairs` (a scan of the whole season, or one read whole), unless
    /// they are held already.
    pub fn hold(held: &mut Option<Self>, scan: i64, pairs: &[PairScore]) {
        if held.as_ref().is_some_and(|h| h.scan == scan) {
            return;
        }
        let mut h = Self::empty(scan);
        for p in pairs {
            h.insert(&p.account_a, &p.account_b, p.similarity);
        }
        *held = Some(h);
    }

    /// The scan whose pairs are held.
    pub fn scan(&self) -> i64 {
        self.scan
    }

    /// How many unordered pairs of the scan held name any of `names`.
    pub fn pairs_naming(&self, names: &[String]) -> usize {
        let named: FxHashSet<u32> = names
            .iter()
            .filter_map(|n| self.numbers.get(n.as_str()).copied())
            .collect();
        // A pair of two named accounts is met at each of them.
        let mut twice = 0;
        for &a in &named {
            for b in self.partners[a as usize].keys() {
                twice += if named.contains(b) { 1 } else { 2 };
            }
        }
        twice / 2
    }

    /// Every directed pair's similarity of scan `scan`, in no order, when
    /// `held` is that scan's.
    pub fn values_held(held: &Option<Self>, scan: i64) -> Option<Vec<f64>> {
        let h = held.as_ref().filter(|h| h.scan == scan)?;
        Some(h.values())
    }

    /// Every directed pair's similarity of scan `id`, in no order: from
    /// `held` when `id` is its scan or a change to it, else read whole from
    /// the store; `held` is then scan `id`'s. (A scan's id is never given
    /// again, even after it is deleted: a held copy cannot be taken for
    /// another scan's.)
    pub async fn of_scan(held: &mut Option<Self>, store: &Store, id: i64) -> Result<Vec<f64>> {
        let copy = match held.take() {
            Some(h) if h.scan == id => h,
            Some(mut h) => match store.scan_change(id).await? {
                Some(change) if change.base == h.scan => {
                    tracing::debug!(
                        scan = id,
                        pairs_read = change.pairs.len(),
                        "similarities brought up to date from the copy held"
                    );
                    h.apply(&change.replaced, change.pairs);
                    h.scan = id;
                    h
                }
                _ => Self::read(store, id).await?,
            },
            None => Self::read(store, id).await?,
        };
        let values = copy.values();
        *held = Some(copy);
        Ok(values)
    }

    async fn read(store: &Store, id: i64) -> Result<Self> {
        let mut h = Self::empty(id);
        for (a, b, s) in store.scan_similarities(id).await? {
            h.insert(&a, &b, s);
        }
        Ok(h)
    }

    /// Each directed pair's similarity once: at the account it starts from.
    fn values(&self) -> Vec<f64> {
        self.partners
            .iter()
            .flat_map(|p| p.values().filter_map(|[out, _]| *out))
            .collect()
    }

    fn number(&mut self, name: &str) -> u32 {
        if let Some(&n) = self.numbers.get(name) {
            return n;
        }
        let n = self.partners.len() as u32;
        self.numbers.insert(name.into(), n);
        self.partners.push(FxHashMap::default());
        n
    }

    /// Holds the similarity of (a, b).
    fn insert(&mut self, a: &str, b: &str, similarity: f64) {
        let (a, b) = (self.number(a), self.number(b));
        self.partners[a as usize].entry(b).or_default()[0] = Some(similarity);
        self.partners[b as usize].entry(a).or_default()[1] = Some(similarity);
    }

    /// The pairs naming a replaced account taken away, the pairs scored
    /// again put in.
    fn apply(&mut self, replaced: &[String], pairs: Vec<PairSimilarity>) {
        for name in replaced {
            let Some(&a) = self.numbers.get(name.as_str()) else {
                continue;
            };
            for (b, _) in std::mem::take(&mut self.partners[a as usize]) {
                self.partners[b as usize].remove(&a);
            }
        }
        for (a, b, s) in pairs {
            self.insert(&a, &b, s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(a: &str, b: &str, s: f64) -> PairSimilarity {
        (a.to_owned(), b.to_owned(), s)
    }

    fn held(pairs: Vec<PairSimilarity>) -> HeldSimilarities {
        let mut h = HeldSimilarities::empty(1);
        h.apply(&[], pairs);
        h
    }

    /// Every directed pair held, by names, sorted.
    fn sorted(h: &HeldSimilarities) -> Vec<(String, String, f64)> {
        let mut name = vec![""; h.partners.len()];
        for (n, &i) in &h.numbers {
            name[i as usize] = n;
        }
        let mut v: Vec<_> = (0..h.partners.len())
            .flat_map(|a| {
                h.partners[a]
                    .iter()
                    .filter_map(move |(&b, s)| Some((a, b as usize, s[0]?)))
            })
            .map(|(a, b, s)| (name[a].to_owned(), name[b].to_owned(), s))
            .collect();
        v.sort_by(|x, y| (&x.0, &x.1).cmp(&(&y.0, &y.1)));
        v
    }

    #[test]
    fn a_change_replaces_the_pairs_of_its_accounts_and_keeps_the_others() {
        let mut held = held(vec![
            pair("a", "b", 0.5),
            pair("b", "a", 0.4),
            pair("b", "c", 0.3),
            pair("c", "d", 0.2),
        ]);
        // Account b moved: its pairs go, and come back scored again (one
        // with a new partner, one gone for good).
        held.apply(
            &["b".to_owned()],
            vec![
                pair("a", "b", 0.9),
                pair("b", "a", 0.8),
                pair("b", "d", 0.1),
            ],
        );
        let want = vec![
            pair("a", "b", 0.9),
            pair("b", "a", 0.8),
            pair("b", "d", 0.1),
            pair("c", "d", 0.2),
        ];
        assert_eq!(sorted(&held), want);
        let mut values = held.values();
        values.sort_by(f64::total_cmp);
        assert_eq!(values, vec![0.1, 0.2, 0.8, 0.9]);
    }

    #[test]
    fn a_similarity_that_is_not_a_number_is_held_too() {
        let h = held(vec![pair("a", "b", f64::NAN), pair("b", "a", 0.5)]);
        assert_eq!(h.values().len(), 2, "the chart counts every directed pair");
    }

    #[test]
    fn pairs_naming_counts_each_unordered_pair_once() {
        let h = held(vec![
            pair("a", "b", 0.5),
            pair("b", "a", 0.4),
            pair("b", "c", 0.3),
            pair("c", "b", 0.3),
            pair("c", "d", 0.2),
            pair("e", "a", 0.1),
        ]);
        let naming = |names: &[&str]| {
            let names: Vec<String> = names.iter().map(|&n| n.to_owned()).collect();
            h.pairs_naming(&names)
        };
        assert_eq!(naming(&[]), 0);
        assert_eq!(naming(&["a"]), 2);
        assert_eq!(naming(&["b"]), 2);
        assert_eq!(naming(&["a", "b"]), 3);
        assert_eq!(naming(&["a", "b", "c", "d", "e"]), 4);
        assert_eq!(naming(&["x", "d"]), 1);
    }
}
