//! A rescan's candidate pairs from the (IP, day)s its change touched, not
//! from every sighting of the season: what a daemon's tick costs then
//! follows the accounts that moved.
//!
//! An (IP, day)'s accounts change only by accounts whose digest changed
//! (their sightings in the season, or whether they take part, are in it).
//! So an (IP, day) none of them is seen on now is as it was: a crowd only
//! if it was one before, which the previous scan's crowds list. The crowds
//! now are those among the (IP, day)s of the changed accounts and the
//! previous crowds; the pairs naming a replaced account are those of the
//! (IP, day)s it is seen on; and the season's count of candidate pairs is
//! the previous count, less the previous pairs naming a replaced account,
//! plus those found now.

use crate::candidates::{crowds_in, pairs_in, Sighting};
use crate::{account_range, day_in_season};
use rayon::prelude::*;
use rustc_hash::FxHashSet;
use schema::{AccountId, CrowdedAddress, IpDay, Season, Segments};

/// How many of the previous scan's candidate pairs name any of the accounts
/// given.
pub type PairsNaming<'a> = &'a (dyn Fn(&[String]) -> usize + Sync);

/// What a rescan needs of the previous scan's candidate pairs, when its
/// caller holds them (a daemon holds every pair of its latest scan).
#[derive(Clone, Copy)]
pub struct PreviousCandidates<'a> {
    /// How many candidate pairs the previous scan had.
    pub count: usize,
    /// How many of them name any of the accounts given.
    pub naming: PairsNaming<'a>,
}

/// The sightings that count for candidates: by a participant, in the
/// season.
pub(super) struct Counted<'a> {
    segments: &'a Segments,
    season: &'a Season,
    member: Vec<bool>,
}

impl<'a> Counted<'a> {
    pub fn new(segments: &'a Segments, season: &'a Season, participants: &[AccountId]) -> Self {
        let mut member = vec![false; segments.accounts.len()];
        for &u in participants {
            member[u as usize] = true;
        }
        Counted {
            segments,
            season,
            member,
        }
    }

    fn counts(&self, d: &IpDay) -> bool {
        self.member[d.account as usize] && day_in_season(d.day, self.season)
    }

    /// The (day, IP)s the accounts `of` are seen on.
    fn keys_of(&self, of: &[bool]) -> FxHashSet<(i64, u32)> {
        let ip_days = &self.segments.ip_days;
        (0..self.member.len())
            .filter(|&u| of[u])
            .flat_map(|u| &ip_days[account_range(ip_days, u as AccountId, |d| d.account)])
            .filter(|d| self.counts(d))
            .map(|d| (d.day, d.ip))
            .collect()
    }

    /// Every counted sighting on the (day, IP)s `keys`, sorted by (day, IP,
    /// account), each once.
    fn groups(&self, keys: &FxHashSet<(i64, u32)>) -> Vec<Sighting> {
        let mut seen: Vec<Sighting> = self
            .segments
            .ip_days
            .par_iter()
            .filter(|d| self.counts(d) && keys.contains(&(d.day, d.ip)))
            .map(|d| (d.day, d.ip, d.account))
            .collect();
        seen.par_sort_unstable();
        seen.dedup();
        seen
    }

    /// The season's crowds now (as `candidate_ids` lists them), the
    /// accounts replaced, and the candidate pairs naming one of them (as
    /// `candidate_ids` gives them: `x < y`, in id order), given the
    /// accounts whose digest `changed`, the previous scan's crowds and
    /// `replaced_of`, which adds to those accounts the ones seen on an (IP,
    /// day) whose crowd changed.
    pub fn crowds_and_pairs(
        &self,
        changed: Vec<bool>,
        before: &[CrowdedAddress],
        crowd_limit: usize,
        replaced_of: impl FnOnce(Vec<bool>, &[CrowdedAddress]) -> Vec<bool>,
    ) -> (Vec<CrowdedAddress>, Vec<bool>, Vec<(AccountId, AccountId)>) {
        let mut keys = self.keys_of(&changed);
        let ips = &self.segments.ips;
        keys.extend(before.iter().filter_map(|c| Some((c.day, ips.get(&c.ip)?))));
        let seen = self.groups(&keys);
        let crowded = crowds_in(&seen, ips, crowd_limit);
        let replaced = replaced_of(changed.clone(), &crowded);
        // Every (IP, day) a changed account is seen on is among those read:
        // unless a crowd changed, they hold every pair naming one.
        let pairs = if replaced == changed {
            pairs_naming(&seen, &replaced, crowd_limit)
        } else {
            pairs_naming(
                &self.groups(&self.keys_of(&replaced)),
                &replaced,
                crowd_limit,
            )
        };
        (crowded, replaced, pairs)
    }
}

/// The candidate pairs among `seen` naming an account `replaced`.
fn pairs_naming(
    seen: &[Sighting],
    replaced: &[bool],
    crowd_limit: usize,
) -> Vec<(AccountId, AccountId)> {
    pairs_in(seen, crowd_limit, |x, y| {
        replaced[x as usize] || replaced[y as usize]
    })
}
