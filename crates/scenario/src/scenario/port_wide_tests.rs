//! Port-wide endpoint keys (`:8080`, `http :8080`) and the notes for probes that fall back to
//! `ok` (docs/scenario-format.md#endpoint-keys).

use probesim_core::ProbeKind;

use super::tests::{errors, load, with_pod};
use super::Scenario;

/// A pod whose three probes dial port 8080 three ways.
fn three_ways(endpoints: &str) -> String {
    format!(
        "duration: 5m\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {{name: web}}\n  spec:\n    containers:\n    - name: web\n      image: nginx\n      ports: [{{name: http, containerPort: 8080}}]\n      startupProbe: {{tcpSocket: {{port: 8080}}}}\n      readinessProbe: {{httpGet: {{port: http, path: /ready}}}}\n      livenessProbe: {{httpGet: {{port: 8080, path: /healthz}}}}\napps:\n  web:\n    endpoints:\n{endpoints}"
    )
}

fn probes(s: &Scenario) -> Vec<(String, Vec<ProbeKind>)> {
    s.bindings
        .iter()
        .map(|b| (b.origin.clone(), b.probes.clone()))
        .collect()
}

#[test]
fn a_port_key_answers_every_probe_on_the_port() {
    let s = load(&three_ways("      \":8080\": refused for 90s then ok\n")).unwrap();
    assert_eq!(
        probes(&s),
        [(
            "apps.web.endpoints.\":8080\"".to_owned(),
            vec![
                ProbeKind::Startup,
                ProbeKind::Readiness,
                ProbeKind::Liveness
            ]
        )]
    );
    // A named port means the same port.
    let s = load(&three_ways("      \":http\": refused for 90s then ok\n")).unwrap();
    assert_eq!(s.bindings[0].probes.len(), 3);
    assert!(s.fallback_notes().is_empty());
}

#[test]
fn a_probe_takes_its_most_specific_endpoint() {
    let s = load(&three_ways(
        "      \":8080\": refused for 90s then ok\n      \"http :8080\": 503 for 10s then 200\n      \"http :8080/healthz\": ok\n",
    ))
    .unwrap();
    assert_eq!(
        probes(&s),
        [
            (
                "apps.web.endpoints.\":8080\"".to_owned(),
                vec![ProbeKind::Startup]
            ),
            (
                "apps.web.endpoints.\"http :8080\"".to_owned(),
                vec![ProbeKind::Readiness]
            ),
            (
                "apps.web.endpoints.\"http :8080/healthz\"".to_owned(),
                vec![ProbeKind::Liveness]
            ),
        ]
    );
    // `http :PORT` is HTTP only, whatever the path; HTTPS is another scheme.
    let s = load(&three_ways("      \"http :8080\": ok\n")).unwrap();
    assert_eq!(
        s.bindings[0].probes,
        [ProbeKind::Readiness, ProbeKind::Liveness]
    );
    let e = errors(&three_ways("      \"https :8080\": ok\n"));
    assert_eq!(e.len(), 1);
    assert!(
        e[0].contains("no probe of container \"web\" targets this endpoint"),
        "{e:?}"
    );
}

#[test]
fn a_port_key_that_every_probe_overrides_is_an_error() {
    let e = errors(&three_ways(
        "      \":8080\": ok\n      \"tcp :8080\": open\n      \"http :8080\": ok\n",
    ));
    assert_eq!(
        e,
        ["17:7: apps.web.endpoints.\":8080\": every probe of container \"web\" that this endpoint answers has a more specific script"]
    );
}

#[test]
fn a_port_script_must_fit_every_probe_it_answers() {
    // `open` answers the tcpSocket startup probe but not the httpGet ones.
    let e = errors(&three_ways("      \":8080\": open\n"));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with(
            "17:16: apps.web.endpoints.\":8080\": outcome \"open\" cannot answer an httpGet probe"
        ),
        "{e:?}"
    );
    let e = errors(&three_ways("      \":8080/healthz\": ok\n"));
    assert_eq!(
        e,
        ["17:7: apps.web.endpoints.\":8080/healthz\": invalid endpoint: unexpected \"/healthz\" after the port (\":PORT\" answers every probe on the port; name a path with \"http :8080/healthz\")"]
    );
}

#[test]
fn probes_without_a_script_get_a_note() {
    // The file states its release and exact timing (no assumed SIGTERM behaviour to note), so
    // the only notes are about the probes.
    let pinned = |rest: &str| format!("kubernetes: \"1.37\"\ntiming: exact\n{}", with_pod(rest));
    let s = load(&pinned(
        "apps:\n  kubia:\n    probes: {liveness: 5x200 then 500}\n",
    ))
    .unwrap();
    assert_eq!(
        s.notes,
        ["scenarios/liveness/kubia.yaml: container \"kubia\": its readinessProbe (http :8080/) has no script and answers ok to every request; give it one with apps.kubia.probes.readiness or apps.kubia.endpoints"]
    );
    let s = load(&pinned("")).unwrap();
    assert_eq!(s.notes.len(), 2);
    assert!(s.notes[1].contains("its livenessProbe (http :8080/)"));
    let s = load(&pinned("apps:\n  kubia:\n    endpoints: {\":8080\": ok}\n")).unwrap();
    assert!(s.notes.is_empty(), "{:?}", s.notes);
}
