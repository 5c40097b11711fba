//! Escaping of user-supplied strings.
//!
//! SVG: the `svg` crate (0.18) escapes text nodes (`& < >`) and attribute
//! values (`& < > " '`) itself when a document is written. SVG code therefore
//! hands it raw strings and must not escape them again (that would show
//! `&amp;amp;`); it only replaces the characters XML cannot carry at all,
//! escaped or not, with [`xml_safe`].
//!
//! HTML is written by hand here, so every string goes through [`html`].
//!
//! Outside `viz` the same file holds the rules for the other outputs, each
//! applied exactly once where a user-supplied string is written:
//! - CSV cells holding a user-supplied string (usernames) go through
//!   [`csv_cell`]: a cell a spreadsheet would read as a formula is
//!   neutralised (OWASP's rule), and control characters are shown escaped;
//!   the `csv` crate then quotes it as CSV needs;
//! - text for a terminal or a log (text reports, `explain`, daemon log
//!   lines) goes through [`terminal`]: control characters (a newline that
//!   would forge a log line, ESC sequences) and bidirectional overrides are
//!   shown escaped (`\n`, `\u{1b}`), everything else is left as it is.

use std::borrow::Cow;

/// Whether XML 1.0 allows `c` in a document: no control characters other
/// than tab, line feed and carriage return, and not U+FFFE or U+FFFF.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
}

/// `s` with the characters XML cannot hold replaced by U+FFFD. Borrows when
/// there is nothing to replace (the usual case).
pub fn xml_safe(s: &str) -> Cow<'_, str> {
    if s.chars().all(xml_char) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(
            s.chars()
                .map(|c| if xml_char(c) { c } else { '\u{FFFD}' })
                .collect(),
        )
    }
}

/// `s` escaped for HTML text and double- or single-quoted attribute values:
/// `& < > " '` become entities, characters XML cannot hold become U+FFFD.
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in xml_safe(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `s` for a terminal or a log: control characters and bidirectional
/// overrides shown escaped (`\n`, `\t`, `\r`, else `\u{..}`). The rule
/// lives in `schema::terminal`, so that the readers of logs (which name
/// files) apply the same one.
pub use schema::terminal::terminal;

/// A user-supplied string as a CSV cell: one that starts with `=`, `+`,
/// `-`, `@`, tab or carriage return (a formula to a spreadsheet) gets a
/// leading `'`, and control characters are escaped as by [`terminal`].
pub fn csv_cell(s: &str) -> Cow<'_, str> {
    let formula = s.starts_with(['=', '+', '-', '@', '\t', '\r']);
    match (formula, terminal(s)) {
        (false, t) => t,
        (true, t) => Cow::Owned(format!("'{t}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use svg::node::element::{Rectangle, Text};

    #[test]
    fn html_escapes_each_special_character_once() {
        assert_eq!(
            html(r#"<a href="x">'&amp;'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(html("Ünïcødé名前"), "Ünïcødé名前");
    }

    #[test]
    fn control_characters_are_replaced() {
        assert_eq!(xml_safe("a\u{1}b\tc\u{FFFF}"), "a\u{FFFD}b\tc\u{FFFD}");
        assert!(matches!(xml_safe("plain"), Cow::Borrowed(_)));
        assert_eq!(html("x\u{0}"), "x\u{FFFD}");
    }

    #[test]
    fn terminal_text_escapes_controls_and_overrides_only() {
        assert_eq!(terminal("ab"), "ab");
        assert!(matches!(terminal("Ünïcødé名前"), Cow::Borrowed(_)));
        assert_eq!(terminal("a\nb\tc\rd"), "a\\nb\\tc\\rd");
        assert_eq!(terminal("\u{1b}[31mred"), "\\u{1b}[31mred");
        assert_eq!(
            terminal("x\u{7f}\u{9b}\u{202e}"),
            "x\\u{7f}\\u{9b}\\u{202e}"
        );
    }

    #[test]
    fn csv_cells_never_start_a_formula() {
        for (raw, cell) in [
            ("=1+2", "'=1+2"),
            ("+1", "'+1"),
            ("-1", "'-1"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\\tx"),
            ("\rx", "'\\rx"),
            ("a=b", "a=b"),
            ("alice", "alice"),
            ("a\nb", "a\\nb"),
        ] {
            assert_eq!(csv_cell(raw), cell, "{raw:?}");
        }
    }

    /// The SVG code relies on the `svg` crate escaping; this pins that
    /// behaviour so an upgrade that changes it fails here.
    #[test]
    fn svg_crate_escapes_text_and_attributes_once() {
        let text = Text::new("<b>&\"'").to_string();
        assert_eq!(text, "<text>\n&lt;b&gt;&amp;\"'\n</text>");
        let rect = Rectangle::new().set("data-account", "<b>&\"'").to_string();
        assert_eq!(rect, r#"<rect data-account="&lt;b&gt;&amp;&quot;&apos;"/>"#);
    }
}
