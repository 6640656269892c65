//! Steady-state fast-forward: how a state is compared with an earlier one and moved on by whole
//! cycles.
//!
//! A crash loop whose back-off has reached its cap, or a pod whose probes all keep answering the
//! same way, comes back to the same state again and again, later on the clock and with some
//! counters higher. The simulation notices this (see [`Simulation`](crate::sim::Simulation)'s
//! `run_until`): at the end of each pod sync it takes a [`Snapshot`] of everything that decides
//! what happens next (probe workers, the pod worker, the runtime, back-off entries, the status,
//! the behaviours' cursors and the sink's own state), each value tagged with how it may differ
//! between two visits of "the same" state:
//!
//! - [`Visitor::exact`]: must be equal (a flag, an enum, a duration, a time that never moves);
//! - [`Visitor::time`]: a point on the clock that moves with it (a deadline, when something
//!   began), compared as an offset from now;
//! - [`Visitor::past`]: a past time that matters only while it is younger than a horizon;
//! - [`Visitor::saturating`]: a number that matters exactly below a cap and not at all above it;
//! - [`Visitor::count`]: a number that only grows and decides nothing, except when it reaches an
//!   optional limit, which a jump never crosses;
//! - [`Visitor::id`]: an identifier compared relative to a base (a container ID against the next
//!   one the runtime hands out).
//!
//! When two snapshots compare equal, the run between them is one cycle of length Δ: every later
//! cycle repeats it Δ later with each counter moved by the same amount. The jump then moves every
//! value `k` cycles on at once (`raw + k × (raw₂ − raw₁)`), for the largest `k` that stays inside
//! the horizon, before the sink's next boundary (an `at:` instant, a window's end) and below every
//! counter's limit. Values not visited never change across a cycle (the pod spec, the profile).
//!
//! The cycle length must be a whole number of seconds (status times are floored to seconds), the
//! run must draw nothing from the generator between the two snapshots (its position is an exact
//! value), and every behaviour and the sink must say how their state is visited; otherwise the run
//! simply goes on step by step.
//!
//! # Every field decided
//!
//! A value that changes from cycle to cycle and is left out of the walk gives a wrong jump. So
//! each walk starts by destructuring its struct without `..`, and lives next to it (the
//! simulation's in `sim/cycle.rs` hands each component its part: `Prober::visit` in
//! `sim/worker.rs`, `ContainerRuntime::visit` in `sim/runtime.rs`, and so on;
//! [`ContainerStatus::visit_cycle`](crate::ContainerStatus::visit_cycle)): every
//! field is walked, or bound to `_` with the reason it cannot change across a cycle. A field
//! added later does not compile until someone decides. With every field named, a walk builds:
//!
//! ```
//! use probesim_core::cycle::{opt_time, Visitor};
//! use probesim_core::SimTime;
//!
//! struct Worker {
//!     alive: bool,
//!     wake_at: Option<SimTime>,
//!     period_ms: u64,
//! }
//!
//! impl Worker {
//!     fn visit(&mut self, v: &mut dyn Visitor) {
//!         let Worker {
//!             alive,
//!             wake_at,
//!             // Fixed for the run.
//!             period_ms: _,
//!         } = self;
//!         v.exact(u64::from(*alive));
//!         opt_time(v, wake_at);
//!     }
//! }
//! ```
//!
//! and the same walk after a field was added to the struct, with no decision about it, does
//! not (E0027: the pattern does not mention `retries`):
//!
//! ```compile_fail,E0027
//! use probesim_core::cycle::{opt_time, Visitor};
//! use probesim_core::SimTime;
//!
//! struct Worker {
//!     alive: bool,
//!     wake_at: Option<SimTime>,
//!     period_ms: u64,
//!     retries: u64,
//! }
//!
//! impl Worker {
//!     fn visit(&mut self, v: &mut dyn Visitor) {
//!         let Worker {
//!             alive,
//!             wake_at,
//!             // Fixed for the run.
//!             period_ms: _,
//!         } = self;
//!         v.exact(u64::from(*alive));
//!         opt_time(v, wake_at);
//!     }
//! }
//! ```

use core::hash::{Hash, Hasher};

use crate::time::{SimDuration, SimTime};

/// Walks the state of one part of a simulation, one value at a time, in a fixed order. The same
/// walk records a [`Snapshot`] and applies a jump, so the two can never disagree.
pub trait Visitor {
    /// A value that is the same at both ends of a cycle and does not change across one.
    fn exact(&mut self, value: u64);
    /// A point on the clock that moves with it: compared as an offset from now, moved by the
    /// cycle's length on each cycle of a jump.
    fn time(&mut self, t: &mut SimTime);
    /// A past time that matters only while it is less than `horizon` old (older values compare
    /// equal); moved like the other values of a jump.
    fn past(&mut self, t: &mut SimTime, horizon: SimDuration);
    /// A number that matters exactly while below `cap` and not at all at or above it (a run of
    /// equal probe results against the largest threshold). It saturates at `max`: the
    /// step-by-step run never takes it past, and neither does a jump.
    fn saturating(&mut self, n: &mut u64, cap: u64, max: u64);
    /// A number that only grows and decides nothing (a restart count, events counted), except
    /// when it reaches `limit`: a jump never moves it to or past the limit. It saturates at
    /// `max`, as [`Visitor::saturating`] does.
    fn count(&mut self, n: &mut u64, limit: Option<u64>, max: u64);
    /// An identifier, compared relative to `base` and moved with it. At most `max`: a jump
    /// that would take it past is refused (identifiers are 64 bits, so that no run within the
    /// clock's range gets there).
    fn id(&mut self, id: &mut u64, base: u64, max: u64);
}

/// Visits an optional time: whether it is set, then the time.
pub fn opt_time(v: &mut dyn Visitor, t: &mut Option<SimTime>) {
    v.exact(u64::from(t.is_some()));
    if let Some(t) = t {
        v.time(t);
    }
}

/// Visits a `u32` counter (see [`Visitor::count`]) that saturates at `u32::MAX`.
pub fn count32(v: &mut dyn Visitor, n: &mut u32, limit: Option<u64>) {
    let mut x = u64::from(*n);
    v.count(&mut x, limit, u64::from(u32::MAX));
    *n = u32::try_from(x).unwrap_or(u32::MAX);
}

/// Visits an optional identifier (see [`Visitor::id`]): whether it is set, then the identifier.
pub fn opt_id(v: &mut dyn Visitor, id: &mut Option<u64>, base: u64) {
    v.exact(u64::from(id.is_some()));
    if let Some(id) = id {
        v.id(id, base, u64::MAX);
    }
}

/// Visits a value without times or counters in it, exactly: every word its [`Hash`] writes
/// (the discriminants, lengths and contents that tell values apart) is an exact value. Nothing
/// is hashed, so two values compare equal only when they write the same words: no collision,
/// and cheaper than hashing (an earlier release hashed with SipHash, a fifth of the
/// instructions of a run that never repeats).
pub fn exact_hash<T: Hash + ?Sized>(v: &mut dyn Visitor, value: &T) {
    value.hash(&mut Words(v));
}

/// A [`Hasher`] that hands every word written to a visitor as an exact value.
struct Words<'a>(&'a mut dyn Visitor);

impl Hasher for Words<'_> {
    /// Never read: the words were handed on as they came.
    fn finish(&self) -> u64 {
        0
    }

    fn write(&mut self, bytes: &[u8]) {
        // The length first, so that bytes padded to a word stay apart ("a" and "a\0").
        self.0.exact(bytes.len() as u64);
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0.exact(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.0.exact(u64::from(n));
    }

    fn write_u16(&mut self, n: u16) {
        self.0.exact(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.0.exact(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0.exact(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.0.exact(n as u64);
    }
}

/// How a recorded value compares and moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tag {
    Exact,
    Time,
    Past,
    Saturating,
    Count { limit: Option<u64> },
    Id,
}

/// One recorded value: its tag, the form compared, the raw value, and its upper bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Field {
    tag: Tag,
    norm: u64,
    raw: u64,
    max: u64,
}

/// The state of a simulation at one instant, as a [`Visitor`] walk recorded it.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    at: SimTime,
    fields: Vec<Field>,
}

impl Snapshot {
    /// Starts recording the state at `at` (the buffer is reused).
    pub fn begin(&mut self, at: SimTime) {
        self.at = at;
        self.fields.clear();
    }

    /// When the snapshot was taken.
    #[must_use]
    pub fn at(&self) -> SimTime {
        self.at
    }

    /// How many values it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether it holds no value.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Whether `later` is this state again: the same values, compared as each tag says.
    #[must_use]
    pub fn same_state(&self, later: &Snapshot) -> bool {
        self.fields.len() == later.fields.len()
            && self
                .fields
                .iter()
                .zip(&later.fields)
                .all(|(a, b)| a.tag == b.tag && a.norm == b.norm)
    }

    /// Plans a jump of `k` cycles from `later` (the same state as `self`, one cycle on): the
    /// largest `k ≤ wanted` that keeps every counter below its limit, with the new raw values in
    /// `plan`; `None` when the two do not make a cycle that can be extrapolated (a count that
    /// went down, a time or identifier that would overflow). Counts and saturating values stop
    /// at their largest value.
    pub fn plan(&self, later: &Snapshot, wanted: u64, plan: &mut Vec<u64>) -> Option<u64> {
        let mut k = wanted;
        let period = i128::from(later.at.as_millis()) - i128::from(self.at.as_millis());
        for (a, b) in self.fields.iter().zip(&later.fields) {
            let d = i128::from(b.raw) - i128::from(a.raw);
            if let Tag::Count { .. } | Tag::Saturating = b.tag {
                if d < 0 {
                    return None;
                }
            }
            // A past time, compared only up to its horizon, was set within the cycle (it moves
            // by the cycle's length) or before it (it stays). Anything else means the earlier
            // one was set before the run became periodic: the next cycle will tell.
            if b.tag == Tag::Past && d != 0 && d != period {
                return None;
            }
            if let (Tag::Count { limit: Some(limit) }, true) = (b.tag, d > 0) {
                if b.raw < limit {
                    let room =
                        u64::try_from((i128::from(limit) - 1 - i128::from(b.raw)) / d).unwrap_or(0);
                    k = k.min(room);
                }
            }
        }
        if k == 0 {
            return None;
        }
        plan.clear();
        for (a, b) in self.fields.iter().zip(&later.fields) {
            let d = i128::from(b.raw) - i128::from(a.raw);
            let new = i128::from(b.raw) + d * i128::from(k);
            let new = match b.tag {
                // Counts and saturating values stop at their largest value, in the step-by-step
                // run as in a jump (a restart count the API shows as `u32`).
                Tag::Count { .. } | Tag::Saturating => {
                    u64::try_from(new.min(i128::from(b.max))).ok()?
                }
                _ => u64::try_from(new).ok().filter(|&n| n <= b.max)?,
            };
            plan.push(new);
        }
        Some(k)
    }
}

/// Captures a [`Snapshot`] of the state it walks.
#[derive(Debug)]
pub struct Capture<'a> {
    snapshot: &'a mut Snapshot,
}

impl<'a> Capture<'a> {
    /// Records into `snapshot`, begun with [`Snapshot::begin`].
    pub fn new(snapshot: &'a mut Snapshot) -> Capture<'a> {
        Capture { snapshot }
    }

    fn push(&mut self, tag: Tag, norm: u64, raw: u64, max: u64) {
        self.snapshot.fields.push(Field {
            tag,
            norm,
            raw,
            max,
        });
    }
}

impl Visitor for Capture<'_> {
    fn exact(&mut self, value: u64) {
        self.push(Tag::Exact, value, value, u64::MAX);
    }

    fn time(&mut self, t: &mut SimTime) {
        let raw = t.as_millis();
        let norm = raw.wrapping_sub(self.snapshot.at.as_millis());
        self.push(Tag::Time, norm, raw, SimTime::HORIZON_LIMIT.as_millis());
    }

    fn past(&mut self, t: &mut SimTime, horizon: SimDuration) {
        let raw = t.as_millis();
        let now = self.snapshot.at.as_millis();
        let norm = if raw > now {
            // Not past after all: compared exactly, as an offset (never equal to an old one).
            u64::MAX - (raw - now)
        } else {
            (now - raw).min(horizon.as_millis())
        };
        self.push(Tag::Past, norm, raw, SimTime::HORIZON_LIMIT.as_millis());
    }

    fn saturating(&mut self, n: &mut u64, cap: u64, max: u64) {
        self.push(Tag::Saturating, (*n).min(cap), *n, max);
    }

    fn count(&mut self, n: &mut u64, limit: Option<u64>, max: u64) {
        // Below its limit a count is not compared (a jump stops short of the limit); at or past
        // it, it no longer decides anything.
        let reached = limit.is_some_and(|l| *n >= l);
        self.push(Tag::Count { limit }, u64::from(reached), *n, max);
    }

    fn id(&mut self, id: &mut u64, base: u64, max: u64) {
        self.push(Tag::Id, id.wrapping_sub(base), *id, max);
    }
}

/// Writes a planned jump back into the state it walks (the walk of the later snapshot).
#[derive(Debug)]
pub struct Apply<'a> {
    values: core::slice::Iter<'a, u64>,
}

impl<'a> Apply<'a> {
    /// Applies `plan`, from [`Snapshot::plan`].
    #[must_use]
    pub fn new(plan: &'a [u64]) -> Apply<'a> {
        Apply {
            values: plan.iter(),
        }
    }

    fn next(&mut self) -> u64 {
        // The walk is the one that recorded the plan: it has exactly one value per field.
        self.values.next().copied().unwrap_or(0)
    }

    /// Whether every planned value was written.
    #[must_use]
    pub fn done(&self) -> bool {
        self.values.len() == 0
    }
}

impl Visitor for Apply<'_> {
    fn exact(&mut self, _value: u64) {
        self.next();
    }

    fn time(&mut self, t: &mut SimTime) {
        *t = SimTime::from_millis(self.next());
    }

    fn past(&mut self, t: &mut SimTime, _horizon: SimDuration) {
        *t = SimTime::from_millis(self.next());
    }

    fn saturating(&mut self, n: &mut u64, _cap: u64, _max: u64) {
        *n = self.next();
    }

    fn count(&mut self, n: &mut u64, _limit: Option<u64>, _max: u64) {
        *n = self.next();
    }

    fn id(&mut self, id: &mut u64, _base: u64, _max: u64) {
        *id = self.next();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(at: u64, walk: impl FnOnce(&mut dyn Visitor)) -> Snapshot {
        let mut s = Snapshot::default();
        s.begin(SimTime::from_millis(at));
        walk(&mut Capture::new(&mut s));
        s
    }

    #[test]
    fn times_compare_as_offsets_and_counts_not_at_all() {
        let a = record(1_000, |v| {
            v.time(&mut SimTime::from_millis(1_500));
            v.count(&mut 3, None, u64::MAX);
            v.exact(7);
        });
        let b = record(6_000, |v| {
            v.time(&mut SimTime::from_millis(6_500));
            v.count(&mut 5, None, u64::MAX);
            v.exact(7);
        });
        assert!(a.same_state(&b));
        let mut plan = Vec::new();
        assert_eq!(a.plan(&b, 10, &mut plan), Some(10));
        // 10 more cycles of 5 s: the deadline moves 50 s, the count 20.
        assert_eq!(plan, [56_500, 25, 7]);
        let c = record(6_000, |v| {
            v.time(&mut SimTime::from_millis(6_400));
            v.count(&mut 5, None, u64::MAX);
            v.exact(7);
        });
        assert!(!a.same_state(&c));
    }

    #[test]
    fn a_jump_stops_below_a_counts_limit_and_refuses_a_count_that_fell() {
        let walk = |n: u64| move |v: &mut dyn Visitor| v.count(&mut { n }, Some(10), u64::MAX);
        let (a, b) = (record(0, walk(2)), record(1_000, walk(4)));
        let mut plan = Vec::new();
        // 4 + 2k < 10: k = 2 (to 8); the step-by-step run then crosses the limit itself.
        assert_eq!(a.plan(&b, 100, &mut plan), Some(2));
        assert_eq!(plan, [8]);
        assert_eq!(b.plan(&a, 100, &mut plan), None);
        // Past the limit a count is free.
        let (c, d) = (record(0, walk(12)), record(1_000, walk(15)));
        assert!(c.same_state(&d));
        assert_eq!(c.plan(&d, 3, &mut plan), Some(3));
        assert_eq!(plan, [24]);
    }

    #[test]
    fn saturating_values_compare_below_the_cap_only() {
        let walk = |n: u64| move |v: &mut dyn Visitor| v.saturating(&mut { n }, 3, u64::MAX);
        assert!(!record(0, walk(1)).same_state(&record(9, walk(2))));
        assert!(record(0, walk(3)).same_state(&record(9, walk(40))));
    }

    #[test]
    fn past_times_compare_up_to_their_horizon_and_ids_against_their_base() {
        let h = SimDuration::from_secs(600);
        let walk = |t: u64, id: u64, base: u64| {
            move |v: &mut dyn Visitor| {
                v.past(&mut SimTime::from_millis(t), h);
                v.id(&mut { id }, base, u64::MAX);
            }
        };
        let a = record(700_000, walk(0, 3, 4));
        let b = record(900_000, walk(0, 5, 6));
        assert!(a.same_state(&b));
        let mut plan = Vec::new();
        assert_eq!(a.plan(&b, 2, &mut plan), Some(2));
        assert_eq!(plan, [0, 9]);
        // A past time that moved by other than nothing or the cycle's length was set before
        // the run became periodic (set at 100 s, and again 150 s into a cycle of 200 s): no
        // jump.
        let shown = |t: u64| {
            move |v: &mut dyn Visitor| v.past(&mut SimTime::from_millis(t), SimDuration::ZERO)
        };
        let (c, d) = (
            record(200_000, shown(100_000)),
            record(400_000, shown(350_000)),
        );
        assert!(c.same_state(&d));
        assert_eq!(c.plan(&d, 2, &mut plan), None);
        let e = record(600_000, shown(550_000));
        assert_eq!(d.plan(&e, 2, &mut plan), Some(2));
        assert_eq!(plan, [950_000]);
        // Younger than the horizon, a past time compares exactly.
        assert!(!record(100_000, walk(0, 0, 0)).same_state(&record(200_000, walk(0, 0, 0))));
        // An id one behind its base is not an id equal to it.
        assert!(!a.same_state(&record(900_000, walk(0, 6, 6))));
    }

    #[test]
    fn counts_saturate_and_ids_refuse_the_jump_at_their_largest_value() {
        // A count (a restart count shown as u32) and a run of equal results stop at their
        // largest value, as the step-by-step run's saturating additions do: the jump goes on.
        let walk = |n: u64| {
            move |v: &mut dyn Visitor| {
                v.count(&mut { n }, None, 100);
                v.saturating(&mut { n }, 3, 100);
            }
        };
        let (a, b) = (record(0, walk(10)), record(1_000, walk(60)));
        let mut plan = Vec::new();
        assert_eq!(a.plan(&b, 1_000, &mut plan), Some(1_000));
        assert_eq!(plan, [100, 100]);
        // An identifier past its largest value would name two things alike: refused.
        let walk = |id: u64| move |v: &mut dyn Visitor| v.id(&mut { id }, id, 100);
        let (a, b) = (record(0, walk(10)), record(1_000, walk(60)));
        assert_eq!(a.plan(&b, 1, &mut plan), None);
    }
}
