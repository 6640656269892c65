//! API defaulting and validation of a Pod manifest (or of a workload's pod template), as the
//! apiserver does them, into the engine's [`PodSpec`].
//!
//! Defaults come first (P53, P54, `restartPolicy` Always, `terminationGracePeriodSeconds` 30
//! (R21), namespace `default`, `imagePullPolicy` from the image tag, port protocol `TCP`), then
//! validation collects every error before giving up. Messages use the apiserver's wording and
//! rendering, `<path>: <Type>[: <value>][: <detail>]` (P62), with string values quoted and
//! numbers not, and paths are the object's own (`spec.template.spec.containers[0]…` in a
//! Deployment). A workload's controller narrows the pod template's rules: `restartPolicy` must
//! be `Always` (`OnFailure` or `Never` for a Job), and `activeDeadlineSeconds` is forbidden
//! where pods are meant to run for ever. The wording is that of the release validated for where
//! probesim knows it changed (port names' "one letter" text, probes on init containers), else
//! the newest.

mod build;
mod defaults;
mod notes;
mod restart_rules;
#[cfg(test)]
mod tests;
mod wording;

use std::collections::BTreeSet;

use probesim_core::{ContainerSpec, PodSpec, ProbeKind, Profile};

use crate::decode::{self, go_quote, Diags};
use crate::error::Diagnostic;
use crate::field_path::FieldPath;
use crate::manifest::{
    At, ContainerManifest, IntOrString, PodManifest, PortManifest, ProbeManifest,
};
use crate::workload::WorkloadKind;
use crate::yaml::Mark;

use self::build::build;
pub use self::build::{env_map, expand, handler, pod_name, resolve_port};
pub use self::defaults::{apply_defaults, image_tag};
pub use self::notes::unmatched_port_names;
use self::wording::{
    dns1123_label, dns1123_subdomain, is_http_header_name, port_name, HEADER_NAME, PORT_RANGE,
};

/// The default pod IP when the manifest has no `status.podIP`.
pub const DEFAULT_POD_IP: &str = "10.0.0.5";

/// The apiserver's order of probe fields in a container.
const PROBE_ORDER: [ProbeKind; 3] = [
    ProbeKind::Liveness,
    ProbeKind::Readiness,
    ProbeKind::Startup,
];

/// A validated pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidatedPod {
    /// The pod as the engine takes it (regular containers only).
    pub pod: PodSpec,
    /// `spec.initContainers`, validated, in order; `restartable` marks sidecars
    /// (`restartPolicy: Always`). Not yet part of [`PodSpec`].
    pub init_containers: Vec<ContainerSpec>,
}

/// Applies defaults, then validates, collecting every error, as the newest modelled API server.
///
/// # Errors
/// Every API validation error, in the apiserver's wording and order.
pub fn validate(m: &mut PodManifest) -> Result<ValidatedPod, Vec<Diagnostic>> {
    validate_for(m, &Profile::newest())
}

/// [`validate`] as the API server of `profile`'s release words it where the wording changed
/// (P58 port names, P61 probes on init containers).
///
/// # Errors
/// As [`validate`].
pub fn validate_for(
    m: &mut PodManifest,
    profile: &Profile,
) -> Result<ValidatedPod, Vec<Diagnostic>> {
    apply_defaults(m);
    let mut v = Validator {
        d: Diags::new(),
        letter_wording: profile.port_name_letter_wording,
        init_probe_names_policy: profile.init_probe_wording_names_policy,
    };
    let root = FieldPath::root();
    v.metadata(m, &root.child("metadata"));
    let spec_path = m.kind.pod_spec_path();
    v.pod_spec(m, &spec_path);
    v.template_rules(m, &spec_path);
    if m.kind == WorkloadKind::CronJob {
        v.cron_job_name(m, &root.child("metadata").child("name"));
    }
    if !v.d.is_empty() {
        return Err(v.d);
    }
    build(m, &mut v.d).ok_or(v.d)
}

/// The API server's warnings for a pod that passed validation (`pkg/api/pod/warnings.go`), for
/// what probesim reads: a negative pod-level `terminationGracePeriodSeconds`.
#[must_use]
pub fn warnings_for(m: &PodManifest) -> Vec<String> {
    let mut warnings = Vec::new();
    if m.spec
        .termination_grace_period_seconds
        .as_ref()
        .is_some_and(|g| g.value < 0)
    {
        warnings.push(format!(
            "{}: must be >= 0; negative values are invalid and will be treated as 1",
            m.kind
                .pod_spec_path()
                .child("terminationGracePeriodSeconds")
        ));
    }
    warnings
}

struct Validator {
    d: Diags,
    /// P58: the ≥1.25 "one letter" wording.
    letter_wording: bool,
    /// P61: the ≥1.28 wording that names `restartPolicy=Always`.
    init_probe_names_policy: bool,
}

impl Validator {
    fn push(&mut self, path: &FieldPath, mark: Mark, message: String) {
        decode::report(&mut self.d, path, Some(mark), message);
    }

    fn invalid_int(&mut self, path: &FieldPath, v: &At<i64>, detail: &str) {
        self.push(
            path,
            v.mark,
            format!("Invalid value: {}: {detail}", v.value),
        );
    }

    fn invalid_str(&mut self, path: &FieldPath, v: &At<String>, detail: &str) {
        self.push(
            path,
            v.mark,
            format!("Invalid value: {}: {detail}", go_quote(&v.value)),
        );
    }

    fn required(&mut self, path: &FieldPath, mark: Mark, detail: &str) {
        let message = if detail.is_empty() {
            "Required value".to_owned()
        } else {
            format!("Required value: {detail}")
        };
        self.push(path, mark, message);
    }

    fn forbidden(&mut self, path: &FieldPath, mark: Mark, detail: &str) {
        self.push(path, mark, format!("Forbidden: {detail}"));
    }

    fn not_supported(&mut self, path: &FieldPath, v: &At<String>, valid: &[&str]) {
        let list: Vec<String> = valid.iter().map(|s| go_quote(s)).collect();
        self.push(
            path,
            v.mark,
            format!(
                "Unsupported value: {}: supported values: {}",
                go_quote(&v.value),
                list.join(", ")
            ),
        );
    }

    fn duplicate(&mut self, path: &FieldPath, v: &At<String>) {
        self.push(
            path,
            v.mark,
            format!("Duplicate value: {}", go_quote(&v.value)),
        );
    }

    fn non_negative(&mut self, path: &FieldPath, v: Option<&At<i64>>) {
        if let Some(v) = v {
            if v.value < 0 {
                self.invalid_int(path, v, "must be greater than or equal to 0");
            }
        }
    }

    fn metadata(&mut self, m: &PodManifest, path: &FieldPath) {
        let md = &m.metadata;
        match (&md.name, &md.generate_name) {
            (Some(name), _) if !name.value.is_empty() => {
                for msg in dns1123_subdomain(&name.value) {
                    self.invalid_str(&path.child("name"), name, &msg);
                }
            }
            (_, Some(g)) if !g.value.is_empty() => {}
            _ => self.required(
                &path.child("name"),
                md.name.as_ref().map_or(md.mark, |n| n.mark),
                "name or generateName is required",
            ),
        }
        if let Some(ns) = &md.namespace {
            for msg in dns1123_label(&ns.value) {
                self.invalid_str(&path.child("namespace"), ns, &msg);
            }
        }
    }

    fn pod_spec(&mut self, m: &PodManifest, path: &FieldPath) {
        let spec = &m.spec;
        let containers_path = path.child("containers");
        // A set, not a list: a pod of thousands of containers is checked in n log n.
        let mut names: BTreeSet<&str> = BTreeSet::new();
        if spec.containers.is_empty() {
            self.required(&containers_path, spec.mark, "");
        }
        for (i, c) in spec.containers.iter().enumerate() {
            let p = containers_path.index(i);
            self.container_common(c, &p);
            if let Some(name) = &c.name {
                if !names.insert(&name.value) {
                    self.duplicate(&p.child("name"), name);
                }
            }
            for kind in PROBE_ORDER {
                self.probe(c, kind, &p.child(kind.field()));
            }
            // ContainerRestartRules (the release keeps these fields only with the gate).
            self.container_restart_policy(c, &p);
        }
        self.host_network(m, &containers_path);
        let init_path = path.child("initContainers");
        for (i, c) in spec.init_containers.iter().enumerate() {
            let p = init_path.index(i);
            self.container_common(c, &p);
            if let Some(name) = &c.name {
                if !names.insert(&name.value) {
                    self.duplicate(&p.child("name"), name);
                }
            }
            let restartable = c
                .restart_policy
                .as_ref()
                .is_some_and(|r| r.value == "Always");
            if let Some(rp) = &c.restart_policy {
                if !restartable {
                    self.not_supported(&p.child("restartPolicy"), rp, &["Always"]);
                }
            }
            if let Some(mark) = c.restart_policy_rules {
                self.push(
                    &p.child("restartPolicyRules"),
                    mark,
                    "restart rules of init containers (ContainerRestartRules) are not modelled by probesim"
                        .to_owned(),
                );
            }
            for kind in PROBE_ORDER {
                let probe_path = p.child(kind.field());
                if restartable {
                    self.probe(c, kind, &probe_path);
                } else if let Some(probe) = c.probe(kind) {
                    // P61
                    let detail = if self.init_probe_names_policy {
                        "may not be set for init containers without restartPolicy=Always"
                    } else {
                        "may not be set for init containers"
                    };
                    self.forbidden(&probe_path, probe.mark, detail);
                }
            }
        }
        if let Some(rp) = &spec.restart_policy {
            if !matches!(rp.value.as_str(), "Always" | "OnFailure" | "Never") {
                self.not_supported(
                    &path.child("restartPolicy"),
                    rp,
                    &["Always", "OnFailure", "Never"],
                );
            }
        }
        if let Some(deadline) = &spec.active_deadline_seconds {
            if !(1..=i64::from(i32::MAX)).contains(&deadline.value) {
                self.invalid_int(
                    &path.child("activeDeadlineSeconds"),
                    deadline,
                    "must be between 1 and 2147483647, inclusive",
                );
            }
        }
        // A negative `terminationGracePeriodSeconds` is not an error: the API server only
        // warns (`warnings_for` below), and a deletion then uses 1 s.
    }

    /// What a workload's controller adds to the pod template's validation: the restart
    /// policies it accepts (after the pod's own check, so a value that is not a restart policy
    /// at all gets both messages, as from the apiserver) and no `activeDeadlineSeconds` for
    /// pods meant to run for ever.
    fn template_rules(&mut self, m: &PodManifest, path: &FieldPath) {
        let Some((policies, deadline_word)) = m.kind.template_rules() else {
            return;
        };
        if let Some(rp) = &m.spec.restart_policy {
            let path = path.child("restartPolicy");
            if m.kind.is_job() {
                // validateJobSpec: anything but OnFailure or Never (the defaulted Always
                // included) is "required", and podFailurePolicy wants Never.
                if !policies.contains(&rp.value.as_str()) {
                    self.required(&path, rp.mark, r#"valid values: "OnFailure", "Never""#);
                } else if m.spec.pod_failure_policy.is_some() && rp.value != "Never" {
                    self.invalid_str(
                        &path,
                        rp,
                        r#"only "Never" is supported when podFailurePolicy is specified"#,
                    );
                }
            } else if !policies.contains(&rp.value.as_str()) {
                self.not_supported(&path, rp, policies);
            }
        }
        if let (Some(word), Some(deadline)) = (deadline_word, &m.spec.active_deadline_seconds) {
            self.forbidden(
                &path.child("activeDeadlineSeconds"),
                deadline.mark,
                &format!("activeDeadlineSeconds in {word} is not Supported"),
            );
        }
    }

    /// A CronJob's Jobs are named `<name>-<minutes>`: the name leaves room for the suffix.
    fn cron_job_name(&mut self, m: &PodManifest, path: &FieldPath) {
        if let Some(name) = &m.metadata.name {
            if name.value.len() > 52 {
                self.invalid_str(path, name, "must be no more than 52 characters");
            }
        }
    }

    fn container_common(&mut self, c: &ContainerManifest, path: &FieldPath) {
        match &c.name {
            Some(name) if !name.value.is_empty() => {
                for msg in dns1123_label(&name.value) {
                    self.invalid_str(&path.child("name"), name, &msg);
                }
            }
            other => self.required(
                &path.child("name"),
                other.as_ref().map_or(c.mark, |n| n.mark),
                "",
            ),
        }
        if c.image.as_ref().is_none_or(|i| i.value.is_empty()) {
            self.required(
                &path.child("image"),
                c.image.as_ref().map_or(c.mark, |i| i.mark),
                "",
            );
        }
        self.ports(&c.ports, &path.child("ports"));
        for (i, e) in c.env.iter().enumerate() {
            if e.name.as_ref().is_none_or(|n| n.value.is_empty()) {
                let p = path.child("env").index(i).child("name");
                self.required(&p, e.name.as_ref().map_or(e.mark, |n| n.mark), "");
            }
        }
        if let Some(policy) = &c.image_pull_policy {
            if !matches!(policy.value.as_str(), "Always" | "IfNotPresent" | "Never") {
                self.not_supported(
                    &path.child("imagePullPolicy"),
                    policy,
                    &["Always", "IfNotPresent", "Never"],
                );
            }
        }
    }

    fn ports(&mut self, ports: &[PortManifest], path: &FieldPath) {
        let mut names: Vec<&str> = Vec::new();
        for (i, port) in ports.iter().enumerate() {
            let p = path.index(i);
            if let Some(name) = port.name.as_ref().filter(|n| !n.value.is_empty()) {
                let msgs = port_name(&name.value, self.letter_wording);
                if !msgs.is_empty() {
                    for msg in msgs {
                        self.invalid_str(&p.child("name"), name, msg);
                    }
                } else if names.contains(&name.value.as_str()) {
                    self.duplicate(&p.child("name"), name);
                } else {
                    names.push(&name.value);
                }
            }
            match &port.container_port {
                None => self.required(&p.child("containerPort"), port.mark, ""),
                Some(cp) if cp.value == 0 => self.required(&p.child("containerPort"), cp.mark, ""),
                Some(cp) => {
                    if !(1..=65535).contains(&cp.value) {
                        self.invalid_int(&p.child("containerPort"), cp, PORT_RANGE);
                    }
                }
            }
            if let Some(hp) = &port.host_port {
                if hp.value != 0 && !(1..=65535).contains(&hp.value) {
                    self.invalid_int(&p.child("hostPort"), hp, PORT_RANGE);
                }
            }
            if let Some(proto) = &port.protocol {
                if !matches!(proto.value.as_str(), "SCTP" | "TCP" | "UDP") {
                    self.not_supported(&p.child("protocol"), proto, &["SCTP", "TCP", "UDP"]);
                }
            }
        }
    }

    /// `validateHostNetwork`: with `hostNetwork`, a container's host port must be its container
    /// port (in a template an unset one is allowed: it is defaulted when the pod is created).
    fn host_network(&mut self, m: &PodManifest, path: &FieldPath) {
        if !m.spec.host_network {
            return;
        }
        for (i, c) in m.spec.containers.iter().enumerate() {
            for (j, port) in c.ports.iter().enumerate() {
                let cp = port.container_port.as_ref().map_or(0, |p| p.value);
                let hp = port
                    .host_port
                    .clone()
                    .unwrap_or_else(|| At::new(0, port.mark));
                if (m.kind == WorkloadKind::Pod || hp.value != 0) && hp.value != cp {
                    self.invalid_int(
                        &path.index(i).child("ports").index(j).child("hostPort"),
                        &hp,
                        "must match `containerPort` when `hostNetwork` is true",
                    );
                }
            }
        }
    }

    /// P55–P60 for one probe of a regular or restartable init container.
    fn probe(&mut self, c: &ContainerManifest, kind: ProbeKind, path: &FieldPath) {
        let Some(probe) = c.probe(kind) else {
            return;
        };
        self.handler(probe, path);
        // P55
        for (field, value) in [
            ("initialDelaySeconds", &probe.initial_delay_seconds),
            ("timeoutSeconds", &probe.timeout_seconds),
            ("periodSeconds", &probe.period_seconds),
            ("successThreshold", &probe.success_threshold),
            ("failureThreshold", &probe.failure_threshold),
        ] {
            self.non_negative(&path.child(field), value.as_ref());
        }
        // P60
        if let Some(g) = &probe.termination_grace_period_seconds {
            if g.value <= 0 {
                self.invalid_int(
                    &path.child("terminationGracePeriodSeconds"),
                    g,
                    "must be greater than 0",
                );
            }
        }
        match kind {
            ProbeKind::Readiness => {
                if let Some(g) = &probe.termination_grace_period_seconds {
                    self.invalid_int(
                        &path.child("terminationGracePeriodSeconds"),
                        g,
                        "must not be set for readinessProbes",
                    );
                }
            }
            ProbeKind::Liveness | ProbeKind::Startup => {
                // P59
                if let Some(s) = &probe.success_threshold {
                    if s.value != 1 {
                        self.invalid_int(&path.child("successThreshold"), s, "must be 1");
                    }
                }
            }
        }
    }

    /// P56, P57.
    fn handler(&mut self, probe: &ProbeManifest, path: &FieldPath) {
        let mut handlers = 0;
        let mut one = |v: &mut Validator, name: &str, mark: Mark| -> bool {
            if handlers > 0 {
                v.forbidden(
                    &path.child(name),
                    mark,
                    "may not specify more than 1 handler type",
                );
                false
            } else {
                handlers += 1;
                true
            }
        };
        if let Some(exec) = &probe.exec {
            if one(self, "exec", exec.mark) && exec.command.is_empty() {
                self.required(&path.child("exec").child("command"), exec.mark, "");
            }
        }
        if let Some(http) = &probe.http_get {
            if one(self, "httpGet", http.mark) {
                let p = path.child("httpGet");
                if http.path.as_ref().is_none_or(|x| x.value.is_empty()) {
                    self.required(&p.child("path"), http.mark, "");
                }
                self.port_num_or_name(http.port.as_ref(), http.mark, &p.child("port"));
                if let Some(scheme) = &http.scheme {
                    if !matches!(scheme.value.as_str(), "HTTP" | "HTTPS") {
                        self.not_supported(&p.child("scheme"), scheme, &["HTTP", "HTTPS"]);
                    }
                }
                for h in &http.http_headers {
                    let name = h
                        .name
                        .clone()
                        .unwrap_or_else(|| At::new(String::new(), h.mark));
                    if !is_http_header_name(&name.value) {
                        self.invalid_str(&p.child("httpHeaders"), &name, HEADER_NAME);
                    }
                }
            }
        }
        if let Some(tcp) = &probe.tcp_socket {
            if one(self, "tcpSocket", tcp.mark) {
                let p = path.child("tcpSocket").child("port");
                self.port_num_or_name(tcp.port.as_ref(), tcp.mark, &p);
            }
        }
        if let Some(grpc) = &probe.grpc {
            if one(self, "grpc", grpc.mark) {
                let port = grpc.port.clone().unwrap_or_else(|| At::new(0, grpc.mark));
                if !(1..=65535).contains(&port.value) {
                    self.invalid_int(&path.child("grpc").child("port"), &port, PORT_RANGE);
                }
            }
        }
        if handlers == 0 {
            self.required(path, probe.mark, "must specify a handler type");
        }
    }

    /// P58 (`ValidatePortNumOrName`); a missing port is the integer 0.
    fn port_num_or_name(&mut self, port: Option<&At<IntOrString>>, parent: Mark, path: &FieldPath) {
        match port {
            None => self.invalid_int(path, &At::new(0, parent), PORT_RANGE),
            Some(At {
                value: IntOrString::Int(n),
                mark,
            }) => {
                if !(1..=65535).contains(n) {
                    self.invalid_int(path, &At::new(*n, *mark), PORT_RANGE);
                }
            }
            Some(At {
                value: IntOrString::Str(s),
                mark,
            }) => {
                let v = At::new(s.clone(), *mark);
                for msg in port_name(s, self.letter_wording) {
                    self.invalid_str(path, &v, msg);
                }
            }
        }
    }
}
