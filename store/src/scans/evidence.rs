//! A stored pair's evidence as one value of bytes (`scan_pairs.evidence`):
//! its five cells' tallies, the largest boost and its bucket, and the top
//! buckets. One bound value a pair instead of thirteen and a JSON text:
//! saving a scan of 341,258 directed pairs took 4.4 s, most of it binding
//! and encoding, not SQLite (BENCHMARKS.md). Improved mode's signals keep
//! their own column ([`super::signals`]).
//!
//! Layout, every integer an unsigned LEB128 varint, signed ones zigzagged
//! (as the segment chunks, `segments/chunk.rs`): for each cell of
//! [`Cell::ALL`] its count and score; the largest boost; its bucket (0 for
//! none, else the zigzagged bucket plus 1); the number of top buckets, then
//! each as its bucket, its cell's place in [`Cell::ALL`], its score and its
//! run.
//!
//! Pairs stored before this form (migration 0021) have no value here and
//! keep their evidence in the columns beside it, read as before.

use super::super::segments::chunk::{put, unzigzag, zigzag, Reader};
use schema::model::*;

/// `evidence` as bytes (its signals left out).
pub(super) fn encode(e: &Evidence) -> Vec<u8> {
    let mut out = Vec::with_capacity(24 + 8 * e.top_buckets.len());
    encode_into(&mut out, e);
    out
}

/// [`encode`], appended to `out` (a block of pairs holds each pair's
/// evidence in this form: [`super::blocks`]).
pub(super) fn encode_into(out: &mut Vec<u8>, e: &Evidence) {
    for cell in Cell::ALL {
        let t = e.tally(cell);
        put(out, t.count);
        put(out, zigzag(t.score));
    }
    put(out, u64::from(e.max_boost));
    put(out, e.max_boost_bucket.map_or(0, |b| zigzag(b) + 1));
    put(out, e.top_buckets.len() as u64);
    for c in &e.top_buckets {
        put(out, zigzag(c.bucket));
        let cell = Cell::ALL.iter().position(|&x| x == c.cell).unwrap_or(0);
        put(out, cell as u64);
        put(out, zigzag(c.score));
        put(out, u64::from(c.run));
    }
}

/// The evidence [`encode`] wrote (no signals).
pub(super) fn decode(data: &[u8]) -> Result<Evidence, String> {
    let mut r = Reader::new(data);
    let e = decode_from(&mut r)?;
    if !r.done() {
        return Err("bytes after a pair's evidence".to_owned());
    }
    Ok(e)
}

/// The evidence [`encode_into`] wrote at `r`, which is left after it.
pub(super) fn decode_from(r: &mut Reader<'_>) -> Result<Evidence, String> {
    let mut e = Evidence::default();
    for cell in Cell::ALL {
        let count = r.int()?;
        let score = unzigzag(r.int()?);
        *e.tally_mut(cell) = CellTally { count, score };
    }
    e.max_boost = u32::try_from(r.int()?).map_err(|_| "a boost out of range".to_owned())?;
    e.max_boost_bucket = match r.int()? {
        0 => None,
        b => Some(unzigzag(b - 1)),
    };
    let n = r.int()?;
    for _ in 0..n {
        let bucket = unzigzag(r.int()?);
        let cell = *Cell::ALL
            .get(r.int()? as usize)
            .ok_or("a cell out of range")?;
        let score = unzigzag(r.int()?);
        let run = u32::try_from(r.int()?).map_err(|_| "a run out of range".to_owned())?;
        e.top_buckets.push(Contribution {
            bucket,
            cell,
            score,
            run,
        });
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tally() -> impl Strategy<Value = CellTally> {
        (any::<u64>(), any::<i64>()).prop_map(|(count, score)| CellTally { count, score })
    }

    fn contribution() -> impl Strategy<Value = Contribution> {
        (any::<i64>(), 0..5usize, any::<i64>(), any::<u32>()).prop_map(
            |(bucket, cell, score, run)| Contribution {
                bucket,
                cell: Cell::ALL[cell],
                score,
                run,
            },
        )
    }

    proptest! {
        #[test]
        fn evidence_decodes_to_what_was_encoded(
            cells in prop::array::uniform5(tally()),
            max_boost in any::<u32>(),
            max_boost_bucket in prop::option::of(any::<i64>()),
            top_buckets in prop::collection::vec(contribution(), 0..12),
        ) {
            let [same_ip, other_ip, moved_stalled, stalled_moved, both_stalled] = cells;
            let e = Evidence {
                same_ip,
                other_ip,
                moved_stalled,
                stalled_moved,
                both_stalled,
                max_boost,
                max_boost_bucket,
                top_buckets,
                signals: None,
            };
            let data = encode(&e);
            prop_assert_eq!(decode(&data), Ok(e));
            // Cut short or run on, it is refused, never misread.
            for cut in 0..data.len() {
                prop_assert!(decode(&data[..cut]).is_err());
            }
            let mut longer = data.clone();
            longer.push(0);
            prop_assert!(decode(&longer).is_err());
        }
    }
}
