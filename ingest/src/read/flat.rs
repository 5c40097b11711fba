//! The common JSON line read without serde: one flat object whose values
//! are plain strings, whole numbers or `null`, as every site's export and
//! the simulator write it.
//!
//! serde_json builds each line through its visitors (some 40 % of a
//! reader thread's time on the benchmark's 400k sparse world). [`flat_move`]
//! scans such a line in one pass instead, and gives up, handing the line
//! to serde_json, on anything else: an escape or a control byte in a
//! string, a nested value, `true` or `false`, a number with a sign, a
//! fraction, an exponent, a leading zero or more than 18 digits, a key met
//! twice, white space that is not JSON's, or anything after the object. So
//! what it returns is always what serde_json returns for the line, and
//! every error, and every value it would read otherwise, still comes from
//! serde_json (`tests` holds the two equal on arbitrary lines).

use super::text::Text;
use super::{JsonMove, JsonTime};
use std::borrow::Cow;

/// One value of a flat line.
#[derive(Clone, Copy)]
enum Value<'a> {
    Str(&'a str),
    Int(i64),
    Null,
}

/// `line`'s record as serde_json would read it, when the line is a flat
/// object of plain strings, whole numbers and `null`s (`None`: read it with
/// serde_json).
pub(super) fn flat_move(line: &str) -> Option<JsonMove<'_>> {
    let b = line.as_bytes();
    if b.first() != Some(&b'{') {
        return None;
    }
    let mut rec = Record::default();
    let mut i = space(b, 1);
    if b.get(i) == Some(&b'}') {
        return (i + 1 == b.len()).then_some(rec.fields);
    }
    loop {
        let (key, after) = plain_string(line, i)?;
        i = space(b, after);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let (value, after) = value(line, space(b, i + 1))?;
        rec.set(key, value)?;
        i = space(b, after);
        match b.get(i) {
            Some(b',') => i = space(b, i + 1),
            Some(b'}') if i + 1 == b.len() => return Some(rec.fields),
            _ => return None,
        }
    }
}

/// A record being read, with the fields met so far (a `null` is met and
/// leaves its field empty, as serde's derive counts it).
#[derive(Default)]
struct Record<'a> {
    fields: JsonMove<'a>,
    met: [bool; 5],
}

impl<'a> Record<'a> {
    /// Puts `value` in the field `key` names (keys the record has no field
    /// for are ignored, as serde ignores them); `None` where serde_json
    /// would refuse the line (a key met twice, a number for a name).
    fn set(&mut self, key: &str, value: Value<'a>) -> Option<()> {
        let field = match key {
            "username" => 0,
            "game" => 1,
            "ip" => 2,
            "timestamp_utc" => 3,
            "timestamp" => 4,
            _ => return Some(()),
        };
        if std::mem::replace(&mut self.met[field], true) {
            return None;
        }
        let f = &mut self.fields;
        let time = |v| match v {
            Value::Str(s) => Some(JsonTime::Text(Cow::Borrowed(s))),
            Value::Int(n) => Some(JsonTime::Epoch(n)),
            Value::Null => None,
        };
        let text = |v| match v {
            Value::Str(s) => Some(Some(Text(Cow::Borrowed(s)))),
            Value::Null => Some(None),
            // serde_json's error: a name must be a string.
            Value::Int(_) => None,
        };
        match field {
            0 => f.username = text(value)?,
            1 => f.game = text(value)?,
            2 => f.ip = text(value)?,
            3 => f.timestamp_utc = time(value),
            _ => f.timestamp = time(value),
        }
        Some(())
    }
}

/// The value at `i` and the index after it: a plain string, or a whole
/// number of 1 to 18 digits without sign or leading zero.
fn value(line: &str, i: usize) -> Option<(Value<'_>, usize)> {
    let b = line.as_bytes();
    match *b.get(i)? {
        b'"' => plain_string(line, i).map(|(s, end)| (Value::Str(s), end)),
        b'n' => line[i..]
            .starts_with("null")
            .then_some((Value::Null, i + 4)),
        b'0'..=b'9' => {
            let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            let end = i + digits;
            let plain = digits <= 18 && (b[i] != b'0' || digits == 1);
            if !plain || matches!(b.get(end), Some(b'.' | b'e' | b'E')) {
                return None;
            }
            Some((Value::Int(line[i..end].parse().ok()?), end))
        }
        _ => None,
    }
}

/// The string whose opening quote is at `i`, when it holds no escape and no
/// control byte, and the index after its closing quote.
fn plain_string(line: &str, i: usize) -> Option<(&str, usize)> {
    let b = line.as_bytes();
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let start = i + 1;
    let end = start + first_special(&b[start..])?;
    // Both bounds sit on ASCII bytes, so on character boundaries.
    (b[end] == b'"').then(|| (&line[start..end], end + 1))
}

/// JSON's white space from `i` on: the index after it.
fn space(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The index of the first byte in `b` that ends a plain string: its
/// closing quote, an escape, or a control byte (which JSON refuses inside
/// a string). Eight bytes at a time: a byte-by-byte loop was half of the
/// flat path's time.
fn first_special(b: &[u8]) -> Option<usize> {
    let mut words = b.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        let found = special_bytes(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let rest = words.remainder();
    rest.iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|k| at + k)
}

/// The high bit of each byte of `word` (little-endian) that is `"`, `\`
/// or below 0x20, exact up to the first such byte (the usual borrow of the
/// test for a zero byte may mark bytes after it, which nobody reads).
fn special_bytes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let below = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\'))) | below
}

#[cfg(test)]
mod tests;
