//! Candidate pairs and crowds against their definition (SPEC section 3),
//! read directly: two participants are a candidate pair when they were
//! seen on one IP on one day of the season, unless more than the crowd
//! limit were seen there that day, which is then a crowd.

use proptest::prelude::*;
use schema::{AccountId, CrowdedAddress, IpDay, Names, Season, Segments, SECONDS_PER_DAY};
use std::collections::{BTreeMap, BTreeSet};

/// Sightings `(account, day, ip)` of accounts `a0..`, IPs `10.0.0.N`.
fn segments(sightings: &[(u32, i64, u32)], accounts: u32) -> Segments {
    let names: Vec<String> = (0..accounts).map(|u| format!("a{u}")).collect();
    named_segments(sightings, &names)
}

/// [`segments`] of the accounts named `names`, in id order.
fn named_segments(sightings: &[(u32, i64, u32)], names: &[String]) -> Segments {
    let mut segs = Segments::new(1800);
    for name in names {
        segs.accounts.intern(name);
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

proptest! {
    /// Candidate pairs are the pairs by id, each with its accounts in name
    /// order, sorted by names (byte order), whatever order the ids have.
    #[test]
    fn candidate_pairs_are_in_name_order(
        sightings in prop::collection::vec((0..12u32, 20_000..20_003i64, 0..3u32), 0..150),
        names in prop::collection::btree_set("[a-zA-Z0-9_é]{0,3}", 12)
            .prop_map(|s| s.into_iter().collect::<Vec<String>>())
            .prop_shuffle(),
        limit in 1..6usize,
    ) {
        let segs = named_segments(&sightings, &names);
        let members: Vec<AccountId> = (0..12).collect();
        let season = Season::new(1, None, None, None).unwrap();
        let (by_id, crowds) = detect_scoring::candidate_ids(&segs, &members, &season, limit);
        let mut want: Vec<(&str, &str)> = by_id
            .iter()
            .map(|&(x, y)| {
                let (a, b) = (names[x as usize].as_str(), names[y as usize].as_str());
                (a.min(b), a.max(b))
            })
            .collect();
        want.sort();
        let (got, got_crowds) = detect_scoring::candidate_pairs(&segs, &members, &season, limit);
        let got: Vec<(&str, &str)> = got
            .iter()
            .map(|&(x, y)| (names[x as usize].as_str(), names[y as usize].as_str()))
            .collect();
        prop_assert_eq!(got, want);
        prop_assert_eq!(got_crowds, crowds);
    }
}
