//! The probe workers of a container that exited for good (P20, P27; docs/semantics.md,
//! "Workers of a finished container"): such a worker records Failure and exits. The sync its
//! results ask for reaches the pod worker only after every probe of the instant (R63), so after
//! that exit, and its AddPod creates the worker again.

use super::*;

impl Simulation {
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
}
