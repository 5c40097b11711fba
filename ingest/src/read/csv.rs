//! The CSV side of the readers: the header's columns, the field splitter,
//! and a record read as a move.

use super::{LineRef, MoveRef, ReadError};
use crate::lines::BoundedLines;
use crate::time::parse_time;
use std::borrow::Cow;

/// What the CSV side keeps between lines: the columns found in the header
/// and the buffers of the field splitter.
pub(super) struct CsvState {
    columns: CsvColumns,
    header_len: usize,
    core: csv_core::Reader,
    out: Vec<u8>,
    ends: Vec<usize>,
}

#[derive(Clone, Copy)]
struct CsvColumns {
    username: usize,
    game: usize,
    timestamp: usize,
    ip: usize,
}

/// Reads the CSV header (the first line that is not blank) and finds the
/// columns. The error never echoes the line: if it is a record rather than
/// a header, it holds an IP address.
pub(super) fn read_header(lines: &mut BoundedLines, name: &str) -> Result<CsvState, ReadError> {
    let fail = |line: Option<u64>, message: String| header_error(name, line, message);
    let mut state = CsvState {
        columns: CsvColumns {
            username: 0,
            game: 0,
            timestamp: 0,
            ip: 0,
        },
        header_len: 0,
        core: csv_core::Reader::new(),
        out: Vec::new(),
        ends: Vec::new(),
    };
    let (n, headers) = header_line(lines, &mut state, name)?;
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
    if let Some((first, second)) = duplicated(&headers) {
        let (first, second) = (first + 1, second + 1);
        let message = if looks_like_names {
            format!(
                "the CSV header names the column `{}` twice (fields {first} and {second})",
                headers[first - 1].trim()
            )
        } else {
            format!(
                "the CSV header gives fields {first} and {second} the same name; a CSV log \
                 starts with a header such as username,game,timestamp_utc,ip"
            )
        };
        return Err(fail(Some(n), message));
    }
    state.columns = CsvColumns {
        username: need(&["username"])?,
        game: need(&["game"])?,
        timestamp: need(&["timestamp_utc", "timestamp"])?,
        ip: need(&["ip"])?,
    };
    state.header_len = headers.len();
    Ok(state)
}

/// A column name the header gives twice (case and surrounding white space
/// aside): which of the two holds the value would be a guess.
/// Returns the positions of the first name given twice.
fn duplicated(headers: &[String]) -> Option<(usize, usize)> {
    let mut seen = std::collections::HashMap::new();
    headers.iter().enumerate().find_map(|(i, h)| {
        let h = h.trim().to_ascii_lowercase();
        if h.is_empty() {
            return None;
        }
        seen.insert(h, i).map(|first| (first, i))
    })
}

/// An error in the CSV header of file `name`, at `line` when known.
fn header_error(name: &str, line: Option<u64>, message: String) -> ReadError {
    ReadError {
        file: name.to_owned(),
        line,
        message,
        io: false,
    }
}

/// The first line of `lines` that is not blank, split into its fields,
/// and its number.
fn header_line(
    lines: &mut BoundedLines,
    state: &mut CsvState,
    name: &str,
) -> Result<(u64, Vec<String>), ReadError> {
    let fail = |line: Option<u64>, message: String| header_error(name, line, message);
    loop {
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
        let fields = split_csv(state, text)
            .map_err(|m| fail(Some(n), format!("bad CSV header: {m}")))?
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>();
        return Ok((n, fields));
    }
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

/// A CSV record: as many fields as the header. An empty cell is how CSV
/// writes a missing value: an empty `username` or `ip` cell is read as JSON's
/// `null`, and the record is skipped. A cell of white space is a value, and
/// breaks the rule. The record comes back as written, not yet checked
/// against the rule.
pub(super) fn csv_line<'r>(state: &'r mut CsvState, text: &str) -> Result<LineRef<'r>, String> {
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
    Ok(Some(MoveRef {
        username: Cow::Borrowed(fields[c.username]),
        game: Cow::Borrowed(fields[c.game]),
        timestamp: time,
        ip: Cow::Borrowed(fields[c.ip]),
    }))
}
