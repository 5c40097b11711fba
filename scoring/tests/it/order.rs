//! The report order of a scan's directed pairs ([`schema::order::sort_pairs`]):
//! similarity descending, then the names, as a plain stable sort gives it;
//! and the order of the names alone ([`schema::order::by_accounts`]).

use proptest::prelude::*;
use schema::{Evidence, PairScore};

/// Names of several lengths, whose order is not their lengths'.
fn name(k: u8) -> String {
    ["a0", "a", "b", "ab", "B", "\u{e9}"][k as usize].to_owned()
}

fn pair(a: u8, b: u8, similarity: f64, sum: i64) -> PairScore {
    PairScore {
        account_a: name(a),
        account_b: name(b),
        similarity,
        sum,
        weight: 0,
        evidence: Evidence::default(),
    }
}

proptest! {
    /// Few similarities and names, so that ties on the similarity are
    /// common and the names decide; the sums tell pairs with equal keys
    /// apart, and must follow their pairs.
    #[test]
    fn pairs_sort_by_similarity_then_names(
        rows in prop::collection::vec(
            (0..6u8, 0..6u8, prop::sample::select(vec![0.0, -0.0, 0.25, 0.5, 0.9, 1.0, f64::MIN_POSITIVE, -1.0]), any::<i64>()),
            0..300,
        ),
    ) {
        let mut pairs: Vec<PairScore> =
            rows.iter().map(|&(a, b, s, sum)| pair(a, b, s, sum)).collect();
        let mut want = pairs.clone();
        want.sort_by(|x, y| {
            y.similarity
                .total_cmp(&x.similarity)
                .then_with(|| x.account_a.cmp(&y.account_a))
                .then_with(|| x.account_b.cmp(&y.account_b))
        });
        schema::order::sort_pairs(&mut pairs);
        // Pairs equal in similarity and names keep their order, as in a
        // stable sort.
        let key = |p: &PairScore| (p.similarity.to_bits(), p.account_a.clone(), p.account_b.clone(), p.sum);
        prop_assert_eq!(
            pairs.iter().map(key).collect::<Vec<_>>(),
            want.iter().map(key).collect::<Vec<_>>()
        );
    }

    /// [`schema::order::by_accounts`] is a stable sort by the two names,
    /// and a pair's number with its halves swapped is its reverse's.
    #[test]
    fn pairs_by_accounts_sort_by_names(
        rows in prop::collection::vec((0..6u8, 0..6u8, any::<i64>()), 0..300),
    ) {
        let pairs: Vec<PairScore> =
            rows.iter().map(|&(a, b, sum)| pair(a, b, 0.0, sum)).collect();
        let mut want: Vec<usize> = (0..pairs.len()).collect();
        want.sort_by(|&x, &y| {
            (&pairs[x].account_a, &pairs[x].account_b).cmp(&(&pairs[y].account_a, &pairs[y].account_b))
        });
        let got = schema::order::by_accounts(&pairs);
        prop_assert_eq!(got.iter().map(|&(_, i)| i as usize).collect::<Vec<_>>(), want);
        let keys = schema::order::account_keys(&pairs);
        for (x, p) in pairs.iter().enumerate() {
            for (y, q) in pairs.iter().enumerate() {
                let reverse = p.account_a == q.account_b && p.account_b == q.account_a;
                prop_assert_eq!(keys[x].rotate_left(32) == keys[y], reverse);
            }
        }
    }
}
