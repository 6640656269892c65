//! The change trials from shared healthy prefixes ([`Prefix`]): every change trial of one
//! start phase and seed runs the same pod the same way until its change, so the sweep runs
//! that prefix once per group of change offsets and forks it for each change
//! ([`probesim_core::Simulation::fork`]). Each fork is counted as one simulation, and its
//! work (its events, the prefix's among them, and its simulated time) as the trial's, so the
//! figures, the simulation counts and the work budget are those of running every trial from
//! time zero (docs/analysis.md, "Cost").

use probesim_core::{SimDuration, SimTime};

use super::{AnalysisError, Analyzer, AFTER_CHANGE};
use crate::shift::{Reach, Shifts};
use crate::sweep::Sweep;
use crate::trial::{App, Prefix, Stop, Trace, Trial};

/// One change job: the container's start offset, the change offset, the seed and the base.
pub(crate) type ChangeJob = (SimDuration, SimDuration, u64, SimTime);

impl Analyzer<'_> {
    /// Runs every change job over `shifts` ([`Analyzer::over_shifts`]), each job's values by
    /// shift, in job order. `jobs` come in groups of `group` offsets (ascending) that share a
    /// start and a seed; each group is cut into as many runs as `sweep` has threads, and each
    /// run moves one prefix of `template(start, seed)` to just before each of its offsets in
    /// turn, for `trial` (given the prefix, the start, the change and the seed) to fork.
    pub(crate) fn sweep_changes<V: Clone + Send>(
        &self,
        sweep: &Sweep,
        jobs: &[ChangeJob],
        group: usize,
        shifts: &Shifts,
        template: impl Fn(SimDuration, u64) -> Trial + Sync,
        trial: impl Fn(Option<&Prefix>, SimDuration, SimTime, u64) -> Result<(V, Reach), AnalysisError>
            + Sync,
    ) -> Result<Vec<Vec<(V, SimTime)>>, AnalysisError> {
        let group = group.max(1);
        let parts = sweep.threads().min(group);
        let mut runs = Vec::new();
        for lo in (0..jobs.len()).step_by(group) {
            let hi = (lo + group).min(jobs.len());
            let size = (hi - lo).div_ceil(parts);
            for from in (lo..hi).step_by(size.max(1)) {
                runs.push(&jobs[from..(from + size).min(hi)]);
            }
        }
        let done = sweep.run(&runs, |run| {
            let mut prefix: Option<Prefix> = None;
            run.iter()
                .map(|&(start, o, seed, base)| {
                    let change = base.saturating_add(o);
                    let until = SimTime::from_millis(change.as_millis().saturating_sub(1));
                    match prefix.as_mut() {
                        Some(p) => p.advance(until),
                        None => prefix = self.prefix(&template(start, seed), until),
                    }
                    self.over_shifts(shifts, change, |change| {
                        trial(prefix.as_ref(), start, change, seed)
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        });
        let done = done.into_iter().collect::<Result<Vec<_>, _>>()?;
        Ok(done.into_iter().flatten().collect())
    }

    /// The prefix of the change trials like `trial`, up to `until` (`None` when its
    /// simulation cannot be forked).
    fn prefix(&self, trial: &Trial, until: SimTime) -> Option<Prefix> {
        trial.prefix(self.subject, &self.lean(None), until)
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
