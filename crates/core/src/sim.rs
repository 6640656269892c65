//! The simulation: the only thing that advances the clock.
//!
//! One [`Simulation`] models one pod on one kubelet: the probe workers (probe layer, P…, in
//! `worker`), the pod worker with its syncs, kills, starts and back-off (runtime layer, R…, in
//! `pod_worker`), the status it generates (`status`), and the PLEG and the container runtime that
//! runs each container's process (`runtime`). It owns "now", the seeded generator, and the
//! application behaviours; this file holds the state, the public API and the agenda.
//!
//! Time advances from deadline to deadline. Everything due at one instant happens in the
//! canonical order of docs/semantics.md#order: PLEG relist, runtime happenings (process
//! exits, pulls that
//! end), pod syncs, probe ticks, worker wake-ups, probe completions. Ties inside one class go in
//! container order, and for probe workers in creation order (startup, readiness, liveness: P6),
//! except that a container's startup tick runs after its other ticks at the same instant.

use core::fmt;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::behaviour::{AlwaysOk, Answer, Attempt, Behaviour, BehaviourShortcuts, Draws, Response};
use crate::event::{
    ContainerState, ContainerStatus, Event, EventKind, EventType, ExitReason, KillCause,
    KillMessage, KillReason, KubeEvent, Message, Outcome, OutputKind, Phase, PodName, ProbeOutput,
    ProbeResult, SyncTrigger, Terminated, TextRef, Texts, WaitingReason,
};
use crate::profile::{BackOffRequeue, ExecTimeout, Gate, Profile, ReadinessTrigger};
use crate::sink::{Flow, Sink};
use crate::spec::{Handler, PodSpec, ProbeKind, PullPolicy, RestartPolicy, Sigterm};
use crate::time::{SimDuration, SimTime};

use self::agenda::Agenda;

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

/// The agenda's classes, in the order they run at one instant (docs/semantics.md#order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Relist = 0,
    Runtime = 1,
    Sync = 2,
    Tick = 3,
    Wake = 4,
    Completion = 5,
}

/// A deadline key: time in the high bits, class in the low three, so one integer comparison
/// orders (time, class).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key(u64);

impl Key {
    const NEVER: Key = Key(u64::MAX);

    fn new(at: SimTime, class: Class) -> Key {
        Key(at
            .as_millis()
            .saturating_mul(8)
            .saturating_add(class as u64))
    }

    fn at(self) -> SimTime {
        SimTime::from_millis(self.0 / 8)
    }

    fn class(self) -> u64 {
        self.0 % 8
    }
}

fn key_of(at: Option<SimTime>, class: Class) -> Key {
    at.map_or(Key::NEVER, |t| Key::new(t, class))
}

/// One container instance in the runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Instance {
    /// Per-container instance number: the "container ID". 64 bits, so that no run within the
    /// clock's range starts more instances than it can number.
    id: u64,
    /// 64 bits for the same reason; the API's `restartCount` shows it saturated at `u32::MAX`.
    restart_count: u64,
    started_at: SimTime,
    /// `(finishedAt, exitCode)` once the process ended.
    exited: Option<(SimTime, i32)>,
}

impl Instance {
    /// The restart count as the API shows it (`restartCount`), saturated at `u32::MAX`.
    fn shown_restarts(&self) -> u32 {
        u32::try_from(self.restart_count).unwrap_or(u32::MAX)
    }

    fn terminated(&self) -> Option<Terminated> {
        self.exited.map(|(at, code)| Terminated {
            exit_code: code,
            reason: ExitReason::for_code(code),
            started_at: self.started_at.floor_secs(),
            finished_at: at.floor_secs(),
        })
    }
}

/// What the runtime knows of a container (newest instance first), also the shape of the PLEG's
/// cached snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Instances {
    newest: Option<Instance>,
    previous: Option<Instance>,
}

impl Instances {
    /// Whether the newest instance is running.
    fn running(&self) -> bool {
        self.newest.is_some_and(|i| i.exited.is_none())
    }

    /// The first exited instance, newest first (R30 step 1).
    fn first_exited(&self) -> Option<Instance> {
        [self.newest, self.previous]
            .into_iter()
            .flatten()
            .find(|i| i.exited.is_some())
    }
}

/// The runtime side of one container: its instances and the process's pending exit.
#[derive(Clone, Copy, Debug, Default)]
struct Runtime {
    instances: Instances,
    next_id: u64,
    image_present: bool,
    /// When the running process will exit, and with which code.
    exit_at: Option<(SimTime, i32)>,
}

/// What a probe worker reads from the status view for its container (P24–P30).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ViewEntry {
    id: Option<u64>,
    running: bool,
    terminated: Option<i32>,
    started_at: SimTime,
    started: bool,
}

/// A probe execution in progress.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    began: SimTime,
    attempt: u8,
    /// The container instance the attempt reached.
    instance: u64,
    ends: SimTime,
    outcome: Outcome,
    output: OutputKind,
}

/// One probe worker (P9): per (container, probe type).
#[derive(Clone, Copy, Debug)]
struct Worker {
    container: usize,
    kind: ProbeKind,
    period: SimDuration,
    alive: bool,
    /// The first doProbe has run (after the start-up sleep, P14/P15).
    running: bool,
    next_tick: SimTime,
    wake_at: Option<SimTime>,
    pending_tick: bool,
    pending_trigger: bool,
    stop_requested: bool,
    in_flight: Option<InFlight>,
    container_id: Option<u64>,
    last_result: ProbeResult,
    result_run: u32,
    on_hold: bool,
    /// Held, idle and with nothing pending: its ticks do nothing until what its doProbe reads
    /// before the hold changes, so they are left off the agenda (see `worker::park`).
    parked: bool,
    /// When AddPod created this worker.
    created_at: SimTime,
}

impl Worker {
    /// A worker slot that AddPod has not created (or that exited): no timers, zero values (P9).
    fn idle(container: usize, kind: ProbeKind, period: SimDuration) -> Worker {
        Worker {
            container,
            kind,
            period,
            alive: false,
            running: false,
            next_tick: SimTime::ZERO,
            wake_at: None,
            pending_tick: false,
            pending_trigger: false,
            stop_requested: false,
            in_flight: None,
            container_id: None,
            last_result: ProbeResult::Success,
            result_run: 0,
            on_hold: false,
            parked: false,
            created_at: SimTime::ZERO,
        }
    }

    fn key(&self) -> Key {
        if !self.alive {
            return Key::NEVER;
        }
        let tick = if self.running && !self.parked {
            Key::new(self.next_tick, Class::Tick)
        } else {
            Key::NEVER
        };
        let wake = key_of(self.wake_at, Class::Wake);
        let done = key_of(self.in_flight.map(|f| f.ends), Class::Completion);
        tick.min(wake).min(done)
    }

    fn initial_value(&self) -> ProbeResult {
        match self.kind {
            ProbeKind::Readiness => ProbeResult::Failure,
            ProbeKind::Liveness => ProbeResult::Success,
            ProbeKind::Startup => ProbeResult::Unknown,
        }
    }
}

/// What a doProbe decided (P22–P36).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Continue,
    Stop,
    InFlight,
}

/// One flowcontrol.Backoff entry (R27).
#[derive(Clone, Copy, Debug)]
struct BackOffEntry {
    backoff: SimDuration,
    last_update: SimTime,
}

/// A kill the current sync performs.
#[derive(Clone, Copy, Debug, Hash)]
struct Kill {
    container: usize,
    reason: KillReason,
    cause: KillCause,
    message: KillMessage,
}

/// Where a blocked sync resumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Stage {
    /// Kill `kills[i]` next (sequential kills).
    Kill(usize),
    /// Waiting for `kills[i]`'s process to exit.
    WaitKill(usize),
    /// Waiting for every process of a whole-pod kill (R15).
    WaitPodKill,
    /// Start `starts[i]` next.
    Start(usize),
    /// Pulling the image for `starts[i]`.
    Pull(usize),
}

/// The sync in progress (one pod worker, R3).
#[derive(Clone, Debug, Default)]
struct Job {
    active: bool,
    stage: Option<Stage>,
    /// The snapshot the sync began with, copied only once a relist changes the PLEG's
    /// (`shared` until then: the sync reads the PLEG's own).
    snapshot: Vec<Instances>,
    shared: bool,
    kills: Vec<Kill>,
    /// R15: the kills are a whole-pod kill: the first `parallel` at once (all of them; a
    /// sidecar's signal waits for its turn, R61).
    pod_kill: bool,
    parallel: usize,
    starts: Vec<usize>,
    pull_end: Option<SimTime>,
    changed: bool,
    backoff_expiry: Option<SimTime>,
}

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
    fn emit_for(&mut self, t: SimTime, c: usize, kind: EventKind<'_>) {
        if self.error.is_some() {
            return;
        }
        match self.sink.container_event(&Event { t, kind }, c) {
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
pub struct Simulation {
    pod: PodSpec,
    profile: Profile,
    kubelet: KubeletConfig,
    behaviours: Behaviours,
    rng: ChaCha8Rng,
    now: SimTime,
    /// Nothing has happened yet (the first sync at t = 0 is still due).
    created: bool,
    /// The pod reached a terminal phase: no more syncs.
    terminal: bool,

    runtime: Vec<Runtime>,
    /// Containers whose process has an exit scheduled (`Runtime::exit_at`): none, and the
    /// kubelet-wide agenda skips the scan.
    pending_exits: usize,
    snapshot: Vec<Instances>,
    relist_at: Option<SimTime>,

    status: PodStatus,
    status_written: bool,
    /// The containers whose status inputs changed since the last status was generated (or
    /// whose last status asked a worker for a probe), each once, and which ones those are: the
    /// next status recomputes only them (`status`).
    status_queue: Vec<usize>,
    status_dirty: Vec<bool>,
    /// What the phase and the conditions count over the statuses, kept as they are written.
    tally: status::Tally,
    /// Regular containers whose snapshot holds an instance (the phase's "initialized"), and
    /// those whose instance runs.
    created_regular: usize,
    running_regular: usize,
    /// The regular containers a sync does not simply keep (R13–R15): not running, or running
    /// with a liveness or startup failure cached for the instance. Updated with the status
    /// marks, whose inputs include these. Sorted (a sync visits them in container order).
    actionable: Vec<usize>,
    /// Test-only: every status recomputes every container, the reference for the incremental
    /// path.
    #[cfg(test)]
    full_status: bool,
    view: Vec<ViewEntry>,
    reason_cache: Vec<Option<SimDuration>>,
    backoff: Vec<Option<BackOffEntry>>,
    sandbox_ready: bool,
    /// A whole-pod kill stopped the sandbox after its containers (`killPodWithSyncResult`), so
    /// `PodReadyToStartContainers` turns False at the next status (R42).
    sandbox_stopped: bool,

    workers: Vec<Worker>,
    /// How many workers are alive: all of them, and AddPod has nothing to create.
    alive_workers: usize,
    /// Each worker's next deadline, recomputed only for workers marked dirty, and which worker
    /// is due first.
    agenda: Agenda,
    /// Per container, its worker of each probe type (by [`ProbeKind::index`]): syncs ask for a
    /// container's workers once per container, which a search through every worker made
    /// quadratic in the pod's size.
    worker_by: Vec<[Option<usize>; 3]>,
    dirty: Vec<usize>,
    is_dirty: Vec<bool>,
    /// The earliest kubelet-wide item, recomputed only when one may have changed.
    global_due: (Key, Slot),
    globals_dirty: bool,
    /// Results caches (P42): per worker, `(container id, result)`.
    cache: Vec<Option<(u64, ProbeResult)>>,
    /// Workers that were parked (some may have been unparked or re-created since), each once.
    parked: Vec<usize>,
    /// Per worker: whether it is listed in `parked`.
    listed: Vec<bool>,
    /// Something a parked worker's doProbe reads may have changed: look at them before the
    /// next item is chosen.
    recheck_parked: bool,
    /// The item chosen last (the one being or just dispatched).
    last_due: (Key, Slot),
    /// Whether held workers are parked (always; tests compare with runs that do not park).
    parking: bool,
    /// Per worker, what its steady ticks need, if it can have them (`steady`).
    steady: Vec<Option<steady::Steady>>,
    /// Whether steady ticks take their shortcut (whenever a worker can have them; tests compare
    /// with runs that do not).
    steady_ticks: bool,
    /// The ticks of workers whose ticks are steady, in agenda order (`steady`).
    lane: steady::Lane,

    /// A scheduled deletion: when, and its grace period (the pod's when `None`).
    delete_at: Option<(SimTime, Option<SimDuration>)>,
    /// The pod has a deletion timestamp with this grace period.
    deleting: Option<SimDuration>,
    /// A scheduled kubelet restart.
    restart_at: Option<SimTime>,
    /// When the kubelet (and its prober manager) last started, if during the run (P5).
    kubelet_started: Option<SimTime>,

    job: Job,
    pending: Option<SyncTrigger>,
    gate_after: Option<SimTime>,
    /// When the last sync ended.
    last_sync_end: Option<SimTime>,
    sync_due: Option<(SimTime, SyncTrigger)>,
    requeue: Option<(SimTime, SyncTrigger)>,
    /// A pod sync ended in the step just taken: a point where fast-forward compares states.
    sync_ended: bool,
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
        Simulation {
            // Without a worker that can have steady ticks, the lane is never used.
            steady_ticks: steady.iter().any(Option::is_some),
            steady,
            lane: steady::Lane::new(workers.len()),
            cache: vec![None; workers.len()],
            parked: Vec::new(),
            listed: vec![false; workers.len()],
            recheck_parked: false,
            last_due: (Key::NEVER, Slot::Idle),
            parking: true,
            alive_workers: 0,
            agenda: Agenda::new(&workers),
            worker_by: {
                let mut by = vec![[None; 3]; n];
                for (i, w) in workers.iter().enumerate() {
                    by[w.container][w.kind.index()].get_or_insert(i);
                }
                by
            },
            dirty: Vec::with_capacity(workers.len()),
            is_dirty: vec![false; workers.len()],
            global_due: (Key::NEVER, Slot::Idle),
            globals_dirty: true,
            workers,
            pod,
            profile,
            kubelet,
            behaviours,
            rng: ChaCha8Rng::seed_from_u64(seed),
            now: SimTime::ZERO,
            created: false,
            terminal: false,
            runtime: vec![Runtime::default(); n],
            pending_exits: 0,
            snapshot: vec![Instances::default(); n],
            relist_at: None,
            tally,
            status,
            status_written: false,
            status_queue: (0..n).collect(),
            status_dirty: vec![true; n],
            created_regular: 0,
            running_regular: 0,
            actionable: (ni..n).collect(),
            #[cfg(test)]
            full_status: false,
            view: vec![ViewEntry::default(); n],
            reason_cache: vec![None; n],
            backoff: vec![None; n],
            sandbox_ready: false,
            sandbox_stopped: false,
            job: Job {
                snapshot: vec![Instances::default(); n],
                kills: Vec::with_capacity(n),
                starts: Vec::with_capacity(n),
                ..Job::default()
            },
            delete_at: None,
            deleting: None,
            restart_at: None,
            kubelet_started: None,
            pending: None,
            gate_after: None,
            last_sync_end: None,
            sync_due: None,
            requeue: None,
            sync_ended: false,
            cycle: cycle::Detector::new(),
        }
    }

    /// Deletes the pod through the API at `at`, with `grace` as its deletion grace period (the
    /// pod's `terminationGracePeriodSeconds` when `None`). The kubelet then stops the liveness and
    /// startup probes (P12, ≥1.23), runs preStop hooks and stops every container (R22–R25), and
    /// the pod object disappears once all containers are gone.
    pub fn delete_at(&mut self, at: SimTime, grace: Option<SimDuration>) {
        self.delete_at = Some((at, grace));
        self.globals_dirty = true;
    }

    /// Restarts the kubelet process at `at`: probe workers, result caches, back-off entries and
    /// the pod worker's state are lost; containers keep running; the new kubelet syncs the pod
    /// at once (P5, P14, P25, P45).
    pub fn restart_kubelet_at(&mut self, at: SimTime) {
        self.restart_at = Some(at);
        self.globals_dirty = true;
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
        &self.status
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
            let laned = matches!(slot, Slot::Worker(w) if self.steady_ticks && self.lane.holds(w));
            let ran = if laned {
                self.steady_burst(until, &mut steps_here, &mut out)?
            } else {
                0
            };
            if ran == 0 {
                if self.steady_ticks {
                    self.lane.epoch += 1;
                }
                self.dispatch(slot, &mut out);
            }
            if let Some(e) = out.error.take() {
                return Err(RunError::Sink(e));
            }
            if out.stop {
                return Ok(RunEnd::Stopped);
            }
            self.cycle.steps += ran.max(1);
            if self.sync_ended {
                self.sync_ended = false;
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
        if self.recheck_parked {
            self.recheck_parked = false;
            self.unpark_changed();
        }
        let due = self.next_due_item();
        self.last_due = due;
        due
    }

    fn next_due_item(&mut self) -> (Key, Slot) {
        while let Some(w) = self.dirty.pop() {
            self.is_dirty[w] = false;
            // Whatever changed, the worker's ticks go back to the agenda (its entry in the
            // lane is dropped when it comes up).
            if self.steady_ticks {
                self.lane.leave(w);
            }
            self.agenda.set(w, self.workers[w].key());
        }
        if self.globals_dirty {
            self.globals_dirty = false;
            self.global_due = self.global_due();
        }
        // Workers: ties keep creation order, except that a container's startup tick yields to
        // its liveness and readiness ticks at the same instant
        // (docs/semantics.md#same-instant-ticks: ticks due
        // together all read the status as it was before any of them ran, so a startup verdict
        // at `t` is not seen by the other ticks at `t`); see `agenda`.
        // The steady lane holds ticks in the same order: the earlier of the two heads is first.
        let mut best = self.agenda.root();
        if self.steady_ticks {
            if let Some(head) = self.lane.head() {
                best = best.min(head);
            }
        }
        let (best_key, best_worker) = agenda::Agenda::decode(best);
        // Kubelet-wide items come before workers at the same (time, class).
        if self.global_due.0 <= best_key {
            return self.global_due;
        }
        (best_key, Slot::Worker(best_worker))
    }

    /// The earliest kubelet-wide item (everything but probe workers).
    fn global_due(&self) -> (Key, Slot) {
        let mut best = (Key::NEVER, Slot::Idle);
        let mut consider = |k: Key, s: Slot| {
            if k <= best.0 && k != Key::NEVER {
                best = (k, s);
            }
        };
        consider(
            key_of(self.requeue.map(|(t, _)| t), Class::Sync),
            Slot::Requeue,
        );
        consider(
            key_of(self.sync_due.map(|(t, _)| t), Class::Sync),
            Slot::SyncDue,
        );
        consider(key_of(self.job.pull_end, Class::Runtime), Slot::PullEnd);
        debug_assert_eq!(
            self.pending_exits,
            self.runtime.iter().filter(|r| r.exit_at.is_some()).count(),
            "pending exits"
        );
        let exits = if self.pending_exits == 0 {
            &[][..]
        } else {
            &self.runtime[..]
        };
        for (c, r) in exits.iter().enumerate().rev() {
            consider(
                key_of(r.exit_at.map(|(t, _)| t), Class::Runtime),
                Slot::Exit(c),
            );
        }
        consider(
            key_of(self.delete_at.map(|(t, _)| t), Class::Sync),
            Slot::Delete,
        );
        consider(
            key_of(self.restart_at, Class::Runtime),
            Slot::KubeletRestart,
        );
        consider(key_of(self.relist_at, Class::Relist), Slot::Relist);
        if !self.created {
            consider(Key::new(SimTime::ZERO, Class::Sync), Slot::Create);
        }
        best
    }

    fn dispatch<S: Sink>(&mut self, slot: Slot, out: &mut Out<'_, S>) {
        if !matches!(slot, Slot::Worker(_)) {
            self.globals_dirty = true;
            self.recheck_parked = true;
        }
        match slot {
            Slot::Idle => {}
            Slot::Create => {
                self.created = true;
                self.request_sync(SyncTrigger::Create, out);
            }
            Slot::Relist => {
                self.relist_at = None;
                self.relist();
            }
            Slot::Exit(c) => self.process_exit(c, out),
            Slot::PullEnd => {
                self.job.pull_end = None;
                if let Some(Stage::Pull(i)) = self.job.stage {
                    let c = self.job.starts[i];
                    let spec = self.pod.container(c);
                    let took = spec.app.pull;
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
                    self.runtime[c].image_present = true;
                    self.create_and_start(c, out);
                    self.job.stage = Some(Stage::Start(i + 1));
                    self.advance_job(out);
                }
            }
            Slot::SyncDue => {
                if let Some((_, trigger)) = self.sync_due.take() {
                    self.request_sync(trigger, out);
                }
            }
            Slot::Requeue => {
                if let Some((_, trigger)) = self.requeue.take() {
                    self.request_sync(trigger, out);
                }
            }
            Slot::Delete => {
                if let Some((_, grace)) = self.delete_at.take() {
                    self.delete(grace, out);
                }
            }
            Slot::KubeletRestart => {
                self.restart_at = None;
                self.kubelet_restart(out);
            }
            Slot::Worker(w) => self.worker_due(w, out),
        }
    }
}

/// Which agenda item is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Idle,
    Create,
    Relist,
    Exit(usize),
    PullEnd,
    SyncDue,
    Requeue,
    Delete,
    KubeletRestart,
    Worker(usize),
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
mod cycle;
mod pod_worker;
mod runtime;
mod status;
mod steady;
mod worker;

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
