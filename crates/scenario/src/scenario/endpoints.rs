//! Endpoint binding: which probe handlers target the same endpoint (`http :8080/healthz`,
//! `tcp :5432`, `exec cat /tmp/healthy`), so that one script answers them all, and the
//! `endpoints:` keys of `apps:` that name them.

use core::fmt;
use std::collections::BTreeMap;

use probesim_core::{ContainerSpec, Handler, HandlerFamily, Port, ProbeKind};
use probesim_script::Script;

use probesim_kube::decode;
use probesim_kube::field_path::FieldPath;
use probesim_kube::manifest::{ContainerManifest, IntOrString, PodManifest};
use probesim_kube::validate;
use probesim_kube::yaml::{Mark, Node};

use super::apps::{Written, SCRIPT_TYPE};
use super::{Loader, ScriptBinding};

pub(super) const ENDPOINT_FORMS: &str =
    "expected \"http[s] [HOST]:PORT[PATH]\", \"tcp [HOST]:PORT\", \"grpc :PORT[/SERVICE]\", \"exec COMMAND…\" or \":PORT\"";

/// Which container an `apps` entry is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ContainerRef {
    Regular(usize),
    Init(usize),
}

/// A probe port in an endpoint key or a handler, after named-port resolution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum PortKey {
    Number(u16),
    Name(String),
    OutOfRange(i64),
}

impl fmt::Display for PortKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PortKey::Number(n) => write!(f, "{n}"),
            PortKey::Name(s) => f.write_str(s),
            PortKey::OutOfRange(n) => write!(f, "{n}"),
        }
    }
}

/// What a probe reaches, normalised so that an endpoint key and a handler compare equal when
/// they name the same target (the pod IP is the same as no host; hosts ignore case).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Target {
    Http {
        https: bool,
        host: Option<String>,
        port: PortKey,
        path: String,
    },
    Tcp {
        host: Option<String>,
        port: PortKey,
    },
    Grpc {
        port: u16,
        service: String,
    },
    Exec {
        words: Vec<String>,
    },
    /// `http [HOST]:PORT` without a path: every HTTP(S) request to that port, whatever the path.
    HttpAnyPath {
        https: bool,
        host: Option<String>,
        port: PortKey,
    },
    /// `:PORT`: every probe of the container that dials that port (httpGet, tcpSocket, grpc).
    Port(PortKey),
}

impl Target {
    /// How specifically this endpoint key answers a probe that targets `probe` (a target of
    /// [`handler_targets`]): 0 the very endpoint, 1 an HTTP port whatever the path, 2 the
    /// whole port; `None` when it does not answer it. A probe takes its most specific key.
    fn covers(&self, probe: &Target) -> Option<u8> {
        if self == probe {
            return Some(0);
        }
        match (self, probe) {
            (
                Target::HttpAnyPath { https, host, port },
                Target::Http {
                    https: h,
                    host: o,
                    port: p,
                    ..
                },
            ) if https == h && host == o && port == p => Some(1),
            (
                Target::Port(port),
                Target::Http {
                    host: None,
                    port: p,
                    ..
                }
                | Target::Tcp {
                    host: None,
                    port: p,
                },
            ) if port == p => Some(2),
            (Target::Port(PortKey::Number(port)), Target::Grpc { port: p, .. }) if port == p => {
                Some(2)
            }
            _ => None,
        }
    }
}

impl fmt::Display for Target {
    /// The canonical endpoint key (`http :8080/healthz`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let host = |h: &Option<String>| match h {
            Some(h) if h.contains(':') => format!("[{h}]"),
            Some(h) => h.clone(),
            None => String::new(),
        };
        match self {
            Target::Http {
                https,
                host: h,
                port,
                path,
            } => {
                let scheme = if *https { "https" } else { "http" };
                write!(f, "{scheme} {}:{port}{path}", host(h))
            }
            Target::Tcp { host: h, port } => write!(f, "tcp {}:{port}", host(h)),
            Target::Grpc { port, service } if service.is_empty() => write!(f, "grpc :{port}"),
            Target::Grpc { port, service } => write!(f, "grpc :{port}/{service}"),
            Target::Exec { words } => write!(f, "exec {}", words.join(" ")),
            Target::HttpAnyPath {
                https,
                host: h,
                port,
            } => {
                let scheme = if *https { "https" } else { "http" };
                write!(f, "{scheme} {}:{port}", host(h))
            }
            Target::Port(port) => write!(f, ":{port}"),
        }
    }
}

/// Normalises a host: none, empty, or the pod IP all mean "the pod IP".
pub(super) fn norm_host(host: Option<&str>, pod_ip: &str) -> Option<String> {
    let h = host?.trim_start_matches('[').trim_end_matches(']');
    if h.is_empty() || h.eq_ignore_ascii_case(pod_ip) {
        None
    } else {
        Some(h.to_ascii_lowercase())
    }
}

pub(super) fn port_key(port: &Port) -> PortKey {
    match port {
        Port::Number(n) => PortKey::Number(*n),
        Port::Unparsable(s) => PortKey::Name(s.clone()),
        Port::OutOfRange(n) => PortKey::OutOfRange(*n),
    }
}

pub(super) fn words(argv: &[String]) -> Vec<String> {
    argv.join(" ")
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// The targets a probe with this handler matches: for exec probes the command as run (after
/// `$(VAR)` expansion) and as written.
pub(super) fn handler_targets(
    handler: &Handler,
    raw_exec: Option<&[String]>,
    pod_ip: &str,
) -> Vec<Target> {
    match handler {
        Handler::Exec { command } => {
            let mut targets = vec![Target::Exec {
                words: words(command),
            }];
            if let Some(raw) = raw_exec {
                let raw = Target::Exec { words: words(raw) };
                if !targets.contains(&raw) {
                    targets.push(raw);
                }
            }
            targets
        }
        Handler::HttpGet {
            scheme,
            host,
            port,
            path,
        } => vec![Target::Http {
            https: matches!(scheme, probesim_core::Scheme::Https),
            host: norm_host(host.as_deref(), pod_ip),
            port: port_key(port),
            // The request URL has a slash between the port and a path without one (Go's
            // `url.URL.String`), so `path: healthz` is the endpoint `:PORT/healthz`.
            path: if path.starts_with('/') {
                path.clone()
            } else {
                format!("/{path}")
            },
        }],
        Handler::TcpSocket { host, port } => vec![Target::Tcp {
            host: norm_host(host.as_deref(), pod_ip),
            port: port_key(port),
        }],
        Handler::Grpc { port, service } => vec![Target::Grpc {
            port: *port,
            service: service.clone(),
        }],
    }
}

pub(super) fn handler_family(handler: &Handler) -> HandlerFamily {
    match handler {
        Handler::Exec { .. } => HandlerFamily::Exec,
        Handler::HttpGet { .. } => HandlerFamily::Http,
        Handler::TcpSocket { .. } => HandlerFamily::Tcp,
        Handler::Grpc { .. } => HandlerFamily::Grpc,
    }
}

/// An endpoint key as written, before named ports and the pod IP are taken into account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum EndpointKey {
    /// `path` is `None` for a key without a path (`http :8080`): any path.
    Http {
        https: bool,
        host: Option<String>,
        port: String,
        path: Option<String>,
    },
    /// `:PORT`.
    Port {
        port: String,
    },
    Tcp {
        host: Option<String>,
        port: String,
    },
    Grpc {
        port: u16,
        service: String,
    },
    Exec {
        words: Vec<String>,
    },
}

/// `[HOST]:PORT` followed by the rest.
pub(super) fn split_host_port(text: &str) -> Result<(Option<String>, &str, &str), String> {
    let (host, rest) = if let Some(inner) = text.strip_prefix('[') {
        let end = inner
            .find(']')
            .ok_or_else(|| "missing \"]\" after an IPv6 host".to_owned())?;
        (Some(inner[..end].to_owned()), &inner[end + 1..])
    } else {
        let colon = text
            .find(':')
            .ok_or_else(|| "expected \":PORT\"".to_owned())?;
        let host = &text[..colon];
        ((!host.is_empty()).then(|| host.to_owned()), &text[colon..])
    };
    let rest = rest
        .strip_prefix(':')
        .ok_or_else(|| "expected \":PORT\" after the host".to_owned())?;
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (port, after) = rest.split_at(end);
    if port.is_empty() {
        return Err("missing port after \":\"".to_owned());
    }
    if port.bytes().all(|b| b.is_ascii_digit()) && !port_number_ok(port) {
        return Err(format!("port {port} is not between 1 and 65535"));
    }
    Ok((host, port, after))
}

pub(super) fn port_number_ok(port: &str) -> bool {
    port.parse::<u32>().is_ok_and(|n| (1..=65535).contains(&n))
}

/// Reads an endpoint key (docs/scenario-format.md#endpoint-keys).
pub(super) fn parse_endpoint(key: &str) -> Result<EndpointKey, String> {
    let key = key.trim();
    if key.starts_with(':') {
        let (_, port, after) = split_host_port(key)?;
        if !after.is_empty() {
            return Err(format!(
                "unexpected {after:?} after the port (\":PORT\" answers every probe on the port; name a path with \"http :{port}{after}\")"
            ));
        }
        return Ok(EndpointKey::Port {
            port: port.to_owned(),
        });
    }
    let (kind, rest) = key
        .split_once(char::is_whitespace)
        .map_or((key, ""), |(k, r)| (k, r.trim()));
    match kind {
        "http" | "https" => {
            let (host, port, path) = split_host_port(rest)?;
            Ok(EndpointKey::Http {
                https: kind == "https",
                host,
                port: port.to_owned(),
                path: (!path.is_empty()).then(|| path.to_owned()),
            })
        }
        "tcp" => {
            let (host, port, after) = split_host_port(rest)?;
            if !after.is_empty() {
                return Err(format!("unexpected {after:?} after the port"));
            }
            Ok(EndpointKey::Tcp {
                host,
                port: port.to_owned(),
            })
        }
        "grpc" => {
            let (host, port, after) = split_host_port(rest)?;
            if host.is_some() {
                return Err("grpc probes have no host: write \"grpc :PORT\"".to_owned());
            }
            let Some(port) = port.parse::<u16>().ok().filter(|p| *p >= 1) else {
                return Err(format!(
                    "grpc port {port:?} is not a number between 1 and 65535"
                ));
            };
            let service = match after {
                "" => String::new(),
                s => match s.strip_prefix('/') {
                    Some(service) => service.to_owned(),
                    None => return Err(format!("unexpected {s:?} after the port")),
                },
            };
            Ok(EndpointKey::Grpc { port, service })
        }
        "exec" => {
            let words: Vec<String> = rest.split_whitespace().map(str::to_owned).collect();
            if words.is_empty() {
                return Err("missing command after \"exec\"".to_owned());
            }
            Ok(EndpointKey::Exec { words })
        }
        _ => Err(ENDPOINT_FORMS.to_owned()),
    }
}

impl EndpointKey {
    /// The target in the context of a container (named ports resolved as the kubelet does).
    fn target(&self, container: &ContainerManifest, pod_ip: &str) -> Target {
        let port = |p: &str| -> PortKey {
            let ios = match p.parse::<i64>() {
                Ok(n) if p.bytes().all(|b| b.is_ascii_digit()) => IntOrString::Int(n),
                _ => IntOrString::Str(p.to_owned()),
            };
            port_key(&validate::resolve_port(&ios, &container.ports))
        };
        match self {
            EndpointKey::Http {
                https,
                host,
                port: p,
                path: Some(path),
            } => Target::Http {
                https: *https,
                host: norm_host(host.as_deref(), pod_ip),
                port: port(p),
                path: path.clone(),
            },
            EndpointKey::Http {
                https,
                host,
                port: p,
                path: None,
            } => Target::HttpAnyPath {
                https: *https,
                host: norm_host(host.as_deref(), pod_ip),
                port: port(p),
            },
            EndpointKey::Port { port: p } => Target::Port(port(p)),
            EndpointKey::Tcp { host, port: p } => Target::Tcp {
                host: norm_host(host.as_deref(), pod_ip),
                port: port(p),
            },
            EndpointKey::Grpc { port, service } => Target::Grpc {
                port: *port,
                service: service.clone(),
            },
            EndpointKey::Exec { words } => Target::Exec {
                words: words.clone(),
            },
        }
    }
}

/// One `endpoints` entry.
pub(super) struct Endpoint<'a> {
    pub(super) key: &'a str,
    pub(super) mark: Mark,
    pub(super) parsed: EndpointKey,
    pub(super) script: Option<Written<'a, Script>>,
}

/// The pod's containers by name, for the `apps` entries: a regular container before an init
/// container of the same name, the first of each list (one look-up per entry, not a search).
pub(super) fn containers_by_name(m: &PodManifest) -> BTreeMap<&str, ContainerRef> {
    let mut by = BTreeMap::new();
    let regular = m.spec.containers.iter().enumerate();
    for (i, c) in regular {
        by.entry(c.name_str()).or_insert(ContainerRef::Regular(i));
    }
    for (i, c) in m.spec.init_containers.iter().enumerate() {
        by.entry(c.name_str()).or_insert(ContainerRef::Init(i));
    }
    by
}

impl Loader<'_> {
    pub(super) fn endpoints<'a>(
        &mut self,
        node: Option<&'a Node>,
        path: &FieldPath,
    ) -> Vec<Endpoint<'a>> {
        let mut out = Vec::new();
        let Some(node) = node else {
            return out;
        };
        let Some(entries) = self.map_entries(node, path) else {
            return out;
        };
        for (key, value) in entries {
            let p = path.key(&key.text);
            let parsed = match parse_endpoint(&key.text) {
                Ok(k) => k,
                Err(message) => {
                    self.report(&p, Some(key.mark), format!("invalid endpoint: {message}"));
                    continue;
                }
            };
            let script = if value.is_null() {
                decode::type_error(&mut self.d, value, &p, SCRIPT_TYPE);
                None
            } else {
                self.script(value, &p)
            };
            out.push(Endpoint {
                key: &key.text,
                mark: key.mark,
                parsed,
                script,
            });
        }
        out
    }

    /// Binds a container's scripts to its probes: `probes.<type>` first, then endpoints.
    #[expect(
        clippy::too_many_arguments,
        reason = "one call site; the pieces come from different borrows"
    )]
    pub(super) fn bind(
        &mut self,
        app_path: &FieldPath,
        index: usize,
        cm: &ContainerManifest,
        spec: &ContainerSpec,
        pod_ip: &str,
        probe_scripts: Vec<(ProbeKind, Mark, Written<'_, Script>)>,
        endpoints: Vec<Endpoint<'_>>,
        out: &mut Vec<ScriptBinding>,
    ) {
        let name = cm.name_str();
        let mut own = [false; 3];
        for (kind, mark, script) in probe_scripts {
            let p = app_path.child("probes").key(kind.as_str());
            let Some(probe) = spec.probe(kind) else {
                self.report(
                    &p,
                    Some(mark),
                    format!("container {name:?} has no {}", kind.field()),
                );
                continue;
            };
            own[kind.index()] = true;
            if let Err(e) = script.value.check_handler(handler_family(probe.handler())) {
                self.script_error(&p, script.node, script.text, &e);
                continue;
            }
            out.push(ScriptBinding {
                container: index,
                probes: vec![kind],
                script: script.value,
                origin: p.to_string(),
            });
        }
        // What each probe without its own script targets.
        let targets: Vec<(ProbeKind, Vec<Target>)> = ProbeKind::ALL
            .into_iter()
            .filter(|kind| !own[kind.index()])
            .filter_map(|kind| {
                let probe = spec.probe(kind)?;
                let raw = cm.probe(kind).and_then(|m| m.exec.as_ref()).map(|e| {
                    e.command
                        .iter()
                        .map(|w| w.value.clone())
                        .collect::<Vec<_>>()
                });
                Some((
                    kind,
                    handler_targets(probe.handler(), raw.as_deref(), pod_ip),
                ))
            })
            .collect();
        // Each endpoint's target, duplicates reported; then each probe takes the most
        // specific endpoint that answers it (the very endpoint, `http :PORT`, then `:PORT`).
        let mut seen: Vec<(Target, &str)> = Vec::new();
        // Each endpoint, with the key it repeats if it names an endpoint already given.
        let mut keyed: Vec<(Endpoint<'_>, Target, FieldPath, Option<&str>)> = Vec::new();
        for ep in endpoints {
            let p = app_path.child("endpoints").key(ep.key);
            let target = ep.parsed.target(cm, pod_ip);
            let repeats = seen.iter().find(|(t, _)| *t == target).map(|(_, k)| *k);
            if repeats.is_none() {
                seen.push((target.clone(), ep.key));
            }
            keyed.push((ep, target, p, repeats));
        }
        let taker = |kind_targets: &[Target]| -> Option<usize> {
            keyed
                .iter()
                .enumerate()
                .filter(|(_, (_, _, _, repeats))| repeats.is_none())
                .filter_map(|(i, (_, key, _, _))| {
                    kind_targets
                        .iter()
                        .filter_map(|t| key.covers(t))
                        .min()
                        .map(|rank| (rank, i))
                })
                .min()
                .map(|(_, i)| i)
        };
        let taken: Vec<(ProbeKind, Option<usize>)> = targets
            .iter()
            .map(|(kind, ts)| (*kind, taker(ts)))
            .collect();
        for (i, (ep, target, p, repeats)) in keyed.into_iter().enumerate() {
            if let Some(first) = repeats {
                self.report(&p, Some(ep.mark), format!("the same endpoint as {first:?}"));
                continue;
            }
            let users: Vec<ProbeKind> = taken
                .iter()
                .filter(|(_, t)| *t == Some(i))
                .map(|(kind, _)| *kind)
                .collect();
            if users.is_empty() {
                let covered = targets
                    .iter()
                    .any(|(_, ts)| ts.iter().any(|t| target.covers(t).is_some()));
                if covered {
                    self.report(
                        &p,
                        Some(ep.mark),
                        format!(
                            "every probe of container {name:?} that this endpoint answers has a more specific script"
                        ),
                    );
                    continue;
                }
                let mut listed: Vec<String> = Vec::new();
                for (_, ts) in &targets {
                    let t = format!("{:?}", ts[0].to_string());
                    if !listed.contains(&t) {
                        listed.push(t);
                    }
                }
                let hint = if listed.is_empty() {
                    String::new()
                } else {
                    format!(" (its probes target {})", listed.join(", "))
                };
                self.report(
                    &p,
                    Some(ep.mark),
                    format!("no probe of container {name:?} targets this endpoint{hint}"),
                );
                continue;
            }
            let Some(script) = ep.script else {
                continue;
            };
            // A port-wide script answers probes of several handlers: it must fit each.
            let mut families: Vec<HandlerFamily> = Vec::new();
            for kind in &users {
                if let Some(probe) = spec.probe(*kind) {
                    let family = handler_family(probe.handler());
                    if !families.contains(&family) {
                        families.push(family);
                    }
                }
            }
            if let Some(e) = families
                .iter()
                .find_map(|f| script.value.check_handler(*f).err())
            {
                self.script_error(&p, script.node, script.text, &e);
                continue;
            }
            out.push(ScriptBinding {
                container: index,
                probes: users,
                script: script.value,
                origin: p.to_string(),
            });
        }
    }
}

/// The notes for the probes that no script answers, which answer `ok` to every request: one
/// per probe, naming what it targets and where a script would go.
/// `command_line` words the hint for a manifest run (`--app`) instead of a scenario's `apps`.
pub(super) fn fallback_notes(scenario: &super::Scenario, command_line: bool) -> Vec<String> {
    let pod = &scenario.pod;
    let groups = [
        (&pod.init_containers, &scenario.init_bindings),
        (&pod.containers, &scenario.bindings),
    ];
    let mut notes = Vec::new();
    for (containers, bindings) in groups {
        for (i, container) in containers.iter().enumerate() {
            for kind in ProbeKind::ALL {
                let Some(probe) = container.probe(kind) else {
                    continue;
                };
                let scripted = bindings
                    .iter()
                    .any(|b| b.container == i && b.probes.contains(&kind));
                // A port the kubelet cannot resolve errors at every attempt: no script would
                // be asked, and the named-port note already says so.
                let unreachable = matches!(
                    probe.handler(),
                    probesim_core::Handler::HttpGet { port, .. }
                        | probesim_core::Handler::TcpSocket { port, .. }
                        if port.number().is_none()
                );
                if scripted || unreachable {
                    continue;
                }
                let target = handler_targets(probe.handler(), None, &pod.pod_ip)
                    .into_iter()
                    .next()
                    .map_or_else(String::new, |t| format!(" ({t})"));
                let name = &container.name;
                let hint = if command_line {
                    format!("--app '{name}: {}=SCRIPT'", kind.as_str())
                } else {
                    format!(
                        "apps.{name}.probes.{} or apps.{name}.endpoints",
                        kind.as_str()
                    )
                };
                notes.push(format!(
                    "{}: container {name:?}: its {}{target} has no script and answers ok to every request; give it one with {hint}",
                    scenario.file,
                    kind.field(),
                ));
            }
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::tests::{errors, load, with_pod};
    use crate::scenario::*;

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
            "apps:\n  kubia:\n    endpoints:\n      \"tcp :9090\": open\n      \"http :8080/\": ok\n      \"http :http/\": ok\n      \"ftp :21\": ok\n      \"http :99999/\": ok\n",
        ));
        assert_eq!(
            e,
            [
                "21:7: apps.kubia.endpoints.\"ftp :21\": invalid endpoint: expected \"http[s] [HOST]:PORT[PATH]\", \"tcp [HOST]:PORT\", \"grpc :PORT[/SERVICE]\", \"exec COMMAND…\" or \":PORT\"",
                "22:7: apps.kubia.endpoints.\"http :99999/\": invalid endpoint: port 99999 is not between 1 and 65535",
                "18:7: apps.kubia.endpoints.\"tcp :9090\": no probe of container \"kubia\" targets this endpoint (its probes target \"http :8080/\")",
                "20:7: apps.kubia.endpoints.\"http :http/\": the same endpoint as \"http :8080/\"",
            ]
        );
        let e = errors(&with_pod("apps:\n  kubia:\n    probes: {startup: ok}\n"));
        assert_eq!(
            e,
            ["17:14: apps.kubia.probes.startup: container \"kubia\" has no startupProbe"]
        );
    }
}
