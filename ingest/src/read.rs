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

/// What the CSV side keeps between lines: the columns found in the header
/// and the buffers of the field splitter.
struct CsvState {
    columns: CsvColumns,
    header_len: usize,
    core: csv_core::Reader,
    out: Vec<u8>,
    ends: Vec<usize>,
}

#[derive(Clone, Copy)]
struct CsvColumns {
    username: usize,
    game: Option<usize>,
    timestamp: usize,
    ip: usize,
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
    let name = if path == "-" {
        "<stdin>".to_owned()
    } else {
        path.to_owned()
    };
    let fail = |message: String| ReadError {
        file: name.clone(),
        line: None,
        message,
        io: false,
    };
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(io::stdin())
    } else {
        warn_if_fifo(path);
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
    let stem = path
        .strip_suffix(".gz")
        .unwrap_or(path)
        .to_ascii_lowercase();
    let format = if stem.ends_with(".csv") {
        Format::Csv
    } else if stem.ends_with(".jsonl") || stem.ends_with(".json") || stem.ends_with(".ndjson") {
        Format::JsonLines
    } else {
        let head = reader
            .fill_buf()
            .map_err(|e| fail(format!("cannot read: {e}")))?;
        match strip_bom(head).iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') | None => Format::JsonLines,
            Some(_) => Format::Csv,
        }
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

/// Opening a FIFO blocks until something writes to it: say so, instead of
/// hanging without a word.
fn warn_if_fifo(path: &str) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) {
            eprintln!("{path} is a named pipe: waiting for a writer to open it");
        }
    }
}

/// Reads the CSV header (the first line that is not blank) and finds the
/// columns. The error never echoes the line: if it is a record rather than
/// a header, it holds an IP address.
fn read_header(lines: &mut BoundedLines, name: &str) -> Result<CsvState, ReadError> {
    let fail = |line: Option<u64>, message: String| ReadError {
        file: name.to_owned(),
        line,
        message,
        io: false,
    };
    let mut state = CsvState {
        columns: CsvColumns {
            username: 0,
            game: None,
            timestamp: 0,
            ip: 0,
        },
        header_len: 0,
        core: csv_core::Reader::new(),
        out: Vec::new(),
        ends: Vec::new(),
    };
    let (n, headers) = loop {
        let Some(next) = lines.next_line() else {
            return Err(fail(None, "empty CSV: no header line".to_owned()));
        };
        let (n, line) = next.map_err(|e| fail(None, format!("cannot read: {e}")))?;
        let line = line.map_err(|len| {
            fail(
                Some(n),
                format!("the CSV header is longer than the limit ({len} bytes or more)"),
            )
        })?;
        let text = std::str::from_utf8(line)
            .map_err(|_| fail(Some(n), "the CSV header is not valid UTF-8".to_owned()))?;
        if text.trim().is_empty() {
            continue;
        }
        let fields = split_csv(&mut state, text)
            .map_err(|m| fail(Some(n), format!("bad CSV header: {m}")))?
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>();
        break (n, fields);
    };
    let find = |names: &[&str]| {
        names.iter().find_map(|want| {
            headers
                .iter()
                .position(|h| h.trim().eq_ignore_ascii_case(want))
        })
    };
    let looks_like_names = headers.iter().all(|h| {
        h.len() <= 40
            && h.trim()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    let need = |names: &[&str]| {
        find(names).ok_or_else(|| {
            let has = if looks_like_names {
                format!("it has: {}", headers.join(", "))
            } else {
                format!(
                    "its {} fields do not look like column names; a CSV log starts with a header such as \
                     username,game,timestamp_utc,ip",
                    headers.len()
                )
            };
            fail(
                Some(n),
                format!("the CSV header has no `{}` column ({has})", names[0]),
            )
        })
    };
    state.columns = CsvColumns {
        username: need(&["username"])?,
        game: find(&["game"]),
        timestamp: need(&["timestamp_utc", "timestamp"])?,
        ip: need(&["ip"])?,
    };
    state.header_len = headers.len();
    Ok(state)
}

/// Splits one CSV line into its fields (quotes removed). A field cannot
/// span lines: a line with an odd number of quote characters is an error,
/// not the start of a field that swallows the rest of the file.
fn split_csv<'s>(state: &'s mut CsvState, line: &str) -> Result<Vec<&'s str>, String> {
    let bytes = line.as_bytes();
    if bytes.iter().filter(|&&b| b == b'"').count() % 2 == 1 {
        return Err("unbalanced quote (a field cannot span lines)".to_owned());
    }
    state.core.reset();
    state.out.resize(bytes.len() + 1, 0);
    state.ends.resize(bytes.len() + 2, 0);
    let (mut nin, mut nout, mut nend) = (0, 0, 0);
    loop {
        let (res, i, o, e) = state.core.read_record(
            &bytes[nin..],
            &mut state.out[nout..],
            &mut state.ends[nend..],
        );
        nin += i;
        nout += o;
        nend += e;
        match res {
            csv_core::ReadRecordResult::InputEmpty => continue,
            csv_core::ReadRecordResult::Record | csv_core::ReadRecordResult::End => break,
            _ => return Err("cannot split the line into fields".to_owned()),
        }
    }
    let mut fields = Vec::with_capacity(nend);
    let mut start = 0;
    for &end in &state.ends[..nend] {
        // Removing ASCII quotes from valid UTF-8 leaves valid UTF-8.
        fields.push(
            std::str::from_utf8(&state.out[start..end])
                .map_err(|_| "not valid UTF-8".to_owned())?,
        );
        start = end;
    }
    Ok(fields)
}

#[derive(Deserialize)]
struct JsonMove<'a> {
    #[serde(borrow, default)]
    username: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    game: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp_utc: Option<JsonTime<'a>>,
    #[serde(borrow, default)]
    timestamp: Option<JsonTime<'a>>,
    #[serde(borrow, default)]
    ip: Option<Cow<'a, str>>,
}

/// A time field: epoch seconds (integer or with a fraction) or text. Read
/// by a visitor that takes whatever JSON type is there, so that a good line
/// builds no error on the way.
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

/// A record the rule accepts, or the rule's word on it.
fn checked<'a>(m: MoveRef<'a>, limits: &Limits) -> Result<LineRef<'a>, String> {
    limits
        .check(&m.username, &m.game, m.timestamp, &m.ip)
        .map_err(|v| v.to_string())?;
    Ok(Some(m))
}

fn json_line<'t>(text: &'t str, limits: &Limits) -> Result<LineRef<'t>, String> {
    if !text.starts_with('{') {
        return Err("bad JSON: a line must be one JSON object, {...}".to_owned());
    }
    let rec: JsonMove = serde_json::from_str(text).map_err(|e| {
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
    let (Some(username), Some(ip)) = (rec.username, rec.ip) else {
        return Ok(None);
    };
    let time = match rec.timestamp_utc.or(rec.timestamp) {
        Some(JsonTime::Epoch(t)) => t,
        // Saturates far outside the range, which the rule then refuses.
        Some(JsonTime::Fractional(t)) if t.is_finite() => t.floor() as i64,
        Some(JsonTime::Fractional(t)) => return Err(format!("bad time {t}")),
        Some(JsonTime::Text(s)) => parse_time(&s)?,
        None => return Err("no `timestamp_utc` or `timestamp` field".to_owned()),
    };
    checked(
        MoveRef {
            username,
            game: rec.game.unwrap_or_default(),
            timestamp: time,
            ip,
        },
        limits,
    )
}

/// A CSV record: as many fields as the header. An empty cell is how CSV
/// writes a missing value: an empty `username` or `ip` cell is read as JSON's
/// `null`, and the record is skipped. A cell of white space is a value, and
/// breaks the rule.
fn csv_line<'r>(
    state: &'r mut CsvState,
    text: &str,
    limits: &Limits,
) -> Result<LineRef<'r>, String> {
    let want = state.header_len;
    let c = state.columns;
    let fields = split_csv(state, text)?;
    if fields.len() != want {
        return Err(format!(
            "the record has {} fields, the header has {want}",
            fields.len()
        ));
    }
    if fields[c.username].is_empty() || fields[c.ip].is_empty() {
        return Ok(None);
    }
    let time = parse_time(fields[c.timestamp])?;
    checked(
        MoveRef {
            username: Cow::Borrowed(fields[c.username]),
            game: Cow::Borrowed(c.game.map_or("", |g| fields[g])),
            timestamp: time,
            ip: Cow::Borrowed(fields[c.ip]),
        },
        limits,
    )
}

impl LogReader {
    /// The next line, borrowed from the reader's buffer (the fast way to
    /// read a large log); `None` at the end.
    pub fn next_ref(&mut self) -> Option<Result<(u64, LineRef<'_>), ReadError>> {
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
            Some(state) => csv_line(state, text, limits),
        };
        Some(parsed.map(|l| (n, l)).map_err(|m| fail(n, m)))
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
mod tests {
    use super::*;
    use std::io::Write;

    fn read_all(name: &str, content: &[u8]) -> Vec<Result<(u64, LogLine), ReadError>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        open_log(path.to_str().unwrap()).unwrap().collect()
    }

    fn mv(u: &str, g: &str, t: i64, ip: &str) -> LogLine {
        LogLine::Move(Move {
            username: u.into(),
            game: g.into(),
            timestamp: t,
            ip: ip.into(),
        })
    }

    #[test]
    fn json_lines_with_every_time_format_and_skips() {
        let log = br#"{"username": "a", "game": "g", "timestamp_utc": "2015-05-03 16:29:00", "ip": "1.2.3.4", "extra": [1]}
{"username": "b", "timestamp": 1430670540, "ip": "x"}

{"username": null, "game": "g", "timestamp": "2015-05-03T18:29:00+02:00", "ip": "1"}
{"username": "c", "game": "g", "timestamp": "2015-05-03T16:29:00Z"}
{"ip": "1", "timestamp": "no time at all"}
"#;
        let lines: Vec<_> = read_all("log", log)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            lines,
            vec![
                (1, mv("a", "g", 1_430_670_540, "1.2.3.4")),
                (2, mv("b", "", 1_430_670_540, "x")),
                (4, LogLine::Skipped),
                (5, LogLine::Skipped),
                (6, LogLine::Skipped),
            ]
        );
    }

    #[test]
    fn odd_json_values_get_clear_errors() {
        let log = b"{\"username\": \"a\", \"timestamp\": 1430670540.7, \"ip\": \"1\"}\n[1, 2]\n{\"username\": \"a\", \"timestamp\": true, \"ip\": \"1\"}\n";
        let lines = read_all("odd.jsonl", log);
        assert_eq!(
            lines[0].clone().unwrap(),
            (1, mv("a", "", 1_430_670_540, "1"))
        );
        let e = lines[1].clone().unwrap_err();
        assert!(e.message.contains("must be one JSON object"), "{e}");
        let e = lines[2].clone().unwrap_err();
        assert!(e.message.contains("must be text or epoch seconds"), "{e}");
    }

    #[test]
    fn bad_lines_name_the_file_and_line() {
        let log = b"{\"username\": \"a\", \"timestamp\": \"2015-05-03 16:29:00\", \"ip\": \"1\"}\n{oops\n{\"username\": \"a\", \"timestamp\": \"soon\", \"ip\": \"1\"}\n";
        let lines = read_all("moves.jsonl", log);
        assert!(lines[0].is_ok());
        let e = lines[1].clone().unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(
            e.to_string().contains("moves.jsonl, line 2: bad JSON"),
            "{e}"
        );
        let e = lines[2].clone().unwrap_err();
        assert!(
            e.to_string()
                .contains("line 3: cannot read the time \"soon\""),
            "{e}"
        );
    }

    #[test]
    fn csv_with_header_and_quoting() {
        let log = b"ip,username,timestamp_utc,game\n1.2.3.4,\"a,b\",2015-05-03 16:29:00,g1\n,c,2015-05-03 16:29:00,g1\n5,d,bad,g\n";
        let lines = read_all("moves.csv", log);
        assert_eq!(
            lines[0].clone().unwrap(),
            (2, mv("a,b", "g1", 1_430_670_540, "1.2.3.4"))
        );
        // An empty cell is CSV's missing value, JSON's null: skipped.
        assert_eq!(lines[1].clone().unwrap(), (3, LogLine::Skipped));
        assert_eq!(lines[2].clone().unwrap_err().line, Some(4));
    }

    #[test]
    fn csv_without_needed_column_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.csv");
        std::fs::write(&path, "user,time\nx,1\n").unwrap();
        let e = open_log(path.to_str().unwrap()).err().unwrap();
        assert!(e.message.contains("no `username` column"), "{e}");
    }

    #[test]
    fn gzip_is_recognised_by_content() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(b"{\"username\": \"a\", \"timestamp\": 1430670540, \"ip\": \"1\"}\n")
            .unwrap();
        let bytes = gz.finish().unwrap();
        let lines = read_all("moves.jsonl.gz", &bytes);
        assert_eq!(
            lines[0].clone().unwrap(),
            (1, mv("a", "", 1_430_670_540, "1"))
        );
        let lines = read_all("noext", &bytes);
        assert_eq!(lines.len(), 1);
    }

    #[test]
    fn missing_file_is_one_clear_error() {
        let e = open_log("/nonexistent/moves.jsonl").err().unwrap();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/moves.jsonl: cannot open"),
            "{e}"
        );
    }
}
