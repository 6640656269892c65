//! Errors of loading a scenario: every problem found, each with its field path and position.
//!
//! Validation collects all errors before giving up, like the apiserver, so one
//! [`ScenarioError`] can carry several [`Diagnostic`]s. Messages are lower case without a
//! trailing period, except where the apiserver's own wording is quoted
//! (`Invalid value: 2: must be 1`).

use core::fmt;

use crate::field_path::FieldPath;
use crate::yaml::Mark;

/// One problem in a scenario file.
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

/// Why a scenario could not be loaded: one or more [`Diagnostic`]s in one file.
///
/// Displays one line per problem: `<file>:<line>:<col>: <path>: <message>` (the position is
/// left out when unknown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file's display path, as given by the caller.
    pub file: String,
    /// The problems, in the order they were found (never empty).
    pub items: Vec<Diagnostic>,
}

impl ScenarioError {
    /// An error with a single problem.
    #[must_use]
    pub fn single(file: &str, diagnostic: Diagnostic) -> ScenarioError {
        ScenarioError {
            file: file.to_owned(),
            items: vec![diagnostic],
        }
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
    /// `source` must be the text the scenario was loaded from.
    #[must_use]
    pub fn render(&self, source: &str) -> String {
        let mut out = String::new();
        for (i, d) in self.items.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str("error: ");
            out.push_str(&d.to_string());
            out.push('\n');
            match d.mark {
                None => {
                    out.push_str(" --> ");
                    out.push_str(&self.file);
                    out.push('\n');
                }
                Some(mark) => render_snippet(&mut out, &self.file, source, mark, d.width),
            }
        }
        out
    }
}

fn render_snippet(out: &mut String, file: &str, source: &str, mark: Mark, width: Option<usize>) {
    let number = mark.line.to_string();
    let pad = " ".repeat(number.len());
    out.push_str(&format!("{pad}--> {file}:{mark}\n"));
    let Some(line) = source.lines().nth(mark.line.saturating_sub(1)) else {
        return;
    };
    let line = line.trim_end_matches('\r');
    out.push_str(&format!("{pad} |\n{number} | {line}\n"));
    let before: String = line
        .chars()
        .take(mark.col.saturating_sub(1))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let width = width
        .unwrap_or_else(|| token_width(line, mark.col.saturating_sub(1)))
        .max(1);
    out.push_str(&format!("{pad} | {before}{}\n", "^".repeat(width)));
}

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

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            match d.mark {
                Some(mark) => write!(f, "{}:{mark}: {d}", self.file)?,
                None => write!(f, "{}: {d}", self.file)?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ScenarioError {
        ScenarioError {
            file: "pod.yaml".to_owned(),
            items: vec![
                Diagnostic::new(
                    FieldPath::new("spec").child("restartPolicy"),
                    Some(Mark::new(2, 18)),
                    "Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"",
                ),
                Diagnostic::new(FieldPath::new("duration"), None, "required"),
            ],
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
