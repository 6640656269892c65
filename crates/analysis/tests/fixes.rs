//! Every fix a finding offers is simulated before it is printed; these tests run each offered
//! fix once more, independently, and confirm what it claims: the figures it reports, the
//! effect it prints, that its finding is gone and that no new finding appears; for a start-up
//! fix, also by direct runs of the scenario crate that an app needing that long survives.

use probesim_analysis::analyze::{Analyzer, Want};
use probesim_analysis::finding::{findings, Finding};
use probesim_analysis::fix::Fix;
use probesim_analysis::report::WorkloadReport;
use probesim_analysis::subject::{load, LoadOptions, Subject};
use probesim_analysis::sweep::Sweep;
use probesim_core::{Event, EventKind, Flow, ProbeKind, SimDuration, SimTime, Sink};
use probesim_scenario::argument::{AppArg, AppFlag};
use probesim_scenario::scenario::NoFiles;
use proptest::prelude::*;

fn report(text: &str, expect: Option<u64>, apps: &[(AppFlag, String)]) -> WorkloadReport {
    let options = LoadOptions {
        apps: apps
            .iter()
            .map(|(flag, value)| AppArg {
                flag: *flag,
                value: value.clone(),
            })
            .collect(),
        ..LoadOptions::default()
    };
    let mut subjects = load(text, "fix.yaml", &options, &mut NoFiles).unwrap();
    let mut s = subjects.remove(0);
    s.expect_startup = expect.map(SimDuration::from_secs);
    WorkloadReport::of(s, Sweep::new(2)).unwrap()
}

fn with_fix(subject: &Subject, fix: &Fix) -> Subject {
    let mut s = subject.clone();
    let init = s.pod.init_containers.len();
    if fix.container < init {
        s.pod.init_containers[fix.container].probes = fix.probes.clone();
    } else {
        s.pod.containers[fix.container - init].probes = fix.probes.clone();
    }
    s
}

struct Kills(usize);

impl Sink for Kills {
    type Error = core::convert::Infallible;
    fn event(&mut self, e: &Event) -> Result<Flow, Self::Error> {
        if matches!(e.kind, EventKind::Kill { .. }) {
            self.0 += 1;
        }
        Ok(Flow::Continue)
    }
}

/// Checks every fix of a report; returns how many there were.
fn check(r: &WorkloadReport) -> usize {
    let mut n = 0;
    for f in &r.findings {
        let Some(fix) = &f.fix else { continue };
        n += 1;
        let fixed = with_fix(&r.subject, fix);
        // The figures it reports are those of a fresh analysis.
        let fresh = Analyzer::new(&fixed, Sweep::new(1))
            .container(fix.container, Want::ALL)
            .unwrap();
        assert_eq!(fresh, fix.figures, "{}: {}", f.rule.id, fix.change);
        // The effect names a figure, its value before (the report's) and after (the fresh one).
        let (name, values) = fix.effect.split_once(' ').unwrap();
        let (old, new) = values.split_once(" → ").unwrap();
        let before = r
            .containers
            .iter()
            .find(|c| c.index == fix.container)
            .unwrap();
        assert_eq!(old, value(before, name), "{}", fix.effect);
        assert_eq!(new, value(&fresh, name), "{}", fix.effect);
        // The finding is gone and nothing new is flagged for the container.
        let mut all = r.containers.clone();
        for c in &mut all {
            if c.index == fix.container {
                *c = fresh.clone();
            }
        }
        let now = findings(&fixed, &all);
        let ids = |list: &[Finding]| -> Vec<&str> {
            list.iter()
                .filter(|g| g.container == f.container)
                .map(|g| g.rule.id)
                .collect()
        };
        let (was, is) = (ids(&r.findings), ids(&now));
        assert!(
            !now.iter()
                .any(|g| g.container == f.container && g.rule.id == f.rule.id && g.path == f.path),
            "{} at {} still flagged after {}",
            f.rule.id,
            f.path,
            fix.change
        );
        assert!(is.iter().all(|id| was.contains(id)), "{was:?} -> {is:?}");
    }
    n
}

fn value(f: &probesim_analysis::figure::ContainerFigures, name: &str) -> String {
    let v = match name {
        "startupBudget.min" => f.startup_budget.as_ref().and_then(|b| b.min.value),
        "startupBudget.max" => f.startup_budget.as_ref().and_then(|b| b.max.value),
        "hangDetection.kill.max" => f.hang.kill.max.value,
        "hangDetection.restarted.max" => f.hang.restarted.max.value,
        "readiness.toReady.min" => f.readiness.to_ready.min.value,
        "readiness.toNotReady.max" => f.readiness.to_not_ready.as_ref().and_then(|n| n.max.value),
        other => panic!("unknown figure {other}"),
    };
    v.map_or_else(|| "never".to_owned(), |d| format!("{d}s"))
}

/// A start-up fix, by direct runs: the pod of the manifest with the fixed probes as a scenario,
/// the app refusing every probe for `need` from its start, its start moved by an image pull;
/// never killed.
fn survives(fix: &Fix, container: &str, need: SimDuration) {
    // The fixed probes written into the manifest: the scenario crate reads them as a user's.
    let yaml = |p: &probesim_core::ProbeSpec| {
        format!(
            "{{httpGet: {{path: /healthz, port: 8080}}, initialDelaySeconds: {}, periodSeconds: {}, timeoutSeconds: {}, failureThreshold: {}, successThreshold: {}}}",
            p.initial_delay_seconds(),
            p.period_seconds(),
            p.timeout_seconds(),
            p.failure_threshold(),
            p.success_threshold()
        )
    };
    let mut probes = String::new();
    for kind in ProbeKind::ALL {
        if let Some(p) = &fix.probes[kind.index()] {
            probes.push_str(&format!("    {}: {}\n", kind.field(), yaml(p)));
        }
    }
    for pull_ms in [0u64, 1, 999, 2500, 7321] {
        let text = format!(
            "name: fixed\nduration: 10m\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {{name: fixed}}\n  spec:\n    containers:\n    - name: {container}\n      image: example/app:1.0\n      ports: [{{containerPort: 8080}}]\n{}apps:\n  {container}:\n    pull: {pull_ms}ms\n    endpoints:\n      \"http :8080/healthz\": \"refused for {}ms then ok\"\n",
            probes.replace("    ", "      "),
            need.as_millis()
        );
        let s = probesim_scenario::scenario::Scenario::from_str(&text, "fixed.yaml").unwrap();
        let mut sim = s.simulation();
        let mut kills = Kills(0);
        sim.run_until(SimTime::from_secs(600), &mut kills).unwrap();
        assert_eq!(
            kills.0, 0,
            "killed with {} (pull {pull_ms}ms)\n{text}",
            fix.change
        );
    }
}

fn probe_yaml(kind: &str, period: u32, failure: u32, timeout: u32, delay: u32) -> String {
    format!(
        "    {kind}:\n      httpGet: {{path: /healthz, port: 8080}}\n      periodSeconds: {period}\n      failureThreshold: {failure}\n      timeoutSeconds: {timeout}\n      initialDelaySeconds: {delay}\n"
    )
}

#[test]
fn the_public_manifests_fixes_hold() {
    // Online Boutique's frontend given a 45s start.
    let boutique = include_str!("../../../tests/public/online-boutique-frontend.yaml");
    let r = report(
        boutique,
        None,
        &[(
            AppFlag::App,
            "server: liveness=refused for 45s then ok".to_owned(),
        )],
    );
    assert_eq!(check(&r), 1);
    let fix = r.findings.iter().find_map(|f| f.fix.as_ref()).unwrap();
    survives(fix, "server", SimDuration::from_secs(45));
    // The fixture: a timeout as long as the period, a shadowed initial delay.
    let fixture = include_str!("../../../tests/cmd/fixtures/analyze-findings.yaml");
    let options = LoadOptions::default();
    for s in load(fixture, "fix.yaml", &options, &mut NoFiles).unwrap() {
        let r = WorkloadReport::of(s, Sweep::new(2)).unwrap();
        check(&r);
    }
}

#[test]
fn a_sigterm_ignoring_app_gets_a_probe_level_grace_period_that_shortens_recovery() {
    let text = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n  - name: app\n    image: example/app:1.0\n    ports: [{{containerPort: 8080}}]\n{}",
        probe_yaml("livenessProbe", 5, 3, 1, 0)
    );
    let r = report(&text, None, &[(AppFlag::Sigterm, "app: ignore".to_owned())]);
    let f = r
        .findings
        .iter()
        .find(|f| f.rule.id == "grace-dominates-recovery")
        .unwrap();
    let fix = f.fix.as_ref().unwrap();
    assert!(
        fix.change
            .contains("livenessProbe.terminationGracePeriodSeconds: unset → "),
        "{}",
        fix.change
    );
    assert_eq!(check(&r), 1);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random probes with a random declared start: every fix offered holds, and a start-up fix
    /// lets an app needing that long through at every start phase tried.
    #[test]
    fn every_offered_fix_holds(
        period in 1u32..=10, failure in 1u32..=4, timeout in 1u32..=6, delay in 0u32..=12,
        startup in proptest::option::of((1u32..=5, 1u32..=6)),
        readiness in proptest::option::of((1u32..=10, 1u32..=3, 0u32..=10)),
        need in 5u64..=60,
    ) {
        let mut probes = probe_yaml("livenessProbe", period, failure, timeout, delay);
        if let Some((p, f)) = startup {
            probes.push_str(&probe_yaml("startupProbe", p, f, 1, 0));
        }
        if let Some((p, f, d)) = readiness {
            probes.push_str(&probe_yaml("readinessProbe", p, f, 1, d).replace("/healthz", "/ready"));
        }
        let text = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n  - name: app\n    image: example/app:1.0\n    ports: [{{containerPort: 8080}}]\n{probes}"
        );
        let r = report(&text, Some(need), &[]);
        check(&r);
        for f in &r.findings {
            if let (Some(fix), "startup-budget-below-expected") = (&f.fix, f.rule.id) {
                // The direct runs give every probe one path; readiness never kills.
                survives(fix, "app", SimDuration::from_secs(need));
            }
        }
    }
}
