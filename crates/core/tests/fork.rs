//! `Simulation::fork`: a fork taken at any instant runs on exactly as the original does, and
//! shares nothing with it (docs/analysis.md, "Cost": the change trials fork a pod's healthy
//! start). The inputs come from `probesim_core::proptest`: pods with init containers and
//! sidecars, answer tables that keep a position (a behaviour with state), seeded kubelet
//! jitter, deletions and kubelet restarts.

use ::proptest::prelude::*;
use ::proptest::test_runner::FileFailurePersistence;
use probesim_core::proptest::{case, Case};
use probesim_core::{
    Answer, Attempt, PodStatus, Record, Response, RunEnd, RunError, SimTime, Simulation, VecSink,
};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 96,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/fork.txt",
        ))),
        ..ProptestConfig::default()
    }
}

/// Runs `sim` to `until`, keeping its records; `false` when it stopped short (a step budget).
fn advance(sim: &mut Simulation, until: SimTime, sink: &mut VecSink) -> bool {
    match sim.run_until(until, sink) {
        Ok(RunEnd::Horizon) => true,
        Ok(RunEnd::Stopped) | Err(RunError::StepBudget { .. }) => false,
        Err(RunError::Sink(never)) => match never {},
    }
}

/// One run of the case to the horizon: its records and final status.
fn whole(case: &Case, horizon: SimTime) -> (Vec<Record>, PodStatus) {
    let mut sim = case.simulation();
    let mut sink = VecSink::default();
    advance(&mut sim, horizon, &mut sink);
    (sink.records, sim.status().clone())
}

proptest! {
    #![proptest_config(config())]

    /// A fork taken at a random instant and run to the horizon gives the events and the final
    /// status of the original run, even when the original is run to the horizon first: the
    /// engine state, the seeded generator (P14 jitter, R6 resync jitter) and the behaviours'
    /// own state (an answer table's position) are copied, not shared.
    #[test]
    fn a_fork_runs_on_as_the_original(
        case in case(),
        horizon in (600_u64..=1800).prop_map(SimTime::from_secs),
        cut in 0_u64..=1_800_000,
    ) {
        let cut = SimTime::from_millis(cut.min(horizon.as_millis()));
        let (records, status) = whole(&case, horizon);
        let mut parent = case.simulation();
        let mut prefix = VecSink::default();
        prop_assume!(advance(&mut parent, cut, &mut prefix));
        let mut fork = parent.fork().expect("answer tables fork");
        prop_assert_eq!(fork.now(), parent.now());
        // The original goes on first: a fork sharing its state would start from the horizon,
        // or find the answer tables and the generator moved on.
        let mut rest = prefix.clone();
        advance(&mut parent, horizon, &mut rest);
        prop_assert_eq!(&rest.records, &records);
        prop_assert_eq!(parent.status(), &status);
        let mut forked = prefix;
        advance(&mut fork, horizon, &mut forked);
        prop_assert_eq!(&forked.records, &records);
        prop_assert_eq!(fork.status(), &status);
    }

    /// A simulation with a behaviour that cannot be copied (a closure) has no fork.
    #[test]
    fn a_closure_behaviour_cannot_fork(case in case()) {
        let mut behaviours = case.behaviours();
        behaviours.add(Box::new(|_: &Attempt| Response::now(Answer::Ok)));
        let sim = Simulation::new(
            case.pod.clone(),
            case.profile.clone(),
            case.kubelet,
            case.seed,
            behaviours,
        );
        prop_assert!(sim.fork().is_none());
    }
}
