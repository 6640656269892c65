//! `--format github`: GitHub Actions workflow commands, so that each failure shows as an
//! annotation on the line of the scenario file that states the expectation.
//!
//! ```text
//! ::error file=tests/cmd/fixtures/failing-expectation.yaml,line=28,title=probesim check::expect[1]: at 1m container web: restartCount expected 0, saw 2
//! ```
//!
//! A failing expectation points at its line; a differing or missing snapshot at the scenario
//! file (the message names the `.snap` and its first differing line); an invalid scenario gives one annotation per problem, at its line and
//! column. Passing scenarios are plain `ok` lines (left out with `--quiet`), and the count
//! ends the output as in `text`. Values are escaped as the runner expects: `%`, CR and LF in
//! the message; also `:` and `,` in the properties.

use std::io::{self, Write};

use probesim_kube::printable::{printable, printable_lines};

use super::{display_name, CheckResult, ReportOptions, SnapshotState, Verdict};

pub(super) fn write_result<W: Write>(
    w: &mut W,
    r: &CheckResult,
    options: ReportOptions,
) -> io::Result<()> {
    let name = display_name(r, options);
    let title = match (&r.kubernetes, options.label_release) {
        (Some(k), true) => format!("probesim check (Kubernetes {k})"),
        _ => "probesim check".to_owned(),
    };
    match r.verdict() {
        Verdict::Passed => {
            if !options.quiet {
                writeln!(w, "ok      {}", printable(&name))?;
            }
        }
        Verdict::Failed => {
            for f in &r.failures {
                annotate(
                    w,
                    &r.file,
                    f.line,
                    None,
                    &title,
                    &format!("expect[{}]: {}", f.index, f.message),
                )?;
            }
            // A snapshot failure is annotated on the scenario file, which a pull request
            // changes (the `.snap` usually is not in its diff, where an annotation would not
            // show); the message names the snapshot and its first differing line.
            if let Some(s) = &r.snapshot {
                if let Some(message) = s.failure_line() {
                    let message = match &s.state {
                        SnapshotState::Differs { diff, .. } => format!("{message}\n{diff}"),
                        _ => message,
                    };
                    annotate(w, &r.file, None, None, &title, message.trim_end())?;
                }
            }
        }
        Verdict::Invalid => {
            for p in r.invalid.as_deref().unwrap_or_default() {
                annotate(w, &p.file, p.line, p.col, &title, &p.message)?;
            }
        }
    }
    Ok(())
}

/// `::error file=F,line=L,col=C,title=T::MESSAGE`.
fn annotate<W: Write>(
    w: &mut W,
    file: &str,
    line: Option<usize>,
    col: Option<usize>,
    title: &str,
    message: &str,
) -> io::Result<()> {
    write!(w, "::error file={}", property(file))?;
    if let Some(l) = line {
        write!(w, ",line={l}")?;
    }
    if let Some(c) = col {
        write!(w, ",col={c}")?;
    }
    writeln!(w, ",title={}::{}", property(title), data(message))
}

/// A message: `%`, CR and LF escaped as the workflow-command rules say (a line break is kept
/// as `%0A`, which the runner shows as one), and every other character that must not reach a
/// log raw (ESC, BEL, C1, bidirectional, zero-width, U+2028) as a `\u{…}` escape.
pub(super) fn data(s: &str) -> String {
    printable_lines(s)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value (`file=`, `title=`): every unprintable character escaped, line breaks
/// included, then `%`, `:` and `,` as the rules say; a file name cannot end the command.
pub(super) fn property(s: &str) -> String {
    printable(s)
        .replace('%', "%25")
        .replace(':', "%3A")
        .replace(',', "%2C")
}
