//! What the benchmark binaries share: each case runs in a child process of the binary, so that
//! its peak resident memory is its own; the median of several runs is reported, with the spread.

use std::process::Command;

/// A memory figure of this process from `/proc/self/status` (`VmHWM` is the peak, `VmRSS` the
/// current resident size), in KiB; 0 where the file is not available.
pub fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The `--case NAME ARG` arguments of a child run, if this is one.
pub fn child_case() -> Option<(String, String)> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == "--case")?;
    Some((
        args.get(i + 1)?.clone(),
        args.get(i + 2).cloned().unwrap_or_default(),
    ))
}

/// Whether the binary runs in test mode (`cargo test --benches`): nothing to measure then.
pub fn test_mode() -> bool {
    std::env::args().any(|a| a == "--test" || a == "--list")
}

/// The figures a child printed (`--case case arg`), split at whitespace.
pub fn child_run(case: &str, arg: &str) -> Vec<String> {
    let exe = std::env::current_exe().expect("own path");
    let out = Command::new(&exe)
        .args(["--case", case, arg])
        .output()
        .expect("run child");
    assert!(
        out.status.success(),
        "case {case} {arg} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// Several runs of one case: the run with the median time (figure `time_column`), and the
/// spread of the times as (min, max).
pub struct Runs {
    /// The figures of the median run.
    pub median: Vec<String>,
    /// The fastest and the slowest time.
    pub spread: (f64, f64),
    /// The median time.
    pub secs: f64,
}

/// Runs `--case case arg` `n` times in child processes and keeps the median run (not the
/// fastest: on a shared machine the fastest run is luck, the median is typical).
pub fn median_of(case: &str, arg: &str, time_column: usize, n: usize) -> Runs {
    let mut runs: Vec<(f64, Vec<String>)> = (0..n.max(1))
        .map(|_| {
            let f = child_run(case, arg);
            (figure(&f, time_column), f)
        })
        .collect();
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let spread = (runs[0].0, runs[runs.len() - 1].0);
    let (secs, median) = runs.swap_remove(runs.len() / 2);
    Runs {
        median,
        spread,
        secs,
    }
}

/// Instructions executed by `--case case arg` under valgrind's cachegrind (`I refs`): a count
/// that barely moves on a loaded machine, unlike wall time. `None` without valgrind.
pub fn instructions(case: &str, arg: &str) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let out = Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
        ])
        .arg(&exe)
        .args(["--case", case, arg, "--quiet"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    let line = text
        .lines()
        .find(|l| l.contains("I refs:") || l.contains("I   refs:"))?;
    line.rsplit(':')
        .next()?
        .trim()
        .replace(',', "")
        .parse()
        .ok()
}

/// Whether this child run was asked not to do extra work after the measured part.
pub fn quiet() -> bool {
    std::env::args().any(|a| a == "--quiet")
}

/// The figure at `i` parsed, or the type's default.
pub fn figure<T: std::str::FromStr + Default>(fields: &[String], i: usize) -> T {
    fields
        .get(i)
        .and_then(|v| v.parse().ok())
        .unwrap_or_default()
}
