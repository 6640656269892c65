//! Running a scenario: against its own expectations ([`check`]), or into a view's sink
//! ([`run_into`], through the kubelet's event recorder or not), and the limits every run shares
//! (the horizon, the size of a listing: [`crate::limit`]). What the views are and how they look
//! is probesim-report's: its `render` builds a view's sink and runs it with [`run_into`].

use core::fmt;
use std::io;

use probesim_core::{ProbeKind, Recorder, RunError, SimTime, Simulation, Sink};

use crate::expect::{ExpectSink, Failure};
use crate::scenario::Scenario;
use crate::timing::Timing;

/// Why a run could not produce its output.
#[derive(Debug)]
#[non_exhaustive]
pub enum RunFailure {
    /// Writing the report failed (a closed pipe included).
    Io(io::Error),
    /// The engine did not settle at one instant (a model bug; never expected).
    Stuck(SimTime),
    /// The scenario has no `duration` and none was given.
    NoDuration,
    /// The requested output would be unreasonably large for the horizon.
    TooLarge {
        /// Estimated number of events.
        events: u64,
        /// The `--format` asked for, as spelled on the command line.
        format: &'static str,
    },
    /// Counted: the run hands a listing format more than `limit` events, the first one past
    /// the limit at `at`.
    TooManyEvents {
        /// The limit ([`MAX_LISTED_EVENTS`] on the command line).
        limit: u64,
        /// When the first event past the limit happens.
        at: SimTime,
        /// The `--format` asked for, as spelled on the command line.
        format: &'static str,
    },
}

impl fmt::Display for RunFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunFailure::Io(e) => write!(f, "cannot write the report: {e}"),
            RunFailure::Stuck(at) => write!(
                f,
                "the simulation did not settle at t={at}s; this is a bug in probesim, please report it with the scenario"
            ),
            RunFailure::NoDuration => f.write_str(
                "duration: Required value: the scenario sets no duration; add `duration:` or pass --for",
            ),
            RunFailure::TooLarge { events, format } => write!(
                f,
                "the horizon is too large for --format {format}: about {events} events would be {} \
                 (the limit is {MAX_LISTED_EVENTS}); use --format summary, which keeps no history, or a shorter --for",
                handled(format)
            ),
            RunFailure::TooManyEvents { limit, at, format } => write!(
                f,
                "the run is too large for --format {format}: more than {limit} events would be {}, \
                 the limit being passed at {}; use --format summary, which keeps no history, or a --for shorter than that",
                handled(format),
                describe_horizon(*at)
            ),
        }
    }
}

impl std::error::Error for RunFailure {}

/// What a format does with each event, for the limit's message: `describe` prints only the
/// pod's Event objects, but simulates every event one by one to build them.
fn handled(format: &str) -> &'static str {
    if format == "describe" {
        "simulated one by one"
    } else {
        "printed"
    }
}

impl<E: Into<io::Error>> From<RunError<E>> for RunFailure {
    fn from(e: RunError<E>) -> RunFailure {
        match e {
            RunError::Sink(e) => RunFailure::Io(e.into()),
            RunError::StepBudget { at } => RunFailure::Stuck(at),
        }
    }
}

/// The most events a listing format (`timeline`, `json`, `jsonl`) may be asked to print.
pub const MAX_LISTED_EVENTS: u64 = 100_000_000;

/// The virtual time the scenario simulates.
///
/// # Errors
/// [`RunFailure::NoDuration`] when neither the file nor an override set one.
pub fn horizon(scenario: &Scenario) -> Result<SimTime, RunFailure> {
    scenario.duration.ok_or(RunFailure::NoDuration)
}

/// A generous upper estimate of the events a run prints: every probe at its period, each with a
/// few companion events, plus a steady trickle of syncs.
#[must_use]
pub fn estimate_events(scenario: &Scenario, horizon: SimTime) -> u64 {
    let secs = horizon.whole_secs().saturating_add(1);
    let mut per_kilosecond: u64 = 50; // syncs, status changes, restarts
                                      // At least one routine sync per resync period.
    let resync_ms = scenario.kubelet.resync.as_millis().max(1);
    per_kilosecond = per_kilosecond.saturating_add(1_000_000 / resync_ms);
    for c in &scenario.pod.containers {
        for kind in ProbeKind::ALL {
            if let Some(p) = c.probe(kind) {
                let period = u64::from(p.period_seconds().unsigned_abs()).max(1);
                per_kilosecond = per_kilosecond.saturating_add(3000 / period);
            }
        }
    }
    secs.saturating_mul(per_kilosecond) / 1000
}

/// Runs the scenario to its horizon and checks its expectations.
///
/// # Errors
/// No duration, or a stuck engine.
pub fn check(scenario: &Scenario) -> Result<Vec<Failure>, RunFailure> {
    check_with(scenario, true)
}

/// [`check`], with steady-state fast-forward on or off (`--no-fast-forward`): the failures are
/// the same either way; fast-forward only skips the work of simulating repeated cycles.
///
/// # Errors
/// No duration, or a stuck engine.
pub fn check_with(scenario: &Scenario, fast_forward: bool) -> Result<Vec<Failure>, RunFailure> {
    let end = horizon(scenario)?;
    let mut sim = scenario.simulation();
    sim.set_fast_forward(fast_forward);
    let mut sink = ExpectSink::new(Discard, &scenario.expect);
    sim.run_until(end, &mut sink).map_err(|e| match e {
        RunError::Sink(never) => match never {},
        RunError::StepBudget { at } => RunFailure::Stuck(at),
    })?;
    let (_, failures) = sink.finish(end);
    Ok(failures)
}

/// [`check_with`] over timings as well ([`crate::timing`]): each expectation under the first
/// `max(timings, its own timings: N)` timings of the scenario (`probesim check --timings N`,
/// `timings: N` on an expectation). The scenario's own failures come back with the share of
/// timings in which their expectation passes; an expectation that passes in the scenario's own
/// run but fails in some timing fails with that share and the first failing timing to replay.
/// Without timings to check, exactly [`check_with`].
///
/// # Errors
/// As [`check_with`], for the scenario or any timing.
pub fn check_timings(
    scenario: &Scenario,
    timings: Option<usize>,
    fast_forward: bool,
) -> Result<Vec<Failure>, RunFailure> {
    let own = check_with(scenario, fast_forward)?;
    let wanted: Vec<usize> = scenario
        .expect
        .iter()
        .map(|e| {
            timings
                .unwrap_or(0)
                .max(e.timings.map_or(0, |t| t as usize))
        })
        .collect();
    let total = wanted.iter().copied().max().unwrap_or(0);
    if total == 0 {
        return Ok(own);
    }
    let n = scenario.expect.len();
    let mut passes = vec![0usize; n];
    let mut first: Vec<Option<(Timing, String)>> = vec![None; n];
    for (k, t) in crate::timing::timings(scenario, total)
        .into_iter()
        .enumerate()
    {
        let mut s = scenario.clone();
        t.apply(&mut s);
        let failures = check_with(&s, fast_forward)?;
        let mut failed = vec![false; n];
        for f in failures {
            if let Some(slot) = failed.get_mut(f.index) {
                *slot = true;
                if k < wanted[f.index] {
                    first[f.index].get_or_insert((t, f.message));
                }
            }
        }
        for (i, failed) in failed.into_iter().enumerate() {
            passes[i] += usize::from(k < wanted[i] && !failed);
        }
    }
    let mut out = Vec::new();
    for e in &scenario.expect {
        let mine = own.iter().filter(|f| f.index == e.index);
        if wanted[e.index] == 0 {
            out.extend(mine.cloned());
            continue;
        }
        let share = format!(
            "passes in {} of {} timings",
            passes[e.index], wanted[e.index]
        );
        let mut mine = mine.peekable();
        if let Some(f) = mine.next() {
            out.push(Failure {
                message: format!("{} ({share})", f.message),
                ..f.clone()
            });
            // The scenario's own further failures of it, as they are.
            out.extend(mine.cloned());
        } else if let Some((t, message)) = &first[e.index] {
            out.push(Failure {
                index: e.index,
                line: e.line,
                message: format!("{share}; with {}: {message}", t.replay()),
            });
        }
    }
    Ok(out)
}

/// How a view hears a run's events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Hearing {
    /// Through the kubelet's event recorder (R54), which tells each Kubernetes Event's count,
    /// its combined message and whether the spam filter kept it from the API server. Every
    /// event still passes, one for one.
    Recorded,
    /// Straight from the engine: for a view that shows nothing of the recorder's verdicts (the
    /// summary counts events by kind; `get -w` prints statuses, never an Event).
    Direct,
}

/// Runs `sim` to `end` into `sink`, hearing the events as `hearing` says, and hands the sink
/// back for the view to finish (the final status is `sim.status()`).
///
/// # Errors
/// The sink's error, or a stuck engine.
pub fn run_into<S: Sink>(
    sim: &mut Simulation,
    end: SimTime,
    mut sink: S,
    hearing: Hearing,
) -> Result<S, RunError<S::Error>> {
    match hearing {
        Hearing::Direct => {
            sim.run_until(end, &mut sink)?;
            Ok(sink)
        }
        Hearing::Recorded => {
            let mut recorder = Recorder::new(sink, sim.profile().event_spam_key_has_type);
            sim.run_until(end, &mut recorder)?;
            Ok(recorder.into_inner())
        }
    }
}

/// A sink that drops everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct Discard;

impl Sink for Discard {
    type Error = core::convert::Infallible;
    fn event(
        &mut self,
        _event: &probesim_core::Event<'_>,
    ) -> Result<probesim_core::Flow, core::convert::Infallible> {
        Ok(probesim_core::Flow::Continue)
    }

    fn fast_forward(&mut self) -> Option<&mut dyn probesim_core::FastForward> {
        Some(self)
    }
}

/// Discards: nothing to walk.
impl probesim_core::FastForward for Discard {
    fn visit_cycle(&mut self, _v: &mut dyn probesim_core::cycle::Visitor) -> bool {
        true
    }
}

/// Renders a horizon for messages (`30m`, `90s`).
#[must_use]
pub fn describe_horizon(end: SimTime) -> String {
    probesim_script::format_duration(end.saturating_since(SimTime::ZERO))
}
