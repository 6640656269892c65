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

use std::collections::BTreeMap;

use probesim_core::{
    ContainerSpec, Handler, PodSpec, Port, ProbeKind, ProbeSpec, ProbeTiming, Profile, PullPolicy,
    RestartPolicy, Scheme, SimDuration,
};

use crate::decode::{self, go_quote, Diags};
use crate::error::Diagnostic;
use crate::field_path::FieldPath;
use crate::manifest::{
    At, ContainerManifest, IntOrString, PodManifest, PortManifest, ProbeManifest,
};
use crate::workload::WorkloadKind;
use crate::yaml::Mark;

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

/// Applies the apiserver's defaults in place. Idempotent.
pub fn apply_defaults(m: &mut PodManifest) {
    if m.metadata
        .namespace
        .as_ref()
        .is_none_or(|n| n.value.is_empty())
    {
        m.metadata.namespace = Some(At::new("default".to_owned(), m.metadata.mark));
    }
    let spec = &mut m.spec;
    if spec
        .restart_policy
        .as_ref()
        .is_none_or(|p| p.value.is_empty())
    {
        spec.restart_policy = Some(At::new("Always".to_owned(), spec.mark));
    }
    if spec.termination_grace_period_seconds.is_none() {
        // R21: API defaulting sets the pod's grace period to 30 s.
        spec.termination_grace_period_seconds = Some(At::new(30, spec.mark));
    }
    for c in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut())
    {
        default_container(c);
    }
    default_host_ports(m);
}

/// `SetDefaults_Pod` with `hostNetwork`: an unset host port is the container port (Pods only;
/// a template's pods get it when they are created).
fn default_host_ports(m: &mut PodManifest) {
    if m.kind != WorkloadKind::Pod || !m.spec.host_network {
        return;
    }
    let spec = &mut m.spec;
    for c in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut())
    {
        for port in &mut c.ports {
            if port.host_port.as_ref().is_none_or(|hp| hp.value == 0) {
                if let Some(cp) = port.container_port.clone() {
                    port.host_port = Some(cp);
                }
            }
        }
    }
}

fn default_container(c: &mut ContainerManifest) {
    if c.image_pull_policy
        .as_ref()
        .is_none_or(|p| p.value.is_empty())
    {
        let image = c.image.as_ref().map_or("", |i| i.value.as_str());
        let policy = if image_tag(image) == Some("latest") {
            "Always"
        } else {
            "IfNotPresent"
        };
        c.image_pull_policy = Some(At::new(policy.to_owned(), c.mark));
    }
    for p in &mut c.ports {
        if p.protocol.as_ref().is_none_or(|x| x.value.is_empty()) {
            p.protocol = Some(At::new("TCP".to_owned(), p.mark));
        }
    }
    for probe in c.probes.iter_mut().flatten() {
        default_probe(probe);
    }
}

/// P53, P54.
fn default_probe(p: &mut ProbeManifest) {
    let mark = p.mark;
    for (field, default) in [
        (&mut p.timeout_seconds, 1),
        (&mut p.period_seconds, 10),
        (&mut p.success_threshold, 1),
        (&mut p.failure_threshold, 3),
    ] {
        match field {
            Some(v) if v.value != 0 => {}
            Some(v) => v.value = default,
            None => *field = Some(At::new(default, mark)),
        }
    }
    if let Some(h) = &mut p.http_get {
        if h.path.as_ref().is_none_or(|x| x.value.is_empty()) {
            h.path = Some(At::new("/".to_owned(), h.mark));
        }
        if h.scheme.as_ref().is_none_or(|x| x.value.is_empty()) {
            h.scheme = Some(At::new("HTTP".to_owned(), h.mark));
        }
    }
    if let Some(g) = &mut p.grpc {
        if g.service.is_none() {
            g.service = Some(At::new(String::new(), g.mark));
        }
    }
}

/// The tag of an image reference as the defaulting code sees it (`parsers.ParseImageName` over
/// the distribution `ParseNormalizedNamed`): `latest` when there is neither tag nor digest,
/// `None` when there is a digest and no tag, and `None` too when the reference does not parse
/// (uppercase in the repository path, a malformed tag or digest, a 64-hex-digit name, more
/// than 255 characters), which the defaulting code reads as "no tag".
#[must_use]
pub fn image_tag(image: &str) -> Option<&str> {
    let (rest, digest) = match image.split_once('@') {
        Some((rest, digest)) => (rest, Some(digest)),
        None => (image, None),
    };
    if digest.is_some_and(|d| !is_digest(d)) {
        return None;
    }
    // A tag is what follows the last `:` after the last `/` (an earlier `:` is a port).
    let last_slash = rest.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match rest[last_slash..].rfind(':') {
        Some(i) => (&rest[..last_slash + i], Some(&rest[last_slash + i + 1..])),
        None => (rest, None),
    };
    if !is_repository_name(name) || tag.is_some_and(|t| !is_tag(t)) {
        return None;
    }
    match (tag, digest) {
        (Some(tag), _) => Some(tag),
        (None, Some(_)) => None,
        (None, None) => Some("latest"),
    }
}

/// `[domain/]path`, as `ParseNormalizedNamed` accepts it.
fn is_repository_name(name: &str) -> bool {
    if name.is_empty() || name.len() > 255 {
        return false;
    }
    // 64 hex digits alone look like an image ID, which a name may not be.
    if name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return false;
    }
    // The first component is a registry when it has a `.` or `:`, is `localhost`, or has an
    // uppercase letter (which a path component may not have).
    let (domain, path) = match name.split_once('/') {
        Some((first, rest))
            if first.contains(['.', ':'])
                || first == "localhost"
                || first.bytes().any(|b| b.is_ascii_uppercase()) =>
        {
            (Some(first), rest)
        }
        _ => (None, name),
    };
    domain.is_none_or(is_domain) && path.split('/').all(is_path_component)
}

/// `host[:port]`: dot-separated labels of letters, digits and inner hyphens, or `[IPv6]`.
fn is_domain(domain: &str) -> bool {
    let (host, port) = match domain.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(':') => (host, Some(port)),
        _ => (domain, None),
    };
    if port.is_some_and(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    if let Some(ip) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return !ip.is_empty() && ip.bytes().all(|b| b.is_ascii_hexdigit() || b == b':');
    }
    !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// Lowercase letters and digits, joined by `.`, `_`, `__` or any run of `-`.
fn is_path_component(component: &str) -> bool {
    let bytes = component.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if !bytes.first().copied().is_some_and(alnum) || !bytes.last().copied().is_some_and(alnum) {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        if alnum(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !alnum(bytes[i]) {
            i += 1;
        }
        let separator = &component[start..i];
        let ok = matches!(separator, "." | "_" | "__") || separator.bytes().all(|b| b == b'-');
        if !ok {
            return false;
        }
    }
    true
}

/// A word character, then up to 127 word characters, `.` or `-`.
fn is_tag(tag: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = tag.as_bytes();
    bytes.len() <= 128
        && bytes.first().copied().is_some_and(word)
        && bytes.iter().all(|&b| word(b) || b == b'.' || b == b'-')
}

/// `algorithm:hex` for the algorithms the digest package knows, with their exact lengths of
/// lowercase hex digits.
fn is_digest(digest: &str) -> bool {
    let Some((algorithm, hex)) = digest.split_once(':') else {
        return false;
    };
    let length = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return false,
    };
    hex.len() == length && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
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
        let mut names: Vec<&str> = Vec::new();
        if spec.containers.is_empty() {
            self.required(&containers_path, spec.mark, "");
        }
        for (i, c) in spec.containers.iter().enumerate() {
            let p = containers_path.index(i);
            self.container_common(c, &p);
            if let Some(name) = &c.name {
                if names.contains(&name.value.as_str()) {
                    self.duplicate(&p.child("name"), name);
                } else {
                    names.push(&name.value);
                }
            }
            for kind in PROBE_ORDER {
                self.probe(c, kind, &p.child(kind.field()));
            }
            if let Some(rp) = &c.restart_policy {
                self.push(
                    &p.child("restartPolicy"),
                    rp.mark,
                    "container-level restart policies (ContainerRestartRules) are not modelled by probesim"
                        .to_owned(),
                );
            }
        }
        self.host_network(m, &containers_path);
        let init_path = path.child("initContainers");
        for (i, c) in spec.init_containers.iter().enumerate() {
            let p = init_path.index(i);
            self.container_common(c, &p);
            if let Some(name) = &c.name {
                if names.contains(&name.value.as_str()) {
                    self.duplicate(&p.child("name"), name);
                } else {
                    names.push(&name.value);
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
        if let Some(mark) = c.restart_policy_rules {
            self.push(
                &path.child("restartPolicyRules"),
                mark,
                "container restart rules (ContainerRestartRules) are not modelled by probesim"
                    .to_owned(),
            );
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

const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";

const HEADER_NAME: &str = "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')";

const DNS1123_LABEL: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const DNS1123_SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// `IsValidPortName` (IANA_SVC_NAME): the "one letter" rule was always checked, but said
/// "letter or number" up to 1.24 (P58; `letter_wording` is the newer text).
fn port_name(name: &str, letter_wording: bool) -> Vec<&'static str> {
    let mut errs = Vec::new();
    if name.len() > 15 {
        errs.push("must be no more than 15 characters");
    }
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        errs.push(if letter_wording {
            "must contain at least one letter (a-z)"
        } else {
            "must contain at least one letter or number (a-z, 0-9)"
        });
    }
    if name.contains("--") {
        errs.push("must not contain consecutive hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        errs.push("must not begin or end with a hyphen");
    }
    errs
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_label(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) => {
            alnum(first) && alnum(last) && b.iter().all(|c| alnum(c) || *c == b'-')
        }
        _ => false,
    }
}

/// `IsDNS1123Label`.
fn dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 characters".to_owned());
    }
    if !is_label(s) {
        if s.split('.').all(is_label) {
            errs.push("must not contain dots".to_owned());
        } else {
            errs.push(DNS1123_LABEL.to_owned());
        }
    }
    errs
}

/// `IsDNS1123Subdomain`.
fn dns1123_subdomain(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push("must be no more than 253 characters".to_owned());
    }
    if !s.split('.').all(is_label) {
        errs.push(DNS1123_SUBDOMAIN.to_owned());
    }
    errs
}

/// `IsHTTPHeaderName`: `[-A-Za-z0-9]+`.
fn is_http_header_name(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// P39: how the kubelet resolves a probe port against the container's `ports`.
#[must_use]
pub fn resolve_port(port: &IntOrString, ports: &[PortManifest]) -> Port {
    let n = match port {
        IntOrString::Int(n) => *n,
        IntOrString::Str(name) => {
            let by_name = ports
                .iter()
                .find(|p| p.name.as_ref().is_some_and(|x| &x.value == name))
                .and_then(|p| p.container_port.as_ref())
                .map(|cp| cp.value);
            match by_name.or_else(|| go_atoi(name)) {
                Some(n) => n,
                None => return Port::Unparsable(name.clone()),
            }
        }
    };
    match u16::try_from(n) {
        Ok(p) if p >= 1 => Port::Number(p),
        _ => Port::OutOfRange(n),
    }
}

/// Go's `strconv.Atoi` on a 64-bit platform.
fn go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// P48: `$(VAR)` expansion from the container's literal `env` values (`valueFrom` variables
/// expand to ""); `$$` is a literal `$`; unknown references are kept as written.
#[must_use]
pub fn expand(input: &str, vars: &BTreeMap<String, String>) -> String {
    let chars: Vec<char> = input.chars().collect();
    let mut out = String::with_capacity(input.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '$' || i + 1 >= chars.len() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        match chars[i + 1] {
            '$' => {
                out.push('$');
                i += 2;
            }
            '(' => match chars[i + 2..].iter().position(|c| *c == ')') {
                Some(len) => {
                    let name: String = chars[i + 2..i + 2 + len].iter().collect();
                    match vars.get(&name) {
                        Some(v) => out.push_str(v),
                        None => {
                            out.push_str("$(");
                            out.push_str(&name);
                            out.push(')');
                        }
                    }
                    i += 3 + len;
                }
                None => {
                    out.push_str("$(");
                    i += 2;
                }
            },
            c => {
                out.push('$');
                out.push(c);
                i += 2;
            }
        }
    }
    out
}

/// The container's environment as the exec expansion sees it (later entries win).
#[must_use]
pub fn env_map(c: &ContainerManifest) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::new();
    for e in &c.env {
        if let Some(name) = &e.name {
            let value = e.value.as_ref().map_or(String::new(), |v| v.value.clone());
            vars.insert(name.value.clone(), value);
        }
    }
    vars
}

/// The engine's handler for a validated probe (first handler in P38 order).
#[must_use]
pub fn handler(c: &ContainerManifest, probe: &ProbeManifest) -> Option<Handler> {
    if let Some(exec) = &probe.exec {
        let vars = env_map(c);
        return Some(Handler::Exec {
            command: exec
                .command
                .iter()
                .map(|w| expand(&w.value, &vars))
                .collect(),
        });
    }
    let host = |h: &Option<At<String>>| {
        h.as_ref()
            .map(|x| x.value.clone())
            .filter(|x| !x.is_empty())
    };
    if let Some(http) = &probe.http_get {
        let port = http
            .port
            .as_ref()
            .map_or(IntOrString::Int(0), |p| p.value.clone());
        return Some(Handler::HttpGet {
            scheme: match http.scheme.as_ref().map(|s| s.value.as_str()) {
                Some("HTTPS") => Scheme::Https,
                _ => Scheme::Http,
            },
            host: host(&http.host),
            port: resolve_port(&port, &c.ports),
            path: http
                .path
                .as_ref()
                .map_or_else(|| "/".to_owned(), |p| p.value.clone()),
        });
    }
    if let Some(tcp) = &probe.tcp_socket {
        let port = tcp
            .port
            .as_ref()
            .map_or(IntOrString::Int(0), |p| p.value.clone());
        return Some(Handler::TcpSocket {
            host: host(&tcp.host),
            port: resolve_port(&port, &c.ports),
        });
    }
    if let Some(grpc) = &probe.grpc {
        return Some(Handler::Grpc {
            port: grpc
                .port
                .as_ref()
                .and_then(|p| u16::try_from(p.value).ok())
                .unwrap_or(0),
            service: grpc
                .service
                .as_ref()
                .map(|s| s.value.clone())
                .unwrap_or_default(),
        });
    }
    None
}

fn as_i32(v: &Option<At<i64>>, default: i32) -> i32 {
    v.as_ref()
        .and_then(|x| i32::try_from(x.value).ok())
        .unwrap_or(default)
}

fn build_container(
    d: &mut Diags,
    c: &ContainerManifest,
    path: &FieldPath,
) -> Option<ContainerSpec> {
    let mut spec = ContainerSpec::new(
        c.name_str(),
        c.image.as_ref().map_or("", |i| i.value.as_str()),
    );
    spec.pull_policy = match c.image_pull_policy.as_ref().map(|p| p.value.as_str()) {
        Some("Always") => PullPolicy::Always,
        Some("Never") => PullPolicy::Never,
        _ => PullPolicy::IfNotPresent,
    };
    spec.restartable = c
        .restart_policy
        .as_ref()
        .is_some_and(|r| r.value == "Always");
    // R24: the hook's duration is the sleep of a sleep hook; other hooks take no time unless
    // the scenario's `apps.<name>.preStop` says otherwise.
    spec.app.pre_stop = c.pre_stop.as_ref().map(|h| {
        let secs = h.sleep_seconds.as_ref().map_or(0, |s| s.value);
        SimDuration::from_secs(u64::try_from(secs).unwrap_or(0))
    });
    let mut ok = true;
    for kind in ProbeKind::ALL {
        let Some(probe) = c.probe(kind) else {
            continue;
        };
        let probe_path = path.child(kind.field());
        let Some(handler) = handler(c, probe) else {
            ok = false;
            decode::report(d, &probe_path, Some(probe.mark), "no handler");
            continue;
        };
        let timing = ProbeTiming {
            initial_delay_seconds: as_i32(&probe.initial_delay_seconds, 0),
            timeout_seconds: as_i32(&probe.timeout_seconds, 1),
            period_seconds: as_i32(&probe.period_seconds, 10),
            success_threshold: as_i32(&probe.success_threshold, 1),
            failure_threshold: as_i32(&probe.failure_threshold, 3),
            termination_grace_period_seconds: probe
                .termination_grace_period_seconds
                .as_ref()
                .map(|g| g.value),
        };
        match ProbeSpec::new(handler, timing) {
            Ok(p) => spec.probes[kind.index()] = Some(p),
            Err(e) => {
                ok = false;
                decode::report(
                    d,
                    &probe_path.child(e.field()),
                    Some(probe.mark),
                    e.to_string(),
                );
            }
        }
    }
    ok.then_some(spec)
}

fn build(m: &PodManifest, d: &mut Diags) -> Option<ValidatedPod> {
    let md = &m.metadata;
    let name = match (&md.name, &md.generate_name) {
        (Some(n), _) if !n.value.is_empty() => n.value.clone(),
        (_, Some(g)) => generated_name(&g.value),
        _ => String::new(),
    };
    let mut pod = PodSpec::new(pod_name(m.kind, &name));
    if let Some(ns) = &md.namespace {
        pod.namespace.clone_from(&ns.value);
    }
    // A workload's uid is its own, not its pods'.
    if let Some(uid) = md
        .uid
        .as_ref()
        .filter(|u| !u.value.is_empty() && m.kind == WorkloadKind::Pod)
    {
        pod.uid.clone_from(&uid.value);
    }
    if let Some(ip) = m.pod_ip.as_ref().filter(|ip| !ip.value.is_empty()) {
        pod.pod_ip.clone_from(&ip.value);
    }
    pod.restart_policy = match m.spec.restart_policy.as_ref().map(|r| r.value.as_str()) {
        Some("OnFailure") => RestartPolicy::OnFailure,
        Some("Never") => RestartPolicy::Never,
        _ => RestartPolicy::Always,
    };
    pod.readiness_gates = m.spec.readiness_gates.as_ref().map_or(0, |g| g.value);
    pod.termination_grace_period_seconds = m
        .spec
        .termination_grace_period_seconds
        .as_ref()
        .map_or(30, |g| g.value);
    let spec_path = m.kind.pod_spec_path();
    let mut ok = true;
    for (i, c) in m.spec.containers.iter().enumerate() {
        match build_container(d, c, &spec_path.child("containers").index(i)) {
            Some(c) => pod.containers.push(c),
            None => ok = false,
        }
    }
    let mut init_containers = Vec::new();
    for (i, c) in m.spec.init_containers.iter().enumerate() {
        match build_container(d, c, &spec_path.child("initContainers").index(i)) {
            Some(c) => init_containers.push(c),
            None => ok = false,
        }
    }
    ok.then_some(ValidatedPod {
        pod,
        init_containers,
    })
}

/// A deterministic stand-in for the apiserver's random `generateName` suffix.
fn generated_name(prefix: &str) -> String {
    let mut name = prefix.to_owned();
    name.push_str(&random_chars(prefix, 5));
    name
}

/// `n` characters of the apiserver's random-name alphabet, derived from `seed`.
fn random_chars(seed: &str, n: usize) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut h = probesim_core::spec::fnv(seed.as_bytes());
    let mut out = String::with_capacity(n);
    for _ in 0..n {
        let i = usize::try_from(h % ALPHABET.len() as u64).unwrap_or(0);
        out.push(char::from(ALPHABET[i]));
        h /= ALPHABET.len() as u64;
    }
    out
}

/// The name the workload's controller gives its pod, with deterministic stand-ins for the
/// random parts: `web-7d9c5b8f6d-x2k4q` for a Deployment (ReplicaSet `web-<template hash>`),
/// `db-0` for a StatefulSet, `backup-29000000-abcde` for a CronJob (its Job is named after
/// the scheduled minute), `<name>-<5 characters>` for the other controllers.
#[must_use]
pub fn pod_name(kind: WorkloadKind, name: &str) -> String {
    match kind {
        WorkloadKind::Pod => name.to_owned(),
        WorkloadKind::Deployment => {
            let replica_set = format!("{name}-{}", random_chars(&format!("{name}/template"), 10));
            generated_name(&format!("{replica_set}-"))
        }
        WorkloadKind::StatefulSet => format!("{name}-0"),
        WorkloadKind::CronJob => {
            let minute = 29_000_000 + probesim_core::spec::fnv(name.as_bytes()) % 1_000_000;
            generated_name(&format!("{name}-{minute}-"))
        }
        WorkloadKind::ReplicaSet
        | WorkloadKind::DaemonSet
        | WorkloadKind::ReplicationController
        | WorkloadKind::Job => generated_name(&format!("{name}-")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{manifest, yaml};

    fn load(text: &str) -> Result<ValidatedPod, Vec<String>> {
        let node = yaml::parse(text).unwrap();
        let mut m = manifest::read(&node, &FieldPath::root())
            .map_err(|d| d.iter().map(ToString::to_string).collect::<Vec<_>>())?;
        validate(&mut m).map_err(|d| d.iter().map(ToString::to_string).collect())
    }

    /// A pod with one container `kubia` whose extra lines are `container` (indented 4).
    fn pod(container: &str) -> String {
        let mut text = String::from(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: kubia}\nspec:\n  containers:\n  - name: kubia\n    image: luksa/kubia:1.0\n",
        );
        for line in container.lines() {
            text.push_str("    ");
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    fn errors(container: &str) -> Vec<String> {
        load(&pod(container)).unwrap_err()
    }

    #[test]
    fn defaults_are_the_apiservers() {
        let v = load(&pod(
            "livenessProbe:\n  httpGet: {port: 8080}\n  periodSeconds: 0\n\
             readinessProbe:\n  grpc: {port: 9090}",
        ))
        .unwrap();
        let p = &v.pod;
        assert_eq!(p.namespace, "default");
        assert_eq!(p.restart_policy, RestartPolicy::Always);
        assert_eq!(p.termination_grace_period_seconds, 30);
        assert_eq!(p.pod_ip, DEFAULT_POD_IP);
        assert_eq!(p.uid, PodSpec::new("kubia").uid);
        let c = &p.containers[0];
        assert_eq!(c.pull_policy, PullPolicy::IfNotPresent);
        let live = c.probe(ProbeKind::Liveness).unwrap();
        // P53: 0 and absent both default.
        assert_eq!(
            (
                live.timeout_seconds(),
                live.period_seconds(),
                live.success_threshold(),
                live.failure_threshold(),
                live.initial_delay_seconds()
            ),
            (1, 10, 1, 3, 0)
        );
        // P54
        assert_eq!(
            live.handler(),
            &Handler::HttpGet {
                scheme: Scheme::Http,
                host: None,
                port: Port::Number(8080),
                path: "/".into()
            }
        );
        assert_eq!(
            c.probe(ProbeKind::Readiness).unwrap().handler(),
            &Handler::Grpc {
                port: 9090,
                service: String::new()
            }
        );
    }

    #[test]
    fn image_pull_policy_follows_the_tag() {
        for (image, policy) in [
            ("luksa/kubia", PullPolicy::Always),
            ("luksa/kubia:latest", PullPolicy::Always),
            ("luksa/kubia:1.0", PullPolicy::IfNotPresent),
            ("localhost:5000/kubia", PullPolicy::Always),
            ("kubia@sha256:abcd", PullPolicy::IfNotPresent),
            (
                "kubia:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                PullPolicy::Always,
            ),
            // A reference that does not parse has no tag for the defaulting code.
            ("kubia:latest@sha256:abcd", PullPolicy::IfNotPresent),
            ("Nginx", PullPolicy::IfNotPresent),
            ("Registry.Example.com/team/app", PullPolicy::Always),
            ("registry.example.com:5000/team/app:latest", PullPolicy::Always),
            ("team/App:latest", PullPolicy::IfNotPresent),
            ("app:la$test", PullPolicy::IfNotPresent),
            ("my_org/my--app", PullPolicy::Always),
            ("my_org/-app", PullPolicy::IfNotPresent),
        ] {
            let text = pod("").replace("luksa/kubia:1.0", image);
            assert_eq!(
                load(&text).unwrap().pod.containers[0].pull_policy,
                policy,
                "{image}"
            );
        }
        let text = pod("imagePullPolicy: Never");
        assert_eq!(
            load(&text).unwrap().pod.containers[0].pull_policy,
            PullPolicy::Never
        );
    }

    #[test]
    fn metadata_status_and_pod_fields_are_used() {
        let text = pod("").replace(
            "metadata: {name: kubia}",
            "metadata: {name: kubia, namespace: prod, uid: abc}\nstatus: {podIP: 10.1.2.3}",
        ) + "  restartPolicy: Never\n  terminationGracePeriodSeconds: 5\n";
        let p = load(&text).unwrap().pod;
        assert_eq!(
            (p.namespace.as_str(), p.uid.as_str(), p.pod_ip.as_str()),
            ("prod", "abc", "10.1.2.3")
        );
        assert_eq!(p.restart_policy, RestartPolicy::Never);
        assert_eq!(p.termination_grace_period_seconds, 5);
    }

    #[test]
    fn negative_probe_numbers_are_rejected() {
        // P55
        let errs = errors(
            "livenessProbe:\n  exec: {command: [\"true\"]}\n  initialDelaySeconds: -1\n  timeoutSeconds: -2\n  periodSeconds: -3\n  failureThreshold: -4",
        );
        assert_eq!(
            errs,
            [
                "spec.containers[0].livenessProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0",
                "spec.containers[0].livenessProbe.timeoutSeconds: Invalid value: -2: must be greater than or equal to 0",
                "spec.containers[0].livenessProbe.periodSeconds: Invalid value: -3: must be greater than or equal to 0",
                "spec.containers[0].livenessProbe.failureThreshold: Invalid value: -4: must be greater than or equal to 0",
            ]
        );
    }

    #[test]
    fn exactly_one_handler() {
        // P56
        assert_eq!(
            errors("readinessProbe:\n  periodSeconds: 5"),
            ["spec.containers[0].readinessProbe: Required value: must specify a handler type"]
        );
        assert_eq!(
            errors("livenessProbe:\n  exec: {command: [\"true\"]}\n  httpGet: {port: 80}\n  grpc: {port: 9090}"),
            [
                "spec.containers[0].livenessProbe.httpGet: Forbidden: may not specify more than 1 handler type",
                "spec.containers[0].livenessProbe.grpc: Forbidden: may not specify more than 1 handler type",
            ]
        );
    }

    #[test]
    fn handler_fields() {
        // P57
        assert_eq!(
            errors("livenessProbe:\n  exec: {}"),
            ["spec.containers[0].livenessProbe.exec.command: Required value"]
        );
        assert_eq!(
            errors("livenessProbe:\n  httpGet: {port: 80, scheme: FTP}"),
            ["spec.containers[0].livenessProbe.httpGet.scheme: Unsupported value: \"FTP\": supported values: \"HTTP\", \"HTTPS\""]
        );
        assert_eq!(
            errors("livenessProbe:\n  httpGet:\n    port: 80\n    httpHeaders: [{name: X_Bad, value: v}]"),
            ["spec.containers[0].livenessProbe.httpGet.httpHeaders: Invalid value: \"X_Bad\": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"]
        );
        assert_eq!(
            errors("livenessProbe:\n  grpc: {}"),
            ["spec.containers[0].livenessProbe.grpc.port: Invalid value: 0: must be between 1 and 65535, inclusive"]
        );
        assert_eq!(
            errors("livenessProbe:\n  tcpSocket: {port: 70000}"),
            ["spec.containers[0].livenessProbe.tcpSocket.port: Invalid value: 70000: must be between 1 and 65535, inclusive"]
        );
    }

    #[test]
    fn port_names_follow_iana_svc_name() {
        // P58, ≥1.26 wording
        let prefix = "spec.containers[0].livenessProbe.httpGet.port: Invalid value:";
        assert_eq!(
            errors("livenessProbe:\n  httpGet: {port: \"8080\"}"),
            [format!(
                "{prefix} \"8080\": must contain at least one letter (a-z)"
            )]
        );
        assert_eq!(
            errors("livenessProbe:\n  httpGet: {port: -Very--long-port-name}"),
            [
                format!("{prefix} \"-Very--long-port-name\": must be no more than 15 characters"),
                format!("{prefix} \"-Very--long-port-name\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"),
                format!("{prefix} \"-Very--long-port-name\": must not contain consecutive hyphens"),
                format!("{prefix} \"-Very--long-port-name\": must not begin or end with a hyphen"),
            ]
        );
    }

    #[test]
    fn success_threshold_must_be_one_for_liveness_and_startup() {
        // P59
        assert_eq!(
            errors("livenessProbe:\n  exec: {command: [\"true\"]}\n  successThreshold: 2\nstartupProbe:\n  exec: {command: [\"true\"]}\n  successThreshold: -1\nreadinessProbe:\n  exec: {command: [\"true\"]}\n  successThreshold: 3"),
            [
                "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
                "spec.containers[0].startupProbe.successThreshold: Invalid value: -1: must be greater than or equal to 0",
                "spec.containers[0].startupProbe.successThreshold: Invalid value: -1: must be 1",
            ]
        );
    }

    #[test]
    fn probe_grace_periods() {
        // P60
        assert_eq!(
            errors("livenessProbe:\n  exec: {command: [\"true\"]}\n  terminationGracePeriodSeconds: 0\nreadinessProbe:\n  exec: {command: [\"true\"]}\n  terminationGracePeriodSeconds: 5"),
            [
                "spec.containers[0].livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0",
                "spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes",
            ]
        );
        let v = load(&pod(
            "livenessProbe:\n  exec: {command: [\"true\"]}\n  terminationGracePeriodSeconds: 7",
        ))
        .unwrap();
        assert_eq!(
            v.pod.containers[0]
                .probe(ProbeKind::Liveness)
                .unwrap()
                .termination_grace_period_seconds(),
            Some(7)
        );
    }

    #[test]
    fn init_container_probes_need_restart_policy_always() {
        // P61
        let text = pod("") + "  initContainers:\n  - name: init\n    image: busybox\n    readinessProbe: {exec: {command: [\"true\"]}}\n";
        assert_eq!(
            load(&text).unwrap_err(),
            ["spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"]
        );
        let text = pod("") + "  initContainers:\n  - name: proxy\n    image: envoy:1\n    restartPolicy: Always\n    readinessProbe: {exec: {command: [\"true\"]}}\n";
        let v = load(&text).unwrap();
        assert!(v.init_containers[0].restartable);
        assert!(v.init_containers[0].probe(ProbeKind::Readiness).is_some());
        let text = pod("") + "  initContainers:\n  - name: proxy\n    image: envoy:1\n    restartPolicy: Never\n    livenessProbe: {exec: {command: [\"true\"]}, successThreshold: 2}\n";
        assert_eq!(
            load(&text).unwrap_err(),
            [
                "spec.initContainers[0].restartPolicy: Unsupported value: \"Never\": supported values: \"Always\"",
                "spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
            ]
        );
    }

    #[test]
    fn pod_level_rules() {
        let text = pod("") + "  restartPolicy: Sometimes\n  terminationGracePeriodSeconds: -1\n";
        assert_eq!(
            load(&text).unwrap_err(),
            ["spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\""]
        );
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: Kubia}\nspec: {containers: []}\n";
        assert_eq!(
            load(text).unwrap_err(),
            [
                "metadata.name: Invalid value: \"Kubia\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "spec.containers: Required value",
            ]
        );
        let text = "apiVersion: v1\nkind: Pod\nspec: {containers: [{name: a, image: b}]}\n";
        assert_eq!(
            load(text).unwrap_err(),
            ["metadata.name: Required value: name or generateName is required"]
        );
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\nspec: {containers: [{name: a, image: b}]}\n";
        let name = load(text).unwrap().pod.name;
        assert!(name.starts_with("web-") && name.len() == 9, "{name}");
    }

    #[test]
    fn container_names_and_images() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: Web, image: x}\n  - {name: a.b, image: x}\n  - {image: x}\n  - {name: x, image: x}\n  - {name: x}\n";
        assert_eq!(
            load(text).unwrap_err(),
            [
                "spec.containers[0].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                "spec.containers[1].name: Invalid value: \"a.b\": must not contain dots",
                "spec.containers[2].name: Required value",
                "spec.containers[4].image: Required value",
                "spec.containers[4].name: Duplicate value: \"x\"",
            ]
        );
    }

    #[test]
    fn container_ports_and_pull_policy() {
        // A number where a string belongs is a decoding error, reported before validation.
        assert_eq!(
            errors("ports:\n- {name: 8080, containerPort: 8080}"),
            ["spec.containers[0].ports[0].name: expected a string, found 8080"]
        );
        assert_eq!(
            errors("imagePullPolicy: Sometimes\nports:\n- {name: http, containerPort: 0}\n- {name: http, containerPort: 8080, protocol: tcp}\n- {name: \"8080\", containerPort: 70000}"),
            [
                "spec.containers[0].ports[0].containerPort: Required value",
                "spec.containers[0].ports[1].name: Duplicate value: \"http\"",
                "spec.containers[0].ports[1].protocol: Unsupported value: \"tcp\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
                "spec.containers[0].ports[2].name: Invalid value: \"8080\": must contain at least one letter (a-z)",
                "spec.containers[0].ports[2].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
                "spec.containers[0].imagePullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", \"Never\"",
            ]
        );
    }

    #[test]
    fn named_ports_resolve_like_the_kubelet() {
        // P39
        let v = load(&pod(
            "ports: [{name: http, containerPort: 8080}]\nlivenessProbe: {httpGet: {port: http, path: /healthz, scheme: HTTPS, host: example.com}}\nreadinessProbe: {tcpSocket: {port: metrics}}",
        ))
        .unwrap();
        let c = &v.pod.containers[0];
        assert_eq!(
            c.probe(ProbeKind::Liveness).unwrap().handler(),
            &Handler::HttpGet {
                scheme: Scheme::Https,
                host: Some("example.com".into()),
                port: Port::Number(8080),
                path: "/healthz".into()
            }
        );
        assert_eq!(
            c.probe(ProbeKind::Readiness).unwrap().handler(),
            &Handler::TcpSocket {
                host: None,
                port: Port::Unparsable("metrics".into())
            }
        );
    }

    #[test]
    fn exec_commands_expand_literal_env_values() {
        // P48
        let v = load(&pod(
            "env:\n- {name: FILE, value: /tmp/healthy}\n- {name: FROM, valueFrom: {fieldRef: {fieldPath: status.podIP}}}\nlivenessProbe:\n  exec: {command: [cat, \"$(FILE)\", \"$$(FILE)\", \"$(NOPE)\", \"$(FROM)x\", \"a$b\", \"$(open\", \"end$\"]}",
        ))
        .unwrap();
        assert_eq!(
            v.pod.containers[0]
                .probe(ProbeKind::Liveness)
                .unwrap()
                .handler(),
            &Handler::Exec {
                command: [
                    "cat",
                    "/tmp/healthy",
                    "$(FILE)",
                    "$(NOPE)",
                    "x",
                    "a$b",
                    "$(open",
                    "end$"
                ]
                .map(String::from)
                .to_vec()
            }
        );
    }

    #[test]
    fn env_names_are_required() {
        assert_eq!(
            errors("env: [{value: x}]"),
            ["spec.containers[0].env[0].name: Required value"]
        );
    }

    #[test]
    fn restart_rules_on_regular_containers_are_refused() {
        assert_eq!(
            errors("restartPolicy: Never"),
            ["spec.containers[0].restartPolicy: container-level restart policies (ContainerRestartRules) are not modelled by probesim"]
        );
    }

    /// A workload of `kind` whose pod spec has one container `web` and `extra` lines.
    fn workload(kind: &str, extra: &str) -> String {
        let (api, template) = match kind {
            "Job" => ("batch/v1", "template"),
            "CronJob" => ("batch/v1", "jobTemplate:\n    spec:\n      template"),
            "ReplicationController" => ("v1", "template"),
            _ => ("apps/v1", "template"),
        };
        let indent = if kind == "CronJob" {
            "        "
        } else {
            "    "
        };
        let mut text = format!(
            "apiVersion: {api}\nkind: {kind}\nmetadata: {{name: web}}\nspec:\n  {template}:\n{indent}spec:\n{indent}  containers:\n{indent}  - {{name: web, image: nginx:1.27}}\n"
        );
        for line in extra.lines() {
            text.push_str(indent);
            text.push_str("  ");
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    #[test]
    fn controllers_narrow_the_restart_policy() {
        assert_eq!(
            load(&workload("Deployment", "restartPolicy: Never")).unwrap_err(),
            ["spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\""]
        );
        // Not a restart policy at all: the pod's message, then the controller's.
        assert_eq!(
            load(&workload("DaemonSet", "restartPolicy: Sometimes")).unwrap_err(),
            [
                "spec.template.spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"",
                "spec.template.spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\"",
            ]
        );
        // A Job's template defaults to Always like any pod, which a Job refuses: for
        // validateJobSpec any other policy than OnFailure or Never is a missing one.
        assert_eq!(
            load(&workload("Job", "")).unwrap_err(),
            ["spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""]
        );
        assert_eq!(
            load(&workload("CronJob", "")).unwrap_err(),
            ["spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""]
        );
        let job = load(&workload("Job", "restartPolicy: OnFailure")).unwrap();
        assert_eq!(job.pod.restart_policy, RestartPolicy::OnFailure);
        for kind in ["ReplicaSet", "StatefulSet", "ReplicationController"] {
            assert!(load(&workload(kind, "")).is_ok(), "{kind}");
        }
    }

    #[test]
    fn active_deadlines_are_checked_and_forbidden_where_pods_run_for_ever() {
        assert_eq!(
            load(&workload("Deployment", "activeDeadlineSeconds: 30")).unwrap_err(),
            ["spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"]
        );
        assert_eq!(
            load(&workload("StatefulSet", "activeDeadlineSeconds: 30")).unwrap_err(),
            ["spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported"]
        );
        assert_eq!(
            load(&workload("Job", "restartPolicy: Never\nactiveDeadlineSeconds: 0")).unwrap_err(),
            ["spec.template.spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"]
        );
        assert!(load(&(pod("") + "  activeDeadlineSeconds: 60\n")).is_ok());
    }

    #[test]
    fn workload_errors_use_the_workloads_paths() {
        let text = workload(
            "Deployment",
            "initContainers: [{name: web, image: busybox}]",
        )
        .replace(
            "nginx:1.27}",
            "nginx:1.27, livenessProbe: {exec: {command: [x]}, successThreshold: 2}}",
        );
        assert_eq!(
            load(&text).unwrap_err(),
            [
                "spec.template.spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
                "spec.template.spec.initContainers[0].name: Duplicate value: \"web\"",
            ]
        );
        let long = "a".repeat(53);
        let text = workload("CronJob", "restartPolicy: Never")
            .replace("name: web}", &format!("name: {long}}}"));
        assert_eq!(
            load(&text).unwrap_err(),
            [format!(
                "metadata.name: Invalid value: \"{long}\": must be no more than 52 characters"
            )]
        );
        let text = workload("Deployment", "").replace("metadata: {name: web}\n", "");
        assert_eq!(
            load(&text).unwrap_err(),
            ["metadata.name: Required value: name or generateName is required"]
        );
    }

    #[test]
    fn pods_are_named_as_their_controllers_name_them() {
        let name = |kind: &str, extra: &str| load(&workload(kind, extra)).unwrap().pod.name;
        let d = name("Deployment", "");
        assert!(
            d.starts_with("web-") && d.len() == "web-".len() + 10 + 1 + 5,
            "{d}"
        );
        assert_eq!(name("StatefulSet", ""), "web-0");
        let j = name("Job", "restartPolicy: Never");
        assert!(j.starts_with("web-") && j.len() == 9, "{j}");
        let c = name("CronJob", "restartPolicy: Never");
        assert!(
            c.starts_with("web-29") && c.len() == "web-".len() + 8 + 1 + 5,
            "{c}"
        );
        // Deterministic, and the workload's uid is not the pod's.
        assert_eq!(name("Deployment", ""), d);
        let text = workload("DaemonSet", "").replace("name: web}", "name: web, uid: abc}");
        assert_ne!(load(&text).unwrap().pod.uid, "abc");
    }
}
