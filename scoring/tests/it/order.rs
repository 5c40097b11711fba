//! The report order of a scan's directed pairs ([`schema::order::sort_pairs`]):
//! similarity descending, then the names, as a plain stable sort gives it.

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
        // Pairs equal in similarity and names may come in either order.
        let key = |p: &PairScore| (p.similarity.to_bits(), p.account_a.clone(), p.account_b.clone(), p.sum);
        let mut got_keys: Vec<_> = pairs.iter().map(key).collect();
        let mut want_keys: Vec<_> = want.iter().map(key).collect();
        prop_assert_eq!(
            pairs.iter().map(|p| (p.similarity.to_bits(), &p.account_a, &p.account_b)).collect::<Vec<_>>(),
            want.iter().map(|p| (p.similarity.to_bits(), &p.account_a, &p.account_b)).collect::<Vec<_>>()
        );
        got_keys.sort();
        want_keys.sort();
        prop_assert_eq!(got_keys, want_keys);
    }
}
