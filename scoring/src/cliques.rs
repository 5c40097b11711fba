//! Cliques: connected groups of accounts linked by flagged pairs (SPEC
//! section 5).

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
    let accounts: Vec<&str> = linked.parent.keys().copied().collect();
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

/// Accounts joined into connected groups by the pairs linking them (a
/// union-find over their names): cliques, and the groups of judged pairs
/// that share accounts ([`crate::improved::verdicts::groups`]).
#[derive(Debug, Default)]
pub(crate) struct Linked<'a> {
    parent: BTreeMap<&'a str, &'a str>,
}

impl<'a> Linked<'a> {
    /// Joins the groups of `a` and `b` (each its own group until linked).
    pub fn link(&mut self, a: &'a str, b: &'a str) {
        for u in [a, b] {
            self.parent.entry(u).or_insert(u);
        }
        let (ra, rb) = (self.root(a), self.root(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent.insert(hi, lo);
        }
    }

    /// The account that stands for `x`'s group (`x` itself when unlinked).
    pub fn root(&mut self, mut x: &'a str) -> &'a str {
        while let Some(&p) = self.parent.get(x) {
            if p == x {
                break;
            }
            let grand = self.parent[p];
            self.parent.insert(x, grand);
            x = p;
        }
        x
    }
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
