//! What a scan keeps so that the next scan of its season scores again only
//! the pairs whose evidence changed (`scoring::rescan` decides which).
//!
//! A directed pair's reference score depends on its two accounts' segments in
//! the season alone, and whether it is a candidate pair on their sightings
//! and on the crowds. Each account therefore gets a digest of what it brings to
//! a scan. The next scan scores again every pair naming an account whose digest
//! changed (or who shares an (IP, day) that became or stopped being a
//! crowd): those accounts are *replaced*. Every other pair is the previous
//! scan's.

/// Each account's digest of what it brings to a season's scan, sorted by name.
/// Accounts who bring nothing (no segment, sighting or game day in the season)
/// are left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountDigests(Vec<(String, u64)>);

impl AccountDigests {
    /// The digests given in any order; a name given twice keeps its last.
    pub fn new(mut digests: Vec<(String, u64)>) -> AccountDigests {
        digests.reverse();
        digests.sort_by(|x, y| x.0.cmp(&y.0));
        digests.dedup_by(|x, y| x.0 == y.0);
        AccountDigests(digests)
    }

    /// `account`'s digest, if it brought anything to the scan.
    pub fn get(&self, account: &str) -> Option<u64> {
        self.0
            .binary_search_by(|(n, _)| n.as_str().cmp(account))
            .ok()
            .map(|i| self.0[i].1)
    }

    /// Every (name, digest), by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.0.iter().map(|(n, d)| (n.as_str(), *d))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A rescan stored as a change to an earlier scan: its own pairs are those
/// naming a replaced account; every pair of `base` naming none is its too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delta {
    /// The scan whose pairs it keeps (itself possibly a delta).
    pub base: i64,
    /// The accounts whose pairs were scored again, sorted.
    pub replaced: Vec<String>,
}

/// What a scan stores beside its pairs for the next rescan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lineage {
    pub digests: AccountDigests,
    /// `None`: every pair is stored with the scan.
    pub delta: Option<Delta>,
}
