//! One person's day: when they check in on a workday or a free day, for how
//! long, from where (home, the office or university, the phone, away), and
//! the office's lunch game.

use super::{Device, Session};
use crate::draw::{exp, pick, poisson, sub_rng};
use crate::world::{Job, Person, World};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Home,
    Work,
    Phone,
}

/// Appends the sessions of person `pi` on local day `local_day` to `out`.
pub(super) fn person_day(
    world: &World,
    pi: u32,
    local_day: i32,
    midnight: i64,
    free_day: bool,
    rng: &mut ChaCha8Rng,
    out: &mut Vec<Session>,
) {
    let p = &world.persons[pi as usize];
    // Today's phone address: usually one of the carrier's many, sometimes a
    // busy gateway shared by many phones; one for a household on one plan.
    let plan = world.households[p.household as usize].phone_plan;
    let phone_ip = p.carrier.map(|c| {
        let c = &world.carriers[c as usize];
        let mut day_rng;
        let rng = if plan {
            day_rng = sub_rng(world.cfg.seed, 2, p.household as u64, local_day);
            &mut day_rng
        } else {
            &mut *rng
        };
        if rng.gen_bool(0.12) {
            pick(rng, &c.hot)
        } else {
            pick(rng, &c.pool)
        }
    });
    let day = Day {
        world,
        p,
        pi,
        midnight,
        phone_ip,
    };
    if let Some(away) = p.absence(local_day) {
        if !p.home_only && rng.gen_bool(0.45) {
            out.push(day.away_checkin(away.ip, rng));
        }
        return;
    }
    if !free_day {
        out.extend(lunch(world, pi, local_day, midnight));
    }
    let job = if free_day { Job::Free } else { p.job };
    let mean = p.checkins * if free_day { 1.2 } else { 1.0 };
    for _ in 0..poisson(rng, mean) {
        let (hour, place) = checkin_hour(p, job, rng);
        if p.home_only && place != Place::Home {
            continue;
        }
        let long = place == Place::Home && (hour >= 18.0 || job == Job::Free) && rng.gen_bool(0.3);
        let Some((ip, device)) = day.address(place, hour, rng) else {
            continue;
        };
        let len = match device {
            Device::Phone => 90 + exp(rng, 300.0) as i64,
            Device::Work => 120 + exp(rng, 420.0) as i64,
            _ if long => rng.gen_range(20 * 60..100 * 60),
            _ => 180 + exp(rng, 600.0) as i64,
        };
        let start = day.at(hour, rng);
        out.push(Session {
            person: pi,
            start,
            end: start + len,
            ip,
            device,
        });
    }
}

/// Person `pi`'s lunch session on workday `local_day`, if their office plays
/// at lunch ([`crate::Habits::lunch_offices`]) and they join today. The
/// office's plan of the day is drawn from its own generator, so every
/// colleague reads the same: the first in the office's order (two
/// neighbours swapped now and then) moves at 12:30 to 12:40, the others
/// the lunch gap after the first, in order; each joins five days in six.
fn lunch(world: &World, pi: u32, local_day: i32, midnight: i64) -> Option<Session> {
    let h = &world.cfg.habits;
    let s = world.persons[pi as usize].site?;
    let site = &world.sites[s as usize];
    let mut order = site.lunch.clone()?;
    let mut rng = sub_rng(world.cfg.seed, 1, s as u64, local_day);
    if rng.gen_bool(h.lunch_swap) {
        let i = rng.gen_range(0..order.len() as u32 - 1) as usize;
        order.swap(i, i + 1);
    }
    let (lo, hi) = (
        h.lunch_gap_minutes.0 as i64 * 60,
        h.lunch_gap_minutes.1 as i64 * 60,
    );
    let mut gaps: Vec<i64> = (0..order.len())
        .map(|k| if k == 0 { 0 } else { rng.gen_range(lo..hi) })
        .collect();
    gaps.sort_unstable();
    let first = midnight + 12 * 3600 + 1800 + rng.gen_range(0..600);
    let mut mine = None;
    for (k, &m) in order.iter().enumerate() {
        let joins = rng.gen_bool(5.0 / 6.0);
        let len = rng.gen_range(10 * 60..30 * 60);
        if m == pi && joins {
            mine = Some((first + gaps[k], len));
        }
    }
    let (start, len) = mine?;
    Some(Session {
        person: pi,
        start,
        end: start + len,
        ip: site.ips[0],
        device: Device::Work,
    })
}

/// One person on one local day.
struct Day<'a> {
    world: &'a World,
    p: &'a Person,
    pi: u32,
    midnight: i64,
    phone_ip: Option<u32>,
}

impl Day<'_> {
    /// The epoch second at `hour`, within a minute.
    fn at(&self, hour: f64, rng: &mut ChaCha8Rng) -> i64 {
        self.midnight + (hour * 3600.0) as i64 + rng.gen_range(0..60)
    }

    /// A short check-in while away from `away_ip`: from the phone, a VPN
    /// exit or the place itself.
    fn away_checkin(&self, away_ip: u32, rng: &mut ChaCha8Rng) -> Session {
        let p = self.p;
        let start = self.at(rng.gen_range(p.wake + 1.0..p.bed - 1.0), rng);
        let len = 120 + exp(rng, 600.0) as i64;
        let r: f64 = rng.gen();
        let (ip, device) = match self.phone_ip {
            Some(ip) if r < 0.5 => (ip, Device::Phone),
            _ if r < 0.65 => (pick(rng, &self.world.vpn), Device::Away),
            _ => (away_ip, Device::Away),
        };
        Session {
            person: self.pi,
            start,
            end: start + len,
            ip,
            device,
        }
    }

    /// The address and device of a check-in at `place` at `hour`, or none
    /// (the family's evening computer, or no phone and no site to play from).
    fn address(&self, place: Place, hour: f64, rng: &mut ChaCha8Rng) -> Option<(u32, Device)> {
        let (world, p) = (self.world, self.p);
        let house = &world.households[p.household as usize];
        Some(match place {
            Place::Home => {
                if let Some(ip) = self.phone_ip.filter(|_| rng.gen_bool(p.phone_share)) {
                    (ip, Device::Phone)
                } else if p.vpn_share > 0.0 && rng.gen_bool(p.vpn_share) {
                    (pick(rng, &world.vpn), Device::Away)
                } else if house.shared_computer && house.members.len() > 1 && hour >= 17.0 {
                    // The evening computer is the family's: see the turns.
                    return None;
                } else {
                    (house.ip, Device::Home)
                }
            }
            Place::Work => {
                let site = p.site.map(|s| &world.sites[s as usize]);
                let on_site = match p.job {
                    Job::Worker => p.plays_at_work,
                    _ => rng.gen_bool(0.7),
                };
                match (site, self.phone_ip) {
                    (Some(s), _) if on_site => (pick(rng, &s.ips), Device::Work),
                    (_, Some(ip)) => (ip, Device::Phone),
                    _ => return None,
                }
            }
            Place::Phone => (self.phone_ip?, Device::Phone),
        })
    }
}

/// When a check-in falls on a day of `job`, and where the person is then.
fn checkin_hour(p: &Person, job: Job, rng: &mut ChaCha8Rng) -> (f64, Place) {
    let r: f64 = rng.gen();
    match job {
        Job::Worker => {
            if r < 0.15 {
                (rng.gen_range(p.wake..p.wake + 0.75), Place::Home)
            } else if r < 0.23 {
                (rng.gen_range((p.wake + 0.75).min(9.25)..9.5), Place::Phone)
            } else if r < 0.53 {
                (rng.gen_range(9.5..17.5), Place::Work)
            } else {
                (rng.gen_range(18.0..p.bed), Place::Home)
            }
        }
        Job::Student => {
            if r < 0.15 {
                (rng.gen_range(p.wake..p.wake + 1.0), Place::Home)
            } else if r < 0.5 {
                (rng.gen_range(10.0..16.0), Place::Work)
            } else {
                (rng.gen_range(16.5..p.bed), Place::Home)
            }
        }
        Job::Free => {
            if r < 0.5 {
                (rng.gen_range(p.wake + 0.5..p.bed), Place::Home)
            } else {
                (rng.gen_range(18.0..p.bed), Place::Home)
            }
        }
    }
}
