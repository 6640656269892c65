//! [`Test`]: what to simulate (a manifest or a scenario file, the workload, the container, how
//! the app behaves, the release, the seed and the horizon), built into a run.

use core::fmt;

use probesim_core::{Behaviour, Behaviours, ProbeKind, SimDuration, SimTime, Simulation};
use probesim_scenario::argument::{AppArg, AppFlag};
use probesim_scenario::catalog;
use probesim_scenario::run::RunFailure;
use probesim_scenario::scenario::{horizon, ManifestRun, Overrides, Scenario};
use probesim_script::ScriptPlayer;

use crate::error::{Error, ErrorKind};
use crate::files::{self, Files};
use crate::run::{Recorder, Run};

/// The input: a Kubernetes manifest (a Pod or a workload) or a scenario file.
#[derive(Clone, Debug)]
enum Input {
    Manifest { file: String, text: String },
    Scenario { file: String, text: String },
}

/// A closure bound to one probe of one container.
struct Bound {
    container: Option<String>,
    probe: ProbeKind,
    behaviour: Box<dyn Behaviour>,
}

/// How long to simulate.
#[derive(Clone, Debug)]
enum Horizon {
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
pub struct Test {
    input: Input,
    select: Option<String>,
    container: Option<String>,
    apps: Vec<AppArg>,
    bound: Vec<Bound>,
    kubernetes: Option<String>,
    seed: Option<u64>,
    horizon: Option<Horizon>,
}

impl fmt::Debug for Test {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Test")
            .field("input", &self.input)
            .field("select", &self.select)
            .field("container", &self.container)
            .field("apps", &self.apps)
            .field("closures", &self.bound.len())
            .field("kubernetes", &self.kubernetes)
            .field("seed", &self.seed)
            .field("horizon", &self.horizon)
            .finish()
    }
}

impl Test {
    fn new(input: Input) -> Test {
        Test {
            input,
            select: None,
            container: None,
            apps: Vec::new(),
            bound: Vec::new(),
            kubernetes: None,
            seed: None,
            horizon: None,
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
            text: text.to_owned(),
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
            text: text.to_owned(),
        })
    }

    /// Which workload of the manifest: `[NAMESPACE/]KIND/NAME` or `NAME` (`--select`).
    #[must_use]
    pub fn select(mut self, workload: &str) -> Test {
        self.select = Some(workload.to_owned());
        self
    }

    /// The container that the behaviour calls after this one are about (by name; needed
    /// unless the pod has a single container).
    #[must_use]
    pub fn container(mut self, name: &str) -> Test {
        self.container = Some(name.to_owned());
        self
    }

    fn arg(mut self, flag: AppFlag, text: &str) -> Test {
        let value = match &self.container {
            Some(c) => format!("{c}: {text}"),
            None => text.to_owned(),
        };
        self.apps.push(AppArg { flag, value });
        self
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
        self.app(&format!("{}={script}", probe.as_str()))
    }

    /// A script for an endpoint of the container, shared by every probe it answers:
    /// `.endpoint(":8080", "refused for 90s then ok")`, `.endpoint("http :8080/healthz", "ok")`.
    #[must_use]
    pub fn endpoint(self, key: &str, script: &str) -> Test {
        self.app(&format!("{key}={script}"))
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
            container: self.container.clone(),
            probe,
            behaviour: Box::new(behaviour),
        });
        self
    }

    /// The Kubernetes release whose kubelet and API server are modelled: `"1.33"`
    /// (`--kubernetes`; default the newest).
    #[must_use]
    pub fn kubernetes(mut self, release: &str) -> Test {
        self.kubernetes = Some(release.to_owned());
        self
    }

    /// The seed of the simulation's one generator (`--seed`): it decides the probes' start-up
    /// jitter, so it picks the phase of their ticks, and every random outcome of a script.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Test {
        self.seed = Some(seed);
        self
    }

    /// How long to simulate, in the duration syntax: `"10m"`, `"90s"` (`--for`).
    #[must_use]
    pub fn horizon(mut self, duration: &str) -> Test {
        self.horizon = Some(Horizon::Text(duration.to_owned()));
        self
    }

    /// How long to simulate, as a duration.
    #[must_use]
    pub fn horizon_of(mut self, duration: SimDuration) -> Test {
        self.horizon = Some(Horizon::Duration(duration));
        self
    }

    fn overrides(&self) -> Result<Overrides, Error> {
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
        })
    }

    /// The scenario this test simulates, and a scenario file that `probesim run` replays to
    /// the same timeline (closures aside, which no file can hold).
    fn build(&self) -> Result<(Scenario, String), Error> {
        let overrides = self.overrides()?;
        let input = |text: &str, e: &probesim_scenario::error::ScenarioError| {
            Error::new(ErrorKind::Input, e.render(text))
        };
        match &self.input {
            Input::Manifest { file, text } => {
                if !catalog::is_manifest(text) {
                    return Err(Error::new(
                        ErrorKind::Usage,
                        format!("{file} is a scenario file, not a Kubernetes manifest: load it with Test::scenario"),
                    ));
                }
                let run = ManifestRun {
                    select: self.select.clone(),
                    apps: self.apps.clone(),
                    kubernetes: self.kubernetes.clone(),
                };
                let mut built =
                    Scenario::from_manifest(text, file, &run).map_err(|e| input(text, &e))?;
                built
                    .scenario
                    .apply(&overrides)
                    .map_err(|e| input(text, &e))?;
                let replay = built.to_yaml();
                Ok((built.scenario, replay))
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
                let scenario = Scenario::load_with(text, file, &mut Files, &overrides)
                    .map_err(|e| input(text, &e))?;
                let mut replay = text.clone();
                if !replay.ends_with('\n') {
                    replay.push('\n');
                }
                replay.push_str(&format!(
                    "# replay: probesim run {file} --seed {} --kubernetes {}{}\n",
                    scenario.seed,
                    scenario.profile.version(),
                    scenario.duration.map_or_else(String::new, |d| format!(
                        " --for {}",
                        probesim_script::format_duration(d.saturating_since(SimTime::ZERO))
                    ))
                ));
                Ok((scenario, replay))
            }
        }
    }

    /// The scenario file that replays this test with `probesim run` (for a manifest: the
    /// workload embedded, the behaviour as `apps`, the release, seed and horizon written out).
    ///
    /// # Errors
    /// As [`Test::run`], before simulating.
    pub fn replay(&self) -> Result<String, Error> {
        self.build().map(|(_, replay)| replay)
    }

    /// Simulates to the horizon.
    ///
    /// # Errors
    /// Whatever `probesim run` would report for the same input: a manifest or scenario that
    /// does not validate, a script that does not parse, an unknown workload, container or
    /// release ([`ErrorKind::Input`]); a behaviour in the language for a scenario file
    /// ([`ErrorKind::Usage`]); an engine that does not settle ([`ErrorKind::Run`]).
    pub fn run(self) -> Result<Run, Error> {
        let (scenario, mut replay) = self.build()?;
        let Some(end) = scenario.duration else {
            return Err(Error::new(
                ErrorKind::Input,
                format!("{}: {}", scenario.file, RunFailure::NoDuration),
            ));
        };
        let closures = !self.bound.is_empty();
        let mut sim = simulation(&scenario, self.bound)?;
        if closures {
            replay.push_str(
                "# note: closures answered some probes; the file replays its scripts only\n",
            );
        }
        let mut recorder = Recorder::default();
        sim.run_until(end, &mut recorder).map_err(|e| match e {
            probesim_core::RunError::Sink(never) => match never {},
            probesim_core::RunError::StepBudget { at } => Error::new(
                ErrorKind::Run,
                format!("{}: {}", scenario.file, RunFailure::Stuck(at)),
            ),
        })?;
        Ok(Run::new(
            scenario,
            end,
            recorder,
            sim.status().clone(),
            replay,
        ))
    }
}

/// The scenario's simulation with the closures bound over its scripts (what
/// [`Scenario::simulation`] builds, plus them).
fn simulation(scenario: &Scenario, bound: Vec<Bound>) -> Result<Simulation, Error> {
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
        if pod.container(index).probe(b.probe).is_none() {
            return Err(Error::new(
                ErrorKind::Input,
                format!(
                    "{}: container {:?} has no {}",
                    scenario.file,
                    names[index],
                    b.probe.field()
                ),
            ));
        }
        let slot = behaviours.add(b.behaviour);
        behaviours.bind(index, b.probe, slot);
    }
    let mut sim = Simulation::new(
        pod.clone(),
        scenario.profile.clone(),
        scenario.kubelet,
        scenario.seed,
        behaviours,
    );
    if let Some((at, grace)) = scenario.delete_at {
        sim.delete_at(at, grace);
    }
    if let Some(at) = scenario.kubelet_restart_at {
        sim.restart_kubelet_at(at);
    }
    Ok(sim)
}
