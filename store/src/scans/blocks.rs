//! A scan's pairs as blocks (`scan_pair_blocks`, migration 0025): one row
//! per account a, holding every directed pair (a, b) of the scan in one
//! value of bytes, in the order of b. A season's pairs are tens of
//! accounts' partners each, so a scan is a row per account rather than a
//! row per pair.
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
