//! The Kubernetes Event as the kubelet records it ([`KubeEvent`], R56): its type, the object it
//! is about, the recorder's verdict on it, and its message texts with their version-dependent
//! wording, rendered by `Display` only when a sink asks for them.

use core::fmt;

use super::ProbeOutput;
use crate::spec::ProbeKind;
use crate::time::{SimDuration, SimTime};

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

/// Wording of the `Pulled` message for an image already on the node (R56).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PresentWording {
    /// `Container image "<image>" already present on machine` (gate
    /// `KubeletEnsureSecretPulledImages` off: every release before 1.35 by default).
    Short,
    /// `… already present on machine and can be accessed by the pod` (the gate on: the image
    /// manager has checked that the pod may use the image; default from 1.35).
    Accessible,
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
#[non_exhaustive]
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
    /// `Container image "<image>" already present on machine…`.
    AlreadyPresent {
        /// Image reference.
        image: &'a str,
        /// Wording.
        wording: PresentWording,
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
            Message::AlreadyPresent { image, wording } => {
                write!(f, "Container image \"{image}\" already present on machine")?;
                if wording == PresentWording::Accessible {
                    f.write_str(" and can be accessed by the pod")?;
                }
                Ok(())
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
