//! The API-visible status generated at the start of each sync (R11, R34, R36–R45, P45, P46).
//!
//! Generated incrementally. A container's status is a function of its inputs: its PLEG
//! snapshot, its back-off reason, its startup and readiness workers (alive, cached result), its
//! previous status, the kubelet's start and the profile. Whatever changes one of them marks the
//! container ([`Simulation::container_changed`]); a status generation recomputes the marked
//! containers only, in container order, since every other one would come out as it is (the
//! computation is idempotent). The manual trigger a started, not-ready container sends its
//! readiness worker at every generation (P18, P45) does something only once the worker took the
//! previous one: taking it marks the container. The kubelet-restart rule of P45 reads the pod's
//! `Ready` condition, no input of the container's: a container it applies to stays marked. The
//! phase and the conditions come from counts kept up to date as statuses are written
//! ([`Tally`]), not from scans. Debug builds check at every generation that each unmarked
//! container recomputes to the status it has, asking for nothing a full recomputation would
//! do, and that the counts match a recount.

use super::cycle::Walk;
use super::*;
use crate::cycle::{exact_hash, opt_id, opt_time, Visitor};

/// What a probe worker reads from the status view for its container (P24–P30).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct ViewEntry {
    pub(super) id: Option<u64>,
    pub(super) running: bool,
    pub(super) terminated: Option<i32>,
    pub(super) started_at: SimTime,
    pub(super) started: bool,
}

/// Status generation (the status manager and `generateAPIPodStatus`): the API status, the view
/// of it probe workers read, and the bookkeeping of the incremental status (module docs).
#[derive(Clone)]
pub(super) struct StatusManager {
    /// The API-visible status.
    pub(super) api: PodStatus,
    /// A status has been generated.
    pub(super) written: bool,
    /// The containers whose status inputs changed since the last status was generated (or
    /// whose last status asked a worker for a probe), each once, and which ones those are: the
    /// next status recomputes only them.
    pub(super) queue: Vec<ContainerId>,
    pub(super) dirty: PerContainer<bool>,
    /// What the phase and the conditions count over the statuses, kept as they are written.
    pub(super) tally: Tally,
    /// Regular containers whose snapshot holds an instance (the phase's "initialized"), and
    /// those whose instance runs.
    pub(super) created_regular: usize,
    pub(super) running_regular: usize,
    /// The regular containers a sync does not simply keep (R13–R15): not running, or running
    /// with a liveness or startup failure cached for the instance. Updated with the status
    /// marks, whose inputs include these. Sorted (a sync visits them in container order).
    pub(super) actionable: Vec<ContainerId>,
    /// Test-only: every status recomputes every container, the reference for the incremental
    /// path.
    #[cfg(test)]
    pub(super) full: bool,
    /// What probe workers read, per container (P24–P30).
    pub(super) view: PerContainer<ViewEntry>,
    /// Per container, the back-off a waiting reason last reported.
    pub(super) reason_cache: PerContainer<Option<SimDuration>>,
}

impl StatusManager {
    /// Before the first generation: the initial `api` status, every container to be computed;
    /// the regular containers (from `ni` of `n`) are actionable.
    pub(super) fn new(api: PodStatus, tally: Tally, ni: usize, n: usize) -> StatusManager {
        StatusManager {
            api,
            written: false,
            queue: ContainerId::range(0..n).collect(),
            dirty: PerContainer::from_vec(vec![true; n]),
            tally,
            created_regular: 0,
            running_regular: 0,
            actionable: ContainerId::range(ni..n).collect(),
            #[cfg(test)]
            full: false,
            view: PerContainer::from_vec(vec![ViewEntry::default(); n]),
            reason_cache: PerContainer::from_vec(vec![None; n]),
        }
    }
}

/// What computing one container's status asks for besides the status itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Effects {
    /// A readiness worker to trigger (P18): nothing to do while it has a trigger pending.
    trigger: Option<WorkerId>,
    /// The status depends on more than the container's inputs: recompute it next time too.
    volatile: bool,
}

impl Simulation {
    /// Changes container `c`'s status outside a status generation (P44's direct writes),
    /// keeping the counts, and marks it.
    pub(super) fn edit_status(&mut self, c: ContainerId, edit: impl FnOnce(&mut ContainerStatus)) {
        let prev = *self.status.api.container(c.index());
        let mut st = prev;
        edit(&mut st);
        self.retally(c, &prev, &st);
        *self.status.api.container_mut(c.index()) = st;
        self.container_changed(c);
    }

    /// Moves container `c` from `prev` to `st` in the counts.
    fn retally(&mut self, c: ContainerId, prev: &ContainerStatus, st: &ContainerStatus) {
        if prev != st {
            let init = self.init_restartable(c);
            let (spec, policy) = (self.pod.container(c.index()), self.pod.restart_policy);
            let restarts = |code| spec.should_restart(policy, code);
            self.status.tally.sub(&Tally::of(init, prev, restarts));
            self.status.tally.add(&Tally::of(init, st, restarts));
        }
    }

    /// For an init container, whether it is a sidecar; `None` for a regular container.
    fn init_restartable(&self, c: ContainerId) -> Option<bool> {
        self.pod
            .init_containers
            .get(c.index())
            .map(|spec| spec.restartable)
    }

    pub(super) fn generate_status<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        let now = self.now;
        let first = !self.status.written;
        self.status.written = true;
        #[cfg(test)]
        if self.status.full {
            self.all_containers_changed();
        }
        #[cfg(debug_assertions)]
        self.check_unmarked();
        let mut queue = core::mem::take(&mut self.status.queue);
        queue.sort_unstable();
        for &c in &queue {
            self.status.dirty[c] = false;
        }
        for &c in &queue {
            let (st, view, effects) = self.container_status(c);
            if let Some(w) = effects.trigger {
                self.trigger(w);
            }
            self.status.view[c] = view;
            self.write_container_status(c, st, out);
            if effects.volatile {
                self.container_changed(c);
            }
        }
        // What was marked meanwhile waits for the next status; the queue's room is kept.
        queue.clear();
        queue.append(&mut self.status.queue);
        self.status.queue = queue;
        // R43: phase; R42: conditions.
        let phase = if self.status.api.phase.is_terminal() {
            self.status.api.phase
        } else {
            let initialized = self.status.created_regular > 0;
            // A deleted pod whose containers are all gone is terminal (podIsTerminal, ≥1.27).
            let terminal = self.profile.terminal_phase_forcing
                && self.pod_worker.deleting.is_some()
                && !self.any_running();
            compute_phase(
                self.pod.restart_policy,
                &self.status.tally,
                initialized,
                terminal,
            )
        };
        let ready_to_start = self
            .profile
            .ready_to_start_condition
            .then_some(!first && self.pod_worker.sandbox_ready && !self.pod_worker.sandbox_stopped);
        self.status.api.conditions.ready_to_start_containers = ready_to_start;
        if phase != self.status.api.phase {
            self.status.api.phase = phase;
            out.emit(now, EventKind::Phase { phase });
        }
        self.update_ready_conditions(out);
    }

    /// Container `c`'s status and status view from its inputs, and what else it asks for.
    #[inline(always)]
    fn container_status(&self, c: ContainerId) -> (ContainerStatus, ViewEntry, Effects) {
        let inherit_started = self.profile.inherits_started();
        let has_init = !self.pod.init_containers.is_empty();
        let mut effects = Effects::default();
        let snap = self.runtime.pleg[c];
        let prev = *self.status.api.container(c.index());
        let mut st = ContainerStatus::default();
        let mut view = ViewEntry::default();
        let regular_init =
            self.pod.is_init(c.index()) && !self.pod.container(c.index()).restartable;
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
                st.restart_count = inst.shown_restarts();
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
                        let backoff = self.status.reason_cache[c]
                            .filter(|_| self.restarts(c, term.exit_code));
                        if let Some(backoff) = backoff {
                            st.state =
                                ContainerState::Waiting(Some(WaitingReason::CrashLoopBackOff {
                                    backoff,
                                }));
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
                .and_then(|w| self.prober.cache[w])
                .filter(|(cid, _)| Some(*cid) == id);
            st.started = match entry {
                Some((_, r)) => r == ProbeResult::Success,
                None if inherit_started && prev.started => true,
                None => !startup.is_some_and(|w| self.prober.workers[w].alive()),
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
                .and_then(|w| self.prober.cache[w])
                .filter(|(cid, _)| Some(*cid) == view.id)
                .map(|(_, r)| r);
            let worker_alive = readiness.filter(|w| self.prober.workers[*w].alive());
            st.ready = match (entry, self.profile.readiness_trigger) {
                (Some(ProbeResult::Success), _) => true,
                (Some(_), ReadinessTrigger::Never | ReadinessTrigger::NoEntry) => false,
                _ => match worker_alive {
                    Some(w) => {
                        if self.profile.readiness_trigger != ReadinessTrigger::Never {
                            effects.trigger = Some(w);
                        }
                        false
                    }
                    None => true,
                },
            };
        }
        if !regular_init && st.started && self.predates_kubelet_restart(&view) {
            // P45 (setReadyStateOnKubeletRestart), whenever the readiness cache does not
            // hold Success: a container that is not ready becomes ready while the cache is
            // still empty; then one with a readiness probe is not ready unless the pod was
            // Ready before. The second step also covers a container found ready because its
            // readiness worker does not exist yet (the first sync after the restart). The pod's
            // Ready condition is no input of the container's: recomputed every time.
            effects.volatile = true;
            let entry = self.cached_opt(c, ProbeKind::Readiness, view.id);
            if entry != Some(ProbeResult::Success) {
                if !st.ready && entry.is_none() {
                    st.ready = true;
                }
                let has_probe = self
                    .pod
                    .container(c.index())
                    .probe(ProbeKind::Readiness)
                    .is_some();
                if has_probe && !self.status.api.conditions.ready {
                    st.ready = false;
                }
            }
        }
        (st, view, effects)
    }

    /// Debug builds: every container not marked would recompute to the status and view it has,
    /// asking for nothing, and the counts match a recount.
    #[cfg(debug_assertions)]
    fn check_unmarked(&self) {
        for c in self.status.dirty.ids() {
            if !self.status.dirty[c] {
                let (st, view, effects) = self.container_status(c);
                assert_eq!(
                    (&st, &view, effects.volatile),
                    (
                        self.status.api.container(c.index()),
                        &self.status.view[c],
                        false
                    ),
                    "container {c}: an unmarked status input changed at t={}",
                    self.now
                );
                if let Some(w) = effects.trigger {
                    assert!(
                        self.prober.workers[w].pending_trigger,
                        "container {c}: its readiness worker took the trigger unnoticed at t={}",
                        self.now
                    );
                }
            }
        }
        self.check_tally();
    }

    /// Debug builds: the counts match a recount of the statuses and the snapshot.
    #[cfg(debug_assertions)]
    fn check_tally(&self) {
        assert_eq!(
            self.status.tally,
            Tally::of_all(&self.pod, &self.status.api),
            "the status counts drifted at t={}",
            self.now
        );
        let ni = self.pod.init_containers.len();
        let created = self.runtime.pleg.as_slice()[ni..]
            .iter()
            .filter(|s| s.newest.is_some())
            .count();
        assert_eq!(
            self.status.created_regular, created,
            "created regular containers"
        );
    }

    pub(super) fn write_container_status<S: Sink>(
        &mut self,
        c: ContainerId,
        st: ContainerStatus,
        out: &mut Out<'_, S>,
    ) {
        let now = self.now;
        let prev = *self.status.api.container(c.index());
        self.retally(c, &prev, &st);
        *self.status.api.container_mut(c.index()) = st;
        let name = &self.pod.container(c.index()).name;
        if prev.state != st.state
            || prev.restart_count != st.restart_count
            || prev.last_state != st.last_state
        {
            out.emit_for(
                now,
                c,
                EventKind::Status {
                    container: name,
                    status: self.status.api.container(c.index()),
                },
            );
        }
        if prev.started != st.started {
            out.emit_for(
                now,
                c,
                EventKind::Started {
                    container: name,
                    started: st.started,
                },
            );
        }
        if prev.ready != st.ready {
            out.emit_for(
                now,
                c,
                EventKind::Ready {
                    container: name,
                    ready: st.ready,
                },
            );
        }
    }

    /// R42: `Initialized`, `ContainersReady` and `Ready`.
    pub(super) fn update_ready_conditions<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        #[cfg(debug_assertions)]
        self.check_tally();
        let sidecars_count =
            self.profile.gate(Gate::SidecarContainers) && self.profile.sidecar_readiness_counts;
        let tally = &self.status.tally;
        // Every init container done (a sidecar counts once started), or, as the kubelet's
        // `GeneratePodInitializedCondition` adds for sidecars that restart later, a regular
        // container that is running or has run.
        let init_done = tally.init_undone == 0 || tally.regular_active > 0;
        let sidecars_ready = !sidecars_count || tally.sidecars_unready == 0;
        let all_ready = !self.status.api.containers.is_empty() && tally.regular_unready == 0;
        let containers_ready =
            all_ready && sidecars_ready && self.status.api.phase != Phase::Succeeded;
        // Readiness gates whose conditions nobody sets keep the pod from Ready.
        let ready = containers_ready && self.pod.readiness_gates == 0;
        self.status.api.conditions.initialized = init_done;
        self.status.api.conditions.containers_ready = containers_ready;
        if self.status.api.conditions.ready != ready {
            self.status.api.conditions.ready = ready;
            out.emit(self.now, EventKind::PodReady { ready });
        }
    }
}

/// What the phase (R43) and the conditions (R42) count over the containers' statuses: the sum
/// of [`Tally::of`] over the containers, kept as statuses are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct Tally {
    /// Regular init containers running, or waiting without having run.
    pending_init: u32,
    /// Regular init containers that exited non-zero (now or last time).
    failed_init: u32,
    /// Sidecars running but not started, or waiting without having run.
    pending_sidecars: u32,
    /// Containers (regular ones and sidecars) running.
    running: u32,
    /// Regular containers terminated, or waiting after having run.
    stopped: u32,
    /// Containers (regular ones and sidecars) waiting without having run.
    waiting: u32,
    /// Regular containers terminated with 0.
    succeeded: u32,
    /// Regular containers stopped that their restart policy (or rules) restarts.
    stopped_restartable: u32,
    /// Init containers not done: a sidecar not started, a regular one not ready.
    init_undone: u32,
    /// Sidecars not ready.
    sidecars_unready: u32,
    /// Regular containers running or terminated.
    regular_active: u32,
    /// Regular containers not ready.
    regular_unready: u32,
}

impl Tally {
    /// What one status counts: `init` is `Some(restartable)` for an init container;
    /// `restarts` says whether a regular container that exited with a code is restarted.
    fn of(init: Option<bool>, s: &ContainerStatus, restarts: impl Fn(i32) -> bool) -> Tally {
        let mut t = Tally::default();
        match init {
            Some(restartable) => {
                match (restartable, s.state) {
                    (false, ContainerState::Running { .. }) => t.pending_init = 1,
                    (false, ContainerState::Terminated(term)) => {
                        t.failed_init = u32::from(term.exit_code != 0);
                    }
                    (false, ContainerState::Waiting(_)) => match s.last_state {
                        Some(last) => t.failed_init = u32::from(last.exit_code != 0),
                        None => t.pending_init = 1,
                    },
                    (true, ContainerState::Running { .. }) => {
                        t.pending_sidecars = u32::from(!s.started);
                        t.running = 1;
                    }
                    (true, ContainerState::Terminated(_)) => {}
                    (true, ContainerState::Waiting(_)) => {
                        if s.last_state.is_none() {
                            t.pending_sidecars = 1;
                            t.waiting = 1;
                        }
                    }
                }
                t.init_undone = u32::from(if restartable { !s.started } else { !s.ready });
                t.sidecars_unready = u32::from(restartable && !s.ready);
            }
            None => {
                match s.state {
                    ContainerState::Running { .. } => t.running = 1,
                    ContainerState::Terminated(term) => {
                        t.stopped = 1;
                        t.succeeded = u32::from(term.exit_code == 0);
                        t.stopped_restartable = u32::from(restarts(term.exit_code));
                    }
                    ContainerState::Waiting(_) => match s.last_state {
                        Some(last) => {
                            t.stopped = 1;
                            t.stopped_restartable = u32::from(restarts(last.exit_code));
                        }
                        None => t.waiting = 1,
                    },
                }
                t.regular_active = u32::from(matches!(
                    s.state,
                    ContainerState::Running { .. } | ContainerState::Terminated(_)
                ));
                t.regular_unready = u32::from(!s.ready);
            }
        }
        t
    }

    /// The counts of a whole status.
    pub(super) fn of_all(pod: &PodSpec, status: &PodStatus) -> Tally {
        let mut t = Tally::default();
        for (spec, s) in pod.init_containers.iter().zip(&status.init_containers) {
            t.add(&Tally::of(Some(spec.restartable), s, |_| false));
        }
        for (spec, s) in pod.containers.iter().zip(&status.containers) {
            t.add(&Tally::of(None, s, |code| {
                spec.should_restart(pod.restart_policy, code)
            }));
        }
        t
    }

    fn fields(&mut self) -> [&mut u32; 12] {
        [
            &mut self.stopped_restartable,
            &mut self.pending_init,
            &mut self.failed_init,
            &mut self.pending_sidecars,
            &mut self.running,
            &mut self.stopped,
            &mut self.waiting,
            &mut self.succeeded,
            &mut self.init_undone,
            &mut self.sidecars_unready,
            &mut self.regular_active,
            &mut self.regular_unready,
        ]
    }

    fn add(&mut self, other: &Tally) {
        let mut other = *other;
        for (a, b) in self.fields().into_iter().zip(other.fields()) {
            *a += *b;
        }
    }

    fn sub(&mut self, other: &Tally) {
        let mut other = *other;
        for (a, b) in self.fields().into_iter().zip(other.fields()) {
            *a -= *b;
        }
    }
}

/// R43 `getPhase`, sidecar-aware, from the counts: `initialized` says whether a regular
/// container has been created.
fn compute_phase(policy: RestartPolicy, t: &Tally, initialized: bool, terminal: bool) -> Phase {
    if t.failed_init > 0 && policy == RestartPolicy::Never {
        Phase::Failed
    } else if t.pending_init > 0 || (t.pending_sidecars > 0 && !initialized) || t.waiting > 0 {
        Phase::Pending
    } else if t.running > 0 {
        Phase::Running
    } else if t.stopped > 0 && terminal {
        if t.stopped == t.succeeded {
            Phase::Succeeded
        } else {
            Phase::Failed
        }
    } else if t.stopped > 0 {
        // Every regular container has stopped: Running while one of them is to be restarted
        // (by the pod's policy, or from 1.34 by its own policy or rules: `ContainerShouldRestart`
        // in getPhase), else Succeeded or Failed. Without container-level policies this is the
        // pod-level rule of every release: Always restarts all, OnFailure the failed ones.
        if t.stopped_restartable > 0 {
            Phase::Running
        } else if t.stopped == t.succeeded {
            Phase::Succeeded
        } else {
            Phase::Failed
        }
    } else {
        Phase::Pending
    }
}

impl StatusManager {
    /// Walks the status, the view and the incremental status's bookkeeping for fast-forward.
    pub(super) fn visit(&mut self, v: &mut dyn Visitor, cx: &Walk) {
        let StatusManager {
            api,
            written,
            queue,
            dirty,
            tally,
            created_regular,
            running_regular,
            actionable,
            // A test setting, fixed for the run.
            #[cfg(test)]
                full: _,
            view,
            reason_cache,
        } = self;
        let PodStatus {
            phase,
            conditions,
            init_containers,
            containers,
            deletion_timestamp,
            removed,
        } = api;
        exact_hash(v, phase);
        exact_hash(v, conditions);
        for st in init_containers.iter_mut().chain(containers) {
            st.visit_cycle(v);
        }
        opt_time(v, deletion_timestamp);
        v.exact(u64::from(*removed));
        v.exact(u64::from(*written));
        for (c, entry) in view.iter_mut().enumerate() {
            let ViewEntry {
                id,
                running,
                terminated,
                started_at,
                started,
            } = entry;
            opt_id(v, id, cx.bases[c]);
            v.exact(u64::from(*running));
            exact_hash(v, terminated);
            // P15: the start matters only until the initial delay has passed.
            v.past(started_at, cx.young[c]);
            v.exact(u64::from(*started));
        }
        exact_hash(v, reason_cache);
        // Which containers are to be recomputed, and the counts the phase and conditions come
        // from.
        exact_hash(v, &(&*queue, &*dirty));
        exact_hash(v, &(*tally, *created_regular, *running_regular));
        exact_hash(v, actionable);
    }
}
