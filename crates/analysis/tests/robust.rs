//! The recommender's robustness requirements against direct runs of the scenario crate: a
//! stall or a blip at many moments, a readiness endpoint failing alone. The file's probes
//! (liveness threshold 1, period 2) are killed by a 5s stall, and the test sees that kill
//! directly; the recommended probes are not, at any moment tried, and turn the pod not Ready
//! through readiness alone within the time asked.

use probesim_analysis::recommend::{recommend, Requirements};
use probesim_analysis::subject::{load, LoadOptions};
use probesim_analysis::sweep::Sweep;
use probesim_core::{Event, EventKind, Flow, ProbeKind, ProbeSpec, SimDuration, SimTime, Sink};
use probesim_scenario::scenario::{NoFiles, Scenario};

const POD: &str = "\
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: web
    image: example/web:1.0
    ports: [{containerPort: 8080}]
    livenessProbe:
      httpGet: {path: /healthz, port: 8080}
      periodSeconds: 2
      failureThreshold: 1
    readinessProbe:
      httpGet: {path: /ready, port: 8080}
      periodSeconds: 10
";

#[derive(Default)]
struct Seen {
    kills: Vec<SimTime>,
    ready: Vec<(SimTime, bool)>,
}

impl Sink for Seen {
    type Error = core::convert::Infallible;
    fn event(&mut self, e: &Event) -> Result<Flow, Self::Error> {
        match e.kind {
            EventKind::Kill { .. } => self.kills.push(e.t),
            EventKind::PodReady { ready } => self.ready.push((e.t, ready)),
            _ => {}
        }
        Ok(Flow::Continue)
    }
}

fn yaml(path: &str, p: &ProbeSpec) -> String {
    format!(
        "{{httpGet: {{path: {path}, port: 8080}}, initialDelaySeconds: {}, periodSeconds: {}, timeoutSeconds: {}, failureThreshold: {}, successThreshold: {}}}",
        p.initial_delay_seconds(),
        p.period_seconds(),
        p.timeout_seconds(),
        p.failure_threshold(),
        p.success_threshold()
    )
}

/// Runs the pod with these probes, the liveness and readiness endpoints answering `live` and
/// `ready` (scripts on the pod's clock), for 10 minutes.
fn run(probes: &[Option<ProbeSpec>; 3], live: &str, ready: &str) -> Seen {
    let mut fields = String::new();
    for (kind, path) in [
        (ProbeKind::Startup, "/healthz"),
        (ProbeKind::Liveness, "/healthz"),
        (ProbeKind::Readiness, "/ready"),
    ] {
        if let Some(p) = &probes[kind.index()] {
            fields.push_str(&format!("      {}: {}\n", kind.field(), yaml(path, p)));
        }
    }
    let text = format!(
        "name: direct\nduration: 10m\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {{name: web}}\n  spec:\n    containers:\n    - name: web\n      image: example/web:1.0\n      ports: [{{containerPort: 8080}}]\n{fields}apps:\n  web:\n    endpoints:\n      \"http :8080/healthz\": \"{live}\"\n      \"http :8080/ready\": \"{ready}\"\n"
    );
    let s = Scenario::from_str(&text, "direct.yaml").unwrap();
    let mut sim = s.simulation();
    let mut seen = Seen::default();
    sim.run_until(SimTime::from_secs(600), &mut seen).unwrap();
    seen
}

/// Moments of the steady state, spread over the tick grids with odd milliseconds.
fn moments() -> impl Iterator<Item = u64> {
    (0..24u64).map(|i| 120_000 + i * 1_337)
}

#[test]
fn robustness_requirements_hold_in_direct_runs() {
    let subject = load(POD, "web.yaml", &LoadOptions::default(), &mut NoFiles)
        .unwrap()
        .remove(0);
    let stall = SimDuration::from_secs(5);
    let req = Requirements {
        tolerate_stall: Some(stall),
        not_ready_within: Some(SimDuration::from_secs(12)),
        ..Requirements::default()
    };
    let original = subject.pod.containers[0].probes.clone();
    // The file's liveness (threshold 1) is killed by a 4.999s stall at some moment.
    let stalled = |t: u64| format!("pod: ok until {t}ms then timeout for 4999ms then ok");
    assert!(
        moments().any(|t| !run(&original, &stalled(t), "ok").kills.is_empty()),
        "the file's probes survive every stall: the test could not fail"
    );
    let search = recommend(&subject, 0, &req, Sweep::new(2), 2).unwrap();
    assert!(!search.already);
    assert!(search.current_robustness.stall.unwrap().killed.is_some());
    assert!(!search.candidates.is_empty());
    for c in &search.candidates {
        assert!(c.robustness.stall.unwrap().killed.is_none());
        let alone = c.robustness.not_ready_alone.unwrap().max.value.unwrap();
        assert!(alone <= SimDuration::from_secs(12));
        for t in moments() {
            // A stall just shorter than asked: no kill.
            let seen = run(&c.probes, &stalled(t), "ok");
            assert!(
                seen.kills.is_empty(),
                "killed by a stall at {t}ms: {:?}",
                c.probes
            );
            // Readiness failing alone from t: not Ready within the figure, and no kill.
            let seen = run(&c.probes, "ok", &format!("pod: ok until {t}ms then 503"));
            assert!(seen.kills.is_empty());
            let at = SimTime::from_millis(t);
            let not_ready = seen
                .ready
                .iter()
                .find(|(when, r)| !r && *when >= at)
                .map(|(when, _)| when.saturating_since(at))
                .unwrap();
            assert!(
                not_ready <= alone,
                "not Ready {not_ready} after {t}ms, figure {alone}"
            );
        }
    }
}

#[test]
fn a_blip_keeps_the_pod_ready_and_alive() {
    let subject = load(POD, "web.yaml", &LoadOptions::default(), &mut NoFiles)
        .unwrap()
        .remove(0);
    let req = Requirements {
        tolerate_blip: Some(SimDuration::from_secs(3)),
        ..Requirements::default()
    };
    let blip = |t: u64| format!("pod: ok until {t}ms then 503 for 2999ms then ok");
    let original = subject.pod.containers[0].probes.clone();
    assert!(
        moments().any(|t| !run(&original, &blip(t), &blip(t)).kills.is_empty()),
        "the file's probes survive every blip: the test could not fail"
    );
    let search = recommend(&subject, 0, &req, Sweep::new(2), 1).unwrap();
    let c = &search.candidates[0];
    for t in moments() {
        let seen = run(&c.probes, &blip(t), &blip(t));
        assert!(seen.kills.is_empty(), "killed by a blip at {t}ms");
        let at = SimTime::from_millis(t);
        assert!(
            !seen.ready.iter().any(|(when, r)| !r && *when >= at),
            "not Ready after a blip at {t}ms"
        );
    }
}

/// The robustness sweeps draw on the search's budget of simulation steps like the analyses
/// (docs/analysis.md, "Limits"): a stall of 100 hours, swept over every phase, needs far more
/// than the 5,000,000 steps given here, and the search stops with the limit's error once they
/// are spent, not after each sweep has spent a budget of its own.
#[test]
fn a_huge_robustness_sweep_stops_at_the_search_budget() {
    use probesim_analysis::analyze::Work;
    use probesim_analysis::recommend::{recommend_within, RecommendError};
    let subject = load(POD, "web.yaml", &LoadOptions::default(), &mut NoFiles)
        .unwrap()
        .remove(0);
    let req = Requirements {
        tolerate_stall: Some(SimDuration::from_secs(100 * 3600)),
        ..Requirements::default()
    };
    let work = Work::new(5_000_000);
    let e = recommend_within(&subject, 0, &req, Sweep::new(2), 1, &work).unwrap_err();
    assert!(
        matches!(&e, RecommendError::TooCostly { container } if container == "web"),
        "{e}"
    );
    assert!(e.to_string().contains("simulation steps, its limit"), "{e}");
    // The steps were drawn from the search's budget, and no trial ran far past it.
    assert!(
        work.used() > work.limit(),
        "{} of {}",
        work.used(),
        work.limit()
    );
    assert!(
        work.used() < 3 * work.limit(),
        "{} of {}",
        work.used(),
        work.limit()
    );
}
