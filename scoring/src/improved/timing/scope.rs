//! What the timing pairs read of a season: the members' moves by second,
//! their sightings and their own stretches of play, and which of them are
//! hidden.

use super::super::moves::MoveTimes;
use super::super::order::stretches;
use super::HIDDEN_SHARE;
use rayon::prelude::*;
use schema::{AccountId, Epoch, IpDay, IpId, Season, Segments};

/// What the timing pairs read of a season: the members' moves by second,
/// their sightings and their own stretches of play.
pub(super) struct Scope<'s> {
    pub(super) segments: &'s Segments,
    pub(super) season: &'s Season,
    times: &'s MoveTimes,
    ip_days_from: Vec<u32>,
    stretches: Vec<Vec<(Epoch, Epoch)>>,
}

impl<'s> Scope<'s> {
    pub(super) fn new(
        segments: &'s Segments,
        season: &'s Season,
        times: &'s MoveTimes,
        members: &[AccountId],
    ) -> Self {
        let accounts = segments.by_account.len().max(segments.accounts.len());
        let ip_days_from = crate::account_starts(&segments.ip_days, accounts, |d| d.account);
        let mut member = vec![false; accounts];
        for &u in members {
            member[u as usize] = true;
        }
        let stretches = (0..accounts as AccountId)
            .into_par_iter()
            .map(|u| {
                if member[u as usize] {
                    stretches(times.in_season(u, season))
                } else {
                    Vec::new()
                }
            })
            .collect();
        Scope {
            segments,
            season,
            times,
            ip_days_from,
            stretches,
        }
    }

    pub(super) fn moves(&self, account: AccountId) -> &'s [(Epoch, IpId)] {
        self.times.in_season(account, self.season)
    }

    fn ip_days(&self, account: AccountId) -> &'s [IpDay] {
        let all = &self.segments.ip_days;
        match self
            .ip_days_from
            .get(account as usize..account as usize + 2)
        {
            Some(&[lo, hi]) => &all[lo as usize..hi as usize],
            _ => &[],
        }
    }

    pub(super) fn stretches(&self, account: AccountId) -> &[(Epoch, Epoch)] {
        &self.stretches[account as usize]
    }
}

/// Per address id, whether it is a shared exit
/// ([`super::super::addresses::shared_exits`]).
pub(super) fn shared_exits(cx: &Scope<'_>) -> Vec<bool> {
    super::super::addresses::shared_exits(cx.segments, cx.season)
}

/// Whether `user` is hidden: at least [`HIDDEN_SHARE`] of its in-season
/// sightings are on shared exits.
pub(super) fn is_hidden(cx: &Scope<'_>, exits: &[bool], account: AccountId) -> bool {
    let (mut all, mut shared) = (0u32, 0u32);
    for d in cx.ip_days(account) {
        if crate::day_in_season(d.day, cx.season) {
            all += 1;
            shared += u32::from(exits.get(d.ip as usize).copied().unwrap_or(false));
        }
    }
    all > 0 && shared as f64 >= HIDDEN_SHARE * all as f64
}
