//! Galloping search: [`slice::partition_point`] that looks near the start
//! first, for walks that step forward through a sorted list by a few
//! entries at a time and only sometimes jump far.

/// The index of the first element for which `pred` is false, where `pred`
/// holds on a prefix of `s` (as for [`slice::partition_point`]). Costs
/// about twice the logarithm of the answer, not of `s.len()`.
pub fn gallop<T>(s: &[T], pred: impl Fn(&T) -> bool) -> usize {
    let mut hi = 1;
    while hi < s.len() && pred(&s[hi - 1]) {
        hi *= 2;
    }
    let lo = hi / 2;
    let hi = hi.min(s.len());
    lo + s[lo..hi].partition_point(pred)
}

#[cfg(test)]
mod tests {
    use super::gallop;

    #[test]
    fn gallop_agrees_with_partition_point() {
        for n in 0..70usize {
            let s: Vec<usize> = (0..n).map(|i| i * 2).collect();
            for x in 0..2 * n + 2 {
                assert_eq!(
                    gallop(&s, |&v| v < x),
                    s.partition_point(|&v| v < x),
                    "n {n}, x {x}"
                );
            }
        }
    }
}
