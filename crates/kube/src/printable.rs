//! Text from input, made safe to print on a terminal, and source lines as the YAML parser counts
//! them.
//!
//! A hostile file can hold ESC, BEL or a bidirectional override in a name, a script or a
//! comment: printed raw, these drive the terminal (colours, cursor moves, a title, reordered
//! text). Everything probesim prints from input goes through [`printable`] first.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal or a CI log raw: control characters other than tab
/// (C0, DEL and C1, a lone carriage return among them); the bidirectional marks, embeddings,
/// overrides and isolates (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which
/// reorder what is shown; the invisible zero-width characters (U+200B to U+200D, U+2060 to
/// U+2064, U+FEFF), which hide text in plain sight; and the line and paragraph separators
/// (U+2028, U+2029), which many tools take for line breaks.
#[must_use]
pub fn is_unprintable(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(
            c,
            '\u{61c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
        )
}

/// `s` as a JSON string literal appended to `out`: `"`, `\\` and the C0 controls escaped as
/// `serde_json` escapes them, and every other [unprintable](is_unprintable) character (DEL, C1,
/// bidirectional, zero-width, U+2028 and U+2029, which split JSON lines in common tools) as
/// `\uXXXX`, so that no JSON probesim writes drives a terminal when it is printed. Everything
/// else, non-ASCII included, is written as is.
///
/// # Examples
/// ```
/// let mut out = String::new();
/// probesim_kube::printable::json_string(&mut out, "a\"\u{2028}\u{202e}é\n");
/// assert_eq!(out, r#""a\"\u2028\u202eé\n""#);
/// ```
pub fn json_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let escape = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            '\u{8}' => "\\b",
            '\u{c}' => "\\f",
            c if is_unprintable(c) => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            // Every unprintable character is in the Basic Multilingual Plane.
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push_str(escape);
        }
        start = i + c.len_utf8();
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Whether `text` is printable ASCII (`' '` to `'~'`) and tabs, with `newlines` line breaks
/// too, without branching per byte (the common case, checked before decoding characters).
fn plain_ascii(text: &str, newlines: bool) -> bool {
    text.bytes().fold(true, |ok, b| {
        ok & (b.wrapping_sub(b' ') < 0x5f || b == b'\t' || (newlines & (b == b'\n')))
    })
}

/// `text` with every [unprintable](is_unprintable) character written as a Rust-style escape
/// (`\u{1b}`); borrowed when there is none, which is the usual case.
///
/// # Examples
/// ```
/// use probesim_kube::printable::printable;
/// assert_eq!(printable("web"), "web");
/// assert_eq!(printable("a\u{1b}[31mb\u{7}"), "a\\u{1b}[31mb\\u{7}");
/// ```
#[must_use]
pub fn printable(text: &str) -> Cow<'_, str> {
    // Printable ASCII (and tab), the common case, without decoding characters.
    if plain_ascii(text, false) || !text.chars().any(is_unprintable) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_printable(&mut out, c);
    }
    Cow::Owned(out)
}

/// [`printable`] for text of many lines: line breaks (`\n`) stay as they are, every other
/// [unprintable](is_unprintable) character is escaped.
///
/// # Examples
/// ```
/// use probesim_kube::printable::printable_lines;
/// assert_eq!(printable_lines("a\u{1b}\nb\n"), "a\\u{1b}\nb\n");
/// ```
#[must_use]
pub fn printable_lines(text: &str) -> Cow<'_, str> {
    if plain_ascii(text, true) || !text.chars().any(|c| c != '\n' && is_unprintable(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\n' {
            out.push(c);
        } else {
            push_printable(&mut out, c);
        }
    }
    Cow::Owned(out)
}

/// Appends `c` to `out`, escaped if it is [unprintable](is_unprintable).
pub fn push_printable(out: &mut String, c: char) {
    if is_unprintable(c) {
        let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
    } else {
        out.push(c);
    }
}

/// Line `number` (1-based) of `source`, without its line break. Lines end where the YAML parser
/// ends them: at `\r\n`, `\n` or a lone `\r`.
#[must_use]
pub fn source_line(source: &str, number: usize) -> Option<&str> {
    let mut rest = source;
    let mut line = 1;
    loop {
        let end = rest.find(['\n', '\r']);
        if line == number {
            return Some(end.map_or(rest, |e| &rest[..e]));
        }
        let e = end?;
        let skip = if rest[e..].starts_with("\r\n") { 2 } else { 1 };
        rest = &rest[e + skip..];
        line += 1;
        if rest.is_empty() {
            return None;
        }
    }
}

/// The lines of a source, found once: [`Lines::line`] is [`source_line`] without scanning
/// from the start for every line asked for (an error report of 45,000 problems asks 45,000
/// times).
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    /// Indexes the line starts of `text`.
    #[must_use]
    pub fn new(text: &'a str) -> Lines<'a> {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => i += 2,
                b'\r' | b'\n' => i += 1,
                _ => {
                    i += 1;
                    continue;
                }
            }
            if i < bytes.len() {
                starts.push(i);
            }
        }
        Lines { text, starts }
    }

    /// Whether these are the lines of `text` (the very same string, not an equal one).
    #[must_use]
    pub fn is_of(&self, text: &str) -> bool {
        std::ptr::eq(self.text, text)
    }

    /// Line `number` (1-based), as [`source_line`] gives it.
    #[must_use]
    pub fn line(&self, number: usize) -> Option<&'a str> {
        let start = *self.starts.get(number.checked_sub(1)?)?;
        let rest = &self.text[start..];
        Some(rest.find(['\n', '\r']).map_or(rest, |e| &rest[..e]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_the_rest_kept() {
        assert!(matches!(printable("plain é ✓\ttab"), Cow::Borrowed(_)));
        assert_eq!(
            printable("\u{1b}]0;title\u{7}x\u{0}\u{7f}\u{9b}\r\u{202e}"),
            "\\u{1b}]0;title\\u{7}x\\u{0}\\u{7f}\\u{9b}\\u{d}\\u{202e}"
        );
    }

    #[test]
    fn line_separators_zero_widths_and_bidi_marks_are_unprintable() {
        for c in [
            '\u{2028}', '\u{2029}', '\u{200b}', '\u{200d}', '\u{feff}', '\u{61c}', '\u{2066}',
            '\u{202e}', '\u{85}', '\u{9b}', '\u{7f}', '\u{1b}',
        ] {
            assert!(is_unprintable(c), "{c:?}");
        }
        for c in [
            '\t',
            'a',
            'é',
            '✓',
            '\u{a0}',
            '\u{2027}',
            '\u{2030}',
            '\u{1f600}',
        ] {
            assert!(!is_unprintable(c), "{c:?}");
        }
    }

    #[test]
    fn json_strings_escape_what_serde_json_does_and_the_unprintable() {
        let mut out = String::new();
        let hostile = "q\"b\\n\n\r\t\u{8}\u{c}\u{0}\u{1b}]0;x\u{7}\u{7f}\u{9b}\u{202e}\u{200b}\u{2028}\u{2029}é😀";
        json_string(&mut out, hostile);
        assert_eq!(
            out,
            r#""q\"b\\n\n\r\t\b\f\u0000\u001b]0;x\u0007\u007f\u009b\u202e\u200b\u2028\u2029é😀""#
        );
        assert!(!out.chars().any(is_unprintable));
        let back: String = serde_json::from_str(&out).unwrap();
        assert_eq!(back, hostile);
    }

    #[test]
    fn indexed_lines_are_the_source_lines() {
        for s in [
            "a\r\nb\rc\nd",
            "a\n",
            "",
            "\n\n",
            "x\r",
            "\r\n\r\nq",
            "é\nü\r\n",
        ] {
            let lines = Lines::new(s);
            for n in 0..8 {
                assert_eq!(
                    lines.line(n),
                    if n == 0 { None } else { source_line(s, n) },
                    "{s:?} {n}"
                );
            }
        }
    }

    #[test]
    fn lines_end_at_every_yaml_line_break() {
        let s = "a\r\nb\rc\nd";
        let lines: Vec<_> = (1..=5).map(|n| source_line(s, n)).collect();
        assert_eq!(lines, [Some("a"), Some("b"), Some("c"), Some("d"), None]);
        assert_eq!(source_line("a\n", 1), Some("a"));
        assert_eq!(source_line("a\n", 2), None);
        assert_eq!(source_line("", 1), Some(""));
    }
}
