//! A scan's pairs as blocks (`scan_pair_blocks`, migration 0025): one row
//! per account a, holding every directed pair (a, b) of the scan in one
//! value of bytes, in the order of b. An account has tens of partners in
//! a season, so a scan is tens of times fewer rows than it has pairs.
//!
//! Layout of a block, every integer an unsigned LEB128 varint, signed ones
//! zigzagged (as the segment chunks, `segments/chunk.rs`); for each pair:
//! account b's name ([`put_name`]), the similarity's 8 bytes (its bits,
//! little-endian), the sum and the weight, the evidence
//! ([`super::evidence`]), then the signals: 0 for none, else 1 plus the
//! length of their stored text ([`super::signals`]), and the text.
//!
//! Only pairs whose other direction is in the scan go into blocks; the
//! rest are rows of `scan_pairs`, as every pair was before. So the pairs
//! naming an account second are found in the blocks of the accounts its
//! own block names ([`Store::stored_blocks`]).

use super::super::segments::chunk::{put, put_name, unzigzag, zigzag, Reader};
use super::super::{Result, Store, StoreError};
use super::evidence;
use super::pairs::PairFilter;
use futures_util::TryStreamExt;
use rayon::prelude::*;
use rustc_hash::FxHashSet;
use schema::model::PairScore;
use sqlx::Row;

/// One block as stored: its account, its highest similarity, its bytes.
pub(super) struct Block<'p> {
    pub account_a: &'p str,
    pub strongest: f64,
    pub data: Vec<u8>,
}

/// A scan's pairs as stored: the blocks, and the places of the pairs kept
/// as rows (those whose other direction is not among `pairs`), in the
/// order of their key. `signals` is what each pair stores
/// ([`super::signals::stored`]).
pub(super) fn split<'p>(
    pairs: &'p [PairScore],
    signals: &[Option<String>],
) -> (Vec<Block<'p>>, Vec<u32>) {
    let keyed = schema::order::by_accounts(pairs);
    let keys: FxHashSet<u64> = keyed.iter().map(|&(k, _)| k).collect();
    let (mut blocked, mut rows) = (Vec::new(), Vec::new());
    for &(k, i) in &keyed {
        if keys.contains(&k.rotate_left(32)) {
            blocked.push(i)
        } else {
            rows.push(i)
        }
    }
    let runs: Vec<&[u32]> = blocked
        .chunk_by(|&x, &y| pairs[x as usize].account_a == pairs[y as usize].account_a)
        .collect();
    let blocks = runs
        .into_par_iter()
        .map(|run| encode(pairs, signals, run))
        .collect();
    (blocks, rows)
}

/// The block of the pairs at `places`, all of one account a.
fn encode<'p>(pairs: &'p [PairScore], signals: &[Option<String>], places: &[u32]) -> Block<'p> {
    let mut data = Vec::with_capacity(places.len() * 96);
    let mut strongest = f64::NEG_INFINITY;
    for &i in places {
        let p = &pairs[i as usize];
        put_name(&mut data, &p.account_b);
        data.extend_from_slice(&p.similarity.to_bits().to_le_bytes());
        put(&mut data, zigzag(p.sum));
        put(&mut data, zigzag(p.weight));
        evidence::encode_into(&mut data, &p.evidence);
        match &signals[i as usize] {
            None => put(&mut data, 0),
            Some(text) => {
                put(&mut data, text.len() as u64 + 1);
                data.extend_from_slice(text.as_bytes());
            }
        }
        strongest = strongest.max(p.similarity);
    }
    Block {
        account_a: &pairs[places[0] as usize].account_a,
        strongest,
        data,
    }
}

/// The pairs of the block of `account_a` that `keep` keeps (it is given
/// account b and the similarity), their signals as stored (a pair
/// stored without its partner's signals has none: see
/// [`super::signals::fill_from_partners`]).
pub(super) fn decode(
    account_a: &str,
    data: &[u8],
    mut keep: impl FnMut(&str, f64) -> bool,
    out: &mut Vec<PairScore>,
) -> Result<()> {
    let corrupt = |e: String| StoreError::Corrupt(format!("a block of pairs: {e}"));
    let mut r = Reader::new(data);
    while !r.done() {
        let account_b = r.name().map_err(corrupt)?;
        let bits = r.bytes(8).map_err(corrupt)?;
        let similarity = f64::from_bits(u64::from_le_bytes(bits.try_into().expect("8 bytes")));
        let sum = unzigzag(r.int().map_err(corrupt)?);
        let weight = unzigzag(r.int().map_err(corrupt)?);
        let mut evidence = evidence::decode_from(&mut r).map_err(corrupt)?;
        let signals = match r.int().map_err(corrupt)? {
            0 => None,
            n => Some(r.bytes(n as usize - 1).map_err(corrupt)?),
        };
        if !keep(account_b, similarity) {
            continue;
        }
        evidence.signals = signals
            .map(serde_json::from_slice)
            .transpose()
            .map_err(|e| StoreError::Corrupt(format!("signals of a pair: {e}")))?;
        out.push(PairScore {
            account_a: account_a.to_owned(),
            account_b: account_b.to_owned(),
            similarity,
            sum,
            weight,
            evidence,
        });
    }
    Ok(())
}

impl Store {
    /// Scans whose pairs do not read: a block that does not decode, or
    /// pairs (blocks and rows) other in number than the scan stored. One
    /// sentence each, for `detect check`.
    pub(crate) async fn pair_problems(&self) -> Result<Vec<String>> {
        let scans = sqlx::query("SELECT id, stored_pairs FROM scans ORDER BY id")
            .fetch_all(&self.pool)
            .await?;
        let mut problems = Vec::new();
        for scan in &scans {
            let id: i64 = scan.try_get(0)?;
            let stored: Option<i64> = scan.try_get(1)?;
            let mut read = 0usize;
            let mut rows =
                sqlx::query("SELECT account_a, pairs FROM scan_pair_blocks WHERE scan_id = $1")
                    .bind(id)
                    .fetch(&self.pool);
            while let Some(row) = rows.try_next().await? {
                let account_a: String = row.try_get(0)?;
                let data: Vec<u8> = row.try_get(1)?;
                let mut count = 0;
                match decode(
                    &account_a,
                    &data,
                    |_, _| {
                        count += 1;
                        false
                    },
                    &mut Vec::new(),
                ) {
                    Ok(()) => read += count,
                    Err(StoreError::Corrupt(e)) => {
                        problems.push(format!("scan #{id}: {e}; its pairs cannot be read."))
                    }
                    Err(e) => return Err(e),
                }
            }
            drop(rows);
            let single: i64 = sqlx::query("SELECT count(*) FROM scan_pairs WHERE scan_id = $1")
                .bind(id)
                .fetch_one(&self.pool)
                .await?
                .try_get(0)?;
            let read = read as i64 + single;
            if let Some(n) = stored.filter(|&n| n != read) {
                problems.push(format!("scan #{id} stored {n} pairs, and {read} read."));
            }
        }
        Ok(problems)
    }
}

/// Names per `IN (...)` list when blocks are read by account.
const NAMES_PER_QUERY: usize = 500;

/// Which of a scan's blocks to read.
enum Select<'a> {
    Every,
    /// Those whose strongest pair is at or above.
    Strongest(f64),
    /// Those of these accounts (at most [`NAMES_PER_QUERY`]).
    Of(&'a [String]),
}

impl Store {
    /// The pairs in the blocks of scan `id` (itself, not its chain) that
    /// `filter` selects.
    pub(super) async fn stored_blocks(
        &self,
        id: i64,
        filter: PairFilter<'_>,
    ) -> Result<Vec<PairScore>> {
        let mut out = Vec::new();
        match filter {
            PairFilter::All => {
                self.read_blocks(id, Select::Every, |_, _, _| true, &mut out)
                    .await?
            }
            PairFilter::AtLeast(min) => {
                self.read_blocks(id, Select::Strongest(min), |_, _, s| s >= min, &mut out)
                    .await?
            }
            PairFilter::Naming(account) => {
                let own = [account.to_owned()];
                self.blocks_of(id, &own, |_, _, _| true, &mut out).await?;
                // Every pair of the block has its reverse in the block of
                // its account b (see the module).
                let partners: Vec<String> = out.iter().map(|p| p.account_b.clone()).collect();
                self.blocks_of(id, &partners, |_, b, _| b == account, &mut out)
                    .await?;
            }
            PairFilter::Among(accounts) => {
                let among: FxHashSet<&str> = accounts.iter().map(String::as_str).collect();
                self.blocks_of(id, accounts, |_, b, _| among.contains(b), &mut out)
                    .await?;
            }
            PairFilter::Pairs(pairs) => {
                let wanted: FxHashSet<(&str, &str)> = pairs
                    .iter()
                    .map(|(a, b)| (a.as_str(), b.as_str()))
                    .collect();
                let mut firsts: Vec<String> = pairs.iter().map(|(a, _)| a.clone()).collect();
                firsts.sort_unstable();
                firsts.dedup();
                self.blocks_of(id, &firsts, |a, b, _| wanted.contains(&(a, b)), &mut out)
                    .await?;
            }
        }
        Ok(out)
    }

    /// The pairs `keep` keeps in the blocks of `accounts` (a block each,
    /// when the scan has one).
    async fn blocks_of(
        &self,
        id: i64,
        accounts: &[String],
        keep: impl Fn(&str, &str, f64) -> bool,
        out: &mut Vec<PairScore>,
    ) -> Result<()> {
        for names in accounts.chunks(NAMES_PER_QUERY) {
            self.read_blocks(id, Select::Of(names), &keep, out).await?;
        }
        Ok(())
    }

    /// The pairs `keep` keeps (given account a, account b and the
    /// similarity) in the blocks of scan `id` that `select` selects.
    async fn read_blocks(
        &self,
        id: i64,
        select: Select<'_>,
        keep: impl Fn(&str, &str, f64) -> bool,
        out: &mut Vec<PairScore>,
    ) -> Result<()> {
        let head = "SELECT account_a, pairs FROM scan_pair_blocks WHERE scan_id = $1";
        let sql = match select {
            Select::Every => head.to_owned(),
            Select::Strongest(_) => format!("{head} AND strongest >= $2"),
            Select::Of(names) => format!(
                "{head} AND account_a IN ({})",
                super::super::sql::numbered_marks(2, names.len())
            ),
        };
        let mut q = sqlx::query(&sql).bind(id);
        match select {
            Select::Every => {}
            Select::Strongest(min) => q = q.bind(min),
            Select::Of(names) => {
                for name in names {
                    q = q.bind(name.as_str());
                }
            }
        }
        let mut rows = q.fetch(&self.pool);
        while let Some(row) = rows.try_next().await? {
            let account_a: String = row.try_get(0)?;
            let data: Vec<u8> = row.try_get(1)?;
            decode(&account_a, &data, |b, s| keep(&account_a, b, s), out)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use schema::model::{Cell, CellTally, Contribution, Evidence};
    use schema::signals::Signals;

    const NAMES: [&str; 5] = ["a", "b", "ab", "\u{e9}", "Zed"];

    /// A directed pair of two of [`NAMES`], its scores, evidence and
    /// signals arbitrary.
    fn pair() -> impl Strategy<Value = PairScore> {
        (
            (0..5usize, 0..5usize),
            prop_oneof![Just(0.0), Just(1.0), -1.0..1.0f64],
            (any::<i64>(), any::<i64>(), any::<u64>(), any::<i64>()),
            prop::option::of(any::<i64>()),
            prop::collection::vec((any::<i64>(), 0..5usize, any::<u32>()), 0..4),
            (any::<u32>(), any::<u32>()),
        )
            .prop_map(
                |((a, b), similarity, (sum, weight, count, score), bucket, top, signals)| {
                    let mut evidence = Evidence {
                        max_boost: count as u32,
                        max_boost_bucket: bucket,
                        top_buckets: top
                            .into_iter()
                            .map(|(bucket, cell, run)| Contribution {
                                bucket,
                                cell: Cell::ALL[cell],
                                score,
                                run,
                            })
                            .collect(),
                        ..Evidence::default()
                    };
                    *evidence.tally_mut(Cell::ALL[a]) = CellTally { count, score };
                    evidence.signals = Some(Box::new(Signals {
                        a_buckets: signals.0,
                        b_buckets: signals.1,
                        ..Signals::default()
                    }));
                    PairScore {
                        account_a: NAMES[a].to_owned(),
                        account_b: NAMES[b].to_owned(),
                        similarity,
                        sum,
                        weight,
                        evidence,
                    }
                },
            )
    }

    /// Distinct directed pairs, some with their other direction, some
    /// without; a pair's other direction with its signals swapped or not.
    /// Every pair has signals (an improved scan) or none does (a reference
    /// one).
    fn pairs() -> impl Strategy<Value = Vec<PairScore>> {
        let raw = prop::collection::vec((pair(), any::<bool>(), any::<bool>()), 0..30);
        (raw, any::<bool>()).prop_map(|(raw, improved)| {
            let mut out: Vec<PairScore> = Vec::new();
            for (p, both, swapped) in raw {
                let mut back = p.clone();
                (back.account_a, back.account_b) = (p.account_b.clone(), p.account_a.clone());
                if swapped {
                    back.evidence.signals =
                        p.evidence.signals.as_deref().map(|s| Box::new(s.swapped()));
                }
                for q in [Some(p), both.then_some(back)].into_iter().flatten() {
                    let key = |x: &PairScore| (x.account_a.clone(), x.account_b.clone());
                    if !out.iter().any(|o| key(o) == key(&q)) {
                        out.push(q);
                    }
                }
            }
            if !improved {
                out.iter_mut().for_each(|p| p.evidence.signals = None);
            }
            out
        })
    }

    proptest! {
        /// Every pair is in a block or kept as a row, a row exactly when
        /// its other direction is missing; the blocks decode, given their
        /// partners' signals back, to the pairs saved.
        #[test]
        fn blocks_decode_to_the_pairs_saved(pairs in pairs()) {
            let signals = super::super::signals::stored(&pairs);
            let (blocks, rows) = split(&pairs, &signals);
            let has_reverse = |p: &PairScore| {
                pairs.iter().any(|q| q.account_a == p.account_b && q.account_b == p.account_a)
            };
            let mut read = Vec::new();
            for b in &blocks {
                prop_assert!(read.iter().all(|p: &PairScore| p.account_a != b.account_a));
                let before = read.len();
                decode(b.account_a, &b.data, |_, _| true, &mut read).unwrap();
                let strongest = read[before..].iter().map(|p| p.similarity).fold(f64::NEG_INFINITY, f64::max);
                prop_assert_eq!(strongest, b.strongest);
                prop_assert!(read[before..].windows(2).all(|w| w[0].account_b < w[1].account_b));
            }
            for &i in &rows {
                let p = &pairs[i as usize];
                prop_assert!(!has_reverse(p));
                let mut p = p.clone();
                p.evidence.signals = signals[i as usize].as_deref().map(|s| serde_json::from_str(s).unwrap());
                read.push(p);
            }
            prop_assert!(read[..read.len() - rows.len()].iter().all(has_reverse));
            super::super::signals::fill_from_partners(&mut read);
            let key = |p: &PairScore| (p.account_a.clone(), p.account_b.clone());
            let mut want = pairs.clone();
            want.sort_by_key(key);
            read.sort_by_key(key);
            prop_assert_eq!(read, want);
        }

        /// What `keep` leaves out is not read, and the rest is.
        #[test]
        fn a_block_read_keeps_what_keep_keeps(pairs in pairs(), min in -1.0..1.0f64) {
            let signals = vec![None; pairs.len()];
            let (blocks, _) = split(&pairs, &signals);
            for b in &blocks {
                let (mut all, mut kept) = (Vec::new(), Vec::new());
                decode(b.account_a, &b.data, |_, _| true, &mut all).unwrap();
                decode(b.account_a, &b.data, |name, s| s >= min && name != "a", &mut kept).unwrap();
                all.retain(|p| p.similarity >= min && p.account_b != "a");
                prop_assert_eq!(kept, all);
            }
        }
    }

    #[test]
    fn a_block_cut_short_is_an_error_not_a_panic() {
        let p = PairScore {
            account_a: "a".into(),
            account_b: "b".into(),
            similarity: 0.5,
            sum: 3,
            weight: 7,
            evidence: Evidence::default(),
        };
        let mut back = p.clone();
        (back.account_a, back.account_b) = ("b".into(), "a".into());
        let pairs = [p, back];
        let (blocks, _) = split(&pairs, &[None, None]);
        let data = &blocks[0].data;
        for cut in 1..data.len() {
            let mut out = Vec::new();
            let read = decode("a", &data[..cut], |_, _| true, &mut out);
            assert!(matches!(read, Err(StoreError::Corrupt(_))), "cut at {cut}");
        }
    }
}
