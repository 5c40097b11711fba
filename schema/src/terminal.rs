//! Text for a terminal or a log: control characters (a newline that would
//! forge a log line, ESC sequences) and bidirectional overrides shown
//! escaped (`\n`, `\u{1b}`), everything else left as it is. One rule for
//! user-supplied names (`viz::escape` re-exports it) and for file names the
//! readers of logs show.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal or a log raw: control characters
/// (C0, DEL, C1) and the bidirectional embeddings, overrides and isolates
/// that reorder what follows them.
pub fn unsafe_for_terminal(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `s` for a terminal or a log: control characters and bidirectional
/// overrides shown escaped (`\n`, `\t`, `\r`, else `\u{..}`). Borrows when
/// there is nothing to escape (the usual case).
pub fn terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_for_terminal) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if unsafe_for_terminal(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}
