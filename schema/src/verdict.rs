//! Verdicts: what a moderator decided about a pair of accounts or a whole
//! clique, kept across scans and seasons, and the audit log of who looked at
//! what.
//!
//! A verdict is never changed or deleted: a newer one on the same accounts
//! supersedes it. Verdicts of the kinds "different people" and "cleared" make
//! a pair a *known relationship*: reports list it apart and alerts skip it,
//! until its similarity rises clearly above the level at which it was
//! decided.

use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// What a moderator decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictKind {
    /// One person playing several accounts, confirmed.
    SamePerson,
    /// Watch it.
    Suspicious,
    /// Different people who live together.
    Household,
    /// Different people on one network (office, school, carrier).
    SharedNetwork,
    /// Nothing to see.
    Cleared,
}

impl VerdictKind {
    pub const ALL: [VerdictKind; 5] = [
        VerdictKind::SamePerson,
        VerdictKind::Suspicious,
        VerdictKind::Household,
        VerdictKind::SharedNetwork,
        VerdictKind::Cleared,
    ];

    /// The name in commands, URLs, forms and the store.
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictKind::SamePerson => "same-person",
            VerdictKind::Suspicious => "suspicious",
            VerdictKind::Household => "household",
            VerdictKind::SharedNetwork => "shared-network",
            VerdictKind::Cleared => "cleared",
        }
    }

    /// The name people read.
    pub fn label(self) -> &'static str {
        match self {
            VerdictKind::SamePerson => "same person",
            VerdictKind::Suspicious => "suspicious",
            VerdictKind::Household => "different people: household",
            VerdictKind::SharedNetwork => "different people: shared network",
            VerdictKind::Cleared => "cleared",
        }
    }

    /// Whether the verdict makes a pair a known relationship (different
    /// people, or cleared): not flagged again unless it re-opens.
    pub fn is_known_relationship(self) -> bool {
        matches!(
            self,
            VerdictKind::Household | VerdictKind::SharedNetwork | VerdictKind::Cleared
        )
    }
}

impl std::fmt::Display for VerdictKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A verdict kind that is none of [`VerdictKind::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown verdict {0:?}: expected one of same-person, suspicious, household, shared-network, cleared")]
pub struct UnknownVerdictKind(pub String);

impl FromStr for VerdictKind {
    type Err = UnknownVerdictKind;

    /// The [`VerdictKind::as_str`] forms, in any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        VerdictKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(t))
            .ok_or_else(|| UnknownVerdictKind(s.to_owned()))
    }
}

/// A verdict to record.
#[derive(Debug, Clone, PartialEq)]
pub struct NewVerdict {
    /// Two accounts for a pair, more for a clique; stored sorted, deduped.
    pub accounts: Vec<String>,
    pub kind: VerdictKind,
    pub note: String,
    /// Who decided.
    pub by: String,
    /// The season the decision was made in, if any.
    pub season: Option<u32>,
    /// The larger similarity (of the two directions; for a clique, of its
    /// strongest pair) when the decision was made: a known relationship
    /// re-opens when its similarity rises clearly above it.
    pub similarity: Option<f64>,
    /// The decider knows an account may have no stored move of the site
    /// (`--unseen`): without it a verdict naming such an account is refused.
    pub unseen: bool,
    /// The verdict this one corrects: on the same accounts, with a note
    /// saying why. Both stay in the log; the newer one rules.
    pub supersedes: Option<i64>,
}

impl NewVerdict {
    /// The accounts as stored: sorted, without duplicates.
    pub fn normalized_accounts(&self) -> Vec<String> {
        let mut a = self.accounts.clone();
        a.sort();
        a.dedup();
        a
    }
}

/// A verdict as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub id: i64,
    /// Sorted; two for a pair verdict, more for a clique verdict.
    pub accounts: Vec<String>,
    pub kind: VerdictKind,
    pub note: String,
    pub by: String,
    /// UTC epoch seconds.
    pub at: i64,
    pub season: Option<u32>,
    pub similarity: Option<f64>,
    /// One of its accounts had no stored move of the site when it was
    /// recorded (the decider said `--unseen`).
    pub unseen: bool,
    /// The verdict it corrects, if any.
    pub supersedes: Option<i64>,
}

impl Verdict {
    /// Whether the verdict speaks about both accounts (a pair verdict on
    /// them, or a clique verdict containing both).
    pub fn covers(&self, a: &str, b: &str) -> bool {
        a != b
            && self
                .accounts
                .binary_search_by(|x| x.as_str().cmp(a))
                .is_ok()
            && self
                .accounts
                .binary_search_by(|x| x.as_str().cmp(b))
                .is_ok()
    }

    /// Whether it is a clique verdict (more than two accounts).
    pub fn is_clique(&self) -> bool {
        self.accounts.len() > 2
    }
}

/// The newest-first order of verdicts: later `at` first, then larger id.
pub fn newest_first(verdicts: &mut [Verdict]) {
    verdicts.sort_by(|x, y| y.at.cmp(&x.at).then_with(|| y.id.cmp(&x.id)));
}

/// One line of the audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditEntry {
    pub id: i64,
    /// UTC epoch seconds.
    pub at: i64,
    /// Who acted.
    pub by: String,
    /// What they did: "sign-in", "view-pair", "view-clique", "view-account",
    /// "view-timeline", "verdict", "reveal-ips", ...
    pub action: String,
    /// What it was done to (accounts, a season and clique, ...).
    pub target: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_from_their_names_in_any_case() {
        for k in VerdictKind::ALL {
            assert_eq!(k.as_str().parse::<VerdictKind>(), Ok(k));
            assert_eq!(k.as_str().to_uppercase().parse::<VerdictKind>(), Ok(k));
        }
        assert!("household ".parse::<VerdictKind>().is_ok());
        assert!("same person".parse::<VerdictKind>().is_err());
        assert!("".parse::<VerdictKind>().is_err());
    }

    #[test]
    fn only_different_people_and_cleared_are_known_relationships() {
        let known: Vec<_> = VerdictKind::ALL
            .into_iter()
            .filter(|k| k.is_known_relationship())
            .collect();
        assert_eq!(
            known,
            [
                VerdictKind::Household,
                VerdictKind::SharedNetwork,
                VerdictKind::Cleared
            ]
        );
    }

    #[test]
    fn a_clique_verdict_covers_each_pair_of_its_members() {
        let v = Verdict {
            id: 1,
            accounts: vec!["a".into(), "b".into(), "c".into()],
            kind: VerdictKind::Household,
            note: String::new(),
            by: "m".into(),
            at: 0,
            season: None,
            similarity: None,
            unseen: false,
            supersedes: None,
        };
        assert!(v.covers("a", "c") && v.covers("c", "b"));
        assert!(!v.covers("a", "d") && !v.covers("a", "a"));
        assert!(v.is_clique());
    }
}
