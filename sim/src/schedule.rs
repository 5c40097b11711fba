//! Daily rhythms: when each person checks in on a given local day, for how
//! long, and from which device and IP.
//!
//! A person sleeps, works or studies on weekdays (from the office or the
//! university network, or from the phone), plays more on weekends and
//! holidays, and is sometimes away (no play, or a short check-in from a hotel,
//! a VPN or the phone). A family with one computer takes turns at it in the
//! evening.

use crate::draw::{exp, pick, poisson, sub_rng};
use crate::world::{host, Job, Person, World};
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// What a session is played on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Device {
    /// The home computer, on the household's IP.
    Home,
    /// The office or university network.
    Work,
    /// A phone behind the carrier's NAT.
    Phone,
    /// A VPN exit, a hotel, a friend's place.
    Away,
}

/// One check-in of one person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Session {
    pub person: u32,
    pub start: i64,
    pub end: i64,
    pub ip: u32,
    pub device: Device,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Home,
    Work,
    Phone,
}

/// The UTC epoch second at which local day `local_day` of a person at
/// offset `tz` begins.
pub(crate) fn local_midnight(start: i64, local_day: i32, tz: i64) -> i64 {
    start + local_day as i64 * 86_400 - tz
}

/// Appends the sessions of household `h` on local day `local_day` to `out`:
/// per person, sorted by start, overlapping sessions merged.
pub(crate) fn household_day(
    world: &World,
    h: u32,
    local_day: i32,
    rng: &mut ChaCha8Rng,
    out: &mut Vec<Session>,
) {
    let house = &world.households[h as usize];
    let first = &world.persons[house.members[0] as usize];
    let midnight = local_midnight(world.cfg.start, local_day, first.tz);
    let epoch_day = world.cfg.start.div_euclid(86_400) + local_day as i64;
    let weekday = (epoch_day + 3).rem_euclid(7); // 0 = Monday
    let free_day = weekday >= 5 || world.holidays[first.region].contains(&local_day);

    let begin = out.len();
    let mut present: Vec<u32> = Vec::with_capacity(house.members.len());
    for &m in &house.members {
        person_day(world, m, local_day, midnight, free_day, rng, out);
        if world.persons[m as usize].absence(local_day).is_none() {
            present.push(m);
        }
    }

    if house.together > 0.0 && present.len() > 1 {
        side_by_side(house.together, midnight, &present, begin, rng, out);
    }
    let habits = &world.cfg.habits;
    if house.shared_computer && present.len() > 1 {
        let fixed = house.fixed_order;
        turns(
            habits,
            house.ip,
            midnight,
            free_day,
            fixed,
            &mut present,
            rng,
            out,
        );
    }
    if house.relay && present.len() > 1 {
        relay(habits, house.ip, midnight, &present, rng, out);
    }
    merge_by_person(out, begin);
}

/// Housemates on their own devices who play one after the other every
/// evening at home, in the order of `present`, each the relay gap after the
/// one before ([`crate::Habits::evening_relay`]).
fn relay(
    h: &crate::Habits,
    ip: u32,
    midnight: i64,
    present: &[u32],
    rng: &mut ChaCha8Rng,
    out: &mut Vec<Session>,
) {
    let (lo, hi) = h.relay_gap_minutes;
    let mut t = midnight + (rng.gen_range(19.0..21.0) * 3600.0) as i64;
    for &m in present {
        let len = rng.gen_range(15 * 60..40 * 60);
        out.push(Session {
            person: m,
            start: t,
            end: t + len,
            ip,
            device: Device::Home,
        });
        t += rng.gen_range(lo as i64 * 60..hi as i64 * 60);
    }
}

/// A couple who often play side by side in the evening, each on their own
/// device at home: the other joins a home session (of those from `begin`).
fn side_by_side(
    together: f64,
    midnight: i64,
    present: &[u32],
    begin: usize,
    rng: &mut ChaCha8Rng,
    out: &mut Vec<Session>,
) {
    for i in begin..out.len() {
        let s = out[i];
        let hour = (s.start - midnight) as f64 / 3600.0;
        if s.device == Device::Home && (hour >= 17.0 || together >= 0.9) && rng.gen_bool(together) {
            let other = pick(rng, present);
            if other != s.person {
                let start = s.start + rng.gen_range(0..300);
                out.push(Session {
                    person: other,
                    start,
                    end: start + (s.end - s.start + rng.gen_range(-300..300)).max(120),
                    ..s
                });
            }
        }
    }
}

/// A family with one computer (on `ip`) takes turns at it in the evening,
/// and on a free day in the afternoon too: in a new order each time, or in
/// the order of `present` when `fixed`.
#[allow(clippy::too_many_arguments)]
fn turns(
    h: &crate::Habits,
    ip: u32,
    midnight: i64,
    free_day: bool,
    fixed: bool,
    present: &mut [u32],
    rng: &mut ChaCha8Rng,
    out: &mut Vec<Session>,
) {
    let (turn_lo, turn_hi) = (h.turn_minutes.0 as i64 * 60, h.turn_minutes.1 as i64 * 60);
    let (gap_lo, gap_hi) = (h.turn_gap_seconds.0 as i64, h.turn_gap_seconds.1 as i64);
    let blocks = if free_day { rng.gen_range(1..3) } else { 1 };
    for b in 0..blocks {
        let hour = if b == 1 {
            rng.gen_range(13.0..17.0)
        } else {
            rng.gen_range(18.5..21.5)
        };
        let mut t = midnight + (hour * 3600.0) as i64;
        if !fixed {
            present.shuffle(rng);
        }
        for &m in present.iter() {
            let len = rng.gen_range(turn_lo..turn_hi);
            out.push(Session {
                person: m,
                start: t,
                end: t + len,
                ip,
                device: Device::Home,
            });
            t += len + rng.gen_range(gap_lo..gap_hi);
        }
    }
}

/// The sessions from `begin` on, per person, by start, overlaps merged.
fn merge_by_person(out: &mut Vec<Session>, begin: usize) {
    let mine = &mut out[begin..];
    mine.sort_by_key(|s| (s.person, s.start));
    let mut w = begin;
    let mut r = begin;
    while r < out.len() {
        let person = out[r].person;
        let n = out[r..].iter().take_while(|s| s.person == person).count();
        let kept = merge(&mut out[r..r + n]);
        out.copy_within(r..r + kept, w);
        w += kept;
        r += n;
    }
    out.truncate(w);
}

/// Merges overlapping sessions of one person (sorted by start) in place,
/// keeping the first one's device; returns how many remain.
fn merge(s: &mut [Session]) -> usize {
    if s.is_empty() {
        return 0;
    }
    let mut w = 0;
    for r in 1..s.len() {
        if s[r].start <= s[w].end + 120 {
            s[w].end = s[w].end.max(s[r].end);
        } else {
            w += 1;
            s[w] = s[r];
        }
    }
    w + 1
}

/// Appends the sessions of person `pi` on local day `local_day` to `out`.
fn person_day(
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

/// A new dynamic home address in the household's ISP.
pub(crate) fn renew_home_ip(world: &mut World, h: usize, now: i64, rng: &mut ChaCha8Rng) {
    let region = world.persons[world.households[h].members[0] as usize].region;
    let prefix = world.isps[region][world.households[h].isp as usize];
    let house = &mut world.households[h];
    house.ip = host(rng, prefix);
    house.next_change = now + rng.gen_range(3 * 86_400..21 * 86_400);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::WorldConfig;
    use rand::SeedableRng;

    #[test]
    fn merging_joins_overlaps_and_keeps_gaps() {
        let s = |start, end| Session {
            person: 0,
            start,
            end,
            ip: start as u32,
            device: Device::Home,
        };
        let mut v = vec![s(0, 100), s(50, 300), s(400, 500), s(2000, 2100)];
        let n = merge(&mut v);
        assert_eq!(&v[..n], &[s(0, 500), s(2000, 2100)]);
    }

    #[test]
    fn people_sleep_and_check_in_several_times() {
        let cfg = WorldConfig::default();
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let w = World::build(&cfg, &mut rng);
        let mut out = Vec::new();
        let mut by_local_hour = [0usize; 24];
        for day in 0..14 {
            for h in 0..w.households.len() as u32 {
                household_day(&w, h, day, &mut rng, &mut out);
            }
        }
        for s in &out {
            let p = &w.persons[s.person as usize];
            let hour = (s.start + p.tz).rem_euclid(86_400) / 3600;
            by_local_hour[hour as usize] += 1;
            assert!(s.end > s.start);
        }
        let per_person_day = out.len() as f64 / (w.persons.len() as f64 * 14.0);
        assert!((2.0..8.0).contains(&per_person_day), "{per_person_day}");
        // Nights (02-05 local) are nearly empty; evenings are busy.
        let night: usize = by_local_hour[2..6].iter().sum();
        let evening: usize = by_local_hour[18..22].iter().sum();
        assert!(night * 20 < evening, "{by_local_hour:?}");
        // All devices are used.
        for d in [Device::Home, Device::Work, Device::Phone, Device::Away] {
            assert!(out.iter().any(|s| s.device == d), "{d:?}");
        }
    }
}
