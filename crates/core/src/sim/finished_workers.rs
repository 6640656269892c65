//! The probe workers of a container that exited for good (P20, P27; docs/semantics.md,
//! "Workers of a finished container"): such a worker records Failure and exits, and the sync
//! its results ask for runs after that exit, so that its AddPod creates the worker again.

use super::worker::DoProbe;
use super::*;

impl Simulation {
    /// doProbe up to the point where the probe runs (P22–P31).
    pub(super) fn do_probe<S: Sink>(&mut self, w: WorkerId, out: &mut Out<'_, S>) -> DoProbe {
        let c = self.prober.workers[w].container;
        let view = self.status.view[c];
        // P27, P20: a worker that finds its container finished for good records Failure and
        // exits; in the kubelet the worker's deferred clean-up runs as doProbe returns, long
        // before the sync its results ask for reaches AddPod (which waits for a newer relist,
        // then generates the status), so that AddPod finds the worker gone and creates it
        // again (docs/semantics.md#finished-workers).
        let finished = !view.running
            && view
                .terminated
                .is_some_and(|code| !self.keeps_workers(c, code));
        if !finished {
            return self.do_probe_checks(w, out);
        }
        self.prober.hold_sync = Some(false);
        let step = self.do_probe_checks(w, out);
        if step != DoProbe::Stop && self.prober.hold_sync.take() == Some(true) {
            self.status_may_change();
            self.request_sync(SyncTrigger::Probe, out);
        }
        // On Stop the hold lasts until the worker has exited (`exit_stopped`).
        step
    }

    /// P27: whether the probe workers of container `c`, which exited with `code`, keep
    /// running (worker.go, doProbe: not when the container will not be restarted).
    pub(super) fn keeps_workers(&self, c: ContainerId, code: i32) -> bool {
        if self.profile.gate(Gate::ContainerRestartRules) {
            return self.restarts(c, code);
        }
        let sidecar = self.pod.is_init(c.index()) && self.pod.container(c.index()).restartable;
        (sidecar && self.profile.sidecar_workers_survive_exit)
            || self.pod.restart_policy != RestartPolicy::Never
    }

    /// P20 after a doProbe that stopped the worker, then the sync its last results asked for
    /// if [`Simulation::do_probe`] held it back (docs/semantics.md#finished-workers).
    pub(super) fn exit_stopped<S: Sink>(&mut self, w: WorkerId, out: &mut Out<'_, S>) {
        self.exit_worker(w);
        if self.prober.hold_sync.take() == Some(true) {
            self.status_may_change();
            self.request_sync(SyncTrigger::Probe, out);
        }
    }
}
