//! [`Test`]: what to simulate (a manifest or a scenario file, the workload, the container, how
//! the app behaves, the release, the seed and the horizon), built into a run.

use core::fmt;
use std::rc::Rc;
use std::sync::Arc;

use probesim_core::{
    Behaviour, Behaviours, Handler, HandlerFamily, ProbeKind, SimDuration, Simulation,
};
use probesim_kube::catalog;
use probesim_scenario::argument::{AppArg, AppFlag};
use probesim_scenario::run::{describe_horizon, RunFailure, MAX_LISTED_EVENTS};
use probesim_scenario::scenario::{
    horizon, Edits, ManifestRun, ManifestScenario, Overrides, Scenario, TimingMode,
};
use probesim_scenario::timing::Timing;
use probesim_script::ScriptPlayer;

use crate::error::{Error, ErrorKind};
use crate::files;
use crate::guard::{Fault, Guarded};
use crate::input::{References, Tree};
use crate::prepared::Prepared;
use crate::run::{Replay, Run};
use crate::timeline::Recorder;

/// The input: a Kubernetes manifest (a Pod or a workload) or a scenario file. The text is
/// shared, so the cases of a prepared test and their replays do not copy it.
#[derive(Clone, Debug)]
pub(crate) enum Input {
    Manifest { file: String, text: Arc<str> },
    Scenario { file: String, text: Arc<str> },
}

/// A closure bound to one probe of one container.
pub(crate) struct Bound {
    pub(crate) container: Option<String>,
    pub(crate) probe: ProbeKind,
    pub(crate) behaviour: Box<dyn Behaviour>,
}

/// A script given with [`Test::probe`] or [`Test::endpoint`]: the `--app` argument it became,
/// so a prepared test's case can give the same key another script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Keyed {
    /// Index of the argument in [`Recipe::apps`].
    pub(crate) arg: usize,
    pub(crate) container: Option<String>,
    /// `liveness`, `:8080`…: what stands left of `=`.
    pub(crate) key: String,
}

/// Everything a test says except its closures: enough to load it again, which the replay file
/// of a failed case does only when asked for.
#[derive(Clone, Debug)]
pub(crate) struct Recipe {
    pub(crate) input: Input,
    pub(crate) select: Option<String>,
    pub(crate) container: Option<String>,
    pub(crate) apps: Vec<AppArg>,
    pub(crate) keyed: Vec<Keyed>,
    pub(crate) kubernetes: Option<String>,
    pub(crate) seed: Option<u64>,
    /// [`Test::timing_mode`].
    pub(crate) timing_mode: Option<TimingMode>,
    /// The start phase ([`Test::phase`]).
    pub(crate) phase: Option<SimDuration>,
    /// The kubelet's jitter drawn from the seed ([`Test::jitter`]).
    pub(crate) jitter: bool,
    pub(crate) horizon: Option<Horizon>,
    /// `--set PATH=VALUE` edits of the pod, in order.
    pub(crate) sets: Vec<String>,
    pub(crate) outside_tree: bool,
    /// The most events simulated one by one ([`Test::event_limit`]).
    pub(crate) event_limit: u64,
}

/// A loaded test: the scenario, and for a manifest what writes its replay file.
pub(crate) enum Loaded {
    Manifest(ManifestScenario),
    Scenario(Scenario),
}

/// How long to simulate.
#[derive(Clone, Debug)]
pub(crate) enum Horizon {
    Text(String),
    Duration(SimDuration),
}

/// One simulation to run and question: a builder.
///
/// Start from a manifest ([`Test::manifest`]) or a scenario file ([`Test::scenario`]), with a
/// path relative to the current directory, which `cargo test` sets to the root of the crate
/// whose test runs. Then say which workload ([`Test::select`]) and container
/// ([`Test::container`]), how the app behaves, in the behaviour language
/// ([`Test::probe`], [`Test::endpoint`], [`Test::app`], [`Test::exit`], [`Test::sigterm`],
/// [`Test::pull`]) or with a closure ([`Test::behaviour`]), and pick the release
/// ([`Test::kubernetes`]), [`Test::seed`] and [`Test::horizon`]. [`Test::run`] simulates and
/// hands back a [`Run`] to query.
///
/// A manifest without a horizon simulates ten minutes, as `probesim run` does.
///
/// For many cases of one workload, [`Test::prepare`] loads the manifest once and runs each
/// case from it ([`Prepared`]).
pub struct Test {
    recipe: Recipe,
    bound: Vec<Bound>,
}

impl fmt::Debug for Test {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.recipe;
        f.debug_struct("Test")
            .field("input", &r.input)
            .field("select", &r.select)
            .field("container", &r.container)
            .field("apps", &r.apps)
            .field("closures", &self.bound.len())
            .field("kubernetes", &r.kubernetes)
            .field("seed", &r.seed)
            .field("horizon", &r.horizon)
            .field("sets", &r.sets)
            .field("outside_tree", &r.outside_tree)
            .finish()
    }
}

impl Test {
    pub(crate) fn from_recipe(recipe: Recipe, bound: Vec<Bound>) -> Test {
        Test { recipe, bound }
    }

    fn new(input: Input) -> Test {
        Test {
            recipe: Recipe {
                input,
                select: None,
                container: None,
                apps: Vec::new(),
                keyed: Vec::new(),
                kubernetes: None,
                seed: None,
                timing_mode: None,
                phase: None,
                jitter: false,
                horizon: None,
                sets: Vec::new(),
                outside_tree: false,
                event_limit: MAX_LISTED_EVENTS,
            },
            bound: Vec::new(),
        }
    }

    /// A Kubernetes manifest file (a Pod, a Deployment, a multi-document file, a `List`…), as
    /// `probesim run deploy.yaml` reads it.
    ///
    /// # Errors
    /// The file cannot be read ([`ErrorKind::File`]).
    pub fn manifest(path: &str) -> Result<Test, Error> {
        let text = files::read(path)?;
        Ok(Test::manifest_text(&text, path))
    }

    /// A manifest given as text; `display_path` names it in messages.
    #[must_use]
    pub fn manifest_text(text: &str, display_path: &str) -> Test {
        Test::new(Input::Manifest {
            file: display_path.to_owned(),
            text: Arc::from(text),
        })
    }

    /// A scenario file (docs/scenario-format.md), whose `manifest:` references are read relative to
    /// it. Its own `apps` say how the app behaves; closures ([`Test::behaviour`]) may replace them.
    ///
    /// # Errors
    /// The file cannot be read ([`ErrorKind::File`]).
    pub fn scenario(path: &str) -> Result<Test, Error> {
        let text = files::read(path)?;
        Ok(Test::scenario_text(&text, path))
    }

    /// A scenario given as text; `display_path` names it and anchors its `manifest:` paths.
    #[must_use]
    pub fn scenario_text(text: &str, display_path: &str) -> Test {
        Test::new(Input::Scenario {
            file: display_path.to_owned(),
            text: Arc::from(text),
        })
    }

    /// Lets a scenario file's `manifest:` references leave its tree (`--allow-outside-tree`).
    /// By default a reference must resolve, links followed, under the working directory or
    /// the scenario file's own directory, so that a scenario from elsewhere cannot read
    /// `/etc/passwd` or `/proc/self/environ` into an error message.
    #[must_use]
    pub fn allow_outside_tree(mut self) -> Test {
        self.recipe.outside_tree = true;
        self
    }

    /// Which workload of the manifest: `[NAMESPACE/]KIND/NAME` or `NAME` (`--select`).
    #[must_use]
    pub fn select(mut self, workload: &str) -> Test {
        self.recipe.select = Some(workload.to_owned());
        self
    }

    /// The container that the behaviour calls after this one are about (by name; needed
    /// unless the pod has a single container).
    #[must_use]
    pub fn container(mut self, name: &str) -> Test {
        self.recipe.container = Some(name.to_owned());
        self
    }

    fn arg(mut self, flag: AppFlag, text: &str) -> Test {
        let value = arg_value(self.recipe.container.as_deref(), text);
        self.recipe.apps.push(AppArg { flag, value });
        self
    }

    /// One `KEY=SCRIPT` pair, remembered by its key for the cases of a prepared test.
    fn keyed(mut self, key: &str, script: &str) -> Test {
        self.recipe.keyed.push(Keyed {
            arg: self.recipe.apps.len(),
            container: self.recipe.container.clone(),
            key: key.to_owned(),
        });
        self.app(&format!("{key}={script}"))
    }

    /// The container's behaviour as `--app` takes it: `KEY=SCRIPT` pairs separated by `;`,
    /// where a key is a probe type or an endpoint (`liveness=5x200 then 500; :8080=refused for
    /// 30s then ok`).
    #[must_use]
    pub fn app(self, pairs: &str) -> Test {
        self.arg(AppFlag::App, pairs)
    }

    /// A script for one probe of the container: `.probe(ProbeKind::Liveness, "5x200 then 500")`.
    #[must_use]
    pub fn probe(self, probe: ProbeKind, script: &str) -> Test {
        self.keyed(probe.as_str(), script)
    }

    /// A script for an endpoint of the container, shared by every probe it answers:
    /// `.endpoint(":8080", "refused for 90s then ok")`, `.endpoint("http :8080/healthz", "ok")`.
    #[must_use]
    pub fn endpoint(self, key: &str, script: &str) -> Test {
        self.keyed(key, script)
    }

    /// The process exits by itself: `"1 after 2s"` (`--exit`).
    #[must_use]
    pub fn exit(self, exit: &str) -> Test {
        self.arg(AppFlag::Exit, exit)
    }

    /// What the process does on SIGTERM: `"ignore"`, `"exit after 5s"` (`--sigterm`).
    #[must_use]
    pub fn sigterm(self, sigterm: &str) -> Test {
        self.arg(AppFlag::Sigterm, sigterm)
    }

    /// How long the image pull takes: `"3s"` (`--pull`).
    #[must_use]
    pub fn pull(self, pull: &str) -> Test {
        self.arg(AppFlag::Pull, pull)
    }

    /// A closure (or any [`Behaviour`]) answers one probe of the container, in place of any
    /// script. A closure that needs randomness takes the simulation's generator through
    /// [`Drawing`](crate::Drawing), so runs stay reproducible per seed.
    #[must_use]
    pub fn behaviour(mut self, probe: ProbeKind, behaviour: impl Behaviour + 'static) -> Test {
        self.bound.push(Bound {
            container: self.recipe.container.clone(),
            probe,
            behaviour: Box::new(behaviour),
        });
        self
    }

    /// The Kubernetes release whose kubelet and API server are modelled: `"1.33"`
    /// (`--kubernetes`; default the newest).
    #[must_use]
    pub fn kubernetes(mut self, release: &str) -> Test {
        self.recipe.kubernetes = Some(release.to_owned());
        self
    }

    /// The seed of the simulation's one generator (`--seed`): it decides the probes' start-up
    /// jitter, so it picks the phase of their ticks, and every random outcome of a script.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Test {
        self.recipe.seed = Some(seed);
        self
    }

    /// The timing of the runtime's steps (`--timing`, the scenario's `timing`):
    /// [`TimingMode::Realistic`] (latencies, pulls and the kubelet's jitter as on a real node,
    /// docs/semantics.md#runtime-durations) or [`TimingMode::Exact`] (zero-latency canonical
    /// timing), over the file's `timing`.
    #[must_use]
    pub fn timing_mode(mut self, mode: TimingMode) -> Test {
        self.recipe.timing_mode = Some(mode);
        self
    }

    /// How much later than its sync the pod's first container starts (`--phase`, the
    /// scenario's `phase`): the start's offset on the probe workers' tick grid, at most 1h.
    /// Later starts are not moved. On 1.21+ this, not the seed, is what puts the app's clock
    /// anywhere between two ticks (docs/property-testing.md#which-input-covers-what).
    #[must_use]
    pub fn phase(mut self, phase: SimDuration) -> Test {
        self.recipe.phase = Some(phase);
        self
    }

    /// Draw the kubelet's jitters (requeue, resync, the back-off expiry on 1.35+) from the
    /// seed (`--jitter`, `kubelet.jitter: true`).
    #[must_use]
    pub fn jitter(mut self) -> Test {
        self.recipe.jitter = true;
        self
    }

    /// One timing of the space `probesim run --spread` and `check --timings` explore: its
    /// seed, its phase, and the kubelet's jitter on ([`Timing::apply`]).
    #[must_use]
    pub fn timing(self, timing: Timing) -> Test {
        self.seed(timing.seed).phase(timing.phase).jitter()
    }

    /// How long to simulate, in the duration syntax: `"10m"`, `"90s"` (`--for`).
    #[must_use]
    pub fn horizon(mut self, duration: &str) -> Test {
        self.recipe.horizon = Some(Horizon::Text(duration.to_owned()));
        self
    }

    /// The most events the run may simulate one by one (the command line's limit for the
    /// formats that list every event, [`MAX_LISTED_EVENTS`], by default). Cycles that
    /// steady-state fast-forward skips are not counted: they cost neither time nor memory (ten
    /// years of a crash loop are a few thousand events). A run that passes the limit ends with
    /// an [`ErrorKind::Limit`] error saying when; a behaviour closure or random outcomes keep
    /// every event one by one, so there the limit bounds the run's memory.
    #[must_use]
    pub fn event_limit(mut self, limit: u64) -> Test {
        self.recipe.event_limit = limit;
        self
    }

    /// How long to simulate, as a duration.
    #[must_use]
    pub fn horizon_of(mut self, duration: SimDuration) -> Test {
        self.recipe.horizon = Some(Horizon::Duration(duration));
        self
    }

    /// What if: one field of the pod changed before it is validated, as `--set PATH=VALUE`
    /// does (docs/cli.md#what-if---set) and by the same code: `.set("livenessProbe.failureThreshold",
    /// "1")` for the only container, `.set("web.livenessProbe.periodSeconds", "5")` for the one
    /// named `web`, `.set("spec.terminationGracePeriodSeconds", "5")` for the pod. The value is
    /// YAML (`"null"` removes the field); a later edit of a field wins. For manifests and
    /// scenario files alike; a bad value is the error `probesim run --set` prints.
    #[must_use]
    pub fn set(mut self, path: &str, value: &str) -> Test {
        self.recipe.sets.push(format!("{path}={value}"));
        self
    }

    /// The scenario file that replays this test with `probesim run` (for a manifest: the
    /// workload embedded, the behaviour as `apps`, the release, seed and horizon written out).
    ///
    /// # Errors
    /// As [`Test::run`], before simulating.
    pub fn replay(&self) -> Result<String, Error> {
        let loaded = self.recipe.load()?;
        Ok(Replay::text_of(&self.recipe, &loaded, false))
    }

    /// Loads the test once, for many cases: each [`Prepared::case`] may give its own seed,
    /// horizon, scripts for the keys given here ([`Test::probe`], [`Test::endpoint`]) and
    /// closures, and simulates without reading the manifest again. Closures go on the cases,
    /// since each case needs its own.
    ///
    /// # Errors
    /// As [`Test::run`], before simulating; a closure given to the test itself
    /// ([`ErrorKind::Usage`]).
    pub fn prepare(self) -> Result<Prepared, Error> {
        if !self.bound.is_empty() {
            return Err(Error::new(
                ErrorKind::Usage,
                "a prepared test takes its closures on each case: Prepared::case().behaviour(...)",
            ));
        }
        let scenario = self.recipe.load()?.into_scenario();
        Prepared::new(self.recipe, scenario)
    }

    /// Simulates to the horizon.
    ///
    /// # Errors
    /// Whatever `probesim run` would report for the same input: a manifest or scenario that
    /// does not validate, a script that does not parse, an unknown workload, container or
    /// release ([`ErrorKind::Input`]); a behaviour in the language for a scenario file
    /// ([`ErrorKind::Usage`]); an engine that does not settle ([`ErrorKind::Run`]).
    pub fn run(self) -> Result<Run, Error> {
        let scenario = self.recipe.load()?.into_scenario();
        let closures = !self.bound.is_empty();
        let fault = Fault::default();
        let sim = simulation(&scenario, self.bound, &fault)?;
        let replay = Replay::new(Arc::new(self.recipe), closures);
        simulate(scenario, sim, &fault, replay)
    }
}

/// `--app`'s value for a pair about `container` (every container when `None`).
pub(crate) fn arg_value(container: Option<&str>, text: &str) -> String {
    match container {
        Some(c) => format!("{c}: {text}"),
        None => text.to_owned(),
    }
}

/// Runs `sim` to the scenario's horizon, recording what the queries read.
pub(crate) fn simulate(
    scenario: Scenario,
    mut sim: Simulation,
    fault: &Fault,
    replay: Replay,
) -> Result<Run, Error> {
    let Some(end) = scenario.duration else {
        return Err(Error::new(
            ErrorKind::Input,
            format!("{}: {}", scenario.file, RunFailure::NoDuration),
        ));
    };
    let limit = replay.event_limit();
    let mut recorder = Recorder::new(limit);
    sim.run_until(end, &mut recorder).map_err(|e| match e {
        probesim_core::RunError::Sink(never) => match never {},
        probesim_core::RunError::StepBudget { at } => Error::new(
            ErrorKind::Run,
            format!("{}: {}", scenario.file, RunFailure::Stuck(at)),
        ),
    })?;
    if let Some(why) = fault.borrow_mut().take() {
        return Err(Error::new(
            ErrorKind::Closure,
            format!("{}: {why}", scenario.file),
        ));
    }
    if let Some(at) = recorder.exceeded_at() {
        return Err(Error::new(
            ErrorKind::Limit,
            format!(
                "{}: the run is too large: more than {limit} events would be simulated one by one, the limit being passed at {}; simulate a shorter horizon, or raise the limit with Test::event_limit",
                scenario.file,
                describe_horizon(at)
            ),
        ));
    }
    let status = sim.status().clone();
    Ok(Run::new(scenario, end, recorder, status, replay))
}

impl Loaded {
    pub(crate) fn into_scenario(self) -> Scenario {
        match self {
            Loaded::Manifest(built) => built.scenario,
            Loaded::Scenario(scenario) => scenario,
        }
    }
}

impl Recipe {
    /// The input's text.
    pub(crate) fn text(&self) -> &str {
        match &self.input {
            Input::Manifest { text, .. } | Input::Scenario { text, .. } => text,
        }
    }

    /// The `--set` edits as the scenario loader takes them.
    pub(crate) fn edits(&self) -> Edits {
        Edits {
            apps: Vec::new(),
            sets: self.sets.clone(),
        }
    }

    pub(crate) fn overrides(&self) -> Result<Overrides, Error> {
        let duration = match &self.horizon {
            None => None,
            Some(h) => {
                let d = match h {
                    Horizon::Duration(d) => *d,
                    Horizon::Text(text) => probesim_script::parse_duration(text)
                        .map_err(|e| Error::new(ErrorKind::Input, format!("--for: {e}")))?,
                };
                Some(horizon(d).map_err(|m| Error::new(ErrorKind::Input, format!("--for: {m}")))?)
            }
        };
        Ok(Overrides {
            duration,
            seed: self.seed,
            kubernetes: self.kubernetes.clone(),
            timing: self.timing_mode,
        })
    }

    /// Reads and validates the input with the overrides applied: the scenario this test
    /// simulates. The manifest is parsed once; only when it does not load is it asked whether it
    /// is a scenario file instead, for the message.
    pub(crate) fn load(&self) -> Result<Loaded, Error> {
        let overrides = self.overrides()?;
        let input = |text: &str, e: &probesim_kube::error::InputError| {
            Error::new(ErrorKind::Input, e.render(text))
        };
        match &self.input {
            Input::Manifest { file, text } => {
                let run = ManifestRun {
                    select: self.select.clone(),
                    apps: self.apps.clone(),
                    kubernetes: self.kubernetes.clone(),
                };
                let mut built = match Scenario::from_manifest_edited(text, file, &run, &self.sets) {
                    Ok(built) => built,
                    Err(_) if !catalog::is_manifest(text) => {
                        return Err(Error::new(
                            ErrorKind::Usage,
                            format!("{file} is a scenario file, not a Kubernetes manifest: load it with Test::scenario"),
                        ))
                    }
                    Err(e) => return Err(input(text, &e)),
                };
                built
                    .scenario
                    .apply(&overrides)
                    .map_err(|e| input(text, &e))?;
                self.set_timing(&mut built.scenario)?;
                Ok(Loaded::Manifest(built))
            }
            Input::Scenario { file, text } => {
                let mut given = Vec::new();
                if self.select.is_some() {
                    given.push("--select");
                }
                if !self.apps.is_empty() {
                    given.push("--app");
                }
                if !given.is_empty() {
                    let verb = if given.len() == 1 { "applies" } else { "apply" };
                    return Err(Error::new(
                        ErrorKind::Usage,
                        format!(
                            "{} {verb} only to a Kubernetes manifest, and {file} is a scenario file: write the behaviour in its `apps`, and choose a workload with `manifest` and `select`",
                            given.join(" and ")
                        ),
                    ));
                }
                let tree = if self.outside_tree {
                    Tree::anywhere()
                } else {
                    Tree::of(Some(std::path::Path::new(file)), "Test::allow_outside_tree")
                };
                let mut files = References::new(tree);
                let mut scenario =
                    Scenario::load_edited(text, file, &mut files, &overrides, &self.edits())
                        .map_err(|e| input(text, &e))?;
                self.set_timing(&mut scenario)?;
                Ok(Loaded::Scenario(scenario))
            }
        }
    }

    /// The phase and jitter given ([`Test::phase`], [`Test::jitter`]) set on `scenario`.
    pub(crate) fn set_timing(&self, scenario: &mut Scenario) -> Result<(), Error> {
        if let Some(p) = self.phase {
            scenario.phase = probesim_scenario::scenario::phase(p)
                .map_err(|m| Error::new(ErrorKind::Input, format!("--phase: {m}")))?;
        }
        scenario.kubelet.jitter |= self.jitter;
        Ok(())
    }
}

/// The scenario's simulation with the closures bound over its scripts (what
/// [`Scenario::simulation`] builds, plus them).
pub(crate) fn simulation(
    scenario: &Scenario,
    bound: Vec<Bound>,
    fault: &Fault,
) -> Result<Simulation, Error> {
    let pod = &scenario.pod;
    let mut behaviours = Behaviours::new(pod);
    let regular = pod.init_containers.len();
    let all = scenario
        .init_bindings
        .iter()
        .map(|b| (b, 0))
        .chain(scenario.bindings.iter().map(|b| (b, regular)));
    for (b, offset) in all {
        let index = behaviours.add(Box::new(ScriptPlayer::new(b.script.clone())));
        for kind in &b.probes {
            behaviours.bind(offset + b.container, *kind, index);
        }
    }
    let names: Vec<&str> = pod
        .init_containers
        .iter()
        .chain(&pod.containers)
        .map(|c| c.name.as_str())
        .collect();
    for b in bound {
        let index = match &b.container {
            Some(name) => names.iter().position(|n| n == name).ok_or_else(|| {
                Error::new(
                    ErrorKind::Input,
                    format!("{}: no container named {name:?} in the pod (it has {})", scenario.file, names.join(", ")),
                )
            })?,
            None if pod.containers.len() == 1 => regular,
            None => {
                return Err(Error::new(
                    ErrorKind::Input,
                    format!(
                        "{}: the pod has several containers ({}): say which with Test::container before Test::behaviour",
                        scenario.file,
                        names.join(", ")
                    ),
                ))
            }
        };
        let Some(spec) = pod.container(index).probe(b.probe) else {
            return Err(Error::new(
                ErrorKind::Input,
                format!(
                    "{}: container {:?} has no {}",
                    scenario.file,
                    names[index],
                    b.probe.field()
                ),
            ));
        };
        let family = match spec.handler() {
            Handler::Exec { .. } => HandlerFamily::Exec,
            Handler::HttpGet { .. } => HandlerFamily::Http,
            Handler::TcpSocket { .. } => HandlerFamily::Tcp,
            Handler::Grpc { .. } => HandlerFamily::Grpc,
        };
        let name = format!(
            "the {} closure of container {:?}",
            b.probe.field(),
            names[index]
        );
        let guarded = Guarded::new(b.behaviour, family, name, Rc::clone(fault));
        let slot = behaviours.add(Box::new(guarded));
        behaviours.bind(index, b.probe, slot);
    }
    let mut sim = Simulation::new(
        pod.clone(),
        scenario.profile.clone(),
        scenario.kubelet,
        scenario.seed,
        behaviours,
    );
    sim.delay_first_start(scenario.phase);
    if let Some((at, grace)) = scenario.delete_at {
        sim.delete_at(at, grace);
    }
    if let Some(at) = scenario.kubelet_restart_at {
        sim.restart_kubelet_at(at);
    }
    Ok(sim)
}
