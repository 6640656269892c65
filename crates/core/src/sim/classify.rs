//! What an application's answer makes of a probe attempt: the outcome, the output and how long
//! the attempt took, per handler (P48–P52, docs/semantics.md#mid-answer).

use crate::behaviour::{Answer, Response};
use crate::event::{Outcome, OutputKind};
use crate::profile::{ExecTimeout, Profile};
use crate::spec::Handler;
use crate::time::SimDuration;

/// What an answer makes of an attempt with this handler and timeout (P48–P52,
/// docs/semantics.md#mid-answer): the outcome, the output and how long the attempt took.
pub(super) fn classify(
    handler: &Handler,
    response: Response,
    timeout: SimDuration,
    profile: &Profile,
) -> (Outcome, OutputKind, SimDuration) {
    let Response { answer, latency } = response;
    let timed_out = answer == Answer::Timeout || latency >= timeout;
    let duration = if timed_out { timeout } else { latency };
    let (outcome, output) = match handler {
        Handler::HttpGet { .. } => classify_http(answer, timed_out, profile.redirect_prefix),
        Handler::TcpSocket { .. } => classify_tcp(answer, timed_out),
        Handler::Exec { .. } => {
            if timed_out && answer != Answer::Error {
                match profile.exec_timeout() {
                    ExecTimeout::Error(wording) => {
                        (Outcome::Error, OutputKind::ExecTimeout(wording, timeout))
                    }
                    ExecTimeout::Failure(wording) => {
                        (Outcome::Failure, OutputKind::ExecTimeout(wording, timeout))
                    }
                }
            } else {
                classify_exec(answer)
            }
        }
        Handler::Grpc { .. } => classify_grpc(answer, timed_out, timeout),
    };
    (outcome, output, duration)
}

/// P50.
fn classify_http(answer: Answer, timed_out: bool, prefixed: bool) -> (Outcome, OutputKind) {
    if timed_out {
        return (Outcome::Failure, OutputKind::HttpTimeout);
    }
    let status = match answer {
        Answer::Status(code) => code,
        Answer::Ok | Answer::Open | Answer::Serving => 200,
        Answer::Fail | Answer::NotServing | Answer::Unknown | Answer::Exit(_) => 500,
        Answer::Refused => return (Outcome::Failure, OutputKind::HttpRefused),
        Answer::Timeout => return (Outcome::Failure, OutputKind::HttpTimeout),
        Answer::Error => return (Outcome::Error, OutputKind::ScriptedError),
    };
    match status {
        200..=299 => (Outcome::Success, OutputKind::Empty),
        300..=399 => (Outcome::Warning, OutputKind::HttpRedirect { prefixed }),
        _ => (Outcome::Failure, OutputKind::HttpStatus(status)),
    }
}

/// P51.
fn classify_tcp(answer: Answer, timed_out: bool) -> (Outcome, OutputKind) {
    if timed_out {
        return (Outcome::Failure, OutputKind::TcpTimeout);
    }
    match answer {
        Answer::Ok | Answer::Open | Answer::Status(_) | Answer::Serving => {
            (Outcome::Success, OutputKind::Empty)
        }
        Answer::Error => (Outcome::Error, OutputKind::ScriptedError),
        Answer::Timeout => (Outcome::Failure, OutputKind::TcpTimeout),
        Answer::Fail | Answer::Refused | Answer::Exit(_) | Answer::NotServing | Answer::Unknown => {
            (Outcome::Failure, OutputKind::TcpRefused)
        }
    }
}

/// P48 (apart from timeouts).
fn classify_exec(answer: Answer) -> (Outcome, OutputKind) {
    match answer {
        Answer::Ok | Answer::Exit(0) => (Outcome::Success, OutputKind::Empty),
        Answer::Error => (Outcome::Error, OutputKind::ScriptedError),
        _ => (Outcome::Failure, OutputKind::Empty),
    }
}

/// P52.
fn classify_grpc(answer: Answer, timed_out: bool, timeout: SimDuration) -> (Outcome, OutputKind) {
    if timed_out {
        return (Outcome::Failure, OutputKind::GrpcTimeout(timeout));
    }
    match answer {
        Answer::Ok | Answer::Serving => (Outcome::Success, OutputKind::GrpcHealthy),
        Answer::Fail | Answer::NotServing => {
            (Outcome::Failure, OutputKind::GrpcUnhealthy("NOT_SERVING"))
        }
        Answer::Unknown => (Outcome::Failure, OutputKind::GrpcUnhealthy("UNKNOWN")),
        Answer::Refused => (Outcome::Failure, OutputKind::GrpcRefused),
        Answer::Error => (Outcome::Error, OutputKind::ScriptedError),
        Answer::Timeout => (Outcome::Failure, OutputKind::GrpcTimeout(timeout)),
        Answer::Status(_) | Answer::Open | Answer::Exit(_) => (
            Outcome::Failure,
            OutputKind::GrpcUnhealthy("SERVICE_UNKNOWN"),
        ),
    }
}
