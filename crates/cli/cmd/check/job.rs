//! One job of `probesim check`: one scenario under one release, from its text to its result.

use std::path::{Path, PathBuf};

use probesim_report::check::{CheckResult, Problem, SnapshotCheck, SnapshotState};
use probesim_report::{render, Format};
use probesim_scenario::catalog;
use probesim_scenario::error::ScenarioError;
use probesim_scenario::run::{check_with, RunFailure};
use probesim_scenario::scenario::{Edits, Overrides, Scenario};
use probesim_scenario::yaml::SourceId;

use crate::cmd::{read_file, FileReader};

/// Why a scenario without `duration` cannot be checked.
const NO_DURATION: &str = "duration: Required value: the scenario sets no duration, and `probesim check` replays a scenario for its own: add `duration:`";

/// What a job reads.
pub enum Input {
    /// A scenario file; `named` when the command line named it (a manifest found in a
    /// directory is passed over; one named is an error).
    File { path: PathBuf, named: bool },
    /// Standard input, read once before the jobs start (or why it could not be).
    Stdin(Result<String, String>),
    /// An entry that cannot be read at all.
    Unreadable { path: PathBuf, reason: String },
}

/// One scenario under one release (`None`: the scenario's own).
pub struct Job<'a> {
    pub input: &'a Input,
    pub release: Option<&'a str>,
}

/// How the jobs check.
pub struct Options {
    /// Compare the timeline with the snapshot file.
    pub snapshot: bool,
    /// Write missing or changed snapshots.
    pub update: bool,
    /// Name the snapshot after the release (`x@1.30.snap`): set with `--kubernetes`.
    pub release_in_snapshot_name: bool,
    /// Jump over repeated cycles (not with `--no-fast-forward`).
    pub fast_forward: bool,
    /// `--set` edits of every scenario's pod.
    pub sets: Vec<String>,
}

/// What a job found, and the error text for standard error.
pub struct Outcome {
    pub result: CheckResult,
    pub stderr: Option<String>,
}

impl Job<'_> {
    /// Runs the job; `None` for a manifest passed over in a directory.
    pub fn run(&self, options: &Options) -> Option<Outcome> {
        let (display, path, named, text) = match self.input {
            Input::Unreadable { path, reason } => return Some(super::unreadable(path, reason)),
            Input::File { path, named } => {
                let display = path.display().to_string();
                let text = read_file(path);
                (display, Some(path.as_path()), *named, text)
            }
            Input::Stdin(text) => ("<stdin>".to_owned(), None, true, text.clone()),
        };
        let release = self.release.map(str::to_owned);
        let invalid = |message: String, stderr: String| {
            Some(Outcome {
                result: CheckResult::invalid(
                    &display,
                    release.clone(),
                    vec![Problem {
                        file: display.clone(),
                        line: None,
                        col: None,
                        message,
                    }],
                ),
                stderr: Some(stderr),
            })
        };
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                let message = e
                    .strip_prefix(&format!("{display}: "))
                    .unwrap_or(&e)
                    .to_owned();
                return invalid(message, e);
            }
        };
        if catalog::is_manifest(&text) {
            if !named {
                return None;
            }
            let message = format!(
                "a Kubernetes manifest, not a scenario: run it with `probesim run {display} --app …`, or reference it from a scenario with `manifest:`"
            );
            return invalid(message.clone(), format!("{display}: {message}"));
        }
        let overrides = Overrides {
            kubernetes: release.clone(),
            ..Overrides::default()
        };
        let edits = Edits {
            apps: Vec::new(),
            sets: options.sets.clone(),
        };
        let scenario =
            match Scenario::load_edited(&text, &display, &mut FileReader, &overrides, &edits) {
                Ok(s) => s,
                // The only problem is the missing duration (which `run` could take from --for):
                // say what `check` needs.
                Err(e)
                    if e.items.len() == 1
                        && e.items[0].mark.is_none()
                        && e.items[0].path.to_string() == "duration" =>
                {
                    let message = NO_DURATION.to_owned();
                    return invalid(message.clone(), format!("{display}: {message}"));
                }
                Err(e) => {
                    return Some(Outcome {
                        result: CheckResult::invalid(&display, release, problems(&e)),
                        stderr: Some(e.render(&text)),
                    });
                }
            };
        let kubernetes = Some(scenario.profile.version());
        let failures = match check_with(&scenario, options.fast_forward) {
            Ok(f) => f,
            Err(RunFailure::NoDuration) => {
                let message = NO_DURATION.to_owned();
                return invalid(message.clone(), format!("{display}: {message}"));
            }
            Err(e) => return invalid(e.to_string(), format!("{display}: {e}")),
        };
        let snapshot = match (options.snapshot, path) {
            (true, Some(path)) => match snapshot(&scenario, path, self.release, options) {
                Ok(s) => Some(s),
                Err(e) => return invalid(e.clone(), format!("{display}: {e}")),
            },
            _ => None,
        };
        Some(Outcome {
            result: CheckResult {
                file: display,
                kubernetes,
                expectations: scenario.expect.len(),
                failures,
                snapshot,
                invalid: None,
            },
            stderr: None,
        })
    }
}

/// The diagnostics of a load error, each at its file, line and column.
fn problems(e: &ScenarioError) -> Vec<Problem> {
    e.items
        .iter()
        .map(|d| {
            let file = match d.mark.map(|m| m.source) {
                Some(SourceId(n)) if n > 0 => e
                    .sources
                    .get(usize::try_from(n - 1).unwrap_or(usize::MAX))
                    .map_or_else(|| e.file.clone(), |s| s.name.clone()),
                _ => e.file.clone(),
            };
            Problem {
                file,
                line: d.mark.map(|m| m.line),
                col: d.mark.map(|m| m.col),
                message: d.to_string(),
            }
        })
        .collect()
}

/// The snapshot file of a scenario: `x.snap` beside `x.yaml`, or `x@1.30.snap` for a release
/// given on the command line.
pub fn snapshot_path(scenario: &Path, release: Option<&str>, by_release: bool) -> PathBuf {
    match (release, by_release) {
        (Some(r), true) => {
            let stem = scenario.file_stem().unwrap_or_default().to_string_lossy();
            scenario.with_file_name(format!("{stem}@{r}.snap"))
        }
        _ => scenario.with_extension("snap"),
    }
}

/// Renders the timeline and compares it with (or, with `--update`, writes) the snapshot.
fn snapshot(
    scenario: &Scenario,
    path: &Path,
    release: Option<&str>,
    options: &Options,
) -> Result<SnapshotCheck, String> {
    let snap = snapshot_path(path, release, options.release_in_snapshot_name);
    let shown = snap.display().to_string();
    let bytes = render(scenario, Format::Timeline, false, Vec::new()).map_err(|e| e.to_string())?;
    let actual = String::from_utf8(bytes).map_err(|e| format!("the timeline is not UTF-8: {e}"))?;
    // A snapshot that is not a regular file (a FIFO could block for ever) is not opened.
    if let Ok(m) = std::fs::metadata(&snap) {
        if let super::walk::Kind::Other(what) = super::walk::kind_of(&m.file_type()) {
            return Err(format!("snapshot {shown}: not a regular file ({what})"));
        }
    }
    let expected = match std::fs::read(&snap) {
        Ok(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(format!(
                "snapshot {shown}: cannot read file: {}",
                crate::cmd::io_text(&e)
            ))
        }
    };
    let state = match (&expected, options.update) {
        (Some(e), _) if *e == actual => SnapshotState::Matched,
        (None, false) => SnapshotState::Missing,
        (Some(e), false) => {
            let (line, diff) =
                probesim_report::check::snapshot_diff(e, &actual).unwrap_or((1, String::new()));
            SnapshotState::Differs { line, diff }
        }
        (_, true) => {
            std::fs::write(&snap, &actual)
                .map_err(|e| format!("snapshot {shown}: cannot write file: {e}"))?;
            if expected.is_some() {
                SnapshotState::Updated
            } else {
                SnapshotState::Written
            }
        }
    };
    Ok(SnapshotCheck { path: shown, state })
}
