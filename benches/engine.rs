//! `cargo bench --bench engine`: whole-pipeline engine throughput and memory over long horizons.
//!
//! Each case loads a scenario file, builds its simulation (behaviour scripts included) and runs
//! it into a counting sink, in a child process of this binary so that the peak resident memory
//! (`VmHWM` from `/proc/self/status`) is the case's own. Nothing keeps history, so memory must
//! not grow with the horizon. Cases:
//! - `kubia`: `scenarios/kubia-unhealthy.yaml` over 1 and 30 days;
//! - `busy`: `benches/busy-pod.yaml` (3 containers × 3 probes at `periodSeconds: 1`) over 1 and
//!   7 days.
//!
//! The figure of merit is probe executions per second of wall time on one core.

use std::time::Instant;

mod support;

use probesim_core::{CountSink, SimTime};
use probesim_scenario::scenario::Scenario;

const DAY: u64 = 86_400;

fn load(case: &str) -> Scenario {
    let path = match case {
        "kubia" => "scenarios/kubia-unhealthy.yaml",
        "busy" => "benches/busy-pod.yaml",
        other => panic!("unknown case {other}"),
    };
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{root}/{path}")).expect("read scenario");
    Scenario::from_str(&text, path).unwrap_or_else(|e| panic!("{}", e.render(&text)))
}

#[expect(clippy::disallowed_methods, reason = "a benchmark measures wall time")]
fn run_case(case: &str, days: u64) {
    let scenario = load(case);
    let mut sim = scenario.simulation();
    let mut sink = CountSink::default();
    let start = Instant::now();
    sim.run_until(SimTime::from_secs(days * DAY), &mut sink)
        .expect("run");
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} {} {secs} {}",
        sink.probes,
        sink.total,
        support::status_kib("VmHWM")
    );
}

fn main() {
    if let Some((case, days)) = support::child_case() {
        run_case(&case, days.parse().unwrap_or(1));
        return;
    }
    if support::test_mode() {
        return;
    }
    println!(
        "{:<6} {:>5} {:>14} {:>12} {:>9} {:>14} {:>12}",
        "case", "days", "probe runs", "events", "seconds", "probes/s", "peak RSS"
    );
    for (case, days) in [("kubia", 1), ("kubia", 30), ("busy", 1), ("busy", 7)] {
        let f = support::fastest_of_three(case, &days.to_string(), 2);
        let (probes, events): (u64, u64) = (support::figure(&f, 0), support::figure(&f, 1));
        let (secs, rss): (f64, u64) = (support::figure(&f, 2), support::figure(&f, 3));
        #[expect(clippy::cast_precision_loss, reason = "a rate for display")]
        let rate = probes as f64 / secs;
        println!(
            "{case:<6} {days:>5} {probes:>14} {events:>12} {secs:>9.3} {rate:>14.0} {rss:>8} KiB"
        );
    }
}
