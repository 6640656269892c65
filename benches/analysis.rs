//! `cargo bench --bench analysis`: how long `probesim analyze` takes per configuration, and the
//! recommender's throughput.
//!
//! Cases, each run five times (the median is reported) with a sweep over every core:
//! - `kubia`: every figure and finding of `scenarios/kubia-unhealthy.yaml`;
//! - `shop`: `Deployment/shop` of `tests/cmd/fixtures/analyze-findings.yaml`, three containers
//!   (two with three and two probes);
//! - `recommend`: `Deployment/web` of `examples/manifests/app.yaml` with a start-up, a hang and a
//!   not-Ready requirement; the figure of merit is simulations per second.

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
fn time<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed().as_secs_f64())
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
        "{:<10} {:>12} {:>12} {:>14}",
        "case", "median s", "simulations", "simulations/s"
    );
    for (case, path, select) in [
        ("kubia", "scenarios/kubia-unhealthy.yaml", None),
        (
            "shop",
            "tests/cmd/fixtures/analyze-findings.yaml",
            Some("Deployment/shop"),
        ),
    ] {
        let s = subject(path, select);
        let mut secs = Vec::new();
        let mut sims = 0;
        for _ in 0..5 {
            let (r, t) = time(|| WorkloadReport::of(s.clone(), sweep).expect("analysis"));
            sims = r.simulations;
            secs.push(t);
        }
        let m = median(secs);
        #[expect(clippy::cast_precision_loss, reason = "a rate for people")]
        let rate = sims as f64 / m;
        println!("{case:<10} {m:>12.3} {sims:>12} {rate:>14.0}");
    }
    let s = subject("examples/manifests/app.yaml", Some("Deployment/web"));
    let req = Requirements {
        startup_up_to: Some(SimDuration::from_secs(90)),
        detect_hang_within: Some(SimDuration::from_secs(30)),
        not_ready_within: Some(SimDuration::from_secs(10)),
        ..Requirements::default()
    };
    let mut secs = Vec::new();
    let mut sims = 0;
    for _ in 0..3 {
        let (r, t) = time(|| recommend(&s, 0, &req, sweep, 3).expect("search"));
        sims = r.simulations;
        secs.push(t);
    }
    let m = median(secs);
    #[expect(clippy::cast_precision_loss, reason = "a rate for people")]
    let rate = sims as f64 / m;
    println!("{:<10} {m:>12.3} {sims:>12} {rate:>14.0}", "recommend");
}
