//! People: the multi-account owners, each person's time zone, job, hours
//! and habits (phone, VPN, play at work), their days away from home, and
//! the public holidays of each region.

use super::addresses::{host, Prefixes};
use super::records::{Absence, Household, Job, Person};
use super::{weighted, Habits, WorldConfig, REGIONS};
use crate::draw::poisson;
use crate::truth::Style;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Draws the multi-account owners: how many accounts each (at most a third
/// of the accounts in all) and which style. Returns the sizes, the styles and
/// the number of accounts they hold.
pub(super) fn draw_owners(
    cfg: &WorldConfig,
    rng: &mut ChaCha8Rng,
) -> (Vec<usize>, Vec<Style>, usize) {
    let cap = cfg.accounts / 3;
    let mut sizes = Vec::with_capacity(cfg.cliques);
    let mut used = 0;
    for i in 0..cfg.cliques {
        let left_after = (cfg.cliques - i - 1) * 2;
        let want = weighted(
            rng,
            &[(2, 55), (3, 22), (4, 10), (5, 6), (6, 4), (7, 2), (8, 1)],
        );
        let n = want.min(cap - used - left_after).max(2);
        used += n;
        sizes.push(n);
    }
    let listed = &cfg.habits.owner_styles;
    let mut styles: Vec<Style> = (0..cfg.cliques).map(|i| listed[i % listed.len()]).collect();
    styles.shuffle(rng);
    (sizes, styles, used)
}

/// Draws `n_persons` people: the time zone of their household, job, hours,
/// check-ins, phone and VPN habits. Everyone starts as an honest person
/// with one account.
pub(super) fn draw_people(
    h: &Habits,
    n_persons: usize,
    region_of: &[usize],
    household_of: &[u32],
    households: &[Household],
    rng: &mut ChaCha8Rng,
) -> Vec<Person> {
    (0..n_persons)
        .map(|p| {
            let region = region_of[p];
            let house = &households[household_of[p] as usize];
            let inseparable = house.together >= 0.9;
            // Relaying housemates play mostly in the relay.
            let most_checkins = if house.relay {
                h.relay_other_checkins
            } else {
                f64::INFINITY
            };
            let job = if inseparable {
                Job::Free
            } else {
                weighted(
                    rng,
                    &[
                        (Job::Worker, h.jobs[0]),
                        (Job::Student, h.jobs[1]),
                        (Job::Free, h.jobs[2]),
                    ],
                )
            };
            let u: f64 = rng.gen();
            Person {
                tz: REGIONS[region].0 as i64 * 60,
                region,
                household: household_of[p],
                site: None,
                job,
                carrier: None,
                wake: rng.gen_range(6.0..9.5),
                bed: rng.gen_range(22.0..25.5),
                checkins: (h.checkins.0 + h.checkins.1 * u * u).min(most_checkins),
                keen: u * u,
                phone_share: phone_share(h, rng, inseparable),
                vpn_share: if rng.gen_bool(h.vpn_people) {
                    rng.gen_range(0.1..0.4)
                } else {
                    0.0
                },
                plays_at_work: job == Job::Worker && rng.gen_bool(h.plays_at_work),
                absences: Vec::new(),
                first_account: 0,
                n_accounts: 1,
                style: None,
                rare: 0.0,
                puppet_vpn: 0.0,
                busy: i64::MIN,
                shuffle: false,
                home_only: false,
            }
        })
        .collect()
}

/// Makes people `honest..` the multi-account owners of `sizes` accounts in
/// `styles`.
pub(super) fn make_owners(
    h: &Habits,
    persons: &mut [Person],
    honest: usize,
    sizes: &[usize],
    styles: &[Style],
    rng: &mut ChaCha8Rng,
) {
    for (k, (&n, &style)) in sizes.iter().zip(styles).enumerate() {
        let p = &mut persons[honest + k];
        p.n_accounts = n as u32;
        p.style = Some(style);
        p.rare = rng.gen_range(0.12..0.3);
        p.puppet_vpn = if rng.gen_bool(h.puppet_vpn_always) {
            1.0
        } else {
            h.puppet_vpn_sometimes
        };
        if style == Style::Phone {
            p.phone_share = rng.gen_range(0.3..0.5);
        }
        // Knobs of other families draw only when set, so that the default
        // world's draws stay as they were.
        p.shuffle = h.owner_shuffle > 0.0 && rng.gen_bool(h.owner_shuffle);
        p.home_only = h.owner_home_only > 0.0 && rng.gen_bool(h.owner_home_only);
    }
}

/// Owners who play only at home ([`Person::home_only`]) use no phone,
/// office or VPN of their own.
pub(super) fn stay_home(persons: &mut [Person]) {
    for p in persons.iter_mut().filter(|p| p.home_only) {
        p.phone_share = 0.0;
        p.vpn_share = 0.0;
        p.plays_at_work = false;
    }
}

/// Absences: household holidays and a few days away alone, at a steady rate
/// per day whatever the world's length.
pub(super) fn draw_absences(
    days: i32,
    households: &[Household],
    persons: &mut [Person],
    prefixes: &mut Prefixes,
    rng: &mut ChaCha8Rng,
) {
    for h in households {
        for _ in 0..poisson(rng, 0.35 * (days + 12) as f64 / 40.0) {
            let from = rng.gen_range(-12..days);
            let to = from + rng.gen_range(3..10);
            let prefix = prefixes.draw(rng);
            let ip = host(rng, prefix);
            for &m in &h.members {
                persons[m as usize].absences.push(Absence { from, to, ip });
            }
        }
    }
    for p in persons.iter_mut() {
        for _ in 0..poisson(rng, 0.15 * (days + 4) as f64 / 30.0) {
            let from = rng.gen_range(-4..days);
            let to = from + rng.gen_range(1..4);
            let prefix = prefixes.draw(rng);
            let ip = host(rng, prefix);
            p.absences.push(Absence { from, to, ip });
        }
    }
}

/// Public holidays, local day numbers, per region.
pub(super) fn draw_holidays(days: i32, rng: &mut ChaCha8Rng) -> Vec<Vec<i32>> {
    REGIONS
        .iter()
        .map(|_| {
            (0..1 + days / 30)
                .map(|_| rng.gen_range(0..days.max(1)))
                .collect()
        })
        .collect()
}

/// The share of a person's home check-ins made from the phone. About one
/// person in seven plays from the phone only (their home sessions all go
/// through carrier NAT): the Pew Research Center's Mobile Fact Sheet (2021)
/// counts 15 % of U.S. adults as smartphone-only internet users. Of the
/// rest, 60 % sometimes play from the phone. Members of a couple who always
/// play together at home do not.
fn phone_share(h: &Habits, rng: &mut impl Rng, inseparable: bool) -> f64 {
    if inseparable {
        0.0
    } else if rng.gen_bool(h.phone_only) {
        rng.gen_range(0.9..=1.0)
    } else if rng.gen_bool(h.phone_sometimes) {
        rng.gen_range(0.05..0.4)
    } else {
        0.0
    }
}
