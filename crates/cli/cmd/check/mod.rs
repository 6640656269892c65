//! `probesim check`: replays scenarios and checks their expectations (and, with `--snapshot`,
//! their whole timelines), under one release or a version matrix, on every core.
//!
//! The work is one job per scenario and release. Jobs run on `--jobs` threads (scoped, each
//! job wholly on one thread: the libraries stay single-threaded), and their results are
//! printed in the order of the jobs, as soon as every earlier one is done: the output is the
//! same bytes whatever the number of threads.

mod job;
mod walk;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use probesim_core::profile::{NEWEST_MINOR, OLDEST_MINOR};
use probesim_core::Profile;
use probesim_report::check::{CheckFormat, CheckReport, CheckResult, Problem, ReportOptions};

use crate::args::CheckArgs;
use crate::cmd::{io_text, print_error, print_notes, read_input};
use crate::exit::ExitStatus;

use self::job::{Input, Outcome, Task};
use self::walk::{Disk, Entry, Kind};

pub fn check(args: &CheckArgs) -> ExitStatus {
    let format: CheckFormat = match args.format.parse() {
        Ok(f) => f,
        Err(e) => {
            print_error(&format!("--format: {e}"));
            return ExitStatus::Error;
        }
    };
    let releases = match args.kubernetes.as_deref().map(releases) {
        None => vec![None],
        Some(Ok(list)) => list.into_iter().map(Some).collect(),
        Some(Err(e)) => {
            print_error(&format!("--kubernetes: {e}"));
            return ExitStatus::Error;
        }
    };
    let stdin_count = args.paths.iter().filter(|p| is_stdin(p)).count();
    if stdin_count > 1 {
        print_error("-: standard input can be checked only once");
        return ExitStatus::Error;
    }
    if args.update && !args.set.is_empty() {
        print_error(
            "--update writes the scenarios' own snapshots: it cannot be combined with --set",
        );
        return ExitStatus::Error;
    }
    if args.snapshot && stdin_count > 0 {
        print_error("--snapshot: a scenario on standard input has no place beside it for a snapshot file; check it from a file");
        return ExitStatus::Error;
    }

    let (inputs, bad_input) = collect_inputs(&args.paths);
    let mut jobs = Vec::new();
    for input in &inputs {
        match input {
            Input::Unreadable { .. } => jobs.push(Task {
                input,
                release: None,
            }),
            Input::File { .. } | Input::Stdin(_) => {
                jobs.extend(releases.iter().map(|r| Task {
                    input,
                    release: r.as_deref(),
                }));
            }
        }
    }
    if args.update && !args.force && under_ci() {
        print_error("--update: refused under CI (the environment variable CI is `true`): snapshots are reviewed changes, written where someone reads the diff; run it locally, or add --force to write them here");
        return ExitStatus::Error;
    }
    let options = job::Options {
        snapshot: args.snapshot,
        update: args.update,
        release_in_snapshot_name: args.kubernetes.is_some(),
        fast_forward: !args.no_fast_forward,
        allow_outside_tree: args.allow_outside_tree,
        sets: args.set.clone(),
        timing: args
            .timing
            .as_deref()
            .and_then(probesim_scenario::scenario::TimingMode::parse),
        timings: args.timings.map(|n| n as usize),
    };
    let threads = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        usize::from,
    );
    let report = CheckReport::new(
        format,
        io::stdout().lock(),
        ReportOptions {
            quiet: args.quiet,
            label_release: args.kubernetes.is_some(),
        },
    );
    let written = run_jobs(&jobs, &options, threads, report).and_then(|report| {
        let totals = report.totals();
        if totals.total() == 0 && !bad_input {
            // Nothing to report on: no count, no empty document.
            return Ok(None);
        }
        drop(report.finish()?);
        Ok(Some(totals))
    });
    let totals = match written {
        Ok(Some(t)) => t,
        Ok(None) => {
            print_error("no scenario files found (looked for *.yaml, *.yml and *.json)");
            return ExitStatus::Error;
        }
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return ExitStatus::Success,
        Err(e) => {
            print_error(&format!("writing to standard output: {e}"));
            return ExitStatus::Error;
        }
    };
    if bad_input || totals.invalid > 0 {
        ExitStatus::Error
    } else if totals.failed > 0 {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    }
}

/// `1.30,1.37` or `all`, as the releases' own spelling (`1.30`), without repeats.
fn releases(list: &str) -> Result<Vec<String>, String> {
    if list.trim() == "all" {
        return Ok((OLDEST_MINOR..=NEWEST_MINOR)
            .map(|m| format!("1.{m}"))
            .collect());
    }
    let mut out: Vec<String> = Vec::new();
    for item in list.split(',').map(str::trim) {
        let profile = Profile::parse(item).ok_or_else(|| {
            format!(
                "unsupported Kubernetes version {item:?}: probesim models 1.{OLDEST_MINOR} to 1.{NEWEST_MINOR} (or `all`)"
            )
        })?;
        let version = profile.version();
        if !out.contains(&version) {
            out.push(version);
        }
    }
    Ok(out)
}

fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The inputs named on the command line, directories expanded, in order; and whether a named
/// path does not exist (reported here, on standard error).
fn collect_inputs(paths: &[PathBuf]) -> (Vec<Input>, bool) {
    let mut inputs = Vec::new();
    let mut missing = false;
    for path in paths {
        if is_stdin(path) {
            inputs.push(Input::Stdin(read_input("-")));
            continue;
        }
        match std::fs::metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                print_error(&format!("{}: no such file or directory", path.display()));
                missing = true;
            }
            Err(e) => inputs.push(Input::Unreadable {
                path: path.clone(),
                reason: format!("cannot read: {}", io_text(&e)),
            }),
            Ok(m) => match walk::kind_of(&m.file_type()) {
                Kind::Dir => {
                    inputs.extend(walk::walk(path, &mut Disk).into_iter().map(|e| match e {
                        Entry::Scenario(path) => Input::File { path, named: false },
                        Entry::Unreadable { path, reason } => Input::Unreadable { path, reason },
                    }));
                }
                Kind::File => inputs.push(Input::File {
                    path: path.clone(),
                    named: true,
                }),
                Kind::Other(what) => inputs.push(Input::Unreadable {
                    path: path.clone(),
                    reason: format!(
                        "not a regular file ({what}): passed over unread (pipe a scenario in with `probesim check -`)"
                    ),
                }),
            },
        }
    }
    (inputs, missing)
}

/// Runs the jobs on `threads` threads and reports each result in job order, as soon as the
/// jobs before it are done.
fn run_jobs<W: Write>(
    jobs: &[Task<'_>],
    options: &job::Options,
    threads: usize,
    mut report: CheckReport<W>,
) -> io::Result<CheckReport<W>> {
    let threads = threads.clamp(1, jobs.len().max(1));
    if threads == 1 {
        for j in jobs {
            emit(&mut report, j.run(options))?;
        }
        return Ok(report);
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Option<Outcome>)>();
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(j) = jobs.get(i) else { break };
                    if tx.send((i, j.run(options))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Results arrive in any order; each is printed once all before it are.
        let mut ready: Vec<Option<Option<Outcome>>> = Vec::new();
        ready.resize_with(jobs.len(), || None);
        let mut printed = 0;
        for (i, outcome) in rx {
            ready[i] = Some(outcome);
            while let Some(slot) = ready.get_mut(printed) {
                let Some(outcome) = slot.take() else { break };
                printed += 1;
                if let Err(e) = emit(&mut report, outcome) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        Ok(report)
    })
}

/// Reports one result (a manifest passed over in a directory has none), then its error text.
fn emit<W: Write>(report: &mut CheckReport<W>, outcome: Option<Outcome>) -> io::Result<()> {
    let Some(outcome) = outcome else {
        return Ok(());
    };
    report.result(outcome.result)?;
    if let Some(note) = outcome.note {
        print_notes(&[note]);
    }
    if let Some(text) = outcome.stderr {
        print_error(&text);
    }
    Ok(())
}

/// A result for an input that cannot be read at all.
fn unreadable(path: &Path, reason: &str) -> Outcome {
    let file = path.display().to_string();
    Outcome {
        result: CheckResult::invalid(
            &file,
            None,
            vec![Problem {
                file: file.clone(),
                line: None,
                col: None,
                message: reason.to_owned(),
            }],
        ),
        stderr: Some(format!("{file}: {reason}")),
        note: None,
    }
}

/// Whether the command runs under CI: the environment variable `CI` is `true` (GitHub Actions,
/// GitLab CI and most others set it). Read here, in the binary, and nowhere in the libraries.
#[expect(
    clippy::disallowed_methods,
    reason = "whether --update may write is decided by the CI the command runs under"
)]
fn under_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}
