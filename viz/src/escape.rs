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
//! Text for a terminal (reports, verdict lists, the audit log) goes through
//! [`terminal`]: no control character reaches the screen.

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

/// `s` for one line of terminal text: control characters (escape sequences
/// included) become U+FFFD, tabs and line breaks a space. Borrows when there
/// is nothing to replace.
pub fn terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| match c {
                '\t' | '\n' | '\r' => ' ',
                c if c.is_control() => '\u{FFFD}',
                c => c,
            })
            .collect(),
    )
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
    fn terminal_text_carries_no_control_character() {
        assert_eq!(
            terminal("a\u{1b}[31mb\nc\u{9b}d"),
            "a\u{FFFD}[31mb c\u{FFFD}d"
        );
        assert!(matches!(terminal("<script>&'\""), Cow::Borrowed(_)));
    }

    /// The SVG code relies on the `svg` crate escaping; this pins that
    /// behaviour so an upgrade that changes it fails here.
    #[test]
    fn svg_crate_escapes_text_and_attributes_once() {
        let text = Text::new("<b>&\"'").to_string();
        assert_eq!(text, "<text>\n&lt;b&gt;&amp;\"'\n</text>");
        let rect = Rectangle::new().set("data-user", "<b>&\"'").to_string();
        assert_eq!(rect, r#"<rect data-user="&lt;b&gt;&amp;&quot;&apos;"/>"#);
    }
}
