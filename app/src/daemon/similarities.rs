//! Every directed pair's similarity of a season's latest scan, held from
//! one tick to the next for the report's chart. A rescan's result holds
//! only the flagged pairs, and reading every pair back from the store took
//! about 3 s a tick at 10M moves (1.3M pairs through the store's driver,
//! one row each); after a rescan of the scan held, only the rescan's own
//! pairs are read (tens of thousands) and applied to the copy.

use anyhow::Result;
use rustc_hash::{FxHashMap, FxHashSet};
use schema::PairScore;
use store::{PairSimilarity, Store};

/// The similarities of scan `scan`, by (account a, account b).
pub(super) struct HeldSimilarities {
    scan: i64,
    by_pair: FxHashMap<(Box<str>, Box<str>), f64>,
}

impl HeldSimilarities {
    /// Holds in `held` the similarities of scan `scan`, whose every pair
    /// is `pairs` (a scan of the whole season, or one read whole), unless
    /// they are held already.
    pub fn hold(held: &mut Option<Self>, scan: i64, pairs: &[PairScore]) {
        if held.as_ref().is_some_and(|h| h.scan == scan) {
            return;
        }
        let by_pair = pairs
            .iter()
            .map(|p| {
                (
                    (p.account_a.as_str().into(), p.account_b.as_str().into()),
                    p.similarity,
                )
            })
            .collect();
        *held = Some(HeldSimilarities { scan, by_pair });
    }

    /// Every directed pair's similarity of scan `scan`, in no order, when
    /// `held` is that scan's.
    pub fn values_held(held: &Option<Self>, scan: i64) -> Option<Vec<f64>> {
        let h = held.as_ref().filter(|h| h.scan == scan)?;
        Some(h.by_pair.values().copied().collect())
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
        let values = copy.by_pair.values().copied().collect();
        *held = Some(copy);
        Ok(values)
    }

    async fn read(store: &Store, id: i64) -> Result<Self> {
        let mut by_pair = FxHashMap::default();
        insert(&mut by_pair, store.scan_similarities(id).await?);
        Ok(HeldSimilarities { scan: id, by_pair })
    }

    /// The pairs naming a replaced account taken away, the pairs scored
    /// again put in.
    fn apply(&mut self, replaced: &[String], pairs: Vec<PairSimilarity>) {
        let replaced: FxHashSet<&str> = replaced.iter().map(String::as_str).collect();
        if !replaced.is_empty() {
            self.by_pair
                .retain(|(a, b), _| !replaced.contains(&**a) && !replaced.contains(&**b));
        }
        insert(&mut self.by_pair, pairs);
    }
}

fn insert(by_pair: &mut FxHashMap<(Box<str>, Box<str>), f64>, pairs: Vec<PairSimilarity>) {
    by_pair.extend(
        pairs
            .into_iter()
            .map(|(a, b, s)| ((a.into_boxed_str(), b.into_boxed_str()), s)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(a: &str, b: &str, s: f64) -> PairSimilarity {
        (a.to_owned(), b.to_owned(), s)
    }

    fn sorted(h: &HeldSimilarities) -> Vec<(String, String, f64)> {
        let mut v: Vec<_> = h
            .by_pair
            .iter()
            .map(|((a, b), &s)| (a.to_string(), b.to_string(), s))
            .collect();
        v.sort_by(|x, y| (&x.0, &x.1).cmp(&(&y.0, &y.1)));
        v
    }

    #[test]
    fn a_change_replaces_the_pairs_of_its_accounts_and_keeps_the_others() {
        let mut held = HeldSimilarities {
            scan: 1,
            by_pair: FxHashMap::default(),
        };
        insert(
            &mut held.by_pair,
            vec![
                pair("a", "b", 0.5),
                pair("b", "a", 0.4),
                pair("b", "c", 0.3),
                pair("c", "d", 0.2),
            ],
        );
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
        assert_eq!(
            sorted(&held),
            vec![
                pair("a", "b", 0.9),
                pair("b", "a", 0.8),
                pair("b", "d", 0.1),
                pair("c", "d", 0.2),
            ]
        );
    }
}
