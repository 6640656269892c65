//! The simulation: the only thing that advances the clock.
//!
//! One [`Simulation`] models one pod on one kubelet: the probe workers (probe layer, P…), the pod
//! worker with its syncs, kills, starts and back-off (runtime layer, R…), the PLEG, and the
//! container runtime that runs each container's process. It owns "now", the seeded generator,
//! and the application behaviours.
//!
//! Time advances from deadline to deadline. Everything due at one instant happens in the
//! canonical order of contract §2.3: PLEG relist, runtime happenings (process exits, pulls that
//! end), pod syncs, probe ticks, worker wake-ups, probe completions. Ties inside one class go in
//! container order, and for probe workers in creation order (startup, readiness, liveness: P6).

use core::fmt;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::behaviour::{AlwaysOk, Answer, Attempt, Behaviour, Response};
use crate::event::{
    ContainerState, ContainerStatus, Event, EventKind, EventType, ExitReason, KillMessage,
    KillReason, KubeEvent, Message, Outcome, OutputKind, Phase, PodName, ProbeOutput, ProbeResult,
    SyncTrigger, Terminated, WaitingReason,
};
use crate::profile::{BackOffRequeue, ExecTimeout, Gate, Profile, ReadinessTrigger};
use crate::sink::{Flow, Sink};
use crate::spec::{Handler, PodSpec, ProbeKind, PullPolicy, RestartPolicy, Sigterm};
use crate::time::{SimDuration, SimTime};

/// The kubelet's timing knobs (contract §2.2), with the canonical defaults.
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
            bindings: vec![[None; 3]; pod.container_count()],
        }
    }

    /// Adds a behaviour and returns its index for [`Behaviours::bind`].
    pub fn add(&mut self, behaviour: Box<dyn Behaviour>) -> usize {
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

    fn respond(&mut self, attempt: &Attempt) -> Response {
        let bound = self
            .bindings
            .get(attempt.container)
            .and_then(|b| b[attempt.probe.index()]);
        match bound.and_then(|i| self.entries.get_mut(i)) {
            Some(b) => b.respond(attempt),
            None => AlwaysOk.respond(attempt),
        }
    }
}

/// The pod's conditions (R42).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// The agenda's classes, in the order they run at one instant (contract §2.3.1).
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
}

fn key_of(at: Option<SimTime>, class: Class) -> Key {
    at.map_or(Key::NEVER, |t| Key::new(t, class))
}

/// One container instance in the runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Instance {
    /// Per-container instance number: the "container ID".
    id: u32,
    restart_count: u32,
    started_at: SimTime,
    /// `(finishedAt, exitCode)` once the process ended.
    exited: Option<(SimTime, i32)>,
}

impl Instance {
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
    next_id: u32,
    image_present: bool,
    /// When the running process will exit, and with which code.
    exit_at: Option<(SimTime, i32)>,
}

/// What a probe worker reads from the status view for its container (P24–P30).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ViewEntry {
    id: Option<u32>,
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
    instance: u32,
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
    container_id: Option<u32>,
    last_result: ProbeResult,
    result_run: u32,
    on_hold: bool,
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
            created_at: SimTime::ZERO,
        }
    }

    fn key(&self) -> Key {
        if !self.alive {
            return Key::NEVER;
        }
        let tick = if self.running {
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
#[derive(Clone, Copy, Debug)]
struct Kill {
    container: usize,
    reason: KillReason,
    message: KillMessage,
}

/// Where a blocked sync resumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    snapshot: Vec<Instances>,
    kills: Vec<Kill>,
    /// R15: the kills are a whole-pod kill: the first `parallel` at once, the rest (sidecars)
    /// one after the other.
    pod_kill: bool,
    parallel: usize,
    kill_began: SimTime,
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
    snapshot: Vec<Instances>,
    relist_at: Option<SimTime>,

    status: PodStatus,
    status_written: bool,
    view: Vec<ViewEntry>,
    reason_cache: Vec<Option<SimDuration>>,
    backoff: Vec<Option<BackOffEntry>>,
    sandbox_ready: bool,

    workers: Vec<Worker>,
    /// Each worker's next deadline, recomputed only for workers marked dirty.
    worker_keys: Vec<Key>,
    dirty: Vec<usize>,
    is_dirty: Vec<bool>,
    /// The earliest kubelet-wide item, recomputed only when one may have changed.
    global_due: (Key, Slot),
    globals_dirty: bool,
    /// Results caches (P42): per worker, `(container id, result)`.
    cache: Vec<Option<(u32, ProbeResult)>>,

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
        let status = PodStatus {
            phase: Phase::Pending,
            conditions: Conditions {
                ready_to_start_containers: profile.ready_to_start_condition.then_some(false),
                initialized: true,
                ready: false,
                containers_ready: false,
                pod_scheduled: true,
            },
            init_containers: vec![ContainerStatus::default(); ni],
            containers: vec![ContainerStatus::default(); n - ni],
            deletion_timestamp: None,
            removed: false,
        };
        Simulation {
            cache: vec![None; workers.len()],
            worker_keys: vec![Key::NEVER; workers.len()],
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
            snapshot: vec![Instances::default(); n],
            relist_at: None,
            status,
            status_written: false,
            view: vec![ViewEntry::default(); n],
            reason_cache: vec![None; n],
            backoff: vec![None; n],
            sandbox_ready: false,
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
            self.dispatch(slot, &mut out);
            if let Some(e) = out.error.take() {
                return Err(RunError::Sink(e));
            }
            if out.stop {
                return Ok(RunEnd::Stopped);
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
        while let Some(w) = self.dirty.pop() {
            self.is_dirty[w] = false;
            self.worker_keys[w] = self.workers[w].key();
        }
        if self.globals_dirty {
            self.globals_dirty = false;
            self.global_due = self.global_due();
        }
        // Workers first, in a tight loop: ties keep the lowest index (creation order).
        let (mut best_key, mut best_worker) = (Key::NEVER, 0);
        for (w, key) in self.worker_keys.iter().enumerate() {
            if *key < best_key {
                best_key = *key;
                best_worker = w;
            }
        }
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
        for (c, r) in self.runtime.iter().enumerate().rev() {
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

    // ----------------------------------------------------------------------------------------
    // The PLEG (R4, R5).

    fn schedule_relist(&mut self, after: SimTime) {
        self.globals_dirty = true;
        let at = after.next_multiple_after(self.kubelet.pleg_period);
        self.relist_at = Some(self.relist_at.map_or(at, |t| t.min(at)));
    }

    fn relist(&mut self) {
        self.globals_dirty = true;
        let now = self.now;
        let mut changed = false;
        for c in 0..self.runtime.len() {
            let seen = self.runtime[c].instances;
            if seen != self.snapshot[c] {
                changed = true;
                self.snapshot[c] = seen;
            }
        }
        if self.gate_after.is_some_and(|g| g < now) {
            self.gate_after = None;
        }
        if changed {
            self.pending = Some(SyncTrigger::Pleg);
        }
        if self.pending.is_some() && !self.job.active && self.gate_after.is_none() {
            let trigger = self.pending.take().unwrap_or(SyncTrigger::Pending);
            self.sync_due = Some((now, trigger));
        }
    }

    // ----------------------------------------------------------------------------------------
    // The runtime: process exits.

    fn process_exit<S: Sink>(&mut self, c: usize, out: &mut Out<'_, S>) {
        self.globals_dirty = true;
        let now = self.now;
        let Some((_, code)) = self.runtime[c].exit_at.take() else {
            return;
        };
        if let Some(inst) = self.runtime[c].instances.newest.as_mut() {
            inst.exited = Some((now, code));
        }
        out.emit(
            now,
            EventKind::Exit {
                container: &self.pod.container(c).name,
                exit_code: code,
                reason: ExitReason::for_code(code),
            },
        );
        self.schedule_relist(now);
        self.cut_attempts(c);
        match self.job.stage {
            Some(Stage::WaitKill(i)) if self.job.kills[i].container == c => {
                self.job.stage = Some(Stage::Kill(i + 1));
                self.advance_job(out);
            }
            Some(Stage::WaitPodKill) => {
                let group = &self.job.kills[..self.job.parallel];
                let waiting = group
                    .iter()
                    .any(|k| self.runtime[k.container].exit_at.is_some());
                if !waiting {
                    self.job.stage = Some(Stage::Kill(self.job.parallel));
                    self.advance_job(out);
                }
            }
            _ => {}
        }
    }

    /// A probe in flight against a process that just died ends now: the connection is reset
    /// (network handlers fail) or the exec session is gone (an error, P40).
    fn cut_attempts(&mut self, c: usize) {
        let now = self.now;
        let Some(dead) = self.runtime[c].instances.newest.map(|i| i.id) else {
            return;
        };
        for w in 0..self.workers.len() {
            let worker = self.workers[w];
            let Some(f) = worker.in_flight else { continue };
            if worker.container != c || f.instance != dead || f.ends <= now {
                continue;
            }
            let handler = self
                .pod
                .container(c)
                .probe(worker.kind)
                .map(|p| p.handler());
            let (outcome, output) = match handler {
                Some(Handler::HttpGet { .. }) => (Outcome::Failure, OutputKind::HttpReset),
                Some(Handler::TcpSocket { .. }) => (Outcome::Failure, OutputKind::TcpRefused),
                Some(Handler::Grpc { .. }) => (Outcome::Failure, OutputKind::GrpcRefused),
                Some(Handler::Exec { .. }) | None => (Outcome::Error, OutputKind::ExecGone),
            };
            self.mark(w);
            self.workers[w].in_flight = Some(InFlight {
                ends: now,
                outcome,
                output,
                ..f
            });
        }
    }

    /// Sends SIGTERM to container `c`'s process with a grace period (R25, contract §2.3.7) and
    /// returns whether the process is still alive afterwards (the stop blocks until it exits).
    fn signal(&mut self, c: usize, hook: SimDuration, grace: SimDuration) -> bool {
        self.globals_dirty = true;
        // The signal goes out when the preStop hook is done (R24).
        let now = self.now.saturating_add(hook);
        let rt = &mut self.runtime[c];
        let alive = rt.instances.newest.is_some_and(|i| i.exited.is_none());
        if !alive {
            return false;
        }
        let (at, code) = match self.pod.container(c).app.sigterm {
            Sigterm::Ignore => (now.saturating_add(grace), 137),
            Sigterm::Exit { code, after } if after < grace => {
                (now.saturating_add(after), code.unwrap_or(143))
            }
            Sigterm::Exit { .. } => (now.saturating_add(grace), 137),
        };
        rt.exit_at = match rt.exit_at {
            Some((own, own_code)) if own <= at => Some((own, own_code)),
            _ => Some((at, code)),
        };
        true
    }

    // ----------------------------------------------------------------------------------------
    // Pod syncs (R3, R11, R13–R17, R30).

    fn request_sync<S: Sink>(&mut self, trigger: SyncTrigger, out: &mut Out<'_, S>) {
        if self.terminal {
            return;
        }
        if self.job.active || self.gate_after.is_some() {
            if self.pending.is_none() {
                self.pending = Some(trigger);
            }
            return;
        }
        self.run_sync(trigger, out);
    }

    fn run_sync<S: Sink>(&mut self, trigger: SyncTrigger, out: &mut Out<'_, S>) {
        self.globals_dirty = true;
        let now = self.now;
        if self.deleting.is_some() {
            self.run_termination_sync(out);
            return;
        }
        out.emit(now, EventKind::Sync { trigger });
        // The status is generated from the PLEG's cached snapshot before anything else (R11).
        self.generate_status(out);
        if self.status.phase.is_terminal() {
            self.terminal = true;
            self.requeue = None;
            self.pending = None;
            return;
        }
        self.add_pod();
        self.compute_pod_actions();
        self.job.active = true;
        self.job.changed = false;
        self.job.backoff_expiry = None;
        self.job.stage = Some(Stage::Kill(0));
        if !self.sandbox_ready {
            self.sandbox_ready = true;
        }
        self.advance_job(out);
    }

    /// A sync of a pod with a deletion timestamp: `SyncTerminatingPod` while containers run
    /// (P12, R22–R25), then `SyncTerminatedPod` once they are all gone.
    fn run_termination_sync<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        let now = self.now;
        let running = self
            .snapshot
            .iter()
            .any(|s| s.newest.is_some_and(|i| i.exited.is_none()));
        if !running {
            out.emit(
                now,
                EventKind::Sync {
                    trigger: SyncTrigger::Terminated,
                },
            );
            self.generate_status(out);
            for w in 0..self.workers.len() {
                self.stop_worker(w);
            }
            self.terminal = true;
            self.requeue = None;
            self.pending = None;
            self.status.removed = true;
            out.emit(now, EventKind::Deleted);
            return;
        }
        out.emit(
            now,
            EventKind::Sync {
                trigger: SyncTrigger::Terminating,
            },
        );
        self.generate_status(out);
        if self.profile.stop_liveness_on_termination {
            // P12: StopLivenessAndStartup, for regular containers; readiness keeps running.
            for w in 0..self.workers.len() {
                let worker = self.workers[w];
                if !self.pod.is_init(worker.container) && worker.kind != ProbeKind::Readiness {
                    self.stop_worker(w);
                }
            }
        }
        self.job.snapshot.clear();
        self.job.snapshot.extend_from_slice(&self.snapshot);
        self.kill_all(KillReason::Deletion);
        self.job.active = true;
        self.job.changed = false;
        self.job.backoff_expiry = None;
        self.job.stage = Some(Stage::Kill(0));
        self.advance_job(out);
    }

    /// P13: a non-blocking stop; an idle worker exits at once, a busy one after its probe.
    fn stop_worker(&mut self, w: usize) {
        if !self.workers[w].alive {
            return;
        }
        self.mark(w);
        self.workers[w].stop_requested = true;
        if self.workers[w].in_flight.is_none() {
            self.workers[w].wake_at = Some(self.now);
            self.workers[w].running = true;
        }
    }

    /// The API deletion of the pod (`deleteAt`).
    fn delete<S: Sink>(&mut self, grace: Option<SimDuration>, out: &mut Out<'_, S>) {
        if self.terminal || self.deleting.is_some() {
            return;
        }
        let pod_grace = u64::try_from(self.pod.termination_grace_period_seconds).unwrap_or(0);
        let grace = grace.unwrap_or(SimDuration::from_secs(pod_grace));
        self.deleting = Some(grace);
        self.status.deletion_timestamp = Some(self.now);
        out.emit(self.now, EventKind::Delete { grace });
        self.request_sync(SyncTrigger::Terminating, out);
    }

    /// The kubelet process restarts: everything it kept in memory is gone (P5, R27).
    fn kubelet_restart<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        if self.terminal || !self.created {
            return;
        }
        let now = self.now;
        out.emit(now, EventKind::KubeletRestart);
        for w in 0..self.workers.len() {
            self.exit_worker(w);
        }
        self.job.active = false;
        self.job.stage = None;
        self.job.pull_end = None;
        self.pending = None;
        self.gate_after = None;
        self.sync_due = None;
        self.requeue = None;
        self.reason_cache.fill(None);
        self.backoff.fill(None);
        self.kubelet_started = Some(now);
        // The new kubelet's first relist sees the runtime as it is now.
        for c in 0..self.runtime.len() {
            self.snapshot[c] = self.runtime[c].instances;
        }
        self.request_sync(SyncTrigger::KubeletRestart, out);
    }

    /// R13–R18, R60, R61: what this sync kills and starts, from the snapshot it started with.
    /// Starts are listed init containers first, in spec order, then regular containers.
    fn compute_pod_actions(&mut self) {
        let ni = self.pod.init_containers.len();
        let n = self.pod.container_count();
        self.job.snapshot.clear();
        self.job.snapshot.extend_from_slice(&self.snapshot);
        self.job.kills.clear();
        self.job.starts.clear();
        self.job.pod_kill = false;
        self.job.parallel = 0;
        if !self.sandbox_ready {
            // The first sync creates the sandbox: the first init container, or every regular
            // container, starts.
            if ni > 0 {
                self.job.starts.push(0);
            } else {
                self.job.starts.extend(ni..n);
            }
            return;
        }
        if ni > 0 {
            let initialized = self.compute_init_actions();
            if self.job.pod_kill {
                self.kill_pod();
                return;
            }
            if !initialized {
                return;
            }
        }
        let restart = self.pod.restart_policy != RestartPolicy::Never;
        let mut keep = 0usize;
        let mut regular_starts = 0usize;
        for c in ni..n {
            match self.job.snapshot[c].newest {
                Some(inst) if inst.exited.is_none() => {
                    let verdict = if self.cached(c, ProbeKind::Liveness, inst.id)
                        == Some(ProbeResult::Failure)
                    {
                        Some((KillReason::LivenessProbe, KillMessage::Liveness { restart }))
                    } else if self.cached(c, ProbeKind::Startup, inst.id)
                        == Some(ProbeResult::Failure)
                    {
                        Some((KillReason::StartupProbe, KillMessage::Startup { restart }))
                    } else {
                        None
                    };
                    match verdict {
                        Some((reason, message)) => {
                            self.job.kills.push(Kill {
                                container: c,
                                reason,
                                message,
                            });
                            if restart {
                                self.job.starts.push(c);
                                regular_starts += 1;
                            }
                        }
                        None => keep += 1,
                    }
                }
                Some(Instance { exited, .. }) => {
                    let code = exited.map_or(0, |(_, code)| code);
                    if self.restarts(c, code) {
                        self.job.starts.push(c);
                        regular_starts += 1;
                    }
                }
                None => {
                    self.job.starts.push(c);
                    regular_starts += 1;
                }
            }
        }
        if keep == 0 && regular_starts == 0 {
            // R15, R61: nothing to keep and nothing to start: the whole pod is killed, with an
            // empty message; sidecars cannot keep it alive.
            self.kill_pod();
        }
    }

    /// `computeInitContainerActions` (R18, R59–R61): returns whether the pod is initialized.
    fn compute_init_actions(&mut self) -> bool {
        let ni = self.pod.init_containers.len();
        let n = self.pod.container_count();
        let mut initialized = (ni..n).any(|c| {
            self.job.snapshot[c]
                .newest
                .is_some_and(|i| i.exited.is_none())
        });
        let mut previously_initialized = initialized;
        let restart_on_failure = self.pod.restart_policy != RestartPolicy::Never;
        let mut starts: Vec<usize> = Vec::new();
        for i in (0..ni).rev() {
            let restartable = self.pod.init_containers[i].restartable;
            let Some(inst) = self.job.snapshot[i].newest else {
                if previously_initialized && restartable {
                    starts.push(i);
                }
                continue;
            };
            if previously_initialized && !restartable {
                continue;
            }
            match inst.exited {
                None if restartable => 'running: {
                    let spec = &self.pod.init_containers[i];
                    if spec.probe(ProbeKind::Startup).is_some() {
                        match self.cached(i, ProbeKind::Startup, inst.id) {
                            Some(ProbeResult::Success) => {}
                            Some(ProbeResult::Failure) => {
                                self.job.kills.push(Kill {
                                    container: i,
                                    reason: KillReason::StartupProbe,
                                    message: KillMessage::InitStartup,
                                });
                                starts.push(i);
                                break 'running;
                            }
                            Some(ProbeResult::Unknown) | None => break 'running,
                        }
                    }
                    if i + 1 == ni {
                        initialized = true;
                    } else if !previously_initialized {
                        starts.push(i + 1);
                    }
                    if self.pod.init_containers[i]
                        .probe(ProbeKind::Liveness)
                        .is_some()
                        && self.cached(i, ProbeKind::Liveness, inst.id)
                            == Some(ProbeResult::Failure)
                    {
                        self.job.kills.push(Kill {
                            container: i,
                            reason: KillReason::LivenessProbe,
                            message: KillMessage::InitLiveness,
                        });
                        starts.push(i);
                    }
                }
                // A regular init container that is running: wait for it.
                None => {}
                Some(_) if restartable => starts.push(i),
                Some((_, code)) if code != 0 => {
                    if !restart_on_failure {
                        self.job.pod_kill = true;
                        return false;
                    }
                    starts.push(i);
                }
                Some(_) => {
                    if i + 1 == ni {
                        initialized = true;
                    } else {
                        starts.push(i + 1);
                    }
                }
            }
            previously_initialized = true;
        }
        if !previously_initialized {
            starts.push(0);
        }
        starts.reverse();
        self.job.starts.extend(starts);
        initialized
    }

    /// R15, R61: kill every running container: regular ones together, then sidecars one by
    /// one in reverse order. Nothing is started.
    fn kill_pod(&mut self) {
        self.kill_all(KillReason::Unknown);
    }

    /// Kills every running container: regular ones together, then sidecars last first (R61).
    fn kill_all(&mut self, reason: KillReason) {
        let ni = self.pod.init_containers.len();
        let n = self.pod.container_count();
        self.job.kills.clear();
        self.job.starts.clear();
        self.job.pod_kill = true;
        // R24, R61: sidecars wait for the regular containers; the wait counts from now.
        self.job.kill_began = self.now;
        let running = |c: &usize| {
            self.job.snapshot[*c]
                .newest
                .is_some_and(|i| i.exited.is_none())
        };
        let regular: Vec<usize> = (ni..n).filter(running).collect();
        let sidecars: Vec<usize> = (0..ni).rev().filter(running).collect();
        self.job.parallel = regular.len();
        for c in regular.into_iter().chain(sidecars) {
            self.job.kills.push(Kill {
                container: c,
                reason,
                message: KillMessage::Stopping,
            });
        }
    }

    /// [`Simulation::cached`] for an optional instance.
    fn cached_opt(&self, c: usize, kind: ProbeKind, id: Option<u32>) -> Option<ProbeResult> {
        id.and_then(|id| self.cached(c, kind, id))
    }

    /// The cached result of container `c`'s probe `kind` for instance `id`, if any.
    fn cached(&self, c: usize, kind: ProbeKind, id: u32) -> Option<ProbeResult> {
        let w = self.worker_of(c, kind)?;
        self.cache[w].filter(|(cid, _)| *cid == id).map(|(_, r)| r)
    }

    /// R17, R60: whether an exited container is restarted.
    fn restarts(&self, c: usize, exit_code: i32) -> bool {
        (self.pod.is_init(c) && self.pod.container(c).restartable)
            || should_restart(self.pod.restart_policy, exit_code)
    }

    /// Runs the current sync until it blocks or ends.
    fn advance_job<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        self.globals_dirty = true;
        loop {
            let Some(stage) = self.job.stage else {
                self.finish_sync();
                return;
            };
            match stage {
                Stage::Kill(0) if self.job.pod_kill && self.job.parallel > 0 => {
                    // R15: the regular containers are stopped together; sidecars follow one by
                    // one, last first, once they are all gone (R61).
                    let mut waiting = false;
                    for i in 0..self.job.parallel {
                        let kill = self.job.kills[i];
                        waiting |= self.kill(kill, out);
                    }
                    if waiting {
                        self.job.stage = Some(Stage::WaitPodKill);
                        return;
                    }
                    self.job.stage = Some(Stage::Kill(self.job.parallel));
                }
                Stage::Kill(i) if i < self.job.kills.len() => {
                    let kill = self.job.kills[i];
                    if self.kill(kill, out) {
                        self.job.stage = Some(Stage::WaitKill(i));
                        return;
                    }
                    self.job.stage = Some(Stage::Kill(i + 1));
                }
                Stage::Kill(_) => self.job.stage = Some(Stage::Start(0)),
                Stage::WaitKill(_) | Stage::WaitPodKill | Stage::Pull(_) => return,
                Stage::Start(i) if i < self.job.starts.len() => {
                    let c = self.job.starts[i];
                    if self.start(c, i, out) {
                        return;
                    }
                    self.job.stage = Some(Stage::Start(i + 1));
                }
                Stage::Start(_) => self.job.stage = None,
            }
        }
    }

    /// Begins one kill (R22–R25): returns whether the sync must wait for the process.
    fn kill<S: Sink>(&mut self, kill: Kill, out: &mut Out<'_, S>) -> bool {
        let now = self.now;
        let c = kill.container;
        let spec = self.pod.container(c);
        // R22: the deletion's grace period, else the probe's own, else the pod's.
        let probe_grace = match kill.reason {
            KillReason::LivenessProbe => spec.probe(ProbeKind::Liveness),
            KillReason::StartupProbe => spec.probe(ProbeKind::Startup),
            KillReason::Unknown | KillReason::Deletion => None,
        }
        .and_then(|p| p.termination_grace_period_seconds())
        .filter(|_| self.profile.probe_grace_period());
        let seconds = probe_grace.unwrap_or(self.pod.termination_grace_period_seconds);
        let mut grace = match self.deleting {
            Some(g) => g,
            None => SimDuration::from_secs(u64::try_from(seconds).unwrap_or(0)),
        };
        if self.job.pod_kill && self.pod.is_init(c) {
            // R24, R61: a sidecar waited for its turn; that time comes off its grace period.
            grace = grace.saturating_sub(now.saturating_since(self.job.kill_began));
        }
        // R24: a preStop hook runs first, for at most the grace period, and its whole seconds
        // come off what is left for the signal, which keeps at least 2 s.
        let hook = spec
            .app
            .pre_stop
            .filter(|_| !grace.is_zero())
            .map_or(SimDuration::ZERO, |d| d.min(grace));
        let remaining = grace
            .saturating_sub(SimDuration::from_secs(hook.whole_secs()))
            .max(MIN_GRACE);
        let grace = grace.max(MIN_GRACE);
        out.emit(
            now,
            EventKind::Kill {
                container: &spec.name,
                reason: kill.reason,
                grace,
            },
        );
        self.kube_event(
            out,
            c,
            EventType::Normal,
            "Killing",
            Message::Killing {
                container: &spec.name,
                kind: kill.message,
            },
        );
        self.job.changed = true;
        self.signal(c, hook, remaining)
    }

    /// One start (R16, R30, R57): returns whether the sync must wait for a pull.
    fn start<S: Sink>(&mut self, c: usize, i: usize, out: &mut Out<'_, S>) -> bool {
        let now = self.now;
        if let Some(backoff) = self.do_backoff(c) {
            let spec = self.pod.container(c);
            self.reason_cache[c] = Some(backoff.0);
            out.emit(
                now,
                EventKind::BackOff {
                    container: &spec.name,
                    backoff: backoff.0,
                },
            );
            self.kube_event(
                out,
                c,
                EventType::Warning,
                "BackOff",
                Message::BackOff {
                    container: &spec.name,
                    pod: self.pod_name(),
                    wording: self.profile.backoff_wording,
                },
            );
            let expiry = backoff.1;
            self.job.backoff_expiry =
                Some(self.job.backoff_expiry.map_or(expiry, |e| e.min(expiry)));
            return false;
        }
        let spec = self.pod.container(c);
        let pull = match spec.pull_policy {
            PullPolicy::Always => true,
            PullPolicy::IfNotPresent => !self.runtime[c].image_present,
            PullPolicy::Never => false,
        };
        if !spec.app.pull.is_zero() {
            if pull {
                self.kube_event(
                    out,
                    c,
                    EventType::Normal,
                    "Pulling",
                    Message::Pulling { image: &spec.image },
                );
                self.job.pull_end = Some(now.saturating_add(spec.app.pull));
                self.job.stage = Some(Stage::Pull(i));
                self.job.changed = true;
                return true;
            }
            self.kube_event(
                out,
                c,
                EventType::Normal,
                "Pulled",
                Message::AlreadyPresent { image: &spec.image },
            );
        }
        self.runtime[c].image_present = true;
        self.create_and_start(c, out);
        false
    }

    /// `Created`, `Started`, and a new instance in the runtime (R16, R36, R57).
    fn create_and_start<S: Sink>(&mut self, c: usize, out: &mut Out<'_, S>) {
        self.globals_dirty = true;
        let now = self.now;
        let spec = self.pod.container(c);
        let wording = self.profile.lifecycle_wording;
        let container = &spec.name;
        self.kube_event(
            out,
            c,
            EventType::Normal,
            "Created",
            Message::Created { container, wording },
        );
        self.kube_event(
            out,
            c,
            EventType::Normal,
            "Started",
            Message::Started { container, wording },
        );
        // R16, R36: the restart count comes from the stale snapshot the sync began with.
        let restart_count = self.job.snapshot[c]
            .newest
            .map_or(0, |i| i.restart_count + 1);
        let rt = &mut self.runtime[c];
        let inst = Instance {
            id: rt.next_id,
            restart_count,
            started_at: now,
            exited: None,
        };
        rt.next_id += 1;
        if let Some(newest) = rt.instances.newest {
            rt.instances.previous = Some(newest);
        }
        rt.instances.newest = Some(inst);
        rt.exit_at = spec.app.exit.map(|e| (now.saturating_add(e.after), e.code));
        self.reason_cache[c] = None;
        self.job.changed = true;
        out.emit(
            now,
            EventKind::Start {
                container: &spec.name,
                restart_count,
            },
        );
        self.schedule_relist(now);
    }

    /// R30 `doBackOff` on the sync's snapshot: `Some((backoff, expiry))` when in back-off.
    fn do_backoff(&mut self, c: usize) -> Option<(SimDuration, SimTime)> {
        let now = self.now;
        let dead = self.job.snapshot[c].first_exited()?;
        let (ts, _) = dead.exited?;
        let (initial, max) = self
            .profile
            .crash_loop_backoff(self.kubelet.max_container_restart_period);
        // GC (R27) drops entries not updated for 10 minutes.
        if self.backoff[c].is_some_and(|e| now.saturating_since(e.last_update) > BACKOFF_EXPIRY) {
            self.backoff[c] = None;
        }
        let expired = |e: &BackOffEntry| ts.saturating_since(e.last_update) > BACKOFF_EXPIRY;
        if let Some(e) = self.backoff[c] {
            if !expired(&e) && now.saturating_since(ts) < e.backoff {
                return Some((e.backoff, ts.saturating_add(e.backoff)));
            }
        }
        let backoff = match self.backoff[c] {
            Some(e) if !expired(&e) => e.backoff.saturating_mul(2).min(max),
            _ => initial,
        };
        self.backoff[c] = Some(BackOffEntry {
            backoff,
            last_update: now,
        });
        None
    }

    fn finish_sync(&mut self) {
        self.globals_dirty = true;
        let now = self.now;
        self.job.active = false;
        self.last_sync_end = Some(now);
        // R6–R8: requeue.
        let (delay, trigger) = match self.job.backoff_expiry {
            Some(expiry) => match self.profile.backoff_requeue {
                BackOffRequeue::Fixed => (self.kubelet.backoff_requeue, SyncTrigger::BackOff),
                BackOffRequeue::AtExpiry => (
                    expiry.saturating_since(now).min(self.kubelet.resync),
                    SyncTrigger::BackOff,
                ),
            },
            None => (self.kubelet.resync, SyncTrigger::Resync),
        };
        let delay = self.jittered(delay);
        self.requeue = Some((now.saturating_add(delay), trigger));
        if self.deleting.is_some() {
            // RemovePod: every worker stops once the containers are gone.
            for w in 0..self.workers.len() {
                self.stop_worker(w);
            }
            if !self.job.changed {
                self.pending = Some(SyncTrigger::Terminated);
            }
        }
        if self.job.changed {
            // R4: the next sync waits for a relist strictly after this one ended.
            self.gate_after = Some(now);
            self.schedule_relist(now);
        } else if let Some(trigger) = self.pending.take() {
            self.sync_due = Some((now, trigger));
        }
    }

    fn jittered(&mut self, d: SimDuration) -> SimDuration {
        if !self.kubelet.jitter || d.is_zero() {
            return d;
        }
        // wait.Jitter(d, 0.5): d + U[0, 0.5·d).
        let extra = uniform_below(&mut self.rng, d.as_millis() / 2);
        d.saturating_add(SimDuration::from_millis(extra))
    }

    fn pod_name(&self) -> PodName<'_> {
        PodName {
            name: &self.pod.name,
            namespace: &self.pod.namespace,
            uid: &self.pod.uid,
        }
    }

    // ----------------------------------------------------------------------------------------
    // Status generation (R11, R34, R36–R45, P45).

    fn generate_status<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        let now = self.now;
        let inherit_started = self.profile.inherits_started();
        let first = !self.status_written;
        self.status_written = true;
        let has_init = !self.pod.init_containers.is_empty();
        for c in 0..self.pod.container_count() {
            let snap = self.snapshot[c];
            let prev = *self.status.container(c);
            let mut st = ContainerStatus::default();
            let mut view = ViewEntry::default();
            let regular_init = self.pod.is_init(c) && !self.pod.container(c).restartable;
            match snap.newest {
                None => {
                    // R38: nothing in the runtime yet.
                    if has_init {
                        st.state = ContainerState::Waiting(Some(WaitingReason::PodInitializing));
                    }
                    st.restart_count = prev.restart_count;
                    st.last_state = prev.last_state;
                }
                Some(inst) => {
                    st.restart_count = inst.restart_count;
                    st.last_state = snap.previous.and_then(|p| p.terminated());
                    view.id = Some(inst.id);
                    view.started_at = inst.started_at.floor_secs();
                    match inst.terminated() {
                        None => {
                            st.state = ContainerState::Running {
                                started_at: view.started_at,
                            };
                            view.running = true;
                        }
                        Some(term) => {
                            let backoff =
                                self.reason_cache[c].filter(|_| self.restarts(c, term.exit_code));
                            if let Some(backoff) = backoff {
                                st.state = ContainerState::Waiting(Some(
                                    WaitingReason::CrashLoopBackOff { backoff },
                                ));
                                st.last_state = Some(term);
                            } else {
                                st.state = ContainerState::Terminated(term);
                                view.terminated = Some(term.exit_code);
                            }
                        }
                    }
                }
            }
            // P45.1: started.
            if view.running {
                let id = view.id;
                let startup = self.worker_of(c, ProbeKind::Startup);
                let entry = startup
                    .and_then(|w| self.cache[w])
                    .filter(|(cid, _)| Some(*cid) == id);
                st.started = match entry {
                    Some((_, r)) => r == ProbeResult::Success,
                    None if inherit_started && prev.started => true,
                    None => !startup.is_some_and(|w| self.workers[w].alive),
                };
            }
            view.started = st.started;
            if regular_init {
                // P46: a regular init container is ready once it exited with 0; before 1.28
                // its `started` is never set.
                st.ready = view.terminated == Some(0);
                if !self.profile.init_container_started {
                    st.started = false;
                    view.started = false;
                }
            } else if st.started {
                // P45.3, P46: ready, only once started.
                let readiness = self.worker_of(c, ProbeKind::Readiness);
                let entry = readiness
                    .and_then(|w| self.cache[w])
                    .filter(|(cid, _)| Some(*cid) == view.id)
                    .map(|(_, r)| r);
                let worker_alive = readiness.filter(|w| self.workers[*w].alive);
                st.ready = match (entry, self.profile.readiness_trigger) {
                    (Some(ProbeResult::Success), _) => true,
                    (Some(_), ReadinessTrigger::Never | ReadinessTrigger::NoEntry) => false,
                    _ => match worker_alive {
                        Some(w) => {
                            if self.profile.readiness_trigger != ReadinessTrigger::Never {
                                self.trigger(w);
                            }
                            false
                        }
                        None => true,
                    },
                };
            }
            if st.started && !st.ready && self.predates_kubelet_restart(&view) {
                // P45 (setReadyStateOnKubeletRestart): keep a ready container ready when the
                // readiness cache is still empty, unless the pod was not Ready before.
                let entry = self.cached_opt(c, ProbeKind::Readiness, view.id);
                let has_probe = self.pod.container(c).probe(ProbeKind::Readiness).is_some();
                if entry.is_none() && (!has_probe || self.status.conditions.ready) {
                    st.ready = true;
                }
            }
            self.view[c] = view;
            self.write_container_status(c, st, out);
        }
        // R43: phase; R42: conditions.
        let phase = if self.status.phase.is_terminal() {
            self.status.phase
        } else {
            let ni = self.pod.init_containers.len();
            let initialized =
                (ni..self.pod.container_count()).any(|c| self.snapshot[c].newest.is_some());
            // A deleted pod whose containers are all gone is terminal (podIsTerminal, ≥1.27).
            let terminal = self.deleting.is_some()
                && !self
                    .snapshot
                    .iter()
                    .any(|s| s.newest.is_some_and(|i| i.exited.is_none()));
            compute_phase(&self.pod, &self.status, initialized, terminal)
        };
        let ready_to_start = self
            .profile
            .ready_to_start_condition
            .then_some(!first && self.sandbox_ready);
        self.status.conditions.ready_to_start_containers = ready_to_start;
        if phase != self.status.phase {
            self.status.phase = phase;
            out.emit(now, EventKind::Phase { phase });
        }
        self.update_ready_conditions(out);
    }

    fn write_container_status<S: Sink>(
        &mut self,
        c: usize,
        st: ContainerStatus,
        out: &mut Out<'_, S>,
    ) {
        let now = self.now;
        let prev = *self.status.container(c);
        *self.status.container_mut(c) = st;
        let name = &self.pod.container(c).name;
        if prev.state != st.state
            || prev.restart_count != st.restart_count
            || prev.last_state != st.last_state
        {
            out.emit(
                now,
                EventKind::Status {
                    container: name,
                    status: self.status.container(c),
                },
            );
        }
        if prev.started != st.started {
            out.emit(
                now,
                EventKind::Started {
                    container: name,
                    started: st.started,
                },
            );
        }
        if prev.ready != st.ready {
            out.emit(
                now,
                EventKind::Ready {
                    container: name,
                    ready: st.ready,
                },
            );
        }
    }

    /// R42: `Initialized`, `ContainersReady` and `Ready`.
    fn update_ready_conditions<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        let sidecars_count = self.profile.gate(Gate::SidecarContainers);
        let status = &self.status;
        let init_done = self
            .pod
            .init_containers
            .iter()
            .zip(&status.init_containers)
            .all(
                |(spec, s)| {
                    if spec.restartable {
                        s.started
                    } else {
                        s.ready
                    }
                },
            );
        let sidecars_ready = !sidecars_count
            || self
                .pod
                .init_containers
                .iter()
                .zip(&status.init_containers)
                .all(|(spec, s)| !spec.restartable || s.ready);
        let all_ready = !status.containers.is_empty() && status.containers.iter().all(|s| s.ready);
        let ready = all_ready && sidecars_ready && status.phase != Phase::Succeeded;
        self.status.conditions.initialized = init_done;
        self.status.conditions.containers_ready = ready;
        if self.status.conditions.ready != ready {
            self.status.conditions.ready = ready;
            out.emit(self.now, EventKind::PodReady { ready });
        }
    }

    fn worker_of(&self, c: usize, kind: ProbeKind) -> Option<usize> {
        self.workers
            .iter()
            .position(|w| w.container == c && w.kind == kind)
    }

    /// Emits a Kubernetes Event about container `c` (R56).
    fn kube_event<S: Sink>(
        &self,
        out: &mut Out<'_, S>,
        c: usize,
        event_type: EventType,
        reason: &'static str,
        message: Message<'_>,
    ) {
        let event = KubeEvent {
            event_type,
            reason,
            object: self.pod.object_ref(c),
            message,
            recorded: None,
        };
        out.emit(self.now, EventKind::Event(event));
    }

    /// P25, P45 (1.35+ with `ChangeContainerStatusOnKubeletRestart` off): the container was
    /// running more than 10 s before the kubelet (re)started.
    fn predates_kubelet_restart(&self, view: &ViewEntry) -> bool {
        self.profile.inherits_started()
            && view.running
            && self
                .kubelet_started
                .is_some_and(|k| view.started_at.saturating_add(SimDuration::from_secs(10)) < k)
    }

    /// Notes that worker `w`'s timers may have changed.
    fn mark(&mut self, w: usize) {
        if !self.is_dirty[w] {
            self.is_dirty[w] = true;
            self.dirty.push(w);
        }
    }

    /// P18: a non-blocking send on the worker's manual-trigger channel.
    fn trigger(&mut self, w: usize) {
        self.mark(w);
        let now = self.now;
        let worker = &mut self.workers[w];
        if !worker.alive || worker.pending_trigger {
            return;
        }
        worker.pending_trigger = true;
        if worker.in_flight.is_none() && worker.running {
            worker.wake_at = Some(now);
        }
    }

    /// P6, P7: AddPod creates missing workers.
    fn add_pod(&mut self) {
        let now = self.now;
        for w in 0..self.workers.len() {
            if self.workers[w].alive {
                if self.profile.add_pod_skips_existing {
                    continue;
                }
                return;
            }
            let period = self.workers[w].period;
            // P14: the start-up sleep.
            let kubelet_age = match self.kubelet_started {
                Some(k) => now.saturating_since(k),
                None => self
                    .kubelet
                    .started_ago
                    .saturating_add(now.saturating_since(SimTime::ZERO)),
            };
            let sleep = if self.profile.jitter_always || period > kubelet_age {
                SimDuration::from_millis(uniform_below(&mut self.rng, period.as_millis()))
            } else {
                SimDuration::ZERO
            };
            self.mark(w);
            let worker = &mut self.workers[w];
            // P9: a new worker starts from scratch.
            *worker = Worker {
                alive: true,
                wake_at: Some(now.saturating_add(sleep)),
                created_at: now,
                ..Worker::idle(worker.container, worker.kind, worker.period)
            };
            self.cache[w] = None;
        }
    }

    // ----------------------------------------------------------------------------------------
    // Probe workers (P14–P36).

    fn worker_due<S: Sink>(&mut self, w: usize, out: &mut Out<'_, S>) {
        self.mark(w);
        let now = self.now;
        let worker = self.workers[w];
        let key = self.worker_keys[w];
        if key == Key::new(now, Class::Completion) {
            self.complete_attempt(w, out);
            return;
        }
        if key == Key::new(now, Class::Tick) {
            // P17: one tick is kept while busy, the rest dropped; the grid never shifts.
            let next = worker.next_tick.saturating_add(worker.period);
            self.workers[w].next_tick = next;
            self.workers[w].pending_tick = true;
            if worker.in_flight.is_none() {
                self.worker_wait(w, out);
            }
            return;
        }
        // A wake-up: the first doProbe after the start-up sleep, or a pending trigger.
        self.workers[w].wake_at = None;
        if !worker.running {
            self.workers[w].running = true;
            self.workers[w].next_tick = now.saturating_add(worker.period);
            let step = self.do_probe(w, out);
            self.after_probe(w, step, out);
        } else if worker.in_flight.is_none() {
            self.worker_wait(w, out);
        }
    }

    /// The worker's wait between probes (P16): stop, then a manual trigger, then a tick.
    fn worker_wait<S: Sink>(&mut self, w: usize, out: &mut Out<'_, S>) {
        self.mark(w);
        let now = self.now;
        loop {
            let worker = &mut self.workers[w];
            if !worker.alive || worker.in_flight.is_some() {
                return;
            }
            if worker.stop_requested {
                self.exit_worker(w);
                return;
            }
            if worker.pending_trigger {
                worker.pending_trigger = false;
                if self.profile.trigger_resets_grid {
                    // P19: the ticker restarts at the trigger; a pending tick is discarded.
                    worker.next_tick = now.saturating_add(worker.period);
                    worker.pending_tick = false;
                }
            } else if worker.pending_tick {
                worker.pending_tick = false;
            } else {
                return;
            }
            worker.wake_at = None;
            let step = self.do_probe(w, out);
            match step {
                Step::Continue => {}
                Step::Stop => {
                    self.exit_worker(w);
                    return;
                }
                Step::InFlight => return,
            }
        }
    }

    fn after_probe<S: Sink>(&mut self, w: usize, step: Step, out: &mut Out<'_, S>) {
        match step {
            Step::Continue => self.worker_wait(w, out),
            Step::Stop => self.exit_worker(w),
            Step::InFlight => {}
        }
    }

    /// P20: the worker's exit clean-up.
    fn exit_worker(&mut self, w: usize) {
        self.mark(w);
        let worker = &mut self.workers[w];
        worker.alive = false;
        worker.running = false;
        worker.wake_at = None;
        worker.in_flight = None;
        worker.pending_tick = false;
        worker.pending_trigger = false;
        self.cache[w] = None;
    }

    /// `resultsManager.Set` (P42): stores, and emits an update only on change.
    fn set_result<S: Sink>(
        &mut self,
        w: usize,
        id: u32,
        result: ProbeResult,
        out: &mut Out<'_, S>,
    ) {
        if self.cache[w] == Some((id, result)) {
            return;
        }
        self.cache[w] = Some((id, result));
        let worker = self.workers[w];
        out.emit(
            self.now,
            EventKind::Result {
                container: &self.pod.container(worker.container).name,
                probe: worker.kind,
                result,
            },
        );
        // R4: an update from a worker that the sync which just ended created (AddPod re-creates
        // workers that stop at once, e.g. for a container that exited for good) waits for the
        // next relist like every sync after the first; elsewhere updates sync at once (§2.3.3).
        let churn = worker.created_at == self.now && self.last_sync_end == Some(self.now);
        self.handle_update(worker.container, worker.kind, id, result, churn, out);
    }

    /// The kubelet's handling of a result update (P44, R1, R2), at once (contract §2.3.3).
    fn handle_update<S: Sink>(
        &mut self,
        c: usize,
        kind: ProbeKind,
        id: u32,
        result: ProbeResult,
        gated: bool,
        out: &mut Out<'_, S>,
    ) {
        let now = self.now;
        let sync = match kind {
            ProbeKind::Liveness => result == ProbeResult::Failure,
            ProbeKind::Readiness => {
                if self.view[c].id == Some(id)
                    && self.status.container(c).ready != (result == ProbeResult::Success)
                {
                    let ready = result == ProbeResult::Success;
                    self.status.container_mut(c).ready = ready;
                    out.emit(
                        now,
                        EventKind::Ready {
                            container: &self.pod.container(c).name,
                            ready,
                        },
                    );
                    self.update_ready_conditions(out);
                }
                self.profile.readiness_startup_sync
            }
            ProbeKind::Startup => {
                let started = result == ProbeResult::Success;
                if self.view[c].id == Some(id) && self.status.container(c).started != started {
                    self.status.container_mut(c).started = started;
                    self.view[c].started = started;
                    out.emit(
                        now,
                        EventKind::Started {
                            container: &self.pod.container(c).name,
                            started,
                        },
                    );
                }
                self.profile.readiness_startup_sync
            }
        };
        if sync {
            if gated && !self.job.active && self.gate_after.is_none() {
                self.globals_dirty = true;
                self.gate_after = Some(now);
                self.schedule_relist(now);
                self.pending.get_or_insert(SyncTrigger::Probe);
            } else if self.kubelet.probe_sync_delay.is_zero() {
                self.request_sync(SyncTrigger::Probe, out);
            } else {
                let at = now.saturating_add(self.kubelet.probe_sync_delay);
                self.globals_dirty = true;
                self.sync_due = Some(match self.sync_due {
                    Some((t, tr)) if t <= at => (t, tr),
                    _ => (at, SyncTrigger::Probe),
                });
            }
        }
    }

    /// doProbe up to the point where the probe runs (P22–P31).
    fn do_probe<S: Sink>(&mut self, w: usize, out: &mut Out<'_, S>) -> Step {
        let now = self.now;
        let worker = self.workers[w];
        let c = worker.container;
        // P22, P23.
        if !self.status_written {
            return Step::Continue;
        }
        if self.status.phase.is_terminal() {
            return Step::Stop;
        }
        // P24.
        let view = self.view[c];
        let Some(id) = view.id else {
            return Step::Continue;
        };
        // P25: a new container: initial value; counters are not reset.
        if worker.container_id != Some(id) {
            self.cache[w] = None;
            self.workers[w].container_id = Some(id);
            self.workers[w].on_hold = false;
            // 1.35+, ChangeContainerStatusOnKubeletRestart off: a container that predates the
            // kubelet's restart by more than 10 s gets no initial value.
            if !self.predates_kubelet_restart(&view) {
                self.set_result(w, id, worker.initial_value(), out);
            }
        }
        // P26.
        if self.workers[w].on_hold {
            return Step::Continue;
        }
        // P27.
        if !view.running {
            self.set_result(w, id, ProbeResult::Failure, out);
            if let Some(code) = view.terminated {
                let sidecar = self.pod.is_init(c) && self.pod.container(c).restartable;
                let keep = if self.profile.gate(Gate::ContainerRestartRules) {
                    self.restarts(c, code)
                } else {
                    (sidecar && self.profile.sidecar_workers_survive_exit)
                        || self.pod.restart_policy != RestartPolicy::Never
                };
                if !keep {
                    return Step::Stop;
                }
            }
            return Step::Continue;
        }
        // P29: whole seconds since the normalised start, truncated.
        let Some(probe) = self.pod.container(c).probe(worker.kind) else {
            return Step::Stop;
        };
        let elapsed = now.saturating_since(view.started_at).whole_secs();
        let elapsed = i64::try_from(elapsed).unwrap_or(i64::MAX);
        if elapsed < i64::from(probe.initial_delay_seconds()) {
            return Step::Continue;
        }
        // P30.
        let started = view.started;
        match worker.kind {
            ProbeKind::Startup if started => return Step::Continue,
            ProbeKind::Liveness | ProbeKind::Readiness if !started => return Step::Continue,
            _ => {}
        }
        // P31: run it.
        self.begin_attempt(w, now, 1, out)
    }

    /// Starts attempt `attempt` of a probe that began at `began`.
    fn begin_attempt<S: Sink>(
        &mut self,
        w: usize,
        began: SimTime,
        attempt: u8,
        out: &mut Out<'_, S>,
    ) -> Step {
        let now = self.now;
        let (outcome, output, duration) = self.run_attempt(w);
        if duration.is_zero() {
            return self.attempt_done(w, began, attempt, outcome, output, out);
        }
        // Only an attempt that reached a process takes time (§2.3.6).
        let instance = self.runtime[self.workers[w].container]
            .instances
            .newest
            .map_or(0, |i| i.id);
        self.mark(w);
        self.workers[w].in_flight = Some(InFlight {
            began,
            attempt,
            instance,
            ends: now.saturating_add(duration),
            outcome,
            output,
        });
        Step::InFlight
    }

    fn complete_attempt<S: Sink>(&mut self, w: usize, out: &mut Out<'_, S>) {
        self.mark(w);
        let Some(f) = self.workers[w].in_flight.take() else {
            return;
        };
        let step = self.attempt_done(w, f.began, f.attempt, f.outcome, f.output, out);
        self.after_probe(w, step, out);
    }

    /// After one attempt: retry errors (P40), or finish the probe (P31–P35).
    fn attempt_done<S: Sink>(
        &mut self,
        w: usize,
        began: SimTime,
        attempt: u8,
        outcome: Outcome,
        output: OutputKind,
        out: &mut Out<'_, S>,
    ) -> Step {
        if outcome == Outcome::Error && attempt < MAX_PROBE_ATTEMPTS {
            return self.begin_attempt(w, began, attempt + 1, out);
        }
        let now = self.now;
        let worker = self.workers[w];
        let c = worker.container;
        let spec = self.pod.container(c);
        let Some(probe) = spec.probe(worker.kind) else {
            return Step::Stop;
        };
        let probe_output = ProbeOutput {
            handler: probe.handler(),
            pod_ip: &self.pod.pod_ip,
            kind: output,
        };
        out.emit(
            now,
            EventKind::Probe {
                container: &spec.name,
                probe: worker.kind,
                outcome,
                output: probe_output,
                duration: now.saturating_since(began),
            },
        );
        // P41: the prober's own events.
        let message = match outcome {
            Outcome::Success => None,
            Outcome::Failure => Some((
                "Unhealthy",
                Message::ProbeFailed {
                    probe: worker.kind,
                    output: probe_output,
                },
            )),
            Outcome::Error => Some((
                "Unhealthy",
                Message::ProbeErrored {
                    probe: worker.kind,
                    output: probe_output,
                },
            )),
            Outcome::Warning => Some((
                "ProbeWarning",
                Message::ProbeWarning {
                    probe: worker.kind,
                    output: probe_output,
                },
            )),
        };
        if let Some((reason, message)) = message {
            self.kube_event(out, c, EventType::Warning, reason, message);
        }
        // P31: an error is thrown away.
        let result = match outcome {
            Outcome::Error => return Step::Continue,
            Outcome::Success | Outcome::Warning => ProbeResult::Success,
            Outcome::Failure => ProbeResult::Failure,
        };
        let (success_threshold, failure_threshold) = (
            probe.success_threshold().unsigned_abs(),
            probe.failure_threshold().unsigned_abs(),
        );
        let Some(id) = worker.container_id else {
            return Step::Continue;
        };
        // P33.
        let w_mut = &mut self.workers[w];
        if w_mut.last_result == result {
            w_mut.result_run = w_mut.result_run.saturating_add(1);
        } else {
            w_mut.last_result = result;
            w_mut.result_run = 1;
        }
        // P34.
        let run = w_mut.result_run;
        if (result == ProbeResult::Failure && run < failure_threshold)
            || (result == ProbeResult::Success && run < success_threshold)
        {
            return Step::Continue;
        }
        // P35: hold after a decisive liveness/startup verdict.
        let hold = match worker.kind {
            ProbeKind::Liveness => result == ProbeResult::Failure,
            ProbeKind::Startup => {
                result == ProbeResult::Failure || self.profile.startup_holds_on_success
            }
            ProbeKind::Readiness => false,
        };
        if hold {
            self.workers[w].on_hold = true;
            self.workers[w].result_run = 0;
        }
        self.set_result(w, id, result, out);
        Step::Continue
    }

    /// One attempt against the application (P38–P40, P48–P52; contract §2.3.5–6).
    fn run_attempt(&mut self, w: usize) -> (Outcome, OutputKind, SimDuration) {
        let now = self.now;
        let worker = self.workers[w];
        let c = worker.container;
        let Some(probe) = self.pod.container(c).probe(worker.kind) else {
            return (Outcome::Error, OutputKind::ScriptedError, SimDuration::ZERO);
        };
        let timeout = probe.timeout();
        let handler = probe.handler();
        // P39: a port that cannot be resolved fails before anything is sent.
        if let Handler::HttpGet { port, .. } | Handler::TcpSocket { port, .. } = handler {
            if port.number().is_none() {
                return (Outcome::Error, OutputKind::BadPort, SimDuration::ZERO);
            }
        }
        let instance = self.runtime[c]
            .instances
            .newest
            .filter(|i| i.exited.is_none());
        let Some(instance) = instance else {
            // §2.3.6: nobody is listening; an exec has no process to enter.
            return match handler {
                Handler::Exec { .. } => (Outcome::Error, OutputKind::ExecGone, SimDuration::ZERO),
                Handler::HttpGet { .. } => {
                    (Outcome::Failure, OutputKind::HttpRefused, SimDuration::ZERO)
                }
                Handler::TcpSocket { .. } => {
                    (Outcome::Failure, OutputKind::TcpRefused, SimDuration::ZERO)
                }
                Handler::Grpc { .. } => {
                    (Outcome::Failure, OutputKind::GrpcRefused, SimDuration::ZERO)
                }
            };
        };
        let attempt = Attempt {
            container: c,
            probe: worker.kind,
            instance: instance.id,
            uptime: now.saturating_since(instance.started_at),
            now,
        };
        let Response { answer, latency } = self.behaviours.respond(&attempt);
        let timed_out = answer == Answer::Timeout || latency >= timeout;
        let duration = if timed_out { timeout } else { latency };
        let (outcome, output) = match handler {
            Handler::HttpGet { .. } => {
                classify_http(answer, timed_out, self.profile.redirect_prefix)
            }
            Handler::TcpSocket { .. } => classify_tcp(answer, timed_out),
            Handler::Exec { .. } => {
                if timed_out && answer != Answer::Error {
                    match self.profile.exec_timeout() {
                        ExecTimeout::Error => (
                            Outcome::Error,
                            OutputKind::ExecTimeout(
                                crate::event::ExecTimeoutWording::Quoted,
                                timeout,
                            ),
                        ),
                        ExecTimeout::Failure(wording) => {
                            (Outcome::Failure, OutputKind::ExecTimeout(wording, timeout))
                        }
                    }
                } else {
                    classify_exec(answer)
                }
            }
            Handler::Grpc { .. } => classify_grpc(answer, timed_out, timeout),
        };
        (outcome, output, duration)
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

/// R17 `ShouldContainerBeRestarted` for an exited container.
fn should_restart(policy: RestartPolicy, exit_code: i32) -> bool {
    match policy {
        RestartPolicy::Always => true,
        RestartPolicy::OnFailure => exit_code != 0,
        RestartPolicy::Never => false,
    }
}

/// R43 `getPhase`, sidecar-aware: `initialized` says whether a regular container has been
/// created.
fn compute_phase(pod: &PodSpec, status: &PodStatus, initialized: bool, terminal: bool) -> Phase {
    let (mut pending_init, mut failed_init, mut pending_sidecars) = (0, 0, 0);
    let (mut running, mut stopped, mut waiting, mut succeeded) = (0, 0, 0, 0);
    for (spec, s) in pod.init_containers.iter().zip(&status.init_containers) {
        match (spec.restartable, s.state) {
            (false, ContainerState::Running { .. }) => pending_init += 1,
            (false, ContainerState::Terminated(t)) => {
                if t.exit_code != 0 {
                    failed_init += 1;
                }
            }
            (false, ContainerState::Waiting(_)) => match s.last_state {
                Some(last) if last.exit_code != 0 => failed_init += 1,
                Some(_) => {}
                None => pending_init += 1,
            },
            (true, ContainerState::Running { .. }) => {
                if !s.started {
                    pending_sidecars += 1;
                }
                running += 1;
            }
            (true, ContainerState::Terminated(_)) => {}
            (true, ContainerState::Waiting(_)) => {
                if s.last_state.is_none() {
                    pending_sidecars += 1;
                    waiting += 1;
                }
            }
        }
    }
    for s in &status.containers {
        match s.state {
            ContainerState::Running { .. } => running += 1,
            ContainerState::Terminated(t) => {
                stopped += 1;
                if t.exit_code == 0 {
                    succeeded += 1;
                }
            }
            ContainerState::Waiting(_) => {
                if s.last_state.is_some() {
                    stopped += 1;
                } else {
                    waiting += 1;
                }
            }
        }
    }
    let policy = pod.restart_policy;
    if failed_init > 0 && policy == RestartPolicy::Never {
        Phase::Failed
    } else if pending_init > 0 || (pending_sidecars > 0 && !initialized) || waiting > 0 {
        Phase::Pending
    } else if running > 0 {
        Phase::Running
    } else if stopped > 0 && terminal {
        if stopped == succeeded {
            Phase::Succeeded
        } else {
            Phase::Failed
        }
    } else if stopped > 0 {
        match policy {
            RestartPolicy::Always => Phase::Running,
            _ if stopped == succeeded => Phase::Succeeded,
            RestartPolicy::Never => Phase::Failed,
            RestartPolicy::OnFailure => Phase::Running,
        }
    } else {
        Phase::Pending
    }
}

/// P50.
fn classify_http(answer: Answer, timed_out: bool, prefixed: bool) -> (Outcome, OutputKind) {
    if timed_out {
        return (Outcome::Failure, OutputKind::HttpTimeout);
    }
    let status = match answer {
        Answer::Status(code) => code,
        Answer::Ok | Answer::Open | Answer::Serving => 200,
        Answer::Fail | Answer::NotServing | Answer::Unknown | Answer::Exit(_) => 500,
        Answer::Refused => return (Outcome::Failure, OutputKind::HttpRefused),
        Answer::Timeout => return (Outcome::Failure, OutputKind::HttpTimeout),
        Answer::Error => return (Outcome::Error, OutputKind::ScriptedError),
    };
    match status {
        200..=299 => (Outcome::Success, OutputKind::Empty),
        300..=399 => (Outcome::Warning, OutputKind::HttpRedirect { prefixed }),
        _ => (Outcome::Failure, OutputKind::HttpStatus(status)),
    }
}

/// P51.
fn classify_tcp(answer: Answer, timed_out: bool) -> (Outcome, OutputKind) {
    if timed_out {
        return (Outcome::Failure, OutputKind::TcpTimeout);
    }
    match answer {
        Answer::Ok | Answer::Open | Answer::Status(_) | Answer::Serving => {
            (Outcome::Success, OutputKind::Empty)
        }
        Answer::Error => (Outcome::Error, OutputKind::ScriptedError),
        Answer::Timeout => (Outcome::Failure, OutputKind::TcpTimeout),
        Answer::Fail | Answer::Refused | Answer::Exit(_) | Answer::NotServing | Answer::Unknown => {
            (Outcome::Failure, OutputKind::TcpRefused)
        }
    }
}

/// P48 (apart from timeouts).
fn classify_exec(answer: Answer) -> (Outcome, OutputKind) {
    match answer {
        Answer::Ok | Answer::Exit(0) => (Outcome::Success, OutputKind::Empty),
        Answer::Error => (Outcome::Error, OutputKind::ScriptedError),
        _ => (Outcome::Failure, OutputKind::Empty),
    }
}

/// P52.
fn classify_grpc(answer: Answer, timed_out: bool, timeout: SimDuration) -> (Outcome, OutputKind) {
    if timed_out {
        return (Outcome::Failure, OutputKind::GrpcTimeout(timeout));
    }
    match answer {
        Answer::Ok | Answer::Serving => (Outcome::Success, OutputKind::GrpcHealthy),
        Answer::Fail | Answer::NotServing => {
            (Outcome::Failure, OutputKind::GrpcUnhealthy("NOT_SERVING"))
        }
        Answer::Unknown => (Outcome::Failure, OutputKind::GrpcUnhealthy("UNKNOWN")),
        Answer::Refused => (Outcome::Failure, OutputKind::GrpcRefused),
        Answer::Error => (Outcome::Error, OutputKind::ScriptedError),
        Answer::Timeout => (Outcome::Failure, OutputKind::GrpcTimeout(timeout)),
        Answer::Status(_) | Answer::Open | Answer::Exit(_) => (
            Outcome::Failure,
            OutputKind::GrpcUnhealthy("SERVICE_UNKNOWN"),
        ),
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

#[cfg(test)]
mod kubelet_tests;
#[cfg(test)]
mod tests;
