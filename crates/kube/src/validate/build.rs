//! From a validated manifest to the engine's [`PodSpec`](probesim_core::PodSpec): named ports
//! resolved, `$(VAR)` expanded in exec commands, handlers built, and the names a controller
//! gives its pods.

use std::collections::BTreeMap;

use probesim_core::{
    ContainerSpec, Handler, PodSpec, Port, ProbeKind, ProbeSpec, ProbeTiming, PullPolicy,
    RestartPolicy, RestartRule, Scheme, SimDuration,
};

use crate::decode::{self, Diags};
use crate::field_path::FieldPath;
use crate::manifest::{
    At, ContainerManifest, IntOrString, PodManifest, PortManifest, ProbeManifest,
};
use crate::workload::WorkloadKind;

use super::ValidatedPod;

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
pub(super) fn go_atoi(s: &str) -> Option<i64> {
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

pub(super) fn as_i32(v: &Option<At<i64>>, default: i32) -> i32 {
    v.as_ref()
        .and_then(|x| i32::try_from(x.value).ok())
        .unwrap_or(default)
}

pub(super) fn build_container(
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

pub(super) fn build(m: &PodManifest, d: &mut Diags) -> Option<ValidatedPod> {
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
            Some(mut spec) => {
                own_restart_policy(&mut spec, c);
                pod.containers.push(spec);
            }
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

/// A regular container's own `restartPolicy` and `restartPolicyRules` (ContainerRestartRules;
/// validated, and kept only where the release allows them): for a regular container
/// `restartPolicy: Always` is a policy, not a sidecar.
fn own_restart_policy(spec: &mut ContainerSpec, c: &ContainerManifest) {
    spec.restartable = false;
    spec.restart_policy = c
        .restart_policy
        .as_ref()
        .and_then(|r| match r.value.as_str() {
            "Always" => Some(RestartPolicy::Always),
            "OnFailure" => Some(RestartPolicy::OnFailure),
            "Never" => Some(RestartPolicy::Never),
            _ => None,
        });
    spec.restart_rules = c
        .restart_rules
        .iter()
        .filter_map(|r| {
            let codes = r.exit_codes.as_ref()?;
            Some(RestartRule {
                exit_code_in: codes.operator.as_ref()?.value == "In",
                values: codes
                    .values
                    .iter()
                    .filter_map(|v| i32::try_from(v.value).ok())
                    .collect(),
            })
        })
        .collect();
}

/// A deterministic stand-in for the apiserver's random `generateName` suffix.
pub(super) fn generated_name(prefix: &str) -> String {
    let mut name = prefix.to_owned();
    name.push_str(&random_chars(prefix, 5));
    name
}

/// `n` characters of the apiserver's random-name alphabet, derived from `seed`.
pub(super) fn random_chars(seed: &str, n: usize) -> String {
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
