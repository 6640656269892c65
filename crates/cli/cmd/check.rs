//! `probesim check`: replays scenarios and checks their expectations.

use std::path::{Path, PathBuf};

use probesim_scenario::catalog;
use probesim_scenario::run::{check as check_scenario, RunFailure};
use probesim_scenario::scenario::Scenario;

use crate::args::CheckArgs;
use crate::cmd::{print_error, read_file, stdout_line, FileReader};
use crate::exit::ExitStatus;

pub fn check(args: &CheckArgs) -> ExitStatus {
    // Each file, and whether it was named on the command line (found in a directory, a
    // Kubernetes manifest is one that scenarios reference: it is passed over).
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    let mut bad_input = false;
    for path in &args.paths {
        if path.is_dir() {
            let mut found = Vec::new();
            if let Err(e) = collect(path, &mut found) {
                print_error(&e);
                bad_input = true;
            }
            files.extend(found.into_iter().map(|f| (f, false)));
        } else if path.exists() {
            files.push((path.clone(), true));
        } else {
            print_error(&format!("{}: no such file or directory", path.display()));
            bad_input = true;
        }
    }
    let (mut passed, mut failed, mut invalid) = (0usize, 0usize, 0usize);
    let mut checked = 0usize;
    for (file, named) in &files {
        let display = file.display().to_string();
        let text = match read_file(file) {
            Ok(t) => t,
            Err(e) => {
                print_error(&e);
                invalid += 1;
                checked += 1;
                continue;
            }
        };
        if catalog::is_manifest(&text) {
            if *named {
                stdout_line(&format!("invalid {display}"));
                print_error(&format!(
                    "{display}: a Kubernetes manifest, not a scenario: run it with `probesim run {display} --app …`, or reference it from a scenario with `manifest:`"
                ));
                invalid += 1;
                checked += 1;
            }
            continue;
        }
        checked += 1;
        let scenario = match Scenario::from_str_with(&text, &display, &mut FileReader) {
            Ok(s) => s,
            Err(e) => {
                stdout_line(&format!("invalid {display}"));
                print_error(&e.render(&text));
                invalid += 1;
                continue;
            }
        };
        match check_scenario(&scenario) {
            Ok(failures) if failures.is_empty() => {
                passed += 1;
                if !args.quiet {
                    let n = scenario.expect.len();
                    let what = if n == 1 {
                        "expectation"
                    } else {
                        "expectations"
                    };
                    stdout_line(&format!("ok      {display} ({n} {what})"));
                }
            }
            Ok(failures) => {
                failed += 1;
                stdout_line(&format!("FAILED  {display}: {}", failures[0]));
                for more in &failures[1..] {
                    stdout_line(&format!("        {more}"));
                }
            }
            Err(RunFailure::NoDuration) => {
                stdout_line(&format!("invalid {display}"));
                print_error(&format!(
                    "{display}: duration: Required value: the scenario sets no duration, and `probesim check` replays a scenario for its own: add `duration:`"
                ));
                invalid += 1;
            }
            Err(e) => {
                stdout_line(&format!("invalid {display}"));
                print_error(&format!("{display}: {e}"));
                invalid += 1;
            }
        }
    }
    if checked == 0 && !bad_input {
        print_error("no scenario files found (looked for *.yaml, *.yml and *.json)");
        return ExitStatus::Error;
    }
    let mut summary = format!("{passed} passed, {failed} failed");
    if invalid > 0 {
        summary.push_str(&format!(", {invalid} invalid"));
    }
    stdout_line(&summary);
    if bad_input || invalid > 0 {
        ExitStatus::Error
    } else if failed > 0 {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    }
}

/// Scenario files under a directory, recursively, in sorted order.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    collect_from(dir, &mut Vec::new(), out)
}

/// Walks `dir`, sorted by name, skipping a directory met again through a symbolic link (one
/// of `seen`, by its resolved path) so that a link cycle is not followed for ever.
fn collect_from(dir: &Path, seen: &mut Vec<PathBuf>, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if let Ok(real) = std::fs::canonicalize(dir) {
        if seen.contains(&real) {
            return Ok(());
        }
        seen.push(real);
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: cannot read directory: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_from(&path, seen, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
        {
            out.push(path);
        }
    }
    Ok(())
}
