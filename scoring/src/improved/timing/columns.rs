//! Which members a hidden account follows, all members at once.
//!
//! The search keeps a pair only when at least half the hidden account's
//! sittings began in the member's near buckets ([`super::search`]).
//! Testing that member by member reads a whole row for each of them: the
//! grid's 63 words at 84 days, for 32,600 members, for each of 2,642 hidden
//! accounts at ten million moves. Turned on its side, the test reads only
//! the buckets where the hidden account began a sitting: each such bucket
//! is a **column**, one bit per member (near that bucket or not), and the
//! members' counts are the sum of the hidden account's columns, kept
//! bit-sliced ([`Counts`]: plane `p` holds bit `p` of every member's count,
//! so adding a column is a carry rippling through a few words). Then one
//! comparison per word of members finds those at or over half.

use rayon::prelude::*;

/// Every bucket's column: which members were near it.
pub(super) struct Columns {
    members: usize,
    /// Words a column takes: one bit per member.
    words: usize,
    bits: Vec<u64>,
}

impl Columns {
    /// The columns of `rows`: row `i` (of `row_words` words) is member
    /// `i`'s near buckets, `members` rows in all.
    pub(super) fn new(rows: &[u64], row_words: usize, members: usize) -> Self {
        let words = members.div_ceil(64);
        let mut bits = vec![0u64; words * row_words * 64];
        // The columns of one word of the rows are 64 columns side by
        // side: each task fills those of its word.
        bits.par_chunks_mut((words * 64).max(1))
            .enumerate()
            .for_each(|(w, cols)| {
                for i in 0..members {
                    let mut word = rows[i * row_words + w];
                    while word != 0 {
                        let j = word.trailing_zeros() as usize;
                        word &= word - 1;
                        cols[j * words + i / 64] |= 1 << (i % 64);
                    }
                }
            });
        Columns {
            members,
            words,
            bits,
        }
    }

    fn column(&self, bucket: usize) -> &[u64] {
        &self.bits[bucket * self.words..(bucket + 1) * self.words]
    }

    /// The members (by index) near at least `at_least` of the set buckets
    /// of `starts` (a row of the grid), ascending.
    pub(super) fn at_least(&self, starts: &[u64], at_least: u32) -> Vec<usize> {
        let n: u32 = starts.iter().map(|w| w.count_ones()).sum();
        if at_least > n {
            return Vec::new();
        }
        let mut counts = Counts::new(self.words, n);
        for (w, &word) in starts.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let j = word.trailing_zeros() as usize;
                word &= word - 1;
                counts.add(self.column(w * 64 + j));
            }
        }
        let mut out = counts.at_least(at_least);
        // The last word's bits past the members count nothing.
        out.retain(|&i| i < self.members);
        out
    }
}

/// Counts of many members at once, bit-sliced: `planes[p]` holds bit `p`
/// of each member's count.
struct Counts {
    words: usize,
    planes: Vec<Vec<u64>>,
}

impl Counts {
    /// Counts of `words * 64` members, each to reach at most `most`.
    fn new(words: usize, most: u32) -> Self {
        let planes = (u32::BITS - most.leading_zeros()).max(1) as usize;
        Counts {
            words,
            planes: vec![vec![0; words]; planes],
        }
    }

    /// Adds one to the count of each member set in `column`.
    fn add(&mut self, column: &[u64]) {
        for (w, &bit) in column.iter().enumerate() {
            let mut carry = bit;
            for plane in self.planes.iter_mut() {
                if carry == 0 {
                    break;
                }
                let was = plane[w];
                plane[w] = was ^ carry;
                carry &= was;
            }
        }
    }

    /// The members whose count is `at_least` or more, ascending. Plane by
    /// plane from the highest bit: a count is greater once it has a bit
    /// the bound lacks where they were equal above.
    fn at_least(&self, at_least: u32) -> Vec<usize> {
        if at_least >> self.planes.len() != 0 {
            return Vec::new();
        }
        let mut out = Vec::new();
        for w in 0..self.words {
            let (mut greater, mut equal) = (0u64, !0u64);
            for (p, plane) in self.planes.iter().enumerate().rev() {
                if at_least >> p & 1 == 1 {
                    equal &= plane[w];
                } else {
                    greater |= equal & plane[w];
                    equal &= !plane[w];
                }
            }
            let mut hit = greater | equal;
            while hit != 0 {
                out.push(w * 64 + hit.trailing_zeros() as usize);
                hit &= hit - 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The members found are those whose own row holds at least the
        /// bound of the starts' buckets, as counted row by row.
        #[test]
        fn members_at_least_are_those_counted_row_by_row(
            members in 0usize..150,
            row_words in 1usize..4,
            seed in prop::collection::vec(any::<u64>(), 600),
            density in 0u32..4,
            starts_seed in prop::collection::vec(any::<u64>(), 4),
            at_least in 0u32..40,
        ) {
            // Rows of varied density: AND-ing random words thins them.
            let rows: Vec<u64> = (0..members * row_words)
                .map(|k| (0..density).fold(seed[k % 600].rotate_left(k as u32), |w, d| w & seed[(k + d as usize * 7) % 600]))
                .collect();
            let starts = &starts_seed[..row_words];
            let cols = Columns::new(&rows, row_words, members);
            let want: Vec<usize> = (0..members)
                .filter(|&i| {
                    let row = &rows[i * row_words..(i + 1) * row_words];
                    let k: u32 = starts.iter().zip(row).map(|(s, x)| (s & x).count_ones()).sum();
                    k >= at_least
                })
                .collect();
            prop_assert_eq!(cols.at_least(starts, at_least), want);
        }
    }

    #[test]
    fn a_count_that_fills_every_plane_is_compared_exactly() {
        // Three members, 7 starts: counts 7, 4 and 3 (3 planes, all full
        // for 7).
        let starts = [0b111_1111u64];
        let rows = [0b111_1111u64, 0b000_1111, 0b111_0000];
        let cols = Columns::new(&rows, 1, 3);
        assert_eq!(cols.at_least(&starts, 7), vec![0]);
        assert_eq!(cols.at_least(&starts, 4), vec![0, 1]);
        assert_eq!(cols.at_least(&starts, 3), vec![0, 1, 2]);
        assert_eq!(cols.at_least(&starts, 8), Vec::<usize>::new());
        assert_eq!(cols.at_least(&starts, 0), vec![0, 1, 2]);
    }
}
