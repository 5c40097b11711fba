//! Improved mode's signals are stored once per unordered pair: on the row
//! whose `user_a` sorts first, when the other row's signals are exactly its
//! own seen from the other side ([`Signals::swapped`]); that row stores
//! none and is given them back when read. Half the bytes of an improved
//! scan's evidence, and nothing lost: a row whose signals are not its
//! partner's swapped (or that has no partner) keeps its own.

use crate::model::PairScore;
use crate::signals::Signals;
use rustc_hash::FxHashMap;

/// The signals each row stores, as JSON (`None`: none, or its partner's).
pub(super) fn stored(pairs: &[PairScore]) -> Vec<Option<String>> {
    let by_pair: FxHashMap<(&str, &str), &Signals> = pairs
        .iter()
        .filter_map(|p| {
            Some((
                (p.user_a.as_str(), p.user_b.as_str()),
                p.evidence.signals.as_ref()?,
            ))
        })
        .collect();
    pairs
        .iter()
        .map(|p| {
            let s = p.evidence.signals?;
            let partner = by_pair.get(&(p.user_b.as_str(), p.user_a.as_str()));
            let from_partner = p.user_a > p.user_b && partner.is_some_and(|q| q.swapped() == s);
            (!from_partner).then(|| serde_json::to_string(&s).expect("signals serialize"))
        })
        .collect()
}

/// Gives rows read without signals their partner's, swapped (see the module).
pub(super) fn fill_from_partners(pairs: &mut [PairScore]) {
    let by_pair: FxHashMap<(&str, &str), &Signals> = pairs
        .iter()
        .filter(|p| p.user_a < p.user_b)
        .filter_map(|p| {
            Some((
                (p.user_a.as_str(), p.user_b.as_str()),
                p.evidence.signals.as_ref()?,
            ))
        })
        .collect();
    if by_pair.is_empty() {
        return;
    }
    let fills: Vec<(usize, Signals)> = pairs
        .iter()
        .enumerate()
        .filter(|(_, p)| p.evidence.signals.is_none() && p.user_a > p.user_b)
        .filter_map(|(i, p)| {
            let s = by_pair.get(&(p.user_b.as_str(), p.user_a.as_str()))?;
            Some((i, s.swapped()))
        })
        .collect();
    for (i, s) in fills {
        pairs[i].evidence.signals = Some(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(a: &str, b: &str, signals: Option<Signals>) -> PairScore {
        let mut p = PairScore {
            user_a: a.into(),
            user_b: b.into(),
            similarity: 0.5,
            sum: 0,
            weight: 0,
            evidence: Default::default(),
        };
        p.evidence.signals = signals;
        p
    }

    #[test]
    fn one_copy_per_pair_and_every_row_read_back() {
        let s = Signals {
            a_buckets: 3,
            b_buckets: 7,
            a_followed: 2,
            a_first: 5,
            ..Signals::default()
        };
        let odd = Signals {
            a_buckets: 9,
            ..Signals::default()
        };
        let pairs = vec![
            pair("x", "y", Some(s)),
            pair("y", "x", Some(s.swapped())),
            // Not its partner's swapped: kept whole.
            pair("q", "p", Some(odd)),
            pair("p", "q", Some(odd)),
            // No partner: kept.
            pair("z", "w", Some(s)),
            // Reference mode: none.
            pair("m", "n", None),
            pair("n", "m", None),
        ];
        let stored = stored(&pairs);
        let kept: Vec<bool> = stored.iter().map(Option::is_some).collect();
        assert_eq!(kept, [true, false, true, true, true, false, false]);
        let mut read: Vec<PairScore> = pairs
            .iter()
            .zip(&stored)
            .map(|(p, s)| {
                let signals = s.as_deref().map(|j| serde_json::from_str(j).unwrap());
                pair(&p.user_a, &p.user_b, signals)
            })
            .collect();
        fill_from_partners(&mut read);
        assert_eq!(read, pairs);
    }
}
