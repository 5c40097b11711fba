//! Writing moves as JSON lines in the reference format, without a per-move
//! allocation: the date part of the time is cached per day and numbers are
//! written by hand.

use std::io::{self, Write};

/// The calendar date `(year, month, day)` of a day number (days since
/// 1970-01-01), proleptic Gregorian (H. Hinnant's `civil_from_days`).
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Formats `t` (UTC epoch seconds) as `YYYY-MM-DD hh:mm:ss`.
pub fn format_utc(t: i64) -> String {
    let mut s = Vec::with_capacity(19);
    let mut cache = DateCache::default();
    cache.push(&mut s, t);
    String::from_utf8(s).expect("ASCII")
}

/// Remembers the formatted date of the last day seen.
#[derive(Default)]
struct DateCache {
    day: Option<i64>,
    date: [u8; 11],
}

impl DateCache {
    fn push(&mut self, out: &mut Vec<u8>, t: i64) {
        let day = t.div_euclid(86_400);
        if self.day != Some(day) {
            let (y, m, d) = civil_from_days(day);
            let mut w = &mut self.date[..];
            // Four-digit years only: the simulator's worlds live in 1970-9999.
            let y = y.clamp(0, 9999) as u32;
            write!(w, "{y:04}-{m:02}-{d:02} ").expect("11 bytes");
            self.day = Some(day);
        }
        out.extend_from_slice(&self.date);
        let s = t.rem_euclid(86_400) as u32;
        push2(out, s / 3600);
        out.push(b':');
        push2(out, s / 60 % 60);
        out.push(b':');
        push2(out, s % 60);
    }
}

fn push2(out: &mut Vec<u8>, v: u32) {
    out.push(b'0' + (v / 10) as u8);
    out.push(b'0' + (v % 10) as u8);
}

fn push_u8(out: &mut Vec<u8>, v: u8) {
    if v >= 100 {
        out.push(b'0' + v / 100);
    }
    if v >= 10 {
        out.push(b'0' + v / 10 % 10);
    }
    out.push(b'0' + v % 10);
}

/// Writes dotted-quad `ip`.
pub(crate) fn push_ip(out: &mut Vec<u8>, ip: u32) {
    let b = ip.to_be_bytes();
    for (i, &x) in b.iter().enumerate() {
        if i > 0 {
            out.push(b'.');
        }
        push_u8(out, x);
    }
}

/// Buffers JSON lines and hands them to a writer in large blocks.
pub(crate) struct JsonLines<'w, W: Write> {
    out: &'w mut W,
    buf: Vec<u8>,
    dates: DateCache,
}

const BLOCK: usize = 1 << 16;

impl<'w, W: Write> JsonLines<'w, W> {
    pub(crate) fn new(out: &'w mut W) -> Self {
        JsonLines {
            out,
            buf: Vec::with_capacity(BLOCK + 512),
            dates: DateCache::default(),
        }
    }

    /// Appends one move. Usernames and game names must need no JSON escaping
    /// (the simulator's are plain ASCII handles).
    pub(crate) fn push(&mut self, username: &str, game: &str, t: i64, ip: u32) -> io::Result<()> {
        debug_assert!(plain(username) && plain(game));
        let b = &mut self.buf;
        b.extend_from_slice(b"{\"username\": \"");
        b.extend_from_slice(username.as_bytes());
        b.extend_from_slice(b"\", \"game\": \"");
        b.extend_from_slice(game.as_bytes());
        b.extend_from_slice(b"\", \"timestamp_utc\": \"");
        self.dates.push(b, t);
        b.extend_from_slice(b"\", \"ip\": \"");
        push_ip(b, ip);
        b.extend_from_slice(b"\"}\n");
        if self.buf.len() >= BLOCK {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    pub(crate) fn finish(mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }
}

/// Printable ASCII without the characters JSON or CSV would need to quote.
pub(crate) fn plain(s: &str) -> bool {
    s.bytes()
        .all(|c| c.is_ascii_graphic() && c != b'"' && c != b'\\' && c != b',')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_match_known_epochs() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00");
        assert_eq!(format_utc(1_430_647_200), "2015-05-03 10:00:00");
        assert_eq!(format_utc(1_767_571_200 + 86_399), "2026-01-05 23:59:59");
        // 2024-02-29 12:34:56 UTC, a leap day.
        assert_eq!(format_utc(1_709_210_096), "2024-02-29 12:34:56");
    }

    #[test]
    fn ips_are_dotted_quads() {
        let mut v = Vec::new();
        push_ip(&mut v, u32::from_be_bytes([1, 20, 255, 0]));
        assert_eq!(v, b"1.20.255.0");
    }

    #[test]
    fn lines_have_the_reference_shape() {
        let mut out = Vec::new();
        let mut w = JsonLines::new(&mut out);
        w.push("kai88", "4pLeague_S1_D1L1G1", 1_430_670_540, 0x0a00_0001)
            .unwrap();
        w.finish().unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"username\": \"kai88\", \"game\": \"4pLeague_S1_D1L1G1\", \
             \"timestamp_utc\": \"2015-05-03 16:29:00\", \"ip\": \"10.0.0.1\"}\n"
        );
    }
}
