//! A container's life as bars: creating, running, terminating, waiting in back-off, stopped.

use core::fmt::Write as _;

use probesim_core::{KillReason, SimDuration, SimTime};

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

/// What an open bar's title will say, kept as its figures until the bar is drawn.
#[derive(Clone, Copy, Debug)]
enum Says {
    NotStarted,
    Running(u32),
    Terminating(KillReason, SimDuration),
    Exited(i32),
    Waiting(i32, SimDuration),
}

fn title(name: &str, says: Says, from: SimTime, to: SimTime) -> String {
    let mut title = match says {
        Says::NotStarted => format!("{name}: not started yet"),
        Says::Running(restart_count) => format!("{name} running, restartCount {restart_count}"),
        Says::Terminating(reason, grace) => format!(
            "{name} terminating ({}), grace period {}",
            reason.as_str(),
            Took(grace)
        ),
        Says::Exited(code) => format!("{name} exited with code {code}"),
        Says::Waiting(code, b) => format!(
            "{name} exited with code {code}; waiting in back-off {} (CrashLoopBackOff)",
            b.go()
        ),
    };
    let _ = write!(
        title,
        " (t={} to t={}, {})",
        At(from),
        At(to),
        Took(to.saturating_since(from))
    );
    title
}

/// Hands `each` the bars of container `c` that `visible` takes, in time order, from the first
/// fact to the end of the run. A bar is built (its title written) only when it is visible: a
/// year of restarts makes hundreds of thousands of bars, nearly all inside a fold.
pub(super) fn bars<E>(
    trace: &Trace,
    c: usize,
    visible: impl Fn(SimTime, SimTime) -> bool,
    mut each: impl FnMut(&Bar) -> Result<(), E>,
) -> Result<(), E> {
    let name = &trace.names[c];
    // The open bar: its kind, start and what its title says.
    let mut open: Option<(BarKind, SimTime, Says)> =
        Some((BarKind::Creating, SimTime::ZERO, Says::NotStarted));
    let mut backoff: Option<SimDuration> = None;
    let mut close = |open: &mut Option<(BarKind, SimTime, Says)>, t: SimTime| {
        if let Some((kind, from, says)) = open.take() {
            if t > from && visible(from, t) {
                return each(&Bar {
                    kind,
                    from,
                    to: t,
                    title: title(name, says, from, t),
                });
            }
        }
        Ok(())
    };
    for (_, item) in trace.replay_where(|w| w.container() == Some(c)) {
        match item.what {
            What::Start { restart_count, .. } => {
                close(&mut open, item.t)?;
                backoff = None;
                open = Some((BarKind::Running, item.t, Says::Running(restart_count)));
            }
            What::Kill { reason, grace, .. } => {
                close(&mut open, item.t)?;
                open = Some((
                    BarKind::Terminating,
                    item.t,
                    Says::Terminating(reason, grace),
                ));
            }
            What::Exit { code, .. } => {
                close(&mut open, item.t)?;
                open = Some((BarKind::Stopped, item.t, Says::Exited(code)));
            }
            What::BackOff { backoff: b, .. } => {
                if backoff.is_none() {
                    if let Some((BarKind::Stopped, from, Says::Exited(code))) = open.take() {
                        // The wait counts from the exit.
                        open = Some((BarKind::BackOff, from, Says::Waiting(code, b)));
                    }
                }
                backoff = Some(b);
            }
            _ => {}
        }
    }
    close(&mut open, trace.end)
}
