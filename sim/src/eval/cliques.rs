//! Clique recovery: connected components of the flagged undirected pairs
//! against the truth groups.

use crate::truth::{Style, TruthIndex};
use serde::Serialize;
use std::collections::BTreeMap;

/// How much of a truth group the cliques recovered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CliqueStatus {
    /// One clique holds all its accounts.
    Full,
    /// A clique holds two or more of its accounts, but not all.
    Partly,
    /// No clique holds two of its accounts.
    Missed,
}

impl CliqueStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CliqueStatus::Full => "full",
            CliqueStatus::Partly => "partly",
            CliqueStatus::Missed => "missed",
        }
    }
}

/// One truth group against the cliques.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupOutcome {
    pub person: String,
    pub style: Style,
    /// The group's accounts.
    pub accounts: usize,
    pub status: CliqueStatus,
    /// The most of its accounts found in one clique (1 when none is flagged).
    pub found: usize,
    /// Members of that clique who are not the group's accounts, sorted.
    pub extra: Vec<String>,
}

/// Cliques (connected components of flagged undirected pairs) against the
/// truth groups.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CliqueRecovery {
    pub groups: usize,
    pub full: usize,
    pub partly: usize,
    pub missed: usize,
    /// Cliques found (components of two or more accounts).
    pub cliques: usize,
    /// Cliques whose members all belong to one truth group.
    pub pure: usize,
    /// Per truth group, in the truth's order.
    pub outcomes: Vec<GroupOutcome>,
}

pub(super) fn clique_recovery(
    flagged: &[(f64, bool, &str, &str)],
    ix: &TruthIndex<'_>,
) -> CliqueRecovery {
    let mut uf = schema::linked::Linked::default();
    for &(_, _, a, b) in flagged {
        uf.link(a, b);
    }
    let names: Vec<&str> = uf.accounts().collect();
    let mut members: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for u in names {
        let r = uf.root(u);
        members.entry(r).or_default().push(u);
    }
    for m in members.values_mut() {
        m.sort_unstable();
    }
    let pure = members
        .values()
        .filter(|m| {
            let g = ix.group_of(m[0]);
            g.is_some() && m.iter().all(|u| ix.group_of(u) == g)
        })
        .count();

    let mut outcomes = Vec::with_capacity(ix.truth.groups.len());
    for g in &ix.truth.groups {
        let mut per_clique: BTreeMap<&str, usize> = BTreeMap::new();
        for a in &g.accounts {
            if uf.contains(a) {
                *per_clique.entry(uf.root(a)).or_default() += 1;
            }
        }
        // The clique holding most of the group (ties: the first by root).
        let best = per_clique
            .iter()
            .fold(None::<(&str, usize)>, |b, (&r, &n)| match b {
                Some((_, m)) if m >= n => b,
                _ => Some((r, n)),
            });
        let found = best.map_or(1, |b| b.1).max(1);
        let status = if found >= 2 && found == g.accounts.len() {
            CliqueStatus::Full
        } else if found >= 2 {
            CliqueStatus::Partly
        } else {
            CliqueStatus::Missed
        };
        let extra = match best {
            Some((r, n)) if n >= 2 => members[r]
                .iter()
                .filter(|u| !g.accounts.iter().any(|a| a == *u))
                .map(|u| u.to_string())
                .collect(),
            _ => Vec::new(),
        };
        outcomes.push(GroupOutcome {
            person: g.person.clone(),
            style: g.style,
            accounts: g.accounts.len(),
            status,
            found,
            extra,
        });
    }
    let count = |s| outcomes.iter().filter(|o| o.status == s).count();
    CliqueRecovery {
        groups: outcomes.len(),
        full: count(CliqueStatus::Full),
        partly: count(CliqueStatus::Partly),
        missed: count(CliqueStatus::Missed),
        cliques: members.len(),
        pure,
        outcomes,
    }
}
