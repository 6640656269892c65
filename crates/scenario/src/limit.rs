//! The limit on what a listing format prints, enforced on the events themselves.
//!
//! A view that writes or keeps one entry per event (the listing formats `timeline`, `json`,
//! `jsonl`, `get`, the pictures, `explain`: probesim-report's `Format::lists_events` says which)
//! is refused a run that would hand it more than [`MAX_LISTED_EVENTS`] events. An estimate from
//! the probe periods cannot promise that (a 1 ms resync, a fast crash loop or a sidecar's probes
//! produce far more than the periods say), so the events are counted: [`EventLimit`] passes
//! them on and stops the run at the first one past the limit. The report counts while it prints
//! (probesim-report's `listing` module), and may first measure the run ahead with
//! [`count_listed`], which fast-forwards over repeated cycles and gives up after a budget of
//! events simulated one by one; [`check_listed`] is the same count without a budget. The report
//! sees the same events through the kubelet's event recorder, which annotates Kubernetes Events
//! but passes every event on, one for one; the count leaves the recorder out. The run is
//! deterministic, so a count ahead and the count while printing agree event for event.

#[cfg(doc)]
use crate::run::MAX_LISTED_EVENTS;
use crate::run::{estimate_events, Discard, RunFailure};
use crate::scenario::Scenario;
use probesim_core::cycle::{exact_hash, Visitor};
use probesim_core::{Event, FastForward, Flow, SimTime, Sink};

/// A sink that passes at most `limit` events on to `inner` and stops the run at the next one.
#[derive(Clone, Debug)]
pub struct EventLimit<S> {
    inner: S,
    limit: u64,
    seen: u64,
    exceeded_at: Option<SimTime>,
}

impl<S> EventLimit<S> {
    /// Passes at most `limit` events to `inner`.
    #[must_use]
    pub fn new(inner: S, limit: u64) -> EventLimit<S> {
        EventLimit {
            inner,
            limit,
            seen: 0,
            exceeded_at: None,
        }
    }

    /// When the first event past the limit happened, if one did (the run stopped there).
    #[must_use]
    pub fn exceeded_at(&self) -> Option<SimTime> {
        self.exceeded_at
    }

    /// The events passed on so far.
    #[must_use]
    pub fn passed(&self) -> u64 {
        self.seen.min(self.limit)
    }

    /// The inner sink.
    pub fn into_inner(self) -> S {
        self.inner
    }

    /// Counts `event` if it is within the limit; the first past it is noted instead.
    fn admit(&mut self, event: &Event<'_>) -> bool {
        if self.seen >= self.limit {
            self.exceeded_at = Some(event.t);
            return false;
        }
        self.seen += 1;
        true
    }
}

impl<S: Sink> Sink for EventLimit<S> {
    type Error = S::Error;

    fn event(&mut self, event: &Event<'_>) -> Result<Flow, S::Error> {
        if !self.admit(event) {
            return Ok(Flow::Stop);
        }
        self.inner.event(event)
    }

    fn container_event(&mut self, event: &Event<'_>, container: usize) -> Result<Flow, S::Error> {
        if !self.admit(event) {
            return Ok(Flow::Stop);
        }
        self.inner.container_event(event, container)
    }

    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        self.inner.fast_forward()?;
        Some(self)
    }
}

impl<S: Sink> FastForward for EventLimit<S> {
    /// Fast-forward: the events counted so far are a count whose limit a jump never reaches,
    /// so the event past the limit, and its time, come from the step-by-step run.
    fn visit_cycle(&mut self, v: &mut dyn Visitor) -> bool {
        v.count(&mut self.seen, Some(self.limit), u64::MAX);
        exact_hash(v, &self.exceeded_at);
        self.inner.fast_forward().is_some_and(|f| f.visit_cycle(v))
    }

    fn next_boundary(&mut self, from: SimTime) -> SimTime {
        self.inner
            .fast_forward()
            .map_or(SimTime::MAX, |f| f.next_boundary(from))
    }
}

/// Refuses an obviously huge horizon at once, without simulating a hundred million events
/// first: more than [`ESTIMATE_MARGIN`] times `limit` events by [`estimate_events`]. The
/// estimate only ever refuses; what it lets through is counted.
///
/// # Errors
/// [`RunFailure::TooLarge`], naming `label` (a `--format`, or `explain`).
pub fn refuse_on_estimate(
    scenario: &Scenario,
    end: SimTime,
    label: &'static str,
    limit: u64,
) -> Result<(), RunFailure> {
    let estimate = estimate_events(scenario, end);
    if estimate > limit.saturating_mul(ESTIMATE_MARGIN) {
        return Err(RunFailure::TooLarge {
            events: estimate,
            format: label,
        });
    }
    Ok(())
}

/// Whether a view that lists or keeps every event, named `label` in the error (a `--format`, or
/// `explain`), may be handed the run of `scenario` to `end`: at most `limit` events
/// ([`MAX_LISTED_EVENTS`] for the command line).
///
/// # Errors
/// [`RunFailure::TooLarge`] for a horizon refused on its estimate, [`RunFailure::TooManyEvents`]
/// with the time the limit is passed, or a stuck engine.
pub fn check_listed(
    scenario: &Scenario,
    end: SimTime,
    label: &'static str,
    limit: u64,
) -> Result<(), RunFailure> {
    refuse_on_estimate(scenario, end, label, limit)?;
    let mut sim = scenario.simulation();
    let mut counter = EventLimit::new(Discard, limit);
    sim.run_until(end, &mut counter).map_err(|e| match e {
        probesim_core::RunError::Sink(never) => match never {},
        probesim_core::RunError::StepBudget { at } => RunFailure::Stuck(at),
    })?;
    match counter.exceeded_at() {
        None => Ok(()),
        Some(at) => Err(RunFailure::TooManyEvents {
            limit,
            at,
            format: label,
        }),
    }
}

/// What a count with a work budget ([`count_listed`]) found.
#[derive(Debug)]
#[non_exhaustive]
pub enum Count {
    /// The whole run hands the view at most the limit.
    Within,
    /// The run passes the limit: [`RunFailure::TooManyEvents`] (or [`RunFailure::TooLarge`] on
    /// the estimate).
    Over(RunFailure),
    /// The count stepped through `budget` events one by one without reaching the end: the run
    /// does not repeat soon enough for fast-forward to prove its size cheaply.
    Unknown,
}

/// [`check_listed`] with a budget: the count fast-forwards over repeated cycles as before, and
/// gives up once it has simulated `budget` events one by one (jumped events cost nothing and
/// are not part of the budget). A run that repeats is measured exactly, whatever its horizon, in
/// the time of a few cycles; one that does not is left to be counted while it is printed
/// ([`EventLimit`] around the report), having cost at most `budget` events here.
///
/// # Errors
/// A stuck engine.
pub fn count_listed(
    scenario: &Scenario,
    end: SimTime,
    label: &'static str,
    limit: u64,
    budget: u64,
) -> Result<Count, RunFailure> {
    if let Err(refused) = refuse_on_estimate(scenario, end, label, limit) {
        return Ok(Count::Over(refused));
    }
    let mut sim = scenario.simulation();
    let mut counter = Budgeted {
        limit: EventLimit::new(Discard, limit),
        stepped: 0,
        budget,
    };
    sim.run_until(end, &mut counter).map_err(|e| match e {
        probesim_core::RunError::Sink(never) => match never {},
        probesim_core::RunError::StepBudget { at } => RunFailure::Stuck(at),
    })?;
    Ok(match counter.limit.exceeded_at() {
        Some(at) => Count::Over(RunFailure::TooManyEvents {
            limit,
            at,
            format: label,
        }),
        None if counter.stepped > budget => Count::Unknown,
        None => Count::Within,
    })
}

/// [`EventLimit`] over [`Discard`] that stops after `budget` events simulated one by one.
struct Budgeted {
    limit: EventLimit<Discard>,
    /// Events seen one by one (a jump does not move it: it is no part of the cycle's state).
    stepped: u64,
    budget: u64,
}

impl Budgeted {
    fn step(&mut self) -> Option<Flow> {
        self.stepped += 1;
        (self.stepped > self.budget).then_some(Flow::Stop)
    }
}

impl Sink for Budgeted {
    type Error = core::convert::Infallible;

    fn event(&mut self, event: &Event<'_>) -> Result<Flow, Self::Error> {
        match self.step() {
            Some(stop) => Ok(stop),
            None => self.limit.event(event),
        }
    }

    fn container_event(&mut self, event: &Event<'_>, c: usize) -> Result<Flow, Self::Error> {
        match self.step() {
            Some(stop) => Ok(stop),
            None => self.limit.container_event(event, c),
        }
    }

    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        Some(self)
    }
}

impl FastForward for Budgeted {
    /// The budget is work, not state: only the count is walked.
    fn visit_cycle(&mut self, v: &mut dyn Visitor) -> bool {
        FastForward::visit_cycle(&mut self.limit, v)
    }

    fn next_boundary(&mut self, from: SimTime) -> SimTime {
        FastForward::next_boundary(&mut self.limit, from)
    }
}

/// How far above the limit the estimate ([`estimate_events`]: three events per probe period) must
/// be to refuse without counting. A steady run prints about one event per probe period, so such a
/// horizon lists several times the limit; only a pod whose probes never run could fit, and
/// `--format summary` serves it as well.
pub const ESTIMATE_MARGIN: u64 = 10;

#[cfg(test)]
mod tests;
