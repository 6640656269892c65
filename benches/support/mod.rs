//! What the benchmark binaries share: each case runs in a child process of the binary, so that
//! its peak resident memory is its own, and the fastest of three runs is reported.

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

/// Runs this binary with `--case case arg` three times and returns the whitespace-separated
/// figures the child printed in its fastest run, judged by the figure at `time_column`.
pub fn fastest_of_three(case: &str, arg: &str, time_column: usize) -> Vec<String> {
    let exe = std::env::current_exe().expect("own path");
    let mut best: Option<(f64, Vec<String>)> = None;
    for _ in 0..3 {
        let out = Command::new(&exe)
            .args(["--case", case, arg])
            .output()
            .expect("run child");
        let fields: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let secs = fields
            .get(time_column)
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN);
        if best.as_ref().is_none_or(|(b, _)| secs < *b) {
            best = Some((secs, fields));
        }
    }
    best.map(|(_, f)| f).unwrap_or_default()
}

/// The figure at `i` parsed, or the type's default.
pub fn figure<T: std::str::FromStr + Default>(fields: &[String], i: usize) -> T {
    fields
        .get(i)
        .and_then(|v| v.parse().ok())
        .unwrap_or_default()
}
