//! The season's league: accounts grouped four by four, and the names of
//! league games.

use super::accounts::Account;
use crate::draw::index;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

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

/// Groups the league accounts four by four (a multiple of four: the last
/// few honest accounts are left out), and mostly keeps one owner's accounts
/// in different groups.
///
/// `owner[a]` tells whether account `a`'s person owns several accounts.
pub(super) fn draw_league(
    rng: &mut ChaCha8Rng,
    accounts: &mut [Account],
    owner: &[bool],
) -> Vec<[u32; 4]> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
