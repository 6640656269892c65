//! Text from input, made safe to print on a terminal, and source lines as the YAML parser counts
//! them.
//!
//! A hostile file can hold ESC, BEL or a bidirectional override in a name, a script or a
//! comment: printed raw, these drive the terminal (colours, cursor moves, a title, reordered
//! text). Everything probesim prints from input goes through [`printable`] first.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal raw: control characters other than tab (C0, DEL and
/// C1, a lone carriage return among them) and the bidirectional embeddings, overrides and
/// isolates.
#[must_use]
pub fn is_unprintable(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
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
    if !text.chars().any(is_unprintable) {
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
    if !text.chars().any(|c| c != '\n' && is_unprintable(c)) {
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
    fn lines_end_at_every_yaml_line_break() {
        let s = "a\r\nb\rc\nd";
        let lines: Vec<_> = (1..=5).map(|n| source_line(s, n)).collect();
        assert_eq!(lines, [Some("a"), Some("b"), Some("c"), Some("d"), None]);
        assert_eq!(source_line("a\n", 1), Some("a"));
        assert_eq!(source_line("a\n", 2), None);
        assert_eq!(source_line("", 1), Some(""));
    }
}
