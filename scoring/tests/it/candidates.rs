//! Candidate pairs and crowds against their definition (SPEC section 3),
//! read directly: two participants are a candidate pair when they were
//! seen on one IP on one day of the season, unless more than the crowd
//! limit were seen there that day, which is then a crowd.

use proptest::prelude::*;
use schema::{AccountId, CrowdedAddress, IpDay, Names, Season, Segments, SECONDS_PER_DAY};
use std::collections::{BTreeMap, BTreeSet};

/// Sightings `(account, day, ip)` of accounts `a0..`, IPs `10.0.0.N`.
fn segments(sightings: &[(u32, i64, u32)], accounts: u32) -> Segments {
    let mut segs = Segments::new(1800);
    for u in 0..accounts {
        segs.accounts.intern(&format!("a{u}"));
        segs.by_account.push(Vec::new());
    }
    let mut ips = Names::default();
    for ip in 0..8 {
        ips.intern(&format!("10.0.0.{ip}"));
    }
    segs.ips = ips;
    segs.ip_days = sightings
        .iter()
        .map(|&(account, day, ip)| IpDay { account, day, ip })
        .collect();
    segs.ip_days.sort_unstable();
    segs.ip_days.dedup();
    segs
}

/// The definition, one (IP, day) at a time.
fn by_definition(
    segs: &Segments,
    members: &[AccountId],
    season: &Season,
    limit: usize,
) -> (Vec<(AccountId, AccountId)>, Vec<CrowdedAddress>) {
    let in_season = |day: i64| {
        let (start, end) = (day * SECONDS_PER_DAY, (day + 1) * SECONDS_PER_DAY);
        season.from.is_none_or(|f| end > f) && season.to.is_none_or(|t| start < t)
    };
    let mut groups: BTreeMap<(i64, u32), BTreeSet<AccountId>> = BTreeMap::new();
    for d in &segs.ip_days {
        if members.contains(&d.account) && in_season(d.day) {
            groups.entry((d.day, d.ip)).or_default().insert(d.account);
        }
    }
    let mut pairs = BTreeSet::new();
    let mut crowded = Vec::new();
    for ((day, ip), accounts) in groups {
        if accounts.len() > limit {
            crowded.push(CrowdedAddress {
                day,
                ip: segs.ips.name(ip).to_owned(),
                accounts: accounts.len(),
            });
            continue;
        }
        for &x in &accounts {
            for &y in accounts.range(x + 1..) {
                pairs.insert((x, y));
            }
        }
    }
    crowded.sort_by(|a, b| b.accounts.cmp(&a.accounts).then_with(|| a.cmp(b)));
    (pairs.into_iter().collect(), crowded)
}

proptest! {
    #[test]
    fn candidates_and_crowds_follow_the_definition(
        sightings in prop::collection::vec((0..12u32, 20_000..20_006i64, 0..4u32), 0..150),
        members in prop::collection::btree_set(0..12u32, 0..12),
        limit in 1..6usize,
        from_day in prop::option::of(20_000..20_006i64),
    ) {
        let segs = segments(&sightings, 12);
        let members: Vec<AccountId> = members.into_iter().collect();
        let season = Season::new(1, from_day.map(|d| d * SECONDS_PER_DAY + 3600), None, None)
            .unwrap();
        let got = detect_scoring::candidate_ids(&segs, &members, &season, limit);
        prop_assert_eq!(got, by_definition(&segs, &members, &season, limit));
    }
}
