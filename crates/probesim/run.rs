//! [`Run`]: a finished simulation, questioned in domain words.

use core::fmt;
use std::sync::{Arc, OnceLock};

use probesim_analysis::analyze::{Analyzer, Want};
use probesim_analysis::figure::ContainerFigures;
use probesim_analysis::subject::Subject;
use probesim_analysis::sweep::Sweep;
use probesim_core::{
    ContainerStatus, KillCause, KillReason, Phase, PodStatus, SimDuration, SimTime,
};
use probesim_scenario::scenario::Scenario;

use crate::error::{Error, ErrorKind};
use crate::test::{Input, Loaded, Recipe};
use crate::timeline::{Happening, Recorder, Timeline};

/// The scenario file replaying a run, written the first time it is asked for (a failed
/// [`Run::ensure`], [`Run::replay`]): a passing case never spends time on it.
#[derive(Clone, Debug)]
pub(crate) struct Replay {
    recipe: Arc<Recipe>,
    closures: bool,
    text: OnceLock<String>,
}

impl Replay {
    /// The recipe's limit on events simulated one by one.
    pub(crate) fn event_limit(&self) -> u64 {
        self.recipe.event_limit
    }

    pub(crate) fn new(recipe: Arc<Recipe>, closures: bool) -> Replay {
        Replay {
            recipe,
            closures,
            text: OnceLock::new(),
        }
    }

    fn get(&self, scenario: &Scenario) -> &str {
        self.text.get_or_init(|| match &self.recipe.input {
            Input::Scenario { file, text } => with_note(
                scenario_replay(&self.recipe, text, file, scenario),
                self.closures,
            ),
            // The manifest is read again to write the workload out, as it was when the
            // run began: the recipe holds its text.
            Input::Manifest { .. } => match self.recipe.load() {
                Ok(loaded) => Replay::text_of(&self.recipe, &loaded, self.closures),
                Err(e) => format!("# the replay file could not be written: {e}\n"),
            },
        })
    }

    /// The replay file of a loaded test.
    pub(crate) fn text_of(recipe: &Recipe, loaded: &Loaded, closures: bool) -> String {
        let text = match (loaded, &recipe.input) {
            (Loaded::Manifest(built), _) => built.to_yaml(),
            (
                Loaded::Scenario(scenario),
                Input::Scenario { file, text } | Input::Manifest { file, text },
            ) => scenario_replay(recipe, text, file, scenario),
        };
        with_note(text, closures)
    }
}

fn with_note(mut replay: String, closures: bool) -> String {
    if closures {
        replay
            .push_str("# note: closures answered some probes; the file replays its scripts only\n");
    }
    replay
}

/// A scenario file's replay: the file itself, and the command line that gives the run's seed,
/// release and horizon.
fn scenario_replay(recipe: &Recipe, text: &str, file: &str, scenario: &Scenario) -> String {
    // The edits written into the file, so that it replays without flags.
    let mut replay = match recipe.edits().write_into(text, file) {
        Ok(edited) => edited,
        Err(_) => format!("# the edits could not be written into the file\n{text}"),
    };
    if !replay.ends_with('\n') {
        replay.push('\n');
    }
    let mut timing = String::new();
    if recipe.phase.is_some() {
        timing.push_str(&format!(
            " --phase {}",
            probesim_script::format_duration(scenario.phase)
        ));
    }
    if recipe.jitter {
        timing.push_str(" --jitter");
    }
    replay.push_str(&format!(
        "# replay: probesim run {} --seed {}{timing} --kubernetes {}{}\n",
        probesim_kube::printable::printable(file),
        scenario.seed,
        scenario.profile.version(),
        scenario.duration.map_or_else(String::new, |d| format!(
            " --for {}",
            probesim_script::format_duration(d.saturating_since(SimTime::ZERO))
        ))
    ));
    replay
}

/// A kill: the kubelet decided to stop a container and began its grace period.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Kill {
    /// When.
    pub at: SimTime,
    /// The container.
    pub container: String,
    /// The kubelet's kill reason (`LivenessProbe`, `StartupProbe`, `Deletion`, or `Unknown` for a
    /// whole-pod kill such as a Job's pod whose container failed liveness).
    pub reason: KillReason,
    /// Why it happened, whatever the reason says: a liveness or startup failure, the pod's
    /// deletion, a finished pod stopping what still runs, a failed init container.
    pub cause: KillCause,
    /// The grace period the runtime was given.
    pub grace: SimDuration,
}

/// A span of time during which something held: from `from` until `to` (`None`: still at the
/// horizon).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Interval {
    /// When it began.
    pub from: SimTime,
    /// When it ended, if it did before the horizon.
    pub to: Option<SimTime>,
}

impl Interval {
    /// How long it lasted, counting an open interval up to `horizon`.
    #[must_use]
    pub fn length(&self, horizon: SimTime) -> SimDuration {
        self.to.unwrap_or(horizon).saturating_since(self.from)
    }
}

/// The API-visible state at one instant, as the timeline's events last set it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Status {
    /// `status.phase`.
    pub phase: Phase,
    /// The pod's `Ready` condition.
    pub ready: bool,
    /// Each container (init containers first) with its `containerStatuses` entry.
    pub containers: Vec<(String, ContainerStatus)>,
}

/// The entry of the container with that name, to update.
fn entry<'s>(status: &'s mut Status, name: &str) -> Option<&'s mut ContainerStatus> {
    status
        .containers
        .iter_mut()
        .find(|(n, _)| n == name)
        .map(|(_, s)| s)
}

impl Status {
    /// The entry of the container with that name.
    #[must_use]
    pub fn container(&self, name: &str) -> Option<&ContainerStatus> {
        self.containers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s)
    }
}

/// A simulation run to its horizon, to question: kills and their causes, restarts, readiness,
/// the status at any instant. Made by [`Test::run`](crate::Test::run).
#[derive(Clone, Debug)]
pub struct Run {
    scenario: Scenario,
    horizon: SimTime,
    timeline: Timeline,
    probes: u64,
    status: PodStatus,
    replay: Replay,
}

impl Run {
    pub(crate) fn new(
        scenario: Scenario,
        horizon: SimTime,
        recorder: Recorder,
        status: PodStatus,
        replay: Replay,
    ) -> Run {
        let (timeline, probes) = recorder.finish();
        Run {
            scenario,
            horizon,
            timeline,
            probes,
            status,
            replay,
        }
    }

    /// The instant the run ended.
    #[must_use]
    pub const fn horizon(&self) -> SimTime {
        self.horizon
    }

    /// The seed it ran with.
    #[must_use]
    pub const fn seed(&self) -> u64 {
        self.scenario.seed
    }

    /// The release modelled (`1.37`).
    #[must_use]
    pub fn kubernetes(&self) -> String {
        self.scenario.profile.version()
    }

    /// The scenario that was simulated (its pod after defaults, scripts, knobs).
    #[must_use]
    pub const fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The notes `probesim run` prints for this input (probes left answering `ok`, objects
    /// skipped in the manifest, …).
    #[must_use]
    pub fn notes(&self) -> &[String] {
        &self.scenario.notes
    }

    /// How many probe executions the run made.
    #[must_use]
    pub const fn probe_runs(&self) -> u64 {
        self.probes
    }

    /// Every kill, in time order.
    #[must_use]
    pub fn kills(&self) -> Vec<Kill> {
        self.timeline
            .iter()
            .filter_map(|(_, h)| match h {
                Happening::Kill(k) => Some(k),
                _ => None,
            })
            .collect()
    }

    /// The first kill, if any.
    #[must_use]
    pub fn first_kill(&self) -> Option<Kill> {
        self.kills().into_iter().next()
    }

    /// The kills for that cause (`KillCause::Liveness`…).
    #[must_use]
    pub fn kills_for(&self, cause: KillCause) -> Vec<Kill> {
        self.kills()
            .into_iter()
            .filter(|k| k.cause == cause)
            .collect()
    }

    /// When each restart of the container began (a start with a restart count above 0).
    #[must_use]
    pub fn restarts(&self, container: &str) -> Vec<SimTime> {
        self.timeline
            .iter()
            .filter_map(|(t, h)| match h {
                Happening::Start {
                    container: c,
                    restart_count,
                } if c == container && restart_count > 0 => Some(t),
                _ => None,
            })
            .collect()
    }

    /// The container's `restartCount` at the horizon.
    #[must_use]
    pub fn restart_count(&self, container: &str) -> u32 {
        self.final_status()
            .container(container)
            .map_or(0, |s| s.restart_count)
    }

    fn intervals(&self, mut holds: impl FnMut(&Happening) -> Option<bool>) -> Vec<Interval> {
        let mut out: Vec<Interval> = Vec::new();
        let mut open: Option<SimTime> = None;
        for (t, h) in self.timeline.iter() {
            match (holds(&h), open) {
                (Some(true), None) => open = Some(t),
                (Some(false), Some(from)) => {
                    out.push(Interval { from, to: Some(t) });
                    open = None;
                }
                _ => {}
            }
        }
        if let Some(from) = open {
            out.push(Interval { from, to: None });
        }
        out
    }

    /// When the pod's `Ready` condition was True (the pod receives Service traffic).
    #[must_use]
    pub fn ready_intervals(&self) -> Vec<Interval> {
        self.intervals(|h| match h {
            Happening::PodReady(r) => Some(*r),
            _ => None,
        })
    }

    /// When the container's `ready` was true.
    #[must_use]
    pub fn container_ready_intervals(&self, container: &str) -> Vec<Interval> {
        self.intervals(|h| match h {
            Happening::Ready {
                container: c,
                ready,
            } if c == container => Some(*ready),
            _ => None,
        })
    }

    /// How long after the pod's start it first became Ready (`None`: never, before the
    /// horizon).
    #[must_use]
    pub fn time_to_ready(&self) -> Option<SimDuration> {
        self.ready_intervals()
            .first()
            .map(|i| i.from.saturating_since(SimTime::ZERO))
    }

    /// The API-visible state at `t`: what the events up to and including `t` set.
    #[must_use]
    pub fn status_at(&self, t: SimTime) -> Status {
        let pod = &self.scenario.pod;
        let mut status = Status {
            phase: Phase::Pending,
            ready: false,
            containers: pod
                .init_containers
                .iter()
                .chain(&pod.containers)
                .map(|c| (c.name.clone(), ContainerStatus::default()))
                .collect(),
        };
        for (_, h) in self.timeline.iter().take_while(|(at, _)| *at <= t) {
            match h {
                Happening::Phase(p) => status.phase = p,
                Happening::PodReady(r) => status.ready = r,
                Happening::Status {
                    container,
                    status: s,
                } => {
                    if let Some(e) = entry(&mut status, &container) {
                        *e = s;
                    }
                }
                Happening::Ready { container, ready } => {
                    if let Some(e) = entry(&mut status, &container) {
                        e.ready = ready;
                    }
                }
                Happening::Started { container, started } => {
                    if let Some(e) = entry(&mut status, &container) {
                        e.started = started;
                    }
                }
                Happening::Kill(_) | Happening::Start { .. } => {}
            }
        }
        status
    }

    /// The state at the horizon.
    #[must_use]
    pub fn final_status(&self) -> Status {
        self.status_at(self.horizon)
    }

    /// The engine's full pod status at the horizon (conditions, deletion, init containers).
    #[must_use]
    pub const fn pod_status(&self) -> &PodStatus {
        &self.status
    }

    /// The analysis figures of every container with probes, as `probesim analyze` reports
    /// them for the same input (sidecars first, then the regular containers): the start-up
    /// budget, hang detection (kill, exit, restarted), readiness (to Ready, to not Ready) and
    /// crash-loop timing, each as `min`/`max` with the phase that produced it. They come from
    /// sweeps of engine simulations of this run's pod, release and kubelet knobs over every
    /// tick phase (not from this run's seed or behaviour), on the calling thread.
    ///
    /// # Errors
    /// An engine that does not settle, or an analysis past its budget of simulation steps
    /// (timings such as `failureThreshold: 2147483647`; docs/analysis.md, "Limits"), both
    /// [`ErrorKind::Run`] and worded as `probesim analyze` words them.
    pub fn figures(&self) -> Result<Vec<ContainerFigures>, Error> {
        // As `probesim analyze`, under canonical timing (Subject::of, docs/analysis.md).
        let subject = Subject::of(&self.scenario, &self.scenario.name, None);
        Analyzer::new(&subject, Sweep::new(1))
            .all(Want::ALL)
            .map_err(|e| Error::new(ErrorKind::Run, e.to_string()))
    }

    /// The analysis figures of one container (see [`Run::figures`]).
    ///
    /// # Errors
    /// No container of that name has probes ([`ErrorKind::Input`]); an engine that does not
    /// settle ([`ErrorKind::Run`]).
    pub fn figures_of(&self, container: &str) -> Result<ContainerFigures, Error> {
        let all = self.figures()?;
        let names: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
        let missing = format!(
            "{}: no container named {container:?} has probes (containers with probes: {})",
            self.scenario.file,
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        );
        all.into_iter()
            .find(|c| c.name == container)
            .ok_or_else(|| Error::new(ErrorKind::Input, missing))
    }

    /// A scenario file that `probesim run` replays to this run's timeline.
    #[must_use]
    pub fn replay(&self) -> &str {
        self.replay.get(&self.scenario)
    }

    /// `Ok` when `holds`; otherwise a [`Failure`] that says `what` and carries the scenario
    /// file replaying the run. In a proptest body, `?` turns it into a failing case (proptest
    /// takes any error).
    ///
    /// # Errors
    /// The failure, when `holds` is false.
    pub fn ensure(&self, holds: bool, what: impl fmt::Display) -> Result<(), Failure> {
        if holds {
            Ok(())
        } else {
            Err(Failure {
                message: what.to_string(),
                replay: self.replay().to_owned(),
            })
        }
    }
}

/// A statement about a run that did not hold, with the scenario file that replays it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What did not hold.
    pub message: String,
    /// The scenario file (`probesim run FILE` replays the run).
    pub replay: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}\n--- save as replay.yaml and run `probesim run replay.yaml` to see the timeline:\n{}",
            self.message, self.replay
        )
    }
}

impl std::error::Error for Failure {}
