//! Shared helpers of the file-per-test harnesses: finding fixtures, golden files.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use probesim_scenario::scenario::ManifestReader;

/// Reads the manifests scenarios reference, relative to the repository root (their paths are
/// resolved against the scenario's repository-relative path).
pub struct RepoFiles;

impl ManifestReader for RepoFiles {
    fn read(&mut self, path: &str) -> Result<String, String> {
        fs::read_to_string(root().join(path)).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "no such file or directory".to_owned(),
            _ => e.to_string(),
        })
    }
}

/// The repository root (where `Cargo.toml` is).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `check` as one named test per file under `<repository>/<dir>` with one of `exts`
/// (named by its path relative to that directory), with the standard test runner's options.
pub fn run_per_file(
    dir: &[&str],
    exts: &[&str],
    check: fn(&Path) -> Result<(), libtest_mimic::Failed>,
) -> ! {
    let args = libtest_mimic::Arguments::from_args();
    let root = dir.iter().fold(root(), |p, d| p.join(d));
    let trials = files(&root, exts)
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            libtest_mimic::Trial::test(name, move || check(&path))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit()
}

/// Files under `dir` (recursively) whose extension is one of `exts`, sorted.
pub fn files(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, exts, &mut out);
    out.sort();
    out
}

fn walk(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, exts, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.contains(&e))
        {
            out.push(path);
        }
    }
}

/// A path relative to the repository root, with `/` separators, for test names and messages.
pub fn rel(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Whether this run may write golden files: `PROBESIM_BLESS=1`, and never under CI.
#[expect(
    clippy::disallowed_methods,
    reason = "test configuration comes from the environment"
)]
pub fn blessing() -> bool {
    std::env::var("PROBESIM_BLESS").is_ok_and(|v| v == "1") && !in_ci()
}

/// Whether we run under CI (`CI=true`): nothing is ever written then.
#[expect(
    clippy::disallowed_methods,
    reason = "test configuration comes from the environment"
)]
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Compares `actual` with the golden file `snap`. On a difference: with blessing, rewrites the
/// golden file; otherwise writes `<snap>.new` (outside CI) for review and fails with a diff.
pub fn compare_golden(snap: &Path, actual: &str) -> Result<(), String> {
    let expected = fs::read_to_string(snap).ok();
    if expected.as_deref() == Some(actual) {
        let _ = fs::remove_file(new_path(snap));
        return Ok(());
    }
    if blessing() {
        fs::write(snap, actual).map_err(|e| format!("cannot write {}: {e}", snap.display()))?;
        let _ = fs::remove_file(new_path(snap));
        return Ok(());
    }
    if !in_ci() {
        let _ = fs::write(new_path(snap), actual);
    }
    let Some(expected) = expected else {
        return Err(format!(
            "no golden file {}; review {}.new and run with PROBESIM_BLESS=1 to accept it",
            rel(snap),
            rel(snap)
        ));
    };
    Err(format!(
        "{} differs from the golden file:\n{}",
        rel(snap),
        diff(&expected, actual)
    ))
}

fn new_path(snap: &Path) -> PathBuf {
    let mut s = snap.as_os_str().to_owned();
    s.push(".new");
    PathBuf::from(s)
}

/// A short line diff: the first differing lines with a little context.
pub fn diff(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let first = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    let mut out = format!("first difference at line {}:\n", first + 1);
    for i in first.saturating_sub(2)..(first + 8).min(e.len().max(a.len())) {
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
    out
}
