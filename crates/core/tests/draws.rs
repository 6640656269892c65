//! Behaviours draw from the simulation's one seeded generator (docs/script-language.md#randomness):
//! the same seed gives the same timeline, another seed another one, and a behaviour that draws
//! nothing leaves the engine's own draws (P5 initial delays, R6 and R8 requeue jitter) as they
//! were.

use probesim_core::{
    Answer, Attempt, Behaviours, ContainerSpec, Drawing, Draws, Handler, KubeletConfig, PodSpec,
    Port, ProbeKind, ProbeSpec, ProbeTiming, Profile, Response, Scheme, SimDuration, SimTime,
    Simulation, VecSink,
};

fn pod() -> PodSpec {
    let liveness = ProbeSpec::new(
        Handler::HttpGet {
            scheme: Scheme::Http,
            host: None,
            port: Port::Number(8080),
            path: "/".into(),
        },
        ProbeTiming::default(),
    )
    .unwrap();
    PodSpec::new("kubia").with_container(
        ContainerSpec::new("kubia", "luksa/kubia").with_probe(ProbeKind::Liveness, liveness),
    )
}

/// The timeline's lines, with a liveness probe answered by `behaviour`.
fn timeline(seed: u64, behaviour: Box<dyn probesim_core::Behaviour>) -> Vec<String> {
    let pod = pod();
    let mut behaviours = Behaviours::new(&pod);
    let app = behaviours.add(behaviour);
    behaviours.bind(0, ProbeKind::Liveness, app);
    let mut sim = Simulation::new(
        pod,
        Profile::newest(),
        KubeletConfig::default(),
        seed,
        behaviours,
    );
    let mut sink = VecSink::default();
    sim.run_until(SimTime::from_secs(600), &mut sink).unwrap();
    sink.records.iter().map(|r| format!("{r:?}")).collect()
}

/// Fails one request in three, at random, after a random latency below 2 s.
fn flaky() -> Box<dyn probesim_core::Behaviour> {
    Box::new(Drawing(|_: &Attempt, draws: &mut Draws<'_>| Response {
        answer: if draws.below(3) == 0 {
            Answer::Status(500)
        } else {
            Answer::Status(200)
        },
        latency: SimDuration::from_millis(draws.below(2000)),
    }))
}

#[test]
fn random_behaviours_replay_per_seed_and_differ_across_seeds() {
    let a = timeline(1, flaky());
    assert_eq!(a, timeline(1, flaky()));
    assert_ne!(a, timeline(2, flaky()));
    assert!(
        a.iter().any(|line| line.contains("500")),
        "some request failed"
    );
}

#[test]
fn a_behaviour_that_draws_nothing_leaves_the_generator_alone() {
    // The same answers, once through `respond` and once through a drawing closure that draws
    // nothing: the engine's draws, and so the timelines, are the same.
    let plain = |_: &Attempt| Response::now(Answer::Ok);
    let drawing = Drawing(|_: &Attempt, _: &mut Draws<'_>| Response::now(Answer::Ok));
    assert_eq!(timeline(5, Box::new(plain)), timeline(5, Box::new(drawing)));
}
