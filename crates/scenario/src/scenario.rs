//! A scenario file (contract §2): the pod, how its app behaves, the kubelet's knobs, the
//! semantics profile, the horizon and the expectations, validated into one [`Scenario`].
//!
//! The pod is a Pod manifest or a workload with a pod template (a Deployment, a Job, …),
//! embedded under `pod:` or read from a manifest file named by `manifest:` (with `select:` to
//! choose among its workloads). The library never opens that file: the caller's
//! [`ManifestReader`] does. [`Scenario::from_manifest`] builds a scenario from a manifest file
//! and command-line arguments alone (`probesim run deploy.yaml --app …`).
//!
//! Loading never stops at the first problem: every error found is reported together, each
//! with its field path and position. Pod contents are reported relative to the object, as
//! the apiserver does (`spec.containers[0].livenessProbe.successThreshold`,
//! `spec.template.spec.containers[0]…` in a Deployment); scenario-level fields start with
//! their scenario key (`kubelet.resync`, `apps.kubia.exit`, `expect[2].at`).

use core::fmt;
use core::ops::Range;
use std::borrow::Cow;

use probesim_core::{
    AppSpec, Behaviours, ContainerSpec, EventKind, Gate, GateError, Handler, HandlerFamily,
    KubeletConfig, PodSpec, Port, ProbeKind, Profile, SimDuration, SimTime, Simulation,
};
use probesim_script::{
    parse_duration, parse_exit, parse_sigterm, ParseError, Script, ScriptPlayer,
};

use crate::argument::{self, AppArg, ArgApps};
use crate::catalog::{self, SelectError};
use crate::decode::{self, Diags, Fields};
use crate::emit;
use crate::error::{Diagnostic, ScenarioError, Source};
use crate::expect::{CountRange, EventFilter, Expect, Expectation, StateChecks};
use crate::field_path::FieldPath;
use crate::manifest::{self, ContainerManifest, IntOrString, PodManifest};
use crate::validate::{self, ValidatedPod};
use crate::workload::WorkloadKind;
use crate::yaml::{self, Key, Mark, Node, NodeKind, SourceId, Style, Value};

const SCENARIO_FIELDS: &[&str] = &[
    "name",
    "description",
    "kubernetes",
    "featureGates",
    "seed",
    "duration",
    "kubelet",
    "pod",
    "manifest",
    "select",
    "apps",
    "deleteAt",
    "expect",
];

/// How long a scenario built from a manifest alone simulates, unless `--for` says otherwise.
pub const DEFAULT_MANIFEST_DURATION: SimDuration = SimDuration::from_secs(600);

/// Reads the manifest files that scenarios reference (`manifest: path/to/deploy.yaml`). The
/// library never opens files: the caller decides how a path is read (the command line reads
/// the file system; a test may serve texts from memory).
pub trait ManifestReader {
    /// The text of the file at `path` (the reference, resolved against the scenario file's
    /// directory), or why it cannot be read (`no such file or directory`).
    ///
    /// # Errors
    /// Any reason the file cannot be read, as a message.
    fn read(&mut self, path: &str) -> Result<String, String>;
}

/// A [`ManifestReader`] for callers without files: every reference is an error.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFiles;

impl ManifestReader for NoFiles {
    fn read(&mut self, _path: &str) -> Result<String, String> {
        Err(
            "manifest files cannot be read here (the scenario was loaded without file access)"
                .to_owned(),
        )
    }
}
const KUBELET_FIELDS: &[&str] = &[
    "startedAgo",
    "plegPeriod",
    "probeSyncDelay",
    "resync",
    "backoffRequeue",
    "jitter",
    "maxContainerRestartPeriod",
    "restartAt",
];
const APP_FIELDS: &[&str] = &["pull", "exit", "sigterm", "preStop", "probes", "endpoints"];
const PROBE_TYPES: &[&str] = &["liveness", "readiness", "startup"];
const EXPECT_FIELDS: &[&str] = &[
    "at",
    "container",
    "restartCount",
    "ready",
    "started",
    "state",
    "reason",
    "exitCode",
    "lastExitCode",
    "phase",
    "podReady",
    "events",
    "timeline",
    "between",
    "count",
];
const CONTAINER_CHECKS: &[&str] = &[
    "restartCount",
    "ready",
    "started",
    "state",
    "reason",
    "exitCode",
    "lastExitCode",
];
const POD_CHECKS: &[&str] = &["phase", "podReady"];
const EVENTS_FIELDS: &[&str] = &["reason", "message", "type", "container"];
const TIMELINE_FIELDS: &[&str] = &[
    "kind",
    "container",
    "probe",
    "outcome",
    "result",
    "reason",
    "exitCode",
    "type",
    "message",
];
const RANGE_FIELDS: &[&str] = &["min", "max"];

const DURATION_TYPE: &str = "a duration like 10s, 1m30s or a number of seconds";
const SCRIPT_TYPE: &str = "a behaviour script like \"5x200 then 500\"";
const ENDPOINT_FORMS: &str =
    "expected \"http[s] [HOST]:PORT[PATH]\", \"tcp [HOST]:PORT\", \"grpc :PORT[/SERVICE]\" or \"exec COMMAND…\"";

/// Values given on the command line that replace the scenario's own (`--for`, `--seed`,
/// `--kubernetes`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// Replaces `duration`.
    pub duration: Option<SimTime>,
    /// Replaces `seed`.
    pub seed: Option<u64>,
    /// Replaces `kubernetes` (the feature gate overrides are applied again to the new profile).
    pub kubernetes: Option<String>,
}

/// One `featureGates` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateOverride {
    /// The gate's name as written.
    pub name: String,
    /// The value to set.
    pub value: bool,
    /// Where the entry's key is.
    pub mark: Mark,
}

/// A behaviour script and the probes of one container that it answers. An endpoint's script
/// answers every probe that targets the endpoint, with one shared counter; a `probes.<type>`
/// script answers that probe alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptBinding {
    /// Index of the container (in `pod.containers`, or in `init_containers` for
    /// [`Scenario::init_bindings`]).
    pub container: usize,
    /// The probes answered by this script (never empty), in worker creation order.
    pub probes: Vec<ProbeKind>,
    /// The script.
    pub script: Script,
    /// Where it was written (`apps.kubia.endpoints."http :8080/"`).
    pub origin: String,
}

/// A validated scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// `name`, by default the stem of the display path (the pod's name for standard input).
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// The display path the scenario was loaded from.
    pub file: String,
    /// The semantics profile (`kubernetes`, default newest) with `featureGates` applied.
    pub profile: Profile,
    /// The `featureGates` overrides, kept to re-apply them when the profile is overridden.
    pub feature_gates: Vec<GateOverride>,
    /// `seed` (default 0).
    pub seed: u64,
    /// `duration`: how much virtual time to simulate. Required once overrides are applied
    /// ([`Scenario::apply`]).
    pub duration: Option<SimTime>,
    /// The kubelet's timing knobs (`kubelet`).
    pub kubelet: KubeletConfig,
    /// The pod after defaults and validation, with each container's app behaviour (init
    /// containers included; sidecars have `restartable` set).
    pub pod: PodSpec,
    /// Scripts for the probes of regular containers (indices into `pod.containers`).
    pub bindings: Vec<ScriptBinding>,
    /// Scripts for the probes of sidecar init containers (indices into `pod.init_containers`).
    pub init_bindings: Vec<ScriptBinding>,
    /// `expect`.
    pub expect: Vec<Expect>,
    /// `kubelet.restartAt`: when the kubelet process restarts.
    pub kubelet_restart_at: Option<SimTime>,
    /// `deleteAt`: when the pod is deleted, and the deletion's grace period (the pod's when
    /// `None`).
    pub delete_at: Option<(SimTime, Option<SimDuration>)>,
    /// Notes about a manifest file the pod was read from: objects skipped, Services that
    /// select the pod. Not errors; the command line prints them on standard error.
    pub notes: Vec<String>,
    /// The Services of that manifest file that select the simulated pod (for analyses of
    /// what the pod's readiness means to its clients); empty for an embedded `pod`.
    pub services: Vec<catalog::Service>,
}

/// What [`Scenario::from_manifest`] needs besides the manifest file: which workload, and how
/// its containers behave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ManifestRun {
    /// `--select`: `[NAMESPACE/]KIND/NAME` or `NAME`.
    pub select: Option<String>,
    /// `--app`, `--exit`, `--sigterm` and `--pull`, in the order given.
    pub apps: Vec<AppArg>,
    /// `--kubernetes`: the release whose API server and kubelet read the manifest (default
    /// the newest modelled). It decides which fields the API server keeps (gRPC probes before
    /// their gate is on are dropped, as the API server drops them).
    pub kubernetes: Option<String>,
}

/// A scenario built from a manifest file and command-line arguments.
#[derive(Clone, Debug)]
pub struct ManifestScenario {
    /// The scenario (its `duration` is [`DEFAULT_MANIFEST_DURATION`] until overridden).
    pub scenario: Scenario,
    /// The manifest's display path.
    pub file: String,
    /// The chosen workload (`Deployment/web`).
    pub workload: String,
    pod: Node,
    apps: ArgApps,
}

impl ManifestScenario {
    /// The scenario as a file that loads and replays to the same timeline: the workload's
    /// manifest embedded under `pod:`, the arguments as `apps`, and the name, Kubernetes
    /// version, seed and duration written out (overrides applied).
    #[must_use]
    pub fn to_yaml(&self) -> String {
        let s = &self.scenario;
        let mut out = format!(
            "# Built by probesim from {} ({}).\nname: {}\nkubernetes: {}\n",
            self.file,
            self.workload,
            emit::string(&s.name),
            emit::string(&s.profile.version())
        );
        if s.seed != 0 {
            out.push_str(&format!("seed: {}\n", s.seed));
        }
        if let Some(d) = s.duration {
            out.push_str(&format!(
                "duration: {}\n",
                emit::string(&probesim_script::format_duration(
                    d.saturating_since(SimTime::ZERO)
                ))
            ));
        }
        out.push_str("pod:");
        emit::node_value(&mut out, &self.pod, 2);
        if !self.apps.is_empty() {
            out.push_str(&self.apps.to_yaml());
        }
        out
    }
}

impl Scenario {
    /// Reads and validates a scenario (YAML or JSON). `display_path` names the source in
    /// errors and gives the default `name`. Pure: it never opens files.
    ///
    /// `duration` may be missing here; [`Scenario::apply`] (or [`Scenario::load`]) requires it.
    ///
    /// # Errors
    /// Every syntax, type, unknown-field, API validation, script and expectation error found.
    ///
    /// # Examples
    /// ```
    /// use probesim_scenario::scenario::Scenario;
    ///
    /// let text = r#"
    /// duration: 2m
    /// pod:
    ///   apiVersion: v1
    ///   kind: Pod
    ///   metadata: {name: kubia}
    ///   spec:
    ///     containers:
    ///     - name: kubia
    ///       image: luksa/kubia
    ///       livenessProbe:
    ///         httpGet: {port: 8080}
    /// apps:
    ///   kubia:
    ///     endpoints:
    ///       "http :8080/": "5x200 then 500"
    /// "#;
    /// let scenario = Scenario::from_str(text, "scenarios/kubia-unhealthy.yaml")?;
    /// assert_eq!(scenario.name, "kubia-unhealthy");
    /// assert_eq!(scenario.bindings.len(), 1);
    /// # Ok::<(), probesim_scenario::error::ScenarioError>(())
    /// ```
    pub fn from_str(text: &str, display_path: &str) -> Result<Scenario, ScenarioError> {
        Scenario::from_str_with(text, display_path, &mut NoFiles)
    }

    /// [`Scenario::from_str`] for a scenario that may reference a manifest file
    /// (`manifest: deploy.yaml`): `reader` reads it, given the reference resolved against the
    /// directory of `display_path` (against the working directory for standard input).
    ///
    /// # Errors
    /// As [`Scenario::from_str`], and a manifest file that cannot be read or has no workload
    /// to simulate (or several, and no `select:`).
    pub fn from_str_with(
        text: &str,
        display_path: &str,
        reader: &mut dyn ManifestReader,
    ) -> Result<Scenario, ScenarioError> {
        Scenario::parse(text, display_path, reader, None)
    }

    /// [`Scenario::from_str_with`] followed by [`Scenario::apply`]. The `--kubernetes`
    /// override is known while the file is read, so `featureGates` and the fields the API
    /// server keeps are judged against that release, not the file's own.
    ///
    /// # Errors
    /// As both.
    pub fn load_with(
        text: &str,
        display_path: &str,
        reader: &mut dyn ManifestReader,
        overrides: &Overrides,
    ) -> Result<Scenario, ScenarioError> {
        let mut s = Scenario::parse(text, display_path, reader, overrides.kubernetes.as_deref())?;
        s.apply(overrides)?;
        Ok(s)
    }

    fn parse(
        text: &str,
        display_path: &str,
        reader: &mut dyn ManifestReader,
        kubernetes: Option<&str>,
    ) -> Result<Scenario, ScenarioError> {
        let root = yaml::parse(text).map_err(|e| {
            ScenarioError::single(
                display_path,
                Diagnostic::new(FieldPath::root(), e.mark, e.message),
            )
        })?;
        let mut loader = Loader::new(vec![text], Vec::new(), Some(reader));
        loader.kubernetes = kubernetes.map(str::to_owned);
        match loader.scenario(&root, display_path) {
            Some(s) if loader.d.is_empty() => Ok(s),
            _ => Err(loader.into_error(display_path)),
        }
    }

    /// Builds a scenario from a manifest file alone (`probesim run deploy.yaml --app …`): the
    /// workload `run.select` names (or the only one with probes), with `run.apps` as its
    /// `apps`, simulated for [`DEFAULT_MANIFEST_DURATION`] and named after the workload.
    /// Problems in an argument point into it (its own [`Source`]).
    ///
    /// # Errors
    /// Everything [`Scenario::from_str`] reports about the pod and its apps, a malformed
    /// argument, and a file without a workload to simulate (or with several, and no
    /// `select`).
    ///
    /// # Examples
    /// ```
    /// use probesim_scenario::argument::{AppArg, AppFlag};
    /// use probesim_scenario::scenario::{ManifestRun, Scenario};
    ///
    /// let manifest = "\
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata: {name: web}
    /// spec:
    ///   template:
    ///     spec:
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.27
    ///         livenessProbe: {httpGet: {port: 80}}
    /// ";
    /// let run = ManifestRun {
    ///     select: None,
    ///     apps: vec![AppArg { flag: AppFlag::App, value: "web: liveness=refused for 90s then ok".into() }],
    ///     kubernetes: None,
    /// };
    /// let built = Scenario::from_manifest(manifest, "deploy.yaml", &run)?;
    /// assert_eq!(built.workload, "Deployment/web");
    /// assert_eq!(built.scenario.name, "web");
    /// assert!(built.to_yaml().contains("liveness: refused for 90s then ok"));
    /// # Ok::<(), probesim_scenario::error::ScenarioError>(())
    /// ```
    pub fn from_manifest(
        text: &str,
        display_path: &str,
        run: &ManifestRun,
    ) -> Result<ManifestScenario, ScenarioError> {
        let fail = |items: Vec<Diagnostic>, sources: Vec<Source>| ScenarioError {
            file: display_path.to_owned(),
            items,
            sources,
        };
        let selection = catalog::select(text, SourceId::MAIN, run.select.as_deref())
            .map_err(|e| fail(select_diagnostics(e, "--select", None), Vec::new()))?;
        let kind = selection.workload.kind;
        let containers = catalog::container_names(&selection.node, kind);
        // Problems in the arguments are reported with whatever the rest of the load finds.
        let (apps, sources, problems) = argument::read(&run.apps, 1, &containers);
        let labels = catalog::pod_labels(&selection.node, kind);
        let services: Vec<catalog::Service> = selection
            .catalog
            .selecting(&selection.workload, &labels)
            .into_iter()
            .cloned()
            .collect();
        let notes = selection
            .catalog
            .notes(&selection.workload, &labels)
            .into_iter()
            .map(|n| format!("{display_path}: {n}"))
            .collect();
        let name = match selection.workload.id.name.trim_end_matches('-') {
            "" => default_name(display_path, "pod"),
            n => n.to_owned(),
        };
        let synthetic = |text: &str| Key {
            text: text.to_owned(),
            mark: Mark::new(1, 1),
        };
        let mut root = vec![
            (
                synthetic("name"),
                Node {
                    kind: NodeKind::Scalar {
                        text: name,
                        style: Style::Quoted,
                    },
                    mark: Mark::new(1, 1),
                },
            ),
            (synthetic("pod"), selection.node.clone()),
        ];
        if !apps.is_empty() {
            root.push((synthetic("apps"), apps.node()));
        }
        let root = Node {
            kind: NodeKind::Map(root),
            mark: Mark::new(1, 1),
        };
        let mut texts = vec![text];
        texts.extend(run.apps.iter().map(|a| a.value.as_str()));
        let mut loader = Loader::new(texts, sources, None);
        loader.kubernetes.clone_from(&run.kubernetes);
        loader.d.extend(problems);
        match loader.scenario(&root, display_path) {
            Some(mut scenario) if loader.d.is_empty() => {
                scenario.duration = Some(SimTime::ZERO.saturating_add(DEFAULT_MANIFEST_DURATION));
                scenario.notes = notes;
                scenario.services = services;
                Ok(ManifestScenario {
                    scenario,
                    file: display_path.to_owned(),
                    workload: selection.workload.id.to_string(),
                    pod: selection.node,
                    apps,
                })
            }
            _ => Err(loader.into_error(display_path)),
        }
    }

    /// [`Scenario::load_with`] for a scenario that references no manifest file: read with the
    /// overrides' release, then [`Scenario::apply`].
    ///
    /// # Errors
    /// As [`Scenario::from_str`] and [`Scenario::apply`].
    pub fn load(
        text: &str,
        display_path: &str,
        overrides: &Overrides,
    ) -> Result<Scenario, ScenarioError> {
        Scenario::load_with(text, display_path, &mut NoFiles, overrides)
    }

    /// Applies command-line overrides: a new profile (with the `featureGates` applied again),
    /// seed or duration. Afterwards a duration is required.
    ///
    /// # Errors
    /// An unknown Kubernetes version, a gate override the new profile refuses, or no
    /// `duration` in the file and none given.
    pub fn apply(&mut self, o: &Overrides) -> Result<(), ScenarioError> {
        let mut d = Diags::new();
        if let Some(version) = &o.kubernetes {
            match Profile::parse(version) {
                Some(mut profile) => {
                    apply_gates(&mut profile, &self.feature_gates, &mut d);
                    self.profile = profile;
                }
                None => decode::report(
                    &mut d,
                    &FieldPath::new("kubernetes"),
                    None,
                    format!("{} (given with --kubernetes)", unsupported_version(version)),
                ),
            }
        }
        if let Some(seed) = o.seed {
            self.seed = seed;
        }
        if let Some(duration) = o.duration {
            self.duration = Some(duration);
        }
        if self.duration.is_none() {
            decode::report(
                &mut d,
                &FieldPath::new("duration"),
                None,
                "the scenario sets no duration; add `duration:` or pass --for",
            );
        }
        if d.is_empty() {
            Ok(())
        } else {
            Err(ScenarioError {
                file: self.file.clone(),
                items: d,
                sources: Vec::new(),
            })
        }
    }

    /// A fresh simulation of this scenario: every script starts from its beginning, each
    /// endpoint script as one behaviour shared by the probes that target it.
    #[must_use]
    pub fn simulation(&self) -> Simulation {
        let mut behaviours = Behaviours::new(&self.pod);
        // The engine numbers init containers first, then regular containers.
        let regular = self.pod.init_containers.len();
        let all = self
            .init_bindings
            .iter()
            .map(|b| (b, 0))
            .chain(self.bindings.iter().map(|b| (b, regular)));
        for (b, offset) in all {
            let index = behaviours.add(Box::new(ScriptPlayer::new(b.script.clone())));
            for kind in &b.probes {
                behaviours.bind(offset + b.container, *kind, index);
            }
        }
        let mut sim = Simulation::new(
            self.pod.clone(),
            self.profile.clone(),
            self.kubelet,
            self.seed,
            behaviours,
        );
        if let Some((at, grace)) = self.delete_at {
            sim.delete_at(at, grace);
        }
        if let Some(at) = self.kubelet_restart_at {
            sim.restart_kubelet_at(at);
        }
        sim
    }
}

/// Why the API server of `profile` dropped a field: `what` arrives later (with `gate`), or is
/// behind `gate`, which is off here.
fn dropped_field(profile: &Profile, what: &str, gate: Gate) -> String {
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

/// A duration as an instant on the timeline, if the simulation clock reaches it
/// ([`SimTime::HORIZON_LIMIT`]); otherwise the error to report.
///
/// # Errors
/// The message for a duration past the limit.
pub fn horizon(d: SimDuration) -> Result<SimTime, String> {
    match SimTime::ZERO.checked_add(d) {
        Some(t) if t <= SimTime::HORIZON_LIMIT => Ok(t),
        _ => {
            let limit = probesim_script::format_duration(
                SimTime::HORIZON_LIMIT.saturating_since(SimTime::ZERO),
            );
            Err(format!(
                "duration too large for the simulation clock: at most {limit} (about 73 million years)"
            ))
        }
    }
}

fn unsupported_version(version: &str) -> String {
    format!(
        "unsupported Kubernetes version {version:?}: probesim models 1.{} to 1.{}",
        probesim_core::profile::OLDEST_MINOR,
        probesim_core::profile::NEWEST_MINOR
    )
}

fn apply_gates(profile: &mut Profile, gates: &[GateOverride], d: &mut Diags) {
    for g in gates {
        if let Err(e) = profile.set_gate(&g.name, g.value) {
            let message = match &e {
                GateError::Unknown(name) => {
                    match decode::suggest(name, Gate::ALL.iter().map(|g| g.name())) {
                        Some(s) => format!("unknown feature gate {name:?}, did you mean {s:?}?"),
                        None => format!("unknown feature gate {name:?}"),
                    }
                }
                GateError::NotInRelease { .. } | GateError::Locked { .. } => e.to_string(),
            };
            decode::report(
                d,
                &FieldPath::new("featureGates").key(&g.name),
                Some(g.mark),
                message,
            );
        }
    }
}

/// Which container an `apps` entry is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ContainerRef {
    Regular(usize),
    Init(usize),
}

/// A probe port in an endpoint key or a handler, after named-port resolution.
#[derive(Clone, Debug, PartialEq, Eq)]
enum PortKey {
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
enum Target {
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
}

impl Target {
    fn family(&self) -> HandlerFamily {
        match self {
            Target::Http { .. } => HandlerFamily::Http,
            Target::Tcp { .. } => HandlerFamily::Tcp,
            Target::Grpc { .. } => HandlerFamily::Grpc,
            Target::Exec { .. } => HandlerFamily::Exec,
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
        }
    }
}

/// Normalises a host: none, empty, or the pod IP all mean "the pod IP".
fn norm_host(host: Option<&str>, pod_ip: &str) -> Option<String> {
    let h = host?.trim_start_matches('[').trim_end_matches(']');
    if h.is_empty() || h.eq_ignore_ascii_case(pod_ip) {
        None
    } else {
        Some(h.to_ascii_lowercase())
    }
}

fn port_key(port: &Port) -> PortKey {
    match port {
        Port::Number(n) => PortKey::Number(*n),
        Port::Unparsable(s) => PortKey::Name(s.clone()),
        Port::OutOfRange(n) => PortKey::OutOfRange(*n),
    }
}

fn words(argv: &[String]) -> Vec<String> {
    argv.join(" ")
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// The targets a probe with this handler matches: for exec probes the command as run (after
/// `$(VAR)` expansion) and as written.
fn handler_targets(handler: &Handler, raw_exec: Option<&[String]>, pod_ip: &str) -> Vec<Target> {
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

fn handler_family(handler: &Handler) -> HandlerFamily {
    match handler {
        Handler::Exec { .. } => HandlerFamily::Exec,
        Handler::HttpGet { .. } => HandlerFamily::Http,
        Handler::TcpSocket { .. } => HandlerFamily::Tcp,
        Handler::Grpc { .. } => HandlerFamily::Grpc,
    }
}

/// An endpoint key as written, before named ports and the pod IP are taken into account.
#[derive(Clone, Debug, PartialEq, Eq)]
enum EndpointKey {
    Http {
        https: bool,
        host: Option<String>,
        port: String,
        path: String,
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
fn split_host_port(text: &str) -> Result<(Option<String>, &str, &str), String> {
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

fn port_number_ok(port: &str) -> bool {
    port.parse::<u32>().is_ok_and(|n| (1..=65535).contains(&n))
}

/// Reads an endpoint key (contract §2.1).
fn parse_endpoint(key: &str) -> Result<EndpointKey, String> {
    let key = key.trim();
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
                path: if path.is_empty() {
                    "/".to_owned()
                } else {
                    path.to_owned()
                },
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
                path,
            } => Target::Http {
                https: *https,
                host: norm_host(host.as_deref(), pod_ip),
                port: port(p),
                path: path.clone(),
            },
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

/// A script as written, with what is needed to point into it.
struct Written<'a, T> {
    value: T,
    node: &'a Node,
    text: &'a str,
}

/// One `endpoints` entry.
struct Endpoint<'a> {
    key: &'a str,
    mark: Mark,
    parsed: EndpointKey,
    script: Option<Written<'a, Script>>,
}

struct Loader<'s> {
    /// The texts scripts may be written in, by [`SourceId`]: the main input, then the
    /// command-line arguments.
    texts: Vec<&'s str>,
    /// The sources besides the main input, for the error: `SourceId(n)` is `sources[n - 1]`.
    sources: Vec<Source>,
    reader: Option<&'s mut dyn ManifestReader>,
    /// The `--kubernetes` override, which takes the place of the file's `kubernetes`.
    kubernetes: Option<String>,
    notes: Vec<String>,
    services: Vec<catalog::Service>,
    d: Diags,
}

impl<'s> Loader<'s> {
    fn new(
        texts: Vec<&'s str>,
        sources: Vec<Source>,
        reader: Option<&'s mut dyn ManifestReader>,
    ) -> Loader<'s> {
        Loader {
            texts,
            sources,
            reader,
            kubernetes: None,
            notes: Vec::new(),
            services: Vec::new(),
            d: Diags::new(),
        }
    }

    fn into_error(self, file: &str) -> ScenarioError {
        ScenarioError {
            file: file.to_owned(),
            items: self.d,
            sources: self.sources,
        }
    }

    fn report(&mut self, path: &FieldPath, mark: Option<Mark>, message: impl Into<String>) {
        decode::report(&mut self.d, path, mark, message);
    }

    fn scenario(&mut self, root: &Node, display_path: &str) -> Option<Scenario> {
        if root.is_null() {
            // A file of comments and blank lines has no position to point at.
            let main = self.texts.first().copied().unwrap_or_default();
            let mark = has_content(main).then_some(root.mark);
            self.report(
                &FieldPath::root(),
                mark,
                "empty scenario: expected a mapping with at least `pod` and `duration`",
            );
            return None;
        }
        let f = decode::fields(&mut self.d, root, &FieldPath::root(), SCENARIO_FIELDS, &[])?;
        let name = self.opt_string(&f, "name", &FieldPath::new("name"));
        if let (Some(""), Some(n)) = (name.as_deref(), f.get("name")) {
            self.report(
                &FieldPath::new("name"),
                Some(n.mark),
                "must not be empty (leave `name` out to use the file name)",
            );
        }
        let description = self.opt_string(&f, "description", &FieldPath::new("description"));
        let mut profile = match f.get("kubernetes") {
            None => Profile::newest(),
            Some(n) => match n.scalar_text() {
                Some(v) => match Profile::parse(v) {
                    Some(p) => p,
                    None => {
                        self.report(
                            &FieldPath::new("kubernetes"),
                            Some(n.mark),
                            unsupported_version(v),
                        );
                        Profile::newest()
                    }
                },
                None => {
                    decode::type_error(
                        &mut self.d,
                        n,
                        &FieldPath::new("kubernetes"),
                        "a version like \"1.37\"",
                    );
                    Profile::newest()
                }
            },
        };
        // An unknown override is reported by `Scenario::apply`.
        if let Some(p) = self.kubernetes.as_deref().and_then(Profile::parse) {
            profile = p;
        }
        let feature_gates = self.feature_gates(f.get("featureGates"));
        apply_gates(&mut profile, &feature_gates, &mut self.d);
        let seed = f.get("seed").and_then(|n| {
            decode::integer(
                &mut self.d,
                n,
                &FieldPath::new("seed"),
                0,
                i128::from(u64::MAX),
                "an integer from 0 to 18446744073709551615",
            )
            .and_then(|s| u64::try_from(s).ok())
        });
        let duration = f
            .get("duration")
            .and_then(|n| self.instant(n, &FieldPath::new("duration")));
        let kubelet = self.kubelet(f.get("kubelet"));
        let kubelet_restart_at = f
            .get("kubelet")
            .and_then(|k| k.get("restartAt"))
            .and_then(|n| self.instant(n, &FieldPath::new("kubelet").child("restartAt")));
        let delete_at = f.get("deleteAt").and_then(|n| self.deletion(n));

        let pod = match self.pod_node(&f, display_path) {
            None => None,
            Some(n) => match manifest::read(&n, &FieldPath::root()) {
                Err(ds) => {
                    self.d.extend(ds);
                    None
                }
                Ok(mut m) => {
                    self.apply_release(&mut m, &profile);
                    match validate::validate_for(&mut m, &profile) {
                        Ok(v) => {
                            for w in validate::warnings_for(&m) {
                                self.notes
                                    .push(format!("{display_path}: the API server warns: {w}"));
                            }
                            self.note_readiness_gates(&m, display_path);
                            Some((m, v))
                        }
                        Err(ds) => {
                            self.d.extend(ds);
                            None
                        }
                    }
                }
            },
        };
        let (manifest, mut validated) = match pod {
            Some((m, v)) => (Some(m), Some(v)),
            None => (None, None),
        };
        let mut bindings = Vec::new();
        let mut init_bindings = Vec::new();
        if let Some(apps) = f.get("apps") {
            self.apps(
                apps,
                manifest.as_ref().zip(validated.as_mut()),
                &mut bindings,
                &mut init_bindings,
            );
        }
        let expect = match f.get("expect") {
            Some(n) => self.expectations(n, validated.as_ref()),
            None => Vec::new(),
        };
        let ValidatedPod {
            mut pod,
            init_containers,
        } = validated?;
        pod.init_containers = init_containers;
        let name = name.unwrap_or_else(|| default_name(display_path, &pod.name));
        Some(Scenario {
            name,
            description,
            file: display_path.to_owned(),
            profile,
            feature_gates,
            seed: seed.unwrap_or(0),
            duration,
            kubelet,
            kubelet_restart_at,
            delete_at,
            pod,
            bindings,
            init_bindings,
            expect,
            notes: std::mem::take(&mut self.notes),
            services: std::mem::take(&mut self.services),
        })
    }

    /// R42: readiness gates keep the pod from Ready until conditions that only controllers set
    /// are True; nothing in the simulation sets them, which the user should know.
    fn note_readiness_gates(&mut self, m: &PodManifest, display_path: &str) {
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
    fn apply_release(&mut self, m: &mut PodManifest, profile: &Profile) {
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
    fn pod_node<'n>(&mut self, f: &Fields<'n>, display_path: &str) -> Option<Cow<'n, Node>> {
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
    fn read_manifest(
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

    /// `deleteAt: 5m` or `deleteAt: {at: 5m, gracePeriod: 10s}`.
    fn deletion(&mut self, node: &Node) -> Option<(SimTime, Option<SimDuration>)> {
        let path = FieldPath::new("deleteAt");
        if !matches!(node.value(), Value::Map(_)) {
            return self.instant(node, &path).map(|t| (t, None));
        }
        let f = decode::fields(&mut self.d, node, &path, &["at", "gracePeriod"], &[])?;
        let Some(at_node) = f.get("at") else {
            self.report(
                &path,
                Some(node.mark),
                "missing field \"at\": when the pod is deleted",
            );
            return None;
        };
        let at = self.instant(at_node, &path.child("at"))?;
        let grace = match f.get("gracePeriod") {
            Some(n) => Some(self.duration(n, &path.child("gracePeriod"))?),
            None => None,
        };
        Some((at, grace))
    }

    fn opt_string(&mut self, f: &Fields<'_>, field: &str, path: &FieldPath) -> Option<String> {
        decode::string(&mut self.d, f.get(field)?, path)
    }

    fn feature_gates(&mut self, node: Option<&Node>) -> Vec<GateOverride> {
        let Some(node) = node else {
            return Vec::new();
        };
        let path = FieldPath::new("featureGates");
        let Some(entries) = self.map_entries(node, &path) else {
            return Vec::new();
        };
        let mut gates = Vec::new();
        for (key, value) in entries {
            if let Some(b) = decode::boolean(&mut self.d, value, &path.key(&key.text)) {
                gates.push(GateOverride {
                    name: key.text.clone(),
                    value: b,
                    mark: key.mark,
                });
            }
        }
        gates
    }

    /// The entries of a user-keyed mapping (null reads as empty).
    fn map_entries<'a>(
        &mut self,
        node: &'a Node,
        path: &FieldPath,
    ) -> Option<&'a [(yaml::Key, Node)]> {
        match node.value() {
            Value::Map(entries) => Some(entries),
            Value::Null => Some(&[]),
            _ => {
                decode::type_error(&mut self.d, node, path, "a mapping");
                None
            }
        }
    }

    /// A duration: a Go-style string or a plain number of seconds.
    fn duration(&mut self, node: &Node, path: &FieldPath) -> Option<SimDuration> {
        let text = match node.value() {
            Value::Str(s) => s.to_owned(),
            Value::Int(_) => node.scalar_text().unwrap_or_default().to_owned(),
            Value::Float(_) => {
                let text = node.scalar_text().unwrap_or_default();
                // A number with an exponent (`1e3`, JSON's `1.5E2`) is spelt out in decimal
                // digits, which the duration syntax reads as seconds.
                match text.trim().parse::<f64>() {
                    Ok(x) if text.contains(['e', 'E']) && x.is_finite() => format!("{x}"),
                    _ => text.to_owned(),
                }
            }
            _ => {
                decode::type_error(&mut self.d, node, path, DURATION_TYPE);
                return None;
            }
        };
        match parse_duration(text.trim()) {
            Ok(d) => Some(d),
            Err(e) => {
                self.report(path, Some(node.mark), e.to_string());
                None
            }
        }
    }

    /// A duration read as an instant on the timeline.
    fn instant(&mut self, node: &Node, path: &FieldPath) -> Option<SimTime> {
        let d = self.duration(node, path)?;
        match horizon(d) {
            Ok(t) => Some(t),
            Err(message) => {
                self.report(path, Some(node.mark), message);
                None
            }
        }
    }

    fn kubelet(&mut self, node: Option<&Node>) -> KubeletConfig {
        let mut k = KubeletConfig::default();
        let Some(node) = node else {
            return k;
        };
        let path = FieldPath::new("kubelet");
        let Some(f) = decode::fields(&mut self.d, node, &path, KUBELET_FIELDS, &[]) else {
            return k;
        };
        let read =
            |l: &mut Loader<'_>, field: &str, slot: &mut SimDuration, must_be_positive: bool| {
                if let Some(n) = f.get(field) {
                    let p = path.child(field);
                    if let Some(d) = l.duration(n, &p) {
                        if must_be_positive && d.is_zero() {
                            l.report(&p, Some(n.mark), "must be greater than 0");
                        } else {
                            *slot = d;
                        }
                    }
                }
            };
        read(self, "startedAgo", &mut k.started_ago, false);
        read(self, "plegPeriod", &mut k.pleg_period, true);
        read(self, "probeSyncDelay", &mut k.probe_sync_delay, false);
        read(self, "resync", &mut k.resync, true);
        read(self, "backoffRequeue", &mut k.backoff_requeue, true);
        if let Some(n) = f.get("jitter") {
            if let Some(b) = decode::boolean(&mut self.d, n, &path.child("jitter")) {
                k.jitter = b;
            }
        }
        if let Some(n) = f.get("maxContainerRestartPeriod") {
            let p = path.child("maxContainerRestartPeriod");
            if let Some(d) = self.duration(n, &p) {
                if (SimDuration::from_secs(1)..=SimDuration::from_secs(300)).contains(&d) {
                    k.max_container_restart_period = Some(d);
                } else {
                    self.report(&p, Some(n.mark), "must be between 1s and 300s");
                }
            }
        }
        k
    }

    /// Where the script's error is, and how many characters to underline: inside the scalar
    /// when the source shows the script's text verbatim there (a plain or quoted scalar on one
    /// line, or a line of a literal block), else at the scalar's start.
    fn script_mark(&self, node: &Node, text: &str, span: Range<usize>) -> (Mark, Option<usize>) {
        let base = node.mark;
        let fallback = (base, None);
        let Some(prefix) = text.get(..span.start) else {
            return fallback;
        };
        // The line of the text the error is on, and the text before it on that line.
        let line_index = prefix.matches('\n').count();
        let before = &prefix[prefix.rfind('\n').map_or(0, |i| i + 1)..];
        let shift = match node.style() {
            Some(Style::Plain) if line_index == 0 => 0,
            Some(Style::Quoted) if line_index == 0 => 1,
            // A literal block's lines are the source lines without their common indentation,
            // which starts where the block's content starts.
            Some(Style::Block) => 0,
            _ => return fallback,
        };
        let Some(source) = usize::try_from(base.source.0)
            .ok()
            .and_then(|i| self.texts.get(i))
        else {
            return fallback;
        };
        let Some(line) = source.lines().nth(base.line.saturating_sub(1) + line_index) else {
            return fallback;
        };
        let start: usize = line
            .char_indices()
            .nth(base.col.saturating_sub(1))
            .map_or(line.len(), |(i, _)| i);
        let rest = &line[start..];
        let rest = if shift == 1 {
            match rest.strip_prefix(['"', '\'']) {
                Some(r) => r,
                None => return fallback,
            }
        } else {
            rest
        };
        let text_line = text.split('\n').nth(line_index).unwrap_or_default();
        let verbatim = if node.style() == Some(Style::Block) {
            !text_line.is_empty() && rest.starts_with(text_line)
        } else {
            rest.starts_with(before)
        };
        if !verbatim {
            return fallback;
        }
        let mark = Mark::new(
            base.line + line_index,
            base.col + shift + before.chars().count(),
        )
        .in_source(base.source);
        // Underline the offending words if the source shows them as the text has them.
        let word = text
            .get(span)
            .map(|w| w.split('\n').next().unwrap_or_default())
            .filter(|w| rest[before.len()..].starts_with(w));
        (mark, word.map(|w| w.chars().count().max(1)))
    }

    fn script_error(&mut self, path: &FieldPath, node: &Node, text: &str, e: &ParseError) {
        let (mark, width) = self.script_mark(node, text, e.span());
        let mut d = Diagnostic::new(path.clone(), Some(mark), e.message());
        if let Some(w) = width {
            d = d.with_width(w);
        }
        self.d.push(d);
    }

    /// The text of a scalar holding a script (numbers allowed: `200` is a script).
    fn script_text<'a>(&mut self, node: &'a Node, path: &FieldPath, what: &str) -> Option<&'a str> {
        match node.value() {
            Value::Str(s) => Some(s),
            Value::Int(_) | Value::Float(_) => node.scalar_text(),
            _ => {
                decode::type_error(&mut self.d, node, path, what);
                None
            }
        }
    }

    fn script<'a>(&mut self, node: &'a Node, path: &FieldPath) -> Option<Written<'a, Script>> {
        let text = self.script_text(node, path, SCRIPT_TYPE)?;
        match probesim_script::parse(text) {
            Ok(script) => Some(Written {
                value: script,
                node,
                text,
            }),
            Err(e) => {
                self.script_error(path, node, text, &e);
                None
            }
        }
    }

    fn apps(
        &mut self,
        node: &Node,
        mut pod: Option<(&PodManifest, &mut ValidatedPod)>,
        bindings: &mut Vec<ScriptBinding>,
        init_bindings: &mut Vec<ScriptBinding>,
    ) {
        let path = FieldPath::new("apps");
        let Some(entries) = self.map_entries(node, &path) else {
            return;
        };
        for (key, app_node) in entries {
            let p = path.key(&key.text);
            let container = match &pod {
                None => None,
                Some((m, _)) => {
                    let found = find_container(m, &key.text);
                    if found.is_none() {
                        let names = m
                            .spec
                            .containers
                            .iter()
                            .chain(&m.spec.init_containers)
                            .map(ContainerManifest::name_str);
                        let hint = match decode::suggest(&key.text, names) {
                            Some(s) => format!(", did you mean {s:?}?"),
                            None => String::new(),
                        };
                        self.report(
                            &p,
                            Some(key.mark),
                            format!("no container named {:?} in the pod{hint}", key.text),
                        );
                    }
                    found
                }
            };
            let Some(f) = decode::fields(&mut self.d, app_node, &p, APP_FIELDS, &[]) else {
                continue;
            };
            let app = self.app_spec(&f, &p);
            let pre_stop = f
                .get("preStop")
                .and_then(|n| self.duration(n, &p.child("preStop")).map(|d| (n, d)));
            let probe_scripts = self.probe_scripts(f.get("probes"), &p.child("probes"));
            let endpoints = self.endpoints(f.get("endpoints"), &p.child("endpoints"));
            let (Some(container), Some((m, v))) = (container, pod.as_mut()) else {
                continue;
            };
            let pod_ip = v.pod.pod_ip.clone();
            let (cm, spec, out, index) = match container {
                ContainerRef::Regular(i) => (
                    &m.spec.containers[i],
                    &mut v.pod.containers[i],
                    &mut *bindings,
                    i,
                ),
                ContainerRef::Init(i) => (
                    &m.spec.init_containers[i],
                    &mut v.init_containers[i],
                    &mut *init_bindings,
                    i,
                ),
            };
            let hook = spec.app.pre_stop;
            spec.app = AppSpec {
                pre_stop: hook,
                ..app
            };
            if let Some((n, d)) = pre_stop {
                if hook.is_some() {
                    spec.app.pre_stop = Some(d);
                } else {
                    self.report(
                        &p.child("preStop"),
                        Some(n.mark),
                        format!(
                            "container {:?} has no lifecycle.preStop hook; add one to the manifest or remove this field",
                            spec.name
                        ),
                    );
                }
            }
            self.bind(&p, index, cm, spec, &pod_ip, probe_scripts, endpoints, out);
        }
    }

    fn app_spec(&mut self, f: &Fields<'_>, p: &FieldPath) -> AppSpec {
        let mut app = AppSpec::default();
        if let Some(n) = f.get("pull") {
            if let Some(d) = self.duration(n, &p.child("pull")) {
                app.pull = d;
            }
        }
        if let Some(n) = f.get("exit") {
            let ep = p.child("exit");
            if let Some(text) = self.script_text(n, &ep, "an exit like \"1 after 2s\"") {
                match parse_exit(text) {
                    Ok(e) => app.exit = Some(e),
                    Err(e) => self.script_error(&ep, n, text, &e),
                }
            }
        }
        if let Some(n) = f.get("sigterm") {
            let sp = p.child("sigterm");
            if let Some(text) = self.script_text(
                n,
                &sp,
                "\"ignore\", \"exit after 3s\" or \"exit 0 after 3s\"",
            ) {
                match parse_sigterm(text) {
                    Ok(s) => app.sigterm = s,
                    Err(e) => self.script_error(&sp, n, text, &e),
                }
            }
        }
        app
    }

    fn probe_scripts<'a>(
        &mut self,
        node: Option<&'a Node>,
        path: &FieldPath,
    ) -> Vec<(ProbeKind, Mark, Written<'a, Script>)> {
        let mut out = Vec::new();
        let Some(node) = node else {
            return out;
        };
        let Some(f) = decode::fields(&mut self.d, node, path, PROBE_TYPES, &[]) else {
            return out;
        };
        for (key, value) in f.entries() {
            let kind = match key.text.as_str() {
                "liveness" => ProbeKind::Liveness,
                "readiness" => ProbeKind::Readiness,
                "startup" => ProbeKind::Startup,
                _ => continue,
            };
            if value.is_null() {
                decode::type_error(&mut self.d, value, &path.key(&key.text), SCRIPT_TYPE);
                continue;
            }
            if let Some(script) = self.script(value, &path.key(&key.text)) {
                out.push((kind, key.mark, script));
            }
        }
        out
    }

    fn endpoints<'a>(&mut self, node: Option<&'a Node>, path: &FieldPath) -> Vec<Endpoint<'a>> {
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
    fn bind(
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
        let mut seen: Vec<(Target, &str)> = Vec::new();
        for ep in endpoints {
            let p = app_path.child("endpoints").key(ep.key);
            let target = ep.parsed.target(cm, pod_ip);
            if let Some((_, first)) = seen.iter().find(|(t, _)| *t == target) {
                self.report(&p, Some(ep.mark), format!("the same endpoint as {first:?}"));
                continue;
            }
            seen.push((target.clone(), ep.key));
            let users: Vec<ProbeKind> = targets
                .iter()
                .filter(|(_, ts)| ts.contains(&target))
                .map(|(kind, _)| *kind)
                .collect();
            if users.is_empty() {
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
            if let Err(e) = script.value.check_handler(target.family()) {
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

    fn expectations(&mut self, node: &Node, pod: Option<&ValidatedPod>) -> Vec<Expect> {
        let path = FieldPath::new("expect");
        let Some(items) = decode::list(&mut self.d, node, &path) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            if let Some(expectation) = self.expectation(item, &path.index(i), pod) {
                out.push(Expect {
                    index: i,
                    line: Some(item.mark.line),
                    expectation,
                });
            }
        }
        out
    }

    fn container_name(
        &mut self,
        node: &Node,
        path: &FieldPath,
        pod: Option<&ValidatedPod>,
    ) -> Option<String> {
        let name = decode::string(&mut self.d, node, path)?;
        if let Some(v) = pod {
            let names = v
                .pod
                .containers
                .iter()
                .chain(&v.init_containers)
                .map(|c| c.name.as_str());
            if !names.clone().any(|n| n == name) {
                let hint = match decode::suggest(&name, names) {
                    Some(s) => format!(", did you mean {s:?}?"),
                    None => String::new(),
                };
                self.report(
                    path,
                    Some(node.mark),
                    format!("no container named {name:?} in the pod{hint}"),
                );
                return None;
            }
        }
        Some(name)
    }

    fn one_of(&mut self, node: &Node, path: &FieldPath, allowed: &[&str]) -> Option<String> {
        let s = decode::string(&mut self.d, node, path)?;
        if allowed.contains(&s.as_str()) {
            return Some(s);
        }
        let list: Vec<String> = allowed.iter().map(|a| format!("{a:?}")).collect();
        let hint = match decode::suggest(&s, allowed.iter().copied()) {
            Some(x) => format!(", did you mean {x:?}?"),
            None => format!(" (expected one of {})", list.join(", ")),
        };
        self.report(path, Some(node.mark), format!("unknown value {s:?}{hint}"));
        None
    }

    fn count_range(&mut self, node: &Node, path: &FieldPath) -> Option<CountRange> {
        const COUNT: &str = "a count (a number, or {min, max})";
        let count = |l: &mut Loader<'_>, n: &Node, p: &FieldPath| {
            decode::integer(
                &mut l.d,
                n,
                p,
                0,
                i128::from(u64::MAX),
                "a count from 0 to 18446744073709551615",
            )
            .and_then(|x| u64::try_from(x).ok())
        };
        match node.value() {
            Value::Int(_) => count(self, node, path).map(CountRange::exactly),
            Value::Map(_) => {
                let f = decode::fields(&mut self.d, node, path, RANGE_FIELDS, &[])?;
                let (min_node, max_node) = (f.get("min"), f.get("max"));
                let min = min_node.map(|n| count(self, n, &path.child("min")));
                let max = max_node.map(|n| count(self, n, &path.child("max")));
                if matches!(min, Some(None)) || matches!(max, Some(None)) {
                    return None;
                }
                let (min, max) = (min.flatten(), max.flatten());
                match (min, max, max_node) {
                    (None, None, _) => {
                        self.report(path, Some(node.mark), "expected min, max or both");
                        None
                    }
                    (Some(a), Some(b), Some(n)) if a > b => {
                        self.report(
                            &path.child("max"),
                            Some(n.mark),
                            format!("max {b} is below min {a}"),
                        );
                        None
                    }
                    _ => Some(CountRange { min, max }),
                }
            }
            _ => {
                decode::type_error(&mut self.d, node, path, COUNT);
                None
            }
        }
    }

    fn expectation(
        &mut self,
        item: &Node,
        path: &FieldPath,
        pod: Option<&ValidatedPod>,
    ) -> Option<Expectation> {
        let f = decode::fields(&mut self.d, item, path, EXPECT_FIELDS, &[])?;
        let forms: Vec<&str> = ["at", "events", "timeline"]
            .into_iter()
            .filter(|k| f.get(k).is_some())
            .collect();
        match forms.as_slice() {
            ["at"] => self.state_expectation(&f, path, pod),
            ["events"] | ["timeline"] => self.count_expectation(&f, path, forms[0], pod),
            [] => {
                self.report(
                    path,
                    Some(f.mark),
                    "expected `at` (state checks), `events` or `timeline`",
                );
                None
            }
            _ => {
                self.report(
                    path,
                    Some(f.mark),
                    format!(
                        "`{}` and `{}` cannot be combined: write separate expectations",
                        forms[0], forms[1]
                    ),
                );
                None
            }
        }
    }

    fn state_expectation(
        &mut self,
        f: &Fields<'_>,
        path: &FieldPath,
        pod: Option<&ValidatedPod>,
    ) -> Option<Expectation> {
        let mut ok = true;
        for field in ["between", "count"] {
            if let Some(n) = f.get(field) {
                self.report(
                    &path.child(field),
                    Some(n.mark),
                    "goes with `events` or `timeline`, not with `at`",
                );
                ok = false;
            }
        }
        let at = f.get("at").and_then(|n| self.instant(n, &path.child("at")));
        let container = match f.get("container") {
            Some(n) => {
                let name = self.container_name(n, &path.child("container"), pod);
                ok &= name.is_some();
                name
            }
            None => {
                for (key, node) in f.entries() {
                    if !node.is_null() && CONTAINER_CHECKS.contains(&key.text.as_str()) {
                        self.report(
                            &path.child(&key.text),
                            Some(key.mark),
                            "a container check needs `container`",
                        );
                        ok = false;
                    }
                }
                None
            }
        };
        let mut checks = StateChecks::default();
        let mut any = false;
        for (field, node) in f.entries() {
            let field = field.text.as_str();
            if node.is_null() || !(CONTAINER_CHECKS.contains(&field) || POD_CHECKS.contains(&field))
            {
                continue;
            }
            any = true;
            let p = path.child(field);
            let good = match field {
                "restartCount" => self
                    .count_range(node, &p)
                    .map(|r| checks.restart_count = Some(r)),
                "ready" => decode::boolean(&mut self.d, node, &p).map(|b| checks.ready = Some(b)),
                "started" => {
                    decode::boolean(&mut self.d, node, &p).map(|b| checks.started = Some(b))
                }
                "podReady" => {
                    decode::boolean(&mut self.d, node, &p).map(|b| checks.pod_ready = Some(b))
                }
                "state" => self
                    .one_of(node, &p, &["running", "waiting", "terminated"])
                    .map(|s| checks.state = Some(s)),
                "reason" => decode::string(&mut self.d, node, &p).map(|s| checks.reason = Some(s)),
                "exitCode" => decode::int32(&mut self.d, node, &p)
                    .map(|n| checks.exit_code = i32::try_from(n).ok()),
                "lastExitCode" => decode::int32(&mut self.d, node, &p)
                    .map(|n| checks.last_exit_code = i32::try_from(n).ok()),
                "phase" => self
                    .one_of(node, &p, &["Pending", "Running", "Succeeded", "Failed"])
                    .map(|s| checks.phase = Some(s)),
                _ => Some(()),
            };
            ok &= good.is_some();
        }
        if !any {
            self.report(
                path,
                Some(f.mark),
                "nothing to check: add restartCount, ready, started, state, reason, exitCode, lastExitCode, phase or podReady",
            );
            return None;
        }
        let at = at?;
        ok.then_some(Expectation::At {
            at,
            container,
            checks,
        })
    }

    fn count_expectation(
        &mut self,
        f: &Fields<'_>,
        path: &FieldPath,
        form: &str,
        pod: Option<&ValidatedPod>,
    ) -> Option<Expectation> {
        let mut ok = true;
        for (key, node) in f.entries() {
            let field = key.text.as_str();
            if !node.is_null()
                && (CONTAINER_CHECKS.contains(&field)
                    || POD_CHECKS.contains(&field)
                    || field == "container")
            {
                self.report(
                    &path.child(field),
                    Some(key.mark),
                    format!("goes with `at`, not with `{form}`"),
                );
                ok = false;
            }
        }
        let fp = path.child(form);
        let filter_node = f.get(form)?;
        let filter = self.event_filter(filter_node, &fp, form, pod);
        let between = match f.get("between") {
            None => Some((SimTime::ZERO, SimTime::MAX)),
            Some(n) => self.between(n, &path.child("between")),
        };
        let count = match f.get("count") {
            None => Some(CountRange {
                min: Some(1),
                max: None,
            }),
            Some(n) => self.count_range(n, &path.child("count")),
        };
        let (filter, between, count) = (filter?, between?, count?);
        ok.then_some(Expectation::Count {
            filter,
            between,
            count,
        })
    }

    fn between(&mut self, node: &Node, path: &FieldPath) -> Option<(SimTime, SimTime)> {
        let items = match node.as_seq() {
            Some(items) if items.len() == 2 => items,
            Some(items) => {
                self.report(
                    path,
                    Some(node.mark),
                    format!(
                        "expected a window [from, to] of two durations, found {} items",
                        items.len()
                    ),
                );
                return None;
            }
            _ => {
                decode::type_error(
                    &mut self.d,
                    node,
                    path,
                    "a window [from, to] of two durations",
                );
                return None;
            }
        };
        let from = self.instant(&items[0], &path.index(0));
        let to = self.instant(&items[1], &path.index(1));
        let (from, to) = (from?, to?);
        if from > to {
            self.report(
                &path.index(1),
                Some(items[1].mark),
                format!("the window ends ({to}s) before it begins ({from}s)"),
            );
            return None;
        }
        Some((from, to))
    }

    fn event_filter(
        &mut self,
        node: &Node,
        path: &FieldPath,
        form: &str,
        pod: Option<&ValidatedPod>,
    ) -> Option<EventFilter> {
        let known = if form == "events" {
            EVENTS_FIELDS
        } else {
            TIMELINE_FIELDS
        };
        let f = decode::fields(&mut self.d, node, path, known, &[])?;
        let mut filter = EventFilter::default();
        let mut ok = true;
        if form == "events" {
            filter.kind = "event".to_owned();
        } else {
            match f.get("kind") {
                None => {
                    self.report(
                        &path.child("kind"),
                        Some(f.mark),
                        "missing field: the timeline event kind to count (probe, result, kill, exit, start, …)",
                    );
                    ok = false;
                }
                Some(n) => match self.one_of(n, &path.child("kind"), &EventKind::NAMES) {
                    Some(k) => filter.kind = k,
                    None => ok = false,
                },
            }
        }
        for (key, node) in f.entries() {
            if node.is_null() {
                continue;
            }
            let p = path.child(&key.text);
            let good = match key.text.as_str() {
                "container" => self
                    .container_name(node, &p, pod)
                    .map(|c| filter.container = Some(c)),
                "probe" => self
                    .one_of(node, &p, PROBE_TYPES)
                    .map(|s| filter.probe = Some(s)),
                "outcome" => self
                    .one_of(node, &p, &["success", "failure", "warning", "error"])
                    .map(|s| filter.outcome = Some(s)),
                "result" => self
                    .one_of(node, &p, &["Success", "Failure", "Unknown"])
                    .map(|s| filter.result = Some(s)),
                "type" => self
                    .one_of(node, &p, &["Normal", "Warning"])
                    .map(|s| filter.event_type = Some(s)),
                "reason" => decode::string(&mut self.d, node, &p).map(|s| filter.reason = Some(s)),
                "message" => {
                    decode::string(&mut self.d, node, &p).map(|s| filter.message = Some(s))
                }
                "exitCode" => decode::int32(&mut self.d, node, &p)
                    .map(|n| filter.exit_code = i32::try_from(n).ok()),
                _ => Some(()),
            };
            ok &= good.is_some();
        }
        ok.then_some(filter)
    }
}

fn find_container(m: &PodManifest, name: &str) -> Option<ContainerRef> {
    if let Some(i) = m.spec.containers.iter().position(|c| c.name_str() == name) {
        return Some(ContainerRef::Regular(i));
    }
    m.spec
        .init_containers
        .iter()
        .position(|c| c.name_str() == name)
        .map(ContainerRef::Init)
}

/// The diagnostics of a failed choice of workload: the file's own problems, or one message,
/// at `anchor` (the scenario's `select:` or `manifest:`) or, for the command line, naming
/// `--select` when the selector is at fault.
fn select_diagnostics(
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
fn resolve_reference(scenario: &str, reference: &str) -> String {
    if reference.starts_with('/') || scenario == "<stdin>" {
        return normalize(reference);
    }
    match scenario.rfind(['/', '\\']) {
        Some(i) => normalize(&format!("{}/{reference}", &scenario[..i])),
        None => normalize(reference),
    }
}

/// Takes `.` and `dir/..` out of a path, lexically.
fn normalize(path: &str) -> String {
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

/// Whether the text has anything besides blank lines, comments and document markers.
fn has_content(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .any(|l| !(l.is_empty() || l.starts_with('#') || l == "---" || l == "..."))
}

/// The stem of the display path, or the pod's name when reading standard input (display path
/// `-` or `<stdin>`, as the command line names it).
fn default_name(display_path: &str, pod_name: &str) -> String {
    if display_path == "<stdin>" {
        return pod_name.to_owned();
    }
    let stem = std::path::Path::new(display_path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("");
    if stem.is_empty() || stem == "-" {
        pod_name.to_owned()
    } else {
        stem.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::argument::AppFlag;

    const POD: &str = "\
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

    fn load(text: &str) -> Result<Scenario, ScenarioError> {
        Scenario::from_str(text, "scenarios/liveness/kubia.yaml")
    }

    /// The error lines without the file name.
    fn errors(text: &str) -> Vec<String> {
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

    fn with_pod(rest: &str) -> String {
        format!("duration: 10m\n{POD}{rest}")
    }

    #[test]
    fn defaults() {
        let s = load(&with_pod("")).unwrap();
        assert_eq!(s.name, "kubia");
        assert_eq!(s.description, None);
        assert_eq!(s.profile.minor(), probesim_core::profile::NEWEST_MINOR);
        assert_eq!(s.seed, 0);
        assert_eq!(s.duration, Some(SimTime::from_secs(600)));
        assert_eq!(s.kubelet, KubeletConfig::default());
        assert!(s.bindings.is_empty() && s.expect.is_empty());
        assert_eq!(s.pod.containers[0].app, AppSpec::default());
        for stdin in ["-", "<stdin>"] {
            let s = Scenario::from_str(&with_pod(""), stdin).unwrap();
            assert_eq!(s.name, "kubia", "standard input takes the pod's name");
        }
    }

    #[test]
    fn scenario_fields_are_read() {
        let s = load(&format!(
            "name: custom\ndescription: a test\nkubernetes: 1.20\nseed: 18446744073709551615\nduration: 90\n\
             featureGates: {{ExecProbeTimeout: false}}\n\
             kubelet: {{startedAgo: 5s, plegPeriod: 500ms, probeSyncDelay: 0.25, resync: 1m, backoffRequeue: 20s, jitter: true, maxContainerRestartPeriod: 30s}}\n{POD}"
        ))
        .unwrap();
        assert_eq!(
            (s.name.as_str(), s.description.as_deref()),
            ("custom", Some("a test"))
        );
        assert_eq!(s.profile.minor(), 20);
        assert!(!s.profile.gate(Gate::ExecProbeTimeout));
        assert_eq!(s.seed, u64::MAX);
        assert_eq!(s.duration, Some(SimTime::from_secs(90)));
        assert_eq!(
            s.kubelet,
            KubeletConfig {
                started_ago: SimDuration::from_secs(5),
                pleg_period: SimDuration::from_millis(500),
                probe_sync_delay: SimDuration::from_millis(250),
                resync: SimDuration::from_secs(60),
                backoff_requeue: SimDuration::from_secs(20),
                jitter: true,
                max_container_restart_period: Some(SimDuration::from_secs(30)),
            }
        );
    }

    #[test]
    fn scenario_level_errors_are_collected_with_positions() {
        let text = format!(
            "durations: 10m\nkubernetes: \"1.18\"\nseed: -1\nkubelet:\n  resynk: 1m\n  plegPeriod: 0s\n  maxContainerRestartPeriod: 10m\n  jitter: yes\nfeatureGates:\n  ExecProbeTimeout: false\n  ReduceDefaultCrashLoopBackOffDecai: true\n{POD}"
        );
        assert_eq!(
            errors(&text),
            [
                "1:1: unknown field \"durations\", did you mean \"duration\"?",
                "2:13: kubernetes: unsupported Kubernetes version \"1.18\": probesim models 1.19 to 1.37",
                "10:3: featureGates.ExecProbeTimeout: feature gate ExecProbeTimeout is locked to true in Kubernetes 1.37",
                "11:3: featureGates.ReduceDefaultCrashLoopBackOffDecai: unknown feature gate \"ReduceDefaultCrashLoopBackOffDecai\", did you mean \"ReduceDefaultCrashLoopBackOffDecay\"?",
                "3:7: seed: expected an integer from 0 to 18446744073709551615, found -1",
                "5:3: kubelet: unknown field \"resynk\", did you mean \"resync\"?",
                "6:15: kubelet.plegPeriod: must be greater than 0",
                "8:11: kubelet.jitter: expected a boolean (true or false), found the string \"yes\"",
                "7:30: kubelet.maxContainerRestartPeriod: must be between 1s and 300s",
            ]
        );
    }

    #[test]
    fn durations_are_go_strings_or_seconds() {
        for (text, ms) in [
            ("90", 90_000),
            ("1.5", 1_500),
            ("1m30s", 90_000),
            ("\"2h\"", 7_200_000),
            ("0", 0),
            ("1e3", 1_000_000),
            ("1.5E2", 150_000),
            ("2e-3", 2),
        ] {
            let s =
                load(&with_pod("").replace("duration: 10m", &format!("duration: {text}"))).unwrap();
            assert_eq!(s.duration, Some(SimTime::from_millis(ms)), "{text}");
        }
        assert_eq!(
            errors(&with_pod("").replace("duration: 10m", "duration: 10x")),
            ["1:11: duration: invalid duration \"10x\": unknown unit \"x\" (use ms, s, m or h)"]
        );
        assert_eq!(
            errors(&with_pod("").replace("duration: 10m", "duration: 99999999999999999999h")),
            ["1:11: duration: duration too large: \"99999999999999999999h\""]
        );
        assert_eq!(
            errors(&with_pod("").replace("duration: 10m", "duration: [1]")),
            ["1:11: duration: expected a duration like 10s, 1m30s or a number of seconds, found a sequence"]
        );
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
    fn apps_set_pull_exit_and_sigterm() {
        let s = load(&with_pod(
            "apps:\n  kubia:\n    pull: 2s\n    exit: \"1 after 30s\"\n    sigterm: ignore\n",
        ))
        .unwrap();
        let app = s.pod.containers[0].app;
        assert_eq!(app.pull, SimDuration::from_secs(2));
        assert_eq!(
            app.exit,
            Some(probesim_core::SelfExit {
                code: 1,
                after: SimDuration::from_secs(30)
            })
        );
        assert_eq!(app.sigterm, probesim_core::Sigterm::Ignore);
    }

    #[test]
    fn apps_errors_point_into_the_scripts() {
        let text = with_pod(
            "apps:\n  kubi:\n    pull: 1s\n  kubia:\n    exit: \"1 afterr 2s\"\n    sigterm: exit aftr 3s\n    probes:\n      liveness: \"5x200 then refsued\"\n      livenes: ok\n",
        );
        let e = errors(&text);
        assert_eq!(
            e[0],
            "16:3: apps.kubi: no container named \"kubi\" in the pod, did you mean \"kubia\"?"
        );
        assert!(e[1].starts_with("19:14: apps.kubia.exit: "), "{}", e[1]);
        assert!(e[2].starts_with("20:19: apps.kubia.sigterm: "), "{}", e[2]);
        assert_eq!(
            e[3],
            "23:7: apps.kubia.probes: unknown field \"livenes\", did you mean \"liveness\"?"
        );
        assert_eq!(
            e[4],
            "22:29: apps.kubia.probes.liveness: unknown outcome \"refsued\", did you mean \"refused\"?"
        );
        assert_eq!(e.len(), 5, "{e:#?}");
    }

    #[test]
    fn scripts_must_fit_the_probe_handler() {
        let e = errors(&with_pod(
            "apps:\n  kubia:\n    probes:\n      liveness: 200 then exit 1\n",
        ));
        assert_eq!(e.len(), 1);
        assert!(
            e[0].starts_with("18:26: apps.kubia.probes.liveness: outcome \"exit 1\" cannot answer an httpGet probe"),
            "{}",
            e[0]
        );
        let e = errors(&with_pod(
            "apps:\n  kubia:\n    endpoints:\n      \"http :8080/\": serving\n",
        ));
        assert!(
            e[0].starts_with("18:22: apps.kubia.endpoints.\"http :8080/\": outcome \"serving\" cannot answer an httpGet probe"),
            "{}",
            e[0]
        );
    }

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
            "apps:\n  kubia:\n    endpoints:\n      \"tcp :9090\": open\n      \"http :8080/\": ok\n      \"http :http\": ok\n      \"ftp :21\": ok\n      \"http :99999/\": ok\n",
        ));
        assert_eq!(
            e,
            [
                "21:7: apps.kubia.endpoints.\"ftp :21\": invalid endpoint: expected \"http[s] [HOST]:PORT[PATH]\", \"tcp [HOST]:PORT\", \"grpc :PORT[/SERVICE]\" or \"exec COMMAND…\"",
                "22:7: apps.kubia.endpoints.\"http :99999/\": invalid endpoint: port 99999 is not between 1 and 65535",
                "18:7: apps.kubia.endpoints.\"tcp :9090\": no probe of container \"kubia\" targets this endpoint (its probes target \"http :8080/\")",
                "20:7: apps.kubia.endpoints.\"http :http\": the same endpoint as \"http :8080/\"",
            ]
        );
        let e = errors(&with_pod("apps:\n  kubia:\n    probes: {startup: ok}\n"));
        assert_eq!(
            e,
            ["17:14: apps.kubia.probes.startup: container \"kubia\" has no startupProbe"]
        );
    }

    #[test]
    fn json_scenarios_load() {
        let text = r#"{
  "duration": "1m",
  "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "kubia"},
          "spec": {"containers": [{"name": "kubia", "image": "luksa/kubia",
                                   "livenessProbe": {"tcpSocket": {"port": 8080}}}]}},
  "apps": {"kubia": {"endpoints": {"tcp :8080": "refused for 20s then open"}}},
  "expect": [{"at": 30, "container": "kubia", "restartCount": {"min": 0, "max": 1}}]
}"#;
        let s = Scenario::from_str(text, "kubia.json").unwrap();
        assert_eq!(s.name, "kubia");
        assert_eq!(s.bindings.len(), 1);
        assert_eq!(s.expect.len(), 1);
        let e = Scenario::from_str(
            &text.replace("\"livenessProbe\"", "\"livenesProbe\""),
            "kubia.json",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e.lines().next().unwrap(),
            "kubia.json:5:36: spec.containers[0]: unknown field \"livenesProbe\", did you mean \"livenessProbe\"?"
        );
    }

    #[test]
    fn expectations_are_read() {
        let s = load(&with_pod(
            "expect:\n\
             - at: 30m\n  container: kubia\n  restartCount: 9\n  ready: false\n  state: waiting\n  reason: CrashLoopBackOff\n  lastExitCode: 137\n\
             - at: 2m\n  phase: Running\n  podReady: true\n\
             - events: {reason: BackOff, message: kubia, type: Warning, container: kubia}\n  between: [0, 30m]\n  count: {min: 1, max: 3}\n\
             - timeline: {kind: probe, probe: liveness, outcome: failure}\n  count: 3\n\
             - events: {reason: Killing}\n",
        ))
        .unwrap();
        assert_eq!(s.expect.len(), 5);
        assert_eq!(s.expect[0].line, Some(16));
        assert_eq!(
            s.expect[0].expectation,
            Expectation::At {
                at: SimTime::from_secs(1800),
                container: Some("kubia".into()),
                checks: StateChecks {
                    restart_count: Some(CountRange::exactly(9)),
                    ready: Some(false),
                    state: Some("waiting".into()),
                    reason: Some("CrashLoopBackOff".into()),
                    last_exit_code: Some(137),
                    ..StateChecks::default()
                }
            }
        );
        assert_eq!(
            s.expect[2].expectation,
            Expectation::Count {
                filter: EventFilter {
                    kind: "event".into(),
                    reason: Some("BackOff".into()),
                    message: Some("kubia".into()),
                    event_type: Some("Warning".into()),
                    container: Some("kubia".into()),
                    ..EventFilter::default()
                },
                between: (SimTime::ZERO, SimTime::from_secs(1800)),
                count: CountRange {
                    min: Some(1),
                    max: Some(3)
                },
            }
        );
        assert_eq!(
            s.expect[3].expectation,
            Expectation::Count {
                filter: EventFilter {
                    kind: "probe".into(),
                    probe: Some("liveness".into()),
                    outcome: Some("failure".into()),
                    ..EventFilter::default()
                },
                between: (SimTime::ZERO, SimTime::MAX),
                count: CountRange::exactly(3),
            }
        );
        assert!(matches!(
            &s.expect[4].expectation,
            Expectation::Count {
                count: CountRange {
                    min: Some(1),
                    max: None
                },
                ..
            }
        ));
    }

    #[test]
    fn expectation_errors() {
        let e = errors(&with_pod(
            "expect:\n\
             - at: 1m\n  restartCount: 1\n\
             - at: 1m\n  container: kubai\n  state: crashing\n\
             - events: {reason: BackOff}\n  between: [5m, 1m]\n  count: {min: 3, max: 1}\n\
             - timeline: {probe: liveness}\n\
             - at: 1m\n  events: {reason: X}\n\
             - count: 1\n\
             - at: 1m\n",
        ));
        assert_eq!(
            e,
            [
                "17:3: expect[0].restartCount: a container check needs `container`",
                "19:14: expect[1].container: no container named \"kubai\" in the pod, did you mean \"kubia\"?",
                "20:10: expect[1].state: unknown value \"crashing\" (expected one of \"running\", \"waiting\", \"terminated\")",
                "22:17: expect[2].between[1]: the window ends (60s) before it begins (300s)",
                "23:24: expect[2].count.max: max 1 is below min 3",
                "24:13: expect[3].timeline.kind: missing field: the timeline event kind to count (probe, result, kill, exit, start, …)",
                "25:3: expect[4]: `at` and `events` cannot be combined: write separate expectations",
                "27:3: expect[5]: expected `at` (state checks), `events` or `timeline`",
                "28:3: expect[6]: nothing to check: add restartCount, ready, started, state, reason, exitCode, lastExitCode, phase or podReady",
            ]
        );
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
    fn hostile_yaml_is_an_error_not_a_hang() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            text.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
        }
        let e = Scenario::from_str(&text, "bomb.yaml").unwrap_err();
        assert!(e.to_string().contains("document too large"), "{e}");
        let deep = format!("pod: {}{}", "{a: ".repeat(1000), "}".repeat(1000));
        assert!(Scenario::from_str(&deep, "deep.yaml").is_err());
    }

    #[test]
    fn script_errors_underline_the_offending_words() {
        let caret = |rest: &str| {
            let text = with_pod(rest);
            let rendered = load(&text).unwrap_err().render(&text);
            rendered.lines().nth(4).unwrap_or_default().to_owned()
        };
        // In a quoted script: the word, not the rest of the scalar and its closing quote.
        assert_eq!(
            caret("apps:\n  kubia:\n    probes:\n      liveness: \"5x200 thne 500\"\n"),
            "   |                        ^^^^"
        );
        assert_eq!(
            caret("apps:\n  kubia:\n    probes:\n      liveness: ok for 2d then fail\n"),
            "   |                        ^^"
        );
        // In a literal block: on the line and column where the word is written.
        let text = with_pod(
            "apps:\n  kubia:\n    probes:\n      liveness: |\n        5x200\n        then 500 forever\n",
        );
        let e = load(&text).unwrap_err();
        assert_eq!(e.items[0].mark, Some(Mark::new(20, 18)));
        assert_eq!(e.items[0].width, Some(7));
        // A folded block does not show the text verbatim: the scalar's start.
        let text = with_pod(
            "apps:\n  kubia:\n    probes:\n      liveness: >\n        5x200\n        then 500 forever\n",
        );
        let e = load(&text).unwrap_err();
        assert_eq!(
            (e.items[0].mark, e.items[0].width),
            (Some(Mark::new(19, 9)), None)
        );
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
    struct Files(Vec<(&'static str, String)>);

    impl ManifestReader for Files {
        fn read(&mut self, path: &str) -> Result<String, String> {
            self.0
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, t)| t.clone())
                .ok_or_else(|| "no such file or directory".to_owned())
        }
    }

    const DEPLOYMENT: &str = "\
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
        let text = "duration: 2m\nmanifest: ../manifests/app.yaml\nselect: deploy/web\napps:\n  web:\n    endpoints:\n      \"http :8080/healthz\": \"500\"\n";
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
            ["scenarios/manifests/app.yaml: skipped 1 object without a pod to simulate: ConfigMap/cfg (line 1)"]
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

    fn run(
        apps: &[(AppFlag, &str)],
        select: Option<&str>,
    ) -> Result<ManifestScenario, ScenarioError> {
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
        assert_eq!(
            built.scenario.notes.last().map(String::as_str),
            Some("app.yaml: Service/web selects the pods of Deployment/web")
        );
    }
}
