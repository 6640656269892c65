//! Texts in quotes (P63): what an answer prints, read from a script.

use super::{Kind, Token};

/// The text token that opens with the `"` at `start`: up to the next `"` not escaped by a
/// backslash, or [`Kind::Unclosed`] when there is none.
pub(super) fn quoted<'a>(
    source: &'a str,
    start: usize,
    chars: &mut core::iter::Peekable<core::str::CharIndices<'a>>,
) -> Token<'a> {
    let mut escaped = false;
    for (i, c) in chars.by_ref() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '"' {
            return Token {
                kind: Kind::Text(&source[start + 1..i]),
                start,
                end: i + 1,
            };
        }
    }
    Token {
        kind: Kind::Unclosed,
        start,
        end: source.len(),
    }
}

/// The longest text a step may give: 64 KiB, well past the 10 KiB the kubelet keeps (P63), so
/// a script can show the truncation but cannot make memory grow without bound.
pub const MAX_TEXT: usize = 64 * 1024;

/// Decodes the escapes of a text written between quotes: `\"`, `\\`, `\n`, `\t` and `\r`.
/// A bad escape gives its byte offset in `raw`, its length and the message.
pub(super) fn unescape(raw: &str) -> Result<String, (usize, usize, String)> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.char_indices();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some((_, '"')) => out.push('"'),
            Some((_, '\\')) => out.push('\\'),
            Some((_, 'n')) => out.push('\n'),
            Some((_, 't')) => out.push('\t'),
            Some((_, 'r')) => out.push('\r'),
            Some((_, other)) => {
                return Err((
                    i,
                    1 + other.len_utf8(),
                    format!(
                        "unknown escape \"\\{other}\" in a text (use \\\", \\\\, \\n, \\t or \\r)"
                    ),
                ))
            }
            None => return Err((i, 1, "a text cannot end in a lone \"\\\"".to_owned())),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::MAX_TEXT;
    use crate::parse;

    fn error(text: &str) -> String {
        match parse(text) {
            Ok(script) => panic!("{text:?} parsed as {script}"),
            Err(e) => e.to_string(),
        }
    }

    // P63
    #[test]
    fn texts_follow_the_outcome_and_print_back() {
        let script = parse(r#"exit 0 for 30s then exit 1 "no such file""#).unwrap();
        assert_eq!(script.steps()[0].text(), None);
        let text = script.steps()[1].text().unwrap();
        assert_eq!(script.text(text), "no such file");
        assert_eq!(
            script.to_string(),
            r#"exit 0 for 30s then exit 1 "no such file""#
        );

        // Escapes are decoded and written back; words may sit right against the quotes.
        let script = parse(r#"3x500"say \"hi\"\n\ttab \\ end"after 2s, 200 "ok""#).unwrap();
        assert_eq!(script.text(0), "say \"hi\"\n\ttab \\ end");
        assert_eq!(script.text(1), "ok");
        let canonical = r#"3x500 "say \"hi\"\n\ttab \\ end" after 2s then 200 "ok""#;
        assert_eq!(script.to_string(), canonical);
        assert_eq!(parse(canonical).unwrap(), script);

        // A choice's text goes with each of its alternatives; non-ASCII is kept as written.
        let script = parse(r#"(50% 200 | 50% 503) "naïve ✓""#).unwrap();
        assert_eq!(script.text(script.steps()[0].text().unwrap()), "naïve ✓");

        // Scripts without texts are unchanged, and texts count in equality.
        assert_eq!(parse("exit 1").unwrap().texts().len(), 0);
        assert_ne!(
            parse(r#"exit 1 "a""#).unwrap(),
            parse(r#"exit 1 "b""#).unwrap()
        );
        assert_ne!(parse(r#"exit 1 "a""#).unwrap(), parse("exit 1").unwrap());
    }

    // P63
    #[test]
    fn bad_texts_are_pointed_at() {
        assert_eq!(
            error(r#"exit 1 "no such file"#),
            "1:8: this text in quotes has no closing quote"
        );
        assert_eq!(
            error(r#"exit 1 "a \q b""#),
            r#"1:11: unknown escape "\q" in a text (use \", \\, \n, \t or \r)"#
        );
        assert_eq!(
            error(r#"exit 1 for 10s "late""#),
            "1:16: a text in quotes comes right after the outcome, before \"after\", \"for\" \
             and \"until\", like exit 1 \"no such file\""
        );
        assert_eq!(
            error(r#"exit 1 "a" "b""#),
            "1:12: a text in quotes comes right after the outcome, before \"after\", \"for\" \
             and \"until\", like exit 1 \"no such file\""
        );
        assert_eq!(
            error(r#""db down""#),
            "1:1: expected an outcome (like 200, ok, refused or exit 1), found a text in quotes"
        );
        let long = format!("exit 1 \"{}\"", "a".repeat(MAX_TEXT + 1));
        assert!(error(&long).starts_with("1:8: text of 65537 bytes is too long"));
        // On a second line, the column counts from the line's start.
        assert_eq!(
            error("exit 0\nthen exit 1 \"x\\y\""),
            r#"2:15: unknown escape "\y" in a text (use \", \\, \n, \t or \r)"#
        );
    }
}
