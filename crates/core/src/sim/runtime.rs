//! The container runtime and the PLEG: processes that start, receive signals and exit, and the
//! relists that notice it (R4, R5, R25).

use super::*;

impl Simulation {
    pub(super) fn schedule_relist(&mut self, after: SimTime) {
        self.globals_dirty = true;
        let at = after.next_multiple_after(self.kubelet.pleg_period);
        self.relist_at = Some(self.relist_at.map_or(at, |t| t.min(at)));
    }

    /// The PLEG's snapshot of container `c` becomes `seen`. A sync that still reads the PLEG's
    /// snapshot as its own gets its copy first; the container's status is to be recomputed.
    pub(super) fn set_snapshot(&mut self, c: usize, seen: Instances) {
        let old = self.snapshot[c];
        if old == seen {
            return;
        }
        if self.job.shared {
            self.job.snapshot.clear();
            self.job.snapshot.extend_from_slice(&self.snapshot);
            self.job.shared = false;
        }
        if !self.pod.is_init(c) {
            let count = |had: bool, has: bool, n: &mut usize| match (had, has) {
                (false, true) => *n += 1,
                (true, false) => *n -= 1,
                _ => {}
            };
            count(
                old.newest.is_some(),
                seen.newest.is_some(),
                &mut self.created_regular,
            );
            count(old.running(), seen.running(), &mut self.running_regular);
        }
        self.snapshot[c] = seen;
        self.mark_status(c);
    }

    /// Container `c`'s process is to exit at `exit` (or not at all), keeping the count of
    /// pending exits.
    pub(super) fn set_exit(&mut self, c: usize, exit: Option<(SimTime, i32)>) {
        let rt = &mut self.runtime[c];
        match (rt.exit_at.is_some(), exit.is_some()) {
            (false, true) => self.pending_exits += 1,
            (true, false) => self.pending_exits -= 1,
            _ => {}
        }
        rt.exit_at = exit;
    }

    /// The snapshot the current sync began with, of container `c`.
    pub(super) fn job_snapshot(&self, c: usize) -> Instances {
        if self.job.shared {
            self.snapshot[c]
        } else {
            self.job.snapshot[c]
        }
    }

    pub(super) fn relist(&mut self) {
        self.globals_dirty = true;
        let now = self.now;
        let mut changed = false;
        for c in 0..self.runtime.len() {
            let seen = self.runtime[c].instances;
            if seen != self.snapshot[c] {
                changed = true;
                self.set_snapshot(c, seen);
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

    pub(super) fn process_exit<S: Sink>(&mut self, c: usize, out: &mut Out<'_, S>) {
        self.globals_dirty = true;
        let now = self.now;
        let Some((_, code)) = self.runtime[c].exit_at else {
            return;
        };
        self.set_exit(c, None);
        if let Some(inst) = self.runtime[c].instances.newest.as_mut() {
            inst.exited = Some((now, code));
        }
        out.emit_for(
            now,
            c,
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

    /// A probe in flight against a process that just died ends now, as a failure
    /// (docs/semantics.md#mid-answer): the connection is reset for network handlers, and an
    /// exec'd command dies with
    /// the container (the runtime's ExecSync returns exit code 137, which the exec prober
    /// reports as a failure with the command's output).
    pub(super) fn cut_attempts(&mut self, c: usize) {
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
                Some(Handler::Exec { .. }) | None => (Outcome::Failure, OutputKind::ExecKilled),
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

    /// Sends SIGTERM to container `c`'s process with a grace period
    /// (R25, docs/semantics.md#kills) and
    /// returns whether the process is still alive afterwards (the stop blocks until it exits).
    pub(super) fn signal(&mut self, c: usize, hook: SimDuration, grace: SimDuration) -> bool {
        self.globals_dirty = true;
        // The signal goes out when the preStop hook is done (R24).
        let now = self.now.saturating_add(hook);
        let rt = &self.runtime[c];
        let alive = rt.instances.running();
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
        let exit = match rt.exit_at {
            Some((own, own_code)) if own <= at => Some((own, own_code)),
            _ => Some((at, code)),
        };
        self.set_exit(c, exit);
        true
    }
}
