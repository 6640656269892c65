//! UTF-16 surrogate pairs in double-quoted scalars (`"\ud83d\ude00"`, as `json.dumps` and
//! `jq -a` write a character outside the Basic Multilingual Plane).
//!
//! JSON has no other way to escape such a character, but YAML's `\u` takes one code point, so
//! the parser refuses either half. Before parsing, each pair inside a double-quoted scalar is
//! rewritten into the one YAML escape for the same character (`\U0001F600`, two characters
//! shorter), and every position the parser reports is moved back by those two characters on
//! that line: lines never change, and the marks of everything after a pair are the marks in
//! the file as written.
//!
//! Which `\uD8xx` text lies inside a double-quoted scalar (and not in a comment, a plain or
//! single-quoted scalar or a block, where it is literal text to keep) is the parser's to say:
//! a first pass parses a copy in which every such escape is replaced by one of the same length
//! that any context accepts, and takes the double-quoted scalars' spans from its events. Only
//! inputs holding a surrogate escape pay for that pass.
//!
//! A surrogate without its partner (a high one alone, or a low one first) stays an error, but
//! pointed at the escape itself and worded as what it is.

use saphyr_parser::{BufferedInput, Event, Parser, ScalarStyle, ScanError, Span, StrInput};

/// Where a `\u` escape naming a surrogate starts in the original text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Escape {
    /// Byte offset of its backslash.
    byte: usize,
    /// Line (1-based) and column (0-based, in characters), counted as the parser counts.
    line: usize,
    col: usize,
    /// The code unit.
    code: u16,
}

impl Escape {
    fn is_high(&self) -> bool {
        (0xD800..0xDC00).contains(&self.code)
    }

    fn pos(&self) -> (usize, usize) {
        (self.line, self.col)
    }
}

/// A surrogate escape without its partner, inside the double-quoted scalar starting at
/// `scalar`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Lone {
    scalar: (usize, usize),
    line: usize,
    col: usize,
    /// The escape as written (`\ud83d`).
    written: String,
    high: bool,
}

/// The positions the parser of a rewritten text reports, moved back to the text as written,
/// and the lone surrogates to point errors at.
#[derive(Clone, Debug, Default)]
pub(super) struct Fixups {
    /// Per rewritten pair, sorted: its line and its column in the rewritten text.
    shifts: Vec<(usize, usize)>,
    lone: Vec<Lone>,
    /// The first pass's syntax error (line, 0-based column, message), if it met one: the
    /// parser's own verdict on the text with every surrogate accepted.
    first_error: Option<(usize, usize, String)>,
}

/// How much a pair's rewriting shortens its line, in characters (`\uD83D\uDE00` is 12,
/// `\U0001F600` is 10).
const SHORTER_BY: usize = 2;

impl Fixups {
    /// The column (0-based) in the text as written of the parser's `line`:`col`.
    pub(super) fn column(&self, line: usize, col: usize) -> usize {
        let start = self.shifts.partition_point(|&(l, _)| l < line);
        let before = self.shifts[start..].partition_point(|&(l, c)| l == line && c < col);
        col + SHORTER_BY * before
    }

    /// For the parser's refusal of an escape in the double-quoted scalar that starts at
    /// `line`:`col` (1-based column, in the text as written): the lone surrogate it refused,
    /// with its position (1-based column) and what to say.
    ///
    /// A scalar that the first pass never finished (a syntax error follows it at once) was not
    /// rewritten: its refusal is replaced by that syntax error, the problem to fix.
    pub(super) fn lone_at(&self, line: usize, col: usize) -> Option<(usize, usize, String)> {
        let Some(lone) = self.lone.iter().find(|l| l.scalar == (line, col - 1)) else {
            return self
                .first_error
                .as_ref()
                .map(|(l, c, info)| (*l, *c + 1, info.clone()));
        };
        let message = if lone.high {
            format!(
                "invalid escape `{}`: the first half of a UTF-16 surrogate pair, but no low surrogate (`\\udc00` to `\\udfff`) follows it",
                lone.written
            )
        } else {
            format!(
                "invalid escape `{}`: the second half of a UTF-16 surrogate pair, but no high surrogate (`\\ud800` to `\\udbff`) comes before it",
                lone.written
            )
        };
        Some((lone.line, lone.col + 1, message))
    }
}

/// The parser's event source: over the text itself, or over the text with its surrogate pairs
/// rewritten.
#[expect(
    clippy::large_enum_variant,
    reason = "the parser over the text itself is the one nearly every input uses: kept inline"
)]
pub(super) enum Events<'t> {
    Borrowed(Parser<'t, StrInput<'t>>),
    Rewritten(Box<Parser<'t, BufferedInput<OwnedChars>>>),
}

impl<'t> Events<'t> {
    /// The parser for `text`, with the positions to move back. `budget` bounds the events the
    /// first pass reads (a caller that reads no further than that, such as a sniff of the
    /// first keys, pays no more for it); escapes beyond it are left as written.
    pub(super) fn new(text: &'t str, budget: usize) -> (Events<'t>, Fixups) {
        let escapes = find_escapes(text);
        if escapes.is_empty() {
            return (
                Events::Borrowed(Parser::new_from_str(text)),
                Fixups::default(),
            );
        }
        let (spans, first_error) = double_quoted_spans(text, &escapes, budget);
        let (rewritten, mut fixups) = rewrite(text, &escapes, &spans);
        fixups.first_error = first_error;
        match rewritten {
            None => (Events::Borrowed(Parser::new_from_str(text)), fixups),
            Some(owned) => (
                Events::Rewritten(Box::new(Parser::new_from_iter(OwnedChars {
                    text: owned,
                    at: 0,
                }))),
                fixups,
            ),
        }
    }

    pub(super) fn next_event(&mut self) -> Option<Result<(Event<'t>, Span), ScanError>> {
        match self {
            Events::Borrowed(p) => p.next_event(),
            Events::Rewritten(p) => p.next_event(),
        }
    }
}

/// The characters of an owned text, for the parser of a rewritten one.
pub(super) struct OwnedChars {
    text: String,
    at: usize,
}

impl Iterator for OwnedChars {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let c = self.text.get(self.at..)?.chars().next()?;
        self.at += c.len_utf8();
        Some(c)
    }
}

fn hex4(bytes: &[u8]) -> Option<u16> {
    let s = core::str::from_utf8(bytes.get(..4)?).ok()?;
    if !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(s, 16).ok()
}

/// Every `\u` escape of a surrogate (D800 to DFFF) that a double-quoted scalar would read as
/// an escape (its backslash not itself escaped), wherever it stands.
fn find_escapes(text: &str) -> Vec<Escape> {
    let mut out = Vec::new();
    if !text.contains("\\u") {
        return out;
    }
    let bytes = text.as_bytes();
    let (mut line, mut col) = (1usize, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\n' => {
                line += 1;
                col = 0;
                i += 1;
            }
            // CR LF is one line break, a lone CR is one too (as the parser counts).
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => {
                line += 1;
                col = 0;
                i += 1;
            }
            b'\\' => {
                let run = bytes[i..].iter().take_while(|&&c| c == b'\\').count();
                let last = i + run - 1;
                col += run - 1;
                i = last + 1;
                let escaping = run % 2 == 1;
                if escaping && bytes.get(i) == Some(&b'u') {
                    if let Some(code) =
                        hex4(&bytes[i + 1..]).filter(|c| (0xD800..0xE000).contains(c))
                    {
                        out.push(Escape {
                            byte: last,
                            line,
                            col,
                            code,
                        });
                    }
                }
                col += 1;
            }
            _ => {
                // Count characters, not bytes: continuation bytes start no character.
                if b & 0xC0 != 0x80 {
                    col += 1;
                }
                i += 1;
            }
        }
    }
    out
}

/// The spans (start and end, as line and 0-based column) of the double-quoted scalars, read
/// from a copy of `text` in which every escape of `escapes` names `A` instead (same length,
/// accepted in any context), up to the first syntax error or `budget` events.
fn double_quoted_spans(
    text: &str,
    escapes: &[Escape],
    budget: usize,
) -> (Spans, Option<(usize, usize, String)>) {
    let mut copy = text.as_bytes().to_vec();
    for e in escapes {
        copy[e.byte + 2..e.byte + 6].copy_from_slice(b"0041");
    }
    // Only ASCII digits replaced ASCII digits: still UTF-8.
    let copy = String::from_utf8(copy).unwrap_or_default();
    let mut parser = Parser::new_from_str(&copy);
    let mut spans = Vec::new();
    for item in core::iter::from_fn(|| parser.next_event()).take(budget) {
        let (event, span) = match item {
            Ok(ok) => ok,
            Err(e) => {
                let at = e.marker();
                return (spans, Some((at.line(), at.col(), e.info().to_owned())));
            }
        };
        match event {
            Event::Scalar(_, ScalarStyle::DoubleQuoted, ..) => spans.push((
                (span.start.line(), span.start.col()),
                (span.end.line(), span.end.col()),
            )),
            Event::StreamEnd => break,
            _ => {}
        }
    }
    (spans, None)
}

/// The start and end (line, 0-based column) of each double-quoted scalar, in order.
type Spans = Vec<((usize, usize), (usize, usize))>;

/// The text with each surrogate pair inside a double-quoted scalar rewritten (`None` when
/// there is none), and the fixups for the parser's positions.
fn rewrite(text: &str, escapes: &[Escape], spans: &Spans) -> (Option<String>, Fixups) {
    // The escapes inside a double-quoted scalar, with that scalar's start.
    let mut inside: Vec<(Escape, (usize, usize))> = Vec::new();
    let mut s = 0;
    for e in escapes {
        while s < spans.len() && spans[s].1 <= e.pos() {
            s += 1;
        }
        if let Some(&(start, end)) = spans.get(s) {
            if start < e.pos() && e.pos() < end {
                inside.push((*e, start));
            }
        }
    }
    let mut fixups = Fixups::default();
    let mut out = String::new();
    let mut copied = 0;
    // Pairs rewritten on the current line so far, to place the next one in the new text.
    let (mut on_line, mut pairs_on_line) = (0usize, 0usize);
    let mut i = 0;
    while i < inside.len() {
        let (e, scalar) = inside[i];
        let partner = inside
            .get(i + 1)
            .filter(|(f, _)| e.is_high() && !f.is_high() && f.byte == e.byte + 6);
        if let Some((f, _)) = partner {
            let c = 0x10000 + ((u32::from(e.code) - 0xD800) << 10) + (u32::from(f.code) - 0xDC00);
            out.push_str(&text[copied..e.byte]);
            out.push_str(&format!("\\U{c:08X}"));
            copied = e.byte + 12;
            if on_line != e.line {
                on_line = e.line;
                pairs_on_line = 0;
            }
            fixups
                .shifts
                .push((e.line, e.col - SHORTER_BY * pairs_on_line));
            pairs_on_line += 1;
            i += 2;
        } else {
            fixups.lone.push(Lone {
                scalar,
                line: e.line,
                col: e.col,
                written: text[e.byte..e.byte + 6].to_owned(),
                high: e.is_high(),
            });
            i += 1;
        }
    }
    if fixups.shifts.is_empty() {
        return (None, fixups);
    }
    out.push_str(&text[copied..]);
    (Some(out), fixups)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_found_where_a_double_quoted_scalar_would_read_them() {
        let found = |t: &str| -> Vec<(usize, usize, u16)> {
            find_escapes(t)
                .iter()
                .map(|e| (e.line, e.col, e.code))
                .collect()
        };
        assert_eq!(
            found("a: \"\\ud83d\\ude00\"\n"),
            [(1, 4, 0xD83D), (1, 10, 0xDE00)]
        );
        // An escaped backslash escapes nothing after it; three do.
        assert_eq!(found("\"\\\\ud83d\""), []);
        assert_eq!(found("\"\\\\\\ud83d\""), [(1, 3, 0xD83D)]);
        // Not surrogates, not hex, and columns in characters on the second line.
        assert_eq!(found("\"\\u00e9\\uD7FF\\uE000\\udzzz\""), []);
        assert_eq!(found("é\r\nü: \"\\uDBFF\""), [(2, 4, 0xDBFF)]);
    }

    #[test]
    fn columns_move_back_by_two_per_pair_before_them_on_the_line() {
        let f = Fixups {
            shifts: vec![(1, 5), (1, 20), (3, 0)],
            ..Fixups::default()
        };
        assert_eq!(f.column(1, 5), 5);
        assert_eq!(f.column(1, 6), 8);
        assert_eq!(f.column(1, 21), 25);
        assert_eq!(f.column(2, 40), 40);
        assert_eq!(f.column(3, 1), 3);
    }
}
