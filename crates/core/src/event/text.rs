//! An event in words, as the text timelines print it (the WHAT column of `--format timeline`,
//! exact and for people, and the final statuses under it).
//!
//! Instants inside a description (a container's start, its last exit) are written by the
//! caller's clock: seconds on the virtual clock (`110s`, [`seconds`]) or, in the timeline for
//! people, a duration since the origin.

use core::fmt::{self, Write as _};

use super::{ContainerState, ContainerStatus, EventKind, WaitingReason};
use crate::time::SimTime;

/// Writes an instant inside a description.
pub type WriteAt<'a> = &'a dyn Fn(&mut String, SimTime) -> fmt::Result;

/// An instant as seconds on the virtual clock: `110s`.
///
/// # Errors
/// Never (writing to a `String` cannot fail); the signature is [`WriteAt`]'s.
pub fn seconds(buf: &mut String, t: SimTime) -> fmt::Result {
    write!(buf, "{t}s")
}

impl EventKind<'_> {
    /// Appends the event in words to `buf`, instants written by `at`:
    /// `liveness failure (HTTP probe failed with statuscode: 500)`,
    /// `Liveness probe failed, grace period 30s`, `pod Ready: true`.
    ///
    /// # Errors
    /// Only those of `at`.
    pub fn describe(&self, buf: &mut String, at: WriteAt<'_>) -> fmt::Result {
        match *self {
            EventKind::Probe {
                probe,
                outcome,
                output,
                duration,
                ..
            } => {
                write!(buf, "{probe} {}", outcome.as_str())?;
                if !duration.is_zero() {
                    write!(buf, " after {}", duration.go())?;
                }
                let before = buf.len();
                write!(buf, " ({output}")?;
                if buf.len() == before + 2 {
                    buf.truncate(before);
                } else {
                    buf.push(')');
                }
                Ok(())
            }
            EventKind::Result { probe, result, .. } => {
                write!(buf, "{probe} result: {}", result.as_str())
            }
            EventKind::Kill {
                reason,
                cause,
                grace,
                ..
            } => {
                write!(buf, "{}", reason.as_str())?;
                if !cause.implied_by(reason) {
                    write!(buf, " (cause {})", cause.as_str())?;
                }
                write!(buf, ", grace period {}", grace.go())
            }
            EventKind::Exit {
                exit_code, reason, ..
            } => write!(buf, "exit code {exit_code} ({})", reason.as_str()),
            EventKind::Start { restart_count, .. } => {
                write!(buf, "new instance, restartCount {restart_count}")
            }
            EventKind::BackOff { backoff, .. } => {
                write!(buf, "start refused: back-off {}", backoff.go())
            }
            EventKind::Ready { ready, .. } => write!(buf, "ready: {ready}"),
            EventKind::Started { started, .. } => write!(buf, "started: {started}"),
            EventKind::Status { status, .. } => {
                status.describe_state(buf, at)?;
                status.describe_counts(buf, at)
            }
            EventKind::PodReady { ready } => write!(buf, "pod Ready: {ready}"),
            EventKind::Phase { phase } => write!(buf, "phase {}", phase.as_str()),
            EventKind::Sync { trigger } => write!(buf, "pod sync ({})", trigger.as_str()),
            EventKind::Delete { grace } => {
                write!(buf, "pod deleted (grace period {})", grace.go())
            }
            EventKind::Deleted => buf.write_str("pod object removed from the API server"),
            EventKind::KubeletRestart => buf.write_str("the kubelet restarted"),
            EventKind::Event(e) => {
                write!(buf, "{} {}: {}", e.event_type.as_str(), e.reason, e.message)?;
                // What the event recorder made of it (R54): the count it carries, and whether
                // the spam filter kept it from the API server.
                match e.recorded {
                    Some(r) if r.count > 1 => {
                        write!(buf, "  [x{} since {}s", r.count, r.first)?;
                        buf.push_str(if r.sent { "]" } else { ", not sent]" });
                    }
                    Some(r) if !r.sent => buf.push_str("  [not sent]"),
                    _ => {}
                }
                Ok(())
            }
        }
    }
}

impl ContainerStatus {
    /// Appends the state in words: `running (since 110s)`,
    /// `waiting (CrashLoopBackOff: back-off 40s)`, `terminated (Error, exit code 137)`.
    ///
    /// # Errors
    /// Only those of `at`.
    pub fn describe_state(&self, buf: &mut String, at: WriteAt<'_>) -> fmt::Result {
        match self.state {
            ContainerState::Running { started_at } => {
                buf.push_str("running (since ");
                at(buf, started_at)?;
                buf.push(')');
                Ok(())
            }
            ContainerState::Waiting(None) => buf.write_str("waiting"),
            ContainerState::Waiting(Some(WaitingReason::CrashLoopBackOff { backoff })) => {
                write!(buf, "waiting (CrashLoopBackOff: back-off {})", backoff.go())
            }
            ContainerState::Waiting(Some(reason)) => {
                write!(buf, "waiting ({})", reason.as_str())
            }
            ContainerState::Terminated(t) => write!(
                buf,
                "terminated ({}, exit code {})",
                t.reason.as_str(),
                t.exit_code
            ),
        }
    }

    /// Appends the counts in words: `, restartCount 9, last exit 137 (Error) at 1560s`.
    ///
    /// # Errors
    /// Only those of `at`.
    pub fn describe_counts(&self, buf: &mut String, at: WriteAt<'_>) -> fmt::Result {
        write!(buf, ", restartCount {}", self.restart_count)?;
        if let Some(last) = self.last_state {
            write!(
                buf,
                ", last exit {} ({}) at ",
                last.exit_code,
                last.reason.as_str()
            )?;
            at(buf, last.finished_at)?;
        }
        Ok(())
    }
}
