//! Figures against brute-force sweeps of direct runs over the container start's phase:
//! scenarios written as text, each with its first start delayed by a first image pull, run with
//! the scenario crate, and the extremes of those runs compared with the analysis's figures.

use std::convert::Infallible;

use probesim_analysis::analyze::{Analyzer, Want};
use probesim_analysis::figure::Figure;
use probesim_analysis::subject::Subject;
use probesim_analysis::sweep::Sweep;
use probesim_core::{
    ContainerState, Event, EventKind, Flow, SimDuration, SimTime, Sink, WaitingReason,
};
use probesim_scenario::scenario::{Scenario, TimingMode};

const KUBIA: &str = include_str!("../../../scenarios/kubia-unhealthy.yaml");

#[derive(Default)]
struct Seen {
    starts: Vec<SimTime>,
    crash_loop: Option<SimTime>,
}

impl Sink for Seen {
    type Error = Infallible;
    fn event(&mut self, e: &Event<'_>) -> Result<Flow, Infallible> {
        match e.kind {
            EventKind::Start { .. } => self.starts.push(e.t),
            EventKind::Status { status, .. }
                if self.crash_loop.is_none()
                    && matches!(
                        status.state,
                        ContainerState::Waiting(Some(WaitingReason::CrashLoopBackOff { .. }))
                    ) =>
            {
                self.crash_loop = Some(e.t);
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }
}

/// The scenario under exact timing: the figures are swept under it (docs/analysis.md), and the
/// direct runs they are checked against move the start themselves.
fn scenario(text: &str) -> Scenario {
    Scenario::from_str(text, "kubia.yaml")
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .with_timing(TimingMode::Exact)
}

/// kubia as the analysis's crash-loop trial has it (the process exits with 1 a second after
/// every start), its first start `delay_ms` late. The image is untagged, so it is pulled on
/// every start (`Always`) in no time; the same image tagged `:v1` is pulled once, here in
/// `delay_ms`, and every later start finds it present: only the first start moves.
fn crashing_kubia(delay_ms: u64) -> Scenario {
    scenario(&crashing_kubia_text(delay_ms, delay_ms > 0))
}

fn crashing_kubia_text(delay_ms: u64, tagged: bool) -> String {
    let mut text = KUBIA.split("\nexpect:").next().unwrap_or(KUBIA).replace(
        "    sigterm: ignore\n",
        &format!("    sigterm: ignore\n    exit: \"1 after 1s\"\n    pull: {delay_ms}ms\n"),
    );
    if tagged {
        text = text.replace(
            "image: luksa/kubia-unhealthy\n",
            "image: luksa/kubia-unhealthy:v1\n",
        );
    }
    text
}

fn run(s: &Scenario, until: SimTime) -> Seen {
    let mut sim = s.simulation();
    let mut seen = Seen::default();
    sim.run_until(until, &mut seen).expect("run");
    seen
}

/// The extremes of direct samples, as (min, max).
fn extremes(samples: &[SimDuration]) -> (SimDuration, SimDuration) {
    let min = samples.iter().copied().min().expect("samples");
    let max = samples.iter().copied().max().expect("samples");
    (min, max)
}

fn values(f: &Figure) -> (Option<SimDuration>, Option<SimDuration>) {
    (f.min.value, f.max.value)
}

/// Starts swept by the brute force: every 250 ms of the 10 s tick cycle, and one millisecond
/// either side of every second.
fn delays() -> Vec<u64> {
    let mut d: Vec<u64> = (0..10_000).step_by(250).collect();
    for s in 0..10 {
        d.extend([s * 1000 + 1, s * 1000 + 999]);
    }
    d.sort_unstable();
    d.dedup();
    d
}

/// R27-R31, R34: an image pulled on every start (untagged, so `imagePullPolicy: Always`) whose
/// first start is late restarts on the relist grid from the first restart on, so the steady
/// cycle is 301 s in every phase, and `CrashLoopBackOff` shows 3.001 s to 13 s after the first
/// start. (Moving the start by lengthening every pull made every restart late as well: the
/// analysis said 6.001 s to 21 s and 301 s to 310.999 s.)
#[test]
fn crash_loop_of_an_image_pulled_on_every_start_matches_direct_runs() {
    let kubia = scenario(KUBIA);
    let subject = Subject::of(&kubia, "kubia-unhealthy", None);
    let f = Analyzer::new(&subject, Sweep::new(2))
        .container(0, Want::ALL)
        .expect("analysis")
        .crash_loop
        .expect("restartPolicy Always restarts");
    let hour = SimDuration::from_secs(3600);
    let (mut shows, mut cycles) = (Vec::new(), Vec::new());
    for d in delays() {
        let seen = run(
            &crashing_kubia(d),
            SimTime::from_millis(d).saturating_add(hour),
        );
        let first = seen.starts[0];
        assert_eq!(first, SimTime::from_millis(d), "first start {d}ms late");
        shows.push(
            seen.crash_loop
                .expect("CrashLoopBackOff")
                .saturating_since(first),
        );
        let within: Vec<SimDuration> = seen.starts[1..]
            .iter()
            .map(|t| t.saturating_since(first))
            .filter(|u| *u <= hour)
            .collect();
        if d == 0 {
            assert_eq!(within, f.restarts, "the restarts of the figure");
        }
        if let [.., a, b] = within.as_slice() {
            cycles.push(b.saturating_sub(*a));
        }
    }
    let (lo, hi) = extremes(&shows);
    assert_eq!((Some(lo), Some(hi)), values(&f.back_off));
    assert_eq!(lo, SimDuration::from_millis(4001));
    assert_eq!(hi, SimDuration::from_secs(13));
    let (lo, hi) = extremes(&cycles);
    assert_eq!((Some(lo), Some(hi)), values(&f.cycle));
    assert_eq!(
        (lo, hi),
        (SimDuration::from_secs(301), SimDuration::from_secs(301))
    );
}

/// The direct runs above stand for an untagged image with a late first start: at no delay the
/// tagged image, pulled once in no time, and the untagged one, pulled on every start in no time,
/// give the same starts and the same `CrashLoopBackOff`.
#[test]
fn a_tagged_image_pulled_once_starts_like_the_untagged_one() {
    let hour = SimTime::from_secs(3600);
    let untagged = run(&crashing_kubia(0), hour);
    let tagged = run(&scenario(&crashing_kubia_text(0, true)), hour);
    assert!(untagged.starts.len() > 10);
    assert_eq!(untagged.starts, tagged.starts);
    assert_eq!(untagged.crash_loop, tagged.crash_loop);
}

/// kubia on `kubernetes` with `seed`, its first start `delay_ms` late (the image tagged, so
/// pulled once), its liveness endpoint answering `script`.
fn kubia_at(kubernetes: &str, seed: u64, delay_ms: u64, script: &str) -> Scenario {
    let text = crashing_kubia_text(delay_ms, true)
        .replace("    exit: \"1 after 1s\"\n", "")
        .replace(
            "kubernetes: \"1.37\"",
            &format!("kubernetes: \"{kubernetes}\""),
        )
        .replace("seed: 0\n", &format!("seed: {seed}\n"))
        .replace("\"5x200 then 500\"", &format!("\"{script}\""));
    scenario(&text)
}

fn killed(s: &Scenario, until: SimTime) -> bool {
    struct Kills(bool);
    impl Sink for Kills {
        type Error = Infallible;
        fn event(&mut self, e: &Event<'_>) -> Result<Flow, Infallible> {
            if matches!(e.kind, EventKind::Kill { .. }) {
                self.0 = true;
                return Ok(Flow::Stop);
            }
            Ok(Flow::Continue)
        }
    }
    let mut sim = s.simulation();
    let mut k = Kills(false);
    sim.run_until(until, &mut k).expect("run");
    k.0
}

fn to_ready(s: &Scenario) -> Option<SimDuration> {
    struct Ready {
        start: Option<SimTime>,
        ready: Option<SimDuration>,
    }
    impl Sink for Ready {
        type Error = Infallible;
        fn event(&mut self, e: &Event<'_>) -> Result<Flow, Infallible> {
            match e.kind {
                EventKind::Start { .. } if self.start.is_none() => self.start = Some(e.t),
                EventKind::PodReady { ready: true } => {
                    self.ready = self.start.map(|s| e.t.saturating_since(s));
                    return Ok(Flow::Stop);
                }
                _ => {}
            }
            Ok(Flow::Continue)
        }
    }
    let mut sim = s.simulation();
    let mut r = Ready {
        start: None,
        ready: None,
    };
    sim.run_until(SimTime::from_secs(120), &mut r).expect("run");
    r.ready
}

/// P14: on 1.19 every probe worker first sleeps a random part of its period, so the analysis
/// samples eight seeds. Within those seeds it must still find the extremes over the start
/// phase, and a start one millisecond before a relist is the one the kubelet sees soonest:
/// direct runs at every seed the analysis samples and at starts all over the cycle never kill
/// an app answering after `startupBudget.min` (20.013 s; sweeping two offsets per step said
/// 21.011 s), the run at the phase named with the figure kills one answering a millisecond
/// later, and the quickest Ready is 0.001 s after the start (it said 0.999 s).
#[test]
fn random_start_up_sleeps_find_their_extremes_over_the_start_phase() {
    let kubia = scenario(&KUBIA.replace("kubernetes: \"1.37\"", "kubernetes: \"1.19\""));
    let subject = Subject::of(&kubia, "kubia-unhealthy", None);
    let f = Analyzer::new(&subject, Sweep::new(2))
        .container(0, Want::ALL)
        .expect("analysis");
    let budget = f.startup_budget.expect("a liveness probe");
    let min = budget.min.value.expect("killed at some phase");
    assert_eq!(min, SimDuration::from_millis(20_013));
    let until = SimTime::from_secs(200);
    let mut quickest = None::<SimDuration>;
    for seed in 0..8 {
        for d in (0..10_000)
            .step_by(500)
            .chain((0..10).map(|s| s * 1000 + 999))
        {
            let survives = kubia_at(
                "1.19",
                seed,
                d,
                &format!("refused for {}ms then 200", min.as_millis()),
            );
            assert!(
                !killed(&survives, until),
                "seed {seed}, start {d}ms: killed"
            );
            if let Some(r) = to_ready(&kubia_at("1.19", seed, d, "200")) {
                quickest = Some(quickest.map_or(r, |q| q.min(r)));
            }
        }
    }
    let worst = budget.min.phase;
    let seed = worst.seed.expect("sampled by seed");
    let late = kubia_at(
        "1.19",
        seed,
        worst.start.as_millis(),
        &format!("refused for {}ms then 200", min.as_millis() + 1),
    );
    assert!(killed(&late, until), "{worst}");
    assert_eq!(quickest, Some(SimDuration::from_millis(1)));
    assert_eq!(f.readiness.to_ready.min.value, quickest);
}

const WEB: &str = "kubernetes: \"1.37\"\nduration: 1h\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - name: web\n      image: example/web:1.0\n      startupProbe:\n        httpGet: {path: /started, port: 8080}\n        periodSeconds: 5\n        failureThreshold: 3\n      readinessProbe:\n        httpGet: {path: /ready, port: 8080}\n        periodSeconds: 10\n      livenessProbe:\n        httpGet: {path: /healthz, port: 8080}\n        periodSeconds: 10\n";

/// P18, P19 (1.32+): the relist that sees the start triggers the readiness worker, whose ticker
/// restarts there, so the time from a failure long after the start to pod not Ready depends on
/// where the start fell. Direct runs over the start and the failure moment give 20 s to
/// 29.999 s, which the analysis finds; with the start on the grid alone it said 25.999 s at most.
#[test]
fn to_not_ready_sweeps_the_start_phase_as_direct_runs_do() {
    let subject = Subject::of(&scenario(WEB), "p", None);
    let f = Analyzer::new(&subject, Sweep::new(2))
        .container(0, Want::ALL)
        .expect("analysis")
        .readiness
        .to_not_ready
        .expect("Ready at first");
    let mut samples = Vec::new();
    for d in (0..10).flat_map(|s| [s * 1000, s * 1000 + 999]) {
        for c in (0..10).flat_map(|s| [s * 1000, s * 1000 + 1, s * 1000 + 999]) {
            let fail = 600_000 + c;
            let script = format!("pod: ok until {fail}ms then refused");
            let text = format!(
                "{WEB}apps:\n  web:\n    pull: {d}ms\n    endpoints:\n      \"http :8080/started\": \"{script}\"\n      \"http :8080/ready\": \"{script}\"\n      \"http :8080/healthz\": \"{script}\"\n"
            );
            let mut sim = scenario(&text).simulation();
            struct NotReady(SimTime, Option<SimTime>);
            impl Sink for NotReady {
                type Error = Infallible;
                fn event(&mut self, e: &Event<'_>) -> Result<Flow, Infallible> {
                    if matches!(e.kind, EventKind::PodReady { ready: false }) && e.t >= self.0 {
                        self.1 = Some(e.t);
                        return Ok(Flow::Stop);
                    }
                    Ok(Flow::Continue)
                }
            }
            let from = SimTime::from_millis(fail);
            let mut seen = NotReady(from, None);
            sim.run_until(SimTime::from_secs(900), &mut seen)
                .expect("run");
            samples.push(seen.1.expect("not Ready").saturating_since(from));
        }
    }
    let (lo, hi) = extremes(&samples);
    assert_eq!((Some(lo), Some(hi)), values(&f));
    assert_eq!(hi, SimDuration::from_millis(29_999));
    assert_eq!(f.max.phase.start, SimDuration::from_secs(5));
}
