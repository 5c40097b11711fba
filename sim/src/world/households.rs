//! Households: one to three people in one time zone behind one home IP,
//! some sharing a computer, some couples playing together, and their home
//! ISPs' dynamic addresses.

use super::addresses::{host, Prefixes};
use super::records::{Household, Person, Site, SiteKind};
use super::{weighted, Habits, WorldConfig, REGIONS};
use crate::draw::pick;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Draws the households of `n_persons` people in random order. Returns the
/// households, each person's region and each person's household.
pub(super) fn draw_households(
    h: &Habits,
    n_persons: usize,
    rng: &mut ChaCha8Rng,
) -> (Vec<Household>, Vec<usize>, Vec<u32>) {
    let mut order: Vec<u32> = (0..n_persons as u32).collect();
    order.shuffle(rng);
    let mut region_of = vec![0usize; n_persons];
    let mut household_of = vec![0u32; n_persons];
    let mut households: Vec<Household> = Vec::new();
    let mut i = 0;
    while i < n_persons {
        let [w1, w2, w3] = h.household_sizes;
        let size = weighted(rng, &[(1usize, w1), (2, w2), (3, w3)]).min(n_persons - i);
        let region = weighted(
            rng,
            &REGIONS
                .iter()
                .enumerate()
                .map(|(r, &(_, w))| (r, w))
                .collect::<Vec<_>>(),
        );
        let members: Vec<u32> = order[i..i + size].to_vec();
        let shared_computer = size > 1 && rng.gen_bool(h.shared_computer);
        for &m in &members {
            region_of[m as usize] = region;
            household_of[m as usize] = households.len() as u32;
        }
        // Couples: some play side by side in the evening, a few (retired,
        // no phones) nearly always.
        let together = match rng.gen_range(0..20) {
            _ if size == 1 || shared_computer => 0.0,
            0..=1 => rng.gen_range(0.9..1.0),
            2..=9 => rng.gen_range(0.3..0.85),
            _ => 0.0,
        };
        // The other families' knobs draw only when set, so that the
        // default world's draws stay as they were.
        let chance = |rng: &mut ChaCha8Rng, p: f64| size > 1 && p > 0.0 && rng.gen_bool(p);
        let fixed_order = shared_computer && chance(rng, h.fixed_turn_order);
        let relay = !shared_computer && chance(rng, h.evening_relay);
        let phone_plan = chance(rng, h.phone_plan);
        households.push(Household {
            ip: 0,
            isp: 0,
            next_change: 0,
            shared_computer,
            together: if relay { 0.0 } else { together },
            members,
            fixed_order,
            relay,
            phone_plan,
        });
        i += size;
    }
    (households, region_of, household_of)
}

/// Draws the home ISPs of each region (`per_region` people there) and gives
/// every household its first address and when it changes.
pub(super) fn draw_home_isps(
    cfg: &WorldConfig,
    per_region: &[usize],
    households: &mut [Household],
    region_of: &[usize],
    prefixes: &mut Prefixes,
    rng: &mut ChaCha8Rng,
) -> Vec<Vec<u32>> {
    let isps: Vec<Vec<u32>> = per_region
        .iter()
        .map(|&n| {
            (0..(2 + n / 400).min(40))
                .map(|_| prefixes.draw(rng))
                .collect()
        })
        .collect();
    let start = cfg.start;
    for h in households.iter_mut() {
        let r = region_of[h.members[0] as usize];
        h.isp = rng.gen_range(0..isps[r].len() as u32);
        h.ip = host(rng, isps[r][h.isp as usize]);
        h.next_change = if rng.gen_bool(0.15) {
            i64::MAX
        } else {
            start - 2 * 86_400 + rng.gen_range(86_400..21 * 86_400)
        };
    }
    isps
}

/// Students living alone who live on campus ([`Habits::dorms`]): their home
/// address is one of the campus network's, for good.
pub(super) fn draw_dorms(
    h: &Habits,
    persons: &[Person],
    sites: &[Site],
    households: &mut [Household],
    rng: &mut ChaCha8Rng,
) {
    if h.dorms == 0.0 {
        return;
    }
    for p in persons {
        let Some(site) = p.site.map(|s| &sites[s as usize]) else {
            continue;
        };
        let house = &mut households[p.household as usize];
        if site.kind == SiteKind::University && house.members.len() == 1 && rng.gen_bool(h.dorms) {
            house.ip = pick(rng, &site.ips);
            house.next_change = i64::MAX;
        }
    }
}
