//! The start-up budget of a replacement container. From 1.35, with the gate
//! `ChangeContainerStatusOnKubeletRestart` off (the default), the status copies `started: true`
//! from the previous status of a container of the same name, so a container started after a
//! liveness kill counts as started until its startup worker records Unknown for the new ID, and
//! its liveness probe runs in that window (P45). `startupBudget` must cover that start too.

use std::convert::Infallible;

use probesim_analysis::analyze::{Analyzer, Want};
use probesim_analysis::figure::Figure;
use probesim_analysis::subject::Subject;
use probesim_analysis::sweep::Sweep;
use probesim_core::{Event, EventKind, Flow, SimDuration, SimTime, Sink};
use probesim_scenario::scenario::Scenario;

/// The pod: a startup probe allowing 120 s (12 × 10 s), a liveness probe with
/// failureThreshold 1, both every 10 s; the app answers `script` on both.
fn scenario(kubernetes: &str, gates: &str, script: &str) -> Scenario {
    let text = format!(
        "kubernetes: \"{kubernetes}\"\n{gates}duration: 1h\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {{name: p}}\n  spec:\n    terminationGracePeriodSeconds: 5\n    containers:\n    - name: app\n      image: example/app:1.0\n      startupProbe:\n        httpGet: {{path: /, port: 8080}}\n        periodSeconds: 10\n        failureThreshold: 12\n      livenessProbe:\n        httpGet: {{path: /, port: 8080}}\n        periodSeconds: 10\n        failureThreshold: 1\napps:\n  app:\n    endpoints:\n      \"http :8080/\": \"{script}\"\n"
    );
    Scenario::from_str(&text, "replacement.yaml").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[derive(Default)]
struct Seen {
    starts: Vec<SimTime>,
    kills: Vec<SimTime>,
}

impl Sink for Seen {
    type Error = Infallible;
    fn event(&mut self, e: &Event<'_>) -> Result<Flow, Infallible> {
        match e.kind {
            EventKind::Start { .. } => self.starts.push(e.t),
            EventKind::Kill { .. } => self.kills.push(e.t),
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

fn budget(s: &Scenario) -> Figure {
    let subject = Subject::of(s, "p", None);
    let analyzer = Analyzer::new(&subject, Sweep::new(2));
    let f = analyzer.container(0, Want::ALL).unwrap();
    f.startup_budget
        .expect("liveness and startup probes can kill")
}

/// Refuses for 30 s from each start, then answers for 10 minutes, then refuses again: the
/// first instance passes its startup probe and is killed by liveness 10 minutes later; the
/// replacement refuses for 30 s, well within the startup probe's 120 s.
const SCRIPT: &str = "refused for 30s then ok for 600s then refused";

/// The example (P45, #141155): on 1.37 the replacement is killed by liveness 10 s after
/// its restart, at the first liveness tick, which still reads the inherited `started`; so
/// `startupBudget.min` is at most those 10 s, not the startup probe's 120 s.
#[test]
fn a_replacement_inheriting_started_is_killed_long_before_the_budget_of_its_first_start() {
    // P45
    let s = scenario("1.37", "", SCRIPT);
    let seen = run(&s, SimTime::from_secs(1200));
    let restart = seen.starts[1];
    let second_kill = seen
        .kills
        .get(1)
        .copied()
        .expect("the replacement is killed");
    let lived = second_kill.saturating_since(restart);
    assert!(
        lived <= SimDuration::from_secs(10),
        "the replacement lived {lived}s"
    );
    let b = budget(&s);
    assert!(
        b.min.value.is_some_and(|v| v < lived),
        "startupBudget.min {:?} does not cover a replacement killed {lived}s after its restart",
        b.min
    );
    // The worst case is the replacement's, and its phase says so.
    assert!(b.min.phase.restart.is_some(), "{:?}", b.min.phase);
}

/// With the gate on, or before 1.35, the replacement starts unstarted: the startup probe
/// protects it as it protects the first start, and the replacement of the same pod lives.
#[test]
fn without_the_inherited_flag_the_replacement_keeps_the_startup_budget() {
    // P45
    for (kubernetes, gates) in [
        (
            "1.37",
            "featureGates: {ChangeContainerStatusOnKubeletRestart: true}\n",
        ),
        ("1.34", ""),
    ] {
        let s = scenario(kubernetes, gates, SCRIPT);
        let seen = run(&s, SimTime::from_secs(1200));
        let restart = seen.starts[1];
        assert!(
            seen.kills.iter().all(|k| *k <= restart),
            "{kubernetes}: the replacement is killed at {:?}",
            seen.kills
        );
        let b = budget(&s);
        assert!(
            b.min
                .value
                .is_some_and(|v| v >= SimDuration::from_secs(110)),
            "{kubernetes} {gates}: {:?}",
            b.min
        );
        assert!(b.min.phase.restart.is_none() && b.max.phase.restart.is_none());
    }
}
