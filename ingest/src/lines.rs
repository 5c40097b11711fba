//! Physical lines of a log, read with a bound: a line longer than the limit
//! is reported as soon as the limit is passed and its rest is skipped
//! without being kept, so memory stays bounded whatever the input (a file
//! of one endless line, `/dev/zero`).

use std::io::{self, BufRead};

/// The UTF-8 byte order mark, accepted at the start of every log.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One physical line: its bytes (without the line end, `\n` or `\r\n`, and
/// without a byte order mark on line 1), or how many bytes it had when it
/// passed the limit.
pub type Line<'a> = Result<&'a [u8], usize>;

pub struct BoundedLines {
    reader: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    number: u64,
    max: usize,
    /// The rest of an overlong line is still to be skipped.
    skipping: bool,
}

impl BoundedLines {
    pub fn new(reader: Box<dyn BufRead + Send>, max: usize) -> Self {
        BoundedLines {
            reader,
            buf: Vec::new(),
            number: 0,
            max,
            skipping: false,
        }
    }

    /// The 1-based number of the line last returned.
    pub fn number(&self) -> u64 {
        self.number
    }

    fn skip_rest(&mut self) -> io::Result<()> {
        while self.skipping {
            let avail = self.reader.fill_buf()?;
            if avail.is_empty() {
                self.skipping = false;
                break;
            }
            let (n, found) = match memchr::memchr(b'\n', avail) {
                Some(i) => (i + 1, true),
                None => (avail.len(), false),
            };
            self.reader.consume(n);
            if found {
                self.skipping = false;
            }
        }
        Ok(())
    }

    /// Reads the next line; `None` at the end. `Ok((n, None))` when line `n`
    /// is in [`BoundedLines::current`], `Ok((n, Some(len)))` when it passed
    /// the limit with `len` bytes.
    pub fn advance(&mut self) -> Option<io::Result<(u64, Option<usize>)>> {
        if let Err(e) = self.skip_rest() {
            return Some(Err(e));
        }
        self.buf.clear();
        let mut read_any = false;
        loop {
            let avail = match self.reader.fill_buf() {
                Ok(a) => a,
                Err(e) => return Some(Err(e)),
            };
            if avail.is_empty() {
                if !read_any {
                    return None;
                }
                break;
            }
            read_any = true;
            let (take, end) = match memchr::memchr(b'\n', avail) {
                Some(i) => (i, true),
                None => (avail.len(), false),
            };
            if self.buf.len() + take > self.max {
                let len = self.buf.len() + take;
                self.buf.clear();
                self.reader.consume(if end { take + 1 } else { take });
                self.skipping = !end;
                self.number += 1;
                return Some(Ok((self.number, Some(len))));
            }
            self.buf.extend_from_slice(&avail[..take]);
            self.reader.consume(if end { take + 1 } else { take });
            if end {
                break;
            }
        }
        self.number += 1;
        Some(Ok((self.number, None)))
    }

    /// The line last read, without its line end (and byte order mark).
    pub fn current(&self) -> &[u8] {
        let mut line = &self.buf[..];
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        if self.number == 1 {
            line = strip_bom(line);
        }
        line
    }

    /// The next line with its number; `None` at the end.
    pub fn next_line(&mut self) -> Option<io::Result<(u64, Line<'_>)>> {
        Some(self.advance()?.map(|(n, long)| match long {
            Some(len) => (n, Err(len)),
            None => (n, Ok(self.current())),
        }))
    }
}

/// `head` without a leading byte order mark.
pub fn strip_bom(head: &[u8]) -> &[u8] {
    head.strip_prefix(BOM).unwrap_or(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &'static [u8], max: usize) -> Vec<(u64, Result<Vec<u8>, usize>)> {
        let mut r = BoundedLines::new(Box::new(io::BufReader::with_capacity(4, input)), max);
        let mut out = Vec::new();
        while let Some(l) = r.next_line() {
            let (n, l) = l.unwrap();
            out.push((n, l.map(<[u8]>::to_vec)));
        }
        out
    }

    #[test]
    fn lines_end_with_lf_or_crlf_and_a_bom_is_dropped() {
        assert_eq!(
            lines(b"\xEF\xBB\xBFab\r\ncd\n\nef", 10),
            vec![
                (1, Ok(b"ab".to_vec())),
                (2, Ok(b"cd".to_vec())),
                (3, Ok(vec![])),
                (4, Ok(b"ef".to_vec()))
            ]
        );
    }

    #[test]
    fn an_overlong_line_is_one_error_and_the_next_line_is_read() {
        let got = lines(b"abcdefghijklmnop\nxy\n0123456789abc\nz", 8);
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(matches!(got[0], (1, Err(len)) if len > 8));
        assert_eq!(got[1], (2, Ok(b"xy".to_vec())));
        assert!(matches!(got[2], (3, Err(len)) if len > 8));
        assert_eq!(got[3], (4, Ok(b"z".to_vec())));
    }
}
