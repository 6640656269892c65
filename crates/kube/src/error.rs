//! Errors of reading Kubernetes input (a manifest, a catalog, a scenario file built on them): every
//! problem found, each with its field path and position.
//!
//! Validation collects all errors before giving up, like the apiserver, so one
//! [`InputError`] can carry several [`Diagnostic`]s. Messages are lower case without a
//! trailing period, except where the apiserver's own wording is quoted
//! (`Invalid value: 2: must be 1`).

use core::fmt;

use crate::field_path::FieldPath;
use crate::printable::{printable, push_printable, Lines};
use crate::yaml::{Mark, SourceId};

/// One problem in an input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The field at fault (empty for syntax errors that belong to no field).
    pub path: FieldPath,
    /// Where in the file, if known.
    pub mark: Option<Mark>,
    /// What is wrong.
    pub message: String,
    /// How many characters to underline at `mark`, when the problem is a known part of a
    /// scalar (a word inside a script); `None` underlines the token that starts at `mark`.
    pub width: Option<usize>,
}

impl Diagnostic {
    /// A problem at `path`, found at `mark`.
    #[must_use]
    pub fn new(path: FieldPath, mark: Option<Mark>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            path,
            mark,
            message: message.into(),
            width: None,
        }
    }

    /// The same problem, underlining `width` characters (at least one) at its mark.
    #[must_use]
    pub fn with_width(mut self, width: usize) -> Diagnostic {
        self.width = Some(width.max(1));
        self
    }
}

impl fmt::Display for Diagnostic {
    /// `<path>: <message>` (just the message when the path is empty).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_root() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// A text that diagnostics may point into besides the main input: a manifest that a scenario
/// references, or a command-line argument that became part of the scenario (`--app`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// How messages name it: a file's display path, or an option (`--app`).
    pub name: String,
    /// Its text, for the snippets of [`InputError::render`].
    pub text: String,
    /// A command-line argument rather than a file: its snippet has no line number.
    pub argument: bool,
}

/// Why an input (a manifest, or a scenario file, whose loader reports through the same type)
/// could not be read: one or more [`Diagnostic`]s.
///
/// Displays one line per problem: `<file>:<line>:<col>: <path>: <message>` (the position is
/// left out when unknown). A diagnostic whose mark is in another source than the main input
/// names that source instead of `file`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// The main input's display path, as given by the caller.
    pub file: String,
    /// The problems, in the order they were found (never empty).
    pub items: Vec<Diagnostic>,
    /// The other texts the problems may point into: [`SourceId`]`(n)` is `sources[n - 1]`.
    pub sources: Vec<Source>,
}

impl InputError {
    /// An error with a single problem.
    #[must_use]
    pub fn single(file: &str, diagnostic: Diagnostic) -> InputError {
        InputError {
            file: file.to_owned(),
            items: vec![diagnostic],
            sources: Vec::new(),
        }
    }

    /// The same error, followed by a hint when `text` (the main input) looks like a Helm
    /// template left unrendered: a `{{ … }}` outside a comment. Such a file often fails in
    /// confusing ways (a YAML syntax error, a string where a number belongs); the hint points at
    /// the first template action.
    #[must_use]
    pub fn with_template_hint(mut self, text: &str) -> InputError {
        if let Some(mark) = template_action(text) {
            self.items.push(
                Diagnostic::new(
                    FieldPath::root(),
                    Some(mark),
                    "this file looks like an unrendered Helm template (`{{ … }}`): render it first, \
                     e.g. `helm template RELEASE CHART > rendered.yaml`, and run probesim on the output",
                )
                .with_width(2),
            );
        }
        self
    }

    /// The source a mark points into, other than the main input.
    fn source(&self, id: SourceId) -> Option<&Source> {
        let index = usize::try_from(id.0).ok()?.checked_sub(1)?;
        self.sources.get(index)
    }

    /// The name of the text a mark points into.
    fn name_of(&self, id: SourceId) -> &str {
        self.source(id)
            .map_or(self.file.as_str(), |s| s.name.as_str())
    }

    /// A compiler-style rendering with the offending source line and a caret under the value:
    ///
    /// ```text
    /// error: spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0
    ///  --> pod.yaml:12:22
    ///    |
    /// 12 |       periodSeconds: -1
    ///    |                      ^^
    /// ```
    ///
    /// `source` must be the text the main input was loaded from; the texts of other sources
    /// come with the error ([`InputError::sources`]). A problem in a command-line argument
    /// shows the argument:
    ///
    /// ```text
    /// error: apps.web.probes.liveness: unknown word "thne", did you mean "then"?
    ///  --> --app
    ///   |
    ///   | web: liveness=refused for 90s thne ok
    ///   |                               ^^^^
    /// ```
    #[must_use]
    pub fn render(&self, source: &str) -> String {
        let mut out = String::new();
        // Each source's lines are indexed once, however many problems point into it.
        let mut indexed: Vec<Lines<'_>> = Vec::new();
        for (i, d) in self.items.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str("error: ");
            push_lines(&mut out, &d.to_string());
            out.push('\n');
            match d.mark {
                None => {
                    out.push_str(" --> ");
                    out.push_str(&printable(&self.file));
                    out.push('\n');
                }
                Some(mark) => match self.source(mark.source) {
                    None => {
                        let line = line_in(&mut indexed, source, mark.line);
                        render_snippet(&mut out, &self.file, line, mark, d.width, false);
                    }
                    Some(s) => {
                        let line = line_in(&mut indexed, &s.text, mark.line);
                        render_snippet(&mut out, &s.name, line, mark, d.width, s.argument);
                    }
                },
            }
        }
        out
    }
}

/// Line `number` of `text`, from the index of its lines in `indexed` (made on first use).
fn line_in<'a>(indexed: &mut Vec<Lines<'a>>, text: &'a str, number: usize) -> Option<&'a str> {
    let at = match indexed.iter().position(|l| l.is_of(text)) {
        Some(at) => at,
        None => {
            indexed.push(Lines::new(text));
            indexed.len() - 1
        }
    };
    indexed[at].line(number)
}

/// Where the first `{{ … }}` template action outside a comment starts, if there is one.
fn template_action(text: &str) -> Option<Mark> {
    for (i, line) in text.split('\n').enumerate() {
        let code = match line.find('#') {
            Some(h) if h == 0 || line[..h].ends_with([' ', '\t']) => &line[..h],
            _ => line,
        };
        if let Some(open) = code.find("{{") {
            if code[open..].contains("}}") {
                return Some(Mark::new(i + 1, code[..open].chars().count() + 1));
            }
        }
    }
    None
}

/// Appends `text` to `out`, each of its lines [printable].
fn push_lines(out: &mut String, text: &str) {
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&printable(line));
    }
}

fn render_snippet(
    out: &mut String,
    file: &str,
    line: Option<&str>,
    mark: Mark,
    width: Option<usize>,
    argument: bool,
) {
    let number = if argument {
        String::new()
    } else {
        mark.line.to_string()
    };
    let pad = " ".repeat(number.len().max(1));
    let file = printable(file);
    if argument {
        out.push_str(&format!("{pad}--> {file}\n"));
    } else {
        out.push_str(&format!("{pad}--> {file}:{mark}\n"));
    }
    let Some(line) = line else {
        return;
    };
    let number = if argument { " ".to_owned() } else { number };
    let col = mark.col.saturating_sub(1);
    let width = width.unwrap_or_else(|| token_width(line, col)).max(1);
    // A very long line (minified JSON) is shown around the column, not whole.
    let chars: Vec<char> = line.chars().collect();
    let (shown, col, width) = if chars.len() > MAX_SNIPPET {
        let start = col.saturating_sub(MAX_SNIPPET / 2).min(chars.len());
        let end = (start + MAX_SNIPPET).min(chars.len());
        let mut shown: String = chars[start..end].iter().collect();
        let mut col = col - start;
        if start > 0 {
            shown.insert(0, '…');
            col += 1;
        }
        if end < chars.len() {
            shown.push('…');
        }
        (
            shown,
            col,
            width.min(end.saturating_sub(start + col).max(1)),
        )
    } else {
        (line.to_owned(), col, width)
    };
    // Control characters are shown escaped (a hostile file must not drive the terminal), and the
    // caret line follows the escapes' widths.
    let (mut display, mut before, mut carets) = (String::new(), String::new(), 0);
    let chars: Vec<char> = shown.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let start = display.chars().count();
        push_printable(&mut display, c);
        let wide = display.chars().count() - start;
        if i < col {
            if c == '\t' {
                before.push('\t');
            } else {
                before.extend(std::iter::repeat_n(' ', wide));
            }
        } else if i < col + width {
            carets += wide;
        }
    }
    carets += (col + width).saturating_sub(chars.len().max(col));
    out.push_str(&format!("{pad} |\n{number} | {display}\n"));
    out.push_str(&format!("{pad} | {before}{}\n", "^".repeat(carets.max(1))));
}

/// The most characters of a source line a snippet shows.
const MAX_SNIPPET: usize = 160;

/// The width in characters of the token starting at character `start` of `line`: a quoted
/// string up to its closing quote, otherwise up to `: `, ` #`, a flow indicator or the end. The
/// start of a collection (`[`, `{`, `- `) and whitespace are one character wide: what follows
/// them is not the token.
fn token_width(line: &str, start: usize) -> usize {
    let rest: Vec<char> = line.chars().skip(start).collect();
    match rest.first() {
        None => 1,
        Some(c) if matches!(c, '[' | '{') || c.is_whitespace() => 1,
        Some('-') if rest.get(1).is_none_or(|c| c.is_whitespace()) => 1,
        // An escape pointed at inside a double-quoted string (`\ud83d`): the escape alone.
        Some('\\')
            if rest.get(1) == Some(&'u')
                && rest.len() >= 6
                && rest[2..6].iter().all(char::is_ascii_hexdigit) =>
        {
            6
        }
        Some(&q) if q == '"' || q == '\'' => {
            let mut i = 1;
            while i < rest.len() {
                if rest[i] == '\\' && q == '"' {
                    i += 2;
                    continue;
                }
                if rest[i] == q {
                    if q == '\'' && rest.get(i + 1) == Some(&'\'') {
                        i += 2;
                        continue;
                    }
                    return i + 1;
                }
                i += 1;
            }
            rest.len()
        }
        Some(_) => {
            let mut end = rest.len();
            for i in 0..rest.len() {
                let c = rest[i];
                let next = rest.get(i + 1).copied();
                let ends = matches!(c, ',' | ']' | '}')
                    || (c == ':' && next.is_none_or(char::is_whitespace))
                    || (c == '#' && i > 0 && rest[i - 1].is_whitespace());
                if ends {
                    end = i;
                    break;
                }
            }
            rest[..end]
                .iter()
                .rposition(|c| !c.is_whitespace())
                .map_or(1, |p| p + 1)
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            match d.mark {
                Some(mark) if self.source(mark.source).is_some_and(|s| s.argument) => {
                    write!(f, "{}: {d}", self.name_of(mark.source))?;
                }
                Some(mark) => write!(f, "{}:{mark}: {d}", self.name_of(mark.source))?,
                None => write!(f, "{}: {d}", self.file)?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for InputError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> InputError {
        InputError {
            file: "pod.yaml".to_owned(),
            items: vec![
                Diagnostic::new(
                    FieldPath::new("spec").child("restartPolicy"),
                    Some(Mark::new(2, 18)),
                    "Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"",
                ),
                Diagnostic::new(FieldPath::new("duration"), None, "required"),
            ],
            sources: Vec::new(),
        }
    }

    #[test]
    fn display_prints_one_line_per_problem() {
        assert_eq!(
            sample().to_string(),
            "pod.yaml:2:18: spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"\n\
             pod.yaml: duration: required"
        );
    }

    #[test]
    fn render_underlines_the_value() {
        let source = "spec:\n  restartPolicy: Sometimes # no\n";
        let text = sample().render(source);
        assert_eq!(
            text,
            "error: spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"\n\
             \x20--> pod.yaml:2:18\n\
             \x20 |\n\
             2 |   restartPolicy: Sometimes # no\n\
             \x20 |                  ^^^^^^^^^\n\
             \n\
             error: duration: required\n\
             \x20--> pod.yaml\n"
        );
    }

    #[test]
    fn long_lines_are_shown_around_the_column() {
        let line = format!("{}\"bad\"{}", "x".repeat(500), "y".repeat(500));
        let e = InputError::single(
            "min.json",
            Diagnostic::new(FieldPath::new("a"), Some(Mark::new(1, 501)), "wrong"),
        );
        let text = e.render(&line);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[3],
            format!("1 | …{}\"bad\"{}…", "x".repeat(80), "y".repeat(75))
        );
        assert_eq!(lines[4], format!("  | {}^^^^^", " ".repeat(81)));
    }

    #[test]
    fn control_characters_are_escaped_and_the_caret_follows() {
        // A hostile file must not drive the terminal: ESC and BEL are shown escaped, in the
        // snippet and in the message, and the caret still points at the value.
        let source = "a: 1\nname: \u{1b}[2J\u{7}bad: x\n";
        let e = InputError::single(
            "x\u{1b}.yaml",
            Diagnostic::new(
                FieldPath::new("name"),
                Some(Mark::new(2, 12)),
                "unknown \u{1b}[31m",
            ),
        );
        assert_eq!(
            e.render(source),
            "error: name: unknown \\u{1b}[31m\n\
             \x20--> x\\u{1b}.yaml:2:12\n\
             \x20 |\n\
             2 | name: \\u{1b}[2J\\u{7}bad: x\n\
             \x20 |                     ^^^\n"
        );
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line() {
        // The parser counts `\r` as a line break; the snippet shows the line it means.
        let source = "a: 1\rb: 2\r\nc: bad\n";
        let e = InputError::single(
            "cr.yaml",
            Diagnostic::new(FieldPath::new("c"), Some(Mark::new(3, 4)), "wrong"),
        );
        assert_eq!(
            e.render(source),
            "error: c: wrong\n\x20--> cr.yaml:3:4\n  |\n3 | c: bad\n  |    ^^^\n"
        );
    }

    #[test]
    fn token_widths() {
        assert_eq!(token_width("  a: \"x y\" # c", 5), 5);
        assert_eq!(token_width("  initialDelaySecond: 5", 2), 18);
        assert_eq!(token_width("[1, 22]", 4), 2);
        assert_eq!(token_width("", 0), 1);
        assert_eq!(token_width("a: 'it''s'", 3), 7);
        assert_eq!(token_width("a: {b: 1}", 3), 1);
        assert_eq!(token_width("a: [[1]]", 3), 1);
        assert_eq!(token_width("- name: x", 0), 1);
        assert_eq!(token_width("a: -1", 3), 2);
        assert_eq!(token_width("\tkey: v", 0), 1);
    }
}
