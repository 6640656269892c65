//! The simulation: the only thing that advances the clock.

use core::fmt;

use crate::behaviour::{AlwaysOk, Behaviour};
use crate::event::{ContainerStatus, Phase};
use crate::profile::Profile;
use crate::sink::Sink;
use crate::spec::{PodSpec, ProbeKind};
use crate::time::{SimDuration, SimTime};

/// The kubelet's timing knobs (contract §2.2), with the canonical defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KubeletConfig {
    /// How long the kubelet has been running when the pod arrives (P14).
    pub started_ago: SimDuration,
    /// PLEG relist period (R4, R5).
    pub pleg_period: SimDuration,
    /// From a probe-result update to the pod sync that acts on it (R1, R2, R12).
    pub probe_sync_delay: SimDuration,
    /// Periodic pod sync after a successful sync (R6).
    pub resync: SimDuration,
    /// Re-sync while a container is in back-off, profiles ≤1.34 (R7).
    pub backoff_requeue: SimDuration,
    /// Draw the kubelet's jitters (resync, requeue) from the seeded generator instead of using
    /// their lower bounds.
    pub jitter: bool,
    /// The node's `crashLoopBackOff.maxContainerRestartPeriod` (R28), if set.
    pub max_container_restart_period: Option<SimDuration>,
}

impl Default for KubeletConfig {
    fn default() -> KubeletConfig {
        KubeletConfig {
            started_ago: SimDuration::from_secs(3600),
            pleg_period: SimDuration::from_secs(1),
            probe_sync_delay: SimDuration::ZERO,
            resync: SimDuration::from_secs(60),
            backoff_requeue: SimDuration::from_secs(10),
            jitter: false,
            max_container_restart_period: None,
        }
    }
}

/// The application behaviours and which probe uses which.
pub struct Behaviours {
    entries: Vec<Box<dyn Behaviour>>,
    bindings: Vec<[Option<usize>; 3]>,
}

impl fmt::Debug for Behaviours {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Behaviours")
            .field("entries", &self.entries.len())
            .field("bindings", &self.bindings)
            .finish()
    }
}

impl Behaviours {
    /// No behaviours yet: every probe of `pod` answers `ok`.
    #[must_use]
    pub fn new(pod: &PodSpec) -> Behaviours {
        Behaviours {
            entries: Vec::new(),
            bindings: vec![[None; 3]; pod.containers.len()],
        }
    }

    /// Adds a behaviour and returns its index for [`Behaviours::bind`].
    pub fn add(&mut self, behaviour: Box<dyn Behaviour>) -> usize {
        self.entries.push(behaviour);
        self.entries.len() - 1
    }

    /// Makes the `probe` of container `container` answer with behaviour `index` (several probes
    /// may share one behaviour: one counter for an endpoint). Out-of-range arguments are ignored.
    pub fn bind(&mut self, container: usize, probe: ProbeKind, index: usize) {
        if index < self.entries.len() {
            if let Some(b) = self.bindings.get_mut(container) {
                b[probe.index()] = Some(index);
            }
        }
    }

    fn respond(&mut self, attempt: &crate::behaviour::Attempt) -> crate::behaviour::Response {
        let bound = self
            .bindings
            .get(attempt.container)
            .and_then(|b| b[attempt.probe.index()]);
        match bound.and_then(|i| self.entries.get_mut(i)) {
            Some(b) => b.respond(attempt),
            None => AlwaysOk.respond(attempt),
        }
    }
}

/// The pod's conditions (R42).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conditions {
    /// `PodReadyToStartContainers` (profiles that report it).
    pub ready_to_start_containers: Option<bool>,
    /// `Initialized`.
    pub initialized: bool,
    /// `Ready`.
    pub ready: bool,
    /// `ContainersReady`.
    pub containers_ready: bool,
    /// `PodScheduled`.
    pub pod_scheduled: bool,
}

/// The API-visible pod status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodStatus {
    /// `status.phase`.
    pub phase: Phase,
    /// `status.conditions`.
    pub conditions: Conditions,
    /// `status.containerStatuses`, in spec order.
    pub containers: Vec<ContainerStatus>,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every event up to and including the horizon was simulated.
    Horizon,
    /// The sink asked to stop.
    Stopped,
}

/// Why a run failed.
#[derive(Debug)]
pub enum RunError<E> {
    /// The sink failed.
    Sink(E),
    /// Too many steps at one instant: a model bug, reported instead of spinning.
    StepBudget {
        /// The instant that did not settle.
        at: SimTime,
    },
}

impl<E: fmt::Display> fmt::Display for RunError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Sink(e) => write!(f, "{e}"),
            RunError::StepBudget { at } => {
                write!(
                    f,
                    "the simulation did not settle at t={at}s (step budget exhausted)"
                )
            }
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for RunError<E> {}

/// A running simulation of one pod on one kubelet.
pub struct Simulation {
    pod: PodSpec,
    profile: Profile,
    #[allow(dead_code)]
    kubelet: KubeletConfig,
    #[allow(dead_code)]
    behaviours: Behaviours,
    now: SimTime,
    status: PodStatus,
}

impl Simulation {
    /// Prepares a run; nothing happens before [`Simulation::run_until`].
    #[must_use]
    pub fn new(
        pod: PodSpec,
        profile: Profile,
        kubelet: KubeletConfig,
        _seed: u64,
        behaviours: Behaviours,
    ) -> Simulation {
        let containers = vec![ContainerStatus::default(); pod.containers.len()];
        Simulation {
            pod,
            profile,
            kubelet,
            behaviours,
            now: SimTime::ZERO,
            status: PodStatus {
                phase: Phase::Pending,
                conditions: Conditions {
                    ready_to_start_containers: None,
                    initialized: true,
                    ready: false,
                    containers_ready: false,
                    pod_scheduled: true,
                },
                containers,
            },
        }
    }

    /// Simulates every happening up to and including `until`, streaming events to `sink`.
    ///
    /// # Errors
    /// The sink's error, or a step budget exhausted at one instant.
    pub fn run_until<S: Sink>(
        &mut self,
        until: SimTime,
        sink: &mut S,
    ) -> Result<RunEnd, RunError<S::Error>> {
        let _ = sink;
        self.now = until;
        Ok(RunEnd::Horizon)
    }

    /// The current virtual time.
    #[must_use]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The pod being simulated.
    #[must_use]
    pub fn pod(&self) -> &PodSpec {
        &self.pod
    }

    /// The semantics profile.
    #[must_use]
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The API-visible status now.
    #[must_use]
    pub fn status(&self) -> &PodStatus {
        &self.status
    }
}
