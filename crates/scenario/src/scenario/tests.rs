//! What the loader's parts share in their tests (a pod, `load`, `errors`, a manifest reader in
//! memory), and the tests of `Scenario` itself: overrides, rendering errors, manifest runs and
//! `--emit-scenario`. Each part's own tests are at the end of its file.

use probesim_core::Gate;

use super::*;
use crate::argument::AppFlag;

pub(super) const POD: &str = "\
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

pub(super) fn load(text: &str) -> Result<Scenario, InputError> {
    Scenario::from_str(text, "scenarios/liveness/kubia.yaml")
}

/// The error lines without the file name.
pub(super) fn errors(text: &str) -> Vec<String> {
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

pub(super) fn with_pod(rest: &str) -> String {
    format!("duration: 10m\n{POD}{rest}")
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
        timing: None,
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
pub(super) struct Files(pub(super) Vec<(&'static str, String)>);

impl ManifestReader for Files {
    fn read(&mut self, path: &str) -> Result<String, String> {
        self.0
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| "no such file or directory".to_owned())
    }
}

pub(super) const DEPLOYMENT: &str = "\
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

fn run(apps: &[(AppFlag, &str)], select: Option<&str>) -> Result<ManifestScenario, InputError> {
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
            timing: None,
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
    // The manifest's notes come first, then the assumed SIGTERM behaviour, then the probes
    // left without a script.
    let notes = &built.scenario.notes;
    let service = notes
        .iter()
        .position(|n| n == "app.yaml: Service/web selects the pods of Deployment/web");
    let fallbacks = notes.iter().position(|n| n.contains("has no script"));
    assert_eq!(
        (service, fallbacks),
        (Some(notes.len() - 4), Some(notes.len() - 2)),
        "{notes:?}"
    );
}

#[test]
fn a_manifest_run_notes_a_probe_port_that_names_no_container_port() {
    // P39: the note names the file, line and field path, and the workload's own notes stay.
    let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {app: web}}\nspec:\n  containers:\n  - name: web\n    image: nginx\n    readinessProbe:\n      httpGet: {path: /, port: http}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}}\n";
    let built = Scenario::from_manifest(text, "app.yaml", &ManifestRun::default()).unwrap();
    assert_eq!(
        built.scenario.notes,
        [
            "app.yaml: Service/web selects the pods of Pod/web",
            "app.yaml:9: spec.containers[0].readinessProbe.httpGet.port: the port \"http\" matches no port of the container, so the kubelet errors at every attempt and the probe never acts (container \"web\" names no ports)",
        ]
    );
}

#[test]
fn a_file_without_a_release_gets_a_note_naming_the_one_used() {
    let release_notes = |s: &Scenario| -> Vec<String> {
        s.notes
            .iter()
            .filter(|n| n.contains("kubernetes:"))
            .cloned()
            .collect()
    };
    // No `kubernetes:`: one note, first, naming the newest release.
    let s = load(&with_pod("")).unwrap();
    assert_eq!(
        s.notes[0],
        "scenarios/liveness/kubia.yaml: no `kubernetes:` given, so this runs as Kubernetes 1.37, the newest release probesim models; write `kubernetes: \"1.37\"` to keep it there"
    );
    assert_eq!(release_notes(&s).len(), 1);
    assert_eq!(s.release_note(), Some(s.notes[0].as_str()));
    // Stated in the file: no note, whichever release.
    for version in ["1.37", "1.30"] {
        let s = load(&format!("kubernetes: \"{version}\"\n{}", with_pod(""))).unwrap();
        assert!(release_notes(&s).is_empty(), "{:?}", s.notes);
    }
    // Given on the command line, while reading or afterwards: no note either.
    let overrides = Overrides {
        kubernetes: Some("1.34".to_owned()),
        ..Overrides::default()
    };
    let s = Scenario::load(&with_pod(""), "scenarios/liveness/kubia.yaml", &overrides).unwrap();
    assert!(release_notes(&s).is_empty(), "{:?}", s.notes);
    let mut s = load(&with_pod("")).unwrap();
    s.apply(&overrides).unwrap();
    assert!(release_notes(&s).is_empty(), "{:?}", s.notes);
    assert_eq!(s.release_note(), None);
}
