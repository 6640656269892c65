//! Runs to the far end of the clock: fast-forward must carry them there in a few jumps, with
//! no counter of the engine's own overflowing on the way. Instance numbers and restart counts
//! are 64 bits inside the engine; the API's `restartCount` (a `u32`) and a worker's run of equal
//! results saturate, in the step-by-step run and in a jump alike.

use std::convert::Infallible;

use super::*;
use crate::cycle::Visitor;
use crate::sink::{CountSink, FastForward};
use crate::spec::{ContainerSpec, ProbeSpec, ProbeTiming, SelfExit};

/// Far enough that a crash loop restarts more than `u32::MAX` times and a healthy probe's run
/// of successes passes `u32::MAX`: 2⁶⁰ ms, half the clock's range.
const FAR: SimTime = SimTime::from_millis(1 << 60);

/// Counts events, and stops the run once the step-by-step run has delivered `budget` of them:
/// a run that falls back to stepping towards [`FAR`] stops instead of running for years. The
/// events a jump moves over are counted by [`CountSink`]'s walk, not here.
struct Bounded {
    inner: CountSink,
    delivered: u64,
    budget: u64,
}

impl Bounded {
    fn new(budget: u64) -> Bounded {
        Bounded {
            inner: CountSink::default(),
            delivered: 0,
            budget,
        }
    }
}

impl Sink for Bounded {
    type Error = Infallible;

    fn event(&mut self, event: &Event<'_>) -> Result<Flow, Infallible> {
        self.delivered += 1;
        self.inner.event(event)?;
        Ok(if self.delivered >= self.budget {
            Flow::Stop
        } else {
            Flow::Continue
        })
    }

    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        Some(self)
    }
}

impl FastForward for Bounded {
    fn visit_cycle(&mut self, v: &mut dyn Visitor) -> bool {
        self.inner.visit_cycle(v)
    }
}

fn simulation(pod: PodSpec, config: KubeletConfig) -> Simulation {
    let behaviours = Behaviours::new(&pod);
    Simulation::new(pod, Profile::newest(), config, 0, behaviours)
}

/// Runs to [`FAR`]; the simulation and the sink.
fn run_far(mut sim: Simulation) -> (Simulation, Bounded) {
    let mut sink = Bounded::new(1_000_000);
    let end = sim.run_until(FAR, &mut sink).expect("the run settles");
    assert!(
        matches!(end, RunEnd::Horizon),
        "stepped {} events without reaching the horizon (fast-forward {:?})",
        sink.delivered,
        sim.fast_forwarded()
    );
    (sim, sink)
}

#[test]
fn a_crash_loop_reaches_the_end_of_the_clock_with_its_restart_count_saturated() {
    // R27, R28: a container that exits a second after each start, under a 1 s back-off cap,
    // restarts every few seconds: more than u32::MAX times before FAR.
    let mut c = ContainerSpec::new("app", "example/app:1.0");
    c.app.exit = Some(SelfExit {
        code: 1,
        after: SimDuration::from_secs(1),
    });
    let config = KubeletConfig {
        max_container_restart_period: Some(SimDuration::from_secs(1)),
        ..KubeletConfig::default()
    };
    let (sim, sink) = run_far(simulation(PodSpec::new("crash").with_container(c), config));
    assert!(sim.fast_forwarded() > FAR.saturating_since(SimTime::from_secs(3600 * 24)));
    assert_eq!(sim.status().containers[0].restart_count, u32::MAX);
    // The starts counted through the jumps: far more than a u32 can hold.
    assert!(sink.inner.count("app", "start") > u64::from(u32::MAX));
    assert!(sink.delivered < 1_000_000);
}

#[test]
fn a_healthy_pod_reaches_the_end_of_the_clock() {
    // P34: a liveness probe every 10 s succeeds more than u32::MAX times in a row; the run of
    // equal results saturates and decides nothing past the threshold.
    let probe = ProbeSpec::new(super::tests::http(), ProbeTiming::default()).expect("valid probe");
    let c = ContainerSpec::new("app", "example/app:1.0")
        .with_probe(ProbeKind::Liveness, probe.clone())
        .with_probe(ProbeKind::Readiness, probe);
    let (sim, sink) = run_far(simulation(
        PodSpec::new("healthy").with_container(c),
        KubeletConfig::default(),
    ));
    assert!(sim.fast_forwarded() > FAR.saturating_since(SimTime::from_secs(3600 * 24)));
    assert!(sink.inner.probes > u64::from(u32::MAX));
    assert_eq!(sim.status().containers[0].restart_count, 0);
}
