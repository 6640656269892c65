//! The simulation: the only thing that advances the clock.
//!
//! One [`Simulation`] models one pod on one kubelet: the probe workers (probe layer, P…, in
//! `worker`), the pod worker with its syncs, kills, starts and back-off (runtime layer, R…, in
//! `pod_worker`), the status it generates (`status`), and the PLEG and the container runtime that
//! runs each container's process (`runtime`), each component's state a struct in its file
//! (docs/design.md#engine), with the kubelet-wide deadlines in `timers`. It owns "now", the
//! seeded generator, and the application behaviours; this file holds the public API and the
//! run loop. The shortcuts (`agenda`, `parking`, `steady`, `cycle`) keep their state in
//! `shortcuts` and hear of changes through `facts`.
//!
//! Time advances from deadline to deadline. Everything due at one instant happens in the
//! canonical order of docs/semantics.md#order: PLEG relist, runtime happenings (process
//! exits, pulls that
//! end), pod syncs, probe ticks, worker wake-ups, probe completions. Ties inside one class go in
//! container order, and for probe workers in creation order (startup, readiness, liveness: P6),
//! except that a container's startup tick runs after its other ticks at the same instant.

use core::fmt;
use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::behaviour::{AlwaysOk, Attempt, Behaviour, BehaviourShortcuts, Draws, Response};
use crate::event::{
    ContainerState, ContainerStatus, Event, EventKind, EventType, ExitReason, KillCause,
    KillMessage, KillReason, KubeEvent, Message, Outcome, OutputKind, Phase, PodName, ProbeOutput,
    ProbeResult, SyncTrigger, Terminated, TextRef, Texts, WaitingReason,
};
use crate::profile::{BackOffRequeue, Gate, Profile, ReadinessTrigger};
use crate::sink::{Flow, Sink};
use crate::spec::{Handler, PodSpec, ProbeKind, PullPolicy, RestartPolicy, Sigterm};
use crate::time::{SimDuration, SimTime};

use self::agenda::{key_of, Class, Key, Slot};
use self::ids::{ContainerId, PerContainer, PerWorker, WorkerId};
use self::pod_worker::{PodWorker, Stage};
use self::runtime::{ContainerRuntime, Instance, Instances};
use self::shortcuts::Shortcuts;
use self::status::{StatusManager, ViewEntry};
use self::timers::Timers;
use self::worker::{InFlight, Prober, Worker};

/// The kubelet's timing knobs (docs/scenario-format.md#kubelet), with the canonical defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KubeletConfig {
    /// How long the kubelet has been running when the pod arrives (P14).
    pub started_ago: SimDuration,
    /// PLEG relist period (R4, R5).
    pub pleg_period: SimDuration,
    /// From a probe-result update to the pod sync that acts on it (R1, R2, R12).
    pub probe_sync_delay: SimDuration,
    /// Periodic pod sync after a successful sync (R6).
    pub resync: SimDuration,
    /// Re-sync while a container is in back-off, profiles ≤1.34 (R7).
    pub backoff_requeue: SimDuration,
    /// Draw the kubelet's jitters (resync, requeue) from the seeded generator instead of using
    /// their lower bounds.
    pub jitter: bool,
    /// The node's `crashLoopBackOff.maxContainerRestartPeriod` (R28), if set.
    pub max_container_restart_period: Option<SimDuration>,
    /// How long the runtime takes to create and start a container once its image is there
    /// (`CreateContainer` plus `StartContainer`, docs/semantics.md#runtime-durations): the
    /// sync blocks meanwhile, and `Created`, `Started` and the new process come at its end.
    /// Zero in canonical timing.
    pub start_latency: SimDuration,
    /// How long a stop takes to reach the process (`StopContainer` to the signal's delivery,
    /// docs/semantics.md#runtime-durations): until then the old process keeps answering
    /// probes. Zero in canonical timing.
    pub kill_latency: SimDuration,
}

impl Default for KubeletConfig {
    fn default() -> KubeletConfig {
        KubeletConfig {
            started_ago: SimDuration::from_secs(3600),
            pleg_period: SimDuration::from_secs(1),
            probe_sync_delay: SimDuration::ZERO,
            resync: SimDuration::from_secs(60),
            backoff_requeue: SimDuration::from_secs(10),
            jitter: false,
            max_container_restart_period: None,
            start_latency: SimDuration::ZERO,
            kill_latency: SimDuration::ZERO,
        }
    }
}

/// The application behaviours and which probe uses which.
pub struct Behaviours {
    entries: Vec<Box<dyn Behaviour>>,
    /// Per entry, its [`BehaviourShortcuts::constant`] response: the entry is then not called.
    constants: Vec<Option<Response>>,
    bindings: Vec<[Option<usize>; 3]>,
}

impl fmt::Debug for Behaviours {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Behaviours")
            .field("entries", &self.entries.len())
            .field("bindings", &self.bindings)
            .finish()
    }
}

impl Behaviours {
    /// No behaviours yet: every probe of `pod` answers `ok`.
    #[must_use]
    pub fn new(pod: &PodSpec) -> Behaviours {
        Behaviours {
            entries: Vec::new(),
            constants: Vec::new(),
            bindings: vec![[None; 3]; pod.container_count()],
        }
    }

    /// Adds a behaviour and returns its index for [`Behaviours::bind`].
    pub fn add(&mut self, mut behaviour: Box<dyn Behaviour>) -> usize {
        self.constants
            .push(behaviour.shortcuts().and_then(|s| s.constant()));
        self.entries.push(behaviour);
        self.entries.len() - 1
    }

    /// Makes the `probe` of container `container` answer with behaviour `index` (several probes
    /// may share one behaviour: one counter for an endpoint). Out-of-range arguments are ignored.
    pub fn bind(&mut self, container: usize, probe: ProbeKind, index: usize) {
        if index < self.entries.len() {
            if let Some(b) = self.bindings.get_mut(container) {
                b[probe.index()] = Some(index);
            }
        }
    }

    /// The one response the `probe` of container `container` always gets, if its behaviour
    /// declares one ([`BehaviourShortcuts::constant`]; `ok` at once without a behaviour).
    fn constant_of(&self, container: usize, probe: ProbeKind) -> Option<Response> {
        match self.bindings.get(container).and_then(|b| b[probe.index()]) {
            Some(i) => self.constants.get(i).copied().flatten(),
            None => AlwaysOk.constant(),
        }
    }

    fn respond(&mut self, attempt: &Attempt, rng: &mut ChaCha8Rng) -> Response {
        if let Some(response) = self.constant_of(attempt.container, attempt.probe) {
            return response;
        }
        let bound = self
            .bindings
            .get(attempt.container)
            .and_then(|b| b[attempt.probe.index()]);
        match bound.and_then(|i| self.entries.get_mut(i)) {
            Some(b) => b.respond_drawing(attempt, &mut Draws::new(rng)),
            None => AlwaysOk.respond(attempt),
        }
    }

    /// A deep copy of every behaviour, or `None` when one cannot be copied
    /// ([`Behaviour::fork`]).
    fn fork(&self) -> Option<Behaviours> {
        let entries = self
            .entries
            .iter()
            .map(|b| b.fork())
            .collect::<Option<Vec<_>>>()?;
        Some(Behaviours {
            entries,
            constants: self.constants.clone(),
            bindings: self.bindings.clone(),
        })
    }

    /// What the answer just given to `attempt` printed (P63), if anything.
    fn printed(&self, attempt: &Attempt) -> Option<TextRef> {
        let i = self.bindings.get(attempt.container)?[attempt.probe.index()]?;
        let index = self.entries.get(i)?.printed()?;
        Some(TextRef {
            behaviour: u32::try_from(i).ok()?,
            index,
        })
    }
}

impl Texts for Behaviours {
    fn text(&self, text: TextRef) -> &str {
        self.entries
            .get(text.behaviour as usize)
            .map_or("", |b| b.text(text.index))
    }
}

/// The pod's conditions (R42).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Conditions {
    /// `PodReadyToStartContainers` (profiles that report it).
    pub ready_to_start_containers: Option<bool>,
    /// `Initialized`.
    pub initialized: bool,
    /// `Ready`.
    pub ready: bool,
    /// `ContainersReady`.
    pub containers_ready: bool,
    /// `PodScheduled`.
    pub pod_scheduled: bool,
}

/// The API-visible pod status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodStatus {
    /// `status.phase`.
    pub phase: Phase,
    /// `status.conditions`.
    pub conditions: Conditions,
    /// `status.initContainerStatuses`, in spec order.
    pub init_containers: Vec<ContainerStatus>,
    /// `status.containerStatuses`, in spec order.
    pub containers: Vec<ContainerStatus>,
    /// `metadata.deletionTimestamp`: when the pod was deleted, if it was (kubectl shows
    /// `Terminating` until the phase is terminal).
    pub deletion_timestamp: Option<SimTime>,
    /// The pod object is gone from the API server; this status is the last one it had.
    pub removed: bool,
}

impl PodStatus {
    /// The status of the container at an engine index (init containers first).
    ///
    /// # Panics
    /// If the index is out of range.
    #[must_use]
    pub fn container(&self, index: usize) -> &ContainerStatus {
        match index.checked_sub(self.init_containers.len()) {
            Some(i) => &self.containers[i],
            None => &self.init_containers[index],
        }
    }

    fn container_mut(&mut self, index: usize) -> &mut ContainerStatus {
        match index.checked_sub(self.init_containers.len()) {
            Some(i) => &mut self.containers[i],
            None => &mut self.init_containers[index],
        }
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every event up to and including the horizon was simulated.
    Horizon,
    /// The sink asked to stop.
    Stopped,
}

/// Why a run failed.
#[derive(Debug)]
pub enum RunError<E> {
    /// The sink failed.
    Sink(E),
    /// Too many steps at one instant: a model bug, reported instead of spinning.
    StepBudget {
        /// The instant that did not settle.
        at: SimTime,
    },
}

impl<E: fmt::Display> fmt::Display for RunError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Sink(e) => write!(f, "{e}"),
            RunError::StepBudget { at } => {
                write!(
                    f,
                    "the simulation did not settle at t={at}s (step budget exhausted)"
                )
            }
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for RunError<E> {}

/// Steps allowed at one instant before the run is declared stuck.
const STEP_BUDGET: u32 = 100_000;
/// Retries of a probe that returns an error (P40, `maxProbeRetries`).
const MAX_PROBE_ATTEMPTS: u8 = 3;
/// Back-off entries expire when this long passed since their last update (R27, R32).
const BACKOFF_EXPIRY: SimDuration = SimDuration::from_secs(600);
/// The runtime's minimum grace period (R21, R24).
const MIN_GRACE: SimDuration = SimDuration::from_secs(2);

/// The sink plus what happened to it.
struct Out<'s, S: Sink> {
    sink: &'s mut S,
    error: Option<S::Error>,
    stop: bool,
}

impl<S: Sink> Out<'_, S> {
    #[inline(always)]
    fn emit(&mut self, t: SimTime, kind: EventKind<'_>) {
        if self.error.is_some() {
            return;
        }
        match self.sink.event(&Event { t, kind }) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => self.stop = true,
            Err(e) => self.error = Some(e),
        }
    }

    /// [`Out::emit`] for an event about container `c` ([`Sink::container_event`]).
    #[inline(always)]
    fn emit_for(&mut self, t: SimTime, c: ContainerId, kind: EventKind<'_>) {
        if self.error.is_some() {
            return;
        }
        match self.sink.container_event(&Event { t, kind }, c.index()) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => self.stop = true,
            Err(e) => self.error = Some(e),
        }
    }
}

/// A running simulation of one pod on one kubelet.
///
/// Create it with [`Simulation::new`], then call [`Simulation::run_until`] with increasing
/// horizons; events stream to the sink as they happen and [`Simulation::status`] gives the
/// API-visible status at any point.
///
/// Its state is grouped by the kubelet's components (docs/design.md#engine): the prober
/// manager and its workers, the container runtime with the PLEG's snapshot, the pod worker and
/// its sync, status generation, and the kubelet-wide timers; the shortcuts that make it fast
/// keep their caches apart, in [`Shortcuts`]. The event recorder has no state: events go
/// straight to the sink.
pub struct Simulation {
    /// Shared, never changed, by a simulation and its forks.
    pod: Arc<PodSpec>,
    profile: Arc<Profile>,
    kubelet: KubeletConfig,
    behaviours: Behaviours,
    rng: ChaCha8Rng,
    now: SimTime,
    /// Nothing has happened yet (the first sync at t = 0 is still due).
    created: bool,
    /// The prober manager: probe workers and their results caches (`worker`).
    prober: Prober,
    /// The container runtime and the PLEG's snapshot of it (`runtime`).
    runtime: ContainerRuntime,
    /// The pod worker: the sync in progress, its requests and back-off (`pod_worker`).
    pod_worker: PodWorker,
    /// Status generation: the API status, the view probe workers read, and what is to be
    /// recomputed (`status`).
    status: StatusManager,
    /// The kubelet-wide deadlines (`timers`).
    timers: Timers,
    /// The agenda's caches, parking and the steady lane (`shortcuts`).
    shortcuts: Shortcuts,
    /// Steady-state fast-forward (`cycle`).
    cycle: cycle::Detector,
}
impl fmt::Debug for Simulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Simulation")
            .field("pod", &self.pod.name)
            .field("profile", &self.profile.version())
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl Simulation {
    /// Prepares a run; nothing happens before [`Simulation::run_until`].
    #[must_use]
    pub fn new(
        pod: PodSpec,
        profile: Profile,
        kubelet: KubeletConfig,
        seed: u64,
        behaviours: Behaviours,
    ) -> Simulation {
        let mut pod = pod;
        if !profile.gate(Gate::SidecarContainers) {
            // Without the gate the API server drops an init container's `restartPolicy`: what
            // would be a sidecar is an ordinary init container (R58).
            for c in &mut pod.init_containers {
                c.restartable = false;
            }
        }
        let n = pod.container_count();
        let mut workers = Vec::new();
        // P6: regular containers in spec order, then the restartable init containers.
        let ni = pod.init_containers.len();
        let order = (ni..n).chain((0..ni).filter(|&i| pod.init_containers[i].restartable));
        for c in order {
            let spec = pod.container(c);
            let c = ContainerId::new(c);
            for kind in ProbeKind::ALL {
                if kind == ProbeKind::Startup && !profile.gate(Gate::StartupProbe) {
                    // P6 (1.19): no startup workers while the StartupProbe gate is off.
                    continue;
                }
                if let Some(p) = spec.probe(kind) {
                    workers.push(Worker::idle(c, kind, p.period()));
                }
            }
        }
        let status = PodStatus::initial(&pod, &profile);
        let tally = status::Tally::of_all(&pod, &status);
        let steady = steady::Steady::of_workers(&pod, &profile, &behaviours, &workers);
        let runtime = ContainerRuntime::new(&pod);
        Simulation {
            shortcuts: Shortcuts::new(steady, &workers),
            prober: Prober::new(workers, n),
            pod: Arc::new(pod),
            profile: Arc::new(profile),
            kubelet,
            behaviours,
            rng: ChaCha8Rng::seed_from_u64(seed),
            now: SimTime::ZERO,
            created: false,
            runtime,
            status: StatusManager::new(status, tally, ni, n),
            pod_worker: PodWorker::new(n),
            timers: Timers::default(),
            cycle: cycle::Detector::new(),
        }
    }

    /// Deletes the pod through the API at `at`, with `grace` as its deletion grace period (the
    /// pod's `terminationGracePeriodSeconds` when `None`). The kubelet then stops the liveness and
    /// startup probes (P12, ≥1.23), runs preStop hooks and stops every container (R22–R25), and
    /// the pod object disappears once all containers are gone.
    pub fn delete_at(&mut self, at: SimTime, grace: Option<SimDuration>) {
        self.timers.delete = Some((at, grace));
        self.kubelet_timers_changed();
    }

    /// Delays the pod's first container start by `phase` after the sync that starts it: the
    /// start's offset on the probe workers' tick grid (docs/semantics.md#start-phase). Later
    /// starts are not delayed.
    pub fn delay_first_start(&mut self, phase: SimDuration) {
        if !self.created {
            self.runtime.phase = phase;
        }
    }

    /// Restarts the kubelet process at `at`: probe workers, result caches, back-off entries and
    /// the pod worker's state are lost; containers keep running; the new kubelet syncs the pod
    /// at once (P5, P14, P25, P45).
    pub fn restart_kubelet_at(&mut self, at: SimTime) {
        self.timers.restart = Some(at);
        self.kubelet_timers_changed();
    }

    /// A deep copy of the simulation as it stands: the engine's state, the seeded generator's
    /// position and every behaviour ([`Behaviour::fork`]). The copy shares nothing with the
    /// original: running it gives exactly the events and the status that running the original
    /// on from here would give, and leaves the original where it is. The change trials of the
    /// analysis run a pod's healthy start once and fork it for each change. `None` when a
    /// behaviour cannot be copied.
    #[must_use]
    pub fn fork(&self) -> Option<Simulation> {
        Some(Simulation {
            pod: Arc::clone(&self.pod),
            profile: Arc::clone(&self.profile),
            kubelet: self.kubelet,
            behaviours: self.behaviours.fork()?,
            rng: self.rng.clone(),
            now: self.now,
            created: self.created,
            prober: self.prober.clone(),
            runtime: self.runtime.clone(),
            pod_worker: self.pod_worker.clone(),
            status: self.status.clone(),
            timers: self.timers,
            shortcuts: self.shortcuts.clone(),
            cycle: self.cycle.clone(),
        })
    }

    /// The behaviour added as `index` ([`Behaviours::add`]), to be changed through
    /// [`Behaviour::as_any_mut`] (on a fork, before it reaches what the change is about). A
    /// behaviour that declared a constant answer is not asked again, whatever it becomes.
    pub fn behaviour_mut(&mut self, index: usize) -> Option<&mut (dyn Behaviour + 'static)> {
        self.behaviours.entries.get_mut(index).map(|b| &mut **b)
    }

    /// The current virtual time.
    #[must_use]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The pod being simulated.
    #[must_use]
    pub fn pod(&self) -> &PodSpec {
        &self.pod
    }

    /// The semantics profile.
    #[must_use]
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The kubelet's timing knobs.
    #[must_use]
    pub fn kubelet(&self) -> &KubeletConfig {
        &self.kubelet
    }

    /// The API-visible status now.
    #[must_use]
    pub fn status(&self) -> &PodStatus {
        &self.status.api
    }

    /// Simulates every happening up to and including `until`, streaming events to `sink`.
    /// Calling it again continues from where the previous call stopped.
    ///
    /// # Errors
    /// The sink's error, or a step budget exhausted at one instant (a model bug).
    pub fn run_until<S: Sink>(
        &mut self,
        until: SimTime,
        sink: &mut S,
    ) -> Result<RunEnd, RunError<S::Error>> {
        let until = until.min(SimTime::HORIZON_LIMIT);
        let mut out = Out {
            sink,
            error: None,
            stop: false,
        };
        let mut steps_here = 0u32;
        loop {
            let (key, slot) = self.next_due();
            if key == Key::NEVER || key.at() > until {
                break;
            }
            let at = key.at();
            if at == self.now {
                steps_here += 1;
                if steps_here > STEP_BUDGET {
                    return Err(RunError::StepBudget { at });
                }
            } else {
                steps_here = 0;
            }
            self.now = at;
            // The lane's ticks run in a burst; anything else is dispatched, and may change what
            // steady ticks read.
            let laned = matches!(slot, Slot::Worker(w) if self.shortcuts.steady_ticks && self.shortcuts.lane.holds(w));
            let ran = if laned {
                self.steady_burst(until, &mut steps_here, &mut out)?
            } else {
                0
            };
            if ran == 0 {
                self.general_step();
                self.dispatch(slot, &mut out);
            }
            if let Some(e) = out.error.take() {
                return Err(RunError::Sink(e));
            }
            if out.stop {
                return Ok(RunEnd::Stopped);
            }
            self.cycle.steps += ran.max(1);
            if self.pod_worker.sync_ended {
                self.pod_worker.sync_ended = false;
                out.sink.sync_ended(self.now);
                if self.cycle.due() {
                    self.cycle_point(until, out.sink);
                }
            }
        }
        if self.now < until {
            self.now = until;
        }
        Ok(RunEnd::Horizon)
    }

    // ----------------------------------------------------------------------------------------
    // The agenda.

    /// The earliest due item: its key and which slot it is.
    fn next_due(&mut self) -> (Key, Slot) {
        if self.shortcuts.recheck_parked {
            self.shortcuts.recheck_parked = false;
            self.unpark_changed();
        }
        let due = self.next_due_item();
        self.shortcuts.last_due = due;
        due
    }

    fn next_due_item(&mut self) -> (Key, Slot) {
        while let Some(w) = self.shortcuts.dirty.pop() {
            self.shortcuts.is_dirty[w] = false;
            // Whatever changed, the worker's ticks go back to the agenda (its entry in the
            // lane is dropped when it comes up).
            if self.shortcuts.steady_ticks {
                self.shortcuts.lane.leave(w);
            }
            self.shortcuts.agenda.set(w, self.prober.workers[w].key());
        }
        if self.shortcuts.globals_dirty {
            self.shortcuts.globals_dirty = false;
            self.shortcuts.global_due = self.kubelet_wide_due();
        }
        // Workers: ties keep creation order, except that a container's startup tick yields to
        // its liveness and readiness ticks at the same instant
        // (docs/semantics.md#same-instant-ticks: ticks due
        // together all read the status as it was before any of them ran, so a startup verdict
        // at `t` is not seen by the other ticks at `t`); see `agenda`.
        // The steady lane holds ticks in the same order: the earlier of the two heads is first.
        let mut best = self.shortcuts.agenda.root();
        if self.shortcuts.steady_ticks {
            if let Some(head) = self.shortcuts.lane.head() {
                best = best.min(head);
            }
        }
        let (best_key, best_worker) = agenda::Agenda::decode(best);
        // Kubelet-wide items come before workers at the same (time, class).
        if self.shortcuts.global_due.0 <= best_key {
            return self.shortcuts.global_due;
        }
        (best_key, Slot::Worker(best_worker))
    }

    /// The earliest kubelet-wide item (everything but probe workers).
    fn kubelet_wide_due(&self) -> (Key, Slot) {
        let mut best = (Key::NEVER, Slot::Idle);
        let mut consider = |k: Key, s: Slot| {
            if k <= best.0 && k != Key::NEVER {
                best = (k, s);
            }
        };
        consider(
            key_of(self.pod_worker.job.pull_end, Class::Runtime),
            Slot::PullEnd,
        );
        debug_assert_eq!(
            self.runtime.pending_exits,
            self.runtime
                .containers
                .iter()
                .filter(|r| r.exit_at.is_some())
                .count(),
            "pending exits"
        );
        let exits = if self.runtime.pending_exits == 0 {
            &[][..]
        } else {
            self.runtime.containers.as_slice()
        };
        for (c, r) in exits.iter().enumerate().rev() {
            let c = ContainerId::new(c);
            consider(
                key_of(r.exit_at.map(|(t, _)| t), Class::Runtime),
                Slot::Exit(c),
            );
        }
        // The timer table after the runtime's own deadlines: of two items at one key, the one
        // considered last goes first.
        self.timers.consider(&mut consider);
        consider(
            key_of(self.pod_worker.updates.first().map(|u| u.0), Class::Update),
            Slot::ProbeUpdate,
        );
        if !self.created {
            consider(Key::new(SimTime::ZERO, Class::Sync), Slot::Create);
        }
        best
    }

    fn dispatch<S: Sink>(&mut self, slot: Slot, out: &mut Out<'_, S>) {
        if !matches!(slot, Slot::Worker(_)) {
            self.kubelet_item_runs();
        }
        match slot {
            Slot::Idle => {}
            Slot::Create => {
                self.created = true;
                self.request_sync(SyncTrigger::Create, out);
            }
            Slot::Relist => {
                self.timers.relist = None;
                self.relist();
            }
            Slot::Exit(c) => self.process_exit(c, out),
            Slot::PullEnd => {
                self.pod_worker.job.pull_end = None;
                match self.pod_worker.job.stage {
                    Some(Stage::Phase(i)) => {
                        self.runtime.phase = SimDuration::ZERO;
                        self.pod_worker.job.stage = Some(Stage::Start(i));
                        self.advance_job(out);
                    }
                    Some(Stage::Pull(i)) => {
                        let c = self.pod_worker.job.starts[i];
                        let spec = self.pod.container(c.index());
                        let took = spec.app.pull_time(self.runtime.containers[c].image_present);
                        self.kube_event(
                            out,
                            c,
                            EventType::Normal,
                            "Pulled",
                            Message::Pulled {
                                image: &spec.image,
                                took,
                                wording: self.profile.pulled_wording,
                            },
                        );
                        self.runtime.containers[c].image_present = true;
                        if self.begin_create(c, i) {
                            return;
                        }
                        self.create_and_start(c, out);
                        self.pod_worker.job.stage = Some(Stage::Start(i + 1));
                        self.advance_job(out);
                    }
                    Some(Stage::Create(i)) => {
                        let c = self.pod_worker.job.starts[i];
                        self.create_and_start(c, out);
                        self.pod_worker.job.stage = Some(Stage::Start(i + 1));
                        self.advance_job(out);
                    }
                    _ => {}
                }
            }
            Slot::SyncDue => {
                if let Some((_, trigger)) = self.timers.sync_due.take() {
                    self.request_sync(trigger, out);
                }
            }
            Slot::ProbeUpdate => self.deliver_update(out),
            Slot::Requeue => {
                if let Some((_, trigger)) = self.timers.requeue.take() {
                    self.request_sync(trigger, out);
                }
            }
            Slot::Delete => {
                if let Some((_, grace)) = self.timers.delete.take() {
                    self.delete(grace, out);
                }
            }
            Slot::KubeletRestart => {
                self.timers.restart = None;
                self.kubelet_restart(out);
            }
            Slot::Worker(w) => self.worker_due(w, out),
        }
    }
}

/// A uniform draw in `[0, bound)` (0 when `bound` is 0), without floats.
fn uniform_below(rng: &mut ChaCha8Rng, bound: u64) -> u64 {
    if bound == 0 {
        return 0;
    }
    let x = u128::from(rng.next_u64());
    u64::try_from((x * u128::from(bound)) >> 64).unwrap_or(0)
}

mod agenda;
mod classify;
mod cycle;
mod facts;
mod finished_workers;
mod ids;
mod parking;
mod pod_actions;
mod pod_worker;
mod runtime;
mod shortcuts;
mod status;
mod steady;
mod timers;
mod worker;

#[cfg(test)]
mod cycle_tests;
#[cfg(test)]
mod hot_path_tests;
#[cfg(test)]
mod kubelet_tests;
#[cfg(test)]
mod long_run_tests;
#[cfg(test)]
mod status_tests;
#[cfg(test)]
mod tests;
