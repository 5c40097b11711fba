//! Chunks: some of one account's consecutive segments as bytes, so that a
//! stored segmentation is a few rows per account instead of a row per moved
//! bucket and per run of stalls (decoding rows one by one through the
//! driver was most of a scan from the store).
//!
//! Layout, every integer an unsigned LEB128 varint:
//! - the chunk's IPs in order of first use: their count, then each as its
//!   length and UTF-8 bytes;
//! - the records: the step in seconds from the previous record's bucket
//!   (the first record's from the chunk's first bucket, so 0), a kind
//!   (bit 0 stalled, bit 1 a stall IP follows, bit 2 a run follows: that
//!   many more stalled buckets, one bucket apart, with the same stall IP
//!   and no moves), the stall IP's index, the run, the number of IPs moved
//!   from, then each IP's index and move count.
//!
//! The row beside the bytes holds the chunk's first and last bucket and its
//! counts of segments and stalls, by bucket (a run of n stalls counts n).
//!
//! A record is a [`Segment`] as it is held in memory: a moved bucket, or a
//! stall run (its first bucket and the run). So segments load run by run,
//! at a cost that follows moves and runs, not the buckets a game waited.
//! Older writers held a run's last bucket back when they handed segments
//! over page by page, so a run may be stored as two records, even in two
//! chunks: [`decode`] joins them again.

use rustc_hash::FxHashMap;
use schema::model::{Epoch, IpId, Names, Segment};
use schema::StallIp;

/// Bytes at which a chunk is closed and saved.
pub(crate) const CHUNK_BYTES: usize = 8 * 1024;

const STALLED: u8 = 1;
const STALL_IP: u8 = 2;
const RUN: u8 = 4;

/// A chunk ready to save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Chunk {
    pub first_bucket: Epoch,
    pub last_bucket: Epoch,
    pub segments: u64,
    pub stalled: u64,
    pub data: Vec<u8>,
}

/// Encodes one account's segments, in bucket order, into chunks.
#[derive(Debug, Default)]
pub(super) struct ChunkWriter {
    /// The chunk's index of each IP (by the caller's id), and their bytes.
    index: FxHashMap<IpId, u32>,
    ips: Vec<u8>,
    records: Vec<u8>,
    first_bucket: Option<Epoch>,
    last_bucket: Epoch,
    segments: u64,
    stalled: u64,
}

impl ChunkWriter {
    /// Adds segments that follow those already added.
    pub fn push(&mut self, segs: &[Segment], ips: &Names, bucket_seconds: i64) {
        let mut i = 0;
        while i < segs.len() {
            // A run: stalled buckets with no moves, one bucket apart, one
            // IP; runs in memory are whole, but the list may cut one.
            let mut run = segs[i].clone();
            i += 1;
            while i < segs.len() && run.join(&segs[i], bucket_seconds) {
                i += 1;
            }
            self.record(&run, ips);
            self.last_bucket = run.last_bucket(bucket_seconds);
            let (buckets, stalled) = schema::bucket_counts(std::slice::from_ref(&run));
            self.segments += buckets;
            self.stalled += stalled;
        }
    }

    fn record(&mut self, seg: &Segment, ips: &Names) {
        let first = *self.first_bucket.get_or_insert(seg.bucket);
        let prev = if self.segments == 0 {
            first
        } else {
            self.last_bucket
        };
        let stall_ip = seg.stall_ip.map(|ip| self.ip(ip.get(), ips));
        let moves: Vec<(u32, u32)> = seg
            .moves
            .iter()
            .map(|&(ip, n)| (self.ip(ip, ips), n))
            .collect();
        // More stalled buckets after the first, for a run.
        let run = if seg.is_run() { seg.stalls - 1 } else { 0 };
        let out = &mut self.records;
        put(out, (seg.bucket - prev) as u64);
        let kind = (seg.stalled() as u8 * STALLED)
            | (stall_ip.is_some() as u8 * STALL_IP)
            | ((run > 0) as u8 * RUN);
        out.push(kind);
        if let Some(ip) = stall_ip {
            put(out, ip as u64);
        }
        if run > 0 {
            put(out, run as u64);
        }
        put(out, moves.len() as u64);
        for (ip, n) in moves {
            put(out, ip as u64);
            put(out, n as u64);
        }
    }

    /// The chunk's index of the IP `id` names in `ips`.
    fn ip(&mut self, id: IpId, ips: &Names) -> u32 {
        let next = self.index.len() as u32;
        *self.index.entry(id).or_insert_with(|| {
            put_name(&mut self.ips, ips.name(id));
            next
        })
    }

    /// Bytes so far.
    pub fn len(&self) -> usize {
        self.ips.len() + self.records.len()
    }

    /// The chunk so far, if it holds any segment; the writer starts a new
    /// one.
    pub fn take(&mut self) -> Option<Chunk> {
        let first_bucket = self.first_bucket?;
        let mut data = Vec::with_capacity(self.len() + 5);
        put(&mut data, self.index.len() as u64);
        data.extend_from_slice(&self.ips);
        data.extend_from_slice(&self.records);
        let chunk = Chunk {
            first_bucket,
            last_bucket: self.last_bucket,
            segments: self.segments,
            stalled: self.stalled,
            data,
        };
        *self = ChunkWriter::default();
        Some(chunk)
    }
}

/// Decodes a chunk whose first bucket is `first_bucket`, appending its
/// segments to `out` (a run joined to the one `out` ends with, when it
/// continues it); `ip` turns each of its IPs into an id.
pub(super) fn decode<'a>(
    data: &'a [u8],
    first_bucket: Epoch,
    bucket_seconds: i64,
    mut ip: impl FnMut(&'a str) -> IpId,
    out: &mut Vec<Segment>,
) -> Result<(), String> {
    let mut r = Reader::new(data);
    let n_ips = r.int()?;
    let mut ids = Vec::with_capacity(n_ips.min(1 << 16) as usize);
    for _ in 0..n_ips {
        ids.push(ip(r.name()?));
    }
    let id = |i: u64| -> Result<IpId, String> {
        ids.get(i as usize)
            .copied()
            .ok_or_else(|| format!("IP index {i} of {}", ids.len()))
    };
    let mut bucket = first_bucket;
    while !r.done() {
        bucket += r.int()? as i64;
        let kind = r.byte()?;
        let stall_ip = match kind & STALL_IP {
            0 => None,
            _ => Some(StallIp::new(id(r.int()?)?)),
        };
        let run = if kind & RUN != 0 { r.int()? } else { 0 };
        if run > 0 && kind & STALLED == 0 {
            return Err("a run of stalls not marked stalled".to_owned());
        }
        let stalls = u32::try_from(run + (kind & STALLED != 0) as u64)
            .map_err(|_| format!("a run of {run} stalls"))?;
        let mut seg = Segment::stall_run(bucket, stalls, stall_ip);
        for _ in 0..r.int()? {
            seg.moves.push((id(r.int()?)?, r.int()? as u32));
        }
        if run > 0 && !seg.is_run() {
            return Err("a run of stalls with moves".to_owned());
        }
        bucket = seg.last_bucket(bucket_seconds);
        schema::push_joined(out, seg, bucket_seconds);
    }
    Ok(())
}

/// A name as its length and UTF-8 bytes.
pub(crate) fn put_name(out: &mut Vec<u8>, name: &str) {
    put(out, name.len() as u64);
    out.extend_from_slice(name.as_bytes());
}

pub(crate) fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A signed step as an unsigned number, small when the step is small
/// either way (0, -1, 1, -2, ... as 0, 1, 2, 3, ...).
pub(crate) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// The step [`zigzag`] coded.
pub(crate) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

pub(crate) struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, at: 0 }
    }

    /// A name written by [`put_name`].
    pub fn name(&mut self) -> Result<&'a str, String> {
        let len = self.int()? as usize;
        let bytes = self.bytes(len)?;
        std::str::from_utf8(bytes).map_err(|_| "a name that is not UTF-8".to_owned())
    }

    pub fn done(&self) -> bool {
        self.at >= self.data.len()
    }

    pub fn byte(&mut self) -> Result<u8, String> {
        let b = *self.data.get(self.at).ok_or("a chunk cut short")?;
        self.at += 1;
        Ok(b)
    }

    pub fn int(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err("a number too long in a chunk".to_owned())
    }

    pub fn bytes(&mut self, len: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(len).filter(|&e| e <= self.data.len());
        let end = end.ok_or("a chunk cut short")?;
        let b = &self.data[self.at..end];
        self.at = end;
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const B: i64 = 1800;

    /// Segments of one account: buckets increasing, some moved from IPs of a
    /// small table, some stalled with or without an IP, some both.
    fn segments() -> impl Strategy<Value = Vec<Segment>> {
        let seg = (
            1..4i64,
            any::<bool>(),
            0..4u32,
            prop::collection::vec((0..3u32, 1..5u32), 0..3),
        );
        prop::collection::vec(seg, 0..60).prop_map(|raw| {
            let mut bucket = 1_430_647_200;
            raw.into_iter()
                .map(|(step, stalled, ip, moves)| {
                    bucket += step * B;
                    let mut seg = Segment {
                        bucket,
                        stalls: (stalled || moves.is_empty()) as u32,
                        stall_ip: (ip < 3 && (stalled || moves.is_empty()))
                            .then(|| StallIp::new(ip)),
                        ..Segment::default()
                    };
                    for (ip, n) in moves {
                        if seg.moves.iter().all(|&(i, _)| i != ip) {
                            seg.moves.push((ip, n));
                        }
                    }
                    seg
                })
                .collect()
        })
    }

    fn names() -> Names {
        let mut ips = Names::default();
        for ip in ["10.0.0.1", "2001:db8::1", "purged IP-7"] {
            ips.intern(ip);
        }
        ips
    }

    proptest! {
        #[test]
        fn chunks_decode_to_the_segments_pushed(segs in segments(), cut in 0..60usize) {
            let ips = names();
            let mut w = ChunkWriter::default();
            let cut = cut.min(segs.len());
            // Pushed in two parts, as pages of a cut push them.
            w.push(&segs[..cut], &ips, B);
            w.push(&segs[cut..], &ips, B);
            let Some(chunk) = w.take() else {
                prop_assert!(segs.is_empty());
                return Ok(());
            };
            prop_assert_eq!(chunk.segments, segs.len() as u64);
            prop_assert_eq!(chunk.stalled, segs.iter().filter(|s| s.stalled()).count() as u64);
            prop_assert_eq!(chunk.first_bucket, segs[0].bucket);
            prop_assert_eq!(chunk.last_bucket, segs.last().unwrap().bucket);
            let mut back = Names::default();
            let mut out = Vec::new();
            decode(&chunk.data, chunk.first_bucket, B, |ip| back.intern(ip), &mut out).unwrap();
            // Decoded with stalls as runs: as many as the input's runs.
            let runs = schema::join_runs(segs.clone(), B);
            prop_assert_eq!(out.len(), runs.len());
            let out = schema::expand(&out, B);
            let named = |s: &[Segment], n: &Names| -> Vec<_> {
                s.iter().map(|g| (
                    g.bucket,
                    g.stalls,
                    g.stall_ip.map(|i| n.name(i.get()).to_owned()),
                    g.moves.iter().map(|&(i, c)| (n.name(i).to_owned(), c)).collect::<Vec<_>>(),
                )).collect()
            };
            prop_assert_eq!(named(&out, &back), named(&segs, &ips));
            prop_assert!(w.take().is_none(), "the writer starts afresh");
        }
    }

    #[test]
    fn a_run_of_stalls_takes_a_few_bytes() {
        let ips = names();
        let stall = |k: i64| Segment::stall_run(k * B, 1, Some(StallIp::new(0)));
        let mut segs: Vec<Segment> = (1..=40).map(stall).collect();
        let mut moved = Segment {
            bucket: 41 * B,
            ..Segment::default()
        };
        moved.moves.push((0, 2));
        segs.push(moved);
        let mut w = ChunkWriter::default();
        w.push(&segs, &ips, B);
        let chunk = w.take().unwrap();
        // The IP (1 + 8 + 1), the run (1 + 1 + 1 + 1 + 1), the move (2 + 1 + 1 + 2).
        assert!(chunk.data.len() <= 24, "{} bytes", chunk.data.len());
        assert_eq!((chunk.segments, chunk.stalled), (41, 40));
    }

    #[test]
    fn a_damaged_chunk_is_an_error() {
        let ips = names();
        let mut seg = Segment {
            bucket: B,
            ..Segment::default()
        };
        seg.moves.push((1, 3));
        let mut w = ChunkWriter::default();
        w.push(&[seg], &ips, B);
        let chunk = w.take().unwrap();
        let mut out = Vec::new();
        let cut = &chunk.data[..chunk.data.len() - 1];
        assert!(decode(cut, B, B, |_| 0, &mut out).is_err());
    }
}
