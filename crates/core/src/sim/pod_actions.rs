//! computePodActions: what a sync kills and starts, init containers' turn, and which exits
//! restart (R13–R18, R60, R61).

use super::pod_worker::{should_restart, Kill};
use super::*;

impl Simulation {
    /// R13–R18, R60, R61: what this sync kills and starts, from the snapshot it started with.
    /// Starts are listed init containers first, in spec order, then regular containers.
    pub(super) fn compute_pod_actions(&mut self) {
        let ni = self.pod.init_containers.len();
        let n = self.pod.container_count();
        self.pod_worker.job.shared = true;
        self.pod_worker.job.kills.clear();
        self.pod_worker.job.starts.clear();
        self.pod_worker.job.pod_kill = false;
        self.pod_worker.job.parallel = 0;
        if !self.pod_worker.sandbox_ready {
            // The first sync creates the sandbox: the first init container, or every regular
            // container, starts.
            if ni > 0 {
                self.pod_worker.job.starts.push(ContainerId::new(0));
            } else {
                self.pod_worker.job.starts.extend(ContainerId::range(ni..n));
            }
            return;
        }
        if ni > 0 {
            let initialized = self.compute_init_actions();
            if self.pod_worker.job.pod_kill {
                self.kill_pod(KillCause::InitFailed);
                return;
            }
            if !initialized {
                return;
            }
        }
        #[cfg(debug_assertions)]
        self.check_actionable();
        // The containers left out run with no failure cached: kept.
        let mut keep = (n - ni) - self.status.actionable.len();
        let mut regular_starts = 0usize;
        for &c in &self.status.actionable {
            match self.job_snapshot(c).newest {
                Some(inst) if inst.exited.is_none() => {
                    let restart = self
                        .pod
                        .container(c.index())
                        .restarts_after_probe_kill(self.pod.restart_policy);
                    let verdict = if self.cached(c, ProbeKind::Liveness, inst.id)
                        == Some(ProbeResult::Failure)
                    {
                        Some((
                            KillReason::LivenessProbe,
                            KillCause::Liveness,
                            KillMessage::Liveness { restart },
                        ))
                    } else if self.cached(c, ProbeKind::Startup, inst.id)
                        == Some(ProbeResult::Failure)
                    {
                        Some((
                            KillReason::StartupProbe,
                            KillCause::Startup,
                            KillMessage::Startup { restart },
                        ))
                    } else {
                        None
                    };
                    match verdict {
                        Some((reason, cause, message)) => {
                            self.pod_worker.job.kills.push(Kill {
                                container: c,
                                reason,
                                cause,
                                message,
                            });
                            if restart {
                                self.pod_worker.job.starts.push(c);
                                regular_starts += 1;
                            }
                        }
                        None => keep += 1,
                    }
                }
                Some(Instance { exited, .. }) => {
                    let code = exited.map_or(0, |(_, code)| code);
                    if self.restarts(c, code) {
                        self.pod_worker.job.starts.push(c);
                        regular_starts += 1;
                    }
                }
                None => {
                    self.pod_worker.job.starts.push(c);
                    regular_starts += 1;
                }
            }
        }
        if keep == 0 && regular_starts == 0 {
            // R15, R61: nothing to keep and nothing to start: the whole pod is killed, with an
            // empty message; sidecars cannot keep it alive. What led to it is the probe kill
            // decided on above, if any (a liveness failure under `restartPolicy: Never`).
            let cause = self
                .pod_worker
                .job
                .kills
                .iter()
                .find(|k| !self.pod.is_init(k.container.index()))
                .map_or(KillCause::PodCompleted, |k| k.cause);
            self.kill_pod(cause);
        }
    }

    /// Whether a sync keeps regular container `c` as it is: it runs, with no liveness or
    /// startup failure cached for its instance (R13, R14).
    fn kept(&self, c: ContainerId) -> bool {
        match self.runtime.pleg[c].newest {
            Some(inst) if inst.exited.is_none() => {
                self.cached(c, ProbeKind::Liveness, inst.id) != Some(ProbeResult::Failure)
                    && self.cached(c, ProbeKind::Startup, inst.id) != Some(ProbeResult::Failure)
            }
            _ => false,
        }
    }

    /// Container `c`'s snapshot or cached results changed: is it still kept?
    pub(super) fn update_actionable(&mut self, c: ContainerId) {
        if self.pod.is_init(c.index()) {
            return;
        }
        match (self.status.actionable.binary_search(&c), self.kept(c)) {
            (Ok(i), true) => {
                self.status.actionable.remove(i);
            }
            (Err(i), false) => self.status.actionable.insert(i, c),
            _ => {}
        }
    }

    /// Debug builds: the actionable set is what a scan finds.
    #[cfg(debug_assertions)]
    fn check_actionable(&self) {
        let ni = self.pod.init_containers.len();
        let scan: Vec<ContainerId> = ContainerId::range(ni..self.pod.container_count())
            .filter(|&c| !self.kept(c))
            .collect();
        assert_eq!(
            self.status.actionable, scan,
            "actionable containers at t={}",
            self.now
        );
        let running = self.runtime.pleg.as_slice()[ni..]
            .iter()
            .filter(|s| s.running())
            .count();
        assert_eq!(
            self.status.running_regular, running,
            "running regular containers"
        );
    }

    /// `computeInitContainerActions` (R18, R59–R61): returns whether the pod is initialized.
    pub(super) fn compute_init_actions(&mut self) -> bool {
        let ni = self.pod.init_containers.len();
        // The sync reads the PLEG's snapshot as its own here (shared), so the count is its.
        debug_assert!(self.pod_worker.job.shared);
        let mut initialized = self.status.running_regular > 0;
        let mut previously_initialized = initialized;
        let restart_on_failure = self.pod.restart_policy != RestartPolicy::Never;
        let mut starts: Vec<ContainerId> = Vec::new();
        for i in ContainerId::range(0..ni).rev() {
            let restartable = self.pod.init_containers[i.index()].restartable;
            let Some(inst) = self.job_snapshot(i).newest else {
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
                    let spec = &self.pod.init_containers[i.index()];
                    if spec.probe(ProbeKind::Startup).is_some() {
                        match self.cached(i, ProbeKind::Startup, inst.id) {
                            Some(ProbeResult::Success) => {}
                            Some(ProbeResult::Failure) => {
                                self.pod_worker.job.kills.push(Kill {
                                    container: i,
                                    reason: KillReason::StartupProbe,
                                    cause: KillCause::Startup,
                                    message: KillMessage::InitStartup,
                                });
                                starts.push(i);
                                break 'running;
                            }
                            Some(ProbeResult::Unknown) | None => break 'running,
                        }
                    }
                    if i.index() + 1 == ni {
                        initialized = true;
                    } else if !previously_initialized {
                        starts.push(ContainerId::new(i.index() + 1));
                    }
                    if self.pod.init_containers[i.index()]
                        .probe(ProbeKind::Liveness)
                        .is_some()
                        && self.cached(i, ProbeKind::Liveness, inst.id)
                            == Some(ProbeResult::Failure)
                    {
                        self.pod_worker.job.kills.push(Kill {
                            container: i,
                            reason: KillReason::LivenessProbe,
                            cause: KillCause::Liveness,
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
                        self.pod_worker.job.pod_kill = true;
                        return false;
                    }
                    starts.push(i);
                }
                Some(_) => {
                    if i.index() + 1 == ni {
                        initialized = true;
                    } else {
                        starts.push(ContainerId::new(i.index() + 1));
                    }
                }
            }
            previously_initialized = true;
        }
        if !previously_initialized {
            starts.push(ContainerId::new(0));
        }
        starts.reverse();
        self.pod_worker.job.starts.extend(starts);
        initialized
    }

    /// R15, R61: kill every running container. Nothing is started.
    pub(super) fn kill_pod(&mut self, cause: KillCause) {
        self.kill_all(KillReason::Unknown, cause);
    }

    /// What led to stopping what still runs in a pod whose phase is terminal: an init container
    /// that failed for good, or the end of the regular containers.
    pub(super) fn terminal_cause(&self) -> KillCause {
        let ni = self.pod.init_containers.len();
        let init_failed = ContainerId::range(0..ni).any(|i| {
            !self.pod.init_containers[i.index()].restartable
                && self.runtime.pleg[i]
                    .newest
                    .and_then(|inst| inst.exited)
                    .is_some_and(|(_, code)| code != 0)
        });
        if init_failed {
            KillCause::InitFailed
        } else {
            KillCause::PodCompleted
        }
    }

    /// Kills every running container at once, as `killContainersWithSyncResult` does with one
    /// goroutine each: the regular containers first, then the init containers last first, so
    /// that each sidecar is killed after everything it waits for (R24, R61).
    pub(super) fn kill_all(&mut self, reason: KillReason, cause: KillCause) {
        let ni = self.pod.init_containers.len();
        let n = self.pod.container_count();
        self.pod_worker.job.kills.clear();
        self.pod_worker.job.starts.clear();
        self.pod_worker.job.pod_kill = true;
        let running = |c: &ContainerId| self.job_snapshot(*c).running();
        let regular: Vec<ContainerId> = ContainerId::range(ni..n).filter(running).collect();
        let init: Vec<ContainerId> = ContainerId::range(0..ni).rev().filter(running).collect();
        for c in regular.into_iter().chain(init) {
            self.pod_worker.job.kills.push(Kill {
                container: c,
                reason,
                cause,
                message: KillMessage::Stopping,
            });
        }
        self.pod_worker.job.parallel = self.pod_worker.job.kills.len();
    }

    /// R61, `terminationOrdering`: when sidecar `c`'s turn to be signalled comes in a pod kill,
    /// i.e. when every regular container and the next later sidecar that runs have exited;
    /// `None` when it waits for nothing. The exits are known: they were scheduled by the kills
    /// before this one.
    pub(super) fn sidecar_turn(&self, c: ContainerId) -> Option<SimTime> {
        let ni = self.pod.init_containers.len();
        let exit_of = |k: ContainerId| self.runtime.containers[k].exit_at.map(|(t, _)| t);
        let regular = ContainerId::range(ni..self.pod.container_count()).filter_map(exit_of);
        let later_sidecar = ContainerId::range(c.index() + 1..ni)
            .find(|&k| {
                self.pod.container(k.index()).restartable
                    && self.runtime.containers[k].exit_at.is_some()
            })
            .and_then(exit_of);
        regular.chain(later_sidecar).max()
    }

    /// R17, R60: whether an exited container is restarted.
    pub(super) fn restarts(&self, c: ContainerId, exit_code: i32) -> bool {
        let spec = self.pod.container(c.index());
        if self.pod.is_init(c.index()) {
            return spec.restartable || should_restart(self.pod.restart_policy, exit_code);
        }
        // A regular container's own policy and rules first (ContainerRestartRules).
        spec.should_restart(self.pod.restart_policy, exit_code)
    }
}
