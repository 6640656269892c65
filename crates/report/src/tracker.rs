//! The pod's API status, rebuilt from the event stream: what `kubectl get` and `kubectl
//! describe` read at any instant, without asking the simulation again.

use probesim_core::{
    ContainerState, EventKind, Gate, Phase, PodSpec, PodStatus, Profile, SimDuration, SimTime,
};

/// The API-visible status of a pod, kept current by applying the timeline's events to the
/// status the simulation started from.
///
/// `status`, `started`, `ready`, `podReady`, `phase`, `delete` and `deleted` events carry every
/// change of the API view that `kubectl get` prints; the `Initialized` and `ContainersReady`
/// conditions, which no event reports, are derived from the containers as the kubelet derives
/// them (R42). `PodReadyToStartContainers` keeps its initial value: no event reports it.
#[derive(Clone, Debug)]
pub struct PodTracker {
    status: PodStatus,
    /// Sidecars count toward `ContainersReady` (the gate and the release).
    sidecars_count: bool,
    /// The deletion grace period, once the pod is deleted.
    deletion_grace: Option<SimDuration>,
}

impl PodTracker {
    /// Starts from `initial`, the status before the first event (`Simulation::status` before
    /// the run), for `profile`'s release.
    #[must_use]
    pub fn new(initial: PodStatus, profile: &Profile) -> PodTracker {
        PodTracker {
            status: initial,
            sidecars_count: profile.gate(Gate::SidecarContainers)
                && profile.sidecar_readiness_counts,
            deletion_grace: None,
        }
    }

    /// The status after the events applied so far.
    #[must_use]
    pub fn status(&self) -> &PodStatus {
        &self.status
    }

    /// The deletion grace period, if the pod has been deleted.
    #[must_use]
    pub fn deletion_grace(&self) -> Option<SimDuration> {
        self.deletion_grace
    }

    /// Applies one event of the timeline at `t`.
    pub fn apply(&mut self, pod: &PodSpec, t: SimTime, kind: &EventKind<'_>) {
        let index = |name: &str| pod.index_of(name);
        match *kind {
            EventKind::Status { container, status } => {
                if let Some(c) = index(container) {
                    let slot = self.slot(pod, c);
                    slot.state = status.state;
                    slot.last_state = status.last_state;
                    slot.restart_count = status.restart_count;
                }
            }
            EventKind::Ready { container, ready } => {
                if let Some(c) = index(container) {
                    self.slot(pod, c).ready = ready;
                }
            }
            EventKind::Started { container, started } => {
                if let Some(c) = index(container) {
                    self.slot(pod, c).started = started;
                }
            }
            EventKind::PodReady { ready } => self.status.conditions.ready = ready,
            EventKind::Phase { phase } => self.status.phase = phase,
            EventKind::Delete { grace } => {
                self.status.deletion_timestamp = Some(t);
                self.deletion_grace = Some(grace);
            }
            EventKind::Deleted => self.status.removed = true,
            _ => return,
        }
        self.derive_conditions(pod);
    }

    fn slot(&mut self, pod: &PodSpec, c: usize) -> &mut probesim_core::ContainerStatus {
        let ni = pod.init_containers.len();
        match c.checked_sub(ni) {
            Some(i) => &mut self.status.containers[i],
            None => &mut self.status.init_containers[c],
        }
    }

    /// R42: `Initialized` when every init container is done (a sidecar once started) or a
    /// regular container runs or has run; `ContainersReady` when every regular container (and,
    /// where they count, every sidecar) is ready and the pod has not succeeded.
    fn derive_conditions(&mut self, pod: &PodSpec) {
        let status = &self.status;
        let init_done = pod
            .init_containers
            .iter()
            .zip(&status.init_containers)
            .all(|(spec, s)| if spec.restartable { s.started } else { s.ready })
            || status.containers.iter().any(|s| {
                matches!(
                    s.state,
                    ContainerState::Running { .. } | ContainerState::Terminated(_)
                )
            });
        let sidecars_ready = !self.sidecars_count
            || pod
                .init_containers
                .iter()
                .zip(&status.init_containers)
                .all(|(spec, s)| !spec.restartable || s.ready);
        let all_ready = !status.containers.is_empty() && status.containers.iter().all(|s| s.ready);
        self.status.conditions.containers_ready =
            all_ready && sidecars_ready && status.phase != Phase::Succeeded;
        self.status.conditions.initialized = init_done;
    }
}
