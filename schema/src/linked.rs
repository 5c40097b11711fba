//! Accounts linked into groups: the one union-find over account names.

use std::collections::BTreeMap;

/// Accounts joined into connected groups by the pairs linking them (a
/// union-find over their names): scoring's cliques and its groups of judged
/// pairs that share accounts, and the simulator's evaluation of the cliques
/// it recovered. A group's root is its smallest name.
#[derive(Debug, Default)]
pub struct Linked<'a> {
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

    /// Whether `x` was linked to anyone.
    pub fn contains(&self, x: &str) -> bool {
        self.parent.contains_key(x)
    }

    /// Every linked account, in name order.
    pub fn accounts(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.parent.keys().copied()
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
