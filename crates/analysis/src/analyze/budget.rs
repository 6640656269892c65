//! The start-up budget: per phase, the largest `T` for which an app failing every probe for its
//! first `T` of uptime is not killed, found by bisection on simulated outcomes. Two kinds of
//! start are measured: the container's first start, and (where the replacement inherits
//! `started`, P45) a replacement started after a liveness kill.

use core::cell::RefCell;
use std::rc::Rc;

use probesim_core::{ProbeKind, SimDuration, SimTime};

use super::{at, dur, gcd, ms, phase, AnalysisError, Analyzer, LONG};

/// The most grid steps of the change a replacement's budget sweeps over the grid cycle and the
/// resync period together (two resync periods of 1 s steps).
const REPLACEMENT_STEPS: u64 = 120;
use crate::figure::{GridPhase, GridPhaseSpace};
use crate::trial::{App, Prefix, Stop, Trace, Trial, TrialError};

impl Analyzer<'_> {
    /// The start-up budget in one phase: the largest `T` (ms) for which an app that fails every
    /// probe until `T` of uptime is not killed.
    pub(super) fn budget(
        &self,
        index: usize,
        space: &GridPhaseSpace,
        offset: SimDuration,
        seed: u64,
    ) -> Result<(Option<SimDuration>, GridPhase), AnalysisError> {
        let horizon = self.start_estimate(offset).saturating_add(self.window());
        let trial = |t: SimDuration, horizon: SimTime| Trial {
            container: index,
            app: App::FailUntil(t),
            start_offset: offset,
            seed,
            horizon,
            stop: Stop::KillOrSafe,
        };
        let uptimes = Rc::new(RefCell::new(Vec::new()));
        let failing = self.run_with(
            &trial(SimDuration::MAX, horizon),
            (!self.exhaustive).then(|| Rc::clone(&uptimes)),
        )?;
        let start = failing.starts.first().copied().unwrap_or(SimTime::ZERO);
        let phase = phase(space, start, None, seed);
        let Some(kill) = failing.kills.first().copied() else {
            return Ok((None, phase));
        };
        let forks = self.forks(&trial(SimDuration::MAX, horizon), start);
        let survives = |t: u64| -> Result<bool, AnalysisError> {
            let h = start.saturating_add(dur(t)).saturating_add(LONG);
            Ok(self.run_forked(&trial(dur(t), h), &forks)?.kills.is_empty())
        };
        let budget = self.largest_survived(start, kill, &uptimes, survives)?;
        Ok((budget, phase))
    }

    /// Whether a replacement of the container can inherit `started` and be probed by liveness
    /// before its startup probe has passed, so that its start-up budget differs from the first
    /// start's: from 1.35 with `ChangeContainerStatusOnKubeletRestart` off (P45), for a
    /// container with a startup probe (without one, every start counts as started) and a
    /// liveness probe (the only probe that kills a started container). Whether the container
    /// is restarted at all, the engine decides: a trial without a replacement gives no sample.
    pub(super) fn replacement_inherits_started(&self, index: usize) -> bool {
        let c = self.subject.pod.container(index);
        self.subject.profile.inherits_started()
            && c.probe(ProbeKind::Startup).is_some()
            && c.probe(ProbeKind::Liveness).is_some()
    }

    /// Whether the replacement sweep takes the change on the grid steps alone
    /// ([`Analyzer::replacement_phases`]): when no worker draws at random, outside the
    /// exhaustive way.
    fn replacement_on_grid_steps(&self) -> bool {
        self.draws_nothing() && !self.exhaustive
    }

    /// The phases of the replacement sweep. The change moves the first instance's kill, and
    /// with it the replacement's start, so it is swept over the grid cycle and the pod's
    /// periodic resync together: a kill asked for just after a resync's sync comes a relist
    /// later, since every sync waits for a newer relist (R4), and the replacement starts a
    /// relist later against the probe grid (the hang's sweep shifts the change against the
    /// resync only where a resync meets a sync, docs/analysis.md "What the change trials
    /// sweep"; a budget sweeps the span whole). When that span has
    /// more than [`REPLACEMENT_STEPS`] steps, the change is swept as the hang's (`offsets`)
    /// and the gap stays.
    ///
    /// The exhaustive way sweeps each step of that span at the four offsets of
    /// [`Analyzer::space`] for every start phase of `starts` (those of the hang). Otherwise the
    /// first start is on the grid alone, and, when no worker draws at random, the change is on
    /// the grid steps only:
    ///
    /// - the first instance answers from the change on, and every probe attempt falls on a
    ///   grid step (the ticks, and the triggers of syncs at relists), so a change anywhere
    ///   after one step up to the next is seen from the same attempt as a change on that next
    ///   step, and kills at the same instant;
    /// - the replacement starts long after the first start, at the sync of that kill, and the
    ///   relist that sees it triggers its readiness worker again (P18, P19).
    ///
    /// `crates/analysis/tests/fast_path.rs` compares the two ways; the property tests compare
    /// the figure with direct runs started at random milliseconds.
    pub(super) fn replacement_phases(
        &self,
        space: &GridPhaseSpace,
        starts: &[SimDuration],
        offsets: &[SimDuration],
    ) -> (Vec<SimDuration>, Vec<SimDuration>) {
        let unit = ms(space.unit).max(1);
        let cycle = ms(space.cycle).max(1);
        let resync = ms(self.subject.kubelet.resync).max(1);
        let span = cycle / gcd(cycle, resync) * resync;
        // Past a few resync periods' worth of steps the cost is the recommender's limit (each
        // candidate is analysed): then only the hang's offsets, with its known gap.
        let steps = if span / unit > REPLACEMENT_STEPS {
            0
        } else {
            (span / unit).max(1)
        };
        let grid = self.replacement_on_grid_steps();
        let within: &[u64] = if grid {
            &[0]
        } else {
            &[0, 1, unit / 2, unit.saturating_sub(1)]
        };
        let mut swept: Vec<SimDuration> = Vec::new();
        for step in 0..steps {
            for &d in within {
                let o = dur(step * unit + d);
                if d < unit.max(1) && swept.last().is_none_or(|l| o > *l) {
                    swept.push(o);
                }
            }
        }
        // The offsets the hang sweeps are among them; keep any the span does not reach.
        for o in offsets {
            if !swept.contains(o) && (!grid || ms(*o) % unit == 0) {
                swept.push(*o);
            }
        }
        if self.exhaustive {
            return (starts.to_vec(), swept);
        }
        (vec![SimDuration::ZERO], swept)
    }

    /// The start-up budget of a replacement in one phase: the first instance, started at
    /// `start_offset`, is healthy until `base + offset`, then fails every probe (or, with
    /// `hang`, times out) until liveness kills it; the largest `T` for which the replacement,
    /// failing every probe for its first `T` of uptime, is not killed. `None` when the first
    /// instance is not replaced (no sample).
    #[expect(
        clippy::too_many_arguments,
        reason = "one phase of the replacement sweep"
    )]
    pub(super) fn replacement_budget(
        &self,
        index: usize,
        space: &GridPhaseSpace,
        start_offset: SimDuration,
        offset: SimDuration,
        hang: bool,
        seed: u64,
        base: SimTime,
    ) -> Result<Option<(Option<SimDuration>, GridPhase)>, AnalysisError> {
        let change = base.saturating_add(offset);
        let trial = |fail: SimDuration, horizon: SimTime| Trial {
            container: index,
            app: App::Replaced { change, hang, fail },
            start_offset,
            seed,
            horizon,
            stop: Stop::ReplacementKillOrSafe,
        };
        // The first instance's kill comes within a window of the change, the replacement's
        // within another of its start.
        let horizon = change
            .saturating_add(self.window())
            .saturating_add(self.window());
        let uptimes = Rc::new(RefCell::new(Vec::new()));
        let failing = self.run_with(
            &trial(SimDuration::MAX, horizon),
            (!self.exhaustive).then(|| Rc::clone(&uptimes)),
        )?;
        let (Some(&first), Some(&restart)) = (failing.starts.first(), failing.starts.get(1)) else {
            return Ok(None);
        };
        // On the grid steps alone (see `replacement_phases`), a change at a step stands for
        // every change after the step before it: the phase names the first of those, as the
        // exhaustive sweep, which goes through the offsets in order, finds it.
        let unit = ms(space.unit).max(1);
        let shown = if self.replacement_on_grid_steps() && ms(offset) >= unit {
            dur(ms(offset) - unit + 1)
        } else {
            offset
        };
        let mut phase = phase(space, first, Some(base.saturating_add(shown)), seed);
        phase.restart = Some(dur(
            ms(restart.saturating_since(SimTime::ZERO)) % ms(space.cycle).max(1)
        ));
        // The first kill is the first instance's; a second one is the replacement's.
        let Some(kill) = replacement_kill(&failing) else {
            return Ok(Some((None, phase)));
        };
        let forks = self.forks(&trial(SimDuration::MAX, horizon), restart);
        let survives = |t: u64| -> Result<bool, AnalysisError> {
            let h = restart.saturating_add(dur(t)).saturating_add(LONG);
            Ok(replacement_kill(&self.run_forked(&trial(dur(t), h), &forks)?).is_none())
        };
        let budget = self.largest_survived(restart, kill, &uptimes, survives)?;
        Ok(Some((budget, phase)))
    }

    /// The largest `T` (ms) that `survives`, for a start at `start` that an app failing
    /// throughout gets killed at `kill`; `uptimes` are the uptimes of that failing app's probe
    /// attempts (recorded unless exhaustive).
    fn largest_survived(
        &self,
        start: SimTime,
        kill: SimTime,
        uptimes: &RefCell<Vec<SimDuration>>,
        survives: impl Fn(u64) -> Result<bool, AnalysisError>,
    ) -> Result<Option<SimDuration>, AnalysisError> {
        if !survives(0)? {
            return Ok(Some(SimDuration::ZERO));
        }
        if !self.exhaustive {
            // An app failing until `T` behaves exactly like the one failing throughout up to
            // its first attempt at an uptime of `T` or more. So whether it survives depends only
            // on which attempt of the failing run that is: the largest `T` survived is the
            // uptime of one of those attempts (or 0), and an app failing past the last of them
            // is killed like the failing one. Bisect over those uptimes instead of milliseconds.
            let mut at: Vec<u64> = uptimes.borrow().iter().map(|u| ms(*u)).collect();
            at.retain(|u| *u > 0);
            at.sort_unstable();
            at.dedup();
            // The first of them that is killed: those before it survive, past the last every
            // one is killed.
            let (mut lo, mut hi) = (0, at.len());
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if survives(at[mid])? {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            let best = lo.checked_sub(1).map_or(0, |l| at[l]);
            return Ok(Some(dur(best)));
        }
        // An app failing through the kill is killed at the same instant.
        let (mut lo, mut hi) = (0u64, ms(kill.saturating_since(start)) + 1);
        while survives(hi)? {
            // Not monotone after all (never expected): look further.
            lo = hi;
            hi = hi.saturating_mul(2);
            if hi > ms(LONG) {
                return Ok(None);
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if survives(mid)? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(Some(dur(lo)))
    }

    /// The shared prefixes of one bisection of a budget whose failing trial is `failing` and
    /// whose measured instance starts at `origin` (`None` the exhaustive way, which runs every
    /// trial from time zero).
    fn forks(&self, failing: &Trial, origin: SimTime) -> Option<Forks> {
        if self.exhaustive {
            return None;
        }
        let prefix = failing.failing_prefix(self.subject, &self.lean(None))?;
        Some(Forks {
            origin,
            saved: RefCell::new(vec![prefix]),
        })
    }

    /// Runs the bisection's `trial` (its application failing for `T` of uptime) as
    /// [`Analyzer::run`] does, from a fork of `forks` where there is one: counted as one
    /// simulation, and as work its events and simulated time from zero, as the trial from time
    /// zero.
    fn run_forked(&self, trial: &Trial, forks: &Option<Forks>) -> Result<Trace, AnalysisError> {
        let Some(forks) = forks else {
            return self.run(trial);
        };
        let fail = match trial.app {
            App::FailUntil(t) | App::Replaced { fail: t, .. } => t,
            _ => return self.run(trial),
        };
        self.account(trial, |left| forks.run(fail, trial.horizon, left))
    }
}

/// The prefixes saved along one bisection of a start-up budget: copies of the run failing
/// throughout ([`Trial::failing_prefix`]) at the instants the bisection's trials forked, the
/// first at time zero.
///
/// An app failing for its first `T` of uptime answers as the one failing throughout up to its
/// first attempt at an uptime of `T` or more, which comes no sooner than `T` after the
/// measured instance's start (the first start, or the replacement's): so its trial is that run
/// up to one millisecond before, forked there and run on with `T`
/// (`crate::trial::Prefix::run_failing`). The bisection goes up and down, so each trial forks
/// the latest saved prefix not past its instant, advances the fork there and saves it too.
struct Forks {
    /// The start of the measured instance.
    origin: SimTime,
    /// The saved prefixes, in ascending order of their instants.
    saved: RefCell<Vec<Prefix>>,
}

impl Forks {
    /// The trace of the bisection's trial failing for `fail`, up to `horizon`; `None` to run
    /// it from time zero instead (it is decided at time zero, or the simulation does not
    /// fork).
    fn run(
        &self,
        fail: SimDuration,
        horizon: SimTime,
        max_events: u64,
    ) -> Option<Result<Trace, TrialError>> {
        let first = self.origin.saturating_add(fail);
        if first == SimTime::ZERO {
            return None;
        }
        let until = at(ms(first.saturating_since(SimTime::ZERO)) - 1);
        let mut saved = self.saved.borrow_mut();
        let i = saved.iter().rposition(|p| p.before(first))?;
        let mut prefix = saved[i].fork()?;
        prefix.advance(until);
        let trace = prefix.run_failing(fail, horizon, max_events);
        saved.insert(i + 1, prefix);
        trace
    }
}

/// The replacement's kill in a replacement trial: the kill after the first instance's.
fn replacement_kill(trace: &Trace) -> Option<SimTime> {
    trace.kills.get(1).copied()
}
