//! The pod worker: syncs and their stages, kills, starts, back-off, requeues, deletion and
//! kubelet restarts (R3–R34, R58–R62). What a sync kills and starts is in pod_actions.rs.

use super::cycle::Walk;
use super::*;
use crate::cycle::{exact_hash, opt_time, Visitor};

/// One flowcontrol.Backoff entry (R27).
#[derive(Clone, Copy, Debug)]
pub(super) struct BackOffEntry {
    pub(super) backoff: SimDuration,
    pub(super) last_update: SimTime,
}

/// A kill the current sync performs.
#[derive(Clone, Copy, Debug, Hash)]
pub(super) struct Kill {
    pub(super) container: ContainerId,
    pub(super) reason: KillReason,
    pub(super) cause: KillCause,
    pub(super) message: KillMessage,
}

/// Where a blocked sync resumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Stage {
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
    /// The runtime creates and starts `starts[i]` (`KubeletConfig::start_latency`).
    Create(usize),
    /// Waiting out the start phase before the pod's first container start, `starts[i]`
    /// ([`Simulation::delay_first_start`]).
    Phase(usize),
}

/// The sync in progress (one pod worker, R3).
#[derive(Clone, Debug, Default)]
pub(super) struct SyncJob {
    pub(super) active: bool,
    pub(super) stage: Option<Stage>,
    /// The snapshot the sync began with, copied only once a relist changes the PLEG's
    /// (`shared` until then: the sync reads the PLEG's own).
    pub(super) snapshot: PerContainer<Instances>,
    pub(super) shared: bool,
    pub(super) kills: Vec<Kill>,
    /// R15: the kills are a whole-pod kill: the first `parallel` at once (all of them; a
    /// sidecar's signal waits for its turn, R61).
    pub(super) pod_kill: bool,
    pub(super) parallel: usize,
    pub(super) starts: Vec<ContainerId>,
    /// When the runtime step the sync waits for ends: an image pull ([`Stage::Pull`]) or a
    /// create and start ([`Stage::Create`]).
    pub(super) pull_end: Option<SimTime>,
    pub(super) changed: bool,
    pub(super) backoff_expiry: Option<SimTime>,
}

/// The pod worker (`podWorkers` and `syncPod`): the sync in progress and the requests waiting
/// for it, the back-off entries, the sandbox and the pod's deletion.
#[derive(Clone)]
pub(super) struct PodWorker {
    pub(super) job: SyncJob,
    /// A sync requested while one runs (or while the post-sync gate holds), with its trigger.
    pub(super) pending: Option<SyncTrigger>,
    /// Probe result updates on their way to `UpdatePod`: when each arrives and its container,
    /// ordered by time, then container, then arrival (R64; docs/semantics.md#delayed-syncs).
    /// One entry per update: none absorbs or replaces another.
    pub(super) updates: Vec<(SimTime, ContainerId)>,
    /// The last sync changed something: no sync starts before a relist strictly after this
    /// (R4).
    pub(super) gate_after: Option<SimTime>,
    /// A pod sync ended in the step just taken: a point where fast-forward compares states.
    pub(super) sync_ended: bool,
    /// The pod reached a terminal phase: no more syncs.
    pub(super) terminal: bool,
    /// Per container, its flowcontrol.Backoff entry (R27).
    pub(super) backoff: PerContainer<Option<BackOffEntry>>,
    pub(super) sandbox_ready: bool,
    /// A whole-pod kill stopped the sandbox after its containers (`killPodWithSyncResult`), so
    /// `PodReadyToStartContainers` turns False at the next status (R42).
    pub(super) sandbox_stopped: bool,
    /// The pod has a deletion timestamp with this grace period.
    pub(super) deleting: Option<SimDuration>,
}

impl PodWorker {
    /// A pod worker that has not synced, for a pod of `n` containers.
    pub(super) fn new(n: usize) -> PodWorker {
        PodWorker {
            job: SyncJob {
                snapshot: PerContainer::from_vec(vec![Instances::default(); n]),
                kills: Vec::with_capacity(n),
                starts: Vec::with_capacity(n),
                ..SyncJob::default()
            },
            pending: None,
            updates: Vec::with_capacity(2 * ProbeKind::ALL.len() * n),
            gate_after: None,
            sync_ended: false,
            terminal: false,
            backoff: PerContainer::from_vec(vec![None; n]),
            sandbox_ready: false,
            sandbox_stopped: false,
            deleting: None,
        }
    }
}

impl Simulation {
    pub(super) fn request_sync<S: Sink>(&mut self, trigger: SyncTrigger, out: &mut Out<'_, S>) {
        if self.pod_worker.terminal {
            return;
        }
        if self.pod_worker.job.active || self.pod_worker.gate_after.is_some() {
            if self.pod_worker.pending.is_none() {
                self.pod_worker.pending = Some(trigger);
            }
            return;
        }
        self.run_sync(trigger, out);
    }

    /// A probe result update leaves the results manager; it reaches `UpdatePod` at `at`, after
    /// every probe of that instant (R63, R64; docs/semantics.md#delayed-syncs, docs/semantics.md#one-sync).
    pub(super) fn queue_update(&mut self, at: SimTime, c: ContainerId) {
        self.kubelet_timers_changed();
        let updates = &mut self.pod_worker.updates;
        let i = updates.partition_point(|&u| u <= (at, c));
        updates.insert(i, (at, c));
    }

    /// The first waiting probe result update reaches `UpdatePod` (R3).
    pub(super) fn deliver_update<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        if self.pod_worker.updates.is_empty() {
            return;
        }
        self.pod_worker.updates.remove(0);
        self.request_sync(SyncTrigger::Probe, out);
    }

    pub(super) fn run_sync<S: Sink>(&mut self, trigger: SyncTrigger, out: &mut Out<'_, S>) {
        self.kubelet_timers_changed();
        let now = self.now;
        if self.pod_worker.deleting.is_some() {
            self.run_termination_sync(out);
            return;
        }
        out.emit(now, EventKind::Sync { trigger });
        // The status is generated from the PLEG's cached snapshot before anything else (R11).
        self.generate_status(out);
        if self.status.api.phase.is_terminal() {
            if self.any_running() {
                // R45, R61: a pod that reached a terminal phase with containers still running
                // (a sidecar next to a failed init container, say) has them stopped; the sync
                // after that finds nothing running and the pod is done.
                self.pod_worker.job.shared = true;
                let cause = self.terminal_cause();
                self.kill_all(KillReason::Unknown, cause);
                self.begin_job(out);
                return;
            }
            self.pod_worker.terminal = true;
            self.timers.requeue = None;
            self.pod_worker.pending = None;
            return;
        }
        self.add_pod();
        self.compute_pod_actions();
        self.pod_worker.sandbox_ready = true;
        self.begin_job(out);
    }

    /// Runs the kills and starts the sync decided on.
    fn begin_job<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        self.pod_worker.job.active = true;
        self.pod_worker.job.changed = false;
        self.pod_worker.job.backoff_expiry = None;
        self.pod_worker.job.stage = Some(Stage::Kill(0));
        self.advance_job(out);
    }

    /// Whether the PLEG's snapshot shows a container running.
    pub(super) fn any_running(&self) -> bool {
        self.runtime.pleg.iter().any(Instances::running)
    }

    /// A sync of a pod with a deletion timestamp: `SyncTerminatingPod` while containers run
    /// (P12, R22–R25), then `SyncTerminatedPod` once they are all gone.
    pub(super) fn run_termination_sync<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        let now = self.now;
        if !self.any_running() {
            out.emit(
                now,
                EventKind::Sync {
                    trigger: SyncTrigger::Terminated,
                },
            );
            self.generate_status(out);
            if self.profile.terminal_phase_forcing && !self.status.api.phase.is_terminal() {
                // TerminatePod: a pod removed before it could finish (still initializing, say)
                // ends Failed.
                self.status.api.phase = Phase::Failed;
                out.emit(
                    now,
                    EventKind::Phase {
                        phase: Phase::Failed,
                    },
                );
            }
            for w in self.prober.workers.ids() {
                self.stop_worker(w);
            }
            self.pod_worker.terminal = true;
            self.timers.requeue = None;
            self.pod_worker.pending = None;
            self.status.api.removed = true;
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
            for w in self.prober.workers.ids() {
                let worker = self.prober.workers[w];
                if !self.pod.is_init(worker.container.index())
                    && worker.kind != ProbeKind::Readiness
                {
                    self.stop_worker(w);
                }
            }
        }
        self.pod_worker.job.shared = true;
        self.kill_all(KillReason::Deletion, KillCause::Deletion);
        self.begin_job(out);
    }

    /// The API deletion of the pod (`deleteAt`).
    pub(super) fn delete<S: Sink>(&mut self, grace: Option<SimDuration>, out: &mut Out<'_, S>) {
        if self.pod_worker.deleting.is_some() || self.status.api.removed {
            return;
        }
        // The API server's delete path turns a negative grace period into 1 s.
        let pod_grace = u64::try_from(self.pod.termination_grace_period_seconds).unwrap_or(1);
        let grace = grace.unwrap_or(SimDuration::from_secs(pod_grace));
        self.pod_worker.deleting = Some(grace);
        self.status.api.deletion_timestamp = Some(self.now);
        out.emit(self.now, EventKind::Delete { grace });
        if self.pod_worker.terminal {
            // A pod that already finished has nothing to stop: its object goes at once.
            self.status.api.removed = true;
            out.emit(self.now, EventKind::Deleted);
            return;
        }
        self.request_sync(SyncTrigger::Terminating, out);
    }

    /// The kubelet process restarts: everything it kept in memory is gone (P5, R27).
    pub(super) fn kubelet_restart<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        if self.pod_worker.terminal || !self.created {
            return;
        }
        let now = self.now;
        out.emit(now, EventKind::KubeletRestart);
        for w in self.prober.workers.ids() {
            self.exit_worker(w);
        }
        self.pod_worker.job.active = false;
        self.pod_worker.job.stage = None;
        self.pod_worker.job.pull_end = None;
        self.pod_worker.pending = None;
        self.pod_worker.updates.clear();
        self.pod_worker.gate_after = None;
        self.timers.sync_due = None;
        self.timers.requeue = None;
        self.status.reason_cache.fill(None);
        self.pod_worker.backoff.fill(None);
        self.prober.kubelet_started = Some(now);
        // Every status input may have changed (back-off reasons, the kubelet's start).
        self.all_containers_changed();
        // The new kubelet's first relist sees the runtime as it is now.
        for c in self.runtime.containers.ids() {
            self.set_snapshot(c, self.runtime.containers[c].instances);
        }
        self.request_sync(SyncTrigger::KubeletRestart, out);
    }

    /// Runs the current sync until it blocks or ends.
    pub(super) fn advance_job<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        self.kubelet_timers_changed();
        loop {
            let Some(stage) = self.pod_worker.job.stage else {
                self.finish_sync();
                return;
            };
            match stage {
                Stage::Kill(0)
                    if self.pod_worker.job.pod_kill && self.pod_worker.job.parallel > 0 =>
                {
                    // R15: every container is stopped at once; a sidecar's signal waits for its
                    // turn (R61).
                    let mut waiting = false;
                    for i in 0..self.pod_worker.job.parallel {
                        let kill = self.pod_worker.job.kills[i];
                        waiting |= self.kill(kill, out);
                    }
                    if waiting {
                        self.pod_worker.job.stage = Some(Stage::WaitPodKill);
                        return;
                    }
                    self.pod_worker.job.stage = Some(Stage::Kill(self.pod_worker.job.parallel));
                }
                Stage::Kill(i) if i < self.pod_worker.job.kills.len() => {
                    let kill = self.pod_worker.job.kills[i];
                    if self.kill(kill, out) {
                        self.pod_worker.job.stage = Some(Stage::WaitKill(i));
                        return;
                    }
                    self.pod_worker.job.stage = Some(Stage::Kill(i + 1));
                }
                Stage::Kill(_) => {
                    // A whole-pod kill ends by stopping the sandbox.
                    if self.pod_worker.job.pod_kill {
                        self.pod_worker.sandbox_stopped = true;
                    }
                    self.pod_worker.job.stage = Some(Stage::Start(0));
                }
                Stage::WaitKill(_)
                | Stage::WaitPodKill
                | Stage::Pull(_)
                | Stage::Create(_)
                | Stage::Phase(_) => return,
                Stage::Start(i) if i < self.pod_worker.job.starts.len() => {
                    let c = self.pod_worker.job.starts[i];
                    if self.start(c, i, out) {
                        return;
                    }
                    self.pod_worker.job.stage = Some(Stage::Start(i + 1));
                }
                Stage::Start(_) => self.pod_worker.job.stage = None,
            }
        }
    }

    /// Begins one kill (R22–R25): returns whether the sync must wait for the process.
    pub(super) fn kill<S: Sink>(&mut self, kill: Kill, out: &mut Out<'_, S>) -> bool {
        let now = self.now;
        let c = kill.container;
        let spec = self.pod.container(c.index());
        // R22: the deletion's grace period, else the probe's own, else the pod's.
        let probe_grace = match kill.reason {
            KillReason::LivenessProbe => spec.probe(ProbeKind::Liveness),
            KillReason::StartupProbe => spec.probe(ProbeKind::Startup),
            KillReason::Unknown | KillReason::Deletion => None,
        }
        .and_then(|p| p.termination_grace_period_seconds())
        .filter(|_| self.profile.probe_grace_period());
        let seconds = probe_grace.unwrap_or(self.pod.termination_grace_period_seconds);
        let grace = match self.pod_worker.deleting {
            Some(g) => g,
            None => SimDuration::from_secs(u64::try_from(seconds).unwrap_or(0)),
        };
        // R24: the Killing event first; then a preStop hook runs, for at most the grace period,
        // and its whole seconds come off what is left.
        let hook = spec
            .app
            .pre_stop
            .filter(|_| !grace.is_zero())
            .map_or(SimDuration::ZERO, |d| d.min(grace));
        let mut remaining = grace.saturating_sub(SimDuration::from_secs(hook.whole_secs()));
        // R24, R61: in a pod kill a sidecar then waits for its turn, at most what is left of
        // its grace period; the whole seconds waited come off too.
        let mut wait = SimDuration::ZERO;
        let sidecar = self.pod_worker.job.pod_kill
            && self.pod.is_init(c.index())
            && spec.restartable
            && self.profile.sidecar_termination_ordering;
        if let Some(turn) = self
            .sidecar_turn(c)
            .filter(|_| sidecar && !remaining.is_zero())
        {
            let hook_end = now.saturating_add(hook);
            wait = turn.saturating_since(hook_end).min(remaining);
            remaining = remaining.saturating_sub(SimDuration::from_secs(wait.whole_secs()));
        }
        // The signal always gets at least 2 s.
        let remaining = remaining.max(MIN_GRACE);
        let grace = grace.max(MIN_GRACE);
        out.emit_for(
            now,
            c,
            EventKind::Kill {
                container: &spec.name,
                reason: kill.reason,
                cause: kill.cause,
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
        self.pod_worker.job.changed = true;
        self.signal(c, hook.saturating_add(wait), remaining)
    }

    /// One start (R16, R30, R57): returns whether the sync must wait for a pull or the
    /// runtime's create and start.
    pub(super) fn start<S: Sink>(
        &mut self,
        c: ContainerId,
        i: usize,
        out: &mut Out<'_, S>,
    ) -> bool {
        let now = self.now;
        if let Some(backoff) = self.do_backoff(c) {
            self.status.reason_cache[c] = Some(backoff.0);
            self.container_changed(c);
            let spec = self.pod.container(c.index());
            out.emit_for(
                now,
                c,
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
            self.pod_worker.job.backoff_expiry = Some(
                self.pod_worker
                    .job
                    .backoff_expiry
                    .map_or(expiry, |e| e.min(expiry)),
            );
            return false;
        }
        // The pod's first container start waits out the start phase (its offset on the probe
        // workers' tick grid), once.
        if !self.runtime.phase.is_zero() {
            self.pod_worker.job.pull_end = Some(now.saturating_add(self.runtime.phase));
            self.pod_worker.job.stage = Some(Stage::Phase(i));
            self.pod_worker.job.changed = true;
            return true;
        }
        let spec = self.pod.container(c.index());
        let pull = match spec.pull_policy {
            PullPolicy::Always => true,
            PullPolicy::IfNotPresent => !self.runtime.containers[c].image_present,
            PullPolicy::Never => false,
        };
        if spec.app.pulls() {
            if pull {
                self.kube_event(
                    out,
                    c,
                    EventType::Normal,
                    "Pulling",
                    Message::Pulling { image: &spec.image },
                );
                let took = spec.app.pull_time(self.runtime.containers[c].image_present);
                self.pod_worker.job.pull_end = Some(now.saturating_add(took));
                self.pod_worker.job.stage = Some(Stage::Pull(i));
                self.pod_worker.job.changed = true;
                return true;
            }
            self.kube_event(
                out,
                c,
                EventType::Normal,
                "Pulled",
                Message::AlreadyPresent {
                    image: &spec.image,
                    wording: self.profile.present_wording(),
                },
            );
        }
        self.runtime.containers[c].image_present = true;
        if self.begin_create(c, i) {
            return true;
        }
        self.create_and_start(c, out);
        false
    }

    /// With a start latency, the runtime's create and start of `starts[i]` begins: the sync
    /// waits for it ([`Stage::Create`]). Returns whether it waits.
    pub(super) fn begin_create(&mut self, c: ContainerId, i: usize) -> bool {
        let latency = self.kubelet.start_latency;
        if latency.is_zero() {
            return false;
        }
        debug_assert_eq!(self.pod_worker.job.starts[i], c);
        self.kubelet_timers_changed();
        self.pod_worker.job.pull_end = Some(self.now.saturating_add(latency));
        self.pod_worker.job.stage = Some(Stage::Create(i));
        self.pod_worker.job.changed = true;
        true
    }

    /// `Created`, `Started`, and a new instance in the runtime (R16, R36, R57).
    pub(super) fn create_and_start<S: Sink>(&mut self, c: ContainerId, out: &mut Out<'_, S>) {
        self.kubelet_timers_changed();
        let now = self.now;
        let spec = self.pod.container(c.index());
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
        let restart_count = self
            .job_snapshot(c)
            .newest
            .map_or(0, |i| i.restart_count + 1);
        let shown = u32::try_from(restart_count).unwrap_or(u32::MAX);
        let rt = &mut self.runtime.containers[c];
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
        let exit = spec.app.exit.map(|e| (now.saturating_add(e.after), e.code));
        self.set_exit(c, exit);
        self.status.reason_cache[c] = None;
        self.container_changed(c);
        self.pod_worker.job.changed = true;
        out.emit_for(
            now,
            c,
            EventKind::Start {
                container: &self.pod.container(c.index()).name,
                restart_count: shown,
            },
        );
        self.schedule_relist(now);
    }

    /// R30 `doBackOff` on the sync's snapshot: `Some((backoff, expiry))` when in back-off.
    pub(super) fn do_backoff(&mut self, c: ContainerId) -> Option<(SimDuration, SimTime)> {
        let now = self.now;
        let dead = self.job_snapshot(c).first_exited()?;
        let (ts, _) = dead.exited?;
        let (initial, max) = self
            .profile
            .crash_loop_backoff(self.kubelet.max_container_restart_period);
        // GC (R27) drops entries not updated for 10 minutes.
        if self.pod_worker.backoff[c]
            .is_some_and(|e| now.saturating_since(e.last_update) > BACKOFF_EXPIRY)
        {
            self.pod_worker.backoff[c] = None;
        }
        let expired = |e: &BackOffEntry| ts.saturating_since(e.last_update) > BACKOFF_EXPIRY;
        if let Some(e) = self.pod_worker.backoff[c] {
            if !expired(&e) && now.saturating_since(ts) < e.backoff {
                return Some((e.backoff, ts.saturating_add(e.backoff)));
            }
        }
        let backoff = match self.pod_worker.backoff[c] {
            Some(e) if !expired(&e) => e.backoff.saturating_mul(2).min(max),
            _ => initial,
        };
        self.pod_worker.backoff[c] = Some(BackOffEntry {
            backoff,
            last_update: now,
        });
        None
    }

    pub(super) fn finish_sync(&mut self) {
        self.kubelet_timers_changed();
        let now = self.now;
        self.pod_worker.job.active = false;
        self.pod_worker.sync_ended = true;
        // R6–R8: requeue.
        let (delay, trigger) = match self.pod_worker.job.backoff_expiry {
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
        self.timers.requeue = Some((now.saturating_add(delay), trigger));
        if self.pod_worker.deleting.is_some() {
            // RemovePod: every worker stops once the containers are gone.
            for w in self.prober.workers.ids() {
                self.stop_worker(w);
            }
            if !self.pod_worker.job.changed {
                self.pod_worker.pending = Some(SyncTrigger::Terminated);
            }
        }
        // R4: whatever this sync did, the next one waits for a relist strictly after it ended
        // (docs/semantics.md#pacing); the relist lets a pending update through.
        self.pod_worker.gate_after = Some(now);
        self.schedule_relist(now);
    }

    pub(super) fn jittered(&mut self, d: SimDuration) -> SimDuration {
        if !self.kubelet.jitter || d.is_zero() {
            return d;
        }
        // wait.Jitter(d, 0.5): d + U[0, 0.5·d).
        let extra = uniform_below(&mut self.rng, d.as_millis() / 2);
        d.saturating_add(SimDuration::from_millis(extra))
    }

    pub(super) fn pod_name(&self) -> PodName<'_> {
        PodName {
            name: &self.pod.name,
            namespace: &self.pod.namespace,
            uid: &self.pod.uid,
        }
    }
}

/// R17 `ShouldContainerBeRestarted` for an exited container.
pub(super) fn should_restart(policy: RestartPolicy, exit_code: i32) -> bool {
    match policy {
        RestartPolicy::Always => true,
        RestartPolicy::OnFailure => exit_code != 0,
        RestartPolicy::Never => false,
    }
}

impl PodWorker {
    /// Walks the pod worker and the sync in progress for fast-forward.
    pub(super) fn visit(&mut self, v: &mut dyn Visitor, cx: &Walk) {
        let PodWorker {
            job,
            pending,
            updates,
            gate_after,
            // Cleared before every comparison.
            sync_ended: _,
            terminal,
            backoff,
            sandbox_ready,
            sandbox_stopped,
            deleting,
        } = self;
        v.exact(u64::from(*terminal));
        for entry in backoff.iter_mut() {
            v.exact(u64::from(entry.is_some()));
            if let Some(BackOffEntry {
                backoff,
                last_update,
            }) = entry
            {
                v.exact(backoff.as_millis());
                v.time(last_update);
            }
        }
        v.exact(u64::from(*sandbox_ready));
        v.exact(u64::from(*sandbox_stopped));
        exact_hash(v, deleting);
        job.visit(v, cx);
        exact_hash(v, pending);
        v.exact(updates.len() as u64);
        for (t, c) in updates.iter_mut() {
            v.time(t);
            exact_hash(v, c);
        }
        opt_time(v, gate_after);
    }
}

impl SyncJob {
    /// Walks the sync in progress for fast-forward.
    fn visit(&mut self, v: &mut dyn Visitor, cx: &Walk) {
        let SyncJob {
            active,
            stage,
            snapshot,
            shared,
            kills,
            pod_kill,
            parallel,
            starts,
            pull_end,
            changed,
            backoff_expiry,
        } = self;
        v.exact(u64::from(*active));
        exact_hash(v, stage);
        // Empty while the sync reads the PLEG's snapshot (`shared`).
        v.exact(u64::from(*shared));
        v.exact(snapshot.len() as u64);
        for (c, s) in snapshot.iter_mut().enumerate() {
            s.visit(v, cx.bases[c], cx.start_horizon(ContainerId::new(c)));
        }
        exact_hash(v, kills);
        v.exact(u64::from(*pod_kill));
        v.exact(*parallel as u64);
        exact_hash(v, starts);
        opt_time(v, pull_end);
        v.exact(u64::from(*changed));
        opt_time(v, backoff_expiry);
    }
}
