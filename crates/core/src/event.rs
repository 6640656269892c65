//! The timeline vocabulary: what the engine reports, as it happens.
//!
//! Events borrow names and texts from the pod spec, so emitting one allocates nothing; message
//! texts are rendered by `Display` only when a sink asks for them. Version-dependent wording is
//! chosen by the engine from the profile and carried in the event as a small enum.

use core::fmt;

use crate::spec::{Handler, ProbeKind};
use crate::time::{SimDuration, SimTime};

mod vocabulary;
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

/// A one-line human description (used by the text timeline and test sinks).
impl fmt::Display for EventKind<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventKind::Probe {
                probe,
                outcome,
                output,
                duration,
                ..
            } => {
                write!(f, "{probe} probe: {}", outcome.as_str())?;
                if !duration.is_zero() {
                    write!(f, " after {duration}s")?;
                }
                let mut text = String::new();
                fmt::write(&mut text, format_args!("{output}"))?;
                if !text.is_empty() {
                    write!(f, " ({text})")?;
                }
                Ok(())
            }
            EventKind::Result { probe, result, .. } => {
                write!(f, "{probe} result -> {}", result.as_str())
            }
            EventKind::Kill {
                reason,
                cause,
                grace,
                ..
            } => {
                write!(f, "kill ({}", reason.as_str())?;
                if !cause.implied_by(*reason) {
                    write!(f, ", cause {}", cause.as_str())?;
                }
                write!(f, "), grace {grace}s")
            }
            EventKind::Exit {
                exit_code, reason, ..
            } => {
                write!(f, "exited with code {exit_code} ({})", reason.as_str())
            }
            EventKind::Start { restart_count, .. } => {
                write!(f, "started (restartCount {restart_count})")
            }
            EventKind::BackOff { backoff, .. } => {
                write!(f, "start refused: in back-off {}", backoff.go())
            }
            EventKind::Ready { ready, .. } => write!(f, "ready={ready}"),
            EventKind::Started { started, .. } => write!(f, "started={started}"),
            EventKind::Status { status, .. } => write!(f, "{status}"),
            EventKind::PodReady { ready } => write!(f, "pod Ready={ready}"),
            EventKind::Phase { phase } => write!(f, "phase {}", phase.as_str()),
            EventKind::Sync { trigger } => write!(f, "pod sync ({})", trigger.as_str()),
            EventKind::Delete { grace } => write!(f, "pod deleted, grace {grace}s"),
            EventKind::Deleted => f.write_str("pod object removed"),
            EventKind::KubeletRestart => f.write_str("kubelet restarted"),
            EventKind::Event(e) => {
                write!(f, "{} {}: {}", e.event_type.as_str(), e.reason, e.message)?;
                match e.recorded {
                    Some(r) if r.count > 1 && !r.sent => {
                        write!(f, " (x{} since {}s, not sent)", r.count, r.first)
                    }
                    Some(r) if r.count > 1 => write!(f, " (x{} since {}s)", r.count, r.first),
                    Some(r) if !r.sent => f.write_str(" (not sent)"),
                    _ => Ok(()),
                }
            }
        }
    }
}

/// `Normal` or `Warning`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventType {
    /// Normal.
    Normal,
    /// Warning.
    Warning,
}

impl EventType {
    /// API spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

/// The object an event is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectRef<'a> {
    /// The pod itself.
    Pod,
    /// `spec.containers{<name>}`.
    Container(&'a str),
    /// `spec.initContainers{<name>}`.
    InitContainer(&'a str),
}

impl fmt::Display for ObjectRef<'_> {
    /// The `fieldPath` of the involved object (empty for the pod).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObjectRef::Pod => Ok(()),
            ObjectRef::Container(c) => write!(f, "spec.containers{{{c}}}"),
            ObjectRef::InitContainer(c) => write!(f, "spec.initContainers{{{c}}}"),
        }
    }
}

/// A Kubernetes Event as the kubelet records it (R56).
#[derive(Clone, Copy, Debug)]
pub struct KubeEvent<'a> {
    /// Normal or Warning.
    pub event_type: EventType,
    /// `Killing`, `Unhealthy`, `BackOff`, …
    pub reason: &'static str,
    /// The involved object.
    pub object: ObjectRef<'a>,
    /// The message, rendered on demand.
    pub message: Message<'a>,
    /// What the event recorder made of it, when a [`Recorder`](crate::recorder::Recorder) is in
    /// the sink chain (`None` straight from the engine).
    pub recorded: Option<Recorded>,
}

/// The event recorder's verdict on one Kubernetes Event (R54).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Recorded {
    /// `count` of the event object as it would be sent (1 for a first occurrence).
    pub count: u32,
    /// `firstTimestamp`: the first occurrence this count started from.
    pub first: SimTime,
    /// Whether the spam filter let it through to the API server.
    pub sent: bool,
    /// Whether it was sent as a `(combined from similar events)` event.
    pub combined: bool,
}

/// Wording of the `Created`/`Started` messages by version (R56).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LifecycleWording {
    /// `Created container X` / `Started container X` (≤1.32; Started ≤1.34).
    Named,
    /// `Created container: X` (1.33–1.34).
    NamedColon,
    /// `Container created` / `Container started` (≥1.35).
    Plain,
}

/// Wording of the `BackOff` message by version (R33).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackOffWording {
    /// `Back-off restarting failed container` (≤1.25).
    Short,
    /// `Back-off restarting failed container <c> in pod <pod>_<ns>(<uid>)` (≥1.26).
    WithPod,
}

/// Wording of the `Pulled` message by version (R56).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PulledWording {
    /// `Successfully pulled image "<image>" in <dur>`.
    Short,
    /// `… in <dur> (<dur> including waiting)`.
    IncludingWaiting,
}

/// Who the pod is, for messages that name it (`<name>_<namespace>(<uid>)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PodName<'a> {
    /// `metadata.name`.
    pub name: &'a str,
    /// `metadata.namespace`.
    pub namespace: &'a str,
    /// `metadata.uid`.
    pub uid: &'a str,
}

impl fmt::Display for PodName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}({})", self.name, self.namespace, self.uid)
    }
}

/// What the kill message says (R14, R15, R60).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KillMessage {
    /// `Container X failed liveness probe[, will be restarted]`.
    Liveness {
        /// Whether the restart suffix is added.
        restart: bool,
    },
    /// `Container X failed startup probe[, will be restarted]`.
    Startup {
        /// Whether the restart suffix is added.
        restart: bool,
    },
    /// `Init container X failed liveness probe` (sidecar).
    InitLiveness,
    /// `Init container X failed startup probe` (sidecar).
    InitStartup,
    /// `Stopping container X` (empty message, R23).
    Stopping,
}

/// An event message, rendered on demand.
#[derive(Clone, Copy, Debug)]
pub enum Message<'a> {
    /// `<Type> probe failed: <output>` (P41).
    ProbeFailed {
        /// Probe type.
        probe: ProbeKind,
        /// Handler output.
        output: ProbeOutput<'a>,
    },
    /// `<Type> probe errored: <error>` (P41).
    ProbeErrored {
        /// Probe type.
        probe: ProbeKind,
        /// Error text.
        output: ProbeOutput<'a>,
    },
    /// `<Type> probe warning: <output>` (P41).
    ProbeWarning {
        /// Probe type.
        probe: ProbeKind,
        /// Handler output.
        output: ProbeOutput<'a>,
    },
    /// A `Killing` message.
    Killing {
        /// Container name.
        container: &'a str,
        /// Which text.
        kind: KillMessage,
    },
    /// `Pulling image "<image>"`.
    Pulling {
        /// Image reference.
        image: &'a str,
    },
    /// `Successfully pulled image "<image>" in <dur>…`.
    Pulled {
        /// Image reference.
        image: &'a str,
        /// Pull time.
        took: SimDuration,
        /// Wording.
        wording: PulledWording,
    },
    /// `Container image "<image>" already present on machine`.
    AlreadyPresent {
        /// Image reference.
        image: &'a str,
    },
    /// `Created` message.
    Created {
        /// Container name.
        container: &'a str,
        /// Wording.
        wording: LifecycleWording,
    },
    /// `Started` message.
    Started {
        /// Container name.
        container: &'a str,
        /// Wording.
        wording: LifecycleWording,
    },
    /// `(combined from similar events): <message>` (R54, R55).
    Combined(&'a Message<'a>),
    /// `BackOff` message (R33).
    BackOff {
        /// Container name.
        container: &'a str,
        /// The pod.
        pod: PodName<'a>,
        /// Wording.
        wording: BackOffWording,
    },
}

impl fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Message::ProbeFailed { probe, output } => {
                write!(f, "{} probe failed: {output}", probe.title())
            }
            Message::ProbeErrored { probe, output } => {
                write!(f, "{} probe errored: {output}", probe.title())
            }
            Message::ProbeWarning { probe, output } => {
                write!(f, "{} probe warning: {output}", probe.title())
            }
            Message::Killing { container, kind } => match kind {
                KillMessage::Liveness { restart } => {
                    write!(f, "Container {container} failed liveness probe")?;
                    if restart {
                        f.write_str(", will be restarted")?;
                    }
                    Ok(())
                }
                KillMessage::Startup { restart } => {
                    write!(f, "Container {container} failed startup probe")?;
                    if restart {
                        f.write_str(", will be restarted")?;
                    }
                    Ok(())
                }
                KillMessage::InitLiveness => {
                    write!(f, "Init container {container} failed liveness probe")
                }
                KillMessage::InitStartup => {
                    write!(f, "Init container {container} failed startup probe")
                }
                KillMessage::Stopping => write!(f, "Stopping container {container}"),
            },
            Message::Pulling { image } => write!(f, "Pulling image \"{image}\""),
            Message::Pulled {
                image,
                took,
                wording,
            } => match wording {
                PulledWording::Short => {
                    write!(f, "Successfully pulled image \"{image}\" in {}", took.go())
                }
                PulledWording::IncludingWaiting => write!(
                    f,
                    "Successfully pulled image \"{image}\" in {} ({} including waiting)",
                    took.go(),
                    took.go()
                ),
            },
            Message::AlreadyPresent { image } => {
                write!(f, "Container image \"{image}\" already present on machine")
            }
            Message::Created { container, wording } => match wording {
                LifecycleWording::Named => write!(f, "Created container {container}"),
                LifecycleWording::NamedColon => write!(f, "Created container: {container}"),
                LifecycleWording::Plain => f.write_str("Container created"),
            },
            Message::Started { container, wording } => match wording {
                LifecycleWording::Named | LifecycleWording::NamedColon => {
                    write!(f, "Started container {container}")
                }
                LifecycleWording::Plain => f.write_str("Container started"),
            },
            Message::Combined(inner) => write!(f, "(combined from similar events): {inner}"),
            Message::BackOff {
                container,
                pod,
                wording,
            } => match wording {
                BackOffWording::Short => f.write_str("Back-off restarting failed container"),
                BackOffWording::WithPod => {
                    write!(
                        f,
                        "Back-off restarting failed container {container} in pod {pod}"
                    )
                }
            },
        }
    }
}

/// Wording of an exec timeout's output by version (P48).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExecTimeoutWording {
    /// 1.19: the runtime's own gRPC error, passed through unchanged (containerd's
    /// `execInternal` wraps the context error; the kubelet's `ExecSync` did not yet translate
    /// it): `rpc error: code = DeadlineExceeded desc = failed to exec in container: timeout <T>
    /// exceeded: context deadline exceeded`.
    Runtime,
    /// 1.20–1.22: the empty captured output.
    Empty,
    /// 1.23–1.30: `command "<cmd>" timed out`.
    Quoted,
    /// ≥1.31: `command timed out: "<cmd>" timed out after <T>`.
    After,
}

/// What a probe execution printed, or the prober's error text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputKind {
    /// Nothing (success of exec, tcp; HTTP success with an empty body).
    Empty,
    /// `HTTP probe failed with statuscode: <code>` (P50).
    HttpStatus(u16),
    /// A 3xx that is not followed: the body, prefixed from 1.24 (P50).
    HttpRedirect {
        /// Whether the `Probe terminated redirects, Response body: ` prefix is printed.
        prefixed: bool,
    },
    /// The connection was refused (HTTP transport error).
    HttpRefused,
    /// No answer within the timeout (HTTP client timeout).
    HttpTimeout,
    /// The process died while answering: the connection closed before a response.
    HttpReset,
    /// TCP dial refused.
    TcpRefused,
    /// TCP dial timed out.
    TcpTimeout,
    /// gRPC `service healthy`.
    GrpcHealthy,
    /// gRPC `service unhealthy (responded with "<STATUS>")`.
    GrpcUnhealthy(&'static str),
    /// gRPC connection refused.
    GrpcRefused,
    /// gRPC connect deadline (the probe's timeout).
    GrpcTimeout(SimDuration),
    /// An exec probe that ran past its timeout.
    ExecTimeout(ExecTimeoutWording, SimDuration),
    /// An exec into a container whose process is gone (error).
    ExecGone,
    /// An exec'd command that died with its container while running: the runtime reports exit
    /// 137 (SIGKILL) and the prober's output is what the command had printed, which is not
    /// modelled (empty).
    ExecKilled,
    /// A scripted prober error.
    ScriptedError,
    /// The port could not be resolved (P39, error).
    BadPort,
}

/// A probe's output, rendered on demand from the handler it ran.
#[derive(Clone, Copy, Debug)]
pub struct ProbeOutput<'a> {
    /// The probe's handler.
    pub handler: &'a Handler,
    /// The pod IP (target of handlers without a host).
    pub pod_ip: &'a str,
    /// What happened.
    pub kind: OutputKind,
}

impl fmt::Display for ProbeOutput<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn host<'h>(h: &'h Option<String>, ip: &'h str) -> &'h str {
            h.as_deref().unwrap_or(ip)
        }
        match (self.kind, self.handler) {
            (OutputKind::Empty, _) => Ok(()),
            (OutputKind::HttpStatus(code), _) => {
                write!(f, "HTTP probe failed with statuscode: {code}")
            }
            (OutputKind::HttpRedirect { prefixed }, _) => {
                if prefixed {
                    f.write_str("Probe terminated redirects, Response body: ")?;
                }
                Ok(())
            }
            (OutputKind::HttpRefused | OutputKind::HttpTimeout | OutputKind::HttpReset, Handler::HttpGet { scheme, host: h, port, path }) => {
                let hp = host(h, self.pod_ip);
                let n = port.number().unwrap_or(0);
                // The path is a URL reference: Go writes a relative one with a leading `/`.
                let before_query = path.split(['?', '#']).next().unwrap_or_default();
                let slash = if before_query.is_empty() || before_query.starts_with('/') { "" } else { "/" };
                write!(f, "Get \"{}://{}:{n}{slash}{path}\": ", scheme.url(), bracket(hp))?;
                if self.kind == OutputKind::HttpReset {
                    f.write_str("EOF")
                } else if self.kind == OutputKind::HttpRefused {
                    write!(f, "dial tcp {}:{n}: connect: connection refused", bracket(hp))
                } else {
                    f.write_str("context deadline exceeded (Client.Timeout exceeded while awaiting headers)")
                }
            }
            (OutputKind::TcpRefused | OutputKind::TcpTimeout, Handler::TcpSocket { host: h, port }) => {
                let n = port.number().unwrap_or(0);
                write!(f, "dial tcp {}:{n}: ", bracket(host(h, self.pod_ip)))?;
                if self.kind == OutputKind::TcpRefused {
                    f.write_str("connect: connection refused")
                } else {
                    f.write_str("i/o timeout")
                }
            }
            (OutputKind::GrpcHealthy, _) => f.write_str("service healthy"),
            (OutputKind::GrpcUnhealthy(status), _) => {
                write!(f, "service unhealthy (responded with \"{status}\")")
            }
            (OutputKind::GrpcRefused, Handler::Grpc { port, .. }) => write!(
                f,
                "error: failed to connect service at \"{ip}:{port}\": rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial tcp {ip}:{port}: connect: connection refused\"",
                ip = bracket(self.pod_ip)
            ),
            (OutputKind::GrpcTimeout(timeout), Handler::Grpc { port, .. }) => write!(
                f,
                "timeout: failed to connect service \"{}:{port}\" within {}: context deadline exceeded",
                bracket(self.pod_ip),
                timeout.go()
            ),
            (OutputKind::ExecKilled, _) => Ok(()),
            (OutputKind::ExecTimeout(wording, timeout), Handler::Exec { command }) => match wording {
                ExecTimeoutWording::Runtime => write!(
                    f,
                    "rpc error: code = DeadlineExceeded desc = failed to exec in container: timeout {} exceeded: context deadline exceeded",
                    timeout.go()
                ),
                ExecTimeoutWording::Empty => Ok(()),
                ExecTimeoutWording::Quoted => {
                    f.write_str("command \"")?;
                    write_joined(f, command)?;
                    f.write_str("\" timed out")
                }
                ExecTimeoutWording::After => {
                    f.write_str("command timed out: \"")?;
                    write_joined(f, command)?;
                    write!(f, "\" timed out after {}", timeout.go())
                }
            },
            (OutputKind::ExecGone, _) => f.write_str(
                "rpc error: code = Unknown desc = failed to exec in container: container is in CONTAINER_EXITED state",
            ),
            (OutputKind::ScriptedError, _) => {
                f.write_str("rpc error: code = Unknown desc = probe error (scripted)")
            }
            (OutputKind::BadPort, Handler::HttpGet { port, .. } | Handler::TcpSocket { port, .. }) => {
                match port {
                    crate::spec::Port::Unparsable(name) => {
                        write!(f, "strconv.Atoi: parsing \"{name}\": invalid syntax")
                    }
                    crate::spec::Port::OutOfRange(n) => write!(f, "invalid port number: {n}"),
                    crate::spec::Port::Number(n) => write!(f, "invalid port number: {n}"),
                }
            }
            // A kind that does not belong to the handler: print nothing rather than guess.
            _ => Ok(()),
        }
    }
}

fn bracket(host: &str) -> Bracketed<'_> {
    Bracketed(host)
}

/// An IPv6 literal in a host:port pair gets brackets, as Go's `net.JoinHostPort` adds them.
struct Bracketed<'a>(&'a str);

impl fmt::Display for Bracketed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.contains(':') {
            write!(f, "[{}]", self.0)
        } else {
            f.write_str(self.0)
        }
    }
}

fn write_joined(f: &mut fmt::Formatter<'_>, words: &[String]) -> fmt::Result {
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        f.write_str(w)?;
    }
    Ok(())
}

/// The API view of one container's state (R37).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

impl fmt::Display for ContainerStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.state.name())?;
        if let Some(r) = self.state.reason() {
            write!(f, " ({r})")?;
        }
        if let ContainerState::Terminated(t) = self.state {
            write!(f, " exitCode={}", t.exit_code)?;
        }
        write!(f, ", restartCount {}", self.restart_count)?;
        if let Some(last) = self.last_state {
            write!(
                f,
                ", lastState exitCode={} finishedAt={}",
                last.exit_code, last.finished_at
            )?;
        }
        Ok(())
    }
}
