//! `cargo bench --bench engine`: engine throughput, its cost per probe run as pods grow, the
//! naive fixed-step anchor, instruction counts and memory over long horizons.
//!
//! `cargo bench --bench engine -- --write docs/performance.md` also writes the report there
//! (machine, date, every table) and keeps what follows the file's "Measured by hand" marker line;
//! `-- --no-valgrind` skips the instruction counts.
//!
//! Each case runs in a child process of this binary (peak resident memory, `VmHWM`, is then the
//! case's own), five times; the tables give the median and the spread (fastest–slowest). Cases:
//! - `kubia`: `scenarios/kubia-unhealthy.yaml`, the engine into a counting sink;
//! - `kubia-json`, `kubia-summary`: the same scenario as `probesim run --format json|summary
//!   --no-fast-forward` runs it (event recorder and report sink included; the output is
//!   discarded): the cost of simulating every event;
//! - `kubia-ff`, `busy-ff`: `probesim run --format summary` with steady-state fast-forward (the
//!   default), kubia over a year and a hundred years, the busy pod over a year;
//! - `busy`, `busy-summary`: `benches/busy-pod.yaml` (3 containers × 3 probes at 1 s);
//! - `wide`: a generated pod of N containers × 3 probes at 1 s, as `--format summary`;
//! - `manifest`: a generated 0.9 MB pod of 2,500 containers × 3 probes (7,500 probes, API
//!   defaults), from its text to the summary, 10 minutes;
//! - `listing`: `SCENARIO:FORMAT:HORIZON`, kubia-unhealthy or the random endpoint as `probesim
//!   run --format FORMAT` (or `explain`) writes it with the defaults (fast-forward on), the
//!   output discarded: the listings and pictures as users run them (`-- --listings` runs only
//!   these);
//! - `naive`: kubia simulated the naive way, one 1 ms step at a time: the anchor;
//! - `library`: property-test cases of examples/team-repo (its web Deployment, an app that
//!   starts after 0 to 90 s, 5 minutes each) through the library: `fresh` builds each case with
//!   `Test::manifest_text(...)...run()`, `prepared` runs `Prepared::case()` of one
//!   `Test::prepare`, and `engine` only builds and runs each case's simulation from the loaded
//!   scenario into a counting sink: the engine's own cost, the floor.
//!
//! Instruction counts (valgrind's cachegrind, `I refs`) are marginal: the count at twice the
//! horizon minus the count at the horizon, over the probe runs in between, so parsing and
//! process start-up cancel out. They hardly move on a loaded machine; wall times do.

use std::fmt::Write as _;
use std::io;
use std::time::Instant;

mod support;

use probesim_core::{CountSink, SimTime};
use probesim_report::{render, render_with, Format, ViewOptions};
use probesim_scenario::scenario::Scenario;

const RUNS: usize = 5;

fn read(path: &str) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    std::fs::read_to_string(format!("{root}/{path}")).expect("read scenario")
}

fn parse(text: &str, path: &str) -> Scenario {
    Scenario::from_str(text, path).unwrap_or_else(|e| panic!("{}", e.render(text)))
}

/// A pod of `n` containers × 3 probes at `period` (API defaults when `None`), with the long
/// names and paths of a real manifest (a 2,500-container pod is about 0.9 MB, under the YAML
/// reader's limit of 100,000 nodes).
fn wide_pod(n: usize, period: Option<u32>, horizon: &str) -> String {
    let period = period.map_or(String::new(), |p| format!(", periodSeconds: {p}"));
    let mut out = format!(
        "name: wide-{n}\nduration: {horizon}\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {{name: wide}}\n  spec:\n    containers:\n"
    );
    for i in 0..n {
        let _ = write!(
            out,
            "    - name: application-container-{i:05}
      image: registry.example.com/platform-team/services/application-{i:05}:release-2026.12.01
      startupProbe: {{httpGet: {{path: /internal/health/startup/application-{i:05}, port: 8080}}{period}}}
      readinessProbe: {{httpGet: {{path: /internal/health/ready/application-{i:05}, port: 8080}}{period}}}
      livenessProbe: {{tcpSocket: {{port: 9000}}{period}}}
"
        );
    }
    out
}

/// The anchor: kubia-unhealthy the naive way, a fixed 1 ms step, every timer checked at every
/// step (liveness every 10 s, five successes then failures, killed at the third, SIGKILL 30 s
/// later, restarted after a doubling back-off capped at 300 s). A simplified model (it ignores
/// syncs, the stale snapshot and Events), so it does less than the engine per probe run; it is
/// there to show what stepping through idle time costs. Returns the probe runs.
fn naive_kubia(until_ms: u64) -> u64 {
    const PERIOD: u64 = 10_000;
    const GRACE: u64 = 30_000;
    let mut probes = 0u64;
    let (mut running, mut next_probe, mut answered, mut failures) = (true, PERIOD, 0u32, 0u32);
    let (mut kill_at, mut restart_at, mut restarts): (Option<u64>, Option<u64>, u32) =
        (None, None, 0);
    for t in 0..=until_ms {
        let t = std::hint::black_box(t);
        if kill_at.is_some_and(|k| t >= k) {
            kill_at = None;
            running = false;
            restarts += 1;
            let backoff = if restarts <= 1 {
                0
            } else {
                (10_000u64 << (restarts - 2).min(5)).min(300_000)
            };
            restart_at = Some(t + backoff);
        }
        if restart_at.is_some_and(|r| t >= r) {
            restart_at = None;
            (running, answered, failures, next_probe) = (true, 0, 0, t + PERIOD);
        }
        if running && kill_at.is_none() && t >= next_probe {
            probes += 1;
            answered += 1;
            next_probe += PERIOD;
            if answered > 5 {
                failures += 1;
                if failures >= 3 {
                    kill_at = Some(t + GRACE);
                }
            }
        }
    }
    probes
}

/// Runs `runs` copies of `scenario` (seeds 0, 1, …) as `--format summary` on `threads` threads
/// and returns the outputs in seed order: how a sweep uses the cores. The engine stays
/// single-threaded; a `Scenario` is plain data shared by reference, and each thread builds its
/// own simulations from it, so the outputs do not depend on the number of threads.
fn sweep(scenario: &Scenario, runs: u64, threads: usize) -> Vec<Vec<u8>> {
    let one = |seed: u64| {
        let mut s = scenario.clone();
        s.seed = seed;
        render(&s, Format::Summary, false, Vec::new()).expect("render")
    };
    let threads = threads.max(1);
    let mut outputs: Vec<Vec<u8>> = vec![Vec::new(); usize::try_from(runs).unwrap_or(0)];
    std::thread::scope(|scope| {
        let chunks: Vec<_> = outputs
            .chunks_mut(usize::try_from(runs).unwrap_or(0).div_ceil(threads).max(1))
            .enumerate()
            .map(|(i, chunk)| {
                let first = (i * chunk.len()) as u64;
                scope.spawn(move || {
                    for (j, out) in chunk.iter_mut().enumerate() {
                        *out = one(first + j as u64);
                    }
                })
            })
            .collect();
        for c in chunks {
            c.join().expect("sweep thread");
        }
    });
    outputs
}

/// Probe runs and events of a scenario to `end` (not timed: the render cases write reports).
fn count(scenario: &Scenario, end: SimTime) -> (u64, u64) {
    let mut sim = scenario.simulation();
    let mut sink = CountSink::default();
    // The counts are exact with fast-forward too (tests/fast_forward.rs), and far quicker.
    sim.run_until(end, &mut sink).expect("run");
    (sink.probes, sink.total)
}

/// The team repository's manifest, as its property tests load it.
const TEAM_MANIFEST: &str = "examples/team-repo/deploy/web.yaml";

/// The script of property-test case `i`: the app starts listening after `i` × 450 ms, wrapping
/// at 90 s (the team repository's slow-start test).
fn library_script(i: u64) -> String {
    let start = probesim::SimDuration::from_millis(i * 450 % 90_000);
    format!("refused for {} then ok", probesim::format_duration(start))
}

/// Runs `n` property-test cases the `way` given (see the module's docs); returns the probe runs.
fn library_cases(way: &str, n: u64) -> u64 {
    use probesim::{SimDuration, Test};
    let text = read(TEAM_MANIFEST);
    let horizon = SimDuration::from_secs(300);
    let fresh = |i: u64| {
        Test::manifest_text(&text, TEAM_MANIFEST)
            .select("Deployment/web")
            .container("web")
            .endpoint(":8080", &library_script(i))
            .seed(i)
            .horizon_of(horizon)
    };
    let mut probes = 0;
    match way {
        "fresh" => {
            for i in 0..n {
                probes += fresh(i).run().expect("case").probe_runs();
            }
        }
        "prepared" => {
            let prepared = fresh(0).prepare().expect("prepare");
            for i in 0..n {
                let run = prepared
                    .case()
                    .endpoint(":8080", &library_script(i))
                    .seed(i)
                    .horizon_of(horizon)
                    .run()
                    .expect("case");
                probes += run.probe_runs();
            }
        }
        "engine" => {
            let loaded = probesim_scenario::scenario::Scenario::from_manifest(
                &text,
                TEAM_MANIFEST,
                &probesim_scenario::scenario::ManifestRun {
                    select: Some("Deployment/web".to_owned()),
                    apps: vec![probesim_scenario::argument::AppArg {
                        flag: probesim_scenario::argument::AppFlag::App,
                        value: format!("web: :8080={}", library_script(0)),
                    }],
                    kubernetes: None,
                },
            )
            .expect("load")
            .scenario;
            let end = SimTime::ZERO.saturating_add(horizon);
            for i in 0..n {
                let mut scenario = loaded.clone();
                scenario.bindings[0].script =
                    probesim_script::parse(&library_script(i)).expect("script");
                scenario.seed = i;
                let mut sink = CountSink::default();
                scenario
                    .simulation()
                    .run_until(end, &mut sink)
                    .expect("run");
                probes += sink.probes;
            }
        }
        other => panic!("unknown way {other}"),
    }
    probes
}

#[expect(clippy::disallowed_methods, reason = "a benchmark measures wall time")]
fn run_case(case: &str, arg: &str) {
    let quiet = support::quiet();
    let hours = |a: &str| {
        probesim_script::parse_duration(a).unwrap_or_else(|e| panic!("horizon {a}: {e:?}"))
    };
    let (probes, events, secs) = match case {
        "naive" => {
            let ms = hours(arg).as_millis();
            let start = Instant::now();
            let probes = naive_kubia(ms);
            (probes, probes, start.elapsed().as_secs_f64())
        }
        "sweep" => {
            let (threads, rest) = arg.split_once(':').expect("threads:runs:horizon");
            let (runs, span) = rest.split_once(':').expect("runs:horizon");
            let (threads, runs): (usize, u64) = (
                threads.parse().expect("threads"),
                runs.parse().expect("runs"),
            );
            let mut scenario = parse(&read("scenarios/kubia-unhealthy.yaml"), "kubia.yaml");
            scenario.duration = Some(SimTime::ZERO.saturating_add(hours(span)));
            scenario.kubelet.jitter = true;
            let start = Instant::now();
            let outputs = sweep(&scenario, runs, threads);
            let secs = start.elapsed().as_secs_f64();
            // A digest of every output in run order: the same with one thread or many.
            let digest = outputs
                .iter()
                .flatten()
                .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                    (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
                });
            println!("{runs} {digest} {secs} {}", support::status_kib("VmHWM"));
            return;
        }
        "library" => {
            let (way, n) = arg.split_once(':').expect("way:cases");
            let n: u64 = n.parse().expect("cases");
            let start = Instant::now();
            let probes = library_cases(way, n);
            (probes, n, start.elapsed().as_secs_f64())
        }
        "listing" => {
            // `SCENARIO:FORMAT:HORIZON` as `probesim run` (or `explain`) runs it, defaults on.
            let mut parts = arg.splitn(3, ':');
            let (which, format, span) = (
                parts.next().expect("scenario"),
                parts.next().expect("format"),
                parts.next().expect("horizon"),
            );
            let path = match which {
                "kubia" => "scenarios/kubia-unhealthy.yaml",
                "random" => "scenarios/endpoints/random-outcomes-per-seed.yaml",
                other => panic!("unknown scenario {other}"),
            };
            let mut scenario = parse(&read(path), path);
            scenario.duration = Some(SimTime::ZERO.saturating_add(hours(span)));
            let start = Instant::now();
            if format == "explain" {
                probesim_report::render_explain(&scenario, io::sink()).expect("explain");
            } else {
                let view = ViewOptions {
                    readable: format == "timeline",
                    ..ViewOptions::default()
                };
                let format: Format = format.parse().expect("a format");
                render_with(&scenario, format, &view, io::sink()).expect("render");
            }
            (0, 0, start.elapsed().as_secs_f64())
        }
        "manifest" => {
            let text = wide_pod(2500, None, arg);
            let start = Instant::now();
            let scenario = parse(&text, "manifest.yaml");
            render(&scenario, Format::Summary, false, io::sink()).expect("render");
            let secs = start.elapsed().as_secs_f64();
            let end = scenario.duration.expect("duration");
            let (p, e) = if quiet { (0, 0) } else { count(&scenario, end) };
            (p, e, secs)
        }
        _ => {
            let (base, rest) = case.split_once('-').unwrap_or((case, ""));
            let (text, path, span) = match base {
                "kubia" => (
                    read("scenarios/kubia-unhealthy.yaml"),
                    "kubia-unhealthy.yaml".to_owned(),
                    arg,
                ),
                "busy" => (
                    read("benches/busy-pod.yaml"),
                    "busy-pod.yaml".to_owned(),
                    arg,
                ),
                "wide" => {
                    let (n, span) = arg.split_once(':').expect("N:horizon");
                    let n: usize = n.parse().expect("containers");
                    (wide_pod(n, Some(1), span), format!("wide-{n}.yaml"), span)
                }
                other => panic!("unknown case {other}"),
            };
            let mut scenario = parse(&text, &path);
            let end = SimTime::ZERO.saturating_add(hours(span));
            scenario.duration = Some(end);
            let format = match (base, rest) {
                ("wide", _) | (_, "summary" | "ff") => Some(Format::Summary),
                (_, "json") => Some(Format::Json),
                _ => None,
            };
            // Every case but `-ff` measures the step-by-step run: the cost per probe run.
            let view = ViewOptions {
                fast_forward: rest.ends_with("ff"),
                ..ViewOptions::default()
            };
            match format {
                None => {
                    let mut sim = scenario.simulation();
                    sim.set_fast_forward(false);
                    let mut sink = CountSink::default();
                    let start = Instant::now();
                    sim.run_until(end, &mut sink).expect("run");
                    let secs = start.elapsed().as_secs_f64();
                    (sink.probes, sink.total, secs)
                }
                Some(format) => {
                    let start = Instant::now();
                    render_with(&scenario, format, &view, io::sink()).expect("render");
                    let secs = start.elapsed().as_secs_f64();
                    let (p, e) = if quiet { (0, 0) } else { count(&scenario, end) };
                    (p, e, secs)
                }
            }
        }
    };
    println!("{probes} {events} {secs} {}", support::status_kib("VmHWM"));
}

/// One timed case: label, case, argument.
const TIMED: &[(&str, &str, &str)] = &[
    ("kubia, engine, 1 day", "kubia", "24h"),
    ("kubia, engine, 30 days", "kubia", "720h"),
    ("kubia, --format json, 1 day", "kubia-json", "24h"),
    ("kubia, --format summary, 30 days", "kubia-summary", "720h"),
    ("kubia, summary, fast-forward, 1 year", "kubia-ff", "8760h"),
    (
        "kubia, summary, fast-forward, 100 years",
        "kubia-ff",
        "876000h",
    ),
    ("busy, engine, 1 day", "busy", "24h"),
    ("busy, --format summary, 1 day", "busy-summary", "24h"),
    ("busy, summary, fast-forward, 1 year", "busy-ff", "8760h"),
    ("wide 1 × 3, summary, 1 day", "wide", "1:24h"),
    ("wide 10 × 3, summary, 2 h", "wide", "10:2h"),
    ("wide 100 × 3, summary, 12 min", "wide", "100:12m"),
    ("7,500-probe manifest, 10 min", "manifest", "10m"),
    ("naive 1 ms steps, kubia, 1 day", "naive", "24h"),
];

/// Marginal instruction counts: label, case, argument at the horizon, at twice the horizon.
const COUNTED: &[(&str, &str, &str, &str)] = &[
    ("kubia, engine", "kubia", "24h", "48h"),
    ("kubia, --format json", "kubia-json", "24h", "48h"),
    ("kubia, --format summary", "kubia-summary", "24h", "48h"),
    ("busy, engine", "busy", "1h", "2h"),
    ("busy, --format summary", "busy-summary", "1h", "2h"),
    ("wide 1 × 3, summary", "wide", "1:1h", "1:2h"),
    ("wide 10 × 3, summary", "wide", "10:10m", "10:20m"),
    ("wide 100 × 3, summary", "wide", "100:1m", "100:2m"),
    ("naive 1 ms steps, kubia", "naive", "1h", "2h"),
];

/// Horizons for the memory table (kubia as `--format summary`).
const MEMORY: &[&str] = &["24h", "720h", "8760h"];

#[expect(clippy::cast_precision_loss, reason = "rates for display")]
fn report(valgrind: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Wall time (median of {RUNS} runs, spread fastest–slowest)\n"
    );
    let _ = writeln!(
        out,
        "| case | probe runs | events | median s | spread s | ns / probe run | probe runs / s |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    let mut naive_per_day = None;
    let mut engine_per_day = None;
    let mut fast_forward = Vec::new();
    for (label, case, arg) in TIMED {
        let r = support::median_of(case, arg, 2, RUNS);
        let (probes, events): (u64, u64) =
            (support::figure(&r.median, 0), support::figure(&r.median, 1));
        let ns = r.secs * 1e9 / probes.max(1) as f64;
        let rate = probes as f64 / r.secs;
        if *case == "naive" {
            naive_per_day = Some(r.secs);
        }
        if *case == "kubia" && *arg == "24h" {
            engine_per_day = Some(r.secs);
        }
        let _ = writeln!(
            out,
            "| {label} | {probes} | {events} | {:.4} | {:.4}–{:.4} | {ns:.1} | {rate:.0} |",
            r.secs, r.spread.0, r.spread.1
        );
        eprintln!("{label}: {:.4} s", r.secs);
        if *case == "kubia-ff" {
            fast_forward.push((*arg, r.secs));
        }
    }
    for (arg, secs) in fast_forward {
        let _ = writeln!(
            out,
            "\nWith fast-forward, {arg} of kubia as `--format summary` take {:.1} ms (the same output as step by step).",
            secs * 1e3
        );
    }
    if let (Some(n), Some(e)) = (naive_per_day, engine_per_day) {
        let _ = writeln!(
            out,
            "\nThe naive 1 ms-step simulator takes {:.0}x the engine's time for a day of kubia.",
            n / e
        );
    }
    if valgrind {
        let _ = writeln!(
            out,
            "\n## Instructions (cachegrind `I refs`, marginal: twice the horizon minus the horizon)\n"
        );
        let _ = writeln!(
            out,
            "| case | horizons | probe runs in between | instructions in between | per probe run |"
        );
        let _ = writeln!(out, "|---|---|---:|---:|---:|");
        let mut per_probe = Vec::new();
        for (label, case, a, b) in COUNTED {
            let pa: u64 = support::figure(&support::child_run(case, a), 0);
            let pb: u64 = support::figure(&support::child_run(case, b), 0);
            let (Some(ia), Some(ib)) = (
                support::instructions(case, a),
                support::instructions(case, b),
            ) else {
                let _ = writeln!(out, "| {label} | valgrind failed | | | |");
                continue;
            };
            let (dp, di) = (pb.saturating_sub(pa), ib.saturating_sub(ia));
            let each = di as f64 / dp.max(1) as f64;
            per_probe.push((*case, *a, each, di));
            let _ = writeln!(out, "| {label} | {a} → {b} | {dp} | {di} | {each:.0} |");
            eprintln!("{label}: {each:.0} instructions per probe run");
        }
        let find = |c: &str, a: &str| {
            per_probe
                .iter()
                .find(|(pc, pa, _, _)| *pc == c && *pa == a)
                .map(|&(_, _, each, di)| (each, di))
        };
        if let (Some((w1, _)), Some((w100, _))) = (find("wide", "1:1h"), find("wide", "100:1m")) {
            let _ = writeln!(
                out,
                "\nPer probe run, 100 containers cost {:.2}x one container.",
                w100 / w1
            );
        }
        if let (Some((_, naive)), Some((_, engine))) = (find("naive", "1h"), find("kubia", "24h")) {
            // The naive count covers one hour, the engine's one day.
            let _ = writeln!(
                out,
                "Per simulated hour of kubia, the naive simulator executes {:.0}x the engine's instructions.",
                naive as f64 / (engine as f64 / 24.0)
            );
        }
        // The manifest case whole, parsing included: its target is about the whole run.
        let manifest_probes: u64 = support::figure(&support::child_run("manifest", "10m"), 0);
        if let Some(total) = support::instructions("manifest", "10m") {
            let _ = writeln!(
                out,
                "\nThe 7,500-probe manifest, whole (its text to the summary, 10 min): {total} instructions, {:.0} per probe run.",
                total as f64 / manifest_probes.max(1) as f64
            );
            eprintln!("manifest: {total} instructions");
        }
    }
    library_report(&mut out, valgrind);
    listing_report(&mut out);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let _ = writeln!(
        out,
        "\n## Sweep: 64 kubia runs (jitter on, seeds 0–63, 1 day each, summary), median of {RUNS}\n"
    );
    let _ = writeln!(out, "| threads | median s | spread s | output digest |");
    let _ = writeln!(out, "|---:|---:|---:|---|");
    let mut digests = Vec::new();
    for threads in [1, cores] {
        let r = support::median_of("sweep", &format!("{threads}:64:24h"), 2, RUNS);
        let digest: u64 = support::figure(&r.median, 1);
        digests.push((threads, r.secs, digest));
        let _ = writeln!(
            out,
            "| {threads} | {:.4} | {:.4}–{:.4} | {digest:016x} |",
            r.secs, r.spread.0, r.spread.1
        );
    }
    if let [(_, serial, a), (n, parallel, b)] = digests[..] {
        let _ = writeln!(
            out,
            "\n{n} threads: {:.2}x the speed of one; outputs {}.",
            serial / parallel,
            if a == b { "identical" } else { "DIFFERENT" }
        );
    }
    let _ = writeln!(
        out,
        "\n## Memory (kubia, `--format summary`): peak resident set by horizon\n"
    );
    let _ = writeln!(out, "| horizon | probe runs | peak RSS |");
    let _ = writeln!(out, "|---|---:|---:|");
    for h in MEMORY {
        let f = support::child_run("kubia-summary", h);
        let (probes, rss): (u64, u64) = (support::figure(&f, 0), support::figure(&f, 3));
        let _ = writeln!(out, "| {h} | {probes} | {rss} KiB |");
    }
    out
}

/// The listing and picture cases: scenario, format, horizon.
const LISTINGS: &[(&str, &str, &str)] = &[
    ("kubia", "json", "8760h"),
    ("kubia", "jsonl", "8760h"),
    ("kubia", "timeline", "8760h"),
    ("kubia", "svg", "8760h"),
    ("kubia", "html", "8760h"),
    ("kubia", "explain", "8760h"),
    ("kubia", "svg", "26280h"),
    ("kubia", "html", "26280h"),
    ("kubia", "explain", "26280h"),
    ("random", "json", "720h"),
    ("random", "jsonl", "720h"),
];

/// The line of docs/performance.md after which `--write` keeps the text as it is.
const HAND_MARKER: &str = "<!-- Measured by hand below this line";

/// Listings and pictures as `probesim run` writes them (fast-forward on, output discarded):
/// time and peak resident memory.
fn listing_report(out: &mut String) {
    let _ = writeln!(
        out,
        "\n## Listings and pictures (`probesim run --format F`, output discarded), median of {RUNS}\n"
    );
    let _ = writeln!(
        out,
        "| scenario | format | horizon | median s | spread s | peak RSS |"
    );
    let _ = writeln!(out, "|---|---|---|---:|---:|---:|");
    for (which, format, span) in LISTINGS {
        let arg = format!("{which}:{format}:{span}");
        let r = support::median_of("listing", &arg, 2, RUNS);
        let rss: u64 = support::figure(&r.median, 3);
        let name = match *which {
            "kubia" => "kubia-unhealthy",
            _ => "random-outcomes-per-seed",
        };
        let _ = writeln!(
            out,
            "| {name} | {format} | {span} | {:.4} | {:.4}–{:.4} | {rss} KiB |",
            r.secs, r.spread.0, r.spread.1
        );
        eprintln!("{name} {format} {span}: {:.4} s, {rss} KiB", r.secs);
    }
}

/// Property-test cases through the library: the time and instructions per case of each way.
#[expect(clippy::cast_precision_loss, reason = "rates for display")]
fn library_report(out: &mut String, valgrind: bool) {
    const CASES: u64 = 200;
    let _ = writeln!(
        out,
        "\n## Property-test cases (examples/team-repo's web Deployment, 5 min each, {CASES} cases), median of {RUNS}\n"
    );
    let _ = writeln!(
        out,
        "| way | median µs / case | spread µs / case | instructions / case | x engine |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|");
    let mut rows = Vec::new();
    for (label, way) in [
        ("`Test::…run()` for each case", "fresh"),
        (
            "`Test::…prepare()`, then `Prepared::case()…run()`",
            "prepared",
        ),
        (
            "the engine alone (simulation into a counting sink)",
            "engine",
        ),
    ] {
        let arg = format!("{way}:{CASES}");
        let r = support::median_of("library", &arg, 2, RUNS);
        let per = |s: f64| s * 1e6 / CASES as f64;
        // Marginal instructions: twice the cases minus the cases, so loading cancels out.
        let instructions = if valgrind {
            let twice = format!("{way}:{}", CASES * 2);
            support::instructions("library", &arg)
                .zip(support::instructions("library", &twice))
                .map(|(a, b)| b.saturating_sub(a) as f64 / CASES as f64)
        } else {
            None
        };
        eprintln!("library {way}: {:.1} µs per case", per(r.secs));
        rows.push((
            label,
            way,
            per(r.secs),
            per(r.spread.0),
            per(r.spread.1),
            instructions,
        ));
    }
    let engine = rows
        .iter()
        .find(|r| r.1 == "engine")
        .map(|r| (r.2, r.5))
        .unwrap_or_default();
    for (label, _, median, lo, hi, instructions) in &rows {
        // The ratio of instructions where they were counted: wall time is noisy here.
        let ratio = match (instructions, engine.1) {
            (Some(i), Some(e)) => i / e,
            _ => median / engine.0,
        };
        let counted = instructions.map_or_else(|| "–".to_owned(), |i| format!("{i:.0}"));
        let _ = writeln!(
            out,
            "| {label} | {median:.1} | {lo:.1}–{hi:.1} | {counted} | {ratio:.2} |"
        );
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")?
                .split_once(':')
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    format!("{cpu}, {cores} cores (nproc), load average {load} at the start; {date}")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some((case, arg)) = support::child_case() {
        run_case(&case, &arg);
        return;
    }
    if support::test_mode() {
        return;
    }
    let write = args
        .iter()
        .position(|a| a == "--write")
        .and_then(|i| args.get(i + 1).cloned());
    let valgrind = !args.iter().any(|a| a == "--no-valgrind");
    if args.iter().any(|a| a == "--listings") {
        // The listings' section alone.
        let mut body = String::new();
        listing_report(&mut body);
        println!("Machine: {}\n{body}", machine());
        return;
    }
    let machine = machine();
    let body = report(valgrind);
    println!("Machine: {machine}\n\n{body}");
    if let Some(path) = write {
        // The sections measured by hand (before/after comparisons of a change) follow a marker
        // line and are kept as they are.
        let kept = std::fs::read_to_string(&path)
            .ok()
            .and_then(|old| old.find(HAND_MARKER).map(|i| old[i..].to_owned()))
            .unwrap_or_default();
        let doc = format!(
            "# Performance\n\n\
             Generated by `cargo bench --bench engine -- --write docs/performance.md` \
             (see `benches/engine.rs` for the cases). Machine: {machine}.\n\n\
             Wall times on a shared machine are noisy (other builds run alongside): read the \
             spread, and trust the instruction counts and the ratios more than the seconds.\n\n\
             {body}\n{kept}"
        );
        std::fs::write(&path, doc).expect("write the report");
        println!("written to {path}");
    }
}
