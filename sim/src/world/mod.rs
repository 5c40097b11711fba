//! The world: its configuration, people with their homes, workplaces, phones
//! and accounts, the IP addresses they use, and the season's league.
//!
//! [`World::build`] draws it in a fixed order, which fixes the random draws:
//! multi-account owners, households and their home addresses, people,
//! workplaces and universities, phones, VPN exits, absences and holidays,
//! accounts, the league.

mod accounts;
mod addresses;
mod config;
mod habits;
mod households;
mod league;
mod network;
mod people;
mod places;
mod records;

use crate::truth::{Group, Lookalike, LookalikeKind, Person as TruthPerson, Truth};
use accounts::{draw_accounts, Account};
use addresses::Prefixes;
use households::{draw_dorms, draw_home_isps, draw_households};
use league::draw_league;
use network::{draw_carriers, draw_vpn};
use people::{draw_absences, draw_holidays, draw_owners, draw_people, make_owners, stay_home};
use places::{couples_at_one_office, draw_lunches, draw_sites};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use records::{Carrier, Household, Site, SiteKind};

pub(crate) use addresses::host;
pub use config::{WorldConfig, DEFAULT_START, MOVES_PER_ACCOUNT_DAY};
pub use habits::{Family, Habits};
pub(crate) use league::league_name;
pub(crate) use records::{Job, Person};

/// Time zones people live in: (offset from UTC in minutes, weight).
const REGIONS: &[(i32, u32)] = &[
    (0, 12),
    (60, 25),
    (120, 10),
    (180, 5),
    (-300, 14),
    (-360, 5),
    (-480, 8),
    (-180, 5),
    (330, 3),
    (480, 6),
    (540, 3),
    (600, 4),
];

pub(crate) struct World {
    pub cfg: WorldConfig,
    pub persons: Vec<Person>,
    pub households: Vec<Household>,
    pub sites: Vec<Site>,
    pub carriers: Vec<Carrier>,
    /// Address prefixes of home ISPs, per region.
    pub isps: Vec<Vec<u32>>,
    pub vpn: Vec<u32>,
    pub accounts: Vec<Account>,
    /// Public holidays, local day numbers, per region.
    pub holidays: Vec<Vec<i32>>,
    /// The season's league: four accounts a group, group `i` named by
    /// [`league_name`].
    pub league: Vec<[u32; 4]>,
}

fn weighted<T: Copy>(rng: &mut ChaCha8Rng, items: &[(T, u32)]) -> T {
    let total: u32 = items.iter().map(|x| x.1).sum();
    let mut r = rng.gen_range(0..total);
    for &(x, w) in items {
        if r < w {
            return x;
        }
        r -= w;
    }
    items[items.len() - 1].0
}

impl World {
    /// The world of `cfg`; an error in one sentence when it needs more
    /// address blocks than there are.
    pub(crate) fn build(cfg: &WorldConfig, rng: &mut ChaCha8Rng) -> Result<World, String> {
        let mut prefixes = Prefixes::default();

        // Multi-account owners first: how many accounts each, which style.
        let (sizes, styles, used) = draw_owners(cfg, rng);
        let honest = cfg.accounts - used;
        let n_persons = honest + cfg.cliques;

        // Households: 1-3 people in one time zone behind one home IP.
        let h = &cfg.habits;
        let (mut households, region_of, household_of) = draw_households(h, n_persons, rng);
        let mut per_region = vec![0usize; REGIONS.len()];
        for &r in &region_of {
            per_region[r] += 1;
        }

        // Home ISPs, dynamic addresses that change every few days to weeks.
        let isps = draw_home_isps(
            cfg,
            &per_region,
            &mut households,
            &region_of,
            &mut prefixes,
            rng,
        );

        // People.
        let mut persons = draw_people(h, n_persons, &region_of, &household_of, &households, rng);
        // The multi-account owners are the last `cliques` people (their
        // households were drawn at random above).
        make_owners(h, &mut persons, honest, &sizes, &styles, rng);

        // Workplaces and universities, per region; couples at one office,
        // colleagues at lunch and students on campus where the habits say.
        let mut sites = draw_sites(h, &mut persons, &mut prefixes, rng);
        couples_at_one_office(h, &mut persons, &mut sites, rng);
        draw_lunches(h, &mut persons, &mut sites, rng);
        draw_dorms(h, &persons, &sites, &mut households, rng);

        // Phones: mobile carriers per region behind carrier-grade NAT. A
        // household often shares one carrier.
        let carriers = draw_carriers(
            cfg,
            &per_region,
            &households,
            &region_of,
            &mut persons,
            &mut prefixes,
            rng,
        );
        let vpn = draw_vpn(cfg, &mut prefixes, rng);
        stay_home(&mut persons);

        // Absences: household holidays and a few days away alone, at a steady
        // rate per day whatever the world's length.
        let days = cfg.days as i32;
        draw_absences(days, &households, &mut persons, &mut prefixes, rng);
        let holidays = draw_holidays(days, rng);

        // Accounts: one per honest person, several per owner.
        let mut accounts = draw_accounts(cfg, &mut persons, rng);

        let owner: Vec<bool> = accounts
            .iter()
            .map(|a| persons[a.person as usize].style.is_some())
            .collect();
        let league = draw_league(rng, &mut accounts, &owner);
        if prefixes.exhausted {
            return Err(format!(
                "a world of {} accounts over {} days needs more than the {} address blocks \
                 (/16) there are: each internet provider, workplace, carrier and place away \
                 has its own; make fewer accounts or fewer days",
                cfg.accounts,
                cfg.days,
                addresses::PREFIXES
            ));
        }

        Ok(World {
            cfg: cfg.clone(),
            persons,
            households,
            sites,
            carriers,
            isps,
            vpn,
            accounts,
            holidays,
            league,
        })
    }

    /// The ground truth of this world.
    pub(crate) fn truth(&self) -> Truth {
        let names = |members: &[u32]| -> Vec<String> {
            members
                .iter()
                .flat_map(|&m| self.persons[m as usize].accounts())
                .map(|a| self.accounts[a as usize].name.clone())
                .collect()
        };
        let people: Vec<TruthPerson> = self
            .persons
            .iter()
            .enumerate()
            .map(|(i, p)| TruthPerson {
                person: format!("p{i}"),
                accounts: names(&[i as u32]),
                utc_offset_minutes: (p.tz / 60) as i32,
            })
            .collect();
        let groups = self
            .persons
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                Some(Group {
                    person: format!("p{i}"),
                    accounts: names(&[i as u32]),
                    style: p.style?,
                })
            })
            .collect();
        let mut lookalikes = Vec::new();
        for h in self.households.iter().filter(|h| h.members.len() > 1) {
            lookalikes.push(Lookalike {
                kind: if h.shared_computer {
                    LookalikeKind::FamilySharedComputer
                } else {
                    LookalikeKind::Household
                },
                accounts: names(&h.members),
            });
        }
        for s in self.sites.iter().filter(|s| s.members.len() > 1) {
            lookalikes.push(Lookalike {
                kind: match s.kind {
                    SiteKind::Office => LookalikeKind::Office,
                    SiteKind::University => LookalikeKind::University,
                },
                accounts: names(&s.members),
            });
        }
        for c in self.carriers.iter().filter(|c| c.members.len() > 1) {
            lookalikes.push(Lookalike {
                kind: LookalikeKind::CarrierNat,
                accounts: names(&c.members),
            });
        }
        Truth {
            seed: self.cfg.seed,
            season: self.cfg.season,
            start: self.cfg.start,
            days: self.cfg.days,
            family: (!self.cfg.family.is_default()).then_some(self.cfg.family),
            people,
            groups,
            lookalikes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::truth::Style;
    use rand::SeedableRng;
    use std::collections::HashSet;

    #[test]
    fn a_world_needing_more_address_blocks_than_there_are_is_refused() {
        // Each home provider, workplace, carrier and place away takes a /16
        // of its own: 150,000 accounts need more than the 55,296 there are
        // (a world this size used to search for a free one forever).
        let cfg = WorldConfig {
            accounts: 150_000,
            cliques: 1_000,
            ..WorldConfig::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let e = World::build(&cfg, &mut rng).err().expect("refused");
        assert!(
            e.contains(
                "a world of 150000 accounts over 28 days needs more than the 55296 address blocks"
            ),
            "{e}"
        );
    }

    #[test]
    fn worlds_have_the_drawn_shape() {
        let cfg = WorldConfig::default();
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let w = World::build(&cfg, &mut rng).unwrap();
        assert_eq!(w.accounts.len(), cfg.accounts);
        let owners: Vec<&Person> = w.persons.iter().filter(|p| p.style.is_some()).collect();
        assert_eq!(owners.len(), cfg.cliques);
        assert!(owners.iter().all(|p| (2..=8).contains(&p.n_accounts)));
        // Every style appears, every owner account is in the league.
        for s in Style::ALL {
            assert!(owners.iter().any(|p| p.style == Some(s)));
        }
        let in_league: HashSet<u32> = w.league.iter().flatten().copied().collect();
        for p in &owners {
            assert!(p.accounts().all(|a| in_league.contains(&a)));
        }
        // Most owners' accounts sit in different league groups.
        let shared = w
            .league
            .iter()
            .filter(|g| {
                let persons: HashSet<u32> =
                    g.iter().map(|&a| w.accounts[a as usize].person).collect();
                persons.len() < 4
            })
            .count();
        assert!(
            shared <= cfg.cliques / 2,
            "{shared} groups hold two accounts of one owner"
        );
        let truth = w.truth();
        assert_eq!(truth.groups.len(), cfg.cliques);
        assert!(truth
            .lookalikes
            .iter()
            .any(|l| l.kind == LookalikeKind::Household));
        assert!(truth
            .lookalikes
            .iter()
            .any(|l| l.kind == LookalikeKind::CarrierNat));
    }
}
