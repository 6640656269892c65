//! A container's life as bars: creating, running, terminating, waiting in back-off, stopped.

use core::fmt::Write as _;

use probesim_core::{SimDuration, SimTime};

use crate::explain::{At, Took};
use crate::trace::{Trace, What};

/// What a bar shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BarKind {
    /// Before the first start (image pull, init containers).
    Creating,
    /// An instance runs.
    Running,
    /// Killed, in its grace period.
    Terminating,
    /// Exited, its restart held back by the crash-loop back-off.
    BackOff,
    /// Exited, not (yet) restarted without back-off.
    Stopped,
}

/// One bar of a container's lane.
#[derive(Clone, Debug)]
pub(super) struct Bar {
    pub kind: BarKind,
    pub from: SimTime,
    pub to: SimTime,
    pub title: String,
}

/// The bars of container `c`, in time order, from the first fact to the end of the run.
pub(super) fn bars(trace: &Trace, c: usize) -> Vec<Bar> {
    let name = &trace.names[c];
    let mut out = Vec::new();
    // The open bar: its kind, start and what its title says so far.
    let mut open: Option<(BarKind, SimTime, String)> = Some((
        BarKind::Creating,
        SimTime::ZERO,
        format!("{name}: not started yet"),
    ));
    let mut backoff: Option<SimDuration> = None;
    let close = |open: &mut Option<(BarKind, SimTime, String)>, t: SimTime, out: &mut Vec<Bar>| {
        if let Some((kind, from, mut title)) = open.take() {
            let _ = write!(
                title,
                " (t={} to t={}, {})",
                At(from),
                At(t),
                Took(t.saturating_since(from))
            );
            if t > from {
                out.push(Bar {
                    kind,
                    from,
                    to: t,
                    title,
                });
            }
        }
    };
    for (_, item) in trace.replay() {
        if item.what.container() != Some(c) {
            continue;
        }
        match item.what {
            What::Start { restart_count, .. } => {
                close(&mut open, item.t, &mut out);
                backoff = None;
                open = Some((
                    BarKind::Running,
                    item.t,
                    format!("{name} running, restartCount {restart_count}"),
                ));
            }
            What::Kill { reason, grace, .. } => {
                close(&mut open, item.t, &mut out);
                open = Some((
                    BarKind::Terminating,
                    item.t,
                    format!(
                        "{name} terminating ({}), grace period {}",
                        reason.as_str(),
                        Took(grace)
                    ),
                ));
            }
            What::Exit { code, .. } => {
                close(&mut open, item.t, &mut out);
                open = Some((
                    BarKind::Stopped,
                    item.t,
                    format!("{name} exited with code {code}"),
                ));
            }
            What::BackOff { backoff: b, .. } => {
                if backoff.is_none() {
                    if let Some((BarKind::Stopped, from, title)) = open.take() {
                        // The wait counts from the exit.
                        open = Some((
                            BarKind::BackOff,
                            from,
                            format!("{title}; waiting in back-off {} (CrashLoopBackOff)", b.go()),
                        ));
                    }
                }
                backoff = Some(b);
            }
            _ => {}
        }
    }
    close(&mut open, trace.end, &mut out);
    out
}
