//! Workplaces and universities: who works or studies where, and the
//! addresses the site's members share.

use super::addresses::{host, Prefixes};
use super::records::{Job, Person, Site, SiteKind};
use super::{weighted, Habits, REGIONS};
use crate::draw::index;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Draws the offices and universities of every region and assigns the
/// workers and students to them.
pub(super) fn draw_sites(
    h: &Habits,
    persons: &mut [Person],
    prefixes: &mut Prefixes,
    rng: &mut ChaCha8Rng,
) -> Vec<Site> {
    let n_persons = persons.len();
    let mut sites: Vec<Site> = Vec::new();
    for region in 0..REGIONS.len() {
        for kind in [SiteKind::Office, SiteKind::University] {
            let job = if kind == SiteKind::Office {
                Job::Worker
            } else {
                Job::Student
            };
            let mut people: Vec<u32> = (0..n_persons as u32)
                .filter(|&p| persons[p as usize].region == region && persons[p as usize].job == job)
                .collect();
            people.shuffle(rng);
            let mut i = 0;
            while i < people.len() {
                let size = match kind {
                    SiteKind::Office => {
                        let w = h.office_sizes;
                        weighted(
                            rng,
                            &[(1usize, w[0]), (2, w[1]), (3, w[2]), (4, w[3]), (6, w[4])],
                        )
                    }
                    SiteKind::University => {
                        let (lo, hi) = h.campus_students;
                        lo as usize + index(rng, (hi - lo) as usize)
                    }
                }
                .min(people.len() - i);
                let prefix = prefixes.draw(rng);
                let first = host(rng, prefix) & !3 | 1;
                let n_ips = if kind == SiteKind::University {
                    rng.gen_range(h.campus_addresses.0..h.campus_addresses.1)
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
                    lunch: None,
                });
                i += size;
            }
        }
    }
    sites
}

/// Two workers of one household at one office, both playing from it
/// ([`Habits::couples_at_one_office`]): the second joins the first's office.
pub(super) fn couples_at_one_office(
    h: &Habits,
    persons: &mut [Person],
    sites: &mut [Site],
    rng: &mut ChaCha8Rng,
) {
    if h.couples_at_one_office == 0.0 {
        return;
    }
    let mut first_worker: std::collections::HashMap<u32, u32> = Default::default();
    for p in 0..persons.len() as u32 {
        let person = &persons[p as usize];
        let Some(site) = person.site.filter(|_| person.job == Job::Worker) else {
            continue;
        };
        let Some(&mate) = first_worker.get(&person.household) else {
            first_worker.insert(person.household, p);
            continue;
        };
        let their = persons[mate as usize].site.expect("a worker has an office");
        if their == site || !rng.gen_bool(h.couples_at_one_office) {
            continue;
        }
        sites[site as usize].members.retain(|&m| m != p);
        sites[their as usize].members.push(p);
        persons[p as usize].site = Some(their);
        persons[p as usize].plays_at_work = true;
        persons[mate as usize].plays_at_work = true;
    }
}

/// Offices of two or more whose colleagues play at lunch in one fixed
/// order ([`Habits::lunch_offices`]); they all play from the office.
pub(super) fn draw_lunches(
    h: &Habits,
    persons: &mut [Person],
    sites: &mut [Site],
    rng: &mut ChaCha8Rng,
) {
    if h.lunch_offices == 0.0 {
        return;
    }
    for s in sites.iter_mut() {
        if s.kind != SiteKind::Office || s.members.len() < 2 || !rng.gen_bool(h.lunch_offices) {
            continue;
        }
        let mut order = s.members.clone();
        order.shuffle(rng);
        for &m in &order {
            let p = &mut persons[m as usize];
            p.plays_at_work = true;
            p.checkins = p.checkins.min(h.lunch_other_checkins);
        }
        s.lunch = Some(order);
    }
}
