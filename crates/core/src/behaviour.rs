//! How the application answers probes: the one seam between the engine and the scripts.

use core::fmt;

use crate::spec::ProbeKind;
use crate::time::{SimDuration, SimTime};

/// What the application does with one probe attempt (contract §3, `outcome`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answer {
    /// An HTTP status code.
    Status(u16),
    /// The natural success for the handler (HTTP 200, TCP open, exit 0, SERVING).
    Ok,
    /// The natural failure for the handler (HTTP 500, TCP refused, exit 1, NOT_SERVING).
    Fail,
    /// The TCP port accepts connections.
    Open,
    /// The connection is refused.
    Refused,
    /// No answer before `timeoutSeconds`.
    Timeout,
    /// An exec command's exit status.
    Exit(i32),
    /// gRPC health `SERVING`.
    Serving,
    /// gRPC health `NOT_SERVING`.
    NotServing,
    /// gRPC health `UNKNOWN`.
    Unknown,
    /// The prober itself fails (P3, P40: retried, then discarded).
    Error,
}

impl fmt::Display for Answer {
    /// The script language's spelling.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Status(code) => write!(f, "{code}"),
            Answer::Ok => f.write_str("ok"),
            Answer::Fail => f.write_str("fail"),
            Answer::Open => f.write_str("open"),
            Answer::Refused => f.write_str("refused"),
            Answer::Timeout => f.write_str("timeout"),
            Answer::Exit(code) => write!(f, "exit {code}"),
            Answer::Serving => f.write_str("serving"),
            Answer::NotServing => f.write_str("not-serving"),
            Answer::Unknown => f.write_str("unknown"),
            Answer::Error => f.write_str("error"),
        }
    }
}

/// The handler families an answer can be meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandlerFamily {
    /// `exec`.
    Exec,
    /// `httpGet`.
    Http,
    /// `tcpSocket`.
    Tcp,
    /// `grpc`.
    Grpc,
}

impl HandlerFamily {
    /// The manifest's name for the handler.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            HandlerFamily::Exec => "exec",
            HandlerFamily::Http => "httpGet",
            HandlerFamily::Tcp => "tcpSocket",
            HandlerFamily::Grpc => "grpc",
        }
    }
}

impl Answer {
    /// Can this answer come from a probe of that handler? (`exit 1` cannot answer `httpGet`.)
    #[must_use]
    pub const fn applies_to(self, family: HandlerFamily) -> bool {
        match self {
            Answer::Ok | Answer::Fail | Answer::Error => true,
            Answer::Status(_) => matches!(family, HandlerFamily::Http | HandlerFamily::Tcp),
            Answer::Open => matches!(family, HandlerFamily::Tcp),
            Answer::Refused => !matches!(family, HandlerFamily::Exec),
            Answer::Timeout => true,
            Answer::Exit(_) => matches!(family, HandlerFamily::Exec),
            Answer::Serving | Answer::NotServing | Answer::Unknown => {
                matches!(family, HandlerFamily::Grpc)
            }
        }
    }
}

/// One probe attempt, as the application sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// Index of the container: init containers first, then `spec.containers`
    /// (see [`PodSpec::container`](crate::spec::PodSpec::container)).
    pub container: usize,
    /// The probe type making the attempt.
    pub probe: ProbeKind,
    /// The container instance reached (0 for the first, +1 for each restart); a new value means
    /// a new process that remembers nothing.
    pub instance: u32,
    /// Time since that instance started.
    pub uptime: SimDuration,
    /// Time since the timeline origin (for `pod:`-scoped scripts).
    pub now: SimTime,
}

/// The application's answer to one attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response {
    /// What it answers.
    pub answer: Answer,
    /// How long the answer takes to arrive.
    pub latency: SimDuration,
}

impl Response {
    /// An immediate answer.
    #[must_use]
    pub const fn now(answer: Answer) -> Response {
        Response {
            answer,
            latency: SimDuration::ZERO,
        }
    }
}

/// How an application answers probe attempts. Implemented by the script player and by closures
/// in tests. Called only by [`Simulation`](crate::sim::Simulation), in attempt order.
pub trait Behaviour {
    /// Answers one attempt. Must not allocate in steady state.
    fn respond(&mut self, attempt: &Attempt) -> Response;
}

impl<F: FnMut(&Attempt) -> Response> Behaviour for F {
    fn respond(&mut self, attempt: &Attempt) -> Response {
        self(attempt)
    }
}

/// The behaviour of a probe without a script: always `ok`, at once.
#[derive(Clone, Copy, Debug, Default)]
pub struct AlwaysOk;

impl Behaviour for AlwaysOk {
    fn respond(&mut self, _attempt: &Attempt) -> Response {
        Response::now(Answer::Ok)
    }
}
