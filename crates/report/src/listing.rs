//! The bounds of a report, enforced while it is written: at most so many events (the listing
//! formats, the pictures, `explain`) and at most so many bytes (every format).
//!
//! A report runs the scenario once. Its events pass through a [`Listing`], which counts them
//! and stops the run at the first one past the limit, and its bytes through a [`Held`] writer,
//! which counts them and refuses the write that would pass the byte limit. The beginning of the
//! output is held back in memory (up to [`HOLD_EVENTS`] events or [`HOLD_BYTES`] bytes), so that:
//!
//! - a run that ends within that (most runs people read) is simulated once and written in one go;
//! - a longer run is measured first, with fast-forward and a small work budget
//!   ([`count_listed`]): a run that repeats itself (a crash loop, a healthy pod) is measured
//!   exactly in the time of a few cycles, and refused with nothing printed when it passes the
//!   limit, as before; one that does not repeat costs at most [`PROOF_BUDGET`] events there and
//!   is then counted while it is written. Past the limit it stops with the same error, after the
//!   events up to the limit were written.
//!
//! `--no-fast-forward` leaves the measuring out: the run is only counted as it is written.

use core::cell::Cell;
use std::io::{self, Write};
use std::rc::Rc;

use probesim_core::cycle::Visitor;
use probesim_core::{Event, FastForward, Flow, SimTime, Sink};
use probesim_scenario::limit::{count_listed, Count};
use probesim_scenario::run::{describe_horizon, RunFailure};
use probesim_scenario::scenario::Scenario;

/// The most bytes a report may write: 4 GiB. The event limit bounds what ordinary events print
/// (a year of kubia-unhealthy is 624 MB of `--format json`); this one bounds events that are
/// large themselves (a probe whose output is a 1 MB `httpGet` path, printed on every run).
pub const MAX_OUTPUT_BYTES: u64 = 4 << 30;

/// The events held back before the run is measured (see the module's text).
pub const HOLD_EVENTS: u64 = 20_000;

/// The bytes held back before the run is measured.
pub const HOLD_BYTES: usize = 1 << 20;

/// The events the measuring count may simulate one by one before it leaves the rest to the
/// count made while writing.
pub const PROOF_BUDGET: u64 = 20_000;

/// What the events side tells the bytes side.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    /// The output is still held back.
    holding: Cell<bool>,
    /// The held output has reached [`HOLD_BYTES`].
    full: Cell<bool>,
}

/// The limits of one report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most events a format that lists them (`Format::lists_events`) may be handed.
    pub events: u64,
    /// The most bytes any format may write.
    pub bytes: u64,
}

impl Default for Limits {
    /// [`MAX_LISTED_EVENTS`](probesim_scenario::run::MAX_LISTED_EVENTS) and
    /// [`MAX_OUTPUT_BYTES`], the command line's.
    fn default() -> Limits {
        Limits {
            events: probesim_scenario::run::MAX_LISTED_EVENTS,
            bytes: MAX_OUTPUT_BYTES,
        }
    }
}

/// The marker inside the [`io::Error`] of a write past the byte limit.
#[derive(Debug)]
struct BytesPassed;

impl core::fmt::Display for BytesPassed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("the byte limit of the output is reached")
    }
}

impl std::error::Error for BytesPassed {}

/// The writer under a report: counts the bytes, refuses the write that would pass the limit,
/// and holds the output back while the gate says so.
#[derive(Debug)]
pub(crate) struct Held<W: Write> {
    inner: W,
    held: Vec<u8>,
    gate: Rc<Gate>,
    written: u64,
    limit: u64,
}

impl<W: Write> Held<W> {
    /// Writes what is held and hands the writer back, flushed.
    pub(crate) fn into_inner(mut self) -> io::Result<W> {
        self.gate.holding.set(false);
        self.release()?;
        self.inner.flush()?;
        Ok(self.inner)
    }

    fn release(&mut self) -> io::Result<()> {
        if !self.held.is_empty() {
            self.inner.write_all(&self.held)?;
            self.held = Vec::new();
        }
        Ok(())
    }
}

impl<W: Write> Write for Held<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let len = buf.len() as u64;
        if self.written.saturating_add(len) > self.limit {
            return Err(io::Error::new(io::ErrorKind::FileTooLarge, BytesPassed));
        }
        self.written += len;
        if self.gate.holding.get() {
            self.held.extend_from_slice(buf);
            if self.held.len() >= HOLD_BYTES {
                self.gate.full.set(true);
            }
        } else {
            self.release()?;
            self.inner.write_all(buf)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.gate.holding.get() {
            return Ok(());
        }
        self.release()?;
        self.inner.flush()
    }
}

/// The writer for a report held to `limits`, and the gate to hand the report's [`Listing`].
pub(crate) fn writer<W: Write>(w: W, limits: Limits) -> (Held<W>, Rc<Gate>) {
    let gate = Rc::new(Gate::default());
    gate.holding.set(true);
    let held = Held {
        inner: w,
        held: Vec::new(),
        gate: Rc::clone(&gate),
        written: 0,
        limit: limits.bytes,
    };
    (held, gate)
}

/// The sink around a report: counts the events, stops at the first past the limit, measures
/// the run once the held output is large enough, and names the byte limit's error.
pub(crate) struct Listing<'a, S> {
    inner: S,
    gate: Rc<Gate>,
    scenario: &'a Scenario,
    end: SimTime,
    label: &'static str,
    limits: Limits,
    /// Whether the events are limited (a listing format).
    listed: bool,
    /// Whether to measure the run with fast-forward before letting the output out.
    measure: bool,
    seen: u64,
    /// The time of the last event (for the byte limit's message).
    at: SimTime,
    failure: Option<RunFailure>,
}

impl<'a, S> Listing<'a, S> {
    /// The sink around `inner`, a report of `scenario` to `end` writing through the [`Held`]
    /// writer that shares `gate`. `listed`: the events are limited; `measure`: fast-forward is
    /// on, so the run is measured before the held output is let out.
    #[expect(clippy::too_many_arguments, reason = "one constructor, called twice")]
    pub(crate) fn wrap(
        inner: S,
        gate: Rc<Gate>,
        scenario: &'a Scenario,
        end: SimTime,
        label: &'static str,
        limits: Limits,
        listed: bool,
        measure: bool,
    ) -> Listing<'a, S> {
        if !listed {
            gate.holding.set(false);
        }
        Listing {
            inner,
            gate,
            scenario,
            end,
            label,
            limits,
            listed,
            measure: measure && listed,
            seen: 0,
            at: SimTime::ZERO,
            failure: None,
        }
    }

    /// The report, or why the run stopped.
    pub(crate) fn finish(self) -> Result<S, RunFailure> {
        match self.failure {
            Some(failure) => Err(failure),
            None => Ok(self.inner),
        }
    }

    /// The error of a write past the byte limit, named; other errors as they are.
    pub(crate) fn name_error(&self, e: io::Error, at: SimTime) -> io::Error {
        name_bytes_error(e, self.label, self.limits.bytes, at)
    }

    fn admit(&mut self, t: SimTime) -> Option<Flow> {
        self.at = t;
        if self.failure.is_some() {
            return Some(Flow::Stop);
        }
        if self.listed && self.seen >= self.limits.events {
            self.failure = Some(RunFailure::TooManyEvents {
                limit: self.limits.events,
                at: t,
                format: self.label,
            });
            return Some(Flow::Stop);
        }
        self.seen += 1;
        None
    }

    fn after(&mut self, r: io::Result<Flow>) -> io::Result<Flow> {
        let flow = r.map_err(|e| self.name_error(e, self.at))?;
        if self.gate.holding.get() && (self.seen >= HOLD_EVENTS || self.gate.full.get()) {
            if self.measure {
                match count_listed(
                    self.scenario,
                    self.end,
                    self.label,
                    self.limits.events,
                    PROOF_BUDGET,
                ) {
                    Ok(Count::Over(failure)) | Err(failure) => {
                        self.failure = Some(failure);
                        return Ok(Flow::Stop);
                    }
                    Ok(_) => {}
                }
            }
            self.gate.holding.set(false);
        }
        Ok(flow)
    }
}

/// The error of a write past the byte limit (`limit`) of a report in `label`, the last event at
/// `at`: [`io::ErrorKind::FileTooLarge`] with a message saying so; other errors as they are.
pub(crate) fn name_bytes_error(e: io::Error, label: &str, limit: u64, at: SimTime) -> io::Error {
    if !e.get_ref().is_some_and(|inner| inner.is::<BytesPassed>()) {
        return e;
    }
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "the output is too large for --format {label}: more than {} would be written (the limit), the limit being passed at {}; use --format summary, which keeps no history, or a --for shorter than that",
            size(limit),
            describe_horizon(at)
        ),
    )
}

/// A byte count as the limits are written: `4 GiB`, `64 MiB`, `10000 bytes`.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes % (1 << 30) == 0 {
        format!("{} GiB", bytes >> 30)
    } else if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

impl<S: Sink<Error = io::Error>> Sink for Listing<'_, S> {
    type Error = io::Error;

    fn event(&mut self, event: &Event<'_>) -> io::Result<Flow> {
        if let Some(stop) = self.admit(event.t) {
            return Ok(stop);
        }
        let r = self.inner.event(event);
        self.after(r)
    }

    fn container_event(&mut self, event: &Event<'_>, container: usize) -> io::Result<Flow> {
        if let Some(stop) = self.admit(event.t) {
            return Ok(stop);
        }
        let r = self.inner.container_event(event, container);
        self.after(r)
    }

    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        self.inner.fast_forward()?;
        Some(self)
    }
}

impl<S: Sink<Error = io::Error>> FastForward for Listing<'_, S> {
    /// As [`EventLimit`](probesim_scenario::limit::EventLimit): the count is a number a jump
    /// never takes to the limit.
    fn visit_cycle(&mut self, v: &mut dyn Visitor) -> bool {
        let limit = self.listed.then_some(self.limits.events);
        v.count(&mut self.seen, limit, u64::MAX);
        self.inner.fast_forward().is_some_and(|f| f.visit_cycle(v))
    }

    fn next_boundary(&mut self, from: SimTime) -> SimTime {
        self.inner
            .fast_forward()
            .map_or(SimTime::MAX, |f| f.next_boundary(from))
    }
}
