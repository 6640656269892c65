//! Figures the recommender asks for robustness, each from sweeps of engine simulations over
//! every phase like the others ([`crate::analyze`]):
//!
//! - the time to pod not Ready when only the readiness endpoint fails (the liveness endpoint
//!   still answers, as when a dependency is down), so that a readiness requirement is met by
//!   readiness and not through a liveness kill;
//! - whether a blip (every probe refused for a while) or a stall (every probe timing out for a
//!   while) of the steady, Ready app kills the container or turns the pod not Ready, at any
//!   moment against the tick grid.

use probesim_core::{SimDuration, SimTime};

use crate::analyze::{phase_of, AnalysisError, Analyzer, ChangePlan};
use crate::figure::{Figure, GridPhase};
use crate::shift::{by_shift, Reach};
use crate::sweep::Sweep;
use crate::trial::{App, Stop, Trial};

/// What a disturbance of the steady app did, over every phase swept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tolerance {
    /// The first phase (in sweep order) where the container was killed, if any.
    pub killed: Option<GridPhase>,
    /// The first phase where the pod turned not Ready, if any.
    pub not_ready: Option<GridPhase>,
}

/// The change trials' plan of a container ([`Analyzer::change_plan`]): per seed, an instant on
/// a cycle boundary long after the container is steady (the base), and each offset of the phase
/// space after it, for every start that can make a difference.
fn change_plan(a: &Analyzer<'_>, index: usize) -> Result<ChangePlan, AnalysisError> {
    a.change_plan(index, &a.space(index))
}

/// From a Ready app whose readiness probe alone starts failing to pod not Ready, over every
/// phase; `None` when the container has no readiness probe or the pod never becomes Ready.
///
/// # Errors
/// A stuck engine.
pub fn to_not_ready_alone(
    a: &Analyzer<'_>,
    index: usize,
    sweep: Sweep,
) -> Result<Option<Figure>, AnalysisError> {
    if a.subject()
        .pod
        .container(index)
        .probe(probesim_core::ProbeKind::Readiness)
        .is_none()
    {
        return Ok(None);
    }
    let space = a.space(index);
    let shifts = a.change_shifts(index);
    let plan = change_plan(a, index)?;
    let samples = a.sweep_changes(
        &sweep,
        &plan,
        &shifts,
        |start, seed| {
            let app = App::ReadinessFailAt(SimTime::MAX);
            a.to_not_ready_trial(index, app, start, SimTime::MAX, seed)
        },
        |prefix, start, change, seed| {
            let app = App::ReadinessFailAt(change);
            a.to_not_ready(prefix, index, app, start, change, seed)
        },
    );
    let samples = samples.map(|runs| {
        runs.into_iter()
            .zip(&plan.jobs)
            .map(|(runs, &(_, _, seed, _))| {
                runs.into_iter()
                    .map(|((v, first), change)| (v, phase_of(&space, first, Some(change), seed)))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    });
    Ok(Figure::of(&by_shift(samples?, plan.group)))
}

/// Whether a disturbance lasting `d` (probes refused, or with `stall` timing out) of the
/// steady, Ready app kills the container or turns the pod not Ready, at any phase.
///
/// # Errors
/// A stuck engine.
pub fn tolerance(
    a: &Analyzer<'_>,
    index: usize,
    d: SimDuration,
    stall: bool,
    sweep: Sweep,
) -> Result<Tolerance, AnalysisError> {
    let space = a.space(index);
    let shifts = a.change_shifts(index);
    let plan = change_plan(a, index)?;
    // Past the disturbance, two of the longest period and timeout decide: the next attempts
    // succeed and reset every failure count.
    let mut after = SimDuration::from_secs(1);
    for p in a.subject().pod.container(index).probes.iter().flatten() {
        after = after.saturating_add(p.period().saturating_add(p.timeout()).saturating_mul(2));
    }
    let app = |change: SimTime| {
        if stall {
            App::StallFor(change, d)
        } else {
            App::FailFor(change, d)
        }
    };
    let trial = |start: SimDuration, change: SimTime, seed: u64| Trial {
        container: index,
        app: app(change),
        start_offset: start,
        seed,
        horizon: change.saturating_add(d).saturating_add(after),
        stop: Stop::Horizon,
    };
    let outcomes = a.sweep_changes(
        &sweep,
        &plan,
        &shifts,
        |start, seed| trial(start, SimTime::MAX, seed),
        |prefix, start, change, seed| {
            let trace = a.run_from(prefix, &trial(start, change, seed), change)?;
            let start = trace.starts.first().copied().unwrap_or(SimTime::ZERO);
            let killed = trace.kills.iter().any(|t| *t >= change);
            let not_ready = trace.pod_ready_at(false, change).is_some();
            Ok(((killed, not_ready, start), Reach::of(&trace, change)))
        },
    );
    let outcomes = outcomes.map(|runs| {
        runs.into_iter()
            .zip(&plan.jobs)
            .map(|(runs, &(_, _, seed, _))| {
                runs.into_iter()
                    .map(|((killed, not_ready, start), change)| {
                        let phase = phase_of(&space, start, Some(change), seed);
                        (killed.then_some(phase), not_ready.then_some(phase))
                    })
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    });
    let outcomes = by_shift(outcomes?, plan.group);
    Ok(Tolerance {
        killed: outcomes.iter().find_map(|o| o.0),
        not_ready: outcomes.iter().find_map(|o| o.1),
    })
}
