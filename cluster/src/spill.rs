//! Settled segments kept on disk, one file a part, until their part is
//! written (`detect export --input`): reading a log hands over each
//! account's segments as no later move can change them, and the season is
//! never held whole. The encoding is this process's own (ids, not names;
//! little-endian), read back by the same run and deleted.

use anyhow::{Context, Result};
use schema::{AccountId, Names, Segment, StallIp};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

/// An account's segments handed over before the rest, by account.
pub type Earlier = HashMap<AccountId, Vec<Segment>>;

/// One file a part of settled segments, under a folder of its own.
pub struct Spill {
    dir: PathBuf,
    partitions: u32,
    files: Vec<Option<BufWriter<File>>>,
    /// The part of each account id met so far.
    part_of: Vec<u32>,
}

impl Spill {
    /// Creates `dir` (which must not exist) for `partitions` parts.
    pub fn create(dir: &Path, partitions: u32) -> Result<Spill> {
        std::fs::create_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let partitions = partitions.max(1);
        let mut spill = Spill {
            dir: dir.to_owned(),
            partitions,
            files: Vec::new(),
            part_of: Vec::new(),
        };
        spill.open()?;
        Ok(spill)
    }

    fn path(&self, part: u32) -> PathBuf {
        self.dir.join(format!("part-{part:05}.bin"))
    }

    /// Opens every part's file empty.
    fn open(&mut self) -> Result<()> {
        self.files = (0..self.partitions)
            .map(|p| {
                let path = self.path(p);
                let file = File::create(&path)
                    .with_context(|| format!("cannot create {}", path.display()))?;
                Ok(Some(BufWriter::new(file)))
            })
            .collect::<Result<_>>()?;
        Ok(())
    }

    /// Appends settled segments (ids of `accounts`) to their accounts' parts.
    pub fn push(
        &mut self,
        accounts: &Names,
        settled: Vec<(AccountId, Vec<Segment>)>,
    ) -> Result<()> {
        for id in self.part_of.len()..accounts.len() {
            let part = crate::layout::partition_of(accounts.name(id as AccountId), self.partitions);
            self.part_of.push(part);
        }
        for (account, segs) in settled {
            let part = self.part_of[account as usize];
            let out = self.files[part as usize]
                .as_mut()
                .context("a spilled part was read before the reading ended")?;
            write_account(out, account, &segs)
                .with_context(|| format!("cannot write {}", self.path(part).display()))?;
        }
        Ok(())
    }

    /// Drops everything spilled so far.
    pub fn restart(&mut self) -> Result<()> {
        // The old writers first: dropped later, they would flush their
        // buffers into the files just emptied.
        self.files.clear();
        self.open()
    }

    /// Part `part`'s spilled segments, by account, in the order handed
    /// over; its file is deleted.
    pub fn take_part(&mut self, part: u32) -> Result<Earlier> {
        let path = self.path(part);
        if let Some(out) = self.files[part as usize].take() {
            out.into_inner()
                .map_err(|e| e.into_error())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        let file = File::open(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut input = BufReader::new(file);
        let mut earlier = Earlier::new();
        while let Some(account) = read_u32_or_end(&mut input)? {
            let segs = read_segments(&mut input)
                .with_context(|| format!("cannot read {}", path.display()))?;
            earlier.entry(account).or_default().extend(segs);
        }
        std::fs::remove_file(&path).with_context(|| format!("cannot delete {}", path.display()))?;
        Ok(earlier)
    }

    /// Deletes the folder (its parts taken or not).
    pub fn remove(self) -> Result<()> {
        drop(self.files);
        std::fs::remove_dir_all(&self.dir)
            .with_context(|| format!("cannot delete {}", self.dir.display()))
    }
}

fn write_account(
    out: &mut impl Write,
    account: AccountId,
    segs: &[Segment],
) -> std::io::Result<()> {
    out.write_all(&account.to_le_bytes())?;
    out.write_all(&(segs.len() as u32).to_le_bytes())?;
    for s in segs {
        out.write_all(&s.bucket.to_le_bytes())?;
        out.write_all(&s.stalls.to_le_bytes())?;
        // 0 for none, else the IP id + 1 (StallIp's own encoding).
        let stall_ip = s.stall_ip.map_or(0, |ip| ip.get() + 1);
        out.write_all(&stall_ip.to_le_bytes())?;
        out.write_all(&(s.moves.len() as u32).to_le_bytes())?;
        for &(ip, count) in s.moves.iter() {
            out.write_all(&ip.to_le_bytes())?;
            out.write_all(&count.to_le_bytes())?;
        }
    }
    Ok(())
}

fn read_segments(input: &mut impl Read) -> std::io::Result<Vec<Segment>> {
    let n = read_u32(input)?;
    let mut segs = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let mut bucket = [0u8; 8];
        input.read_exact(&mut bucket)?;
        let stalls = read_u32(input)?;
        let stall_ip = read_u32(input)?;
        let moves = read_u32(input)?;
        let moves = (0..moves)
            .map(|_| Ok((read_u32(input)?, read_u32(input)?)))
            .collect::<std::io::Result<_>>()?;
        segs.push(Segment {
            bucket: i64::from_le_bytes(bucket),
            moves,
            stalls,
            stall_ip: stall_ip.checked_sub(1).map(StallIp::new),
        });
    }
    Ok(segs)
}

fn read_u32(input: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    input.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// The next u32, or `None` at the end of the file.
fn read_u32_or_end(input: &mut impl Read) -> Result<Option<u32>> {
    let mut b = [0u8; 4];
    match input.read_exact(&mut b) {
        Ok(()) => Ok(Some(u32::from_le_bytes(b))),
        Err(e) if e.kind() == ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spilled_segments_read_back_by_part_in_order() {
        let tmp = std::env::temp_dir().join(format!("detect-spill-{}", std::process::id()));
        let mut names = Names::default();
        let (a, b) = (names.intern("alice"), names.intern("bob"));
        let moved = |bucket: i64, ip: u32| Segment {
            bucket,
            moves: [(ip, 3), (ip + 1, 1)].into_iter().collect(),
            stalls: 1,
            stall_ip: None,
        };
        let stall = Segment::stall_run(1800, 4, Some(StallIp::new(7)));
        let mut spill = Spill::create(&tmp, 3).unwrap();
        spill
            .push(&names, vec![(a, vec![stall.clone(), moved(9000, 2)])])
            .unwrap();
        spill
            .push(
                &names,
                vec![(b, vec![moved(0, 0)]), (a, vec![moved(10_800, 5)])],
            )
            .unwrap();
        let mut got = Earlier::new();
        for p in 0..3 {
            got.extend(spill.take_part(p).unwrap());
        }
        spill.remove().unwrap();
        assert!(!tmp.exists());
        assert_eq!(got[&a], vec![stall, moved(9000, 2), moved(10_800, 5)]);
        assert_eq!(got[&b], vec![moved(0, 0)]);
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn a_restart_drops_what_was_spilled() {
        let tmp = std::env::temp_dir().join(format!("detect-spill-r-{}", std::process::id()));
        let mut names = Names::default();
        let a = names.intern("alice");
        let mut spill = Spill::create(&tmp, 2).unwrap();
        spill
            .push(&names, vec![(a, vec![Segment::moved(0)])])
            .unwrap();
        spill.restart().unwrap();
        let got: usize = (0..2).map(|p| spill.take_part(p).unwrap().len()).sum();
        spill.remove().unwrap();
        assert_eq!(got, 0);
    }
}
