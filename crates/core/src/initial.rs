//! The pod's status before its first event, as one constructor that the engine and every view
//! share: what the API server shows for a pod bound to a node whose kubelet has not yet started
//! anything.

use crate::event::{ContainerStatus, Phase};
use crate::profile::Profile;
use crate::sim::{Conditions, PodStatus};
use crate::spec::PodSpec;

impl PodStatus {
    /// The status of `pod` under `profile` before the kubelet's first sync, as the simulation
    /// starts it: `Pending`, scheduled and initialized, not ready, `PodReadyToStartContainers`
    /// false where the release has it (R42), every container waiting in `ContainerCreating`.
    #[must_use]
    pub fn initial(pod: &PodSpec, profile: &Profile) -> PodStatus {
        PodStatus {
            phase: Phase::Pending,
            conditions: Conditions {
                ready_to_start_containers: profile.ready_to_start_condition.then_some(false),
                initialized: true,
                ready: false,
                containers_ready: false,
                pod_scheduled: true,
            },
            init_containers: vec![ContainerStatus::default(); pod.init_containers.len()],
            containers: vec![ContainerStatus::default(); pod.containers.len()],
            deletion_timestamp: None,
            removed: false,
        }
    }
}
