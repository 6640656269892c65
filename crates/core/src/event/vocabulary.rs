//! The closed sets of the timeline's words: why a container was killed ([`KillCause`]), and
//! every value that a kill's, an exit's, a waiting state's or a Kubernetes Event's `reason`
//! can take, so that readers of a timeline (expectations) can refuse a value that never occurs.

use super::{ExitReason, KillReason, KubeEvent, Outcome, WaitingReason};

/// What led the kubelet to kill a container: the kill's `reason` is the kubelet's own (a
/// liveness kill under `restartPolicy: Never` is a pod kill with reason `Unknown`), the cause
/// says why it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KillCause {
    /// A liveness failure, of this container or (a pod kill under `restartPolicy: Never`) of a
    /// container of the pod.
    Liveness,
    /// A startup failure, likewise.
    Startup,
    /// The pod's deletion.
    Deletion,
    /// Nothing is left to run: every regular container has exited and none restarts, or the
    /// pod's phase is already `Succeeded` or `Failed`; what still runs (sidecars) is stopped.
    PodCompleted,
    /// An init container failed and the pod does not restart it (`restartPolicy: Never`).
    InitFailed,
}

impl KillCause {
    /// Every cause, in their JSON spelling.
    pub const NAMES: [&'static str; 5] = [
        "liveness",
        "startup",
        "deletion",
        "pod-completed",
        "init-failed",
    ];

    /// JSON spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            KillCause::Liveness => "liveness",
            KillCause::Startup => "startup",
            KillCause::Deletion => "deletion",
            KillCause::PodCompleted => "pod-completed",
            KillCause::InitFailed => "init-failed",
        }
    }

    /// Whether the kill's reason already says this cause (`LivenessProbe` and `liveness`, …),
    /// so that a reader's view may leave it out.
    #[must_use]
    pub const fn implied_by(self, reason: KillReason) -> bool {
        matches!(
            (self, reason),
            (KillCause::Liveness, KillReason::LivenessProbe)
                | (KillCause::Startup, KillReason::StartupProbe)
                | (KillCause::Deletion, KillReason::Deletion)
        )
    }
}

impl KillReason {
    /// Every kill reason, in their JSON spelling.
    pub const NAMES: [&'static str; 4] = ["LivenessProbe", "StartupProbe", "Unknown", "Deletion"];
}

impl ExitReason {
    /// Every exit reason, in their API spelling.
    pub const NAMES: [&'static str; 2] = ["Completed", "Error"];
}

impl WaitingReason {
    /// Every waiting reason, in their API spelling.
    pub const NAMES: [&'static str; 3] =
        ["ContainerCreating", "PodInitializing", "CrashLoopBackOff"];
}

impl Outcome {
    /// Every probe outcome, in their JSON spelling.
    pub const NAMES: [&'static str; 4] = ["success", "failure", "warning", "error"];
}

impl KubeEvent<'_> {
    /// The catalogue of Kubernetes Event reasons the simulated kubelet records, in every
    /// profile: the container lifecycle (`Pulling`, `Pulled`, `Created`, `Started`, `Killing`,
    /// `BackOff`, R56) and the prober's (`Unhealthy`, `ProbeWarning`, P31–P33).
    pub const REASONS: [&'static str; 8] = [
        "Pulling",
        "Pulled",
        "Created",
        "Started",
        "Killing",
        "BackOff",
        "Unhealthy",
        "ProbeWarning",
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_spellings() {
        let causes = [
            KillCause::Liveness,
            KillCause::Startup,
            KillCause::Deletion,
            KillCause::PodCompleted,
            KillCause::InitFailed,
        ];
        let spelled: Vec<&str> = causes.iter().map(|c| c.as_str()).collect();
        assert_eq!(spelled, KillCause::NAMES);
        let reasons = [
            KillReason::LivenessProbe,
            KillReason::StartupProbe,
            KillReason::Unknown,
            KillReason::Deletion,
        ];
        let spelled: Vec<&str> = reasons.iter().map(|r| r.as_str()).collect();
        assert_eq!(spelled, KillReason::NAMES);
        let exits = [ExitReason::Completed, ExitReason::Error];
        let spelled: Vec<&str> = exits.iter().map(|r| r.as_str()).collect();
        assert_eq!(spelled, ExitReason::NAMES);
        let outcomes = [
            Outcome::Success,
            Outcome::Failure,
            Outcome::Warning,
            Outcome::Error,
        ];
        let spelled: Vec<&str> = outcomes.iter().map(|o| o.as_str()).collect();
        assert_eq!(spelled, Outcome::NAMES);
    }

    #[test]
    fn a_cause_is_implied_only_by_its_own_reason() {
        assert!(KillCause::Liveness.implied_by(KillReason::LivenessProbe));
        assert!(!KillCause::Liveness.implied_by(KillReason::Unknown));
        assert!(!KillCause::PodCompleted.implied_by(KillReason::Unknown));
        assert!(KillCause::Deletion.implied_by(KillReason::Deletion));
    }
}
