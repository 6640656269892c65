//! What fast-forward's detector costs a run that does not repeat (docs/fast-forward.md#what-it-costs):
//! a run whose generator keeps drawing is never recorded, a run that never repeats compares
//! ever more rarely, and a run that becomes periodic after a long stretch of failed comparisons
//! still jumps, with the step-by-step run's counts.

use std::convert::Infallible;

use super::*;
use crate::behaviour::Answer;
use crate::cycle::Visitor;
use crate::sink::CountSink;
use crate::spec::{ContainerSpec, ProbeSpec, ProbeTiming};

/// A readiness answer that flips at every request (so the pod syncs every second), and whose
/// state, as it tells fast-forward, is the number of answers up to `settles_at` (past it,
/// only the parity): it never repeats before, and repeats every two answers after.
struct Flipping {
    answered: u64,
    settles_at: u64,
    /// Draw from the generator at each of the first `draws` requests.
    draws: u64,
}

impl Behaviour for Flipping {
    fn respond(&mut self, _: &Attempt) -> Response {
        self.answered += 1;
        Response::now(Answer::Status(if self.answered % 2 == 0 {
            200
        } else {
            500
        }))
    }

    fn respond_drawing(&mut self, attempt: &Attempt, draws: &mut Draws<'_>) -> Response {
        if self.answered < self.draws {
            let _ = draws.below(2);
        }
        self.respond(attempt)
    }

    fn shortcuts(&mut self) -> Option<&mut dyn BehaviourShortcuts> {
        Some(self)
    }
}

impl BehaviourShortcuts for Flipping {
    fn visit_cycle(&mut self, v: &mut dyn Visitor, _instances: Option<u64>) -> bool {
        v.exact(self.answered.min(self.settles_at));
        v.exact(self.answered % 2);
        if self.answered >= self.settles_at {
            v.count(&mut self.answered, None, u64::MAX);
        }
        true
    }

    fn reads_uptime(&self) -> bool {
        false
    }
}

/// A pod of one container probed for readiness every second by [`Flipping`], run for `hours`:
/// the simulation and its counts.
fn run(flipping: Flipping, hours: u64, fast_forward: bool) -> (Simulation, CountSink) {
    let timing = ProbeTiming {
        period_seconds: 1,
        failure_threshold: 1,
        ..ProbeTiming::default()
    };
    let probe = ProbeSpec::new(super::tests::http(), timing).expect("valid probe");
    let pod = PodSpec::new("p").with_container(
        ContainerSpec::new("app", "example/app:1.0").with_probe(ProbeKind::Readiness, probe),
    );
    let mut behaviours = Behaviours::new(&pod);
    let i = behaviours.add(Box::new(flipping));
    behaviours.bind(0, ProbeKind::Readiness, i);
    let mut sim = Simulation::new(
        pod,
        Profile::newest(),
        KubeletConfig::default(),
        0,
        behaviours,
    );
    sim.set_fast_forward(fast_forward);
    let mut sink = CountSink::default();
    let end: Result<RunEnd, RunError<Infallible>> =
        sim.run_until(SimTime::from_secs(hours * 3600), &mut sink);
    end.expect("the run settles");
    (sim, sink)
}

fn never(draws: u64) -> Flipping {
    Flipping {
        answered: 0,
        settles_at: u64::MAX,
        draws,
    }
}

/// The counts of two runs are the same.
fn same_counts(a: &CountSink, b: &CountSink) {
    assert_eq!(a.per_container, b.per_container);
    assert_eq!((a.probes, a.total), (b.probes, b.total));
}

#[test]
fn a_run_that_never_repeats_compares_ever_more_rarely() {
    // Without the back-off, a comparison every few syncs: 16 times the run, 16 times the
    // comparisons. With it, they grow as a power of the run's length below one.
    let (day, _) = run(never(0), 24, true);
    let (days, sink) = run(never(0), 16 * 24, true);
    let (short, long) = (day.cycle.compared, days.cycle.compared);
    eprintln!("{short} comparisons in a day, {long} in 16");
    assert!(short > 20, "{short} comparisons in a day");
    assert!(
        long < 7 * short,
        "{short} comparisons in a day, {long} in 16"
    );
    assert_eq!(days.fast_forwarded(), SimDuration::ZERO);
    same_counts(&sink, &run(never(0), 16 * 24, false).1);
}

#[test]
fn a_run_whose_generator_draws_is_not_recorded() {
    // Every request draws: no state can come back, and none is recorded.
    let (sim, sink) = run(never(u64::MAX), 48, true);
    // (Only the syncs before the first probe, which draw nothing, may be.)
    eprintln!("{} compared, {} not", sim.cycle.compared, sim.cycle.drawn);
    assert!(sim.cycle.compared <= 1, "{} compared", sim.cycle.compared);
    assert!(sim.cycle.drawn > 500, "{} syncs", sim.cycle.drawn);
    same_counts(&sink, &run(never(u64::MAX), 48, false).1);
}

#[test]
fn a_run_that_settles_after_the_back_off_still_jumps() {
    // A day of failed comparisons (the first 40,000 requests draw, the next 50,000 never
    // repeat), then a cycle of two seconds: found and jumped, with the step-by-step counts.
    let settling = || Flipping {
        answered: 0,
        settles_at: 90_000,
        draws: 40_000,
    };
    let (sim, sink) = run(settling(), 30 * 24, true);
    eprintln!("{} compared, {} not", sim.cycle.compared, sim.cycle.drawn);
    assert!(sim.cycle.drawn > 100, "{} syncs drew", sim.cycle.drawn);
    assert!(
        sim.fast_forwarded() > SimDuration::from_secs(25 * 24 * 3600),
        "jumped only {:?}",
        sim.fast_forwarded()
    );
    same_counts(&sink, &run(settling(), 30 * 24, false).1);
}
