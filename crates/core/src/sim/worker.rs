//! Probe workers: their ticks and triggers, doProbe, attempts against the application, and
//! the results caches (P9–P52).

pub(super) use super::classify::classify;
use super::cycle::Walk;
use super::*;
use crate::cycle::{exact_hash, opt_id, opt_time, Visitor};

/// A probe execution in progress.
#[derive(Clone, Copy, Debug)]
pub(super) struct InFlight {
    pub(super) began: SimTime,
    pub(super) attempt: u8,
    /// The container instance the attempt reached.
    pub(super) instance: u64,
    pub(super) ends: SimTime,
    pub(super) outcome: Outcome,
    pub(super) output: OutputKind,
}

/// Where a probe worker is in its life (P9, P13–P15, P20). A worker in flight is running: its
/// first doProbe is the first time it can start a probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Lifecycle {
    /// AddPod has not created it, or it exited (P20): no timers, nothing cached.
    Absent,
    /// Created, in its start-up sleep before the first doProbe (P14).
    Sleeping,
    /// Its first doProbe ran: it waits on its ticker and its trigger (P16).
    Running,
    /// A stop was requested (P13): it exits at its next wait, after a probe in flight. An idle
    /// worker asked to stop, even in its start-up sleep, wakes up at once to exit.
    Stopping,
}

/// One probe worker (P9): per (container, probe type).
#[derive(Clone, Copy, Debug)]
pub(super) struct Worker {
    pub(super) container: ContainerId,
    pub(super) kind: ProbeKind,
    pub(super) period: SimDuration,
    /// Where the worker is in its life.
    pub(super) state: Lifecycle,
    pub(super) next_tick: SimTime,
    pub(super) wake_at: Option<SimTime>,
    pub(super) pending_tick: bool,
    pub(super) pending_trigger: bool,
    pub(super) in_flight: Option<InFlight>,
    pub(super) container_id: Option<u64>,
    pub(super) last_result: ProbeResult,
    pub(super) result_run: u32,
    pub(super) on_hold: bool,
    /// Held, idle and with nothing pending: its ticks do nothing until what its doProbe reads
    /// before the hold changes, so they are left off the agenda (see `worker::park`).
    pub(super) parked: bool,
    /// When AddPod created this worker.
    pub(super) created_at: SimTime,
}

impl Worker {
    /// A worker slot that AddPod has not created (or that exited): no timers, zero values (P9).
    pub(super) fn idle(container: ContainerId, kind: ProbeKind, period: SimDuration) -> Worker {
        Worker {
            container,
            kind,
            period,
            state: Lifecycle::Absent,
            next_tick: SimTime::ZERO,
            wake_at: None,
            pending_tick: false,
            pending_trigger: false,
            in_flight: None,
            container_id: None,
            last_result: ProbeResult::Success,
            result_run: 0,
            on_hold: false,
            parked: false,
            created_at: SimTime::ZERO,
        }
    }

    /// AddPod created the worker and it has not exited.
    pub(super) fn alive(&self) -> bool {
        self.state != Lifecycle::Absent
    }

    /// The first doProbe has run, or will at the wake-up a stop scheduled (P14, P15).
    pub(super) fn running(&self) -> bool {
        matches!(self.state, Lifecycle::Running | Lifecycle::Stopping)
    }

    /// A stop was requested (P13).
    pub(super) fn stopping(&self) -> bool {
        self.state == Lifecycle::Stopping
    }

    pub(super) fn key(&self) -> Key {
        if !self.alive() {
            return Key::NEVER;
        }
        let tick = if self.running() && !self.parked {
            Key::new(self.next_tick, Class::Tick)
        } else {
            Key::NEVER
        };
        let wake = key_of(self.wake_at, Class::Wake);
        let done = key_of(self.in_flight.map(|f| f.ends), Class::Completion);
        tick.min(wake).min(done)
    }

    pub(super) fn initial_value(&self) -> ProbeResult {
        match self.kind {
            ProbeKind::Readiness => ProbeResult::Failure,
            ProbeKind::Liveness => ProbeResult::Success,
            ProbeKind::Startup => ProbeResult::Unknown,
        }
    }
}

/// What a doProbe decided (P22–P36).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DoProbe {
    Continue,
    Stop,
    InFlight,
}

/// The prober manager (`prober.Manager`): its probe workers, their results caches, and which
/// worker probes what.
#[derive(Clone)]
pub(super) struct Prober {
    pub(super) workers: PerWorker<Worker>,
    /// How many workers are alive: all of them, and AddPod has nothing to create.
    pub(super) alive: usize,
    /// Per container, its worker of each probe type (by [`ProbeKind::index`]): syncs ask for a
    /// container's workers once per container, which a search through every worker made
    /// quadratic in the pod's size.
    pub(super) worker_by: PerContainer<[Option<WorkerId>; 3]>,
    /// Results caches (P42): per worker, `(container id, result)`.
    pub(super) cache: PerWorker<Option<(u64, ProbeResult)>>,
    /// When the kubelet (and its prober manager) last started, if during the run (P5).
    pub(super) kubelet_started: Option<SimTime>,
}

impl Prober {
    /// The manager of these (not yet created) workers of a pod of `n` containers.
    pub(super) fn new(workers: Vec<Worker>, n: usize) -> Prober {
        let mut worker_by = PerContainer::from_vec(vec![[None; 3]; n]);
        for (i, w) in workers.iter().enumerate() {
            worker_by[w.container][w.kind.index()].get_or_insert(WorkerId::new(i));
        }
        Prober {
            cache: PerWorker::from_vec(vec![None; workers.len()]),
            alive: 0,
            worker_by,
            workers: PerWorker::from_vec(workers),
            kubelet_started: None,
        }
    }
}

impl Worker {
    /// Walks this worker and its results cache `slot` for fast-forward.
    fn visit(
        &mut self,
        slot: &mut Option<(u64, ProbeResult)>,
        v: &mut dyn Visitor,
        cx: &Walk,
        pod: &PodSpec,
    ) {
        let Worker {
            container,
            kind,
            period,
            state,
            next_tick,
            wake_at,
            pending_tick,
            pending_trigger,
            in_flight,
            container_id,
            last_result,
            result_run,
            on_hold,
            parked,
            created_at,
        } = self;
        // `container`, `kind` and `period` are fixed for the run.
        let base = cx.bases[container.index()];
        exact_hash(v, state);
        v.exact(u64::from(*parked));
        if *parked && !period.is_zero() {
            // A parked worker's ticks are off the agenda; `next_tick` is only a point of
            // its grid, from which it comes back at the first tick not gone by: only the
            // grid's phase against now decides.
            let offset = i128::from(next_tick.as_millis()) - i128::from(cx.now.as_millis());
            let phase = offset.rem_euclid(i128::from(period.as_millis()));
            v.exact(u64::try_from(phase).unwrap_or(u64::MAX));
            v.past(next_tick, SimDuration::ZERO);
        } else {
            v.time(next_tick);
        }
        opt_time(v, wake_at);
        v.exact(u64::from(*pending_tick));
        v.exact(u64::from(*pending_trigger));
        v.exact(u64::from(in_flight.is_some()));
        if let Some(InFlight {
            began,
            attempt,
            instance,
            ends,
            outcome,
            output,
        }) = in_flight
        {
            v.time(began);
            v.exact(u64::from(*attempt));
            v.id(instance, base, u64::MAX);
            v.time(ends);
            exact_hash(v, &(*outcome, *output));
        }
        opt_id(v, container_id, base);
        exact_hash(v, last_result);
        // P34: a run of equal results decides only until it reaches the larger threshold.
        let cap = pod
            .container((*container).index())
            .probe(*kind)
            .map_or(1, |p| {
                p.success_threshold()
                    .unsigned_abs()
                    .max(p.failure_threshold().unsigned_abs())
            });
        let mut run = u64::from(*result_run);
        v.saturating(&mut run, u64::from(cap), u64::from(u32::MAX));
        *result_run = u32::try_from(run).unwrap_or(u32::MAX);
        v.exact(u64::from(*on_hold));
        // Only "created at this very instant" matters (P14's churn check).
        v.past(created_at, SimDuration::from_millis(1));
        v.exact(u64::from(slot.is_some()));
        if let Some((id, result)) = slot {
            v.id(id, base, u64::MAX);
            exact_hash(v, result);
        }
    }
}

impl Prober {
    /// Walks the prober manager for fast-forward.
    pub(super) fn visit(&mut self, v: &mut dyn Visitor, cx: &Walk, pod: &PodSpec) {
        let Prober {
            workers,
            alive,
            // Fixed for the run.
            worker_by: _,
            cache,
            kubelet_started,
            // Only set inside one doProbe.
        } = self;
        v.exact(*alive as u64);
        for (worker, slot) in workers.iter_mut().zip(cache.iter_mut()) {
            worker.visit(slot, v, cx, pod);
        }
        opt_time(v, kubelet_started);
    }
}

/// What doProbe's first checks (P22–P25) read in the status, for a worker that knows one
/// container instance. [`Simulation::read_status`] is the one place these checks are written:
/// doProbe, parking (`held_tick_acts`) and the steady lane (`steady_run`) all ask it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StatusReading {
    /// P22: no status yet, or P24: the status names no instance: nothing to do this time.
    Nothing,
    /// P23: the pod is terminal: the worker stops.
    Terminal,
    /// P25: the status names this instance, not the one the worker knows.
    NewInstance(u64),
    /// The status names the instance the worker knows.
    Known(u64),
}

/// Which process a probe sent now reaches ([`Simulation::probe_target`], the one place this is
/// decided: the attempt (`run_attempt`) and the steady lane (`steady_run`) both ask it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Target {
    /// A running process answers.
    Process(Instance),
    /// Nobody listens (network), or no process to enter (exec).
    Nobody,
    /// A network probe reaches a process killed at this very instant: its connection is cut.
    Dying,
}

/// doProbe's checks of a running instance (P27, P29, P30) once the status names the instance
/// the worker knows and the worker is not on hold: whether a probe of `kind` runs now, for a
/// container whose status reads `view` and a probe with this `initialDelaySeconds`. doProbe
/// and the steady lane both ask it.
pub(super) fn probe_due(
    kind: ProbeKind,
    view: &ViewEntry,
    now: SimTime,
    initial_delay: i64,
) -> bool {
    // P27.
    if !view.running {
        return false;
    }
    // P29: whole seconds since the normalised start, truncated.
    let elapsed = now.saturating_since(view.started_at).whole_secs();
    if i64::try_from(elapsed).unwrap_or(i64::MAX) < initial_delay {
        return false;
    }
    // P30.
    match kind {
        ProbeKind::Startup => !view.started,
        ProbeKind::Liveness | ProbeKind::Readiness => view.started,
    }
}

impl Simulation {
    /// doProbe's first checks (P22–P25) for container `c`, by a worker that knows instance
    /// `known` ([`StatusReading`]).
    pub(super) fn read_status(&self, c: ContainerId, known: Option<u64>) -> StatusReading {
        if !self.status.written {
            return StatusReading::Nothing;
        }
        if self.status.api.phase.is_terminal() {
            return StatusReading::Terminal;
        }
        match self.status.view[c].id {
            None => StatusReading::Nothing,
            Some(id) if known == Some(id) => StatusReading::Known(id),
            Some(id) => StatusReading::NewInstance(id),
        }
    }

    pub(super) fn worker_of(&self, c: ContainerId, kind: ProbeKind) -> Option<WorkerId> {
        self.prober.worker_by.get(c).and_then(|k| k[kind.index()])
    }

    /// [`Simulation::cached`] for an optional instance.
    pub(super) fn cached_opt(
        &self,
        c: ContainerId,
        kind: ProbeKind,
        id: Option<u64>,
    ) -> Option<ProbeResult> {
        id.and_then(|id| self.cached(c, kind, id))
    }

    /// The cached result of container `c`'s probe `kind` for instance `id`, if any.
    pub(super) fn cached(&self, c: ContainerId, kind: ProbeKind, id: u64) -> Option<ProbeResult> {
        let w = self.worker_of(c, kind)?;
        self.prober.cache[w]
            .filter(|(cid, _)| *cid == id)
            .map(|(_, r)| r)
    }

    /// P13: a non-blocking stop; an idle worker exits at once, a busy one after its probe.
    pub(super) fn stop_worker(&mut self, w: WorkerId) {
        if !self.prober.workers[w].alive() {
            return;
        }
        self.worker_changed(w);
        let worker = &mut self.prober.workers[w];
        debug_assert!(
            worker.running() || worker.in_flight.is_none(),
            "only a running worker probes"
        );
        worker.state = Lifecycle::Stopping;
        if worker.in_flight.is_none() {
            worker.wake_at = Some(self.now);
        }
    }

    /// Emits a Kubernetes Event about container `c` (R56).
    pub(super) fn kube_event<S: Sink>(
        &self,
        out: &mut Out<'_, S>,
        c: ContainerId,
        event_type: EventType,
        reason: &'static str,
        message: Message<'_>,
    ) {
        debug_assert!(
            KubeEvent::REASONS.contains(&reason),
            "{reason} is not in the catalogue"
        );
        let event = KubeEvent {
            event_type,
            reason,
            object: self.pod.object_ref(c.index()),
            message,
            recorded: None,
        };
        out.emit(self.now, EventKind::Event(event));
    }

    /// P25, P45 (1.35+ with `ChangeContainerStatusOnKubeletRestart` off): the container was
    /// running more than 10 s before the kubelet (re)started.
    pub(super) fn predates_kubelet_restart(&self, view: &ViewEntry) -> bool {
        self.profile.inherits_started()
            && view.running
            && self
                .prober
                .kubelet_started
                .is_some_and(|k| view.started_at.saturating_add(SimDuration::from_secs(10)) < k)
    }

    /// P18: a non-blocking send on the worker's manual-trigger channel.
    pub(super) fn trigger(&mut self, w: WorkerId) {
        self.worker_changed(w);
        let now = self.now;
        let worker = &mut self.prober.workers[w];
        if !worker.alive() || worker.pending_trigger {
            return;
        }
        worker.pending_trigger = true;
        if worker.in_flight.is_none() && worker.running() {
            worker.wake_at = Some(now);
        }
    }

    /// P6, P7: AddPod creates missing workers.
    pub(super) fn add_pod(&mut self) {
        let now = self.now;
        debug_assert!(
            self.prober.alive <= self.prober.workers.iter().filter(|w| w.alive()).count(),
            "more workers counted alive than are"
        );
        if self.prober.alive >= self.prober.workers.len() {
            // Every worker exists: nothing to create (and nothing to stop at).
            return;
        }
        for w in self.prober.workers.ids() {
            if self.prober.workers[w].alive() {
                if self.profile.add_pod_skips_existing {
                    continue;
                }
                return;
            }
            let period = self.prober.workers[w].period;
            // P14: the start-up sleep.
            let kubelet_age = match self.prober.kubelet_started {
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
            self.worker_changed(w);
            let worker = &mut self.prober.workers[w];
            // P9: a new worker starts from scratch.
            *worker = Worker {
                state: Lifecycle::Sleeping,
                wake_at: Some(now.saturating_add(sleep)),
                created_at: now,
                ..Worker::idle(worker.container, worker.kind, worker.period)
            };
            self.prober.cache[w] = None;
            self.prober.alive += 1;
            self.worker_container_changed(w);
        }
    }

    pub(super) fn worker_due<S: Sink>(&mut self, w: WorkerId, out: &mut Out<'_, S>) {
        let key = self.shortcuts.last_due.0;
        if self.shortcuts.steady_ticks && key == Key::new(self.now, Class::Tick) {
            let from_lane = self.shortcuts.lane.holds(w);
            if from_lane {
                // The lane's head: the tick leaves the lane, and comes back if steady.
                self.shortcuts.lane.pop();
                self.shortcuts.lane.leave(w);
            }
            if self.steady_tick(w, out) {
                self.place_steady(w, from_lane);
                return;
            }
        }
        if self.prober.workers[w].parked {
            // A wake-up or a completion of a parked worker: its ticks resume.
            self.unpark(w);
        }
        self.worker_changed(w);
        let now = self.now;
        if key == Key::new(now, Class::Completion) {
            self.complete_attempt(w, out);
            return;
        }
        let worker = &mut self.prober.workers[w];
        let idle = worker.in_flight.is_none();
        if key == Key::new(now, Class::Tick) {
            // P17: one tick is kept while busy, the rest dropped; the grid never shifts.
            worker.next_tick = worker.next_tick.saturating_add(worker.period);
            worker.pending_tick = true;
            if idle {
                self.worker_wait(w, out);
                self.park(w);
            }
            return;
        }
        // A wake-up: the first doProbe after the start-up sleep, or a pending trigger.
        worker.wake_at = None;
        if !worker.running() {
            worker.state = Lifecycle::Running;
            worker.next_tick = now.saturating_add(worker.period);
            let step = self.do_probe(w, out);
            self.after_probe(w, step, out);
        } else if idle {
            self.worker_wait(w, out);
        }
    }

    /// The worker's wait between probes (P16): stop, then a manual trigger, then a tick.
    pub(super) fn worker_wait<S: Sink>(&mut self, w: WorkerId, out: &mut Out<'_, S>) {
        self.worker_changed(w);
        let now = self.now;
        loop {
            let worker = &mut self.prober.workers[w];
            if !worker.alive() || worker.in_flight.is_some() {
                return;
            }
            if worker.stopping() {
                self.exit_worker(w);
                return;
            }
            if worker.pending_trigger {
                worker.pending_trigger = false;
                let c = worker.container;
                self.trigger_taken(c);
                let worker = &mut self.prober.workers[w];
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
            self.prober.workers[w].wake_at = None;
            let step = self.do_probe(w, out);
            match step {
                DoProbe::Continue => {}
                DoProbe::Stop => {
                    self.exit_worker(w);
                    return;
                }
                DoProbe::InFlight => return,
            }
        }
    }

    pub(super) fn after_probe<S: Sink>(
        &mut self,
        w: WorkerId,
        step: DoProbe,
        out: &mut Out<'_, S>,
    ) {
        match step {
            DoProbe::Continue => self.worker_wait(w, out),
            DoProbe::Stop => self.exit_worker(w),
            DoProbe::InFlight => {}
        }
    }

    /// P20: the worker's exit clean-up.
    pub(super) fn exit_worker(&mut self, w: WorkerId) {
        self.worker_changed(w);
        let worker = &mut self.prober.workers[w];
        if worker.alive() {
            self.prober.alive = self.prober.alive.saturating_sub(1);
        }
        worker.state = Lifecycle::Absent;
        worker.wake_at = None;
        worker.in_flight = None;
        worker.pending_tick = false;
        worker.pending_trigger = false;
        self.prober.cache[w] = None;
        self.worker_container_changed(w);
    }

    /// `resultsManager.Set` (P42): stores, and emits an update only on change.
    pub(super) fn set_result<S: Sink>(
        &mut self,
        w: WorkerId,
        id: u64,
        result: ProbeResult,
        out: &mut Out<'_, S>,
    ) {
        if self.prober.cache[w] == Some((id, result)) {
            return;
        }
        self.prober.cache[w] = Some((id, result));
        self.worker_container_changed(w);
        let worker = self.prober.workers[w];
        out.emit_for(
            self.now,
            worker.container,
            EventKind::Result {
                container: &self.pod.container(worker.container.index()).name,
                probe: worker.kind,
                result,
            },
        );
        self.handle_update(worker.container, worker.kind, id, result, out);
    }

    /// The kubelet's handling of a result update (P44, R1, R2): the status at once, the sync it
    /// asks for after every probe of the instant (docs/semantics.md#updates-at-once).
    pub(super) fn handle_update<S: Sink>(
        &mut self,
        c: ContainerId,
        kind: ProbeKind,
        id: u64,
        result: ProbeResult,
        out: &mut Out<'_, S>,
    ) {
        let now = self.now;
        let sync = match kind {
            ProbeKind::Liveness => result == ProbeResult::Failure,
            ProbeKind::Readiness => {
                if self.status.view[c].id == Some(id)
                    && self.status.api.container(c.index()).ready
                        != (result == ProbeResult::Success)
                {
                    let ready = result == ProbeResult::Success;
                    self.edit_status(c, |s| s.ready = ready);
                    out.emit_for(
                        now,
                        c,
                        EventKind::Ready {
                            container: &self.pod.container(c.index()).name,
                            ready,
                        },
                    );
                    self.update_ready_conditions(out);
                }
                self.profile.readiness_startup_sync
            }
            ProbeKind::Startup => {
                let started = result == ProbeResult::Success;
                if self.status.view[c].id == Some(id)
                    && self.status.api.container(c.index()).started != started
                {
                    self.edit_status(c, |s| s.started = started);
                    self.status.view[c].started = started;
                    out.emit_for(
                        now,
                        c,
                        EventKind::Started {
                            container: &self.pod.container(c.index()).name,
                            started,
                        },
                    );
                }
                self.profile.readiness_startup_sync
            }
        };
        if sync {
            // Each update on its own (R64), after every probe of its instant, so that its sync
            // sees all their results (R63); that sync waits for a relist newer than the
            // previous sync (R4).
            self.queue_update(now.saturating_add(self.kubelet.probe_sync_delay), c);
        }
    }

    /// doProbe's checks and the start of its probe (P22–P31).
    pub(super) fn do_probe<S: Sink>(&mut self, w: WorkerId, out: &mut Out<'_, S>) -> DoProbe {
        let now = self.now;
        let (c, kind) = (
            self.prober.workers[w].container,
            self.prober.workers[w].kind,
        );
        let view = self.status.view[c];
        let id = match self.read_status(c, self.prober.workers[w].container_id) {
            StatusReading::Nothing => return DoProbe::Continue,
            StatusReading::Terminal => return DoProbe::Stop,
            StatusReading::Known(id) => id,
            StatusReading::NewInstance(id) => {
                self.new_instance(w, id, &view, out);
                id
            }
        };
        // P26.
        if self.prober.workers[w].on_hold {
            return DoProbe::Continue;
        }
        // P27.
        if !view.running {
            self.set_result(w, id, ProbeResult::Failure, out);
            if let Some(code) = view.terminated {
                if !self.keeps_workers(c, code) {
                    return DoProbe::Stop;
                }
            }
            return DoProbe::Continue;
        }
        let Some(probe) = self.pod.container(c.index()).probe(kind) else {
            return DoProbe::Stop;
        };
        // P29, P30.
        if !probe_due(kind, &view, now, i64::from(probe.initial_delay_seconds())) {
            return DoProbe::Continue;
        }
        // P31: run it.
        self.begin_attempt(w, now, 1, out)
    }

    /// P25: the status names a new container instance `id` (its status read as `view`): the
    /// worker takes the initial value; counters are not reset.
    fn new_instance<S: Sink>(
        &mut self,
        w: WorkerId,
        id: u64,
        view: &ViewEntry,
        out: &mut Out<'_, S>,
    ) {
        let (c, kind) = (
            self.prober.workers[w].container,
            self.prober.workers[w].kind,
        );
        if self.prober.cache[w].take().is_some() {
            self.container_changed(c);
        }
        self.prober.workers[w].container_id = Some(id);
        self.prober.workers[w].on_hold = false;
        // 1.36+, ChangeContainerStatusOnKubeletRestart off: a sidecar whose status says
        // started keeps that through its startup worker.
        if self.profile.sidecar_startup_keeps_started
            && self.profile.inherits_started()
            && kind == ProbeKind::Startup
            && self.pod.is_init(c.index())
            && self.pod.container(c.index()).restartable
            && self.status.api.container(c.index()).started
        {
            self.set_result(w, id, ProbeResult::Success, out);
        }
        // 1.35+, ChangeContainerStatusOnKubeletRestart off: a container that predates the
        // kubelet's restart by more than 10 s gets no initial value.
        if !self.predates_kubelet_restart(view) {
            let initial = self.prober.workers[w].initial_value();
            self.set_result(w, id, initial, out);
        }
    }

    /// Starts attempt `attempt` of a probe that began at `began`.
    pub(super) fn begin_attempt<S: Sink>(
        &mut self,
        w: WorkerId,
        began: SimTime,
        attempt: u8,
        out: &mut Out<'_, S>,
    ) -> DoProbe {
        let now = self.now;
        let (outcome, output, duration) = self.run_attempt(w);
        if duration.is_zero() {
            return self.attempt_done(w, began, attempt, outcome, output, out);
        }
        // Only an attempt that reached a process takes time (docs/semantics.md#exec-target).
        let instance = self.runtime.containers[self.prober.workers[w].container]
            .instances
            .newest
            .map_or(0, |i| i.id);
        self.worker_changed(w);
        self.prober.workers[w].in_flight = Some(InFlight {
            began,
            attempt,
            instance,
            ends: now.saturating_add(duration),
            outcome,
            output,
        });
        DoProbe::InFlight
    }

    pub(super) fn complete_attempt<S: Sink>(&mut self, w: WorkerId, out: &mut Out<'_, S>) {
        self.worker_changed(w);
        let Some(f) = self.prober.workers[w].in_flight.take() else {
            return;
        };
        let step = self.attempt_done(w, f.began, f.attempt, f.outcome, f.output, out);
        self.after_probe(w, step, out);
    }

    /// After one attempt: retry errors (P40), or finish the probe (P31–P35).
    pub(super) fn attempt_done<S: Sink>(
        &mut self,
        w: WorkerId,
        began: SimTime,
        attempt: u8,
        outcome: Outcome,
        output: OutputKind,
        out: &mut Out<'_, S>,
    ) -> DoProbe {
        if outcome == Outcome::Error && attempt < MAX_PROBE_ATTEMPTS {
            return self.begin_attempt(w, began, attempt + 1, out);
        }
        let now = self.now;
        let (c, kind) = (
            self.prober.workers[w].container,
            self.prober.workers[w].kind,
        );
        let spec = self.pod.container(c.index());
        let Some(probe) = spec.probe(kind) else {
            return DoProbe::Stop;
        };
        let probe_output = ProbeOutput {
            handler: probe.handler(),
            pod_ip: &self.pod.pod_ip,
            kind: output,
            texts: Some(&self.behaviours),
        };
        out.emit_for(
            now,
            c,
            EventKind::Probe {
                container: &spec.name,
                probe: kind,
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
                    probe: kind,
                    output: probe_output,
                },
            )),
            Outcome::Error => Some((
                "Unhealthy",
                Message::ProbeErrored {
                    probe: kind,
                    output: probe_output,
                },
            )),
            Outcome::Warning => Some((
                "ProbeWarning",
                Message::ProbeWarning {
                    probe: kind,
                    output: probe_output,
                },
            )),
        };
        if let Some((reason, message)) = message {
            self.kube_event(out, c, EventType::Warning, reason, message);
        }
        // P31: an error is thrown away.
        let result = match outcome {
            Outcome::Error => return DoProbe::Continue,
            Outcome::Success | Outcome::Warning => ProbeResult::Success,
            Outcome::Failure => ProbeResult::Failure,
        };
        let (success_threshold, failure_threshold) = (
            probe.success_threshold().unsigned_abs(),
            probe.failure_threshold().unsigned_abs(),
        );
        let Some(id) = self.prober.workers[w].container_id else {
            return DoProbe::Continue;
        };
        // P33.
        let w_mut = &mut self.prober.workers[w];
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
            return DoProbe::Continue;
        }
        // P35: hold after a decisive liveness/startup verdict.
        let hold = match kind {
            ProbeKind::Liveness => result == ProbeResult::Failure,
            ProbeKind::Startup => {
                result == ProbeResult::Failure || self.profile.startup_holds_on_success
            }
            ProbeKind::Readiness => false,
        };
        if hold {
            self.prober.workers[w].on_hold = true;
            self.prober.workers[w].result_run = 0;
        }
        self.set_result(w, id, result, out);
        DoProbe::Continue
    }

    /// The process a probe of container `c` sent now reaches (docs/semantics.md#exec-target):
    /// an exec enters the instance the worker knows (`known`), which must still run; a network
    /// probe reaches whatever listens at the pod IP. Under exact timing a kill and the
    /// replacement's start can share one instant; a network probe sent then left before the old
    /// process was gone (stopping and starting take time on a node), so it reaches the dying
    /// process, whose connection is cut as for a probe in flight (`cut_attempts`); the new
    /// process answers from the next instant on (docs/semantics.md#one-instant-restarts).
    pub(super) fn probe_target(&self, c: ContainerId, exec: bool, known: Option<u64>) -> Target {
        let instances = self.runtime.containers[c].instances;
        let Some(i) = instances.newest.filter(|i| i.exited.is_none()) else {
            return Target::Nobody;
        };
        if exec {
            return if Some(i.id) == known {
                Target::Process(i)
            } else {
                Target::Nobody
            };
        }
        let replaced_now = i.started_at == self.now
            && instances
                .previous
                .and_then(|p| p.exited)
                .is_some_and(|(at, _)| at == self.now);
        if replaced_now {
            Target::Dying
        } else {
            Target::Process(i)
        }
    }

    /// One attempt against the application (P38–P40, P48–P52;
    /// docs/semantics.md#mid-answer, docs/semantics.md#exec-target).
    pub(super) fn run_attempt(&mut self, w: WorkerId) -> (Outcome, OutputKind, SimDuration) {
        let now = self.now;
        let (c, kind) = (
            self.prober.workers[w].container,
            self.prober.workers[w].kind,
        );
        let Some(probe) = self.pod.container(c.index()).probe(kind) else {
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
        let exec = matches!(handler, Handler::Exec { .. });
        let instance = match self.probe_target(c, exec, self.prober.workers[w].container_id) {
            Target::Process(i) => Some(i),
            Target::Nobody => None,
            Target::Dying => {
                let output = super::runtime::cut_output(handler);
                return (Outcome::Failure, output, SimDuration::ZERO);
            }
        };
        let Some(instance) = instance else {
            // docs/semantics.md#exec-target: nobody is listening; an exec has no process to enter.
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
            container: c.index(),
            probe: kind,
            instance: instance.id,
            uptime: now.saturating_since(instance.started_at),
            now,
        };
        let response = self.behaviours.respond(&attempt, &mut self.rng);
        let (outcome, output, took) = classify(handler, response, timeout, &self.profile);
        (
            outcome,
            output.printing(handler, self.behaviours.printed(&attempt)),
            took,
        )
    }
}
