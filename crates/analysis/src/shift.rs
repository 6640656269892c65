//! The change trials against the periodic resync.
//!
//! Long after the start the pod's only syncs are its periodic resyncs (R6), `resync` (60 s)
//! apart, and every sync waits for a relist newer than the previous one (R4): a kill or a
//! status write asked for less than a relist after a resync comes a relist later. So what
//! follows a change depends on the change's phase against the probe and relist cycle
//! ([`Analyzer::change_offsets`]) and on its phase against the resync, which moves by that
//! cycle's length whenever the change does. The change trials therefore sweep each offset of
//! the cycle shifted by every multiple of the cycle within the least common multiple of the
//! cycle and `resync` ([`Shifts`]).
//!
//! Most shifts need no simulation. Before the change the pod is steady, and a resync there finds
//! nothing to do: it only holds the next sync back to the relist after it (R4), and the first
//! sync after the change replaces its requeue. So a resync due outside every window from a
//! relist before a sync to that sync's end (in one it would hold the sync back, or wait as the
//! pending update, R3) cannot change the run, and one due after the first sync after the change
//! has ended never comes: two shifts whose resyncs all fall outside those windows give the same
//! run, relative to the change. Per offset, the first shift whose resyncs avoid the windows of its own syncs is the
//! reference, and every later shift whose resyncs avoid the reference's windows takes its values
//! without a simulation. When another sync than a resync came last before the change, the pod
//! was not resting on its resyncs but syncing for another reason (a finished container's probe
//! workers ask for a sync at every relist), which every shift's prefix repeats: each shift takes
//! the values of the unshifted run. [`Analyzer::exhaustive`] runs every shift, and
//! `crates/analysis/tests/fast_path.rs` compares the two (docs/analysis.md, "What the change
//! trials sweep").

use probesim_core::{SimDuration, SimTime, SyncTrigger};

use crate::analyze::{AnalysisError, Analyzer};
use crate::trial::Trace;

/// The shifts of a change offset that a change trial sweeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shifts {
    /// The length of the cycle of change offsets: the change moves by multiples of it.
    pub step: SimDuration,
    /// How many multiples (the first is no shift).
    pub count: u64,
    /// The resync period, when shifts that cannot matter are to be left out; `None` runs every
    /// shift.
    pub resync: Option<SimDuration>,
    /// The relist period: a resync holds back the syncs asked for up to a relist after it.
    pub relist: SimDuration,
}

/// What decides whether another shift gives the same run as this one, relative to the change.
#[derive(Clone, Debug)]
pub(crate) struct Reach {
    /// The end of a resync of the steady pod before the change: the pod resyncs a resync
    /// period after it, and so on, until the first sync after the change ends. `None` when
    /// another sync came last before the change.
    anchor: Option<SimTime>,
    /// From the first sync after the change that is not a resync on, each sync's start and end
    /// as times after the change; when the run stopped early, the instant it stopped too.
    spans: Vec<(SimDuration, SimDuration)>,
}

impl Reach {
    /// The reach of a change trial's trace.
    pub(crate) fn of(trace: &Trace, change: SimTime) -> Reach {
        let first = trace
            .syncs
            .iter()
            .position(|s| s.start >= change && s.trigger != SyncTrigger::Resync);
        let mut spans: Vec<(SimDuration, SimDuration)> = first
            .map(|i| &trace.syncs[i..])
            .unwrap_or_default()
            .iter()
            .map(|s| {
                (
                    s.start.saturating_since(change),
                    s.end.saturating_since(change),
                )
            })
            .collect();
        if trace.stopped {
            let end = trace.end.saturating_since(change);
            spans.push((end, end));
        }
        Reach {
            anchor: trace.resync_before(change),
            spans,
        }
    }
}

impl Shifts {
    /// Whether a resync of the chain anchored at `anchor` may change the run whose change is
    /// at `change` and whose syncs `reach` lists: one due from a relist before the change until
    /// the first sync after it has ended (when its successor takes over), and from a relist
    /// before a sync's start to its end. Such a resync holds the sync back to the next relist
    /// (R4), or waits for it as the pending update (R3); any other one finds the pod steady,
    /// does nothing and is replaced by the next sync's requeue.
    fn meets(&self, anchor: SimTime, change: SimTime, reach: &Reach) -> bool {
        let Some(period) = self.resync else {
            return true;
        };
        let Some(&(_, first_end)) = reach.spans.first() else {
            return false;
        };
        let period = period.as_millis().max(1);
        let relist = self.relist.as_millis();
        let base = change.saturating_since(SimTime::ZERO).as_millis();
        let from = base.saturating_sub(relist);
        let until = base
            .saturating_add(first_end.as_millis())
            .saturating_add(relist);
        let anchor = anchor.saturating_since(SimTime::ZERO).as_millis() % period;
        reach.spans.iter().any(|&(start, end)| {
            let lo = base
                .saturating_add(start.as_millis())
                .saturating_sub(relist)
                .max(from);
            let hi = base.saturating_add(end.as_millis()).min(until);
            // The first resync at or after `lo`.
            let first = lo + (anchor + period - lo % period) % period;
            lo <= hi && first <= hi
        })
    }
}

/// A run whose resyncs avoid the windows of its own syncs, with what decides whether another
/// run gives the same values: the values of every run whose resyncs avoid those windows too.
#[derive(Clone, Debug)]
pub(crate) struct Reference<V> {
    value: V,
    anchor: SimTime,
    reach: Reach,
}

/// The values of every shift of one change offset with their change instants, in shift order,
/// and the shifts' [`Reference`] when one was found.
pub(crate) type Shifted<V> = (Vec<(V, SimTime)>, Option<Reference<V>>);

impl Analyzer<'_> {
    /// Runs `trial` for the change at `change` shifted by every multiple of `shifts.step`,
    /// returning each shift's value and change instant in shift order, and the shifts'
    /// [`Reference`] when one was found; shifts that give the run of another one (see the
    /// module's comment) take its value without a simulation.
    ///
    /// `like` is, for a start whose probes tick where those of an earlier start do and whose
    /// pod rests on resyncs anchored at the given instant before the change, that earlier
    /// start's reference for the same change offset: a shift whose resyncs avoid the
    /// reference's windows gives the reference's run, relative to the change, and takes its
    /// value too.
    pub(crate) fn over_shifts<V: Clone>(
        &self,
        shifts: &Shifts,
        change: SimTime,
        like: Option<(&Reference<V>, SimTime)>,
        trial: impl Fn(SimTime) -> Result<(V, Reach), AnalysisError>,
    ) -> Result<Shifted<V>, AnalysisError> {
        let mut out = Vec::with_capacity(usize::try_from(shifts.count).unwrap_or(1));
        let mut reference: Option<Reference<V>> = None;
        for k in 0..shifts.count {
            let at = change.saturating_add(shifts.step.saturating_mul(k));
            if let Some(r) = &reference
                && !shifts.meets(r.anchor, at, &r.reach)
            {
                out.push((r.value.clone(), at));
                continue;
            }
            if let Some((r, anchor)) = like
                && !shifts.meets(anchor, at, &r.reach)
            {
                out.push((r.value.clone(), at));
                continue;
            }
            let (v, reach) = trial(at)?;
            if k == 0 && reach.anchor.is_none() && shifts.resync.is_some() {
                // Another sync came last before the change: the pod was not resting on its
                // resyncs (a finished container's workers make a sync at every relist), and
                // every shift's prefix ends the same way, so the resync is not what decides.
                for k in 0..shifts.count {
                    out.push((
                        v.clone(),
                        change.saturating_add(shifts.step.saturating_mul(k)),
                    ));
                }
                return Ok((out, None));
            }
            if reference.is_none()
                && let Some(anchor) = reach.anchor
                && !shifts.meets(anchor, at, &reach)
            {
                reference = Some(Reference {
                    value: v.clone(),
                    anchor,
                    reach,
                });
            }
            out.push((v, at));
        }
        Ok((out, reference))
    }
}

/// Per group of `group` jobs (one group per seed and start), each job's values by shift,
/// reordered shift by shift: the order of the change instants, as a sweep of every offset of
/// the longer cycle would run them.
pub(crate) fn by_shift<T>(jobs: Vec<Vec<T>>, group: usize) -> Vec<T> {
    let group = group.max(1);
    let mut out = Vec::with_capacity(jobs.iter().map(Vec::len).sum());
    let mut jobs = jobs.into_iter().map(Vec::into_iter).collect::<Vec<_>>();
    for chunk in jobs.chunks_mut(group) {
        loop {
            let before = out.len();
            for j in chunk.iter_mut() {
                if let Some(v) = j.next() {
                    out.push(v);
                }
            }
            if out.len() == before {
                break;
            }
        }
    }
    out
}
