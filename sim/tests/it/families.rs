//! Every world family shows the habit it is built around, read from its
//! move log and truth alone, and the default world does not (or less).

use detect_sim::{simulate_moves, Family, LookalikeKind, Style, Truth, WorldConfig};
use std::collections::{HashMap, HashSet};

/// A world of `family`, smaller than the family's own, for speed.
fn world(family: Family, seed: u64) -> (Vec<schema::Move>, Truth) {
    let f = WorldConfig::of_family(family, seed);
    let cfg = WorldConfig {
        accounts: f.accounts * 2 / 3,
        cliques: f.cliques * 2 / 3,
        days: 21,
        ..f
    };
    simulate_moves(&cfg).unwrap()
}

/// Each account's moves, (UTC second, address), sorted, and its offset
/// from UTC in seconds.
struct Log<'a> {
    moves: HashMap<&'a str, Vec<(i64, &'a str)>>,
    offset: HashMap<&'a str, i64>,
}

impl<'a> Log<'a> {
    fn new(moves: &'a [schema::Move], truth: &'a Truth) -> Self {
        let mut by: HashMap<&str, Vec<(i64, &str)>> = HashMap::new();
        for m in moves {
            by.entry(&m.username)
                .or_default()
                .push((m.timestamp, &m.ip));
        }
        for v in by.values_mut() {
            v.sort_unstable();
        }
        let offset = truth
            .people
            .iter()
            .flat_map(|p| {
                p.accounts
                    .iter()
                    .map(move |a| (a.as_str(), p.utc_offset_minutes as i64 * 60))
            })
            .collect();
        Log { moves: by, offset }
    }

    fn of(&self, account: &str) -> &[(i64, &'a str)] {
        self.moves.get(account).map_or(&[], Vec::as_slice)
    }

    /// The address most of `accounts` moved from.
    fn shared_address(&self, accounts: &[String]) -> Option<&'a str> {
        let mut seen_by: HashMap<&str, HashSet<&str>> = HashMap::new();
        for a in accounts {
            for &(_, ip) in self.of(a) {
                seen_by.entry(ip).or_default().insert(a);
            }
        }
        seen_by
            .into_iter()
            .max_by_key(|(ip, u)| (u.len(), *ip))
            .filter(|(_, u)| u.len() >= 2)
            .map(|(ip, _)| ip)
    }

    /// Per local day, the first move of `account` from `ip` between the
    /// local hours `from..to`.
    fn firsts(&self, account: &str, ip: &str, from: i64, to: i64) -> HashMap<i64, i64> {
        let off = self.offset[account];
        let mut out = HashMap::new();
        for &(t, at) in self.of(account) {
            let local = t + off;
            let hour = local.rem_euclid(86_400) / 3600;
            if at == ip && (from..to).contains(&hour) {
                out.entry(local.div_euclid(86_400)).or_insert(t);
            }
        }
        out
    }
}

/// Who moved first from `ip` in the local hours `from..to`, over the days
/// both moved there: the lead share |x - y| / (x + y), the median gap
/// between the two first moves in minutes, and the days.
fn order(log: &Log<'_>, x: &str, y: &str, ip: &str, from: i64, to: i64) -> (f64, i64, usize) {
    let (fx, fy) = (log.firsts(x, ip, from, to), log.firsts(y, ip, from, to));
    let (mut a, mut b, mut gaps) = (0i64, 0i64, Vec::new());
    for (d, tx) in &fx {
        if let Some(ty) = fy.get(d) {
            if tx < ty {
                a += 1;
            } else {
                b += 1;
            }
            gaps.push((tx - ty).abs() / 60);
        }
    }
    gaps.sort_unstable();
    let days = gaps.len();
    let lead = (a - b).abs() as f64 / (a + b).max(1) as f64;
    (lead, gaps.get(days / 2).copied().unwrap_or(0), days)
}

/// For the pairs of each lookalike of `kind` (at its most shared address,
/// in the local hours `from..to`, on at least `min_days` days): the share
/// of pairs with a lead share of 0.75 or more, and the median of their
/// median gaps, in minutes.
fn fixed_order(family: Family, kind: LookalikeKind, from: i64, to: i64) -> (f64, i64, usize) {
    let (mut pairs, mut fixed, mut gaps) = (0usize, 0usize, Vec::new());
    for seed in 1..=2 {
        let (moves, truth) = world(family, seed);
        let log = Log::new(&moves, &truth);
        for l in truth.lookalikes.iter().filter(|l| l.kind == kind) {
            let Some(ip) = log.shared_address(&l.accounts) else {
                continue;
            };
            for (i, x) in l.accounts.iter().enumerate() {
                for y in &l.accounts[i + 1..] {
                    let (lead, gap, days) = order(&log, x, y, ip, from, to);
                    if days >= 6 {
                        pairs += 1;
                        fixed += usize::from(lead >= 0.75);
                        gaps.push(gap);
                    }
                }
            }
        }
    }
    gaps.sort_unstable();
    (
        fixed as f64 / pairs.max(1) as f64,
        gaps.get(gaps.len() / 2).copied().unwrap_or(0),
        pairs,
    )
}

#[test]
fn the_default_family_is_the_default_world() {
    for seed in [1, 9] {
        assert_eq!(
            WorldConfig::of_family(Family::Default, seed),
            WorldConfig {
                seed,
                ..Default::default()
            }
        );
    }
    let (a, _) = simulate_moves(&WorldConfig {
        accounts: 60,
        days: 3,
        cliques: 2,
        ..WorldConfig::of_family(Family::Default, 4)
    })
    .unwrap();
    let (b, _) = simulate_moves(&WorldConfig {
        accounts: 60,
        days: 3,
        cliques: 2,
        seed: 4,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(a, b);
}

#[test]
fn lunch_colleagues_keep_one_order_and_hand_over_after_half_an_hour_to_two_hours() {
    let (share, gap, pairs) = fixed_order(Family::Lunch, LookalikeKind::Office, 11, 16);
    assert!(pairs >= 10, "{pairs} pairs");
    assert!(share >= 0.6, "{share} of {pairs} pairs keep one order");
    assert!((25..=130).contains(&gap), "median gap {gap} min");
    // Colleagues of the default world play at work when they please.
    let (share, _, pairs) = fixed_order(Family::Default, LookalikeKind::Office, 11, 16);
    assert!(share < 0.3, "{share} of {pairs} default pairs");
}

#[test]
fn couples_at_one_computer_keep_one_order_and_hand_over_after_about_an_hour() {
    let kind = LookalikeKind::FamilySharedComputer;
    let (share, gap, pairs) = fixed_order(Family::Couples, kind, 17, 24);
    assert!(pairs >= 10, "{pairs} pairs");
    assert!(share >= 0.6, "{share} of {pairs} pairs keep one order");
    assert!((35..=90).contains(&gap), "median gap {gap} min");
    let (share, gap, pairs) = fixed_order(Family::Default, kind, 17, 24);
    assert!(share < 0.4, "{share} of {pairs} default pairs");
    assert!(gap < 35, "default median gap {gap} min");
}

/// Pairs of one household who are also colleagues at one office.
fn couples_at_work(family: Family, seed: u64) -> usize {
    let (_, truth) = world(family, seed);
    let group = |kind| -> Vec<HashSet<&str>> {
        truth
            .lookalikes
            .iter()
            .filter(|l| l.kind == kind)
            .map(|l| l.accounts.iter().map(String::as_str).collect())
            .collect()
    };
    let (homes, offices) = (
        group(LookalikeKind::Household),
        group(LookalikeKind::Office),
    );
    homes
        .iter()
        .filter(|h| offices.iter().any(|o| h.intersection(o).count() >= 2))
        .count()
}

#[test]
fn couples_also_work_at_one_office() {
    let count = |f| couples_at_work(f, 1) + couples_at_work(f, 2);
    let (couples, default) = (count(Family::Couples), count(Family::Default));
    assert!(
        couples >= 10 && couples >= 2 * default,
        "{couples} against {default}"
    );
}

#[test]
fn students_crowd_behind_a_campus_network_and_live_there() {
    let (moves, truth) = world(Family::Campus, 1);
    let log = Log::new(&moves, &truth);
    let campus = truth
        .lookalikes
        .iter()
        .filter(|l| l.kind == LookalikeKind::University)
        .max_by_key(|l| l.accounts.len())
        .unwrap();
    assert!(campus.accounts.len() >= 30, "{}", campus.accounts.len());
    // The campus shows few addresses, and its students play there at night.
    let ip = log.shared_address(&campus.accounts).unwrap();
    let net = |ip: &str| ip.rsplit_once('.').unwrap().0.to_owned();
    let addresses: HashSet<&str> = campus
        .accounts
        .iter()
        .flat_map(|a| log.of(a))
        .filter(|m| net(m.1) == net(ip))
        .map(|m| m.1)
        .collect();
    assert!(addresses.len() <= 3, "{addresses:?}");
    let at_night = campus
        .accounts
        .iter()
        .filter(|a| {
            let off = log.offset[a.as_str()];
            log.of(a).iter().any(|&(t, at)| {
                addresses.contains(at) && (21..24).contains(&((t + off).rem_euclid(86_400) / 3600))
            })
        })
        .count();
    assert!(at_night * 4 >= campus.accounts.len(), "{at_night}");
}

/// Days on which two accounts of one household moved from one carrier
/// address (not their home's).
fn phone_plan_days(family: Family) -> usize {
    let (moves, truth) = world(family, 1);
    let log = Log::new(&moves, &truth);
    let carrier: HashSet<&str> = truth
        .lookalikes
        .iter()
        .filter(|l| l.kind == LookalikeKind::CarrierNat)
        .flat_map(|l| l.accounts.iter().map(String::as_str))
        .collect();
    let mut days = 0;
    for h in truth
        .lookalikes
        .iter()
        .filter(|l| l.kind == LookalikeKind::Household)
    {
        let home = log.shared_address(&h.accounts);
        let seen: Vec<HashSet<(i64, &str)>> = h
            .accounts
            .iter()
            .filter(|a| carrier.contains(a.as_str()))
            .map(|a| {
                log.of(a)
                    .iter()
                    .filter(|m| Some(m.1) != home)
                    .map(|m| (m.0.div_euclid(86_400), m.1))
                    .collect()
            })
            .collect();
        for (i, x) in seen.iter().enumerate() {
            for y in &seen[i + 1..] {
                days += x.intersection(y).count();
            }
        }
    }
    days
}

#[test]
fn families_on_one_phone_plan_share_the_carrier_address_of_the_day() {
    let (plan, default) = (
        phone_plan_days(Family::PhonePlan),
        phone_plan_days(Family::Default),
    );
    assert!(
        plan >= 50 && plan > 5 * default.max(1),
        "{plan} against {default}"
    );
}

#[test]
fn a_sparse_site_has_few_moves_and_games_that_wait_for_days() {
    let (mut moves, truth) = world(Family::Sparse, 1);
    let accounts = truth.people.iter().map(|p| p.accounts.len()).sum::<usize>();
    let per_day = moves.len() as f64 / accounts as f64 / 21.0;
    assert!(per_day < 4.0, "{per_day} moves an account a day");
    ingest::sort_by_time(&mut moves);
    let segments = ingest::segment_moves(&moves, 1800);
    // Segments by bucket, as the reference counts them (a stall run is one
    // record of many buckets).
    let n: u64 = segments
        .by_account
        .iter()
        .map(|s| schema::bucket_counts(s).0)
        .sum();
    let per_move = n as f64 / moves.len() as f64;
    assert!(per_move >= 7.0, "{per_move} segments a move");
}

/// Moves of one owner's two accounts within 15 seconds of each other.
fn close_moves_of_one_person(family: Family) -> usize {
    let (moves, truth) = world(family, 1);
    let log = Log::new(&moves, &truth);
    let mut n = 0;
    for g in &truth.groups {
        let mut all: Vec<(i64, &str)> = g
            .accounts
            .iter()
            .flat_map(|a| log.of(a).iter().map(move |m| (m.0, a.as_str())))
            .collect();
        all.sort_unstable();
        n += all
            .windows(2)
            .filter(|w| w[0].1 != w[1].1 && w[1].0 - w[0].0 <= 15)
            .count();
    }
    n
}

#[test]
fn quick_players_move_two_accounts_within_seconds() {
    assert_eq!(close_moves_of_one_person(Family::Default), 0);
    assert!(close_moves_of_one_person(Family::Fast) >= 20);
}

/// Over the cautious owners' days, the share on which the main account
/// moved first, and the share of owners whose main account moved from
/// three networks (/24) at most (home, renumbered now and then).
fn careful_owners(family: Family) -> (f64, f64) {
    let (mut main_first, mut days, mut one_place, mut owners) = (0, 0, 0, 0);
    for seed in 1..=2 {
        let (moves, truth) = world(family, seed);
        let log = Log::new(&moves, &truth);
        for g in truth.groups.iter().filter(|g| g.style == Style::Cautious) {
            let mut first: HashMap<i64, (i64, usize)> = HashMap::new();
            for (k, a) in g.accounts.iter().enumerate() {
                let off = log.offset[a.as_str()];
                for &(t, _) in log.of(a) {
                    let e = first.entry((t + off).div_euclid(86_400)).or_insert((t, k));
                    if t < e.0 {
                        *e = (t, k);
                    }
                }
            }
            days += first.len();
            main_first += first.values().filter(|f| f.1 == 0).count();
            let nets: HashSet<&str> = log
                .of(&g.accounts[0])
                .iter()
                .map(|m| m.1.rsplit_once('.').unwrap().0)
                .collect();
            owners += 1;
            one_place += usize::from(nets.len() <= 3);
        }
    }
    (
        main_first as f64 / days.max(1) as f64,
        one_place as f64 / owners.max(1) as f64,
    )
}

#[test]
fn careful_owners_shuffle_their_accounts_and_stay_home() {
    let (default_first, default_home) = careful_owners(Family::Default);
    let (careful_first, careful_home) = careful_owners(Family::Careful);
    assert!(default_first >= 0.8, "{default_first}");
    assert!(careful_first <= 0.65, "{careful_first}");
    assert!(
        careful_home >= default_home + 0.3,
        "{careful_home} against {default_home}"
    );
}

#[test]
fn every_family_has_owners_of_its_styles_and_honest_lookalikes() {
    for f in Family::ALL {
        let (_, truth) = world(f, 3);
        assert_eq!(truth.family, (f != Family::Default).then_some(f));
        let styles: HashSet<Style> = truth.groups.iter().map(|g| g.style).collect();
        let wanted: HashSet<Style> = f.habits().owner_styles.into_iter().collect();
        assert_eq!(styles, wanted, "{f:?}");
        let kinds: HashSet<LookalikeKind> = truth.lookalikes.iter().map(|l| l.kind).collect();
        assert!(kinds.len() >= 4, "{f:?}: {kinds:?}");
    }
}
