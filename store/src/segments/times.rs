//! Move times: every move's second, address and the network the store
//! recorded for it (`moves.net`), saved beside a segmentation as chunks of
//! bytes (`move_time_chunks`) by the cut that reads the moves anyway.
//! Improved mode needs them (the segments keep buckets only); reading them
//! back from the moves table, row by row or as JSON, cost more than the
//! rest of a scan from the store.
//!
//! They are derived data like the segments, and share their fate: saved in
//! the cut's transaction, extended with the moves an extension reads,
//! deleted with the segmentation (a new cut, a purge).
//!
//! Layout, every integer an unsigned LEB128 varint:
//! - the chunk's addresses in order of first use: their count, then each as
//!   its length and UTF-8 bytes, and its network: 0 for none, else the
//!   network's length plus one and its bytes;
//! - the moves: their count, then each as its step in seconds from the
//!   previous move's second (the first from the chunk's `first_ts`),
//!   zigzag-coded (a reference-order cut reads moves in ingest order, not
//!   by time), and its address's index.

use super::super::sql::insert_rows;
use super::super::{Result, Store, StoreError};
use super::chunk::{put, put_name, unzigzag, zigzag, Reader};
use futures_util::TryStreamExt;
use rustc_hash::FxHashMap;
use schema::model::Epoch;
use sqlx::{Any, Row, Transaction};

/// Bytes at which a chunk of move times is closed and saved (or the
/// store's chunk size, when smaller): a cut holds a chunk being filled for
/// every account, so a small one keeps its memory down (20,000 accounts: 40 MB).
pub(super) const TIME_CHUNK_BYTES: usize = 2 * 1024;

/// A chunk ready to save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TimeChunk {
    pub first_ts: Epoch,
    pub moves: u64,
    pub data: Vec<u8>,
}

/// Encodes one account's moves, in the order read, into chunks.
#[derive(Debug, Default)]
struct TimeChunkWriter {
    /// The chunk's index of each address, and their bytes.
    index: FxHashMap<String, u32>,
    ips: Vec<u8>,
    records: Vec<u8>,
    first_ts: Option<Epoch>,
    last_ts: Epoch,
    moves: u64,
}

impl TimeChunkWriter {
    fn push(&mut self, ts: Epoch, ip: &str, net: Option<&str>) {
        let first = *self.first_ts.get_or_insert(ts);
        let prev = if self.moves == 0 { first } else { self.last_ts };
        let ip = match self.index.get(ip) {
            Some(&i) => i,
            None => {
                let i = self.index.len() as u32;
                self.index.insert(ip.to_owned(), i);
                put_name(&mut self.ips, ip);
                match net {
                    None => put(&mut self.ips, 0),
                    Some(n) => {
                        put(&mut self.ips, n.len() as u64 + 1);
                        self.ips.extend_from_slice(n.as_bytes());
                    }
                }
                i
            }
        };
        put(&mut self.records, zigzag(ts.wrapping_sub(prev)));
        put(&mut self.records, ip as u64);
        self.last_ts = ts;
        self.moves += 1;
    }

    fn len(&self) -> usize {
        self.ips.len() + self.records.len()
    }

    fn take(&mut self) -> Option<TimeChunk> {
        let first_ts = self.first_ts?;
        let mut data = Vec::with_capacity(self.len() + 8);
        put(&mut data, self.index.len() as u64);
        data.append(&mut self.ips);
        put(&mut data, self.moves);
        data.append(&mut self.records);
        let chunk = TimeChunk {
            first_ts,
            moves: self.moves,
            data,
        };
        *self = TimeChunkWriter::default();
        Some(chunk)
    }
}

/// The move times a cut has read and not saved yet, per account by name.
#[derive(Debug, Default)]
pub(super) struct TimeChunks {
    accounts: FxHashMap<String, usize>,
    writers: Vec<(String, TimeChunkWriter)>,
    ready: Vec<(String, TimeChunk)>,
}

impl TimeChunks {
    /// Adds one move; a chunk that reaches `chunk_bytes` is closed.
    pub fn push(
        &mut self,
        account: &str,
        ts: Epoch,
        ip: &str,
        net: Option<&str>,
        chunk_bytes: usize,
    ) {
        let u = match self.accounts.get(account) {
            Some(&u) => u,
            None => {
                let u = self.writers.len();
                self.accounts.insert(account.to_owned(), u);
                self.writers
                    .push((account.to_owned(), TimeChunkWriter::default()));
                u
            }
        };
        let (name, writer) = &mut self.writers[u];
        writer.push(ts, ip, net);
        if writer.len() >= chunk_bytes {
            self.ready.extend(writer.take().map(|c| (name.clone(), c)));
        }
    }

    /// Closes every chunk still being filled.
    pub fn close(&mut self) {
        for (name, writer) in &mut self.writers {
            self.ready.extend(writer.take().map(|c| (name.clone(), c)));
        }
    }

    /// Saves the closed chunks into segmentation `id`.
    pub async fn save(
        &mut self,
        store: &Store,
        tx: &mut Transaction<'_, Any>,
        id: i64,
    ) -> Result<()> {
        let ready = std::mem::take(&mut self.ready);
        insert_rows(
            store.backend,
            tx,
            "move_time_chunks (segmentation_id, username, first_ts, moves, data)",
            5,
            "",
            &ready,
            |q, (account, c)| {
                q.bind(id)
                    .bind(account.clone())
                    .bind(c.first_ts)
                    .bind(c.moves as i64)
                    .bind(c.data.clone())
            },
        )
        .await?;
        Ok(())
    }
}

/// One chunk of an account's move times, decoded: the addresses with their
/// networks, and the moves as (second, index into the addresses).
pub(super) type TimeChunkView<'a> = (Vec<(&'a str, Option<&'a str>)>, Vec<(Epoch, u32)>);

/// Decodes a chunk written by [`TimeChunks`].
pub(super) fn decode(
    data: &[u8],
    first_ts: Epoch,
) -> std::result::Result<TimeChunkView<'_>, String> {
    let mut r = Reader::new(data);
    let n = r.int()? as usize;
    let mut ips = Vec::with_capacity(n.min(data.len()));
    for _ in 0..n {
        let ip = r.name()?;
        let net = match r.int()? as usize {
            0 => None,
            len => Some(
                std::str::from_utf8(r.bytes(len - 1)?)
                    .map_err(|_| "a network that is not UTF-8".to_owned())?,
            ),
        };
        ips.push((ip, net));
    }
    let n = r.int()? as usize;
    let mut moves = Vec::with_capacity(n.min(data.len()));
    let mut ts = first_ts;
    for _ in 0..n {
        ts = ts.wrapping_add(unzigzag(r.int()?));
        let ip = r.int()?;
        if ip >= ips.len() as u64 {
            return Err("a move from an address the chunk does not list".to_owned());
        }
        moves.push((ts, ip as u32));
    }
    if !r.done() {
        return Err("bytes after a chunk's last move".to_owned());
    }
    Ok((ips, moves))
}

impl Store {
    /// Every move time saved beside the segmentation for `bucket_seconds`
    /// cut from moves generation `generation`, chunk by chunk: `each` gets
    /// the account, the chunk's addresses with their networks, and its moves
    /// as (second, index into the addresses), in the order the cut read
    /// them. `false`, and nothing read, when no such segmentation is stored.
    pub async fn for_each_time_chunk(
        &self,
        bucket_seconds: i64,
        generation: i64,
        mut each: impl FnMut(&str, &[(&str, Option<&str>)], &[(Epoch, u32)]),
    ) -> Result<bool> {
        let Some(id) = sqlx::query(
            "SELECT id FROM segmentations WHERE bucket_seconds = $1 AND site = $2 \
             AND generation = $3 ORDER BY id DESC LIMIT 1",
        )
        .bind(bucket_seconds)
        .bind(self.site.to_string())
        .bind(generation)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(false);
        };
        let id: i64 = id.try_get(0)?;
        let mut rows = sqlx::query(
            "SELECT username, first_ts, data FROM move_time_chunks WHERE segmentation_id = $1",
        )
        .bind(id)
        .fetch(&self.pool);
        while let Some(r) = rows.try_next().await? {
            let account: &str = r.try_get(0)?;
            let first: i64 = r.try_get(1)?;
            let data: &[u8] = r.try_get(2)?;
            let (ips, moves) = decode(data, first)
                .map_err(|e| StoreError::Corrupt(format!("a stored chunk of move times: {e}")))?;
            each(account, &ips, &moves);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the order of the moves and the chunk size, the chunks
        /// decode to the moves pushed, each account's in the order pushed.
        #[test]
        fn chunks_decode_to_the_moves_pushed(
            moves in prop::collection::vec((0..3usize, -5_000..5_000i64, 0..4usize), 0..200),
            chunk_bytes in 1..64usize,
        ) {
            let accounts = ["a", "", "b\"c"];
            let ips = [("10.0.0.1", Some("10.0.0.0/24")), ("hash", None), ("::1", Some("::/64")), ("é", Some(""))];
            let mut chunks = TimeChunks::default();
            let mut want: Vec<Vec<(Epoch, &str, Option<&str>)>> = vec![Vec::new(); 3];
            for &(u, dt, ip) in &moves {
                let ts = 1_430_647_200 + dt;
                chunks.push(accounts[u], ts, ips[ip].0, ips[ip].1, chunk_bytes);
                want[u].push((ts, ips[ip].0, ips[ip].1));
            }
            chunks.close();
            let mut got: Vec<Vec<(Epoch, &str, Option<&str>)>> = vec![Vec::new(); 3];
            for (account, c) in &chunks.ready {
                let u = accounts.iter().position(|n| n == account).unwrap();
                let (cips, cmoves) = decode(&c.data, c.first_ts).unwrap();
                prop_assert_eq!(cmoves.len() as u64, c.moves);
                for (ts, i) in cmoves {
                    let (ip, net) = cips[i as usize];
                    got[u].push((ts, ip, net));
                }
            }
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn a_damaged_chunk_is_an_error() {
        let mut chunks = TimeChunks::default();
        chunks.push("a", 100, "10.0.0.1", None, 1 << 20);
        chunks.push("a", 40, "10.0.0.2", Some("10.0.0.0/24"), 1 << 20);
        chunks.close();
        let c = &chunks.ready[0].1;
        let (ips, moves) = decode(&c.data, c.first_ts).unwrap();
        assert_eq!(ips, [("10.0.0.1", None), ("10.0.0.2", Some("10.0.0.0/24"))]);
        assert_eq!(moves, [(100, 0), (40, 1)]);
        for cut in 0..c.data.len() {
            assert!(decode(&c.data[..cut], c.first_ts).is_err(), "cut at {cut}");
        }
        let mut longer = c.data.clone();
        longer.push(0);
        assert!(decode(&longer, c.first_ts).is_err());
    }
}
