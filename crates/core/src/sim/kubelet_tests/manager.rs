//! prober_manager_test.go (docs/rules.md#the-kubelets-own-unit-tests). The engine simulates
//! one pod, so "the manager's map" is the
//! set of live workers of one simulation and several pods are several simulations.

use super::*;

/// The live workers as (container name, probe type), in creation order.
fn alive(sim: &Simulation) -> Vec<(&str, ProbeKind)> {
    sim.prober
        .workers
        .iter()
        .filter(|w| w.alive())
        .map(|w| (sim.pod.container(w.container.index()).name.as_str(), w.kind))
        .collect()
}

/// `RemovePod`: `stop()` on every worker of the pod (P10), as the engine does once a deleted
/// pod's containers are gone.
fn remove_pod(sim: &mut Simulation) {
    for w in sim.prober.workers.ids() {
        sim.stop_worker(w);
    }
}

/// A simulation that has run its first sync, which calls AddPod (P8).
fn added(pod: PodSpec, profile: Profile, sink: &mut VecSink) -> Simulation {
    let behaviours = Behaviours::new(&pod);
    let mut sim = Simulation::new(pod, profile, KubeletConfig::default(), 7, behaviours);
    sim.run_until(SimTime::ZERO, sink).expect("run");
    sim
}

/// `TestAddRemovePods` (prober_manager_test.go): a pod without probes creates no workers; a
/// pod whose containers have one readiness, one liveness and one startup probe creates exactly
/// one worker per probe; removing the unprobed pod changes nothing; removing the probed pod makes
/// all its workers exit; removing it again is a no-op.
///
/// P4, P6 (one worker per container and probe type, in spec order), P8, P10, P13, P20.
#[test]
fn test_add_remove_pods() {
    for profile in profiles(ALL) {
        let mut sink = VecSink::default();
        let no_probes = PodSpec::new("no-probe-pod")
            .with_container(container("no_probe1"))
            .with_container(container("no_probe2"))
            .with_container(container("no_probe3"));
        let unprobed = added(no_probes, profile.clone(), &mut sink);
        assert!(
            unprobed.prober.workers.is_empty(),
            "{}",
            ctx(&profile, "no probes, no workers")
        );
        let probed = PodSpec::new("probe-pod")
            .with_container(container("probe1"))
            .with_container(
                container("readiness").with_probe(ProbeKind::Readiness, default_probe()),
            )
            .with_container(container("probe2"))
            .with_container(container("liveness").with_probe(ProbeKind::Liveness, default_probe()))
            .with_container(container("probe3"))
            .with_container(container("startup").with_probe(ProbeKind::Startup, default_probe()));
        let mut sim = added(probed, profile.clone(), &mut sink);
        let expected = [
            ("readiness", ProbeKind::Readiness),
            ("liveness", ProbeKind::Liveness),
            ("startup", ProbeKind::Startup),
        ];
        assert_eq!(alive(&sim), expected, "{}", ctx(&profile, "added"));
        // The original's "removing the unprobed pod leaves the other's workers" has no
        // counterpart: a simulation holds one pod, so two pods never share workers.
        // Removing the probed pod.
        remove_pod(&mut sim);
        settle(&mut sim, &mut sink);
        assert!(alive(&sim).is_empty(), "{}", ctx(&profile, "removed"));
        assert!(sim.prober.cache.iter().all(Option::is_none));
        // Removing it again.
        remove_pod(&mut sim);
        settle(&mut sim, &mut sink);
        assert!(alive(&sim).is_empty(), "{}", ctx(&profile, "removed twice"));
    }
}

/// `TestAddPodContinuesAfterExistingWorker` (prober_manager_test.go, ≥1.37): two containers
/// with a readiness probe each; container b's worker vanishes while a's still exists; a second
/// AddPod re-creates b's. Through 1.36 AddPod returns at the first existing worker, so b's stays
/// missing; a worker missing *before* every live one is re-created in every minor.
///
/// P7 (≥1.37 skips the existing key, ≤1.36 returns), P6, P9, P20.
#[test]
fn test_add_pod_continues_after_existing_worker() {
    for profile in profiles(ALL) {
        let pod = || {
            PodSpec::new("test-pod")
                .with_container(
                    container("container_a").with_probe(ProbeKind::Readiness, default_probe()),
                )
                .with_container(
                    container("container_b").with_probe(ProbeKind::Readiness, default_probe()),
                )
        };
        let both = [
            ("container_a", ProbeKind::Readiness),
            ("container_b", ProbeKind::Readiness),
        ];
        let mut sink = VecSink::default();
        let mut sim = added(pod(), profile.clone(), &mut sink);
        assert_eq!(alive(&sim), both, "{}", ctx(&profile, "first AddPod"));
        // container_b's worker is gone while container_a's is still present.
        let wb = sim
            .worker_of(ContainerId::new(1), ProbeKind::Readiness)
            .expect("worker");
        sim.exit_worker(wb);
        sim.add_pod();
        if profile.minor() >= 37 {
            assert_eq!(alive(&sim), both, "{}", ctx(&profile, "b re-created"));
        } else {
            assert_eq!(
                alive(&sim),
                [("container_a", ProbeKind::Readiness)],
                "{}",
                ctx(&profile, "b stays missing")
            );
        }
        // container_a's worker is gone instead: AddPod reaches it before any live worker.
        let mut sim = added(pod(), profile.clone(), &mut sink);
        let wa = sim
            .worker_of(ContainerId::new(0), ProbeKind::Readiness)
            .expect("worker");
        sim.exit_worker(wa);
        sim.add_pod();
        assert_eq!(alive(&sim), both, "{}", ctx(&profile, "a re-created"));
    }
}

/// The pod of `TestAddRemovePodsWithRestartableInitContainer`: a regular init container, one
/// init container with all three probes (a sidecar when `restartable`), one regular container.
fn restartable_init_pod(restartable: bool) -> PodSpec {
    let mut probed = container("restartable-init")
        .with_probe(ProbeKind::Liveness, default_probe())
        .with_probe(ProbeKind::Readiness, default_probe())
        .with_probe(ProbeKind::Startup, default_probe());
    probed.restartable = restartable;
    PodSpec::new("restartable-init-container-pod")
        .with_init_container(container("init"))
        .with_init_container(probed)
        .with_container(container("main"))
}

/// `TestAddRemovePodsWithRestartableInitContainer` (prober_manager_test.go, ≥1.28): probes on
/// an init container with `restartPolicy: Always` create three workers, which RemovePod removes
/// (twice is a no-op); without that policy no workers are created.
///
/// P6 (restartable init containers get workers, after the regular containers), P10, P20.
#[test]
fn test_add_remove_pods_with_restartable_init_container() {
    for profile in profiles(28..=NEWEST_MINOR).map(with_sidecars) {
        let mut sink = VecSink::default();
        let mut sim = added(restartable_init_pod(true), profile.clone(), &mut sink);
        let expected = [
            ("restartable-init", ProbeKind::Startup),
            ("restartable-init", ProbeKind::Readiness),
            ("restartable-init", ProbeKind::Liveness),
        ];
        assert_eq!(
            alive(&sim),
            expected,
            "{}",
            ctx(&profile, "pod with sidecar")
        );
        remove_pod(&mut sim);
        settle(&mut sim, &mut sink);
        assert!(alive(&sim).is_empty(), "{}", ctx(&profile, "removed"));
        remove_pod(&mut sim);
        settle(&mut sim, &mut sink);
        assert!(alive(&sim).is_empty(), "{}", ctx(&profile, "removed twice"));

        let sim = added(restartable_init_pod(false), profile.clone(), &mut sink);
        assert!(
            sim.prober.workers.is_empty(),
            "{}",
            ctx(&profile, "pod without sidecar")
        );
    }
}

/// The pods of `TestCleanupPods`: three containers with a readiness, a liveness and a startup
/// probe.
fn three_probers(name: &str) -> PodSpec {
    PodSpec::new(name)
        .with_container(container("prober1").with_probe(ProbeKind::Readiness, default_probe()))
        .with_container(container("prober2").with_probe(ProbeKind::Liveness, default_probe()))
        .with_container(container("prober3").with_probe(ProbeKind::Startup, default_probe()))
}

/// `TestCleanupPods` (prober_manager_test.go): CleanupPods stops every worker of the pods outside
/// the desired set. Keeping the workers of the pods in the set has no counterpart (a simulation
/// holds one pod), so the kept pod here only shows that its workers run on. The engine's own
/// clean-up is also checked end to end: a deleted pod whose containers are gone has no workers
/// left.
///
/// P11, P10, P12 (≥1.23: liveness and startup stop when termination begins), P13, P20.
#[test]
fn test_cleanup_pods() {
    for profile in profiles(ALL) {
        let mut sink = VecSink::default();
        let mut to_clean = added(three_probers("pod-cleanup"), profile.clone(), &mut sink);
        let keep = added(three_probers("pod-keep"), profile.clone(), &mut sink);
        // CleanupPods({pod-keep}).
        remove_pod(&mut to_clean);
        settle(&mut to_clean, &mut sink);
        assert!(
            alive(&to_clean).is_empty(),
            "{}",
            ctx(&profile, "cleaned up")
        );
        assert_eq!(
            alive(&keep),
            [
                ("prober1", ProbeKind::Readiness),
                ("prober2", ProbeKind::Liveness),
                ("prober3", ProbeKind::Startup),
            ],
            "{}",
            ctx(&profile, "kept")
        );

        // End to end: the pod is deleted at 5 s and its containers die at once.
        let pod = three_probers("pod-deleted");
        let behaviours = Behaviours::new(&pod);
        let mut sim = Simulation::new(
            pod,
            profile.clone(),
            KubeletConfig::default(),
            7,
            behaviours,
        );
        sim.delete_at(SimTime::from_secs(5), None);
        let mut sink = VecSink::default();
        sim.run_until(SimTime::from_secs(30), &mut sink)
            .expect("run");
        assert!(
            sink.of_kind("deleted").count() == 1,
            "{}",
            ctx(&profile, "pod removed")
        );
        assert!(
            alive(&sim).is_empty(),
            "{}",
            ctx(&profile, "no workers after deletion")
        );
    }
}

/// `TestCleanupRepeated` (prober_manager_test.go): CleanupPods with an empty desired set, ten
/// times over 100 pods with three workers each, is safe and leaves no worker.
///
/// P11, P13 (stop is idempotent).
#[test]
fn test_cleanup_repeated() {
    for profile in profiles(ALL) {
        let mut sink = VecSink::default();
        let mut pods: Vec<Simulation> = (0..100)
            .map(|i| {
                let pod = PodSpec::new(format!("pod-{i}")).with_container(
                    container("prober1")
                        .with_probe(ProbeKind::Readiness, default_probe())
                        .with_probe(ProbeKind::Liveness, default_probe())
                        .with_probe(ProbeKind::Startup, default_probe()),
                );
                added(pod, profile.clone(), &mut sink)
            })
            .collect();
        assert!(pods.iter().all(|sim| alive(sim).len() == 3));
        for _ in 0..10 {
            for sim in &mut pods {
                remove_pod(sim);
            }
        }
        for sim in &mut pods {
            settle(sim, &mut sink);
        }
        assert!(
            pods.iter().all(|sim| alive(sim).is_empty()),
            "{}",
            ctx(&profile, "all gone")
        );
    }
}

/// A container instance as the runtime (PLEG snapshot) reports it: running, or exited with a
/// code.
fn instance(id: u64, exited: Option<i32>) -> Instances {
    Instances {
        newest: Some(Instance {
            id,
            restart_count: 0,
            started_at: SimTime::ZERO,
            exited: exited.map(|code| (SimTime::ZERO, code)),
        }),
        previous: None,
    }
}

/// `m.workers[key] = &worker{}`: a fake worker the manager sees but that never runs.
fn fake_worker(sim: &mut Simulation, container: usize, kind: ProbeKind) -> WorkerId {
    sim.prober.workers.push(Worker {
        state: Lifecycle::Sleeping,
        ..Worker::idle(ContainerId::new(container), kind, SimDuration::from_secs(1))
    });
    sim.prober.cache.push(None);
    sim.shortcuts.agenda.push(sim.prober.workers.as_slice());
    sim.prober.worker_by[ContainerId::new(container)][kind.index()]
        .get_or_insert(WorkerId::new(sim.prober.workers.len() - 1));
    sim.shortcuts.is_dirty.push(false);
    sim.shortcuts.listed.push(false);
    sim.shortcuts.steady.push(None);
    sim.shortcuts.lane.push_worker();
    WorkerId::new(sim.prober.workers.len() - 1)
}

/// `m.UpdatePodStatus(pod, status)`: the engine runs it as part of the status generation of a
/// pod sync (P8).
fn update_pod_status(sim: &mut Simulation) {
    let mut sink = VecSink::default();
    let mut out = Out {
        sink: &mut sink,
        error: None,
        stop: false,
    };
    sim.generate_status(&mut out);
}

/// `TestUpdatePodStatus` (prober_manager_test.go): readiness of running containers from fake
/// workers and cached results. Only a liveness worker → ready; cached readiness Success →
/// ready; readiness worker without entry → not ready; cached Failure → not ready; startup worker
/// without entry → not started, not ready; cached startup Success and no readiness worker →
/// ready; terminated → not ready even with a cached Success.
///
/// P45 (started, then ready only when started; "no probe ⇒ ready"), and, not in the original,
/// which readiness workers get a manual trigger: none in 1.19/1.20, only the one without an
/// entry in 1.21, every started container that is not ready from 1.22 (P18, P45).
#[test]
fn test_update_pod_status() {
    let names = [
        "unprobed_container",
        "probed_container_ready",
        "probed_container_pending",
        "probed_container_unready",
        "not_started_container_no_readiness",
        "started_container_no_readiness",
        "terminated_container",
    ];
    let probes = [
        ProbeKind::Liveness,
        ProbeKind::Readiness,
        ProbeKind::Readiness,
        ProbeKind::Readiness,
        ProbeKind::Startup,
        ProbeKind::Startup,
        ProbeKind::Readiness,
    ];
    for profile in profiles(ALL) {
        let mut pod = PodSpec::new("test-pod");
        for (name, kind) in names.into_iter().zip(probes) {
            pod = pod.with_container(container(name).with_probe(kind, default_probe()));
        }
        let mut sim = Simulation::new(
            pod.clone(),
            profile.clone(),
            KubeletConfig::default(),
            7,
            Behaviours::new(&pod),
        );
        for w in &mut sim.prober.workers {
            w.state = Lifecycle::Sleeping;
        }
        for c in ContainerId::range(0..names.len()) {
            sim.set_snapshot(c, instance(0, (c.index() == 6).then_some(0)));
        }
        let cache = [
            (1, ProbeKind::Readiness, ProbeResult::Success),
            (3, ProbeKind::Readiness, ProbeResult::Failure),
            (5, ProbeKind::Startup, ProbeResult::Success),
            (6, ProbeKind::Readiness, ProbeResult::Success),
        ];
        for (c, kind, result) in cache {
            let w = sim.worker_of(ContainerId::new(c), kind).expect("worker");
            sim.prober.cache[w] = Some((0, result));
        }
        update_pod_status(&mut sim);
        let ready: Vec<bool> = sim.status.api.containers.iter().map(|s| s.ready).collect();
        assert_eq!(
            ready,
            [true, true, false, false, false, true, false],
            "{}",
            ctx(&profile, "ready")
        );
        let started: Vec<bool> = sim
            .status
            .api
            .containers
            .iter()
            .map(|s| s.started)
            .collect();
        assert_eq!(
            started,
            [true, true, true, true, false, true, false],
            "{}",
            ctx(&profile, "started")
        );
        let triggered = |c: usize| {
            let w = sim
                .worker_of(ContainerId::new(c), ProbeKind::Readiness)
                .expect("worker");
            sim.prober.workers[w].pending_trigger
        };
        let minor = profile.minor();
        assert!(!triggered(1), "{}", ctx(&profile, "ready: no trigger"));
        assert_eq!(
            triggered(2),
            minor >= 21,
            "{}",
            ctx(&profile, "pending: trigger")
        );
        assert_eq!(
            triggered(3),
            minor >= 22,
            "{}",
            ctx(&profile, "unready: trigger")
        );
        assert!(!triggered(6), "{}", ctx(&profile, "terminated: no trigger"));
    }
}

/// The three init containers of `TestUpdatePodStatusWithInitContainers`, as sidecars or not,
/// with fake startup workers on the first two and a cached startup Success for the second.
fn init_container_status(profile: Profile, restartable: bool) -> Simulation {
    let mut pod = PodSpec::new("test-pod");
    for name in [
        "not_started_container",
        "started_container",
        "terminated_container",
    ] {
        let mut c = container(name);
        c.restartable = restartable;
        pod = pod.with_init_container(c);
    }
    let mut sim = Simulation::new(
        pod.clone(),
        profile,
        KubeletConfig::default(),
        7,
        Behaviours::new(&pod),
    );
    fake_worker(&mut sim, 0, ProbeKind::Startup);
    let started = fake_worker(&mut sim, 1, ProbeKind::Startup);
    sim.prober.cache[started] = Some((0, ProbeResult::Success));
    sim.set_snapshot(ContainerId::new(0), instance(0, None));
    sim.set_snapshot(ContainerId::new(1), instance(0, None));
    sim.set_snapshot(ContainerId::new(2), instance(0, Some(0)));
    update_pod_status(&mut sim);
    sim
}

/// `TestUpdatePodStatusWithInitContainers` (prober_manager_test.go, ≥1.28): regular init
/// containers: not started (startup worker, no entry) → started false, ready false; startup
/// Success → started true but ready false; terminated with exit 0 → started false, ready true.
/// Sidecars: not started → false/false; started, no readiness worker → true/true; terminated →
/// false/false.
///
/// P46 (≥1.28: started per P45.1 for every init container; a regular one is ready once it exited
/// 0; a sidecar's ready per P45.3), P45.
#[test]
fn test_update_pod_status_with_init_containers() {
    for profile in profiles(28..=NEWEST_MINOR).map(with_sidecars) {
        let sim = init_container_status(profile.clone(), false);
        let started: Vec<bool> = sim
            .status
            .api
            .init_containers
            .iter()
            .map(|s| s.started)
            .collect();
        let ready: Vec<bool> = sim
            .status
            .api
            .init_containers
            .iter()
            .map(|s| s.ready)
            .collect();
        assert_eq!(
            started,
            [false, true, false],
            "{}",
            ctx(&profile, "init: started")
        );
        assert_eq!(
            ready,
            [false, false, true],
            "{}",
            ctx(&profile, "init: ready")
        );

        let sim = init_container_status(profile.clone(), true);
        let started: Vec<bool> = sim
            .status
            .api
            .init_containers
            .iter()
            .map(|s| s.started)
            .collect();
        let ready: Vec<bool> = sim
            .status
            .api
            .init_containers
            .iter()
            .map(|s| s.ready)
            .collect();
        assert_eq!(
            started,
            [false, true, false],
            "{}",
            ctx(&profile, "sidecar: started")
        );
        assert_eq!(
            ready,
            [false, true, false],
            "{}",
            ctx(&profile, "sidecar: ready")
        );
    }
}

/// Not a kubelet test: the ≤1.27 rule the original's ≥1.28 expectations replaced. Before 1.28
/// `UpdatePodStatus` only sets `ready` for init containers (Terminated with exit code 0) and
/// never sets `started`, so a running init container shows `started` unset (false).
///
/// P46 (≤1.27).
#[test]
fn test_update_pod_status_with_init_containers_before_1_28() {
    for profile in profiles(OLDEST_MINOR..=27) {
        let mut pod = PodSpec::new("test-pod")
            .with_init_container(container("running_container"))
            .with_init_container(container("terminated_container"));
        pod = pod.with_container(container("main"));
        let mut sim = Simulation::new(
            pod.clone(),
            profile.clone(),
            KubeletConfig::default(),
            7,
            Behaviours::new(&pod),
        );
        sim.set_snapshot(ContainerId::new(0), instance(0, None));
        sim.set_snapshot(ContainerId::new(1), instance(0, Some(0)));
        update_pod_status(&mut sim);
        let started: Vec<bool> = sim
            .status
            .api
            .init_containers
            .iter()
            .map(|s| s.started)
            .collect();
        let ready: Vec<bool> = sim
            .status
            .api
            .init_containers
            .iter()
            .map(|s| s.ready)
            .collect();
        assert_eq!(ready, [false, true], "{}", ctx(&profile, "init: ready"));
        assert_eq!(
            started,
            [false, false],
            "{}",
            ctx(&profile, "init: started never set")
        );
    }
}

/// `TestUpdateReadiness` (prober_manager_test.go): end to end with a real readiness worker and
/// the kubelet's handling of readiness updates: the container becomes ready while the prober
/// succeeds and unready once it fails.
///
/// P42 (updates on change), P44 (the readiness update writes `ready` into the status view;
/// ≥1.21 by the kubelet sync loop, 1.19 by the manager's own loop), P34.
#[test]
fn test_update_readiness() {
    for profile in profiles(ALL) {
        let pod = test_pod(ProbeKind::Readiness, exec_probe(|_| {}));
        let mut behaviours = Behaviours::new(&pod);
        let b = behaviours.add(Box::new(|a: &Attempt| {
            Response::now(if a.now < SimTime::from_secs(10) {
                SUCCESS
            } else {
                FAILURE
            })
        }));
        behaviours.bind(0, ProbeKind::Readiness, b);
        let mut sim = Simulation::new(
            pod,
            profile.clone(),
            KubeletConfig::default(),
            7,
            behaviours,
        );
        let mut sink = VecSink::default();
        sim.run_until(SimTime::from_millis(9500), &mut sink)
            .expect("run");
        assert!(
            sim.status().containers[0].ready,
            "{}",
            ctx(&profile, "ready")
        );
        sim.run_until(SimTime::from_secs(12), &mut sink)
            .expect("run");
        assert!(
            !sim.status().containers[0].ready,
            "{}",
            ctx(&profile, "unready")
        );
    }
}
