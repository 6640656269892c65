//! Steady-state fast-forward gives exactly what the step-by-step run gives: the same summary
//! bytes, the same expectation verdicts and the same final state, on generated scenarios (crash
//! loops, flapping readiness, pods that settle, several containers and releases) with generated
//! expectations. The test also requires that fast-forward really jumps in a good share of the
//! cases, so it cannot pass by never jumping.

use std::cell::Cell;
use std::fmt::Write as _;

use std::collections::BTreeMap;
use std::convert::Infallible;

use probesim_core::cycle::Visitor;
use probesim_core::{
    Event, EventKind, FastForward, Flow, Recorder, SimDuration, SimTime, Simulation, Sink, VecSink,
};
use probesim_report::{render_with, Format, ViewOptions};
use probesim_scenario::expect::{ExpectSink, Failure};
use probesim_scenario::run::{horizon, Discard};
use probesim_scenario::scenario::Scenario;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

const RELEASES: [&str; 5] = ["1.19", "1.25", "1.30", "1.34", "1.37"];

/// A probe: kind, handler (0 http, 1 tcp, 2 exec), period, failure and success thresholds,
/// timeout, initial delay.
#[derive(Clone, Debug)]
struct Probe {
    kind: &'static str,
    handler: u8,
    period: u32,
    failure: u32,
    success: u32,
    timeout: u32,
    delay: u32,
    script: String,
}

fn outcome(handler: u8, good: bool) -> &'static str {
    match (handler, good) {
        (0, true) => "200",
        (0, false) => "500",
        (2, true) => "exit 0",
        (2, false) => "exit 1",
        (_, true) => "ok",
        (_, false) => "fail",
    }
}

fn script(handler: u8) -> impl Strategy<Value = String> {
    let ok = outcome(handler, true);
    let bad = outcome(handler, false);
    prop_oneof![
        (1u32..8).prop_map(move |n| format!("{n}x{ok} then {bad}")),
        Just(ok.to_owned()),
        Just(bad.to_owned()),
        (1u32..60).prop_map(move |s| format!("{bad} for {s}s then {ok}")),
        (1u32..40, 1u32..40)
            .prop_map(move |(a, b)| format!("{ok} for {a}s then {bad} for {b}s repeat")),
        (1u32..5, 1u32..5).prop_map(move |(a, b)| format!("{a}x{ok} then {b}x{bad} repeat")),
        (1u32..4).prop_map(move |n| format!("{n}x{ok} then timeout")),
        (1u32..3000).prop_map(move |ms| format!("{ok} after {ms}ms")),
        (1u32..300).prop_map(move |s| format!("pod: {ok} for {s}s then {bad}")),
        (1u32..30, 1u32..30)
            .prop_map(move |(a, b)| format!("pod: {ok} for {a}s then {bad} for {b}s repeat")),
    ]
}

fn probe(kind: &'static str) -> impl Strategy<Value = Probe> {
    (0u8..3).prop_flat_map(move |handler| {
        (
            1u32..16,
            1u32..5,
            1u32..4,
            1u32..4,
            prop_oneof![Just(0u32), 0u32..25],
            script(handler),
        )
            .prop_map(
                move |(period, failure, success, timeout, delay, script)| Probe {
                    kind,
                    handler,
                    period,
                    failure,
                    // Liveness and startup probes must have successThreshold 1.
                    success: if kind == "readinessProbe" { success } else { 1 },
                    timeout,
                    delay,
                    script,
                },
            )
    })
}

#[derive(Clone, Debug)]
struct Container {
    probes: Vec<Probe>,
    sigterm: Option<u32>,
    exit: Option<(i32, u32)>,
    /// An image pull of this many seconds, on every start (`Always`) or only the first.
    pull: Option<(u32, bool)>,
    /// The network probes share one script and counter through `endpoints: {":8080": …}`.
    shared: bool,
}

fn container() -> impl Strategy<Value = Container> {
    (
        proptest::option::weighted(0.85, probe("livenessProbe")),
        proptest::option::weighted(0.5, probe("readinessProbe")),
        proptest::option::weighted(0.2, probe("startupProbe")),
        proptest::option::of(0u32..40),
        proptest::option::weighted(0.2, (0i32..3, 1u32..200)),
        proptest::option::weighted(0.15, (1u32..20, any::<bool>())),
        proptest::bool::weighted(0.2),
    )
        .prop_map(|(l, r, s, sigterm, exit, pull, shared)| Container {
            probes: [l, r, s].into_iter().flatten().collect(),
            sigterm,
            exit,
            pull,
            shared,
        })
}

/// Expectations of every kind, with windows and instants that fall anywhere in the run.
fn expectations(horizon_s: u32) -> impl Strategy<Value = Vec<String>> {
    let t = move || 0..horizon_s + 600;
    let one = prop_oneof![
        (t(), t(), 0usize..4).prop_map(|(a, b, k)| {
            let kind = ["kill", "start", "probe", "ready"][k];
            format!("  - timeline: {{kind: {kind}}}\n    between: [{}, {}]\n    count: {{min: 0}}\n", a.min(b), a.max(b))
        }),
        (t(), t(), 0usize..3).prop_map(|(a, b, k)| {
            let reason = ["BackOff", "Unhealthy", "Killing"][k];
            format!("  - events: {{reason: {reason}}}\n    between: [{}, {}]\n    count: {{max: 3}}\n", a.min(b), a.max(b))
        }),
        (t(), 0u32..30).prop_map(|(at, n)| {
            format!("  - at: {at}\n    container: c0\n    restartCount: {{min: {n}}}\n")
        }),
        (t(), any::<bool>()).prop_map(|(at, ready)| format!("  - at: {at}\n    podReady: {ready}\n")),
        (0u64..400, proptest::option::of(1u32..3000)).prop_map(|(max, within)| {
            let mut s = format!("  - maxRestarts: {max}\n");
            if let Some(w) = within {
                let _ = writeln!(s, "    within: {w}s");
            }
            s
        }),
        (t(), t()).prop_map(|(a, b)| format!(
            "  - maxRestarts: 2\n    container: c0\n    between: [{}, {}]\n",
            a.min(b),
            a.max(b)
        )),
        (t(), t()).prop_map(|(a, b)| format!("  - firstKill: {{min: {}, max: {}}}\n", a.min(b), a.max(b))),
        Just("  - noKill: true\n".to_owned()),
        t().prop_map(|w| format!("  - readyWithin: {w}s\n")),
        (1u32..400).prop_map(|l| format!("  - neverNotReadyLongerThan: {l}s\n")),
        (t(), 0u32..2000).prop_map(|(a, n)| format!(
            "  - timeline: {{kind: probe, container: c0}}\n    between: [{a}, {}]\n    count: {{min: {n}}}\n",
            a + 7200
        )),
    ];
    proptest::collection::vec(one, 0..6)
}

#[derive(Clone, Debug)]
struct Case {
    release: &'static str,
    policy: &'static str,
    containers: Vec<Container>,
    /// A sidecar (an init container that restarts `Always`) with its own probes, or a regular
    /// init container that exits 0 after a while.
    init: Option<(bool, Container)>,
    horizon_s: u32,
    resync: u32,
    /// `kubelet.restartAt`, `deleteAt` and `kubelet.maxContainerRestartPeriod`, in seconds.
    restart_at: Option<u32>,
    delete_at: Option<u32>,
    max_restart_period: Option<u32>,
    expect: Vec<String>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0usize..RELEASES.len(),
        prop_oneof![6 => Just("Always"), 1 => Just("OnFailure"), 1 => Just("Never")],
        proptest::collection::vec(container(), 1..3),
        prop_oneof![1800u32..14_400, 14_400u32..40_000],
        prop_oneof![3 => Just(60u32), 1 => 1u32..90],
        proptest::option::weighted(0.2, (any::<bool>(), container())),
        (
            proptest::option::weighted(0.15, 1u32..20_000),
            proptest::option::weighted(0.1, 1u32..20_000),
            proptest::option::weighted(0.15, 1u32..120),
        ),
    )
        .prop_flat_map(
            |(r, policy, containers, horizon_s, resync, init, (restart_at, delete_at, max))| {
                expectations(horizon_s).prop_map(move |expect| Case {
                    release: RELEASES[r],
                    policy,
                    containers: containers.clone(),
                    init: init.clone(),
                    horizon_s,
                    resync,
                    restart_at,
                    delete_at,
                    max_restart_period: max,
                    expect,
                })
            },
        )
}

impl Case {
    /// Every container with its name: the init container (`i0`) first.
    fn named(&self) -> Vec<(String, &Container)> {
        let init = self.init.iter().map(|(_, c)| ("i0".to_owned(), c));
        init.chain(
            self.containers
                .iter()
                .enumerate()
                .map(|(i, c)| (format!("c{i}"), c)),
        )
        .collect()
    }

    fn yaml(&self) -> String {
        let mut y = format!(
            "name: generated\nkubernetes: \"{}\"\nseed: 0\nduration: {}s\ntiming: exact\nkubelet:\n  resync: {}s\n",
            self.release, self.horizon_s, self.resync
        );
        if let Some(t) = self.restart_at {
            let _ = writeln!(y, "  restartAt: {t}s");
        }
        if let Some(t) = self.max_restart_period {
            let _ = writeln!(y, "  maxContainerRestartPeriod: {t}s");
        }
        if let Some(t) = self.delete_at {
            let _ = writeln!(y, "deleteAt: {t}s");
        }
        let _ = write!(
            y,
            "pod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {{name: generated}}\n  spec:\n    restartPolicy: {}\n",
            self.policy
        );
        if let Some((sidecar, c)) = &self.init {
            y.push_str("    initContainers:\n    - name: i0\n      image: example/init\n");
            if *sidecar {
                y.push_str("      restartPolicy: Always\n");
                probes_yaml(&mut y, c);
            }
        }
        y.push_str("    containers:\n");
        for (i, c) in self.containers.iter().enumerate() {
            let _ = writeln!(y, "    - name: c{i}\n      image: example/app");
            if let Some((_, true)) = c.pull {
                y.push_str("      imagePullPolicy: Always\n");
            }
            probes_yaml(&mut y, c);
        }
        y.push_str("apps:\n");
        for (name, c) in self.named() {
            let _ = writeln!(y, "  {name}:");
            match c.sigterm {
                None => y.push_str("    sigterm: ignore\n"),
                Some(s) => {
                    let _ = writeln!(y, "    sigterm: exit 0 after {s}s");
                }
            }
            let sidecar = self.init.as_ref().is_some_and(|(s, _)| *s);
            match (name.as_str(), c.exit) {
                // A regular init container must end for the pod to start.
                ("i0", _) if !sidecar => {
                    let after = c.exit.map_or(3, |(_, a)| a % 30 + 1);
                    let _ = writeln!(y, "    exit: \"0 after {after}s\"");
                }
                (_, Some((code, after))) => {
                    let _ = writeln!(y, "    exit: \"{code} after {after}s\"");
                }
                (_, None) => {}
            }
            if let (Some((secs, _)), false) = (c.pull, name == "i0") {
                let _ = writeln!(y, "    pull: {secs}s");
            }
            let probed = name != "i0" || sidecar;
            // With `shared`, the http and tcp probes (all on port 8080) take one endpoint script:
            // the first such probe's, if it reads as a tcp script too.
            let endpoint = c
                .probes
                .iter()
                .find(|p| p.handler == 1)
                .filter(|_| c.shared)
                .map(|p| p.script.clone());
            if probed && !c.probes.is_empty() {
                y.push_str("    probes:\n");
                for p in &c.probes {
                    if endpoint.is_some() && p.handler != 2 {
                        continue;
                    }
                    let kind = p.kind.trim_end_matches("Probe");
                    let _ = writeln!(y, "      {kind}: \"{}\"", p.script);
                }
                if let Some(script) = &endpoint {
                    let _ = writeln!(y, "    endpoints:\n      \":8080\": \"{script}\"");
                }
            }
        }
        if !self.expect.is_empty() {
            y.push_str("expect:\n");
            for e in &self.expect {
                y.push_str(e);
            }
        }
        y
    }
}

fn probes_yaml(y: &mut String, c: &Container) {
    for p in &c.probes {
        let handler = match p.handler {
            0 => "httpGet: {path: /health, port: 8080}",
            1 => "tcpSocket: {port: 8080}",
            _ => "exec: {command: [cat, /tmp/healthy]}",
        };
        let _ = writeln!(
            y,
            "      {}: {{{handler}, periodSeconds: {}, failureThreshold: {}, successThreshold: {}, timeoutSeconds: {}, initialDelaySeconds: {}}}",
            p.kind, p.period, p.failure, p.success, p.timeout, p.delay
        );
    }
}

/// Runs `scenario` to its horizon into the sink `make` builds for the simulation: the sink,
/// the final state (time and status) and the time fast-forward skipped.
fn run<S: Sink<Error = Infallible>>(
    scenario: &Scenario,
    fast_forward: bool,
    make: impl FnOnce(&Simulation) -> S,
) -> (S, String, SimDuration) {
    run_with(scenario, fast_forward, true, make)
}

/// [`run`], with the steady-tick shortcut on or off.
fn run_with<S: Sink<Error = Infallible>>(
    scenario: &Scenario,
    fast_forward: bool,
    steady: bool,
    make: impl FnOnce(&Simulation) -> S,
) -> (S, String, SimDuration) {
    let end = horizon(scenario).expect("duration");
    let mut sim: Simulation = scenario.simulation();
    sim.set_fast_forward(fast_forward);
    sim.set_steady_ticks(steady);
    let mut sink = make(&sim);
    sim.run_until(end, &mut sink).expect("the run settles");
    let state = format!("{:?} {:?}", sim.now(), sim.status());
    (sink, state, sim.fast_forwarded())
}

/// The verdicts, the final state and the skipped time of one check run.
fn check(scenario: &Scenario, fast_forward: bool) -> (Vec<Failure>, String, SimDuration) {
    let (sink, state, skipped) = run(scenario, fast_forward, |_| {
        ExpectSink::new(Discard, &scenario.expect)
    });
    let (_, failures) = sink.finish(horizon(scenario).expect("duration"));
    (failures, state, skipped)
}

/// Kubernetes Events as the event recorder (R54) lets them through: how many of each reason
/// were sent, dropped by the spam filter, or combined. These grow by the same amount every
/// cycle, so the sink can be moved on by whole cycles.
#[derive(Debug, Default)]
struct RecordedCounts {
    by: BTreeMap<(&'static str, bool, bool), u64>,
}

impl Sink for RecordedCounts {
    type Error = Infallible;
    fn event(&mut self, event: &Event<'_>) -> Result<Flow, Infallible> {
        if let EventKind::Event(e) = &event.kind {
            let r = e.recorded.expect("the recorder annotates every Event");
            *self.by.entry((e.reason, r.sent, r.combined)).or_default() += 1;
        }
        Ok(Flow::Continue)
    }

    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        Some(self)
    }
}

impl FastForward for RecordedCounts {
    fn visit_cycle(&mut self, v: &mut dyn Visitor) -> bool {
        v.exact(self.by.len() as u64);
        for n in self.by.values_mut() {
            v.count(n, None, u64::MAX);
        }
        true
    }
}

/// The Events' fate through the recorder, the final state and the skipped time.
fn recorded(scenario: &Scenario, fast_forward: bool) -> (String, String, SimDuration) {
    let (sink, state, skipped) = run(scenario, fast_forward, |sim| {
        Recorder::new(
            RecordedCounts::default(),
            sim.profile().event_spam_key_has_type,
        )
    });
    (format!("{:?}", sink.inner().by), state, skipped)
}

fn summary(scenario: &Scenario, fast_forward: bool) -> String {
    let view = ViewOptions {
        fast_forward,
        ..ViewOptions::default()
    };
    let out = render_with(scenario, Format::Summary, &view, Vec::new()).expect("summary");
    String::from_utf8(out).expect("UTF-8")
}

/// Runs `f` on a thread with a large stack: the strategy is deeply nested, and an unoptimised
/// build needs more than the default stack.
fn on_large_stack(f: fn()) {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the comparison passes");
}

/// A runner of `default` cases, ten times as many when `PROBESIM_LONG` is set (the long
/// property runs of docs/contributing.md#long-property-runs), or as many as the environment variable `knob`
/// says, from a fixed seed: the same cases on every run, so the share that jumps is stable.
#[expect(
    clippy::disallowed_methods,
    reason = "a test's own knobs: how many cases to run"
)]
fn fixed_runner(knob: &str, default: u32) -> (TestRunner, u32) {
    let long = std::env::var_os("PROBESIM_LONG").is_some_and(|v| !v.is_empty() && v != "0");
    let cases = std::env::var(knob)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(if long { default * 10 } else { default });
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    (TestRunner::new_with_rng(config, rng), cases)
}

/// Prints how far a long test has come, every tenth of its cases, on the terminal's standard
/// error itself (the test harness captures `eprintln!`, so a quiet minute would look hung).
struct Progress {
    test: &'static str,
    cases: u32,
    done: Cell<u32>,
}

impl Progress {
    fn new(test: &'static str, cases: u32) -> Progress {
        Progress {
            test,
            cases,
            done: Cell::new(0),
        }
    }

    fn tick(&self) {
        use std::io::Write as _;
        let done = self.done.get() + 1;
        self.done.set(done);
        let step = (self.cases / 10).max(1);
        if done % step == 0 || done == self.cases {
            let _ = writeln!(
                std::io::stderr(),
                "{}: {done} of {} cases",
                self.test,
                self.cases
            );
        }
    }
}

#[test]
fn fast_forward_gives_the_step_by_step_results() {
    on_large_stack(compare_generated);
}

fn compare_generated() {
    // PROBESIM_FF_CASES=N runs N (the suite runs 160, PROBESIM_LONG=1 ten times as many).
    let (mut runner, cases) = fixed_runner("PROBESIM_FF_CASES", 160);
    let progress = Progress::new("fast_forward_gives_the_step_by_step_results", cases);
    let (jumped, valid) = (Cell::new(0u32), Cell::new(0u32));
    let result = runner.run(&case(), |case| {
        progress.tick();
        let yaml = case.yaml();
        let scenario = match Scenario::from_str(&yaml, "generated.yaml") {
            Ok(s) => s,
            // A combination the loader refuses (it says why) is not this test's subject.
            Err(_) => return Ok(()),
        };
        valid.set(valid.get() + 1);
        let (plain, plain_state, none) = check(&scenario, false);
        prop_assert_eq!(none, SimDuration::ZERO);
        let (fast, fast_state, skipped) = check(&scenario, true);
        if !skipped.is_zero() {
            jumped.set(jumped.get() + 1);
        }
        prop_assert_eq!(&plain, &fast, "verdicts differ for\n{}", yaml);
        prop_assert_eq!(
            &plain_state,
            &fast_state,
            "final states differ for\n{}",
            yaml
        );
        prop_assert_eq!(
            summary(&scenario, false),
            summary(&scenario, true),
            "summaries differ for\n{}",
            yaml
        );
        // The steady-tick shortcut (`Simulation::set_steady_ticks`) changes no event either.
        let events = |steady| {
            let (sink, state, _) = run_with(&scenario, false, steady, |_| VecSink::default());
            (sink.records, state)
        };
        let (steady, general) = (events(true), events(false));
        prop_assert_eq!(&steady.0, &general.0, "events differ for\n{}", yaml);
        prop_assert_eq!(&steady.1, &general.1, "final states differ for\n{}", yaml);
        let (plain, fast) = (recorded(&scenario, false), recorded(&scenario, true));
        prop_assert_eq!(&plain.0, &fast.0, "recorded Events differ for\n{}", yaml);
        prop_assert_eq!(&plain.1, &fast.1, "final states differ for\n{}", yaml);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (jumped, valid) = (jumped.get(), valid.get());
    eprintln!("{valid} valid scenarios of {cases}, fast-forward jumped in {jumped}");
    assert!(
        valid >= cases / 2,
        "only {valid} of {cases} generated scenarios loaded"
    );
    assert!(
        jumped * 5 >= valid,
        "fast-forward jumped in only {jumped} of {valid} scenarios"
    );
}

/// A bundled scenario, run for `hours` instead of its own duration.
fn bundled(file: &str, hours: u64) -> Scenario {
    let path = format!("{}/scenarios/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("read the scenario");
    let mut scenario = Scenario::from_str(&text, file).expect("the scenario loads");
    scenario.duration = Some(SimTime::from_secs(hours * 3600));
    scenario
}

/// A day of kubia: the jump happens, and the summary is the step-by-step one (R16, R27: the
/// back-off capped at 5 minutes makes the crash loop periodic). A year is checked through the
/// command line (tests/cmd/check-fast-forward.case).
#[test]
fn a_day_of_kubia_jumps_and_matches() {
    let scenario = bundled("kubia-unhealthy.yaml", 24);
    let (plain, plain_state, _) = check(&scenario, false);
    let (fast, fast_state, skipped) = check(&scenario, true);
    assert_eq!(plain, fast);
    assert_eq!(plain_state, fast_state);
    // Most of the day is skipped once the loop is periodic.
    assert!(
        skipped > SimDuration::from_secs(20 * 3600),
        "skipped only {skipped:?}"
    );
    assert_eq!(summary(&scenario, false), summary(&scenario, true));
}

/// The event recorder's state (groups, counts, spam buckets) repeats too: thirty days of kubia
/// through the recorder jump, and every Event is sent, dropped or combined as step by step
/// (R54, R55), under 1.19's spam key and 1.37's.
#[test]
fn the_event_recorder_fast_forwards_with_the_run() {
    for file in ["kubia-unhealthy.yaml", "kubia-unhealthy-1.19.yaml"] {
        let scenario = bundled(file, 30 * 24);
        let plain = recorded(&scenario, false);
        let fast = recorded(&scenario, true);
        assert_eq!(plain.0, fast.0, "{file}");
        assert_eq!(plain.1, fast.1, "{file}");
        assert!(
            fast.2 > SimDuration::from_secs(25 * 24 * 3600),
            "{file}: skipped only {:?}",
            fast.2
        );
        // The spam filter bites in a crash loop: some Events are dropped.
        assert!(plain.0.contains("false, false"), "{file}: {}", plain.0);
    }
}

/// A scenario of one container whose `kind` probe every second answers `script`, for `hours`.
fn probed_every_second(kind: &str, script: &str, hours: u64) -> Scenario {
    let yaml = format!(
        r#"name: counted
kubernetes: "1.37"
duration: {hours}h
# Exact timing: under realistic timing the kubelet's jitter makes every restart cycle differ.
timing: exact
pod:
  apiVersion: v1
  kind: Pod
  metadata: {{name: counted}}
  spec:
    containers:
    - name: web
      image: example/web:1.0
      {kind}Probe: {{httpGet: {{path: /healthz, port: 8080}}, periodSeconds: 1}}
apps:
  web:
    endpoints:
      "http :8080/healthz": "{script}"
expect:
  - at: 30h
    container: web
    ready: false
  - timeline: {{kind: ready, container: web}}
    between: [1h, 40h]
    count: {{min: 1000}}
"#
    );
    Scenario::from_str(&yaml, "counted.yaml").expect("the scenario loads")
}

/// A purely counted `repeat` script reads no clock (docs/script-language.md): a readiness probe
/// that flaps with it, on a container that never restarts, repeats every round of requests and
/// is jumped, with the step-by-step verdicts, summary and Events; so is a liveness probe whose
/// failures restart the container, and a script with a latency. A timed `repeat` script on a
/// container that never restarts reads its uptime and is not jumped.
#[test]
fn purely_counted_repeat_scripts_are_jumped() {
    for (kind, script, jumps) in [
        ("readiness", "3x500 then 5x200 repeat", true),
        ("readiness", "2x200 after 300ms then 500 repeat", true),
        ("liveness", "3x200 then 3x500 repeat", true),
        ("readiness", "200 for 5s then 500 for 3s repeat", false),
    ] {
        let scenario = probed_every_second(kind, script, 48);
        let (plain, plain_state, _) = check(&scenario, false);
        let (fast, fast_state, skipped) = check(&scenario, true);
        assert_eq!(plain, fast, "{kind} {script}");
        assert_eq!(plain_state, fast_state, "{kind} {script}");
        assert_eq!(
            skipped > SimDuration::from_secs(36 * 3600),
            jumps,
            "{kind} {script}: skipped {skipped:?}"
        );
        assert_eq!(
            summary(&scenario, false),
            summary(&scenario, true),
            "{kind} {script}"
        );
        let (plain, fast) = (recorded(&scenario, false), recorded(&scenario, true));
        assert_eq!(
            plain,
            (fast.0, fast.1, SimDuration::ZERO),
            "{kind} {script}"
        );
    }
}
