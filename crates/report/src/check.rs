//! What `probesim check` prints: one result per scenario (and per release, for a version
//! matrix), in one of its `--format`s.
//!
//! | `--format` | shape |
//! |---|---|
//! | `text` | one line per scenario (`ok`, `FAILED`, `invalid`), then `P passed, F failed` |
//! | `json` | one document: every result, with its failures, then the counts |
//! | `junit` | JUnit XML: one `testcase` per scenario and release, `failure` or `error` inside |
//! | `github` | GitHub Actions workflow commands: one `::error file=…,line=…::` per failure |
//!
//! The caller runs the scenarios and hands each [`CheckResult`] to a [`CheckReport`] in the
//! order the results are to appear; the report writes the streaming formats (`text`,
//! `github`) as they come and the document formats (`json`, `junit`) at
//! [`CheckReport::finish`]. The same results give the same bytes: no clock, no host name, no
//! durations measured.

use core::fmt;
use core::str::FromStr;
use std::io::{self, Write};

use probesim_kube::printable::printable;

use probesim_scenario::expect::Failure;

mod github;
mod junit;
#[cfg(test)]
mod tests;

/// The `--format` of `probesim check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CheckFormat {
    /// One line per scenario, for people (the default).
    #[default]
    Text,
    /// One JSON document.
    Json,
    /// JUnit XML, for the test-report views of CI systems.
    Junit,
    /// GitHub Actions annotations (`::error file=…,line=…::…`).
    Github,
}

impl CheckFormat {
    /// Every format, in the order of the help text.
    pub const ALL: [CheckFormat; 4] = [
        CheckFormat::Text,
        CheckFormat::Json,
        CheckFormat::Junit,
        CheckFormat::Github,
    ];

    /// The command-line spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            CheckFormat::Text => "text",
            CheckFormat::Json => "json",
            CheckFormat::Junit => "junit",
            CheckFormat::Github => "github",
        }
    }
}

impl fmt::Display for CheckFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `--format` value that names no check format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCheckFormat(pub String);

impl fmt::Display for UnknownCheckFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown format `{}` (expected text, json, junit or github)",
            self.0
        )
    }
}

impl std::error::Error for UnknownCheckFormat {}

impl FromStr for CheckFormat {
    type Err = UnknownCheckFormat;

    fn from_str(s: &str) -> Result<CheckFormat, UnknownCheckFormat> {
        CheckFormat::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| UnknownCheckFormat(s.to_owned()))
    }
}

/// One problem that made a scenario invalid (or an entry of a directory unreadable), with
/// where it is, for annotations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The file the problem is in (the scenario, or a manifest it references).
    pub file: String,
    /// 1-based line, where known.
    pub line: Option<usize>,
    /// 1-based column, where known.
    pub col: Option<usize>,
    /// What is wrong, without the file and position (`spec.containers[0]…: Invalid value: …`).
    pub message: String,
}

/// How a scenario's timeline compared with its snapshot file (`--snapshot`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnapshotState {
    /// The timeline is the snapshot, byte for byte.
    Matched,
    /// There was no snapshot; `--update` wrote it.
    Written,
    /// The snapshot differed; `--update` rewrote it.
    Updated,
    /// There is no snapshot (and no `--update`): a failure.
    Missing,
    /// The timeline differs from the snapshot (and no `--update`): a failure.
    Differs {
        /// The first line (1-based) of the snapshot that differs.
        line: usize,
        /// A short diff around it: `- expected` / `+ actual` lines with a little context.
        diff: String,
    },
}

impl SnapshotState {
    /// Does this state fail the scenario?
    #[must_use]
    pub fn is_failure(&self) -> bool {
        matches!(self, SnapshotState::Missing | SnapshotState::Differs { .. })
    }

    /// The JSON spelling.
    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            SnapshotState::Matched => "matched",
            SnapshotState::Written => "written",
            SnapshotState::Updated => "updated",
            SnapshotState::Missing => "missing",
            SnapshotState::Differs { .. } => "differs",
        }
    }
}

/// A scenario's snapshot file and how the timeline compared with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotCheck {
    /// The snapshot file's display path.
    pub path: String,
    /// How it compared.
    pub state: SnapshotState,
}

impl SnapshotCheck {
    /// The one-line description of a failing snapshot (`snapshot x.snap: …`), or `None`.
    #[must_use]
    pub fn failure_line(&self) -> Option<String> {
        match &self.state {
            SnapshotState::Missing => Some(format!(
                "snapshot {}: no such file (run with --update to write it)",
                self.path
            )),
            SnapshotState::Differs { line, .. } => Some(format!(
                "snapshot {}: the timeline differs from line {line} (- snapshot, + timeline); run with --update to accept it",
                self.path
            )),
            SnapshotState::Matched | SnapshotState::Written | SnapshotState::Updated => None,
        }
    }
}

/// The verdict on one scenario under one release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every expectation holds (and the snapshot matches, or was written).
    Passed,
    /// An expectation does not hold, or the snapshot differs or is missing.
    Failed,
    /// The scenario could not be read, loaded or run.
    Invalid,
}

/// What checking one scenario under one release found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckResult {
    /// The scenario's display path (`<stdin>` for standard input).
    pub file: String,
    /// The release the scenario ran under (`1.30`), when known.
    pub kubernetes: Option<String>,
    /// How many expectations the scenario has.
    pub expectations: usize,
    /// The expectations that do not hold, in the order of the file.
    pub failures: Vec<Failure>,
    /// The snapshot comparison, with `--snapshot`.
    pub snapshot: Option<SnapshotCheck>,
    /// Why the scenario is invalid (never empty when set); then nothing else was checked.
    pub invalid: Option<Vec<Problem>>,
}

impl CheckResult {
    /// A scenario that could not be read, loaded or run.
    #[must_use]
    pub fn invalid(file: &str, kubernetes: Option<String>, problems: Vec<Problem>) -> CheckResult {
        CheckResult {
            file: file.to_owned(),
            kubernetes,
            expectations: 0,
            failures: Vec::new(),
            snapshot: None,
            invalid: Some(problems),
        }
    }

    /// Passed, failed or invalid.
    #[must_use]
    pub fn verdict(&self) -> Verdict {
        if self.invalid.is_some() {
            Verdict::Invalid
        } else if !self.failures.is_empty()
            || self.snapshot.as_ref().is_some_and(|s| s.state.is_failure())
        {
            Verdict::Failed
        } else {
            Verdict::Passed
        }
    }

    /// Every failure as one line: the expectations' (`expect[1] (line 28): …`), then the
    /// snapshot's.
    #[must_use]
    pub fn failure_lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.failures.iter().map(ToString::to_string).collect();
        if let Some(line) = self.snapshot.as_ref().and_then(SnapshotCheck::failure_line) {
            lines.push(line);
        }
        lines
    }
}

/// How many results of each verdict a report has seen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Passed.
    pub passed: usize,
    /// Failed.
    pub failed: usize,
    /// Invalid.
    pub invalid: usize,
}

impl Totals {
    /// Every result counted.
    #[must_use]
    pub fn total(&self) -> usize {
        self.passed + self.failed + self.invalid
    }
}

impl fmt::Display for Totals {
    /// `3 passed, 1 failed` (with `, 2 invalid` when there are any).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)?;
        if self.invalid > 0 {
            write!(f, ", {} invalid", self.invalid)?;
        }
        Ok(())
    }
}

/// How a report names and filters its results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReportOptions {
    /// Leave out the passing scenarios (`text` and `github`; the documents list every result).
    pub quiet: bool,
    /// Name each result with its release (`x.yaml [1.30]`): set for a version matrix.
    pub label_release: bool,
}

/// Writes `probesim check`'s results in one [`CheckFormat`].
#[derive(Debug)]
pub struct CheckReport<W> {
    format: CheckFormat,
    w: W,
    options: ReportOptions,
    /// The results of the document formats, written at the end.
    kept: Vec<CheckResult>,
    totals: Totals,
}

impl<W: Write> CheckReport<W> {
    /// A report in `format` on `w`.
    #[must_use]
    pub fn new(format: CheckFormat, w: W, options: ReportOptions) -> CheckReport<W> {
        CheckReport {
            format,
            w,
            options,
            kept: Vec::new(),
            totals: Totals::default(),
        }
    }

    /// Adds one result (written at once in the streaming formats).
    ///
    /// # Errors
    /// Writing failed.
    pub fn result(&mut self, result: CheckResult) -> io::Result<()> {
        match result.verdict() {
            Verdict::Passed => self.totals.passed += 1,
            Verdict::Failed => self.totals.failed += 1,
            Verdict::Invalid => self.totals.invalid += 1,
        }
        match self.format {
            CheckFormat::Text => self.text(&result),
            CheckFormat::Github => github::write_result(&mut self.w, &result, self.options),
            CheckFormat::Json | CheckFormat::Junit => {
                self.kept.push(result);
                Ok(())
            }
        }
    }

    /// The counts so far.
    #[must_use]
    pub fn totals(&self) -> Totals {
        self.totals
    }

    /// Writes what comes after the results (the count; the whole document for `json` and
    /// `junit`) and hands the writer back.
    ///
    /// # Errors
    /// Writing failed.
    pub fn finish(mut self) -> io::Result<W> {
        match self.format {
            CheckFormat::Text | CheckFormat::Github => writeln!(self.w, "{}", self.totals)?,
            CheckFormat::Json => write_json(&mut self.w, &self.kept, self.totals)?,
            CheckFormat::Junit => {
                junit::write(&mut self.w, &self.kept, self.totals, self.options)?;
            }
        }
        self.w.flush()?;
        Ok(self.w)
    }

    fn text(&mut self, r: &CheckResult) -> io::Result<()> {
        // File names and messages carry text from input: it must not drive the terminal.
        let name = display_name(r, self.options);
        let name = printable(&name);
        match r.verdict() {
            Verdict::Passed => {
                if self.options.quiet {
                    return Ok(());
                }
                let n = r.expectations;
                let what = if n == 1 {
                    "expectation"
                } else {
                    "expectations"
                };
                let snapshot = match &r.snapshot {
                    None => String::new(),
                    Some(s) => format!("; snapshot {} {}", s.path, s.state.as_str()),
                };
                writeln!(self.w, "ok      {name} ({n} {what}{snapshot})")
            }
            Verdict::Failed => {
                let lines = r.failure_lines();
                let (first, more) = lines.split_first().map_or(("", &[][..]), |(f, m)| (f, m));
                writeln!(self.w, "FAILED  {name}: {}", printable(first))?;
                for line in more {
                    writeln!(self.w, "        {}", printable(line))?;
                }
                if let Some(SnapshotCheck {
                    state: SnapshotState::Differs { diff, .. },
                    ..
                }) = &r.snapshot
                {
                    for line in diff.lines() {
                        writeln!(self.w, "          {}", printable(line))?;
                    }
                }
                Ok(())
            }
            Verdict::Invalid => writeln!(self.w, "invalid {name}"),
        }
    }
}

/// `x.yaml`, or `x.yaml [1.30]` in a version matrix.
fn display_name(r: &CheckResult, options: ReportOptions) -> String {
    match (&r.kubernetes, options.label_release) {
        (Some(k), true) => format!("{} [{k}]", r.file),
        _ => r.file.clone(),
    }
}

/// The `json` document: `{"probesim": 1, "results": […], "passed": …, "failed": …,
/// "invalid": …}`, one result per line.
fn write_json<W: Write>(w: &mut W, results: &[CheckResult], totals: Totals) -> io::Result<()> {
    use crate::json::string;
    w.write_all(b"{\n  \"probesim\": 1,\n  \"results\": [")?;
    for (i, r) in results.iter().enumerate() {
        w.write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
        w.write_all(b"{\"file\": ")?;
        string(w, &r.file)?;
        w.write_all(b", \"kubernetes\": ")?;
        match &r.kubernetes {
            Some(k) => string(w, k)?,
            None => w.write_all(b"null")?,
        }
        let status = match r.verdict() {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::Invalid => "invalid",
        };
        write!(w, ", \"status\": \"{status}\"")?;
        if let Some(problems) = &r.invalid {
            w.write_all(b", \"errors\": [")?;
            for (j, p) in problems.iter().enumerate() {
                if j > 0 {
                    w.write_all(b", ")?;
                }
                w.write_all(b"{\"file\": ")?;
                string(w, &p.file)?;
                write_optional(w, "line", p.line)?;
                write_optional(w, "column", p.col)?;
                w.write_all(b", \"message\": ")?;
                string(w, &p.message)?;
                w.write_all(b"}")?;
            }
            w.write_all(b"]}")?;
            continue;
        }
        write!(w, ", \"expectations\": {}, \"failures\": [", r.expectations)?;
        for (j, f) in r.failures.iter().enumerate() {
            if j > 0 {
                w.write_all(b", ")?;
            }
            write!(w, "{{\"index\": {}", f.index)?;
            write_optional(w, "line", f.line)?;
            w.write_all(b", \"message\": ")?;
            string(w, &f.message)?;
            w.write_all(b"}")?;
        }
        w.write_all(b"]")?;
        if let Some(s) = &r.snapshot {
            w.write_all(b", \"snapshot\": {\"path\": ")?;
            string(w, &s.path)?;
            write!(w, ", \"state\": \"{}\"", s.state.as_str())?;
            if let SnapshotState::Differs { line, diff } = &s.state {
                write!(w, ", \"line\": {line}, \"diff\": ")?;
                string(w, diff)?;
            }
            w.write_all(b"}")?;
        }
        w.write_all(b"}")?;
    }
    if !results.is_empty() {
        w.write_all(b"\n  ")?;
    }
    writeln!(
        w,
        "],\n  \"passed\": {}, \"failed\": {}, \"invalid\": {}\n}}",
        totals.passed, totals.failed, totals.invalid
    )
}

fn write_optional<W: Write>(w: &mut W, key: &str, value: Option<usize>) -> io::Result<()> {
    match value {
        Some(v) => write!(w, ", \"{key}\": {v}"),
        None => Ok(()),
    }
}

/// Compares a snapshot with the timeline: `None` when they are the same bytes, else the first
/// differing line (1-based) and a short diff around it (`- snapshot`, `+ timeline`, `  both`).
#[must_use]
pub fn snapshot_diff(expected: &str, actual: &str) -> Option<(usize, String)> {
    if expected == actual {
        return None;
    }
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let first = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    let mut out = String::new();
    for i in first.saturating_sub(2)..(first + 6).min(e.len().max(a.len())) {
        match (e.get(i), a.get(i)) {
            (Some(x), Some(y)) if x == y => out.push_str(&format!("  {x}\n")),
            (x, y) => {
                if let Some(x) = x {
                    out.push_str(&format!("- {x}\n"));
                }
                if let Some(y) = y {
                    out.push_str(&format!("+ {y}\n"));
                }
            }
        }
    }
    if out.is_empty() {
        // Only the final newline differs.
        out.push_str("(the last line's newline differs)\n");
    }
    Some((first + 1, out))
}
