//! A scenario file (docs/scenario-format.md): the pod, how its app behaves, the kubelet's knobs,
//! the semantics profile, the horizon and the expectations, validated into one [`Scenario`].
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

mod apps;
mod closed_sets;
mod edits;
mod endpoints;
mod expectations;
mod goals;
mod knobs;
mod loader;
mod manifest_ref;
#[cfg(test)]
mod port_wide_tests;
#[cfg(test)]
mod tests;
mod timing;

use probesim_core::{
    Behaviours, KubeletConfig, PodSpec, ProbeKind, Profile, SimDuration, SimTime, Simulation,
};
use probesim_script::{Script, ScriptPlayer};

use crate::argument::{self, AppArg, ArgApps};
use crate::emit;
use crate::expect::Expect;
use probesim_kube::catalog;
use probesim_kube::decode::{self, Diags};
use probesim_kube::error::{Diagnostic, InputError, Source};
use probesim_kube::field_path::FieldPath;
use probesim_kube::yaml::{self, Key, Mark, Node, NodeKind, SourceId, Style};

pub use self::timing::{
    AppWritten, RuntimeKnobs, TimingBase, TimingMode, DEFAULT_INIT_RUN, DEFAULT_KILL,
    DEFAULT_PULL_FIRST, DEFAULT_PULL_THEN, DEFAULT_START,
};

use self::knobs::apply_gates;
use self::manifest_ref::select_diagnostics;

const SCENARIO_FIELDS: &[&str] = &[
    "name",
    "description",
    "kubernetes",
    "featureGates",
    "seed",
    "phase",
    "duration",
    "timing",
    "kubelet",
    "runtime",
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

const DURATION_TYPE: &str = "a duration like 10s, 1m30s or a number of seconds";

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
    /// Replaces `timing` (`--timing`): the knobs the file leaves out take the new timing's
    /// defaults.
    pub timing: Option<TimingMode>,
}

/// Edits of a scenario given on the command line, laid over what the file says: `--set` on
/// the pod ([`crate::set`]), and `--app`, `--exit`, `--sigterm` and `--pull` over `apps`
/// ([`crate::argument`]: a flag replaces the file's value of the field it names and keeps the
/// others). Every argument is a source of its own, so problems point into it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Edits {
    /// `--app`, `--exit`, `--sigterm` and `--pull`, in the order given.
    pub apps: Vec<AppArg>,
    /// `--set PATH=VALUE`, in the order given (a later one wins).
    pub sets: Vec<String>,
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
    /// `phase` (default 0): how much later than its sync the pod's first container starts,
    /// its offset on the probe workers' tick grid (docs/scenario-format.md#phase).
    pub phase: SimDuration,
    /// `duration`: how much virtual time to simulate. Required once overrides are applied
    /// ([`Scenario::apply`]).
    pub duration: Option<SimTime>,
    /// The kubelet's timing knobs (`kubelet`), with the runtime's latencies (`runtime`), after
    /// the timing's defaults.
    pub kubelet: KubeletConfig,
    /// `timing` (default `realistic`), or `--timing`.
    pub timing: TimingMode,
    /// The knobs `timing` gives defaults to, as written ([`TimingMode`]).
    pub timing_base: TimingBase,
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
    /// The command-line edits that changed the file's pod or apps, as the header lists them
    /// (`--set livenessProbe.failureThreshold=1`); empty when the run is the file's own.
    pub overridden: Vec<String>,
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
            // A file name may hold a line break: escaped, it cannot end the comment and
            // inject settings.
            probesim_kube::printable::printable(&self.file),
            probesim_kube::printable::printable(&self.workload),
            emit::string(&s.name),
            emit::string(&s.profile.version())
        );
        if s.seed != 0 {
            out.push_str(&format!("seed: {}\n", s.seed));
        }
        if s.timing != TimingMode::default() {
            out.push_str(&format!("timing: {}\n", s.timing));
        }
        if !s.phase.is_zero() {
            out.push_str(&format!(
                "phase: {}\n",
                emit::string(&probesim_script::format_duration(s.phase))
            ));
        }
        if let Some(d) = s.duration {
            out.push_str(&format!(
                "duration: {}\n",
                emit::string(&probesim_script::format_duration(
                    d.saturating_since(SimTime::ZERO)
                ))
            ));
        }
        // The jitter is on by default under realistic timing, off under exact.
        if s.kubelet.jitter != (s.timing == TimingMode::Realistic) {
            out.push_str(&format!("kubelet:\n  jitter: {}\n", s.kubelet.jitter));
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
    /// # Ok::<(), probesim_kube::error::InputError>(())
    /// ```
    pub fn from_str(text: &str, display_path: &str) -> Result<Scenario, InputError> {
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
    ) -> Result<Scenario, InputError> {
        Scenario::parse(text, display_path, reader, None, &Edits::default())
            .map_err(|e| e.with_template_hint(text))
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
    ) -> Result<Scenario, InputError> {
        Scenario::load_edited(text, display_path, reader, overrides, &Edits::default())
    }

    /// [`Scenario::load_with`] with command-line edits laid over the file before it is judged:
    /// a value given with `--set` goes through the same reading, defaults and validation as one
    /// written in the file, and its problems point into the flag. [`Scenario::overridden`]
    /// lists the edits.
    ///
    /// # Errors
    /// As [`Scenario::load_with`], and a malformed edit or one that names no container.
    pub fn load_edited(
        text: &str,
        display_path: &str,
        reader: &mut dyn ManifestReader,
        overrides: &Overrides,
        edits: &Edits,
    ) -> Result<Scenario, InputError> {
        let mut s = Scenario::parse(
            text,
            display_path,
            reader,
            overrides.kubernetes.as_deref(),
            edits,
        )
        .map_err(|e| e.with_template_hint(text))?;
        s.apply(overrides)?;
        Ok(s)
    }

    fn parse(
        text: &str,
        display_path: &str,
        reader: &mut dyn ManifestReader,
        kubernetes: Option<&str>,
        edits: &Edits,
    ) -> Result<Scenario, InputError> {
        let root = yaml::parse(text).map_err(|e| {
            InputError::single(
                display_path,
                Diagnostic::new(FieldPath::root(), e.mark, e.message),
            )
        })?;
        let mut texts = vec![text];
        texts.extend(edits.texts());
        let mut loader = Loader::new(texts, edits.sources(), Some(reader));
        loader.edits = edits.clone();
        loader.kubernetes = kubernetes.map(str::to_owned);
        match loader.scenario(&root, display_path) {
            Some(mut s) if loader.d.is_empty() => {
                if kubernetes.is_none() && root.get("kubernetes").is_none() {
                    s.notes.insert(0, release_note(display_path, &s.profile));
                }
                Ok(s)
            }
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
    /// # Ok::<(), probesim_kube::error::InputError>(())
    /// ```
    pub fn from_manifest(
        text: &str,
        display_path: &str,
        run: &ManifestRun,
    ) -> Result<ManifestScenario, InputError> {
        Scenario::from_manifest_edited(text, display_path, run, &[])
    }

    /// [`Scenario::from_manifest`] with `--set` edits of the workload's manifest, judged as the
    /// file is; [`ManifestScenario::to_yaml`] writes the edited manifest.
    ///
    /// # Errors
    /// As [`Scenario::from_manifest`], and a malformed edit or one that names no container.
    pub fn from_manifest_edited(
        text: &str,
        display_path: &str,
        run: &ManifestRun,
        sets: &[String],
    ) -> Result<ManifestScenario, InputError> {
        Scenario::read_manifest(text, display_path, run, sets)
            .map_err(|e| e.with_template_hint(text))
    }

    fn read_manifest(
        text: &str,
        display_path: &str,
        run: &ManifestRun,
        sets: &[String],
    ) -> Result<ManifestScenario, InputError> {
        let fail = |items: Vec<Diagnostic>, sources: Vec<Source>| InputError {
            file: display_path.to_owned(),
            items,
            sources,
        };
        let mut selection = catalog::select(text, SourceId::MAIN, run.select.as_deref())
            .map_err(|e| fail(select_diagnostics(e, "--select", None), Vec::new()))?;
        let kind = selection.workload.kind;
        // The `--set` arguments come after the behaviour flags, as sources.
        let first_set = u32::try_from(run.apps.len() + 1).unwrap_or(u32::MAX);
        let set_problems = crate::set::apply(&mut selection.node, sets, first_set);
        let containers = catalog::container_names(&selection.node, kind);
        // Problems in the arguments are reported with whatever the rest of the load finds.
        let (apps, mut sources, mut problems) = argument::read(&run.apps, 1, &containers);
        sources.extend(crate::set::sources(sets));
        problems.extend(set_problems);
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
        texts.extend(sets.iter().map(String::as_str));
        let mut loader = Loader::new(texts, sources, None);
        loader.kubernetes.clone_from(&run.kubernetes);
        loader.d.extend(problems);
        match loader.scenario(&root, display_path) {
            Some(mut scenario) if loader.d.is_empty() => {
                scenario.duration = Some(SimTime::ZERO.saturating_add(DEFAULT_MANIFEST_DURATION));
                // The workload's notes first, then the pod's (readiness gates, named ports),
                // then the probes without a script, worded for the command line's --app.
                let file_fallbacks = scenario.fallback_notes();
                let mut notes: Vec<String> = notes;
                notes.extend(
                    scenario
                        .notes
                        .drain(..)
                        .filter(|n| !file_fallbacks.contains(n)),
                );
                notes.extend(endpoints::fallback_notes(&scenario, true));
                scenario.notes = notes;
                scenario.services = services;
                scenario.overridden = Edits {
                    apps: Vec::new(),
                    sets: sets.to_vec(),
                }
                .listing();
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
    ) -> Result<Scenario, InputError> {
        Scenario::load_with(text, display_path, &mut NoFiles, overrides)
    }

    /// Applies command-line overrides: a new profile (with the `featureGates` applied again),
    /// seed or duration. Afterwards a duration is required.
    ///
    /// # Errors
    /// An unknown Kubernetes version, a gate override the new profile refuses, or no
    /// `duration` in the file and none given.
    pub fn apply(&mut self, o: &Overrides) -> Result<(), InputError> {
        let mut d = Diags::new();
        if let Some(version) = &o.kubernetes {
            match Profile::parse(version) {
                Some(mut profile) => {
                    apply_gates(&mut profile, &self.feature_gates, &mut d);
                    self.profile = profile;
                    // The release is given now: the file no longer follows the newest.
                    let note = release_note(&self.file, &Profile::newest());
                    self.notes.retain(|n| *n != note);
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
        if let Some(timing) = o.timing {
            if timing != self.timing {
                self.timing = timing;
                self.apply_timing();
            }
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
            Err(InputError {
                file: self.file.clone(),
                items: d,
                sources: Vec::new(),
            })
        }
    }

    /// The note that the file names no release and runs as the newest, when it is one of
    /// [`Scenario::notes`] (loading adds it first; a release given later removes it).
    #[must_use]
    pub fn release_note(&self) -> Option<&str> {
        let note = release_note(&self.file, &self.profile);
        self.notes.iter().find(|n| **n == note).map(String::as_str)
    }

    /// The notes for the probes that no script answers: each answers `ok` to every request
    /// (docs/script-language.md#which-script-a-probe-uses). Loading adds them to
    /// [`Scenario::notes`].
    #[must_use]
    pub fn fallback_notes(&self) -> Vec<String> {
        endpoints::fallback_notes(self, false)
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
        sim.delay_first_start(self.phase);
        if let Some((at, grace)) = self.delete_at {
            sim.delete_at(at, grace);
        }
        if let Some(at) = self.kubelet_restart_at {
            sim.restart_kubelet_at(at);
        }
        sim
    }
}

/// The longest start phase (`phase`, `--phase`): an hour, longer than any probe period worth
/// simulating.
pub const MAX_PHASE: SimDuration = SimDuration::from_secs(3600);

/// A start phase (`phase`, `--phase`) if it is at most [`MAX_PHASE`]; otherwise the error to
/// report.
///
/// # Errors
/// The message for a phase past the limit.
pub fn phase(d: SimDuration) -> Result<SimDuration, String> {
    if d <= MAX_PHASE {
        Ok(d)
    } else {
        Err(format!(
            "the start phase must be at most 1h (the offset of the first start on the probe workers' tick grid), found {}",
            probesim_script::format_duration(d)
        ))
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

/// The note for a scenario file that names no release (`kubernetes:`) and gets none on the
/// command line: it follows the newest release modelled, which changes when probesim models a
/// newer one, so the note names the release used and how to pin it.
pub(super) fn release_note(display_path: &str, profile: &Profile) -> String {
    let version = profile.version();
    format!(
        "{display_path}: no `kubernetes:` given, so this runs as Kubernetes {version}, the newest release probesim models; write `kubernetes: \"{version}\"` to keep it there"
    )
}

fn unsupported_version(version: &str) -> String {
    format!(
        "unsupported Kubernetes version {version:?}: probesim models 1.{} to 1.{}",
        probesim_core::profile::OLDEST_MINOR,
        probesim_core::profile::NEWEST_MINOR
    )
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
    /// The command-line edits laid over the file.
    edits: Edits,
    /// Per container (engine index), which timing knobs its `apps` entry gives.
    written: Vec<(usize, AppWritten)>,
    d: Diags,
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
