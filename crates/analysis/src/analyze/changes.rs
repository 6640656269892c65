//! The change trials from shared healthy prefixes ([`Prefix`]): every change trial of one
//! start phase and seed runs the same pod the same way until its change, so the sweep runs
//! that prefix once per group of change offsets and forks it for each change
//! ([`probesim_core::Simulation::fork`]). Each fork is counted as one simulation, and its
//! work (its events, the prefix's among them, and its simulated time) as the trial's, so the
//! figures, the simulation counts and the work budget are those of running every trial from
//! time zero (docs/analysis.md, "Cost").

use core::sync::atomic::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use probesim_core::{ProbeKind, SimDuration, SimTime};

use super::{gcd, ms, AnalysisError, Analyzer, AFTER_CHANGE};
use crate::figure::GridPhaseSpace;
use crate::shift::{Reach, Shifted, Shifts};
use crate::sweep::Sweep;
use crate::trial::{App, Prefix, Stop, Trace, Trial};

/// One change job: the container's start offset, the change offset, the seed and the base.
pub(crate) type ChangeJob = (SimDuration, SimDuration, u64, SimTime);

/// How the change trials of one start (and seed) are swept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Every change offset and shift is run, or takes the values of another shift of its own
    /// ([`crate::shift`]).
    Own,
    /// The container's probes tick where they do for the start of an earlier group (this
    /// index, of role `Own`), and the pod's resyncs fall elsewhere: a shift whose resyncs
    /// avoid the windows of that group's reference for the same offset takes its values.
    Like(usize),
}

/// The change jobs of a container: per seed, the starts swept (each a group of jobs, one per
/// change offset) and how each group is swept.
#[derive(Clone, Debug)]
pub(crate) struct ChangePlan {
    /// The jobs, group by group.
    pub(crate) jobs: Vec<ChangeJob>,
    /// The jobs per group: the change offsets.
    pub(crate) group: usize,
    /// Per group, its role.
    pub(crate) roles: Vec<Role>,
}

/// What decides the change trials of a start, long after it, besides the change: where each
/// of the container's probe workers ticks (the phase of its last attempt in its period), and
/// the pod's last sync before the base (what started it, and its start and end, `None` while
/// it runs, modulo the part of the resync period the shifts do not cover).
type Signature = ([Option<u64>; 3], Option<(&'static str, u64, Option<u64>)>);

impl Analyzer<'_> {
    /// The change jobs of a container, over every start of `space` (the whole grid cycle).
    ///
    /// Where the resyncs fall long after the start follows the last sync of the start-up,
    /// usually the one of the relist that sees the start (R5, R6), and where the readiness
    /// worker ticks follows that relist too from 1.32 (P19): both move with the start. So every
    /// start of the cycle is a candidate. The prefix of each (run to the base, healthy) tells
    /// where the container's probes tick and where the pod's last sync lies
    /// ([`Signature`]); a start whose signature an earlier start had gives that start's runs
    /// shifted by whole change cycles (the shifts sweep them all), and is left out; a start
    /// whose probes tick as an earlier one's but whose resyncs fall elsewhere is swept
    /// [`Role::Like`] it. The exhaustive way, and a kubelet with drawn resyncs (`kubelet.jitter`,
    /// which samples them by seed over the starts of [`Analyzer::change_starts`]), runs every
    /// start [`Role::Own`].
    ///
    /// # Errors
    /// A stuck engine, or the budget spent.
    pub(crate) fn change_plan(
        &self,
        index: usize,
        space: &GridPhaseSpace,
    ) -> Result<ChangePlan, AnalysisError> {
        let bases = self.bases(index, space)?;
        let offsets = self.change_offsets(index, space);
        let jittered = self.subject.kubelet.jitter;
        let starts = if jittered {
            self.change_starts(index, space)
        } else {
            space.offsets.clone()
        };
        let mut plan = ChangePlan {
            jobs: Vec::new(),
            group: offsets.len(),
            roles: Vec::new(),
        };
        for &(seed, base) in &bases {
            let mut keep: Vec<(SimDuration, Role)> = Vec::new();
            if jittered {
                keep.extend(starts.iter().map(|&s| (s, Role::Own)));
            } else {
                let signatures =
                    self.collect(&starts, |&s| self.signature(index, s, seed, base))?;
                let mut seen: BTreeSet<Signature> = BTreeSet::new();
                let mut grids: BTreeMap<[Option<u64>; 3], usize> = BTreeMap::new();
                for (&start, signature) in starts.iter().zip(signatures) {
                    let Some(signature) = signature else {
                        keep.push((start, Role::Own));
                        continue;
                    };
                    if !seen.insert(signature) {
                        continue;
                    }
                    let group = plan.roles.len() + keep.len();
                    let role = match grids.get(&signature.0) {
                        Some(&of) if !self.exhaustive => Role::Like(of),
                        _ => {
                            grids.entry(signature.0).or_insert(group);
                            Role::Own
                        }
                    };
                    keep.push((start, role));
                }
            }
            for (start, role) in keep {
                plan.roles.push(role);
                plan.jobs
                    .extend(offsets.iter().map(|&o| (start, o, seed, base)));
            }
        }
        Ok(plan)
    }

    /// The [`Signature`] of the start `start` with `seed`, from its healthy prefix up to just
    /// before `base`, counted as one simulation; `None` when the prefix cannot be forked or
    /// ended early (the start is then swept on its own).
    fn signature(
        &self,
        index: usize,
        start: SimDuration,
        seed: u64,
        base: SimTime,
    ) -> Result<Option<Signature>, AnalysisError> {
        let trial = self.hang_trial(index, start, SimTime::MAX, seed);
        let until = SimTime::from_millis(base.as_millis().saturating_sub(1));
        let Some(prefix) = self.counted_prefix(&trial, until)? else {
            return Ok(None);
        };
        if prefix.ended_early() {
            return Ok(None);
        }
        let (trace, syncing) = prefix.seen();
        let c = self.subject.pod.container(index);
        let grid = ProbeKind::ALL.map(|kind| {
            let period = c.probe(kind).map_or(1, |p| ms(p.period()).max(1));
            trace.last_attempts[kind.index()].map(|t| t.as_millis() % period)
        });
        // The shifts move the change by whole change cycles against the resync, so two
        // starts whose resyncs differ by a multiple of that cycle give the same runs, shifted
        // (the exhaustive way tells apart every position in the resync period).
        let resync = ms(self.subject.kubelet.resync).max(1);
        let step = ms(self.change_cycle(index)).max(1);
        let part = if self.exhaustive {
            resync
        } else {
            gcd(step, resync).max(1)
        };
        let last = trace.syncs.last().map(|s| {
            (
                s.trigger.as_str(),
                s.start.as_millis() % part,
                (!syncing).then_some(s.end.as_millis() % part),
            )
        });
        Ok(Some((grid, last)))
    }

    /// Runs every change job of `plan` over `shifts` ([`Analyzer::over_shifts`]), each job's
    /// values by shift, in job order. Each group of jobs (one start and seed, its offsets
    /// ascending) is cut into as many runs as `sweep` has threads, and each run moves one
    /// prefix of `template(start, seed)` to just before each of its offsets in turn, for
    /// `trial` (given the prefix, the start, the change and the seed) to fork. The groups of
    /// role [`Role::Own`] run first; those of [`Role::Like`] then take what they can of their
    /// references.
    pub(crate) fn sweep_changes<V: Clone + Send + Sync>(
        &self,
        sweep: &Sweep,
        plan: &ChangePlan,
        shifts: &Shifts,
        template: impl Fn(SimDuration, u64) -> Trial + Sync,
        trial: impl Fn(Option<&Prefix>, SimDuration, SimTime, u64) -> Result<(V, Reach), AnalysisError>
            + Sync,
    ) -> Result<Vec<Vec<(V, SimTime)>>, AnalysisError> {
        let jobs = &plan.jobs;
        let group = plan.group.max(1);
        let parts = sweep.threads().min(group);
        // Runs of consecutive jobs: (first job, jobs).
        let runs_of = |own: bool| {
            let mut runs: Vec<(usize, &[ChangeJob])> = Vec::new();
            for (g, role) in plan.roles.iter().enumerate() {
                if (*role == Role::Own) != own {
                    continue;
                }
                let lo = g * group;
                let hi = (lo + group).min(jobs.len());
                let size = (hi - lo).div_ceil(parts).max(1);
                for from in (lo..hi).step_by(size) {
                    runs.push((from, &jobs[from..(from + size).min(hi)]));
                }
            }
            runs
        };
        let run = |references: &[Option<Shifted<V>>], (from, run): &(usize, &[ChangeJob])| {
            let mut prefix: Option<Prefix> = None;
            run.iter()
                .enumerate()
                .map(|(i, &(start, o, seed, base))| {
                    let job = from + i;
                    let change = base.saturating_add(o);
                    let until = SimTime::from_millis(change.as_millis().saturating_sub(1));
                    match prefix.as_mut() {
                        Some(p) => p.advance(until),
                        None => prefix = self.prefix(&template(start, seed), until),
                    }
                    let like = match plan.roles[job / group] {
                        Role::Own => None,
                        Role::Like(of) => references
                            .get(of * group + job % group)
                            .and_then(|d| d.as_ref())
                            .and_then(|d| d.1.as_ref())
                            .zip(prefix.as_ref().and_then(|p| p.anchor(change))),
                    };
                    self.over_shifts(shifts, change, like, |change| {
                        trial(prefix.as_ref(), start, change, seed)
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let mut done: Vec<Option<Shifted<V>>> = (0..jobs.len()).map(|_| None).collect();
        for own in [true, false] {
            let runs = runs_of(own);
            let results = sweep.run(&runs, |r| run(&done, r));
            for ((from, _), result) in runs.iter().zip(results) {
                for (i, d) in result?.into_iter().enumerate() {
                    done[from + i] = Some(d);
                }
            }
        }
        Ok(done
            .into_iter()
            .map(|d| d.map(|d| d.0).unwrap_or_default())
            .collect())
    }

    /// The prefix of the change trials like `trial`, up to `until` (`None` when its
    /// simulation cannot be forked).
    fn prefix(&self, trial: &Trial, until: SimTime) -> Option<Prefix> {
        trial.prefix(self.subject, &self.lean(None), until)
    }

    /// [`Analyzer::prefix`], counted as one simulation, its events and simulated time against
    /// the budget.
    fn counted_prefix(
        &self,
        trial: &Trial,
        until: SimTime,
    ) -> Result<Option<Prefix>, AnalysisError> {
        if self.work.spent() {
            return Err(self.too_costly(trial.container));
        }
        self.simulations.fetch_add(1, Ordering::Relaxed);
        let prefix = self.prefix(trial, until);
        if let Some(p) = &prefix {
            let (trace, _) = p.seen();
            let simulated = ms(trace.end.saturating_since(SimTime::ZERO)) / self.quiet_step();
            let work = trace.events.saturating_add(simulated);
            self.work.used.fetch_add(work, Ordering::Relaxed);
            if self.work.spent() {
                return Err(self.too_costly(trial.container));
            }
        }
        Ok(prefix)
    }

    /// [`Analyzer::run`] of `trial`, whose change is at `change`, as a fork of `prefix` where
    /// there is one that has not passed the change.
    pub(crate) fn run_from(
        &self,
        prefix: Option<&Prefix>,
        trial: &Trial,
        change: SimTime,
    ) -> Result<Trace, AnalysisError> {
        let Some(prefix) = prefix.filter(|p| p.before(change)) else {
            return self.run(trial);
        };
        self.account(trial, |left| prefix.run(change, trial.horizon, left))
    }

    /// One sample of how long the pod stays Ready after `app` starts failing at `change`, with
    /// the container's first start and the run's [`Reach`]: readiness.toNotReady's trial,
    /// shared with the robustness figures (readiness failing alone).
    pub(crate) fn to_not_ready(
        &self,
        prefix: Option<&Prefix>,
        index: usize,
        app: App,
        start_offset: SimDuration,
        change: SimTime,
        seed: u64,
    ) -> Result<((Option<SimDuration>, SimTime), Reach), AnalysisError> {
        let trial = self.to_not_ready_trial(index, app, start_offset, change, seed);
        let trace = self.run_from(prefix, &trial, change)?;
        let start = trace.starts.first().copied().unwrap_or(SimTime::ZERO);
        let v = trace
            .pod_ready_at(false, change)
            .map(|t| t.saturating_since(change));
        Ok(((v, start), Reach::of(&trace, change)))
    }

    /// The trial of [`Analyzer::to_not_ready`].
    pub(crate) fn to_not_ready_trial(
        &self,
        index: usize,
        app: App,
        start_offset: SimDuration,
        change: SimTime,
        seed: u64,
    ) -> Trial {
        Trial {
            container: index,
            app,
            start_offset,
            seed,
            horizon: change.saturating_add(AFTER_CHANGE),
            stop: Stop::PodReady(false),
        }
    }

    /// One hang at `change`: from the hang to the kill, the exit and the replacement's start,
    /// with the container's first start and the run's [`Reach`].
    #[expect(clippy::type_complexity, reason = "a private helper's tuple")]
    pub(super) fn hang(
        &self,
        prefix: Option<&Prefix>,
        index: usize,
        start_offset: SimDuration,
        change: SimTime,
        seed: u64,
    ) -> Result<(([Option<SimDuration>; 3], SimTime), Reach), AnalysisError> {
        let trial = self.hang_trial(index, start_offset, change, seed);
        let trace = self.run_from(prefix, &trial, change)?;
        let start = trace.starts.first().copied().unwrap_or(SimTime::ZERO);
        let kill = Trace::first_after(&trace.kills, change);
        let exit = kill.and_then(|k| Trace::first_after(&trace.exits, k));
        let restarted = exit.and_then(|e| trace.starts.iter().skip(1).copied().find(|t| *t >= e));
        let since = |t: Option<SimTime>| t.map(|t| t.saturating_since(change));
        Ok((
            ([since(kill), since(exit), since(restarted)], start),
            Reach::of(&trace, change),
        ))
    }

    /// The trial of [`Analyzer::hang`].
    pub(super) fn hang_trial(
        &self,
        index: usize,
        start_offset: SimDuration,
        change: SimTime,
        seed: u64,
    ) -> Trial {
        Trial {
            container: index,
            app: App::HangAt(change),
            start_offset,
            seed,
            horizon: change.saturating_add(self.window()),
            stop: Stop::Restart,
        }
    }
}

#[cfg(test)]
mod tests {
    use probesim_core::{ProbeKind, SimDuration, SimTime};
    use probesim_scenario::scenario::Scenario;

    use crate::analyze::Analyzer;
    use crate::subject::Subject;
    use crate::sweep::Sweep;
    use crate::trial::{App, Stop, Trial};

    /// A change trial forked from the shared healthy prefix gives the trace of the same trial
    /// run from time zero, error for error, for every kind of change, for starts on and off the
    /// grid (P15) and for changes at every position against the relist (R4) and the resync
    /// (R6), including the limit on events.
    #[test]
    fn a_forked_change_trial_is_the_trial_from_time_zero() {
        let text = include_str!("../../../../scenarios/kubia-unhealthy.yaml");
        let scenario = Scenario::from_str(text, "kubia-unhealthy.yaml").expect("kubia parses");
        let subject = Subject::of(&scenario, "kubia-unhealthy", None);
        let a = Analyzer::new(&subject, Sweep::single());
        let index = (0..subject.pod.container_count())
            .find(|&i| {
                subject
                    .pod
                    .container(i)
                    .probe(ProbeKind::Liveness)
                    .is_some()
            })
            .expect("kubia has a liveness probe");
        let space = a.space(index);
        let (seed, base) = a.bases(index, &space).expect("settles")[0];
        let lean = a.lean(None);
        let d = SimDuration::from_secs(3);
        let apps: [(fn(SimTime, SimDuration) -> App, Stop); 5] = [
            (|t, _| App::HangAt(t), Stop::Restart),
            (|t, _| App::FailAt(t), Stop::PodReady(false)),
            (|t, _| App::ReadinessFailAt(t), Stop::PodReady(false)),
            (|t, d| App::FailFor(t, d), Stop::Horizon),
            (|t, d| App::StallFor(t, d), Stop::Horizon),
        ];
        let offsets = [0, 1, 499, 1000, 2_500, 7_001, 30_000, 61_000];
        let mut killed = 0;
        for (app, stop) in apps {
            for start in [0, 1_500] {
                let trial = |change: SimTime| Trial {
                    container: index,
                    app: app(change, d),
                    start_offset: SimDuration::from_millis(start),
                    seed,
                    horizon: change.saturating_add(SimDuration::from_secs(300)),
                    stop,
                };
                let before = |t: SimTime| SimTime::from_millis(t.as_millis() - 1);
                let mut prefix = trial(SimTime::MAX)
                    .prefix(&subject, &lean, before(base))
                    .expect("forks");
                for o in offsets {
                    let change = base.saturating_add(SimDuration::from_millis(o));
                    prefix.advance(before(change));
                    assert!(prefix.before(change));
                    let direct = trial(change).run_with(&subject, u64::MAX, &lean);
                    let events = direct.as_ref().expect("settles").events;
                    killed += usize::from(!direct.as_ref().expect("settles").kills.is_empty());
                    for max in [u64::MAX, events / 2, events - 1, 10] {
                        let forked = prefix
                            .run(change, trial(change).horizon, max)
                            .expect("forks");
                        let direct = trial(change).run_with(&subject, max, &lean);
                        assert_eq!(forked, direct, "{:?} at {o} ms, max {max}", app(change, d));
                    }
                }
            }
        }
        // The hangs and the failures kill: the forks ran past their change.
        assert!(killed > 0);
    }
}
