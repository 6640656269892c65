//! The analysis leaves out simulations whose outcome another one already decides: each
//! container is swept over the cycle of the probes that can influence it (not of the whole
//! pod), the other containers' liveness probes are left out of its trials, and each start-up
//! budget is bisected over the uptimes of the failing app's attempts (not over milliseconds).
//! Here, for random small pods, every figure of every container must equal the figure of the
//! long way ([`Analyzer::exhaustive`]): every phase of the pod's whole cycle, every probe in every
//! trial, bisection to the millisecond. Phases included: an extreme names the same phase.

use probesim_analysis::analyze::{AnalysisError, Analyzer, Want, Work, MAX_WORK};
use probesim_analysis::figure::ContainerFigures;
use probesim_analysis::recommend::{recommend, Requirements};
use probesim_analysis::subject::Subject;
use probesim_analysis::sweep::Sweep;
use probesim_core::{Event, EventKind, Flow, SimDuration, SimTime, Sink};
use probesim_scenario::scenario::{Scenario, TimingMode};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Probe {
    period: u32,
    failure: u32,
    timeout: u32,
    delay: u32,
}

#[derive(Clone, Debug)]
struct Container {
    startup: Option<Probe>,
    readiness: Option<Probe>,
    liveness: Option<Probe>,
    pull_ms: u32,
}

#[derive(Clone, Debug)]
struct Pod {
    containers: Vec<Container>,
    grace: u32,
    kubernetes: &'static str,
    started_ago: Option<u32>,
}

fn probe() -> impl Strategy<Value = Probe> {
    (
        prop_oneof![
            Just(1u32),
            Just(2),
            Just(3),
            Just(4),
            Just(5),
            Just(6),
            1u32..=12
        ],
        1u32..=4,
        1u32..=6,
        prop_oneof![Just(0u32), 0u32..=12],
    )
        .prop_map(|(period, failure, timeout, delay)| Probe {
            period,
            failure,
            timeout,
            delay,
        })
}

fn container() -> impl Strategy<Value = Container> {
    (
        proptest::option::of(probe()),
        proptest::option::of(probe()),
        proptest::option::weighted(0.7, probe()),
        prop_oneof![Just(0u32), 0u32..3000],
    )
        .prop_map(|(startup, readiness, liveness, pull_ms)| Container {
            startup,
            readiness,
            liveness,
            pull_ms,
        })
}

fn pod() -> impl Strategy<Value = Pod> {
    (
        proptest::collection::vec(container(), 1..=3),
        1u32..=20,
        prop_oneof![Just("1.37"), Just("1.30"), Just("1.25"), Just("1.19")],
        proptest::option::weighted(0.2, 1u32..=8),
    )
        .prop_map(|(containers, grace, kubernetes, started_ago)| Pod {
            containers,
            grace,
            kubernetes,
            started_ago,
        })
}

fn yaml(p: &Pod) -> String {
    let mut text = format!("kubernetes: \"{}\"\nduration: 1h\n", p.kubernetes);
    if let Some(ago) = p.started_ago {
        // A kubelet younger than some probe periods: the workers sleep at random (P14).
        text.push_str(&format!("kubelet:\n  startedAgo: {ago}s\n"));
    }
    text.push_str(&format!(
        "pod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {{name: p}}\n  spec:\n    terminationGracePeriodSeconds: {}\n    containers:\n",
        p.grace
    ));
    let mut apps = String::from("apps:\n");
    for (i, c) in p.containers.iter().enumerate() {
        text.push_str(&format!(
            "    - name: c{i}\n      image: example/c{i}:1.0\n"
        ));
        for (name, probe) in [
            ("startupProbe", &c.startup),
            ("readinessProbe", &c.readiness),
            ("livenessProbe", &c.liveness),
        ] {
            if let Some(q) = probe {
                text.push_str(&format!(
                    "      {name}:\n        httpGet: {{path: /, port: 8080}}\n        periodSeconds: {}\n        failureThreshold: {}\n        timeoutSeconds: {}\n        initialDelaySeconds: {}\n",
                    q.period, q.failure, q.timeout, q.delay
                ));
            }
        }
        apps.push_str(&format!("  c{i}:\n    pull: {}ms\n", c.pull_ms));
        if c.startup.is_some() || c.readiness.is_some() || c.liveness.is_some() {
            apps.push_str("    endpoints:\n      \"http :8080/\": \"ok\"\n");
        }
    }
    text + &apps
}

fn subject(p: &Pod) -> Subject {
    let text = yaml(p);
    let s = Scenario::from_str(&text, "pod.yaml").unwrap_or_else(|e| panic!("{e}\n{text}"));
    Subject::of(&s, "p", None)
}

/// The figures without the count of simulations, which is what differs.
fn figures(a: &Analyzer<'_>) -> Result<Vec<ContainerFigures>, AnalysisError> {
    let mut all = a.all(Want::ALL)?;
    for f in &mut all {
        f.simulations = 0;
    }
    Ok(all)
}

/// Four random pods on every run (each is analysed both ways, the long way over the whole
/// cycle: seconds in a debug build); ten times as many with `PROBESIM_LONG` set
/// (docs/contributing.md).
#[expect(
    clippy::disallowed_methods,
    reason = "a test's own knob: how many cases to run"
)]
fn cases() -> u32 {
    let long = std::env::var_os("PROBESIM_LONG").is_some_and(|v| !v.is_empty() && v != "0");
    if long {
        40
    } else {
        4
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_figures_are_those_of_every_phase_of_the_whole_pod(p in pod()) {
        let s = subject(&p);
        let fast = Analyzer::new(&s, Sweep::new(2));
        let long = Analyzer::new(&s, Sweep::new(2)).exhaustive();
        match (figures(&fast), figures(&long)) {
            (Ok(f), Ok(l)) => {
                prop_assert_eq!(&f, &l, "{}", yaml(&p));
                prop_assert!(fast.simulations() <= long.simulations());
            }
            // The long way may pass the step budget where the other does not, and both may
            // (a jittered profile's eight seeds, each change shifted against the resync).
            (Ok(_) | Err(AnalysisError::TooCostly { .. }), Err(AnalysisError::TooCostly { .. })) => {}
            (f, l) => prop_assert!(false, "{f:?}\n{l:?}\n{}", yaml(&p)),
        }
    }
}

/// A pod whose containers' liveness periods make the whole cycle long, while what follows a
/// change in one container repeats sooner: the same figures with far fewer simulations.
#[test]
fn a_pod_of_unlike_liveness_periods_needs_fewer_simulations_for_the_same_figures() {
    let probe = |period| Probe {
        period,
        failure: 3,
        timeout: 1,
        delay: 0,
    };
    let c = |liveness| Container {
        startup: None,
        readiness: Some(probe(2)),
        liveness: Some(probe(liveness)),
        pull_ms: 0,
    };
    let p = Pod {
        containers: vec![c(3), c(4), c(5)],
        grace: 5,
        kubernetes: "1.37",
        started_ago: None,
    };
    let s = subject(&p);
    let fast = Analyzer::new(&s, Sweep::new(2));
    // The long way runs the change trials of every start whose pod resyncs elsewhere (60
    // positions of the resync here) over the whole 60 s cycle: past the usual step limit.
    let long = Analyzer::sharing(&s, Sweep::new(2), Work::new(20 * MAX_WORK)).exhaustive();
    assert_eq!(
        figures(&fast).expect("analysis"),
        figures(&long).expect("analysis")
    );
    // The pod's cycle is 60 s; what follows a change in c0 repeats every 6 s.
    let space = fast.space(0);
    assert_eq!(space.cycle, SimDuration::from_secs(60));
    assert_eq!(
        fast.change_offsets(0, &space).len() * 10,
        space.offsets.len()
    );
    assert!(
        fast.simulations() * 2 < long.simulations(),
        "{} simulations against {}",
        fast.simulations(),
        long.simulations()
    );
}

/// The recommender judges each configuration with the same analysis: its candidates and their
/// figures are those of the long way.
#[test]
fn recommendations_are_those_of_the_long_way() {
    let probe = |period| Probe {
        period,
        failure: 3,
        timeout: 1,
        delay: 0,
    };
    let p = Pod {
        containers: vec![
            Container {
                startup: None,
                readiness: Some(probe(5)),
                liveness: Some(probe(10)),
                pull_ms: 0,
            },
            Container {
                startup: Some(probe(3)),
                readiness: Some(probe(2)),
                liveness: Some(probe(6)),
                pull_ms: 0,
            },
        ],
        grace: 5,
        kubernetes: "1.37",
        started_ago: None,
    };
    let s = subject(&p);
    let req = Requirements {
        startup_up_to: Some(SimDuration::from_secs(45)),
        detect_hang_within: Some(SimDuration::from_secs(25)),
        ..Requirements::default()
    };
    let found = recommend(&s, 0, &req, Sweep::new(2), 2).expect("search");
    assert!(!found.candidates.is_empty());
    for c in &found.candidates {
        let mut changed = s.clone();
        changed.pod.containers[0].probes = c.probes.clone();
        let long = Analyzer::new(&changed, Sweep::new(2))
            .exhaustive()
            .container(0, Want::ALL)
            .expect("analysis");
        let mut fast = c.figures.clone();
        fast.simulations = long.simulations;
        assert_eq!(fast, long);
    }
}

/// Trials that move the container start sweep the whole cycle: the other containers turn Ready
/// at fixed instants. Here `c0` (no readiness probe) is Ready once its startup probe, held back
/// by a 5 s initial delay and ticking every 4 s, succeeds at 8 s, and shows ready from the sync
/// that success asks for, at the relist of 9 s (R4: the sync of 8 s that saw `c1` start came
/// first); `c1`, probed every second, starting 7.999 s into the pod's 12 s cycle, sees the pod
/// Ready 1.001 s after its start, which a sweep of `c1`'s start over 4 s alone (`c0`'s liveness
/// left out) would miss. R4, R42, P15.
#[test]
fn the_start_of_a_container_is_swept_over_the_whole_cycle() {
    let q = |period, delay| Probe {
        period,
        failure: 1,
        timeout: 1,
        delay,
    };
    let p = Pod {
        containers: vec![
            Container {
                startup: Some(q(4, 5)),
                readiness: None,
                liveness: Some(q(3, 0)),
                pull_ms: 0,
            },
            Container {
                startup: None,
                readiness: Some(q(1, 0)),
                liveness: None,
                pull_ms: 0,
            },
        ],
        grace: 1,
        kubernetes: "1.37",
        started_ago: None,
    };
    let s = subject(&p);
    let fast = Analyzer::new(&s, Sweep::new(2));
    let f = figures(&fast).expect("analysis");
    let to_ready = f[1].readiness.to_ready;
    assert_eq!(to_ready.min.value, Some(SimDuration::from_millis(1001)));
    assert_eq!(to_ready.min.phase.start, SimDuration::from_millis(7999));
    assert_eq!(
        Ok(f),
        figures(&Analyzer::new(&s, Sweep::new(2)).exhaustive())
    );
}

/// Long after the start the pod syncs only at its resyncs, 60 s apart, and a kill asked for
/// less than a relist after one waits for the next relist (R4, R6): the change trials sweep the
/// change's phase against the resync too. Here (docs/analysis.md's example: c0 with liveness
/// every 1 s, threshold 2, timeout 3 s; c1 with a startup probe every 5 s and liveness every
/// 4 s; 1.37) the shortened cycle of c0 is 5 s and the pod's 20 s; a sweep of the change over
/// either alone missed the change whose kill a resync delays and found `hangDetection.kill` at
/// most 6.999 s instead of 7.999 s (found by the property above).
#[test]
fn the_change_offsets_cover_the_resync_period() {
    let probe = |period, failure, timeout| Probe {
        period,
        failure,
        timeout,
        delay: 0,
    };
    let p = Pod {
        containers: vec![
            Container {
                startup: None,
                readiness: None,
                liveness: Some(probe(1, 2, 3)),
                pull_ms: 0,
            },
            Container {
                startup: Some(probe(5, 1, 1)),
                readiness: None,
                liveness: Some(probe(4, 1, 1)),
                pull_ms: 0,
            },
        ],
        grace: 1,
        kubernetes: "1.37",
        started_ago: None,
    };
    let s = subject(&p);
    let fast = Analyzer::new(&s, Sweep::new(2));
    let long = Analyzer::new(&s, Sweep::new(2)).exhaustive();
    let f = figures(&fast).expect("analysis");
    assert_eq!(f, figures(&long).expect("analysis"));
    let max = f[0].hang.kill.max;
    assert_eq!(max.value, Some(SimDuration::from_millis(7999)));
    // The phase reproduces it: a hang of c0 at that phase of the change (modulo the minute,
    // the least common multiple of the 20 s grid cycle and the resync) is killed 7.999 s later.
    let space = fast.space(0);
    assert_eq!(space.change_cycle, SimDuration::from_secs(60));
    let phase = max.phase.change.expect("a change figure");
    let hang = SimTime::from_secs(1200).saturating_add(phase);
    let text = yaml(&p).replacen(
        "\"http :8080/\": \"ok\"",
        &format!(
            "\"http :8080/\": \"pod: ok until {}ms then timeout\"",
            hang.as_millis()
        ),
        1,
    );
    let s = Scenario::from_str(&text, "pod.yaml")
        .expect("scenario")
        .with_timing(TimingMode::Exact);
    let mut seen = Kills::default();
    s.simulation()
        .run_until(hang.saturating_add(SimDuration::from_secs(60)), &mut seen)
        .expect("run");
    let kill = seen.0.iter().copied().find(|t| *t >= hang);
    assert_eq!(kill.map(|t| t.saturating_since(hang)), max.value);
}

/// The kills of c0.
#[derive(Default)]
struct Kills(Vec<SimTime>);

impl Sink for Kills {
    type Error = core::convert::Infallible;
    fn event(&mut self, e: &Event<'_>) -> Result<Flow, Self::Error> {
        if let EventKind::Kill {
            container: "c0", ..
        } = e.kind
        {
            self.0.push(e.t);
        }
        Ok(Flow::Continue)
    }
}
