//! The incremental status generation against a full one: the same pod run twice, once
//! recomputing only the containers whose status inputs changed and once recomputing every
//! container at every sync, must give the same events, status and status view at every step
//! (R11, R36–R45, P44–P46). Debug builds also check, at every generation, that each container
//! left out would recompute to what it has (`status::check_unmarked`).

use super::tests::http;
use super::*;
use crate::behaviour::Answer;
use crate::profile::{NEWEST_MINOR, OLDEST_MINOR};
use crate::sink::VecSink;
use crate::spec::{ContainerSpec, ProbeSpec, ProbeTiming, SelfExit};

fn probe(period: i32, failure_threshold: i32) -> ProbeSpec {
    let timing = ProbeTiming {
        period_seconds: period,
        failure_threshold,
        ..ProbeTiming::default()
    };
    ProbeSpec::new(http(), timing).expect("valid probe")
}

fn container(name: &str) -> ContainerSpec {
    ContainerSpec::new(name, "example/app:1.0")
}

/// A pod that exercises every status input: an init container that exits 0, a sidecar with
/// startup and readiness probes, containers whose readiness flaps, one killed by its liveness
/// probe (restarts, back-off), one held by a slow startup probe, one that exits by itself and
/// one without probes. Without the sidecar gate the sidecar would be an init container that
/// never ends: it is left out then.
fn mixed_pod(policy: RestartPolicy, sidecars: bool) -> PodSpec {
    let mut setup = container("setup");
    setup.app.exit = Some(SelfExit {
        code: 0,
        after: SimDuration::from_secs(3),
    });
    let mut sidecar = container("proxy")
        .with_probe(ProbeKind::Startup, probe(2, 3))
        .with_probe(ProbeKind::Readiness, probe(3, 1));
    sidecar.restartable = true;
    let flapping = |name: &str| {
        container(name)
            .with_probe(ProbeKind::Readiness, probe(2, 1))
            .with_probe(ProbeKind::Liveness, probe(5, 3))
    };
    let mut exits = container("batch").with_probe(ProbeKind::Readiness, probe(1, 1));
    exits.app.exit = Some(SelfExit {
        code: 3,
        after: SimDuration::from_secs(25),
    });
    let mut pod = PodSpec::new("mixed").with_init_container(setup);
    if sidecars {
        pod = pod.with_init_container(sidecar);
    }
    pod = pod
        .with_container(flapping("web-0"))
        .with_container(flapping("web-1"))
        .with_container(container("dying").with_probe(ProbeKind::Liveness, probe(2, 2)))
        .with_container(
            container("slow")
                .with_probe(ProbeKind::Startup, probe(4, 10))
                .with_probe(ProbeKind::Readiness, probe(2, 1)),
        )
        .with_container(exits)
        .with_container(container("plain"));
    pod.restart_policy = policy;
    pod
}

/// Answers by request number within the instance (1-based).
fn per_instance(f: impl Fn(u32) -> u16 + 'static) -> Box<dyn Behaviour> {
    let (mut instance, mut n) = (u64::MAX, 0);
    Box::new(move |a: &Attempt| {
        if a.instance != instance {
            (instance, n) = (a.instance, 0);
        }
        n += 1;
        Response::now(Answer::Status(f(n)))
    })
}

fn mixed_sim(profile: &Profile, policy: RestartPolicy, full: bool) -> Simulation {
    let pod = mixed_pod(policy, profile.gate(Gate::SidecarContainers));
    let mut behaviours = Behaviours::new(&pod);
    let bind = [
        (
            "web-0",
            ProbeKind::Readiness,
            per_instance(|n| if (n / 3) % 2 == 0 { 200 } else { 503 }),
        ),
        (
            "web-1",
            ProbeKind::Readiness,
            per_instance(|n| if n % 4 == 0 { 500 } else { 200 }),
        ),
        (
            "dying",
            ProbeKind::Liveness,
            per_instance(|n| if n <= 3 { 200 } else { 500 }),
        ),
        (
            "slow",
            ProbeKind::Startup,
            per_instance(|n| if n <= 4 { 500 } else { 200 }),
        ),
        (
            "proxy",
            ProbeKind::Readiness,
            per_instance(|n| if n % 5 == 0 { 500 } else { 200 }),
        ),
    ];
    for (name, kind, b) in bind {
        let c = (0..pod.container_count()).find(|&c| pod.container(c).name == name);
        let i = behaviours.add(b);
        if let Some(c) = c {
            behaviours.bind(c, kind, i);
        }
    }
    let kubelet = KubeletConfig {
        started_ago: SimDuration::from_secs(5),
        ..KubeletConfig::default()
    };
    let mut sim = Simulation::new(pod, profile.clone(), kubelet, 11, behaviours);
    sim.status.full = full;
    sim.restart_kubelet_at(SimTime::from_secs(140));
    sim.delete_at(SimTime::from_secs(400), Some(SimDuration::from_secs(5)));
    sim
}

/// Runs both simulations a second at a time and compares them after every step.
fn compare(profile: &Profile, policy: RestartPolicy) -> usize {
    let mut incremental = mixed_sim(profile, policy, false);
    let mut full = mixed_sim(profile, policy, true);
    let (mut a, mut b) = (VecSink::default(), VecSink::default());
    let what = format!("1.{} {policy:?}", profile.minor());
    for s in 1..=460 {
        let at = SimTime::from_secs(s);
        incremental.run_until(at, &mut a).expect("incremental run");
        full.run_until(at, &mut b).expect("full run");
        assert_eq!(a.records, b.records, "{what}: events up to t={s}");
        assert_eq!(
            incremental.status(),
            full.status(),
            "{what}: status at t={s}"
        );
        assert_eq!(
            incremental.status.view, full.status.view,
            "{what}: status view at t={s}"
        );
    }
    a.records.len()
}

// R11, R36–R45, P44–P46: every modelled minor, every restart policy.
#[test]
fn incremental_statuses_match_a_full_recomputation_at_every_step() {
    for minor in OLDEST_MINOR..=NEWEST_MINOR {
        let mut profile = Profile::for_minor(minor).expect("a modelled minor");
        if minor == 28 {
            profile
                .set_gate("SidecarContainers", true)
                .expect("settable in 1.28");
        }
        for policy in [
            RestartPolicy::Always,
            RestartPolicy::OnFailure,
            RestartPolicy::Never,
        ] {
            let events = compare(&profile, policy);
            assert!(events > 500, "1.{minor} {policy:?}: the pod did things");
        }
    }
}

// What the incremental path saves: after the start-up, a sync recomputes only the containers
// whose inputs changed, not every container.
#[test]
fn a_sync_recomputes_only_the_containers_whose_inputs_changed() {
    let mut sim = mixed_sim(&Profile::newest(), RestartPolicy::Always, false);
    let mut sink = VecSink::default();
    sim.run_until(SimTime::from_secs(30), &mut sink)
        .expect("run");
    assert!(
        sim.status.queue.len() < sim.pod.container_count(),
        "queued for the next status: {:?}",
        sim.status.queue
    );
}
