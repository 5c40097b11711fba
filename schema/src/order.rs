//! The report order of a scan's directed pairs: similarity descending,
//! then `account_a`, then `account_b`, as a plain stable sort gives it.
//! Scans sort their pairs so, and so does the store when it reads one.

use crate::PairScore;
use rayon::iter::{IndexedParallelIterator, IntoParallelRefIterator, ParallelIterator};
use rayon::slice::ParallelSliceMut;

/// The report order: similarity descending, then account_a, then account_b.
/// Sorted on every core: a scan's directed pairs are distinct, so the order
/// is one and the same as a stable sort's. What is sorted is a small key
/// a pair (its similarity as an integer in that order, and its place), the
/// names read only between equal similarities; each pair is then moved
/// once, to its place, rather than at every step of the sort.
pub fn sort_pairs(pairs: &mut [PairScore]) {
    let mut keys: Vec<(u64, u32)> = pairs
        .par_iter()
        .enumerate()
        .map(|(i, p)| (!ascending_bits(p.similarity), i as u32))
        .collect();
    keys.par_sort_unstable_by(|x, y| {
        x.0.cmp(&y.0).then_with(|| {
            let (p, q) = (&pairs[x.1 as usize], &pairs[y.1 as usize]);
            (&p.account_a, &p.account_b).cmp(&(&q.account_a, &q.account_b))
        })
    });
    let order: Vec<u32> = keys.into_iter().map(|(_, i)| i).collect();
    permute(pairs, order);
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
