//! Cliques: connected groups of accounts linked by flagged pairs (SPEC
//! section 5).

use schema::linked::Linked;
use schema::{Clique, PairScore};
use std::collections::{BTreeMap, BTreeSet};

/// The connected groups of accounts linked by a pair at or above `threshold`
/// (either direction). Members sorted; cliques largest first, then by first
/// member.
pub fn cliques(pairs: &[PairScore], threshold: f64) -> Vec<Clique> {
    let mut linked = Linked::default();
    for p in pairs.iter().filter(|p| p.similarity >= threshold) {
        linked.link(&p.account_a, &p.account_b);
    }
    let accounts: Vec<&str> = linked.accounts().collect();
    let mut groups: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for u in accounts {
        let r = linked.root(u);
        groups.entry(r).or_default().insert(u);
    }
    let mut out: Vec<Clique> = groups
        .into_values()
        .map(|m| Clique {
            members: m.into_iter().map(str::to_owned).collect(),
        })
        .collect();
    out.sort_by(|x, y| {
        y.members
            .len()
            .cmp(&x.members.len())
            .then_with(|| x.members.cmp(&y.members))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(a: &str, b: &str, s: f64) -> PairScore {
        PairScore {
            account_a: a.into(),
            account_b: b.into(),
            similarity: s,
            sum: 0,
            weight: 20,
            evidence: Default::default(),
        }
    }

    #[test]
    fn groups_by_flagged_pairs_in_either_direction() {
        let pairs = [
            pair("d", "c", 0.95),
            pair("a", "b", 0.9),
            pair("b", "a", 0.2),
            pair("c", "e", 0.91),
            pair("b", "c", 0.89),
            pair("x", "y", 0.5),
        ];
        let got: Vec<Vec<String>> = cliques(&pairs, 0.9)
            .into_iter()
            .map(|c| c.members)
            .collect();
        assert_eq!(got, vec![vec!["c", "d", "e"], vec!["a", "b"]]);
        assert!(cliques(&pairs, 0.99).is_empty());
    }
}
