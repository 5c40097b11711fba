//! Daily rhythms: when each person checks in on a given local day, for how
//! long, and from which device and IP.
//!
//! A person sleeps, works or studies on weekdays (from the office or the
//! university network, or from the phone), plays more on weekends and
//! holidays, and is sometimes away (no play, or a short check-in from a hotel,
//! a VPN or the phone). A family with one computer takes turns at it in the
//! evening.

mod person;
mod together;

use crate::world::{host, World};
use person::person_day;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use together::{relay, side_by_side, turns};

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
        let w = World::build(&cfg, &mut rng).unwrap();
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
