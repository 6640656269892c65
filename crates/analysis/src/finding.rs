//! Findings: probe checks users know from kube-score, kube-linter and Polaris, and timing
//! checks only a simulator can make, each with a stable id, a severity, the field path and
//! line, and an explanation with the numbers (documented in `docs/findings.md`).

use core::fmt;

use probesim_core::profile::ExecTimeout;
use probesim_core::{ContainerSpec, Handler, Port, ProbeKind, ProbeSpec, SimDuration};
use probesim_kube::manifest::{ContainerManifest, PortManifest};

use crate::figure::{ContainerFigures, Figure};
use crate::subject::Subject;

/// How serious a finding is (SARIF's `level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing.
    Note,
    /// Probably a mistake.
    Warning,
    /// The configuration does not do what it is meant to.
    Error,
}

impl Severity {
    /// `note`, `warning` or `error` (SARIF's words).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// Reads `warning` or `error` (the `--fail-on` values), and `note`.
    #[must_use]
    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "note" => Some(Severity::Note),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One kind of finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The stable id (`liveness-missing`).
    pub id: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// A one-line summary.
    pub summary: &'static str,
    /// What to do about it.
    pub help: &'static str,
}

/// Every rule, in the order of `docs/findings.md`.
pub const RULES: &[Rule] = &[
    Rule {
        id: "liveness-missing",
        severity: Severity::Warning,
        summary: "The container has no liveness probe: a hung process is never restarted.",
        help: "Add a livenessProbe that fails when the process can no longer serve (a cheap local endpoint, not its dependencies).",
    },
    Rule {
        id: "readiness-missing",
        severity: Severity::Warning,
        summary: "A Service targets the pod, but the container has no readiness probe: it receives traffic as soon as it runs, and while it fails.",
        help: "Add a readinessProbe so the Service sends traffic only to containers that answer.",
    },
    Rule {
        id: "liveness-equals-readiness",
        severity: Severity::Warning,
        summary: "The liveness and readiness probes are identical: a failing container is taken out of the Service and killed at the same time.",
        help: "Let readiness fail first (a lower failureThreshold or a shorter period), and liveness only when the process is beyond recovery.",
    },
    Rule {
        id: "probe-port-not-exposed",
        severity: Severity::Warning,
        summary: "The probe targets a port the container does not declare in `ports`.",
        help: "Probe a port the container listens on, and declare it in `ports` (a named port keeps both in step).",
    },
    Rule {
        id: "probe-named-port-unresolved",
        severity: Severity::Error,
        summary: "The probe names a port that no `ports` entry of the container has: every attempt is a prober error and the probe never succeeds.",
        help: "Name a port of the container's `ports`, or give the number.",
    },
    Rule {
        id: "probe-on-job",
        severity: Severity::Warning,
        summary: "A Job's pod has probes: nothing routes traffic to it, and a liveness kill restarts or fails the run.",
        help: "Remove readiness probes from Job pods; keep a liveness probe only to bound a hang, with a generous budget.",
    },
    Rule {
        id: "probe-on-init-container",
        severity: Severity::Error,
        summary: "An init container (not a sidecar) has probes: the API server rejects them.",
        help: "Remove the probes, or make the init container a sidecar (`restartPolicy: Always`).",
    },
    Rule {
        id: "timeout-not-less-than-period",
        severity: Severity::Warning,
        summary: "timeoutSeconds is not less than periodSeconds: a hanging attempt swallows the next ticks, so detection is slower than period × threshold.",
        help: "Keep timeoutSeconds below periodSeconds.",
    },
    Rule {
        id: "startup-budget-below-expected",
        severity: Severity::Error,
        summary: "The app needs longer to start than the probes guarantee: it can be killed while it starts, again and again.",
        help: "Add a startupProbe (or raise its failureThreshold) so that its guaranteed budget covers the start-up time.",
    },
    Rule {
        id: "liveness-before-ready",
        severity: Severity::Warning,
        summary: "Without a startup probe, liveness can kill a starting app before readiness has even had time to mark a healthy one Ready.",
        help: "Add a startupProbe, or give liveness a budget longer than the time to Ready.",
    },
    Rule {
        id: "grace-dominates-recovery",
        severity: Severity::Warning,
        summary: "After a hang is detected, waiting for the process to die takes as long as detecting it: the grace period dominates recovery.",
        help: "Handle SIGTERM, or set the probe-level terminationGracePeriodSeconds on the liveness probe.",
    },
    Rule {
        id: "initial-delay-shadowed-by-startup",
        severity: Severity::Warning,
        summary: "The probe has an initialDelaySeconds while a startup probe guards the start: the delay still counts from the container start and only postpones the first check.",
        help: "Drop initialDelaySeconds from liveness and readiness probes when a startupProbe exists.",
    },
    Rule {
        id: "exec-timeout-ignored",
        severity: Severity::Warning,
        summary: "This release does not enforce exec probe timeouts: a hanging command never fails, so a hang is never detected.",
        help: "Use an httpGet, tcpSocket or gRPC probe, or a release (or ExecProbeTimeout gate) that enforces exec timeouts.",
    },
];

/// The rule with this id.
#[must_use]
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Its rule.
    pub rule: &'static Rule,
    /// The container concerned.
    pub container: String,
    /// The field path (`spec.template.spec.containers[0].livenessProbe`).
    pub path: String,
    /// Line and column in the subject's file, when known.
    pub at: Option<(usize, usize)>,
    /// One paragraph, with the numbers.
    pub message: String,
    /// A change that removes the finding, simulated ([`crate::fix::measure`]), when one is known.
    pub fix: Option<crate::fix::Fix>,
}

/// Seconds as the explanations print them: `80s`, `79.999s`, `never`.
fn s(v: Option<SimDuration>) -> String {
    v.map_or_else(|| "never".to_owned(), |d| format!("{d}s"))
}

fn range(f: &Figure) -> String {
    if f.min.value == f.max.value {
        s(f.min.value)
    } else {
        format!("{} to {}", s(f.min.value), s(f.max.value))
    }
}

struct Ctx<'a> {
    subject: &'a Subject,
    out: Vec<Finding>,
}

/// A container of the pod as the manifest lists it: a regular container, or a sidecar (an
/// init container with `restartPolicy: Always`).
#[derive(Clone, Copy)]
struct Slot {
    init: bool,
    i: usize,
}

impl Ctx<'_> {
    fn push(
        &mut self,
        id: &str,
        container: &str,
        path: String,
        at: Option<(usize, usize)>,
        message: String,
    ) {
        let Some(rule) = rule(id) else {
            return;
        };
        self.out.push(Finding {
            rule,
            container: container.to_owned(),
            path,
            at,
            message,
            fix: None,
        });
    }

    fn manifest(&self, slot: Slot) -> Option<&ContainerManifest> {
        let m = self.subject.manifest.as_ref()?;
        if slot.init {
            m.spec.init_containers.get(slot.i)
        } else {
            m.spec.containers.get(slot.i)
        }
    }

    fn container_at(&self, slot: Slot) -> Option<(usize, usize)> {
        self.manifest(slot).map(|c| (c.mark.line, c.mark.col))
    }

    fn probe_at(&self, slot: Slot, kind: ProbeKind) -> Option<(usize, usize)> {
        let c = self.manifest(slot)?;
        c.probe(kind).map(|p| (p.mark.line, p.mark.col))
    }

    /// Where the probe's handler (`httpGet`, `exec`, …) is written (else the probe).
    fn handler_at(&self, slot: Slot, kind: ProbeKind) -> Option<(usize, usize)> {
        let p = self.manifest(slot)?.probe(kind)?;
        let m = p
            .http_get
            .as_ref()
            .map(|h| h.mark)
            .or_else(|| p.tcp_socket.as_ref().map(|t| t.mark))
            .or_else(|| p.grpc.as_ref().map(|g| g.mark))
            .or_else(|| p.exec.as_ref().map(|e| e.mark))
            .unwrap_or(p.mark);
        Some((m.line, m.col))
    }

    /// Where the probe's `port` is written (else the probe).
    fn port_at(&self, slot: Slot, kind: ProbeKind) -> Option<(usize, usize)> {
        let p = self.manifest(slot)?.probe(kind)?;
        let m = p
            .http_get
            .as_ref()
            .and_then(|h| h.port.as_ref().map(|a| a.mark))
            .or_else(|| {
                p.tcp_socket
                    .as_ref()
                    .and_then(|t| t.port.as_ref().map(|a| a.mark))
            })
            .or_else(|| {
                p.grpc
                    .as_ref()
                    .and_then(|g| g.port.as_ref().map(|a| a.mark))
            })
            .unwrap_or(p.mark);
        Some((m.line, m.col))
    }

    fn field_at(&self, slot: Slot, kind: ProbeKind, field: &str) -> Option<(usize, usize)> {
        let p = self.manifest(slot)?.probe(kind)?;
        let m = match field {
            "timeoutSeconds" => p.timeout_seconds.as_ref().map(|a| a.mark),
            "initialDelaySeconds" => p.initial_delay_seconds.as_ref().map(|a| a.mark),
            "periodSeconds" => p.period_seconds.as_ref().map(|a| a.mark),
            "failureThreshold" => p.failure_threshold.as_ref().map(|a| a.mark),
            _ => None,
        };
        m.map(|m| (m.line, m.col))
            .or(Some((p.mark.line, p.mark.col)))
    }
}

/// Every finding of a subject, given its containers' figures: the regular containers and the
/// sidecars (init containers with `restartPolicy: Always`) get the same checks; an init
/// container that is not a sidecar gets only `probe-on-init-container`. Findings the subject
/// suppresses ([`Subject::ignore`]) are left out; [`suppressed`] returns them.
#[must_use]
pub fn findings(subject: &Subject, figures: &[ContainerFigures]) -> Vec<Finding> {
    all(subject, figures)
        .into_iter()
        .filter(|f| subject.ignores(f.rule.id).is_none())
        .collect()
}

/// The findings a suppression of the subject hides, each with what suppressed it.
#[must_use]
pub fn suppressed(subject: &Subject, figures: &[ContainerFigures]) -> Vec<(Finding, String)> {
    all(subject, figures)
        .into_iter()
        .filter_map(|f| subject.ignores(f.rule.id).map(|by| (f, by.to_owned())))
        .collect()
}

fn all(subject: &Subject, figures: &[ContainerFigures]) -> Vec<Finding> {
    let mut cx = Ctx {
        subject,
        out: Vec::new(),
    };
    let spec = subject.pod_spec_path();
    for (i, c) in subject.pod.init_containers.iter().enumerate() {
        let slot = Slot { init: true, i };
        if c.restartable {
            if c.probes.iter().any(Option::is_some) {
                let f = figures.iter().find(|f| f.index == i);
                let path = format!("{spec}.initContainers[{i}]");
                container(&mut cx, &path, slot, c, f);
            }
        } else if c.probes.iter().any(Option::is_some) {
            let path = format!("{spec}.initContainers[{i}]");
            let at = cx.container_at(slot);
            cx.push(
                "probe-on-init-container",
                &c.name,
                path,
                at,
                format!(
                    "init container {} has probes; init containers run to completion before the app starts, so the kubelet never probes them and the API server rejects the field",
                    c.name
                ),
            );
        }
    }
    let init = subject.pod.init_containers.len();
    for (i, c) in subject.pod.containers.iter().enumerate() {
        let f = figures.iter().find(|f| f.index == init + i);
        let path = format!("{spec}.containers[{i}]");
        container(&mut cx, &path, Slot { init: false, i }, c, f);
    }
    cx.out
}

fn container(
    cx: &mut Ctx<'_>,
    path: &str,
    slot: Slot,
    c: &ContainerSpec,
    f: Option<&ContainerFigures>,
) {
    let subject = cx.subject;
    let path = path.to_owned();
    let probe_path = |kind: ProbeKind| format!("{path}.{}", kind.field());
    let liveness = c.probe(ProbeKind::Liveness);
    let readiness = c.probe(ProbeKind::Readiness);
    let startup = c.probe(ProbeKind::Startup);
    let name = c.name.as_str();
    if subject.is_job() {
        for kind in ProbeKind::ALL {
            if c.probe(kind).is_some() {
                let at = cx.probe_at(slot, kind);
                cx.push(
                    "probe-on-job",
                    name,
                    probe_path(kind),
                    at,
                    format!(
                        "container {name} of {} ({}) has a {kind} probe; a Job's pod serves no traffic, so readiness changes nothing, and a liveness or startup kill restarts the work (OnFailure) or fails the pod (Never)",
                        subject.name,
                        subject.kind.name()
                    ),
                );
            }
        }
    } else if liveness.is_none() {
        let at = cx.container_at(slot);
        cx.push(
            "liveness-missing",
            name,
            path.clone(),
            at,
            format!(
                "container {name} has no livenessProbe: if its process hangs while it keeps running, the kubelet never restarts it (hangDetection.kill: {})",
                f.map_or_else(|| "never".to_owned(), |f| range(&f.hang.kill))
            ),
        );
    }
    if !subject.services.is_empty() && readiness.is_none() && !subject.is_job() {
        let ready = f.map_or_else(String::new, |f| {
            format!(
                " (readiness.toReady: {} after its start)",
                range(&f.readiness.to_ready)
            )
        });
        let at = cx.container_at(slot);
        cx.push(
            "readiness-missing",
            name,
            path.clone(),
            at,
            format!(
                "{} selects this pod, but container {name} has no readinessProbe: the pod counts as ready as soon as the container runs{ready}, and keeps receiving traffic while it fails",
                subject.services.join(", ")
            ),
        );
    }
    if let (Some(l), Some(r)) = (liveness, readiness) {
        if same(l, r) {
            let numbers = f.map_or_else(String::new, |f| {
                format!(
                    ": a Ready app that starts failing is taken out of the Service after {} and a hung one is killed after {}",
                    f.readiness.to_not_ready.as_ref().map_or_else(|| "never".to_owned(), range),
                    range(&f.hang.kill)
                )
            });
            let at = cx.handler_at(slot, ProbeKind::Liveness);
            cx.push(
                "liveness-equals-readiness",
                name,
                format!(
                    "{}.{}",
                    probe_path(ProbeKind::Liveness),
                    l.handler().name()
                ),
                at,
                format!(
                    "container {name}'s livenessProbe and readinessProbe ask the same endpoint ({}){numbers}; when that endpoint fails, the kill comes with the removal, leaving no time to recover",
                    endpoint(l.handler())
                ),
            );
        }
    }
    for kind in ProbeKind::ALL {
        let Some(p) = c.probe(kind) else { continue };
        ports(cx, slot, kind, p, &probe_path(kind), name);
        if p.timeout_seconds() >= p.period_seconds() {
            let numbers = match (kind, f) {
                (ProbeKind::Liveness, Some(f)) => format!(
                    "; a hung app is killed {} after it hangs, where periodSeconds × failureThreshold suggests {}s",
                    range(&f.hang.kill),
                    i64::from(p.period_seconds()) * i64::from(p.failure_threshold())
                ),
                (ProbeKind::Startup, Some(f)) => f.startup_budget.as_ref().map_or_else(
                    String::new,
                    |b| {
                        format!(
                            "; an app refusing every probe from its start survives {} (startupBudget)",
                            range(b)
                        )
                    },
                ),
                _ => String::new(),
            };
            let at = cx.field_at(slot, kind, "timeoutSeconds");
            cx.push(
                "timeout-not-less-than-period",
                name,
                format!("{}.timeoutSeconds", probe_path(kind)),
                at,
                format!(
                    "container {name}'s {kind} probe waits {}s for an answer but ticks every {}s: while an attempt hangs the next tick is held and the rest are dropped (P17){numbers}",
                    p.timeout_seconds(),
                    p.period_seconds()
                ),
            );
        }
        if startup.is_some() && kind != ProbeKind::Startup && p.initial_delay_seconds() > 0 {
            let at = cx.field_at(slot, kind, "initialDelaySeconds");
            let ready = match (kind, f) {
                (ProbeKind::Readiness, Some(f)) => format!(
                    "; a healthy app is Ready {} after its start",
                    range(&f.readiness.to_ready)
                ),
                _ => String::new(),
            };
            cx.push(
                "initial-delay-shadowed-by-startup",
                name,
                format!("{}.initialDelaySeconds", probe_path(kind)),
                at,
                format!(
                    "container {name} has a startupProbe, which holds the {kind} probe until the app has started; the {kind} probe's initialDelaySeconds {} still counts from the container start, so it only postpones the first {kind} check of an app that started sooner{ready}",
                    p.initial_delay_seconds()
                ),
            );
        }
        if matches!(p.handler(), Handler::Exec { .. })
            && matches!(subject.profile.exec_timeout(), ExecTimeout::Error(_))
            && kind != ProbeKind::Readiness
        {
            let at = cx.probe_at(slot, kind);
            cx.push(
                "exec-timeout-ignored",
                name,
                format!("{}.exec", probe_path(kind)),
                at,
                format!(
                    "Kubernetes {} does not enforce exec probe timeouts (ExecProbeTimeout): container {name}'s {kind} command that hangs never fails, so a hang is never detected (hangDetection.kill: {})",
                    subject.profile.version(),
                    f.map_or_else(|| "never".to_owned(), |f| range(&f.hang.kill))
                ),
            );
        }
    }
    let Some(f) = f else { return };
    timing(cx, slot, c, f, &path);
}

/// The findings made of figures.
fn timing(cx: &mut Ctx<'_>, slot: Slot, c: &ContainerSpec, f: &ContainerFigures, path: &str) {
    let subject = cx.subject;
    let name = c.name.as_str();
    let budget = f.startup_budget.as_ref();
    let mut expected: Vec<(SimDuration, String)> = subject
        .declared_startup
        .iter()
        .filter(|(c, _, _)| !slot.init && *c == slot.i)
        .map(|(_, d, origin)| (*d, origin.clone()))
        .collect();
    if let Some(d) = subject.expect_startup {
        expected.push((d, "--expect-startup".to_owned()));
    }
    if let (Some(b), Some((need, origin))) = (budget, expected.into_iter().max()) {
        if b.min.value.is_some_and(|v| v < need) {
            let kind = if c.probe(ProbeKind::Startup).is_some() {
                ProbeKind::Startup
            } else {
                ProbeKind::Liveness
            };
            let at = cx.probe_at(slot, kind);
            cx.push(
                "startup-budget-below-expected",
                name,
                format!("{path}.{}", kind.field()),
                at,
                format!(
                    "container {name} needs {need}s to start ({origin}), but an app that fails its probes from its start is guaranteed to survive only {} ({}); at best {} ({}). It can be killed before it ever answers, and again after every restart",
                    s(b.min.value),
                    b.min.phase.of_start(),
                    s(b.max.value),
                    b.max.phase.of_start()
                ),
            );
        }
    }
    if c.probe(ProbeKind::Startup).is_none() && c.probe(ProbeKind::Readiness).is_some() {
        if let (Some(b), Some(ready)) = (budget, f.readiness.to_ready.min.value) {
            if b.min.value.is_some_and(|v| v < ready) {
                let at = cx.probe_at(slot, ProbeKind::Liveness);
                cx.push(
                    "liveness-before-ready",
                    name,
                    format!("{path}.livenessProbe"),
                    at,
                    format!(
                        "container {name}'s liveness probe can kill an app that is still starting after {} ({}), while even a healthy app needs {} to be Ready: liveness judges the start before readiness does",
                        s(b.min.value),
                        b.min.phase,
                        range(&f.readiness.to_ready)
                    ),
                );
            }
        }
    }
    let (kill, exit) = (f.hang.kill.max.value, f.hang.exit.max.value);
    if let (Some(kill), Some(exit)) = (kill, exit) {
        let wait = exit.saturating_sub(kill);
        if wait >= SimDuration::from_secs(2) && wait >= kill {
            let at = cx.probe_at(slot, ProbeKind::Liveness);
            cx.push(
                "grace-dominates-recovery",
                name,
                format!("{path}.livenessProbe"),
                at,
                format!(
                    "container {name}: a hang is detected within {} but the process is gone only {} after the hang ({wait}s of waiting for it to die, with its SIGTERM behaviour and a grace period of {}s); the replacement runs {} after the hang",
                    range(&f.hang.kill),
                    range(&f.hang.exit),
                    c.probe(ProbeKind::Liveness)
                        .and_then(ProbeSpec::termination_grace_period_seconds)
                        .unwrap_or(subject.pod.termination_grace_period_seconds),
                    range(&f.hang.restarted)
                ),
            );
        }
    }
}

/// What a probe asks, as the explanations print it: `httpGet /healthz on port 8080`.
fn endpoint(h: &Handler) -> String {
    let port = |p: &Port| match p {
        Port::Number(n) => n.to_string(),
        Port::Unparsable(s) => format!("{s:?}"),
        Port::OutOfRange(n) => n.to_string(),
    };
    match h {
        Handler::HttpGet { port: p, path, .. } => format!("httpGet {path} on port {}", port(p)),
        Handler::TcpSocket { port: p, .. } => format!("tcpSocket on port {}", port(p)),
        Handler::Grpc { port: p, service } if service.is_empty() => format!("grpc on port {p}"),
        Handler::Grpc { port: p, service } => format!("grpc on port {p}, service {service:?}"),
        Handler::Exec { command } => format!("exec {command:?}"),
    }
}

/// kube-score's test of identical probes: the same handler on the same endpoint (an HTTP path
/// and port, a TCP port, a gRPC port and service, an exec command). Timing is not compared: two
/// probes of one endpoint fail together whatever their periods, which is the mistake.
fn same(a: &ProbeSpec, b: &ProbeSpec) -> bool {
    match (a.handler(), b.handler()) {
        (
            Handler::HttpGet {
                port: p1, path: h1, ..
            },
            Handler::HttpGet {
                port: p2, path: h2, ..
            },
        ) => p1 == p2 && h1 == h2,
        (Handler::TcpSocket { port: p1, .. }, Handler::TcpSocket { port: p2, .. }) => p1 == p2,
        (
            Handler::Grpc {
                port: p1,
                service: s1,
            },
            Handler::Grpc {
                port: p2,
                service: s2,
            },
        ) => p1 == p2 && s1 == s2,
        (Handler::Exec { command: c1 }, Handler::Exec { command: c2 }) => c1 == c2,
        _ => false,
    }
}

fn ports(cx: &mut Ctx<'_>, slot: Slot, kind: ProbeKind, p: &ProbeSpec, path: &str, name: &str) {
    let port = match p.handler() {
        Handler::HttpGet { port, host, .. } | Handler::TcpSocket { port, host } => {
            if host.is_some() {
                return; // another host: its ports are not the container's
            }
            port.clone()
        }
        Handler::Grpc { port, .. } => Port::Number(*port),
        Handler::Exec { .. } => return,
    };
    let at = cx.port_at(slot, kind);
    match port {
        Port::Unparsable(port_name) => cx.push(
            "probe-named-port-unresolved",
            name,
            format!("{path}.{}.port", p.handler().name()),
            at,
            format!(
                "container {name}'s {kind} probe names port {port_name:?}, which no entry of its ports has: every attempt fails with a prober error before reaching the app (P39), so the probe never succeeds"
            ),
        ),
        Port::OutOfRange(_) => {}
        Port::Number(n) => {
            let Some(m) = cx.manifest(slot) else {
                return;
            };
            // Every network probe speaks TCP: a port declared for UDP or SCTP is not the one
            // it reaches.
            let tcp = |p: &&PortManifest| {
                p.protocol
                    .as_ref()
                    .is_none_or(|proto| proto.value.eq_ignore_ascii_case("TCP"))
            };
            let declared: Vec<i64> = m
                .ports
                .iter()
                .filter(tcp)
                .filter_map(|p| p.container_port.as_ref().map(|c| c.value))
                .collect();
            if !declared.contains(&i64::from(n)) {
                let list = if m.ports.is_empty() {
                    "declares no ports".to_owned()
                } else if declared.is_empty() {
                    "declares no TCP ports (a probe connects over TCP)".to_owned()
                } else {
                    format!(
                        "declares {}",
                        declared
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                cx.push(
                    "probe-port-not-exposed",
                    name,
                    format!("{path}.{}.port", p.handler().name()),
                    at,
                    format!(
                        "container {name}'s {kind} probe targets port {n}, but the container {list}: if the app does not listen there, every attempt is refused"
                    ),
                );
            }
        }
    }
}
