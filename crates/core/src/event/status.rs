//! The API view of a container and its pod as kubectl shows them: a container's state and
//! status (R37), why it is waiting (R34, R38), why it terminated (R26), and the pod's phase (R43).

use crate::time::{SimDuration, SimTime};

/// `state.terminated.reason` as the runtime sets it (R26).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExitReason {
    /// Exit code 0.
    Completed,
    /// Any non-zero exit code, 137 and 143 included.
    Error,
}

impl ExitReason {
    /// The reason for an exit code.
    #[must_use]
    pub const fn for_code(code: i32) -> ExitReason {
        if code == 0 {
            ExitReason::Completed
        } else {
            ExitReason::Error
        }
    }

    /// JSON spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ExitReason::Completed => "Completed",
            ExitReason::Error => "Error",
        }
    }
}

/// `status.phase` (R43).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Phase {
    /// Not all containers have started.
    Pending,
    /// At least one container runs or will be restarted.
    Running,
    /// All containers exited 0 and will not be restarted.
    Succeeded,
    /// All containers stopped, one with a failure, none will be restarted.
    Failed,
}

impl Phase {
    /// JSON spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Pending => "Pending",
            Phase::Running => "Running",
            Phase::Succeeded => "Succeeded",
            Phase::Failed => "Failed",
        }
    }

    /// Succeeded or Failed: never left (R43).
    #[must_use]
    pub const fn is_terminal(self) -> bool {
        matches!(self, Phase::Succeeded | Phase::Failed)
    }
}

/// The API view of one container's state (R37).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContainerState {
    /// Waiting, with an optional reason.
    Waiting(Option<WaitingReason>),
    /// Running since an instant (normalised to whole seconds, P29).
    Running {
        /// `startedAt`.
        started_at: SimTime,
    },
    /// Terminated.
    Terminated(Terminated),
}

impl ContainerState {
    /// `running`, `waiting` or `terminated`.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            ContainerState::Waiting(_) => "waiting",
            ContainerState::Running { .. } => "running",
            ContainerState::Terminated(_) => "terminated",
        }
    }

    /// The waiting or terminated reason, if any.
    #[must_use]
    pub const fn reason(&self) -> Option<&'static str> {
        match self {
            ContainerState::Waiting(Some(r)) => Some(r.as_str()),
            ContainerState::Waiting(None) | ContainerState::Running { .. } => None,
            ContainerState::Terminated(t) => Some(t.reason.as_str()),
        }
    }
}

/// A terminated state (R37).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Terminated {
    /// Exit code.
    pub exit_code: i32,
    /// Reason.
    pub reason: ExitReason,
    /// Start of that instance (whole seconds).
    pub started_at: SimTime,
    /// When it exited (whole seconds).
    pub finished_at: SimTime,
}

/// Why a container is waiting (R34, R38).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WaitingReason {
    /// Not started yet.
    ContainerCreating,
    /// Init containers still running.
    PodInitializing,
    /// In restart back-off; the message names the back-off.
    CrashLoopBackOff {
        /// The back-off in the message.
        backoff: SimDuration,
    },
}

impl WaitingReason {
    /// API spelling.
    #[must_use]
    pub const fn as_str(&self) -> &'static str {
        match self {
            WaitingReason::ContainerCreating => "ContainerCreating",
            WaitingReason::PodInitializing => "PodInitializing",
            WaitingReason::CrashLoopBackOff { .. } => "CrashLoopBackOff",
        }
    }
}

/// The API view of one container (`status.containerStatuses[i]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContainerStatus {
    /// `state`.
    pub state: ContainerState,
    /// `lastState.terminated`.
    pub last_state: Option<Terminated>,
    /// `ready`.
    pub ready: bool,
    /// `started`.
    pub started: bool,
    /// `restartCount`.
    pub restart_count: u32,
}

impl Default for ContainerStatus {
    fn default() -> ContainerStatus {
        ContainerStatus {
            state: ContainerState::Waiting(Some(WaitingReason::ContainerCreating)),
            last_state: None,
            ready: false,
            started: false,
            restart_count: 0,
        }
    }
}
