//! The pod of a scenario: embedded under `pod:` or referenced by `manifest:` (with `select:`),
//! read through the caller's [`ManifestReader`](super::ManifestReader), and the fields the chosen
//! release drops or notes.

use std::borrow::Cow;

use probesim_core::{Gate, ProbeKind, Profile};

use probesim_kube::catalog::{self, SelectError};
use probesim_kube::decode::{self, Fields};
use probesim_kube::error::{Diagnostic, Source};
use probesim_kube::field_path::FieldPath;
use probesim_kube::manifest::PodManifest;
use probesim_kube::workload::WorkloadKind;
use probesim_kube::yaml::{Mark, Node, SourceId, Value};

use super::Loader;

/// Why the API server of `profile` dropped a field: `what` arrives later (with `gate`), or is
/// behind `gate`, which is off here.
pub(super) fn dropped_field(profile: &Profile, what: &str, gate: Gate) -> String {
    match profile.gate_arrives_in(gate) {
        Some(since) => format!(
            "{what} arrived in Kubernetes 1.{since}; the API server of {} does not know this field and drops it",
            profile.version()
        ),
        None => format!(
            "{what} need feature gate {}, which is off here (Kubernetes {}); the API server drops this field",
            gate.name(),
            profile.version()
        ),
    }
}

/// The diagnostics of a failed choice of workload: the file's own problems, or one message,
/// at `anchor` (the scenario's `select:` or `manifest:`) or, for the command line, naming
/// `--select` when the selector is at fault.
pub(super) fn select_diagnostics(
    e: SelectError,
    how: &str,
    anchor: Option<(FieldPath, Mark)>,
) -> Vec<Diagnostic> {
    let message = e.message(how);
    let (path, mark) = match (e, anchor) {
        (SelectError::Invalid(items), _) => return items,
        (_, Some((path, mark))) => (path, Some(mark)),
        (
            SelectError::BadSelector(_)
            | SelectError::NoMatch { .. }
            | SelectError::Ambiguous { .. },
            None,
        ) => (FieldPath::new(how), None),
        (_, None) => (FieldPath::root(), None),
    };
    vec![Diagnostic::new(path, mark, message)]
}

/// A `manifest:` reference resolved against the directory of the scenario that makes it
/// (the working directory for standard input, or for an absolute reference), with `.` and
/// `dir/..` taken out (`scenarios/x/../../examples/a.yaml` is `examples/a.yaml`).
pub(super) fn resolve_reference(scenario: &str, reference: &str) -> String {
    if reference.starts_with('/') || scenario == "<stdin>" {
        return normalize(reference);
    }
    match scenario.rfind(['/', '\\']) {
        Some(i) => normalize(&format!("{}/{reference}", &scenario[..i])),
        None => normalize(reference),
    }
}

/// Whether the first document of `text` that is not empty is a mapping with the key
/// `apiVersion` at its top, as every Kubernetes manifest in YAML or JSON is: a cheap look (the
/// first document only, nothing built) that keeps the content of files that are not manifests
/// out of error messages. It reads the parsed document, not lines, so a value that holds a
/// line break followed by `apiVersion:` does not pass for a manifest.
pub(super) fn names_an_api_version(text: &str) -> bool {
    probesim_kube::yaml::first_document_keys(text)
        .iter()
        .any(|k| k == "apiVersion")
}

/// Takes `.` and `dir/..` out of a path, lexically.
pub(super) fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_owned()
    } else {
        joined
    }
}

impl Loader<'_> {
    /// R42: readiness gates keep the pod from Ready until conditions that only controllers set
    /// are True; nothing in the simulation sets them, which the user should know.
    pub(super) fn note_readiness_gates(&mut self, m: &PodManifest, display_path: &str) {
        if let Some(gates) = &m.spec.readiness_gates {
            self.notes.push(format!(
                "{display_path}:{}: {}: the pod's Ready condition also waits for {} readiness gate condition(s) that nothing in the simulation sets, so the pod is never Ready (ContainersReady still follows the containers)",
                gates.mark.line,
                m.kind.pod_spec_path().child("readinessGates"),
                gates.value
            ));
        }
    }

    /// What the release's API server makes of the manifest before validation. The API
    /// versions it serves: a CronJob is `batch/v1beta1` up to 1.24 and `batch/v1` from 1.21.
    /// Its `dropDisabledFields`, for what probesim reads: with gate
    /// `SidecarContainers` off (before 1.28, and by default in 1.28) an init container's
    /// `restartPolicy` is dropped; with gate `StartupProbe` off (1.19 only) a `startupProbe`;
    /// with gate `GRPCContainerProbe` off (before 1.23, 1.23 by default) a probe's `grpc`; with
    /// gate `ContainerRestartRules` off (before 1.35 by default) a container's
    /// `restartPolicyRules`, and a regular container's `restartPolicy` is refused.
    /// Validation then judges what is left (an init container with a probe, a probe without a
    /// handler). Each drop is reported too, since the API server's own messages do not say why.
    pub(super) fn apply_release(&mut self, m: &mut PodManifest, profile: &Profile) {
        // The CronJob API versions the release serves (`cron_job_v1beta1`, `cron_job_v1`).
        if m.kind == WorkloadKind::CronJob {
            let served = match m.beta_cron_job {
                Some(_) if !profile.cron_job_v1beta1 => {
                    Some(("batch/v1beta1", "serves CronJobs as batch/v1 only"))
                }
                None if !profile.cron_job_v1 => {
                    Some(("batch/v1", "serves CronJobs as batch/v1beta1 only"))
                }
                _ => None,
            };
            if let Some((version, only)) = served {
                self.report(
                    &FieldPath::new("apiVersion"),
                    Some(m.beta_cron_job.unwrap_or(m.mark)),
                    format!(
                        "no matches for kind \"CronJob\" in version \"{version}\": Kubernetes {} {only}",
                        profile.version()
                    ),
                );
            }
        }
        let spec_path = m.kind.pod_spec_path();
        let sidecars = profile.gate(Gate::SidecarContainers);
        let startup = profile.gate(Gate::StartupProbe);
        let grpc = profile.grpc_probes();
        let rules = profile.gate(Gate::ContainerRestartRules);
        let lists = [
            ("initContainers", &mut m.spec.init_containers),
            ("containers", &mut m.spec.containers),
        ];
        for (list, containers) in lists {
            for (i, c) in containers.iter_mut().enumerate() {
                let path = spec_path.child(list).index(i);
                let policy = c
                    .restart_policy
                    .take_if(|_| list == "initContainers" && !sidecars);
                if let Some(policy) = policy {
                    let what = "sidecar containers (init containers with a restartPolicy)";
                    let message = dropped_field(profile, what, Gate::SidecarContainers);
                    self.report(&path.child("restartPolicy"), Some(policy.mark), message);
                }
                // A regular container's restartPolicy: known from 1.28 (for sidecars), allowed
                // only with gate ContainerRestartRules (1.34 alpha, on from 1.35).
                let policy = c.restart_policy.take_if(|_| list == "containers" && !rules);
                if let Some(policy) = policy {
                    let message = if profile.gate_arrives_in(Gate::SidecarContainers).is_some() {
                        dropped_field(
                            profile,
                            "container restart policies",
                            Gate::SidecarContainers,
                        )
                    } else {
                        "Forbidden: may not be set for non-init containers".to_owned()
                    };
                    self.report(&path.child("restartPolicy"), Some(policy.mark), message);
                }
                if let Some(mark) = c.restart_policy_rules.take_if(|_| !rules) {
                    c.restart_rules.clear();
                    let what = "container restart rules";
                    let message = dropped_field(profile, what, Gate::ContainerRestartRules);
                    self.report(&path.child("restartPolicyRules"), Some(mark), message);
                }
                let probe = c.probes[ProbeKind::Startup.index()].take_if(|_| !startup);
                if let Some(probe) = probe {
                    let message = dropped_field(profile, "startup probes", Gate::StartupProbe);
                    self.report(&path.child("startupProbe"), Some(probe.mark), message);
                }
                for kind in ProbeKind::ALL {
                    let Some(probe) = c.probes[kind.index()].as_mut() else {
                        continue;
                    };
                    if let Some(g) = probe.grpc.take_if(|_| !grpc) {
                        let message =
                            dropped_field(profile, "gRPC probes", Gate::GrpcContainerProbe);
                        self.report(
                            &path.child(kind.field()).child("grpc"),
                            Some(g.mark),
                            message,
                        );
                    }
                }
            }
        }
    }

    /// The manifest of the pod: `pod:` as written, or the workload `manifest:` and `select:`
    /// choose from a manifest file.
    pub(super) fn pod_node<'n>(
        &mut self,
        f: &Fields<'n>,
        display_path: &str,
    ) -> Option<Cow<'n, Node>> {
        let select = f.get("select");
        match (f.get("pod"), f.get("manifest")) {
            (Some(_), Some(m)) => {
                self.report(
                    &FieldPath::new("manifest"),
                    Some(m.mark),
                    "`pod` and `manifest` cannot be combined: embed the manifest under `pod`, or read it from a file with `manifest`",
                );
                None
            }
            (None, None) => {
                self.report(
                    &FieldPath::new("pod"),
                    Some(f.mark),
                    "missing field: the manifest of the pod to simulate (a Pod, or a workload such as a Deployment), or `manifest:` and the file that holds it",
                );
                None
            }
            (Some(n), None) => {
                if let Some(sel) = select {
                    self.report(
                        &FieldPath::new("select"),
                        Some(sel.mark),
                        "`select` goes with `manifest`: it chooses a workload of a manifest file",
                    );
                }
                if matches!(n.value(), Value::Map(_)) {
                    return Some(Cow::Borrowed(n));
                }
                let hint = match n.as_str() {
                    Some(s) => format!("; to read it from a file, write `manifest: {s}`"),
                    None => String::new(),
                };
                self.report(
                    &FieldPath::new("pod"),
                    Some(n.mark),
                    format!(
                        "expected a Pod or workload manifest (a mapping), found {}{hint}",
                        n.describe()
                    ),
                );
                None
            }
            (None, Some(m)) => self.read_manifest(m, select, display_path).map(Cow::Owned),
        }
    }

    /// `manifest:` (and `select:`): reads the file through the caller's reader and picks the
    /// workload to simulate.
    pub(super) fn read_manifest(
        &mut self,
        node: &Node,
        select: Option<&Node>,
        display_path: &str,
    ) -> Option<Node> {
        let path = FieldPath::new("manifest");
        let Some(reference) = node.as_str().filter(|r| !r.trim().is_empty()) else {
            decode::type_error(&mut self.d, node, &path, "the path of a manifest file");
            return None;
        };
        let selector = match select {
            None => None,
            Some(n) => Some(decode::string(&mut self.d, n, &FieldPath::new("select"))?),
        };
        let resolved = resolve_reference(display_path, reference.trim());
        let text = match self.reader.as_mut().map(|r| r.read(&resolved)) {
            Some(Ok(text)) => text,
            Some(Err(e)) => {
                self.report(
                    &path,
                    Some(node.mark),
                    format!("cannot read {resolved:?}: {e}"),
                );
                return None;
            }
            None => {
                self.report(&path, Some(node.mark), "manifest files cannot be read here");
                return None;
            }
        };
        if !names_an_api_version(&text) {
            // A reference may name any file (`/etc/passwd`, `/proc/self/environ`): its content
            // reaches no message unless it at least looks like a manifest.
            self.report(
                &path,
                Some(node.mark),
                format!("cannot read {resolved:?}: not a Kubernetes manifest (its first document is not a mapping with the key `apiVersion`); its content is not shown"),
            );
            return None;
        }
        let id = SourceId(u32::try_from(self.sources.len() + 1).unwrap_or(u32::MAX));
        let result = catalog::select(&text, id, selector.as_deref());
        self.sources.push(Source {
            name: resolved.clone(),
            text,
            argument: false,
        });
        match result {
            Ok(selection) => {
                let labels = catalog::pod_labels(&selection.node, selection.workload.kind);
                self.services = selection
                    .catalog
                    .selecting(&selection.workload, &labels)
                    .into_iter()
                    .cloned()
                    .collect();
                self.notes.extend(
                    selection
                        .catalog
                        .notes(&selection.workload, &labels)
                        .into_iter()
                        .map(|n| format!("{resolved}: {n}")),
                );
                Some(selection.node)
            }
            Err(e) => {
                let anchor = match (&e, select) {
                    (
                        SelectError::BadSelector(_)
                        | SelectError::NoMatch { .. }
                        | SelectError::Ambiguous { .. },
                        Some(sel),
                    ) => (FieldPath::new("select"), sel.mark),
                    _ => (path, node.mark),
                };
                self.d.extend(select_diagnostics(e, "select", Some(anchor)));
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::tests::{errors, load, with_pod, Files, DEPLOYMENT};
    use crate::scenario::*;

    #[test]
    fn only_text_that_names_an_api_version_is_taken_for_a_manifest() {
        for yes in [
            "apiVersion: v1\nkind: Pod\n",
            "# a pod\nkind: Pod\napiVersion : v1\n",
            "{\"apiVersion\": \"v1\", \"kind\": \"Pod\"}",
            "{\n  \"kind\": \"List\",\n  \"apiVersion\":\"v1\"}",
            "# empty\n---\n'apiVersion': v1\n",
        ] {
            assert!(names_an_api_version(yes), "{yes:?}");
        }
        for no in [
            "root:x:0:0:root:/root:/bin/bash\n",
            "HOME=/root\0apiVersion=v1\0TOKEN=secret",
            "",
            "apiVersions: 3\n",
            "notapiVersion: v1\n",
            // A value holding a line break, then `apiVersion:`: one line reads like a manifest,
            // the document does not.
            "note: \"hello\napiVersion: v1\"\n",
            "script: 'a\n\n  apiVersion: v1'\n",
            "HOME=/root\napiVersion: v1\n",
            // A sequence of objects is no manifest either (the catalog refuses it).
            "- apiVersion: v1\n",
        ] {
            assert!(!names_an_api_version(no), "{no:?}");
        }
    }

    #[test]
    fn a_value_that_holds_an_api_version_line_is_not_quoted() {
        // A secret held in a quoted value whose second line reads `apiVersion: v1`: the file
        // is still no manifest, and no line of it reaches the message.
        let secret = "token: \"s3cr3t\napiVersion: v1\"\n";
        let mut files = Files(vec![("scenarios/web/secret.yaml", secret.to_owned())]);
        let e = Scenario::from_str_with(
            "duration: 1m\nmanifest: secret.yaml\n",
            "scenarios/web/a.yaml",
            &mut files,
        )
        .unwrap_err();
        let shown = e.to_string();
        assert!(shown.contains("not a Kubernetes manifest"), "{shown}");
        let rendered = e.render("duration: 1m\nmanifest: secret.yaml\n");
        assert!(!rendered.contains("s3cr3t"), "{rendered}");
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
    fn references_are_resolved_against_the_scenario_and_read_by_the_caller() {
        assert_eq!(
            resolve_reference("scenarios/x/a.yaml", "../../examples/d.yaml"),
            "examples/d.yaml"
        );
        assert_eq!(resolve_reference("a.yaml", "./d.yaml"), "d.yaml");
        assert_eq!(resolve_reference("<stdin>", "m/d.yaml"), "m/d.yaml");
        assert_eq!(resolve_reference("s/a.yaml", "/abs/d.yaml"), "/abs/d.yaml");
        assert_eq!(normalize("../a/./b/../c"), "../a/c");
        let text = "kubernetes: \"1.37\"\nduration: 2m\nmanifest: ../manifests/app.yaml\nselect: deploy/web\napps:\n  web:\n    endpoints:\n      \"http :8080/healthz\": \"500\"\n";
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
            [
                "scenarios/manifests/app.yaml: skipped 1 object without a pod to simulate: ConfigMap/cfg (line 1)",
                "scenarios/web/a.yaml: container \"web\": its readinessProbe (http :8080/ready) has no script and answers ok to every request; give it one with apps.web.probes.readiness or apps.web.endpoints",
                "scenarios/web/a.yaml: no `sigterm:` for \"web\" (no preStop hook): each process is taken to die of SIGTERM as soon as it arrives (exit code 143); write `apps.<name>.sigterm` or pass `--sigterm 'NAME: ignore'` (or \"exit after 5s\") to say otherwise",
            ]
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
}
