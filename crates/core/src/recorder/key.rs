//! The recorder's look-up key for one Kubernetes Event: its structured parts written as bytes,
//! so that finding what the correlator knows of an event formats no text.
//!
//! [`encode`] writes the type, the reason, the involved object and the message's fields (not its
//! rendered text) into a reusable buffer. The encoding is injective: every field is tagged or
//! length-prefixed, so two events with the same bytes have the same parts, hence the same
//! rendered message. The converse does not hold (`Started container a` is the wording of two
//! [`LifecycleWording`]s, the ≤1.25 `BackOff` message names no container), which is why the
//! recorder maps each key to the *rendered* message once, when the key is new, and decides
//! everything on the rendered message's identity, exactly as if it had compared texts.
//!
//! The keys serve any sink that wants to render a message once per distinct value (the JSON
//! timeline keeps the escaped texts it wrote by these keys).
//!
//! A probe output whose text depends on the handler (a refused or timed-out connection, an exec
//! timeout, a bad port) is written as its rendered text: a handler is a large value, and these
//! outputs are rare next to status codes and empty outputs.

use core::fmt::{self, Write as _};

use crate::event::{
    BackOffWording, KillMessage, KubeEvent, LifecycleWording, Message, ObjectRef, OutputKind,
    PresentWording, ProbeOutput, PulledWording,
};
use crate::spec::ProbeKind;

/// Writes the key of `e` into `out` (cleared first): its type, reason, object and message. Equal
/// keys mean equal rendered messages and objects; the recorder's verdict is not part of it.
pub fn encode(out: &mut Vec<u8>, e: &KubeEvent<'_>) {
    out.clear();
    out.push(match e.event_type {
        crate::event::EventType::Normal => 0,
        crate::event::EventType::Warning => 1,
    });
    text(out, e.reason);
    object(out, e.object);
    message(out, &e.message);
}

/// Appends the key of the involved object alone (the deduplication key's object part).
pub fn object(out: &mut Vec<u8>, object: ObjectRef<'_>) {
    match object {
        ObjectRef::Pod => out.push(0),
        ObjectRef::Container(c) => {
            out.push(1);
            text(out, c);
        }
        ObjectRef::InitContainer(c) => {
            out.push(2);
            text(out, c);
        }
    }
}

/// A length-prefixed string.
fn text(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn probe(out: &mut Vec<u8>, kind: ProbeKind) {
    out.push(match kind {
        ProbeKind::Startup => 0,
        ProbeKind::Readiness => 1,
        ProbeKind::Liveness => 2,
    });
}

fn message(out: &mut Vec<u8>, m: &Message<'_>) {
    match *m {
        Message::ProbeFailed { probe: p, output } => {
            out.push(0);
            probe(out, p);
            probe_output(out, &output);
        }
        Message::ProbeErrored { probe: p, output } => {
            out.push(1);
            probe(out, p);
            probe_output(out, &output);
        }
        Message::ProbeWarning { probe: p, output } => {
            out.push(2);
            probe(out, p);
            probe_output(out, &output);
        }
        Message::Killing { container, kind } => {
            out.push(3);
            text(out, container);
            out.push(match kind {
                KillMessage::Liveness { restart: false } => 0,
                KillMessage::Liveness { restart: true } => 1,
                KillMessage::Startup { restart: false } => 2,
                KillMessage::Startup { restart: true } => 3,
                KillMessage::InitLiveness => 4,
                KillMessage::InitStartup => 5,
                KillMessage::Stopping => 6,
            });
        }
        Message::Pulling { image } => {
            out.push(4);
            text(out, image);
        }
        Message::Pulled {
            image,
            took,
            wording,
        } => {
            out.push(5);
            text(out, image);
            out.extend_from_slice(&took.as_millis().to_le_bytes());
            out.push(match wording {
                PulledWording::Short => 0,
                PulledWording::IncludingWaiting => 1,
            });
        }
        Message::AlreadyPresent { image, wording } => {
            out.push(6);
            text(out, image);
            out.push(match wording {
                PresentWording::Short => 0,
                PresentWording::Accessible => 1,
            });
        }
        Message::Created { container, wording } => {
            out.push(7);
            text(out, container);
            out.push(lifecycle(wording));
        }
        Message::Started { container, wording } => {
            out.push(8);
            text(out, container);
            out.push(lifecycle(wording));
        }
        Message::Combined(inner) => {
            out.push(9);
            message(out, inner);
        }
        Message::BackOff {
            container,
            pod,
            wording,
        } => {
            out.push(10);
            text(out, container);
            text(out, pod.name);
            text(out, pod.namespace);
            text(out, pod.uid);
            out.push(match wording {
                BackOffWording::Short => 0,
                BackOffWording::WithPod => 1,
            });
        }
    }
}

fn lifecycle(wording: LifecycleWording) -> u8 {
    match wording {
        LifecycleWording::Named => 0,
        LifecycleWording::NamedColon => 1,
        LifecycleWording::Plain => 2,
    }
}

/// Appends the key of a probe output: its kind and its own fields where its text depends on
/// nothing else, its rendered text otherwise. Equal keys mean equal rendered outputs.
pub fn probe_output(out: &mut Vec<u8>, o: &ProbeOutput<'_>) {
    match o.kind {
        OutputKind::Empty => out.push(0),
        OutputKind::HttpStatus(code) => {
            out.push(1);
            out.extend_from_slice(&code.to_le_bytes());
        }
        OutputKind::HttpRedirect { prefixed } => {
            out.push(2);
            out.push(u8::from(prefixed));
        }
        OutputKind::GrpcHealthy => out.push(3),
        OutputKind::GrpcUnhealthy(status) => {
            out.push(4);
            text(out, status);
        }
        OutputKind::ExecKilled => out.push(5),
        OutputKind::ExecGone => out.push(6),
        OutputKind::ScriptedError => out.push(7),
        OutputKind::HttpRefused
        | OutputKind::HttpTimeout
        | OutputKind::HttpReset
        | OutputKind::TcpRefused
        | OutputKind::TcpTimeout
        | OutputKind::GrpcRefused
        | OutputKind::GrpcTimeout(_)
        | OutputKind::ExecTimeout(..)
        | OutputKind::BadPort
        | OutputKind::ExecOutput(_)
        | OutputKind::HttpBody(_)
        | OutputKind::HttpRedirectBody { .. } => rendered(out, o),
    }
}

/// Tag 255 and the rendered text, length-prefixed like [`text`] (the length is written once the
/// text is).
fn rendered(out: &mut Vec<u8>, o: &ProbeOutput<'_>) {
    out.push(255);
    let at = out.len();
    out.extend_from_slice(&[0; 8]);
    let _ = write!(Bytes(out), "{o}");
    let len = (out.len() - at - 8) as u64;
    out[at..at + 8].copy_from_slice(&len.to_le_bytes());
}

/// `fmt::Write` into a byte buffer.
struct Bytes<'a>(&'a mut Vec<u8>);

impl fmt::Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}
