//! Findings and figures on real public manifests (tests/public/, each file naming its source
//! repository, path and commit): kube-score's rule for equal probes, sidecars checked like
//! regular containers, suppressions by annotation, and the behaviour options of `run`.

use probesim_analysis::finding::Finding;
use probesim_analysis::report::WorkloadReport;
use probesim_analysis::subject::{load, LoadOptions};
use probesim_analysis::sweep::Sweep;
use probesim_scenario::argument::{AppArg, AppFlag};
use probesim_scenario::scenario::NoFiles;

const BOUTIQUE: &str = include_str!("../../../tests/public/online-boutique-frontend.yaml");
const NGINX: &str = include_str!("../../../tests/public/ingress-nginx-controller.yaml");
const ADAPTER: &str = include_str!("../../../tests/public/prometheus-adapter.yaml");
const ARGO: &str = include_str!("../../../tests/public/argo-cd-repo-server.yaml");
const ISTIO: &str = include_str!("../../../tests/public/istio-native-sidecar.yaml");

fn analyse(text: &str, apps: &[(AppFlag, &str)]) -> Result<Vec<WorkloadReport>, String> {
    let options = LoadOptions {
        apps: apps
            .iter()
            .map(|(flag, v)| AppArg {
                flag: *flag,
                value: (*v).to_owned(),
            })
            .collect(),
        ..LoadOptions::default()
    };
    let subjects = load(text, "public.yaml", &options, &mut NoFiles)?;
    Ok(subjects
        .into_iter()
        .map(|s| WorkloadReport::of(s, Sweep::new(2)).unwrap())
        .collect())
}

fn ids(r: &[WorkloadReport]) -> Vec<(&'static str, String, Option<usize>)> {
    r.iter()
        .flat_map(|w| &w.findings)
        .map(|f: &Finding| (f.rule.id, f.path.clone(), f.at.map(|a| a.0)))
        .collect()
}

/// The line (1-based) of the first line of `text` at or after line `from` that contains
/// `needle`: tests find the manifest's lines instead of hard-coding them.
fn line_of(text: &str, from: usize, needle: &str) -> usize {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .unwrap()
}

#[test]
fn equal_endpoints_are_flagged_whatever_the_timing_as_kube_score_does() {
    // ingress-nginx probes GET /healthz on 10254 for both, with failure thresholds 5 and 3:
    // kube-score's pod-probes-identical compares the handler and its endpoint, not the timing.
    let r = analyse(NGINX, &[]).unwrap();
    let live = line_of(NGINX, 1, "livenessProbe:");
    let equal: Vec<_> = ids(&r)
        .into_iter()
        .filter(|(id, _, _)| *id == "liveness-equals-readiness")
        .collect();
    assert_eq!(
        equal,
        [(
            "liveness-equals-readiness",
            "spec.template.spec.containers[0].livenessProbe.httpGet".to_owned(),
            Some(line_of(NGINX, live, "path: /healthz"))
        )]
    );
    let f = &r[0]
        .findings
        .iter()
        .find(|f| f.rule.id == "liveness-equals-readiness");
    let message = &f.unwrap().message;
    assert!(
        message.contains("(httpGet /healthz on port 10254)"),
        "{message}"
    );
    // Online Boutique's frontend: the same path and port, told apart only by a header.
    let r = analyse(BOUTIQUE, &[]).unwrap();
    assert!(ids(&r)
        .iter()
        .any(|(id, _, _)| *id == "liveness-equals-readiness"));
    // argo-cd's repo server: /healthz?full=true against /healthz on the same port differ.
    let r = analyse(ARGO, &[]).unwrap();
    assert!(!ids(&r)
        .iter()
        .any(|(id, _, _)| *id == "liveness-equals-readiness"));
}

#[test]
fn the_port_findings_name_the_port_field() {
    let r = analyse(NGINX, &[]).unwrap();
    let ports: Vec<_> = ids(&r)
        .into_iter()
        .filter(|(id, _, _)| *id == "probe-port-not-exposed")
        .map(|(_, path, line)| (path, line))
        .collect();
    let live = line_of(NGINX, 1, "livenessProbe:");
    let ready = line_of(NGINX, 1, "readinessProbe:");
    let c = "spec.template.spec.containers[0]";
    let mut expected = vec![
        (
            format!("{c}.livenessProbe.httpGet.port"),
            Some(line_of(NGINX, live, "port: 10254")),
        ),
        (
            format!("{c}.readinessProbe.httpGet.port"),
            Some(line_of(NGINX, ready, "port: 10254")),
        ),
    ];
    let mut ports = ports;
    ports.sort();
    expected.sort();
    assert_eq!(ports, expected);
    // prometheus-adapter probes its named port `https`, which it declares: nothing to say.
    let r = analyse(ADAPTER, &[]).unwrap();
    assert_eq!(ids(&r), []);
}

#[test]
fn sidecars_get_the_findings_of_regular_containers() {
    // Istio's native sidecar injection: istio-proxy and other-sidecar are init containers with
    // restartPolicy: Always, probed on ports they do not declare, with no liveness probe.
    let r = analyse(ISTIO, &[]).unwrap();
    let found = ids(&r);
    let proxy = line_of(ISTIO, 1, "name: istio-proxy");
    let ready = line_of(ISTIO, proxy, "readinessProbe:");
    let startup = line_of(ISTIO, proxy, "startupProbe:");
    let i = "spec.initContainers";
    for expected in [
        (
            "probe-port-not-exposed",
            format!("{i}[1].readinessProbe.httpGet.port"),
            Some(line_of(ISTIO, ready, "port: 15021")),
        ),
        (
            "probe-port-not-exposed",
            format!("{i}[1].startupProbe.httpGet.port"),
            Some(line_of(ISTIO, startup, "port: 15021")),
        ),
        (
            "timeout-not-less-than-period",
            format!("{i}[1].startupProbe.timeoutSeconds"),
            Some(line_of(ISTIO, startup, "timeoutSeconds: 3")),
        ),
        (
            "probe-port-not-exposed",
            format!("{i}[2].readinessProbe.httpGet.port"),
            Some(line_of(ISTIO, 1, "port: 15020")),
        ),
    ] {
        assert!(found.contains(&expected), "{expected:?} not in {found:#?}");
    }
    let missing: Vec<&str> = r[0]
        .findings
        .iter()
        .filter(|f| f.rule.id == "liveness-missing")
        .map(|f| f.container.as_str())
        .collect();
    assert_eq!(missing, ["istio-proxy", "other-sidecar", "hello"]);
    // The init container istio-init has no probes and is not a sidecar: nothing about it.
    assert!(!found
        .iter()
        .any(|(_, p, _)| p.starts_with(&format!("{i}[0]"))));
}

/// `text` with `lines` inserted after the line where the first `after` ends.
fn insert_after(text: &str, after: &str, lines: &str) -> String {
    let at = text.find(after).unwrap() + after.len().saturating_sub(1);
    let end = at + text[at..].find('\n').unwrap() + 1;
    format!("{}{lines}{}", &text[..end], &text[end..])
}

#[test]
fn annotations_suppress_findings_on_the_workload_and_on_its_pod_template() {
    // kube-score's shape: a list of ids on the object's metadata (a Pod: its own).
    let text = insert_after(
        ISTIO,
        "  annotations:\n",
        "    probesim.io/ignore: liveness-missing, timeout-not-less-than-period\n",
    );
    let r = analyse(&text, &[]).unwrap();
    let before = analyse(ISTIO, &[]).unwrap();
    let hidden = ["liveness-missing", "timeout-not-less-than-period"];
    let kept: Vec<&str> = before[0]
        .findings
        .iter()
        .map(|f| f.rule.id)
        .filter(|id| !hidden.contains(id))
        .collect();
    assert_eq!(
        r[0].findings.iter().map(|f| f.rule.id).collect::<Vec<_>>(),
        kept
    );
    assert_eq!(r[0].suppressed.len(), 4);
    let line = line_of(&text, 1, "probesim.io/ignore");
    for (f, by) in &r[0].suppressed {
        assert!(hidden.contains(&f.rule.id));
        assert_eq!(*by, format!("annotation probesim.io/ignore at {line}:5"));
    }
    // kube-linter's shape: one annotation per id, on the pod template of a Deployment.
    let text = insert_after(
        NGINX,
        "  template:\n    metadata:\n",
        "      annotations:\n        ignore-check.probesim.io/liveness-equals-readiness: \"one endpoint by design\"\n",
    );
    let r = analyse(&text, &[]).unwrap();
    assert!(!ids(&r)
        .iter()
        .any(|(id, _, _)| *id == "liveness-equals-readiness"));
    assert!(ids(&r)
        .iter()
        .any(|(id, _, _)| *id == "probe-port-not-exposed"));
    assert_eq!(r[0].suppressed.len(), 1);
    // The same on the Deployment's own metadata.
    let text = NGINX.replacen(
        "kind: Deployment\nmetadata:\n",
        "kind: Deployment\nmetadata:\n  annotations:\n    probesim.io/ignore: probe-port-not-exposed\n",
        1,
    );
    let r = analyse(&text, &[]).unwrap();
    assert!(!ids(&r)
        .iter()
        .any(|(id, _, _)| *id == "probe-port-not-exposed"));
    assert_eq!(r[0].suppressed.len(), 2);
}

#[test]
fn an_unknown_id_in_an_annotation_is_an_error_at_its_line_and_column() {
    let text = insert_after(
        ISTIO,
        "  annotations:\n",
        "    probesim.io/ignore: liveness-missing,livenes-missing\n",
    );
    let line = line_of(&text, 1, "probesim.io/ignore");
    let e = analyse(&text, &[]).unwrap_err();
    assert!(e.contains("unknown finding id \"livenes-missing\""), "{e}");
    assert!(e.contains(&format!("public.yaml:{line}:25")), "{e}");
    assert!(e.contains("metadata.annotations"), "{e}");
    let text = insert_after(
        ISTIO,
        "  annotations:\n",
        "    ignore-check.probesim.io/no-such-check: \"why\"\n",
    );
    let e = analyse(&text, &[]).unwrap_err();
    assert!(e.contains("unknown finding id \"no-such-check\""), "{e}");
    assert!(e.contains(&format!("public.yaml:{line}:5")), "{e}");
}

#[test]
fn the_behaviour_options_of_run_reach_the_analysis() {
    // argo-cd's repo server waits for its init container copyutil, which without --exit
    // never finishes: the pod never becomes Ready.
    let r = analyse(ARGO, &[]).unwrap();
    let c = &r[0].containers[0];
    assert_eq!(c.readiness.to_ready.max.value, None);
    // With copyutil exiting 0 after 2s, the repo server starts 2s later; readiness
    // (initialDelaySeconds 5, period 10) then marks it Ready between 5s and 15s after its
    // own start, and the pod with it (R42).
    let r = analyse(ARGO, &[(AppFlag::Exit, "copyutil: 0 after 2s")]).unwrap();
    let c = &r[0].containers[0];
    let (lo, hi) = (
        c.readiness.to_ready.min.value.unwrap(),
        c.readiness.to_ready.max.value.unwrap(),
    );
    assert!(
        lo.as_millis() > 5_000 && hi.as_millis() <= 16_000,
        "{lo} {hi}"
    );
    // --app with a script that fails at first declares a start-up time: Online Boutique's
    // frontend given a 45s start is killed by its liveness probe (initialDelaySeconds 10,
    // period 10, threshold 3).
    let r = analyse(
        BOUTIQUE,
        &[(AppFlag::App, "server: liveness=refused for 45s then ok")],
    )
    .unwrap();
    let f = r[0]
        .findings
        .iter()
        .find(|f| f.rule.id == "startup-budget-below-expected")
        .unwrap();
    assert!(f.message.contains("needs 45s to start"), "{}", f.message);
    // --sigterm: ingress-nginx ignoring SIGTERM waits out its 300s grace period.
    let r = analyse(NGINX, &[(AppFlag::Sigterm, "controller: ignore")]).unwrap();
    let c = &r[0].containers[0];
    let wait = c
        .hang
        .exit
        .max
        .value
        .unwrap()
        .saturating_sub(c.hang.kill.max.value.unwrap());
    assert_eq!(wait.as_millis(), 300_000);
    assert!(r[0]
        .findings
        .iter()
        .any(|f| f.rule.id == "grace-dominates-recovery"));
}

#[test]
fn sarif_keeps_suppressed_results_with_their_suppression() {
    use probesim_analysis::report::sarif;

    let text = insert_after(
        NGINX,
        "  template:\n    metadata:\n",
        "      annotations:\n        ignore-check.probesim.io/liveness-equals-readiness: \"one endpoint by design\"\n",
    );
    let mut r = analyse(&text, &[]).unwrap();
    // --ignore, as the command line adds it.
    r[0].subject
        .ignore
        .push(("probe-port-not-exposed", "--ignore".to_owned()));
    let subject = r[0].subject.clone();
    let r = vec![WorkloadReport::of(subject, Sweep::new(2)).unwrap()];
    let log: serde_json::Value = serde_json::from_str(&sarif("0.1.0", &r)).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = results
        .iter()
        .map(|x| {
            (
                x["ruleId"].as_str().unwrap(),
                x["suppressions"][0]["kind"].as_str().unwrap_or("none"),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("liveness-equals-readiness", "inSource"),
            ("probe-port-not-exposed", "external"),
            ("probe-port-not-exposed", "external"),
        ]
    );
    // Each still points at its field.
    for x in results {
        let region = &x["locations"][0]["physicalLocation"]["region"];
        assert!(region["startLine"].as_u64().is_some(), "{x}");
    }
}
