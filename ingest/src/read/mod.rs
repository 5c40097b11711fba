//! Readers of move logs: JSON lines (the reference format) and CSV with a
//! header, plain or gzip-compressed, from a file or standard input (`-`).
//!
//! Every line comes back as a [`LogLine`] or a [`ReadError`] that names the
//! file and the line. What to do with a bad line (reject the file, or skip
//! it) is the caller's choice.

use crate::lines::{strip_bom, BoundedLines};
use crate::time::parse_time;
use flate2::read::MultiGzDecoder;
use schema::rules::Limits;
use schema::{Epoch, Move};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

mod csv;
mod flat;
mod ids;
mod text;
use csv::{csv_line, read_header, CsvState};
pub use ids::{IdMove, NewNames, ReaderNames};
use text::Text;

/// A problem with a log: the file could not be read, or one of its lines is
/// not a move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// The file, or `<stdin>`.
    pub file: String,
    /// 1-based line number, when the problem is one line.
    pub line: Option<u64>,
    pub message: String,
    /// Reading failed (a broken gzip stream, a disk error): the rest of the
    /// file is lost, so this is never a bad line to skip.
    pub io: bool,
}

impl ReadError {
    /// Whether `--skip-bad` may skip it: one bad line, the file read on.
    pub fn is_bad_line(&self) -> bool {
        self.line.is_some() && !self.io
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}, line {}: {}", self.file, line, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ReadError {}

/// One good line of a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogLine {
    /// A move.
    Move(Move),
    /// A record without `username` or `ip`: it carries no signal and is
    /// skipped (counted, not an error).
    Skipped,
}

/// The format of a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    JsonLines,
    Csv,
}

/// An iterator over the lines of one log, each with its 1-based line number.
pub struct LogReader {
    file: String,
    lines: BoundedLines,
    limits: Limits,
    /// `None` for JSON lines.
    csv: Option<CsvState>,
    /// An I/O error ended the file.
    done: bool,
}

impl LogReader {
    /// The name of the log, as errors give it.
    pub fn file(&self) -> &str {
        &self.file
    }
}

/// Opens a log with the default [`Limits`]: see [`open_log_with`].
pub fn open_log(path: &str) -> Result<LogReader, ReadError> {
    open_log_with(path, &Limits::default())
}

/// Opens a log: a path, or `-` for standard input. Gzip is recognised by its
/// magic bytes; CSV by a `.csv` name (before any `.gz`), else by a first line
/// that does not start with `{`. Every record is checked against `limits`
/// (see [`schema::rules`]); lines are read with a bound of
/// `limits.max_line` bytes.
pub fn open_log_with(path: &str, limits: &Limits) -> Result<LogReader, ReadError> {
    open_log_as(path, path, limits)
}

/// Opens the log at `path` as [`open_log_with`] does, but named (and its
/// format told by the name) as `shown`: a copy of standard input (`-`) or
/// of a named pipe, spooled to a temporary file before an ingest.
pub fn open_log_as(path: &str, shown: &str, limits: &Limits) -> Result<LogReader, ReadError> {
    let name = shown_name(shown);
    let fail = |message: String| ReadError {
        file: name.clone(),
        line: None,
        message,
        io: false,
    };
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(io::stdin())
    } else {
        warn_if_fifo(path, &name);
        Box::new(File::open(path).map_err(|e| fail(format!("cannot open: {e}")))?)
    };
    let mut buffered = BufReader::with_capacity(1 << 16, raw);
    let magic = buffered
        .fill_buf()
        .map_err(|e| fail(format!("cannot read: {e}")))?;
    let mut reader: Box<dyn BufRead + Send> = if magic.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::with_capacity(
            1 << 16,
            MultiGzDecoder::new(buffered),
        ))
    } else {
        Box::new(buffered)
    };
    let format = match format_by_name(shown) {
        Some(f) => f,
        None => format_by_head(
            reader
                .fill_buf()
                .map_err(|e| fail(format!("cannot read: {e}")))?,
        ),
    };
    let mut lines = BoundedLines::new(reader, limits.max_line);
    let csv = match format {
        Format::JsonLines => None,
        Format::Csv => Some(read_header(&mut lines, &name)?),
    };
    Ok(LogReader {
        file: name,
        lines,
        limits: *limits,
        csv,
        done: false,
    })
}

/// A log's format by its name: CSV for `.csv`, JSON lines for `.jsonl`,
/// `.json` or `.ndjson` (before any `.gz`); `None` for any other name.
pub(crate) fn format_by_name(path: &str) -> Option<Format> {
    let stem = path
        .strip_suffix(".gz")
        .unwrap_or(path)
        .to_ascii_lowercase();
    if stem.ends_with(".csv") {
        Some(Format::Csv)
    } else if stem.ends_with(".jsonl") || stem.ends_with(".json") || stem.ends_with(".ndjson") {
        Some(Format::JsonLines)
    } else {
        None
    }
}

/// A log's format by its first bytes (decompressed): JSON lines when the
/// first that is not white space is `{`, or there is none; else CSV.
pub(crate) fn format_by_head(head: &[u8]) -> Format {
    match strip_bom(head).iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') | None => Format::JsonLines,
        Some(_) => Format::Csv,
    }
}

/// A JSON-lines log read from `reader` (a range of a file: see
/// [`crate::ranges`]).
pub(crate) fn json_reader(
    name: String,
    reader: Box<dyn BufRead + Send>,
    limits: &Limits,
) -> LogReader {
    LogReader {
        file: name,
        lines: BoundedLines::new(reader, limits.max_line),
        limits: *limits,
        csv: None,
        done: false,
    }
}

/// How messages name the log at `path`: `<stdin>` for `-`; a file name
/// may hold a newline or an escape sequence, so it is shown escaped.
pub fn shown_name(path: &str) -> String {
    if path == "-" {
        "<stdin>".to_owned()
    } else {
        schema::terminal::terminal(path).into_owned()
    }
}

/// Opening a FIFO blocks until something writes to it: say so, instead of
/// hanging without a word.
pub fn warn_if_fifo(path: &str, name: &str) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) {
            eprintln!("{name} is a named pipe: waiting for a writer to open it");
        }
    }
}

#[derive(Deserialize, Debug, Default, PartialEq)]
struct JsonMove<'a> {
    #[serde(borrow, default)]
    username: Option<Text<'a>>,
    #[serde(borrow, default)]
    game: Option<Text<'a>>,
    #[serde(borrow, default)]
    timestamp_utc: Option<JsonTime<'a>>,
    #[serde(borrow, default)]
    timestamp: Option<JsonTime<'a>>,
    #[serde(borrow, default)]
    ip: Option<Text<'a>>,
}

/// A time field: epoch seconds (integer or with a fraction) or text. Read
/// by a visitor that takes whatever JSON type is there, so that a good line
/// builds no error on the way.
#[derive(Debug, PartialEq)]
enum JsonTime<'a> {
    Epoch(i64),
    /// Epoch seconds with a fraction, floored to the second.
    Fractional(f64),
    Text(Cow<'a, str>),
}

/// What an error about a time field says it expected (and how
/// [`json_line`] recognises it).
const TIME_EXPECTED: &str = "a time: text or epoch seconds";

impl<'de: 'a, 'a> Deserialize<'de> for JsonTime<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = JsonTime<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(TIME_EXPECTED)
            }
            fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
                Ok(JsonTime::Epoch(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                // Too large for epoch seconds: as the float it is, which
                // the range rule then refuses.
                Ok(i64::try_from(v).map_or(JsonTime::Fractional(v as f64), JsonTime::Epoch))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
                Ok(JsonTime::Fractional(v))
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(JsonTime::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(JsonTime::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(JsonTime::Text(Cow::Owned(v)))
            }
        }
        d.deserialize_any(Visit(std::marker::PhantomData))
    }
}

/// A move borrowed from the reader's line buffer: no allocation unless a
/// field holds JSON escapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveRef<'a> {
    pub username: Cow<'a, str>,
    pub game: Cow<'a, str>,
    pub timestamp: Epoch,
    pub ip: Cow<'a, str>,
}

impl MoveRef<'_> {
    pub fn into_owned(self) -> Move {
        Move {
            username: self.username.into_owned(),
            game: self.game.into_owned(),
            timestamp: self.timestamp,
            ip: self.ip.into_owned(),
        }
    }
}

/// One good line, borrowed: a move, or `None` for a skipped record.
pub type LineRef<'a> = Option<MoveRef<'a>>;

/// A record the rule accepts, its IP in normal form, or the rule's word on
/// it.
fn checked<'a>(mut m: MoveRef<'a>, limits: &Limits) -> Result<MoveRef<'a>, String> {
    limits
        .check(&m.username, &m.game, m.timestamp, &m.ip)
        .map_err(|v| v.to_string())?;
    m.ip = match m.ip {
        Cow::Borrowed(ip) => schema::rules::normal_ip(ip),
        Cow::Owned(ip) => schema::rules::normal_ip(&ip).map(|n| Cow::Owned(n.into_owned())),
    }
    .map_err(|v| v.to_string())?;
    Ok(m)
}

/// A JSON line's record as written, not yet checked against the rule.
fn json_line<'t>(text: &'t str, limits: &Limits) -> Result<LineRef<'t>, String> {
    if !text.starts_with('{') {
        return Err("bad JSON: a line must be one JSON object, {...}".to_owned());
    }
    // The common flat line without serde; anything else through serde_json.
    let parsed = flat::flat_move(text).map_or_else(|| serde_json::from_str(text), Ok);
    let rec: JsonMove = parsed.map_err(|e| {
        if e.to_string().contains(TIME_EXPECTED) {
            format!(
                "bad time at column {}: it must be text or epoch seconds",
                e.column()
            )
        } else {
            format!("bad JSON: {e}")
        }
    })?;
    // As in the reference, a record without username or IP is dropped
    // before its time is read.
    let (Some(Text(username)), Some(Text(ip))) = (rec.username, rec.ip) else {
        return Ok(None);
    };
    let time = match rec.timestamp_utc.or(rec.timestamp) {
        Some(JsonTime::Epoch(t)) => t,
        Some(JsonTime::Fractional(t)) if t.is_finite() && t.abs() < 1e17 => t.floor() as i64,
        // No epoch second at all: refused with the value as written.
        Some(JsonTime::Fractional(t)) if t.is_finite() => {
            return Err(limits.time_as_written(format!("{t:e}")).to_string())
        }
        Some(JsonTime::Fractional(t)) => return Err(format!("bad time {t}")),
        Some(JsonTime::Text(s)) => parse_time(&s)?,
        None => return Err("no `timestamp_utc` or `timestamp` field".to_owned()),
    };
    Ok(Some(MoveRef {
        username,
        game: rec.game.map(|Text(g)| g).unwrap_or_default(),
        timestamp: time,
        ip,
    }))
}

impl LogReader {
    /// The next line, borrowed from the reader's buffer (the fast way to
    /// read a large log); `None` at the end.
    pub fn next_ref(&mut self) -> Option<Result<(u64, LineRef<'_>), ReadError>> {
        self.next_with(checked)
    }

    /// The next line, its record (as written) handed to `finish` with the
    /// limits to check it against; `None` at the end.
    fn next_with<'s, T>(
        &'s mut self,
        finish: impl FnOnce(MoveRef<'s>, &Limits) -> Result<T, String>,
    ) -> Option<Result<(u64, Option<T>), ReadError>> {
        if self.done {
            return None;
        }
        let LogReader {
            file,
            lines,
            limits,
            csv,
            done,
        } = self;
        let fail = |line: u64, message: String| ReadError {
            file: file.clone(),
            line: Some(line),
            message,
            io: false,
        };
        let n = loop {
            let n = match lines.advance()? {
                Ok((n, None)) => n,
                Ok((n, Some(len))) => {
                    return Some(Err(fail(
                        n,
                        format!(
                            "the line is longer than the limit of {} bytes ({len} bytes or more)",
                            limits.max_line
                        ),
                    )))
                }
                // An I/O error ends the file: there is no next line.
                Err(e) => {
                    *done = true;
                    let mut err = fail(lines.number() + 1, format!("cannot read: {e}"));
                    err.io = true;
                    return Some(Err(err));
                }
            };
            if !lines.current().iter().all(u8::is_ascii_whitespace) {
                break n;
            }
        };
        let text = match std::str::from_utf8(lines.current()) {
            Ok(t) => t,
            Err(e) => {
                return Some(Err(fail(
                    n,
                    format!("not valid UTF-8 (at byte {})", e.valid_up_to() + 1),
                )))
            }
        };
        let parsed = match csv {
            None => json_line(text.trim(), limits),
            Some(state) => csv_line(state, text),
        };
        let finished = parsed.and_then(|line| line.map(|m| finish(m, limits)).transpose());
        Some(finished.map(|l| (n, l)).map_err(|m| fail(n, m)))
    }
}

impl Iterator for LogReader {
    type Item = Result<(u64, LogLine), ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_ref().map(|r| {
            r.map(|(n, line)| {
                let line = match line {
                    Some(m) => LogLine::Move(m.into_owned()),
                    None => LogLine::Skipped,
                };
                (n, line)
            })
        })
    }
}

#[cfg(test)]
mod tests;
