//! Readers of move logs: JSON lines (the reference format) and CSV with a
//! header, plain or gzip-compressed, from a file or standard input (`-`).
//!
//! Every line comes back as a [`LogLine`] or a [`ReadError`] that names the
//! file and the line. What to do with a bad line (reject the file, or skip
//! it) is the caller's choice.

use crate::time::parse_time;
use flate2::read::MultiGzDecoder;
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
    inner: Inner,
    /// An I/O error ended the file.
    done: bool,
}

enum Inner {
    Json {
        reader: Box<dyn BufRead + Send>,
        buf: String,
        line: u64,
    },
    Csv {
        reader: csv::Reader<Box<dyn BufRead + Send>>,
        columns: CsvColumns,
        record: csv::StringRecord,
    },
}

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

/// Opens a log: a path, or `-` for standard input. Gzip is recognised by its
/// magic bytes; CSV by a `.csv` name (before any `.gz`), else by a first line
/// that does not start with `{`.
pub fn open_log(path: &str) -> Result<LogReader, ReadError> {
    let name = if path == "-" {
        "<stdin>".to_owned()
    } else {
        path.to_owned()
    };
    let fail = |message: String| ReadError {
        file: name.clone(),
        line: None,
        message,
    };
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(io::stdin())
    } else {
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
        match head.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') | None => Format::JsonLines,
            Some(_) => Format::Csv,
        }
    };
    let inner = match format {
        Format::JsonLines => Inner::Json {
            reader,
            buf: String::new(),
            line: 0,
        },
        Format::Csv => {
            let mut csv = csv::ReaderBuilder::new().flexible(true).from_reader(reader);
            let headers = csv
                .headers()
                .map_err(|e| fail(format!("cannot read the CSV header: {e}")))?
                .clone();
            let find = |names: &[&str]| {
                names.iter().find_map(|n| {
                    headers
                        .iter()
                        .position(|h| h.trim().eq_ignore_ascii_case(n))
                })
            };
            let need = |names: &[&str]| {
                find(names).ok_or_else(|| ReadError {
                    file: name.clone(),
                    line: Some(1),
                    message: format!(
                        "the CSV header has no `{}` column (it has: {})",
                        names[0],
                        headers.iter().collect::<Vec<_>>().join(", ")
                    ),
                })
            };
            let columns = CsvColumns {
                username: need(&["username"])?,
                game: find(&["game"]),
                timestamp: need(&["timestamp_utc", "timestamp"])?,
                ip: need(&["ip"])?,
            };
            Inner::Csv {
                reader: csv,
                columns,
                record: csv::StringRecord::new(),
            }
        }
    };
    Ok(LogReader {
        file: name,
        inner,
        done: false,
    })
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

#[derive(Deserialize)]
#[serde(untagged)]
enum JsonTime<'a> {
    Epoch(i64),
    /// Epoch seconds with a fraction, floored to the second.
    Fractional(f64),
    Text(#[serde(borrow)] Cow<'a, str>),
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

fn json_line(text: &str) -> Result<LineRef<'_>, String> {
    if !text.starts_with('{') {
        return Err("bad JSON: a line must be one JSON object, {...}".to_owned());
    }
    let rec: JsonMove = serde_json::from_str(text).map_err(|e| {
        if e.to_string().contains("JsonTime") {
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
        Some(JsonTime::Fractional(t)) if t.is_finite() => t.floor() as i64,
        Some(JsonTime::Fractional(t)) => return Err(format!("bad time {t}")),
        Some(JsonTime::Text(s)) => parse_time(&s)?,
        None => return Err("no `timestamp_utc` or `timestamp` field".to_owned()),
    };
    Ok(Some(MoveRef {
        username,
        game: rec.game.unwrap_or_default(),
        timestamp: time,
        ip,
    }))
}

/// An empty `username` or `ip` field in CSV means the value is absent: the
/// record is skipped, as a JSON record with `null` would be.
fn csv_line<'r>(record: &'r csv::StringRecord, c: &CsvColumns) -> Result<LineRef<'r>, String> {
    let field = |i: usize| record.get(i).unwrap_or("");
    let (username, ip) = (field(c.username), field(c.ip));
    if username.is_empty() || ip.is_empty() {
        return Ok(None);
    }
    let time = parse_time(field(c.timestamp))?;
    Ok(Some(MoveRef {
        username: Cow::Borrowed(username),
        game: Cow::Borrowed(c.game.map(field).unwrap_or("")),
        timestamp: time,
        ip: Cow::Borrowed(ip),
    }))
}

impl LogReader {
    /// The next line, borrowed from the reader's buffer (the fast way to
    /// read a large log); `None` at the end.
    pub fn next_ref(&mut self) -> Option<Result<(u64, LineRef<'_>), ReadError>> {
        let file = &self.file;
        let fail = |line: u64, message: String| ReadError {
            file: file.clone(),
            line: Some(line),
            message,
        };
        if self.done {
            return None;
        }
        match &mut self.inner {
            Inner::Json { reader, buf, line } => loop {
                buf.clear();
                *line += 1;
                match reader.read_line(buf) {
                    Ok(0) => return None,
                    Ok(_) => {
                        if buf.trim().is_empty() {
                            continue;
                        }
                        let n = *line;
                        return Some(
                            json_line(buf.trim())
                                .map(|l| (n, l))
                                .map_err(|m| fail(n, m)),
                        );
                    }
                    // An I/O error ends the file: there is no next line.
                    Err(e) => {
                        let n = *line;
                        self.done = true;
                        return Some(Err(fail(n, format!("cannot read: {e}"))));
                    }
                }
            },
            Inner::Csv {
                reader,
                columns,
                record,
            } => match reader.read_record(record) {
                Ok(false) => None,
                Ok(true) => {
                    let n = record.position().map(|p| p.line()).unwrap_or(0);
                    Some(
                        csv_line(record, columns)
                            .map(|l| (n, l))
                            .map_err(|m| fail(n, m)),
                    )
                }
                Err(e) => {
                    let n = e.position().map(|p| p.line()).unwrap_or(0);
                    if e.is_io_error() {
                        self.done = true;
                    }
                    Some(Err(fail(n, format!("bad CSV: {e}"))))
                }
            },
        }
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
        gz.write_all(b"{\"username\": \"a\", \"timestamp\": 5, \"ip\": \"1\"}\n")
            .unwrap();
        let bytes = gz.finish().unwrap();
        let lines = read_all("moves.jsonl.gz", &bytes);
        assert_eq!(lines[0].clone().unwrap(), (1, mv("a", "", 5, "1")));
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
