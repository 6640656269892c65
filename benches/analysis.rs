//! `cargo bench --bench analysis`: how long `probesim analyze` takes per configuration, and the
//! recommender's throughput.
//!
//! Cases, each run five times (the median is reported) with a sweep over every core:
//! - `kubia`: every figure and finding of `scenarios/kubia-unhealthy.yaml`;
//! - `shop`: `Deployment/shop` of `tests/cmd/fixtures/analyze-findings.yaml`, three containers
//!   (two with three and two probes);
//! - `eight`: `benches/eight-containers.yaml`, a Deployment of eight containers with a startup,
//!   a readiness and a liveness probe each (periods 5 s to 30 s, a 60 s grid cycle);
//! - `recommend`: `Deployment/web` of `examples/manifests/app.yaml` with a start-up, a hang and a
//!   not-Ready requirement; the figure of merit is simulations per second;
//! - `recommend8`: the first container of `eight` with a start-up and a hang requirement
//!   (`probesim recommend benches/eight-containers.yaml --container web --startup-up-to 60s
//!   --detect-hang-within 40s`).
//!
//! Each line also gives the process's CPU time per run (user and system, both threads), to set
//! against the wall time: their ratio is how much of the two cores the sweep kept busy.

use std::time::Instant;

use probesim_analysis::recommend::{recommend, Requirements};
use probesim_analysis::report::WorkloadReport;
use probesim_analysis::subject::{load, LoadOptions, Subject};
use probesim_analysis::sweep::Sweep;
use probesim_core::SimDuration;
use probesim_scenario::scenario::NoFiles;

fn subject(path: &str, select: Option<&str>) -> Subject {
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{root}/{path}")).expect("read file");
    let options = LoadOptions {
        select: select.map(str::to_owned),
        ..LoadOptions::default()
    };
    load(&text, path, &options, &mut NoFiles)
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[expect(clippy::disallowed_methods, reason = "a benchmark measures wall time")]
fn time<R>(f: impl FnOnce() -> R) -> (R, f64, f64) {
    let cpu = cpu_seconds();
    let start = Instant::now();
    let r = f();
    (r, start.elapsed().as_secs_f64(), cpu_seconds() - cpu)
}

/// The CPU time the process has used so far, user and system, every thread (`/proc/self/stat`,
/// in clock ticks of 1/100 s); 0 where there is no such file.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // The fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    (tick(11) + tick(12)) / 100.0
}

fn line(case: &str, secs: Vec<f64>, cpu: Vec<f64>, sims: u64) {
    let m = median(secs);
    let c = median(cpu);
    #[expect(clippy::cast_precision_loss, reason = "a rate for people")]
    let rate = sims as f64 / m;
    println!("{case:<10} {m:>12.3} {c:>12.3} {sims:>12} {rate:>14.0}");
}

fn main() {
    // `cargo test --benches` runs this binary in test mode: nothing to measure then.
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let sweep = Sweep::new(threads);
    println!("threads: {threads}");
    println!(
        "{:<10} {:>12} {:>12} {:>12} {:>14}",
        "case", "median s", "median CPU s", "simulations", "simulations/s"
    );
    for (case, path, select) in [
        ("kubia", "scenarios/kubia-unhealthy.yaml", None),
        (
            "shop",
            "tests/cmd/fixtures/analyze-findings.yaml",
            Some("Deployment/shop"),
        ),
        ("eight", "benches/eight-containers.yaml", None),
    ] {
        let s = subject(path, select);
        let (mut secs, mut cpu) = (Vec::new(), Vec::new());
        let mut sims = 0;
        for _ in 0..5 {
            let (r, t, c) = time(|| WorkloadReport::of(s.clone(), sweep).expect("analysis"));
            sims = r.simulations;
            secs.push(t);
            cpu.push(c);
        }
        line(case, secs, cpu, sims);
    }
    let s = subject("examples/manifests/app.yaml", Some("Deployment/web"));
    let req = Requirements {
        startup_up_to: Some(SimDuration::from_secs(90)),
        detect_hang_within: Some(SimDuration::from_secs(30)),
        not_ready_within: Some(SimDuration::from_secs(10)),
        ..Requirements::default()
    };
    let (mut secs, mut cpu) = (Vec::new(), Vec::new());
    let mut sims = 0;
    for _ in 0..3 {
        let (r, t, c) = time(|| recommend(&s, 0, &req, sweep, 3).expect("search"));
        sims = r.simulations;
        secs.push(t);
        cpu.push(c);
    }
    line("recommend", secs, cpu, sims);
    let s = subject("benches/eight-containers.yaml", None);
    let req = Requirements {
        startup_up_to: Some(SimDuration::from_secs(60)),
        detect_hang_within: Some(SimDuration::from_secs(40)),
        ..Requirements::default()
    };
    let (mut secs, mut cpu) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let (r, t, c) = time(|| recommend(&s, 0, &req, sweep, 3).expect("search"));
        sims = r.simulations;
        secs.push(t);
        cpu.push(c);
    }
    line("recommend8", secs, cpu, sims);
}
