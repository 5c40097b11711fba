//! Phones and VPNs: mobile carriers behind carrier-grade NAT, and the VPN
//! exits.

use super::addresses::{host, Prefixes};
use super::records::{Carrier, Household, Person};
use super::WorldConfig;
use crate::draw::pick;
use crate::truth::Style;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Draws the mobile carriers of each region (`per_region` people there),
/// gives phones to people and people to carriers, and draws each carrier's
/// addresses.
pub(super) fn draw_carriers(
    cfg: &WorldConfig,
    per_region: &[usize],
    households: &[Household],
    region_of: &[usize],
    persons: &mut [Person],
    prefixes: &mut Prefixes,
    rng: &mut ChaCha8Rng,
) -> Vec<Carrier> {
    let mut carriers: Vec<Carrier> = Vec::new();
    let mut region_carriers: Vec<Vec<u32>> = Vec::new();
    for &n in per_region {
        let k = (2 + n / 3000).min(6);
        region_carriers.push((carriers.len() as u32..(carriers.len() + k) as u32).collect());
        for _ in 0..k {
            carriers.push(Carrier {
                pool: Vec::new(),
                hot: Vec::new(),
                members: Vec::new(),
            });
        }
    }
    for h in households {
        let region = region_of[h.members[0] as usize];
        let rc = &region_carriers[region];
        let family = pick(rng, rc);
        for &m in &h.members {
            let p = &mut persons[m as usize];
            let has_phone = h.phone_plan
                || p.style == Some(Style::Phone)
                || p.phone_share > 0.0
                || rng.gen_bool(0.3);
            if !has_phone {
                continue;
            }
            if p.phone_share == 0.0 {
                p.phone_share = 0.03;
            }
            // A phone plan is one carrier for the household.
            let c = if h.phone_plan || rng.gen_bool(0.7) {
                family
            } else {
                pick(rng, rc)
            };
            p.carrier = Some(c);
            carriers[c as usize].members.push(m);
        }
    }
    for c in &mut carriers {
        let prefix = prefixes.draw(rng);
        let n = c.members.len();
        let (pool, hot) = match cfg.nat_crowd {
            None => ((n / 3).max(6), (n / 80).max(1)),
            Some(k) => ((n / k.max(1) as usize).max(1), (n / 80).max(1)),
        };
        c.pool = (0..pool).map(|_| host(rng, prefix)).collect();
        c.hot = (0..hot).map(|_| host(rng, prefix)).collect();
    }
    carriers
}

/// The VPN exits: one per 250 accounts, at least three, in one /16.
pub(super) fn draw_vpn(
    cfg: &WorldConfig,
    prefixes: &mut Prefixes,
    rng: &mut ChaCha8Rng,
) -> Vec<u32> {
    let vpn_prefix = prefixes.draw(rng);
    (0..(cfg.accounts / 250).max(3))
        .map(|_| host(rng, vpn_prefix))
        .collect()
}
