//! The pod of a scenario: embedded under `pod:` or referenced by `manifest:` (with `select:`),
//! read through the caller's [`ManifestReader`](super::ManifestReader), and the fields the chosen
//! release drops or notes.

use std::borrow::Cow;

use probesim_core::{Gate, ProbeKind, Profile};

use crate::catalog::{self, SelectError};
use crate::decode::{self, Fields};
use crate::error::{Diagnostic, Source};
use crate::field_path::FieldPath;
use crate::manifest::PodManifest;
use crate::workload::WorkloadKind;
use crate::yaml::{Mark, Node, SourceId, Value};

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
