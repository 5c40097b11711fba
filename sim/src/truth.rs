//! The ground truth of a simulated world: which accounts one person plays,
//! and which honest people share IP addresses (to explain false positives).

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// How a multi-account owner plays their accounts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    /// All accounts move in the same check-in, from the same IP.
    Lockstep,
    /// The main account also moves from a phone (carrier IP); the puppets
    /// move only from the computer, in the main account's computer sessions.
    Phone,
    /// Each account moves in its own check-in, 30-90 minutes after the
    /// previous account's; now and then through a VPN, now and then careless.
    Cautious,
    /// The puppets move only now and then (in a fraction of the main's
    /// check-ins, or when a game has waited on them for long).
    RarePuppet,
}

impl Style {
    pub const ALL: [Style; 4] = [
        Style::Lockstep,
        Style::Phone,
        Style::Cautious,
        Style::RarePuppet,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Style::Lockstep => "lockstep",
            Style::Phone => "phone",
            Style::Cautious => "cautious",
            Style::RarePuppet => "rare_puppet",
        }
    }
}

impl fmt::Display for Style {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One person who plays several accounts: a positive of the ground truth.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// The person's id (`p17`), as in [`Truth::people`].
    pub person: String,
    /// The accounts, main account first.
    pub accounts: Vec<String>,
    pub style: Style,
}

/// Why honest, distinct people share IP addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LookalikeKind {
    /// People living together, each on their own device, one home IP.
    Household,
    /// A family taking turns at one computer: sequential sessions, one IP.
    FamilySharedComputer,
    /// Colleagues behind one office IP.
    Office,
    /// Students behind a university's few NAT addresses.
    University,
    /// Phones of one mobile carrier, behind a few carrier-grade NAT addresses.
    CarrierNat,
}

impl LookalikeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LookalikeKind::Household => "household",
            LookalikeKind::FamilySharedComputer => "family_shared_computer",
            LookalikeKind::Office => "office",
            LookalikeKind::University => "university",
            LookalikeKind::CarrierNat => "carrier_nat",
        }
    }

    /// The false-positive cause this kind of sharing explains.
    pub fn cause(self) -> FalsePositiveCause {
        match self {
            LookalikeKind::Household | LookalikeKind::FamilySharedComputer => {
                FalsePositiveCause::Household
            }
            LookalikeKind::Office | LookalikeKind::University => FalsePositiveCause::Office,
            LookalikeKind::CarrierNat => FalsePositiveCause::CarrierNat,
        }
    }
}

/// A set of honest people who share IPs; `accounts` are all their accounts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lookalike {
    pub kind: LookalikeKind,
    pub accounts: Vec<String>,
}

/// One simulated person (informational).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    pub person: String,
    pub accounts: Vec<String>,
    /// The person's offset from UTC, in minutes.
    pub utc_offset_minutes: i32,
}

/// What explains a false positive: the closest reason the two accounts'
/// owners share IPs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FalsePositiveCause {
    /// One household (including a family sharing a computer).
    Household,
    /// One office or university.
    Office,
    /// One mobile carrier's NAT.
    CarrierNat,
    /// Nothing known (a VPN exit, a recycled dynamic IP, chance).
    Other,
}

impl FalsePositiveCause {
    pub const ALL: [FalsePositiveCause; 4] = [
        FalsePositiveCause::Household,
        FalsePositiveCause::Office,
        FalsePositiveCause::CarrierNat,
        FalsePositiveCause::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FalsePositiveCause::Household => "household",
            FalsePositiveCause::Office => "office",
            FalsePositiveCause::CarrierNat => "carrier_nat",
            FalsePositiveCause::Other => "other",
        }
    }

    /// Lower is closer: a household explains more than an office.
    fn rank(self) -> u8 {
        self as u8
    }
}

/// The ground truth of a simulated world, written beside the moves as
/// `truth.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truth {
    pub seed: u64,
    pub season: u32,
    /// Epoch second of day 0 and the number of days simulated (0 when
    /// unknown, e.g. a hand-written truth).
    #[serde(default)]
    pub start: i64,
    #[serde(default)]
    pub days: u32,
    /// The world family (`None`: the default world, or a hand-written
    /// truth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<crate::Family>,
    /// Every simulated person; may be left empty.
    #[serde(default)]
    pub people: Vec<Person>,
    /// The multi-account owners: any two accounts of one group are one
    /// person.
    pub groups: Vec<Group>,
    /// Honest people who share IPs.
    #[serde(default)]
    pub lookalikes: Vec<Lookalike>,
}

impl Truth {
    /// Whether `a` and `b` are distinct accounts of one person. Scans the
    /// groups; use [`Truth::index`] for many queries.
    pub fn same_person(&self, a: &str, b: &str) -> bool {
        a != b
            && self
                .groups
                .iter()
                .any(|g| g.accounts.iter().any(|x| x == a) && g.accounts.iter().any(|x| x == b))
    }

    /// The closest known reason two accounts share IPs. Scans the
    /// lookalikes; use [`Truth::index`] for many queries.
    pub fn cause(&self, a: &str, b: &str) -> FalsePositiveCause {
        self.lookalikes
            .iter()
            .filter(|l| l.accounts.iter().any(|x| x == a) && l.accounts.iter().any(|x| x == b))
            .map(|l| l.kind.cause())
            .min_by_key(|c| c.rank())
            .unwrap_or(FalsePositiveCause::Other)
    }

    /// A lookup table for many queries.
    pub fn index(&self) -> TruthIndex<'_> {
        let mut group = HashMap::new();
        for (i, g) in self.groups.iter().enumerate() {
            for a in &g.accounts {
                group.insert(a.as_str(), i);
            }
        }
        let mut sharing: HashMap<&str, Vec<(usize, FalsePositiveCause)>> = HashMap::new();
        for (i, l) in self.lookalikes.iter().enumerate() {
            for a in &l.accounts {
                sharing
                    .entry(a.as_str())
                    .or_default()
                    .push((i, l.kind.cause()));
            }
        }
        TruthIndex {
            truth: self,
            group,
            sharing,
        }
    }

    /// The number of ordered pairs `(a, b)`, `a != b`, of accounts of one
    /// person.
    pub fn true_directed_pairs(&self) -> usize {
        self.groups
            .iter()
            .map(|g| g.accounts.len() * g.accounts.len().saturating_sub(1))
            .sum()
    }
}

/// [`Truth`] with its accounts indexed.
#[derive(Debug, Clone)]
pub struct TruthIndex<'t> {
    pub truth: &'t Truth,
    group: HashMap<&'t str, usize>,
    sharing: HashMap<&'t str, Vec<(usize, FalsePositiveCause)>>,
}

impl TruthIndex<'_> {
    /// The index in `truth.groups` of the group holding `account`.
    pub fn group_of(&self, account: &str) -> Option<usize> {
        self.group.get(account).copied()
    }

    /// Whether `a` and `b` are distinct accounts of one person.
    pub fn same_person(&self, a: &str, b: &str) -> bool {
        a != b && matches!((self.group_of(a), self.group_of(b)), (Some(x), Some(y)) if x == y)
    }

    /// The closest known reason `a` and `b` share IPs.
    pub fn cause(&self, a: &str, b: &str) -> FalsePositiveCause {
        let (Some(sa), Some(sb)) = (self.sharing.get(a), self.sharing.get(b)) else {
            return FalsePositiveCause::Other;
        };
        sa.iter()
            .filter(|(i, _)| sb.iter().any(|(j, _)| i == j))
            .map(|&(_, c)| c)
            .min_by_key(|c| c.rank())
            .unwrap_or(FalsePositiveCause::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn truth() -> Truth {
        Truth {
            seed: 1,
            season: 3,
            groups: vec![Group {
                person: "p1".into(),
                accounts: s(&["a", "b", "c"]),
                style: Style::Phone,
            }],
            lookalikes: vec![
                Lookalike {
                    kind: LookalikeKind::CarrierNat,
                    accounts: s(&["a", "x", "y", "z"]),
                },
                Lookalike {
                    kind: LookalikeKind::FamilySharedComputer,
                    accounts: s(&["x", "y"]),
                },
                Lookalike {
                    kind: LookalikeKind::University,
                    accounts: s(&["y", "z"]),
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn same_person_and_causes_agree_with_the_index() {
        let t = truth();
        let ix = t.index();
        let names = ["a", "b", "c", "x", "y", "z", "q"];
        for a in names {
            for b in names {
                assert_eq!(t.same_person(a, b), ix.same_person(a, b), "{a} {b}");
                assert_eq!(t.cause(a, b), ix.cause(a, b), "{a} {b}");
            }
        }
        assert!(t.same_person("a", "c") && !t.same_person("a", "a"));
        assert!(!t.same_person("a", "x"));
        // Household beats carrier; office beats carrier; carrier alone.
        assert_eq!(t.cause("x", "y"), FalsePositiveCause::Household);
        assert_eq!(t.cause("z", "y"), FalsePositiveCause::Office);
        assert_eq!(t.cause("a", "z"), FalsePositiveCause::CarrierNat);
        assert_eq!(t.cause("b", "z"), FalsePositiveCause::Other);
        assert_eq!(t.true_directed_pairs(), 6);
    }

    #[test]
    fn json_shape() {
        let t = truth();
        let v = serde_json::to_value(&t).unwrap();
        assert_eq!(v["groups"][0]["style"], "phone");
        assert_eq!(v["lookalikes"][1]["kind"], "family_shared_computer");
        let back: Truth = serde_json::from_value(v).unwrap();
        assert_eq!(back, t);
        // The optional fields may be left out.
        let min: Truth = serde_json::from_str(r#"{"seed":1,"season":2,"groups":[]}"#).unwrap();
        assert!(min.people.is_empty() && min.lookalikes.is_empty());
    }
}
