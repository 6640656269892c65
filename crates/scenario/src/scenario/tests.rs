//! The scenario loader's tests: fields, pod, apps and endpoints, expectations, overrides, manifest
//! references and manifest runs.

use probesim_core::{AppSpec, Gate};

use super::manifest_ref::*;
use super::*;
use crate::argument::AppFlag;
use crate::expect::{CountRange, EventFilter, Expectation, StateChecks};

const POD: &str = "\
pod:
  apiVersion: v1
  kind: Pod
  metadata: {name: kubia}
  spec:
    containers:
    - name: kubia
      image: luksa/kubia
      ports: [{name: http, containerPort: 8080}]
      livenessProbe:
        httpGet: {port: 8080}
      readinessProbe:
        httpGet: {port: http, path: /}
";

fn load(text: &str) -> Result<Scenario, ScenarioError> {
    Scenario::from_str(text, "scenarios/liveness/kubia.yaml")
}

/// The error lines without the file name.
fn errors(text: &str) -> Vec<String> {
    match load(text) {
        Ok(_) => panic!("loaded:\n{text}"),
        Err(e) => e
            .to_string()
            .lines()
            .map(|l| {
                l.trim_start_matches("scenarios/liveness/kubia.yaml:")
                    .to_owned()
            })
            .collect(),
    }
}

fn with_pod(rest: &str) -> String {
    format!("duration: 10m\n{POD}{rest}")
}

#[test]
fn defaults() {
    let s = load(&with_pod("")).unwrap();
    assert_eq!(s.name, "kubia");
    assert_eq!(s.description, None);
    assert_eq!(s.profile.minor(), probesim_core::profile::NEWEST_MINOR);
    assert_eq!(s.seed, 0);
    assert_eq!(s.duration, Some(SimTime::from_secs(600)));
    assert_eq!(s.kubelet, KubeletConfig::default());
    assert!(s.bindings.is_empty() && s.expect.is_empty());
    assert_eq!(s.pod.containers[0].app, AppSpec::default());
    for stdin in ["-", "<stdin>"] {
        let s = Scenario::from_str(&with_pod(""), stdin).unwrap();
        assert_eq!(s.name, "kubia", "standard input takes the pod's name");
    }
}

#[test]
fn scenario_fields_are_read() {
    let s = load(&format!(
            "name: custom\ndescription: a test\nkubernetes: 1.20\nseed: 18446744073709551615\nduration: 90\n\
             featureGates: {{ExecProbeTimeout: false}}\n\
             kubelet: {{startedAgo: 5s, plegPeriod: 500ms, probeSyncDelay: 0.25, resync: 1m, backoffRequeue: 20s, jitter: true, maxContainerRestartPeriod: 30s}}\n{POD}"
        ))
        .unwrap();
    assert_eq!(
        (s.name.as_str(), s.description.as_deref()),
        ("custom", Some("a test"))
    );
    assert_eq!(s.profile.minor(), 20);
    assert!(!s.profile.gate(Gate::ExecProbeTimeout));
    assert_eq!(s.seed, u64::MAX);
    assert_eq!(s.duration, Some(SimTime::from_secs(90)));
    assert_eq!(
        s.kubelet,
        KubeletConfig {
            started_ago: SimDuration::from_secs(5),
            pleg_period: SimDuration::from_millis(500),
            probe_sync_delay: SimDuration::from_millis(250),
            resync: SimDuration::from_secs(60),
            backoff_requeue: SimDuration::from_secs(20),
            jitter: true,
            max_container_restart_period: Some(SimDuration::from_secs(30)),
        }
    );
}

#[test]
fn scenario_level_errors_are_collected_with_positions() {
    let text = format!(
            "durations: 10m\nkubernetes: \"1.18\"\nseed: -1\nkubelet:\n  resynk: 1m\n  plegPeriod: 0s\n  maxContainerRestartPeriod: 10m\n  jitter: yes\nfeatureGates:\n  ExecProbeTimeout: false\n  ReduceDefaultCrashLoopBackOffDecai: true\n{POD}"
        );
    assert_eq!(
            errors(&text),
            [
                "1:1: unknown field \"durations\", did you mean \"duration\"?",
                "2:13: kubernetes: unsupported Kubernetes version \"1.18\": probesim models 1.19 to 1.37",
                "10:3: featureGates.ExecProbeTimeout: feature gate ExecProbeTimeout is locked to true in Kubernetes 1.37",
                "11:3: featureGates.ReduceDefaultCrashLoopBackOffDecai: unknown feature gate \"ReduceDefaultCrashLoopBackOffDecai\", did you mean \"ReduceDefaultCrashLoopBackOffDecay\"?",
                "3:7: seed: expected an integer from 0 to 18446744073709551615, found -1",
                "5:3: kubelet: unknown field \"resynk\", did you mean \"resync\"?",
                "6:15: kubelet.plegPeriod: must be greater than 0",
                "8:11: kubelet.jitter: expected a boolean (true or false), found the string \"yes\"",
                "7:30: kubelet.maxContainerRestartPeriod: must be between 1s and 300s",
            ]
        );
}

#[test]
fn durations_are_go_strings_or_seconds() {
    for (text, ms) in [
        ("90", 90_000),
        ("1.5", 1_500),
        ("1m30s", 90_000),
        ("\"2h\"", 7_200_000),
        ("0", 0),
        ("1e3", 1_000_000),
        ("1.5E2", 150_000),
        ("2e-3", 2),
    ] {
        let s = load(&with_pod("").replace("duration: 10m", &format!("duration: {text}"))).unwrap();
        assert_eq!(s.duration, Some(SimTime::from_millis(ms)), "{text}");
    }
    assert_eq!(
        errors(&with_pod("").replace("duration: 10m", "duration: 10x")),
        ["1:11: duration: invalid duration \"10x\": unknown unit \"x\" (use ms, s, m or h)"]
    );
    assert_eq!(
        errors(&with_pod("").replace("duration: 10m", "duration: 99999999999999999999h")),
        ["1:11: duration: duration too large: \"99999999999999999999h\""]
    );
    assert_eq!(
            errors(&with_pod("").replace("duration: 10m", "duration: [1]")),
            ["1:11: duration: expected a duration like 10s, 1m30s or a number of seconds, found a sequence"]
        );
}

#[test]
fn pod_errors_use_apiserver_paths_and_come_with_scenario_errors() {
    let text = with_pod("bogus: 1\n").replace(
        "httpGet: {port: 8080}",
        "httpGet: {port: 8080}\n        successThreshold: 2",
    );
    assert_eq!(
        errors(&text),
        [
            "16:1: unknown field \"bogus\"",
            "13:27: spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
        ]
    );
    assert_eq!(
            errors("duration: 1m\n"),
            ["1:1: pod: missing field: the manifest of the pod to simulate (a Pod, or a workload such as a Deployment), or `manifest:` and the file that holds it"]
        );
    // An empty file (or one of comments only) has no position to point at; an explicit
    // null document has one.
    for text in ["", "# nothing yet\n\n---\n"] {
        assert_eq!(
                load(text).unwrap_err().to_string(),
                "scenarios/liveness/kubia.yaml: empty scenario: expected a mapping with at least `pod` and `duration`"
            );
    }
    assert_eq!(
        errors("# a comment\n~\n"),
        ["2:1: empty scenario: expected a mapping with at least `pod` and `duration`"]
    );
    assert_eq!(
        errors(&with_pod("name: \"\"\n")),
        ["15:7: name: must not be empty (leave `name` out to use the file name)"]
    );
    assert_eq!(
            errors("duration: 1m\npod: kubia.yaml\n"),
            ["2:6: pod: expected a Pod or workload manifest (a mapping), found the string \"kubia.yaml\"; to read it from a file, write `manifest: kubia.yaml`"]
        );
}

#[test]
fn apps_set_pull_exit_and_sigterm() {
    let s = load(&with_pod(
        "apps:\n  kubia:\n    pull: 2s\n    exit: \"1 after 30s\"\n    sigterm: ignore\n",
    ))
    .unwrap();
    let app = s.pod.containers[0].app;
    assert_eq!(app.pull, SimDuration::from_secs(2));
    assert_eq!(
        app.exit,
        Some(probesim_core::SelfExit {
            code: 1,
            after: SimDuration::from_secs(30)
        })
    );
    assert_eq!(app.sigterm, probesim_core::Sigterm::Ignore);
}

#[test]
fn apps_errors_point_into_the_scripts() {
    let text = with_pod(
            "apps:\n  kubi:\n    pull: 1s\n  kubia:\n    exit: \"1 afterr 2s\"\n    sigterm: exit aftr 3s\n    probes:\n      liveness: \"5x200 then refsued\"\n      livenes: ok\n",
        );
    let e = errors(&text);
    assert_eq!(
        e[0],
        "16:3: apps.kubi: no container named \"kubi\" in the pod, did you mean \"kubia\"?"
    );
    assert!(e[1].starts_with("19:14: apps.kubia.exit: "), "{}", e[1]);
    assert!(e[2].starts_with("20:19: apps.kubia.sigterm: "), "{}", e[2]);
    assert_eq!(
        e[3],
        "23:7: apps.kubia.probes: unknown field \"livenes\", did you mean \"liveness\"?"
    );
    assert_eq!(
        e[4],
        "22:29: apps.kubia.probes.liveness: unknown outcome \"refsued\", did you mean \"refused\"?"
    );
    assert_eq!(e.len(), 5, "{e:#?}");
}

#[test]
fn scripts_must_fit_the_probe_handler() {
    let e = errors(&with_pod(
        "apps:\n  kubia:\n    probes:\n      liveness: 200 then exit 1\n",
    ));
    assert_eq!(e.len(), 1);
    assert!(
        e[0].starts_with(
            "18:26: apps.kubia.probes.liveness: outcome \"exit 1\" cannot answer an httpGet probe"
        ),
        "{}",
        e[0]
    );
    let e = errors(&with_pod(
        "apps:\n  kubia:\n    endpoints:\n      \"http :8080/\": serving\n",
    ));
    assert!(
            e[0].starts_with("18:22: apps.kubia.endpoints.\"http :8080/\": outcome \"serving\" cannot answer an httpGet probe"),
            "{}",
            e[0]
        );
}

#[test]
fn an_endpoint_is_shared_by_the_probes_that_target_it() {
    // Liveness (port 8080) and readiness (named port http → 8080, path /) hit one endpoint.
    let s = load(&with_pod(
        "apps:\n  kubia:\n    endpoints:\n      \"http :8080/\": 5x200 then 500\n",
    ))
    .unwrap();
    assert_eq!(s.bindings.len(), 1);
    assert_eq!(
        s.bindings[0].probes,
        [ProbeKind::Readiness, ProbeKind::Liveness]
    );
    assert_eq!(s.bindings[0].container, 0);
    assert_eq!(s.bindings[0].origin, "apps.kubia.endpoints.\"http :8080/\"");
    assert_eq!(s.bindings[0].script.to_string(), "5x200 then 500");
    // A probes.<type> script takes that probe out of the endpoint.
    let s = load(&with_pod(
            "apps:\n  kubia:\n    probes: {liveness: fail}\n    endpoints:\n      \"http 10.0.0.5:http\": ok\n",
        ))
        .unwrap();
    assert_eq!(s.bindings.len(), 2);
    assert_eq!(s.bindings[0].probes, [ProbeKind::Liveness]);
    assert_eq!(s.bindings[1].probes, [ProbeKind::Readiness]);
    let _ = s.simulation();
}

#[test]
fn endpoint_keys_are_normalised() {
    let pod = |probe: &str| {
        format!(
                "duration: 1m\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {{name: p}}\n  status: {{podIP: 10.1.1.1}}\n  spec:\n    containers:\n    - name: c\n      image: i\n      env: [{{name: F, value: /tmp/ok}}]\n      ports: [{{name: grpc, containerPort: 9090}}]\n      livenessProbe: {probe}\n"
            )
    };
    for (probe, key) in [
        ("{httpGet: {port: 8080}}", "http :8080"),
        (
            "{httpGet: {port: 8080, path: /healthz?x=1}}",
            "http :8080/healthz?x=1",
        ),
        (
            "{httpGet: {port: 8080, path: healthz}}",
            "http :8080/healthz",
        ),
        (
            "{httpGet: {port: 8443, scheme: HTTPS, host: Example.COM}}",
            "https example.com:8443/",
        ),
        ("{httpGet: {port: 80, host: 10.1.1.1}}", "http :80/"),
        ("{httpGet: {port: 80}}", "http 10.1.1.1:80/"),
        ("{httpGet: {port: 80, host: \"::1\"}}", "http [::1]:80/"),
        ("{tcpSocket: {port: grpc}}", "tcp :9090"),
        ("{tcpSocket: {port: 9090}}", "tcp :grpc"),
        ("{tcpSocket: {port: metrics}}", "tcp :metrics"),
        ("{grpc: {port: 9090}}", "grpc :9090"),
        (
            "{grpc: {port: 9090, service: liveness}}",
            "grpc :9090/liveness",
        ),
        ("{exec: {command: [cat, /tmp/ok]}}", "exec   cat  /tmp/ok"),
        ("{exec: {command: [cat, \"$(F)\"]}}", "exec cat /tmp/ok"),
        ("{exec: {command: [cat, \"$(F)\"]}}", "exec cat $(F)"),
        (
            "{exec: {command: [sh, -c, \"cat /tmp/ok\"]}}",
            "exec sh -c cat /tmp/ok",
        ),
    ] {
        let text = format!(
            "{}apps:\n  c:\n    endpoints:\n      \"{key}\": error\n",
            pod(probe)
        );
        match Scenario::from_str(&text, "x.yaml") {
            Ok(s) => assert_eq!(s.bindings.len(), 1, "{key}"),
            Err(e) => panic!("{probe} / {key}: {e}"),
        }
    }
    for (probe, key) in [
        ("{httpGet: {port: 8080}}", "http :8081/"),
        ("{httpGet: {port: 8080}}", "https :8080/"),
        ("{httpGet: {port: 8080, path: /a}}", "http :8080/b"),
        ("{httpGet: {port: 8080}}", "tcp :8080"),
        ("{grpc: {port: 9090, service: a}}", "grpc :9090"),
        ("{httpGet: {port: 80, host: other}}", "http :80/"),
    ] {
        let text = format!(
            "{}apps:\n  c:\n    endpoints:\n      \"{key}\": error\n",
            pod(probe)
        );
        let e = Scenario::from_str(&text, "x.yaml").unwrap_err().to_string();
        assert!(
            e.contains("no probe of container \"c\" targets this endpoint"),
            "{key}: {e}"
        );
    }
}

#[test]
fn unused_duplicate_and_invalid_endpoints_are_errors() {
    let e = errors(&with_pod(
            "apps:\n  kubia:\n    endpoints:\n      \"tcp :9090\": open\n      \"http :8080/\": ok\n      \"http :http\": ok\n      \"ftp :21\": ok\n      \"http :99999/\": ok\n",
        ));
    assert_eq!(
            e,
            [
                "21:7: apps.kubia.endpoints.\"ftp :21\": invalid endpoint: expected \"http[s] [HOST]:PORT[PATH]\", \"tcp [HOST]:PORT\", \"grpc :PORT[/SERVICE]\" or \"exec COMMAND…\"",
                "22:7: apps.kubia.endpoints.\"http :99999/\": invalid endpoint: port 99999 is not between 1 and 65535",
                "18:7: apps.kubia.endpoints.\"tcp :9090\": no probe of container \"kubia\" targets this endpoint (its probes target \"http :8080/\")",
                "20:7: apps.kubia.endpoints.\"http :http\": the same endpoint as \"http :8080/\"",
            ]
        );
    let e = errors(&with_pod("apps:\n  kubia:\n    probes: {startup: ok}\n"));
    assert_eq!(
        e,
        ["17:14: apps.kubia.probes.startup: container \"kubia\" has no startupProbe"]
    );
}

#[test]
fn json_scenarios_load() {
    let text = r#"{
  "duration": "1m",
  "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "kubia"},
          "spec": {"containers": [{"name": "kubia", "image": "luksa/kubia",
                                   "livenessProbe": {"tcpSocket": {"port": 8080}}}]}},
  "apps": {"kubia": {"endpoints": {"tcp :8080": "refused for 20s then open"}}},
  "expect": [{"at": 30, "container": "kubia", "restartCount": {"min": 0, "max": 1}}]
}"#;
    let s = Scenario::from_str(text, "kubia.json").unwrap();
    assert_eq!(s.name, "kubia");
    assert_eq!(s.bindings.len(), 1);
    assert_eq!(s.expect.len(), 1);
    let e = Scenario::from_str(
        &text.replace("\"livenessProbe\"", "\"livenesProbe\""),
        "kubia.json",
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
            e.lines().next().unwrap(),
            "kubia.json:5:36: spec.containers[0]: unknown field \"livenesProbe\", did you mean \"livenessProbe\"?"
        );
}

#[test]
fn expectations_are_read() {
    let s = load(&with_pod(
            "expect:\n\
             - at: 30m\n  container: kubia\n  restartCount: 9\n  ready: false\n  state: waiting\n  reason: CrashLoopBackOff\n  lastExitCode: 137\n\
             - at: 2m\n  phase: Running\n  podReady: true\n\
             - events: {reason: BackOff, message: kubia, type: Warning, container: kubia}\n  between: [0, 30m]\n  count: {min: 1, max: 3}\n\
             - timeline: {kind: probe, probe: liveness, outcome: failure}\n  count: 3\n\
             - events: {reason: Killing}\n",
        ))
        .unwrap();
    assert_eq!(s.expect.len(), 5);
    assert_eq!(s.expect[0].line, Some(16));
    assert_eq!(
        s.expect[0].expectation,
        Expectation::At {
            at: SimTime::from_secs(1800),
            container: Some("kubia".into()),
            checks: StateChecks {
                restart_count: Some(CountRange::exactly(9)),
                ready: Some(false),
                state: Some("waiting".into()),
                reason: Some("CrashLoopBackOff".into()),
                last_exit_code: Some(137),
                ..StateChecks::default()
            }
        }
    );
    assert_eq!(
        s.expect[2].expectation,
        Expectation::Count {
            filter: EventFilter {
                kind: "event".into(),
                reason: Some("BackOff".into()),
                message: Some("kubia".into()),
                event_type: Some("Warning".into()),
                container: Some("kubia".into()),
                ..EventFilter::default()
            },
            between: (SimTime::ZERO, SimTime::from_secs(1800)),
            count: CountRange {
                min: Some(1),
                max: Some(3)
            },
        }
    );
    assert_eq!(
        s.expect[3].expectation,
        Expectation::Count {
            filter: EventFilter {
                kind: "probe".into(),
                probe: Some("liveness".into()),
                outcome: Some("failure".into()),
                ..EventFilter::default()
            },
            between: (SimTime::ZERO, SimTime::MAX),
            count: CountRange::exactly(3),
        }
    );
    assert!(matches!(
        &s.expect[4].expectation,
        Expectation::Count {
            count: CountRange {
                min: Some(1),
                max: None
            },
            ..
        }
    ));
}

#[test]
fn expectation_errors() {
    let e = errors(&with_pod(
        "expect:\n\
             - at: 1m\n  restartCount: 1\n\
             - at: 1m\n  container: kubai\n  state: crashing\n\
             - events: {reason: BackOff}\n  between: [5m, 1m]\n  count: {min: 3, max: 1}\n\
             - timeline: {probe: liveness}\n\
             - at: 1m\n  events: {reason: X}\n\
             - count: 1\n\
             - at: 1m\n",
    ));
    assert_eq!(
            e,
            [
                "17:3: expect[0].restartCount: a container check needs `container`",
                "19:14: expect[1].container: no container named \"kubai\" in the pod, did you mean \"kubia\"?",
                "20:10: expect[1].state: unknown value \"crashing\" (expected one of \"running\", \"waiting\", \"terminated\")",
                "22:17: expect[2].between[1]: the window ends (60s) before it begins (300s)",
                "23:24: expect[2].count.max: max 1 is below min 3",
                "24:13: expect[3].timeline.kind: missing field: the timeline event kind to count (probe, result, kill, exit, start, …)",
                "25:3: expect[4]: `at` and `events` cannot be combined: write separate expectations",
                "27:3: expect[5]: expected `at` (state checks), `events` or `timeline`",
                "28:3: expect[6]: nothing to check: add restartCount, ready, started, state, reason, exitCode, lastExitCode, phase or podReady",
            ]
        );
}

#[test]
fn overrides_replace_the_files_values() {
    let text = with_pod("featureGates: {ReduceDefaultCrashLoopBackOffDecay: true}\n")
        .replace("duration: 10m\n", "");
    let mut s = load(&text).unwrap();
    assert_eq!(s.duration, None);
    let e = s.apply(&Overrides::default()).unwrap_err();
    assert_eq!(
            e.to_string(),
            "scenarios/liveness/kubia.yaml: duration: the scenario sets no duration; add `duration:` or pass --for"
        );
    s.apply(&Overrides {
        duration: Some(SimTime::from_secs(5)),
        seed: Some(7),
        kubernetes: Some("1.35".into()),
    })
    .unwrap();
    assert_eq!(
        (s.duration, s.seed, s.profile.minor()),
        (Some(SimTime::from_secs(5)), 7, 35)
    );
    assert!(s.profile.gate(Gate::ReduceDefaultCrashLoopBackOffDecay));
    let e = s
        .apply(&Overrides {
            kubernetes: Some("1.30".into()),
            ..Overrides::default()
        })
        .unwrap_err();
    assert_eq!(
            e.to_string(),
            "scenarios/liveness/kubia.yaml:14:16: featureGates.ReduceDefaultCrashLoopBackOffDecay: feature gate ReduceDefaultCrashLoopBackOffDecay does not exist in Kubernetes 1.30"
        );
    let e = s
        .apply(&Overrides {
            kubernetes: Some("2.0".into()),
            ..Overrides::default()
        })
        .unwrap_err();
    assert!(e.to_string().ends_with("kubernetes: unsupported Kubernetes version \"2.0\": probesim models 1.19 to 1.37 (given with --kubernetes)"));
}

#[test]
fn hostile_yaml_is_an_error_not_a_hang() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    let e = Scenario::from_str(&text, "bomb.yaml").unwrap_err();
    assert!(e.to_string().contains("document too large"), "{e}");
    let deep = format!("pod: {}{}", "{a: ".repeat(1000), "}".repeat(1000));
    assert!(Scenario::from_str(&deep, "deep.yaml").is_err());
}

#[test]
fn script_errors_underline_the_offending_words() {
    let caret = |rest: &str| {
        let text = with_pod(rest);
        let rendered = load(&text).unwrap_err().render(&text);
        rendered.lines().nth(4).unwrap_or_default().to_owned()
    };
    // In a quoted script: the word, not the rest of the scalar and its closing quote.
    assert_eq!(
        caret("apps:\n  kubia:\n    probes:\n      liveness: \"5x200 thne 500\"\n"),
        "   |                        ^^^^"
    );
    assert_eq!(
        caret("apps:\n  kubia:\n    probes:\n      liveness: ok for 2d then fail\n"),
        "   |                        ^^"
    );
    // In a literal block: on the line and column where the word is written.
    let text = with_pod(
            "apps:\n  kubia:\n    probes:\n      liveness: |\n        5x200\n        then 500 forever\n",
        );
    let e = load(&text).unwrap_err();
    assert_eq!(e.items[0].mark, Some(Mark::new(20, 18)));
    assert_eq!(e.items[0].width, Some(7));
    // A folded block does not show the text verbatim: the scalar's start.
    let text = with_pod(
            "apps:\n  kubia:\n    probes:\n      liveness: >\n        5x200\n        then 500 forever\n",
        );
    let e = load(&text).unwrap_err();
    assert_eq!(
        (e.items[0].mark, e.items[0].width),
        (Some(Mark::new(19, 9)), None)
    );
}

#[test]
fn render_shows_the_source_line() {
    let text = with_pod("").replace(
        "httpGet: {port: 8080}",
        "httpGet: {port: 8080}\n        periodSeconds: -1",
    );
    let e = load(&text).unwrap_err();
    assert_eq!(
            e.render(&text),
            "error: spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0\n\
             \x20 --> scenarios/liveness/kubia.yaml:13:24\n\
             \x20  |\n\
             13 |         periodSeconds: -1\n\
             \x20  |                        ^^\n"
        );
}

/// Manifest files served from memory.
struct Files(Vec<(&'static str, String)>);

impl ManifestReader for Files {
    fn read(&mut self, path: &str) -> Result<String, String> {
        self.0
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| "no such file or directory".to_owned())
    }
}

const DEPLOYMENT: &str = "\
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{name: http, containerPort: 8080}]
        livenessProbe: {httpGet: {port: http, path: /healthz}}
        readinessProbe: {httpGet: {port: http, path: /ready}, periodSeconds: 5}
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: m, image: m:1, livenessProbe: {exec: {command: [\"true\"]}}}]
";

#[test]
fn references_are_resolved_against_the_scenario_and_read_by_the_caller() {
    assert_eq!(
        resolve_reference("scenarios/x/a.yaml", "../../examples/d.yaml"),
        "examples/d.yaml"
    );
    assert_eq!(resolve_reference("a.yaml", "./d.yaml"), "d.yaml");
    assert_eq!(resolve_reference("<stdin>", "m/d.yaml"), "m/d.yaml");
    assert_eq!(resolve_reference("s/a.yaml", "/abs/d.yaml"), "/abs/d.yaml");
    assert_eq!(normalize("../a/./b/../c"), "../a/c");
    let text = "duration: 2m\nmanifest: ../manifests/app.yaml\nselect: deploy/web\napps:\n  web:\n    endpoints:\n      \"http :8080/healthz\": \"500\"\n";
    let mut files = Files(vec![(
        "scenarios/manifests/app.yaml",
        DEPLOYMENT.to_owned(),
    )]);
    let s = Scenario::from_str_with(text, "scenarios/web/a.yaml", &mut files).unwrap();
    assert_eq!(s.name, "a");
    assert!(s.pod.name.starts_with("web-"), "{}", s.pod.name);
    assert_eq!(s.bindings.len(), 1);
    assert!(s.services.is_empty());
    assert_eq!(
            s.notes,
            ["scenarios/manifests/app.yaml: skipped 1 object without a pod to simulate: ConfigMap/cfg (line 1)"]
        );
    // Errors in the referenced file point into it, errors in the scenario into the scenario.
    let bad = DEPLOYMENT.replace("periodSeconds: 5", "periodSeconds: -5");
    let mut files = Files(vec![("scenarios/manifests/app.yaml", bad.clone())]);
    let e = Scenario::from_str_with(
        &text.replace("healthz", "helthz"),
        "scenarios/web/a.yaml",
        &mut files,
    )
    .unwrap_err();
    assert_eq!(
            e.to_string(),
            "scenarios/manifests/app.yaml:17:78: spec.template.spec.containers[0].readinessProbe.periodSeconds: Invalid value: -5: must be greater than or equal to 0"
        );
    let rendered = e.render(text);
    assert!(
        rendered.contains("--> scenarios/manifests/app.yaml:17:78\n"),
        "{rendered}"
    );
    assert!(rendered.contains("periodSeconds: -5}"), "{rendered}");
    // Without a reader, a reference is an error.
    let e = Scenario::from_str(text, "a.yaml").unwrap_err();
    assert!(
        e.to_string().contains("manifest files cannot be read here"),
        "{e}"
    );
}

fn run(apps: &[(AppFlag, &str)], select: Option<&str>) -> Result<ManifestScenario, ScenarioError> {
    let run = ManifestRun {
        select: select.map(str::to_owned),
        apps: apps
            .iter()
            .map(|(flag, value)| AppArg {
                flag: *flag,
                value: (*value).to_owned(),
            })
            .collect(),
        kubernetes: None,
    };
    Scenario::from_manifest(DEPLOYMENT, "app.yaml", &run)
}

#[test]
fn emitted_scenarios_replay_to_the_same_timeline() {
    use probesim_core::VecSink;
    let mut built = run(
        &[
            (
                AppFlag::App,
                "web: liveness=refused for 30s then ok; http :8080/ready=5x200 then 503",
            ),
            (AppFlag::Sigterm, "web: exit 0 after 3s"),
            (AppFlag::Pull, "web: 2s"),
            (AppFlag::Exit, "web: 1 after 5m"),
        ],
        Some("deployment/web"),
    )
    .unwrap();
    built
        .scenario
        .apply(&Overrides {
            duration: Some(SimTime::from_secs(240)),
            seed: Some(7),
            kubernetes: Some("1.30".into()),
        })
        .unwrap();
    let yaml = built.to_yaml();
    let again = Scenario::from_str(&yaml, "elsewhere/saved.yaml")
        .unwrap_or_else(|e| panic!("{}\n{yaml}", e.render(&yaml)));
    // Every event and the final status, the same for both (the byte-level replay of each
    // report format is tests/manifests.rs's).
    let timeline = |s: &Scenario| {
        let end = s.duration.unwrap();
        let mut sim = s.simulation();
        let mut sink = VecSink::default();
        sim.run_until(end, &mut sink).unwrap();
        format!("{:?}\n{:?}", sink.records, sim.status())
    };
    assert_eq!(timeline(&built.scenario), timeline(&again));
    assert!(yaml.contains("seed: 7\nduration: 4m\n"), "{yaml}");
    assert!(yaml.contains("kubernetes: \"1.30\"\n"), "{yaml}");
}

#[test]
fn manifest_runs_report_problems_in_their_arguments() {
    let e = run(
        &[(AppFlag::App, "web: readiness=5x200 thne 503")],
        Some("web"),
    )
    .unwrap_err();
    assert_eq!(e.sources[0].name, "--app");
    assert_eq!(
        e.render(DEPLOYMENT),
        "error: apps.web.probes.readiness: unknown word \"thne\", did you mean \"then\"?\n \
             --> --app\n  |\n  | web: readiness=5x200 thne 503\n  |                      ^^^^\n"
    );
    let e = run(&[], None).unwrap_err();
    assert_eq!(
            e.to_string(),
            "app.yaml: 2 workloads in the manifest file have probes: Deployment/web (line 5), Job/migrate (line 19); choose one with --select KIND/NAME"
        );
    let e = run(&[], Some("deploy/wbe")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "app.yaml: --select: no workload matches \"deploy/wbe\"; did you mean \"Deployment/web\"?"
    );
    let built = run(&[], Some("job/migrate")).unwrap();
    assert_eq!(built.scenario.name, "migrate");
    assert!(built.scenario.services.is_empty());
    assert_eq!(built.scenario.duration, Some(SimTime::from_secs(600)));
}

#[test]
fn services_that_select_the_pod_are_kept() {
    let text = format!(
            "{DEPLOYMENT}---\napiVersion: v1\nkind: Service\nmetadata: {{name: web}}\nspec: {{selector: {{app: web}}}}\n---\napiVersion: v1\nkind: Service\nmetadata: {{name: other}}\nspec: {{selector: {{app: other}}}}\n"
        );
    let run = ManifestRun {
        select: Some("deploy/web".into()),
        apps: Vec::new(),
        kubernetes: None,
    };
    let built = Scenario::from_manifest(&text, "app.yaml", &run).unwrap();
    let names: Vec<String> = built
        .scenario
        .services
        .iter()
        .map(|s| s.id.to_string())
        .collect();
    assert_eq!(names, ["Service/web"]);
    assert_eq!(
        built.scenario.notes.last().map(String::as_str),
        Some("app.yaml: Service/web selects the pods of Deployment/web")
    );
}
