//! The container runtime and the PLEG: processes that start, receive signals and exit, and the
//! relists that notice it (R4, R5, R25).

use super::cycle::Walk;
use super::*;
use crate::cycle::{exact_hash, Visitor};

/// One container instance in the runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Instance {
    /// Per-container instance number: the "container ID". 64 bits, so that no run within the
    /// clock's range starts more instances than it can number.
    pub(super) id: u64,
    /// 64 bits for the same reason; the API's `restartCount` shows it saturated at `u32::MAX`.
    pub(super) restart_count: u64,
    pub(super) started_at: SimTime,
    /// `(finishedAt, exitCode)` once the process ended.
    pub(super) exited: Option<(SimTime, i32)>,
}

impl Instance {
    /// The restart count as the API shows it (`restartCount`), saturated at `u32::MAX`.
    pub(super) fn shown_restarts(&self) -> u32 {
        u32::try_from(self.restart_count).unwrap_or(u32::MAX)
    }

    pub(super) fn terminated(&self) -> Option<Terminated> {
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
pub(super) struct Instances {
    pub(super) newest: Option<Instance>,
    pub(super) previous: Option<Instance>,
}

impl Instances {
    /// Whether the newest instance is running.
    pub(super) fn running(&self) -> bool {
        self.newest.is_some_and(|i| i.exited.is_none())
    }

    /// The first exited instance, newest first (R30 step 1).
    pub(super) fn first_exited(&self) -> Option<Instance> {
        [self.newest, self.previous]
            .into_iter()
            .flatten()
            .find(|i| i.exited.is_some())
    }
}

/// The runtime side of one container: its instances and the process's pending exit.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Runtime {
    pub(super) instances: Instances,
    pub(super) next_id: u64,
    pub(super) image_present: bool,
    /// When the running process will exit, and with which code.
    pub(super) exit_at: Option<(SimTime, i32)>,
}

/// The container runtime (one `Runtime` per container) and the PLEG's cached snapshot of it.
#[derive(Clone)]
pub(super) struct ContainerRuntime {
    pub(super) containers: PerContainer<Runtime>,
    /// Containers whose process has an exit scheduled (`Runtime::exit_at`): none, and the
    /// kubelet-wide agenda skips the scan.
    pub(super) pending_exits: usize,
    /// The PLEG's snapshot, per container, as of its last relist.
    pub(super) pleg: PerContainer<Instances>,
    /// What the pod's first container start still waits after its sync
    /// ([`Simulation::delay_first_start`]); zero once served.
    pub(super) phase: SimDuration,
}

impl ContainerRuntime {
    /// A runtime with nothing running, for `pod`: the node has the images its apps say are
    /// present (`AppSpec::image_present`).
    pub(super) fn new(pod: &PodSpec) -> ContainerRuntime {
        let n = pod.container_count();
        let containers = (0..n)
            .map(|c| Runtime {
                image_present: pod.container(c).app.image_present,
                ..Runtime::default()
            })
            .collect();
        ContainerRuntime {
            containers: PerContainer::from_vec(containers),
            pending_exits: 0,
            pleg: PerContainer::from_vec(vec![Instances::default(); n]),
            phase: SimDuration::ZERO,
        }
    }
}

impl Simulation {
    pub(super) fn schedule_relist(&mut self, after: SimTime) {
        self.kubelet_timers_changed();
        let at = after.next_multiple_after(self.kubelet.pleg_period);
        self.timers.relist = Some(self.timers.relist.map_or(at, |t| t.min(at)));
    }

    /// The PLEG's snapshot of container `c` becomes `seen`. A sync that still reads the PLEG's
    /// snapshot as its own gets its copy first; the container's status is to be recomputed.
    pub(super) fn set_snapshot(&mut self, c: ContainerId, seen: Instances) {
        let old = self.runtime.pleg[c];
        if old == seen {
            return;
        }
        if self.pod_worker.job.shared {
            self.pod_worker.job.snapshot.copy_from(&self.runtime.pleg);
            self.pod_worker.job.shared = false;
        }
        if !self.pod.is_init(c.index()) {
            let count = |had: bool, has: bool, n: &mut usize| match (had, has) {
                (false, true) => *n += 1,
                (true, false) => *n -= 1,
                _ => {}
            };
            count(
                old.newest.is_some(),
                seen.newest.is_some(),
                &mut self.status.created_regular,
            );
            count(
                old.running(),
                seen.running(),
                &mut self.status.running_regular,
            );
        }
        self.runtime.pleg[c] = seen;
        self.container_changed(c);
    }

    /// Container `c`'s process is to exit at `exit` (or not at all), keeping the count of
    /// pending exits.
    pub(super) fn set_exit(&mut self, c: ContainerId, exit: Option<(SimTime, i32)>) {
        let rt = &mut self.runtime.containers[c];
        match (rt.exit_at.is_some(), exit.is_some()) {
            (false, true) => self.runtime.pending_exits += 1,
            (true, false) => self.runtime.pending_exits -= 1,
            _ => {}
        }
        rt.exit_at = exit;
    }

    /// The snapshot the current sync began with, of container `c`.
    pub(super) fn job_snapshot(&self, c: ContainerId) -> Instances {
        if self.pod_worker.job.shared {
            self.runtime.pleg[c]
        } else {
            self.pod_worker.job.snapshot[c]
        }
    }

    pub(super) fn relist(&mut self) {
        self.kubelet_timers_changed();
        let now = self.now;
        let mut changed = false;
        for c in self.runtime.containers.ids() {
            let seen = self.runtime.containers[c].instances;
            if seen != self.runtime.pleg[c] {
                changed = true;
                self.set_snapshot(c, seen);
            }
        }
        if self.pod_worker.gate_after.is_some_and(|g| g < now) {
            self.pod_worker.gate_after = None;
        }
        if changed {
            self.pod_worker.pending = Some(SyncTrigger::Pleg);
        }
        if self.pod_worker.pending.is_some()
            && !self.pod_worker.job.active
            && self.pod_worker.gate_after.is_none()
        {
            let trigger = self
                .pod_worker
                .pending
                .take()
                .unwrap_or(SyncTrigger::Pending);
            self.timers.sync_due = Some((now, trigger));
        }
    }

    pub(super) fn process_exit<S: Sink>(&mut self, c: ContainerId, out: &mut Out<'_, S>) {
        self.kubelet_timers_changed();
        let now = self.now;
        let Some((_, code)) = self.runtime.containers[c].exit_at else {
            return;
        };
        self.set_exit(c, None);
        if let Some(inst) = self.runtime.containers[c].instances.newest.as_mut() {
            inst.exited = Some((now, code));
        }
        out.emit_for(
            now,
            c,
            EventKind::Exit {
                container: &self.pod.container(c.index()).name,
                exit_code: code,
                reason: ExitReason::for_code(code),
            },
        );
        self.schedule_relist(now);
        self.cut_attempts(c);
        match self.pod_worker.job.stage {
            Some(Stage::WaitKill(i)) if self.pod_worker.job.kills[i].container == c => {
                self.pod_worker.job.stage = Some(Stage::Kill(i + 1));
                self.advance_job(out);
            }
            Some(Stage::WaitPodKill) => {
                let group = &self.pod_worker.job.kills[..self.pod_worker.job.parallel];
                let waiting = group
                    .iter()
                    .any(|k| self.runtime.containers[k.container].exit_at.is_some());
                if !waiting {
                    self.pod_worker.job.stage = Some(Stage::Kill(self.pod_worker.job.parallel));
                    self.advance_job(out);
                }
            }
            _ => {}
        }
    }

    /// A probe in flight against a process that just died ends now, as a failure
    /// (docs/semantics.md#mid-answer): the connection is reset for network handlers, and an
    /// exec'd command dies with
    /// the container (the runtime's ExecSync returns exit code 137, which the exec prober
    /// reports as a failure with the command's output).
    pub(super) fn cut_attempts(&mut self, c: ContainerId) {
        let now = self.now;
        let Some(dead) = self.runtime.containers[c].instances.newest.map(|i| i.id) else {
            return;
        };
        for w in self.prober.workers.ids() {
            let worker = self.prober.workers[w];
            let Some(f) = worker.in_flight else { continue };
            if worker.container != c || f.instance != dead || f.ends <= now {
                continue;
            }
            let handler = self
                .pod
                .container(c.index())
                .probe(worker.kind)
                .map(|p| p.handler());
            let output = handler.map_or(OutputKind::ExecKilled, cut_output);
            self.worker_changed(w);
            self.prober.workers[w].in_flight = Some(InFlight {
                ends: now,
                outcome: Outcome::Failure,
                output,
                ..f
            });
        }
    }

    /// Sends SIGTERM to container `c`'s process with a grace period
    /// (R25, docs/semantics.md#kills) and
    /// returns whether the process is still alive afterwards (the stop blocks until it exits).
    pub(super) fn signal(&mut self, c: ContainerId, hook: SimDuration, grace: SimDuration) -> bool {
        self.kubelet_timers_changed();
        // The signal goes out when the preStop hook is done (R24), and reaches the process
        // after the runtime's stop latency (docs/semantics.md#runtime-durations).
        let now = self
            .now
            .saturating_add(hook)
            .saturating_add(self.kubelet.kill_latency);
        let rt = &self.runtime.containers[c];
        let alive = rt.instances.running();
        if !alive {
            return false;
        }
        let (at, code) = match self.pod.container(c.index()).app.sigterm {
            Sigterm::Ignore => (now.saturating_add(grace), 137),
            Sigterm::Exit { code, after } if after < grace => {
                (now.saturating_add(after), code.unwrap_or(143))
            }
            Sigterm::Exit { .. } => (now.saturating_add(grace), 137),
        };
        let exit = match rt.exit_at {
            Some((own, own_code)) if own <= at => Some((own, own_code)),
            _ => Some((at, code)),
        };
        self.set_exit(c, exit);
        true
    }
}

/// What a probe gets whose process dies under it (docs/semantics.md#mid-answer): a failure,
/// the connection reset for HTTP, refused for TCP and gRPC; an exec'd command dies with the
/// container. Probes in flight at a death (`Simulation::cut_attempts`) and probes sent at the
/// instant of a one-instant restart (`Simulation::probe_target`) both end this way.
pub(super) fn cut_output(handler: &Handler) -> OutputKind {
    match handler {
        Handler::HttpGet { .. } => OutputKind::HttpReset,
        Handler::TcpSocket { .. } => OutputKind::TcpRefused,
        Handler::Grpc { .. } => OutputKind::GrpcRefused,
        Handler::Exec { .. } => OutputKind::ExecKilled,
    }
}

impl Instance {
    /// Walks an instance for fast-forward; its start as a point on the clock, or with
    /// `start_horizon` as a past time that matters only while younger than that.
    fn visit(
        i: &mut Option<Instance>,
        v: &mut dyn Visitor,
        base: u64,
        start_horizon: Option<SimDuration>,
    ) {
        v.exact(u64::from(i.is_some()));
        if let Some(Instance {
            id,
            restart_count,
            started_at,
            exited,
        }) = i
        {
            v.id(id, base, u64::MAX);
            v.count(restart_count, None, u64::MAX);
            match start_horizon {
                Some(h) => v.past(started_at, h),
                None => v.time(started_at),
            }
            v.exact(u64::from(exited.is_some()));
            if let Some((t, code)) = exited {
                v.time(t);
                exact_hash(v, code);
            }
        }
    }
}

impl Instances {
    /// Walks both instances for fast-forward ([`Instance::visit`]).
    pub(super) fn visit(
        &mut self,
        v: &mut dyn Visitor,
        base: u64,
        start_horizon: Option<SimDuration>,
    ) {
        let Instances { newest, previous } = self;
        Instance::visit(newest, v, base, start_horizon);
        Instance::visit(previous, v, base, start_horizon);
    }
}

impl ContainerRuntime {
    /// Per container, the next instance number the runtime hands out.
    pub(super) fn bases(&self) -> Vec<u64> {
        self.containers.iter().map(|r| r.next_id).collect()
    }

    /// Walks the runtime and the PLEG's snapshot for fast-forward.
    pub(super) fn visit(&mut self, v: &mut dyn Visitor, cx: &Walk) {
        let ContainerRuntime {
            containers,
            pending_exits,
            pleg,
            phase,
        } = self;
        v.exact(phase.as_millis());
        for (c, rt) in containers.iter_mut().enumerate() {
            let Runtime {
                instances,
                next_id,
                image_present,
                exit_at,
            } = rt;
            instances.visit(v, cx.bases[c], cx.start_horizon(ContainerId::new(c)));
            v.count(next_id, None, u64::MAX);
            v.exact(u64::from(*image_present));
            v.exact(u64::from(exit_at.is_some()));
            if let Some((t, code)) = exit_at {
                v.time(t);
                exact_hash(v, code);
            }
        }
        for (c, s) in pleg.iter_mut().enumerate() {
            s.visit(v, cx.bases[c], cx.start_horizon(ContainerId::new(c)));
        }
        v.exact(*pending_exits as u64);
    }
}
