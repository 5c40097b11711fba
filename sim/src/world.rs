//! The world: its configuration, people with their homes, workplaces, phones
//! and accounts, the IP addresses they use, and the season's league.

use crate::draw::{index, pick, poisson};
use crate::names::Handles;
use crate::truth::{Group, Lookalike, LookalikeKind, Person as TruthPerson, Style, Truth};
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// 2026-01-05 00:00:00 UTC, a Monday.
pub const DEFAULT_START: i64 = 1_767_571_200;

/// About how many moves one account makes per simulated day, averaged over
/// the world: a world writes about `players x days x MOVES_PER_PLAYER_DAY`
/// moves (within some 15 %), see [`WorldConfig::expected_moves`].
pub const MOVES_PER_PLAYER_DAY: f64 = 12.0;

/// What world to simulate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorldConfig {
    /// Same seed and config, same bytes.
    pub seed: u64,
    /// Accounts on the site, multi-accounts included (at least 20).
    pub players: usize,
    /// Days simulated from `start`.
    pub days: u32,
    /// People who play several accounts (2 to 8 each); their accounts may
    /// make up at most a third of `players`.
    pub cliques: usize,
    /// The season of the league games (`4pLeague_S{season}_...`).
    pub season: u32,
    /// Epoch second of day 0, a UTC midnight.
    pub start: i64,
    /// Crowded carrier NAT: about this many of the site's phone players
    /// share each carrier address (`None`: about three, with one busier
    /// gateway per 80 phones). Carrier-grade NAT puts tens to hundreds of
    /// subscribers behind one public address: port blocks of 512 to 1,024
    /// ports give 64 to 128 subscribers per address (RFC 6888 and RFC 7422
    /// on port-block allocation), and Richter et al., "A Multi-perspective
    /// Analysis of Carrier-Grade NAT Deployment" (IMC 2016) found CGN in
    /// most cellular networks. How many of those subscribers play one site
    /// depends on the site's reach; 25 is the crowded world of
    /// EVALUATION.md, a popular site.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nat_crowd: Option<u32>,
}

impl Default for WorldConfig {
    fn default() -> Self {
        WorldConfig {
            seed: 1,
            players: 300,
            days: 28,
            cliques: 12,
            season: 1,
            start: DEFAULT_START,
            nat_crowd: None,
        }
    }
}

impl WorldConfig {
    /// The approximate number of moves the world writes:
    /// `players x days x MOVES_PER_PLAYER_DAY`. 300 players over 28 days
    /// make about 100k moves, 1,200 over 28 about 400k, 20,000 over 42
    /// about 10M.
    pub fn expected_moves(&self) -> u64 {
        (self.players as f64 * self.days as f64 * MOVES_PER_PLAYER_DAY).round() as u64
    }

    /// A world of about `moves` moves over `days` days, with one
    /// multi-account owner per 25 accounts.
    pub fn for_moves(seed: u64, moves: u64, days: u32) -> WorldConfig {
        let players =
            ((moves as f64 / (days.max(1) as f64 * MOVES_PER_PLAYER_DAY)).round() as usize).max(20);
        WorldConfig {
            seed,
            players,
            days,
            cliques: (players / 25).max(1),
            ..WorldConfig::default()
        }
    }

    /// Checks the config; the error is one sentence.
    pub fn validate(&self) -> Result<(), String> {
        if self.players < 20 {
            return Err(format!(
                "a world needs at least 20 players, not {}",
                self.players
            ));
        }
        if self.players > 10_000_000 {
            return Err(format!(
                "{} players is more than the simulator supports (10M)",
                self.players
            ));
        }
        if self.days == 0 || self.days > 3660 {
            return Err(format!(
                "days must be between 1 and 3660, not {}",
                self.days
            ));
        }
        if self.cliques * 2 > self.players / 3 {
            return Err(format!(
                "{} multi-account owners need at least {} players (their accounts may be at most a third)",
                self.cliques,
                self.cliques * 6
            ));
        }
        if self.nat_crowd == Some(0) {
            return Err("nat_crowd must be at least 1".into());
        }
        if self.start.rem_euclid(86_400) != 0 {
            return Err(format!("start {} is not a UTC midnight", self.start));
        }
        if !(0..253_402_300_800 - (self.days as i64 + 2) * 86_400).contains(&self.start) {
            return Err(format!(
                "start {} lies outside the years 1970-9999",
                self.start
            ));
        }
        Ok(())
    }
}

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Job {
    /// Office hours on weekdays.
    Worker,
    /// Lectures on weekdays, on a university network.
    Student,
    /// At home or flexible.
    Free,
}

/// A stretch of days away from home: `from..to` local days, with the IP of
/// the hotel or the friends' place.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Absence {
    pub from: i32,
    pub to: i32,
    pub ip: u32,
}

pub(crate) struct Person {
    /// Seconds east of UTC.
    pub tz: i64,
    pub region: usize,
    pub household: u32,
    /// Office or university (a site of one is a private work IP).
    pub site: Option<u32>,
    pub job: Job,
    pub carrier: Option<u32>,
    /// Local hours of waking and going to bed (bed may pass 24).
    pub wake: f64,
    pub bed: f64,
    /// Mean check-ins a day.
    pub checkins: f64,
    /// How keen a player (0-1): more check-ins, more games at once.
    pub keen: f64,
    /// Share of home check-ins made from the phone.
    pub phone_share: f64,
    /// Share of home check-ins made through a VPN.
    pub vpn_share: f64,
    pub plays_at_work: bool,
    pub absences: Vec<Absence>,
    pub first_account: u32,
    pub n_accounts: u32,
    pub style: Option<Style>,
    /// For rare puppets: the chance a puppet joins a check-in.
    pub rare: f64,
    /// For cautious owners: the chance a puppet's check-in goes through a
    /// VPN (1: always, so the accounts never share an IP).
    pub puppet_vpn: f64,
    /// The person can do one thing at a time: the end of their last move.
    pub busy: i64,
}

impl Person {
    pub(crate) fn accounts(&self) -> std::ops::Range<u32> {
        self.first_account..self.first_account + self.n_accounts
    }

    pub(crate) fn absence(&self, local_day: i32) -> Option<&Absence> {
        self.absences
            .iter()
            .find(|a| (a.from..a.to).contains(&local_day))
    }
}

pub(crate) struct Household {
    pub ip: u32,
    pub isp: u32,
    /// When the dynamic IP changes next (`i64::MAX`: a static IP).
    pub next_change: i64,
    pub shared_computer: bool,
    /// For couples: the chance the other joins an evening home session.
    pub together: f64,
    pub members: Vec<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SiteKind {
    Office,
    University,
}

pub(crate) struct Site {
    pub kind: SiteKind,
    pub ips: Vec<u32>,
    pub members: Vec<u32>,
}

pub(crate) struct Carrier {
    /// Addresses phones get most days.
    pub pool: Vec<u32>,
    /// A few gateway addresses that many phones share.
    pub hot: Vec<u32>,
    pub members: Vec<u32>,
}

pub(crate) struct Account {
    pub name: String,
    pub person: u32,
    pub league: bool,
    pub casual_target: u8,
    pub casual_now: u8,
    /// The account is logged in (answers moves) until this time.
    pub active_until: i64,
    /// The IP of its current session.
    pub ip: u32,
    /// Games waiting on this account's move.
    pub waiting: Vec<u32>,
}

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

/// Draws public-looking /16 prefixes, each once.
struct Prefixes(HashSet<u32>);

impl Prefixes {
    fn draw(&mut self, rng: &mut ChaCha8Rng) -> u32 {
        loop {
            let a: u32 = rng.gen_range(1..224);
            if matches!(a, 10 | 100 | 127 | 169 | 172 | 192 | 198) {
                continue;
            }
            let p = (a << 24) | (rng.gen_range(0..256u32) << 16);
            if self.0.insert(p) {
                return p;
            }
        }
    }
}

/// A host in the /16 `prefix` (last byte 1-254).
pub(crate) fn host(rng: &mut ChaCha8Rng, prefix: u32) -> u32 {
    prefix | (rng.gen_range(0..256u32) << 8) | rng.gen_range(1..255u32)
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

/// The league game name of group `group`, game `k`:
/// `4pLeague_S{season}_D{division}L{n}G{k}`. Division 1 has one league,
/// division `d` has `2^(d-1)`.
pub(crate) fn league_name(season: u32, group: usize, k: u32, out: &mut String) {
    use std::fmt::Write;
    let g = group as u64 + 1;
    let division = 64 - g.leading_zeros();
    let n = g - (1 << (division - 1)) + 1;
    out.clear();
    write!(out, "4pLeague_S{season}_D{division}L{n}G{k}").expect("string");
}

impl World {
    pub(crate) fn build(cfg: &WorldConfig, rng: &mut ChaCha8Rng) -> World {
        let mut prefixes = Prefixes(HashSet::new());

        // Multi-account owners first: how many accounts each, which style.
        let cap = cfg.players / 3;
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
        let mut styles: Vec<Style> = (0..cfg.cliques).map(|i| Style::ALL[i % 4]).collect();
        styles.shuffle(rng);
        let honest = cfg.players - used;
        let n_persons = honest + cfg.cliques;

        // Households: 1-3 people in one time zone behind one home IP.
        let mut order: Vec<u32> = (0..n_persons as u32).collect();
        order.shuffle(rng);
        let mut region_of = vec![0usize; n_persons];
        let mut household_of = vec![0u32; n_persons];
        let mut households: Vec<Household> = Vec::new();
        let mut i = 0;
        while i < n_persons {
            let size = weighted(rng, &[(1usize, 58), (2, 30), (3, 12)]).min(n_persons - i);
            let region = weighted(
                rng,
                &REGIONS
                    .iter()
                    .enumerate()
                    .map(|(r, &(_, w))| (r, w))
                    .collect::<Vec<_>>(),
            );
            let members: Vec<u32> = order[i..i + size].to_vec();
            let shared_computer = size > 1 && rng.gen_bool(0.3);
            for &m in &members {
                region_of[m as usize] = region;
                household_of[m as usize] = households.len() as u32;
            }
            households.push(Household {
                ip: 0,
                isp: 0,
                next_change: 0,
                shared_computer,
                // Couples: some play side by side in the evening, a few
                // (retired, no phones) nearly always.
                together: match rng.gen_range(0..20) {
                    _ if size == 1 || shared_computer => 0.0,
                    0..=1 => rng.gen_range(0.9..1.0),
                    2..=9 => rng.gen_range(0.3..0.85),
                    _ => 0.0,
                },
                members,
            });
            i += size;
        }
        let mut per_region = vec![0usize; REGIONS.len()];
        for &r in &region_of {
            per_region[r] += 1;
        }

        // Home ISPs, dynamic addresses that change every few days to weeks.
        let isps: Vec<Vec<u32>> = per_region
            .iter()
            .map(|&n| {
                (0..(2 + n / 400).min(40))
                    .map(|_| prefixes.draw(rng))
                    .collect()
            })
            .collect();
        let start = cfg.start;
        for h in &mut households {
            let r = region_of[h.members[0] as usize];
            h.isp = rng.gen_range(0..isps[r].len() as u32);
            h.ip = host(rng, isps[r][h.isp as usize]);
            h.next_change = if rng.gen_bool(0.15) {
                i64::MAX
            } else {
                start - 2 * 86_400 + rng.gen_range(86_400..21 * 86_400)
            };
        }

        // People.
        let mut persons: Vec<Person> = (0..n_persons)
            .map(|p| {
                let region = region_of[p];
                let inseparable = households[household_of[p] as usize].together >= 0.9;
                let job = if inseparable {
                    Job::Free
                } else {
                    weighted(
                        rng,
                        &[(Job::Worker, 55), (Job::Student, 15), (Job::Free, 30)],
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
                    checkins: 3.0 + 10.0 * u * u,
                    keen: u * u,
                    phone_share: phone_share(rng, inseparable),
                    vpn_share: if rng.gen_bool(0.05) {
                        rng.gen_range(0.1..0.4)
                    } else {
                        0.0
                    },
                    plays_at_work: job == Job::Worker && rng.gen_bool(0.4),
                    absences: Vec::new(),
                    first_account: 0,
                    n_accounts: 1,
                    style: None,
                    rare: 0.0,
                    puppet_vpn: 0.0,
                    busy: i64::MIN,
                }
            })
            .collect();
        // The multi-account owners are the last `cliques` people (their
        // households were drawn at random above).
        for (k, (&n, &style)) in sizes.iter().zip(&styles).enumerate() {
            let p = &mut persons[honest + k];
            p.n_accounts = n as u32;
            p.style = Some(style);
            p.rare = rng.gen_range(0.12..0.3);
            p.puppet_vpn = if rng.gen_bool(0.3) { 1.0 } else { 0.15 };
            if style == Style::Phone {
                p.phone_share = rng.gen_range(0.3..0.5);
            }
        }

        // Workplaces and universities, per region.
        let mut sites: Vec<Site> = Vec::new();
        for region in 0..REGIONS.len() {
            for kind in [SiteKind::Office, SiteKind::University] {
                let job = if kind == SiteKind::Office {
                    Job::Worker
                } else {
                    Job::Student
                };
                let mut people: Vec<u32> = (0..n_persons as u32)
                    .filter(|&p| {
                        persons[p as usize].region == region && persons[p as usize].job == job
                    })
                    .collect();
                people.shuffle(rng);
                let mut i = 0;
                while i < people.len() {
                    let size = match kind {
                        SiteKind::Office => {
                            weighted(rng, &[(1usize, 60), (2, 20), (3, 10), (4, 5), (6, 5)])
                        }
                        SiteKind::University => 4 + index(rng, 22),
                    }
                    .min(people.len() - i);
                    let prefix = prefixes.draw(rng);
                    let first = host(rng, prefix) & !3 | 1;
                    let n_ips = if kind == SiteKind::University {
                        rng.gen_range(2..5)
                    } else {
                        1
                    };
                    let members = people[i..i + size].to_vec();
                    for &m in &members {
                        persons[m as usize].site = Some(sites.len() as u32);
                    }
                    sites.push(Site {
                        kind,
                        ips: (0..n_ips).map(|k| first + k).collect(),
                        members,
                    });
                    i += size;
                }
            }
        }

        // Phones: mobile carriers per region behind carrier-grade NAT. A
        // household often shares one carrier.
        let mut carriers: Vec<Carrier> = Vec::new();
        let mut region_carriers: Vec<Vec<u32>> = Vec::new();
        for &n in &per_region {
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
        for h in &households {
            let region = region_of[h.members[0] as usize];
            let rc = &region_carriers[region];
            let family = pick(rng, rc);
            for &m in &h.members {
                let p = &mut persons[m as usize];
                let has_phone =
                    p.style == Some(Style::Phone) || p.phone_share > 0.0 || rng.gen_bool(0.3);
                if !has_phone {
                    continue;
                }
                if p.phone_share == 0.0 {
                    p.phone_share = 0.03;
                }
                let c = if rng.gen_bool(0.7) {
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
        let vpn_prefix = prefixes.draw(rng);
        let vpn: Vec<u32> = (0..(cfg.players / 250).max(3))
            .map(|_| host(rng, vpn_prefix))
            .collect();

        // Absences: household holidays and a few days away alone, at a steady
        // rate per day whatever the world's length.
        let days = cfg.days as i32;
        for h in &households {
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
        for p in &mut persons {
            for _ in 0..poisson(rng, 0.15 * (days + 4) as f64 / 30.0) {
                let from = rng.gen_range(-4..days);
                let to = from + rng.gen_range(1..4);
                let prefix = prefixes.draw(rng);
                let ip = host(rng, prefix);
                p.absences.push(Absence { from, to, ip });
            }
        }
        let holidays: Vec<Vec<i32>> = REGIONS
            .iter()
            .map(|_| {
                (0..1 + days / 30)
                    .map(|_| rng.gen_range(0..days.max(1)))
                    .collect()
            })
            .collect();

        // Accounts: one per honest person, several per owner.
        let mut handles = Handles::new();
        let mut accounts: Vec<Account> = Vec::with_capacity(cfg.players);
        for (pi, p) in persons.iter_mut().enumerate() {
            p.first_account = accounts.len() as u32;
            for k in 0..p.n_accounts {
                let name = if k > 0 && rng.gen_bool(0.25) {
                    let main = accounts[p.first_account as usize].name.clone();
                    handles.derived(rng, &main)
                } else {
                    handles.fresh(rng)
                };
                let multi = p.style.is_some();
                let league = multi || rng.gen_bool(0.8);
                let casual_target = if multi && k > 0 {
                    rng.gen_range(0..3)
                } else if league && rng.gen_bool(0.1) {
                    0
                } else {
                    (3.0 + (0.6 * p.keen
                        + 0.4 * {
                            let u: f64 = rng.gen();
                            u * u
                        })
                        * 30.0) as u8
                };
                accounts.push(Account {
                    name,
                    person: pi as u32,
                    league,
                    casual_target,
                    casual_now: 0,
                    active_until: i64::MIN,
                    ip: 0,
                    waiting: Vec::new(),
                });
            }
        }

        let owner: Vec<bool> = accounts
            .iter()
            .map(|a| persons[a.person as usize].style.is_some())
            .collect();
        let league = draw_league(rng, &mut accounts, &owner);

        World {
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
        }
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
            people,
            groups,
            lookalikes,
        }
    }
}

/// Groups the league accounts four by four (a multiple of four: the last
/// few honest accounts are left out), and mostly keeps one owner's accounts
/// in different groups.
///
/// `owner[a]` tells whether account `a`'s person owns several accounts.
fn draw_league(rng: &mut ChaCha8Rng, accounts: &mut [Account], owner: &[bool]) -> Vec<[u32; 4]> {
    let mut ids: Vec<u32> = (0..accounts.len() as u32)
        .filter(|&a| accounts[a as usize].league)
        .collect();
    ids.shuffle(rng);
    let owners: Vec<bool> = ids.iter().map(|&a| owner[a as usize]).collect();
    let mut keep = Vec::with_capacity(ids.len());
    let mut drop = ids.len() % 4;
    for (i, &a) in ids.iter().enumerate().rev() {
        if drop > 0 && !owners[i] {
            drop -= 1;
            accounts[a as usize].league = false;
            accounts[a as usize].casual_target = accounts[a as usize].casual_target.max(2);
        } else {
            keep.push(a);
        }
    }
    keep.reverse();
    let mut groups: Vec<[u32; 4]> = keep
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect();
    if groups.len() < 2 {
        return groups;
    }
    // Move an owner's second account out of a shared group, most of the time.
    for g in 0..groups.len() {
        for slot in 1..4 {
            let a = groups[g][slot];
            let person = accounts[a as usize].person;
            let clash = groups[g][..slot]
                .iter()
                .any(|&b| accounts[b as usize].person == person);
            if !clash || rng.gen_bool(0.15) {
                continue;
            }
            for _ in 0..50 {
                let h = index(rng, groups.len());
                let s = index(rng, 4);
                let b = groups[h][s];
                let other = accounts[b as usize].person;
                let ok = h != g
                    && !groups[h]
                        .iter()
                        .any(|&x| accounts[x as usize].person == person)
                    && !groups[g]
                        .iter()
                        .any(|&x| accounts[x as usize].person == other);
                if ok {
                    groups[g][slot] = b;
                    groups[h][s] = a;
                    break;
                }
            }
        }
    }
    groups
}

/// The share of a person's home check-ins made from the phone. About one
/// person in seven plays from the phone only (their home sessions all go
/// through carrier NAT): the Pew Research Center's Mobile Fact Sheet (2021)
/// counts 15 % of U.S. adults as smartphone-only internet users. Of the
/// rest, 60 % sometimes play from the phone. Members of a couple who always
/// play together at home do not.
fn phone_share(rng: &mut impl Rng, inseparable: bool) -> f64 {
    if inseparable {
        0.0
    } else if rng.gen_bool(0.15) {
        rng.gen_range(0.9..=1.0)
    } else if rng.gen_bool(0.6) {
        rng.gen_range(0.05..0.4)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn league_names_count_divisions_by_doubling() {
        let mut s = String::new();
        let names: Vec<String> = (0..8)
            .map(|g| {
                league_name(3, g, 2, &mut s);
                s.clone()
            })
            .collect();
        assert_eq!(
            names,
            [
                "4pLeague_S3_D1L1G2",
                "4pLeague_S3_D2L1G2",
                "4pLeague_S3_D2L2G2",
                "4pLeague_S3_D3L1G2",
                "4pLeague_S3_D3L2G2",
                "4pLeague_S3_D3L3G2",
                "4pLeague_S3_D3L4G2",
                "4pLeague_S3_D4L1G2",
            ]
        );
    }

    #[test]
    fn configs_are_checked() {
        assert!(WorldConfig::default().validate().is_ok());
        let bad = [
            WorldConfig {
                players: 5,
                ..Default::default()
            },
            WorldConfig {
                days: 0,
                ..Default::default()
            },
            WorldConfig {
                cliques: 60,
                ..Default::default()
            },
            WorldConfig {
                start: DEFAULT_START + 5,
                ..Default::default()
            },
        ];
        for c in bad {
            assert!(c.validate().is_err(), "{c:?}");
        }
        let big = WorldConfig::for_moves(1, 10_000_000, 42);
        assert!(big.validate().is_ok());
        assert!((19_000..21_000).contains(&big.players), "{}", big.players);
        assert!(big.expected_moves().abs_diff(10_000_000) < 100_000);
    }

    #[test]
    fn worlds_have_the_drawn_shape() {
        let cfg = WorldConfig::default();
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let w = World::build(&cfg, &mut rng);
        assert_eq!(w.accounts.len(), cfg.players);
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
