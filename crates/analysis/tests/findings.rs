//! Findings: each rule fires on the configuration it describes, at the field it names, with
//! the figures of the analysis in its explanation; a clean configuration has none.

use probesim_analysis::figure::ContainerFigures;
use probesim_analysis::finding::{Finding, RULES};
use probesim_analysis::recommend::{recommend, Requirements};
use probesim_analysis::report::WorkloadReport;
use probesim_analysis::subject::{load, LoadOptions, Subject};
use probesim_analysis::sweep::Sweep;
use probesim_core::SimDuration;
use probesim_scenario::argument::{AppArg, AppFlag};
use probesim_scenario::scenario::NoFiles;

fn reports(text: &str, kubernetes: Option<&str>, expect: Option<u64>) -> Vec<WorkloadReport> {
    reports_with(text, kubernetes, expect, &[])
}

fn reports_with(
    text: &str,
    kubernetes: Option<&str>,
    expect: Option<u64>,
    sigterm: &[&str],
) -> Vec<WorkloadReport> {
    let options = LoadOptions {
        kubernetes: kubernetes.map(str::to_owned),
        apps: sigterm
            .iter()
            .map(|v| AppArg {
                flag: AppFlag::Sigterm,
                value: (*v).to_owned(),
            })
            .collect(),
        ..LoadOptions::default()
    };
    let subjects = load(text, "test.yaml", &options, &mut NoFiles).unwrap();
    subjects
        .into_iter()
        .map(|mut s| {
            s.expect_startup = expect.map(SimDuration::from_secs);
            WorkloadReport::of(s, Sweep::new(2)).unwrap()
        })
        .collect()
}

fn find<'r>(reports: &'r [WorkloadReport], id: &str) -> Vec<(&'r Finding, &'r WorkloadReport)> {
    reports
        .iter()
        .flat_map(|r| r.findings.iter().map(move |f| (f, r)))
        .filter(|(f, _)| f.rule.id == id)
        .collect()
}

fn figures<'r>(r: &'r WorkloadReport, container: &str) -> &'r ContainerFigures {
    r.containers.iter().find(|c| c.name == container).unwrap()
}

const FIXTURE: &str = include_str!("../../../tests/cmd/fixtures/analyze-findings.yaml");

#[test]
fn the_fixture_shows_each_configuration_finding_where_it_is() {
    let r = reports(FIXTURE, None, None);
    let at = |id: &str| -> Vec<(String, String, Option<usize>)> {
        find(&r, id)
            .into_iter()
            .map(|(f, _)| (f.container.clone(), f.path.clone(), f.at.map(|a| a.0)))
            .collect()
    };
    let c = "spec.template.spec.containers";
    assert_eq!(
        at("liveness-equals-readiness"),
        [(
            "web".into(),
            format!("{c}[0].livenessProbe.httpGet"),
            Some(25)
        )]
    );
    assert_eq!(
        at("timeout-not-less-than-period"),
        [
            (
                "web".into(),
                format!("{c}[0].readinessProbe.timeoutSeconds"),
                Some(31)
            ),
            (
                "web".into(),
                format!("{c}[0].livenessProbe.timeoutSeconds"),
                Some(27)
            ),
        ]
    );
    assert_eq!(at("initial-delay-shadowed-by-startup").len(), 2);
    assert_eq!(
        at("liveness-missing"),
        [("worker".into(), format!("{c}[2]"), Some(46))]
    );
    // Service/shop selects the pod (R42 readiness is what a Service sees).
    assert_eq!(at("readiness-missing").len(), 1);
    assert_eq!(
        at("probe-named-port-unresolved"),
        [(
            "legacy".into(),
            format!("{c}[0].readinessProbe.httpGet.port"),
            Some(83)
        )]
    );
    assert_eq!(at("probe-on-job").len(), 1);
    // No Service selects the legacy pod and its ports are declared.
    assert!(at("probe-port-not-exposed").is_empty());
}

#[test]
fn explanations_carry_the_figures_of_the_analysis() {
    let r = reports_with(FIXTURE, None, None, &["legacy: ignore"]);
    let (f, w) = find(&r, "liveness-equals-readiness")[0];
    let web = figures(w, "web");
    let kill = web.hang.kill;
    assert!(
        f.message.contains(&format!("{}s", kill.max.value.unwrap())),
        "{}",
        f.message
    );
    let (f, w) = find(&r, "grace-dominates-recovery")[0];
    let legacy = figures(w, "legacy");
    // The finding exists because waiting for the exit takes at least as long as detection.
    let (k, e) = (
        legacy.hang.kill.max.value.unwrap(),
        legacy.hang.exit.max.value.unwrap(),
    );
    assert!(e.saturating_sub(k) >= k);
    assert!(f.message.contains(&format!("{e}s")), "{}", f.message);
    // A process that dies of the signal at once leaves nothing to wait for.
    let r = reports(FIXTURE, None, None);
    assert!(find(&r, "grace-dominates-recovery").is_empty());
}

const SLOW_START: &str = "\
apiVersion: v1
kind: Pod
metadata: {name: slow}
spec:
  containers:
  - name: app
    image: example/app:1.0
    ports: [{containerPort: 8080}]
    livenessProbe:
      httpGet: {port: 8080}
      periodSeconds: 2
      failureThreshold: 2
    readinessProbe:
      httpGet: {port: 8080}
      initialDelaySeconds: 30
";

#[test]
fn timing_findings_compare_the_budget_with_what_the_app_needs() {
    let r = reports(SLOW_START, None, Some(90));
    let budget = figures(&r[0], "app").startup_budget.unwrap();
    assert!(budget.min.value.unwrap() < SimDuration::from_secs(90));
    let (f, _) = find(&r, "startup-budget-below-expected")[0];
    assert!(
        f.message
            .contains(&format!("{}s", budget.min.value.unwrap())),
        "{}",
        f.message
    );
    assert_eq!(f.rule.severity.as_str(), "error");
    // Liveness judges the start long before readiness even probes.
    assert_eq!(find(&r, "liveness-before-ready").len(), 1);
    // Without the declared start-up time there is nothing to compare with.
    let r = reports(SLOW_START, None, None);
    assert!(find(&r, "startup-budget-below-expected").is_empty());
}

#[test]
fn exec_timeouts_are_not_enforced_before_their_gate() {
    let text = "\
apiVersion: v1
kind: Pod
metadata: {name: e}
spec:
  containers:
  - name: app
    image: example/app:1.0
    livenessProbe:
      exec: {command: [cat, /tmp/ok]}
";
    let old = reports(text, Some("1.19"), None);
    let (f, w) = find(&old, "exec-timeout-ignored")[0];
    // P48: the hang is never detected, and the figure says so.
    assert_eq!(figures(w, "app").hang.kill.max.value, None);
    assert!(f.message.contains("never"));
    let new = reports(text, Some("1.37"), None);
    assert!(find(&new, "exec-timeout-ignored").is_empty());
    assert!(figures(&new[0], "app").hang.kill.max.value.is_some());
}

#[test]
fn a_clean_configuration_has_no_findings() {
    let text = "\
apiVersion: v1
kind: Pod
metadata: {name: clean}
spec:
  containers:
  - name: app
    image: example/app:1.0
    ports: [{name: http, containerPort: 8080}]
    startupProbe:
      httpGet: {path: /healthz, port: http}
      failureThreshold: 30
    livenessProbe:
      httpGet: {path: /healthz, port: http}
    readinessProbe:
      httpGet: {path: /ready, port: http}
      periodSeconds: 5
";
    let r = reports(text, None, Some(60));
    assert!(r[0].findings.is_empty(), "{:#?}", r[0].findings);
}

#[test]
fn every_rule_is_documented() {
    let docs = include_str!("../../../docs/findings.md");
    for rule in RULES {
        assert!(
            docs.contains(&format!("## `{}`", rule.id)),
            "docs/findings.md has no section for {}",
            rule.id
        );
    }
}

#[test]
fn every_recommended_candidate_meets_the_requirements_when_analysed_again() {
    let text = include_str!("../../../examples/manifests/app.yaml");
    let options = LoadOptions {
        select: Some("Deployment/web".into()),
        ..LoadOptions::default()
    };
    let subject: Subject = load(text, "app.yaml", &options, &mut NoFiles)
        .unwrap()
        .remove(0);
    let req = Requirements {
        startup_up_to: Some(SimDuration::from_secs(60)),
        detect_hang_within: Some(SimDuration::from_secs(20)),
        not_ready_within: Some(SimDuration::from_secs(8)),
        ..Requirements::default()
    };
    let search = recommend(&subject, 0, &req, Sweep::new(2), 2).unwrap();
    assert!(!search.candidates.is_empty());
    let mut last = 0;
    for c in &search.candidates {
        assert!(c.complexity >= last, "simplest first");
        last = c.complexity;
        let mut s = subject.clone();
        s.pod.containers[0].probes = c.probes.clone();
        let again = WorkloadReport::of(s, Sweep::single()).unwrap();
        let f = &again.containers[0];
        assert_eq!(f, &c.figures);
        assert!(req.met_by(f));
        assert!(f.startup_budget.unwrap().min.value.unwrap() >= SimDuration::from_secs(60));
        assert!(f.hang.kill.max.value.unwrap() <= SimDuration::from_secs(20));
    }
}

#[test]
fn a_scenario_script_declares_the_start_up_time() {
    let text = "\
duration: 10m
pod:
  apiVersion: v1
  kind: Pod
  metadata: {name: slow}
  spec:
    containers:
    - name: app
      image: example/app:1.0
      ports: [{containerPort: 8080}]
      livenessProbe:
        httpGet: {port: 8080}
apps:
  app:
    probes:
      liveness: refused for 45s then ok
";
    let r = reports(text, None, None);
    let (f, _) = find(&r, "startup-budget-below-expected")[0];
    assert!(
        f.message
            .contains("needs 45s to start (apps.app.probes.liveness)"),
        "{}",
        f.message
    );
    assert_eq!(f.at, Some((12, 9)));
}

#[test]
fn figures_do_not_depend_on_the_number_of_threads() {
    use probesim_analysis::analyze::{Analyzer, Want};
    use probesim_analysis::trial::{App, Stop, Trial};
    use probesim_core::SimTime;

    let options = LoadOptions::default();
    let subject = load(SLOW_START, "slow.yaml", &options, &mut NoFiles)
        .unwrap()
        .remove(0);
    let one = Analyzer::new(&subject, Sweep::single())
        .all(Want::ALL)
        .unwrap();
    let three = Analyzer::new(&subject, Sweep::new(3))
        .all(Want::ALL)
        .unwrap();
    assert_eq!(one, three);
    // The same for a list of jobs run directly.
    let jobs: Vec<Trial> = (0..20)
        .map(|i| Trial {
            container: 0,
            app: App::FailUntil(SimDuration::from_millis(i * 997)),
            start_offset: SimDuration::from_millis(i * 131),
            seed: 0,
            horizon: SimTime::from_secs(600),
            stop: Stop::KillOrSafe,
        })
        .collect();
    let a = Analyzer::new(&subject, Sweep::single())
        .trials(&jobs)
        .unwrap();
    let b = Analyzer::new(&subject, Sweep::new(4))
        .trials(&jobs)
        .unwrap();
    assert_eq!(a, b);
    assert!(a.iter().any(|t| t.kills.is_empty()) && a.iter().any(|t| !t.kills.is_empty()));
}

#[test]
fn a_sidecar_is_analysed_like_a_container_and_agrees_with_direct_runs() {
    use probesim_core::{EventKind, Flow, SimTime, Sink};

    let pod = r"  apiVersion: v1
  kind: Pod
  metadata: {name: mesh}
  spec:
    initContainers:
    - name: proxy
      image: example/proxy:1.0
      restartPolicy: Always
      livenessProbe:
        httpGet: {path: /healthz, port: 15021}
        periodSeconds: 5
      readinessProbe:
        httpGet: {path: /ready, port: 15021}
        periodSeconds: 2
    containers:
    - name: app
      image: example/app:1.0
      readinessProbe:
        httpGet: {path: /ready, port: 8080}
";
    let options = LoadOptions::default();
    let plain = format!("duration: 1h\npod:\n{pod}");
    let subject = load(&plain, "mesh.yaml", &options, &mut NoFiles)
        .unwrap()
        .remove(0);
    let report = WorkloadReport::of(subject, Sweep::new(2)).unwrap();
    let proxy = figures(&report, "proxy");
    assert!(proxy.sidecar);
    assert!(!figures(&report, "app").sidecar);
    let budget = proxy.startup_budget.unwrap();
    struct Kills(usize);
    impl Sink for Kills {
        type Error = std::convert::Infallible;
        fn event(&mut self, e: &probesim_core::Event<'_>) -> Result<Flow, Self::Error> {
            if matches!(
                e.kind,
                EventKind::Kill {
                    container: "proxy",
                    ..
                }
            ) {
                self.0 += 1;
            }
            Ok(Flow::Continue)
        }
    }
    // P15, R13: direct runs of the sidecar failing until T, its start moved by its image pull.
    let killed = |start_ms: u64, t: SimDuration| {
        let t = t.as_millis();
        let text = format!(
            "{plain}apps:\n  proxy:\n    pull: {start_ms}ms\n    endpoints:\n      \"http :15021/healthz\": \"refused for {t}ms then ok\"\n      \"http :15021/ready\": \"refused for {t}ms then ok\"\n"
        );
        let s = probesim_scenario::scenario::Scenario::from_str(&text, "mesh.yaml").unwrap();
        let mut sim = s.simulation();
        let mut kills = Kills(0);
        sim.run_until(SimTime::from_secs(600), &mut kills).unwrap();
        kills.0 > 0
    };
    for start in [0, 1, 2500, 4999, 7321] {
        assert!(!killed(start, budget.min.value.unwrap()), "start {start}ms");
        let past = budget
            .max
            .value
            .unwrap()
            .saturating_add(SimDuration::from_millis(1));
        assert!(killed(start, past), "start {start}ms");
    }
}

#[test]
fn sarif_logs_have_every_rule_and_a_located_result_per_finding() {
    use probesim_analysis::report::{json, sarif};

    let r = reports(FIXTURE, None, None);
    let log: serde_json::Value = serde_json::from_str(&sarif("0.1.0", &r)).unwrap();
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), RULES.len());
    for (rule, r) in rules.iter().zip(RULES) {
        assert_eq!(rule["id"], r.id);
        assert_eq!(rule["defaultConfiguration"]["level"], r.severity.as_str());
        assert!(!rule["help"]["text"].as_str().unwrap().is_empty());
    }
    let results = run["results"].as_array().unwrap();
    let findings: Vec<&Finding> = r.iter().flat_map(|w| &w.findings).collect();
    assert_eq!(results.len(), findings.len());
    for (result, f) in results.iter().zip(&findings) {
        let index = usize::try_from(result["ruleIndex"].as_u64().unwrap()).unwrap();
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert_eq!(result["ruleId"], f.rule.id);
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], "test.yaml");
        assert_eq!(
            location["region"]["startLine"].as_u64(),
            f.at.map(|(l, _)| l as u64)
        );
    }
    // The JSON report carries the same findings, in order.
    let doc: serde_json::Value = serde_json::from_str(&json("1.37", &r, &[])).unwrap();
    let ids: Vec<&str> = doc["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|w| w["findings"].as_array().unwrap())
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = findings.iter().map(|f| f.rule.id).collect();
    assert_eq!(ids, expected);
}

/// A Pod whose container `app` has these extra lines (indented for the container's fields),
/// either as a regular container or as a sidecar (an init container with restartPolicy:
/// Always) beside a plain `main` container.
fn pod(sidecar: bool, fields: &str) -> String {
    let main = "  - name: main\n    image: example/main:1.0\n    livenessProbe:\n      exec: {command: [\"true\"]}\n";
    let app = format!("  - name: app\n    image: example/app:1.0\n{fields}");
    if sidecar {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  initContainers:\n{app}    restartPolicy: Always\n  containers:\n{main}"
        )
    } else {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n{app}{main}"
        )
    }
}

fn ids_of(r: &[WorkloadReport], container: &str) -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = r
        .iter()
        .flat_map(|w| &w.findings)
        .filter(|f| f.container == container)
        .map(|f| f.rule.id)
        .collect();
    ids.sort_unstable();
    ids
}

#[test]
fn a_sidecar_gets_the_findings_its_probes_would_get_on_a_regular_container() {
    // Four mistakes: equal endpoints, an undeclared port, a timeout as long as the period,
    // and a startup probe shadowing an initial delay.
    let fields = "    ports: [{containerPort: 9000}]
    startupProbe:
      httpGet: {path: /healthz, port: 8080}
      failureThreshold: 10
    livenessProbe:
      httpGet: {path: /healthz, port: 8080}
      initialDelaySeconds: 5
    readinessProbe:
      httpGet: {path: /healthz, port: 8080}
      periodSeconds: 3
      timeoutSeconds: 3
";
    let regular = reports(&pod(false, fields), None, None);
    let sidecar = reports(&pod(true, fields), None, None);
    let expected = ids_of(&regular, "app");
    assert!(
        expected.contains(&"liveness-equals-readiness"),
        "{expected:?}"
    );
    assert!(expected.contains(&"probe-port-not-exposed"), "{expected:?}");
    assert!(
        expected.contains(&"timeout-not-less-than-period"),
        "{expected:?}"
    );
    assert!(
        expected.contains(&"initial-delay-shadowed-by-startup"),
        "{expected:?}"
    );
    assert_eq!(ids_of(&sidecar, "app"), expected);
    for f in sidecar[0].findings.iter().filter(|f| f.container == "app") {
        assert!(f.path.starts_with("spec.initContainers[0]"), "{}", f.path);
        assert!(f.at.is_some(), "{f:?}");
    }
}

#[test]
fn equal_probes_are_those_of_one_endpoint_as_kube_score_has_it() {
    let probes = |live: &str, ready: &str| {
        let text = pod(
            false,
            &format!("    ports: [{{containerPort: 8080}}]\n    livenessProbe:\n{live}    readinessProbe:\n{ready}"),
        );
        !find(&reports(&text, None, None), "liveness-equals-readiness").is_empty()
    };
    let get =
        |path: &str, extra: &str| format!("      httpGet: {{path: {path}, port: 8080}}\n{extra}");
    // The timing does not matter: kube-score compares the handler and its endpoint only.
    assert!(probes(
        &get("/h", ""),
        &get("/h", "      initialDelaySeconds: 20\n")
    ));
    assert!(probes(
        &get("/h", "      failureThreshold: 5\n"),
        &get("/h", "      periodSeconds: 3\n")
    ));
    assert!(!probes(&get("/live", ""), &get("/ready", "")));
    let tcp = |port: u16| format!("      tcpSocket: {{port: {port}}}\n");
    assert!(probes(&tcp(8080), &tcp(8080)));
    assert!(!probes(&tcp(8080), &get("/h", "")));
    let exec = |cmd: &str| format!("      exec: {{command: [{cmd}]}}\n");
    assert!(probes(&exec("check, live"), &exec("check, live")));
    assert!(!probes(&exec("check, live"), &exec("check, ready")));
}

#[test]
fn a_port_declared_for_udp_does_not_expose_a_probe_port() {
    let text = |protocol: &str| {
        pod(
            false,
            &format!("    ports: [{{containerPort: 53{protocol}}}]\n    livenessProbe:\n      tcpSocket: {{port: 53}}\n"),
        )
    };
    for (protocol, flagged) in [
        ("", false),
        (", protocol: TCP", false),
        (", protocol: UDP", true),
        (", protocol: SCTP", true),
    ] {
        let r = reports(&text(protocol), None, None);
        let found = find(&r, "probe-port-not-exposed");
        assert_eq!(!found.is_empty(), flagged, "{protocol}");
        if flagged {
            assert!(
                found[0].0.message.contains("declares no TCP ports"),
                "{}",
                found[0].0.message
            );
        }
    }
}
