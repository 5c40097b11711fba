//! Workplaces and universities: who works or studies where, and the
//! addresses the site's members share.

use super::network::{host, Prefixes};
use super::people::{Job, Person};
use super::{weighted, REGIONS};
use crate::draw::index;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

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

/// Draws the offices and universities of every region and assigns the
/// workers and students to them.
pub(super) fn draw_sites(
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
    sites
}
