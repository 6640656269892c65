//! The change trials from shared healthy prefixes ([`Prefix`]): every change trial of one
//! start phase and seed runs the same pod the same way until its change, so the sweep runs
//! that prefix once per group of change offsets and forks it for each change
//! ([`probesim_core::Simulation::fork`]). Each fork is counted as one simulation, and its
//! work (its events, the prefix's among them, and its simulated time) as the trial's, so the
//! figures, the simulation counts and the work budget are those of running every trial from
//! time zero (docs/analysis.md, "Cost").

use probesim_core::{SimDuration, SimTime};

use super::{AnalysisError, Analyzer};
use crate::shift::{Reach, Shifts};
use crate::sweep::Sweep;
use crate::trial::{Prefix, Trace, Trial};

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
}
