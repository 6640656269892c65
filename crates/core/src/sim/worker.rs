//! Probe workers: their ticks and triggers, doProbe, attempts against the application, and
//! the results caches (P9–P52).

use super::*;

impl Simulation {
    pub(super) fn worker_of(&self, c: usize, kind: ProbeKind) -> Option<usize> {
        self.worker_by.get(c).and_then(|k| k[kind.index()])
    }

    /// [`Simulation::cached`] for an optional instance.
    pub(super) fn cached_opt(
        &self,
        c: usize,
        kind: ProbeKind,
        id: Option<u64>,
    ) -> Option<ProbeResult> {
        id.and_then(|id| self.cached(c, kind, id))
    }

    /// The cached result of container `c`'s probe `kind` for instance `id`, if any.
    pub(super) fn cached(&self, c: usize, kind: ProbeKind, id: u64) -> Option<ProbeResult> {
        let w = self.worker_of(c, kind)?;
        self.cache[w].filter(|(cid, _)| *cid == id).map(|(_, r)| r)
    }

    /// P13: a non-blocking stop; an idle worker exits at once, a busy one after its probe.
    pub(super) fn stop_worker(&mut self, w: usize) {
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

    /// Emits a Kubernetes Event about container `c` (R56).
    pub(super) fn kube_event<S: Sink>(
        &self,
        out: &mut Out<'_, S>,
        c: usize,
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
            object: self.pod.object_ref(c),
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
                .kubelet_started
                .is_some_and(|k| view.started_at.saturating_add(SimDuration::from_secs(10)) < k)
    }

    /// Notes that worker `w`'s timers may have changed.
    pub(super) fn mark(&mut self, w: usize) {
        if !self.is_dirty[w] {
            self.is_dirty[w] = true;
            self.dirty.push(w);
        }
    }

    /// P18: a non-blocking send on the worker's manual-trigger channel.
    pub(super) fn trigger(&mut self, w: usize) {
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
    pub(super) fn add_pod(&mut self) {
        let now = self.now;
        debug_assert!(
            self.alive_workers <= self.workers.iter().filter(|w| w.alive).count(),
            "more workers counted alive than are"
        );
        if self.alive_workers >= self.workers.len() {
            // Every worker exists: nothing to create (and nothing to stop at).
            return;
        }
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
            self.alive_workers += 1;
            self.mark_status_of_worker(w);
        }
    }

    pub(super) fn worker_due<S: Sink>(&mut self, w: usize, out: &mut Out<'_, S>) {
        let key = self.last_due.0;
        if self.steady_ticks && key == Key::new(self.now, Class::Tick) {
            let from_lane = self.lane.holds(w);
            if from_lane {
                // The lane's head: the tick leaves the lane, and comes back if steady.
                self.lane.pop();
                self.lane.leave(w);
            }
            if self.steady_tick(w, out) {
                self.place_steady(w, from_lane);
                return;
            }
        }
        if self.workers[w].parked {
            // A wake-up or a completion of a parked worker: its ticks resume.
            self.unpark(w);
        }
        self.mark(w);
        let now = self.now;
        if key == Key::new(now, Class::Completion) {
            self.complete_attempt(w, out);
            return;
        }
        let worker = &mut self.workers[w];
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
        if !worker.running {
            worker.running = true;
            worker.next_tick = now.saturating_add(worker.period);
            let step = self.do_probe(w, out);
            self.after_probe(w, step, out);
        } else if idle {
            self.worker_wait(w, out);
        }
    }

    /// Whether a tick of held worker `w` would do anything: the doProbe checks ahead of the
    /// hold (P22–P25) all pass through, unless the status says the pod is terminal or names
    /// another container instance than the one the worker knows.
    fn held_tick_acts(&self, w: usize) -> bool {
        let worker = &self.workers[w];
        self.status_written
            && (self.status.phase.is_terminal()
                || self.view[worker.container]
                    .id
                    .is_some_and(|id| worker.container_id != Some(id)))
    }

    /// After a tick: a held worker (P26) that is idle, with nothing pending, whose next tick
    /// would do nothing either, leaves its ticks off the agenda until something it reads
    /// changes (`unpark_changed`). Its grid stays where it is: `next_tick` is a point of it.
    fn park(&mut self, w: usize) {
        let worker = &self.workers[w];
        if !self.parking
            || !worker.on_hold
            || worker.parked
            || !worker.alive
            || !worker.running
            || worker.in_flight.is_some()
            || worker.wake_at.is_some()
            || worker.pending_tick
            || worker.pending_trigger
            || worker.stop_requested
            || worker.period.is_zero()
            || self.held_tick_acts(w)
        {
            return;
        }
        self.mark(w);
        self.workers[w].parked = true;
        if !self.listed[w] {
            self.listed[w] = true;
            self.parked.push(w);
        }
    }

    /// Puts back on the agenda every parked worker whose next tick would now do something (or
    /// that is no longer held), at the first tick of its grid that has not gone by: a tick at
    /// this very instant has gone by when it orders before the item dispatched last (ticks
    /// due at one instant read the status as the items before them left it).
    pub(super) fn unpark_changed(&mut self) {
        // `held_tick_acts` for every parked worker at once. A listed worker that is no longer
        // parked (a wake-up resumed its ticks, or AddPod re-created it) leaves the list; one
        // that exited stays parked, and its ticks stay off the agenda as they would anyway.
        if !self.status_written {
            return;
        }
        let terminal = self.status.phase.is_terminal();
        let mut i = 0;
        while i < self.parked.len() {
            let w = self.parked[i];
            let worker = &self.workers[w];
            let parked = worker.parked;
            let acts = terminal
                || self.view[worker.container]
                    .id
                    .is_some_and(|id| worker.container_id != Some(id));
            if parked && !acts {
                i += 1;
                continue;
            }
            if parked {
                self.unpark(w);
            }
            self.listed[w] = false;
            self.parked.swap_remove(i);
        }
    }

    /// Puts parked worker `w`'s ticks back on the agenda from the first that has not gone by
    /// (it stays listed in `parked` until the next `unpark_changed`).
    fn unpark(&mut self, w: usize) {
        let now = self.now;
        let worker = self.workers[w];
        let period = worker.period.as_millis();
        let mut next = worker.next_tick;
        if next < now {
            let behind = now.saturating_since(next).as_millis();
            next = next.saturating_add(SimDuration::from_millis(
                behind.div_ceil(period).saturating_mul(period),
            ));
        }
        if next == now && self.gone_by(w, now) {
            next = next.saturating_add(worker.period);
        }
        self.mark(w);
        self.workers[w].parked = false;
        self.workers[w].next_tick = next;
    }

    /// Whether worker `w`'s tick at `now` orders before the item dispatched last.
    fn gone_by(&self, w: usize, now: SimTime) -> bool {
        let tick = self.agenda.node(w, Key::new(now, Class::Tick));
        let (key, slot) = self.last_due;
        let last = match slot {
            Slot::Worker(v) => self.agenda.node(v, key),
            _ => u128::from(key.0) << 64,
        };
        tick < last
    }

    /// The worker's wait between probes (P16): stop, then a manual trigger, then a tick.
    pub(super) fn worker_wait<S: Sink>(&mut self, w: usize, out: &mut Out<'_, S>) {
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
                // A status that triggers this worker again has something to do now.
                let c = worker.container;
                if !self.status_dirty[c] {
                    self.status_dirty[c] = true;
                    self.status_queue.push(c);
                }
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

    pub(super) fn after_probe<S: Sink>(&mut self, w: usize, step: Step, out: &mut Out<'_, S>) {
        match step {
            Step::Continue => self.worker_wait(w, out),
            Step::Stop => self.exit_worker(w),
            Step::InFlight => {}
        }
    }

    /// P20: the worker's exit clean-up.
    pub(super) fn exit_worker(&mut self, w: usize) {
        self.mark(w);
        let worker = &mut self.workers[w];
        if worker.alive {
            self.alive_workers = self.alive_workers.saturating_sub(1);
        }
        worker.alive = false;
        worker.running = false;
        worker.wake_at = None;
        worker.in_flight = None;
        worker.pending_tick = false;
        worker.pending_trigger = false;
        self.cache[w] = None;
        self.mark_status_of_worker(w);
    }

    /// `resultsManager.Set` (P42): stores, and emits an update only on change.
    pub(super) fn set_result<S: Sink>(
        &mut self,
        w: usize,
        id: u64,
        result: ProbeResult,
        out: &mut Out<'_, S>,
    ) {
        if self.cache[w] == Some((id, result)) {
            return;
        }
        self.cache[w] = Some((id, result));
        self.mark_status_of_worker(w);
        let worker = self.workers[w];
        out.emit_for(
            self.now,
            worker.container,
            EventKind::Result {
                container: &self.pod.container(worker.container).name,
                probe: worker.kind,
                result,
            },
        );
        // R4: an update from a worker that the sync which just ended created (AddPod re-creates
        // workers that stop at once, e.g. for a container that exited for good) waits for the
        // next relist like every sync after the first; elsewhere updates sync at once
        // (docs/semantics.md#updates-at-once).
        let churn = worker.created_at == self.now && self.last_sync_end == Some(self.now);
        self.handle_update(worker.container, worker.kind, id, result, churn, out);
    }

    /// The kubelet's handling of a result update (P44, R1, R2), at once
    /// (docs/semantics.md#updates-at-once).
    pub(super) fn handle_update<S: Sink>(
        &mut self,
        c: usize,
        kind: ProbeKind,
        id: u64,
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
                    self.edit_status(c, |s| s.ready = ready);
                    out.emit_for(
                        now,
                        c,
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
                    self.edit_status(c, |s| s.started = started);
                    self.view[c].started = started;
                    out.emit_for(
                        now,
                        c,
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
                // The sync rewrites what parked workers read.
                self.recheck_parked = true;
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
    pub(super) fn do_probe<S: Sink>(&mut self, w: usize, out: &mut Out<'_, S>) -> Step {
        let now = self.now;
        let (c, kind) = (self.workers[w].container, self.workers[w].kind);
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
        if self.workers[w].container_id != Some(id) {
            if self.cache[w].take().is_some() {
                self.mark_status(c);
            }
            self.workers[w].container_id = Some(id);
            self.workers[w].on_hold = false;
            // 1.36+, ChangeContainerStatusOnKubeletRestart off: a sidecar whose status says
            // started keeps that through its startup worker.
            if self.profile.sidecar_startup_keeps_started
                && self.profile.inherits_started()
                && kind == ProbeKind::Startup
                && self.pod.is_init(c)
                && self.pod.container(c).restartable
                && self.status.container(c).started
            {
                self.set_result(w, id, ProbeResult::Success, out);
            }
            // 1.35+, ChangeContainerStatusOnKubeletRestart off: a container that predates the
            // kubelet's restart by more than 10 s gets no initial value.
            if !self.predates_kubelet_restart(&view) {
                let initial = self.workers[w].initial_value();
                self.set_result(w, id, initial, out);
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
        let Some(probe) = self.pod.container(c).probe(kind) else {
            return Step::Stop;
        };
        let elapsed = now.saturating_since(view.started_at).whole_secs();
        let elapsed = i64::try_from(elapsed).unwrap_or(i64::MAX);
        if elapsed < i64::from(probe.initial_delay_seconds()) {
            return Step::Continue;
        }
        // P30.
        let started = view.started;
        match kind {
            ProbeKind::Startup if started => return Step::Continue,
            ProbeKind::Liveness | ProbeKind::Readiness if !started => return Step::Continue,
            _ => {}
        }
        // P31: run it.
        self.begin_attempt(w, now, 1, out)
    }

    /// Starts attempt `attempt` of a probe that began at `began`.
    pub(super) fn begin_attempt<S: Sink>(
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
        // Only an attempt that reached a process takes time (docs/semantics.md#exec-target).
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

    pub(super) fn complete_attempt<S: Sink>(&mut self, w: usize, out: &mut Out<'_, S>) {
        self.mark(w);
        let Some(f) = self.workers[w].in_flight.take() else {
            return;
        };
        let step = self.attempt_done(w, f.began, f.attempt, f.outcome, f.output, out);
        self.after_probe(w, step, out);
    }

    /// After one attempt: retry errors (P40), or finish the probe (P31–P35).
    pub(super) fn attempt_done<S: Sink>(
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
        let (c, kind) = (self.workers[w].container, self.workers[w].kind);
        let spec = self.pod.container(c);
        let Some(probe) = spec.probe(kind) else {
            return Step::Stop;
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
            Outcome::Error => return Step::Continue,
            Outcome::Success | Outcome::Warning => ProbeResult::Success,
            Outcome::Failure => ProbeResult::Failure,
        };
        let (success_threshold, failure_threshold) = (
            probe.success_threshold().unsigned_abs(),
            probe.failure_threshold().unsigned_abs(),
        );
        let Some(id) = self.workers[w].container_id else {
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
        let hold = match kind {
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

    /// One attempt against the application (P38–P40, P48–P52;
    /// docs/semantics.md#mid-answer, docs/semantics.md#exec-target).
    pub(super) fn run_attempt(&mut self, w: usize) -> (Outcome, OutputKind, SimDuration) {
        let now = self.now;
        let (c, kind) = (self.workers[w].container, self.workers[w].kind);
        let Some(probe) = self.pod.container(c).probe(kind) else {
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
        // docs/semantics.md#exec-target: an exec targets the worker's container ID (ExecSync
        // names it); a network
        // probe reaches whatever listens at the pod IP. When the instance the worker knows has
        // exited, the exec fails in the runtime even if a newer instance already runs.
        let instance = match handler {
            Handler::Exec { .. } => instance.filter(|i| Some(i.id) == self.workers[w].container_id),
            _ => instance,
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
            container: c,
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

/// What an answer makes of an attempt with this handler and timeout (P48–P52,
/// docs/semantics.md#mid-answer): the outcome, the output and how long the attempt took.
pub(super) fn classify(
    handler: &Handler,
    response: Response,
    timeout: SimDuration,
    profile: &Profile,
) -> (Outcome, OutputKind, SimDuration) {
    let Response { answer, latency } = response;
    let timed_out = answer == Answer::Timeout || latency >= timeout;
    let duration = if timed_out { timeout } else { latency };
    let (outcome, output) = match handler {
        Handler::HttpGet { .. } => classify_http(answer, timed_out, profile.redirect_prefix),
        Handler::TcpSocket { .. } => classify_tcp(answer, timed_out),
        Handler::Exec { .. } => {
            if timed_out && answer != Answer::Error {
                match profile.exec_timeout() {
                    ExecTimeout::Error(wording) => {
                        (Outcome::Error, OutputKind::ExecTimeout(wording, timeout))
                    }
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
