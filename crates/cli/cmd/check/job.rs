//! One job of `probesim check`: one scenario under one release, from its text to its result.

use std::path::{Path, PathBuf};

use probesim_kube::catalog;
use probesim_kube::error::InputError;
use probesim_kube::yaml::SourceId;
use probesim_report::check::{CheckResult, Problem, SnapshotCheck, SnapshotState};
use probesim_report::{render, Format};
use probesim_scenario::run::{check_timings, RunFailure};
use probesim_scenario::scenario::{Edits, Overrides, Scenario, TimingMode};

use probesim::input::{self, Tree};

use crate::cmd::{read_file, references};

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
pub struct Task<'a> {
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
    /// Let scenarios found in a directory, and `manifest:` references, leave the tree
    /// (`--allow-outside-tree`).
    pub allow_outside_tree: bool,
    /// `--set` edits of every scenario's pod.
    pub sets: Vec<String>,
    /// `--timing`, over every scenario's `timing`.
    pub timing: Option<TimingMode>,
    /// `--timings N`: check every expectation over N timings too.
    pub timings: Option<usize>,
}

/// What a job found, and the error text for standard error.
pub struct Outcome {
    pub result: CheckResult,
    pub stderr: Option<String>,
    /// A note for standard error (printed before any error text).
    pub note: Option<String>,
}

impl Task<'_> {
    /// Runs the job; `None` for a manifest passed over in a directory.
    pub fn run(&self, options: &Options) -> Option<Outcome> {
        let (display, path, named, text) = match self.input {
            Input::Unreadable { path, reason } => return Some(super::unreadable(path, reason)),
            Input::File { path, named } => {
                let display = path.display().to_string();
                // A scenario found in a directory is confined like a reference: a link to
                // /etc/passwd among the scenarios must not reach an error message.
                let admitted = if *named || options.allow_outside_tree {
                    Ok(())
                } else {
                    Tree::of(Some(path), "--allow-outside-tree")
                        .admit(path)
                        .map(drop)
                        .map_err(|e| e.with_path(&display))
                };
                let text = admitted.and_then(|()| read_file(path));
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
                note: None,
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
        // A file with a manifest's top-level key (`kind`, `apiVersion`, `items`) and a
        // scenario's is not passed over as a manifest: it is loaded as the scenario it meant to
        // be, and the stray key is reported at its line.
        if catalog::is_manifest(&text) && !has_scenario_keys(&text) {
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
            timing: options.timing,
            ..Overrides::default()
        };
        let edits = Edits {
            apps: Vec::new(),
            sets: options.sets.clone(),
        };
        let mut files = references(path, options.allow_outside_tree);
        let scenario = match Scenario::load_edited(&text, &display, &mut files, &overrides, &edits)
        {
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
                    note: None,
                });
            }
        };
        let kubernetes = Some(scenario.profile.version());
        let failures = match check_timings(&scenario, options.timings, options.fast_forward) {
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
            // A file without `kubernetes:` follows the newest release: say so, as `run` does.
            note: scenario.release_note().map(str::to_owned),
        })
    }
}

/// The diagnostics of a load error, each at its file, line and column.
fn problems(e: &InputError) -> Vec<Problem> {
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

/// Keys that only a scenario has at its top level (a manifest has `apiVersion`, `kind`,
/// `metadata`, `spec`, `status` or `items`).
const SCENARIO_ONLY_KEYS: &[&str] = &[
    "duration",
    "expect",
    "apps",
    "pod",
    "manifest",
    "select",
    "featureGates",
    "kubelet",
    "deleteAt",
    "seed",
    "kubernetes",
];

/// Whether the first document has a key that only scenarios have.
fn has_scenario_keys(text: &str) -> bool {
    probesim_kube::yaml::first_document_keys(text)
        .iter()
        .any(|k| SCENARIO_ONLY_KEYS.contains(&k.as_str()))
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
    let expected = read_snapshot(&snap, &shown, actual.len(), options.allow_outside_tree)?;
    let state = match (&expected, options.update) {
        (Some(e), _) if *e == actual => SnapshotState::Matched,
        (None, false) => SnapshotState::Missing,
        (Some(e), false) => {
            let (line, diff) =
                probesim_report::check::snapshot_diff(e, &actual).unwrap_or((1, String::new()));
            SnapshotState::Differs { line, diff }
        }
        (_, true) => {
            write_snapshot(&snap, &shown, &actual)?;
            if expected.is_some() {
                SnapshotState::Updated
            } else {
                SnapshotState::Written
            }
        }
    };
    Ok(SnapshotCheck { path: shown, state })
}

/// The snapshot's text, `None` when there is none. It is read through the one bounded reader
/// (never more than the input limit, or the timeline's own size when that is larger), and a
/// snapshot that is a link out of the scenario's tree is refused like a `manifest:` reference.
fn read_snapshot(
    snap: &Path,
    shown: &str,
    timeline: usize,
    allow_outside_tree: bool,
) -> Result<Option<String>, String> {
    match std::fs::symlink_metadata(snap) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(format!(
                "snapshot {shown}: cannot read file: {}",
                input::io_text(&e)
            ))
        }
        Ok(_) => {}
    }
    if !allow_outside_tree {
        Tree::of(Some(snap), "--allow-outside-tree")
            .admit(snap)
            .map_err(|e| format!("snapshot {}", e.with_path(shown)))?;
    }
    // One byte more than the timeline is enough to know they differ; the limit keeps a huge
    // (or sparse) file from being read whole.
    let limit = input::MAX_INPUT_BYTES.max(timeline);
    let bytes =
        input::read_bytes(snap, limit).map_err(|e| format!("snapshot {}", e.with_path(shown)))?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Writes a snapshot beside its scenario, never through a symbolic link: a `.snap` that is a
/// link (to `~/.bashrc`, say) is refused, and the new bytes go to a fresh file in the same
/// directory that then replaces the old name, so no other file is ever opened for writing.
fn write_snapshot(snap: &Path, shown: &str, text: &str) -> Result<(), String> {
    if let Ok(m) = std::fs::symlink_metadata(snap) {
        if m.file_type().is_symlink() {
            return Err(format!(
                "snapshot {shown}: is a symbolic link; --update writes only regular files beside the scenario, never through a link (remove the link to have it written)"
            ));
        }
        if !m.file_type().is_file() {
            return Err(format!(
                "snapshot {shown}: not a regular file; --update writes only regular files beside the scenario"
            ));
        }
    }
    let name = snap.file_name().unwrap_or_default().to_string_lossy();
    let fresh = snap.with_file_name(format!(".{name}.probesim-new"));
    // A leftover of an interrupted write (or a link planted under that name) goes first.
    let _ = std::fs::remove_file(&fresh);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&fresh)
        .and_then(|mut f| {
            use std::io::Write;
            f.write_all(text.as_bytes())?;
            f.sync_all()
        });
    if let Err(e) = written.and_then(|()| std::fs::rename(&fresh, snap)) {
        let _ = std::fs::remove_file(&fresh);
        return Err(format!(
            "snapshot {shown}: cannot write file: {}",
            input::io_text(&e)
        ));
    }
    Ok(())
}
