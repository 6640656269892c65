//! Where a character of a scalar's value is in the source, in every scalar style.
//!
//! A scalar's value is not its source text: a plain or double-quoted scalar over several lines is
//! folded (a line break and the next line's indentation become one space, an empty line a line
//! break), a double-quoted one has escapes (`\e`, `\x1b`, `\u00e9`, `\` at a line's end), a
//! single-quoted one doubles its quotes (`''`), and a block scalar drops its indentation (and a
//! folded one `>` folds its lines). [`locate`] walks the source and the value side by side to
//! find where a character of the value was written, so an error inside the value (a bad word of a
//! behaviour script) points at the word itself.

use super::{Mark, Style};

/// The position in `source` of byte `offset` of `value`, the value of a scalar of `style` that
/// starts at `start` (its quote for a quoted scalar, its `|` or `>` or first content character
/// for a block). `None` when the source does not match the value (the caller then points at the
/// scalar's start).
#[must_use]
pub fn locate(source: &str, start: Mark, style: Style, value: &str, offset: usize) -> Option<Mark> {
    let begin = byte_of(source, start)?;
    let src = &source[begin..];
    let mut s = src.char_indices().peekable();
    let quote = match style {
        Style::Quoted => {
            let (_, q) = s.next()?;
            matches!(q, '"' | '\'').then_some(q)?
        }
        Style::Block => {
            if src.starts_with(['|', '>']) {
                // The header (`|`, `>-`, `|2`, a comment) ends at the line break.
                for (_, c) in s.by_ref() {
                    if c == '\n' || c == '\r' {
                        break;
                    }
                }
            }
            '\0'
        }
        Style::Plain => '\0',
    };
    let target = value.get(..offset)?;
    let mut v = target.chars().peekable();
    while let Some(&want) = v.peek() {
        let &(_, have) = s.peek()?;
        if quote == '"' && have == '\\' {
            s.next();
            let (_, kind) = s.next()?;
            let digits = match kind {
                '\n' | '\r' => {
                    // An escaped line break: it and the next line's indentation vanish.
                    while s
                        .peek()
                        .is_some_and(|&(_, c)| c == ' ' || c == '\t' || c == '\n')
                    {
                        s.next();
                    }
                    continue;
                }
                'x' => 2,
                'u' => 4,
                'U' => 8,
                _ => 0,
            };
            for _ in 0..digits {
                s.next()?;
            }
            v.next();
        } else if quote == '\'' && have == '\'' {
            s.next();
            if s.peek().map(|&(_, c)| c) != Some('\'') {
                return None;
            }
            s.next();
            if want != '\'' {
                return None;
            }
            v.next();
        } else if have == want && !(quote != '\0' && have == quote) {
            s.next();
            v.next();
        } else if matches!(have, ' ' | '\t' | '\n' | '\r') {
            // Folding and indentation: source whitespace stands for value whitespace (or none).
            while s
                .peek()
                .is_some_and(|&(_, c)| matches!(c, ' ' | '\t' | '\n' | '\r'))
            {
                s.next();
            }
            while v.peek().is_some_and(|&c| matches!(c, ' ' | '\t' | '\n')) {
                v.next();
            }
        } else {
            return None;
        }
    }
    // Indentation or a fold between the value's previous character and the wanted one.
    let mut at = s.peek().map_or(src.len(), |&(i, _)| i);
    if offset < value.len() && !value[offset..].starts_with([' ', '\t', '\n']) {
        let rest = &src[at..];
        at += rest.len() - rest.trim_start_matches([' ', '\t', '\n', '\r']).len();
    }
    Some(mark_of(source, start, begin, begin + at))
}

/// The byte offset of `mark` in `source` (lines end at `\r\n`, `\n` or a lone `\r`).
fn byte_of(source: &str, mark: Mark) -> Option<usize> {
    let mut line = 1;
    let mut line_start = 0;
    let mut chars = source.char_indices().peekable();
    while line < mark.line {
        let (i, c) = chars.next()?;
        if c == '\n' || (c == '\r' && chars.peek().map(|&(_, n)| n) != Some('\n')) {
            line += 1;
            line_start = i + 1;
        }
    }
    let rest = &source[line_start..];
    let col = rest
        .char_indices()
        .nth(mark.col.checked_sub(1)?)
        .map_or(rest.len(), |(i, _)| i);
    Some(line_start + col)
}

/// The mark of byte `at` of `source`, counting from `start` at byte `begin`.
fn mark_of(source: &str, start: Mark, begin: usize, at: usize) -> Mark {
    let between = &source[begin..at];
    let mut line = start.line;
    let mut col = start.col;
    let mut chars = between.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                line += 1;
                col = 1;
            }
            _ => col += 1,
        }
    }
    Mark::new(line, col).in_source(start.source)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line:column of the first `bad` of the value, in a document whose scalar starts at
    /// the first character after `key: `.
    fn find(source: &str, style: Style, value: &str) -> (usize, usize) {
        let line = source.lines().position(|l| l.contains("key: ")).unwrap() + 1;
        let col = source.lines().nth(line - 1).unwrap().find("key: ").unwrap() + 6;
        let offset = value.find("bad").unwrap();
        let m = locate(source, Mark::new(line, col), style, value, offset).expect("located");
        (m.line, m.col)
    }

    #[test]
    fn plain_scalars_over_several_lines() {
        let src = "key: 5x200\n  then 500\n  then bad\n";
        assert_eq!(find(src, Style::Plain, "5x200 then 500 then bad"), (3, 8));
    }

    #[test]
    fn folded_blocks() {
        let src = "key: >\n  5x200\n  then 500\n\n  then bad\n";
        assert_eq!(
            find(src, Style::Block, "5x200 then 500\nthen bad\n"),
            (5, 8)
        );
    }

    #[test]
    fn literal_blocks() {
        let src = "key: |-\n    5x200\n    then bad\n";
        assert_eq!(find(src, Style::Block, "5x200\nthen bad"), (3, 10));
    }

    #[test]
    fn double_quoted_with_escapes_and_folds() {
        let src = "key: \"5x200 \\x74hen\\t500 \\\n    then 500\n  then bad\"\n";
        assert_eq!(
            find(src, Style::Quoted, "5x200 then\t500 then 500 then bad"),
            (3, 8)
        );
    }

    #[test]
    fn single_quoted_with_doubled_quotes() {
        let src = "key: 'it''s then bad'\n";
        assert_eq!(find(src, Style::Quoted, "it's then bad"), (1, 18));
    }

    #[test]
    fn lone_carriage_returns_break_lines() {
        let src = "a: 1\rkey: 5x200\r  then bad\r";
        let value = "5x200 then bad";
        let m = locate(src, Mark::new(2, 6), Style::Plain, value, 11).expect("located");
        assert_eq!((m.line, m.col), (3, 8));
    }

    #[test]
    fn a_source_that_does_not_match_gives_none() {
        assert_eq!(
            locate("key: abc", Mark::new(1, 6), Style::Plain, "xyz bad", 4),
            None
        );
    }
}
