//! The pod's API status, rebuilt from the event stream: what `kubectl get` and `kubectl
//! describe` read at any instant, without asking the simulation again.

use std::collections::BTreeMap;

use probesim_core::{
    ContainerState, ContainerStatus, EventKind, Gate, Phase, PodSpec, PodStatus, Profile,
    SimDuration, SimTime,
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
    /// What the conditions count over the containers, and each container's index by name,
    /// made at the first event (they need the pod) and kept as events change statuses: an
    /// event costs a look-up, not scans of every container.
    index: Option<Index>,
}

/// See [`PodTracker::index`].
#[derive(Clone, Debug, Default)]
struct Index {
    by_name: BTreeMap<String, usize>,
    counts: Counts,
}

/// Containers that keep a condition False: init containers not done (a sidecar not started,
/// another one not ready), sidecars not ready, regular containers not ready; and regular
/// containers that run or have run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    init_undone: usize,
    sidecars_unready: usize,
    regular_unready: usize,
    regular_active: usize,
}

impl Counts {
    /// What one status counts; `init` is `Some(restartable)` for an init container.
    fn of(init: Option<bool>, s: &ContainerStatus) -> [usize; 4] {
        match init {
            Some(restartable) => [
                usize::from(if restartable { !s.started } else { !s.ready }),
                usize::from(restartable && !s.ready),
                0,
                0,
            ],
            None => [
                0,
                0,
                usize::from(!s.ready),
                usize::from(matches!(
                    s.state,
                    ContainerState::Running { .. } | ContainerState::Terminated(_)
                )),
            ],
        }
    }

    fn apply(&mut self, weights: [usize; 4], add: bool) {
        let fields = [
            &mut self.init_undone,
            &mut self.sidecars_unready,
            &mut self.regular_unready,
            &mut self.regular_active,
        ];
        for (f, w) in fields.into_iter().zip(weights) {
            if add {
                *f += w;
            } else {
                *f -= w;
            }
        }
    }
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
            index: None,
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
        if self.index.is_none() {
            self.index = Some(self.make_index(pod));
        }
        match *kind {
            EventKind::Status { container, status } => {
                self.edit(pod, container, |slot| {
                    slot.state = status.state;
                    slot.last_state = status.last_state;
                    slot.restart_count = status.restart_count;
                });
            }
            EventKind::Ready { container, ready } => {
                self.edit(pod, container, |slot| slot.ready = ready);
            }
            EventKind::Started { container, started } => {
                self.edit(pod, container, |slot| slot.started = started);
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

    fn slot(&mut self, pod: &PodSpec, c: usize) -> &mut ContainerStatus {
        let ni = pod.init_containers.len();
        match c.checked_sub(ni) {
            Some(i) => &mut self.status.containers[i],
            None => &mut self.status.init_containers[c],
        }
    }

    /// The index by name (the first of a repeated name, as `PodSpec::index_of` finds it) and
    /// the counts of the status so far.
    fn make_index(&self, pod: &PodSpec) -> Index {
        let mut index = Index::default();
        for (i, c) in pod.all_containers().enumerate() {
            index.by_name.entry(c.name.clone()).or_insert(i);
        }
        for (spec, s) in pod.init_containers.iter().zip(&self.status.init_containers) {
            index
                .counts
                .apply(Counts::of(Some(spec.restartable), s), true);
        }
        for s in &self.status.containers {
            index.counts.apply(Counts::of(None, s), true);
        }
        index
    }

    /// Changes the status of the container named `name`, if the pod has it, keeping the counts.
    fn edit(&mut self, pod: &PodSpec, name: &str, change: impl FnOnce(&mut ContainerStatus)) {
        let Some(c) = self
            .index
            .as_ref()
            .and_then(|index| index.by_name.get(name).copied())
        else {
            return;
        };
        let init = pod.init_containers.get(c).map(|spec| spec.restartable);
        let slot = self.slot(pod, c);
        let before = Counts::of(init, slot);
        change(slot);
        let after = Counts::of(init, slot);
        if let Some(index) = self.index.as_mut() {
            index.counts.apply(before, false);
            index.counts.apply(after, true);
        }
    }

    /// R42: `Initialized` when every init container is done (a sidecar once started) or a
    /// regular container runs or has run; `ContainersReady` when every regular container (and,
    /// where they count, every sidecar) is ready and the pod has not succeeded.
    fn derive_conditions(&mut self, pod: &PodSpec) {
        let Some(index) = &self.index else {
            return;
        };
        let counts = index.counts;
        debug_assert_eq!(
            counts,
            self.make_index(pod).counts,
            "the tracker's counts drifted"
        );
        let status = &self.status;
        let init_done = counts.init_undone == 0 || counts.regular_active > 0;
        let sidecars_ready = !self.sidecars_count || counts.sidecars_unready == 0;
        let all_ready = !status.containers.is_empty() && counts.regular_unready == 0;
        self.status.conditions.containers_ready =
            all_ready && sidecars_ready && status.phase != Phase::Succeeded;
        self.status.conditions.initialized = init_done;
    }
}
