//! The recommender for people: the smallest change from the file first, nothing changed when
//! the file already complies, the fields it need not touch kept, a tolerant threshold before a
//! hair-trigger one, and never a configuration that one of probesim's findings flags. Every
//! candidate is analysed again here and must have the figures it claims.

use probesim_analysis::finding::findings;
use probesim_analysis::recommend::{change, recommend, Requirements, Search};
use probesim_analysis::report::WorkloadReport;
use probesim_analysis::subject::{load, LoadOptions, Subject};
use probesim_analysis::sweep::Sweep;
use probesim_core::{ProbeKind, SimDuration};
use probesim_scenario::scenario::NoFiles;

fn subject(text: &str) -> Subject {
    load(text, "rec.yaml", &LoadOptions::default(), &mut NoFiles)
        .unwrap()
        .remove(0)
}

fn secs(s: u64) -> Option<SimDuration> {
    Some(SimDuration::from_secs(s))
}

/// Every candidate: its figures again from a fresh analysis, the requirements met, its change
/// from the file as ranked, no finding the file does not have.
fn check(s: &Subject, req: &Requirements, search: &Search) {
    let original = s.pod.containers[0].probes.clone();
    let before: Vec<&str> = WorkloadReport::of(s.clone(), Sweep::new(2))
        .unwrap()
        .findings
        .iter()
        .map(|f| f.rule.id)
        .collect();
    let mut last = 0;
    for c in &search.candidates {
        assert_eq!(c.complexity, change(&original, &c.probes));
        assert!(c.complexity >= last, "the smallest change first");
        last = c.complexity;
        let mut fixed = s.clone();
        fixed.pod.containers[0].probes = c.probes.clone();
        let again = WorkloadReport::of(fixed.clone(), Sweep::single()).unwrap();
        assert_eq!(again.containers[0], c.figures);
        assert!(req.met_by(&again.containers[0]));
        for f in findings(&fixed, &again.containers) {
            assert!(before.contains(&f.rule.id), "{} is new", f.rule.id);
        }
    }
}

const ADAPTER: &str = include_str!("../../../tests/public/prometheus-adapter.yaml");

#[test]
fn a_file_that_already_complies_is_left_alone() {
    // prometheus-adapter's liveness (period 5, threshold 5) kills a hung app within 25.999s.
    let s = subject(ADAPTER);
    let req = Requirements {
        detect_hang_within: secs(40),
        ..Requirements::default()
    };
    let search = recommend(&s, 0, &req, Sweep::new(2), 3).unwrap();
    assert!(search.already);
    assert!(search.candidates.is_empty());
    assert_eq!(
        search.current.hang.kill.max.value,
        Some(SimDuration::from_millis(25_999))
    );
}

#[test]
fn the_smallest_change_keeps_a_tolerant_threshold() {
    // Within 20s: one field changes, and of the one-field changes the most tolerant threshold
    // wins: the author's threshold 5 stays (the period goes from 5 to 3), where a threshold of
    // 1 would turn a single slow answer into a kill.
    let s = subject(ADAPTER);
    let req = Requirements {
        detect_hang_within: secs(20),
        ..Requirements::default()
    };
    let search = recommend(&s, 0, &req, Sweep::new(2), 3).unwrap();
    assert!(!search.already);
    let first = &search.candidates[0];
    let live = first.probes[ProbeKind::Liveness.index()].as_ref().unwrap();
    assert_eq!(
        (live.period_seconds(), live.failure_threshold()),
        (3, 5),
        "{live:?}"
    );
    // One field changed; the initial delay of 30s and the readiness probe stay as written.
    assert_eq!(first.complexity, 1);
    assert_eq!(live.initial_delay_seconds(), 30);
    assert_eq!(
        first.probes[ProbeKind::Readiness.index()],
        s.pod.containers[0].probes[ProbeKind::Readiness.index()]
    );
    check(&s, &req, &search);
}

#[test]
fn fields_the_search_does_not_vary_are_kept() {
    let text = "\
apiVersion: v1
kind: Pod
metadata: {name: keep}
spec:
  containers:
  - name: app
    image: example/app:1.0
    ports: [{containerPort: 8080}]
    livenessProbe:
      httpGet: {path: /healthz, port: 8080}
    readinessProbe:
      httpGet: {path: /ready, port: 8080}
      successThreshold: 2
      initialDelaySeconds: 4
";
    let s = subject(text);
    let req = Requirements {
        not_ready_within: secs(10),
        ..Requirements::default()
    };
    let search = recommend(&s, 0, &req, Sweep::new(2), 3).unwrap();
    assert!(!search.candidates.is_empty());
    for c in &search.candidates {
        let r = c.probes[ProbeKind::Readiness.index()].as_ref().unwrap();
        assert_eq!((r.success_threshold(), r.initial_delay_seconds()), (2, 4));
        assert_eq!(
            c.probes[ProbeKind::Liveness.index()],
            s.pod.containers[0].probes[ProbeKind::Liveness.index()]
        );
    }
    check(&s, &req, &search);
}

#[test]
fn a_readiness_probe_equal_to_liveness_is_never_proposed() {
    // Only a liveness probe: a readiness probe could only copy its endpoint, which
    // liveness-equals-readiness flags, so none is proposed.
    let text = "\
apiVersion: v1
kind: Pod
metadata: {name: kubia}
spec:
  containers:
  - name: kubia
    image: luksa/kubia-unhealthy
    ports: [{containerPort: 8080}]
    livenessProbe:
      httpGet: {path: /, port: 8080}
";
    let s = subject(text);
    let req = Requirements {
        not_ready_within: secs(15),
        ..Requirements::default()
    };
    let search = recommend(&s, 0, &req, Sweep::new(2), 3).unwrap();
    for c in &search.candidates {
        let (l, r) = (
            c.probes[ProbeKind::Liveness.index()].as_ref(),
            c.probes[ProbeKind::Readiness.index()].as_ref(),
        );
        if let (Some(l), Some(r)) = (l, r) {
            assert_ne!(l.handler(), r.handler());
        }
    }
    check(&s, &req, &search);
}

#[test]
fn an_impossible_set_names_the_requirement_that_binds() {
    let s = subject(ADAPTER);
    let req = Requirements {
        detect_hang_within: secs(1),
        not_ready_within: secs(30),
        ..Requirements::default()
    };
    let search = recommend(&s, 0, &req, Sweep::new(2), 1).unwrap();
    assert!(search.candidates.is_empty() && !search.already);
    let names: Vec<&str> = search
        .binding
        .iter()
        .map(|b| b.requirement.as_str())
        .collect();
    assert_eq!(names, ["hangDetection.kill.max <= 1s"]);
    // The best value reported is above the requirement, and is a liveness probe's figure.
    let best = search.best_hang.unwrap();
    assert!(best > SimDuration::from_secs(1), "{best}");
    assert!(search.binding[0].best.contains(&format!("{best}s")));
}
