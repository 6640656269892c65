//! `cargo bench --bench check_jobs`: `probesim check` over many scenarios, on one thread and on all
//! cores.
//!
//! The workload is every bundled scenario under every modelled release
//! (`probesim check -q scenarios/ --kubernetes all`, about 1,800 jobs). Each `--jobs` setting
//! runs the `probesim` binary three times and the fastest wall time is reported, with the
//! speed-up over one thread. The output of every run must be the same bytes: a run whose
//! output differs from the first fails the benchmark.

use std::process::Command;
use std::time::Instant;

/// Runs the check once with `--jobs jobs`: the wall time and the output.
#[expect(clippy::disallowed_methods, reason = "a benchmark measures wall time")]
fn run(jobs: usize) -> (f64, Vec<u8>) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_probesim"))
        .args(["check", "-q", "scenarios/", "--kubernetes", "all", "--jobs"])
        .arg(jobs.to_string())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run probesim");
    let secs = start.elapsed().as_secs_f64();
    let mut bytes = out.stdout;
    bytes.extend_from_slice(&out.stderr);
    (secs, bytes)
}

fn main() {
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let mut settings = vec![1, 2, cores];
    settings.sort_unstable();
    settings.dedup();
    println!("{:>5} {:>9} {:>8}", "jobs", "seconds", "speed-up");
    let mut reference: Option<(f64, Vec<u8>)> = None;
    for jobs in settings {
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let (secs, output) = run(jobs);
            if let Some((_, first)) = &reference {
                assert!(*first == output, "--jobs {jobs} printed other bytes");
            } else {
                reference = Some((secs, output));
            }
            best = best.min(secs);
        }
        let one = match &mut reference {
            Some((one, _)) if jobs == 1 => {
                *one = best;
                best
            }
            Some((one, _)) => *one,
            None => best,
        };
        println!("{jobs:>5} {best:>9.3} {:>7.2}x", one / best);
    }
}
