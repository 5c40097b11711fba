//! Time formats of move logs: `YYYY-MM-DD hh:mm:ss` (UTC), RFC 3339 with an
//! offset, and integer epoch seconds.

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use schema::Epoch;

/// Parses a time string: `YYYY-MM-DD hh:mm:ss` (UTC, also with `T`), RFC 3339
/// with an offset or `Z`, or integer epoch seconds written as a string.
pub fn parse_time(s: &str) -> Result<Epoch, String> {
    let s = s.trim();
    if let Some(t) = fast_utc(s.as_bytes()) {
        return Ok(t);
    }
    // chrono keeps a leap second (`23:59:60`) as second 59 with a
    // nanosecond past 1e9; epoch time has no leap seconds, so it is the
    // next second, as POSIX counts it.
    let leap = |nanos: u32| i64::from(nanos >= 1_000_000_000);
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.timestamp() + leap(t.timestamp_subsec_nanos()));
    }
    for fmt in ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, fmt) {
            let t = t.and_utc();
            return Ok(t.timestamp() + leap(t.timestamp_subsec_nanos()));
        }
    }
    if !s.is_empty()
        && s.bytes()
            .enumerate()
            .all(|(i, b)| b.is_ascii_digit() || (i == 0 && b == b'-'))
    {
        if let Ok(t) = s.parse::<i64>() {
            return Ok(t);
        }
    }
    // Echo at most 40 characters of what was there.
    let shown: String = s.chars().take(40).collect();
    let more = if shown.len() < s.len() { "..." } else { "" };
    Err(format!(
        "cannot read the time {shown:?}{more}: expected `YYYY-MM-DD hh:mm:ss` (UTC), RFC 3339 with an offset, or epoch seconds"
    ))
}

/// Parses a calendar date `YYYY-MM-DD` as the epoch second of its UTC midnight.
pub fn parse_date(s: &str) -> Result<Epoch, String> {
    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d")
        .map(|d| {
            d.and_hms_opt(0, 0, 0)
                .expect("midnight")
                .and_utc()
                .timestamp()
        })
        .map_err(|e| format!("cannot read the date {s:?} ({e}): expected YYYY-MM-DD"))
}

/// The fast path for the reference's own format, `YYYY-MM-DD hh:mm:ss` (or
/// with `T`), which is almost every line of a real log.
fn fast_utc(b: &[u8]) -> Option<Epoch> {
    if b.len() != 19 || b[4] != b'-' || b[7] != b'-' || !(b[10] == b' ' || b[10] == b'T') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let mut v = 0i64;
        for &c in &b[r] {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + (c - b'0') as i64;
        }
        Some(v)
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 59 {
        return None;
    }
    Some(days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
/// algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DD hh:mm:ss` of an epoch second, UTC.
pub fn format_utc(t: Epoch) -> String {
    DateTime::from_timestamp(t, 0)
        .map(|d| d.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_accepted_format() {
        assert_eq!(parse_time("2015-05-03 16:29:00"), Ok(1_430_670_540));
        assert_eq!(parse_time("2015-05-03T16:29:00"), Ok(1_430_670_540));
        assert_eq!(parse_time("2015-05-03T18:29:00+02:00"), Ok(1_430_670_540));
        assert_eq!(parse_time("2015-05-03T16:29:00Z"), Ok(1_430_670_540));
        assert_eq!(parse_time("1430670540"), Ok(1_430_670_540));
        assert_eq!(parse_time("2015-05-03 16:29:00.5"), Ok(1_430_670_540));
        // A leap second is the first second of the next day, not :59.
        assert_eq!(parse_time("2016-12-31 23:59:60"), Ok(1_483_228_800));
        assert_eq!(parse_time("2016-12-31T23:59:60Z"), Ok(1_483_228_800));
    }

    #[test]
    fn fast_path_agrees_with_chrono() {
        for t in [0i64, 951_782_400, 1_430_670_540, 4_102_444_799, -86_400] {
            let s = format_utc(t);
            assert_eq!(fast_utc(s.as_bytes()), Some(t), "{s}");
        }
    }

    #[test]
    fn rejects_nonsense() {
        for s in [
            "",
            "yesterday",
            "2015-02-30 10:00:00",
            "2015-05-03 24:00:00",
            "12ab",
        ] {
            assert!(parse_time(s).is_err(), "{s}");
        }
        assert!(parse_date("2015-13-01").is_err());
        assert_eq!(parse_date("2015-05-03"), Ok(1_430_611_200));
    }
}
