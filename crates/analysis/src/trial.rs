//! One simulation of one container under a synthetic application: the unit of every sweep.
//!
//! A [`Trial`] says how the application behaves ([`App`]), where its container starts relative
//! to the probe workers' tick grid, which seed the kubelet's random draws use and how long to
//! simulate. [`Trial::run`] builds a fresh [`Simulation`] of the subject's pod with the real
//! engine and returns the few instants the figures are made of ([`Trace`]). Nothing here
//! computes a figure from a formula: the engine decides every instant.

use core::any::Any;
use core::cell::RefCell;
use std::rc::Rc;

use probesim_core::{
    Answer, Attempt, Behaviour, Behaviours, ContainerSpec, ContainerState, Event, EventKind, Flow,
    Handler, Outcome, PodSpec, ProbeKind, PullPolicy, Response, RunEnd, SelfExit, SimDuration,
    SimTime, Simulation, Sink, SyncTrigger, WaitingReason,
};

use crate::subject::Subject;

/// How the analysed container's process behaves in a trial. Every other container of the pod
/// answers its probes with success.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum App {
    /// Every probe fails (connections refused; exec commands exit 1) from the process start until
    /// it has been up for the given time, then every probe succeeds.
    FailUntil(SimDuration),
    /// Healthy; from the given instant on, every probe of the first instance times out (the
    /// process hangs). Later instances are healthy.
    HangAt(SimTime),
    /// Healthy; from the given instant on, every probe fails, in every instance (the app keeps
    /// failing across restarts, as when what it needs is gone).
    FailAt(SimTime),
    /// Healthy from the start.
    Healthy,
    /// Probes succeed, but the process exits with code 1 one second after every start.
    Crash,
    /// Healthy; from the given instant on, the readiness probe fails in every instance while
    /// the other probes keep succeeding (a dependency is down; the liveness endpoint still
    /// answers).
    ReadinessFailAt(SimTime),
    /// Healthy, except that every probe attempted from the instant for the duration fails
    /// (connections refused; exec commands exit 1): a blip.
    FailFor(SimTime, SimDuration),
    /// Healthy, except that every probe attempted from the instant for the duration times out
    /// (the process stalls, then answers again).
    StallFor(SimTime, SimDuration),
    /// A replacement's slow start: the first instance is healthy until `change`, then every
    /// probe of it fails (or, with `hang`, times out) so that liveness kills it; every later
    /// instance fails every probe from its start until it has been up for `fail`, then succeeds.
    Replaced {
        /// When the first instance starts failing.
        change: SimTime,
        /// It hangs (probes time out) instead of refusing.
        hang: bool,
        /// How long each replacement fails from its start.
        fail: SimDuration,
    },
}

impl App {
    /// The same application with its change at `at` instead (`self` for an application
    /// without a change). Before the change the answers do not depend on when it comes, so a
    /// run of the application with its change at [`SimTime::MAX`] is the healthy prefix of
    /// every change ([`Prefix`]).
    #[must_use]
    pub fn with_change(self, at: SimTime) -> App {
        match self {
            App::HangAt(_) => App::HangAt(at),
            App::FailAt(_) => App::FailAt(at),
            App::ReadinessFailAt(_) => App::ReadinessFailAt(at),
            App::FailFor(_, d) => App::FailFor(at, d),
            App::StallFor(_, d) => App::StallFor(at, d),
            App::Replaced { hang, fail, .. } => App::Replaced {
                change: at,
                hang,
                fail,
            },
            App::FailUntil(_) | App::Healthy | App::Crash => self,
        }
    }

    /// The same application failing for its first `fail` of uptime instead: the time a
    /// start-up budget trial fails ([`App::FailUntil`], and a replacement's,
    /// [`App::Replaced`]); `self` for any other application. Up to an instance's first attempt
    /// at an uptime of `fail` or more, the answers do not depend on `fail` as long as it is at
    /// least that, so a run failing throughout ([`SimDuration::MAX`]) is the shared prefix of
    /// the budget's bisection ([`Trial::failing_prefix`]).
    #[must_use]
    pub fn with_fail(self, fail: SimDuration) -> App {
        match self {
            App::FailUntil(_) => App::FailUntil(fail),
            App::Replaced { change, hang, .. } => App::Replaced { change, hang, fail },
            App::HangAt(_)
            | App::FailAt(_)
            | App::ReadinessFailAt(_)
            | App::FailFor(..)
            | App::StallFor(..)
            | App::Healthy
            | App::Crash => self,
        }
    }
}

/// When a trial may stop before its horizon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Run to the horizon.
    Horizon,
    /// At the container's first kill, or once it is safe: its liveness probe (or, without one,
    /// its startup probe) has succeeded.
    KillOrSafe,
    /// At the container's first restart (a start after the first).
    Restart,
    /// As [`Stop::KillOrSafe`], for the replacement: at a kill, or a success of the probe that
    /// makes it safe, once the container has started a second time.
    ReplacementKillOrSafe,
    /// When the pod's Ready condition takes this value.
    PodReady(bool),
}

/// One simulation job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trial {
    /// Index of the analysed container in the engine's numbering: init containers (sidecars
    /// among them) first, then the regular containers
    /// ([`PodSpec::container`](probesim_core::PodSpec::container)).
    pub container: usize,
    /// How its process behaves.
    pub app: App,
    /// How much later than the scenario says the container's first instance starts: its first
    /// image pull takes this much longer. This moves the container start against the probe
    /// workers' tick grid (created with the pod, P15) and the PLEG relist grid.
    pub start_offset: SimDuration,
    /// The seed of the kubelet's random draws (start-up jitter, P14).
    pub seed: u64,
    /// The last instant simulated.
    pub horizon: SimTime,
    /// When to stop early.
    pub stop: Stop,
}

/// What a trial saw of the analysed container and of the pod.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Every start of the container.
    pub starts: Vec<SimTime>,
    /// Every kill of the container (liveness, startup or pod-level).
    pub kills: Vec<SimTime>,
    /// Every exit of the container.
    pub exits: Vec<SimTime>,
    /// Every change of the pod's Ready condition.
    pub pod_ready: Vec<(SimTime, bool)>,
    /// When the container's status first showed `CrashLoopBackOff`.
    pub crash_loop: Option<SimTime>,
    /// The run stopped before its horizon.
    pub stopped: bool,
    /// The events the engine reported.
    pub events: u64,
    /// The last instant simulated: the horizon, or the event the run stopped at.
    pub end: SimTime,
    /// Every pod sync: when it began and ended (the run's end for one still running), and what
    /// started it.
    pub syncs: Vec<SyncSpan>,
    /// Per probe kind ([`ProbeKind::index`]), when the analysed container's last probe attempt
    /// so far was sent: where its worker's tick grid lies.
    pub last_attempts: [Option<SimTime>; 3],
}

/// One pod sync of a trial.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyncSpan {
    /// When it began.
    pub start: SimTime,
    /// When it ended: the next sync waits for a relist strictly after it (R4), and the next
    /// periodic resync counts from it (R6).
    pub end: SimTime,
    /// What started it.
    pub trigger: SyncTrigger,
}

/// Why a trial did not run to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrialError {
    /// The engine's step budget was exhausted at this instant (a model bug).
    Stuck(SimTime),
    /// The engine reported more events than the trial's limit.
    TooManyEvents,
}

impl Trace {
    /// The first instant at or after `from` in `times`.
    #[must_use]
    pub fn first_after(times: &[SimTime], from: SimTime) -> Option<SimTime> {
        times.iter().copied().find(|t| *t >= from)
    }

    /// The periodic resync (R6) in force at `at`: the last sync before `at` when it was a
    /// resync; `None` when another kind of sync came last (its end, which anchors the next
    /// resync, is not in the trace).
    #[must_use]
    pub fn resync_before(&self, at: SimTime) -> Option<SimTime> {
        match self.syncs.iter().rev().find(|s| s.start < at) {
            Some(s) if s.trigger == SyncTrigger::Resync && s.end < at => Some(s.end),
            _ => None,
        }
    }

    /// When the pod's Ready condition first took `value` at or after `from`.
    #[must_use]
    pub fn pod_ready_at(&self, value: bool, from: SimTime) -> Option<SimTime> {
        self.pod_ready
            .iter()
            .find(|(t, r)| *r == value && *t >= from)
            .map(|(t, _)| *t)
    }
}

impl Trial {
    /// Simulates the trial with the engine, stopping after `max_events` events.
    ///
    /// # Errors
    /// The engine's step budget exhausted at one instant (a model bug), or more than
    /// `max_events` events.
    pub fn run(&self, subject: &Subject, max_events: u64) -> Result<Trace, TrialError> {
        self.run_with(subject, max_events, &Lean::default())
    }

    /// [`Trial::run`], leaving out what `lean` says cannot change the trace, and recording the
    /// uptime of every attempt of the analysed container's probes in `lean.uptimes`.
    pub(crate) fn run_with(
        &self,
        subject: &Subject,
        max_events: u64,
        lean: &Lean,
    ) -> Result<Trace, TrialError> {
        let (mut sim, _, name, safe_kind) = self.build(subject, lean);
        let mut sink = TraceSink {
            name: &name,
            stop: self.stop,
            safe_kind,
            max_events,
            syncing: false,
            trace: Trace::default(),
        };
        let end = sim.run_until(self.horizon, &mut sink);
        finish(end, sink.syncing, sink.trace, self.horizon)
    }

    /// The simulation of the trial at time zero, the indices of the analysed container's
    /// behaviours, its name and the probe that makes it safe.
    fn build(
        &self,
        subject: &Subject,
        lean: &Lean,
    ) -> (Simulation, Vec<usize>, String, Option<ProbeKind>) {
        let mut pod = subject.pod.clone();
        let index = self.container;
        if lean.idle_liveness {
            // Every other container answers every probe with success, so their liveness
            // probes never fail: their results never change and no sync, kill or status
            // depends on them. Only the analysed container keeps its liveness probe.
            let init = pod.init_containers.len();
            for (i, c) in pod.init_containers.iter_mut().enumerate().chain(
                pod.containers
                    .iter_mut()
                    .enumerate()
                    .map(|(i, c)| (i + init, c)),
            ) {
                if i != index {
                    c.probes[ProbeKind::Liveness.index()] = None;
                }
            }
        }
        let safe_kind = {
            let c = spec_mut(&mut pod, index);
            if !self.start_offset.is_zero() {
                delay_first_start(c, self.start_offset);
            }
            c.app.exit = match self.app {
                App::Crash => Some(SelfExit {
                    code: 1,
                    after: SimDuration::from_secs(1),
                }),
                _ => None,
            };
            if c.probe(ProbeKind::Liveness).is_some() {
                Some(ProbeKind::Liveness)
            } else if c.probe(ProbeKind::Startup).is_some() {
                Some(ProbeKind::Startup)
            } else {
                None
            }
        };
        let name = pod.container(index).name.clone();
        let mut behaviours = Behaviours::new(&pod);
        let mut added = Vec::new();
        for kind in ProbeKind::ALL {
            let Some(probe) = pod.container(index).probe(kind) else {
                continue;
            };
            let failure = match probe.handler() {
                Handler::HttpGet { .. } | Handler::TcpSocket { .. } => Answer::Refused,
                Handler::Exec { .. } | Handler::Grpc { .. } => Answer::Fail,
            };
            let b = behaviours.add(Box::new(AppBehaviour {
                app: self.app,
                kind,
                failure,
                record: lean.uptimes.clone(),
            }));
            behaviours.bind(index, kind, b);
            added.push(b);
        }
        let mut sim = Simulation::new(
            pod,
            subject.profile.clone(),
            subject.kubelet,
            self.seed,
            behaviours,
        );
        // The trace's sink and the application's behaviours cannot be visited, so fast-forward
        // could never jump here: it would only walk the state once to find that out.
        sim.set_fast_forward(false);
        (sim, added, name, safe_kind)
    }

    /// The healthy prefix shared by the trials of this one's application with a change at or
    /// after `until` (the trial's own change is left out: the prefix runs the application
    /// with its change at [`SimTime::MAX`]), simulated up to and including `until`.
    /// [`Prefix::advance`] moves it on; [`Prefix::run`] forks it for one change. `None` when
    /// the simulation cannot be forked (a behaviour that records the uptimes).
    pub(crate) fn prefix(&self, subject: &Subject, lean: &Lean, until: SimTime) -> Option<Prefix> {
        if lean.uptimes.is_some() {
            return None;
        }
        let never = Trial {
            app: self.app.with_change(SimTime::MAX),
            ..*self
        };
        let (sim, behaviours, name, safe_kind) = never.build(subject, lean);
        let mut prefix = Prefix {
            trial: *self,
            sim,
            behaviours,
            name,
            safe_kind,
            syncing: false,
            trace: Trace::default(),
            ended: None,
        };
        prefix.advance(until);
        Some(prefix)
    }

    /// The run of this start-up budget trial with its application failing throughout
    /// ([`App::with_fail`] of [`SimDuration::MAX`]), at time zero: the prefix shared by the
    /// trials of the budget's bisection, each of which answers as that run up to its
    /// instance's first attempt at an uptime of its own failing time or more.
    /// [`Prefix::advance`] moves it on, [`Prefix::fork`] keeps a copy and
    /// [`Prefix::run_failing`] forks it for one failing time. `None` when the simulation
    /// cannot be forked (a behaviour that records the uptimes).
    pub(crate) fn failing_prefix(&self, subject: &Subject, lean: &Lean) -> Option<Prefix> {
        if lean.uptimes.is_some() {
            return None;
        }
        let failing = Trial {
            app: self.app.with_fail(SimDuration::MAX),
            ..*self
        };
        let (sim, behaviours, name, safe_kind) = failing.build(subject, lean);
        Some(Prefix {
            trial: *self,
            sim,
            behaviours,
            name,
            safe_kind,
            syncing: false,
            trace: Trace::default(),
            ended: None,
        })
    }
}

/// The run of a change trial up to an instant before its change, to be forked for each change
/// at or after it ([`Trial::prefix`]): the application answers as it does before any change.
pub(crate) struct Prefix {
    /// The trial whose prefix this is (its application's change and horizon are each fork's).
    trial: Trial,
    sim: Simulation,
    /// The analysed container's behaviours, whose change each fork sets.
    behaviours: Vec<usize>,
    name: String,
    safe_kind: Option<ProbeKind>,
    syncing: bool,
    trace: Trace,
    /// How the prefix ended when it did not reach its instant: the trial stopped, or the
    /// engine did not settle. Every fork then ends there too.
    ended: Option<Result<(), SimTime>>,
}

impl Prefix {
    /// Simulates the prefix on, up to and including `until`.
    pub(crate) fn advance(&mut self, until: SimTime) {
        if self.ended.is_some() || until <= self.sim.now() {
            return;
        }
        let mut sink = TraceSink {
            name: &self.name,
            stop: self.trial.stop,
            safe_kind: self.safe_kind,
            max_events: u64::MAX,
            syncing: self.syncing,
            trace: core::mem::take(&mut self.trace),
        };
        let end = self.sim.run_until(until, &mut sink);
        self.syncing = sink.syncing;
        self.trace = sink.trace;
        self.ended = match end {
            Ok(RunEnd::Horizon) => None,
            Ok(RunEnd::Stopped) => Some(Ok(())),
            Err(probesim_core::RunError::StepBudget { at }) => Some(Err(at)),
            Err(probesim_core::RunError::Sink(TooManyEvents)) => Some(Ok(())),
        };
    }

    /// Whether a change at `change` comes after every instant the prefix simulated (after
    /// the instant where it ended, when it ended early), so that [`Prefix::run`] may fork it.
    pub(crate) fn before(&self, change: SimTime) -> bool {
        change > self.sim.now()
    }

    /// What the prefix has seen so far, and whether a pod sync is still running.
    pub(crate) fn seen(&self) -> (&Trace, bool) {
        (&self.trace, self.syncing)
    }

    /// Whether the prefix stopped or failed before its instant.
    pub(crate) fn ended_early(&self) -> bool {
        self.ended.is_some()
    }

    /// The end of the periodic resync in force at `change` (as [`Trace::resync_before`]), when
    /// the last sync before it is a resync that has ended; the chain of resyncs follows it.
    pub(crate) fn anchor(&self, change: SimTime) -> Option<SimTime> {
        if self.syncing || self.ended.is_some() {
            return None;
        }
        self.trace.resync_before(change)
    }

    /// The trace of the prefix's trial with its change at `change` (after the prefix's
    /// instant) and the given horizon: a fork of the prefix, run on. The same trace as
    /// [`Trial::run_with`] of that trial gives, error for error; `None` when the simulation
    /// cannot be forked (run the trial instead).
    pub(crate) fn run(
        &self,
        change: SimTime,
        horizon: SimTime,
        max_events: u64,
    ) -> Option<Result<Trace, TrialError>> {
        self.run_as(|app| app.with_change(change), horizon, max_events)
    }

    /// The trace of the prefix's start-up budget trial failing for its first `fail` of
    /// uptime, with the given horizon: a fork of a [`Trial::failing_prefix`], run on. The
    /// prefix must not have simulated the instance's first attempt at an uptime of `fail` or
    /// more. The same trace as [`Trial::run_with`] of that trial gives, error for error;
    /// `None` when the simulation cannot be forked (run the trial instead).
    pub(crate) fn run_failing(
        &self,
        fail: SimDuration,
        horizon: SimTime,
        max_events: u64,
    ) -> Option<Result<Trace, TrialError>> {
        self.run_as(|app| app.with_fail(fail), horizon, max_events)
    }

    /// A copy of the prefix as it stands (a fork of its simulation), to be advanced on its
    /// own; `None` when the simulation cannot be forked.
    pub(crate) fn fork(&self) -> Option<Prefix> {
        Some(Prefix {
            trial: self.trial,
            sim: self.sim.fork()?,
            behaviours: self.behaviours.clone(),
            name: self.name.clone(),
            safe_kind: self.safe_kind,
            syncing: self.syncing,
            trace: self.trace.clone(),
            ended: self.ended,
        })
    }

    /// A fork of the prefix whose analysed container's application `set` makes the trial's,
    /// run on to `horizon`: what [`Prefix::run`] and [`Prefix::run_failing`] share.
    fn run_as(
        &self,
        set: impl Fn(App) -> App,
        horizon: SimTime,
        max_events: u64,
    ) -> Option<Result<Trace, TrialError>> {
        if self.trace.events > max_events {
            return Some(Err(TrialError::TooManyEvents));
        }
        match self.ended {
            Some(Err(at)) => return Some(Err(TrialError::Stuck(at))),
            Some(Ok(())) => {
                return Some(finish(
                    Ok(RunEnd::Stopped),
                    self.syncing,
                    self.trace.clone(),
                    horizon,
                ));
            }
            None => {}
        }
        let mut sim = self.sim.fork()?;
        for &b in &self.behaviours {
            if let Some(app) = sim
                .behaviour_mut(b)
                .and_then(|b| b.as_any_mut())
                .and_then(|b| b.downcast_mut::<AppBehaviour>())
            {
                app.app = set(app.app);
            }
        }
        let mut sink = TraceSink {
            name: &self.name,
            stop: self.trial.stop,
            safe_kind: self.safe_kind,
            max_events,
            syncing: self.syncing,
            trace: self.trace.clone(),
        };
        let end = sim.run_until(horizon, &mut sink);
        Some(finish(end, sink.syncing, sink.trace, horizon))
    }
}

/// A trial's trace from how its run ended.
fn finish(
    end: Result<RunEnd, probesim_core::RunError<TooManyEvents>>,
    syncing: bool,
    mut trace: Trace,
    horizon: SimTime,
) -> Result<Trace, TrialError> {
    match end {
        Ok(_) => {
            if !trace.stopped {
                trace.end = horizon;
            }
            if syncing && let Some(s) = trace.syncs.last_mut() {
                s.end = trace.end;
            }
            Ok(trace)
        }
        Err(probesim_core::RunError::Sink(TooManyEvents)) => Err(TrialError::TooManyEvents),
        Err(probesim_core::RunError::StepBudget { at }) => Err(TrialError::Stuck(at)),
    }
}

/// The analysed container's answers to one probe kind: `respond` for the application, and the
/// uptime of each attempt recorded where asked. It forks (when it records nothing), and the
/// fork's owner sets its change ([`Prefix::run`]).
struct AppBehaviour {
    app: App,
    kind: ProbeKind,
    failure: Answer,
    record: Option<Rc<RefCell<Vec<SimDuration>>>>,
}

impl Behaviour for AppBehaviour {
    fn respond(&mut self, a: &Attempt) -> Response {
        // A replacement's budget depends only on the attempts of the replacements.
        let replacement = matches!(self.app, App::Replaced { .. });
        if let Some(r) = self
            .record
            .as_ref()
            .filter(|_| !replacement || a.instance > 0)
        {
            r.borrow_mut().push(a.uptime);
        }
        respond(self.app, self.kind, self.failure, a)
    }

    fn fork(&self) -> Option<Box<dyn Behaviour>> {
        self.record.is_none().then(|| {
            Box::new(AppBehaviour {
                record: None,
                ..*self
            }) as Box<dyn Behaviour>
        })
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn Any> {
        Some(self)
    }
}

/// What a trial may leave out, and what it records besides its [`Trace`].
#[derive(Clone, Debug, Default)]
pub(crate) struct Lean {
    /// Leave out the liveness probes of every container but the analysed one. Only without
    /// random draws by the workers (P14), since each worker's start-up sleep is drawn in turn.
    pub(crate) idle_liveness: bool,
    /// Where to record the uptime of each attempt of the analysed container's probes.
    pub(crate) uptimes: Option<Rc<RefCell<Vec<SimDuration>>>>,
}

/// Makes the container's first start `offset` later and leaves every later start as the
/// scenario has it, through the image pull: only the first start of an `IfNotPresent` image
/// pulls (R57), so the first pull gets the offset.
///
/// - `IfNotPresent`: the first pull takes `offset` longer; later starts find the image present.
/// - `Never` never pulls: as `IfNotPresent` with a first pull of `offset`, later starts find
///   the image present and take no time, as `Never` does.
/// - `Always` (an untagged or `:latest` image) pulls on every start. With no pull time its
///   starts take no time, so it becomes `IfNotPresent` with a first pull of `offset`: later
///   starts take no time either. (Lengthening every pull instead delayed every restart by the
///   offset too: kubia's crash loop came out 10 s slower in the worst phase.) With a pull time
///   every start keeps it and the first also gets the offset, so every pull is `offset` longer:
///   the engine has no first pull distinct from later ones yet (docs/analysis.md, "Phases").
pub(crate) fn delay_first_start(c: &mut ContainerSpec, offset: SimDuration) {
    match c.pull_policy {
        PullPolicy::IfNotPresent => c.app.pull = c.app.pull.saturating_add(offset),
        PullPolicy::Never => {
            c.pull_policy = PullPolicy::IfNotPresent;
            c.app.pull = offset;
        }
        PullPolicy::Always if c.app.pull.is_zero() => {
            c.pull_policy = PullPolicy::IfNotPresent;
            c.app.pull = offset;
        }
        PullPolicy::Always => c.app.pull = c.app.pull.saturating_add(offset),
    }
}

/// The container with this engine index.
fn spec_mut(pod: &mut PodSpec, index: usize) -> &mut ContainerSpec {
    let init = pod.init_containers.len();
    if index < init {
        &mut pod.init_containers[index]
    } else {
        &mut pod.containers[index - init]
    }
}

fn respond(app: App, kind: ProbeKind, failure: Answer, a: &Attempt) -> Response {
    let during = |at: SimTime, d: SimDuration| a.now >= at && a.now < at.saturating_add(d);
    let answer = match app {
        App::FailUntil(t) if a.uptime < t => failure,
        App::HangAt(at) if a.instance == 0 && a.now >= at => Answer::Timeout,
        App::FailAt(at) if a.now >= at => failure,
        App::ReadinessFailAt(at) if kind == ProbeKind::Readiness && a.now >= at => failure,
        App::FailFor(at, d) if during(at, d) => failure,
        App::StallFor(at, d) if during(at, d) => Answer::Timeout,
        App::Replaced { change, hang, .. } if a.instance == 0 && a.now >= change => {
            if hang {
                Answer::Timeout
            } else {
                failure
            }
        }
        App::Replaced { fail, .. } if a.instance > 0 && a.uptime < fail => failure,
        App::Replaced { .. }
        | App::FailUntil(_)
        | App::HangAt(_)
        | App::FailAt(_)
        | App::Healthy
        | App::Crash
        | App::ReadinessFailAt(_)
        | App::FailFor(..)
        | App::StallFor(..) => Answer::Ok,
    };
    Response::now(answer)
}

struct TraceSink<'n> {
    name: &'n str,
    stop: Stop,
    safe_kind: Option<ProbeKind>,
    max_events: u64,
    /// A sync has begun and not ended yet.
    syncing: bool,
    trace: Trace,
}

/// The sink's error: more events than the trial's limit.
struct TooManyEvents;

impl Sink for TraceSink<'_> {
    type Error = TooManyEvents;

    fn sync_ended(&mut self, at: SimTime) {
        self.syncing = false;
        if let Some(s) = self.trace.syncs.last_mut() {
            s.end = at;
        }
    }

    fn event(&mut self, event: &Event<'_>) -> Result<Flow, TooManyEvents> {
        let t = event.t;
        let trace = &mut self.trace;
        trace.events += 1;
        trace.end = t;
        if trace.events > self.max_events {
            return Err(TooManyEvents);
        }
        if let EventKind::Sync { trigger } = event.kind {
            self.syncing = true;
            trace.syncs.push(SyncSpan {
                start: t,
                end: t,
                trigger,
            });
        }
        let stop = match event.kind {
            EventKind::Start { container, .. } if container == self.name => {
                trace.starts.push(t);
                self.stop == Stop::Restart && trace.starts.len() > 1
            }
            EventKind::Kill { container, .. } if container == self.name => {
                trace.kills.push(t);
                self.stop == Stop::KillOrSafe
                    || (self.stop == Stop::ReplacementKillOrSafe && trace.starts.len() > 1)
            }
            EventKind::Exit { container, .. } if container == self.name => {
                trace.exits.push(t);
                false
            }
            EventKind::Probe {
                container,
                probe,
                outcome,
                duration,
                ..
            } if container == self.name => {
                trace.last_attempts[probe.index()] = Some(SimTime::from_millis(
                    t.as_millis().saturating_sub(duration.as_millis()),
                ));
                let watching = self.stop == Stop::KillOrSafe
                    || (self.stop == Stop::ReplacementKillOrSafe && trace.starts.len() > 1);
                watching && outcome == Outcome::Success && Some(probe) == self.safe_kind
            }
            EventKind::Status { container, status } if container == self.name => {
                if trace.crash_loop.is_none()
                    && matches!(
                        status.state,
                        ContainerState::Waiting(Some(WaitingReason::CrashLoopBackOff { .. }))
                    )
                {
                    trace.crash_loop = Some(t);
                }
                false
            }
            EventKind::PodReady { ready } => {
                trace.pod_ready.push((t, ready));
                self.stop == Stop::PodReady(ready)
            }
            _ => false,
        };
        if stop {
            trace.stopped = true;
            return Ok(Flow::Stop);
        }
        Ok(Flow::Continue)
    }
}
