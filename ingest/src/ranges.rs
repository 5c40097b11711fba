//! A plain JSON-lines log cut into byte ranges that start at line starts,
//! so that several threads can parse one file (`report --input`). Each
//! range reads as a log of its own; its line numbers count from the
//! range's start, and [`lines_before`] turns them into the file's.
//!
//! What it is not: gzip, CSV (a header comes first) and standard input are
//! read in one piece.

use crate::read::{format_by_head, format_by_name, json_reader, Format, LogReader, ReadError};
use schema::rules::Limits;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::ops::Range;

/// The smallest range a log is cut into: a log of up to one and a half
/// times this is one range.
pub const MIN_RANGE: u64 = 256 << 10;
/// The largest: a reader thread holds about one range of moves ahead of
/// the segmenter.
pub const MAX_RANGE: u64 = 32 << 20;

/// The ranges of the plain JSON-lines log at `path`: about a quarter of
/// it each, between [`MIN_RANGE`] and [`MAX_RANGE`] bytes. `None` for a log
/// that is read in one piece (standard input, not a regular file, gzip,
/// CSV) or that cannot be opened (reading it whole says why).
pub fn json_ranges(path: &str) -> Option<Vec<Range<u64>>> {
    if path == "-" {
        return None;
    }
    let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
    let len = meta.len();
    let mut file = File::open(path).ok()?;
    let mut head = vec![0u8; 4096];
    let n = read_some(&mut file, &mut head).ok()?;
    head.truncate(n);
    if head.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    let format = format_by_name(path).unwrap_or_else(|| format_by_head(&head));
    let json = format == Format::JsonLines;
    if !json {
        return None;
    }
    let target = (len / 4).clamp(MIN_RANGE, MAX_RANGE);
    let mut ranges = Vec::new();
    let mut start = 0;
    while len - start > target + target / 2 {
        let Some(next) = line_start_after(&mut file, start + target).ok()? else {
            break;
        };
        ranges.push(start..next);
        start = next;
    }
    ranges.push(start..len);
    Some(ranges)
}

/// The offset of the first line that starts after `at`, if any.
fn line_start_after(file: &mut File, at: u64) -> std::io::Result<Option<u64>> {
    file.seek(SeekFrom::Start(at))?;
    let mut buf = vec![0u8; 1 << 16];
    let mut offset = at;
    loop {
        let n = read_some(file, &mut buf)?;
        if n == 0 {
            return Ok(None);
        }
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(Some(offset + i as u64 + 1));
        }
        offset += n as u64;
    }
}

fn read_some(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

/// Opens one range of a log [`json_ranges`] cut.
pub fn open_log_range(
    path: &str,
    limits: &Limits,
    range: Range<u64>,
) -> Result<LogReader, ReadError> {
    let name = crate::read::shown_name(path);
    let fail = |e: std::io::Error| ReadError {
        file: name.clone(),
        line: None,
        message: format!("cannot open: {e}"),
        io: false,
    };
    let mut file = File::open(path).map_err(fail)?;
    file.seek(SeekFrom::Start(range.start)).map_err(fail)?;
    let part = BufReader::with_capacity(1 << 16, file.take(range.end - range.start));
    Ok(json_reader(name, Box::new(part), limits))
}

/// The lines of `path` before byte `offset`: what a range's line numbers
/// are shifted by.
pub fn lines_before(path: &str, offset: u64) -> std::io::Result<u64> {
    let mut file = File::open(path)?.take(offset);
    let mut buf = vec![0u8; 1 << 16];
    let mut lines = 0;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(lines);
        }
        lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_the_log_and_start_at_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let line = |i: usize| {
            format!(
                "{{\"username\": \"u{}\", \"game\": \"g\", \"timestamp\": {}, \"ip\": \"10.0.0.{}\"}}\n",
                i % 7,
                1_430_000_000 + i,
                i % 5
            )
        };
        let text: String = (0..40_000).map(line).collect();
        std::fs::write(&path, &text).unwrap();
        let p = path.to_str().unwrap();
        let ranges = json_ranges(p).unwrap();
        assert!(ranges.len() >= 4, "{ranges:?}");
        assert_eq!(ranges[0].start, 0);
        assert_eq!(ranges.last().unwrap().end, text.len() as u64);
        let mut moves = 0;
        for w in ranges.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            assert_eq!(text.as_bytes()[w[1].start as usize - 1], b'\n');
        }
        for r in &ranges {
            let before = lines_before(p, r.start).unwrap();
            let mut reader = open_log_range(p, &Limits::default(), r.clone()).unwrap();
            while let Some(l) = reader.next_ref() {
                let (n, m) = l.unwrap();
                let i = (before + n - 1) as usize;
                assert_eq!(
                    m.unwrap().timestamp,
                    1_430_000_000 + i as i64,
                    "line {}",
                    i + 1
                );
                moves += 1;
            }
        }
        assert_eq!(moves, 40_000);
        // Small, gzip or CSV logs are read in one piece.
        std::fs::write(&path, line(1)).unwrap();
        assert_eq!(json_ranges(p).unwrap(), vec![0..line(1).len() as u64]);
        let csv = dir.path().join("log.csv");
        std::fs::write(&csv, "username,ip,timestamp\n").unwrap();
        assert!(json_ranges(csv.to_str().unwrap()).is_none());
        assert!(json_ranges("-").is_none());
    }
}
