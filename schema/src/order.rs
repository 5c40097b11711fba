//! The report order of a scan's directed pairs: similarity descending,
//! then `account_a`, then `account_b`, as a plain stable sort gives it.
//! Scans sort their pairs so, and so does the store when it reads one.

use crate::PairScore;
use rayon::iter::{IndexedParallelIterator, IntoParallelRefIterator, ParallelIterator};
use rayon::slice::ParallelSliceMut;
use rustc_hash::FxHashMap;

/// The report order: similarity descending, then account_a, then account_b.
/// Sorted on every core: a scan's directed pairs are distinct, so the order
/// is one and the same as a stable sort's. What is sorted is a small key
/// a pair (its similarity as an integer in that order, its two accounts as
/// [`account_keys`] and its place), no name read during the sort; each
/// pair is then moved once, to its place, rather than at every step of the
/// sort.
pub fn sort_pairs(pairs: &mut [PairScore]) {
    let accounts = account_keys(pairs);
    let mut keys: Vec<(u64, u64, u32)> = pairs
        .par_iter()
        .zip(accounts)
        .enumerate()
        .map(|(i, (p, a))| (!ascending_bits(p.similarity), a, i as u32))
        .collect();
    keys.par_sort_unstable();
    let order: Vec<u32> = keys.into_iter().map(|(.., i)| i).collect();
    permute(pairs, order);
}

/// Each pair's two accounts as one number that sorts as (account_a,
/// account_b) do: their ranks among the names the pairs hold, in byte
/// order, account_a's in the high half. The number of `(b, a)` is that of
/// `(a, b)` with its halves swapped (`rotate_left(32)`).
pub fn account_keys(pairs: &[PairScore]) -> Vec<u64> {
    let mut rank: FxHashMap<&str, u32> = FxHashMap::default();
    for p in pairs {
        for name in [&p.account_a, &p.account_b] {
            let next = rank.len() as u32;
            rank.entry(name.as_str()).or_insert(next);
        }
    }
    let mut names: Vec<&str> = rank.keys().copied().collect();
    names.par_sort_unstable();
    for (r, name) in names.into_iter().enumerate() {
        rank.insert(name, r as u32);
    }
    pairs
        .par_iter()
        .map(|p| {
            u64::from(rank[p.account_a.as_str()]) << 32 | u64::from(rank[p.account_b.as_str()])
        })
        .collect()
}

/// The places of `pairs` in the order of (account_a, account_b), each
/// beside its [`account_keys`] number.
pub fn by_accounts(pairs: &[PairScore]) -> Vec<(u64, u32)> {
    let mut keyed: Vec<(u64, u32)> = account_keys(pairs)
        .into_iter()
        .enumerate()
        .map(|(i, k)| (k, i as u32))
        .collect();
    keyed.par_sort_unstable();
    keyed
}

/// `x`'s bits as an integer in the order of [`f64::total_cmp`].
fn ascending_bits(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// Puts `v[order[k]]` at `k` for every `k`, each element moved along its
/// cycle of the permutation once.
fn permute<T>(v: &mut [T], mut order: Vec<u32>) {
    for start in 0..v.len() {
        let mut k = start;
        while order[k] as usize != k {
            let from = order[k] as usize;
            order[k] = k as u32;
            if from == start {
                break;
            }
            v.swap(k, from);
            k = from;
        }
    }
}
