//! What is analysed: one pod (a scenario's, or a workload's pod template) with its profile and
//! kubelet knobs, and, where known, the manifest as written (for field paths and lines).
//!
//! This module and [`crate::finding`] are the only places that read the scenario crate's
//! types, so that the analysis follows that crate wherever it moves.

use probesim_core::{Answer, KubeletConfig, PodSpec, ProbeKind, Profile, SimDuration};
use probesim_kube::error::Diagnostic;
use probesim_kube::field_path::FieldPath;
use probesim_kube::manifest::{self, PodManifest};
use probesim_kube::workload::WorkloadKind;
use probesim_kube::yaml::{Mark, Node};
use probesim_scenario::scenario::Scenario;
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
    /// The finding ids suppressed for this pod, each with what suppressed it: an annotation of
    /// the workload or of its pod template (see [`suppressions`]), or `--ignore`.
    pub ignore: Vec<(&'static str, String)>,
    /// The command-line edits of the scenario (`--set …`, `--sigterm …`), as the reports'
    /// headers list them; empty for the file as written.
    pub overridden: Vec<String>,
}

impl Subject {
    /// The subject of a loaded scenario. `manifest` is the pod's manifest node as written in
    /// the same file (the scenario's `pod:`, or the workload of a manifest file), when known.
    #[must_use]
    pub fn of(scenario: &Scenario, name: &str, manifest: Option<&Node>) -> Subject {
        // The figures are swept under canonical timing (docs/analysis.md): the sweep itself
        // moves the start over every phase.
        let exact = scenario.with_timing(probesim_scenario::scenario::TimingMode::Exact);
        let scenario = &exact;
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
            ignore: Vec::new(),
            overridden: scenario.overridden.clone(),
        }
    }

    /// What suppresses finding `id` for this pod, if anything does (`annotation
    /// probesim.io/ignore`, `--ignore`).
    #[must_use]
    pub fn ignores(&self, id: &str) -> Option<&str> {
        self.ignore
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, by)| by.as_str())
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

    /// The line that lists the edits, `overridden: --set … · --sigterm …`, or `None` when
    /// there are none (the wording of `probesim run`'s header).
    #[must_use]
    pub fn overridden_line(&self) -> Option<String> {
        (!self.overridden.is_empty())
            .then(|| format!("overridden: {}", self.overridden.join(" · ")))
    }

    /// The edits as a JSON array of strings.
    pub(crate) fn overridden_json(&self) -> crate::report::ordered::J {
        use crate::report::ordered::J;
        J::Arr(self.overridden.iter().map(|e| J::str(e.clone())).collect())
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
            _ => true,
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
    use probesim_kube::catalog;
    use probesim_kube::yaml::SourceId;
    use probesim_scenario::scenario::{Edits, ManifestRun, Overrides};

    if !catalog::is_manifest(text) {
        let overrides = Overrides {
            duration: Some(probesim_core::SimTime::from_secs(1)),
            seed: None,
            kubernetes: options.kubernetes.clone(),
            // The figures are swept over the grids' phases under canonical timing
            // (docs/analysis.md).
            timing: Some(probesim_scenario::scenario::TimingMode::Exact),
        };
        let edits = Edits {
            apps: options.apps.clone(),
            sets: options.sets.clone(),
        };
        let scenario = Scenario::load_edited(text, display_path, reader, &overrides, &edits)
            .map_err(|e| e.render(text))?;
        let root = probesim_kube::yaml::parse(text).ok();
        let pod = root.as_ref().and_then(|r| r.get("pod"));
        let name = scenario.name.clone();
        let mut subject = Subject::of(&scenario, &name, pod);
        if let Some(pod) = pod {
            subject.ignore = suppressions(pod, WorkloadKind::Pod, &FieldPath::new("pod"))
                .map_err(|d| render(display_path, d, text))?;
        }
        return Ok(vec![subject]);
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
    // A value starts with `NAME:` when the text before its first colon is a container name
    // (no space in it: `http :8080/ready=…` names no container), as the argument reader says.
    let names = |arg: &probesim_scenario::argument::AppArg| {
        let (name, _) = arg.value.split_once(':')?;
        let name = name.trim_start();
        (!name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_')))
        .then(|| name.to_owned())
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
        let mut built = Scenario::from_manifest_edited(text, display_path, &run, &options.sets)
            .map_err(|e| e.render(text))?;
        // As for a scenario file: the figures are swept under canonical timing.
        built
            .scenario
            .apply(&Overrides {
                timing: Some(probesim_scenario::scenario::TimingMode::Exact),
                ..Overrides::default()
            })
            .map_err(|e| e.render(text))?;
        let mut subject = Subject::of(
            &built.scenario,
            &built.workload,
            node.as_ref().map(|(_, n)| n),
        );
        if let Some((_, node)) = node {
            subject.ignore = suppressions(node, subject.kind, &FieldPath::root())
                .map_err(|d| render(display_path, d, text))?;
        }
        out.push(subject);
    }
    Ok(out)
}

/// The annotation that lists finding ids to suppress, comma-separated, in the shape of
/// kube-score's `kube-score/ignore`.
pub const IGNORE_ANNOTATION: &str = "probesim.io/ignore";
/// The prefix of the annotation that suppresses one finding id, in the shape of kube-linter's
/// `ignore-check.kube-linter.io/<check>` (its value is the reason, free text).
pub const IGNORE_CHECK_PREFIX: &str = "ignore-check.probesim.io/";

/// The finding ids a workload's annotations suppress: `probesim.io/ignore: "id,id"` and
/// `ignore-check.probesim.io/<id>: "reason"`, on the workload's `metadata` or on its pod
/// template's (`spec.template.metadata`; the same for a Pod). `at` is where the workload is in
/// the file (`pod` for a scenario's pod), for field paths.
///
/// # Errors
/// An id that is not a finding's, at the annotation that names it.
pub fn suppressions(
    workload: &Node,
    kind: WorkloadKind,
    at: &FieldPath,
) -> Result<Vec<(&'static str, String)>, Diagnostic> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    let mut places = vec![(Some(workload), at.clone())];
    let template = kind.template_path();
    if !template.is_root() {
        let mut node = Some(workload);
        let mut path = at.clone();
        for part in template.to_string().split('.') {
            node = node.and_then(|n| n.get(part));
            path = path.child(part);
        }
        places.push((node, path));
    }
    for (node, path) in places {
        let path = path.child("metadata").child("annotations");
        let Some(entries) = node
            .and_then(|n| n.get("metadata"))
            .and_then(|m| m.get("annotations"))
            .and_then(Node::as_map)
        else {
            continue;
        };
        for (key, value) in entries {
            let field = path.key(&key.text);
            let mut add = |id: &str, mark: Mark| -> Result<(), Diagnostic> {
                let Some(rule) = crate::finding::rule(id) else {
                    return Err(Diagnostic::new(
                        field.clone(),
                        Some(mark),
                        format!(
                            "unknown finding id {id:?}; the ids are {}",
                            crate::finding::RULES
                                .iter()
                                .map(|r| r.id)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                };
                if !out.iter().any(|(i, _)| *i == rule.id) {
                    out.push((rule.id, format!("annotation {} at {}", key.text, key.mark)));
                }
                Ok(())
            };
            if key.text == IGNORE_ANNOTATION {
                let Some(list) = value.as_str() else {
                    return Err(Diagnostic::new(
                        field,
                        Some(value.mark),
                        format!(
                            "expected a string of finding ids separated by commas, found {}",
                            value.describe()
                        ),
                    ));
                };
                for id in list.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                    add(id, value.mark)?;
                }
            } else if let Some(id) = key.text.strip_prefix(IGNORE_CHECK_PREFIX) {
                add(id, key.mark)?;
            }
        }
    }
    Ok(out)
}

fn render(file: &str, d: Diagnostic, text: &str) -> String {
    probesim_kube::error::InputError::single(file, d).render(text)
}

/// `[NAMESPACE/]KIND/NAME` of every workload of a manifest file, in file order.
fn workload_selectors(text: &str) -> Vec<String> {
    use probesim_kube::yaml::{SourceId, Stream, Unit};

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
        use probesim_kube::manifest::IntOrString;

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
