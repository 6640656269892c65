//! The API-visible status generated at the start of each sync (R11, R34, R36–R45, P45, P46).

use super::*;

impl Simulation {
    pub(super) fn generate_status<S: Sink>(&mut self, out: &mut Out<'_, S>) {
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
            if !regular_init && st.started && self.predates_kubelet_restart(&view) {
                // P45 (setReadyStateOnKubeletRestart), whenever the readiness cache does not
                // hold Success: a container that is not ready becomes ready while the cache is
                // still empty; then one with a readiness probe is not ready unless the pod was
                // Ready before. The second step also covers a container found ready because its
                // readiness worker does not exist yet (the first sync after the restart).
                let entry = self.cached_opt(c, ProbeKind::Readiness, view.id);
                if entry != Some(ProbeResult::Success) {
                    if !st.ready && entry.is_none() {
                        st.ready = true;
                    }
                    let has_probe = self.pod.container(c).probe(ProbeKind::Readiness).is_some();
                    if has_probe && !self.status.conditions.ready {
                        st.ready = false;
                    }
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
            let terminal = self.profile.terminal_phase_forcing
                && self.deleting.is_some()
                && !self.any_running();
            compute_phase(&self.pod, &self.status, initialized, terminal)
        };
        let ready_to_start = self
            .profile
            .ready_to_start_condition
            .then_some(!first && self.sandbox_ready && !self.sandbox_stopped);
        self.status.conditions.ready_to_start_containers = ready_to_start;
        if phase != self.status.phase {
            self.status.phase = phase;
            out.emit(now, EventKind::Phase { phase });
        }
        self.update_ready_conditions(out);
    }

    pub(super) fn write_container_status<S: Sink>(
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
    pub(super) fn update_ready_conditions<S: Sink>(&mut self, out: &mut Out<'_, S>) {
        let sidecars_count =
            self.profile.gate(Gate::SidecarContainers) && self.profile.sidecar_readiness_counts;
        let status = &self.status;
        // Every init container done (a sidecar counts once started), or, as the kubelet's
        // `GeneratePodInitializedCondition` adds for sidecars that restart later, a regular
        // container that is running or has run.
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
            )
            || status.containers.iter().any(|s| {
                matches!(
                    s.state,
                    ContainerState::Running { .. } | ContainerState::Terminated(_)
                )
            });
        let sidecars_ready = !sidecars_count
            || self
                .pod
                .init_containers
                .iter()
                .zip(&status.init_containers)
                .all(|(spec, s)| !spec.restartable || s.ready);
        let all_ready = !status.containers.is_empty() && status.containers.iter().all(|s| s.ready);
        let containers_ready = all_ready && sidecars_ready && status.phase != Phase::Succeeded;
        // Readiness gates whose conditions nobody sets keep the pod from Ready.
        let ready = containers_ready && self.pod.readiness_gates == 0;
        self.status.conditions.initialized = init_done;
        self.status.conditions.containers_ready = containers_ready;
        if self.status.conditions.ready != ready {
            self.status.conditions.ready = ready;
            out.emit(self.now, EventKind::PodReady { ready });
        }
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
