//! What is analysed: one pod (a scenario's, or a workload's pod template) with its profile and
//! kubelet knobs, and, where known, the manifest as written (for field paths and lines).
//!
//! This module and [`crate::finding`] are the only places that read the scenario crate's
//! types, so that the analysis follows that crate wherever it moves.

use probesim_core::{Answer, KubeletConfig, PodSpec, ProbeKind, Profile, SimDuration};
use probesim_scenario::field_path::FieldPath;
use probesim_scenario::manifest::{self, PodManifest};
use probesim_scenario::scenario::Scenario;
use probesim_scenario::workload::WorkloadKind;
use probesim_scenario::yaml::Node;
use probesim_script::Limit;

/// One pod to analyse.
#[derive(Clone, Debug)]
pub struct Subject {
    /// The workload's name as `probesim run --select` takes it (`Deployment/web`), or the
    /// scenario's name.
    pub name: String,
    /// The file the pod comes from (display path).
    pub file: String,
    /// The workload kind (`Pod` for scenarios).
    pub kind: WorkloadKind,
    /// The validated pod, with each container's app settings (SIGTERM, pulls, pre-stop hooks).
    pub pod: PodSpec,
    /// The semantics profile.
    pub profile: Profile,
    /// The kubelet knobs.
    pub kubelet: KubeletConfig,
    /// The Services of the manifest file that select the pod.
    pub services: Vec<String>,
    /// The manifest as written, when its positions are in `file`.
    pub manifest: Option<PodManifest>,
    /// A startup time the user declared (`--expect-startup`): the app needs this long before it
    /// answers its probes.
    pub expect_startup: Option<SimDuration>,
    /// Start-up times the scenario declares, per container index: a liveness or startup
    /// script that begins by failing for a while (`refused for 90s then ok`), with where it
    /// is written.
    pub declared_startup: Vec<(usize, SimDuration, String)>,
}

impl Subject {
    /// The subject of a loaded scenario. `manifest` is the pod's manifest node as written in
    /// the same file (the scenario's `pod:`, or the workload of a manifest file), when known.
    #[must_use]
    pub fn of(scenario: &Scenario, name: &str, manifest: Option<&Node>) -> Subject {
        let manifest = manifest.and_then(|n| manifest::read(n, &FieldPath::root()).ok());
        Subject {
            name: name.to_owned(),
            file: scenario.file.clone(),
            kind: manifest.as_ref().map_or(WorkloadKind::Pod, |m| m.kind),
            pod: scenario.pod.clone(),
            profile: scenario.profile.clone(),
            kubelet: scenario.kubelet,
            services: scenario.services.iter().map(|s| s.id.to_string()).collect(),
            manifest,
            expect_startup: None,
            declared_startup: declared_startup(scenario),
        }
    }

    /// Where the pod spec is in the manifest (`spec`, `spec.template.spec`, …).
    #[must_use]
    pub fn pod_spec_path(&self) -> String {
        self.kind.pod_spec_path().to_string()
    }

    /// Whether the pod belongs to a Job or a CronJob.
    #[must_use]
    pub fn is_job(&self) -> bool {
        self.kind.is_job()
    }
}

/// The start-up times the scenario's scripts declare: a liveness or startup script whose first
/// step fails for a time (`refused for 90s then ok`, `500 until 1m then 200`).
fn declared_startup(scenario: &Scenario) -> Vec<(usize, SimDuration, String)> {
    let mut out = Vec::new();
    for b in &scenario.bindings {
        if !b
            .probes
            .iter()
            .any(|k| matches!(k, ProbeKind::Liveness | ProbeKind::Startup))
        {
            continue;
        }
        let Some(first) = b.script.steps().first() else {
            continue;
        };
        let failing = match first.answer() {
            Answer::Status(code) => !(200..400).contains(&code),
            Answer::Exit(code) => code != 0,
            Answer::Refused
            | Answer::Timeout
            | Answer::Fail
            | Answer::NotServing
            | Answer::Unknown => true,
            Answer::Ok | Answer::Open | Answer::Serving | Answer::Error => false,
        };
        let limit = match first.limit() {
            Some(Limit::For(d) | Limit::Until(d)) if failing => d,
            _ => continue,
        };
        out.push((b.container, limit, b.origin.clone()));
    }
    out
}

/// How to read a file for analysis.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// `--select`: one workload of a manifest file (default: every workload).
    pub select: Option<String>,
    /// `--kubernetes`: the release (default: the scenario's, else the newest modelled).
    pub kubernetes: Option<String>,
    /// `--sigterm`-style behaviour arguments (`NAME: ignore`); on a scenario file they replace
    /// the fields they name in its `apps`.
    pub apps: Vec<probesim_scenario::argument::AppArg>,
    /// `--set PATH=VALUE` edits of the pod, judged as the file is.
    pub sets: Vec<String>,
}

/// Reads a scenario file, or a manifest file with workloads, into the subjects to analyse: the
/// scenario's pod, or each workload of the manifest (the one `select` names, if given). A
/// scenario may reference a manifest file, which `reader` reads.
///
/// # Errors
/// The rendered error of the scenario crate (file, field path, line and column).
pub fn load(
    text: &str,
    display_path: &str,
    options: &LoadOptions,
    reader: &mut dyn probesim_scenario::scenario::ManifestReader,
) -> Result<Vec<Subject>, String> {
    use probesim_scenario::catalog;
    use probesim_scenario::scenario::{Edits, ManifestRun, Overrides};
    use probesim_scenario::yaml::SourceId;

    if !catalog::is_manifest(text) {
        let overrides = Overrides {
            duration: Some(probesim_core::SimTime::from_secs(1)),
            seed: None,
            kubernetes: options.kubernetes.clone(),
        };
        let edits = Edits {
            apps: options.apps.clone(),
            sets: options.sets.clone(),
        };
        let scenario = Scenario::load_edited(text, display_path, reader, &overrides, &edits)
            .map_err(|e| e.render(text))?;
        let root = probesim_scenario::yaml::parse(text).ok();
        let pod = root.as_ref().and_then(|r| r.get("pod"));
        let name = scenario.name.clone();
        return Ok(vec![Subject::of(&scenario, &name, pod)]);
    }
    let selectors = match &options.select {
        Some(s) => vec![Some(s.clone())],
        None => {
            let found = workload_selectors(text);
            if found.is_empty() {
                vec![None]
            } else {
                found.into_iter().map(Some).collect()
            }
        }
    };
    // Each workload gets the behaviour arguments naming one of its containers; an argument
    // naming none goes to the first, whose load reports it.
    let mut workloads = Vec::new();
    for select in selectors {
        let node = catalog::select(text, SourceId::MAIN, select.as_deref())
            .ok()
            .map(|s| (catalog::container_names(&s.node, s.workload.kind), s.node));
        workloads.push((select, node));
    }
    let names = |arg: &probesim_scenario::argument::AppArg| {
        arg.value.split_once(':').map(|(n, _)| n.trim().to_owned())
    };
    let mut out = Vec::new();
    for (i, (select, node)) in workloads.iter().enumerate() {
        let apps = options
            .apps
            .iter()
            .filter(|a| {
                let mine =
                    |w: &(Option<String>, Option<(Vec<String>, Node)>)| match (&w.1, names(a)) {
                        (Some((containers, _)), Some(n)) => containers.contains(&n),
                        _ => true,
                    };
                mine(&workloads[i]) || (i == 0 && !workloads.iter().any(mine))
            })
            .cloned()
            .collect();
        let run = ManifestRun {
            select: select.clone(),
            apps,
            kubernetes: options.kubernetes.clone(),
        };
        let built = Scenario::from_manifest_edited(text, display_path, &run, &options.sets)
            .map_err(|e| e.render(text))?;
        out.push(Subject::of(
            &built.scenario,
            &built.workload,
            node.as_ref().map(|(_, n)| n),
        ));
    }
    Ok(out)
}

/// `[NAMESPACE/]KIND/NAME` of every workload of a manifest file, in file order.
fn workload_selectors(text: &str) -> Vec<String> {
    use probesim_scenario::yaml::{SourceId, Stream, Unit};

    let mut out = Vec::new();
    for unit in Stream::new(text, SourceId::MAIN) {
        let node = match unit {
            Ok(Unit::Item { node, .. }) => node,
            Ok(Unit::Document { root, .. }) => root,
            Err(_) => return Vec::new(),
        };
        let Some(kind) = node
            .get("kind")
            .and_then(Node::as_str)
            .and_then(WorkloadKind::from_kind)
        else {
            continue;
        };
        let meta = node.get("metadata");
        let Some(name) = meta.and_then(|m| m.get("name")).and_then(Node::as_str) else {
            continue;
        };
        let selector = match meta.and_then(|m| m.get("namespace")).and_then(Node::as_str) {
            Some(ns) => format!("{ns}/{}/{name}", kind.name()),
            None => format!("{}/{name}", kind.name()),
        };
        if !out.contains(&selector) {
            out.push(selector);
        }
    }
    out
}

impl Subject {
    /// The handler of a container's probe as written in the manifest (`httpGet` with its
    /// path and port, a named port kept as its name), for output; from the validated probe
    /// when the manifest is not at hand. `None` when the container has no such probe.
    #[must_use]
    pub fn handler(&self, container: usize, kind: ProbeKind) -> Option<crate::report::ordered::J> {
        use crate::report::ordered::J;
        use probesim_scenario::manifest::IntOrString;

        let port = |p: &IntOrString| match p {
            IntOrString::Int(n) => J::Num(n.to_string()),
            IntOrString::Str(s) => J::str(s.clone()),
        };
        let written = self
            .manifest
            .as_ref()
            .and_then(|m| m.spec.containers.get(container))
            .and_then(|c| c.probe(kind));
        if let Some(p) = written {
            if let Some(e) = &p.exec {
                let command = e.command.iter().map(|a| J::str(a.value.clone())).collect();
                return Some(J::Obj(vec![(
                    "exec",
                    J::Obj(vec![("command", J::Arr(command))]),
                )]));
            }
            if let Some(h) = &p.http_get {
                let mut m = Vec::new();
                if let Some(path) = &h.path {
                    m.push(("path", J::str(path.value.clone())));
                }
                if let Some(p) = &h.port {
                    m.push(("port", port(&p.value)));
                }
                if let Some(host) = &h.host {
                    m.push(("host", J::str(host.value.clone())));
                }
                if let Some(scheme) = &h.scheme {
                    m.push(("scheme", J::str(scheme.value.clone())));
                }
                if !h.http_headers.is_empty() {
                    let headers = h
                        .http_headers
                        .iter()
                        .map(|x| {
                            J::Obj(vec![
                                ("name", J::str(x.name.as_ref().map_or("", |v| &v.value))),
                                ("value", J::str(x.value.as_ref().map_or("", |v| &v.value))),
                            ])
                        })
                        .collect();
                    m.push(("httpHeaders", J::Arr(headers)));
                }
                return Some(J::Obj(vec![("httpGet", J::Obj(m))]));
            }
            if let Some(t) = &p.tcp_socket {
                let mut m = Vec::new();
                if let Some(p) = &t.port {
                    m.push(("port", port(&p.value)));
                }
                if let Some(host) = &t.host {
                    m.push(("host", J::str(host.value.clone())));
                }
                return Some(J::Obj(vec![("tcpSocket", J::Obj(m))]));
            }
            if let Some(g) = &p.grpc {
                let mut m = Vec::new();
                if let Some(p) = &g.port {
                    m.push(("port", J::Num(p.value.to_string())));
                }
                if let Some(s) = &g.service {
                    m.push(("service", J::str(s.value.clone())));
                }
                return Some(J::Obj(vec![("grpc", J::Obj(m))]));
            }
        }
        let probe = self.pod.containers.get(container)?.probe(kind)?;
        let port = |p: &probesim_core::Port| match p {
            probesim_core::Port::Number(n) => J::Num(n.to_string()),
            probesim_core::Port::Unparsable(s) => J::str(s.clone()),
            probesim_core::Port::OutOfRange(n) => J::Num(n.to_string()),
        };
        Some(match probe.handler() {
            probesim_core::Handler::Exec { command } => J::Obj(vec![(
                "exec",
                J::Obj(vec![(
                    "command",
                    J::Arr(command.iter().map(|a| J::str(a.clone())).collect()),
                )]),
            )]),
            probesim_core::Handler::HttpGet {
                scheme,
                host,
                port: p,
                path,
            } => {
                let mut m = vec![("path", J::str(path.clone())), ("port", port(p))];
                if let Some(h) = host {
                    m.push(("host", J::str(h.clone())));
                }
                if *scheme == probesim_core::Scheme::Https {
                    m.push(("scheme", J::str("HTTPS")));
                }
                J::Obj(vec![("httpGet", J::Obj(m))])
            }
            probesim_core::Handler::TcpSocket { host, port: p } => {
                let mut m = vec![("port", port(p))];
                if let Some(h) = host {
                    m.push(("host", J::str(h.clone())));
                }
                J::Obj(vec![("tcpSocket", J::Obj(m))])
            }
            probesim_core::Handler::Grpc { port: p, service } => {
                let mut m = vec![("port", J::Num(p.to_string()))];
                if !service.is_empty() {
                    m.push(("service", J::str(service.clone())));
                }
                J::Obj(vec![("grpc", J::Obj(m))])
            }
        })
    }
}
