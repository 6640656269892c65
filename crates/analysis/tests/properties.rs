//! Every figure against direct simulations at random phases: scenarios written as files (with
//! the behaviour language and the image pull moving the container start), loaded and run with
//! the scenario crate, with nothing from the analysis crate in between.
//!
//! For a random configuration, a random container-start phase and a random change moment (the
//! hang and the failure come long after that start):
//! - an app failing until `T` survives whenever `T <= startupBudget.min` and is killed whenever
//!   `T > startupBudget.max` (P20-P27, R13);
//! - on 1.35+ (a replacement inherits `started`, P45), an app failing for `T` from every start
//!   survives its first start and, once liveness has killed it long after, its replacement's
//!   start too, whenever `T <= startupBudget.min`;
//! - a hang's kill, exit and restart, a failure's not-Ready, a healthy start's Ready and a
//!   crash loop's first `CrashLoopBackOff` and steady cycle fall within their figures, and the
//!   crash loop's restarts are those of the figure when the container starts on the grid.
//!
//! The 1.19 profile (start-up jitter on every worker, P14) is sampled by seed, not swept, so it
//! is left out here: a direct run at a random phase is not guaranteed to lie within a sample.

use std::convert::Infallible;

use probesim_analysis::analyze::{AnalysisError, Analyzer, Want};
use probesim_analysis::figure::{ContainerFigures, Figure};
use probesim_analysis::subject::Subject;
use probesim_analysis::sweep::Sweep;
use probesim_core::{
    ContainerState, Event, EventKind, Flow, SimDuration, SimTime, Sink, WaitingReason,
};
use probesim_scenario::scenario::{Scenario, TimingMode};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Probe {
    period: u32,
    failure: u32,
    timeout: u32,
    delay: u32,
    success: u32,
}

#[derive(Clone, Debug)]
struct Config {
    liveness: Option<Probe>,
    startup: Option<Probe>,
    readiness: Option<Probe>,
    /// A second container's readiness probe (it answers every probe): pod Ready needs both.
    other: Option<Probe>,
    grace: u32,
    sigterm: &'static str,
    kubernetes: &'static str,
}

fn probe(success: bool) -> impl Strategy<Value = Probe> {
    (1u32..=12, 1u32..=4, 1u32..=14, 0u32..=15, 1u32..=2).prop_map(
        move |(period, failure, timeout, delay, s)| Probe {
            period,
            failure,
            timeout,
            delay,
            success: if success { s } else { 1 },
        },
    )
}

fn config() -> impl Strategy<Value = Config> {
    (
        proptest::option::weighted(0.9, probe(false)),
        proptest::option::of(probe(false)),
        proptest::option::of(probe(true)),
        proptest::option::weighted(0.3, probe(true)),
        1u32..=40,
        prop_oneof![Just("ignore"), Just("exit after 3s"), Just("exit after 0s")],
        prop_oneof![Just("1.37"), Just("1.30"), Just("1.25")],
    )
        .prop_filter("a probe", |c| {
            c.0.is_some() || c.1.is_some() || c.2.is_some()
        })
        .prop_map(
            |(liveness, startup, readiness, other, grace, sigterm, kubernetes)| Config {
                liveness,
                startup,
                readiness,
                other,
                grace,
                sigterm,
                kubernetes,
            },
        )
}

fn yaml_probe(name: &str, p: &Probe) -> String {
    format!(
        "      {name}:\n        httpGet: {{path: /, port: 8080}}\n        periodSeconds: {}\n        failureThreshold: {}\n        timeoutSeconds: {}\n        initialDelaySeconds: {}\n        successThreshold: {}\n",
        p.period, p.failure, p.timeout, p.delay, p.success
    )
}

/// The scenario of a configuration, with the app's pull time and endpoint script.
fn scenario(c: &Config, pull_ms: u64, script: &str) -> Scenario {
    scenario_with(c, pull_ms, script, "")
}

/// [`scenario`] with more app settings (`exit: …`).
fn scenario_with(c: &Config, pull_ms: u64, script: &str, app: &str) -> Scenario {
    let mut probes = String::new();
    for (name, p) in [
        ("livenessProbe", &c.liveness),
        ("startupProbe", &c.startup),
        ("readinessProbe", &c.readiness),
    ] {
        if let Some(p) = p {
            probes.push_str(&yaml_probe(name, p));
        }
    }
    if let Some(p) = &c.other {
        probes.push_str("    - name: side\n      image: example/side:1.0\n");
        probes.push_str(&yaml_probe("readinessProbe", p).replace("8080", "9090"));
    }
    let text = format!(
        "kubernetes: \"{}\"\nduration: 1h\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {{name: p}}\n  spec:\n    terminationGracePeriodSeconds: {}\n    containers:\n    - name: app\n      image: example/app:1.0\n{probes}apps:\n  app:\n    pull: {pull_ms}ms\n    sigterm: {}\n{app}    endpoints:\n      \"http :8080/\": \"{script}\"\n",
        c.kubernetes, c.grace, c.sigterm
    );
    // Under exact timing, as the figures are swept (docs/analysis.md).
    Scenario::from_str(&text, "property.yaml")
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .with_timing(TimingMode::Exact)
}

#[derive(Default)]
struct Seen {
    starts: Vec<SimTime>,
    kills: Vec<SimTime>,
    exits: Vec<SimTime>,
    ready: Vec<(SimTime, bool)>,
    crash_loop: Option<SimTime>,
}

impl Sink for Seen {
    type Error = Infallible;
    fn event(&mut self, e: &Event<'_>) -> Result<Flow, Infallible> {
        match e.kind {
            EventKind::Start {
                container: "app", ..
            } => self.starts.push(e.t),
            EventKind::Kill {
                container: "app", ..
            } => self.kills.push(e.t),
            EventKind::Exit {
                container: "app", ..
            } => self.exits.push(e.t),
            EventKind::PodReady { ready } => self.ready.push((e.t, ready)),
            EventKind::Status {
                container: "app",
                status,
            } if self.crash_loop.is_none()
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

fn run(s: &Scenario, until: SimTime) -> Seen {
    let mut sim = s.simulation();
    let mut seen = Seen::default();
    sim.run_until(until, &mut seen).unwrap();
    seen
}

/// The figures, or `None` when the analysis refuses the pod as too costly (its step limit,
/// docs/analysis.md "Limits"): a refusal gives no figure to check.
fn figures(c: &Config) -> Option<ContainerFigures> {
    let s = scenario(c, 0, "ok");
    let subject = Subject::of(&s, "p", None);
    let analyzer = Analyzer::new(&subject, Sweep::new(2));
    match analyzer.container(0, Want::ALL) {
        Ok(f) => Some(f),
        Err(AnalysisError::TooCostly { .. }) => None,
        Err(e) => panic!("{e}"),
    }
}

fn ms(t: u64) -> SimDuration {
    SimDuration::from_millis(t)
}

fn within(f: &Figure, v: Option<SimDuration>, what: &str, c: &Config) {
    assert!(
        f.contains(v),
        "{what}: direct simulation gives {v:?}, outside {f:?}\n{c:?}"
    );
}

/// The pod's Ready waits for every container's readiness, so the grid cycle of a container's
/// pod-level figures is that of every probe in the pod: here the app's own probes repeat every
/// second, but the sidecar's readiness every 2 s (found by the property below before the cycle
/// counted the other containers). R4, R42, P8.
#[test]
fn to_ready_spans_the_grids_of_every_container_in_the_pod() {
    let p = |period, delay| Probe {
        period,
        failure: 1,
        timeout: 1,
        delay,
        success: 1,
    };
    let c = Config {
        liveness: Some(p(1, 0)),
        startup: None,
        readiness: None,
        other: Some(p(2, 2)),
        grace: 1,
        sigterm: "ignore",
        kubernetes: "1.30",
    };
    let f = figures(&c).expect("a small pod is analysed");
    for start in [0, 1000, 5000] {
        let seen = run(&scenario(&c, start, "ok"), SimTime::from_secs(60));
        let first = seen.starts[0];
        let ready = seen
            .ready
            .iter()
            .find(|(t, r)| *r && *t >= first)
            .map(|(t, _)| t.saturating_since(first));
        within(&f.readiness.to_ready, ready, "readiness.toReady", &c);
    }
    // 2 s: the sidecar's second readiness trigger comes from the sync its initial Failure asks
    // for, at the next relist (R4), and from then its 2 s grid decides.
    assert_eq!(
        f.readiness.to_ready.max.value,
        Some(SimDuration::from_secs(2))
    );
}

/// A configuration with a startup and a liveness probe on a release where a replacement
/// inherits `started` (P45). The liveness probe fails once or twice before a kill and waits at
/// most 3 s after a start, so that it can kill the replacement in the window where `started` is
/// inherited (between the replacement's start and its startup tick).
fn inheriting() -> impl Strategy<Value = Config> {
    (
        probe(false),
        probe(false),
        proptest::option::of(probe(true)),
        1u32..=40,
        prop_oneof![Just("ignore"), Just("exit after 3s"), Just("exit after 0s")],
        prop_oneof![Just("1.37"), Just("1.35")],
    )
        .prop_map(
            |(mut liveness, startup, readiness, grace, sigterm, kubernetes)| Config {
                liveness: Some({
                    liveness.failure = 1 + liveness.failure % 2;
                    liveness.delay %= 4;
                    liveness
                }),
                startup: Some(startup),
                readiness,
                other: None,
                grace,
                sigterm,
                kubernetes,
            },
        )
}

/// Sixteen random configurations on every run; ten times as many with `PROBESIM_LONG` set
/// (docs/contributing.md).
#[expect(
    clippy::disallowed_methods,
    reason = "a test's own knob: how many cases to run"
)]
fn cases() -> u32 {
    let long = std::env::var_os("PROBESIM_LONG").is_some_and(|v| !v.is_empty() && v != "0");
    if long {
        160
    } else {
        16
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// P45: the replacement after a liveness kill inherits `started`, so its liveness probe
    /// runs before its startup probe has passed; `startupBudget.min` must hold for it too.
    #[test]
    fn a_replacement_inheriting_started_survives_the_budget(
        c in inheriting(),
        start in prop_oneof![Just(0u64), 0u64..40_000],
        change in 0u64..40_000,
        t_frac in 0u64..=1000,
    ) {
        let Some(f) = figures(&c) else {
            return Ok(());
        };
        let b = f.startup_budget.as_ref().expect("liveness and startup probes can kill");
        let Some(min) = b.min.value else {
            return Ok(());
        };
        let t = min.as_millis() * t_frac / 1000;
        // Healthy from `t` on for half an hour and more, then refusing: liveness kills it.
        let ok = 1_800_000 + change;
        let script = if t == 0 {
            format!("ok for {ok}ms then refused")
        } else {
            format!("refused for {t}ms then ok for {ok}ms then refused")
        };
        let s = scenario(&c, start, &script);
        let until = SimTime::from_millis(start + 2 * (t + ok)).saturating_add(SimDuration::from_secs(3600));
        let seen = run(&s, until);
        let first = seen.starts[0];
        let healthy_until = first.saturating_add(ms(t + ok));
        prop_assert!(seen.kills.iter().all(|k| *k >= healthy_until), "failing for {t}ms (start {start}ms) is killed at its first start at {:?}, but startupBudget.min is {min}s\n{c:?}", seen.kills);
        // The first instance's kill comes after `healthy_until`; the replacement then fails for
        // `t` and answers for `ok`.
        if let Some(&restart) = seen.starts.get(1) {
            let killed = seen.kills.iter().skip(1).find(|k| **k < restart.saturating_add(ms(ok)));
            prop_assert!(killed.is_none(), "failing for {t}ms, the replacement started at {restart}s is killed at {killed:?}, but startupBudget.min is {min}s ({})\n{c:?}", b.min.phase);
        }
    }

    #[test]
    fn figures_bound_direct_simulations_at_random_phases(
        c in config(),
        start in prop_oneof![Just(0u64), 0u64..40_000],
        change in 0u64..40_000,
        t_frac in 0u64..=1000,
    ) {
        let Some(f) = figures(&c) else {
            return Ok(());
        };
        let horizon = |from: SimTime| from.saturating_add(SimDuration::from_secs(4 * 3600));
        // P20-P27, R13: the start-up budget.
        if let Some(b) = &f.startup_budget {
            let max = b.max.value.map_or(120_000, |v| v.as_millis());
            let t = (max + 2000) * t_frac / 1000;
            let s = scenario(&c, start, &format!("refused for {t}ms then ok"));
            let seen = run(&s, horizon(SimTime::from_millis(start + t)));
            let first_start = seen.starts.first().copied().unwrap_or(SimTime::ZERO);
            let killed = seen.kills.iter().any(|k| *k >= first_start);
            if b.min.value.is_none_or(|v| ms(t) <= v) {
                prop_assert!(!killed, "failing for {t}ms (start {start}ms) is killed, but startupBudget.min is {:?}\n{c:?}", b.min);
            }
            if b.max.value.is_some_and(|v| ms(t) > v) {
                prop_assert!(killed, "failing for {t}ms (start {start}ms) survives, but startupBudget.max is {:?}\n{c:?}", b.max);
            }
        } else {
            prop_assert!(c.liveness.is_none() && c.startup.is_none());
        }
        // A healthy start: the time to Ready.
        let s = scenario(&c, start, "ok");
        let seen = run(&s, horizon(SimTime::from_millis(start)));
        let first = seen.starts.first().copied().unwrap_or(SimTime::ZERO);
        let ready = seen.ready.iter().find(|(t, r)| *r && *t >= first).map(|(t, _)| t.saturating_since(first));
        within(&f.readiness.to_ready, ready, "readiness.toReady", &c);
        // A hang long after the (random) start: kill, exit, replacement. The start's phase
        // still counts: the relist that sees it triggers the readiness worker (P18, P19).
        let h = 1_800_000 + change;
        let hang = SimTime::from_millis(h);
        let s = scenario(&c, start, &format!("pod: ok until {h}ms then timeout"));
        let seen = run(&s, horizon(hang));
        let kill = seen.kills.iter().copied().find(|t| *t >= hang);
        let exit = kill.and_then(|k| seen.exits.iter().copied().find(|t| *t >= k));
        let restart = exit.and_then(|e| seen.starts.iter().skip(1).copied().find(|t| *t >= e));
        let since = |t: Option<SimTime>| t.map(|t| t.saturating_since(hang));
        // R4, R5, R6: exact for any start, whatever the change's phase against the resync,
        // which the start's relist moves.
        let change_within = within;
        change_within(&f.hang.kill, since(kill), "hangDetection.kill", &c);
        change_within(&f.hang.exit, since(exit), "hangDetection.exit", &c);
        change_within(&f.hang.restarted, since(restart), "hangDetection.restarted", &c);
        // R26-R30: a process exiting with 1 a second after every start.
        let crash = f.crash_loop.as_ref().unwrap_or_else(|| panic!("restartPolicy Always restarts"));
        let s = scenario_with(&c, start, "ok", "    exit: \"1 after 1s\"\n");
        let seen = run(&s, SimTime::from_millis(start).saturating_add(SimDuration::from_secs(3601)));
        let first = seen.starts[0];
        let shows = seen.crash_loop.map(|t| t.saturating_since(first));
        within(&crash.back_off, shows, "crashLoop.backOff", &c);
        let restarts: Vec<SimDuration> = seen.starts[1..]
            .iter()
            .map(|t| t.saturating_since(first))
            .filter(|d| *d <= SimDuration::from_secs(3600))
            .collect();
        if let [.., a, b] = restarts.as_slice() {
            within(&crash.cycle, Some(b.saturating_sub(*a)), "crashLoop.cycle", &c);
        }
        if start == 0 {
            prop_assert_eq!(&restarts, &crash.restarts);
        }
        // A failure long after the (random) start: not Ready.
        if let Some(fig) = &f.readiness.to_not_ready {
            let s = scenario(&c, start, &format!("pod: ok until {h}ms then refused"));
            let seen = run(&s, horizon(hang));
            let not_ready = seen.ready.iter().find(|(t, r)| !*r && *t >= hang).map(|(t, _)| t.saturating_since(hang));
            change_within(fig, not_ready, "readiness.toNotReady", &c);
        }
    }
}

/// Where the resync falls follows the last sync of the start-up: here the relist that sees the
/// container start (R4, R5), then every `resync` (R6). The change trials sweep the change
/// against that resync for a start on the grid, where the pod resyncs 1 s into each minute
/// and no kill (a tick plus the 2 s timeout, 2 s into a 5 s period) meets one; a start 1.5 s
/// later moves the resyncs to 2 s into each minute, and a kill asked for at a resync waits for
/// the next relist: 7.75 s after a hang, which the figure must include (it said at most
/// 6.999 s while the change trials swept starts on the grid only; docs/analysis.md, "What the
/// change trials sweep").
#[test]
fn a_start_off_the_grid_moves_the_resync() {
    let c = Config {
        liveness: Some(Probe {
            period: 5,
            failure: 1,
            timeout: 2,
            delay: 0,
            success: 1,
        }),
        startup: None,
        readiness: None,
        other: None,
        grace: 1,
        sigterm: "exit after 0s",
        kubernetes: "1.37",
    };
    let f = figures(&c).expect("a small pod is analysed");
    for o in (0..60_000u64).step_by(250) {
        let h = 1_800_000 + o;
        let hang = SimTime::from_millis(h);
        let s = scenario(&c, 1500, &format!("pod: ok until {h}ms then timeout"));
        let seen = run(&s, hang.saturating_add(SimDuration::from_secs(120)));
        let kill = seen.kills.iter().copied().find(|t| *t >= hang);
        within(
            &f.hang.kill,
            kill.map(|t| t.saturating_since(hang)),
            "hangDetection.kill",
            &c,
        );
    }
}
