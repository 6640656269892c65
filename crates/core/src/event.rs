//! The timeline vocabulary: what the engine reports, as it happens.
//!
//! Events borrow names and texts from the pod spec, so emitting one allocates nothing; message
//! texts are rendered by `Display` only when a sink asks for them. Version-dependent wording is
//! chosen by the engine from the profile and carried in the event as a small enum.
//!
//! This module holds the timeline events themselves ([`Event`], [`EventKind`]) and the words of
//! a probe run and a kill; its parts hold the Kubernetes Event and its message texts (`kube`),
//! a probe's output texts (`output`), the API view of a container and its pod (`status`), and the
//! closed sets of `reason` values (`vocabulary`), and an event in words as the timelines print
//! it (`text`): the one rendering of an event, which [`Record`](crate::Record) keeps for the
//! engine's tests too. Everything is re-exported here.

use crate::spec::ProbeKind;
use crate::time::{SimDuration, SimTime};

mod kube;
mod output;
mod status;
mod text;
mod vocabulary;

pub use kube::{
    BackOffWording, EventType, KillMessage, KubeEvent, LifecycleWording, Message, ObjectRef,
    PodName, PresentWording, PulledWording, Recorded,
};
pub use output::{
    write_truncated, ExecTimeoutWording, OutputKind, ProbeOutput, TextRef, Texts, MAX_PROBE_OUTPUT,
};
pub use status::{ContainerState, ContainerStatus, ExitReason, Phase, Terminated, WaitingReason};
pub use text::{seconds, WriteAt};
pub use vocabulary::KillCause;

/// One timeline event.
#[derive(Clone, Copy, Debug)]
pub struct Event<'a> {
    /// When it happened (for `probe`: when the result was known).
    pub t: SimTime,
    /// What happened.
    pub kind: EventKind<'a>,
}

/// The handler-level outcome of one probe execution after retries (P2, P3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Success.
    Success,
    /// Failure (including an unknown outcome without error).
    Failure,
    /// Success with extra information (HTTP 3xx).
    Warning,
    /// The prober returned an error: the result is discarded (P31).
    Error,
}

impl Outcome {
    /// JSON spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Failure => "failure",
            Outcome::Warning => "warning",
            Outcome::Error => "error",
        }
    }
}

/// A worker-level result as stored in a results cache (P1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProbeResult {
    /// Success.
    Success,
    /// Failure.
    Failure,
    /// Unknown (a startup worker's initial value).
    Unknown,
}

impl ProbeResult {
    /// JSON spelling (`Success`, `Failure`, `Unknown`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ProbeResult::Success => "Success",
            ProbeResult::Failure => "Failure",
            ProbeResult::Unknown => "Unknown",
        }
    }
}

/// Why the kubelet killed a container.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KillReason {
    /// Liveness failure (R13).
    LivenessProbe,
    /// Startup failure (R13).
    StartupProbe,
    /// The whole pod is killed (R15): the kubelet passes no specific reason.
    Unknown,
    /// The pod is being deleted.
    Deletion,
}

impl KillReason {
    /// JSON spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            KillReason::LivenessProbe => "LivenessProbe",
            KillReason::StartupProbe => "StartupProbe",
            KillReason::Unknown => "Unknown",
            KillReason::Deletion => "Deletion",
        }
    }
}

/// What started a pod sync (for readers of the timeline; not part of the kubelet's API).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyncTrigger {
    /// The pod's first sync on the node.
    Create,
    /// A PLEG relist saw a container start or exit (R5).
    Pleg,
    /// A probe result update (R1, R2).
    Probe,
    /// The periodic requeue after a good sync (R6).
    Resync,
    /// The requeue after a back-off error (R7, R8).
    BackOff,
    /// An update that arrived while the pod worker was busy (R3).
    Pending,
    /// The pod is being deleted: the pod worker terminates it.
    Terminating,
    /// The pod's containers are all stopped after a deletion: the final status.
    Terminated,
    /// The kubelet restarted and syncs the pod again.
    KubeletRestart,
}

impl SyncTrigger {
    /// JSON spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            SyncTrigger::Create => "create",
            SyncTrigger::Pleg => "pleg",
            SyncTrigger::Probe => "probe",
            SyncTrigger::Resync => "resync",
            SyncTrigger::BackOff => "backoff",
            SyncTrigger::Pending => "pending",
            SyncTrigger::Terminating => "terminating",
            SyncTrigger::Terminated => "terminated",
            SyncTrigger::KubeletRestart => "kubelet-restart",
        }
    }
}

/// Everything the timeline can say.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum EventKind<'a> {
    /// One probe execution after retries, placed when its result is known.
    Probe {
        /// Container name.
        container: &'a str,
        /// Probe type.
        probe: ProbeKind,
        /// Handler-level outcome.
        outcome: Outcome,
        /// Handler output (or error text for `Error`).
        output: ProbeOutput<'a>,
        /// How long it took (it started at `t - duration`).
        duration: SimDuration,
    },
    /// A results-cache change that emits an update (P42).
    Result {
        /// Container name.
        container: &'a str,
        /// Probe type.
        probe: ProbeKind,
        /// The new cached value.
        result: ProbeResult,
    },
    /// The kubelet decided to kill a container and began its grace period.
    Kill {
        /// Container name.
        container: &'a str,
        /// Why, in the kubelet's words.
        reason: KillReason,
        /// What led to it.
        cause: KillCause,
        /// The grace period handed to the runtime.
        grace: SimDuration,
    },
    /// A container instance's process ended.
    Exit {
        /// Container name.
        container: &'a str,
        /// Its exit code.
        exit_code: i32,
        /// The runtime's reason.
        reason: ExitReason,
    },
    /// A container instance started.
    Start {
        /// Container name.
        container: &'a str,
        /// The restart count it will show.
        restart_count: u32,
    },
    /// A start refused because of back-off (R30).
    BackOff {
        /// Container name.
        container: &'a str,
        /// The current back-off.
        backoff: SimDuration,
    },
    /// The API-visible `ready` of a container changed.
    Ready {
        /// Container name.
        container: &'a str,
        /// New value.
        ready: bool,
    },
    /// The API-visible `started` of a container changed.
    Started {
        /// Container name.
        container: &'a str,
        /// New value.
        started: bool,
    },
    /// The API-visible state, reason or restart count of a container changed.
    Status {
        /// Container name.
        container: &'a str,
        /// The new API view of the container.
        status: &'a ContainerStatus,
    },
    /// The pod's `Ready` condition changed.
    PodReady {
        /// New value.
        ready: bool,
    },
    /// The pod phase changed.
    Phase {
        /// New phase.
        phase: Phase,
    },
    /// A pod sync began.
    Sync {
        /// What started it.
        trigger: SyncTrigger,
    },
    /// The pod was deleted through the API (`deleteAt`): it now has a deletion timestamp.
    Delete {
        /// The deletion grace period.
        grace: SimDuration,
    },
    /// The pod object is gone from the API server (the kubelet confirmed its termination).
    Deleted,
    /// The kubelet process restarted (`kubelet.restartAt`): its in-memory state is gone.
    KubeletRestart,
    /// A Kubernetes Event recorded by the kubelet.
    Event(KubeEvent<'a>),
}

impl EventKind<'_> {
    /// Every JSON `kind`, in the order of [`EventKind::index`].
    pub const NAMES: [&'static str; 16] = [
        "probe",
        "result",
        "kill",
        "exit",
        "start",
        "backoff",
        "ready",
        "started",
        "status",
        "podReady",
        "phase",
        "sync",
        "event",
        "delete",
        "deleted",
        "kubeletRestart",
    ];

    /// Position of this kind in [`EventKind::NAMES`].
    #[must_use]
    pub const fn index(&self) -> usize {
        match self {
            EventKind::Probe { .. } => 0,
            EventKind::Result { .. } => 1,
            EventKind::Kill { .. } => 2,
            EventKind::Exit { .. } => 3,
            EventKind::Start { .. } => 4,
            EventKind::BackOff { .. } => 5,
            EventKind::Ready { .. } => 6,
            EventKind::Started { .. } => 7,
            EventKind::Status { .. } => 8,
            EventKind::PodReady { .. } => 9,
            EventKind::Phase { .. } => 10,
            EventKind::Sync { .. } => 11,
            EventKind::Event(_) => 12,
            EventKind::Delete { .. } => 13,
            EventKind::Deleted => 14,
            EventKind::KubeletRestart => 15,
        }
    }

    /// The JSON `kind`.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        Self::NAMES[self.index()]
    }

    /// The container the event is about, if any.
    #[must_use]
    pub fn container(&self) -> Option<&str> {
        match self {
            EventKind::Probe { container, .. }
            | EventKind::Result { container, .. }
            | EventKind::Kill { container, .. }
            | EventKind::Exit { container, .. }
            | EventKind::Start { container, .. }
            | EventKind::BackOff { container, .. }
            | EventKind::Ready { container, .. }
            | EventKind::Started { container, .. }
            | EventKind::Status { container, .. } => Some(container),
            EventKind::Event(e) => match e.object {
                ObjectRef::Container(c) | ObjectRef::InitContainer(c) => Some(c),
                ObjectRef::Pod => None,
            },
            EventKind::PodReady { .. }
            | EventKind::Phase { .. }
            | EventKind::Sync { .. }
            | EventKind::Delete { .. }
            | EventKind::Deleted
            | EventKind::KubeletRestart => None,
        }
    }
}
